//===- MmaOpsToGPU.cpp - tensor-core tiles to mma.sync --------------------===//
//
// The NVIDIA mma.sync m16n8k16 path (f16 / bf16 operands, f32 accumulator):
//
//   blocked --convert_layout--> #tile.shared : each thread stores its 16-byte
//       runs into a workgroup buffer at XOR-swizzled columns (the layout's
//       vec / perPhase / maxPhase), between barriers;
//   #tile.shared --convert_layout--> #tile.dot_operand : ldmatrix (x4; .trans
//       for B stored K x N, none for B in a column-major tile, stored
//       N x K) reads the fragments, applying the same swizzle;
//   tile.dot : one nvvm.mma.sync per (16-row m tile, 8-column n tile,
//       16-deep k step) of the warp's share of the block;
//   #tile.nvidia_mma (f16 / bf16) --convert_layout--> its own
//       #tile.dot_operand<0> (warps [W, 1]): a register permutation (P of
//       attention as the second product's A operand).
//
// Warps tile the block (#tile.nvidia_mma warpsPerCTA = [WM, WN]): warp
// (wm, wn) owns the 16-row m tiles wm, wm + WM, ... and the 8-column n tiles
// wn, wn + WN, .... The accumulator is then a blocked layout with strided
// rows (sizePerThread [2, 2] with rows 8 apart, threadsPerWarp [8, 4],
// warpsPerCTA [WM, WN]; LayoutUtils maps #mma onto it), so epilogues,
// slices and stores of the accumulator go through the generic machinery. Lane
// mappings are the PTX ISA's "Matrix Fragments for mma.m16n8k16":
//   A: a0a1 (g, 2t+{0,1}), a2a3 (g+8, ..), a4a5 (g, 2t+8+..), a6a7 (g+8, ..)
//   B: b0b1 (k = 2t+{0,1}, n = g), b2b3 (k = 2t+8+{0,1}, n = g)
//   C: c0c1 (g, 2t+{0,1}), c2c3 (g+8, 2t+{0,1});  g = lane / 4, t = lane % 4
//
// Per-thread fragment order (the converted dot-operand vectors):
//   A [BM, BK]: (m tile of this warp, k step) row-major, 8 halves each;
//   B [BK, BN]: (k step, n tile of this warp), 4 halves each (b0..b3).
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;

tile::NvidiaMmaEncodingAttr mmaParentOf(RankedTensorType type) {
  auto op = dyn_cast_or_null<tile::DotOperandEncodingAttr>(type.getEncoding());
  return op ? dyn_cast<tile::NvidiaMmaEncodingAttr>(op.getParent()) : nullptr;
}

int64_t warpsAlongM(tile::NvidiaMmaEncodingAttr mma) {
  return mma.getWarpsPerCTA()[0];
}
int64_t warpsAlongN(tile::NvidiaMmaEncodingAttr mma) {
  return mma.getWarpsPerCTA()[1];
}

/// m tiles (16 rows each) of a [BM, ..] block that one warp owns.
int64_t mTilesPerWarp(int64_t blockM, tile::NvidiaMmaEncodingAttr mma) {
  return blockM / (kMmaM * warpsAlongM(mma));
}

/// n tiles (8 columns each) of a [.., BN] block that one warp owns.
int64_t nTilesPerWarp(int64_t blockN, tile::NvidiaMmaEncodingAttr mma) {
  return blockN / (kMmaN * warpsAlongN(mma));
}

} // namespace

bool mlir::tcc::tile_to_gpu::isAccumulatorToOperandA(RankedTensorType src,
                                                     RankedTensorType dst) {
  auto mma = dyn_cast_or_null<tile::NvidiaMmaEncodingAttr>(src.getEncoding());
  auto operand =
      dyn_cast_or_null<tile::DotOperandEncodingAttr>(dst.getEncoding());
  return mma && operand && operand.getOpIdx() == 0 &&
         operand.getParent() == mma;
}

