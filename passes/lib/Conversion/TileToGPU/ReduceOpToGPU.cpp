//===- ReduceOpToGPU.cpp - tile.reduce ------------------------------------===//
//
// tile.reduce along `axis`, in three steps, each skipped when the layout
// puts no distinct data there:
//   1. within a thread: fold the elements that share an output coordinate;
//   2. across lanes: gpu.shuffle xor butterflies over the lane-id bits of
//      `axis` (log2 of the distinct lanes along it);
//   3. across warps: every warp writes its partials to workgroup scratch,
//      gpu.barrier, every thread folds the partials of its outputs in warp
//      order, gpu.barrier.
// The combiner region is cloned on scalars. Every thread ends with the full
// result of each output element it owns (the result layout is the operand's
// sliced at `axis`: lanes and warps along `axis` hold replicas).
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

/// gpu.shuffle xor of any int/float scalar: through i32 (narrower types are
/// widened, 64-bit ones shuffled as two halves).
static Value shuffleXor(OpBuilder &b, Location loc, Value value,
                        int64_t offset, unsigned width) {
  Type type = value.getType();
  Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
  Value w = arith::ConstantIntOp::create(b, loc, width, 32);
  auto shuffle = [&](Value v) -> Value {
    return gpu::ShuffleOp::create(b, loc, v, off, w, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (type.isF32() || type.isInteger(32))
    return shuffle(value);
  Value bits = value;
  Type i32 = b.getI32Type();
  if (type.isIndex())
    bits = arith::IndexCastOp::create(b, loc, b.getI64Type(), bits);
  unsigned bitWidth = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bitWidth);
  if (isa<FloatType>(type))
    bits = arith::BitcastOp::create(b, loc, intType, bits);
  Value result;
  if (bitWidth < 32) {
    result = arith::TruncIOp::create(
        b, loc, intType, shuffle(arith::ExtUIOp::create(b, loc, i32, bits)));
  } else {
    Type i64 = b.getI64Type();
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, bits,
                               arith::ConstantIntOp::create(b, loc, 32, 64)));
    lo = arith::ExtUIOp::create(b, loc, i64, shuffle(lo));
    hi = arith::ExtUIOp::create(b, loc, i64, shuffle(hi));
    result = arith::OrIOp::create(
        b, loc, lo,
        arith::ShLIOp::create(b, loc, hi,
                              arith::ConstantIntOp::create(b, loc, 32, 64)));
  }
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, result);
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, result);
  return result;
}

namespace {

struct ReduceLowering : public TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    RankedTensorType srcType = op.getSrc().getType();
    Type elem = srcType.getElementType();
    TileLayout src = layoutOf(srcType);
    TileLayout out = src.dropDim(axis);
    Value in = adaptor.getSrc();

    auto combine = [&](Value a, Value b) -> Value {
      return cloneCombiner(rewriter, op, a, b);
    };

    // 1. Within the thread.
    SmallVector<Value> acc;
    for (int64_t o = 0; o < out.getNumElems(); ++o) {
      SmallVector<int64_t> idx = out.delinearize(o);
      idx.insert(idx.begin() + axis, 0);
      Value value;
      for (int64_t k = 0; k < src.getElemsAlong(axis); ++k) {
        idx[axis] = k;
        Value v = vector::ExtractOp::create(rewriter, loc, in,
                                            src.linearize(idx));
        value = value ? combine(value, v) : v;
      }
      acc.push_back(value);
    }

    // 2. Across the lanes along the axis.
    int64_t lanes = src.getDistinctLanes(axis);
    for (int64_t step = 1; step < lanes; step *= 2) {
      int64_t offset = step * src.getLaneStride(axis);
      for (Value &value : acc)
        value = combine(value, shuffleXor(rewriter, loc, value, offset,
                                          info.warpSize));
    }

    // 3. Across the warps along the axis.
    int64_t warps = src.getDistinctWarps(axis);
    if (warps > 1) {
      Value buffer = getScratchBuffer(op, info, elem);
      ThreadIds ids = emitThreadIds(rewriter, loc, info.warpSize);
      int64_t outElems = srcType.getNumElements() / srcType.getDimSize(axis);
      auto cst = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(rewriter, loc, v);
      };
      Value warp = arith::RemUIOp::create(
          rewriter, loc, src.emitWarpAlong(rewriter, loc, ids, axis),
          cst(warps));
      Value warpBase = arith::MulIOp::create(rewriter, loc, warp, cst(outElems));
      SmallVector<Value> base = out.emitThreadBase(rewriter, loc, ids);
      SmallVector<Value> slots;
      for (int64_t o = 0; o < out.getNumElems(); ++o) {
        SmallVector<int64_t> idx = out.delinearize(o);
        SmallVector<Value> coord;
        for (unsigned d = 0; d < out.getRank(); ++d)
          coord.push_back(arith::AddIOp::create(
              rewriter, loc, base[d], cst(out.getElemOffset(d, idx[d]))));
        slots.push_back(emitRowMajorIndex(rewriter, loc, coord, out.getShape()));
      }
      for (auto [value, slot] : llvm::zip(acc, slots))
        memref::StoreOp::create(
            rewriter, loc, toStorage(rewriter, loc, value), buffer,
            ValueRange{arith::AddIOp::create(rewriter, loc, warpBase, slot)});
      gpu::BarrierOp::create(rewriter, loc);
      for (auto [value, slot] : llvm::zip(acc, slots)) {
        value = Value();
        for (int64_t w = 0; w < warps; ++w) {
          Value at = arith::AddIOp::create(rewriter, loc, slot,
                                           cst(w * outElems));
          Value v = fromStorage(
              rewriter, loc,
              memref::LoadOp::create(rewriter, loc, buffer, ValueRange{at}),
              elem);
          value = value ? combine(value, v) : v;
        }
      }
      gpu::BarrierOp::create(rewriter, loc);
    }

    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, acc.front());
      return success();
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(
        op, vectorTypeOf(op.getType()), acc);
    return success();
  }

  /// The combiner applied to (a, b), cloned at the insertion point.
  static Value cloneCombiner(OpBuilder &b, tile::ReduceOp op, Value lhs,
                             Value rhs) {
    Block &body = op.getCombiner().front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), lhs);
    mapping.map(body.getArgument(1), rhs);
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    auto ret = cast<tile::ReduceReturnOp>(body.getTerminator());
    return mapping.lookupOrDefault(ret.getResult());
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUReducePatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, info);
}
