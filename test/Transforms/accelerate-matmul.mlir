// tcc-accelerate-matmul: a matmul plan's tile.dot, built on a plain blocked
// accumulator by convert-linalg-to-tile, on the plan's instruction's
// layouts: the accumulator (also as loop-carried value and through the
// epilogue's bias row), the operands, the store.
// RUN: tcc-opt %s -split-input-file --tcc-accelerate-matmul -verify-diagnostics | FileCheck %s

#acc = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#ldA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#ldB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
#row = #tile.slice<{dim = 0, parent = #acc}>

// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[OPB:.*]] = #tile.dot_operand<{opIdx = 1, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[ROW:.*]] = #tile.slice<{dim = 0, parent = #[[MMA]]}>
// CHECK-DAG: #[[LDA:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4]
// CHECK-LABEL: tile.func @mma_sync
// CHECK:         tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[MMA]]>
// CHECK:         scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<64x64xf32, #[[MMA]]>)
// CHECK:           tile.memref_load {{.*}} -> tensor<64x32xf16, #[[LDA]]>
// CHECK:           tile.convert_layout %{{.*}} : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #[[OPA]]>
// CHECK:           tile.convert_layout %{{.*}} : tensor<32x64xf16, #shared> -> tensor<32x64xf16, #[[OPB]]>
// CHECK:           tile.dot %{{.*}}, %{{.*}}, %[[C]] : tensor<64x32xf16, #[[OPA]]>, tensor<32x64xf16, #[[OPB]]> -> tensor<64x64xf32, #[[MMA]]>
// CHECK:         tile.memref_load {{.*}} -> tensor<64xf32, #[[ROW]]>
// CHECK:         tile.broadcast %{{.*}} : tensor<1x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[MMA]]>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : tensor<64x64xf32, #[[MMA]]>
// CHECK:         tile.memref_store {{.*}} : memref<64x64xf32>, tensor<64x64xf32, #[[MMA]]>
tile.func @mma_sync(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %bias: memref<64xf32>, %c: memref<64x64xf32>) attributes {grid_rank = 1 : i32, tcc.num_warps = 4 : i32, tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 64, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %sum = scf.for %k = %c0 to %c64 step %c32 iter_args(%acc = %init) -> (tensor<64x64xf32, #acc>) {
    %la = tile.memref_load %a[%c0, %k] : memref<64x64xf16> -> tensor<64x32xf16, #ldA>
    %lb = tile.memref_load %b[%k, %c0] : memref<64x64xf16> -> tensor<32x64xf16, #ldB>
    %sa = tile.convert_layout %la : tensor<64x32xf16, #ldA> -> tensor<64x32xf16, #shared>
    %sb = tile.convert_layout %lb : tensor<32x64xf16, #ldB> -> tensor<32x64xf16, #shared>
    %oa = tile.convert_layout %sa : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
    %ob = tile.convert_layout %sb : tensor<32x64xf16, #shared> -> tensor<32x64xf16, #opB>
    %d = tile.dot %oa, %ob, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  %r = tile.memref_load %bias[%c0] : memref<64xf32> -> tensor<64xf32, #row>
  %r1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xf32, #row> -> tensor<1x64xf32, #acc>
  %rb = tile.broadcast %r1 : tensor<1x64xf32, #acc> -> tensor<64x64xf32, #acc>
  %out = arith.addf %sum, %rb : tensor<64x64xf32, #acc>
  tile.memref_store %c[%c0, %c0], %out : memref<64x64xf32>, tensor<64x64xf32, #acc>
  tile.return
}

// -----

// AMD MFMA 32x32x8: #tile.amd_mfma version 3, operands of kWidth 4.
#acc = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#ld = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[MFMA:.*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
// CHECK-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MFMA]], kWidth = 4}>
// CHECK-LABEL: tile.func @mfma
// CHECK:         tile.dot {{.*}} : tensor<64x32xf16, #[[OPA]]>, {{.*}} -> tensor<64x64xf32, #[[MFMA]]>
tile.func @mfma(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>) attributes {grid_rank = 1 : i32, tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 64, 32], num_warps = 4, num_stages = 2, mma = mfma_32x32x8>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %la = tile.memref_load %a[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #ld>
  %lb = tile.memref_load %b[%c0, %c0] : memref<32x64xf16> -> tensor<32x64xf16, #ld>
  %sa = tile.convert_layout %la : tensor<64x32xf16, #ld> -> tensor<64x32xf16, #shared>
  %sb = tile.convert_layout %lb : tensor<32x64xf16, #ld> -> tensor<32x64xf16, #shared>
  %oa = tile.convert_layout %sa : tensor<64x32xf16, #shared> -> tensor<64x32xf16, #opA>
  %ob = tile.convert_layout %sb : tensor<32x64xf16, #shared> -> tensor<32x64xf16, #opB>
  %d = tile.dot %oa, %ob, %init : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #acc>
  tile.memref_store %c[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #acc>
  tile.return
}

// -----

// The FMA form (no MMA fits the operands) and a kernel without a plan keep
// their blocked accumulators.
#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#ld = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
// CHECK-LABEL: tile.func @fma
// CHECK:         tile.dot {{.*}} -> tensor<32x64xf32, #blocked>
// CHECK-LABEL: tile.func @no_plan
// CHECK:         tile.dot {{.*}} -> tensor<32x64xf32, #blocked>
tile.func @fma(%a: memref<32x8xf32>, %b: memref<8x64xf32>, %c: memref<32x64xf32>) attributes {grid_rank = 1 : i32, tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [32, 64, 8], num_warps = 4>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = tile.splat %zero : f32 -> tensor<32x64xf32, #acc>
  %la = tile.memref_load %a[%c0, %c0] : memref<32x8xf32> -> tensor<32x8xf32, #ld>
  %lb = tile.memref_load %b[%c0, %c0] : memref<8x64xf32> -> tensor<8x64xf32, #ld>
  %oa = tile.convert_layout %la : tensor<32x8xf32, #ld> -> tensor<32x8xf32, #opA>
  %ob = tile.convert_layout %lb : tensor<8x64xf32, #ld> -> tensor<8x64xf32, #opB>
  %d = tile.dot %oa, %ob, %init : tensor<32x8xf32, #opA>, tensor<8x64xf32, #opB> -> tensor<32x64xf32, #acc>
  tile.memref_store %c[%c0, %c0], %d : memref<32x64xf32>, tensor<32x64xf32, #acc>
  tile.return
}
tile.func @no_plan(%a: memref<32x8xf32>, %b: memref<8x64xf32>, %c: memref<32x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = tile.splat %zero : f32 -> tensor<32x64xf32, #acc>
  %la = tile.memref_load %a[%c0, %c0] : memref<32x8xf32> -> tensor<32x8xf32, #ld>
  %lb = tile.memref_load %b[%c0, %c0] : memref<8x64xf32> -> tensor<8x64xf32, #ld>
  %oa = tile.convert_layout %la : tensor<32x8xf32, #ld> -> tensor<32x8xf32, #opA>
  %ob = tile.convert_layout %lb : tensor<8x64xf32, #ld> -> tensor<8x64xf32, #opB>
  %d = tile.dot %oa, %ob, %init : tensor<32x8xf32, #opA>, tensor<8x64xf32, #opB> -> tensor<32x64xf32, #acc>
  tile.memref_store %c[%c0, %c0], %d : memref<32x64xf32>, tensor<32x64xf32, #acc>
  tile.return
}

// -----

// Two accumulators of different layouts in one matmul kernel: refused.
#acc = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#acc2 = #tile.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#ld = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
#opA2 = #tile.dot_operand<{opIdx = 0, parent = #acc2, kWidth = 0}>
#opB2 = #tile.dot_operand<{opIdx = 1, parent = #acc2, kWidth = 0}>
tile.func @two_layouts(%a: memref<64x32xf16>, %b: memref<32x64xf16>) attributes {grid_rank = 1 : i32, tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 64, 32], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %init = tile.splat %zero : f32 -> tensor<64x64xf32, #acc>
  %init2 = tile.splat %zero : f32 -> tensor<64x64xf32, #acc2>
  %la = tile.memref_load %a[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #ld>
  %lb = tile.memref_load %b[%c0, %c0] : memref<32x64xf16> -> tensor<32x64xf16, #ld>
  %oa = tile.convert_layout %la : tensor<64x32xf16, #ld> -> tensor<64x32xf16, #opA>
  %ob = tile.convert_layout %lb : tensor<32x64xf16, #ld> -> tensor<32x64xf16, #opB>
  %oa2 = tile.convert_layout %la : tensor<64x32xf16, #ld> -> tensor<64x32xf16, #opA2>
  %ob2 = tile.convert_layout %lb : tensor<32x64xf16, #ld> -> tensor<32x64xf16, #opB2>
  %d = tile.dot %oa, %ob, %init : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #acc>
  // expected-error@+1 {{tcc-accelerate-matmul: the kernel's tile.dot ops have different accumulator layouts}}
  %d2 = tile.dot %oa2, %ob2, %init2 : tensor<64x32xf16, #opA2>, tensor<32x64xf16, #opB2> -> tensor<64x64xf32, #acc2>
  tile.return
}
