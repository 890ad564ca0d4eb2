//===- SplitReduction.cpp - tcc-split-reduction pass ----------------------===//
//
// Reductions with too few outputs to fill the GPU become two reductions: a
// partial one over S chunks of the reduced dim into a [.., S, ..] buffer,
// then a final one over S. Before that, reductions are put in the forms
// tcc-form-kernels and convert-linalg-to-tile build: reduced dims that are
// not one run become two reductions (the innermost run, then the rest);
// several trailing reduced dims become one, of the collapsed inputs (every
// dim: a one-row reduction [1, numel] -> [1]). Arg reductions (a value and
// its index, tcc/Analysis/ArgReduction.h) are split alike: the partial
// reduction's element index is the original loop's (s * chunk + k), the
// final one chooses among the S (value, index) partials with the body's own
// choice, so ties still go to the first index and NaN still wins.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/OptionChecks.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "tcc/Analysis/ArgReduction.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCSPLITREDUCTION
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// A reduction this pass can rewrite: `yield combiner(x, out)` into a fill
/// of a constant, static shapes, one result, every map a projection.
struct Reduction {
  linalg::GenericOp op;
  Operation *combiner;
  TypedAttr neutral;
  arith::ConstantOp fill; // the init's value
};

std::optional<Reduction> matchReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 ||
      llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) ||
      !op.getRegion().front().getOps<linalg::IndexOp>().empty() ||
      llvm::none_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::reduction;
      }))
    return std::nullopt;
  if (llvm::any_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return !map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  Value yielded = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != &body ||
      combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
      !llvm::is_contained(combiner->getOperands(), Value(out)) ||
      !out.hasOneUse())
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral)
    return std::nullopt;
  // The init: linalg.fill of a constant, or a generalized fill.
  Value init = op.getDpsInits()[0];
  Value fillValue;
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    fillValue = fill.getInputs()[0];
  else if (auto generic = init.getDefiningOp<linalg::GenericOp>();
           generic && generic.getNumDpsInputs() == 0)
    fillValue = cast<linalg::YieldOp>(generic.getBody()->getTerminator())
                    .getOperand(0);
  auto constant = fillValue ? fillValue.getDefiningOp<arith::ConstantOp>()
                            : arith::ConstantOp();
  if (!constant)
    return std::nullopt;
  return Reduction{op, combiner, *neutral, constant};
}

Value createFill(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 TypedAttr value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, value.getType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

/// A generic like `r.op` on new operands, maps and iterators, with its body.
linalg::GenericOp cloneWith(OpBuilder &b, Reduction r,
                            ValueRange inputs, Value init,
                            ArrayRef<AffineMap> maps,
                            ArrayRef<utils::IteratorType> iterators) {
  auto op = linalg::GenericOp::create(b, r.op.getLoc(), init.getType(), inputs,
                                      init, maps, iterators);
  IRMapping mapping;
  r.op.getRegion().cloneInto(&op.getRegion(), mapping);
  return op;
}

/// The reduction of `partial` (read whole, its loops `iterators`) with
/// `r`'s combiner alone into `r.op`'s init (indexed by the parallel loops),
/// which replaces `r.op`.
Reduction reducePartials(OpBuilder &b, Reduction r, Value partial,
                         ArrayRef<utils::IteratorType> iterators) {
  linalg::GenericOp op = r.op;
  MLIRContext *ctx = b.getContext();
  unsigned rank = iterators.size();
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < rank; ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      kept.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                              AffineMap::get(rank, 0, kept, ctx)};
  Value init = op.getDpsInits()[0];
  Type element = cast<RankedTensorType>(init.getType()).getElementType();
  bool outFirst = r.combiner->getOperand(0) ==
                  op.getRegion().front().getArgument(op.getNumDpsInputs());
  auto final = linalg::GenericOp::create(
      b, op.getLoc(), init.getType(), ValueRange{partial}, init, maps,
      iterators, [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value in = args[0], out = args[1];
        OperationState state(loc, r.combiner->getName(),
                             outFirst ? ValueRange{out, in}
                                      : ValueRange{in, out},
                             TypeRange{element}, r.combiner->getAttrs());
        linalg::YieldOp::create(nested, loc,
                                nested.create(state)->getResult(0));
      });
  op.getResult(0).replaceAllUsesWith(final.getResult(0));
  op.erase();
  Reduction rewritten = r;
  rewritten.op = final;
  rewritten.combiner =
      cast<linalg::YieldOp>(final.getRegion().front().getTerminator())
          .getOperand(0)
          .getDefiningOp();
  return rewritten;
}

