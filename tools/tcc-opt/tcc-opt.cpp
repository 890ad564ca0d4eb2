//===- tcc-opt.cpp - mlir-opt with tcc's dialects and passes --------------===//
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "RegisterAll.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tcc::registerTccPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::tcc::registerTccDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tcc optimizer driver: tcc + upstream MLIR\n", registry));
}
