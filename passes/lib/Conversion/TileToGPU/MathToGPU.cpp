//===- MathToGPU.cpp - math without device libraries ----------------------===//
//
// With the `expand-math` option, convert-tile-to-gpu rewrites the `math` ops
// that upstream convert-gpu-to-nvvm / -rocdl would turn into libdevice /
// OCML calls: exp, log (and log2/log10/log1p/expm1) and erf become f32
// polynomial approximations (f16/bf16 computed in f32), functions upstream
// expresses through them (exp2, tanh, sinh, cosh, powf, ...) are expanded
// first, and the leaves become exact arith bit tricks or LLVM intrinsics
// both GPU backends select natively. sin/cos/tan-free trigonometry, atan and
// f64 are left as they are.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

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

//===----------------------------------------------------------------------===//
// f32 approximations (Cephes expf/logf, Abramowitz-Stegun 7.1.26 erf),
// written here because upstream's polynomial approximations are not part
// of the MLIR Python bindings' library the pass also links into.
//===----------------------------------------------------------------------===//

/// Builds f32 (or vector-of-f32) arithmetic for the approximations.
class F32Builder {
public:
  F32Builder(PatternRewriter &b, Location loc, Type type)
      : b(b), loc(loc), type(type), intType(intTypeLike(type)) {}