/// A reduction of loops that are not one contiguous run (`x.sum((0, 2))`
/// of a rank-3 tensor: [R, P, R]) as two: the innermost run of reduced
/// loops first (the others kept: a row or column reduction), then the
/// remaining reduced loops of its result. A run of several trailing loops
/// with an input that is not read whole (`(x * b).sum()`, b a row) is
/// reduced its last loop first. Returns the two; nullopt otherwise, or when
/// the first input reading every loop is not the identity, or the init is
/// not indexed by the parallel loops in order.
std::optional<std::pair<Reduction, Reduction>> peelInnerReduction(OpBuilder &b,
                                                                  Reduction r) {
  linalg::GenericOp op = r.op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  auto reduced = [&](unsigned d) {
    return iterators[d] == utils::IteratorType::reduction;
  };
  unsigned first = 0, last = numLoops - 1;
  while (!reduced(first))
    ++first;
  while (!reduced(last))
    --last;
  unsigned start = last;
  while (start > first && reduced(start - 1))
    --start;
  MLIRContext *ctx = b.getContext();
  OpOperand *const *primary =
      llvm::find_if(op.getDpsInputOperands(), [&](OpOperand *input) {
        return op.getMatchingIndexingMap(input).getNumResults() == numLoops;
      });
  if (primary == op.getDpsInputOperands().end() ||
      !op.getMatchingIndexingMap(*primary).isIdentity())
    return std::nullopt;
  if (start == first) {
    // One run: only a run of trailing loops over inputs that cannot be
    // collapsed (a broadcast operand) is reduced in steps, its last loop
    // first.
    bool collapsible =
        llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          return op.getMatchingIndexingMap(input).isIdentity();
        });
    if (last != numLoops - 1 || start == last || collapsible)
      return std::nullopt;
    start = last;
  }
  SmallVector<AffineExpr> parallel, keptDims;
  SmallVector<int64_t> partialShape;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (!reduced(d))
      parallel.push_back(getAffineDimExpr(d, ctx));
    if (d < start || d > last) {
      keptDims.push_back(getAffineDimExpr(d, ctx));
      partialShape.push_back(ranges[d]);
    }
  }
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      AffineMap::get(numLoops, 0, parallel, ctx))
    return std::nullopt;
  b.setInsertionPoint(op);
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input));
  maps.push_back(AffineMap::get(numLoops, 0, keptDims, ctx));
  SmallVector<utils::IteratorType> innerIterators(
      numLoops, utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> outerIterators;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (d >= start && d <= last)
      innerIterators[d] = utils::IteratorType::reduction;
    else
      outerIterators.push_back(iterators[d]);
  }
  Value partialInit = createFill(b, op.getLoc(), partialShape, r.neutral);
  linalg::GenericOp inner = cloneWith(b, r, op.getDpsInputs(), partialInit,
                                      maps, innerIterators);
  Reduction innerReduction = r;
  innerReduction.op = inner;
  innerReduction.combiner =
      cast<linalg::YieldOp>(inner.getRegion().front().getTerminator())
          .getOperand(0)
          .getDefiningOp();
  innerReduction.fill = partialInit.getDefiningOp<linalg::FillOp>()
                            .getInputs()[0]
                            .getDefiningOp<arith::ConstantOp>();
  Reduction outer =
      reducePartials(b, r, inner.getResult(0), outerIterators);
  return std::make_pair(innerReduction, outer);
}

