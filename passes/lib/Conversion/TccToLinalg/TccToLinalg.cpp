//===- TccToLinalg.cpp - convert-tcc-to-linalg pass -----------------------===//
//
// The pass and the helpers shared by the pattern families. Patterns are split
// by op family: Elementwise.cpp (binary, unary, compare, select, cast) and
// Structured.cpp (broadcast, transpose, reshape, matmul, reductions, softmax,
// constant).
//
//===----------------------------------------------------------------------===//
#include "TccToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_CONVERTTCCTOLINALG
#include "tcc/Conversion/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

Value mlir::tcc::createEmptyLike(OpBuilder &b, Location loc,
                                 RankedTensorType type,
                                 ValueRange shapeSources) {
  SmallVector<Value> dynamicSizes;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    Value size;
    for (Value source : shapeSources) {
      auto sourceType = cast<RankedTensorType>(source.getType());
      if (!sourceType.isDynamicDim(dim)) {
        size = arith::ConstantIndexOp::create(b, loc, sourceType.getDimSize(dim));
        break;
      }
    }
    if (!size)
      size = tensor::DimOp::create(b, loc, shapeSources.front(), dim);
    dynamicSizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynamicSizes);
}

Value mlir::tcc::createElementwiseGeneric(OpBuilder &b, Location loc,
                                          RankedTensorType type,
                                          ValueRange inputs,
                                          ScalarBodyFn body) {
  Value init = createEmptyLike(b, loc, type, inputs);
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::tcc::convertScalar(OpBuilder &b, Location loc, Value value,
                               Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    // f16 <-> bf16 (one width, other formats): exactly through f32, then
    // rounded to nearest even, as torch's .to() does.
    if (fromFloat.getWidth() == toFloat.getWidth())
      value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return cast<FloatType>(value.getType()).getWidth() < toFloat.getWidth()
               ? arith::ExtFOp::create(b, loc, to, value).getResult()
               : arith::TruncFOp::create(b, loc, to, value).getResult();
  }
  bool fromBool = from.isInteger(1);
  if (toFloat)
    return fromBool ? arith::UIToFPOp::create(b, loc, to, value).getResult()
                    : arith::SIToFPOp::create(b, loc, to, value).getResult();
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, value);
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, to, value);
  return fromBool ? arith::ExtUIOp::create(b, loc, to, value).getResult()
                  : arith::ExtSIOp::create(b, loc, to, value).getResult();
}

namespace {
struct ConvertTccToLinalgPass
    : public tcc::impl::ConvertTccToLinalgBase<ConvertTccToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TccDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

    RewritePatternSet patterns(ctx);
    populateTccElementwiseToLinalgPatterns(patterns);
    populateTccStructuredToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
