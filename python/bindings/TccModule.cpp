//===- TccModule.cpp - tcc's Python extension -----------------------------===//
//
// Registers tcc's dialects and passes with the upstream `mlir` bindings. Links
// libMLIRPythonCAPI.so, the one MLIR copy in the Python process.
//
//===----------------------------------------------------------------------===//
#include "mlir-c/IR.h"
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"

#include "RegisterAll.h"

namespace nb = nanobind;

NB_MODULE(_tcc_ext, m) {
  m.doc() = "tcc dialect and pass registration for the MLIR Python bindings";

  m.def(
      "register_dialects",
      [](MlirDialectRegistry registry) {
        mlir::tcc::registerTccDialects(*unwrap(registry));
      },
      nb::arg("registry"),
      "Insert the tcc and tile dialects into an mlir.ir.DialectRegistry.");

  m.def(
      "register_passes", []() { mlir::tcc::registerTccPasses(); },
      "Register tcc's passes so PassManager.parse() knows them.");
}
