//===- WgmmaMatmulKernel.cpp - the Hopper GEMM as a tile program ----------===//
//
// A (batched) matmul generic with f16 / bf16 operands and a wgmma plan
// (lowering_config mma = wgmma_m64nNk16) becomes a persistent,
// warp-specialized program, the schedule of CUTLASS 3's and Triton's Hopper
// GEMMs:
//
//   - a grid of at most one program per SM walks the output tiles (batch
//     after batch, grouped rasterization within one) with stride
//     num_programs;
//   - the last warpgroup is the producer: its registers lowered
//     (setmaxnreg.dec 40), one thread streams each k step's A and B boxes
//     with TMA into a ring of `num_stages` shared slots; slot s is filled
//     after barrier empty[s] shows it free and completes on full[s]
//     (expect-tx of the step's bytes);
//   - the other warpgroups are consumers (registers raised, setmaxnreg.inc
//     232): each waits on full[s], issues its wgmma group on the slot, keeps
//     one step's groups in flight (warpgroup_wait pending 1, 2 for a dual
//     GEMM's two groups per step) and then frees the
//     previous step's slot (lane 0 of every consumer warp arrives on
//     empty[s']);
//     after the k loop the epilogue (bias, activations, casts) runs on the
//     accumulator registers; a kernel whose one result has 16-bit elements
//     stores it through a shared staging block with TMA (full lines,
//     asynchronous: the next block's k loop starts while it drains), others
//     with per-thread stores.
//   - consumers = cooperative (the default): the consumer warpgroups share
//     each block, BM / 2 rows each. consumers = pingpong: each warpgroup
//     runs a whole block (its accumulator BM x BN on 4 warps), the two
//     taking the program's tiles in turn (warpgroup g: tiles pid + (g +
//     2 i) * num_programs), so one's epilogue overlaps the other's MMAs;
//     the slots are freed by the 4 warps that read them, and each
//     warpgroup stages its TMA stores in its own slot (named barrier 1 + g).
//
// Operands are read as they are in memory: A [M, K] or, transposed, [K, M];
// B [K, N] or, for x @ w.T, [N, K]. The shared slots hold boxes of 64
// 16-bit elements per row (one 128-byte swizzle span) along the contiguous
// dim, in chunks along the other (WgmmaOpsToGPU.cpp describes them to
// wgmma), so no operand is transposed through a copy. Ragged edges are the
// TMA unit's zero fill on loads and masked stores in the epilogue.
//
// An operand whose rows are not a multiple of 16 bytes has no tensor map
// (N = 1500 f16 in [K, N]): the whole producer warpgroup walks the tiles
// and copies its boxes into the same swizzled slots (tile.box_copy:
// cp.async runs as wide as the rows' alignment allows, zero outside, each
// thread's completion an arrival on full[s]); the consumers fence the
// copies for the async proxy after their wait, and their wgmma are the
// same.
//
// split_k = S (split-K, for problems of too few output tiles): the walk is
// over tiles x S work items (tile u / S, split u % S), split s taking k
// steps [s kSteps / S, (s + 1) kSteps / S). After its k loop a program
// stores the f32 accumulator into its slot of the workspace ([tiles x S x
// BM, BN]), its consumer threads meet, and thread 0 adds one to the
// tile's counter (membar.gl, then the atomic add: the release of every
// consumer thread's stores). The program that counts the S-th arrival
// (told to all its consumers through the barrier's OR reduction) sums the
// S partials in split order from the workspace (the same rounding
// whichever arrives last), resets the counter for the next launch and
// runs the epilogue; the others run none.
//
// Slot s and phase parity come from one running k-step counter that the
// producer and the consumers advance identically over the persistent loop:
// step i uses slot i % S in phase i / S.
//
// A dual GEMM (two contractions of one A: SwiGLU's x @ w1.T and x @ w3.T,
// isDualGemm) streams a second B box per step into its own slots, issues
// a second wgmma group on them into a second accumulator, and runs the
// epilogue (silu(a) * b) on both: A is read once, and neither product
// goes through memory.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"
#include "tcc/Strategy/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

constexpr int64_t kSpan = 64;          // elements per slot row (128 bytes)
constexpr int64_t kProducerWarps = 4;  // one warpgroup
constexpr int64_t kProducerRegs = 40;  // setmaxnreg.dec
constexpr int64_t kConsumerRegs = 232; // setmaxnreg.inc
// With box copies the producer keeps more (ptxas spilled the copies'
// addresses of a 4096 x 4094 x 4096 NN GEMM at 40, 64 and 88 registers,
// none at 104): 200 x 256 + 104 x 128 registers still fit the SM's 64 K.
// Copies along K (boxes of M or N rows, 8 a step at 128 x 128) took 120
// (192 x 256 + 120 x 128).
constexpr int64_t kCopyProducerRegs = 104;
constexpr int64_t kCopyConsumerRegs = 200;
constexpr int64_t kCopyAlongKProducerRegs = 120;
constexpr int64_t kCopyAlongKConsumerRegs = 192;
// Rows of one tile.box_copy: 16 elements per producer thread.
constexpr int64_t kCopyRows = 32;

/// One operand's TMA boxes and shared slot: `rows` x 64 boxes along the
/// contiguous dim, `chunks` of them per k step.
struct OperandPlan {
  unsigned arg;     // the memref argument
  bool mnMajor;     // contiguous along M / N (else along K)
  int64_t rows;     // box rows
  int64_t chunks;   // boxes per k step
  Value map;       // its tensor map parameter (TMA reads it)
  bool tma = true;  // else the producer copies it (tile.box_copy)
  Value memref;     // the memref argument, as a value
  int64_t rowElems = 0; // elements per memref row (the copies' vectors)
  // The programs of a cluster that read the same boxes (A: the CN along N,
  // B: the CM along M); each loads a part and multicasts it to all. Parts
  // are whole chunks where they divide evenly, else rows of each chunk.
  int64_t sharers = 1;
  bool rowParts() const { return sharers > 1 && chunks % sharers; }
  int64_t boxRows() const { return rowParts() ? rows / sharers : rows; }

  int64_t bytes() const { return chunks * rows * kSpan * 2; }
};

