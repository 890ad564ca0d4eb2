//===- Matmul.cpp - the tensor-core matmul kernel form --------------------===//
//
// A (batched) matmul generic with f16 or bf16 operands of one type on a
// target with a tensor-core instruction, optionally followed by an
// elementwise epilogue: [BM, BN] of C per program, K in BK steps through
// pipelined shared memory, tile.dot on the target's MMA.
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

constexpr int64_t kBlockK = 32;

/// The Hopper plan: a producer warpgroup and consumer warpgroups of 64 rows
/// each, BK 64 (one 128-byte swizzle span of 16-bit elements), as many
/// stages as shared memory holds up to 6. The block is the one of 128 x 256
/// (two consumers, wgmma's widest N: the most reuse per loaded byte),
/// 128 x 128 and 64 x 128 (one consumer) whose waves of the persistent grid
/// cost least: ceil(tiles / SMs) rounds, each as long as a block's flops
/// over its relative efficiency (smaller blocks reload more bytes per flop,
/// one consumer warpgroup keeps fewer wgmma in flight: 1, 0.85 and 0.4, read
/// off H200 runs: at 1000^3, 64 blocks of 128 x 128 ran at 186 TFLOP/s,
/// 128 of 64 x 128 at 172, 128 of 128 x 64 at 165). Large problems keep
/// 128 x 256; 3000 x 1500 takes 128 x 128; problems of at most 64 rows take
/// 64 x 128 (64 x 64 where N <= 64).
///
/// Programs run in 2 x 1 clusters (B's boxes multicast to the two programs
/// of one column of blocks, WgmmaMatmulKernel.cpp) where the kernel allows
/// them: every operand read by TMA, static M, one B operand, at least two
/// rows of blocks. On the H200, against the same block unclustered: 128 x 256
/// at 2048^3 672 TFLOP/s vs 560, at 4096^3 693 vs 665, 8192^3, batched
/// 16 x 1024^3 and bias + GELU 4096 x 4096 x 1024 equal; 128 x 128 at
/// 3000 x 1500 x 776 NT (288 blocks) 227 vs 198, but at 1000^3 (64 blocks,
/// half the SMs) 145 vs 186: 128 x 128 takes a cluster only with more blocks
/// than SMs. 64 x 128 in clusters is a choice for more than 64 rows too, of
/// efficiency 0.51 (1000^3: 128 blocks at 224 TFLOP/s, 0.84x cuBLAS, against
/// 186 for 64 blocks of 128 x 128).
constexpr double kClusteredNarrowEfficiency = 0.51;

/// Split-K (`split_k`, WgmmaMatmulKernel.cpp) where the unsplit plan leaves
/// most SMs idle over a long K: at most kHopperSMs / 4 output tiles. The
/// split plan is 128 x 128 blocks (64 x 128 for at most 64 rows) of two
/// consumer warpgroups, unclustered, and S = min(16, SMs / its tiles, k steps
/// / 32): about one wave of items, each at least 32 k steps (2048 of K). On
/// an H100, against the unsplit 64 x 128 in 2 x 1 clusters:
/// 256x256x65536 NT f16 (4 tiles) S = 16 at 165 TFLOP/s vs 31;
/// 512x512x16384 NN bf16 (16 tiles) S = 8 at 255 vs 117, where S = 16 (two
/// waves of items) ran at 127. 256x4096x4096 NT (128 tiles of 64 x 128) and
/// 1000^3 stay unsplit: 128 x 128 with S = 2 ran at 340 vs 391 and 131 vs
/// 196 there.
constexpr int64_t kSplitKMaxTiles = kHopperSMs / 4;
constexpr int64_t kSplitKMinSteps = 32;
constexpr int64_t kSplitKMax = 16;