  Value f(double v) {
    Attribute attr = b.getF32FloatAttr(v);
    if (auto vec = dyn_cast<VectorType>(type))
      attr = SplatElementsAttr::get(vec, attr);
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
  }
  Value i(int64_t v) { return intConstant(b, loc, intType, APInt(32, v, true)); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return LLVM::FMAOp::create(b, loc, x, y, z);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value maxf(Value x, Value y) { return arith::MaximumFOp::create(b, loc, x, y); }
  Value minf(Value x, Value y) { return arith::MinimumFOp::create(b, loc, x, y); }
  Value floor(Value x) {
    Value t = LLVM::FTruncOp::create(b, loc, type, x);
    return select(cmp(arith::CmpFPredicate::OGT, t, x), sub(t, f(1.0)), t);
  }
  Value bits(Value x) { return arith::BitcastOp::create(b, loc, intType, x); }
  Value fromBits(Value x) { return arith::BitcastOp::create(b, loc, type, x); }
  Value toInt(Value x) { return arith::FPToSIOp::create(b, loc, intType, x); }
  Value toFloat(Value x) { return arith::SIToFPOp::create(b, loc, type, x); }
  /// 2^k for integer k in [-126, 127].
  Value pow2(Value k) {
    return fromBits(arith::ShLIOp::create(
        b, loc, arith::AddIOp::create(b, loc, k, i(127)), i(23)));
  }
  /// c[0] + x * (c[1] + x * (...)), by Horner with fma.
  Value poly(Value x, ArrayRef<double> c) {
    Value acc = f(c.back());
    for (double coeff : llvm::reverse(c.drop_back()))
      acc = fma(acc, x, f(coeff));
    return acc;
  }

  PatternRewriter &b;
  Location loc;
  Type type, intType;
};

static bool isF32Like(Type type) { return getElementTypeOrSelf(type).isF32(); }

/// 2^n * exp(r) for |r| <= ln2 / 2 and integral n in [-150, 128].
static Value emitScaledExp(F32Builder &m, Value n, Value r) {
  Value p = m.poly(r, {5.0000001201E-1, 1.6666665459E-1, 4.1665795894E-2,
                       8.3334519073E-3, 1.3981999507E-3, 1.9875691500E-4});
  Value y = m.add(m.fma(p, m.mul(r, r), r), m.f(1.0));
  // Scale in two steps: each half of n keeps 2^half normal.
  Value k = m.toInt(n);
  Value k1 = arith::ShRSIOp::create(m.b, m.loc, k, m.i(1));
  Value k2 = arith::SubIOp::create(m.b, m.loc, k, k1);
  return m.mul(m.mul(y, m.pow2(k1)), m.pow2(k2));
}

/// Overflow to +inf above `hi`, underflow to 0 below `lo`, NaN stays NaN.
static Value fixExpRange(F32Builder &m, Value x, Value y, double lo,
                         double hi) {
  using P = arith::CmpFPredicate;
  y = m.select(m.cmp(P::OGT, x, m.f(hi)),
               m.f(std::numeric_limits<double>::infinity()), y);
  y = m.select(m.cmp(P::OLT, x, m.f(lo)), m.f(0.0), y);
  return m.select(m.cmp(P::UNO, x, x), x, y);
}

/// exp(x) = 2^n * exp(r), x = n ln2 + r (Cody-Waite), |r| <= ln2 / 2.
static Value emitExp(F32Builder &m, Value x) {
  Value xc = m.minf(m.maxf(x, m.f(-104.0)), m.f(88.72283935546875));
  Value n = m.floor(m.fma(xc, m.f(1.44269504088896341), m.f(0.5)));
  Value r = m.fma(n, m.f(-0.693359375), xc);
  r = m.fma(n, m.f(2.12194440e-4), r);
  return fixExpRange(m, x, emitScaledExp(m, n, r), -103.9, 88.72283935546875);
}

/// exp2(x) = 2^n * exp(r ln2), n = round(x).
static Value emitExp2(F32Builder &m, Value x) {
  Value xc = m.minf(m.maxf(x, m.f(-150.0)), m.f(128.0));
  Value n = m.floor(m.add(xc, m.f(0.5)));
  Value r = m.mul(m.sub(xc, n), m.f(0.693147180559945309));
  return fixExpRange(m, x, emitScaledExp(m, n, r), -149.9, 127.99999);
}

/// log(x) = e ln2 + log(m), m in [sqrt(1/2), sqrt(2)).
static Value emitLog(F32Builder &m, Value x) {
  using P = arith::CmpFPredicate;
  auto &b = m.b;
  Location loc = m.loc;
  // Denormals: scale into the normal range first.
  Value tiny = m.cmp(P::OLT, x, m.f(1.17549435e-38));
  Value xs = m.select(tiny, m.mul(x, m.f(8388608.0)), x);
  Value bits = m.bits(xs);
  Value expBits = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, m.i(23)), m.i(0xff));
  Value e = m.toFloat(arith::SubIOp::create(b, loc, expBits, m.i(126)));
  e = m.select(tiny, m.sub(e, m.f(23.0)), e);
  Value mant = m.fromBits(arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, bits, m.i(0x807fffff)),
      m.i(0x3f000000)));
  Value small = m.cmp(P::OLT, mant, m.f(0.707106781186547524));
  e = m.select(small, m.sub(e, m.f(1.0)), e);
  Value r = m.sub(m.select(small, m.add(mant, mant), mant), m.f(1.0));
  Value z = m.mul(r, r);
  Value p = m.poly(r, {3.3333331174E-1, -2.4999993993E-1, 2.0000714765E-1,
                       -1.6668057665E-1, 1.4249322787E-1, -1.2420140846E-1,
                       1.1676998740E-1, -1.1514610310E-1, 7.0376836292E-2});
  Value y = m.mul(m.mul(p, r), z);
  y = m.fma(e, m.f(-2.12194440e-4), y);
  y = m.fma(z, m.f(-0.5), y);
  Value res = m.fma(e, m.f(0.693359375), m.add(r, y));
  double inf = std::numeric_limits<double>::infinity();
  res = m.select(m.cmp(P::OEQ, x, m.f(inf)), x, res);
  res = m.select(m.cmp(P::OEQ, x, m.f(0.0)), m.f(-inf), res);
  // Negative or NaN: NaN.
  return m.select(m.cmp(P::ULT, x, m.f(0.0)),
                  m.f(std::numeric_limits<double>::quiet_NaN()), res);
}

