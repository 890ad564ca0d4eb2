//===- WgmmaOpsToGPU.cpp - warpgroup MMA to wgmma.mma_async ---------------===//
//
// The Hopper (sm_90a) tensor-core path:
//
//   tile.warpgroup_dot  -> wgmma.fence; one wgmma.mma_async m64nNk16 per
//                          (16-deep k step, 64-row m tile of the warpgroup)
//                          with A and B read from shared memory through
//                          matrix descriptors; wgmma.commit_group;
//                          (A from registers, attention's P: the
//                          A-from-registers form, as inline PTX);
//   tile.warpgroup_wait -> wgmma.wait_group N, as inline PTX whose operands
//                          are the accumulator registers (tied in and out),
//                          so no read of them moves above the wait.
//
// The accumulator (#tile.nvidia_mma version 3, warpsPerCTA [W, 1]) is the
// mma.sync accumulator layout on [W, 1] warps (LayoutUtils): warpgroup g
// (warps 4g..4g+3) owns the 64-row m tiles g, g + W/4, ...; in each, warp
// 4g + i holds rows 16 i + lane / 4 (+ 8) and columns 8 j + 2 (lane % 4)
// (+ 1) for every 8-column n tile j, which is wgmma's register order:
// d[4 j + 2 r + c] = (row g8 + 8 r, column 8 j + 2 t + c).
//
// Matrix descriptors (PTX ISA "Matrix Descriptor Format"): start address,
// leading and stride byte offsets (all >> 4) and the 128-byte swizzle mode
// (bits 62-63 = 1). Operand buffers are [chunks, rows, 64] 16-bit tiles in
// that swizzle (what TMA writes). K-major (A [M, K], B [N, K] in memory):
// rows are M or N, 8-row core groups 1024 bytes apart (SBO), a k step moves
// the start 32 bytes along the row, a new chunk every 64 k. MN-major (B
// [K, N] in memory, `b_mn_major`; A [K, M], `a_mn_major`): rows are K, a k
// step moves the start 16 rows (2048 bytes), the 64-wide MN chunks are
// LBO = rows * 128 bytes apart and 8-row K groups SBO = 1024 bytes apart.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

constexpr int64_t kSwizzleBytes = 128; // one row of a chunk
constexpr int64_t kCoreGroupBytes = 8 * kSwizzleBytes;

/// The geometry of one wgmma accumulator tile.
struct WgmmaShape {
  int64_t blockM, blockN, warps, groups, mTiles;
  explicit WgmmaShape(RankedTensorType acc) {
    auto mma = cast<tile::NvidiaMmaEncodingAttr>(acc.getEncoding());
    blockM = acc.getDimSize(0);
    blockN = acc.getDimSize(1);
    warps = mma.getWarpsPerCTA()[0];
    groups = warps / 4;
    mTiles = blockM / (64 * groups);
  }
  /// Position in the thread's accumulator vector of wgmma register `j` of
  /// this warpgroup's m tile `t`.
  int64_t position(const TileLayout &layout, int64_t t, int64_t j) const {
    int64_t n = j / 4, r = (j % 4) / 2, c = j % 2;
    return layout.linearize({2 * t + r, 2 * n + c});
  }
};

Type accStructType(MLIRContext *ctx, int64_t blockN) {
  return LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(blockN / 2, Float32Type::get(ctx)));
}

/// The per-m-tile register structs of accumulator vector `acc`.
SmallVector<Value> toStructs(OpBuilder &b, Location loc, Value acc,
                             const WgmmaShape &shape,
                             const TileLayout &layout) {
  Type type = accStructType(b.getContext(), shape.blockN);
  SmallVector<Value> structs;
  for (int64_t t = 0; t < shape.mTiles; ++t) {
    Value s = LLVM::UndefOp::create(b, loc, type);
    for (int64_t j = 0; j < shape.blockN / 2; ++j) {
      Value v = vector::ExtractOp::create(b, loc, acc,
                                          shape.position(layout, t, j));
      s = LLVM::InsertValueOp::create(b, loc, s, v, j);
    }
    structs.push_back(s);
  }
  return structs;
}

