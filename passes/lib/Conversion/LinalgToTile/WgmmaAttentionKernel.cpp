//===- WgmmaAttentionKernel.cpp - sm_90's attention as a tile program -----===//
//
// softmax((Q Kᵀ) ∘ f) V (tcc::matchAttention) with a wgmma plan
// (lowering_config form = attention, mma = wgmma_m64nNk16): the online
// softmax of AttentionKernel.cpp (OnlineSoftmax.h) on Hopper's asynchronous
// tensor cores, warp-specialized as the Hopper GEMM (WgmmaMatmulKernel.cpp)
// and FlashAttention-3:
//
//   - a persistent grid of at most one program per SM walks the [BM] query
//     blocks (batch after batch; causal: the longest blocks of each batch
//     first) with stride num_programs;
//   - the last warpgroup is the producer (setmaxnreg.dec 40): one thread
//     loads each block's Q with TMA (qFull, freed by qEmpty once the
//     block's last S = Q Kᵀ retired), then every key block's K and V into a
//     ring of `num_stages` slots, each on its own barriers (kFull[s],
//     vFull[s]: the first product waits for K only; K's slot refilled after
//     kEmpty[s], V's after vEmpty[s]);
//   - the other warpgroups (1 or 2, 64 query rows each; setmaxnreg.inc 232)
//     run the key loop: S = Q Kᵀ_j as wgmma from the Q and K slots (K
//     K-major: its rows are the keys), the online softmax on the
//     accumulator registers, P converted in registers to wgmma's A operand
//     (the A-from-registers form), O = O α + P V_j from the V slot (MN-major:
//     its rows are the keys, the head dim contiguous); lane 0 of each warp
//     frees K's slot once S retired, V's once P V retired. The loop is
//     software-pipelined (FlashAttention-3's intra-warpgroup overlap): step
//     j issues S_j, then P_{j-1} V_{j-1}, and runs S_j's softmax while the
//     second product is in flight. O / l and the epilogue are stored from
//     registers.
//
// Slot and phase come from one running key-step counter the producer and
// the consumers advance alike over the persistent walk (step i: slot i % S,
// phase i / S); Q's barriers take the parity of the program's tile count.
// Ragged edges are the TMA unit's zero fill (queries past M, keys past N:
// their scores are masked to -inf by the partial block's step) and masked
// stores.
//
//===----------------------------------------------------------------------===//
#include "OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

constexpr int64_t kSpan = 64;          // elements per slot row (128 bytes)
constexpr int64_t kProducerWarps = 4;  // one warpgroup
constexpr int64_t kProducerRegs = 40;  // setmaxnreg.dec
constexpr int64_t kConsumerRegs = 232; // setmaxnreg.inc

} // namespace

