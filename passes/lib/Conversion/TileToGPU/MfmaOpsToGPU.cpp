//===- MfmaOpsToGPU.cpp - tensor-core tiles to AMD MFMA -------------------===//
//
// The AMD CDNA path (wave64, v_mfma_f32_16x16x16{f16,bf16}): shared tiles
// are written by the vendor-neutral StoreToShared pattern (MmaOpsToGPU.cpp);
// here the operand fragments are read from LDS and multiplied.
//
// Lane mappings of v_mfma_f32_16x16x16f16 (AMD matrix instruction
// calculator), l = lane in [0, 64):
//   A (16 x 16, M x K): 4 halves A[l % 16][4 * (l / 16) + 0..3]
//   B (16 x 16, K x N): 4 halves B[4 * (l / 16) + 0..3][l % 16]
//   C (16 x 16):        4 floats C[4 * (l / 16) + 0..3][l % 16]
// Waves tile the block (#tile.amd_mfma warpsPerCTA = [WM, WN]); the
// accumulator is the blocked layout sizePerThread [4, 1], threadsPerWarp
// [4, 16], warpsPerCTA [WM, WN] (LayoutUtils maps #mfma onto it).
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

constexpr int64_t kMfma = 16; // M = N = K of v_mfma_f32_16x16x16

int64_t tilesPerWave(int64_t size, unsigned waves) {
  return size / (kMfma * waves);
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
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t n = operand.getOpIdx() == 0
                  ? tilesPerWave(rows, waves[0]) * (cols / kMfma) * 4
                  : (rows / kMfma) * tilesPerWave(cols, waves[1]) * 4;
  return VectorType::get({n}, type.getElementType());
}