/// Output tiles of the walk, each program of a cluster counted: the
/// workspace's (split-K) tile ids.
int64_t programTiles(const GemmProgram &program, int64_t blockM,
                     int64_t blockN, int64_t clusterM, int64_t clusterN) {
  return program.batch * llvm::divideCeil(program.m, blockM * clusterM) *
         clusterM * llvm::divideCeil(program.n, blockN * clusterN) * clusterN;
}

} // namespace

SmallVector<std::pair<MemRefType, bool>>
mlir::tcc::wgmmaWorkspaceTypes(linalg::GenericOp op,
                               tile::LoweringConfigAttr config) {
  unsigned splitK = config.getSplitK().value_or(1);
  if (splitK <= 1 || config.getBlock().size() != 3)
    return {};
  FailureOr<GemmProgram> program = GemmProgram::get(op);
  if (failed(program) || ShapedType::isDynamic(program->m) ||
      ShapedType::isDynamic(program->batch))
    return {};
  ArrayRef<int64_t> cluster = config.getCluster();
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  int64_t tiles = programTiles(*program, blockM, blockN,
                               cluster.empty() ? 1 : cluster[0],
                               cluster.empty() ? 1 : cluster[1]);
  MLIRContext *ctx = op.getContext();
  return {{MemRefType::get({tiles * splitK * blockM, blockN},
                           Float32Type::get(ctx)),
           false},
          {MemRefType::get({tiles}, IntegerType::get(ctx, 32)), true}};
}