/// Physical column of logical (row, col) in a swizzled shared tile:
/// the col's vec-group index XOR ((row / perPhase) % maxPhase).
Value mlir::tcc::tile_to_gpu::emitSwizzledColumn(OpBuilder &b, Location loc,
                                                tile::SharedEncodingAttr s,
                                                Value row, Value col) {
  if (s.getMaxPhase() == 1)
    return col;
  Value vec = cst(b, loc, s.getVec());
  Value phase = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, row, cst(b, loc, s.getPerPhase())),
      cst(b, loc, s.getMaxPhase()));
  Value group = arith::DivUIOp::create(b, loc, col, vec);
  Value inGroup = arith::RemUIOp::create(b, loc, col, vec);
  Value swizzled = arith::XOrIOp::create(b, loc, group, phase);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, swizzled, vec), inGroup);
}


bool mlir::tcc::tile_to_gpu::isSharedTile(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile && isa_and_nonnull<tile::SharedEncodingAttr>(tile.getEncoding());
}

bool mlir::tcc::tile_to_gpu::isDotOperandTile(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile &&
         isa_and_nonnull<tile::DotOperandEncodingAttr>(tile.getEncoding());
}

SmallVector<int64_t>
mlir::tcc::tile_to_gpu::physicalSharedShape(ArrayRef<int64_t> shape,
                                            tile::SharedEncodingAttr shared) {
  SmallVector<int64_t> physical(shape);
  if (shared && isColumnMajor(shared) && physical.size() >= 2)
    std::swap(physical[physical.size() - 1], physical[physical.size() - 2]);
  return physical;
}

