//===- ArgReduction.h - reductions to a (value, index) pair -----*- C++ -*-===//
//
// Arg reductions: `x.max(dim)` / `x.argmin(dim)` as TccToLinalg's
// ArgReductionToLinalg writes them, and the partial and final stages
// tcc-split-reduction makes of them. Two results, a value and its index;
// each step of the body chooses between the accumulated pair and the
// element's:
//
//   ^bb0(%in..., %acc: f32, %accIndex: i64):
//     %x = ...(%in...)                                   // the element
//     %i = arith.index_cast (linalg.index d) ...         // and its index
//     %take = ...(%x, %i, %acc, %accIndex)               // the choice
//     linalg.yield (select %take, %x, %acc), (select %take, %i, %accIndex)
//
// The choice, applied to two partial pairs (one as the accumulator, the
// other as the element), is their combine: partial results of any chunks
// of the reduced loops are combined with the body's own comparison and tie
// break (torch's first index, NaN wins), which is how convert-linalg-to-tile
// reduces across threads and tcc-split-reduction across its partials.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_ANALYSIS_ARGREDUCTION_H
#define TCC_ANALYSIS_ARGREDUCTION_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir::tcc {

struct ArgReduction {
  /// The element's value and index (computed in the body from the inputs
  /// and the loop indices, or block arguments).
  Value value, index;
  /// The accumulator's value and index (the inits' block arguments).
  BlockArgument acc, accIndex;
  /// The ops choosing between the accumulator and the element (the yielded
  /// selects and the ops they are computed with from the two pairs and
  /// constants), in body order; the selects are `yieldedValue` /
  /// `yieldedIndex`.
  llvm::SetVector<Operation *> choice;
  Value yieldedValue, yieldedIndex;
  /// The loop indices the element reads: each linalg.index is used only
  /// by arith.index_cast ops to integers, listed with its loop dim.
  SmallVector<std::pair<arith::IndexCastOp, unsigned>> loopIndices;
};

/// `op` as an arg reduction, or nullopt: pure tensors, two
/// inits (an int or float value, an integer index) read through one map,
/// at least one reduced loop, and a body of the form above: the yield is
/// (select(take, x, acc), select(take, i, accIndex)) of one `take`, the
/// choice made of arith ops on x, i, acc, accIndex and constants, the
/// element's ops reading neither the accumulator nor the choice.
std::optional<ArgReduction> matchArgReduction(linalg::GenericOp op);

/// The choice of `r` between (accValue, accIndex) and (value, index),
/// cloned on scalars at `b`'s insertion point (constants from outside the
/// body cloned too): the combined pair.
std::pair<Value, Value> cloneArgChoice(OpBuilder &b, const ArgReduction &r,
                                       Value accValue, Value accIndex,
                                       Value value, Value index);

} // namespace mlir::tcc

#endif // TCC_ANALYSIS_ARGREDUCTION_H
