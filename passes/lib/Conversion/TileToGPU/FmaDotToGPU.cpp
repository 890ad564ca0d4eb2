//===- FmaDotToGPU.cpp - tile.dot without tensor cores (FMA fallback) -----===//
//
// tile.dot on a #tile.blocked accumulator (any operand and accumulator
// shape, any warp size), the path of matmuls no tensor-core instruction
// fits (f32, mixed types). As in Triton's FMA path, each thread computes its
// own accumulator elements: for the rows r_i and columns c_j it owns, it
// needs row r_i of A and column c_j of B for every k.
//
//   #tile.dot_operand<{opIdx = 0, parent = #blocked, kWidth = 0}> of an
//     [M, K] tile: per thread, A[r_i][k] for each of its rows (the parent
//     layout's rows, sliced: r_i = base + offset(i)) and every k, in the
//     order (i, k), k fastest: vector<rows x K>;
//   opIdx = 1 of a [K, N] tile: B[k][c_j], in the order (k, j), j fastest:
//     vector<K x cols>.
//
//   #tile.shared (row-major; a convert_layout's buffer or, through
//     tile.shared_load, a pipelined buffer's slot) -> operand: vector loads
//     of up to 16 bytes along the contiguous dim (A: k runs of a row; B: a
//     thread's run of columns of a k row), at the swizzled column when the
//     tile is swizzled (emitFmaOperandLoad over a SharedTileRef);
//   any distributed layout -> operand: each thread writes its elements to
//     row-major scratch, barrier, reads its operand elements, barrier (the
//     write half of emitRelayoutThroughScratch);
//   tile.dot: for each k, one vector.fma over the whole accumulator vector,
//     its A and B factors gathered by vector.shuffle (f16/bf16 operands
//     widened to f32 first): after LLVM, one fma.rn.f32 / v_fma(c)_f32 per
//     accumulator element and k.
//
// With the schedule of convert-linalg-to-tile (FmaMatmulKernel.cpp: lanes
// 8 along N, 4 x 4 per thread) the operand reads are conflict-free: the 8
// lanes of a quarter warp read one A row (a broadcast) and 128 contiguous
// bytes of B.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

/// How the accumulator layout spreads the non-K dim of an FMA operand: the
/// rows of A (opIdx 0, the parent sliced along its columns) or the columns
/// of B (opIdx 1, sliced along its rows), as a 1-D layout.
FailureOr<TileLayout>
getOwnedLayout(RankedTensorType type, unsigned warpSize,
               function_ref<InFlightDiagnostic()> emitError = {}) {
  auto operand = cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  unsigned opIdx = operand.getOpIdx();
  auto owned = RankedTensorType::get(
      {type.getDimSize(opIdx)}, type.getElementType(),
      tile::SliceEncodingAttr::get(type.getContext(), 1 - opIdx,
                                   operand.getParent()));
  return TileLayout::get(owned, warpSize, emitError);
}

/// K: dim 1 of A, dim 0 of B.
int64_t getDepth(RankedTensorType type) {
  unsigned opIdx =
      cast<tile::DotOperandEncodingAttr>(type.getEncoding()).getOpIdx();
  return type.getDimSize(1 - opIdx);
}

/// Position in the per-thread operand vector of owned element `i` (a row of
/// A or a column of B) at depth `k`; `owned` elements per k.
int64_t operandPosition(unsigned opIdx, int64_t i, int64_t k, int64_t depth,
                        int64_t owned) {
  return opIdx == 0 ? i * depth + k : k * owned + i;
}