Type mlir::tcc::tile_to_gpu::convertMmaTileType(RankedTensorType type,
                                                unsigned warpSize) {
  MLIRContext *ctx = type.getContext();
  if (isSharedTile(type)) {
    auto space = gpu::AddressSpaceAttr::get(
        ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
    return MemRefType::get(
        physicalSharedShape(type.getShape(),
                            cast<tile::SharedEncodingAttr>(type.getEncoding())),
        type.getElementType(), MemRefLayoutAttrInterface(), space);
  }
  if (type.getRank() != 2)
    return nullptr;
  if (mfmaParentOf(type))
    return convertMfmaOperandType(type);
  if (fmaParentOf(type))
    return convertFmaOperandType(type, warpSize);
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  tile::NvidiaMmaEncodingAttr mma = mmaParentOf(type);
  if (!mma)
    return nullptr;
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t n = operand.getOpIdx() == 0
                  ? mTilesPerWarp(rows, mma) * (cols / kMmaK) * 8
                  : (rows / kMmaK) * nTilesPerWarp(cols, mma) * 4;
  return VectorType::get({n}, type.getElementType());
}

static LogicalResult mmaFailure(Operation *op, const Twine &why) {
  return op->emitOpError() << why << " (convert-tile-to-gpu maps "
                                     "#tile.nvidia_mma tile.dot to mma.sync "
                                     "m16n8k16 only so far)";
}

/// shared -> mma.sync operand: what ldmatrix can read.
static LogicalResult verifyOperandRead(Operation *op, RankedTensorType src,
                                       RankedTensorType dst) {
  auto fail = [&](const Twine &why) { return mmaFailure(op, why); };
  if (!isSharedTile(src) || !isDotOperandTile(dst) || !mmaParentOf(dst))
    return fail("shared tiles leave shared memory only as dot operands");
  if (!dst.getElementType().isF16() && !dst.getElementType().isBF16())
    return fail("operand element type must be f16 or bf16");
  if (mmaParentOf(dst).getVersion() != 2)
    return fail("wgmma operands (mma version 3) are not supported yet");
  // ldmatrix reads 16-byte rows: they must stay inside one swizzle group.
  auto shared = cast<tile::SharedEncodingAttr>(src.getEncoding());
  if (isColumnMajor(shared) &&
      cast<tile::DotOperandEncodingAttr>(dst.getEncoding()).getOpIdx() != 1)
    return fail("a column-major shared tile (order = [0, 1]) is read as the "
                "B operand only");
  if (shared.getMaxPhase() != 1 && shared.getVec() % 8 != 0)
    return fail("swizzle vec must be a multiple of 8 for ldmatrix reads");
  int64_t rows = dst.getDimSize(0), cols = dst.getDimSize(1);
  auto operand = cast<tile::DotOperandEncodingAttr>(dst.getEncoding());
  if (operand.getOpIdx() == 0 ? (rows % (kMmaM * warpsAlongM(mmaParentOf(dst))) ||
                                  cols % kMmaK)
                              : (rows % kMmaK ||
                                 cols % (kMmaN * warpsAlongN(mmaParentOf(dst)))))
    return fail("operand tile is not a multiple of the mma fragment");
  return success();
}

LogicalResult mlir::tcc::tile_to_gpu::verifyMmaOp(Operation *op,
                                                  unsigned warpSize) {
  // Column-major shared tiles are read as mma.sync operands and MFMA B
  // operands only (the FMA and MFMA A readers index row-major tiles; the
  // MFMA B reader reads a column's k through the tile's indices).
  tile::SharedEncodingAttr readShared;
  Type readInto;
  if (auto load = dyn_cast<tile::SharedLoadOp>(op)) {
    readShared = load.getSrc().getType().getEncoding();
    readInto = load.getType();
  } else if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op);
             convert && isSharedTile(convert.getSrc().getType())) {
    readShared = cast<tile::SharedEncodingAttr>(
        convert.getSrc().getType().getEncoding());
    readInto = convert.getType();
  }
  if (readShared && isColumnMajor(readShared)) {
    auto into = cast<RankedTensorType>(readInto);
    auto operand =
        dyn_cast_or_null<tile::DotOperandEncodingAttr>(into.getEncoding());
    if (!mmaParentOf(into) &&
        !(mfmaParentOf(into) && operand && operand.getOpIdx() == 1))
      return op->emitOpError("a column-major shared tile (order = [0, 1]) is "
                             "read only as an mma.sync operand or an MFMA B "
                             "operand");
  }
  // The FMA fallback (#tile.blocked accumulators): FmaDotToGPU.cpp.
  if (isFmaOp(op))
    return verifyFmaOp(op, warpSize);
  auto fail = [&](const Twine &why) { return mmaFailure(op, why); };
  if (auto load = dyn_cast<tile::SharedLoadOp>(op)) {
    RankedTensorType dst = load.getType();
    if (mfmaParentOf(dst))
      return verifyMfmaOperand(op, dst, warpSize);
    if (warpSize != 32)
      return fail("tensor-core tiles need warp size 32");
    if (!isDotOperandTile(dst) || !mmaParentOf(dst))
      return fail("tile.shared_load reads dot operands only");
    tile::SharedBufferType buffer = load.getSrc().getType();
    return verifyOperandRead(op, buffer.getTileType(buffer.getEncoding()),
                             dst);
  }
  // AMD MFMA tiles: MfmaOpsToGPU.cpp.
  if (auto dot = dyn_cast<tile::DotOp>(op);
      dot && isa_and_nonnull<tile::AMDMfmaEncodingAttr>(
                 dot.getType().getEncoding())) {
    if (!dot.getType().getElementType().isF32())
      return fail("accumulator must be f32");
    auto mfma = dot.getType().getEncoding();
    for (Value operand : {dot.getA(), dot.getB()})
      if (mfmaParentOf(operand.getType()) != mfma)
        return op->emitOpError("MFMA operands must be #tile.dot_operand of "
                               "the accumulator's #tile.amd_mfma layout");
    if (failed(verifyMfmaOperand(op, dot.getA().getType(), warpSize)) ||
        failed(verifyMfmaOperand(op, dot.getB().getType(), warpSize)))
      return failure();
    return success();
  }
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op);
      convert && mfmaParentOf(convert.getType())) {
    if (!isSharedTile(convert.getSrc().getType()))
      return fail("dot operands are read from a #tile.shared tile");
    return verifyMfmaOperand(op, convert.getType(), warpSize);
  }
  bool toShared = isa<tile::ConvertLayoutOp>(op) &&
                  isSharedTile(op->getResult(0).getType());
  if (warpSize != 32 && !toShared)
    return fail("tensor-core tiles need warp size 32");
  auto checkOperand = [&](RankedTensorType type) -> LogicalResult {
    Type elem = type.getElementType();
    if (!elem.isF16() && !elem.isBF16())
      return fail("operand element type must be f16 or bf16");
    if (type.getRank() != 2)
      return fail("operands must be 2-D");
    return success();
  };
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    auto a = cast<RankedTensorType>(dot.getA().getType());
    auto b = cast<RankedTensorType>(dot.getB().getType());
    auto c = cast<RankedTensorType>(dot.getType());
    auto mma = dyn_cast_or_null<tile::NvidiaMmaEncodingAttr>(c.getEncoding());
    if (!mma || mmaParentOf(a) != mma || mmaParentOf(b) != mma)
      return fail("accumulator must be #tile.nvidia_mma and the operands its "
                  "#tile.dot_operand layouts");
    if (mma.getVersion() != 2)
      return fail("mma layout must be version 2 (mma.sync)");
    if (!c.getElementType().isF32())
      return fail("accumulator must be f32");
    if (failed(checkOperand(a)) || failed(checkOperand(b)))
      return failure();
    if (a.getElementType() != b.getElementType())
      return fail("operands must have one element type");
    int64_t bm = c.getDimSize(0), bn = c.getDimSize(1), bk = a.getDimSize(1);
    if (bm % (kMmaM * warpsAlongM(mma)) || bk % kMmaK ||
        bn % (kMmaN * warpsAlongN(mma)))
      return fail("block must be a multiple of (16 x WM) x (8 x WN) x 16");
    return success();
  }
  auto convert = cast<tile::ConvertLayoutOp>(op);
  auto src = cast<RankedTensorType>(convert.getSrc().getType());
  auto dst = cast<RankedTensorType>(convert.getType());
  if (isAccumulatorToOperandA(src, dst)) {
    // P (an accumulator, cast to f16 / bf16) as the next dot's A operand,
    // in registers: each warp must own whole rows of it. (A wgmma
    // accumulator, version 3, is the mma.sync one on [W, 1] warps, and
    // wgmma's A fragment mma.sync's on each warp's 16 rows: the same
    // permutation.)
    auto mma = cast<tile::NvidiaMmaEncodingAttr>(src.getEncoding());
    if (warpsAlongN(mma) != 1)
      return fail("an accumulator becomes the A operand in registers only "
                  "when the warps split M alone (warpsPerCTA = [W, 1])");
    if (!src.getElementType().isF16() && !src.getElementType().isBF16())
      return fail("operand element type must be f16 or bf16");
    if (src.getRank() != 2 || src.getDimSize(0) % (kMmaM * warpsAlongM(mma)) ||
        src.getDimSize(1) % kMmaK)
      return fail("an accumulator becoming an A operand must be a multiple "
                  "of (16 x WM) x 16");
    return success();
  }
  if (isDotOperandTile(dst) && !isSharedTile(src))
    return fail("mma operands are read from a #tile.shared tile (or, for A, "
                "from the accumulator of the same #tile.nvidia_mma); only the "
                "FMA fallback (a #tile.blocked accumulator) takes them from "
                "registers");
  if (isDotOperandTile(src))
    return fail("dot operand tiles feed tile.dot only");
  if (isSharedTile(dst)) {
    // Element types are the readers' to check: mma / MFMA fragments take
    // f16 or bf16, FMA operands any float.
    if (src.getRank() != 2)
      return fail("shared tiles must be 2-D");
    auto shared = cast<tile::SharedEncodingAttr>(dst.getEncoding());
    auto blocked = dyn_cast_or_null<tile::BlockedEncodingAttr>(
        src.getEncoding());
    if (!blocked)
      return fail("tiles enter shared memory from a #tile.blocked layout");
    if (!isMovableSharedOrder(shared, blocked))
      return fail("shared tiles must be row-major (order = [1, 0]) or "
                  "column-major (order = [0, 1]), entered from a layout of "
                  "the same order");
    // A thread's run is stored in pieces of at most one swizzle group.
    return success();
  }
  return verifyOperandRead(op, src, dst);
}

