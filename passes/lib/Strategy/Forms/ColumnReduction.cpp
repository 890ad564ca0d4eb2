//===- ColumnReduction.cpp - the column-reduction kernel form -------------===//
//
// A reduction of outer dims ([B, R, N] -> [B, N], tcc/Analysis/ColumnSpace.h)
// and the elementwise ops over its outputs (its epilogue; the reduction is
// the root): one program per batch index and BN columns, walking R in
// BM-row chunks. The batch and the rows may be dynamic (the columns are a
// program's block).
//
//===----------------------------------------------------------------------===//
#include "Forms.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Transforms/Passes.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  return isColumnReductionKernel(ops) ? ops.front() : nullptr;
}

/// BN columns (vector-wide runs, at most one warp's lanes), the rest of the
/// warp and the warps along the rows (warps only where each gets a few rows
/// of every chunk), BM rows per chunk (about 64 bytes of loads in flight
/// per thread).
FailureOr<tile::LoweringConfigAttr> configure(Operation *root,
                                              ArrayRef<Operation *>,
                                              const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  ColumnReductionInfo info = *classifyColumnReduction(op);
  // The vectors are those of the streamed (fully read) operands.
  unsigned bytes = streamedElementBytes(op, info);
  unsigned warpSize = options.target.getWarpSize();
  // Dynamic sizes are planned as dynamic-extent (the batch and the rows).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto planned = [&](unsigned begin, unsigned count) {
    SmallVector<int64_t> extents;
    for (unsigned p = begin; p < begin + count; ++p)
      extents.push_back(ranges[info.order[p]]);
    return planningProduct(extents, options.dynamicExtent);
  };
  int64_t rows = planned(info.numBatchLoops, info.numReducedLoops);
  int64_t cols = info.columns;
  // Dynamic rows are one program's walk. Planned as many, over few column
  // programs, the static twin would have them split over many programs
  // (tcc-split-reduction with its default options: programs at most a
  // quarter of target-programs, at least 4 chunks of min-column-chunk
  // rows), which needs the extent static: refused, so the rows are bound
  // (tcc.jit then specializes) or planned short.
  const TccSplitReductionOptions split;
  const int64_t kSplitRows = 4 * split.minColumnChunk;
  int64_t programs =
      unsplitColumnPrograms(planned(0, info.numBatchLoops), cols, bytes);
  if (ShapedType::isDynamic(info.reduced) && rows >= kSplitRows &&
      programs * 4 <= split.targetPrograms)
    return op.emitOpError()
           << "reduces dynamic rows planned as " << rows << " (dynamic-extent) "
           << "on " << programs << " column programs: its static twin splits "
           << "the rows over many programs (tcc-split-reduction), which a "
           << "dynamic extent cannot; bind the rows (compile a "
           << "specialization) or plan them short (dynamic-extent < "
           << kSplitRows << ")";
  unsigned vec = std::max(1u, kMaxVectorBytes / bytes);
  while (vec > 1 && cols % vec != 0)
    vec /= 2;
  int64_t blockN =
      std::min<int64_t>(llvm::PowerOf2Ceil(cols), int64_t(vec) * warpSize);
  vec = std::min<int64_t>(vec, blockN);
  int64_t lanesDown = warpSize / (blockN / vec);
  int64_t warps = std::clamp<int64_t>(rows / (lanesDown * 4), 1, 8);
  warps = llvm::bit_floor(static_cast<uint64_t>(warps));
  int64_t cover = lanesDown * warps;
  int64_t reps = std::clamp<int64_t>(64 / (int64_t(vec) * bytes), 1, 16);
  reps = std::min<int64_t>(
      reps, std::max<int64_t>(1, llvm::PowerOf2Ceil(rows) / cover));
  int64_t blockM = cover * llvm::bit_floor(static_cast<uint64_t>(reps));
  return makeConfig(root, tile::KernelForm::column_reduction,
                    {blockM, blockN}, warps);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kColumnReductionForm = {
    tile::KernelForm::column_reduction, match, configure};
