//===- Structured.cpp - tcc data movement, matmul, reductions -------------===//
//
// broadcast -> linalg.broadcast, transpose -> linalg.transpose,
// matmul -> linalg.fill + linalg.matmul / linalg.batch_matmul (+ a cast to
// the result type when it differs from the accumulator), reductions ->
// linalg.fill + linalg.reduce (+ tensor.expand_shape for keepdims),
// reduce_argmax/argmin -> one linalg.generic with two outputs (+ expand for
// keepdims), reshape -> tensor.collapse_shape and/or tensor.expand_shape,
// softmax -> linalg.softmax, constant -> arith.constant.
//
//===----------------------------------------------------------------------===//
#include "TccToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
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

/// `reduced` (a reduction of `input` over `dims`, the dims dropped) as
/// `resultType`: with `keepdims`, a tensor.expand_shape re-inserts the reduced
/// dims as 1s; otherwise a tensor.cast when only the static info differs.
Value restoreReducedDims(OpBuilder &b, Location loc, Value reduced,
                         RankedTensorType resultType, ArrayRef<int64_t> dims,
                         Value input, bool keepdims) {
  if (!keepdims)
    return reduced.getType() == resultType
               ? reduced
               : tensor::CastOp::create(b, loc, resultType, reduced)
                     .getResult();
  // Each kept dim is grouped with the unit dims that follow it; leading unit
  // dims join the first group. Everything reduced: rank 0 to all ones, no
  // groups.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
    pending.push_back(dim);
    if (!llvm::is_contained(dims, dim)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  SmallVector<OpFoldResult> outputShape;
  for (int64_t dim = 0; dim < resultType.getRank(); ++dim) {
    if (llvm::is_contained(dims, dim))
      outputShape.push_back(b.getIndexAttr(1));
    else if (resultType.isDynamicDim(dim))
      outputShape.push_back(dimSize(b, loc, input, dim));
    else
      outputShape.push_back(b.getIndexAttr(resultType.getDimSize(dim)));
  }
  return tensor::ExpandShapeOp::create(b, loc, resultType, reduced, groups,
                                       outputShape);
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

    result = restoreReducedDims(rewriter, loc, result, resultType, dims,
                                input, op.getKeepdims());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reduce_argmax/argmin: one linalg.generic, parallel except `dim`, with a
/// values and an indices output. The combiner is order-independent: an
/// element replaces the accumulator when it is greater (smaller), a NaN
/// counting as greater than (smaller than) any number, or equal with a lower
/// index; the initial index is the largest so any element ties in.
template <typename TccOp, bool IsMax>
struct ArgReductionToLinalg : OpConversionPattern<TccOp> {
  using OpConversionPattern<TccOp>::OpConversionPattern;

  static Value initialValue(OpBuilder &b, Location loc, Type type) {
    if (auto ft = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(
          b, loc, type,
          b.getFloatAttr(type, APFloat::getInf(ft.getFloatSemantics(),
                                               /*Negative=*/IsMax)));
    unsigned width = type.getIntOrFloatBitWidth();
    APInt v = width == 1 ? (IsMax ? APInt(1, 0) : APInt(1, 1))
                         : (IsMax ? APInt::getSignedMinValue(width)
                                  : APInt::getSignedMaxValue(width));
    return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
  }

  /// Whether `x` should replace `acc` (ignoring ties).
  static Value better(OpBuilder &b, Location loc, Value x, Value acc) {
    Type type = x.getType();
    if (isa<FloatType>(type)) {
      using P = arith::CmpFPredicate;
      Value xNan = arith::CmpFOp::create(b, loc, P::UNO, x, x);
      Value accNum = arith::CmpFOp::create(b, loc, P::ORD, acc, acc);
      Value cmp =
          arith::CmpFOp::create(b, loc, IsMax ? P::OGT : P::OLT, x, acc);
      Value nanWins = arith::AndIOp::create(b, loc, xNan, accNum);
      return arith::OrIOp::create(b, loc, nanWins, cmp);
    }
    using P = arith::CmpIPredicate;
    bool isBool = type.isInteger(1);
    P pred = IsMax ? (isBool ? P::ugt : P::sgt) : (isBool ? P::ult : P::slt);
    return arith::CmpIOp::create(b, loc, pred, x, acc);
  }

  static Value equal(OpBuilder &b, Location loc, Value x, Value acc) {
    if (isa<FloatType>(x.getType())) {
      using P = arith::CmpFPredicate;
      Value bothNan = arith::AndIOp::create(
          b, loc, arith::CmpFOp::create(b, loc, P::UNO, x, x),
          arith::CmpFOp::create(b, loc, P::UNO, acc, acc));
      return arith::OrIOp::create(
          b, loc, bothNan, arith::CmpFOp::create(b, loc, P::OEQ, x, acc));
    }
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, acc);
  }

  LogicalResult
  matchAndRewrite(TccOp op, typename TccOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto valuesType = cast<RankedTensorType>(op.getValues().getType());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    Type elementType = inputType.getElementType();
    Type indexType = indicesType.getElementType();
    int64_t dim = op.getDim(), rank = inputType.getRank();

    SmallVector<int64_t> reducedShape;
    SmallVector<int64_t> keptInputDims;
    SmallVector<AffineExpr> keptExprs;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == dim)
        continue;
      reducedShape.push_back(inputType.getDimSize(d));
      keptInputDims.push_back(d);
      keptExprs.push_back(rewriter.getAffineDimExpr(d));
    }
    auto sizeOf = [&](int64_t d) {
      return dimSize(rewriter, loc, input, keptInputDims[d]);
    };
    auto reducedValues = RankedTensorType::get(reducedShape, elementType);
    auto reducedIndices = RankedTensorType::get(reducedShape, indexType);
    Value valuesInit = linalg::FillOp::create(
                           rewriter, loc,
                           initialValue(rewriter, loc, elementType),
                           createEmpty(rewriter, loc, reducedValues, sizeOf))
                           .getResult(0);
    Value indexInit = arith::ConstantOp::create(
        rewriter, loc, indexType,
        rewriter.getIntegerAttr(
            indexType,
            APInt::getSignedMaxValue(indexType.getIntOrFloatBitWidth())));
    Value indicesInit =
        linalg::FillOp::create(
            rewriter, loc, indexInit,
            createEmpty(rewriter, loc, reducedIndices, sizeOf))
            .getResult(0);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap inMap = rewriter.getMultiDimIdentityMap(rank);
    AffineMap outMap = AffineMap::get(rank, 0, keptExprs, ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[dim] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{reducedValues, reducedIndices},
        ValueRange{input}, ValueRange{valuesInit, indicesInit},
        ArrayRef<AffineMap>{inMap, outMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], acc = args[1], accIndex = args[2];
          Value index = arith::IndexCastOp::create(
              b, l, indexType, linalg::IndexOp::create(b, l, dim));
          Value earlier = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, index, accIndex);
          Value take = arith::OrIOp::create(
              b, l, better(b, l, x, acc),
              arith::AndIOp::create(b, l, equal(b, l, x, acc), earlier));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, acc),
                         arith::SelectOp::create(b, l, take, index,
                                                 accIndex)});
        });
    int64_t dims[] = {dim};
    Value values =
        restoreReducedDims(rewriter, loc, generic.getResult(0), valuesType,
                           dims, input, op.getKeepdims());
    Value indices =
        restoreReducedDims(rewriter, loc, generic.getResult(1), indicesType,
                           dims, input, op.getKeepdims());
    rewriter.replaceOp(op, ValueRange{values, indices});
    return success();
  }
};

