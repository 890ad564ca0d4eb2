//===- TccOps.cpp - tcc tensor dialect ops --------------------------------===//
#include "tcc/Dialect/Tcc/IR/TccOps.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tcc;

#include "tcc/Dialect/Tcc/IR/TccEnums.cpp.inc"

#define GET_OP_CLASSES
#include "tcc/Dialect/Tcc/IR/TccOps.cpp.inc"