LogicalResult mlir::tcc::buildWgmmaAttentionKernel(
    AttentionOps chain, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  linalg::SoftmaxOp softmax = chain.softmax;
  MLIRContext *ctx = softmax.getContext();
  Location loc = softmax.getLoc();
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  int64_t warps = config.getNumWarps();
  int64_t consumerWarps = warps - kProducerWarps;
  int64_t groups = consumerWarps / 4;
  int64_t stages = config.getNumStages() ? *config.getNumStages() : 2;
  auto qType = cast<ShapedType>(chain.scores.getDpsInputs()[0].getType());
  auto vType = cast<ShapedType>(chain.output.getDpsInputs()[1].getType());
  int64_t batch = qType.getShape()[0], m = qType.getShape()[1];
  int64_t d = qType.getShape()[2], dv = vType.getShape()[2];
  Type element = qType.getElementType();
  Type f32 = Float32Type::get(ctx);
  if (!context.target.hasMma(tile::MmaKind::wgmma_m64nNk16))
    return softmax.emitOpError()
           << "lowering_config mma = wgmma_m64nNk16 is not an instruction of "
              "target "
           << context.target.getArch() << " (#tile.target mma)";
  if (groups < 1 || groups > 2 || blockM % (64 * groups) || blockN % kSpan ||
      blockN > 256 || stages < 1)
    return softmax.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN
           << "], num_warps = " << warps << ", num_stages = " << stages
           << " does not fit the wgmma attention schedule (a producer and 1 "
              "or 2 consumer warpgroups: num_warps 8 or 12; BM a multiple of "
              "64 per consumer warpgroup, BN a multiple of 64 up to 256)";
  if (d % kSpan || dv % kSpan || dv > 256)
    return softmax.emitOpError()
           << "the wgmma attention schedule reads head dims that are "
              "multiples of 64 (one 128-byte swizzle span; Dv up to 256), got "
           << d << " and " << dv;
  // The scores' and the output's accumulators, per consumer thread.
  int64_t accPerThread = blockM * (blockN + dv) / (32 * consumerWarps);
  if (accPerThread > 128)
    return softmax.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN
           << "] with head dim " << dv << " on " << consumerWarps
           << " consumer warps holds " << accPerThread
           << " accumulator floats per thread (scores and output), more than "
              "the 128 that fit the consumers' registers";
  int64_t qBytes = blockM * d * 2, kBytes = blockN * d * 2,
          vBytes = blockN * dv * 2;
  int64_t sharedBytes = qBytes + stages * (kBytes + vBytes) + 1024;
  if (sharedBytes > context.target.getMaxSharedBytes())
    return softmax.emitOpError()
           << "lowering_config needs " << sharedBytes
           << " bytes of shared memory for Q's block and " << stages
           << " stages of K and V, more than the target's "
           << context.target.getMaxSharedBytes()
           << " (#tile.target max_shared_bytes)";

  // The tensor maps: the trailing kernel parameters, Q's, K's and V's,
  // described by tcc.tensor_maps. Each maps the tensor as stored ([B, S, D],
  // or [B, S, H, D] read through a transposed view: AttentionView) with
  // boxes of one batch's [rows, 64] ([1, rows, 64], [1, rows, 1, 64]).
  Block *entry = &kernel.getBody().front();
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Attribute> mapDescs;
  SmallVector<Value> maps;
  unsigned nextMap = kernel.getNumArguments() - 3;
  for (auto [view, user, rows] :
       {std::make_tuple(&chain.q, chain.scores.getOperation(), blockM),
        std::make_tuple(&chain.k, chain.scores.getOperation(), blockN),
        std::make_tuple(&chain.v, chain.output.getOperation(), blockN)}) {
    FailureOr<Value> memref = lookupInput(view->source, inputArgs, user);
    if (failed(memref))
      return failure();
    int64_t rank = view->perm.size();
    SmallVector<int64_t> box(rank, 1);
    box[view->perm[rank - 2]] = rows;
    box[view->perm[rank - 1]] = kSpan;
    NamedAttrList desc;
    desc.set("operand",
             IntegerAttr::get(i64, cast<BlockArgument>(*memref).getArgNumber()));
    desc.set("box", DenseI64ArrayAttr::get(ctx, box));
    desc.set("swizzle", IntegerAttr::get(i64, 128));
    mapDescs.push_back(desc.getDictionary(ctx));
    maps.push_back(entry->getArgument(nextMap++));
  }
  Value mapQ = maps[0], mapK = maps[1], mapV = maps[2];
  kernel->setAttr("tcc.tensor_maps", ArrayAttr::get(ctx, mapDescs));
  kernel->setAttr("tcc.producer_warps",
                  IntegerAttr::get(IntegerType::get(ctx, 32), kProducerWarps));

  OpBuilder b = OpBuilder::atBlockEnd(entry);
  OpBuilder constants = OpBuilder::atBlockBegin(entry);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(constants, loc, v).getResult();
  };
  auto tidOp = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tid = tidOp;
  // (The entry block was empty: constants go before its first op.)
  constants.setInsertionPoint(tidOp);
  Value consumerThreads = c(consumerWarps * 32);
  {
    // The producer's leader fetches the tensor maps into its descriptor
    // cache first (as the GEMM's).
    auto leader = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                              consumerThreads),
        /*withElse=*/false);
    OpBuilder lb = OpBuilder::atBlockBegin(&leader.getThenRegion().front());
    for (Value map : maps)
      NVVM::PrefetchOp::create(lb, loc, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, map,
                               /*predicate=*/Value(), lb.getUnitAttr(),
                               /*uniform=*/nullptr, lb.getUnitAttr());
  }
  auto sw128 = tile::SharedEncodingAttr::get(ctx, 8, 1, 8, {2, 1, 0});
  auto buffer = [&](int64_t slots, int64_t cols, int64_t rows) {
    return tile::SharedBufferType::get(ctx, {slots, cols / kSpan, rows, kSpan},
                                       element, sw128);
  };
  auto allocQ = tile::SharedAllocOp::create(b, loc, buffer(1, d, blockM));
  Value bufQ = allocQ;
  Value bufK = tile::SharedAllocOp::create(b, loc, buffer(stages, d, blockN));
  Value bufV = tile::SharedAllocOp::create(b, loc, buffer(stages, dv, blockN));
  auto one = tile::MBarriersType::get(ctx, 1);
  auto ring = tile::MBarriersType::get(ctx, stages);
  // Full: the expect-tx of the thread issuing the copies; empty: lane 0 of
  // every consumer warp.
  Value qFull = tile::MBarrierAllocOp::create(b, loc, one, 1);
  Value qEmpty = tile::MBarrierAllocOp::create(b, loc, one, consumerWarps);
  Value kFull = tile::MBarrierAllocOp::create(b, loc, ring, 1);
  Value vFull = tile::MBarrierAllocOp::create(b, loc, ring, 1);
  // K's slot frees when its S retires, V's a step later (P V retires).
  Value kEmpty = tile::MBarrierAllocOp::create(b, loc, ring, consumerWarps);
  Value vEmpty = tile::MBarrierAllocOp::create(b, loc, ring, consumerWarps);

  // The walk: batch after batch, the query blocks of a causal chain from
  // the last (the most keys) to the first.
  int64_t blocksM = llvm::divideCeil(m, blockM);
  int64_t tiles = batch * blocksM;
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  Value programs = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::NumProgramsOp::create(b, loc, b.getI32Type(), 0u));
  // One layout for every tile of the softmax: the scores' and the output's
  // accumulators differ only in their instruction's N, which places no
  // register differently (LayoutUtils), so O lives on the scores' layout.
  auto mma = tile::NvidiaMmaEncodingAttr::get(
      ctx, 3, {unsigned(consumerWarps), 1}, {16, unsigned(blockN), 16});
  OnlineSoftmax softmaxOf(chain, inputArgs, mma, blockM, blockN, loc);
  bool causal = bool(softmaxOf.causal());
  auto originOf = [&](OpBuilder &ob, Value t) {
    Value batchIndex = arith::DivUIOp::create(ob, loc, t, c(blocksM));
    Value block = arith::RemUIOp::create(ob, loc, t, c(blocksM));
    if (causal)
      block = arith::SubIOp::create(ob, loc, c(blocksM - 1), block);
    return std::make_pair(batchIndex,
                          arith::MulIOp::create(ob, loc, block, c(blockM))
                              .getResult());
  };
  // A box's coordinates in its map (the tensor as stored): the view's
  // [batch..., row, col], the flat batch index delinearized (the last batch
  // dim fastest), placed by the view's perm.
  auto coordsOf = [&](OpBuilder &ob, const AttentionView &view,
                      Value batchIndex, Value row, Value col) {
    int64_t rank = view.perm.size();
    SmallVector<int64_t> shape = view.shape();
    SmallVector<Value> sizes = llvm::map_to_vector(
        ArrayRef(shape).drop_back(2), [&](int64_t size) { return c(size); });
    SmallVector<Value> at = delinearizeBatch(ob, loc, batchIndex, sizes);
    at.append({row, col});
    SmallVector<Value> coords(rank);
    for (int64_t i = 0; i < rank; ++i)
      coords[view.perm[i]] = at[i];
    return coords;
  };
  auto slotOf = [&](OpBuilder &ob, Value step) {
    return std::make_pair(
        arith::RemUIOp::create(ob, loc, step, c(stages)).getResult(),
        arith::DivUIOp::create(ob, loc, step, c(stages)).getResult());
  };
  auto parityOf = [&](OpBuilder &ob, Value count) {
    return arith::RemUIOp::create(ob, loc, count, c(2)).getResult();
  };
  // The end of the keys the block at m0 reads: n, or min(m0 + BM, n).
  int64_t n = chain.k.shape()[chain.k.perm.size() - 2];
  auto keysEnd = [&](OpBuilder &ob, Value m0) -> Value {
    if (!causal)
      return c(n);
    return arith::MinUIOp::create(
        ob, loc, arith::AddIOp::create(ob, loc, m0, c(blockM)), c(n));
  };

  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           tid, consumerThreads);
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);

  // --- Producer warpgroup: one thread issues every TMA copy. ---
  {
    OpBuilder pb = OpBuilder::atBlockBegin(&roles.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(pb, loc, kProducerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
    auto leader = scf::IfOp::create(
        pb, loc,
        arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq, tid,
                              consumerThreads),
        /*withElse=*/false);
    OpBuilder ob = OpBuilder::atBlockBegin(&leader.getThenRegion().front());
    scf::ForOp::create(
        ob, loc, pid, c(tiles), programs, ValueRange{c(0), c(0)},
        [&](OpBuilder &tb, Location, Value t, ValueRange iter) {
          auto [batchIndex, m0] = originOf(tb, t);
          // Q's slot is free once the previous block's last S retired.
          tile::MBarrierWaitOp::create(
              tb, loc, qEmpty, c(0),
              parityOf(tb, arith::AddIOp::create(tb, loc, iter[0], c(1))));
          tile::MBarrierArriveOp::create(tb, loc, qFull, c(0), Value(),
                                         tb.getI64IntegerAttr(qBytes));
          for (int64_t ch = 0; ch < d / kSpan; ++ch)
            tile::TmaLoadOp::create(tb, loc, mapQ,
                                    coordsOf(tb, chain.q, batchIndex, m0,
                                             c(ch * kSpan)),
                                    bufQ,
                                    c(0), c(ch), qFull, c(0),
                                    /*multicast=*/Value(), /*row=*/0);
          auto keys = scf::ForOp::create(
              tb, loc, c(0), keysEnd(tb, m0), c(blockN), ValueRange{iter[1]},
              [&](OpBuilder &kb, Location, Value j, ValueRange it) {
                auto [slot, phase] = slotOf(kb, it[0]);
                Value freed = arith::AddIOp::create(kb, loc, phase, c(1));
                for (auto [empty, full, buf, map, bytes, cols, view] :
                     {std::make_tuple(kEmpty, kFull, bufK, mapK, kBytes, d,
                                      &chain.k),
                      std::make_tuple(vEmpty, vFull, bufV, mapV, vBytes, dv,
                                      &chain.v)}) {
                  tile::MBarrierWaitOp::create(kb, loc, empty, slot, freed);
                  tile::MBarrierArriveOp::create(kb, loc, full, slot, Value(),
                                                 kb.getI64IntegerAttr(bytes));
                  for (int64_t ch = 0; ch < cols / kSpan; ++ch)
                    tile::TmaLoadOp::create(kb, loc, map,
                                            coordsOf(kb, *view, batchIndex, j,
                                                     c(ch * kSpan)),
                                            buf, slot, c(ch), full, slot,
                                            /*multicast=*/Value(), /*row=*/0);
                }
                scf::YieldOp::create(
                    kb, loc,
                    ValueRange{arith::AddIOp::create(kb, loc, it[0], c(1))});
              });
          scf::YieldOp::create(
              tb, loc,
              ValueRange{arith::AddIOp::create(tb, loc, iter[0], c(1)),
                         keys.getResult(0)});
        });
  }

  // --- Consumer warpgroups: the key loop on wgmma, then the store. ---
  OpBuilder cb = OpBuilder::atBlockBegin(&roles.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(cb, loc, kConsumerRegs,
                                 NVVM::SetMaxRegisterAction::increase);
  Value laneZero = arith::CmpIOp::create(
      cb, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(cb, loc, tid, c(32)), c(0));
  auto scoresType = RankedTensorType::get({blockM, blockN}, f32, mma);
  auto outType = RankedTensorType::get({blockM, dv}, f32, mma);
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, mma, 2);
  FailureOr<Value> out = lookupResult(cb, loc, chain, outputs);
  if (failed(out))
    return failure();
  LogicalResult status = success();
  scf::ForOp::create(
      cb, loc, pid, c(tiles), programs, ValueRange{c(0), c(0)},
      [&](OpBuilder &tb, Location, Value t, ValueRange iter) {
        auto [batchIndex, m0] = originOf(tb, t);
        softmaxOf.place(batchIndex, m0);
        tile::MBarrierWaitOp::create(tb, loc, qFull, c(0),
                                     parityOf(tb, iter[0]));
        auto pType = RankedTensorType::get({blockM, blockN}, element, operandA);
        auto release = [&](OpBuilder &ob, Value barriers, Value slot) {
          auto lane = scf::IfOp::create(ob, loc, laneZero, false);
          OpBuilder rb = OpBuilder::atBlockBegin(&lane.getThenRegion().front());
          tile::MBarrierArriveOp::create(rb, loc, barriers, slot, Value(),
                                         IntegerAttr());
        };
        // S = Q Kᵀ of the block at step `k` (issued, not waited).
        auto issueScores = [&](OpBuilder &ob, Value slot, Value phase) {
          tile::MBarrierWaitOp::create(ob, loc, kFull, slot, phase);
          Value zero = tile::SplatOp::create(
              ob, loc, scoresType,
              arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0.0)));
          return tile::WarpGroupDotOp::create(
                     ob, loc, scoresType, bufQ, bufK, slot, zero, c(0),
                     /*a_mn_major=*/false, /*b_mn_major=*/false)
              .getResult();
        };
        // O α + P V of the block at step `k` (issued, not waited).
        auto issueOutput = [&](OpBuilder &ob, Value o, Value alpha, Value p,
                               Value k) {
          auto [slot, phase] = slotOf(ob, k);
          o = softmaxOf.rescale(ob, o, alpha);
          tile::MBarrierWaitOp::create(ob, loc, vFull, slot, phase);
          return std::make_pair(
              tile::WarpGroupDotOp::create(ob, loc, outType, p, bufV, slot, o,
                                           Value(), /*a_mn_major=*/false,
                                           /*b_mn_major=*/true)
                  .getResult(),
              slot);
        };
        // The loop is software-pipelined as FlashAttention-3's
        // intra-warpgroup overlap: step k issues S_k, then O α_{k-1} +
        // P_{k-1} V_{k-1}, waits for S_k alone (pending 1) and runs S_k's
        // softmax while the tensor cores run P_{k-1} V_{k-1}; the first
        // block (the prologue) issues S_0 only, the epilogue the last P V.
        // State: (m, l, O, step, P of the previous step, its α).
        auto scoresOf = [&](OpBuilder &ob, Value s, Value j, ValueRange it,
                            bool masked, Operation *alwaysTrue,
                            Value slot) -> FailureOr<OnlineSoftmax::Update> {
          // S_k retired: K's slot is free.
          release(ob, kEmpty, slot);
          FailureOr<Value> x = softmaxOf.scores(ob, s, j, masked, alwaysTrue);
          if (failed(x))
            return failure();
          return softmaxOf.update(ob, *x, it[0], it[1], Value());
        };
        // The state after step `it[3]`: its (m, l), O, the next step, P in
        // wgmma's A layout and α for the next step's P V.
        auto advance = [&](OpBuilder &ob, const OnlineSoftmax::Update &next,
                           Value o, ValueRange it) {
          return SmallVector<Value>{
              next.m, next.l, o,
              arith::AddIOp::create(ob, loc, it[3], c(1)).getResult(),
              tile::ConvertLayoutOp::create(ob, loc, pType, next.p),
              next.alpha};
        };
        auto first = [&](OpBuilder &ob, Value j, ValueRange it, bool masked,
                         Operation *alwaysTrue)
            -> FailureOr<SmallVector<Value>> {
          auto [slot, phase] = slotOf(ob, it[3]);
          Value s = tile::WarpGroupWaitOp::create(
              ob, loc, issueScores(ob, slot, phase), 0);
          FailureOr<OnlineSoftmax::Update> next =
              scoresOf(ob, s, j, it, masked, alwaysTrue, slot);
          if (failed(next))
            return failure();
          return advance(ob, *next, it[2], it);
        };
        auto step = [&](OpBuilder &ob, Value j, ValueRange it, bool masked,
                        Operation *alwaysTrue)
            -> FailureOr<SmallVector<Value>> {
          auto [slot, phase] = slotOf(ob, it[3]);
          Value s = issueScores(ob, slot, phase);
          auto [o, vSlot] = issueOutput(
              ob, it[2], it[5], it[4],
              arith::SubIOp::create(ob, loc, it[3], c(1)));
          s = tile::WarpGroupWaitOp::create(ob, loc, s, 1);
          FailureOr<OnlineSoftmax::Update> next =
              scoresOf(ob, s, j, it, masked, alwaysTrue, slot);
          if (failed(next))
            return failure();
          // P_{k-1} V_{k-1} retired (P_{k-1} kept in its registers so
          // far): V's slot is free.
          o = tile::WarpGroupWaitOp::create(ob, loc, outType, o,
                                            ValueRange{it[4]}, 0);
          release(ob, vEmpty, vSlot);
          return advance(ob, *next, o, it);
        };
        SmallVector<Value> state = softmaxOf.initialState(tb, dv);
        // (m, l, O, step): the prologue adds P and α.
        state.push_back(iter[1]);
        if (failed(softmaxOf.walk(tb, state, step, first)))
          status = failure();
        // Every S of this block retired: Q's slot is free.
        release(tb, qEmpty, c(0));
        // The epilogue: the last block's P V.
        auto [o, vSlot] = issueOutput(
            tb, state[2], state[5], state[4],
            arith::SubIOp::create(tb, loc, state[3], c(1)));
        o = tile::WarpGroupWaitOp::create(tb, loc, outType, o,
                                          ValueRange{state[4]}, 0);
        release(tb, vEmpty, vSlot);
        FailureOr<Value> result = softmaxOf.finish(tb, o, state[1], dv);
        if (failed(result))
          status = failure();
        else
          tile::MemRefStoreOp::create(tb, loc,
                                      sliceBatch(tb, loc, *out, batchIndex),
                                      ValueRange{m0, c(0)}, *result, Value());
        scf::YieldOp::create(
            tb, loc,
            ValueRange{arith::AddIOp::create(tb, loc, iter[0], c(1)),
                       state[3]});
      });
  if (failed(status))
    return failure();
  grid = std::min(tiles, kHopperSMs);
  numWarps = warps;
  return success();
}
