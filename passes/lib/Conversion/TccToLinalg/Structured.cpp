//===- Structured.cpp - tcc data movement, matmul, reductions -------------===//
//
// broadcast -> linalg.broadcast, transpose -> linalg.transpose,
// matmul -> linalg.fill + linalg.matmul / linalg.batch_matmul (+ a cast to
// the result type when it differs from the accumulator), reductions ->
// linalg.fill + linalg.reduce (+ tensor.expand_shape for keepdims),
// softmax -> linalg.softmax, constant -> arith.constant.
//
//===----------------------------------------------------------------------===//
#include "TccToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// tensor.dim of `source` at `dim`, or a constant when static.
Value dimSize(OpBuilder &b, Location loc, Value source, int64_t dim) {
  auto type = cast<RankedTensorType>(source.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, source, dim);
}

/// tensor.empty of `type` whose dynamic dims are given by `sizeOf(dim)`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  function_ref<Value(int64_t)> sizeOf) {
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      dynamicSizes.push_back(sizeOf(dim));
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynamicSizes);
}

struct BroadcastToLinalg : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> added = op.getDims();
    // Result dim -> input dim for kept dims; added dynamic dims consume
    // `sizes` in order.
    unsigned nextSize = 0;
    int64_t nextInputDim = 0;
    SmallVector<Value> sizeOfDim(type.getRank());
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (llvm::is_contained(added, dim)) {
        if (type.isDynamicDim(dim))
          sizeOfDim[dim] = adaptor.getSizes()[nextSize++];
        continue;
      }
      if (type.isDynamicDim(dim))
        sizeOfDim[dim] =
            dimSize(rewriter, loc, adaptor.getInput(), nextInputDim);
      ++nextInputDim;
    }
    Value init = createEmpty(rewriter, loc, type,
                             [&](int64_t dim) { return sizeOfDim[dim]; });
    rewriter.replaceOp(op, linalg::BroadcastOp::create(rewriter, loc,
                                                       adaptor.getInput(),
                                                       init, added)
                               ->getResults());
    return success();
  }
};

struct TransposeToLinalg : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> perm = op.getPermutation();
    Value init = createEmpty(rewriter, loc, type, [&](int64_t dim) {
      return dimSize(rewriter, loc, adaptor.getInput(), perm[dim]);
    });
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, loc,
                                                       adaptor.getInput(),
                                                       init, perm)
                               ->getResults());
    return success();
  }
};

struct MatmulToLinalg : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type accType = op.getAccumulatorType();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    int64_t rank = type.getRank();
    // Result dims: [B,] M from lhs, N from rhs.
    auto accTensorType = RankedTensorType::get(type.getShape(), accType);
    Value init = createEmpty(rewriter, loc, accTensorType, [&](int64_t dim) {
      return dim == rank - 1 ? dimSize(rewriter, loc, rhs, dim)
                             : dimSize(rewriter, loc, lhs, dim);
    });
    Value zero = arith::ConstantOp::create(rewriter, loc, accType,
                                           rewriter.getZeroAttr(accType));
    Value filled =
        linalg::FillOp::create(rewriter, loc, zero, init).getResult(0);
    Value acc =
        rank == 2
            ? linalg::MatmulOp::create(rewriter, loc, TypeRange{accTensorType},
                                       ValueRange{lhs, rhs},
                                       ValueRange{filled})
                  .getResult(0)
            : linalg::BatchMatmulOp::create(
                  rewriter, loc, TypeRange{accTensorType},
                  ValueRange{lhs, rhs}, ValueRange{filled})
                  .getResult(0);
    if (accType != type.getElementType())
      acc = createElementwiseGeneric(
          rewriter, loc, type, acc,
          [&](OpBuilder &b, Location l, ValueRange args) {
            return convertScalar(b, l, args[0], type.getElementType());
          });
    rewriter.replaceOp(op, acc);
    return success();
  }
};

enum class ReductionKind { Sum, Max, Min, Mean };

template <typename TccOp, ReductionKind Kind>
struct ReductionToLinalg : OpConversionPattern<TccOp> {
  using OpConversionPattern<TccOp>::OpConversionPattern;

  static arith::AtomicRMWKind rmwKind(Type elementType) {
    bool isFloat = isa<FloatType>(elementType);
    switch (Kind) {
    case ReductionKind::Sum:
    case ReductionKind::Mean:
      return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    case ReductionKind::Max:
      return isFloat ? arith::AtomicRMWKind::maximumf
                     : arith::AtomicRMWKind::maxs;
    case ReductionKind::Min:
      return isFloat ? arith::AtomicRMWKind::minimumf
                     : arith::AtomicRMWKind::mins;
    }
    llvm_unreachable("unknown reduction");
  }

