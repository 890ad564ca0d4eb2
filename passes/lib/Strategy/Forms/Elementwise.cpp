//===- Elementwise.cpp - the elementwise kernel form ----------------------===//
//
// One all-parallel linalg.generic: one [BM, BN] block of the (collapsed
// 2-D) iteration space per program. Also the block heuristic the row
// reduction and softmax forms share (chooseRowBlock).
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

BlockSchedule mlir::tcc::strategy::chooseRowBlock(
    int64_t m, int64_t n, unsigned elementBytes, unsigned numWarps,
    unsigned warpSize, int64_t elementsPerProgram,
    std::optional<int64_t> maxBlockN) {
  unsigned widest = std::max(1u, kMaxVectorBytes / elementBytes);
  int64_t cap =
      maxBlockN.value_or(int64_t(widest) * warpSize * numWarps * 2);
  int64_t blockN = std::min<int64_t>(llvm::PowerOf2Ceil(n), cap);
  BlockSchedule s =
      blockedSchedule(1, blockN, n, elementBytes, numWarps, warpSize);
  int64_t rows = std::max<int64_t>(1, elementsPerProgram / blockN);
  rows = std::min<int64_t>(llvm::PowerOf2Ceil(rows), llvm::PowerOf2Ceil(m));
  s.blockM = std::max<int64_t>(rows, s.coverM());
  return s;
}

FailureOr<tile::LoweringConfigAttr> mlir::tcc::strategy::makeConfig(
    Operation *root, tile::KernelForm form, ArrayRef<int64_t> block,
    unsigned numWarps, std::optional<unsigned> numStages,
    std::optional<tile::MmaKind> mma) {
  auto config = tile::LoweringConfigAttr::getChecked(
      [&] { return root->emitOpError() << "tcc-select-strategy: "; },
      root->getContext(), form, block, numWarps, numStages, mma);
  if (!config)
    return failure();
  return config;
}

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  if (ops.size() != 1)
    return nullptr;
  auto generic = dyn_cast<linalg::GenericOp>(ops[0]);
  return generic && isAllParallel(generic) ? generic : nullptr;
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root,
                                              const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return op.emitOpError("rank-0 kernels are not supported by "
                          "convert-linalg-to-tile");
  // Rank != 2 runs on the collapsed [leading, last] view of each operand.
  int64_t n = ranges.back();
  int64_t m = 1;
  for (int64_t size : ArrayRef<int64_t>(ranges).drop_back())
    m *= size;
  BlockSchedule s = chooseRowBlock(
      m, n, widestElementBytes(op), options.numWarps,
      options.target.getWarpSize(), options.elementsPerProgram);
  return makeConfig(root, tile::KernelForm::elementwise,
                    {s.blockM, s.blockN}, s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kElementwiseForm = {
    tile::KernelForm::elementwise, match, configure};