LogicalResult mlir::tcc::buildWgmmaMatmulKernel(
    linalg::GenericOp op, linalg::GenericOp second, linalg::GenericOp epilogue,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  std::optional<std::pair<bool, bool>> transposes = matmulTransposes(op);
  FailureOr<GemmProgram> program = GemmProgram::get(op);
  if (!transposes || failed(program))
    return failure();
  FailureOr<GemmProgram> secondProgram =
      second ? GemmProgram::get(second) : FailureOr<GemmProgram>(failure());
  if (second && failed(secondProgram))
    return failure();
  int64_t products = second ? 2 : 1;
  Type elem = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type outType = getElementTypeOrSelf(op.getResult(0));
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  int64_t blockK = config.getBlock()[2];
  int64_t warps = config.getNumWarps();
  int64_t consumerWarps = warps - kProducerWarps;
  int64_t groups = consumerWarps / 4;
  int64_t stages = config.getNumStages() ? *config.getNumStages() : 4;
  // Ping-pong: each consumer warpgroup runs a whole [BM, BN] block, the two
  // taking the program's tiles in turn.
  bool pingpong = config.getConsumers() == tile::ConsumerSchedule::pingpong;
  // A cluster of CM x CN programs (1-D in the grid: rank r = pid % C has
  // rm = r % CM along M and rn = r / CM along N).
  int64_t clusterM = config.getCluster().empty() ? 1 : config.getCluster()[0];
  int64_t clusterN = config.getCluster().empty() ? 1 : config.getCluster()[1];
  int64_t clusterSize = clusterM * clusterN;
  bool clustered = clusterSize > 1;
  // Warps on one block (the accumulator's layout), and the warps that free
  // a slot (those that read it).
  // (#tile.lowering_config's verifier holds pingpong to two consumer
  // warpgroups.)
  int64_t tileWarps = pingpong ? 4 : consumerWarps;
  if (warps % 4 || groups < 1 || groups > 2 ||
      blockM % (64 * (pingpong ? 1 : groups)) ||
      blockN % kSpan || blockN > 256 || blockK % kSpan || blockM > 256 ||
      stages < 2)
    return op.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN << ", "
           << blockK << "], num_warps = " << warps << ", num_stages = "
           << stages
           << " does not fit the wgmma schedule (one producer and 1 or 2 "
              "consumer warpgroups: num_warps 8 or 12; BM a multiple of 64 "
              "per consumer warpgroup up to 256, BN a multiple of 64 up to "
              "256, BK a multiple of 64, at least 2 stages)";
  // Each consumer thread holds BM * BN / (32 * consumer warps) accumulator
  // floats; past 128 (of setmaxnreg's 232 registers) they would spill.
  int64_t accPerThread = products * blockM * blockN / (32 * tileWarps);
  if (accPerThread > 128)
    return op.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN
           << "] on " << tileWarps << " consumer warps"
           << (pingpong ? " (pingpong: a block per warpgroup)" : "")
           << " holds "
           << accPerThread << (second ? " (two products)" : "")
           << " accumulator floats per thread, more than the 128 that fit "
              "the consumers' registers";
  if (!context.target.hasMma(tile::MmaKind::wgmma_m64nNk16))
    return op.emitOpError() << "lowering_config mma = wgmma_m64nNk16 is not "
                               "an instruction of target "
                            << context.target.getArch()
                            << " (#tile.target mma)";

  // A: [BM, BK] from [M, K] (K-major) or [K, M] (aT, M-major); B: [BK, BN]
  // from [K, N] (N-major) or [N, K] (bT, K-major).
  auto [aT, bT] = *transposes;
  OperandPlan a{0, aT, aT ? blockK : blockM, aT ? blockM / kSpan : blockK / kSpan,
                {}};
  OperandPlan bp{0, !bT, bT ? blockN : blockK,
                 bT ? blockK / kSpan : blockN / kSpan, {}};
  OperandPlan bp2 = bp; // a dual GEMM's second B
  SmallVector<OperandPlan *> plans = {&a, &bp};
  SmallVector<Value> operands = {op.getDpsInputs()[0], op.getDpsInputs()[1]};
  if (second) {
    plans.push_back(&bp2);
    operands.push_back(second.getDpsInputs()[1]);
  }
  a.sharers = clusterN;
  bp.sharers = bp2.sharers = clusterM;
  for (auto [plan, operand] : llvm::zip(plans, operands)) {
    if (plan->rowParts() && plan->rows % (8 * plan->sharers))
      return op.emitOpError()
             << "lowering_config cluster [" << clusterM << ", " << clusterN
             << "] splits boxes of " << plan->rows << " rows into "
             << plan->sharers
             << " parts, each not a multiple of 8 rows (the 128-byte "
                "swizzle's period)";
    FailureOr<Value> memref = lookupInput(operand, inputArgs, op);
    if (failed(memref))
      return failure();
    plan->arg = cast<BlockArgument>(*memref).getArgNumber();
    plan->memref = *memref;
    plan->tma = wgmmaReadsThroughTma(operand);
    plan->rowElems = cast<ShapedType>(operand.getType()).getShape().back();
  }
  int64_t stageBytes = a.bytes() + products * bp.bytes();
  // The bytes TMA delivers per step, and the box copies of the producer
  // warpgroup (operand rows TMA cannot read).
  int64_t tmaBytes = 0, copiesPerStep = 0;
  for (OperandPlan *plan : plans) {
    if (plan->tma)
      tmaBytes += plan->bytes();
    else
      copiesPerStep += plan->chunks * (plan->rows / kCopyRows);
  }
  bool copies = copiesPerStep > 0;
  if (clustered && copies)
    return op.emitOpError()
           << "lowering_config cluster [" << clusterM << ", " << clusterN
           << "] multicasts TMA boxes; an operand whose rows TMA cannot box "
              "(copied by the producer) takes no cluster";
  if (clustered && (ShapedType::isDynamic(program->m) ||
                    ShapedType::isDynamic(program->batch)))
    return op.emitOpError()
           << "lowering_config cluster [" << clusterM << ", " << clusterN
           << "] needs a static M and batch (the clusters' walk is counted at "
              "compile time)";
  bool alongK = llvm::any_of(plans, [](const OperandPlan *plan) {
    return !plan->tma && !plan->mnMajor;
  });
  int64_t producerRegs = alongK   ? kCopyAlongKProducerRegs
                         : copies ? kCopyProducerRegs
                                  : kProducerRegs;
  int64_t consumerRegs = alongK   ? kCopyAlongKConsumerRegs
                         : copies ? kCopyConsumerRegs
                                  : kConsumerRegs;
  // The result block leaves through shared memory with TMA stores (full
  // 128-byte lines, asynchronous) when the kernel's one result allows.
  auto func = op->getParentOfType<func::FuncOp>();
  bool tmaStore = func && wgmmaStoresThroughTma(func);
  // One staging slot per warpgroup storing at a time (two in ping-pong).
  int64_t stagingSlots = pingpong ? 2 : 1;
  int64_t outBytes =
      tmaStore ? stagingSlots * blockM * wgmmaStagingColumns(blockN) * 2 : 0;
  int64_t sharedBytes = stages * stageBytes + outBytes + 1024;
  if (sharedBytes > context.target.getMaxSharedBytes())
    return op.emitOpError()
           << "lowering_config needs " << sharedBytes
           << " bytes of shared memory for " << stages << " stages of "
           << stageBytes << ", more than the target's "
           << context.target.getMaxSharedBytes()
           << " (#tile.target max_shared_bytes)";

  // The tensor maps: the trailing kernel parameters, A's, B's and, with a
  // TMA store, C's (128-byte CUtensorMaps the runtime builds and passes by
  // value; the NVIDIA backend marks them byval grid constants), described
  // by tcc.tensor_maps.
  Block *entry = &kernel.getBody().front();
  SmallVector<Attribute> mapDescs;
  auto i64 = IntegerType::get(ctx, 64);
  auto describe = [&](unsigned arg, int64_t rows, unsigned rank) {
    SmallVector<int64_t> box = {rows, kSpan};
    if (rank == 3)
      box.insert(box.begin(), 1);
    NamedAttrList desc;
    desc.set("operand", IntegerAttr::get(i64, arg));
    desc.set("box", DenseI64ArrayAttr::get(ctx, box));
    desc.set("swizzle", IntegerAttr::get(i64, 128));
    mapDescs.push_back(desc.getDictionary(ctx));
  };
  unsigned tmaOperands = llvm::count_if(
      plans, [](const OperandPlan *plan) { return plan->tma; });
  unsigned nextMap = kernel.getNumArguments() - tmaOperands - tmaStore;
  for (OperandPlan *plan : plans) {
    if (!plan->tma)
      continue;
    plan->map = entry->getArgument(nextMap++);
    describe(plan->arg, plan->boxRows(), program->batched ? 3 : 2);
  }
  Value mapC;
  if (tmaStore) {
    mapC = entry->getArgument(nextMap);
    Value out = outputs.outputArgs.front();
    describe(cast<BlockArgument>(out).getArgNumber(), blockM,
             cast<MemRefType>(out.getType()).getRank());
  }
  kernel->setAttr("tcc.tensor_maps", ArrayAttr::get(ctx, mapDescs));
  kernel->setAttr("tcc.producer_warps",
                  IntegerAttr::get(IntegerType::get(ctx, 32), kProducerWarps));
  if (clustered)
    kernel->setAttr("tcc.cluster",
                    DenseI32ArrayAttr::get(ctx, {int32_t(clusterSize), 1, 1}));
  if (pingpong)
    kernel->setAttr("tcc.consumer_groups",
                    IntegerAttr::get(IntegerType::get(ctx, 32), groups));

  OpBuilder b = OpBuilder::atBlockEnd(entry);
  // Index constants at the kernel's entry, dominating every region.
  OpBuilder constants = OpBuilder::atBlockBegin(entry);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(constants, loc, v);
  };
  auto sw128 = tile::SharedEncodingAttr::get(ctx, 8, 1, 8, {2, 1, 0});
  auto bufferOf = [&](const OperandPlan &plan) {
    return tile::SharedBufferType::get(
        ctx, {stages, plan.chunks, plan.rows, kSpan}, elem, sw128);
  };
  // The producer's leader (the thread issuing every TMA copy) first fetches
  // the tensor maps from parameter space into its descriptor cache
  // (`prefetch.tensormap`, CUTLASS's prefetch_tma_descriptor), so that the
  // first copies, after the barriers' init, do not wait on those fetches.
  {
    Value first = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x),
        arith::ConstantIndexOp::create(b, loc, consumerWarps * 32));
    auto leader = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder lb = OpBuilder::atBlockBegin(&leader.getThenRegion().front());
    for (unsigned i = kernel.getNumArguments() - tmaOperands - tmaStore;
         i < kernel.getNumArguments(); ++i)
      NVVM::PrefetchOp::create(lb, loc, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, entry->getArgument(i),
                               /*predicate=*/Value(), lb.getUnitAttr(),
                               /*uniform=*/nullptr, lb.getUnitAttr());
  }
  auto allocA = tile::SharedAllocOp::create(b, loc, bufferOf(a));
  constants.setInsertionPoint(allocA);
  Value bufA = allocA;
  Value bufB = tile::SharedAllocOp::create(b, loc, bufferOf(bp));
  Value bufB2 =
      second ? tile::SharedAllocOp::create(b, loc, bufferOf(bp2)) : Value();
  auto barriers = tile::MBarriersType::get(ctx, stages);
  // A slot is full once its TMA bytes landed (one arrival, the expect-tx
  // of the thread issuing them) and every producer thread's part of each
  // box copy did (one arrival each).
  Value full = tile::MBarrierAllocOp::create(
      b, loc, barriers,
      copiesPerStep * kProducerWarps * 32 + (tmaBytes ? 1 : 0));
  // A slot is free once every consumer warp's wgmma reading it retired
  // (lane 0 of each warp arrives after its warpgroup_wait), in this program
  // and in every program of the cluster that multicasts into it (its CM
  // along M and CN along N, itself once).
  Value empty = tile::MBarrierAllocOp::create(
      b, loc, barriers, tileWarps * (clusterM + clusterN - 1));
  // Ping-pong: the two warpgroups' k loops run in turn (order[g]: "g may
  // start", completed by the 4 warps of the other when its k loop is done).
  // Besides letting one epilogue overlap the other's MMAs, this keeps every
  // slot's parity waits unambiguous: a warpgroup that skips the other's
  // steps could otherwise see a slot's barrier one phase behind and take
  // its stale parity for the one it waits for.
  Value order =
      pingpong ? tile::MBarrierAllocOp::create(
                     b, loc, tile::MBarriersType::get(ctx, 2), tileWarps)
               : Value();
  Value bufC;
  if (tmaStore)
    bufC = tile::SharedAllocOp::create(
        b, loc,
        tile::SharedBufferType::get(ctx,
                                    {stagingSlots,
                                     wgmmaStagingColumns(blockN) / kSpan,
                                     blockM, kSpan},
                                    getElementTypeOrSelf(
                                        func.getResultTypes()[0]),
                                    sw128));

  // The walk is over the clusters' blocks of CM x CN tiles (a program's
  // tile past the result's edge loads zeros and stores nothing).
  int64_t tilesM = llvm::divideCeil(program->m, blockM * clusterM);
  int64_t tilesN = llvm::divideCeil(program->n, blockN * clusterN);
  int64_t tilesPerBatch = tilesM * tilesN;
  int64_t tiles = program->batch * tilesPerBatch;
  // A dynamic M (the rows of a not-transposed A: fitsWgmma) or batch: the
  // walk's tile count from A's sizes at run time.
  bool dynamicM = ShapedType::isDynamic(program->m);
  bool dynamicBatch = ShapedType::isDynamic(program->batch);
  Value dynamicTilesM, tilesValue, perBatchValue;
  if (dynamicM) {
    dynamicTilesM = GemmProgram::runTimeRowBlocks(
        b, loc, kernel.getArgument(a.arg), blockM);
    perBatchValue = arith::MulIOp::create(b, loc, dynamicTilesM, c(tilesN));
  } else {
    perBatchValue = c(tilesPerBatch);
  }
  if (dynamicBatch)
    tilesValue = arith::MulIOp::create(
        b, loc, memref::DimOp::create(b, loc, kernel.getArgument(a.arg), 0),
        perBatchValue);
  else
    tilesValue = !dynamicM ? c(tiles).getResult()
                 : program->batch == 1
                     ? perBatchValue
                     : arith::MulIOp::create(b, loc, perBatchValue,
                                             c(program->batch))
                           .getResult();
  int64_t kSteps = llvm::divideCeil(program->k, blockK);
  int64_t splitK = config.getSplitK().value_or(1);
  bool split = splitK > 1;
  if (split && second)
    return op.emitOpError()
           << "lowering_config split_k = " << splitK
           << " is not built for a dual GEMM (two accumulators per tile)";
  if (split && (dynamicM || dynamicBatch))
    return op.emitOpError()
           << "lowering_config split_k = " << splitK
           << " needs a static M and batch (its workspace is sized at compile "
              "time)";
  if (split && kSteps < splitK)
    return op.emitOpError()
           << "lowering_config split_k = " << splitK << " splits "
           << kSteps << " k steps of " << blockK
           << " (K = " << program->k << "): at most one split per k step";
  // The work items of the walk: tiles, or tiles x splits.
  Value itemsValue = split ? c(tiles * splitK).getResult() : tilesValue;
  Value partials, counters;
  if (split) {
    unsigned first = kernel.getNumArguments() - tmaOperands - tmaStore - 2;
    partials = entry->getArgument(first);
    counters = entry->getArgument(first + 1);
  }
  // Work item `u`: its tile, its k steps and its split.
  struct Work {
    Value tile, kBegin, kEnd, split;
  };
  auto workOf = [&](OpBuilder &lb, Value u) {
    if (!split)
      return Work{u, c(0), c(kSteps), Value()};
    Value s = arith::RemUIOp::create(lb, loc, u, c(splitK));
    auto bound = [&](Value j) -> Value {
      return arith::DivUIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, j, c(kSteps)), c(splitK));
    };
    return Work{arith::DivUIOp::create(lb, loc, u, c(splitK)), bound(s),
                bound(arith::AddIOp::create(lb, loc, s, c(1))), s};
  };
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  Value programs = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::NumProgramsOp::create(b, loc, b.getI32Type(), 0u));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value consumerThreads = c(consumerWarps * 32);
  // A cluster's programs are consecutive in the 1-D grid: the walk is
  // over clusters, and each program takes its (rm, rn) tile of them.
  Value rankM, rankN;
  if (clustered) {
    Value rank = arith::RemUIOp::create(b, loc, pid, c(clusterSize));
    rankM = arith::RemUIOp::create(b, loc, rank, c(clusterM));
    rankN = arith::DivUIOp::create(b, loc, rank, c(clusterM));
    pid = arith::DivUIOp::create(b, loc, pid, c(clusterSize));
    programs = arith::DivUIOp::create(b, loc, programs, c(clusterSize));
    // Every program's barriers are initialized before any other program
    // of the cluster arrives on them or multicasts into its slots.
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  // The i16 of cluster ranks an operand's part goes to: A's sharers (the
  // same rm: ranks rm + CM j), B's (the same rn: rn CM + i).
  auto multicastMask = [&](OpBuilder &lb, bool isA) -> Value {
    auto i16 = lb.getI16Type();
    int64_t pattern = 0;
    for (int64_t j = 0; j < (isA ? clusterN : clusterM); ++j)
      pattern |= int64_t(1) << (isA ? clusterM * j : j);
    Value shift = isA ? rankM
                      : arith::MulIOp::create(lb, loc, rankN, c(clusterM));
    return arith::ShLIOp::create(
        lb, loc, arith::ConstantIntOp::create(lb, loc, pattern, 16),
        arith::IndexCastUIOp::create(lb, loc, i16, shift));
  };
  // Lane 0 of a consumer warp frees `slot`: in this program, or in every
  // program of the cluster that multicasts into it (cluster-scope
  // arrivals through mapa, its own included).
  auto releaseSlot = [&](OpBuilder &rb, Value emptyBars, Value slot) {
    if (!clustered) {
      tile::MBarrierArriveOp::create(rb, loc, emptyBars, slot, Value(),
                                     IntegerAttr());
      return;
    }
    // The CM programs of this rn (itself among them), and with CN = 2 the
    // program of the other rn at this rm.
    SmallVector<Value> peers;
    for (int64_t i = 0; i < clusterM; ++i)
      peers.push_back(arith::AddIOp::create(
          rb, loc, arith::MulIOp::create(rb, loc, rankN, c(clusterM)), c(i)));
    if (clusterN == 2)
      peers.push_back(arith::AddIOp::create(
          rb, loc, rankM,
          arith::MulIOp::create(
              rb, loc, arith::SubIOp::create(rb, loc, c(1), rankN),
              c(clusterM))));
    for (Value peer : peers)
      tile::MBarrierArriveOp::create(rb, loc, emptyBars, slot, peer,
                                     IntegerAttr());
  };

  // The tile `t` of the walk: (batch, m0, n0).
  struct Origin {
    Value batch, m0, n0;
  };
  auto originOf = [&](OpBuilder &lb, Value t) {
    Value batch = arith::DivUIOp::create(lb, loc, t, perBatchValue);
    Value inBatch = arith::RemUIOp::create(lb, loc, t, perBatchValue);
    auto [pm, pn] = GemmProgram::groupedProgramIds(lb, loc, inBatch, tilesM,
                                                   tilesN, dynamicTilesM);
    if (clustered) {
      pm = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, pm, c(clusterM)), rankM);
      pn = arith::AddIOp::create(
          lb, loc, arith::MulIOp::create(lb, loc, pn, c(clusterN)), rankN);
    }
    return Origin{batch, arith::MulIOp::create(lb, loc, pm, c(blockM)),
                  arith::MulIOp::create(lb, loc, pn, c(blockN))};
  };
  auto slotOf = [&](OpBuilder &lb, Value step) {
    return std::make_pair(
        arith::RemUIOp::create(lb, loc, step, c(stages)).getResult(),
        arith::DivUIOp::create(lb, loc, step, c(stages)).getResult());
  };

  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           tid, consumerThreads);
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);

  // --- Producer warpgroup: one thread issues every TMA copy; all of its
  // threads copy the boxes TMA cannot read. ---
  {
    OpBuilder pb = OpBuilder::atBlockBegin(&roles.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(pb, loc, producerRegs,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value leader = arith::CmpIOp::create(pb, loc, arith::CmpIPredicate::eq,
                                         tid, consumerThreads);
    // The walk runs in the leader alone, or in every producer thread when
    // some boxes are copied (their layout spreads a box's kCopyRows x 64
    // elements over the warpgroup, lanes along its rows).
    OpBuilder ob = pb;
    if (!copies) {
      auto one = scf::IfOp::create(pb, loc, leader, /*withElse=*/false);
      ob = OpBuilder::atBlockBegin(&one.getThenRegion().front());
    }
    auto copyLayout = [&](const OperandPlan &plan) {
      // Vectors of up to 8 elements (16 bytes) that rows keep aligned.
      unsigned vec = 8;
      while (plan.rowElems % vec)
        vec /= 2;
      unsigned lanesAlong = std::min<unsigned>(32, kSpan / vec);
      SmallVector<unsigned> spt = {1, vec}, tpw = {32 / lanesAlong, lanesAlong},
                            wpc = {unsigned(kProducerWarps), 1},
                            order = {1, 0};
      if (program->batched) {
        spt.insert(spt.begin(), 1);
        tpw.insert(tpw.begin(), 1);
        wpc.insert(wpc.begin(), 1);
        order = {2, 1, 0};
      }
      return tile::BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
    };
    auto walk = scf::ForOp::create(
        ob, loc, pid, itemsValue, programs, ValueRange{c(0)},
        [&](OpBuilder &tb, Location, Value u, ValueRange iter) {
          Work w = workOf(tb, u);
          Origin o = originOf(tb, w.tile);
          auto kLoop = scf::ForOp::create(
              tb, loc, w.kBegin, w.kEnd, c(1), ValueRange{iter[0]},
              [&](OpBuilder &kb, Location, Value kk, ValueRange it) {
                auto [slot, phase] = slotOf(kb, it[0]);
                // Slot free: its previous phase's consumers arrived (a
                // fresh barrier passes parity 1 at once).
                Value prev = arith::AddIOp::create(kb, loc, phase, c(1));
                tile::MBarrierWaitOp::create(kb, loc, empty, slot, prev);
                Value k0 = arith::MulIOp::create(kb, loc, kk, c(blockK));
                // Box `ch` of an operand: rows along the non-contiguous
                // dim, 64 columns of the contiguous one.
                auto coordsOf = [&](OpBuilder &lb, const OperandPlan &plan,
                                    Value mn0, int64_t ch, int64_t row) {
                  Value r = plan.mnMajor ? k0 : mn0;
                  if (row)
                    r = arith::AddIOp::create(lb, loc, r, c(row));
                  Value col = arith::AddIOp::create(
                      lb, loc, plan.mnMajor ? mn0 : k0, c(ch * kSpan));
                  SmallVector<Value> coords = {r, col};
                  if (program->batched)
                    coords.insert(coords.begin(), o.batch);
                  return coords;
                };
                SmallVector<std::tuple<OperandPlan *, Value, Value>> loads = {
                    {&a, bufA, o.m0}, {&bp, bufB, o.n0}};
                if (second)
                  loads.push_back({&bp2, bufB2, o.n0});
                if (tmaBytes) {
                  OpBuilder tb2 = kb;
                  if (copies) {
                    auto issue =
                        scf::IfOp::create(kb, loc, leader, /*withElse=*/false);
                    tb2 = OpBuilder::atBlockBegin(
                        &issue.getThenRegion().front());
                  }
                  tile::MBarrierArriveOp::create(
                      tb2, loc, full, slot, Value(),
                      tb2.getI64IntegerAttr(tmaBytes));
                  for (auto [plan, buffer, mn0] : loads) {
                    if (!plan->tma)
                      continue;
                    if (plan->sharers == 1) {
                      for (int64_t ch = 0; ch < plan->chunks; ++ch)
                        tile::TmaLoadOp::create(
                            tb2, loc, plan->map,
                            coordsOf(tb2, *plan, mn0, ch, 0), buffer, slot,
                            c(ch), full, slot, /*multicast=*/Value(),
                            /*row=*/0);
                      continue;
                    }
                    // Part `part` of the boxes, multicast to the sharers.
                    bool isA = plan == &a;
                    Value part = isA ? rankN : rankM;
                    Value mask = multicastMask(tb2, isA);
                    for (int64_t p = 0; p < plan->sharers; ++p) {
                      auto mine = scf::IfOp::create(
                          tb2, loc,
                          arith::CmpIOp::create(tb2, loc,
                                                arith::CmpIPredicate::eq,
                                                part, c(p)),
                          /*withElse=*/false);
                      OpBuilder pb2 =
                          OpBuilder::atBlockBegin(&mine.getThenRegion().front());
                      int64_t perPart = plan->rowParts()
                                            ? plan->chunks
                                            : plan->chunks / plan->sharers;
                      int64_t first = plan->rowParts() ? 0 : p * perPart;
                      int64_t row = plan->rowParts() ? p * plan->boxRows() : 0;
                      for (int64_t ch = first; ch < first + perPart; ++ch) {
                        tile::TmaLoadOp::create(
                            pb2, loc, plan->map,
                            coordsOf(pb2, *plan, mn0, ch, row), buffer, slot,
                            c(ch), full, slot, mask, row);
                      }
                    }
                  }
                }
                if (copies) {
                  for (auto [plan, buffer, mn0] : loads) {
                    if (plan->tma)
                      continue;
                    tile::BlockedEncodingAttr layout = copyLayout(*plan);
                    for (int64_t ch = 0; ch < plan->chunks; ++ch)
                      for (int64_t row = 0; row < plan->rows;
                           row += kCopyRows)
                        tile::BoxCopyOp::create(
                            kb, loc, plan->memref,
                            coordsOf(kb, *plan, mn0, ch, row), buffer, slot,
                            c(ch), full, slot, layout, row, kCopyRows);
                  }
                }
                scf::YieldOp::create(
                    kb, loc,
                    ValueRange{arith::AddIOp::create(kb, loc, it[0], c(1))});
              });
          scf::YieldOp::create(tb, loc, kLoop.getResults());
        });
    (void)walk;
  }

  // --- Consumer warpgroups: wgmma on the slots, then the epilogue. ---
  OpBuilder cb = OpBuilder::atBlockBegin(&roles.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(cb, loc, consumerRegs,
                                 NVVM::SetMaxRegisterAction::increase);
  Value laneZero = arith::CmpIOp::create(
      cb, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(cb, loc, tid, c(32)), c(0));
  auto mma = tile::NvidiaMmaEncodingAttr::get(
      ctx, 3, {unsigned(tileWarps), 1}, {16, unsigned(blockN), 16});
  // Ping-pong: warpgroup g walks tiles pid + g * programs, + 2 * programs,
  // ...; its k-step counter starts at g * kSteps and skips the other
  // warpgroup's kSteps after each tile (the producer loads every tile).
  Value walkStart = pid, walkStep = programs, stepStart = c(0);
  Value group;
  if (pingpong) {
    group = arith::DivUIOp::create(cb, loc, tid, c(128));
    walkStart = arith::AddIOp::create(
        cb, loc, pid, arith::MulIOp::create(cb, loc, group, programs));
    walkStep = arith::MulIOp::create(cb, loc, programs, c(2));
    stepStart = arith::MulIOp::create(cb, loc, group, c(kSteps));
  }
  Type f32 = Float32Type::get(ctx);
  auto accType = RankedTensorType::get({blockM, blockN}, f32, mma);
  LogicalResult status = success();
  scf::ForOp::create(
      cb, loc, walkStart, itemsValue, walkStep, ValueRange{stepStart},
      [&](OpBuilder &tb, Location, Value t, ValueRange iter) {
        Work w = workOf(tb, t);
        Origin o = originOf(tb, w.tile);
        if (pingpong) {
          // This warpgroup's i-th tile waits for the other's k loop before
          // it: warpgroup 0 for phase i - 1 of order[0] (a fresh barrier
          // passes parity 1), warpgroup 1 for phase i of order[1].
          Value i = arith::DivUIOp::create(
              tb, loc, arith::SubIOp::create(tb, loc, t, walkStart), walkStep);
          Value parity = arith::RemUIOp::create(
              tb, loc,
              arith::SubIOp::create(
                  tb, loc, arith::AddIOp::create(tb, loc, i, c(1)), group),
              c(2));
          tile::MBarrierWaitOp::create(tb, loc, order, group, parity);
        }
        Value zero = arith::ConstantOp::create(
            tb, loc, tb.getFloatAttr(f32, 0.0));
        Value acc0 = tile::SplatOp::create(tb, loc, accType, zero);
        // Iteration values: the accumulators, then the running k step.
        SmallVector<Value> inits(products, acc0);
        inits.push_back(iter[0]);
        auto kLoop = scf::ForOp::create(
            tb, loc, w.kBegin, w.kEnd, c(1), inits,
            [&](OpBuilder &kb, Location, Value kk, ValueRange it) {
              auto [slot, phase] = slotOf(kb, it[products]);
              tile::MBarrierWaitOp::create(kb, loc, full, slot, phase);
              // Boxes the producer's threads copied (generic proxy), read
              // next by wgmma (the async proxy).
              if (copies)
                NVVM::FenceProxyOp::create(
                    kb, loc, NVVM::ProxyKind::async_shared,
                    NVVM::SharedSpaceAttr::get(ctx,
                                               NVVM::SharedSpace::shared_cta));
              SmallVector<Value> ds = {tile::WarpGroupDotOp::create(
                  kb, loc, accType, bufA, bufB, slot, it[0], slot, aT, !bT)};
              if (second)
                ds.push_back(tile::WarpGroupDotOp::create(
                    kb, loc, accType, bufA, bufB2, slot, it[1], slot, aT,
                    !bT));
              // One step's groups stay in flight: the previous step's are
              // done, so its slot is free.
              for (Value &d : ds)
                d = tile::WarpGroupWaitOp::create(kb, loc, d,
                                                  unsigned(products));
              Value notFirst = arith::AndIOp::create(
                  kb, loc,
                  arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt, kk,
                                        w.kBegin),
                  laneZero);
              auto release = scf::IfOp::create(kb, loc, notFirst, false);
              {
                OpBuilder rb =
                    OpBuilder::atBlockBegin(&release.getThenRegion().front());
                Value prevStep =
                    arith::SubIOp::create(rb, loc, it[products], c(1));
                releaseSlot(rb, empty, slotOf(rb, prevStep).first);
              }
              ds.push_back(arith::AddIOp::create(kb, loc, it[products], c(1)));
              scf::YieldOp::create(kb, loc, ds);
            });
        Value stepsDone = kLoop.getResult(products);
        if (pingpong) {
          // Every wait on a full slot of this tile is behind: the other
          // warpgroup may start its k loop while these MMAs drain.
          auto turn = scf::IfOp::create(tb, loc, laneZero, false);
          OpBuilder rb = OpBuilder::atBlockBegin(&turn.getThenRegion().front());
          tile::MBarrierArriveOp::create(
              rb, loc, order, arith::SubIOp::create(rb, loc, c(1), group),
              Value(), IntegerAttr());
        }
        SmallVector<Value> accs;
        for (int64_t i = 0; i < products; ++i)
          accs.push_back(
              tile::WarpGroupWaitOp::create(tb, loc, kLoop.getResult(i), 0));
        auto releaseLast = scf::IfOp::create(tb, loc, laneZero, false);
        {
          OpBuilder rb =
              OpBuilder::atBlockBegin(&releaseLast.getThenRegion().front());
          Value lastStep = arith::SubIOp::create(rb, loc, stepsDone, c(1));
          releaseSlot(rb, empty, slotOf(rb, lastStep).first);
        }
        // Split-K: the partial into the workspace; the last of the tile's
        // splits sums them and runs the epilogue (in `eb`).
        OpBuilder eb = tb;
        if (split) {
          Value tileId = w.tile;
          if (clustered)
            tileId = arith::AddIOp::create(
                tb, loc, arith::MulIOp::create(tb, loc, w.tile, c(clusterSize)),
                arith::AddIOp::create(
                    tb, loc, rankM,
                    arith::MulIOp::create(tb, loc, rankN, c(clusterM))));
          auto slotRow = [&](OpBuilder &lb, Value j) -> Value {
            return arith::MulIOp::create(
                lb, loc,
                arith::AddIOp::create(
                    lb, loc, arith::MulIOp::create(lb, loc, tileId, c(splitK)),
                    j),
                c(blockM));
          };
          tile::MemRefStoreOp::create(tb, loc, partials,
                                      ValueRange{slotRow(tb, w.split), c(0)},
                                      accs.front(), Value());
          auto i32 = [&](OpBuilder &lb, int64_t v) -> Value {
            return arith::ConstantIntOp::create(lb, loc, v, 32);
          };
          // The consumer threads' named barrier (the TMA store's: 1).
          NVVM::BarrierOp::create(tb, loc, Type(), i32(tb, 1),
                                  i32(tb, consumerWarps * 32),
                                  NVVM::BarrierReductionAttr(), Value());
          Value leaderThread = arith::CmpIOp::create(
              tb, loc, arith::CmpIPredicate::eq, tid, c(0));
          auto arrive = scf::IfOp::create(tb, loc, TypeRange{tb.getI1Type()},
                                          leaderThread, /*withElse=*/true);
          {
            OpBuilder lb =
                OpBuilder::atBlockEnd(&arrive.getThenRegion().front());
            NVVM::MembarOp::create(lb, loc, NVVM::MemScopeKind::GPU);
            Value old = memref::AtomicRMWOp::create(
                lb, loc, arith::AtomicRMWKind::addi, i32(lb, 1), counters,
                ValueRange{tileId});
            Value last = arith::CmpIOp::create(
                lb, loc, arith::CmpIPredicate::eq, old, i32(lb, splitK - 1));
            NVVM::MembarOp::create(lb, loc, NVVM::MemScopeKind::GPU);
            scf::YieldOp::create(lb, loc, last);
            OpBuilder el =
                OpBuilder::atBlockEnd(&arrive.getElseRegion().front());
            scf::YieldOp::create(
                el, loc, ValueRange{arith::ConstantIntOp::create(el, loc, 0, 1)});
          }
          // The same barrier with an OR of each thread's predicate
          // (bar.red; nvvm.barrier reduces on barrier 0 only): one thread's
          // `last`, told to them all.
          Value anyLast =
              LLVM::InlineAsmOp::create(
                  tb, loc, TypeRange{tb.getI32Type()},
                  ValueRange{i32(tb, 1), i32(tb, consumerWarps * 32),
                             arith::ExtUIOp::create(tb, loc, tb.getI32Type(),
                                                    arrive.getResult(0))},
                  "{\n .reg .pred %p;\n setp.ne.u32 %p, $3, 0;\n "
                  "bar.red.or.pred %p, $1, $2, %p;\n selp.u32 $0, 1, 0, %p;\n}",
                  "=r,r,r,r", /*has_side_effects=*/true,
                  /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
                  /*operand_attrs=*/ArrayAttr())
                  .getRes();
          auto lastIf = scf::IfOp::create(
              tb, loc,
              arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::ne, anyLast,
                                    i32(tb, 0)),
              /*withElse=*/false);
          eb = OpBuilder::atBlockTerminator(&lastIf.getThenRegion().front());
          // ((p0 + p1) + p2) ... + p(S-1), software-pipelined: partial
          // j + 1 is loaded before partial j is added, so two partials'
          // loads are in flight (the tail is bound by one program's
          // reads). One loop whatever S.
          auto partial = [&](OpBuilder &lb, Value j) -> Value {
            return tile::MemRefLoadOp::create(lb, loc, accType, partials,
                                              ValueRange{slotRow(lb, j), c(0)},
                                              Value(), Value());
          };
          auto sums = scf::ForOp::create(
              eb, loc, c(1), c(splitK - 1), c(1),
              ValueRange{partial(eb, c(0)), partial(eb, c(1))},
              [&](OpBuilder &sb, Location, Value j, ValueRange it) {
                Value ahead =
                    partial(sb, arith::AddIOp::create(sb, loc, j, c(1)));
                Value sum = arith::AddFOp::create(sb, loc, it[0], it[1]);
                scf::YieldOp::create(sb, loc, ValueRange{sum, ahead});
              });
          accs.front() = arith::AddFOp::create(eb, loc, sums.getResult(0),
                                               sums.getResult(1));
          auto reset =
              scf::IfOp::create(eb, loc, leaderThread, /*withElse=*/false);
          OpBuilder rb =
              OpBuilder::atBlockTerminator(&reset.getThenRegion().front());
          memref::StoreOp::create(rb, loc, i32(rb, 0), counters,
                                  ValueRange{tileId});
        }
        // Each matmul's init (a constant fill) and result type.
        for (auto [i, acc] : llvm::enumerate(accs)) {
          const GemmProgram &gemm = i ? *secondProgram : *program;
          if (double init = gemm.getInit(); init != 0.0) {
            Value fill = tile::SplatOp::create(
                eb, loc, accType,
                arith::ConstantOp::create(eb, loc,
                                          eb.getFloatAttr(f32, init)));
            acc = arith::AddFOp::create(eb, loc, acc, fill);
          }
          if (outType != f32)
            acc = arith::TruncFOp::create(
                eb, loc,
                RankedTensorType::get({blockM, blockN}, outType, mma), acc);
        }
        Value acc = accs.front();
        SmallVector<std::pair<Value, Value>> moreProducts;
        if (second)
          moreProducts.push_back({second.getResult(0), accs[1]});
        program->place(o.m0, o.n0, o.batch);
        auto loadOnAcc = [&](Value memref, AffineMap map,
                             Type element) -> FailureOr<Value> {
          return program->loadOnAccumulator(eb, loc, epilogue, memref, map,
                                            element, mma, blockM, blockN);
        };
        auto accTile = [&](Type element) {
          return RankedTensorType::get({blockM, blockN}, element, mma);
        };
        // TMA stores of the one returned result: the output's dims are
        // the GEMM's (batch first when batched).
        auto storeThroughTma = [&](Value result) -> LogicalResult {
          auto type = cast<RankedTensorType>(result.getType());
          if (type.getElementType() !=
              cast<tile::SharedBufferType>(bufC.getType()).getElementType())
            return op.emitOpError("TMA store of a ")
                   << type.getElementType() << " result through a staging "
                   << "buffer of another type";
          SmallVector<Value> coords = {o.m0, o.n0};
          if (program->batched)
            coords.insert(coords.begin(), o.batch);
          tile::TmaStoreOp::create(eb, loc, result, mapC, coords, bufC,
                                   pingpong ? group : Value());
          return success();
        };
        GridSize unused;
        if (failed(program->finish(
                eb, loc, acc, epilogue, inputArgs, outputs, loadOnAcc, accTile,
                unused,
                tmaStore ? function_ref<LogicalResult(Value)>(storeThroughTma)
                         : function_ref<LogicalResult(Value)>(),
                moreProducts)))
          status = failure();
        // Ping-pong: past the other warpgroup's tile too.
        Value next = pingpong ? arith::AddIOp::create(tb, loc, stepsDone,
                                                      c(kSteps))
                              : stepsDone;
        scf::YieldOp::create(tb, loc, ValueRange{next});
      });
  if (failed(status))
    return failure();
  if (tmaStore) {
    // The last stores complete before the kernel ends.
    OpBuilder eb = OpBuilder::atBlockTerminator(&roles.getElseRegion().front());
    tile::TmaStoreWaitOp::create(eb, loc);
  }
  if (clustered) {
    // No program leaves while another of its cluster may still arrive on
    // its barriers.
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  // Split-K: work items, not tiles.
  int64_t items = split ? tiles * splitK : tiles;
  if (clustered) {
    grid = std::min(items, kHopperSMs / clusterSize) * clusterSize;
  } else if (dynamicM || dynamicBatch) {
    // About one program per SM, fewer when there are fewer tiles.
    unsigned lead = program->batched;
    grid = blocksOf(loopExtent(op, {lead}), blockM, tilesN);
    if (lead)
      grid = gridProduct(blocksOf(loopExtent(op, {0}), 1), grid);
    grid.expr = "min(" + grid.expr + ", " + std::to_string(kHopperSMs) + ")";
  } else {
    grid = std::min(items, kHopperSMs);
  }
  numWarps = warps;
  return success();
}
