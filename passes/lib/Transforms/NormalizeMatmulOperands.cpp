//===- NormalizeMatmulOperands.cpp - tcc-normalize-matmul-operands --------===//
//
// Contractions that read an operand transposed (x @ w.T, q @ k^T) become a
// transpose of that operand followed by the row-major contraction the GEMM
// schedules read. Not for the Hopper GEMM (its descriptors read either
// layout) nor a B the mma.sync GEMM reads as stored (mmaReadsTransposedB),
// nor attention's K (isAttentionScores: the attention kernel reads it as
// stored).
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCNORMALIZEMATMULOPERANDS
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// A transpose of the last two dims of `value`, as an elementwise generic
/// (a kernel of its own: the transpose form of convert-linalg-to-tile).
Value transposeLastTwo(PatternRewriter &rewriter, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  // (Dynamic sizes, a batch or M, are read off `value`.)
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, value);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<unsigned> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  AffineMap read = AffineMap::getPermutationMap(perm, ctx);
  AffineMap write = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             rewriter, loc, empty.getType(), ValueRange{value},
             ValueRange{empty}, ArrayRef<AffineMap>{read, write}, parallel,
             [](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, args[0]);
             })
      .getResult(0);
}

struct NormalizeOperands : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<std::pair<bool, bool>> transposed = tcc::matmulTransposes(op);
    if (!transposed || (!transposed->first && !transposed->second))
      return failure();
    // The Hopper GEMM reads transposed operands through its descriptors,
    // the mma.sync GEMM a transposed B through order-[0, 1] shared tiles.
    tcc::tile::TargetAttr target = tcc::tile::lookupTarget(op);
    if (tcc::fitsWgmma(op, target))
      return failure();
    // The attention kernel reads Q Kᵀ's K as stored on every target.
    bool transposeB = transposed->second &&
                      !tcc::mmaReadsTransposedB(op, target) &&
                      !tcc::isAttentionScores(op, target);
    if (!transposed->first && !transposeB)
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> inputs(op.getDpsInputs());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned loops = op.getNumLoops();
    bool batched = loops == 4;
    MLIRContext *ctx = op.getContext();
    auto rowMajor = [&](unsigned x, unsigned y) {
      SmallVector<AffineExpr> results;
      if (batched)
        results.push_back(getAffineDimExpr(0, ctx));
      results.append({getAffineDimExpr(x + batched, ctx),
                      getAffineDimExpr(y + batched, ctx)});
      return AffineMap::get(loops, 0, results, ctx);
    };
    if (transposed->first) {
      inputs[0] = transposeLastTwo(rewriter, loc, inputs[0]);
      maps[0] = rowMajor(0, 2);
    }
    if (transposeB) {
      inputs[1] = transposeLastTwo(rewriter, loc, inputs[1]);
      maps[1] = rowMajor(2, 1);
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputsMutable().assign(inputs);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// A batched contraction (b, m, n, k) one of whose operands is shared by
/// the batch (`w @ x` with w [M, K] and x [B, K, N]; read through (m, k) or
/// (k, m), or (k, n) / (n, k) for B) reads that operand broadcast to every
/// batch index first (an elementwise generic: its own kernel, B copies of a
/// GEMM operand), then as a batched GEMM does. (An operand B shared by the
/// batch of A is a 2-D GEMM already: the frontend folds the batch into M.)
struct BroadcastBatchOperand : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumLoops() != 4 || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || tcc::matmulTransposes(op))
      return failure();
    SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
    if (it[0] != utils::IteratorType::parallel ||
        it[1] != utils::IteratorType::parallel ||
        it[2] != utils::IteratorType::parallel ||
        it[3] != utils::IteratorType::reduction)
      return failure();
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineExpr b = getAffineDimExpr(0, ctx);
    auto dims = [&](unsigned x, unsigned y, unsigned z) {
      return AffineMap::get(4, 0, {getAffineDimExpr(x, ctx),
                                   getAffineDimExpr(y, ctx),
                                   getAffineDimExpr(z, ctx)}, ctx);
    };
    auto shared = [&](AffineMap map) {
      return map.getNumResults() == 2 && map.isProjectedPermutation() &&
             !map.isFunctionOfDim(0);
    };
    auto withBatch = [&](AffineMap map) {
      SmallVector<AffineExpr> results = {b};
      llvm::append_range(results, map.getResults());
      return AffineMap::get(4, 0, results, ctx);
    };
    // A GEMM once the shared operand has the batch: C (b, m, n), A (b, m,
    // k) or (b, k, m), B (b, k, n) or (b, n, k), a multiply-accumulate body.
    AffineMap a = shared(maps[0]) ? withBatch(maps[0]) : maps[0];
    AffineMap bm = shared(maps[1]) ? withBatch(maps[1]) : maps[1];
    if (maps[2] != dims(0, 1, 2) ||
        (a != dims(0, 1, 3) && a != dims(0, 3, 1)) ||
        (bm != dims(0, 3, 2) && bm != dims(0, 2, 3)) ||
        !linalg::isaContractionOpInterface(op))
      return failure();
    SmallVector<Value> inputs(op.getDpsInputs());
    bool changed = false;
    for (unsigned i = 0; i < 2; ++i) {
      AffineMap map = maps[i];
      if (!shared(map))
        continue;
      AffineMap batched = withBatch(map);
      auto type = cast<RankedTensorType>(inputs[i].getType());
      Location loc = op.getLoc();
      // The batch (dynamic or not) is the result's.
      SmallVector<OpFoldResult> sizes = {
          tensor::getMixedSize(rewriter, loc, op.getDpsInits()[0], 0)};
      llvm::append_range(sizes,
                         tensor::getMixedSizes(rewriter, loc, inputs[i]));
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
      AffineMap read = AffineMap::get(
          3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
      SmallVector<utils::IteratorType> parallel(3,
                                                utils::IteratorType::parallel);
      inputs[i] = linalg::GenericOp::create(
                      rewriter, loc, empty.getType(), ValueRange{inputs[i]},
                      ValueRange{empty},
                      ArrayRef<AffineMap>{read,
                                          AffineMap::getMultiDimIdentityMap(3, ctx)},
                      parallel,
                      [](OpBuilder &nb, Location l, ValueRange args) {
                        linalg::YieldOp::create(nb, l, args[0]);
                      })
                      .getResult(0);
      maps[i] = batched;
      changed = true;
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputsMutable().assign(inputs);
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

struct TccNormalizeMatmulOperandsPass
    : public tcc::impl::TccNormalizeMatmulOperandsBase<
          TccNormalizeMatmulOperandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BroadcastBatchOperand, NormalizeOperands>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
