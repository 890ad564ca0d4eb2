//===- FmaMatmulKernel.cpp - GEMM without tensor cores (FMA fallback) -----===//
//
// A matmul generic whose operand types have no tensor-core mapping (f32,
// mixed f16/bf16/f32 operands) becomes a block-tiled tile program on blocked
// layouts, with a remark saying so:
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

constexpr int64_t kFmaBlockK = 8;

bool isFmaElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

/// `v` with extf / truncf casts peeled off.
Value stripFloatCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the body of `op` is `out + a * b` (a, b the two inputs, possibly
/// cast): the FMA kernel computes exactly that.
bool isMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add =
      stripFloatCasts(yield.getValues()[0]).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value lhs = stripFloatCasts(add.getLhs()), rhs = stripFloatCasts(add.getRhs());
  Value product = lhs == out ? rhs : rhs == out ? lhs : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = stripFloatCasts(mul.getLhs()), y = stripFloatCasts(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

/// The accumulator's blocked layout and block: sizePerThread [4, 4], lanes
/// [warpSize / 8, 8], warps as square as possible; two repetitions down the
/// rows once M exceeds one layout coverage.
BlockSchedule chooseFmaSchedule(int64_t m, unsigned warps,
                                unsigned warpSize) {
  BlockSchedule s;
  s.sptM = 4;
  s.vec = 4;
  s.tpwN = 8;
  s.tpwM = warpSize / s.tpwN;
  s.wpcN = 1u << (llvm::Log2_32(warps) / 2);
  s.wpcM = warps / s.wpcN;
  int64_t coverM = int64_t(s.sptM) * s.tpwM * s.wpcM;
  s.blockM = m > coverM ? 2 * coverM : coverM;
  s.blockN = int64_t(s.vec) * s.tpwN * s.wpcN;
  return s;
}

/// Blocked layout loading a [rows, cols] operand slice: runs of up to 16
/// bytes along the contiguous cols, lanes along the row first, warps down
/// the rows, and no more elements per thread than the slice has (no
/// replicas when the slice covers the program's threads).
tile::BlockedEncodingAttr loadLayout(MLIRContext *ctx, int64_t rows,
                                     int64_t cols, Type element,
                                     unsigned warpSize, unsigned warps) {
  int64_t perThread =
      std::max<int64_t>(1, rows * cols / (int64_t(warpSize) * warps));
  unsigned vec = std::min<int64_t>(
      {16 / int64_t(elementBytes(element)), cols, perThread});
  unsigned tpwN = std::min<int64_t>(warpSize, cols / vec);
  return tile::BlockedEncodingAttr::get(ctx, {1, vec},
                                        {warpSize / tpwN, tpwN}, {warps, 1},
                                        {1, 0});
}

} // namespace

bool mlir::tcc::hasTensorCoreMapping(linalg::GenericOp op) {
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1]);
  return aType == bType && (aType.isF16() || aType.isBF16());
}