LogicalResult mlir::tcc::tile_to_gpu::verifyMfmaOperand(Operation *op,
                                                        RankedTensorType type,
                                                        unsigned warpSize) {
  tile::AMDMfmaEncodingAttr mfma = mfmaParentOf(type);
  auto fail = [&](const Twine &why) {
    return op->emitOpError() << why << " (convert-tile-to-gpu maps AMD "
                                       "tile.dot to v_mfma_f32_16x16x16 only)";
  };
  if (warpSize != 64)
    return fail("MFMA tiles need wave64 (warp-size 64)");
  if (mfma.getInstrShape() != ArrayRef<unsigned>{16, 16} ||
      mfma.getIsTransposed())
    return fail("MFMA layout must be untransposed 16x16");
  Type elem = type.getElementType();
  if (!elem.isF16() && !elem.isBF16())
    return fail("operand element type must be f16 or bf16");
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  bool fits = operand.getOpIdx() == 0
                  ? rows % (kMfma * waves[0]) == 0 && cols % kMfma == 0
                  : rows % kMfma == 0 && cols % (kMfma * waves[1]) == 0;
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
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  Type elem = type.getElementType();
  ThreadIds ids = emitThreadIds(b, loc, warpSize);
  ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
  // Wave ids run along N fastest (the accumulator layout's order).
  Value waveM = arith::DivUIOp::create(b, loc, ids.warp,
                                       cst(b, loc, waves[1]));
  Value waveN = arith::RemUIOp::create(b, loc, ids.warp,
                                       cst(b, loc, waves[1]));
  Value lane16 = arith::RemUIOp::create(b, loc, ids.lane,
                                        cst(b, loc, 16));
  Value quad = arith::MulIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, ids.lane, cst(b, loc, 16)),
      cst(b, loc, 4));
  auto at = [&](Value row, Value col) {
    return src.indices(b, loc, row, col);
  };
  Value result = arith::ConstantOp::create(b, loc, resultType,
                                           b.getZeroAttr(resultType));
  auto fragType = VectorType::get({4}, elem);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto insert = [&](Value frag, int64_t offset) {
    result = vector::InsertStridedSliceOp::create(
        b, loc, frag, result, ArrayRef<int64_t>{offset},
        ArrayRef<int64_t>{1});
  };
  if (operand.getOpIdx() == 0) {
    int64_t kSteps = cols / kMfma, mTiles = tilesPerWave(rows, waves[0]);
    Value waveRow = arith::AddIOp::create(
        b, loc, lane16,
        arith::MulIOp::create(b, loc, waveM, cst(b, loc, kMfma)));
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t s = 0; s < kSteps; ++s) {
        Value row = arith::AddIOp::create(
            b, loc, waveRow,
            cst(b, loc, t * kMfma * waves[0]));
        Value col = arith::AddIOp::create(b, loc, quad,
                                          cst(b, loc, s * kMfma));
        insert(vector::LoadOp::create(b, loc, fragType, src.buffer,
                                      at(row, col)),
               (t * kSteps + s) * 4);
      }
  } else {
    int64_t kSteps = rows / kMfma, nTiles = tilesPerWave(cols, waves[1]);
    Value waveCol = arith::AddIOp::create(
        b, loc, lane16,
        arith::MulIOp::create(b, loc, waveN, cst(b, loc, kMfma)));
    for (int64_t s = 0; s < kSteps; ++s)
      for (int64_t u = 0; u < nTiles; ++u) {
        Value col = arith::AddIOp::create(
            b, loc, waveCol, cst(b, loc, u * kMfma * waves[1]));
        SmallVector<Value> halves;
        for (int64_t i = 0; i < 4; ++i) {
          Value row = arith::AddIOp::create(
              b, loc, quad, cst(b, loc, s * kMfma + i));
          halves.push_back(
              memref::LoadOp::create(b, loc, src.buffer, at(row, col)));
        }
        insert(vector::FromElementsOp::create(b, loc, fragType,
                                              halves),
               (s * nTiles + u) * 4);
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

/// tile.dot on MFMA layouts: v_mfma_f32_16x16x16 per (m tile, n tile, k
/// step) of the wave's share of the block.
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
    TileLayout acc = layoutOf(cType);
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type elem = aType.getElementType();
    ArrayRef<unsigned> waves = mfma.getWarpsPerCTA();
    int64_t mTiles = tilesPerWave(cType.getDimSize(0), waves[0]);
    int64_t nTiles = tilesPerWave(cType.getDimSize(1), waves[1]);
    int64_t kSteps = aType.getDimSize(1) / kMfma;
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();
    Type f32 = rewriter.getF32Type();
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getI32IntegerAttr(0));
    auto fragment = [&](Value from, int64_t offset) -> Value {
      Value frag = vector::ExtractStridedSliceOp::create(
          rewriter, loc, from, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{4},
          ArrayRef<int64_t>{1});
      if (elem.isBF16()) // the bf16_1k instruction takes bf16 as i16
        frag = vector::BitCastOp::create(
            rewriter, loc, VectorType::get({4}, rewriter.getI16Type()), frag);
      return frag;
    };
    auto accType = VectorType::get({4}, f32);
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t u = 0; u < nTiles; ++u) {
        // C rows 4 * (l / 16) + 0..3 of m tile t, column l % 16 of n tile u.
        SmallVector<int64_t> positions;
        for (int64_t i = 0; i < 4; ++i)
          positions.push_back(acc.linearize({4 * t + i, u}));
        SmallVector<Value> elems;
        for (int64_t p : positions)
          elems.push_back(vector::ExtractOp::create(rewriter, loc, c, p));
        Value d = vector::FromElementsOp::create(rewriter, loc, accType, elems);
        for (int64_t s = 0; s < kSteps; ++s) {
          SmallVector<Value> args = {fragment(a, (t * kSteps + s) * 4),
                                     fragment(b, (s * nTiles + u) * 4), d, zero,
                                     zero, zero};
          d = elem.isBF16()
                  ? ROCDL::mfma_f32_16x16x16bf16_1k::create(rewriter, loc,
                                                            accType, args)
                        .getResult()
                  : ROCDL::mfma_f32_16x16x16f16::create(rewriter, loc, accType,
                                                        args)
                        .getResult();
        }
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
