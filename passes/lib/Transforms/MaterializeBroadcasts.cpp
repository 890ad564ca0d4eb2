//===- MaterializeBroadcasts.cpp - tcc-materialize-broadcasts -------------===//
//
// A reduction whose fused prologue reads an operand through a broadcast that
// no reduction form reads (a column reduction's operand lacking the reduced
// dim and a column dim, a scalar in a full reduction, a transposed read;
// row programs gather in-order broadcasts themselves) gets that operand
// broadcast by an elementwise generic of its own into a view the forms
// read: the reduction's output space when the operand does not vary along
// the reduced loops (a small tensor), else its whole iteration space in
// memory order. The broadcast costs one pass over that view, in a pointwise
// kernel of its own. A matmul epilogue's scalar becomes a column vector
// (an attention chain's score ops excepted: the attention kernel reads
// their operands as they are).
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Analysis/RowSpace.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCMATERIALIZEBROADCASTS
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// Whether a reduction form takes `op` as it is. A full reduction (rank-0
/// result) is tcc-split-reduction's to make one row of, which it does when
/// every input is read through every loop.
bool isFormed(linalg::GenericOp op) {
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getNumResults() == 0)
    return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      return op.getMatchingIndexingMap(input).isPermutation();
    });
  return tcc::classifyRowOp(op) || tcc::classifyColumnReduction(op);
}

/// The dims `map` reads.
llvm::SmallBitVector usedDims(AffineMap map) {
  llvm::SmallBitVector used(map.getNumDims());
  for (AffineExpr expr : map.getResults())
    used.set(cast<AffineDimExpr>(expr).getPosition());
  return used;
}

/// `value` (read by a loop nest through `map`) broadcast to the tensor
/// `target` reads: an elementwise generic over target's results, reading
/// `value` through map o target^-1. `map`'s dims are among target's.
Value broadcastTo(OpBuilder &b, Location loc, Value value, AffineMap map,
                  AffineMap target, linalg::LinalgOp op) {
  // The loops' sizes: attributes when static, tensor.dim of an operand when
  // dynamic.
  SmallVector<OpFoldResult> shape;
  SmallVector<Range> loops = op.createLoopRanges(b, loc);
  for (AffineExpr expr : target.getResults())
    shape.push_back(loops[cast<AffineDimExpr>(expr).getPosition()].size);
  Type elementType = cast<ShapedType>(value.getType()).getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, shape, elementType);
  AffineMap read = map.compose(inverseAndBroadcastProjectedPermutation(target));
  AffineMap write =
      AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext());
  SmallVector<utils::IteratorType> parallel(shape.size(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ValueRange{value}, ValueRange{empty},
             ArrayRef<AffineMap>{read, write}, parallel,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// Rewrites `op`'s inputs that no form reads, or leaves `op` as it is when
/// that does not make it one a form takes. `keepSingleDims`: inputs read
/// through one dim (a row or column vector) are kept as they are.
bool materialize(linalg::GenericOp op, bool keepSingleDims) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // The output space (the first init's map) and the iteration space in
  // memory order (the first input read through every loop).
  AffineMap outputs = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  // No input read through every loop (an outer product, a contraction
  // whose operands each lack a dim): making one whole would multiply the
  // bytes the kernel reads, so the op is left as it is.
  AffineMap full;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isPermutation()) {
      full = map;
      break;
    }
  }
  llvm::SmallBitVector outputDims = usedDims(outputs);
  OpBuilder b(op);
  SmallVector<Value> inputs(op.getDpsInputs());
  SmallVector<Operation *> created;
  for (OpOperand *input : op.getDpsInputOperands()) {
    unsigned i = input->getOperandNumber();
    AffineMap map = maps[i];
    if ((full && map == full) || (map == outputs && outputs.getNumResults() != 0) ||
        (keepSingleDims && map.getNumResults() == 1))
      continue;
    llvm::SmallBitVector dims = usedDims(map);
    AffineMap target =
        (dims & ~outputDims).none() && outputs.getNumResults() != 0 ? outputs
                                                                    : full;
    if (!target)
      break;
    inputs[i] =
        broadcastTo(b, op.getLoc(), input->get(), map, target, op);
    created.push_back(inputs[i].getDefiningOp());
    maps[i] = target;
  }
  if (created.empty())
    return false;
  SmallVector<Value> oldInputs(op.getDpsInputs());
  ArrayAttr oldMaps = op.getIndexingMaps();
  op.getInputsMutable().assign(inputs);
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  if (isFormed(op))
    return true;
  op.getInputsMutable().assign(oldInputs);
  op.setIndexingMapsAttr(oldMaps);
  for (Operation *generic : llvm::reverse(created)) {
    Operation *empty = generic->getOperand(1).getDefiningOp();
    generic->erase();
    empty->erase();
  }
  return false;
}

