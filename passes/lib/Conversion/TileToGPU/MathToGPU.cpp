//===- MathToGPU.cpp - math without device libraries ----------------------===//
//
// With the `expand-math` option, convert-tile-to-gpu leaves no `math` op
// that upstream convert-gpu-to-nvvm / -rocdl would turn into a libdevice /
// OCML call: transcendental functions become upstream's polynomial
// approximations (arith + a few leaf ops), and the leaves become exact
// arith bit tricks or LLVM intrinsics both GPU backends select natively.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

/// `type` with its float element type replaced by the same-width integer.
static Type intTypeLike(Type type) {
  Type elem = getElementTypeOrSelf(type);
  Type intElem = IntegerType::get(type.getContext(),
                                  elem.getIntOrFloatBitWidth());
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.clone(intElem);
  return intElem;
}

static Value intConstant(OpBuilder &b, Location loc, Type intType,
                         const APInt &value) {
  Type elem = getElementTypeOrSelf(intType);
  Attribute attr = IntegerAttr::get(elem, value);
  if (auto vec = dyn_cast<VectorType>(intType))
    attr = SplatElementsAttr::get(vec, attr);
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
}

static APInt signMask(Type type) {
  return APInt::getSignMask(getElementTypeOrSelf(type).getIntOrFloatBitWidth());
}

/// |x| = x with the sign bit cleared.
struct AbsFToBits : public OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type intType = intTypeLike(op.getType());
    Value bits = arith::BitcastOp::create(rewriter, loc, intType, op.getOperand());
    Value cleared = arith::AndIOp::create(
        rewriter, loc, bits,
        intConstant(rewriter, loc, intType, ~signMask(op.getType())));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), cleared);
    return success();
  }
};

/// copysign(a, b) = magnitude bits of a | sign bit of b.
struct CopySignToBits : public OpRewritePattern<math::CopySignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CopySignOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type intType = intTypeLike(op.getType());
    APInt sign = signMask(op.getType());
    Value a = arith::BitcastOp::create(rewriter, loc, intType, op.getLhs());
    Value b = arith::BitcastOp::create(rewriter, loc, intType, op.getRhs());
    a = arith::AndIOp::create(rewriter, loc, a,
                              intConstant(rewriter, loc, intType, ~sign));
    b = arith::AndIOp::create(rewriter, loc, b,
                              intConstant(rewriter, loc, intType, sign));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(
        op, op.getType(), arith::OrIOp::create(rewriter, loc, a, b));
    return success();
  }
};

/// Leaves both backends select to single instructions (fma, trunc, rint,
/// fabs-free): math op -> LLVM intrinsic on the same (scalar or vector) type.
template <typename MathOp, typename LLVMOp>
struct ToIntrinsic : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVMOp>(op, op.getType(),
                                        op->getOperands());
    return success();
  }
};

/// floor(x) = t - (t > x), ceil(x) = t + (t < x), with t = trunc(x).
template <typename MathOp, bool isFloor>
struct RoundingFromTrunc : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type type = x.getType();
    Value t = LLVM::FTruncOp::create(rewriter, loc, type, x);
    Value cmp = arith::CmpFOp::create(
        rewriter, loc,
        isFloor ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, t, x);
    Attribute one = rewriter.getFloatAttr(getElementTypeOrSelf(type), 1.0);
    if (auto vec = dyn_cast<VectorType>(type))
      one = SplatElementsAttr::get(vec, one);
    Value oneV = arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(one));
    Value adjusted =
        isFloor ? arith::SubFOp::create(rewriter, loc, t, oneV).getResult()
                : arith::AddFOp::create(rewriter, loc, t, oneV).getResult();
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, cmp, adjusted, t);
    return success();
  }
};

/// sqrt: IEEE-exact in hardware on both targets (sqrt.rn.f32, v_sqrt),
/// but convert-gpu-to-nvvm turns llvm.intr.sqrt into __nv_sqrtf; a generic
/// intrinsic call keeps it llvm.sqrt.
struct SqrtToIntrinsicCall : public OpRewritePattern<math::SqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::SqrtOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.sqrt"),
        ValueRange{op.getOperand()});
    return success();
  }
};

} // namespace

LogicalResult mlir::tcc::tile_to_gpu::expandMathOps(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  // Functions in terms of others (exp2 -> exp, tanh/sinh/... -> exp, ...).
  math::populateExpansionPatterns(
      patterns, {"exp2", "tan", "sinh", "cosh", "asinh", "acosh", "atanh",
                 "powf", "fpowi", "rsqrt", "roundeven", "round"});
  // exp, log, log2, log1p, expm1, tanh, erf, sin, cos, atan, ... as
  // polynomials; f16/bf16 computed in f32.
  auto all = [](StringRef) { return true; };
  populateMathF32ExpansionPatterns(patterns, all);
  populateMathPolynomialApproximationPatterns(patterns, all);
  patterns.add<AbsFToBits, CopySignToBits,
               ToIntrinsic<math::FmaOp, LLVM::FMAOp>,
               ToIntrinsic<math::TruncOp, LLVM::FTruncOp>, SqrtToIntrinsicCall,
               RoundingFromTrunc<math::FloorOp, true>,
               RoundingFromTrunc<math::CeilOp, false>>(ctx);
  return applyPatternsGreedily(root, std::move(patterns));
}