Value fromStructs(OpBuilder &b, Location loc, ArrayRef<Value> structs,
                  Value acc, const WgmmaShape &shape,
                  const TileLayout &layout) {
  for (auto [t, s] : llvm::enumerate(structs))
    for (int64_t j = 0; j < shape.blockN / 2; ++j) {
      Value v = LLVM::ExtractValueOp::create(b, loc, s, j);
      acc = vector::InsertOp::create(b, loc, v, acc,
                                     shape.position(layout, int64_t(t), j));
    }
  return acc;
}

/// A 128-byte-swizzle matrix descriptor at 32-bit shared address `addr`.
Value descriptor(OpBuilder &b, Location loc, Value addr, int64_t lbo,
                 int64_t sbo) {
  auto c64 = [&](uint64_t v) {
    return arith::ConstantIntOp::create(b, loc, int64_t(v), 64);
  };
  uint64_t fixed = (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
                   (uint64_t((sbo >> 4) & 0x3FFF) << 32) | (uint64_t(1) << 62);
  Value start = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc,
                             arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                                    addr),
                             c64(4)),
      c64(0x3FFF));
  return arith::OrIOp::create(b, loc, start, c64(fixed));
}

/// The B descriptor of k step `s`: the whole [16, BN] k slice of slot
/// address `bBase` (see the file comment for the two layouts).
Value bDescriptor(OpBuilder &b, Location loc, Value bBase, int64_t s,
                  int64_t bRows, bool bMn) {
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  if (bMn)
    return descriptor(b, loc,
                      arith::AddIOp::create(b, loc, bBase,
                                            c32(s * 16 * kSwizzleBytes)),
                      bRows * kSwizzleBytes, kCoreGroupBytes);
  return descriptor(
      b, loc,
      arith::AddIOp::create(
          b, loc, bBase,
          c32((s / 4) * bRows * kSwizzleBytes + (s % 4) * 32)),
      /*lbo=*/16 /* unused by swizzled K-major layouts */, kCoreGroupBytes);
}

