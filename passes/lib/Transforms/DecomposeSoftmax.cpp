//===- DecomposeSoftmax.cpp - tcc-decompose-softmax -----------------------===//
//
// A softmax over a dim other than the last, or over the last with an
// elementwise producer or consumer, becomes its reductions (a max, a sum of
// exponentials) and the quotient, which kernel formation groups like any
// other reductions (column reductions for an outer dim; one row program
// with the elementwise ops around it for the last).
//
//===----------------------------------------------------------------------===//
#include "tcc/Transforms/DecomposeSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCDECOMPOSESOFTMAX
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

FailureOr<SmallVector<Operation *>>
mlir::tcc::decomposeSoftmax(linalg::SoftmaxOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t rank = type.getRank();
  int64_t dim = op.getDimension();
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Type element = type.getElementType();
  Type compute = element.getIntOrFloatBitWidth() < 32 ? Type(b.getF32Type())
                                                      : element;
  auto floatType = cast<FloatType>(compute);
  SmallVector<int64_t> rowShape(type.getShape());
  rowShape.erase(rowShape.begin() + dim);
  // The sizes of x (dynamic ones as tensor.dim of it) and of its rows.
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, op.getInput());
  SmallVector<OpFoldResult> rowSizes(sizes);
  rowSizes.erase(rowSizes.begin() + dim);
  auto rowType = RankedTensorType::get(rowShape, compute);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap rows = id.dropResult(dim);
  SmallVector<utils::IteratorType> reduceIters(rank,
                                               utils::IteratorType::parallel);
  reduceIters[dim] = utils::IteratorType::reduction;
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  auto widen = [&](OpBuilder &nb, Location l, Value v) -> Value {
    return compute == element ? v : arith::ExtFOp::create(nb, l, compute, v);
  };
  auto filled = [&](double value, bool negInf) -> Value {
    Value empty = tensor::EmptyOp::create(b, loc, rowSizes, compute);
    APFloat init = negInf ? APFloat::getInf(floatType.getFloatSemantics(),
                                            /*Negative=*/true)
                          : APFloat(value);
    if (!negInf) {
      bool lost;
      init.convert(floatType.getFloatSemantics(),
                   APFloat::rmNearestTiesToEven, &lost);
    }
    Value scalar =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(compute, init));
    return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
  };
  Value x = op.getInput();
  auto max = linalg::GenericOp::create(
      b, loc, rowType, ValueRange{x}, ValueRange{filled(0, true)},
      ArrayRef<AffineMap>{id, rows}, reduceIters,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value m = arith::MaximumFOp::create(nb, l, widen(nb, l, args[0]),
                                            args[1]);
        linalg::YieldOp::create(nb, l, m);
      });
  // exp(x - m) as exp2((x - m) * log2 e): one ex2 instruction, as the
  // softmax form computes it (LinalgToTile.h, expOfDifference).
  auto expShifted = [&](OpBuilder &nb, Location l, Value in, Value m) {
    Value d = arith::SubFOp::create(nb, l, widen(nb, l, in), m);
    Value log2e = arith::ConstantOp::create(
        nb, l, nb.getFloatAttr(compute, 1.4426950408889634));
    Value scaled = arith::MulFOp::create(nb, l, d, log2e);
    return math::Exp2Op::create(nb, l, scaled).getResult();
  };
  auto sum = linalg::GenericOp::create(
      b, loc, rowType, ValueRange{x, max.getResult(0)},
      ValueRange{filled(0.0, false)}, ArrayRef<AffineMap>{id, rows, rows},
      reduceIters, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value e = expShifted(nb, l, args[0], args[1]);
        linalg::YieldOp::create(nb, l,
                                arith::AddFOp::create(nb, l, e, args[2])
                                    .getResult());
      });
  // One reciprocal per row, then multiplies (as the softmax form does): a
  // full-precision divide per element costs more than the row's loads, and
  // far more when exp(x - max) underflows to subnormals (large logits).
  AffineMap rowId = AffineMap::getMultiDimIdentityMap(rank - 1, ctx);
  SmallVector<utils::IteratorType> rowParallel(rank - 1,
                                               utils::IteratorType::parallel);
  auto inverse = linalg::GenericOp::create(
      b, loc, rowType, ValueRange{sum.getResult(0)},
      ValueRange{tensor::EmptyOp::create(b, loc, rowSizes, compute)},
      ArrayRef<AffineMap>{rowId, rowId}, rowParallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value one = arith::ConstantOp::create(nb, l, nb.getFloatAttr(compute, 1.0));
        linalg::YieldOp::create(
            nb, l, arith::DivFOp::create(nb, l, one, args[0]).getResult());
      });
  Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
  auto quotient = linalg::GenericOp::create(
      b, loc, type, ValueRange{x, max.getResult(0), inverse.getResult(0)},
      ValueRange{empty}, ArrayRef<AffineMap>{id, rows, rows, id}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value e = expShifted(nb, l, args[0], args[1]);
        Value q = arith::MulFOp::create(nb, l, e, args[2]);
        if (compute != element)
          q = arith::TruncFOp::create(nb, l, element, q);
        linalg::YieldOp::create(nb, l, q);
      });
  op->getResult(0).replaceAllUsesWith(quotient.getResult(0));
  op->erase();
  return SmallVector<Operation *>{max, sum, inverse, quotient};
}


namespace {

bool isPointwise(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && llvm::all_of(generic.getIteratorTypesArray(),
                                 [](utils::IteratorType t) {
                                   return t == utils::IteratorType::parallel;
                                 });
}

/// Whether a last-dim softmax reads an elementwise op's result (a scale, a
/// mask, a bias: `(s * scale + mask).softmax(-1)`) or is read by one (a
/// cast): as reductions, kernel formation makes one row program of them
/// and it; as a linalg.softmax, it is a kernel of its own.
bool hasPointwiseNeighbour(linalg::SoftmaxOp op) {
  return isPointwise(op.getInput().getDefiningOp()) ||
         llvm::any_of(op->getUsers(), isPointwise);
}

struct TccDecomposeSoftmaxPass
    : public tcc::impl::TccDecomposeSoftmaxBase<TccDecomposeSoftmaxPass> {
  void runOnOperation() override {
    SmallVector<linalg::SoftmaxOp> softmaxes;
    getOperation()->walk([&](linalg::SoftmaxOp op) {
      auto type = cast<RankedTensorType>(op.getInput().getType());
      // The softmax of an attention chain stays whole: tcc-form-kernels
      // makes the chain one kernel (form = attention).
      if (tcc::matchAttention(op, tcc::tile::lookupTarget(op)))
        return;
      if (int64_t(op.getDimension()) != type.getRank() - 1 ||
          hasPointwiseNeighbour(op))
        softmaxes.push_back(op);
    });
    for (linalg::SoftmaxOp op : softmaxes)
      if (failed(tcc::decomposeSoftmax(op)))
        return signalPassFailure();
  }
};
} // namespace
