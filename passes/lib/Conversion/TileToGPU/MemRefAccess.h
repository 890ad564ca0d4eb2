//===- MemRefAccess.h - per-thread runs of memref-form accesses -*- C++ -*-===//
//
// Shared by the memref-form loads and stores (MemoryOpsToGPU.cpp) and the
// shared-memory staging copies (SharedStagingToGPU.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_TILETOGPU_MEMREFACCESS_H
#define TCC_CONVERSION_TILETOGPU_MEMREFACCESS_H

#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tcc::tile_to_gpu {

/// Where one thread's runs of a memref-form access land, and which of them
/// may take the vector fast path.
class MemRefAccessPlan {
public:
  /// `offsetDivisors` (may be empty): what each offset is known to be a
  /// multiple of (KernelInfo::offsetDivisors).
  MemRefAccessPlan(OpBuilder &b, Location loc, const TileLayout &layout,
                   Value memref, ValueRange offsets, const KernelInfo &info,
                   ArrayRef<int64_t> offsetDivisors,
                   const ThreadIds *threadIds = nullptr)
      : b(b), loc(loc), layout(layout), memref(memref) {
    this->offsetDivisors = offsetDivisors;
    auto type = cast<MemRefType>(memref.getType());
    Type elem = type.getElementType();
    fastDim = layout.getOrder()[0];
    // Runs are contiguous in memory only when the fastest tile dim has unit
    // stride in the memref.
    SmallVector<int64_t> strides;
    int64_t offset = 0;
    bool strided = succeeded(type.getStridesAndOffset(strides, offset));
    width = 1;
    if (strided && strides[fastDim] == 1 && elem.isIntOrFloat() &&
        elem.getIntOrFloatBitWidth() % 8 == 0) {
      int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
      width = std::min(layout.getSizePerThread(fastDim),
                       std::max<int64_t>(1, kMaxAccessBytes / bytes));
      alignmentBytes = width * bytes;
    }
    ThreadIds ids = threadIds ? *threadIds : emitThreadIds(b, loc, info);
    base = layout.emitThreadBase(b, loc, ids);
    for (unsigned d = 0; d < layout.getRank(); ++d) {
      base[d] = arith::AddIOp::create(b, loc, base[d], offsets[d]);
      if (type.isDynamicDim(d))
        dims.push_back(memref::DimOp::create(b, loc, memref, d));
      else
        dims.push_back(cst(type.getDimSize(d)));
    }
    // Runs along a unit-stride dim other than the last (a transposed view)
    // are vector accesses of a flat 1-D view of the same elements.
    if (width > 1 && fastDim + 1 != type.getRank()) {
      if (llvm::any_of(strides, ShapedType::isDynamic) ||
          ShapedType::isDynamic(offset) || !type.hasStaticShape()) {
        width = 1;
      } else {
        int64_t span = 1;
        for (unsigned d = 0; d < type.getRank(); ++d)
          span += (type.getDimSize(d) - 1) * strides[d];
        auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
        flat = memref::ReinterpretCastOp::create(
            b, loc,
            MemRefType::get({span}, elem,
                            StridedLayoutAttr::get(b.getContext(), offset,
                                                   {1}),
                            type.getMemorySpace()),
            meta.getBaseBuffer(), offset, ArrayRef<int64_t>{span},
            ArrayRef<int64_t>{1});
        flatStrides.assign(strides.begin(), strides.end());
      }
    }
    if (width > 1)
      aligned = emitAligned(type, strided, strides, offset, offsets);
  }

  /// The memref and indices of a vector access of the run at `indices`:
  /// the memref itself, or its flat view where the runs do not follow the
  /// last dim.
  Value accessMemRef() const { return flat ? flat : memref; }
  SmallVector<Value> accessIndices(ArrayRef<Value> indices) {
    if (!flat)
      return SmallVector<Value>(indices);
    Value linear = cst(0);
    for (auto [index, stride] : llvm::zip(indices, flatStrides))
      linear = arith::AddIOp::create(
          b, loc, linear, arith::MulIOp::create(b, loc, index, cst(stride)));
    return {linear};
  }

  int64_t getWidth() const { return width; }
  int64_t getNumRuns() const { return layout.getNumElems() / width; }
  int64_t getAlignment() const { return alignmentBytes; }
  unsigned getFastDim() const { return fastDim; }
  /// Size of memref dim `d`.
  Value getDim(unsigned d) const { return dims[d]; }
  /// Whether runs start `width`-aligned in memory (null when width is 1).
  Value getAligned() const { return aligned; }

