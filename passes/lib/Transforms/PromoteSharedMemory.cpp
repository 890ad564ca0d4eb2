//===- PromoteSharedMemory.cpp - tcc-promote-shared-memory pass -----------===//
//
// Software-pipelines the global -> shared staging of a loop's operand tiles:
// the synchronous `memref_load -> convert_layout #shared -> convert_layout`
// chain becomes asynchronous copies into a multi-slot buffer, issued
// num-stages - 1 iterations ahead (the scheme of CUTLASS's multistage
// mainloop and Triton's pipeliner, with one barrier per iteration). The
// schedule is documented with examples in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/OptionChecks.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCPROMOTESHAREDMEMORY
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// One tile the loop stages through shared memory.
struct StagedTile {
  tile::MemRefLoadOp load;           // global -> registers
  tile::ConvertLayoutOp toShared;    // registers -> #tile.shared
  SmallVector<Operation *> offsetOps; // loop-body ops the offsets need
};

/// The ops inside `loop`'s body that `values` are computed from, in block
/// order, or failure when one depends on an iter_arg, touches memory or
/// has regions (then it cannot be recomputed for another iteration).
FailureOr<SmallVector<Operation *>> offsetSlice(scf::ForOp loop,
                                                ValueRange values) {
  SetVector<Operation *> slice;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == loop.getInductionVar() || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() ||
        !isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return failure();
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  return ordered;
}

/// `tile.convert_layout` results in #tile.shared whose readers are all
/// conversions back to register layouts, fed by an unmasked memref_load
/// of loop-invariant memory at offsets recomputable for any iteration.
SmallVector<StagedTile> findStagedTiles(scf::ForOp loop) {
  SmallVector<StagedTile> tiles;
  // A store in the loop could write what a copy issued iterations earlier
  // has already read: keep such loops synchronous.
  bool stores = loop->walk([](Operation *op) {
                      return isa<tile::MemRefStoreOp, tile::StoreOp>(op)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    }).wasInterrupted();
  if (stores)
    return tiles;
  for (auto load : loop.getBody()->getOps<tile::MemRefLoadOp>()) {
    if (load.getMask() || !load->hasOneUse() ||
        !loop.isDefinedOutsideOfLoop(load.getMemref()) ||
        !isa_and_nonnull<tile::BlockedEncodingAttr>(
            load.getType().getEncoding()))
      continue;
    auto toShared = dyn_cast<tile::ConvertLayoutOp>(*load->user_begin());
    if (!toShared || toShared->getBlock() != loop.getBody() ||
        !isa_and_nonnull<tile::SharedEncodingAttr>(
            toShared.getType().getEncoding()))
      continue;
    bool readBack = llvm::all_of(toShared->getUsers(), [](Operation *user) {
      auto convert = dyn_cast<tile::ConvertLayoutOp>(user);
      return convert && !isa_and_nonnull<tile::SharedEncodingAttr>(
                            convert.getType().getEncoding());
    });
    if (!readBack || toShared->use_empty())
      continue;
    FailureOr<SmallVector<Operation *>> slice =
        offsetSlice(loop, load.getOffsets());
    if (failed(slice))
      continue;
    tiles.push_back({load, toShared, std::move(*slice)});
  }
  return tiles;
}

