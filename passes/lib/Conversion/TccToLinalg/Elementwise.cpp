//===- Elementwise.cpp - tcc elementwise ops to linalg --------------------===//
//
// Binary and unary elementwise ops, comparisons, select and casts. Named
// linalg ops where upstream has one for the element type (float add/exp/...,
// signed int max/min, ...); linalg.generic for the rest.
//
//===----------------------------------------------------------------------===//
#include "TccToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

RankedTensorType resultTensorType(Operation *op) {
  return cast<RankedTensorType>(op->getResult(0).getType());
}

/// tcc binary op -> named linalg op (linalg.add, ..., linalg.powf). The named
/// ops pick arith.addf/addi, maximumf/maxsi, ... from the element type.
template <typename TccOp, typename LinalgOp>
struct BinaryToNamed : OpConversionPattern<TccOp> {
  using OpConversionPattern<TccOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TccOp op, typename TccOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = resultTensorType(op);
    SmallVector<Value, 2> inputs{adaptor.getLhs(), adaptor.getRhs()};
    Value init = createEmptyLike(rewriter, loc, type, inputs);
    rewriter.replaceOp(op, LinalgOp::create(rewriter, loc, TypeRange{type},
                                            inputs, ValueRange{init})
                               ->getResults());
    return success();
  }
};

/// tcc unary float op -> named linalg op (linalg.exp, linalg.tanh, ...).
template <typename TccOp, typename LinalgOp>
struct UnaryToNamed : OpConversionPattern<TccOp> {
  using OpConversionPattern<TccOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TccOp op, typename TccOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    if (!isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "named op needs floats");
    Location loc = op.getLoc();
    Value init = createEmptyLike(rewriter, loc, type, adaptor.getInput());
    rewriter.replaceOp(op, LinalgOp::create(rewriter, loc, TypeRange{type},
                                            ValueRange{adaptor.getInput()},
                                            ValueRange{init})
                               ->getResults());
    return success();
  }
};

/// Computes `fn` in f32 for f16/bf16 inputs (the transcendental math is
/// accurate and available in f32 on every target), natively otherwise.
Value computeInWideFloat(
    OpBuilder &b, Location loc, Value x,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Type type = x.getType();
  if (type.getIntOrFloatBitWidth() >= 32)
    return fn(b, loc, x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, fn(b, loc, wide));
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type,
                                   b.getFloatAttr(type, value));
}

/// Unary ops with a scalar body: the element-type-generic ones (int abs/neg,
/// relu) and the composite ones (sigmoid, gelu).
template <typename TccOp>
struct UnaryToGeneric : OpConversionPattern<TccOp> {
  using OpConversionPattern<TccOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TccOp op, typename TccOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    rewriter.replaceOp(
        op, createElementwiseGeneric(
                rewriter, op.getLoc(), type, adaptor.getInput(),
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  return buildScalar(op, b, loc, args[0]);
                }));
    return success();
  }
  static Value buildScalar(TccOp op, OpBuilder &b, Location loc, Value x);
};

template <>
Value UnaryToGeneric<NegOp>::buildScalar(NegOp, OpBuilder &b, Location loc,
                                         Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(b, loc, x);
  Value zero = arith::ConstantOp::create(b, loc, x.getType(),
                                         b.getIntegerAttr(x.getType(), 0));
  return arith::SubIOp::create(b, loc, zero, x);
}

template <>
Value UnaryToGeneric<AbsOp>::buildScalar(AbsOp, OpBuilder &b, Location loc,
                                         Value x) {
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  return math::AbsIOp::create(b, loc, x);
}

template <>
Value UnaryToGeneric<ReluOp>::buildScalar(ReluOp, OpBuilder &b, Location loc,
                                          Value x) {
  Type type = x.getType();
  if (isa<FloatType>(type))
    // maximumf propagates NaN, like torch.relu.
    return arith::MaximumFOp::create(b, loc, x, floatConstant(b, loc, type, 0));
  Value zero = arith::ConstantOp::create(b, loc, type,
                                         b.getIntegerAttr(type, 0));
  return arith::MaxSIOp::create(b, loc, x, zero);
}

template <>
Value UnaryToGeneric<SigmoidOp>::buildScalar(SigmoidOp, OpBuilder &b,
                                             Location loc, Value x) {
  return computeInWideFloat(b, loc, x, [](OpBuilder &b, Location loc, Value v) {
    Type t = v.getType();
    Value one = floatConstant(b, loc, t, 1.0);
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v));
    return arith::DivFOp::create(b, loc, one,
                                 arith::AddFOp::create(b, loc, one, e))
        .getResult();
  });
}

template <>
Value UnaryToGeneric<GeluOp>::buildScalar(GeluOp op, OpBuilder &b,
                                          Location loc, Value x) {
  bool useTanh = op.getApproximate() == GeluApproximation::tanh;
  return computeInWideFloat(b, loc, x, [&](OpBuilder &b, Location loc,
                                           Value v) {
    Type t = v.getType();
    Value half = floatConstant(b, loc, t, 0.5);
    Value one = floatConstant(b, loc, t, 1.0);
    Value inner;
    if (useTanh) {
      // sqrt(2/pi) * (x + 0.044715 x^3)
      Value cube = arith::MulFOp::create(
          b, loc, v, arith::MulFOp::create(b, loc, v, v));
      Value poly = arith::AddFOp::create(
          b, loc, v,
          arith::MulFOp::create(b, loc, floatConstant(b, loc, t, 0.044715),
                                cube));
      inner = math::TanhOp::create(
          b, loc,
          arith::MulFOp::create(
              b, loc, floatConstant(b, loc, t, 0.7978845608028654), poly));
    } else {
      // erf(x / sqrt(2))
      inner = math::ErfOp::create(
          b, loc,
          arith::MulFOp::create(
              b, loc, v, floatConstant(b, loc, t, 0.7071067811865476)));
    }
    Value halfX = arith::MulFOp::create(b, loc, half, v);
    return arith::MulFOp::create(b, loc, halfX,
                                 arith::AddFOp::create(b, loc, one, inner))
        .getResult();
  });
}