/// Reads the running thread's operand elements of `type` from `buffer`, a
/// row-major image of the [R, C] operand tile; `indices(row, col)` gives the
/// buffer indices of element (row, col) of a run of `maxRun` (a power of
/// two) contiguous columns starting at `col`.
Value emitOperandRead(OpBuilder &b, Location loc, RankedTensorType type,
                      VectorType resultType, const TileLayout &owned,
                      ThreadIds ids, Value buffer, int64_t maxRun,
                      function_ref<SmallVector<Value>(Value, Value)> indices) {
  unsigned opIdx =
      cast<tile::DotOperandEncodingAttr>(type.getEncoding()).getOpIdx();
  int64_t depth = getDepth(type), numOwned = owned.getNumElems();
  Type elem = type.getElementType();
  int64_t bytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  Value base = owned.emitThreadBase(b, loc, ids)[0];
  Value result = arith::ConstantOp::create(b, loc, resultType,
                                           b.getZeroAttr(resultType));
  auto read = [&](Value row, Value col, int64_t width, int64_t position) {
    auto vecType = VectorType::get({width}, elem);
    auto load =
        vector::LoadOp::create(b, loc, vecType, buffer, indices(row, col));
    load.setAlignment(width * bytes);
    result = vector::InsertStridedSliceOp::create(
        b, loc, load, result, ArrayRef<int64_t>{position},
        ArrayRef<int64_t>{1});
  };
  if (opIdx == 0) {
    // A: each owned row, its K elements in runs along the row.
    int64_t width = std::min(depth, maxRun);
    for (int64_t i = 0; i < numOwned; ++i) {
      Value row = arith::AddIOp::create(b, loc, base,
                                        cst(b, loc, owned.getElemOffset(0, i)));
      for (int64_t k = 0; k < depth; k += width)
        read(row, cst(b, loc, k), width,
             operandPosition(0, i, k, depth, numOwned));
    }
  } else {
    // B: each k row, the thread's runs of contiguous owned columns.
    int64_t width = std::min(owned.getSizePerThread(0), maxRun);
    for (int64_t k = 0; k < depth; ++k)
      for (int64_t j = 0; j < numOwned; j += width) {
        Value col = arith::AddIOp::create(
            b, loc, base, cst(b, loc, owned.getElemOffset(0, j)));
        read(cst(b, loc, k), col, width,
             operandPosition(1, j, k, depth, numOwned));
      }
  }
  return result;
}

/// Widest run of an operand read: 16 bytes.
int64_t maxReadRun(Type elem) {
  return std::max<int64_t>(
      1, kMaxAccessBytes /
             std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8));
}

/// #tile.shared (a convert_layout's workgroup buffer) or a distributed
/// layout (through scratch) -> FMA operand.
struct ReadFmaOperandLowering : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (!fmaParentOf(type))
      return failure();
    Location loc = op.getLoc();
    auto resultType = vectorTypeOf(type);
    if (auto shared = dyn_cast<tile::SharedEncodingAttr>(
            op.getSrc().getType().getEncoding())) {
      SharedTileRef src{adaptor.getSrc(), {}, shared};
      rewriter.replaceOp(op, emitFmaOperandLoad(rewriter, loc, type, src,
                                                resultType, info.warpSize));
      return success();
    }
    // From registers: through row-major scratch.
    TileLayout owned = *getOwnedLayout(type, info.warpSize);
    ThreadIds ids = emitThreadIds(rewriter, loc, info);
    Value buffer = getScratchBuffer(op, info, type.getElementType());
    emitStoreToScratch(rewriter, loc, adaptor.getSrc(),
                       layoutOf(op.getSrc().getType()), buffer, ids);
    gpu::BarrierOp::create(rewriter, loc);
    int64_t cols = type.getDimSize(1);
    auto indices = [&](Value row, Value col) {
      return SmallVector<Value>{arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, row, cst(rewriter, loc, cols)),
          col)};
    };
    Value result =
        emitOperandRead(rewriter, loc, type, resultType, owned, ids, buffer,
                        maxReadRun(type.getElementType()), indices);
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tile.dot on a blocked accumulator: acc[i, j] += A[i, k] * B[k, j], one
/// vector.fma over the accumulator per k.
struct FmaDotLowering : public TilePattern<tile::DotOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType cType = op.getType();
    if (!isa_and_nonnull<tile::BlockedEncodingAttr>(cType.getEncoding()))
      return failure();
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    TileLayout acc = layoutOf(cType);
    TileLayout rows = *getOwnedLayout(aType, info.warpSize);
    TileLayout cols = *getOwnedLayout(bType, info.warpSize);
    int64_t depth = getDepth(aType);
    int64_t numRows = rows.getNumElems(), numCols = cols.getNumElems();
    auto accVec = cast<VectorType>(adaptor.getAcc().getType());
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getAcc();
    for (int64_t k = 0; k < depth; ++k) {
      // Accumulator element e = (i, j) takes A's owned row i and B's owned
      // column j (the operand layouts are the accumulator's, sliced).
      SmallVector<int64_t> aMask, bMask;
      for (int64_t e = 0; e < acc.getNumElems(); ++e) {
        SmallVector<int64_t> idx = acc.delinearize(e);
        aMask.push_back(operandPosition(0, rows.linearize({idx[0]}), k, depth,
                                        numRows));
        bMask.push_back(operandPosition(1, cols.linearize({idx[1]}), k, depth,
                                        numCols));
      }
      Value x = vector::ShuffleOp::create(rewriter, loc, a, a, aMask);
      Value y = vector::ShuffleOp::create(rewriter, loc, b, b, bMask);
      if (x.getType() != accVec) {
        x = arith::ExtFOp::create(rewriter, loc, accVec, x);
        y = arith::ExtFOp::create(rewriter, loc, accVec, y);
      }
      c = vector::FMAOp::create(rewriter, loc, x, y, c);
    }
    rewriter.replaceOp(op, c);
    return success();
  }
};

} // namespace

