//===- TmaOpsToGPU.cpp - TMA copies and mbarriers to NVVM -----------------===//
//
// The Hopper (sm_90) data-movement ops of the tile dialect:
//
//   tile.mbarrier_alloc  -> a workgroup buffer memref<N x i64, 3>; thread 0
//                           runs mbarrier.init on each barrier, then
//                           fence.mbarrier_init and a workgroup barrier;
//   tile.mbarrier_arrive -> mbarrier.arrive (.expect_tx with a byte count);
//   tile.mbarrier_wait   -> mbarrier.try_wait.parity (the NVVM op loops
//                           until the phase completed);
//   tile.tma_load        -> cp.async.bulk.tensor.{2,3}d.shared::cluster
//                           .global.mbarrier::complete_tx::bytes from the
//                           tensor map kernel parameter into the slot's
//                           chunk (outermost coordinate last in PTX order);
//   tile.tma_store       -> the tile's threads write their runs into the
//                           swizzled staging chunks between named barriers
//                           (after fence.proxy.async.shared::cta), thread 0
//                           stores each chunk with cp.async.bulk.tensor
//                           .global.shared::cta and commits the bulk group
//                           (having waited for the previous group's reads);
//   tile.tma_store_wait  -> thread 0's cp.async.bulk.wait_group 0.
//
// Buffers the copies write are [slots, chunks, rows, 64] 16-bit tiles in
// the 128-byte swizzle: chunk c of slot s starts (s * chunks + c) * rows *
// 128 bytes into the buffer, which the kernel analysis aligns to 1024 bytes
// (the swizzle pattern's period).
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

Value mlir::tcc::tile_to_gpu::emitSharedAddress(OpBuilder &b, Location loc,
                                                Value memref) {
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), base);
}

Value mlir::tcc::tile_to_gpu::emitSharedPointer(OpBuilder &b, Location loc,
                                                Value address) {
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), wide);
}

Value mlir::tcc::tile_to_gpu::emitSlotChunkAddress(OpBuilder &b, Location loc,
                                                   tile::SharedBufferType type,
                                                   Value buffer, Value slot,
                                                   Value chunk) {
  ArrayRef<int64_t> tile = type.getTileShape();
  int64_t chunkBytes = tile[1] * tile[2] * 2;
  Value base = emitSharedAddress(b, loc, buffer);
  auto i32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  };
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  };
  Value index = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, i32(slot), c32(tile[0])),
      i32(chunk));
  return arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, index, c32(chunkBytes)));
}

Value mlir::tcc::tile_to_gpu::emitMBarrierPointer(OpBuilder &b, Location loc,
                                                  Value barriers,
                                                  Value index) {
  Value base = emitSharedAddress(b, loc, barriers);
  Value offset = arith::MulIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index),
      arith::ConstantIntOp::create(b, loc, 8, 32));
  return emitSharedPointer(b, loc, arith::AddIOp::create(b, loc, base, offset));
}

namespace {

struct MBarrierAllocLowering : public TilePattern<tile::MBarrierAllocOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value buffer = getWorkgroupBuffer(
        op, info, info.scratch.size() + info.sharedBufferOf.at(op));
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, cst(rewriter, loc, 0));
    auto init = scf::IfOp::create(rewriter, loc, first, /*else=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&init.getThenRegion().front());
      Value count = arith::ConstantIntOp::create(rewriter, loc,
                                                 op.getArrivals(), 32);
      for (int64_t i = 0; i < op.getType().getCount(); ++i)
        NVVM::MBarrierInitOp::create(
            rewriter, loc,
            emitMBarrierPointer(rewriter, loc, buffer, cst(rewriter, loc, i)),
            count, /*predicate=*/Value());
      NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    }
    gpu::BarrierOp::create(rewriter, loc);
    rewriter.replaceOp(op, buffer);
    return success();
  }
};

