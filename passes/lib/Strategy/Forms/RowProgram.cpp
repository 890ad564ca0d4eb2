//===- RowProgram.cpp - the row-program kernel form -----------------------===//
//
// Row reductions of one row space and the elementwise ops around them
// (LayerNorm, RMSNorm, log-softmax, ...; tcc/Analysis/RowSpace.h): BM rows
// per program, kept in registers when they fit, walked in chunks otherwise.
// The root is the last row reduction (rowProgramRoot).
//
//===----------------------------------------------------------------------===//
#include "Forms.h"
#include "tcc/Analysis/RowSpace.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

FailureOr<tile::LoweringConfigAttr> mlir::tcc::strategy::configureRows(
    Operation *root, tile::KernelForm form, int64_t m, int64_t n,
    unsigned elementBytes, unsigned readBytes,
    const StrategyOptions &options) {
  unsigned warpSize = options.target.getWarpSize();
  // Whole rows in registers while they fit (as softmax), each thread
  // holding 64 bytes of the rows it reads (16 x f32, 32 x f16: two or more
  // 16-byte vectors in flight per thread; with half that, an f16 LayerNorm
  // of 4096 columns ran 3% slower on the H200: 8 warps of 16 x f16 at 43
  // registers fit 40 warps per SM, 4 warps of 32 fit 32 but each moves
  // twice the bytes); else chunks of 16 elements per thread of up to 8
  // warps. At least 2 warps where the rows give each thread 16 elements
  // that way: one-warp programs stop at the SM's 32 resident programs (f16
  // rows of 1024 on the H200: 1 warp 3622 GB/s, 2 warps 3860).
  int64_t whole = llvm::PowerOf2Ceil(n);
  bool persistent = whole <= options.maxSoftmaxColumns;
  int64_t perThread =
      persistent ? std::max<int64_t>(16, 64 / std::max(1u, readBytes)) : 16;
  int64_t blockN =
      persistent ? whole : std::min<int64_t>(whole, perThread * warpSize * 8);
  int64_t fewest = blockN >= 2 * 16 * int64_t(warpSize) ? 2 : 1;
  unsigned warps = llvm::bit_floor(static_cast<uint64_t>(
      std::clamp<int64_t>(blockN / (perThread * warpSize), fewest, 16)));
  BlockSchedule s = chooseRowBlock(m, n, elementBytes, warps, warpSize,
                                   /*elementsPerProgram=*/blockN, blockN);
  std::optional<tile::RowWalk> walk;
  if (!persistent)
    walk = tile::RowWalk::looped;
  else if (form == tile::KernelForm::row_program)
    walk = tile::RowWalk::persistent;
  return makeConfig(root, form, {s.blockM, s.blockN}, s.numWarps(),
                    /*numStages=*/{}, /*mma=*/{}, walk);
}

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  return isRowProgram(ops) ? rowProgramRoot(ops) : nullptr;
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root,
                                              ArrayRef<Operation *> ops,
                                              const StrategyOptions &options) {
  RowOpInfo space = *classifyRowOp(cast<linalg::GenericOp>(root));
  unsigned bytes = 1, readBytes = 0;
  for (Operation *op : ops) {
    bytes = std::max(bytes, widestElementBytes(op));
    for (Value operand : op->getOperands())
      if (auto f = dyn_cast<FloatType>(getElementTypeOrSelf(operand)))
        readBytes = readBytes ? std::min(readBytes, f.getWidth() / 8)
                              : f.getWidth() / 8;
  }
  return configureRows(root, tile::KernelForm::row_program,
                       planningProduct(space.rows, options.dynamicExtent),
                       space.columns, bytes, readBytes ? readBytes : bytes,
                       options);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kRowProgramForm = {
    tile::KernelForm::row_program, match, configure};