/// `r.op` reducing its trailing loops (every loop, or several) as a
/// reduction of one last loop over its collapsed inputs: [P..., R...] ->
/// [P..., prod R], or [1, numel] when every loop is reduced (the rank-0
/// value then a reshape of the [1] result); the value replaces r.op's.
/// Nullopt when r.op reduces one last loop already, reduces other loops, or
/// reads an input through a map other than the identity.
std::optional<Reduction> asRowReduction(OpBuilder &b, Reduction r) {
  linalg::GenericOp op = r.op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  unsigned kept = llvm::find(iterators, utils::IteratorType::reduction) -
                  iterators.begin();
  if (llvm::any_of(ArrayRef(iterators).drop_front(kept),
                   [](utils::IteratorType t) {
                     return t != utils::IteratorType::reduction;
                   }) ||
      (kept > 0 && kept + 1 == numLoops))
    return std::nullopt;
  MLIRContext *ctx = b.getContext();
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isIdentity())
      return std::nullopt;
  SmallVector<AffineExpr> keptDims;
  for (unsigned d = 0; d < kept; ++d)
    keptDims.push_back(getAffineDimExpr(d, ctx));
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      AffineMap::get(numLoops, 0, keptDims, ctx))
    return std::nullopt;
  Location loc = op.getLoc();
  int64_t reduced = 1;
  for (int64_t extent : ArrayRef(ranges).drop_front(kept))
    reduced *= extent;
  b.setInsertionPoint(op);
  SmallVector<Value> inputs;
  for (Value input : op.getDpsInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d < kept; ++d)
      groups.push_back({int64_t(d)});
    groups.emplace_back();
    for (unsigned d = kept; d < numLoops; ++d)
      groups.back().push_back(d);
    if (groups.back().size() > 1)
      input = tensor::CollapseShapeOp::create(b, loc, input, groups);
    if (kept == 0)
      input = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({1, reduced}, type.getElementType()),
          input, ArrayRef<ReassociationIndices>{{0, 1}});
    inputs.push_back(input);
  }
  unsigned rows = std::max(kept, 1u);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rows + 1, ctx);
  SmallVector<AffineMap> maps(inputs.size(), identity);
  maps.push_back(identity.getMajorSubMap(rows));
  SmallVector<utils::IteratorType> rowIterators(rows,
                                                utils::IteratorType::parallel);
  rowIterators.push_back(utils::IteratorType::reduction);
  Value init = kept == 0 ? createFill(b, loc, {1}, r.fill.getValue())
                         : op.getDpsInits()[0];
  linalg::GenericOp row = cloneWith(b, r, inputs, init, maps, rowIterators);
  Value result = row.getResult(0);
  if (kept == 0)
    result = tensor::CollapseShapeOp::create(b, loc, op.getResult(0).getType(),
                                             result,
                                             ArrayRef<ReassociationIndices>{});
  op.getResult(0).replaceAllUsesWith(result);
  op.erase();
  Reduction rewritten = r;
  rewritten.op = row;
  rewritten.combiner =
      cast<linalg::YieldOp>(row.getRegion().front().getTerminator())
          .getOperand(0)
          .getDefiningOp();
  return rewritten;
}

/// A generic like arg reduction `op` on new operands, maps and iterators,
/// with its body; `remapIndex(b, index op)` gives the integer value of
/// each of the body's loop-index casts (the element's index in the new
/// loops), built before the cast, which then goes.
linalg::GenericOp
cloneArgWith(OpBuilder &b, linalg::GenericOp op, ValueRange inputs,
             ValueRange inits, ArrayRef<AffineMap> maps,
             ArrayRef<utils::IteratorType> iterators,
             function_ref<Value(OpBuilder &, arith::IndexCastOp)> remapIndex) {
  auto clone = linalg::GenericOp::create(b, op.getLoc(), inits.getTypes(),
                                         inputs, inits, maps, iterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&clone.getRegion(), mapping);
  SmallVector<arith::IndexCastOp> casts;
  for (auto cast : clone.getRegion().front().getOps<arith::IndexCastOp>())
    if (cast.getIn().getDefiningOp<linalg::IndexOp>())
      casts.push_back(cast);
  for (arith::IndexCastOp cast : casts) {
    OpBuilder nested(cast);
    Value index = remapIndex(nested, cast);
    cast.getResult().replaceAllUsesWith(index);
    Operation *loop = cast.getIn().getDefiningOp();
    cast.erase();
    if (loop->use_empty())
      loop->erase();
  }
  return clone;
}