/// tile.warpgroup_dot with A in registers (a #tile.dot_operand<{opIdx = 0}>
/// tile of the accumulator's #mma): `wgmma.mma_async ... d, {a0..a3},
/// b-desc, 1, 1, 1, tnspB` as inline PTX (the NVVM op takes descriptors
/// only). Each warp's A fragment is mma.sync's m16k16 one on its 16 rows
/// (PTX ISA "Register Fragments" for wgmma .m64nNk16 A), so the operand's
/// registers are read as DotLowering reads them: k step s of m tile t is
/// elements (t * kSteps + s) * 8 .. + 7, paired into four b32.
LogicalResult lowerRegisterA(tile::WarpGroupDotOp op,
                             tile::WarpGroupDotOp::Adaptor adaptor,
                             const TileLayout &layout,
                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto accType = cast<RankedTensorType>(op.getAcc().getType());
  WgmmaShape shape(accType);
  auto aType = cast<RankedTensorType>(op.getA().getType());
  tile::SharedBufferType bType = op.getB().getType();
  bool bMn = op.getBMnMajor();
  int64_t bRows = bType.getTileShape()[1];
  int64_t kSteps = aType.getDimSize(1) / 16;
  Type elem = aType.getElementType();
  Type i32 = rewriter.getI32Type();
  Value bBase = emitSlotChunkAddress(rewriter, loc, bType, adaptor.getB(),
                                     adaptor.getBSlot(), cst(rewriter, loc, 0));
  Value a = adaptor.getA(), acc = adaptor.getAcc();
  int64_t count = shape.blockN / 2; // accumulator registers per m tile
  // The accumulator registers of each m tile, in wgmma's order.
  SmallVector<SmallVector<Value>> d(shape.mTiles);
  for (int64_t t = 0; t < shape.mTiles; ++t)
    for (int64_t j = 0; j < count; ++j)
      d[t].push_back(vector::ExtractOp::create(
          rewriter, loc, acc, shape.position(layout, t, j)));
  std::string type = elem.isBF16() ? "bf16" : "f16";
  std::string text = "wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(shape.blockN) + "k16.f32." + type + "." +
                     type + " {";
  for (int64_t j = 0; j < count; ++j)
    text += (j ? ", $" : "$") + std::to_string(j);
  text += "}, {";
  for (int64_t r = 0; r < 4; ++r)
    text += (r ? ", $" : "$") + std::to_string(2 * count + r);
  text += "}, $" + std::to_string(2 * count + 4) + ", 1, 1, 1, " +
          (bMn ? "1" : "0") + ";";
  std::string constraints;
  for (int64_t j = 0; j < count; ++j)
    constraints += (j ? ",=f" : "=f");
  for (int64_t j = 0; j < count; ++j)
    constraints += "," + std::to_string(j);
  constraints += ",r,r,r,r,l";
  auto structType = accStructType(ctx, shape.blockN);
  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  for (int64_t s = 0; s < kSteps; ++s) {
    Value descB = bDescriptor(rewriter, loc, bBase, s, bRows, bMn);
    for (int64_t t = 0; t < shape.mTiles; ++t) {
      SmallVector<Value> operands(d[t]);
      for (int64_t r = 0; r < 4; ++r) {
        Value pair = vector::ExtractStridedSliceOp::create(
            rewriter, loc, a,
            ArrayRef<int64_t>{(t * kSteps + s) * 8 + 2 * r},
            ArrayRef<int64_t>{2}, ArrayRef<int64_t>{1});
        operands.push_back(vector::ExtractOp::create(
            rewriter, loc,
            vector::BitCastOp::create(rewriter, loc, VectorType::get({1}, i32),
                                      pair),
            0));
      }
      operands.push_back(descB);
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange{structType}, operands, text, constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      for (int64_t j = 0; j < count; ++j)
        d[t][j] = LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getRes(), j);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  for (int64_t t = 0; t < shape.mTiles; ++t)
    for (int64_t j = 0; j < count; ++j)
      acc = vector::InsertOp::create(rewriter, loc, d[t][j], acc,
                                     shape.position(layout, t, j));
  rewriter.replaceOp(op, acc);
  return success();
}

struct WarpGroupDotLowering : public TilePattern<tile::WarpGroupDotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.hasRegisterA())
      return lowerRegisterA(
          op, adaptor,
          layoutOf(cast<RankedTensorType>(op.getAcc().getType())), rewriter);
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto accType = cast<RankedTensorType>(op.getAcc().getType());
    WgmmaShape shape(accType);
    TileLayout layout = layoutOf(accType);
    auto aType = cast<tile::SharedBufferType>(op.getA().getType());
    tile::SharedBufferType bType = op.getB().getType();
    bool aMn = op.getAMnMajor(), bMn = op.getBMnMajor();
    int64_t aRows = aType.getTileShape()[1], bRows = bType.getTileShape()[1];
    int64_t blockK = aMn ? aRows : aType.getTileShape()[0] * 64;
    auto c32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 32);
    };
    Value zero = cst(rewriter, loc, 0);
    Value aBase = emitSlotChunkAddress(rewriter, loc, aType, adaptor.getA(),
                                       adaptor.getASlot(), zero);
    Value bBase = emitSlotChunkAddress(rewriter, loc, bType, adaptor.getB(),
                                       adaptor.getBSlot(), zero);
    // This thread's warpgroup among the accumulator's.
    Value tid = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI32Type(),
        gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x));
    Value group = arith::DivUIOp::create(rewriter, loc, tid, c32(128));
    if (shape.groups == 1)
      group = c32(0);

    SmallVector<Value> structs =
        toStructs(rewriter, loc, adaptor.getAcc(), shape, layout);
    Type elem = aType.getElementType();
    NVVM::WGMMATypes ptx =
        elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    auto structType = accStructType(ctx, shape.blockN);
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t s = 0; s < blockK / 16; ++s) {
      Value descB = bDescriptor(rewriter, loc, bBase, s, bRows, bMn);
      for (int64_t t = 0; t < shape.mTiles; ++t) {
        // The 64-row m tile g + groups * t of A.
        Value mTile = arith::AddIOp::create(rewriter, loc, group,
                                            c32(shape.groups * t));
        Value aAddr;
        int64_t aLbo;
        if (aMn) {
          aAddr = arith::AddIOp::create(
              rewriter, loc,
              arith::AddIOp::create(
                  rewriter, loc, aBase,
                  arith::MulIOp::create(rewriter, loc, mTile,
                                        c32(aRows * kSwizzleBytes))),
              c32(s * 16 * kSwizzleBytes));
          aLbo = aRows * kSwizzleBytes;
        } else {
          aAddr = arith::AddIOp::create(
              rewriter, loc,
              arith::AddIOp::create(
                  rewriter, loc, aBase,
                  arith::MulIOp::create(rewriter, loc, mTile,
                                        c32(64 * kSwizzleBytes))),
              c32((s / 4) * aRows * kSwizzleBytes + (s % 4) * 32));
          aLbo = 16;
        }
        Value descA = descriptor(rewriter, loc, aAddr, aLbo, kCoreGroupBytes);
        structs[t] = NVVM::WgmmaMmaAsyncOp::create(
            rewriter, loc, structType, structs[t], descA, descB,
            NVVM::MMAShapeAttr::get(ctx, 64, shape.blockN, 16), ptx, ptx,
            NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            aMn ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            bMn ? NVVM::MMALayout::row : NVVM::MMALayout::col,
            /*satfinite=*/nullptr);
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(op, fromStructs(rewriter, loc, structs,
                                       adaptor.getAcc(), shape, layout));
    return success();
  }
};

