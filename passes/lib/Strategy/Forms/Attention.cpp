//===- Attention.cpp - the fused attention kernel form --------------------===//
//
// softmax((Q Kᵀ) ∘ f) V as one kernel (tcc::matchAttention), FlashAttention-
// 2's schedule: BM query rows of one batch per program, warps along the rows
// only (so each warp owns whole score rows: the row max and sum stay in a
// quad of lanes, and P feeds the second product from registers), a loop over
// BN-key blocks with K and V staged in a ring of num_stages shared slots.
// On sm_90 the same loop runs warp-specialized on wgmma (128 x 128 blocks).
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &options) {
  std::optional<AttentionOps> chain = matchAttentionKernel(ops, options.target);
  return chain ? chain->softmax.getOperation() : nullptr;
}

/// 128 query rows per program (64 for at most 64), 64 keys per step; 32
/// rows per warp for head dims up to 64 (4 warps: each thread holds its 32 x
/// 64 f32 of both the scores and the output accumulator, 128 registers), 16
/// otherwise (8 warps; 4 for 64-row blocks). K and V double-buffered
/// (FlashAttention-2 on sm_80). On AMD the same blocks on wave64 MFMA.
FailureOr<tile::LoweringConfigAttr>
configure(Operation *root, ArrayRef<Operation *> ops,
          const StrategyOptions &options) {
  std::optional<AttentionOps> chain = matchAttentionKernel(ops, options.target);
  if (!chain)
    return root->emitOpError("is not an attention chain the attention form "
                             "builds");
  auto qType = cast<ShapedType>(chain->scores.getDpsInputs()[0].getType());
  auto vType = cast<ShapedType>(chain->output.getDpsInputs()[1].getType());
  int64_t m = qType.getShape()[1], n = chain->scores.getStaticLoopRanges()[2];
  int64_t d = qType.getShape()[2], dv = vType.getShape()[2];
  tile::TargetAttr target = options.target;
  // sm_90: the Hopper schedule (WgmmaAttentionKernel.cpp) where the head
  // dims are whole 128-byte swizzle spans: 128 query rows on two consumer
  // warpgroups (64 rows and one warpgroup for at most 64), 128 keys per step
  // (64 with 64-row blocks: a causal diagonal starts at a whole key block),
  // K and V double-buffered. Each consumer thread holds BM (BN + Dv) / 256
  // accumulator floats: 128 at D = 128.
  if (target.hasMma(tile::MmaKind::wgmma_m64nNk16) && d % 64 == 0 &&
      dv % 64 == 0) {
    int64_t blockM = m <= 64 ? 64 : 128, blockN = blockM;
    unsigned warps = blockM == 64 ? 8 : 12;
    int64_t stages = 2;
    auto bytesFor = [&](int64_t stages) {
      return (blockM * d + stages * blockN * (d + dv)) * 2 + 1024;
    };
    while (stages > 1 && bytesFor(stages) > int64_t(target.getMaxSharedBytes()))
      --stages;
    if (bytesFor(stages) <= int64_t(target.getMaxSharedBytes()))
      return makeConfig(root, tile::KernelForm::attention, {blockM, blockN},
                        warps, stages, tile::MmaKind::wgmma_m64nNk16);
  }
  bool mmaSync = target.hasMma(tile::MmaKind::mma_sync_m16n8k16);
  int64_t blockN = 64;
  // Shared memory a plan takes: Q's block; num_stages slots of K's and V's
  // blocks, and (a partial last block of keys) their synchronous copies; on
  // MFMA, P's staging and the scratch of its layout conversion.
  auto bytesFor = [&](int64_t blockM, int64_t stages) {
    int64_t tail = n % blockN ? blockN * (d + dv) : 0;
    int64_t p = mmaSync ? 0 : 2 * blockM * blockN;
    return (blockM * d + stages * blockN * (d + dv) + tail + p) * 2;
  };
  // 128-row blocks and double-buffered K and V where they fit, then fewer
  // stages, then 64-row blocks, then 32 keys per step (gfx942's 64 KiB for
  // head dim 128).
  int64_t blockM = m <= 64 ? 64 : 128, stages = 2;
  while (bytesFor(blockM, stages) > int64_t(target.getMaxSharedBytes())) {
    if (stages > 1)
      --stages;
    else if (blockM > 64)
      blockM = 64, stages = 2;
    else if (blockN > 32)
      blockN = 32, stages = 2;
    else
      return root->emitOpError()
             << "attention with head dims " << d << " and " << dv
             << " needs " << bytesFor(blockM, stages)
             << " bytes of shared memory for 64 x 32 blocks, more than target "
             << target.getArch() << "'s " << target.getMaxSharedBytes();
  }
  int64_t rowsPerWarp = blockM == 128 && std::max(d, dv) <= 64 ? 32 : 16;
  auto warps = unsigned(blockM / rowsPerWarp);
  // The target's instruction: mma.sync, or on AMD the 32x32x8 MFMA where
  // each wave's rows hold whole 32-row tiles (else 16x16x16).
  tile::MmaKind mma = tile::MmaKind::mma_sync_m16n8k16;
  if (!mmaSync) {
    // (32-wide n tiles of the scores and of the output.)
    bool fits32 = rowsPerWarp % 32 == 0 && dv % 32 == 0 &&
                  target.hasMma(tile::MmaKind::mfma_32x32x8);
    mma = fits32 ? tile::MmaKind::mfma_32x32x8 : tile::MmaKind::mfma_16x16x16;
    if (!target.hasMma(mma))
      return root->emitOpError()
             << "target " << target.getArch()
             << " has no tensor-core instruction the attention kernel emits";
  }
  return makeConfig(root, tile::KernelForm::attention, {blockM, blockN}, warps,
                    stages, mma);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kAttentionForm = {
    tile::KernelForm::attention, match, configure};
