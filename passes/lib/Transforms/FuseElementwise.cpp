//===- FuseElementwise.cpp - tcc-fuse-elementwise pass --------------------===//
//
// Upstream's elementwise fusion patterns with tcc's policy: single-consumer
// producers only, and no reshape propagation (but past a last-dim softmax
// of regrouped rows).
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCFUSEELEMENTWISE
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// softmax(expand_shape(x)) over a last dim the reshape keeps whole (the
/// rows regrouped: [B·H, S, S] scores viewed as [B, H, S, S]) is
/// expand_shape(softmax(x)): the reshape moves past the softmax, and a
/// collapse of it after (a batched matmul's operand) then folds away, so
/// attention's chain stays in one batched space (tcc::matchAttention).
struct SoftmaxOfRegroupedRows : OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getInput().getDefiningOp<tensor::ExpandShapeOp>();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!expand || int64_t(op.getDimension()) != type.getRank() - 1 ||
        expand.getReassociationIndices().back().size() != 1)
      return failure();
    Location loc = op.getLoc();
    Value source = expand.getSrc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, source),
        sourceType.getElementType());
    auto softmax = linalg::SoftmaxOp::create(
        rewriter, loc, TypeRange{sourceType}, source, empty,
        sourceType.getRank() - 1);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, softmax.getResult()[0], expand.getReassociationIndices(),
        expand.getMixedOutputShape());
    return success();
  }
};

struct TccFuseElementwisePass
    : public tcc::impl::TccFuseElementwiseBase<TccFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Fusing a producer with several users would recompute it per user.
    // Into a contraction only casts and copies (a transpose) fuse: its GEMM
    // schedules read their operands from memory (the tensor-core path takes
    // f16 operands widened in the body; tcc-normalize-matmul-operands
    // re-materializes a fused transpose), so any other prologue (SwiGLU's
    // silu(a) * b before the down projection) stays a kernel of its own.
    linalg::ControlFusionFn onlyConsumer = [](OpOperand *fused) {
      if (!fused->get().hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      if (!consumer || !linalg::isaContractionOpInterface(consumer))
        return true;
      auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
      if (!producer)
        return false;
      Block &body = producer.getRegion().front();
      auto ops = body.without_terminator();
      size_t count = std::distance(ops.begin(), ops.end());
      return count == 0 ||
             (count == 1 && isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
                                arith::ExtSIOp>(*ops.begin()));
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyConsumer);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    patterns.add<SoftmaxOfRegroupedRows>(ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
