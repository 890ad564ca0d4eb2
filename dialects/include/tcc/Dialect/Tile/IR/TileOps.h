//===- TileOps.h - tile dialect ops -----------------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TILE_IR_TILEOPS_H
#define TCC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"

#define GET_TYPEDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileTypes.h.inc"

namespace mlir::tcc::tile {
/// Checks a grid query's `axis` against the enclosing tile.func's grid_rank.
LogicalResult verifyGridAxis(Operation *op, int32_t axis);
} // namespace mlir::tcc::tile

#define GET_OP_CLASSES
#include "tcc/Dialect/Tile/IR/TileOps.h.inc"

#endif // TCC_DIALECT_TILE_IR_TILEOPS_H
