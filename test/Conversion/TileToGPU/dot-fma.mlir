// The FMA fallback: tile.dot on a #tile.blocked accumulator. Operands come
// from row-major shared tiles (16-byte reads: A's k runs of each owned row,
// B's run of owned columns of each k row) or from registers (through
// scratch); the dot is one vector.fma per k over the thread's accumulators,
// its factors gathered by vector.shuffle.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -verify-diagnostics | FileCheck %s

// The schedule's form (convert-linalg-to-tile's FMA GEMM, one K step):
// 4 warps, 8 rows x 4 columns of C per thread.
// CHECK-LABEL: gpu.func @dot_fma
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<64x8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SB:.*]] : memref<8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// Staging: 16-byte stores between barriers.
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[SA]][%{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<64x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[SB]][%{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<8x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// A: rows r, r + 1, r + 2, r + 3, r + 32, ... (r = 4 * (4 * warp_m + lane_m)),
// each as two 16-byte reads of its 8 k.
// CHECK: %[[WM:.*]] = arith.divui %{{.*}}, %c2 : index
// CHECK: %[[R:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[ROW0:.*]] = arith.addi %{{.*}}, %[[R]] : index
// CHECK: %[[A0:.*]] = vector.load %[[SA]][%[[ROW0]], %c0] {alignment = 16 : i64} : memref<64x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.insert_strided_slice %[[A0]], %{{.*}} {offsets = [0], strides = [1]} : vector<4xf32> into vector<64xf32>
// CHECK: vector.load %[[SA]][%[[ROW0]], %c4] {alignment = 16 : i64}
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW0]], %c1 : index
// CHECK: vector.load %[[SA]][%[[ROW1]], %c0]
// CHECK-COUNT-13: vector.load %[[SA]]
// CHECK-NOT: vector.load %[[SA]]
// B: the thread's 4 columns of each of the 8 k rows.
// CHECK: %[[B0:.*]] = vector.load %[[SB]][%c0, %[[COL:.*]]] {alignment = 16 : i64} : memref<8x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.insert_strided_slice %[[B0]], %{{.*}} {offsets = [0], strides = [1]} : vector<4xf32> into vector<32xf32>
// CHECK: vector.load %[[SB]][%c1, %[[COL]]]
// CHECK-COUNT-6: vector.load %[[SB]]
// Per k: A[row i][k] broadcast over the row's 4 accumulators, B[k][col j]
// repeated over the 8 rows, one fma over the 32 accumulators.
// CHECK: %[[AK:.*]] = vector.shuffle %[[AV:.*]], %[[AV]] [0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24, 32, 32, 32, 32, 40, 40, 40, 40, 48, 48, 48, 48, 56, 56, 56, 56] : vector<64xf32>, vector<64xf32>
// CHECK: %[[BK:.*]] = vector.shuffle %[[BV:.*]], %[[BV]] [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3] : vector<32xf32>, vector<32xf32>
// CHECK: %[[D0:.*]] = vector.fma %[[AK]], %[[BK]], %{{.*}} : vector<32xf32>
// CHECK: vector.shuffle %[[AV]], %[[AV]] [1, 1, 1, 1, 9, 9, 9, 9,
// CHECK: vector.shuffle %[[BV]], %[[BV]] [4, 5, 6, 7, 4, 5, 6, 7,
// CHECK: %[[D1:.*]] = vector.fma %{{.*}}, %{{.*}}, %[[D0]] : vector<32xf32>
// CHECK-COUNT-6: vector.fma
// CHECK-NOT: vector.fma
// The accumulator is stored from its blocked layout: 16-byte runs.
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#la = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#lb = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
tile.func @dot_fma(%A: memref<64x8xf32>, %B: memref<8x64xf32>, %C: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %a = tile.memref_load %A[%c0, %c0] : memref<64x8xf32> -> tensor<64x8xf32, #la>
  %b = tile.memref_load %B[%c0, %c0] : memref<8x64xf32> -> tensor<8x64xf32, #lb>
  %as = tile.convert_layout %a : tensor<64x8xf32, #la> -> tensor<64x8xf32, #sh>
  %bs = tile.convert_layout %b : tensor<8x64xf32, #lb> -> tensor<8x64xf32, #sh>
  %ao = tile.convert_layout %as : tensor<64x8xf32, #sh> -> tensor<64x8xf32, #opA>
  %bo = tile.convert_layout %bs : tensor<8x64xf32, #sh> -> tensor<8x64xf32, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<64x8xf32, #opA>, tensor<8x64xf32, #opB> -> tensor<64x64xf32, #acc>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #acc>
  tile.return
}

// -----

// A pipelined buffer's slot (tcc-promote-shared-memory's tile.shared_load):
// the same reads, behind the slot index, at swizzled columns when the buffer
// is swizzled (runs then stay inside one vec group: 2 elements here).
// CHECK-LABEL: gpu.func @dot_fma_slot
// CHECK-SAME: workgroup(%[[BA:.*]] : memref<3x64x8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BB:.*]] : memref<3x8x64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: vector.load %[[BA]][%arg1, %[[ROW:.*]], %{{.*}}] {alignment = 8 : i64} : memref<3x64x8xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: arith.xori %{{.*}}, %c1 : index
// CHECK: vector.load %[[BA]][%arg1, %[[ROW]], %{{.*}}] {alignment = 8 : i64}
// CHECK-COUNT-30: vector.load %[[BA]][%arg1,
// CHECK: vector.load %[[BB]][%arg1, %c0, %{{.*}}] {alignment = 16 : i64} : memref<3x8x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-8: vector.fma
#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#shA = #tile.shared<{vec = 2, perPhase = 4, maxPhase = 4, order = [1, 0]}>
#sh = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
tile.func @dot_fma_slot(%C: memref<64x64xf32>, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %bufA = tile.shared_alloc : !tile.shared_buffer<3x64x8xf32, #shA>
  %bufB = tile.shared_alloc : !tile.shared_buffer<3x8x64xf32, #sh>
  tile.async_wait {pending = 1 : i32}
  %a = tile.shared_load %bufA[%slot] : !tile.shared_buffer<3x64x8xf32, #shA> -> tensor<64x8xf32, #opA>
  %b = tile.shared_load %bufB[%slot] : !tile.shared_buffer<3x8x64xf32, #sh> -> tensor<8x64xf32, #opB>
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %d = tile.dot %a, %b, %acc : tensor<64x8xf32, #opA>, tensor<8x64xf32, #opB> -> tensor<64x64xf32, #acc>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #acc>
  tile.return
}

// -----

// Operands from registers (any distributed layout) go through scratch:
// write, barrier, read the operand runs, barrier. f16 operands are widened
// to the f32 accumulator before the fma. One warp, 2 x 2 per thread.
// CHECK-LABEL: gpu.func @dot_fma_registers
// CHECK-SAME: workgroup(%[[S:.*]] : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.load %[[S]][%{{.*}}] {alignment = 8 : i64} : memref<64xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.load %[[S]][%{{.*}}] {alignment = 4 : i64} : memref<64xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: gpu.barrier
// CHECK: %[[X:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 0, 4, 4] : vector<8xf16>, vector<8xf16>
// CHECK: %[[Y:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 0, 1] : vector<8xf16>, vector<8xf16>
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : vector<4xf16> to vector<4xf32>
// CHECK: %[[YF:.*]] = arith.extf %[[Y]] : vector<4xf16> to vector<4xf32>
// CHECK: vector.fma %[[XF]], %[[YF]], %{{.*}} : vector<4xf32>
// CHECK-COUNT-3: vector.fma
#acc = #tile.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
tile.func @dot_fma_registers(%A: memref<8x4xf16>, %B: memref<4x16xf16>, %C: memref<8x16xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<8x16xf32, #acc>
  %a = tile.memref_load %A[%c0, %c0] : memref<8x4xf16> -> tensor<8x4xf16, #l>
  %b = tile.memref_load %B[%c0, %c0] : memref<4x16xf16> -> tensor<4x16xf16, #l>
  %ao = tile.convert_layout %a : tensor<8x4xf16, #l> -> tensor<8x4xf16, #opA>
  %bo = tile.convert_layout %b : tensor<4x16xf16, #l> -> tensor<4x16xf16, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<8x4xf16, #opA>, tensor<4x16xf16, #opB> -> tensor<8x16xf32, #acc>
  tile.memref_store %C[%c0, %c0], %d : memref<8x16xf32>, tensor<8x16xf32, #acc>
  tile.return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
tile.func @integer_operand(%A: memref<64x8xi32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %A[%c0, %c0] : memref<64x8xi32> -> tensor<64x8xi32, #l>
  // expected-error @below {{'tile.convert_layout' op operand element type must be a float (the FMA fallback of convert-tile-to-gpu: tile.dot on a #tile.blocked accumulator)}}
  %o = tile.convert_layout %a : tensor<64x8xi32, #l> -> tensor<64x8xi32, #opA>
  tile.return
}

// -----

#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
tile.func @operand_not_to_dot(%A: memref<64x8xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %A[%c0, %c0] : memref<64x8xf32> -> tensor<64x8xf32, #l>
  %o = tile.convert_layout %a : tensor<64x8xf32, #l> -> tensor<64x8xf32, #opA>
  // expected-error @below {{'tile.convert_layout' op dot operand tiles feed tile.dot only (the FMA fallback of convert-tile-to-gpu: tile.dot on a #tile.blocked accumulator)}}
  %b = tile.convert_layout %o : tensor<64x8xf32, #opA> -> tensor<64x8xf32, #l>
  tile.return
}

// -----

// The accumulator layout must fit the target's warp (32 lanes here).
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#acc64 = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc64, kWidth = 0}>
tile.func @wave64_layout_on_warp32(%A: memref<64x8xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %A[%c0, %c0] : memref<64x8xf32> -> tensor<64x8xf32, #l>
  // expected-error @below {{has 64 threads per warp but the target's warp size (#tile.target warp_size) is 32}}
  %o = tile.convert_layout %a : tensor<64x8xf32, #l> -> tensor<64x8xf32, #opA>
  tile.return
}
