//===- TccDialect.h - tcc tensor dialect ------------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TCC_IR_TCCDIALECT_H
#define TCC_DIALECT_TCC_IR_TCCDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "tcc/Dialect/Tcc/IR/TccDialect.h.inc"

#endif // TCC_DIALECT_TCC_IR_TCCDIALECT_H