int64_t mlir::tcc::tile_to_gpu::sharedPiece(tile::SharedEncodingAttr shared,
                                            int64_t run) {
  return shared.getMaxPhase() == 1 ? run
                                   : std::min<int64_t>(run, shared.getVec());
}

void mlir::tcc::tile_to_gpu::forEachSharedPiece(
    OpBuilder &b, Location loc, const TileLayout &layout,
    const SharedTileRef &ref, Type element, unsigned warpSize,
    function_ref<void(int64_t, int64_t, ArrayRef<Value>, int64_t)> visit,
    const ThreadIds *threadIds) {
  ThreadIds ids = threadIds ? *threadIds : emitThreadIds(b, loc, warpSize);
  SmallVector<Value> base = layout.emitThreadBase(b, loc, ids);
  // Runs along the shared tile's contiguous dim (the layout's fastest:
  // verified where the tile is stored or copied).
  unsigned fast = isColumnMajor(ref.layout) ? 0 : 1;
  int64_t run = layout.getSizePerThread(fast);
  int64_t piece = sharedPiece(ref.layout, run);
  // Buffers start 16-byte aligned; a piece starts at a multiple of itself
  // when rows hold whole pieces and runs start at whole pieces (swizzling
  // permutes groups of vec >= piece elements). Known alignment lets LLVM
  // keep each piece one vector access.
  int64_t pieceBytes = piece * (element.getIntOrFloatBitWidth() / 8);
  bool aligned = llvm::isPowerOf2_64(pieceBytes) && pieceBytes <= 16 &&
                 cast<MemRefType>(ref.buffer.getType()).getShape().back() %
                         piece ==
                     0 &&
                 run % piece == 0;
  for (int64_t e = 0; e < layout.getNumElems(); e += run) {
    SmallVector<int64_t> idx = layout.delinearize(e);
    Value row = arith::AddIOp::create(
        b, loc, base[0], cst(b, loc, layout.getElemOffset(0, idx[0])));
    Value col = arith::AddIOp::create(
        b, loc, base[1], cst(b, loc, layout.getElemOffset(1, idx[1])));
    for (int64_t p = 0; p < run; p += piece) {
      Value at = fast ? col : row;
      if (p)
        at = arith::AddIOp::create(b, loc, at, cst(b, loc, p));
      visit(e + p, piece,
            fast ? ref.indices(b, loc, row, at) : ref.indices(b, loc, at, col),
            aligned ? pieceBytes : 0);
    }
  }
}