/// Pairs of contiguous input and result dim ranges holding the same elements,
/// for lowering a reshape to one collapse and one expand.
struct ReshapeGroups {
  SmallVector<ReassociationIndices> input, result;
};

/// Groups `in` and `out` dims: static groups of equal size from the left,
/// then from the right; what is left in the middle (where the dynamic dims
/// are) is one group. Fails when the middle is unit dims on one side only and
/// cannot join a neighbour, or when it is not unit dims but the other side
/// has none.
FailureOr<ReshapeGroups> groupReshapeDims(ArrayRef<int64_t> in,
                                                 ArrayRef<int64_t> out) {
  auto isStatic = [](int64_t d) { return !ShapedType::isDynamic(d); };
  auto range = [](size_t begin, size_t end) {
    ReassociationIndices r;
    for (size_t i = begin; i < end; ++i)
      r.push_back(static_cast<int64_t>(i));
    return r;
  };
  size_t i = 0, j = 0, iEnd = in.size(), jEnd = out.size();
  ReshapeGroups left, right;
  while (i < iEnd && j < jEnd && isStatic(in[i]) && isStatic(out[j])) {
    size_t i2 = i + 1, j2 = j + 1;
    int64_t pIn = in[i], pOut = out[j];
    bool closed = true;
    while (pIn != pOut && closed) {
      if (pIn < pOut && i2 < iEnd && isStatic(in[i2]))
        pIn *= in[i2++];
      else if (pOut < pIn && j2 < jEnd && isStatic(out[j2]))
        pOut *= out[j2++];
      else
        closed = false;
    }
    if (!closed)
      break;
    left.input.push_back(range(i, i2));
    left.result.push_back(range(j, j2));
    i = i2;
    j = j2;
  }
  while (iEnd > i && jEnd > j && isStatic(in[iEnd - 1]) &&
         isStatic(out[jEnd - 1])) {
    size_t i2 = iEnd - 1, j2 = jEnd - 1;
    int64_t pIn = in[i2], pOut = out[j2];
    bool closed = true;
    while (pIn != pOut && closed) {
      if (pIn < pOut && i2 > i && isStatic(in[i2 - 1]))
        pIn *= in[--i2];
      else if (pOut < pIn && j2 > j && isStatic(out[j2 - 1]))
        pOut *= out[--j2];
      else
        closed = false;
    }
    if (!closed)
      break;
    right.input.insert(right.input.begin(), range(i2, iEnd));
    right.result.insert(right.result.begin(), range(j2, jEnd));
    iEnd = i2;
    jEnd = j2;
  }
  ReshapeGroups groups = std::move(left);
  auto allOnes = [](ArrayRef<int64_t> dims) {
    return llvm::all_of(dims, [](int64_t d) { return d == 1; });
  };
  bool inRest = i < iEnd, outRest = j < jEnd;
  if (inRest && outRest) {
    groups.input.push_back(range(i, iEnd));
    groups.result.push_back(range(j, jEnd));
  } else if (inRest || outRest) {
    // Unit dims on one side only join the group before (or after) them.
    bool onInput = inRest;
    ArrayRef<int64_t> dims = onInput ? in.slice(i, iEnd - i)
                                     : out.slice(j, jEnd - j);
    if (!allOnes(dims))
      return failure();
    ReassociationIndices extra =
        onInput ? range(i, iEnd) : range(j, jEnd);
    if (!groups.input.empty()) {
      auto &g = onInput ? groups.input.back() : groups.result.back();
      g.append(extra.begin(), extra.end());
    } else if (!right.input.empty()) {
      auto &g = onInput ? right.input.front() : right.result.front();
      g.insert(g.begin(), extra.begin(), extra.end());
    }
    // Else one side is rank 0: no groups at all.
  }
  groups.input.append(right.input.begin(), right.input.end());
  groups.result.append(right.result.begin(), right.result.end());
  return groups;
}

