//===- FuseElementwise.cpp - tcc-fuse-elementwise pass --------------------===//
//
// Upstream's elementwise fusion patterns with tcc's policy: single-consumer
// producers only, and no reshape propagation.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCFUSEELEMENTWISE
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {
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
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
