//===- FlattenAttentionScores.cpp - tcc-flatten-attention-scores ----------===//
//
// A multi-head attention's score op that reads an operand over some of the
// batch dims (a padding mask [B, S] read across the heads, a per-head bias
// [H, S, S]) runs on the batched matmul's flat [B·H, M, N] scores, the
// operand read at the flat batch index delinearized in its map, where that
// makes the chain one the target's attention kernel builds.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCFLATTENATTENTIONSCORES
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// op(expand_shape(scores), operands...) -> a last-dim softmax -> (P's
/// cast) -> collapse_shape back to the scores' [B·H, M, N].
struct RegroupedScores {
  linalg::GenericOp op;
  tensor::ExpandShapeOp expand;
  OpOperand *scores = nullptr;
  linalg::SoftmaxOp softmax;
  linalg::GenericOp cast; // may be null
  tensor::CollapseShapeOp collapse;
};

/// An all-parallel generic of one result, used once, whose init is only
/// written (identity map, its value unread).
bool isElementwise(linalg::GenericOp op) {
  return op && op.getNumResults() == 1 && tcc::isAllParallel(op) &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() &&
         !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) &&
         op.getResult(0).hasOneUse();
}

/// [[0 .. rank-3], [rank-2], [rank-1]]: the batch dims grouped, the rows
/// and the last dim kept.
bool isBatchGroups(ArrayRef<ReassociationIndices> groups, int64_t rank) {
  return groups.size() == 3 &&
         llvm::equal(groups[0], llvm::seq<int64_t>(0, rank - 2)) &&
         groups[1] == ReassociationIndices{rank - 2} &&
         groups[2] == ReassociationIndices{rank - 1};
}

/// Whether `op`'s body reads the index of one of its first `batchDims` dims
/// (the flat index would have to be delinearized in the body).
bool readsBatchIndex(linalg::GenericOp op, int64_t batchDims) {
  bool reads = false;
  op.getBody()->walk([&](linalg::IndexOp index) {
    reads |= int64_t(index.getDim()) < batchDims;
  });
  return reads;
}

std::optional<RegroupedScores> match(linalg::SoftmaxOp softmax) {
  auto type = cast<RankedTensorType>(softmax.getInput().getType());
  int64_t rank = type.getRank();
  if (rank < 4 || int64_t(softmax.getDimension()) != rank - 1 ||
      !type.hasStaticShape() || !softmax.getResult()[0].hasOneUse())
    return std::nullopt;
  RegroupedScores chain;
  chain.softmax = softmax;
  chain.op = softmax.getInput().getDefiningOp<linalg::GenericOp>();
  if (!isElementwise(chain.op) || int64_t(chain.op.getNumLoops()) != rank ||
      readsBatchIndex(chain.op, rank - 2))
    return std::nullopt;
  for (OpOperand *input : chain.op.getDpsInputOperands()) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    if (!expand || !input->get().hasOneUse() ||
        !chain.op.getMatchingIndexingMap(input).isIdentity() ||
        expand.getSrcType().getRank() != 3 ||
        !isBatchGroups(expand.getReassociationIndices(), rank))
      continue;
    // (Two regrouped inputs: refused, not guessed between.)
    if (chain.scores)
      return std::nullopt;
    chain.scores = input;
    chain.expand = expand;
  }
  if (!chain.scores)
    return std::nullopt;
  Operation *user = *softmax.getResult()[0].getUsers().begin();
  if (auto cast = dyn_cast<linalg::GenericOp>(user)) {
    if (!isElementwise(cast) || cast.getNumDpsInputs() != 1 ||
        !cast.getMatchingIndexingMap(cast.getDpsInputOperand(0))
             .isIdentity() ||
        readsBatchIndex(cast, rank - 2))
      return std::nullopt;
    chain.cast = cast;
    user = *cast.getResult(0).getUsers().begin();
  }
  chain.collapse = dyn_cast<tensor::CollapseShapeOp>(user);
  if (!chain.collapse ||
      !isBatchGroups(chain.collapse.getReassociationIndices(), rank) ||
      chain.collapse.getResultType().getShape() !=
          chain.expand.getSrcType().getShape())
    return std::nullopt;
  return chain;
}

/// `map`, over the [batch..., m, n] loops, over the flat (b, m, n) ones:
/// batch dim k is b's digit (b floordiv stride_k) mod size_k, the last batch
/// dim fastest.
AffineMap flattenMap(AffineMap map, ArrayRef<int64_t> batchSizes) {
  MLIRContext *ctx = map.getContext();
  int64_t batchDims = batchSizes.size();
  AffineExpr flat = getAffineDimExpr(0, ctx);
  SmallVector<AffineExpr> dims(batchDims + 2);
  int64_t stride = 1;
  for (int64_t k = batchDims - 1; k >= 0; --k) {
    AffineExpr digit = stride == 1 ? flat : flat.floorDiv(stride);
    dims[k] = k > 0 ? digit % batchSizes[k] : digit;
    stride *= batchSizes[k];
  }
  dims[batchDims] = getAffineDimExpr(1, ctx);
  dims[batchDims + 1] = getAffineDimExpr(2, ctx);
  return simplifyAffineMap(map.replaceDimsAndSymbols(dims, {}, 3, 0));
}