/// Whether `op` reads a matmul's result whole: the elementwise epilogue
/// tcc-form-kernels puts in the matmul's kernel, run on its accumulator.
bool isMatmulEpilogue(linalg::GenericOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    return producer && tcc::matmulTransposes(producer) &&
           op.getMatchingIndexingMap(input).isIdentity();
  });
}

/// Broadcasts the operands of a matmul epilogue (over [b?, m, n]) that the
/// accumulator does not read: it reads them whole, by column (a bias), by
/// row, shared by the batches or per batch whole. A scalar becomes a column
/// vector, anything else whole.
void materializeEpilogue(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  if (rank != 2 && rank != 3)
    return;
  MLIRContext *ctx = op.getContext();
  auto dims = [&](std::initializer_list<unsigned> ds) {
    SmallVector<AffineExpr> results;
    for (unsigned d : ds)
      results.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(rank, 0, results, ctx);
  };
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap cols = dims({rank - 1});
  SmallVector<AffineMap> accepted = {identity, cols, dims({rank - 2})};
  if (rank == 3)
    accepted.push_back(dims({1, 2}));
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> inputs(op.getDpsInputs());
  OpBuilder b(op);
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    unsigned i = input->getOperandNumber();
    if (llvm::is_contained(accepted, maps[i]))
      continue;
    AffineMap target = maps[i].getNumResults() == 0 ? cols : identity;
    inputs[i] = broadcastTo(b, op.getLoc(), input->get(), maps[i], target, op);
    maps[i] = target;
    changed = true;
  }
  if (!changed)
    return;
  op.getInputsMutable().assign(inputs);
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

struct TccMaterializeBroadcastsPass
    : public tcc::impl::TccMaterializeBroadcastsBase<
          TccMaterializeBroadcastsPass> {
  void runOnOperation() override {
    // An attention chain's score ops read their operands as they are (the
    // attention kernel loads a [B, N] padding mask at its program's batch).
    llvm::SmallPtrSet<Operation *, 8> scoreOps;
    getOperation()->walk([&](linalg::SoftmaxOp softmax) {
      if (std::optional<tcc::AttentionOps> chain =
              tcc::matchAttention(softmax, tcc::tile::lookupTarget(softmax)))
        for (linalg::GenericOp op : chain->scoreOps)
          scoreOps.insert(op);
    });
    SmallVector<linalg::GenericOp> candidates, epilogues;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0 ||
          llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) ||
          !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
            return map.isProjectedPermutation(/*allowZeroInResults=*/false);
          }))
        return;
      if (tcc::isAllParallel(op)) {
        if (isMatmulEpilogue(op) && !scoreOps.contains(op))
          epilogues.push_back(op);
        return;
      }
      if (tcc::matmulTransposes(op))
        return;
      if (!isFormed(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : epilogues)
      materializeEpilogue(op);
    for (linalg::GenericOp op : candidates)
      if (!materialize(op, /*keepSingleDims=*/true))
        materialize(op, /*keepSingleDims=*/false);
  }
};

} // namespace
