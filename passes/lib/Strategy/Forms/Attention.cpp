//===- Attention.cpp - the fused attention kernel form --------------------===//
//
// softmax((Q Kᵀ) ∘ f) V as one kernel (tcc::matchAttention), FlashAttention-
// 2's schedule: BM query rows of one batch per program, warps along the rows
// only (so each warp owns whole score rows: the row max and sum stay in a
// quad of lanes, and P feeds the second product from registers), a loop over
// BN-key blocks with K and V staged in a ring of num_stages shared slots.
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
/// (FlashAttention-2 on sm_80).
FailureOr<tile::LoweringConfigAttr>
configure(Operation *root, ArrayRef<Operation *> ops,
          const StrategyOptions &options) {
  std::optional<AttentionOps> chain = matchAttentionKernel(ops, options.target);
  if (!chain)
    return root->emitOpError("is not an attention chain the attention form "
                             "builds");
  auto qType = cast<ShapedType>(chain->scores.getDpsInputs()[0].getType());
  auto vType = cast<ShapedType>(chain->output.getDpsInputs()[1].getType());
  int64_t m = qType.getShape()[1];
  int64_t d = qType.getShape()[2], dv = vType.getShape()[2];
  int64_t blockM = m <= 64 ? 64 : 128, blockN = 64;
  int64_t rowsPerWarp = blockM == 128 && std::max(d, dv) <= 64 ? 32 : 16;
  auto warps = unsigned(blockM / rowsPerWarp);
  // Q's block, and num_stages slots of K's and V's blocks.
  auto bytesFor = [&](int64_t stages) {
    return (blockM * d + stages * blockN * (d + dv)) * 2;
  };
  int64_t stages = 2;
  while (stages > 1 && bytesFor(stages) > options.target.getMaxSharedBytes())
    --stages;
  return makeConfig(root, tile::KernelForm::attention, {blockM, blockN}, warps,
                    stages, tile::MmaKind::mma_sync_m16n8k16);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kAttentionForm = {
    tile::KernelForm::attention, match, configure};