LogicalResult mlir::tcc::buildFmaMatmulKernel(
    linalg::GenericOp op, linalg::GenericOp epilogue, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const ScheduleOptions &options, int64_t &grid, unsigned &numWarps) {
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
  if (!isMultiplyAdd(op))
    return op.emitOpError("matmul body is not a multiply-add (out + a * b); "
                          "convert-linalg-to-tile cannot schedule it");
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  if (failed(fill))
    return op.emitOpError("matmul accumulator init is not a constant fill");
  unsigned warps = options.numWarps;
  if (warps < 1 || warps > 16 || !llvm::isPowerOf2_32(warps))
    return op.emitOpError() << "num-warps = " << warps
                            << ": an FMA GEMM program needs 1, 2, 4, 8 or "
                               "16 warps";

  // A batched matmul runs batch x blocks programs, each on its batch's 2-D
  // slices.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool batched = ranges.size() == 4;
  int64_t batch = batched ? ranges[0] : 1;
  int64_t m = ranges[batched], n = ranges[batched + 1], k = ranges[batched + 2];
  BlockSchedule schedule = chooseFmaSchedule(m, warps, options.warpSize);
  int64_t blockM = schedule.blockM, blockN = schedule.blockN;
  op.emitRemark() << "matmul of " << aType << " x " << bType << " -> "
                  << outType
                  << " has no tensor-core mapping (f16 or bf16 operands of "
                     "one type): using the FMA fallback ("
                  << blockM << "x" << blockN << "x" << kFmaBlockK
                  << " blocks, f32 accumulation)";

  Type f32 = Float32Type::get(ctx);
  auto tileOf = [](ArrayRef<int64_t> shape, Type element, Attribute layout) {
    return RankedTensorType::get(shape, element, layout);
  };
  auto layoutA = loadLayout(ctx, blockM, kFmaBlockK, aType, options.warpSize,
                            warps);
  auto layoutB = loadLayout(ctx, kFmaBlockK, blockN, bType, options.warpSize,
                            warps);
  // Row-major and unswizzled: the FMA reads are conflict-free as they are
  // (tcc-swizzle-shared-memory leaves FMA operands alone).
  auto shared = tile::SharedEncodingAttr::get(ctx, 1, 1, 1, {1, 0});
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, loc, schedule);
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, kb.layout, 0);
  auto operandB = tile::DotOperandEncodingAttr::get(ctx, 1, kb.layout, 0);
  RankedTensorType accType = kb.blockType(f32);

  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // Programs run row-block major over the blocks of one batch, batch after
  // batch.
  int64_t blocksM = llvm::divideCeil(m, blockM);
  int64_t blocksN = llvm::divideCeil(n, blockN);
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  Value batchIndex;
  if (batched) {
    batchIndex = arith::DivUIOp::create(b, loc, pid, c(blocksM * blocksN));
    pid = arith::RemUIOp::create(b, loc, pid, c(blocksM * blocksN));
  }
  auto slice = [&](Value memref) {
    return batched ? sliceBatch(b, loc, memref, batchIndex) : memref;
  };
  Value m0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, pid, c(blocksN)), c(blockM));
  Value n0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, pid, c(blocksN)), c(blockN));
  FailureOr<Value> memA = lookupInput(op.getDpsInputs()[0], inputArgs, op);
  FailureOr<Value> memB = lookupInput(op.getDpsInputs()[1], inputArgs, op);
  if (failed(memA) || failed(memB))
    return failure();
  *memA = slice(*memA);
  *memB = slice(*memB);

  auto fillConst = fill->getDefiningOp<arith::ConstantOp>();
  Value init = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(f32, cast<FloatAttr>(fillConst.getValue())
                                      .getValueAsDouble()));
  Value acc0 = tile::SplatOp::create(b, loc, accType, init);
  // Operands enter shared memory (and the dot) as f32.
  auto stage = [&](OpBuilder &lb, Location l, Value slice) {
    auto type = cast<RankedTensorType>(slice.getType());
    if (!type.getElementType().isF32())
      slice = arith::ExtFOp::create(
          lb, l, tileOf(type.getShape(), f32, type.getEncoding()), slice);
    return tile::ConvertLayoutOp::create(
               lb, l, tileOf(type.getShape(), f32, shared), slice)
        .getResult();
  };
  // One K step: load the A and B slices, stage them in shared memory, read
  // the operands back, multiply.
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(k), c(kFmaBlockK), ValueRange{acc0},
      [&](OpBuilder &lb, Location l, Value kk, ValueRange iter) {
        Value a = tile::MemRefLoadOp::create(
            lb, l, tileOf({blockM, kFmaBlockK}, aType, layoutA), *memA,
            ValueRange{m0, kk}, Value(), Value());
        Value bt = tile::MemRefLoadOp::create(
            lb, l, tileOf({kFmaBlockK, blockN}, bType, layoutB), *memB,
            ValueRange{kk, n0}, Value(), Value());
        Value as = stage(lb, l, a), bs = stage(lb, l, bt);
        Value ao = tile::ConvertLayoutOp::create(
            lb, l, tileOf({blockM, kFmaBlockK}, f32, operandA), as);
        Value bo = tile::ConvertLayoutOp::create(
            lb, l, tileOf({kFmaBlockK, blockN}, f32, operandB), bs);
        Value d = tile::DotOp::create(lb, l, accType, ao, bo, iter[0]);
        scf::YieldOp::create(lb, l, ValueRange{d});
      });
  Value product = loop.getResult(0);
  if (outType != f32)
    product = arith::TruncFOp::create(b, loc, kb.blockType(outType), product);

  // The epilogue runs on the accumulator's layout: no data movement.
  TileKernelBuilder::TileResults results{{op.getResult(0), product}};
  Operation *producer = op;
  if (epilogue) {
    auto loadInput = [&](Value memref, AffineMap map,
                         Type) -> FailureOr<Value> {
      if (batched) {
        bool perBatch = false;
        FailureOr<AffineMap> sliceMap =
            unbatchEpilogueMap(epilogue, map, perBatch);
        if (failed(sliceMap))
          return failure();
        map = *sliceMap;
        if (perBatch)
          memref = slice(memref);
      }
      return kb.loadOperand(epilogue, memref, map, m0, n0);
    };
    auto tileType = [&](Type element) { return kb.blockType(element); };
    FailureOr<TileKernelBuilder::TileResults> applied =
        kb.applyEpilogue(op, product, epilogue, inputArgs, loadInput,
                         tileType);
    if (failed(applied))
      return failure();
    results = *applied;
    producer = epilogue;
  }
  if (failed(storeResults(b, loc, outputs, results, producer, {m0, n0},
                          batched ? function_ref<Value(Value)>(slice)
                                  : function_ref<Value(Value)>())))
    return failure();
  grid = batch * blocksM * blocksN;
  numWarps = warps;
  return success();
}
