//===- MfmaOpsToGPU.cpp - tensor-core tiles to AMD MFMA -------------------===//
//
// The AMD CDNA path (wave64, v_mfma_f32_16x16x16{f16,bf16_1k} and
// v_mfma_f32_32x32x8{f16,bf16_1k}): shared tiles are written by the
// vendor-neutral StoreToShared pattern (MmaOpsToGPU.cpp); here the operand
// fragments are read from LDS and multiplied.
//
// MfmaShape (LayoutUtils.h) is the instruction geometry: M = N = 16, K = 16
// or M = N = 32, K = 8, G = 64 / M lane groups; lane l holds
//   A: 4 halves A[l % M][4 * (l / M) + 0..3]
//   B: 4 halves B[4 * (l / M) + 0..3][l % M]
//   D: M * M / 64 floats, rows 4 G * j + 4 * (l / M) + 0..3, column l % M
// Waves tile the block (#tile.amd_mfma warpsPerCTA = [WM, WN]): the wave
// (wm, wn) computes the M x M tiles (t, u) at rows t * M * WM + wm * M,
// columns u * M * WN + wn * M. The accumulator is the blocked layout
// sizePerThread [M * M / 64, 1], threadsPerWarp [G, M], warpsPerCTA
// [WM, WN] with rows in runs of 4 (TileLayout::get maps #mfma onto it).
//
// Per-thread fragment order: A (m tile of this wave, k step), B (k step,
// n tile of this wave), 4 halves each.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

/// The instruction of a verified #tile.amd_mfma layout.
MfmaShape shapeOf(tile::AMDMfmaEncodingAttr mfma) {
  return *MfmaShape::get(mfma.getInstrShape());
}

} // namespace

tile::AMDMfmaEncodingAttr mlir::tcc::tile_to_gpu::mfmaParentOf(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  auto op = tile ? dyn_cast_or_null<tile::DotOperandEncodingAttr>(
                       tile.getEncoding())
                 : nullptr;
  return op ? dyn_cast<tile::AMDMfmaEncodingAttr>(op.getParent()) : nullptr;
}

Type mlir::tcc::tile_to_gpu::convertMfmaOperandType(RankedTensorType type) {
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  tile::AMDMfmaEncodingAttr mfma = mfmaParentOf(type);
  ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
  MfmaShape instr = shapeOf(mfma);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  // (tiles of the wave) x (k steps) fragments of kPerLane elements.
  int64_t n = operand.getOpIdx() == 0
                  ? rows / (instr.m * waves[0]) * (cols / instr.k)
                  : (rows / instr.k) * (cols / (instr.m * waves[1]));
  return VectorType::get({n * MfmaShape::kPerLane}, type.getElementType());
}

LogicalResult mlir::tcc::tile_to_gpu::verifyMfmaOperand(Operation *op,
                                                        RankedTensorType type,
                                                        unsigned warpSize) {
  tile::AMDMfmaEncodingAttr mfma = mfmaParentOf(type);
  auto fail = [&](const Twine &why) {
    return op->emitOpError()
           << why
           << " (convert-tile-to-gpu maps AMD tile.dot to v_mfma_f32_16x16x16 "
              "and v_mfma_f32_32x32x8 only)";
  };
  if (warpSize != 64)
    return fail("MFMA tiles need wave64 (warp-size 64)");
  std::optional<MfmaShape> instr = MfmaShape::get(mfma.getInstrShape());
  if (!instr || mfma.getIsTransposed())
    return fail("MFMA layout must be untransposed 16x16 or 32x32");
  Type elem = type.getElementType();
  if (!elem.isF16() && !elem.isBF16())
    return fail("operand element type must be f16 or bf16");
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  bool fits = operand.getOpIdx() == 0
                  ? rows % (instr->m * waves[0]) == 0 && cols % instr->k == 0
                  : rows % instr->k == 0 && cols % (instr->m * waves[1]) == 0;
  if (!fits)
    return fail("operand tile is not a multiple of the MFMA fragment");
  return success();
}

/// LDS -> MFMA operand fragments. A: one 8-byte read per (m tile, k step)
/// (4 consecutive k of one row); B: 4 reads of one column.
Value mlir::tcc::tile_to_gpu::emitMfmaOperandLoad(OpBuilder &b, Location loc,
                                                  RankedTensorType type,
                                                  const SharedTileRef &src,
                                                  VectorType resultType,
                                                  unsigned warpSize) {
  tile::AMDMfmaEncodingAttr mfma = mfmaParentOf(type);
  MfmaShape instr = shapeOf(mfma);
  const int64_t m = instr.m, k = instr.k, n = MfmaShape::kPerLane;
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  Type elem = type.getElementType();
  ThreadIds ids = emitThreadIds(b, loc, warpSize);
  ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
  bool isA = operand.getOpIdx() == 0;
  // Wave ids run along N fastest (the accumulator layout's order).
  Value wave = isA ? arith::DivUIOp::create(b, loc, ids.warp,
                                            cst(b, loc, waves[1]))
                         .getResult()
                   : arith::RemUIOp::create(b, loc, ids.warp,
                                            cst(b, loc, waves[1]))
                         .getResult();
  // The lane's M (A) / N (B) index in the wave's first tile, and its first k.
  Value laneMN = arith::AddIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, ids.lane, cst(b, loc, m)),
      arith::MulIOp::create(b, loc, wave, cst(b, loc, m)));
  Value laneK = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, ids.lane, cst(b, loc, m)),
      cst(b, loc, n));
  auto add = [&](Value v, int64_t c) {
    return arith::AddIOp::create(b, loc, v, cst(b, loc, c)).getResult();
  };
  Value result = arith::ConstantOp::create(b, loc, resultType,
                                           b.getZeroAttr(resultType));
  auto fragType = VectorType::get({n}, elem);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto insert = [&](Value frag, int64_t offset) {
    result = vector::InsertStridedSliceOp::create(
        b, loc, frag, result, ArrayRef<int64_t>{offset},
        ArrayRef<int64_t>{1});
  };
  if (isA) {
    int64_t kSteps = cols / k, mTiles = rows / (m * waves[0]);
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t s = 0; s < kSteps; ++s) {
        Value row = add(laneMN, t * m * waves[0]);
        Value col = add(laneK, s * k);
        insert(vector::LoadOp::create(b, loc, fragType, src.buffer,
                                      src.indices(b, loc, row, col)),
               (t * kSteps + s) * n);
      }
  } else {
    int64_t kSteps = rows / k, nTiles = cols / (m * waves[1]);
    for (int64_t s = 0; s < kSteps; ++s)
      for (int64_t u = 0; u < nTiles; ++u) {
        Value col = add(laneMN, u * m * waves[1]);
        SmallVector<Value> halves;
        for (int64_t i = 0; i < n; ++i)
          halves.push_back(memref::LoadOp::create(
              b, loc, src.buffer,
              src.indices(b, loc, add(laneK, s * k + i), col)));
        insert(vector::FromElementsOp::create(b, loc, fragType, halves),
               (s * nTiles + u) * n);
      }
  }
  return result;
}

