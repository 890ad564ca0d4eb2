//===- TccOps.h - tcc tensor dialect ops ------------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TCC_IR_TCCOPS_H
#define TCC_DIALECT_TCC_IR_TCCOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"

#include "tcc/Dialect/Tcc/IR/TccEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tcc/IR/TccAttrs.h.inc"

#define GET_OP_CLASSES
#include "tcc/Dialect/Tcc/IR/TccOps.h.inc"

#endif // TCC_DIALECT_TCC_IR_TCCOPS_H
