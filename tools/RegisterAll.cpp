//===- RegisterAll.cpp - tcc dialects -------------------------------------===//
#include "RegisterAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"

void mlir::tcc::registerTccDialects(DialectRegistry &registry) {
  registry.insert<tcc::TccDialect, tcc::tile::TileDialect>();
}