namespace {

/// shared -> MFMA operand (value form): LDS reads from the tile's buffer.
struct LoadMfmaFragmentsLowering : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!mfmaParentOf(op.getType()) || !isSharedTile(op.getSrc().getType()))
      return failure();
    SharedTileRef src{
        adaptor.getSrc(),
        {},
        cast<tile::SharedEncodingAttr>(op.getSrc().getType().getEncoding())};
    rewriter.replaceOp(op, emitMfmaOperandLoad(rewriter, op.getLoc(),
                                               op.getType(), src,
                                               vectorTypeOf(op.getType()),
                                               info.warpSize));
    return success();
  }
};

/// tile.dot on MFMA layouts: one v_mfma_f32_16x16x16 / v_mfma_f32_32x32x8
/// per (m tile, n tile, k step) of the wave's share of the block.
struct MfmaDotLowering : public TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType cType = op.getType();
    auto mfma = dyn_cast<tile::AMDMfmaEncodingAttr>(cType.getEncoding());
    if (!mfma)
      return failure();
    Location loc = op.getLoc();
    MfmaShape instr = shapeOf(mfma);
    const int64_t n = MfmaShape::kPerLane, accCount = instr.accPerLane();
    TileLayout acc = layoutOf(cType);
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type elem = aType.getElementType();
    ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
    int64_t mTiles = cType.getDimSize(0) / (instr.m * waves[0]);
    int64_t nTiles = cType.getDimSize(1) / (instr.m * waves[1]);
    int64_t kSteps = aType.getDimSize(1) / instr.k;
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();
    Type f32 = rewriter.getF32Type();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getI32IntegerAttr(0));
    auto fragment = [&](Value from, int64_t offset) -> Value {
      Value frag = vector::ExtractStridedSliceOp::create(
          rewriter, loc, from, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{n},
          ArrayRef<int64_t>{1});
      if (elem.isBF16()) // the bf16_1k instructions take bf16 as i16
        frag = vector::BitCastOp::create(
            rewriter, loc, VectorType::get({n}, rewriter.getI16Type()), frag);
      return frag;
    };
    auto accType = VectorType::get({accCount}, f32);
    auto mfmaOp = [&](ArrayRef<Value> args) -> Value {
      bool bf16 = elem.isBF16();
      if (instr.m == 32)
        return bf16 ? ROCDL::mfma_f32_32x32x8bf16_1k::create(rewriter, loc,
                                                             accType, args)
                          .getResult()
                    : ROCDL::mfma_f32_32x32x8f16::create(rewriter, loc,
                                                         accType, args)
                          .getResult();
      return bf16 ? ROCDL::mfma_f32_16x16x16bf16_1k::create(rewriter, loc,
                                                            accType, args)
                        .getResult()
                  : ROCDL::mfma_f32_16x16x16f16::create(rewriter, loc, accType,
                                                        args)
                        .getResult();
    };
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t u = 0; u < nTiles; ++u) {
        // D element e of tile (t, u) is the thread's row element
        // t * accCount + e of column element u (MfmaShape, TileLayout).
        SmallVector<int64_t> positions;
        for (int64_t e = 0; e < accCount; ++e)
          positions.push_back(acc.linearize({t * accCount + e, u}));
        SmallVector<Value> elems;
        for (int64_t p : positions)
          elems.push_back(vector::ExtractOp::create(rewriter, loc, c, p));
        Value d = vector::FromElementsOp::create(rewriter, loc, accType, elems);
        for (int64_t s = 0; s < kSteps; ++s)
          d = mfmaOp({fragment(a, (t * kSteps + s) * n),
                      fragment(b, (s * nTiles + u) * n), d, zero, zero, zero});
        for (auto [i, p] : llvm::enumerate(positions))
          c = vector::InsertOp::create(
              rewriter, loc,
              vector::ExtractOp::create(rewriter, loc, d, int64_t(i)), c, p);
      }
    rewriter.replaceOp(op, c);
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUMfmaPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<LoadMfmaFragmentsLowering, MfmaDotLowering>(converter, info);
}
