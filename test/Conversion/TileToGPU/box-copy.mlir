// convert-tile-to-gpu, tile.box_copy (SharedStagingToGPU.cpp): the Hopper
// GEMM producer's copy of a box TMA cannot read, run by a warpgroup that is
// not the kernel's first (warp ids modulo the layout's 4 warps).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// Rows of 100 f16 (200 bytes: no TMA box, 8-byte aligned): 4-element
// cp.async runs, cut at the memref's end (this window, columns 64..127,
// passes it), into rows 32.. of chunk 1 of slot 1 in the 128-byte swizzle
// (16-byte group (col / 8) xor (row % 8)); this thread's completion is one
// arrival on barrier 1 (8 bytes in).
// CHECK-LABEL: gpu.func @box_copy
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: %[[WARP:.*]] = arith.remui %[[W]], %c4 : index
// CHECK: %[[B1:.*]] = arith.addi %{{.*}}, %c8_i32 : i32
// CHECK: %[[BAR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[WROW:.*]] = arith.muli %[[WARP]], %c2 : index
// CHECK: %[[ROW:.*]] = arith.addi %[[WROW]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[GCOL:.*]] = arith.addi %[[COL]], %c64 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GCOL]], %c100 : index
// CHECK: %[[SROW:.*]] = arith.addi %[[ROW]], %c32 : index
// CHECK: %[[PHASE:.*]] = arith.remui %[[SROW]], %c8 : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[COL]], %c8 : index
// CHECK: arith.xori %[[GROUP]], %[[PHASE]] : index
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %arg1[%c1, %c1, %[[SROW]], %{{.*}}], 4, %{{.*}} : memref<136x100xf16>
// CHECK-COUNT-3: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.mbarrier.arrive %[[BAR]] {noinc = true} : !llvm.ptr<3>
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: gpu.return
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#cp = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @box_copy(%b: memref<136x100xf16>) attributes {grid_rank = 1 : i32, tcc.producer_warps = 8 : i32} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x2x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<2>
  tile.box_copy %b[%c64, %c64], %buf[%c1, %c1], %bars[%c1] layout #cp {row = 32 : i64, rows = 32 : i64} : memref<136x100xf16> -> !tile.shared_buffer<2x2x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

// One box of a batch (the layout's leading dim 1): through registers (2-D
// cp.async runs only), loads of batch 1 with zero past the 50 columns,
// vector stores of the [32, 64] tile (8 runs of 2 per thread), then a
// plain arrival.
// CHECK-LABEL: gpu.func @box_copy_batched
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: memref.load %arg0[%c1, %{{.*}}, %{{.*}}] : memref<2x72x50xf16>
// CHECK: vector.store %{{.*}}, %arg1[%c0, %c0, %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x1x64x64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-COUNT-7: vector.store
// CHECK-NOT: vector.store
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.mbarrier.arrive
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#cp3 = #tile.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
tile.func @box_copy_batched(%b: memref<2x72x50xf16>) attributes {grid_rank = 1 : i32, tcc.producer_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<2>
  tile.box_copy %b[%c1, %c0, %c0], %buf[%c0, %c0], %bars[%c0] layout #cp3 {row = 0 : i64, rows = 32 : i64} : memref<2x72x50xf16> -> !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}
