//===- TileDialect.cpp - tile dialect -------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#include "tcc/Dialect/Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileTypes.cpp.inc"

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PtrType>(pointeeType))
    return emitError() << "!tile.ptr: pointee must be an integer, float or "
                          "!tile.ptr type, got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "!tile.ptr: address space must be non-negative, got "
                       << addressSpace;
  return success();
}

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tcc/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tcc/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}
