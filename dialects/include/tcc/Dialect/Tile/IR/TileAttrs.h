//===- TileAttrs.h - tile layout encodings ----------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TILE_IR_TILEATTRS_H
#define TCC_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"

#include "tcc/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileAttrs.h.inc"

#endif // TCC_DIALECT_TILE_IR_TILEATTRS_H
