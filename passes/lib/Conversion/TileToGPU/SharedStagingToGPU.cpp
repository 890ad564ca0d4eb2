//===- SharedStagingToGPU.cpp - pipelined shared-memory buffers -----------===//
//
// The ops tcc-promote-shared-memory emits:
//
//   tile.shared_alloc     -> a workgroup buffer memref<S x R x C x T, 3>;
//   tile.async_copy       -> NVIDIA (async-copy): one cp.async (nvgpu
//                            .device_async_copy, 16-byte .cg where a run
//                            allows) per piece of each thread's runs, with
//                            the source size cut to what lies in the memref
//                            (cp.async zero-fills the rest), when the runs
//                            are aligned; else a memref_load into registers
//                            and swizzled shared stores (on AMD the stores
//                            move to the group's commit);
//   tile.async_commit_group -> cp.async.commit_group (AMD: the shared
//                            stores of the group's copies, whose loads were
//                            issued at the copies: register-staged prefetch);
//   tile.async_wait       -> cp.async.wait_group N (AMD: nothing), then a
//                            workgroup barrier;
//   tile.shared_load      -> ldmatrix / LDS fragment reads of the slot (FMA
//                            operands: FmaDotToGPU.cpp); into a
//                            #tile.blocked tile: each thread's runs as
//                            vector loads (a walk over a staged row);
//   tile.box_copy         -> (Hopper GEMM operands TMA cannot read; warp ids
//                            modulo the layout's warps) cp.async runs into
//                            the chunk's swizzled rows and
//                            cp.async.mbarrier.arrive.noinc where the rows
//                            are aligned, else memref loads into registers,
//                            swizzled stores and mbarrier.arrive.
//
//===----------------------------------------------------------------------===//
#include "MemRefAccess.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {

int64_t elementBytes(Type type) { return type.getIntOrFloatBitWidth() / 8; }

struct SharedAllocLowering : public TilePattern<tile::SharedAllocOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::SharedAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, getWorkgroupBuffer(op, info,
                                              info.scratch.size() +
                                                  info.sharedBufferOf.at(op)));
    return success();
  }
};

/// The tile.async_commit_group after `copy` in its block (null if none).
Operation *closingCommit(Operation *copy) {
  for (Operation *next = copy->getNextNode(); next; next = next->getNextNode())
    if (isa<tile::AsyncCommitGroupOp>(next))
      return next;
  return nullptr;
}

/// cp.async reads a memref whose minor dim has unit stride: a transposed
/// view (memref.transpose, a B read as stored [N, K]) through its source,
/// at the permuted `indices` (when given); null when there is none.
Value unitStrideSource(Value memref, SmallVector<Value> *indices = nullptr) {
  auto minorUnit = [](Value m) {
    auto type = cast<MemRefType>(m.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           !strides.empty() && strides.back() == 1;
  };
  if (minorUnit(memref))
    return memref;
  auto transpose = memref.getDefiningOp<memref::TransposeOp>();
  if (!transpose || !minorUnit(transpose.getIn()))
    return {};
  if (indices) { // the view's dim i is the source's dim permutation(i)
    AffineMap perm = transpose.getPermutation();
    SmallVector<Value> source(indices->size());
    for (unsigned i = 0; i < indices->size(); ++i)
      source[perm.getDimPosition(i)] = (*indices)[i];
    *indices = std::move(source);
  }
  return transpose.getIn();
}

/// One cp.async per piece of each run. With `clamp`, the source size
/// counts the elements inside the memref (cp.async zero-fills the rest)
/// and a run that starts outside reads nothing, from the memref's first
/// element, so no address leaves the memref.
void emitAsyncRuns(OpBuilder &b, Location loc, const TileLayout &layout,
                   MemRefAccessPlan &plan, const SharedTileRef &dst,
                   ValueRange offsets, Value memref, int64_t piece,
                   bool bypassL1, bool clamp, ThreadIds ids) {
  SmallVector<Value> base = layout.emitThreadBase(b, loc, ids);
  unsigned fast = plan.getFastDim();
  int64_t width = plan.getWidth();
  Value zero = cst(b, loc, 0);
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < layout.getNumElems(); first += width) {
    SmallVector<int64_t> idx = layout.delinearize(first);
    SmallVector<Value> local, global;
    for (unsigned d = 0; d < layout.getRank(); ++d) {
      local.push_back(arith::AddIOp::create(
          b, loc, base[d], cst(b, loc, layout.getElemOffset(d, idx[d]))));
      global.push_back(arith::AddIOp::create(b, loc, local[d], offsets[d]));
    }
    // With `clamp`: the elements of this run inside the memref, and a
    // source address that stays inside it.
    Value left;
    SmallVector<Value> src = global;
    if (clamp) {
      Value inside = plan.inBounds(global, 1);
      left = arith::MinUIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc,
              arith::SelectOp::create(b, loc, inside, plan.getDim(fast),
                                      global[fast]),
              global[fast]),
          cst(b, loc, width));
      for (Value &v : src)
        v = arith::SelectOp::create(b, loc, inside, v, zero);
    }
    for (int64_t p = 0; p < width; p += piece) {
      // Source elements of this piece: clamp(left - p, 0, piece).
      Value pieceLeft =
          clamp ? arith::MinUIOp::create(
                      b, loc,
                      arith::SubIOp::create(
                          b, loc,
                          arith::MaxUIOp::create(b, loc, left, cst(b, loc, p)),
                          cst(b, loc, p)),
                      cst(b, loc, piece))
                      .getResult()
                : Value();
      // The piece's first element: p further along the run's dim.
      SmallVector<Value> at(local);
      if (p)
        at[fast] = arith::AddIOp::create(b, loc, at[fast], cst(b, loc, p));
      SmallVector<Value> srcIndices = plan.shifted(src, p);
      Value source = unitStrideSource(memref, &srcIndices);
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, dst.buffer, dst.indices(b, loc, at[0], at[1]),
          source, srcIndices, b.getIndexAttr(piece), pieceLeft,
          bypassL1 ? b.getUnitAttr() : UnitAttr());
    }
  }
}