/// `index_cast(linalg.index dim)` to `type` at `b`.
Value loopIndex(OpBuilder &b, Location loc, unsigned dim, Type type) {
  return arith::IndexCastOp::create(b, loc, type,
                                    linalg::IndexOp::create(b, loc, dim));
}

/// Arg reduction `op` reducing its only loop ([N] -> []) as a one-row
/// reduction [1, N] -> [1] of its expanded inputs (the rank-0 results
/// reshapes of the [1] ones); its element index stays the loop's.
std::optional<linalg::GenericOp> argAsRowReduction(OpBuilder &b,
                                                   linalg::GenericOp op) {
  if (op.getNumLoops() != 1 ||
      llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
        return !op.getMatchingIndexingMap(input).isIdentity();
      }))
    return std::nullopt;
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  int64_t extent = op.getStaticLoopRanges()[0];
  b.setInsertionPoint(op);
  SmallVector<Value> inputs;
  for (Value input : op.getDpsInputs())
    inputs.push_back(tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({1, extent}, getElementTypeOrSelf(input)),
        input, ArrayRef<ReassociationIndices>{{0, 1}}));
  SmallVector<Value> inits;
  for (Value init : op.getDpsInits()) {
    FailureOr<Value> fill = tcc::getFillValue(init);
    if (failed(fill))
      return std::nullopt;
    inits.push_back(createFill(
        b, loc, {1},
        cast<TypedAttr>(fill->getDefiningOp<arith::ConstantOp>().getValue())));
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<AffineMap> maps(inputs.size(), identity);
  maps.append(2, identity.getMajorSubMap(1));
  linalg::GenericOp row = cloneArgWith(
      b, op, inputs, inits, maps,
      {utils::IteratorType::parallel, utils::IteratorType::reduction},
      [&](OpBuilder &nested, arith::IndexCastOp cast) {
        return loopIndex(nested, cast.getLoc(), 1, cast.getType());
      });
  for (auto [result, rowResult] : llvm::zip(op.getResults(), row.getResults()))
    result.replaceAllUsesWith(tensor::CollapseShapeOp::create(
        b, loc, result.getType(), rowResult, ArrayRef<ReassociationIndices>{}));
  op.erase();
  return row;
}

/// The reduction of the S partials: of loops `iterators` (S reduced),
/// reading `partials` (values, indices) whole into `op`'s inits, choosing
/// with `arg`'s body (each partial pair as the element). Replaces `op`.
void reduceArgPartials(OpBuilder &b, linalg::GenericOp op,
                       const tcc::ArgReduction &arg, ValueRange partials,
                       ArrayRef<utils::IteratorType> iterators) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = iterators.size();
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < rank; ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      kept.push_back(getAffineDimExpr(d, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap out = AffineMap::get(rank, 0, kept, ctx);
  auto final = linalg::GenericOp::create(
      b, op.getLoc(), op.getResultTypes(), partials, op.getDpsInits(),
      ArrayRef<AffineMap>{identity, identity, out, out}, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        auto [value, index] =
            tcc::cloneArgChoice(nested, arg, args[2], args[3], args[0], args[1]);
        linalg::YieldOp::create(nested, loc, ValueRange{value, index});
      });
  op->replaceAllUsesWith(final.getResults());
  op.erase();
}

