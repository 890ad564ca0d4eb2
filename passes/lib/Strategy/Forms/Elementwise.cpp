//===- Elementwise.cpp - the elementwise kernel form ----------------------===//
//
// One all-parallel linalg.generic: one [BM, BN] block of the flattest 2-D
// view of its iteration space per program (adjacent dims every operand
// reads together collapsed; a flat stream takes the whole block along its
// row). More than two dim groups (a batch of broadcasting blocks) or
// operands permuted keeping the last dim: [BM, BN] of the last two groups
// (dims), one index of the others per program. Also the block heuristic the row
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
    std::optional<tile::MmaKind> mma, std::optional<tile::RowWalk> walk) {
  auto config = tile::LoweringConfigAttr::getChecked(
      [&] { return root->emitOpError() << "tcc-select-strategy: "; },
      root->getContext(), form, block, numWarps, numStages, mma, walk);
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

FailureOr<tile::LoweringConfigAttr> configure(Operation *root, ArrayRef<Operation *>,
          const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return op.emitOpError("rank-0 kernels are not supported by "
                          "convert-linalg-to-tile");
  unsigned bytes = widestElementBytes(op);
  unsigned numWarps = options.numWarps;
  unsigned warpSize = options.target.getWarpSize();
  auto plan = [&](int64_t m, int64_t n, std::optional<int64_t> maxBlockN) {
    return chooseRowBlock(m, n, bytes, numWarps, warpSize,
                          options.elementsPerProgram, maxBlockN);
  };
  BlockSchedule s;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (isPermutedElementwise(op)) {
    // A block of the last two dims per program (of one index of the
    // others).
    unsigned rank = ranges.size();
    s = plan(ranges[rank - 2], ranges[rank - 1], {});
  } else if (!llvm::all_of(maps, isInOrderProjection)) {
    return op.emitOpError()
           << "elementwise op reads an operand through a permuted or "
              "non-projection map; not supported by convert-linalg-to-tile";
  } else {
    // The flattest view: adjacent dims every operand reads together are
    // one; more than two groups run as a batch of blocks of the last two.
    SmallVector<ReassociationIndices> groups = collapsibleDims(op);
    SmallVector<int64_t> extents;
    for (const ReassociationIndices &group : groups) {
      int64_t size = 1;
      for (int64_t d : group)
        size *= ranges[d];
      extents.push_back(size);
    }
    if (extents.size() == 1)
      extents.insert(extents.begin(), 1);
    int64_t m = extents[extents.size() - 2], n = extents.back();
    // A flat stream (one row) takes the whole block along it.
    std::optional<int64_t> maxBlockN;
    if (groups.size() <= 2 && m == 1)
      maxBlockN = std::max<int64_t>(
          options.elementsPerProgram,
          std::max(1u, kMaxVectorBytes / bytes) * warpSize * numWarps * 2);
    s = plan(m, n, maxBlockN);
  }
  return makeConfig(root, tile::KernelForm::elementwise,
                    {s.blockM, s.blockN}, s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kElementwiseForm = {
    tile::KernelForm::elementwise, match, configure};
