//===- TileOps.h - tile dialect ops -----------------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TILE_IR_TILEOPS_H
#define TCC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"

#define GET_TYPEDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "tcc/Dialect/Tile/IR/TileOps.h.inc"

#endif // TCC_DIALECT_TILE_IR_TILEOPS_H
