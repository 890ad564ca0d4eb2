//===- RowReduction.cpp - the row-reduction kernel form -------------------===//
//
// A [parallel, reduction] linalg.generic (its elementwise producers fused
// in), optionally followed by an elementwise epilogue over the reduced
// rows: BM rows per program, a loop over BN-wide column chunks.
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

#include "tcc/Analysis/RowSpace.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  Operation *root = matchRootWithEpilogue(ops, isRowReduction);
  // An operand read through a gather (a scalar) is the row program's.
  if (root) {
    auto generic = cast<linalg::GenericOp>(root);
    for (OpOperand *input : generic.getDpsInputOperands())
      if (classifyRowAccess(generic.getMatchingIndexingMap(input)) ==
          RowAccess::Gather)
        return nullptr;
  }
  // An epilogue over the reduced rows only (1-D), reading the reduction
  // once (of one result: an arg reduction's values and indices take none);
  // other groups are row programs.
  if (root && ops.size() == 2 &&
      (root->getNumResults() != 1 || !root->getResult(0).hasOneUse() ||
       cast<linalg::GenericOp>(ops[1]).getNumLoops() != 1))
    return nullptr;
  return root;
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root, ArrayRef<Operation *>,
          const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  SmallVector<int64_t> ranges = planningSizes(op.getStaticLoopRanges(),
                                                options.dynamicExtent);
  // The accumulator has the output's element type; the block is sized for
  // the widest of it and the inputs.
  BlockSchedule s = chooseRowBlock(
      ranges[0], ranges[1], widestElementBytes(op), options.numWarps,
      options.target.getWarpSize(), options.elementsPerProgram);
  return makeConfig(root, tile::KernelForm::row_reduction,
                    {s.blockM, s.blockN}, s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kRowReductionForm = {
    tile::KernelForm::row_reduction, match, configure};
