//===- TccToLinalg.h - tcc to linalg patterns, shared helpers ---*- C++ -*-===//
//
// Private to passes/lib/Conversion/TccToLinalg: the pattern families
// (Elementwise.cpp, Structured.cpp) and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_TCCTOLINALG_TCCTOLINALG_H
#define TCC_CONVERSION_TCCTOLINALG_TCCTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tcc {

/// A `tensor.empty` of `type`. Each dynamic dim takes its size from the first
/// of `shapeSources` (tensors of the same rank) that has it static, else from
/// `tensor.dim` of the first source.
Value createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange shapeSources);

/// Builds the scalar body of an elementwise linalg.generic: gets the block
/// arguments for the inputs (already in the input element types) and returns
/// the value to yield.
using ScalarBodyFn =
    function_ref<Value(OpBuilder &, Location, ValueRange inputs)>;

/// linalg.generic with identity maps over `inputs` (same rank as `type`),
/// writing into a fresh `tensor.empty` of `type`.
Value createElementwiseGeneric(OpBuilder &b, Location loc,
                               RankedTensorType type, ValueRange inputs,
                               ScalarBodyFn body);

/// Scalar conversion between two element types (float/int, any widths) with
/// arith casts; signed semantics for integers, i1 zero-extended.
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

void populateTccElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateTccStructuredToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::tcc

#endif // TCC_CONVERSION_TCCTOLINALG_TCCTOLINALG_H
