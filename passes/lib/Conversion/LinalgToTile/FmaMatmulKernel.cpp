//===- FmaMatmulKernel.cpp - GEMM without tensor cores (FMA fallback) -----===//
//
// A matmul generic whose operand types have no tensor-core mapping (f32,
// mixed f16/bf16/f32 operands), or on a target without tensor cores, becomes
// a block-tiled tile program on blocked layouts (tcc-select-strategy says so
// with a remark and picks the block: Strategy/Forms/FmaMatmul.cpp):
//
//   each program owns a BM x BN block of C; the K loop loads the BM x BK
//   slice of A and the BK x BN slice of B, stages them through row-major
//   shared memory (f16 / bf16 operands of a mixed pair widened to f32
//   first) and multiplies with tile.dot on a #tile.blocked accumulator
//   whose operands are #tile.dot_operand<{parent = #blocked, kWidth = 0}>
//   (convert-tile-to-gpu: per-thread FMAs, FmaDotToGPU.cpp); an elementwise
//   consumer of the product runs on the accumulator before the one store.
//   As for tensor cores, tcc-promote-shared-memory then pipelines the
//   staging (async copies into multi-slot buffers, stages ahead).
//
// The accumulator layout gives each thread a 4 x 4 patch of C per
// repetition (sizePerThread [4, 4]), lanes 4 x 8 (NVIDIA) or 8 x 8 (AMD
// wave64) with the 8 lanes of a row side by side: the 8 lanes of a quarter
// warp read one A row (a broadcast) and 128 contiguous bytes of a B row, so
// the operand reads from shared memory are free of bank conflicts. With 4
// warps (2 x 2) and two repetitions down the rows a program computes 64 x 64
// (NVIDIA; 32 accumulators per thread) or 128 x 64 (AMD) per BK = 8 step.
// Out-of-bounds rows, columns and the K tail load as zeros (memref_load
// masks them), so any M, N, K is exact; the store is masked likewise. A
// batched matmul runs batch x blocks programs on 2-D batch slices.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// Plain blocked layout loading a [rows, cols] operand slice: lanes along
/// the contiguous cols first, warps down the rows (tcc-coalesce picks the
/// vector width: up to 16 bytes, and no more elements per thread than the
/// slice has, so no replicas when the slice covers the program's threads).
tile::BlockedEncodingAttr loadLayout(MLIRContext *ctx, int64_t rows,
                                     int64_t cols, unsigned warpSize,
                                     unsigned warps) {
  return tile::getDistributedBlocked(ctx, {rows, cols}, {1, 1}, {1, 0},
                                     warpSize, warps, {warps, 1});
}

} // namespace

LogicalResult mlir::tcc::buildFmaMatmulKernel(
    linalg::GenericOp op, linalg::GenericOp epilogue,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
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
  FailureOr<GemmProgram> program = GemmProgram::get(op);
  if (failed(program))
    return failure();

  // The accumulator's layout on the config's warps; the block is a whole
  // number of its coverages (the config's [BM, BN], K in BK steps).
  unsigned warps = config.getNumWarps();
  BlockSchedule schedule = fmaAccumulatorSchedule(warps, context.warpSize);
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  int64_t blockK = config.getBlock()[2];
  if (blockM % schedule.blockM || blockN % schedule.blockN)
    return op.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN << ", "
           << blockK << "] is not a multiple of the FMA accumulator layout's "
           << schedule.blockM << " x " << schedule.blockN << " on " << warps
           << " warps";
  schedule.blockM = blockM;
  schedule.blockN = blockN;

  Type f32 = Float32Type::get(ctx);
  auto tileOf = [](ArrayRef<int64_t> shape, Type element, Attribute layout) {
    return RankedTensorType::get(shape, element, layout);
  };
  auto layoutA =
      loadLayout(ctx, blockM, blockK, context.warpSize, warps);
  auto layoutB =
      loadLayout(ctx, blockK, blockN, context.warpSize, warps);
  // Row-major and unswizzled: the FMA reads are conflict-free as they are
  // (tcc-swizzle-shared-memory leaves FMA operands alone).
  auto shared = tile::SharedEncodingAttr::get(ctx, 1, 1, 1, {1, 0});
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, loc, schedule);
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, kb.layout, 0);
  auto operandB = tile::DotOperandEncodingAttr::get(ctx, 1, kb.layout, 0);
  RankedTensorType accType = kb.blockType(f32);

  FailureOr<Value> acc0 =
      program->begin(b, loc, blockM, blockN, inputArgs, accType);
  if (failed(acc0))
    return failure();
  Value m0 = program->m0, n0 = program->n0;
  // Operands enter shared memory (and the dot) as f32.
  auto stage = [&](OpBuilder &lb, Location l, Value slice) -> Value {
    auto type = cast<RankedTensorType>(slice.getType());
    if (!type.getElementType().isF32())
      slice = arith::ExtFOp::create(
          lb, l, tileOf(type.getShape(), f32, type.getEncoding()), slice);
    return tile::ConvertLayoutOp::create(
        lb, l, tileOf(type.getShape(), f32, shared), slice);
  };
  Value product = program->emitMainLoop(
      b, loc, tileOf({blockM, blockK}, aType, layoutA),
      tileOf({blockK, blockN}, bType, layoutB), stage,
      tileOf({blockM, blockK}, f32, operandA),
      tileOf({blockK, blockN}, f32, operandB), *acc0,
      kb.blockType(outType));

  auto loadOnAcc = [&](Value memref, AffineMap map,
                       Type) -> FailureOr<Value> {
    return kb.loadOperand(epilogue, memref, map, m0, n0);
  };
  auto accTile = [&](Type element) { return kb.blockType(element); };
  if (failed(program->finish(b, loc, product, epilogue, inputArgs, outputs,
                             loadOnAcc, accTile, grid)))
    return failure();
  numWarps = warps;
  return success();
}