/// A 3-D copy of elementwise `op` over `inputs` read through `maps`, its
/// body cloned with the rows' and columns' linalg.index renumbered.
linalg::GenericOp flattenedCopy(RewriterBase &rewriter, linalg::GenericOp op,
                                ValueRange inputs, ArrayRef<AffineMap> maps,
                                ArrayRef<int64_t> shape) {
  Location loc = op.getLoc();
  Type element = getElementTypeOrSelf(op.getResult(0).getType());
  auto type = RankedTensorType::get(shape, element);
  Value init = tensor::EmptyOp::create(rewriter, loc, shape, element);
  SmallVector<AffineMap> indexing(maps);
  indexing.push_back(rewriter.getMultiDimIdentityMap(3));
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, indexing,
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel));
  IRMapping mapping;
  op.getRegion().cloneInto(&copy.getRegion(), mapping);
  int64_t drop = int64_t(op.getNumLoops()) - 3;
  SmallVector<linalg::IndexOp> indices;
  copy.getBody()->walk([&](linalg::IndexOp index) { indices.push_back(index); });
  for (linalg::IndexOp index : indices) {
    rewriter.setInsertionPoint(index);
    rewriter.replaceOpWithNewOp<linalg::IndexOp>(index, index.getDim() - drop);
  }
  rewriter.setInsertionPointAfter(copy);
  return copy;
}

struct TccFlattenAttentionScoresPass
    : public tcc::impl::TccFlattenAttentionScoresBase<
          TccFlattenAttentionScoresPass> {
  void runOnOperation() override {
    SmallVector<RegroupedScores> chains;
    getOperation()->walk([&](linalg::SoftmaxOp softmax) {
      if (std::optional<RegroupedScores> chain = match(softmax))
        chains.push_back(*chain);
    });
    IRRewriter rewriter(&getContext());
    for (RegroupedScores &chain : chains)
      flatten(rewriter, chain);
  }

  /// Rewrites `chain` on the flat scores; undoes it unless the attention
  /// kernel then builds the chain.
  void flatten(IRRewriter &rewriter, RegroupedScores &chain) {
    tcc::tile::TargetAttr target = tcc::tile::lookupTarget(chain.op);
    if (!target)
      return;
    Value scores = chain.expand.getSrc();
    ArrayRef<int64_t> shape = chain.expand.getSrcType().getShape();
    ArrayRef<int64_t> batchSizes =
        chain.expand.getResultType().getShape().drop_back(2);
    rewriter.setInsertionPoint(chain.collapse);
    Location loc = chain.softmax.getLoc();
    // The score op: the scores read flat, the other operands through their
    // maps flattened.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : chain.op.getDpsInputOperands()) {
      inputs.push_back(input == chain.scores ? scores : input->get());
      maps.push_back(input == chain.scores
                         ? rewriter.getMultiDimIdentityMap(3)
                         : flattenMap(chain.op.getMatchingIndexingMap(input),
                                      batchSizes));
    }
    linalg::GenericOp op =
        flattenedCopy(rewriter, chain.op, inputs, maps, shape);
    auto softmaxType = RankedTensorType::get(
        shape, getElementTypeOrSelf(chain.softmax.getResult()[0].getType()));
    Value softmaxInit = tensor::EmptyOp::create(
        rewriter, loc, shape, softmaxType.getElementType());
    auto softmax = linalg::SoftmaxOp::create(
        rewriter, loc, TypeRange{softmaxType}, op.getResult(0), softmaxInit,
        /*dimension=*/2);
    SmallVector<Operation *> created{op, softmaxInit.getDefiningOp(), softmax};
    Value result = softmax.getResult()[0];
    if (chain.cast) {
      linalg::GenericOp cast =
          flattenedCopy(rewriter, chain.cast, {result},
                        {rewriter.getMultiDimIdentityMap(3)}, shape);
      created.push_back(cast);
      result = cast.getResult(0);
    }
    if (result.getType() != chain.collapse.getResultType()) {
      eraseAll(rewriter, created);
      return;
    }
    // Checked with the old chain's hold on the scores lifted (the chain
    // reads each value once).
    rewriter.replaceAllUsesWith(chain.collapse.getResult(), result);
    rewriter.setInsertionPoint(chain.expand);
    Value placeholder =
        tensor::EmptyOp::create(rewriter, loc, shape,
                                chain.expand.getSrcType().getElementType());
    chain.expand.getSrcMutable().assign(placeholder);
    if (!tcc::matchAttention(softmax, target)) {
      chain.expand.getSrcMutable().assign(scores);
      rewriter.eraseOp(placeholder.getDefiningOp());
      rewriter.replaceAllUsesWith(result, chain.collapse.getResult());
      eraseAll(rewriter, created);
      return;
    }
    SmallVector<Operation *> old{placeholder.getDefiningOp(), chain.expand,
                                 chain.op, chain.softmax};
    if (chain.cast)
      old.push_back(chain.cast);
    old.push_back(chain.collapse);
    eraseAll(rewriter, old);
  }

  /// Erases `ops` (each used only by later ones), last first, with the
  /// inits they alone use.
  static void eraseAll(RewriterBase &rewriter, ArrayRef<Operation *> ops) {
    for (Operation *op : llvm::reverse(ops)) {
      SmallVector<Operation *> inits;
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
        for (Value init : dps.getDpsInits())
          if (auto empty = init.getDefiningOp<tensor::EmptyOp>();
              empty && init.hasOneUse() && !llvm::is_contained(ops, empty))
            inits.push_back(empty);
      rewriter.eraseOp(op);
      for (Operation *init : inits)
        rewriter.eraseOp(init);
    }
  }
};
} // namespace