struct TccPromoteSharedMemoryPass
    : public tcc::impl::TccPromoteSharedMemoryBase<TccPromoteSharedMemoryPass> {
  using TccPromoteSharedMemoryBase::TccPromoteSharedMemoryBase;

  void runOnOperation() override {
    if (failed(tcc::checkOptionRange(getOperation(), "tcc-promote-shared-memory",
                                "num-stages", numStages, 1, 8)))
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<tile::FuncOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      int64_t stages = stagesOf(loop->getParentOfType<tile::FuncOp>());
      if (stages == 1)
        continue;
      SmallVector<StagedTile> tiles = findStagedTiles(loop);
      if (!tiles.empty())
        pipeline(loop, tiles, stages);
    }
  }

  /// The kernel's plan says how many stages (num_stages of its
  /// tile.lowering_config); kernels without one take num-stages.
  int64_t stagesOf(tile::FuncOp func) const {
    if (auto config = func->getAttrOfType<tile::LoweringConfigAttr>(
            tile::kLoweringConfigAttrName))
      if (std::optional<unsigned> stages = config.getNumStages())
        return *stages;
    return numStages;
  }

  /// The copies of `tiles` for the iteration whose induction variable is
  /// `iv`, into `slot`.
  void emitCopies(OpBuilder &b, scf::ForOp loop,
                  MutableArrayRef<StagedTile> tiles, ArrayRef<Value> buffers,
                  Value iv, Value slot) {
    for (auto [tile, buffer] : llvm::zip(tiles, buffers)) {
      IRMapping map;
      map.map(loop.getInductionVar(), iv);
      for (Operation *op : tile.offsetOps)
        b.clone(*op, map);
      SmallVector<Value> offsets = llvm::map_to_vector(
          tile.load.getOffsets(),
          [&](Value v) { return map.lookupOrDefault(v); });
      auto layout =
          cast<tile::BlockedEncodingAttr>(tile.load.getType().getEncoding());
      tile::AsyncCopyOp::create(b, tile.load.getLoc(), tile.load.getMemref(),
                                offsets, buffer, slot, layout);
    }
  }

  void pipeline(scf::ForOp loop, MutableArrayRef<StagedTile> tiles,
                int64_t stages) {
    Location loc = loop.getLoc();
    auto func = loop->getParentOfType<tile::FuncOp>();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    SmallVector<Value> buffers;
    for (StagedTile &tile : tiles) {
      RankedTensorType type = tile.toShared.getType();
      SmallVector<int64_t> shape{stages};
      llvm::append_range(shape, type.getShape());
      auto bufferType = tile::SharedBufferType::get(
          b.getContext(), shape, type.getElementType(),
          cast<tile::SharedEncodingAttr>(type.getEncoding()));
      buffers.push_back(
          tile::SharedAllocOp::create(b, tile.load.getLoc(), bufferType));
    }

    // Prologue: iterations 0 .. S-2 into slots 0 .. S-2.
    b.setInsertionPoint(loop);
    auto cst = [&](OpBuilder &ob, int64_t v) {
      return arith::ConstantIndexOp::create(ob, loc, v).getResult();
    };
    Value lb = loop.getLowerBound(), step = loop.getStep();
    for (int64_t s = 0; s + 1 < stages; ++s) {
      Value iv = s == 0 ? lb
                        : arith::AddIOp::create(
                              b, loc, lb,
                              arith::MulIOp::create(b, loc, step, cst(b, s)))
                              .getResult();
      emitCopies(b, loop, tiles, buffers, iv, cst(b, s));
      tile::AsyncCommitGroupOp::create(b, loc);
    }

    // The loop carries the slot it reads and the slot it refills.
    IRRewriter rewriter(loop.getContext());
    SmallVector<Value> inits{cst(b, 0), cst(b, stages - 1)};
    FailureOr<LoopLikeOpInterface> extended =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &yb, Location l, ArrayRef<BlockArgument> args) {
                  auto next = [&](Value slot) -> Value {
                    Value inc = arith::AddIOp::create(yb, l, slot, cst(yb, 1));
                    Value wrap = arith::CmpIOp::create(
                        yb, l, arith::CmpIPredicate::eq, inc, cst(yb, stages));
                    return arith::SelectOp::create(yb, l, wrap, cst(yb, 0),
                                                   inc);
                  };
                  return SmallVector<Value>{next(args[0]), next(args[1])};
                });
    auto newLoop = cast<scf::ForOp>(extended->getOperation());
    Block *body = newLoop.getBody();
    unsigned numArgs = body->getNumArguments();
    Value readSlot = body->getArgument(numArgs - 2);
    Value writeSlot = body->getArgument(numArgs - 1);

    // This iteration's group has landed and everyone is done with the slot
    // about to be refilled.
    b.setInsertionPointToStart(body);
    tile::AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(stages - 2));
    for (auto [tile, buffer] : llvm::zip(tiles, buffers)) {
      for (Operation *user :
           llvm::make_early_inc_range(tile.toShared->getUsers())) {
        auto convert = cast<tile::ConvertLayoutOp>(user);
        b.setInsertionPoint(convert);
        Value loaded = tile::SharedLoadOp::create(
            b, convert.getLoc(), convert.getType(), buffer, readSlot);
        convert.replaceAllUsesWith(loaded);
        convert.erase();
      }
    }
    // Refill: iteration i + S-1, issued where the last load was; the group
    // closes at the end of the step (after the math), where targets that
    // copy through registers store what their loads fetched meanwhile.
    b.setInsertionPoint(tiles.back().load);
    Value ahead = arith::AddIOp::create(
        b, loc, newLoop.getInductionVar(),
        arith::MulIOp::create(b, loc, newLoop.getStep(), cst(b, stages - 1)));
    emitCopies(b, newLoop, tiles, buffers, ahead, writeSlot);
    b.setInsertionPoint(body->getTerminator());
    tile::AsyncCommitGroupOp::create(b, loc);
    for (StagedTile &tile : tiles) {
      tile.toShared.erase();
      tile.load.erase();
    }

    b.setInsertionPointAfter(newLoop);
    tile::AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));
  }
};

} // namespace
