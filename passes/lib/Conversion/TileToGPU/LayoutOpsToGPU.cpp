//===- LayoutOpsToGPU.cpp - grid, index, shape and elementwise ops --------===//
//
// tile.program_id / tile.num_programs -> gpu.block_id / gpu.grid_dim;
// tile.arange, tile.splat, tile.broadcast, tile.expand_dims,
// tile.convert_layout, tile.reshape -> per-thread vector ops (shared memory
// where elements change threads); arith/math on tiles -> the same ops on the
// per-thread vectors.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

static gpu::Dimension dimOf(int32_t axis) {
  return axis == 0 ? gpu::Dimension::x
                   : axis == 1 ? gpu::Dimension::y : gpu::Dimension::z;
}

/// tile.program_id / tile.num_programs -> gpu.block_id / gpu.grid_dim.
template <typename TileOp, typename GpuOp>
struct GridQueryLowering : public TilePattern<TileOp> {
  using TilePattern<TileOp>::TilePattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value v = GpuOp::create(rewriter, op.getLoc(), dimOf(op.getAxis()));
    rewriter.replaceOpWithNewOp<arith::IndexCastUIOp>(op, op.getType(), v);
    return success();
  }
};
using ProgramIdLowering = GridQueryLowering<tile::ProgramIdOp, gpu::BlockIdOp>;
using NumProgramsLowering =
    GridQueryLowering<tile::NumProgramsOp, gpu::GridDimOp>;

//===----------------------------------------------------------------------===//
// Building tiles
//===----------------------------------------------------------------------===//

/// arange: this thread's coordinates along the (only) dim, plus start.
struct ArangeLowering : public TilePattern<tile::ArangeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ArangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileLayout layout = layoutOf(op.getType());
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    ThreadIds ids = emitThreadIds(rewriter, loc, info);
    Value base = layout.emitThreadBase(rewriter, loc, ids)[0];
    base = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), base);
    SmallVector<int32_t> offsets;
    int64_t start = op.getStart();
    for (int64_t e = 0; e < layout.getNumElems(); ++e)
      offsets.push_back(start + layout.getElemOffset(0, layout.delinearize(e)[0]));
    Value cst = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(vecType, ArrayRef(offsets)));
    Value splat = vector::BroadcastOp::create(rewriter, loc, vecType, base);
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, cst);
    return success();
  }
};

struct SplatLowering : public TilePattern<tile::SplatOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type, adaptor.getSrc());
    return success();
  }
};

/// Same layout, size-1 dims grow: each result element reads the source
/// element with the broadcast dims' index zeroed (a register shuffle).
struct BroadcastLowering : public TilePattern<tile::BroadcastOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileLayout src = layoutOf(op.getSrc().getType());
    TileLayout dst = layoutOf(op.getType());
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    Value in = adaptor.getSrc();
    if (src.getNumElems() == 1) {
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vecType, in);
      return success();
    }
    SmallVector<int64_t> mask;
    for (int64_t e = 0; e < dst.getNumElems(); ++e) {
      SmallVector<int64_t> idx = dst.delinearize(e);
      for (unsigned d = 0; d < src.getRank(); ++d)
        if (src.getShape()[d] == 1)
          idx[d] = 0;
      mask.push_back(src.linearize(idx));
    }
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, vecType, in, in, mask);
    return success();
  }
};

/// slice(axis, P) -> P with a size-1 dim at axis: each thread keeps the same
/// elements in the same order, so nothing moves.
struct ExpandDimsLowering : public TilePattern<tile::ExpandDimsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileLayout src = layoutOf(op.getSrc().getType());
    TileLayout dst = layoutOf(op.getType());
    if (!dst.dropDim(op.getAxis()).isSameDistribution(src))
      return rewriter.notifyMatchFailure(op, "checked by the kernel analysis");
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// A no-op when both layouts distribute the same way, else a round trip
/// through shared memory.
struct ConvertLayoutLowering : public TilePattern<tile::ConvertLayoutOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Shared-memory and mma-operand tiles: MmaOpsToGPU.cpp.
    for (Type type : {Type(op.getSrc().getType()), Type(op.getType())})
      if (isSharedTile(type) || isDotOperandTile(type))
        return failure();
    TileLayout src = layoutOf(op.getSrc().getType());
    TileLayout dst = layoutOf(op.getType());
    if (src.isSameDistribution(dst)) {
      rewriter.replaceOp(op, adaptor.getSrc());
      return success();
    }
    Location loc = op.getLoc();
    Value buffer = getScratchBuffer(op, info, op.getType().getElementType());
    ThreadIds ids = emitThreadIds(rewriter, loc, info);
    rewriter.replaceOp(op, emitRelayoutThroughScratch(rewriter, loc,
                                                      adaptor.getSrc(), src,
                                                      dst, buffer, ids));
    return success();
  }
};

/// Row-major reinterpretation: through shared memory, where both sides
/// index elements by their row-major position.
struct ReshapeLowering : public TilePattern<tile::ReshapeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    TileLayout src = layoutOf(op.getSrc().getType());
    TileLayout dst = layoutOf(op.getType());
    Location loc = op.getLoc();
    Value buffer = getScratchBuffer(op, info, op.getType().getElementType());
    ThreadIds ids = emitThreadIds(rewriter, loc, info);
    rewriter.replaceOp(op, emitRelayoutThroughScratch(rewriter, loc,
                                                      adaptor.getSrc(), src,
                                                      dst, buffer, ids));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// arith / math on tiles
//===----------------------------------------------------------------------===//

/// Any elementwise arith/math op with tile operands or results: the same op
/// on the converted (vector) types.
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        !OpTrait::hasElementwiseMappableTraits(op) || op->getNumRegions())
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs(), op->getSuccessors());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    if (!tile)
      return failure();
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense)
      return rewriter.notifyMatchFailure(op, "checked by the kernel analysis");
    auto vecType = cast<VectorType>(getTypeConverter()->convertType(tile));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, vecType, dense.resizeSplat(vecType));
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUCorePatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<ProgramIdLowering, NumProgramsLowering, ArangeLowering,
               SplatLowering, BroadcastLowering, ExpandDimsLowering,
               ConvertLayoutLowering, ReshapeLowering>(converter, info);
  patterns.add<ElementwiseLowering, ConstantLowering>(converter,
                                                      &converter.getContext());
}
