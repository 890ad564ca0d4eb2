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

/// Tensor constants produced by folds become `tcc.constant` so tcc programs
/// stay in the dialect; anything else (scalars, index) goes to arith.
Operation *TccDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (elements && isa<RankedTensorType>(type) && elements.getType() == type)
    return ConstantOp::create(builder, loc, type, elements);
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