struct MBarrierArriveLowering : public TilePattern<tile::MBarrierArriveOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = emitMBarrierPointer(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getIndex());
    if (Value cta = adaptor.getCta()) {
      // The same barrier in CTA `cta` of the cluster: its shared::cluster
      // address. The arrival keeps the default .release.cta semantics
      // (CUTLASS's ClusterBarrier::arrive): the slot's readers are wgmma,
      // retired at their warpgroup_wait; .release.cluster costs two
      // MEMBAR.ALL.GPU per arrival in SASS (measured: 4096^3 at 442
      // TFLOP/s instead of the unclustered 652).
      Value remote = NVVM::MapaOp::create(
          rewriter, loc,
          LLVM::LLVMPointerType::get(rewriter.getContext(), 7), bar,
          arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI32Type(),
                                       cta));
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), remote, Value(),
                                     NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
      rewriter.eraseOp(op);
      return success();
    }
    if (std::optional<int64_t> bytes = op.getExpectTx()) {
      Value tx = arith::ConstantIntOp::create(rewriter, loc, *bytes, 32);
      NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), bar, tx,
                                             NVVM::MemScopeKind::CTA,
                                             /*relaxed=*/false,
                                             /*predicate=*/Value());
    } else {
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), bar, Value(),
                                     NVVM::MemScopeKind::CTA,
                                     /*relaxed=*/false);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : public TilePattern<tile::MBarrierWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = emitMBarrierPointer(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getIndex());
    Value parity = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI32Type(),
        arith::RemUIOp::create(rewriter, loc, adaptor.getParity(),
                               cst(rewriter, loc, 2)));
    // A suspend-time hint of 0x989680 ns (10 ms, CUTLASS's) per try.
    Value ticks = arith::ConstantIntOp::create(rewriter, loc, 0x989680, 32);
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, bar, parity, ticks);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaLoadLowering : public TilePattern<tile::TmaLoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value address = emitSlotChunkAddress(rewriter, loc, op.getDst().getType(),
                                         adaptor.getDst(), adaptor.getSlot(),
                                         adaptor.getChunk());
    if (int64_t row = op.getRow())
      address = arith::AddIOp::create(
          rewriter, loc, address,
          arith::ConstantIntOp::create(
              rewriter, loc,
              row * op.getDst().getType().getTileShape()[2] * 2, 32));
    Value dst = emitSharedPointer(rewriter, loc, address);
    // The shared::cluster form (PTX 8.0) with this CTA's own address.
    dst = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext(), 7),
        dst);
    Value bar = emitMBarrierPointer(rewriter, loc, adaptor.getBarriers(),
                               adaptor.getBarrier());
    // PTX lists box coordinates innermost first.
    SmallVector<Value> coords;
    for (Value c : llvm::reverse(adaptor.getCoords()))
      coords.push_back(arith::IndexCastOp::create(rewriter, loc,
                                                  rewriter.getI32Type(), c));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, dst, adaptor.getMap(), coords, bar,
        /*im2colOffsets=*/ValueRange{}, adaptor.getMulticast(),
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The first thread of each group of `threads` (the one that issues a
/// tile's TMA stores: thread 0 of a tile's warps); thread 0 of the kernel
/// for `threads` = 0.
Value isLeader(OpBuilder &b, Location loc, int64_t threads) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (threads)
    tid = arith::RemUIOp::create(b, loc, tid, cst(b, loc, threads));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                               cst(b, loc, 0));
}

