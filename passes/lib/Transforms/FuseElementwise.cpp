//===- FuseElementwise.cpp - tcc-fuse-elementwise pass --------------------===//
//
// Upstream's elementwise fusion patterns with tcc's policy: single-consumer
// producers only, and no reshape propagation.
//
//===----------------------------------------------------------------------===//
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
    linalg::ControlFusionFn onlyConsumer = [](OpOperand *fused) {
      return fused->get().hasOneUse();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyConsumer);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
