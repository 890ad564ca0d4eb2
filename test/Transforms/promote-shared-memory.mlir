// RUN: tcc-opt %s -split-input-file --tcc-promote-shared-memory --canonicalize | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-promote-shared-memory=num-stages=2 --canonicalize | FileCheck %s --check-prefix=S2
// RUN: tcc-opt %s -split-input-file --tcc-promote-shared-memory=num-stages=1 | FileCheck %s --check-prefix=S1
// RUN: not tcc-opt %s -split-input-file --tcc-promote-shared-memory=num-stages=0 2>&1 | FileCheck %s --check-prefix=ERR

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sha = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shb = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#opa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opb = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>

// A GEMM main loop: A and B go through 3-slot buffers, copies run two K
// steps ahead; the swizzled layouts are kept.
// CHECK-LABEL: tile.func @gemm
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[BA:.*]] = tile.shared_alloc : !tile.shared_buffer<3x128x32xf16, #shared>
// CHECK-DAG: %[[BB:.*]] = tile.shared_alloc : !tile.shared_buffer<3x32x128xf16, #shared1>
// Prologue: K steps 0 and 1 into slots 0 and 1, one group each.
// CHECK: tile.async_copy %arg0[%arg3, %[[C0]]], %[[BA]][%[[C0]]] layout #blocked
// CHECK-NEXT: tile.async_copy %arg1[%[[C0]], %arg4], %[[BB]][%[[C0]]] layout #blocked1
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: tile.async_copy %arg0[%arg3, %[[C32]]], %[[BA]][%[[C1]]]
// CHECK-NEXT: tile.async_copy %arg1[%[[C32]], %arg4], %[[BB]][%[[C1]]]
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: %[[LOOP:.*]]:3 = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %[[C32]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[READ:.*]] = %[[C0]], %[[WRITE:.*]] = %[[C2]])
// CHECK-NEXT: tile.async_wait {pending = 1 : i32}
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[K]], %[[C64]] : index
// CHECK-NEXT: tile.async_copy %arg0[%arg3, %[[AHEAD]]], %[[BA]][%[[WRITE]]]
// CHECK-NEXT: tile.async_copy %arg1[%[[AHEAD]], %arg4], %[[BB]][%[[WRITE]]]
// CHECK-NEXT: %[[OA:.*]] = tile.shared_load %[[BA]][%[[READ]]] : !tile.shared_buffer<3x128x32xf16, #shared> -> tensor<128x32xf16, #dot_op>
// CHECK-NEXT: %[[OB:.*]] = tile.shared_load %[[BB]][%[[READ]]] : !tile.shared_buffer<3x32x128xf16, #shared1> -> tensor<32x128xf16, #dot_op1>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[OA]], %[[OB]], %[[ACC]]
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[READ]], %[[C1]] : index
// CHECK-NEXT: %[[RW:.*]] = arith.cmpi eq, %[[R1]], %[[C3]] : index
// CHECK-NEXT: %[[RN:.*]] = arith.select %[[RW]], %[[C0]], %[[R1]] : index
// CHECK-NEXT: %[[W1:.*]] = arith.addi %[[WRITE]], %[[C1]] : index
// CHECK-NEXT: %[[WW:.*]] = arith.cmpi eq, %[[W1]], %[[C3]] : index
// CHECK-NEXT: %[[WN:.*]] = arith.select %[[WW]], %[[C0]], %[[W1]] : index
// The group closes at the end of the step.
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: scf.yield %[[D]], %[[RN]], %[[WN]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.memref_store %arg2[%arg3, %arg4], %[[LOOP]]#0

// Two slots: one K step ahead, the wait leaves no group pending.
// S2-LABEL: tile.func @gemm
// S2: tile.shared_alloc : !tile.shared_buffer<2x128x32xf16
// S2: tile.async_commit_group
// S2-NOT: tile.async_commit_group
// S2: scf.for
// S2-NEXT: tile.async_wait {pending = 0 : i32}

// One slot: nothing changes.
// S1-LABEL: tile.func @gemm
// S1-NOT: tile.shared_alloc
// S1: tile.memref_load
// S1: tile.convert_layout

// ERR: tcc-promote-shared-memory: num-stages must be from 1 to 8, got 0
tile.func @gemm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>, %m0: index, %n0: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %acc0 = tile.splat %zero : f32 -> tensor<128x128xf32, #mma>
  %r = scf.for %k = %c0 to %c256 step %c32 iter_args(%acc = %acc0) -> (tensor<128x128xf32, #mma>) {
    %a = tile.memref_load %A[%m0, %k] : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
    %b = tile.memref_load %B[%k, %n0] : memref<256x256xf16> -> tensor<32x128xf16, #blocked1>
    %as = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
    %bs = tile.convert_layout %b : tensor<32x128xf16, #blocked1> -> tensor<32x128xf16, #shb>
    %ao = tile.convert_layout %as : tensor<128x32xf16, #sha> -> tensor<128x32xf16, #opa>
    %bo = tile.convert_layout %bs : tensor<32x128xf16, #shb> -> tensor<32x128xf16, #opb>
    %d = tile.dot %ao, %bo, %acc : tensor<128x32xf16, #opa>, tensor<32x128xf16, #opb> -> tensor<128x128xf32, #mma>
    scf.yield %d : tensor<128x128xf32, #mma>
  }
  tile.memref_store %C[%m0, %n0], %r : memref<256x256xf32>, tensor<128x128xf32, #mma>
  tile.return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sha = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#opa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>

// Offsets computed in the loop from the induction variable are recomputed
// for the prologue's and the fetched iteration's step.
// CHECK-LABEL: tile.func @offset_math
// CHECK: tile.async_copy %arg0[%arg1, %c0], %{{.*}}[%c0]
// CHECK: tile.async_copy %arg0[%arg1, %c32], %{{.*}}[%c1]
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c16
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c32 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[AHEAD]], %c2 : index
// CHECK: tile.async_copy %arg0[%arg1, %[[OFF]]]
tile.func @offset_math(%A: memref<256x256xf16>, %m0: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c16 {
    %kk = arith.muli %k, %c2 : index
    %a = tile.memref_load %A[%m0, %kk] : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
    %as = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
    %ao = tile.convert_layout %as : tensor<128x32xf16, #sha> -> tensor<128x32xf16, #opa>
  }
  tile.return
}

