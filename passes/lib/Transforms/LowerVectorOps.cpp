//===- LowerVectorOps.cpp - tcc-lower-vector-ops pass ---------------------===//
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCLOWERVECTOROPS
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {
struct TccLowerVectorOpsPass
    : public tcc::impl::TccLowerVectorOpsBase<TccLowerVectorOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorInsertExtractStridedSliceDecompositionPatterns(
        patterns);
    vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    // mma fragments are 2-D (vector<4x2xf16>): flatten them with
    // extracts/inserts rather than n-D shape casts.
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