struct WarpGroupWaitLowering : public TilePattern<tile::WarpGroupWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::WarpGroupWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // One asm for all of the thread's accumulator registers (in any order:
    // each "=f" output is tied to the same-numbered input).
    Value acc = adaptor.getSrc();
    int64_t count = cast<VectorType>(acc.getType()).getNumElements();
    SmallVector<Value> regs;
    for (int64_t i = 0; i < count; ++i)
      regs.push_back(vector::ExtractOp::create(rewriter, loc, acc, i));
    std::string constraints;
    for (int64_t i = 0; i < count; ++i)
      constraints += (i ? ",=f" : "=f");
    for (int64_t i = 0; i < count; ++i)
      constraints += "," + std::to_string(i);
    // The kept tiles: read by the asm as 32-bit registers (16-bit elements
    // in pairs), so they stay live up to the wait.
    for (Value kept : adaptor.getKept()) {
      auto vector = cast<VectorType>(kept.getType());
      int64_t bits = vector.getNumElements() *
                     vector.getElementType().getIntOrFloatBitWidth();
      if (bits % 32)
        return rewriter.notifyMatchFailure(
            op, "a kept tile that is not whole 32-bit registers");
      Value words = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({bits / 32}, rewriter.getI32Type()),
          kept);
      for (int64_t i = 0; i < bits / 32; ++i) {
        regs.push_back(vector::ExtractOp::create(rewriter, loc, words, i));
        constraints += ",r";
      }
    }
    auto all = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(count, rewriter.getF32Type()));
    std::string text = "wgmma.wait_group.sync.aligned " +
                       std::to_string(op.getPending()) + ";";
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{all}, regs, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    for (int64_t i = 0; i < count; ++i)
      acc = vector::InsertOp::create(
          rewriter, loc,
          LLVM::ExtractValueOp::create(rewriter, loc, asmOp.getRes(), i), acc,
          i);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUWgmmaPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<WarpGroupDotLowering, WarpGroupWaitLowering>(converter, info);
}
