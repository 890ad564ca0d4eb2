//===- ReduceOpToGPU.cpp - tile.reduce ------------------------------------===//
//
// tile.reduce along `axis` (of one operand or several reduced together: a
// value and its index), in three steps, each skipped when the layout
// puts no distinct data there:
//   1. within a thread: fold the elements that share an output coordinate;
//   2. across lanes: gpu.shuffle xor butterflies over the lane-id bits of
//      `axis` (log2 of the distinct lanes along it);
//   3. across warps: every warp writes its partials to workgroup scratch
//      (each operand to its type's buffer; operands of one type one slice
//      after the other), gpu.barrier, every thread folds the partials of
//      its outputs in warp order, gpu.barrier.
// The combiner region is cloned on scalars: on tuples of one element of
// every operand, shuffled and stored operand by operand. Every thread ends
// with the full result of each output element it owns (the result layout
// is the operands' sliced at `axis`: lanes and warps along `axis` hold
// replicas).
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

/// One element of every operand: what the combiner takes and returns.
using Elements = SmallVector<Value, 2>;

struct ReduceLowering : public TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    // The operands share one shape and layout.
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    SmallVector<Type> elems;
    for (Value src : op.getSrcs())
      elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
    TileLayout src = layoutOf(srcType);
    TileLayout out = src.dropDim(axis);
    ValueRange in = adaptor.getSrcs();

    auto combine = [&](const Elements &a, const Elements &b) -> Elements {
      return cloneCombiner(rewriter, op, a, b);
    };

    // 1. Within the thread.
    SmallVector<Elements> acc;
    for (int64_t o = 0; o < out.getNumElems(); ++o) {
      SmallVector<int64_t> idx = out.delinearize(o);
      idx.insert(idx.begin() + axis, 0);
      Elements value;
      for (int64_t k = 0; k < src.getElemsAlong(axis); ++k) {
        idx[axis] = k;
        Elements v;
        for (Value operand : in)
          v.push_back(vector::ExtractOp::create(rewriter, loc, operand,
                                                src.linearize(idx)));
        value = value.empty() ? v : combine(value, v);
      }
      acc.push_back(value);
    }

    // 2. Across the lanes along the axis.
    int64_t lanes = src.getDistinctLanes(axis);
    for (int64_t step = 1; step < lanes; step *= 2) {
      int64_t offset = step * src.getLaneStride(axis);
      for (Elements &value : acc) {
        Elements other;
        for (Value v : value)
          other.push_back(
              shuffleXor(rewriter, loc, v, offset, info.warpSize));
        value = combine(value, other);
      }
    }

    // 3. Across the warps along the axis.
    int64_t warps = src.getDistinctWarps(axis);
    if (warps > 1) {
      ThreadIds ids = emitThreadIds(rewriter, loc, info);
      int64_t outElems = srcType.getNumElements() / srcType.getDimSize(axis);
      auto cst = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(rewriter, loc, v);
      };
      // Operand i's buffer, and where its warps x outputs slice starts
      // (operands of one storage type share a buffer, slice after slice).
      SmallVector<Value> buffers;
      SmallVector<int64_t> sliceStart;
      llvm::SmallDenseMap<Type, int64_t> slicesOf;
      for (Type elem : elems) {
        buffers.push_back(getScratchBuffer(op, info, elem));
        int64_t &slices = slicesOf[getScratchStorageType(elem)];
        sliceStart.push_back(slices * warps * outElems);
        ++slices;
      }
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
        for (auto [i, v] : llvm::enumerate(value)) {
          Value at = arith::AddIOp::create(rewriter, loc, warpBase, slot);
          if (sliceStart[i])
            at = arith::AddIOp::create(rewriter, loc, at, cst(sliceStart[i]));
          memref::StoreOp::create(rewriter, loc, toStorage(rewriter, loc, v),
                                  buffers[i], ValueRange{at});
        }
      gpu::BarrierOp::create(rewriter, loc);
      for (auto [value, slot] : llvm::zip(acc, slots)) {
        value.clear();
        for (int64_t w = 0; w < warps; ++w) {
          Elements v;
          for (auto [i, elem] : llvm::enumerate(elems)) {
            Value at = arith::AddIOp::create(
                rewriter, loc, slot, cst(sliceStart[i] + w * outElems));
            v.push_back(fromStorage(
                rewriter, loc,
                memref::LoadOp::create(rewriter, loc, buffers[i],
                                       ValueRange{at}),
                elem));
          }
          value = value.empty() ? v : combine(value, v);
        }
      }
      gpu::BarrierOp::create(rewriter, loc);
    }

    SmallVector<Value> results;
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      if (!isa<RankedTensorType>(result.getType())) {
        results.push_back(acc.front()[i]);
        continue;
      }
      SmallVector<Value> parts;
      for (const Elements &value : acc)
        parts.push_back(value[i]);
      results.push_back(vector::FromElementsOp::create(
          rewriter, loc, vectorTypeOf(result.getType()), parts));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  /// The combiner applied to (a, b), cloned at the insertion point.
  static Elements cloneCombiner(OpBuilder &b, tile::ReduceOp op,
                                const Elements &lhs, const Elements &rhs) {
    Block &body = op.getCombiner().front();
    IRMapping mapping;
    unsigned n = lhs.size();
    for (unsigned i = 0; i < n; ++i) {
      mapping.map(body.getArgument(i), lhs[i]);
      mapping.map(body.getArgument(n + i), rhs[i]);
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    auto ret = cast<tile::ReduceReturnOp>(body.getTerminator());
    Elements combined;
    for (Value value : ret.getValues())
      combined.push_back(mapping.lookupOrDefault(value));
    return combined;
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUReducePatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<ReduceLowering>(converter, info);
}