SmallVector<Value> SharedTileRef::indices(OpBuilder &b, Location loc,
                                          Value row, Value col) const {
  SmallVector<Value> result(leading);
  if (rowOffset)
    row = arith::AddIOp::create(b, loc, row, rowOffset);
  if (isColumnMajor(layout))
    std::swap(row, col); // the buffer holds the [cols, rows] image
  result.push_back(row);
  result.push_back(emitSwizzledColumn(b, loc, layout, row, col));
  return result;
}

/// Each thread stores its runs in pieces of at most one swizzle group (a
/// group stays contiguous after the XOR).
void mlir::tcc::tile_to_gpu::emitSharedTileStore(OpBuilder &b, Location loc,
                                                 const TileLayout &src,
                                                 Value values,
                                                 const SharedTileRef &dst,
                                                 unsigned warpSize,
                                                 const ThreadIds *ids) {
  forEachSharedPiece(
      b, loc, src, dst, cast<VectorType>(values.getType()).getElementType(),
      warpSize,
      [&](int64_t first, int64_t piece, ArrayRef<Value> indices,
          int64_t alignment) {
        Value part = vector::ExtractStridedSliceOp::create(
            b, loc, values, ArrayRef<int64_t>{first}, ArrayRef<int64_t>{piece},
            ArrayRef<int64_t>{1});
        auto store =
            vector::StoreOp::create(b, loc, part, dst.buffer, indices);
        if (alignment)
          store.setAlignment(alignment);
      },
      ids);
}

