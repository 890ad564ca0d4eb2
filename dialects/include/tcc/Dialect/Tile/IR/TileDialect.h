//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TILE_IR_TILEDIALECT_H
#define TCC_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "tcc/Dialect/Tile/IR/TileDialect.h.inc"

#endif // TCC_DIALECT_TILE_IR_TILEDIALECT_H
