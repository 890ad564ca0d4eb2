//===- OnlineSoftmax.h - attention's score ops and online softmax ---------===//
//
// What the two attention builders share: AttentionKernel.cpp (mma.sync and
// MFMA, FlashAttention-2) and WgmmaAttentionKernel.cpp (sm_90's wgmma,
// warp-specialized). Both compute, for one program's block of BM query rows
// and each BN-key block j of scores S = Q Kᵀ_j on one accumulator layout:
//
//   X = f(S) · log2(e)              (the score ops in f32; a constant scale
//                                    folded into the factor)
//   m' = max(m, rowmax X);  P = exp2(X - m');  α = exp2(m - m')
//   l = l α + rowsum P;  O α        (then O α + P V_j, the builder's GEMM)
//
// and walk the key blocks the same way (whole blocks unmasked, a partial
// last one masked; causal: the blocks before the program's first row without
// the mask, the diagonal's with it, none past it).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_LINALGTOTILE_ONLINESOFTMAX_H
#define TCC_CONVERSION_LINALGTOTILE_ONLINESOFTMAX_H

#include "LinalgToTile.h"

namespace mlir::tcc {

/// One program's online softmax over its [BM, BN] score blocks, on the
/// accumulator layout `acc` of both products.
class OnlineSoftmax {
public:
  OnlineSoftmax(const AttentionOps &chain, ArrayRef<Value> inputArgs,
                Attribute acc, int64_t blockM, int64_t blockN, Location loc);

  /// The program's batch and first query row (set before building a tile).
  void place(Value batchIndex, Value m0) {
    batch = batchIndex;
    firstRow = m0;
  }
  /// The causal mask's compare among the score ops (`where(m >= n, s,
  /// -inf)` on positions), or null.
  arith::CmpIOp causal() const { return causalCompare; }
  int64_t keys() const { return n; }

  /// X = f(S) · log2(e) of score block `s` at keys from `j`; `masked`: the
  /// keys from n on are -inf (a partial last block); `alwaysTrue`: the
  /// causal compare, known true for this block.
  FailureOr<Value> scores(OpBuilder &b, Value s, Value j, bool masked,
                          Operation *alwaysTrue);

  struct Update {
    Value m, l;   // the new running max and sum
    Value oScaled; // O α
    Value p;      // P in the operands' type, on the accumulator layout
    Value alpha;  // α = exp2(m - m'), per row
  };
  /// One block's update; `oPrev` null: O α is left to the builder (rescale).
  Update update(OpBuilder &b, Value x, Value mPrev, Value lPrev, Value oPrev);
  /// O α (α per row).
  Value rescale(OpBuilder &b, Value o, Value alpha);

  /// The initial (m, l, O): -inf, 0, 0.
  SmallVector<Value> initialState(OpBuilder &b, int64_t dv);
  /// O / l and the chain's epilogue (its cast) on it.
  FailureOr<Value> finish(OpBuilder &b, Value o, Value l, int64_t dv);

  /// The loops over the key blocks of the program at m0, carrying `state`
  /// (its first three values (m, l, O), then the builder's): `step` builds
  /// one block at keys from j. Whole blocks run unmasked and a partial last
  /// one masked; with the causal mask, [0, m0) without it, [m0, min(m0 +
  /// BM, n)) with it. `first`, if given, builds the block at keys 0 (a
  /// software-pipelined loop's prologue, which may append to
  /// the state what the steps carry) and `step` the others.
  using Step = function_ref<FailureOr<SmallVector<Value>>(
      OpBuilder &, Value j, ValueRange iter, bool masked,
      Operation *alwaysTrue)>;
  LogicalResult walk(OpBuilder &b, SmallVector<Value> &state, Step step,
                     Step first = nullptr);
  /// The end of the keys the program at m0 reads (n, or min(m0 + BM, n)
  /// causal): the producer of a warp-specialized kernel walks [0, end).
  Value keysEnd(OpBuilder &b);

private:
  Value positions(OpBuilder &b, Value j, unsigned dim);
  FailureOr<Value> loadScoreOperand(OpBuilder &b, linalg::GenericOp op,
                                    OpOperand *operand, Value j);
  Value splat(OpBuilder &b, double value, RankedTensorType type);
  Value broadcastRows(OpBuilder &b, Value row, int64_t columns);

  AttentionOps chain; // (op handles: a copy)
  ArrayRef<Value> inputArgs;
  Attribute acc, rows, cols;
  int64_t blockM, blockN, n;
  Location loc;
  Type element, f32;
  RankedTensorType scoresType, rowType;
  double factor;               // exp2's: log2(e), times a folded scale
  Operation *foldedScale;      // the score op's scale folded into it, or null
  arith::CmpIOp causalCompare;
  Value batch, firstRow;
};

} // namespace mlir::tcc

#endif // TCC_CONVERSION_LINALGTOTILE_ONLINESOFTMAX_H