template <>
Value UnaryToGeneric<ErfOp>::buildScalar(ErfOp, OpBuilder &b, Location loc,
                                         Value x) {
  return computeInWideFloat(b, loc, x, [](OpBuilder &b, Location loc, Value v) {
    return math::ErfOp::create(b, loc, v).getResult();
  });
}

/// Comparisons: arith.cmpf (ordered; `ne` unordered, as torch's NaN != NaN)
/// or arith.cmpi (signed; unsigned for i1) per element.
struct CmpToGeneric : OpConversionPattern<CmpOp> {
  using OpConversionPattern::OpConversionPattern;

  static Value compare(ComparePredicate pred, OpBuilder &b, Location loc,
                       Value lhs, Value rhs) {
    Type type = lhs.getType();
    if (isa<FloatType>(type)) {
      arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
      switch (pred) {
      case ComparePredicate::eq: p = arith::CmpFPredicate::OEQ; break;
      case ComparePredicate::ne: p = arith::CmpFPredicate::UNE; break;
      case ComparePredicate::lt: p = arith::CmpFPredicate::OLT; break;
      case ComparePredicate::le: p = arith::CmpFPredicate::OLE; break;
      case ComparePredicate::gt: p = arith::CmpFPredicate::OGT; break;
      case ComparePredicate::ge: p = arith::CmpFPredicate::OGE; break;
      }
      return arith::CmpFOp::create(b, loc, p, lhs, rhs);
    }
    bool isBool = type.isInteger(1);
    arith::CmpIPredicate p = arith::CmpIPredicate::eq;
    switch (pred) {
    case ComparePredicate::eq: p = arith::CmpIPredicate::eq; break;
    case ComparePredicate::ne: p = arith::CmpIPredicate::ne; break;
    case ComparePredicate::lt:
      p = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
      break;
    case ComparePredicate::le:
      p = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
      break;
    case ComparePredicate::gt:
      p = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
      break;
    case ComparePredicate::ge:
      p = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
      break;
    }
    return arith::CmpIOp::create(b, loc, p, lhs, rhs);
  }

  LogicalResult
  matchAndRewrite(CmpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ComparePredicate pred = op.getPredicate();
    rewriter.replaceOp(
        op, createElementwiseGeneric(
                rewriter, op.getLoc(), resultTensorType(op),
                ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  return compare(pred, b, loc, args[0], args[1]);
                }));
    return success();
  }
};

/// select -> a generic with arith.select per element.
struct SelectToGeneric : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, createElementwiseGeneric(
                rewriter, op.getLoc(), resultTensorType(op),
                ValueRange{adaptor.getCondition(), adaptor.getTrueValue(),
                           adaptor.getFalseValue()},
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  return arith::SelectOp::create(b, loc, args[0], args[1],
                                                 args[2])
                      .getResult();
                }));
    return success();
  }
};

/// Casts: one arith cast per element (see convertScalar).
struct CastToGeneric : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = resultTensorType(op);
    Type to = type.getElementType();
    rewriter.replaceOp(
        op, createElementwiseGeneric(
                rewriter, op.getLoc(), type, adaptor.getInput(),
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  return convertScalar(b, loc, args[0], to);
                }));
    return success();
  }
};

} // namespace

void mlir::tcc::populateTccElementwiseToLinalgPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<BinaryToNamed<AddOp, linalg::AddOp>,
               BinaryToNamed<SubOp, linalg::SubOp>,
               BinaryToNamed<MulOp, linalg::MulOp>,
               BinaryToNamed<DivOp, linalg::DivOp>,
               BinaryToNamed<MaxOp, linalg::MaxOp>,
               BinaryToNamed<MinOp, linalg::MinOp>,
               BinaryToNamed<PowOp, linalg::PowFOp>,
               UnaryToNamed<ExpOp, linalg::ExpOp>,
               UnaryToNamed<LogOp, linalg::LogOp>,
               UnaryToNamed<SqrtOp, linalg::SqrtOp>,
               UnaryToNamed<RsqrtOp, linalg::RsqrtOp>,
               UnaryToNamed<TanhOp, linalg::TanhOp>>(ctx);
  // Float abs/neg prefer the named ops; the generic forms catch integers.
  patterns.add<UnaryToNamed<AbsOp, linalg::AbsOp>,
               UnaryToNamed<NegOp, linalg::NegFOp>>(ctx, /*benefit=*/2);
  patterns.add<UnaryToGeneric<AbsOp>, UnaryToGeneric<NegOp>,
               UnaryToGeneric<ReluOp>, UnaryToGeneric<SigmoidOp>,
               UnaryToGeneric<GeluOp>, UnaryToGeneric<ErfOp>, CastToGeneric,
               CmpToGeneric, SelectToGeneric>(ctx);
}