/// `op`, whose results are all rank 0 (a full reduction, with or without a
/// fused prologue, or a pointwise op on scalars), with a leading unit loop:
/// every operand gains a leading size-1 dim (expand_shape) read by that
/// loop, so the kernel forms see one row ([1, N...] -> [1]); the rank-0
/// values are reshapes of the [1] results. linalg.index dims shift by one.
/// Returns the new op, or null when `op` is not such an op.
linalg::GenericOp withUnitLoop(OpBuilder &b, linalg::GenericOp op) {
  // (Fills, which read nothing, are cloned into the kernels that use them.)
  if (op.getNumResults() == 0 || op.getNumDpsInputs() == 0 ||
      llvm::any_of(op.getResultTypes(), [](Type t) {
        return cast<RankedTensorType>(t).getRank() != 0;
      }) ||
      !op.hasPureTensorSemantics())
    return nullptr;
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  unsigned loops = op.getNumLoops();
  b.setInsertionPoint(op);
  auto widen = [&](Value v) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    SmallVector<ReassociationIndices> groups;
    if (type.getRank() > 0) {
      groups.push_back({0, 1});
      for (int64_t d = 1; d < type.getRank(); ++d)
        groups.push_back({d + 1});
    }
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups);
  };
  auto shiftMap = [&](AffineMap map) {
    SmallVector<AffineExpr> results = {getAffineDimExpr(0, ctx)};
    for (AffineExpr e : map.getResults())
      results.push_back(e.shiftDims(loops, 1));
    return AffineMap::get(loops + 1, 0, results, ctx);
  };
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    inputs.push_back(widen(input->get()));
    maps.push_back(shiftMap(op.getMatchingIndexingMap(input)));
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    // A fresh [1] tensor or fill (what the kernels clone), else a reshape.
    Value v = init.get();
    auto type = cast<RankedTensorType>(v.getType());
    if (v.getDefiningOp<tensor::EmptyOp>())
      v = tensor::EmptyOp::create(b, loc, {1}, type.getElementType());
    else if (FailureOr<Value> fill = tcc::getFillValue(v); succeeded(fill))
      v = createFill(b, loc, {1},
                     cast<TypedAttr>(fill->getDefiningOp<arith::ConstantOp>().getValue()));
    else
      v = widen(v);
    inits.push_back(v);
    maps.push_back(shiftMap(op.getMatchingIndexingMap(&init)));
  }
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel};
  llvm::append_range(iterators, op.getIteratorTypesArray());
  SmallVector<Type> resultTypes;
  for (Value init : inits)
    resultTypes.push_back(init.getType());
  auto wide = linalg::GenericOp::create(b, loc, resultTypes, inputs, inits,
                                        maps, iterators);
  IRMapping mapping;
  op.getRegion().cloneInto(&wide.getRegion(), mapping);
  wide.getRegion().front().walk([&](linalg::IndexOp index) {
    index.setDim(index.getDim() + 1);
  });
  for (auto [result, wideResult] :
       llvm::zip(op.getResults(), wide.getResults()))
    result.replaceAllUsesWith(tensor::CollapseShapeOp::create(
        b, loc, result.getType(), wideResult,
        ArrayRef<ReassociationIndices>{}));
  op.erase();
  return wide;
}

struct TccSplitReductionPass
    : public tcc::impl::TccSplitReductionBase<TccSplitReductionPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *module = getOperation();
    constexpr StringLiteral pass = "tcc-split-reduction";
    if (failed(tcc::checkOptionRange(module, pass, "target-programs", targetPrograms,
                                1, 1 << 20)) ||
        failed(tcc::checkOptionRange(module, pass, "min-row-chunk", minRowChunk, 1,
                                1 << 30)) ||
        failed(tcc::checkOptionRange(module, pass, "min-column-chunk",
                                minColumnChunk, 1, 1 << 30)))
      return signalPassFailure();
    OpBuilder b(&getContext());
    // Ops with rank-0 results the reduction rewrites below do not take (a
    // full reduction with a fused prologue, a pointwise op on scalars) run
    // over one row.
    SmallVector<linalg::GenericOp> scalars;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!matchReduction(op) && !tcc::matchArgReduction(op))
        scalars.push_back(op);
    });
    for (linalg::GenericOp op : scalars)
      (void)withUnitLoop(b, op);
    SmallVector<Reduction> reductions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (std::optional<Reduction> r = matchReduction(op))
        reductions.push_back(*r);
    });
    SmallVector<linalg::GenericOp> argReductions;
    // (Of static sizes: a dynamic one runs as its form's looped kernel.)
    getOperation()->walk([&](linalg::GenericOp op) {
      if (tcc::matchArgReduction(op) &&
          llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
        argReductions.push_back(op);
    });
    for (linalg::GenericOp op : argReductions) {
      if (std::optional<linalg::GenericOp> row = argAsRowReduction(b, op))
        op = *row;
      if (std::optional<int64_t> factor = splitFactor(op))
        splitArg(b, op, *factor);
    }
    while (!reductions.empty()) {
      Reduction r = reductions.pop_back_val();
      if (auto peeled = peelInnerReduction(b, r)) {
        reductions.append({peeled->second, peeled->first});
        continue;
      }
      if (std::optional<Reduction> row = asRowReduction(b, r))
        r = *row;
      if (std::optional<int64_t> factor = splitFactor(r.op))
        split(b, r, *factor);
    }
    // Chains of reshapes (of a flattened input) fold into one.
    RewritePatternSet patterns(&getContext());
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns,
                                                       &getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  /// How many chunks to split the reduced dim of `op` into (nullopt: none).
  std::optional<int64_t> splitFactor(linalg::GenericOp op);
  void split(OpBuilder &b, Reduction r, int64_t factor);
  void splitArg(OpBuilder &b, linalg::GenericOp op, int64_t factor);
};

