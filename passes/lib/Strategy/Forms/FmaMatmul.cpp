//===- FmaMatmul.cpp - the FMA matmul kernel form -------------------------===//
//
// A (batched) matmul no tensor-core instruction fits (f32 or mixed operand
// types, or a target without one): per-thread FMAs on a blocked
// accumulator, each thread a 4 x 4 patch of C per repetition, K in steps of
// 8. Says so with a remark.
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

constexpr int64_t kFmaBlockK = 8;

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  return matchRootWithEpilogue(ops, isMatmulOp);
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root, ArrayRef<Operation *>,
          const StrategyOptions &options) {
  auto op = cast<linalg::GenericOp>(root);
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1]);
  Type outType = getElementTypeOrSelf(op.getResult(0));
  if (!isFmaElementType(aType) || !isFmaElementType(bType) ||
      !isFmaElementType(outType))
    return op.emitOpError()
           << "matmul of " << aType << " x " << bType << " -> " << outType
           << " is not supported by convert-linalg-to-tile: tensor cores "
              "take f16 or bf16 operands of one type, the FMA fallback f16, "
              "bf16 or f32 operands and results";
  if (failed(verifyGemmBody(op)))
    return failure();
  unsigned warps = options.numWarps;
  if (warps < 1 || warps > 16 || !llvm::isPowerOf2_32(warps))
    return op.emitOpError() << "num-warps = " << warps
                            << ": an FMA GEMM program needs 1, 2, 4, 8 or "
                               "16 warps";
  SmallVector<int64_t> ranges = planningSizes(op.getStaticLoopRanges(),
                                                options.dynamicExtent);
  int64_t m = ranges[ranges.size() - 3];
  // One coverage of the accumulator layout along N; two down the rows once
  // M exceeds one.
  BlockSchedule s = fmaAccumulatorSchedule(warps, options.target.getWarpSize());
  int64_t blockM = m > s.coverM() ? 2 * s.coverM() : s.coverM();
  int64_t blockN = s.blockN;

  InFlightDiagnostic remark = op.emitRemark();
  remark << "matmul of " << aType << " x " << bType << " -> " << outType;
  if (hasTensorCoreTypes(op))
    remark << ": target " << options.target.getArch()
           << " has no tensor-core instruction (#tile.target mma = [])";
  else
    remark << " has no tensor-core mapping (f16 or bf16 operands of one type)";
  remark << ": using the FMA fallback (" << blockM << "x" << blockN << "x"
         << kFmaBlockK << " blocks, f32 accumulation)";
  remark.report();
  return makeConfig(root, tile::KernelForm::fma_matmul,
                    {blockM, blockN, kFmaBlockK}, warps, options.numStages);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kFmaMatmulForm = {
    tile::KernelForm::fma_matmul, match, configure};
