//===- FuseElementwise.cpp - tcc-fuse-elementwise pass --------------------===//
//
// Upstream's elementwise fusion patterns with tcc's policy: single-consumer
// producers only, and no reshape propagation (but past a last-dim softmax
// of regrouped rows).
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/Matchers.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCFUSEELEMENTWISE
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// softmax(expand_shape(x)) over a last dim the reshape keeps whole (the
/// rows regrouped: [B·H, S, S] scores viewed as [B, H, S, S]) is
/// expand_shape(softmax(x)): the reshape moves past the softmax, and a
/// collapse of it after (a batched matmul's operand) then folds away, so
/// attention's chain stays in one batched space (tcc::matchAttention).
struct SoftmaxOfRegroupedRows : OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getInput().getDefiningOp<tensor::ExpandShapeOp>();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!expand || int64_t(op.getDimension()) != type.getRank() - 1 ||
        expand.getReassociationIndices().back().size() != 1)
      return failure();
    Location loc = op.getLoc();
    Value source = expand.getSrc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, source),
        sourceType.getElementType());
    auto softmax = linalg::SoftmaxOp::create(
        rewriter, loc, TypeRange{sourceType}, source, empty,
        sourceType.getRank() - 1);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, type, softmax.getResult()[0], expand.getReassociationIndices(),
        expand.getMixedOutputShape());
    return success();
  }
};

/// contraction(c · x, y) = c · contraction(x, y) for a constant c: an
/// operand scaled by a constant (timm's `q = q * self.scale` before `q @
/// kᵀ`), which would be a kernel of its own (only casts fuse into a
/// contraction), is read unscaled and the scale multiplies the result, where
/// it is an epilogue (attention folds it into exp2's factor). Through the
/// batched matmul's collapse of the operand's batch dims.
struct ScaleAfterContraction : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  /// The constant `scale` multiplies (or divides) its one input by.
  static std::optional<double> constantScale(linalg::GenericOp scale) {
    if (scale.getNumDpsInputs() != 1 || scale.getNumResults() != 1 ||
        !tcc::isAllParallel(scale) ||
        !llvm::all_of(scale.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return std::nullopt;
    Block *body = scale.getBody();
    if (std::distance(body->begin(), body->end()) != 2)
      return std::nullopt;
    Value arg = body->getArgument(0);
    Operation *op = &body->front();
    auto constantOf = [](Value v) -> std::optional<double> {
      FloatAttr attr;
      if (matchPattern(v, m_Constant(&attr)))
        return attr.getValueAsDouble();
      return std::nullopt;
    };
    if (auto mul = dyn_cast<arith::MulFOp>(op)) {
      if (mul.getLhs() == arg)
        return constantOf(mul.getRhs());
      if (mul.getRhs() == arg)
        return constantOf(mul.getLhs());
    }
    if (auto div = dyn_cast<arith::DivFOp>(op); div && div.getLhs() == arg)
      if (std::optional<double> c = constantOf(div.getRhs()); c && *c != 0.0)
        return 1.0 / *c;
    return std::nullopt;
  }

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!linalg::isaContractionOpInterface(op) || op.getNumResults() != 1 ||
        !tcc::isZeroInitMultiplyAdd(op))
      return failure();
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    if (!isa<FloatType>(resultType.getElementType()) ||
        !resultType.hasStaticShape())
      return failure();
    for (OpOperand *operand : op.getDpsInputOperands()) {
      Value value = operand->get();
      auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
      Value scaled = collapse ? collapse.getSrc() : value;
      auto scale = scaled.getDefiningOp<linalg::GenericOp>();
      if (!scale || !scaled.hasOneUse() || (collapse && !value.hasOneUse()))
        continue;
      std::optional<double> c = constantScale(scale);
      if (!c)
        continue;
      Location loc = op.getLoc();
      Value source = scale.getDpsInputs()[0];
      if (collapse)
        source = tensor::CollapseShapeOp::create(
            rewriter, loc, source, collapse.getReassociationIndices());
      rewriter.modifyOpInPlace(op, [&] { operand->set(source); });
      rewriter.setInsertionPointAfter(op);
      Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                            resultType.getElementType());
      AffineMap id = rewriter.getMultiDimIdentityMap(resultType.getRank());
      Type element = resultType.getElementType();
      auto scaledResult = linalg::GenericOp::create(
          rewriter, loc, TypeRange{resultType}, ValueRange{op.getResult(0)},
          ValueRange{empty}, ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(resultType.getRank(),
                                           utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value k = arith::ConstantOp::create(
                nb, l, nb.getFloatAttr(element, *c));
            linalg::YieldOp::create(
                nb, l, ValueRange{arith::MulFOp::create(nb, l, args[0], k)});
          });
      rewriter.replaceAllUsesExcept(op.getResult(0), scaledResult.getResult(0),
                                    scaledResult);
      if (collapse && collapse.use_empty())
        rewriter.eraseOp(collapse);
      if (scale.use_empty())
        rewriter.eraseOp(scale);
      return success();
    }
    return failure();
  }
};