/// The partial reduction's operands when splitting loop `dim` of `op` into
/// (s, k), s parallel: the inputs (expanded where they read dim), their
/// maps, then the partials' map, shape and the loops' iterators.
struct SplitOperands {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps; // inputs', then the partials'
  SmallVector<int64_t> partialShape;
  SmallVector<utils::IteratorType> iterators;
};

SplitOperands splitOperands(OpBuilder &b, linalg::GenericOp op, unsigned dim,
                            int64_t factor) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  int64_t chunk = ranges[dim] / factor;
  auto newDim = [&](unsigned d) { return d < dim ? d : d + 1; };
  SplitOperands split;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (d == dim)
      split.iterators.push_back(utils::IteratorType::parallel);
    split.iterators.push_back(iterators[d]);
  }
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = cast<RankedTensorType>(input->get().getType());
    SmallVector<AffineExpr> results;
    SmallVector<ReassociationIndices> groups;
    SmallVector<int64_t> shape;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      unsigned d = map.getDimPosition(i);
      int64_t position = results.size();
      if (d == dim) {
        groups.push_back({position, position + 1});
        results.push_back(getAffineDimExpr(dim, ctx));     // s
        results.push_back(getAffineDimExpr(dim + 1, ctx)); // k
        shape.append({factor, chunk});
      } else {
        groups.push_back({position});
        results.push_back(getAffineDimExpr(newDim(d), ctx));
        shape.push_back(type.getDimSize(i));
      }
    }
    Value value = input->get();
    if (shape.size() != size_t(type.getRank()))
      value = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, type.getElementType()), value,
          groups);
    split.inputs.push_back(value);
    split.maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
  }
  // Partials: the parallel loops, s among them where the reduced dim was.
  SmallVector<AffineExpr> partialResults;
  for (unsigned d = 0; d <= numLoops; ++d)
    if (d != dim + 1) {
      partialResults.push_back(getAffineDimExpr(d, ctx));
      split.partialShape.push_back(d == dim ? factor
                                            : ranges[d < dim ? d : d - 1]);
    }
  split.maps.push_back(AffineMap::get(numLoops + 1, 0, partialResults, ctx));
  return split;
}

void TccSplitReductionPass::splitArg(OpBuilder &b, linalg::GenericOp op,
                                     int64_t factor) {
  tcc::ArgReduction arg = *tcc::matchArgReduction(op);
  Location loc = op.getLoc();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned dim = llvm::find(iterators, utils::IteratorType::reduction) -
                 iterators.begin();
  int64_t chunk = op.getStaticLoopRanges()[dim] / factor;
  b.setInsertionPoint(op);
  SplitOperands split = splitOperands(b, op, dim, factor);
  // Partial inits: the original fills (the choice's identity) over [.., S, ..].
  SmallVector<Value> partialInits;
  for (Value init : op.getDpsInits()) {
    auto fill = tcc::getFillValue(init)->getDefiningOp<arith::ConstantOp>();
    partialInits.push_back(createFill(b, loc, split.partialShape,
                                      cast<TypedAttr>(fill.getValue())));
  }
  split.maps.push_back(split.maps.back());
  // The element's index in the original loop: s * chunk + k.
  linalg::GenericOp partial = cloneArgWith(
      b, op, split.inputs, partialInits, split.maps, split.iterators,
      [&](OpBuilder &nested, arith::IndexCastOp cast) {
        unsigned d = cast.getIn().getDefiningOp<linalg::IndexOp>().getDim();
        Location l = cast.getLoc();
        Type type = cast.getType();
        if (d != dim)
          return loopIndex(nested, l, d < dim ? d : d + 1, type);
        Value s = loopIndex(nested, l, dim, type);
        Value k = loopIndex(nested, l, dim + 1, type);
        Value base = arith::MulIOp::create(
            nested, l, s,
            arith::ConstantOp::create(nested, l,
                                      nested.getIntegerAttr(type, chunk)));
        return arith::AddIOp::create(nested, l, base, k).getResult();
      });
  SmallVector<utils::IteratorType> finalIterators(
      split.partialShape.size(), utils::IteratorType::parallel);
  finalIterators[dim] = utils::IteratorType::reduction;
  reduceArgPartials(b, op, arg, partial.getResults(), finalIterators);
}