/// shared -> mma operand: ldmatrix fragments at swizzled row addresses.
Value mlir::tcc::tile_to_gpu::emitMmaOperandLoad(OpBuilder &b, Location loc,
                                                 RankedTensorType type,
                                                 const SharedTileRef &src,
                                                 VectorType resultType,
                                                 unsigned warpSize) {
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  tile::NvidiaMmaEncodingAttr mma = mmaParentOf(type);
  Type elem = type.getElementType();
  ThreadIds ids = emitThreadIds(b, loc, warpSize);
  Value lane = ids.lane;
  // Lane l addresses row (l % 8) + 8 * ((l / 8) % 2) of its 16-row block
  // and the 8-wide column block l / 16 (ldmatrix's matrix l / 8).
  Value rowInBlock = arith::AddIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, cst(b, loc, 8)),
      arith::MulIOp::create(
          b, loc,
          arith::RemUIOp::create(
              b, loc,
              arith::DivUIOp::create(b, loc, lane, cst(b, loc, 8)),
              cst(b, loc, 2)),
          cst(b, loc, 8)));
  Value half = arith::DivUIOp::create(b, loc, lane, cst(b, loc, 16));
  Value result = arith::ConstantOp::create(
      b, loc, resultType, b.getZeroAttr(resultType));
  auto load = [&](Value row, Value col, int64_t tiles, bool transpose) {
    auto fragType = VectorType::get({tiles, 2}, elem);
    return nvgpu::LdMatrixOp::create(b, loc, fragType, src.buffer,
                                     src.indices(b, loc, row, col), transpose,
                                     tiles)
        .getResult();
  };
  auto insert = [&](Value frag, int64_t offset) {
    auto fragType = cast<VectorType>(frag.getType());
    int64_t n = fragType.getNumElements();
    Value flat = vector::ShapeCastOp::create(
        b, loc, VectorType::get({n}, elem), frag);
    result = vector::InsertStridedSliceOp::create(
        b, loc, flat, result, ArrayRef<int64_t>{offset},
        ArrayRef<int64_t>{1});
  };
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t warpsM = warpsAlongM(mma), warpsN = warpsAlongN(mma);
  // Warp ids run along N fastest (the accumulator layout's order).
  Value warpM = arith::DivUIOp::create(b, loc, ids.warp,
                                       cst(b, loc, warpsN));
  Value warpN = arith::RemUIOp::create(b, loc, ids.warp,
                                       cst(b, loc, warpsN));
  if (operand.getOpIdx() == 0) {
    // A [BM, BK], row-major: 4 matrices = (rows 0-7, 8-15) x (k 0-7, 8-15)
    // of each of this warp's m tiles (16 * WM rows apart).
    int64_t kSteps = cols / kMmaK;
    Value warpRow = arith::AddIOp::create(
        b, loc, rowInBlock,
        arith::MulIOp::create(b, loc, warpM, cst(b, loc, kMmaM)));
    for (int64_t t = 0; t < mTilesPerWarp(rows, mma); ++t)
      for (int64_t s = 0; s < kSteps; ++s) {
        Value row = arith::AddIOp::create(
            b, loc, warpRow, cst(b, loc, t * kMmaM * warpsM));
        Value col = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, half, cst(b, loc, 8)),
            cst(b, loc, s * kMmaK));
        insert(load(row, col, 4, /*transpose=*/false), (t * kSteps + s) * 8);
      }
  } else if (isColumnMajor(src.layout)) {
    // B [BK, BN] stored N x K (column-major: the buffer's rows are n): an
    // ldmatrix without .trans gives each lane (k = 2t + j, n = g). Lane l
    // addresses row n = l % 8 of matrix l / 8: (k 0-7, 8-15) of n tile u,
    // then of the next (x4).
    int64_t nTiles = nTilesPerWarp(cols, mma);
    Value warpCol = arith::MulIOp::create(b, loc, warpN, cst(b, loc, kMmaN));
    Value nInTile = arith::RemUIOp::create(b, loc, lane, cst(b, loc, 8));
    Value kHalf = arith::MulIOp::create(
        b, loc,
        arith::RemUIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, lane, cst(b, loc, 8)),
            cst(b, loc, 2)),
        cst(b, loc, 8));
    for (int64_t s = 0; s < rows / kMmaK; ++s)
      for (int64_t u = 0; u < nTiles; u += 2) {
        int64_t tiles = u + 1 < nTiles ? 4 : 2;
        Value nextTile = tiles == 4
                             ? arith::MulIOp::create(
                                   b, loc, half, cst(b, loc, kMmaN * warpsN))
                                   .getResult()
                             : cst(b, loc, 0);
        Value k = arith::AddIOp::create(b, loc, kHalf, cst(b, loc, s * kMmaK));
        Value n = arith::AddIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::AddIOp::create(b, loc, warpCol, nextTile),
                nInTile),
            cst(b, loc, u * kMmaN * warpsN));
        insert(load(k, n, tiles, /*transpose=*/false), (s * nTiles + u) * 4);
      }
  } else {
    // B [BK, BN] stored K x N: .trans gives each lane (k = 2t + j, n = g).
    // One x4 covers two of this warp's n tiles (W * 8 columns apart).
    int64_t nTiles = nTilesPerWarp(cols, mma);
    Value warpCol = arith::MulIOp::create(b, loc, warpN,
                                          cst(b, loc, kMmaN));
    for (int64_t s = 0; s < rows / kMmaK; ++s)
      for (int64_t u = 0; u < nTiles; u += 2) {
        int64_t tiles = u + 1 < nTiles ? 4 : 2;
        Value row = arith::AddIOp::create(b, loc, rowInBlock,
                                          cst(b, loc, s * kMmaK));
        // Lanes 16-31 address the next n tile of this warp.
        Value nextTile = tiles == 4
                             ? arith::MulIOp::create(
                                   b, loc, half,
                                   cst(b, loc, kMmaN * warpsN))
                                   .getResult()
                             : cst(b, loc, 0);
        Value col = arith::AddIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, warpCol, nextTile),
            cst(b, loc, u * kMmaN * warpsN));
        insert(load(row, col, tiles, /*transpose=*/true),
               (s * nTiles + u) * 4);
      }
  }
  return result;
}