struct TmaStoreLowering : public TilePattern<tile::TmaStoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    TileLayout layout = layoutOf(srcType);
    tile::SharedBufferType bufferType = op.getBuffer().getType();
    int64_t chunks = bufferType.getTileShape()[0];
    auto i32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 32);
    };
    // The tile's threads meet on named barrier 1 + their group (other
    // warps, a TMA producer or the other ping-pong consumer, never reach
    // it); group g is warps [g W, (g + 1) W) of the layout's W.
    // Without consumer groups the tile's threads are the kernel's first
    // ones: barrier 1 and thread 0 as constants, the PTX of the
    // cooperative kernels unchanged.
    int64_t tileThreads = layout.getNumWarps() * info.warpSize;
    Value threads = i32(tileThreads);
    Value barrierId = i32(1);
    if (info.tileWarps) {
      Value group = arith::DivUIOp::create(
          rewriter, loc,
          gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x),
          cst(rewriter, loc, tileThreads));
      barrierId = arith::AddIOp::create(
          rewriter, loc, barrierId,
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                     group));
    }
    int64_t leaders = info.tileWarps ? tileThreads : 0;
    auto sync = [&] {
      NVVM::BarrierOp::create(rewriter, loc, Type(), barrierId, threads,
                              NVVM::BarrierReductionAttr(), Value());
    };
    Value slot = adaptor.getSlot() ? adaptor.getSlot() : cst(rewriter, loc, 0);
    SmallVector<Value> outer;
    for (Value c : adaptor.getCoords())
      outer.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI32Type(), c));
    ThreadIds ids = emitThreadIds(rewriter, loc, info);
    SmallVector<Value> base = layout.emitThreadBase(rewriter, loc, ids);
    auto swizzle = tile::SharedEncodingAttr::get(ctx, 8, 1, 8, {1, 0});
    int64_t run = layout.getSizePerThread(1);
    Value values = adaptor.getSrc();
    // A thread's columns start below 8 (wgmma accumulators: warps tile M
    // only), so each run's chunk is its constant column offset's.
    int64_t rounds = srcType.getDimSize(1) / (chunks * 64);
    for (int64_t round = 0; round < rounds; ++round) {
      // The previous group must have read the buffer.
      auto drain = scf::IfOp::create(rewriter, loc,
                                     isLeader(rewriter, loc, leaders),
                                     /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&drain.getThenRegion().front());
        NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, loc,
                                             rewriter.getI32IntegerAttr(0),
                                             rewriter.getUnitAttr());
      }
      sync();
      for (int64_t e = 0; e < layout.getNumElems(); e += run) {
        SmallVector<int64_t> idx = layout.delinearize(e);
        int64_t colOffset = layout.getElemOffset(1, idx[1]);
        if (colOffset / (chunks * 64) != round)
          continue;
        Value row = arith::AddIOp::create(
            rewriter, loc, base[0],
            cst(rewriter, loc, layout.getElemOffset(0, idx[0])));
        Value inChunk = arith::AddIOp::create(
            rewriter, loc, base[1], cst(rewriter, loc, colOffset % 64));
        Value chunk = cst(rewriter, loc, (colOffset / 64) % chunks);
        Value part = vector::ExtractStridedSliceOp::create(
            rewriter, loc, values, ArrayRef<int64_t>{e},
            ArrayRef<int64_t>{run}, ArrayRef<int64_t>{1});
        vector::StoreOp::create(
            rewriter, loc, part, adaptor.getBuffer(),
            ValueRange{slot, chunk, row,
                       emitSwizzledColumn(rewriter, loc, swizzle, row,
                                          inChunk)});
      }
      // Generic-proxy writes, then the async proxy reads them.
      NVVM::FenceProxyOp::create(
          rewriter, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      sync();
      auto issue = scf::IfOp::create(rewriter, loc,
                                     isLeader(rewriter, loc, leaders),
                                     /*withElse=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&issue.getThenRegion().front());
      for (int64_t ch = 0; ch < chunks; ++ch) {
        Value src = emitSharedPointer(
            rewriter, loc,
            emitSlotChunkAddress(rewriter, loc, bufferType,
                                 adaptor.getBuffer(), slot,
                                 cst(rewriter, loc, ch)));
        // Innermost first: the chunk's first column, its first row, the
        // batch.
        SmallVector<Value> coords(llvm::reverse(outer));
        coords[0] = arith::AddIOp::create(rewriter, loc, coords[0],
                                          i32((round * chunks + ch) * 64));
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            rewriter, loc, adaptor.getMap(), src, coords,
            /*l2CacheHint=*/Value(),
            NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE),
            /*predicate=*/Value());
      }
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : public TilePattern<tile::TmaStoreWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::TmaStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The threads that issued stores: thread 0, or with consumer groups
    // the first thread of each group.
    auto wait = scf::IfOp::create(
        rewriter, loc,
        isLeader(rewriter, loc, info.tileWarps * info.warpSize),
        /*withElse=*/false);
    rewriter.setInsertionPointToStart(&wait.getThenRegion().front());
    NVVM::CpAsyncBulkWaitGroupOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(0), UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUTmaPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<MBarrierAllocLowering, MBarrierArriveLowering,
               MBarrierWaitLowering, TmaLoadLowering, TmaStoreLowering,
               TmaStoreWaitLowering>(converter, info);
}
