//===- Softmax.cpp - the softmax kernel form ------------------------------===//
//
// linalg.softmax over the last dim: whole rows per program, kept in
// registers (max, exp, sum, divide); rows longer than max-softmax-columns
// are walked in chunks: copied once into shared memory and walked there
// where the target copies asynchronously and the row fits (walk = staged),
// else the online softmax over global memory (walk = looped: a walk for the
// running max and rescaled sum, a walk for the quotients).
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  return ops.size() == 1 && isa<linalg::SoftmaxOp>(ops[0]) ? ops[0] : nullptr;
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root, ArrayRef<Operation *>,
          const StrategyOptions &options) {
  auto op = cast<linalg::SoftmaxOp>(root);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (int64_t(op.getDimension()) != type.getRank() - 1)
    return op.emitOpError("softmax over a dim other than the last is not "
                          "supported by convert-linalg-to-tile");
  int64_t n = type.getShape().back();
  if (ShapedType::isDynamic(n))
    return op.emitOpError("softmax rows of dynamic length are not supported "
                          "by convert-linalg-to-tile: bind the last dim");
  int64_t m = planningProduct(type.getShape().drop_back(),
                              options.dynamicExtent);
  int64_t blockN = llvm::PowerOf2Ceil(n);
  unsigned warpSize = options.target.getWarpSize();
  if (blockN > options.maxSoftmaxColumns) {
    // A one-row block walks from an aligned start (the builder): plan it
    // for the row rounded up to the widest vector.
    unsigned bytes = elementBytes(type.getElementType());
    unsigned widest = std::max(1u, kMaxVectorBytes / bytes);
    auto chunked = [&](int64_t chunk, unsigned warps) {
      BlockSchedule s = chooseRowBlock(m, llvm::alignTo(n, widest), bytes,
                                       warps, warpSize, chunk, chunk);
      if (n % widest == 0 || s.blockM != 1)
        s = chooseRowBlock(m, n, bytes, warps, warpSize, chunk, chunk);
      return s;
    };
    // With asynchronous copies, a row that fits in shared memory is copied
    // there once, every chunk in flight together, and walked there (walk =
    // staged): it crosses global memory once instead of twice. Chunks of
    // 4096 on 16 warps (H200, benchmarks/plan_sweep.py, 4096 x 50257: f16
    // 3661 GB/s against 3024 for [1, 2048] on 8 warps, f32 3722 against
    // 3159; 64 x 50257 f16: 876 against 708).
    if (options.target.getAsyncCopy()) {
      int64_t chunk = std::min<int64_t>(blockN, 4096);
      unsigned warps = llvm::bit_floor(static_cast<uint64_t>(std::clamp<int64_t>(
          chunk / (widest * warpSize), 1, 16)));
      BlockSchedule s = chunked(chunk, warps);
      if (stagedRowBytes(s, n, bytes) <=
          int64_t(options.target.getMaxSharedBytes()))
        return makeConfig(root, tile::KernelForm::softmax, {s.blockM, s.blockN},
                          s.numWarps(), /*numStages=*/{}, /*mma=*/{},
                          tile::RowWalk::staged);
    }
    // Else the online softmax's two walks over global memory (walk =
    // looped), over chunks of 8 elements per thread of 8 warps (H200,
    // 4096 x 50257 f16: [1, 2048] on 8 warps is 1.07x [1, 4096] on 8,
    // which holds twice the running max and sum).
    int64_t chunk = std::min<int64_t>(blockN, 8 * warpSize * 8);
    unsigned warps = llvm::bit_floor(static_cast<uint64_t>(
        std::clamp<int64_t>(chunk / (8 * warpSize), 1, 16)));
    BlockSchedule s = chunked(chunk, warps);
    return makeConfig(root, tile::KernelForm::softmax, {s.blockM, s.blockN},
                      s.numWarps(), /*numStages=*/{}, /*mma=*/{},
                      tile::RowWalk::looped);
  }
  // About 16 elements per thread keep a row in registers without spilling,
  // on at least 128 threads: short rows (1000 f32) share a program, two or
  // more to one (H200, benchmarks/plan_sweep.py: [2, 1024] on 4 warps is
  // 1.10x and 1.07x [1, 1024] on 2 for 4096 and 16384 rows of 1000).
  unsigned warps = std::clamp<int64_t>(blockN / (16 * warpSize), 1, 16);
  warps = std::max(llvm::bit_floor(warps), std::max(1u, 128 / warpSize));
  int64_t perProgram = std::max<int64_t>(blockN, 16 * warpSize * warps);
  BlockSchedule s =
      chooseRowBlock(m, n, elementBytes(type.getElementType()), warps,
                     warpSize, perProgram, blockN);
  return makeConfig(root, tile::KernelForm::softmax, {s.blockM, s.blockN},
                    s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kSoftmaxForm = {
    tile::KernelForm::softmax, match, configure};
