//===- Softmax.cpp - the softmax kernel form ------------------------------===//
//
// linalg.softmax over the last dim: whole rows per program, kept in
// registers (max, exp, sum, divide); rows longer than max-softmax-columns
// are walked in chunks (walk = looped: the row program of its
// decomposition, RowProgram.cpp's configureRows).
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
  int64_t m = type.getNumElements() / n;
  int64_t blockN = llvm::PowerOf2Ceil(n);
  if (blockN > options.maxSoftmaxColumns) {
    // Rows longer than registers hold: the row program of the softmax's
    // decomposition (tcc/Transforms/DecomposeSoftmax.h), computed in f32
    // (or the input type when wider), walked in chunks.
    Type element = type.getElementType();
    unsigned bytes = std::max(elementBytes(element), 4u);
    return configureRows(root, tile::KernelForm::softmax, m, n, bytes,
                         options);
  }
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