std::optional<int64_t>
TccSplitReductionPass::splitFactor(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  // (A reduction of one loop to a scalar is first made a row by
  // asRowReduction; its final reduction would have no kernel form.)
  if (numLoops < 2 ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1)
    return std::nullopt;
  // A contraction (a matmul: K reduced) stays whole for the GEMM forms,
  // which walk K themselves: its partials ([M, N, S]) would be no kernel
  // form's (a split-K GEMM is not one).
  if (linalg::isaContractionOpInterface(op))
    return std::nullopt;
  unsigned dim = llvm::find(iterators, utils::IteratorType::reduction) -
                 iterators.begin();
  // The init holds the parallel loops in loop order (the final reduction
  // then reads the partials in the layout it reduces).
  SmallVector<AffineExpr> parallel;
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != dim)
      parallel.push_back(getAffineDimExpr(d, op.getContext()));
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      AffineMap::get(numLoops, 0, parallel, op.getContext()))
    return std::nullopt;
  // A reduction whose value is read back over the reduced space (x -
  // x.mean(-1)) belongs to a row program; it stays whole.
  SmallVector<Value> worklist(op->getResults());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
        worklist.push_back(user->getResult(0));
      else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
               linalgOp && linalgOp.getNumLoops() >= numLoops)
        return std::nullopt;
    }
  }
  int64_t outputs = 1;
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != dim)
      outputs *= ranges[d];
  // Programs the unsplit kernel would have: one per row, or one per batch
  // index and block of 512 bytes of columns.
  int64_t programs, minChunk;
  if (dim == numLoops - 1) {
    programs = outputs;
    minChunk = minRowChunk;
  } else {
    std::optional<tcc::ColumnReductionInfo> info =
        tcc::classifyColumnReduction(op);
    if (!info || info->numReducedLoops != 1 ||
        !llvm::equal(info->order, llvm::seq<unsigned>(0, numLoops)))
      return std::nullopt;
    programs = tcc::unsplitColumnPrograms(
        info->batch, info->columns, tcc::streamedElementBytes(op, *info));
    minChunk = minColumnChunk;
  }
  if (programs * 4 > targetPrograms)
    return std::nullopt;
  int64_t extent = ranges[dim];
  int64_t wanted = std::min<int64_t>(llvm::divideCeil(targetPrograms, programs),
                                     extent / std::max<int64_t>(1, minChunk));
  // The largest divisor of the extent up to `wanted`; fewer than 4 chunks
  // do not pay for the second launch.
  for (int64_t factor = wanted; factor >= 4; --factor)
    if (extent % factor == 0)
      return factor;
  return std::nullopt;
}

void TccSplitReductionPass::split(OpBuilder &b, Reduction r,
                                  int64_t factor) {
  linalg::GenericOp op = r.op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned dim = llvm::find(iterators, utils::IteratorType::reduction) -
                 iterators.begin();
  b.setInsertionPoint(op);
  SplitOperands split = splitOperands(b, op, dim, factor);
  Value partialInit =
      createFill(b, op.getLoc(), split.partialShape, r.neutral);
  linalg::GenericOp partial = cloneWith(b, r, split.inputs, partialInit,
                                        split.maps, split.iterators);

  // The final reduction of the partials over s, into the original init.
  SmallVector<utils::IteratorType> finalIterators(
      split.partialShape.size(), utils::IteratorType::parallel);
  finalIterators[dim] = utils::IteratorType::reduction;
  reducePartials(b, r, partial.getResult(0), finalIterators);
}

} // namespace
