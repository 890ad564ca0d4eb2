// Pipelined shared-memory staging on NVIDIA (tcc-promote-shared-memory's
// ops): 16-byte cp.async with the source size cut at the memref's end when
// the runs are aligned (registers otherwise), commit / wait groups, ldmatrix
// from a slot. AMD: shared-staging-mfma.mlir.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shB = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>

// CHECK-LABEL: gpu.func @stage
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<3x64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BUFB:.*]] : memref<3x32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// 64 x 32 over 128 threads: 2 16-byte runs each, one cp.async.cg per run.
// Rows of 32 halves keep every run 16-byte aligned (no runtime test); a
// window inside the memref copies whole runs, one crossing its end (rows
// past 100) cuts each run's source size to what lies inside.
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[BUF]][%arg3, %{{.*}}, %{{.*}}], 8 {bypassL1} : memref<100x32xf16> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[BUF]][%arg3, %{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK: } else {
// CHECK: arith.select
// CHECK: arith.minui
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[BUF]][%arg3, %{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<100x32xf16> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: }
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[BUF]][%arg3, %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<3x64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[BUFB]][%arg3, %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<3x32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvvm.mma.sync
tile.func @stage(%A: memref<100x32xf16>, %C: memref<64x64xf32>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<3x64x32xf16, #sh>
  %bufB = tile.shared_alloc : !tile.shared_buffer<3x32x64xf16, #shB>
  tile.async_copy %A[%m0, %c0], %buf[%slot] layout #blk : memref<100x32xf16> -> !tile.shared_buffer<3x64x32xf16, #sh>
  tile.async_commit_group
  tile.async_wait {pending = 1 : i32}
  %a = tile.shared_load %buf[%slot] : !tile.shared_buffer<3x64x32xf16, #sh> -> tensor<64x32xf16, #opA>
  %b = tile.shared_load %bufB[%slot] : !tile.shared_buffer<3x32x64xf16, #shB> -> tensor<32x64xf16, #opB>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mma>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// Rows of 30 halves are never 16-byte aligned: no cp.async at all.
// CHECK-LABEL: gpu.func @stage_unaligned
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: memref.load %arg0
// CHECK: vector.store %{{.*}} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.commit.group
tile.func @stage_unaligned(%A: memref<100x30xf16>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %buf[%slot] layout #blk : memref<100x30xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_commit_group
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// A row stride known only at run time: cp.async when it keeps the runs
// aligned, loads into registers and swizzled shared stores otherwise.
// CHECK-LABEL: gpu.func @stage_dynamic
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<2x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy
// CHECK: } else {
// CHECK: vector.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<2x64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: }
// CHECK: nvvm.cp.async.commit.group
tile.func @stage_dynamic(%A: memref<?x?xf16>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %buf[%slot] layout #blk : memref<?x?xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  tile.async_commit_group
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// Column offsets from a loop counter stepping by 32 (and 32 ahead) are
// multiples of 8 halves: the copies need no alignment test (only the
// window test); an odd step brings it back (and the register path).
// CHECK-LABEL: gpu.func @stage_loop
// CHECK: scf.for
// CHECK-NOT: memref.load
// CHECK: scf.for
// CHECK: memref.load %arg0
tile.func @stage_loop(%A: memref<100x256xf16>, %m0: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  scf.for %k = %c0 to %c256 step %c32 {
    %ahead = arith.addi %k, %c32 : index
    tile.async_copy %A[%m0, %ahead], %buf[%c0] layout #blk : memref<100x256xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  }
  scf.for %k = %c0 to %c256 step %c3 {
    tile.async_copy %A[%m0, %k], %buf[%c0] layout #blk : memref<100x256xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  }
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shS = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A slot read back into a #tile.blocked tile (a softmax walk over its
// staged row): each thread's two 8-element runs as 16-byte vector loads of
// the slot; in a swizzled buffer, one load per swizzle group (four of 4).
// CHECK-LABEL: gpu.func @read_blocked
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: vector.load %{{.*}}[%arg1, %{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<4x1x2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.load %{{.*}} : memref<4x1x2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [8], strides = [1]} : vector<8xf16> into vector<16xf16>
// CHECK-NOT: vector.load %{{.*}} : memref<4x1x2048xf16
// CHECK-COUNT-4: vector.load %{{.*}} : memref<2x1x2048xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-NOT: vector.load %{{.*}} : memref<2x1x2048xf16
tile.func @read_blocked(%x: memref<1x4096xf16>, %slot: index, %y: memref<1x4096xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<4x1x2048xf16, #sh>
  %bufS = tile.shared_alloc : !tile.shared_buffer<2x1x2048xf16, #shS>
  tile.async_copy %x[%c0, %c0], %buf[%slot] layout #blk : memref<1x4096xf16> -> !tile.shared_buffer<4x1x2048xf16, #sh>
  tile.async_copy %x[%c0, %c0], %bufS[%slot] layout #blk : memref<1x4096xf16> -> !tile.shared_buffer<2x1x2048xf16, #shS>
  tile.async_commit_group
  tile.async_wait {pending = 0 : i32}
  %t = tile.shared_load %buf[%slot] : !tile.shared_buffer<4x1x2048xf16, #sh> -> tensor<1x2048xf16, #blk>
  %s = tile.shared_load %bufS[%slot] : !tile.shared_buffer<2x1x2048xf16, #shS> -> tensor<1x2048xf16, #blk>
  %sum = arith.addf %t, %s : tensor<1x2048xf16, #blk>
  tile.memref_store %y[%c0, %c0], %sum : memref<1x4096xf16>, tensor<1x2048xf16, #blk>
  tile.return
}
