//===- ApproxMathToNVVM.cpp - fastmath<afn> exp2 to ex2.approx.ftz --------===//
//
// convert-approx-math-to-nvvm: `math.exp2 fastmath<afn>` on f32 scalars and
// 1-D vectors becomes llvm.nvvm.ex2.approx.ftz.f per element (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "tcc/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_CONVERTAPPROXMATHTONVVM
#include "tcc/Conversion/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

constexpr StringLiteral kEx2Ftz = "llvm.nvvm.ex2.approx.ftz.f";

struct ApproxExp2ToNVVM : public OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::afn))
      return rewriter.notifyMatchFailure(op, "no fastmath<afn>");
    Type type = op.getType();
    auto vector = dyn_cast<VectorType>(type);
    if (!getElementTypeOrSelf(type).isF32() ||
        (vector && (vector.getRank() != 1 || vector.isScalable())))
      return rewriter.notifyMatchFailure(op, "not f32 or a 1-D vector of it");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    StringAttr intrinsic = rewriter.getStringAttr(kEx2Ftz);
    auto ex2 = [&](Value x) {
      return LLVM::CallIntrinsicOp::create(rewriter, loc, f32, intrinsic,
                                           ValueRange{x})
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, ex2(op.getOperand()));
      return success();
    }
    SmallVector<Value> elements;
    for (int64_t i = 0; i < vector.getDimSize(0); ++i)
      elements.push_back(
          ex2(vector::ExtractOp::create(rewriter, loc, op.getOperand(), i)));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vector, elements);
    return success();
  }
};

struct ConvertApproxMathToNVVM
    : public tcc::impl::ConvertApproxMathToNVVMBase<ConvertApproxMathToNVVM> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ApproxExp2ToNVVM>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