/// The epilogue runs on the accumulator's registers, and every tile it reads
/// (not a bias row or column: a whole [M, N] operand, such as the other
/// GEMM of SwiGLU's silu(a) * b) comes into registers in the accumulator's
/// layout beside it. A block is kept only when the accumulator and those
/// tiles fit a consumer's registers (232 after setmaxnreg) with room for
/// addresses and the epilogue's arithmetic: at most kEpilogueRegisters
/// 32-bit registers per thread. 128 x 256 with one bf16 tile operand needs
/// 128 + 64 and spilled 1.4 KiB per thread (the SwiGLU GEMM ran 2.7x
/// slower than without the operand on the H200); it takes 128 x 128. A dual
/// GEMM's two accumulators count alike: 128 x 128 (64 + 64 floats).
constexpr int64_t kEpilogueRegisters = 160;
/// What a consumer gives up when the producer copies operand boxes
/// (setmaxnreg 200 instead of 232, 192 with copies along K:
/// WgmmaMatmulKernel.cpp).
constexpr int64_t kCopyingProducerRegisters = 32;
constexpr int64_t kCopyingAlongKRegisters = 40;

/// Bytes per output element of the epilogue's inputs read as whole tiles
/// (the epilogue is the last kernel op; the others are the contractions).
int64_t epilogueTileBytes(ArrayRef<Operation *> ops) {
  if (ops.size() < 2)
    return 0;
  auto epilogue = dyn_cast<linalg::GenericOp>(ops.back());
  if (!epilogue)
    return 0;
  int64_t bytes = 0;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (llvm::is_contained(ops.drop_back(), input->get().getDefiningOp()))
      continue;
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    unsigned outRank = epilogue.getNumLoops();
    if (map.getNumResults() != outRank)
      continue; // a broadcast row or column
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (!type)
      continue;
    bytes += llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

/// A dual GEMM (isDualGemm: two contractions of one A, SwiGLU's gate and
/// up projections) holds two accumulators per consumer thread and streams
/// two B boxes per k step: `bOperands` = 2.
FailureOr<tile::LoweringConfigAttr>
configureWgmma(linalg::GenericOp op, int64_t batch, int64_t m, int64_t n,
               int64_t epilogueBytes, const StrategyOptions &options,
               int64_t bOperands = 1) {
  struct Choice {
    int64_t blockM, blockN, warps;
    double efficiency;
  };
  bool copies = !llvm::all_of(op.getDpsInputs(), wgmmaReadsThroughTma);
  // The kernel's clusters need TMA operands and a static batch and M (and
  // are not built for dual GEMMs).
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  bool staticM = llvm::none_of(ArrayRef(loops).drop_back(2), ShapedType::isDynamic);
  bool clusterable = !copies && staticM && bOperands == 1;
  const Choice choices[] = {
      {128, 256, 12, 1.0},
      {128, 128, 12, 0.85},
      {64, 128, 8, clusterable && m > 64 ? kClusteredNarrowEfficiency : 0.4}};
  const Choice *best = nullptr;
  double bestCost = 0;
  // Copies along K: 4 per k step for each 128 rows of the block (ptxas
  // spilled the producer's addresses of 12 a step, a 128 x 256 NT block).
  bool alongK = wgmmaCopiesAlongK(op);
  int64_t budget =
      kEpilogueRegisters -
      (alongK ? kCopyingAlongKRegisters
              : copies ? kCopyingProducerRegisters : 0);
  auto tilesOf = [&](const Choice &choice) {
    return batch * llvm::divideCeil(m, choice.blockM) *
           llvm::divideCeil(n, choice.blockN);
  };
  for (const Choice &choice : choices) {
    if (alongK && choice.blockN > 128)
      continue;
    // 128-row blocks for more than 64 rows; 64-row ones (one consumer)
    // for at most 64, or in clusters.
    bool narrowInClusters = choice.blockM == 64 && clusterable && m > 64;
    if ((choice.blockN > 64 && n <= 64) ||
        ((choice.blockM == 128) != (m > 64) && !narrowInClusters))
      continue;
    // Accumulator floats per consumer thread (64 rows per warpgroup of 128
    // threads), and the epilogue's tiles beside them.
    int64_t accumulator = bOperands * 64 * choice.blockN / 128;
    int64_t registers = accumulator + accumulator * epilogueBytes / 4;
    if ((epilogueBytes || bOperands > 1) && registers > budget)
      continue;
    double rounds = double(llvm::divideCeil(tilesOf(choice), kHopperSMs));
    double cost = rounds * double(choice.blockM * choice.blockN) /
                  choice.efficiency;
    if (!best || cost < bestCost) {
      best = &choice;
      bestCost = cost;
    }
  }
  int64_t blockM = best ? best->blockM : 64;
  int64_t blockN = best ? best->blockN : 64;
  unsigned warps = best ? best->warps : 8;
  SmallVector<int64_t, 2> cluster;
  if (best && clusterable && llvm::divideCeil(m, blockM) >= 2 &&
      (blockM * blockN != 128 * 128 || tilesOf(*best) > kHopperSMs))
    cluster = {2, 1};
  // Split-K: every extent static (the workspace is sized by the tiles), TMA
  // operands, one B.
  std::optional<unsigned> splitK;
  int64_t k = loops.back();
  if (best && !copies && bOperands == 1 &&
      llvm::none_of(loops, ShapedType::isDynamic) &&
      tilesOf(*best) <= kSplitKMaxTiles) {
    Choice split = {m > 64 ? 128 : 64, n > 64 ? 128 : 64, m > 64 ? 12u : 8u,
                    0};
    int64_t tiles = tilesOf(split);
    int64_t s = std::min<int64_t>({kSplitKMax, kHopperSMs / tiles,
                          llvm::divideCeil(k, 64) / kSplitKMinSteps});
    if (s >= 2) {
      blockM = split.blockM;
      blockN = split.blockN;
      warps = split.warps;
      cluster.clear();
      splitK = unsigned(s);
    }
  }
  int64_t blockK = 64;
  int64_t stageBytes = (blockM + bOperands * blockN) * blockK * 2;
  // The output block's staging for its TMA store, when it has one.
  auto func = op->getParentOfType<func::FuncOp>();
  int64_t outBytes = func && wgmmaStoresThroughTma(func)
                         ? blockM * wgmmaStagingColumns(blockN) * 2
                         : 0;
  int64_t stages = std::min<int64_t>(
      6, (options.target.getMaxSharedBytes() - 2048 - outBytes) / stageBytes);
  return makeConfig(op, tile::KernelForm::matmul, {blockM, blockN, blockK},
                    warps, stages, tile::MmaKind::wgmma_m64nNk16, {}, {}, {},
                    cluster, splitK);
}

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &options) {
  if (options.target.getMma().empty())
    return nullptr; // the FMA form's
  tile::TargetAttr target = options.target;
  if (isDualGemm(ops, target))
    return ops.front(); // the first contraction carries the plan
  return matchRootWithEpilogue(ops, [target](linalg::GenericOp op) {
    return (isMatmulOp(op) && hasTensorCoreTypes(op)) ||
           (mmaReadsTransposedB(op, target) && !matmulTransposes(op)->first) ||
           fitsWgmma(op, target);
  });
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root, ArrayRef<Operation *> ops,
          const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  if (failed(verifyGemmBody(op)))
    return failure();
  SmallVector<int64_t> ranges = planningSizes(op.getStaticLoopRanges(),
                                                options.dynamicExtent);
  unsigned lead = ranges.size() == 4; // the batch dim
  int64_t m = ranges[lead], n = ranges[lead + 1];
  if (isDualGemm(ops, options.target)) {
    if (failed(verifyGemmBody(cast<linalg::GenericOp>(ops[1]))))
      return failure();
    return configureWgmma(op, lead ? ranges[0] : 1, m, n,
                          epilogueTileBytes(ops), options, /*bOperands=*/2);
  }
  if (fitsWgmma(op, options.target))
    return configureWgmma(op, lead ? ranges[0] : 1, m, n,
                          epilogueTileBytes(ops), options);
  unsigned warps = options.numWarps;
  if (warps < 2 || warps > 16 || !llvm::isPowerOf2_32(warps))
    return op.emitOpError() << "num-warps = " << warps
                            << ": a GEMM program needs 2, 4, 8 or 16 warps";
  // 128 x 128 blocks (num-warps = 4, the default); smaller problems use
  // 64-wide blocks (each warp needs at least one MMA tile per dim). Each
  // warp computes a 64 x 64 sub-block when the problem allows: 4 warps
  // cover 128 x 128, 8 warps 128 x 256 (more reuse of every loaded tile).
  auto blockFor = [](int64_t size) {
    return std::clamp<int64_t>(llvm::PowerOf2Ceil(size), 64, 128);
  };
  int64_t blockM = blockFor(m), blockN = blockFor(n);
  if (warps == 8 && n >= 256)
    blockN = 256;

  // The target's instruction. NVIDIA: mma.sync m16n8k16. AMD CDNA: a
  // 32x32x8 fragment pair is half the operand bytes per flop of a 16x16x16
  // one (half the MFMA issues for the wave's tile), and its B column reads
  // (32 lanes along one row) are free of the LDS bank conflicts of 16x16's
  // (16 lanes each on rows 4 apart): the choice when every wave's share of
  // the block (warps 2 x W/2) is a multiple of 32 in both dims.
  tile::TargetAttr target = options.target;
  bool has32 = target.hasMma(tile::MmaKind::mfma_32x32x8);
  bool has16 = target.hasMma(tile::MmaKind::mfma_16x16x16);
  tile::MmaKind mma = tile::MmaKind::mma_sync_m16n8k16;
  if (has32 || has16) {
    bool fits32 = (blockM / 2) % 32 == 0 && (blockN / (warps / 2)) % 32 == 0;
    unsigned size = 16;
    if (options.mfmaShape == "auto")
      size = fits32 && has32 ? 32 : 16;
    else if (options.mfmaShape == "32" && fits32)
      size = 32;
    else if (options.mfmaShape == "32")
      return op.emitOpError()
             << "mfma-shape = 32: each wave's share of the " << blockM << " x "
             << blockN << " block (" << blockM / 2 << " x "
             << blockN / (warps / 2) << ") is not a multiple of 32";
    else if (options.mfmaShape != "16")
      return op.emitOpError() << "mfma-shape must be auto, 16 or 32, got '"
                              << options.mfmaShape << "'";
    if ((size == 32 && !has32) || (size == 16 && !has16))
      return op.emitOpError()
             << "target " << target.getArch() << " has no v_mfma_f32_"
             << (size == 32 ? "32x32x8" : "16x16x16") << " (#tile.target mma)";
    mma = size == 32 ? tile::MmaKind::mfma_32x32x8
                     : tile::MmaKind::mfma_16x16x16;
  } else if (!target.hasMma(tile::MmaKind::mma_sync_m16n8k16)) {
    return op.emitOpError() << "target " << target.getArch()
                            << " has no tensor-core instruction the GEMM "
                               "schedule emits";
  }
  // A B read as stored [N, K] is staged in rows of BK elements: 64 (128
  // bytes, whole lines) where K and shared memory allow. H200, sm_80 PTX,
  // f16 4096^3: NT 375 TFLOP/s at BK 32, 386 at 64 (NN 388 at 32, 367 at 64).
  int64_t blockK = kBlockK;
  int64_t stagedBytes = (blockM + blockN) * 64 * 2 *
                        std::max<int64_t>(options.numStages, 1);
  if (mma == tile::MmaKind::mma_sync_m16n8k16 &&
      mmaReadsTransposedB(op, target) &&
      cast<ShapedType>(op.getDpsInputs()[1].getType()).getShape().back() >=
          64 &&
      stagedBytes <= int64_t(target.getMaxSharedBytes()))
    blockK = 64;
  return makeConfig(root, tile::KernelForm::matmul, {blockM, blockN, blockK},
                    warps, options.numStages, mma);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kMatmulForm = {
    tile::KernelForm::matmul, match, configure};
