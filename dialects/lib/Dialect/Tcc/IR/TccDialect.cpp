//===- TccDialect.cpp - tcc tensor dialect --------------------------------===//
#include "tcc/Dialect/Tcc/IR/TccDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcc;

#include "tcc/Dialect/Tcc/IR/TccDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tcc/IR/TccAttrs.cpp.inc"

void TccDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tcc/Dialect/Tcc/IR/TccOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tcc/Dialect/Tcc/IR/TccAttrs.cpp.inc"
      >();
}

Operation *TccDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
