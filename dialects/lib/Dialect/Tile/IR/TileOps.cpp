//===- TileOps.cpp - tile dialect ops -------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#define GET_OP_CLASSES
#include "tcc/Dialect/Tile/IR/TileOps.cpp.inc"
