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

namespace mlir::tcc {
/// Shared verifier of the elementwise binary ops: equal element types and
/// compatible shapes across lhs, rhs and result.
LogicalResult verifyElementwiseBinary(Operation *op);
/// Shared verifier of the reductions: `dims` sorted, unique, in range and
/// non-empty; the result type is the input type with `dims` removed (or set
/// to 1 with `keepdims`).
LogicalResult verifyReduction(Operation *op, ArrayRef<int64_t> dims,
                              bool keepdims);
/// Shared verifier of reduce_argmax/argmin: `dim` in range; `values` and
/// `indices` are the input shape without `dim` (or with it set to 1 under
/// `keepdims`); `values` has the input element type.
LogicalResult verifyArgReduction(Operation *op, int64_t dim, bool keepdims);

namespace OpTrait {
/// Runs `ConcreteType::verifyEarly()` among the trait verifiers, i.e. before
/// later-listed traits such as `Elementwise`, whose message is less precise.
template <typename ConcreteType>
class EarlyVerifier
    : public ::mlir::OpTrait::TraitBase<ConcreteType, EarlyVerifier> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return cast<ConcreteType>(op).verifyEarly();
  }
};
} // namespace OpTrait
} // namespace mlir::tcc

#define GET_OP_CLASSES
#include "tcc/Dialect/Tcc/IR/TccOps.h.inc"

#endif // TCC_DIALECT_TCC_IR_TCCOPS_H
