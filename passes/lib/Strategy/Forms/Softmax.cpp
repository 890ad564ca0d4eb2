//===- Softmax.cpp - the softmax kernel form ------------------------------===//
//
// linalg.softmax over the last dim: whole rows per program, kept in
// registers (max, exp, sum, divide).
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

FailureOr<tile::LoweringConfigAttr> configure(Operation *root,
                                              const StrategyOptions &options) {
  auto op = cast<linalg::SoftmaxOp>(root);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (int64_t(op.getDimension()) != type.getRank() - 1)
    return op.emitOpError("softmax over a dim other than the last is not "
                          "supported by convert-linalg-to-tile");
  int64_t n = type.getShape().back();
  int64_t m = type.getNumElements() / n;
  int64_t blockN = llvm::PowerOf2Ceil(n);
  if (blockN > options.maxSoftmaxColumns)
    return op.emitOpError() << "softmax rows of " << n
                            << " elements exceed max-softmax-columns ("
                            << options.maxSoftmaxColumns << ")";
  unsigned warpSize = options.target.getWarpSize();
  // About 16 elements per thread keep a row in registers without spilling.
  unsigned warps = std::clamp<int64_t>(blockN / (16 * warpSize), 1, 16);
  warps = llvm::bit_floor(warps);
  // One row per program, or as many as the warps' layout covers.
  BlockSchedule s =
      chooseRowBlock(m, n, elementBytes(type.getElementType()), warps,
                     warpSize, /*elementsPerProgram=*/blockN, blockN);
  return makeConfig(root, tile::KernelForm::softmax, {s.blockM, s.blockN},
                    s.numWarps());
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kSoftmaxForm = {
    tile::KernelForm::softmax, match, configure};
