//===- TileAttrs.cpp - tile layout encodings ------------------------------===//
#include "tcc/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/IR/DialectImplementation.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#include "tcc/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileAttrs.cpp.inc"

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA,
                            ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "blocked encoding: sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order must have the same rank";
  return success();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tcc/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}