/// erf: a Taylor series below |x| = 0.5 (relative error ~1e-8), else
/// sign(x) (1 - t p(t) exp(-x^2)), t = 1 / (1 + 0.3275911 |x|)
/// (Abramowitz-Stegun 7.1.26, absolute error below 1.5e-7).
static Value emitErf(F32Builder &m, Value x) {
  auto &b = m.b;
  Value a = math::AbsFOp::create(b, m.loc, x);
  Value t = m.div(m.f(1.0), m.fma(a, m.f(0.3275911), m.f(1.0)));
  Value p = m.poly(t, {0.254829592, -0.284496736, 1.421413741, -1.453152027,
                       1.061405429});
  Value e = emitExp(m, m.mul(m.sub(m.f(0.0), a), a));
  Value y = m.sub(m.f(1.0), m.mul(m.mul(t, p), e));
  Value large = math::CopySignOp::create(b, m.loc, y, x);
  // 2/sqrt(pi) * x * sum (-1)^k x^2k / (k! (2k+1))
  Value z = m.mul(x, x);
  Value series = m.poly(z, {1.0, -1.0 / 3, 1.0 / 10, -1.0 / 42, 1.0 / 216,
                            -1.0 / 1320, 1.0 / 9360});
  Value small = m.mul(m.mul(x, m.f(1.12837916709551257)), series);
  return m.select(m.cmp(arith::CmpFPredicate::OLT, a, m.f(0.5)), small,
                  large);
}

/// tanh: x + x^3 P(x^2) below |x| = 0.625 (Cephes tanhf), else
/// sign(x) (1 - 2 / (exp(2|x|) + 1)).
static Value emitTanh(F32Builder &m, Value x) {
  auto &b = m.b;
  Value a = math::AbsFOp::create(b, m.loc, x);
  Value z = m.mul(x, x);
  Value p = m.poly(z, {-3.33332819422E-1, 1.33314422036E-1, -5.37397155531E-2,
                       2.06390887954E-2, -5.70498872745E-3});
  Value small = m.fma(m.mul(x, z), p, x);
  Value e = emitExp(m, m.add(a, a));
  Value large = m.sub(m.f(1.0), m.div(m.f(2.0), m.add(e, m.f(1.0))));
  large = math::CopySignOp::create(b, m.loc, large, x);
  Value r = m.select(m.cmp(arith::CmpFPredicate::OLT, a, m.f(0.625)), small,
                     large);
  return m.select(m.cmp(arith::CmpFPredicate::UNO, x, x), x, r);
}

/// sinh / cosh through h = exp(|x|/2)^2 / 2 (no early overflow):
/// cosh = h + 1/(4h), sinh = sign(x) (h - 1/(4h)), and below |x| = 1
/// sinh = x + x^3 P(x^2) (Cephes sinhf).
static Value emitSinhCosh(F32Builder &m, Value x, bool isSinh) {
  auto &b = m.b;
  Value a = math::AbsFOp::create(b, m.loc, x);
  Value e2 = emitExp(m, m.mul(a, m.f(0.5)));
  Value h = m.mul(m.mul(e2, m.f(0.5)), e2);
  Value q = m.div(m.f(0.25), h);
  if (!isSinh)
    return m.add(h, q);
  Value large = math::CopySignOp::create(b, m.loc, m.sub(h, q), x);
  Value z = m.mul(x, x);
  Value p = m.poly(z, {1.66667160211E-1, 8.33028376239E-3, 2.03721912945E-4});
  Value small = m.fma(m.mul(x, z), p, x);
  return m.select(m.cmp(arith::CmpFPredicate::OLT, a, m.f(1.0)), small,
                  large);
}

/// f16/bf16 math: compute in f32.
template <typename MathOp>
struct ComputeInF32 : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type elem = getElementTypeOrSelf(type);
    if (!elem.isF16() && !elem.isBF16())
      return failure();
    Type f32 = rewriter.getF32Type();
    Type wide = isa<VectorType>(type) ? Type(cast<VectorType>(type).clone(f32))
                                      : f32;
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(arith::ExtFOp::create(rewriter, op.getLoc(), wide, v));
    Value r = MathOp::create(rewriter, op.getLoc(), wide, operands);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, r);
    return success();
  }
};

enum class Fn { Exp, Exp2, Log, Log2, Log10, Log1p, Expm1, Erf, Tanh, Sinh, Cosh };