  /// Memref indices of element `e` of this thread.
  SmallVector<Value> indicesOf(int64_t e) {
    SmallVector<int64_t> idx = layout.delinearize(e);
    SmallVector<Value> indices;
    for (unsigned d = 0; d < layout.getRank(); ++d)
      indices.push_back(arith::AddIOp::create(
          b, loc, base[d], cst(layout.getElemOffset(d, idx[d]))));
    return indices;
  }

  /// Whether every dim of `indices` but the fast one is in bounds, and the
  /// fast one for `count` elements from its index.
  Value inBounds(ArrayRef<Value> indices, int64_t count) {
    Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (unsigned d = 0; d < indices.size(); ++d) {
      Value inDim = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          indices[d], dims[d]);
      ok = arith::AndIOp::create(b, loc, ok, inDim);
    }
    if (count > 1) {
      Value end = arith::AddIOp::create(b, loc, indices[fastDim], cst(count));
      Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         end, dims[fastDim]);
      ok = arith::AndIOp::create(b, loc, ok, fits);
    }
    return ok;
  }

  /// Whether the whole window [offsets, offsets + shape) lies in the memref
  /// and its runs are aligned: then every run is one plain vector access.
  Value windowFastPath(ArrayRef<int64_t> shape, ValueRange offsets) {
    Value ok = aligned ? aligned : arith::ConstantIntOp::create(b, loc, 1, 1);
    for (unsigned d = 0; d < shape.size(); ++d) {
      Value end = arith::AddIOp::create(b, loc, offsets[d], cst(shape[d]));
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end,
                                dims[d]));
    }
    return ok;
  }

  /// Condition of the vector fast path for the run starting at `indices`.
  Value fastPath(ArrayRef<Value> indices, Value maskAll) {
    Value ok = arith::AndIOp::create(b, loc, inBounds(indices, width), aligned);
    return maskAll ? arith::AndIOp::create(b, loc, ok, maskAll) : ok;
  }

  /// `indices` with the fast dim moved `delta` elements on.
  SmallVector<Value> shifted(ArrayRef<Value> indices, int64_t delta) {
    SmallVector<Value> result(indices);
    if (delta)
      result[fastDim] =
          arith::AddIOp::create(b, loc, result[fastDim], cst(delta));
    return result;
  }

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

private:
  /// Runs start `width`-aligned along the fast dim; the start of every run
  /// is then `width`-aligned in memory when the memref offset, the window
  /// offset and the other dims' strides are (memref bases are assumed
  /// aligned to 16 bytes, which cudaMalloc/hipMalloc guarantee).
  Value emitAligned(MemRefType type, bool strided, ArrayRef<int64_t> strides,
                    int64_t offset, ValueRange offsets) {
    bool dynamic = !strided || ShapedType::isDynamic(offset) ||
                   llvm::any_of(strides, ShapedType::isDynamic);
    memref::ExtractStridedMetadataOp meta;
    if (dynamic)
      meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    auto strideOf = [&](unsigned d) -> Value {
      return ShapedType::isDynamic(strides[d]) ? meta.getStrides()[d]
                                               : cst(strides[d]);
    };
    Value linear = ShapedType::isDynamic(offset) ? meta.getOffset()
                                                 : cst(offset);
    Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value zero = cst(0), w = cst(width);
    for (unsigned d = 0; d < type.getRank(); ++d) {
      // Terms provably a multiple of the width (block offsets such as
      // pid * 128, loop counters stepping by 32) need no runtime test.
      int64_t divisor = offsetDivisors.empty() ? 1 : offsetDivisors[d];
      bool termAligned = !ShapedType::isDynamic(strides[d]) &&
                         (divisor * strides[d]) % width == 0;
      if (!termAligned)
        linear = arith::AddIOp::create(
            b, loc, linear,
            arith::MulIOp::create(b, loc, offsets[d], strideOf(d)));
      // A dim the tile does not step along (extent 1) moves no run.
      if (d == fastDim || layout.getShape()[d] == 1)
        continue;
      Value rem = arith::RemUIOp::create(b, loc, strideOf(d), w);
      ok = arith::AndIOp::create(
          b, loc, ok,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero));
    }
    Value rem = arith::RemUIOp::create(b, loc, linear, w);
    return arith::AndIOp::create(
        b, loc, ok,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero));
  }

  OpBuilder &b;
  Location loc;
  const TileLayout &layout;
  Value memref;
  Value flat; // 1-D view for runs along a dim other than the last
  SmallVector<int64_t> flatStrides;
  unsigned fastDim = 0;
  int64_t width = 1, alignmentBytes = 0;
  SmallVector<Value> base, dims;
  Value aligned;
  ArrayRef<int64_t> offsetDivisors;
};

} // namespace mlir::tcc::tile_to_gpu

#endif // TCC_CONVERSION_TILETOGPU_MEMREFACCESS_H
