//===- DecomposeSoftmax.h - softmax as reductions ---------------*- C++ -*-===//
#ifndef TCC_TRANSFORMS_DECOMPOSESOFTMAX_H
#define TCC_TRANSFORMS_DECOMPOSESOFTMAX_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::tcc {
/// Replaces `op` by generics computing it in f32 (or the input type when
/// wider): a max reduction over its dim, a reduction of exp(x - max), and
/// exp(x - max) / sum; returns them in order. (Used by
/// tcc-decompose-softmax, and by convert-linalg-to-tile for last-dim rows
/// too long for registers.)
FailureOr<SmallVector<Operation *>> decomposeSoftmax(linalg::SoftmaxOp op);
} // namespace mlir::tcc

#endif // TCC_TRANSFORMS_DECOMPOSESOFTMAX_H
