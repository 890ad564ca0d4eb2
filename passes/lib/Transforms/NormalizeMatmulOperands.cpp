//===- NormalizeMatmulOperands.cpp - tcc-normalize-matmul-operands --------===//
//
// Contractions that read an operand transposed (x @ w.T, q @ k^T) become a
// transpose of that operand followed by the row-major contraction the GEMM
// schedules read.
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
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
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
    // The Hopper GEMM reads transposed operands through its descriptors.
    if (tcc::fitsWgmma(op, tcc::tile::lookupTarget(op)))
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
    if (transposed->second) {
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

struct TccNormalizeMatmulOperandsPass
    : public tcc::impl::TccNormalizeMatmulOperandsBase<
          TccNormalizeMatmulOperandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<NormalizeOperands>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
