//===- Elementwise.cpp - the elementwise kernel form ----------------------===//
//
// One all-parallel linalg.generic: one [BM, BN] block of the flattest 2-D
// view of its iteration space per program (adjacent dims every operand
// reads together collapsed; a flat stream takes the whole block along its
// row). More than two dim groups (a batch of broadcasting blocks) or
// operands permuted keeping the last dim: [BM, BN] of the last two groups
// (dims), one index of the others per program. A broadcast over a last dim
// that is not a multiple of the vector length runs as one flat stream with
// the broadcast operands gathered (view = flat_gather), so that the other
// operands and the results keep 16-byte vectors. Also the block heuristic the row
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
    std::optional<tile::MmaKind> mma, std::optional<tile::RowWalk> walk,
    std::optional<tile::ElementwiseView> view,
    std::optional<tile::ConsumerSchedule> consumers,
    ArrayRef<int64_t> cluster, std::optional<unsigned> splitK) {
  auto config = tile::LoweringConfigAttr::getChecked(
      [&] { return root->emitOpError() << "tcc-select-strategy: "; },
      root->getContext(), form, block, numWarps, numStages, mma, walk, view,
      consumers, cluster, splitK);
  if (!config)
    return failure();
  return config;
}

namespace {

int64_t shapeProduct(ArrayRef<int64_t> ranges) {
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  return total;
}

/// Whether the flat stream with gathered broadcasts (view = flat_gather)
/// beats the flattest 2-D view: the op broadcasts (more than one dim group,
/// rows that are not one flat row), the last group's extent is not a
/// multiple of the widest vector (so the 2-D rows take narrower vectors),
/// at least one input streams (is read through the identity) and the flat
/// index fits the gathers' i32 offsets.
bool prefersFlatGather(linalg::GenericOp op,
                       ArrayRef<ReassociationIndices> groups,
                       ArrayRef<int64_t> ranges, unsigned bytes) {
  if (groups.size() < 2)
    return false;
  int64_t n = 1, rows = 1;
  for (int64_t d : groups.back())
    n *= ranges[d];
  for (const ReassociationIndices &group : groups.drop_back())
    for (int64_t d : group)
      rows *= ranges[d];
  int64_t widest = std::max(1u, kMaxVectorBytes / bytes);
  if (rows == 1 || n % widest == 0)
    return false;
  if (shapeProduct(ranges) > kMaxFlatGatherElements)
    return false;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return op.getMatchingIndexingMap(input).isIdentity();
  });
}

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
  // Dynamic sizes: planned as large ones, never a flat stream (its
  // gathers' index arithmetic needs every extent).
  bool dynamic = llvm::any_of(ranges, ShapedType::isDynamic);
  ranges = planningSizes(ranges, options.dynamicExtent);
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
    int64_t widest = std::max(1u, kMaxVectorBytes / bytes);
    int64_t streamBlockN = std::max<int64_t>(
        options.elementsPerProgram, widest * warpSize * numWarps * 2);
    std::optional<int64_t> maxBlockN;
    if (groups.size() <= 2 && m == 1)
      maxBlockN = streamBlockN;
    if (!dynamic && prefersFlatGather(op, groups, ranges, bytes)) {
      // The stream has no rows to keep aligned: the widest vectors, the
      // tail run in bounds. A short stream takes fewer warps, so that one
      // row of lanes covers the block (flat_gather blocks are one row).
      int64_t streamN = std::max<int64_t>(llvm::alignTo(shapeProduct(ranges),
                                                        widest),
                                          widest * warpSize);
      unsigned warps = numWarps;
      while (warps > 1 &&
             widest * warpSize * warps > int64_t(llvm::PowerOf2Ceil(streamN)))
        warps /= 2;
      // Half the elements per program: every gathered element costs its
      // own index arithmetic and scalar load, and 8 elements per thread
      // keep the registers down (bias + GELU over 8192 x 7777 f32 on the
      // H200: 56 registers at [1, 2048], 32 at [1, 1024]; 3982 -> 4062
      // GB/s).
      int64_t gatherBlockN = std::max<int64_t>(
          options.elementsPerProgram / 2, widest * warpSize * warps);
      s = chooseRowBlock(1, streamN, bytes, warps, warpSize, gatherBlockN,
                         std::min(streamBlockN, gatherBlockN));
      return makeConfig(root, tile::KernelForm::elementwise,
                        {s.blockM, s.blockN}, s.numWarps(), {}, {}, {},
                        tile::ElementwiseView::flat_gather);
    }
    // Rows with an operand broadcast along them (a bias over the last
    // dim) take half the elements per program, as the gathered stream
    // does: 8 elements per thread. bias + ReLU over [32 * 2048, 2048] f32
    // on the H200, alternated with torch.compile: [2, 1024] 257.9 us
    // (1.004x its time), [1, 1024] 256.5 us (1.000x).
    bool broadcastRows =
        groups.size() == 2 && m > 1 &&
        llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
          return !op.getMatchingIndexingMap(input).isIdentity();
        });
    if (broadcastRows)
      s = chooseRowBlock(m, n, bytes, numWarps, warpSize,
                         options.elementsPerProgram / 2, maxBlockN);
    else
      s = plan(m, n, maxBlockN);
  }
  return makeConfig(root, tile::KernelForm::elementwise,
                    {s.blockM, s.blockN}, s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kElementwiseForm = {
    tile::KernelForm::elementwise, match, configure};