/// Elements per cp.async of `plan`'s runs into `dst` (a run cut at swizzle
/// groups), or 0 where cp.async cannot copy them: no async copies on the
/// target, scalar runs, pieces of other than 4, 8 or 16 bytes, or a source
/// with no unit-stride view (unitStrideSource).
int64_t asyncPiece(const KernelInfo &info, const MemRefAccessPlan &plan,
                   const SharedTileRef &dst, Type element, Value memref) {
  int64_t piece = sharedPiece(dst.layout, plan.getWidth());
  int64_t pieceBytes = piece * elementBytes(element);
  bool cpAsync = info.asyncCopy && plan.getWidth() > 1 &&
                 (pieceBytes == 4 || pieceBytes == 8 || pieceBytes == 16) &&
                 unitStrideSource(memref);
  return cpAsync ? piece : 0;
}

/// `aligned(b, loc)` where `plan`'s runs start aligned at run time,
/// `misaligned(b, loc)` otherwise.
void emitIfAligned(OpBuilder &b, Location loc, MemRefAccessPlan &plan,
                   function_ref<void(OpBuilder &, Location)> aligned,
                   function_ref<void(OpBuilder &, Location)> misaligned) {
  auto branch = [](function_ref<void(OpBuilder &, Location)> body) {
    return [body](OpBuilder &bb, Location bl) {
      body(bb, bl);
      scf::YieldOp::create(bb, bl);
    };
  };
  scf::IfOp::create(b, loc, plan.getAligned(), branch(aligned),
                    branch(misaligned));
}

/// The cp.async runs (`piece` elements each, asyncPiece) of a window at
/// `offsets`: without per-run bounds arithmetic when the whole window lies
/// inside the memref (interior tiles), cut at its end otherwise. 16-byte
/// pieces bypass L1. `ids`: the threads' ids (null: those of
/// emitThreadIds).
void emitAsyncWindow(OpBuilder &b, Location loc, const TileLayout &layout,
                     MemRefAccessPlan &plan, const SharedTileRef &dst,
                     ArrayRef<int64_t> shape, ValueRange offsets, Value memref,
                     int64_t piece, unsigned warpSize, const ThreadIds *ids) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  bool bypassL1 = piece * elementBytes(element) == 16;
  Value inside = plan.windowFastPath(shape, offsets);
  auto runs = [&](bool clamp) {
    return [&, clamp](OpBuilder &rb, Location rl) {
      emitAsyncRuns(rb, rl, layout, plan, dst, offsets, memref, piece,
                    bypassL1, clamp,
                    ids ? *ids : emitThreadIds(rb, rl, warpSize));
      scf::YieldOp::create(rb, rl);
    };
  };
  scf::IfOp::create(b, loc, inside, runs(false), runs(true));
}