template <typename MathOp, Fn fn>
struct ApproximateF32 : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF32Like(op.getType()))
      return failure();
    F32Builder m(rewriter, op.getLoc(), op.getType());
    Value x = op->getOperand(0), r;
    using P = arith::CmpFPredicate;
    switch (fn) {
    case Fn::Exp:
      r = emitExp(m, x);
      break;
    case Fn::Exp2:
      r = emitExp2(m, x);
      break;
    case Fn::Tanh:
      r = emitTanh(m, x);
      break;
    case Fn::Sinh:
    case Fn::Cosh:
      r = emitSinhCosh(m, x, fn == Fn::Sinh);
      break;
    case Fn::Log:
      r = emitLog(m, x);
      break;
    case Fn::Log2:
      r = m.mul(emitLog(m, x), m.f(1.44269504088896341));
      break;
    case Fn::Log10:
      r = m.mul(emitLog(m, x), m.f(0.434294481903251828));
      break;
    case Fn::Log1p: {
      // Kahan: log(u) * x / (u - 1), u = 1 + x (exact where u == 1).
      Value u = m.add(m.f(1.0), x);
      Value d = m.sub(u, m.f(1.0));
      Value big = m.cmp(P::OEQ, u, m.f(std::numeric_limits<double>::infinity()));
      r = m.select(m.cmp(P::OEQ, d, m.f(0.0)), x,
                   m.select(big, emitLog(m, u),
                            m.mul(emitLog(m, u), m.div(x, d))));
      break;
    }
    case Fn::Expm1: {
      // Kahan: (u - 1) * x / log(u), u = exp(x).
      Value u = emitExp(m, x);
      Value d = m.sub(u, m.f(1.0));
      Value logu = emitLog(m, u);
      Value general = m.mul(d, m.div(x, logu));
      r = m.select(m.cmp(P::OEQ, u, m.f(1.0)), x,
                   m.select(m.cmp(P::OEQ, d, m.f(-1.0)), d,
                            m.select(m.cmp(P::OEQ, logu, u), d, general)));
      break;
    }
    case Fn::Erf:
      r = emitErf(m, x);
      break;
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

LogicalResult mlir::tcc::tile_to_gpu::expandMathOps(Operation *root) {
  MLIRContext *ctx = root->getContext();
  RewritePatternSet patterns(ctx);
  // Functions in terms of others (exp2, tanh, sinh, ... -> exp; ...).
  math::populateExpansionPatterns(
      patterns, {"tan", "asinh", "acosh",
                 "atanh", "powf", "fpowi", "rsqrt", "roundeven", "round"});
  // exp, log and kin as f32 approximations; f16/bf16 computed in f32.
  patterns.add<ComputeInF32<math::ExpOp>, ComputeInF32<math::LogOp>,
               ComputeInF32<math::Log2Op>, ComputeInF32<math::Log10Op>,
               ComputeInF32<math::Log1pOp>, ComputeInF32<math::ExpM1Op>,
               ComputeInF32<math::ErfOp>, ComputeInF32<math::SqrtOp>,
               ComputeInF32<math::TanhOp>,
               ComputeInF32<math::Exp2Op>,
               ApproximateF32<math::ExpOp, Fn::Exp>,
               ApproximateF32<math::Exp2Op, Fn::Exp2>,
               ApproximateF32<math::TanhOp, Fn::Tanh>,
               ComputeInF32<math::SinhOp>, ComputeInF32<math::CoshOp>,
               ApproximateF32<math::SinhOp, Fn::Sinh>,
               ApproximateF32<math::CoshOp, Fn::Cosh>,
               ApproximateF32<math::LogOp, Fn::Log>,
               ApproximateF32<math::Log2Op, Fn::Log2>,
               ApproximateF32<math::Log10Op, Fn::Log10>,
               ApproximateF32<math::Log1pOp, Fn::Log1p>,
               ApproximateF32<math::ExpM1Op, Fn::Expm1>,
               ApproximateF32<math::ErfOp, Fn::Erf>>(ctx);
  patterns.add<AbsFToBits, CopySignToBits,
               ToIntrinsic<math::FmaOp, LLVM::FMAOp>,
               ToIntrinsic<math::TruncOp, LLVM::FTruncOp>, SqrtToIntrinsicCall,
               RoundingFromTrunc<math::FloorOp, true>,
               RoundingFromTrunc<math::CeilOp, false>>(ctx);
  return applyPatternsGreedily(root, std::move(patterns));
}