namespace {

/// blocked -> shared: swizzled vector stores into the op's workgroup buffer.
struct StoreToSharedLowering : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isSharedTile(op.getType()))
      return failure();
    Location loc = op.getLoc();
    Value buffer = getWorkgroupBuffer(
        op, info, info.scratch.size() + info.sharedBufferOf.at(op));
    SharedTileRef dst{
        buffer, {}, cast<tile::SharedEncodingAttr>(op.getType().getEncoding())};
    // Readers of the previous contents (last iteration's fragments) first.
    // (eraseRedundantBarriers drops it when another tile's store just
    // synchronized.)
    gpu::BarrierOp::create(rewriter, loc);
    emitSharedTileStore(rewriter, loc, layoutOf(op.getSrc().getType()),
                        adaptor.getSrc(), dst, info.warpSize);
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, buffer);
    return success();
  }
};

/// shared -> mma operand (value form): ldmatrix from the tile's buffer.
struct LoadFragmentsLowering : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isSharedTile(op.getSrc().getType()) ||
        !isDotOperandTile(op.getType()) || !mmaParentOf(op.getType()))
      return failure();
    SharedTileRef src{
        adaptor.getSrc(),
        {},
        cast<tile::SharedEncodingAttr>(op.getSrc().getType().getEncoding())};
    rewriter.replaceOp(op, emitMmaOperandLoad(rewriter, op.getLoc(),
                                              op.getType(), src,
                                              vectorTypeOf(op.getType()),
                                              info.warpSize));
    return success();
  }
};

/// accumulator -> A operand of the same #mma (warps [W, 1]): a permutation
/// of each thread's registers, no data movement between threads. The
/// m16n8 accumulator fragments of n tiles 2s and 2s + 1 are the m16k16 A
/// fragment of k step s (PTX ISA fragment tables): a0a1 = c0c1 and a2a3 =
/// c2c3 of tile 2s, a4a5 = c0c1 and a6a7 = c2c3 of tile 2s + 1.
struct AccumulatorToOperandLowering
    : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    if (!isAccumulatorToOperandA(src, op.getType()))
      return failure();
    auto mma = cast<tile::NvidiaMmaEncodingAttr>(src.getEncoding());
    TileLayout acc = layoutOf(src);
    int64_t mTiles = mTilesPerWarp(src.getDimSize(0), mma);
    int64_t kSteps = src.getDimSize(1) / kMmaK;
    SmallVector<int64_t> mask;
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t s = 0; s < kSteps; ++s)
        for (int64_t u : {2 * s, 2 * s + 1})
          for (int64_t half : {0, 1}) // c0c1 (row g), then c2c3 (row g + 8)
            for (int64_t j : {0, 1})
              mask.push_back(acc.linearize({2 * t + half, 2 * u + j}));
    Value v = adaptor.getSrc();
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, v, v, mask);
    return success();
  }
};

