// Column-major shared tiles (order [0, 1]): a B slice [BK, BN] read as
// stored [N, K] (x @ w.T on mma.sync). The workgroup buffer holds the
// transposed [BN, BK] image; cp.async reads the transposed view through its
// source (unit stride along K) at the swapped indices, the value form stores
// 16-byte runs down the columns, and ldmatrix reads the B fragments without
// .trans. Row-major A beside it as before.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --convert-tile-to-gpu | FileCheck %s

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkT = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shT = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>

// CHECK-LABEL: gpu.func @stage_nt
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<2x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BUFB:.*]] : memref<2x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[BUF]][{{.*}}], 8 {bypassL1} : memref<64x32xf16> to memref<2x64x32xf16, #gpu.address_space<workgroup>>
// B: from %arg1 itself (W [64, 32], K contiguous), not its transposed view.
// CHECK: nvgpu.device_async_copy %arg1[%[[N:.*]], %[[K:.*]]], %[[BUFB]][%arg3, %{{.*}}, %{{.*}}], 8 {bypassL1} : memref<64x32xf16> to memref<2x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[BUF]][%arg3, %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[BUFB]][%arg3, %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-NOT: transpose = true
// CHECK: nvvm.mma.sync
tile.func @stage_nt(%A: memref<64x32xf16>, %W: memref<64x32xf16>, %C: memref<64x64xf32>, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  %bufB = tile.shared_alloc : !tile.shared_buffer<2x32x64xf16, #shT>
  %wt = memref.transpose %W (d0, d1) -> (d1, d0) : memref<64x32xf16> to memref<32x64xf16, strided<[1, 32]>>
  tile.async_copy %A[%c0, %c0], %buf[%slot] layout #blk : memref<64x32xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_copy %wt[%c0, %c0], %bufB[%slot] layout #blkT : memref<32x64xf16, strided<[1, 32]>> -> !tile.shared_buffer<2x32x64xf16, #shT>
  tile.async_commit_group
  tile.async_wait {pending = 0 : i32}
  %a = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x64x32xf16, #sh> -> tensor<64x32xf16, #opA>
  %b = tile.shared_load %bufB[%slot] : !tile.shared_buffer<2x32x64xf16, #shT> -> tensor<32x64xf16, #opB>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mma>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

#blkT = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shT = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>

// The value form (no pipelining): each thread's 8-element run down dim 0 is
// one 16-byte vector load (K contiguous in W) and one aligned vector store
// into the [64, 32] image.
// CHECK-LABEL: gpu.func @value_nt
// CHECK-SAME: workgroup(%[[SB:.*]] : memref<64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2048xf16, strided<[1]>>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[SB]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
tile.func @value_nt(%W: memref<64x32xf16>, %out: memref<128xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %wt = memref.transpose %W (d0, d1) -> (d1, d0) : memref<64x32xf16> to memref<32x64xf16, strided<[1, 32]>>
  %t = tile.memref_load %wt[%c0, %c0] : memref<32x64xf16, strided<[1, 32]>> -> tensor<32x64xf16, #blkT>
  %s = tile.convert_layout %t : tensor<32x64xf16, #blkT> -> tensor<32x64xf16, #shT>
  %b = tile.convert_layout %s : tensor<32x64xf16, #shT> -> tensor<32x64xf16, #opB>
  tile.return
}