/// The size of each group of `shape` (dynamic when any of its dims is).
SmallVector<int64_t>
groupSizes(ArrayRef<int64_t> shape, ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> sizes;
  for (const ReassociationIndices &g : groups) {
    int64_t size = 1;
    for (int64_t d : g)
      size = ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(size)
                 ? ShapedType::kDynamic
                 : size * shape[d];
    sizes.push_back(size);
  }
  return sizes;
}

/// reshape -> tensor.collapse_shape to one dim per group, then
/// tensor.expand_shape to the result (each only when it changes the rank; a
/// tensor.cast in between or after where only static info differs).
struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto resType = cast<RankedTensorType>(op.getType());
    FailureOr<ReshapeGroups> groups =
        groupReshapeDims(inType.getShape(), resType.getShape());
    if (failed(groups))
      return rewriter.notifyMatchFailure(
          op, "input and result dims do not pair into collapse/expand groups");
    Type elt = inType.getElementType();
    size_t numGroups = groups->input.size();

    Value value = input;
    if (inType.getRank() != static_cast<int64_t>(numGroups))
      value = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(groupSizes(inType.getShape(), groups->input),
                                elt),
          value, groups->input);
    auto castTo = [&](RankedTensorType type) {
      if (value.getType() != type)
        value = tensor::CastOp::create(rewriter, loc, type, value);
    };
    if (resType.getRank() != static_cast<int64_t>(numGroups)) {
      // Result sizes: static, or the `sizes` operands in order.
      SmallVector<OpFoldResult> outputShape;
      unsigned next = 0;
      for (int64_t d : resType.getShape())
        outputShape.push_back(ShapedType::isDynamic(d)
                                  ? OpFoldResult(adaptor.getSizes()[next++])
                                  : OpFoldResult(rewriter.getIndexAttr(d)));
      castTo(RankedTensorType::get(
          groupSizes(resType.getShape(), groups->result), elt));
      value = tensor::ExpandShapeOp::create(rewriter, loc, resType, value,
                                            groups->result, outputShape);
    }
    castTo(resType);
    rewriter.replaceOp(op, value);
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

/// tcc.iota -> a generic with no inputs yielding its index: what
/// tcc-fuse-elementwise folds into the consumers as `linalg.index`.
struct IotaToLinalg : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType(),
                                          adaptor.getSizes());
    AffineMap id = rewriter.getMultiDimIdentityMap(1);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{type}, ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{id},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value index = linalg::IndexOp::create(b, l, 0);
          linalg::YieldOp::create(
              b, l,
              arith::IndexCastOp::create(b, l, type.getElementType(), index)
                  .getResult());
        });
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
               ArgReductionToLinalg<ReduceArgMaxOp, /*IsMax=*/true>,
               ArgReductionToLinalg<ReduceArgMinOp, /*IsMax=*/false>,
               ReshapeToTensor, SoftmaxToLinalg, ConstantToArith, IotaToLinalg>(
      patterns.getContext());
}