/// tile.dot on mma layouts: mma.sync over the warp's share of the block.
struct DotLowering : public TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType cType = op.getType();
    auto mma = dyn_cast<tile::NvidiaMmaEncodingAttr>(cType.getEncoding());
    if (!mma)
      return failure();
    TileLayout acc = layoutOf(cType);
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type elem = aType.getElementType();
    int64_t mTiles = mTilesPerWarp(cType.getDimSize(0), mma);
    int64_t kSteps = aType.getDimSize(1) / kMmaK;
    int64_t nTiles = nTilesPerWarp(cType.getDimSize(1), mma);
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    // nvvm.mma.sync takes each register (a pair of 16-bit values) as a
    // vector<2xf16>, or for bf16 as an i32 (nvgpu.mma.sync cannot type bf16).
    auto registers = [&](Value from, int64_t offset, int64_t count) {
      SmallVector<Value> regs;
      for (int64_t i = 0; i < count; ++i) {
        Value pair = vector::ExtractStridedSliceOp::create(
            rewriter, loc, from, ArrayRef<int64_t>{offset + 2 * i},
            ArrayRef<int64_t>{2}, ArrayRef<int64_t>{1});
        if (elem.isBF16())
          pair = vector::ExtractOp::create(
              rewriter, loc,
              vector::BitCastOp::create(rewriter, loc,
                                        VectorType::get({1}, i32), pair),
              0);
        regs.push_back(pair);
      }
      return regs;
    };
    NVVM::MMATypes ptxType =
        elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    for (int64_t t = 0; t < mTiles; ++t)
      for (int64_t u = 0; u < nTiles; ++u) {
        // c0c1 / c2c3: accumulator rows 16t + g and + 8, columns 2t' + j of
        // the warp's n tile u (see LayoutUtils' mma mapping).
        SmallVector<int64_t> positions = {
            acc.linearize({2 * t, 2 * u}), acc.linearize({2 * t, 2 * u + 1}),
            acc.linearize({2 * t + 1, 2 * u}),
            acc.linearize({2 * t + 1, 2 * u + 1})};
        SmallVector<Value> d;
        for (int64_t p : positions)
          d.push_back(vector::ExtractOp::create(rewriter, loc, c, p));
        for (int64_t s = 0; s < kSteps; ++s) {
          SmallVector<Value> aRegs = registers(a, (t * kSteps + s) * 8, 4);
          SmallVector<Value> bRegs = registers(b, (s * nTiles + u) * 4, 2);
          auto mmaOp = NVVM::MmaOp::create(
              rewriter, loc, resultType, aRegs, bRegs, d,
              ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK}, std::nullopt,
              std::nullopt,
              std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t i = 0; i < 4; ++i)
            d[i] = LLVM::ExtractValueOp::create(rewriter, loc, mmaOp.getRes(),
                                                i);
        }
        for (auto [value, p] : llvm::zip(d, positions))
          c = vector::InsertOp::create(rewriter, loc, value, c, p);
      }
    rewriter.replaceOp(op, c);
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::eraseRedundantBarriers(Operation *root) {
  // A barrier is redundant when the previous barrier of its block is only
  // separated from it by ops that touch no memory (index math).
  SmallVector<gpu::BarrierOp> redundant;
  root->walk([&](gpu::BarrierOp barrier) {
    for (Operation *prev = barrier->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      if (isa<gpu::BarrierOp>(prev)) {
        redundant.push_back(barrier);
        return;
      }
      if (!isMemoryEffectFree(prev))
        return;
    }
  });
  for (gpu::BarrierOp barrier : redundant)
    barrier.erase();
}

void mlir::tcc::tile_to_gpu::populateTileToGPUMmaPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<StoreToSharedLowering, LoadFragmentsLowering, DotLowering,
               AccumulatorToOperandLowering>(converter, info);
  populateTileToGPUMfmaPatterns(converter, info, patterns);
}