Value mlir::tcc::tile_to_gpu::emitFmaOperandLoad(OpBuilder &b, Location loc,
                                                 RankedTensorType type,
                                                 const SharedTileRef &src,
                                                 VectorType resultType,
                                                 unsigned warpSize) {
  TileLayout owned = *getOwnedLayout(type, warpSize);
  ThreadIds ids = emitThreadIds(b, loc, warpSize);
  // Runs stay inside one swizzle group (contiguous after the XOR).
  int64_t maxRun = maxReadRun(type.getElementType());
  if (src.layout.getMaxPhase() != 1)
    maxRun = std::min<int64_t>(maxRun, src.layout.getVec());
  auto indices = [&](Value row, Value col) {
    return src.indices(b, loc, row, col);
  };
  return emitOperandRead(b, loc, type, resultType, owned, ids, src.buffer,
                         maxRun, indices);
}

tile::BlockedEncodingAttr mlir::tcc::tile_to_gpu::fmaParentOf(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  auto operand = tile ? dyn_cast_or_null<tile::DotOperandEncodingAttr>(
                            tile.getEncoding())
                      : nullptr;
  return operand ? dyn_cast<tile::BlockedEncodingAttr>(operand.getParent())
                 : nullptr;
}

bool mlir::tcc::tile_to_gpu::isFmaOp(Operation *op) {
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return isa_and_nonnull<tile::BlockedEncodingAttr>(
        dot.getType().getEncoding());
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
    return fmaParentOf(convert.getSrc().getType()) ||
           fmaParentOf(convert.getType());
  if (auto load = dyn_cast<tile::SharedLoadOp>(op))
    return bool(fmaParentOf(load.getType()));
  return false;
}

Type mlir::tcc::tile_to_gpu::convertFmaOperandType(RankedTensorType type,
                                                   unsigned warpSize) {
  FailureOr<TileLayout> owned = getOwnedLayout(type, warpSize);
  if (failed(owned))
    return nullptr;
  return VectorType::get({owned->getNumElems() * getDepth(type)},
                         type.getElementType());
}

LogicalResult mlir::tcc::tile_to_gpu::verifyFmaOp(Operation *op,
                                                  unsigned warpSize) {
  auto fail = [&](const Twine &why) {
    return op->emitOpError() << why << " (the FMA fallback of "
                                       "convert-tile-to-gpu: tile.dot on a "
                                       "#tile.blocked accumulator)";
  };
  // The tile.dot verifier ties the operand layouts to the accumulator's
  // (checked with the kernel's other layouts); the operands are checked
  // where they are made.
  if (isa<tile::DotOp>(op))
    return success();
  // An operand read: tile.shared_load of a pipelined buffer's slot or a
  // convert_layout.
  RankedTensorType dst = cast<RankedTensorType>(op->getResult(0).getType());
  auto convert = dyn_cast<tile::ConvertLayoutOp>(op);
  RankedTensorType src = convert ? convert.getSrc().getType() : dst;
  if (convert && fmaParentOf(src))
    return fail("dot operand tiles feed tile.dot only");
  if (dst.getRank() != 2)
    return fail("operands must be 2-D");
  if (!isa<FloatType>(dst.getElementType()))
    return fail("operand element type must be a float");
  if (failed(getOwnedLayout(dst, warpSize, [&] { return op->emitOpError(); })))
    return failure();
  // Shared tiles are row-major (checked where they are stored); any
  // distributed source goes through scratch.
  if (convert && isDotOperandTile(src))
    return fail("operands are read from a #tile.shared tile or a "
                "distributed layout, not another dot operand");
  return success();
}

void mlir::tcc::tile_to_gpu::populateTileToGPUFmaPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<ReadFmaOperandLowering, FmaDotLowering>(converter, info);
}