struct AsyncCopyLowering : public TilePattern<tile::AsyncCopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tileType = op.getTileType();
    TileLayout layout = layoutOf(tileType);
    tile::SharedBufferType bufferType = op.getDst().getType();
    SharedTileRef dst{adaptor.getDst(), {adaptor.getSlot()},
                      bufferType.getEncoding()};
    Value memref = adaptor.getSrc();
    ValueRange offsets = adaptor.getOffsets();
    auto copyThroughRegisters = [&](OpBuilder &b, Location l) {
      Value values = emitMemRefLoad(
          b, l, layout, vectorTypeOf(tileType), tileType.getShape(), memref,
          offsets, info.getOffsetDivisors(op), Value(), Value(), info);
      emitSharedTileStore(b, l, layout, values, dst, info.warpSize);
    };

    MemRefAccessPlan plan(rewriter, loc, layout, memref, offsets,
                          info, info.getOffsetDivisors(op));
    // One cp.async per piece: a thread's run, cut at swizzle groups.
    int64_t piece =
        asyncPiece(info, plan, dst, tileType.getElementType(), memref);
    if (!piece) {
      // Register-staged: the loads now, the stores where the group is
      // committed (after the step's math), when that is in this block.
      if (Operation *commit = closingCommit(op); commit && !info.asyncCopy) {
        Value values = emitMemRefLoad(
            rewriter, loc, layout, vectorTypeOf(tileType), tileType.getShape(),
            memref, offsets, info.getOffsetDivisors(op), Value(), Value(),
            info);
        info.deferredStores[commit].push_back({layout, values, dst});
      } else {
        copyThroughRegisters(rewriter, loc);
      }
      rewriter.eraseOp(op);
      return success();
    }
    // Aligned: cp.async (emitAsyncWindow). Misaligned: through registers.
    emitIfAligned(
        rewriter, loc, plan,
        [&](OpBuilder &b, Location l) {
          emitAsyncWindow(b, l, layout, plan, dst, tileType.getShape(),
                          offsets, memref, piece, info.warpSize, nullptr);
        },
        copyThroughRegisters);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BoxCopyLowering : public TilePattern<tile::BoxCopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::BoxCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType boxType = op.getBoxType();
    tile::BlockedEncodingAttr blocked = op.getLayout();
    TileLayout layout = layoutOf(boxType);
    // The layout's warps run the copy wherever they are in the kernel (a
    // producer warpgroup after the consumers): warp ids modulo its warps.
    ThreadIds ids = emitThreadIds(rewriter, loc, info.warpSize);
    ids.warp = arith::RemUIOp::create(rewriter, loc, ids.warp,
                                      cst(rewriter, loc, layout.getNumWarps()));
    Value memref = adaptor.getSrc();
    ValueRange coords = adaptor.getCoords();
    Value bar = emitMBarrierPointer(rewriter, loc, adaptor.getBarriers(),
                                    adaptor.getBarrier());
    // Stored as the [rows, 64] tile it is (a batched box's leading 1
    // dropped: the same elements per thread, in the same order).
    TileLayout rows = layout;
    if (boxType.getRank() == 3) {
      auto drop = [](ArrayRef<unsigned> v) {
        return SmallVector<unsigned>(v.drop_front());
      };
      SmallVector<unsigned> order;
      for (unsigned d : blocked.getOrder())
        if (d)
          order.push_back(d - 1);
      auto flat = tile::BlockedEncodingAttr::get(
          ctx, drop(blocked.getSizePerThread()),
          drop(blocked.getThreadsPerWarp()), drop(blocked.getWarpsPerCTA()),
          order);
      rows = layoutOf(RankedTensorType::get(boxType.getShape().drop_front(),
                                            boxType.getElementType(), flat));
    }
    SharedTileRef dst{adaptor.getDst(),
                      {adaptor.getSlot(), adaptor.getChunk()},
                      tile::SharedEncodingAttr::get(ctx, 8, 1, 8, {1, 0}),
                      op.getRow() ? cst(rewriter, loc, op.getRow()) : Value()};
    // Through registers: loads (interior windows without per-element
    // bounds), swizzled stores, then this thread's arrival.
    auto throughRegisters = [&](OpBuilder &b, Location l) {
      Value values = emitMemRefLoad(
          b, l, layout, vectorTypeOf(boxType), boxType.getShape(), memref,
          coords, info.getOffsetDivisors(op), Value(), Value(), info, &ids,
          /*interiorFirst=*/true);
      emitSharedTileStore(b, l, rows, values, dst, info.warpSize, &ids);
      NVVM::MBarrierArriveOp::create(b, l, Type(), bar, Value(),
                                     NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
    };
    MemRefAccessPlan plan(rewriter, loc, layout, memref, coords, info,
                          info.getOffsetDivisors(op), &ids);
    int64_t piece =
        asyncPiece(info, plan, dst, boxType.getElementType(), memref);
    if (!piece || boxType.getRank() != 2) {
      throughRegisters(rewriter, loc);
      rewriter.eraseOp(op);
      return success();
    }
    // cp.async runs (interior windows without bounds arithmetic, edge ones
    // cut at the memref's end), their completion this thread's arrival;
    // through registers where the rows turn out misaligned at run time.
    emitIfAligned(
        rewriter, loc, plan,
        [&](OpBuilder &b, Location l) {
          emitAsyncWindow(b, l, layout, plan, dst, boxType.getShape(), coords,
                          memref, piece, info.warpSize, &ids);
          NVVM::CpAsyncMBarrierArriveOp::create(b, l, bar, /*noinc=*/true);
        },
        throughRegisters);
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitGroupLowering
    : public TilePattern<tile::AsyncCommitGroupOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AsyncCommitGroupOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (info.asyncCopy)
      NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    // Register-staged copies of this group: their shared stores.
    if (auto it = info.deferredStores.find(op);
        it != info.deferredStores.end()) {
      for (const KernelInfo::DeferredStore &store : it->second)
        emitSharedTileStore(rewriter, op.getLoc(), store.layout, store.values,
                            store.dst, info.warpSize);
      info.deferredStores.erase(it);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : public TilePattern<tile::AsyncWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (info.asyncCopy)
      NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    rewriter.replaceOpWithNewOp<gpu::BarrierOp>(op);
    return success();
  }
};

