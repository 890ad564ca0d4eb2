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
    unsigned elementBytes, const StrategyOptions &options) {
  unsigned warpSize = options.target.getWarpSize();
  // Whole rows in registers while they fit (as softmax); else chunks of
  // 16 elements per thread of up to 8 warps.
  int64_t whole = llvm::PowerOf2Ceil(n);
  bool persistent = whole <= options.maxSoftmaxColumns;
  int64_t blockN =
      persistent ? whole : std::min<int64_t>(whole, 16 * warpSize * 8);
  unsigned warps = llvm::bit_floor(static_cast<uint64_t>(
      std::clamp<int64_t>(blockN / (16 * warpSize), 1, 16)));
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
  unsigned bytes = 1;
  for (Operation *op : ops)
    bytes = std::max(bytes, widestElementBytes(op));
  return configureRows(root, tile::KernelForm::row_program, space.numRows(),
                       space.columns, bytes, options);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kRowProgramForm = {
    tile::KernelForm::row_program, match, configure};