struct TccFuseElementwisePass
    : public tcc::impl::TccFuseElementwiseBase<TccFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Fusing a producer with several users would recompute it per user.
    // Into a contraction only casts and copies (a transpose) fuse: its GEMM
    // schedules read their operands from memory (the tensor-core path takes
    // f16 operands widened in the body; tcc-normalize-matmul-operands
    // re-materializes a fused transpose), so any other prologue (SwiGLU's
    // silu(a) * b before the down projection) stays a kernel of its own.
    linalg::ControlFusionFn onlyConsumer = [](OpOperand *fused) {
      if (!fused->get().hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      if (!consumer || !linalg::isaContractionOpInterface(consumer))
        return true;
      auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
      if (!producer)
        return false;
      // (P's cast after an f32 softmax stays: the attention chain reads it
      // as P in the operands' type, tcc::matchAttention.)
      if (llvm::any_of(producer.getDpsInputs(), [](Value v) {
            return v.getDefiningOp<linalg::SoftmaxOp>() != nullptr;
          }))
        return false;
      Block &body = producer.getRegion().front();
      auto ops = body.without_terminator();
      size_t count = std::distance(ops.begin(), ops.end());
      return count == 0 ||
             (count == 1 && isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
                                arith::ExtSIOp>(*ops.begin()));
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyConsumer);
    // A score op over [B, H, M, N] reading the batched matmul's [B·H, M, N]
    // scores regrouped (a mask or bias shared by the heads, [M, N], read
    // beside them) runs on the [B·H, M, N] scores: its batch dims collapse,
    // the reshape moves after it and then past the softmax
    // (SoftmaxOfRegroupedRows), so attention's chain stays 3-D. So does P's
    // cast between an f32 softmax and the batched P V, which flattens it
    // again (collapse_shape(cast(expand_shape(p)))).
    linalg::ControlFusionFn regroupedScores = [](OpOperand *fused) {
      auto op = dyn_cast<linalg::GenericOp>(fused->getOwner());
      auto expand = fused->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!op || !expand || op.getNumResults() != 1 ||
          !op.getResult(0).hasOneUse() || !tcc::isAllParallel(op))
        return false;
      Operation *user = *op.getResult(0).getUsers().begin();
      int64_t rank = expand.getResultType().getRank();
      SmallVector<ReassociationIndices> groups =
          expand.getReassociationIndices();
      if (rank < 4 || groups.size() != 3 ||
          groups[1] != ReassociationIndices{rank - 2} ||
          groups[2] != ReassociationIndices{rank - 1})
        return false;
      if (auto softmax = dyn_cast<linalg::SoftmaxOp>(user))
        return int64_t(softmax.getDimension()) == rank - 1;
      auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
      return collapse && op.getNumDpsInputs() == 1 &&
             collapse.getReassociationIndices() == groups;
    };
    linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns,
                                                       regroupedScores);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    patterns.add<SoftmaxOfRegroupedRows, ScaleAfterContraction>(ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