/// Reads a 2-D `layout` tile's per-thread vector from `src`, a vector load
/// per piece (emitSharedTileStore's inverse).
Value emitSharedTileLoad(OpBuilder &b, Location loc, const TileLayout &layout,
                         VectorType type, const SharedTileRef &src,
                         unsigned warpSize) {
  Value result =
      arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  forEachSharedPiece(
      b, loc, layout, src, type.getElementType(), warpSize,
      [&](int64_t first, int64_t piece, ArrayRef<Value> indices,
          int64_t alignment) {
        auto part = vector::LoadOp::create(
            b, loc, VectorType::get({piece}, type.getElementType()),
            src.buffer, indices);
        if (alignment)
          part.setAlignment(alignment);
        result = vector::InsertStridedSliceOp::create(
            b, loc, part, result, ArrayRef<int64_t>{first},
            ArrayRef<int64_t>{1});
      });
  return result;
}

struct SharedLoadLowering : public TilePattern<tile::SharedLoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::SharedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SharedTileRef src{adaptor.getSrc(),
                      {adaptor.getSlot()},
                      op.getSrc().getType().getEncoding()};
    VectorType type = vectorTypeOf(op.getType());
    if (isa<tile::BlockedEncodingAttr>(op.getType().getEncoding())) {
      rewriter.replaceOp(op, emitSharedTileLoad(rewriter, op.getLoc(),
                                                layoutOf(op.getType()), type,
                                                src, info.warpSize));
      return success();
    }
    auto load = fmaParentOf(op.getType())    ? emitFmaOperandLoad
                : mfmaParentOf(op.getType()) ? emitMfmaOperandLoad
                                             : emitMmaOperandLoad;
    Value loaded = load(rewriter, op.getLoc(), op.getType(), src, type,
                        info.warpSize);
    rewriter.replaceOp(op, loaded);
    return success();
  }
};

} // namespace

/// What both ways in and out of a slot need: 2-D row-major (or
/// column-major) slots of whole bytes, moved by a `layout` of the same
/// order (`what`: "copies 2-D tiles" / "copied with"; "reads 2-D slots into
/// a #tile.blocked tile" / "read into").
static LogicalResult verifySlots(Operation *op, tile::SharedBufferType buffer,
                                 tile::BlockedEncodingAttr layout,
                                 StringRef what, StringRef moved) {
  if (buffer.getTileShape().size() != 2)
    return op->emitOpError() << "convert-tile-to-gpu " << what << " only";
  if (!isMovableSharedOrder(buffer.getEncoding(), layout))
    return op->emitOpError() << "shared tiles must be row-major (order = [1, "
                                "0]) or column-major (order = [0, 1]) and "
                             << moved << " a layout of the same order";
  if (buffer.getElementType().getIntOrFloatBitWidth() % 8)
    return op->emitOpError("elements must be whole bytes, got ")
           << buffer.getElementType();
  return success();
}

LogicalResult
mlir::tcc::tile_to_gpu::verifyBlockedSharedLoad(tile::SharedLoadOp op) {
  return verifySlots(
      op, op.getSrc().getType(),
      cast<tile::BlockedEncodingAttr>(op.getType().getEncoding()),
      "reads 2-D slots into a #tile.blocked tile", "read into");
}

LogicalResult mlir::tcc::tile_to_gpu::verifyAsyncCopy(tile::AsyncCopyOp op) {
  return verifySlots(op, op.getDst().getType(), op.getLayout(),
                     "copies 2-D tiles", "copied with");
}

void mlir::tcc::tile_to_gpu::populateTileToGPUStagingPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<SharedAllocLowering, AsyncCopyLowering, BoxCopyLowering,
               AsyncCommitGroupLowering,
               AsyncWaitLowering, SharedLoadLowering>(converter, info);
}