  LogicalResult
  matchAndRewrite(TccOp op, typename TccOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = inputType.getElementType();
    ArrayRef<int64_t> dims = op.getDims();

    // Sums of f16/bf16 accumulate in f32 (as torch does): the input is
    // widened by an elementwise producer that fusion later folds in.
    Type accType = elementType;
    bool isSum = Kind == ReductionKind::Sum || Kind == ReductionKind::Mean;
    if (isSum && isa<FloatType>(elementType) &&
        elementType.getIntOrFloatBitWidth() < 32) {
      accType = rewriter.getF32Type();
      input = createElementwiseGeneric(
          rewriter, loc, RankedTensorType::get(inputType.getShape(), accType),
          input, [&](OpBuilder &b, Location l, ValueRange args) {
            return convertScalar(b, l, args[0], accType);
          });
    }

    // linalg.reduce drops the reduced dims; keepdims re-inserts them below.
    SmallVector<int64_t> reducedShape;
    SmallVector<int64_t> keptInputDims;
    for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
      if (!llvm::is_contained(dims, dim)) {
        reducedShape.push_back(inputType.getDimSize(dim));
        keptInputDims.push_back(dim);
      }
    auto reducedType = RankedTensorType::get(reducedShape, accType);
    Value init = createEmpty(rewriter, loc, reducedType, [&](int64_t dim) {
      return dimSize(rewriter, loc, input, keptInputDims[dim]);
    });
    arith::AtomicRMWKind kind = rmwKind(accType);
    Value identity = arith::getIdentityValue(kind, accType, rewriter, loc);
    Value filled =
        linalg::FillOp::create(rewriter, loc, identity, init).getResult(0);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{input}, ValueRange{filled}, dims,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value combined = arith::getReductionOp(kind, b, l, args[0], args[1]);
          linalg::YieldOp::create(b, l, combined);
        });
    Value result = reduce.getResult(0);

    // Mean divides by the number of reduced elements (known at run time for
    // dynamic dims); then back to the element type.
    Value count;
    if (Kind == ReductionKind::Mean) {
      Value numel = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t dim : dims)
        numel = arith::MulIOp::create(rewriter, loc, numel,
                                      dimSize(rewriter, loc, input, dim));
      Value numelInt = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(), numel);
      count = arith::SIToFPOp::create(rewriter, loc, accType, numelInt);
    }
    if (count || accType != elementType)
      result = createElementwiseGeneric(
          rewriter, loc, RankedTensorType::get(reducedShape, elementType),
          result, [&](OpBuilder &b, Location l, ValueRange args) {
            Value v = args[0];
            if (count)
              v = arith::DivFOp::create(b, l, v, count);
            return convertScalar(b, l, v, elementType);
          });

    if (op.getKeepdims()) {
      // Each kept dim is grouped with the unit dims that follow it; leading
      // unit dims join the first group.
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
        pending.push_back(dim);
        if (!llvm::is_contained(dims, dim)) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!pending.empty()) {
        if (groups.empty()) {
          // Everything reduced: rank-0 to all-ones, no reassociation groups.
        } else {
          groups.back().append(pending.begin(), pending.end());
        }
      }
      SmallVector<OpFoldResult> outputShape;
      for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
        if (llvm::is_contained(dims, dim))
          outputShape.push_back(rewriter.getIndexAttr(1));
        else if (resultType.isDynamicDim(dim))
          outputShape.push_back(dimSize(rewriter, loc, input, dim));
        else
          outputShape.push_back(
              rewriter.getIndexAttr(resultType.getDimSize(dim)));
      }
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             groups, outputShape);
    } else if (result.getType() != resultType) {
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SoftmaxToLinalg : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value init = createEmptyLike(rewriter, loc, type, adaptor.getInput());
    rewriter.replaceOp(op, linalg::SoftmaxOp::create(rewriter, loc, type,
                                                     adaptor.getInput(), init,
                                                     op.getDim())
                               ->getResults());
    return success();
  }
};

struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant value is not typed");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

} // namespace

void mlir::tcc::populateTccStructuredToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BroadcastToLinalg, TransposeToLinalg, MatmulToLinalg,
               ReductionToLinalg<ReduceSumOp, ReductionKind::Sum>,
               ReductionToLinalg<ReduceMaxOp, ReductionKind::Max>,
               ReductionToLinalg<ReduceMinOp, ReductionKind::Min>,
               ReductionToLinalg<ReduceMeanOp, ReductionKind::Mean>,
               SoftmaxToLinalg, ConstantToArith>(patterns.getContext());
}
