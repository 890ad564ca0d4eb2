// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --convert-tile-to-gpu | FileCheck %s --check-prefix=AMD

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
#sh = #tile.shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>
#shB = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 4}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 4}>

// MFMA operands read back from a slot with 8-byte LDS loads.
// AMD-LABEL: gpu.func @stage_mfma
// AMD-SAME: workgroup(%[[BUF:.*]] : memref<2x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BUFB:.*]] : memref<2x32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// AMD: vector.store %{{.*}}, %[[BUF]][%arg3, %{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// AMD: gpu.barrier
// AMD: vector.load %[[BUF]][%arg3, %{{.*}}, %{{.*}}] : memref<2x64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// AMD-NOT: nvvm
// AMD: rocdl.mfma.f32.16x16x16f16
tile.func @stage_mfma(%A: memref<256x256xf16>, %C: memref<64x64xf32>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  %bufB = tile.shared_alloc : !tile.shared_buffer<2x32x64xf16, #shB>
  tile.async_copy %A[%m0, %c0], %buf[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_commit_group
  tile.async_wait {pending = 0 : i32}
  %a = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x64x32xf16, #sh> -> tensor<64x32xf16, #opA>
  %b = tile.shared_load %bufB[%slot] : !tile.shared_buffer<2x32x64xf16, #shB> -> tensor<32x64xf16, #opB>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mfma>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mfma>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mfma>
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
#sh = #tile.shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>
#shB = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 4}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 4}>

// Register-staged prefetch: the next slot's global loads are issued at the
// copy, their LDS stores wait for the commit after this step's MFMAs.
// AMD-LABEL: gpu.func @deferred_stores
// AMD-SAME: workgroup(%[[BUF:.*]] : memref<2x64x32xf16
// AMD: vector.load %arg0
// AMD-NOT: vector.store %{{.*}}, %[[BUF]]
// AMD: rocdl.mfma.f32.16x16x16f16
// AMD: vector.store %{{.*}}, %[[BUF]][%arg2, %{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
tile.func @deferred_stores(%A: memref<256x256xf16>, %C: memref<64x64xf32>, %write: index, %read: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  %bufB = tile.shared_alloc : !tile.shared_buffer<2x32x64xf16, #shB>
  tile.async_copy %A[%c0, %c0], %buf[%write] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  %a = tile.shared_load %buf[%read] : !tile.shared_buffer<2x64x32xf16, #sh> -> tensor<64x32xf16, #opA>
  %b = tile.shared_load %bufB[%read] : !tile.shared_buffer<2x32x64xf16, #shB> -> tensor<32x64xf16, #opB>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mfma>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mfma>
  tile.async_commit_group
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mfma>
  tile.return
}
