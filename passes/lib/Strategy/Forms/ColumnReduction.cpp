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
  unsigned bytes = 1;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs()))
    if (info.inputs[i] == ColumnAccess::Full)
      bytes = std::max(bytes, elementBytes(getElementTypeOrSelf(input)));
  unsigned warpSize = options.target.getWarpSize();
  // Dynamic rows are planned as many (every warp busy, the widest chunk):
  // the plan for the large sizes, where a column reduction's time goes.
  constexpr int64_t kDynamicRowsPlan = 1 << 16;
  int64_t rows = ShapedType::isDynamic(info.reduced) ? kDynamicRowsPlan
                                                     : info.reduced;
  int64_t cols = info.columns;
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
