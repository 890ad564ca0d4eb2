// A lowering_config written by hand is kept by tcc-select-strategy and
// obeyed by convert-linalg-to-tile (block, warps, MMA) and
// tcc-promote-shared-memory (num_stages), whatever the options say.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy="num-warps=8 num-stages=4" | FileCheck %s --check-prefix=KEPT
// RUN: tcc-opt %s -split-input-file --tcc-linalg-to-tile="target=sm_90 num-warps=8 num-stages=4" | FileCheck %s

// KEPT-LABEL: func.func @add(
// KEPT: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 2>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
// CHECK-LABEL: tile.func @add(
// CHECK-SAME: tcc.grid = array<i64: 512, 1, 1>
// CHECK-SAME: tcc.num_warps = 2 : i32
// CHECK-SAME: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 2>
// CHECK: tile.memref_load {{.*}} -> tensor<8x256xf32, #[[B]]>
// (A row-vector operand keeps the [1024, 1024] space from collapsing.)
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @add(%x: tensor<1024x1024xf32>, %y: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #cols, #id], iterator_types = ["parallel", "parallel"],
                       tile.lowering_config = #tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 2>}
      ins(%x, %y : tensor<1024x1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A GEMM on 64 x 128 blocks, 2 warps, 2 stages.
// KEPT-LABEL: func.func @gemm(
// KEPT: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 32], num_warps = 2, num_stages = 2, mma = mma_sync_m16n8k16>
// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
// CHECK-LABEL: tile.func @gemm(
// CHECK-SAME: tcc.grid = array<i64: 16, 1, 1>
// CHECK-SAME: tcc.num_warps = 2 : i32
// CHECK-DAG: tile.shared_alloc : !tile.shared_buffer<2x64x32xf16
// CHECK-DAG: tile.shared_alloc : !tile.shared_buffer<2x32x128xf16
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32, #[[MMA]]>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @gemm(%x: tensor<256x128xf16>, %w: tensor<128x512xf16>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
                       tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 32], num_warps = 2, num_stages = 2, mma = mma_sync_m16n8k16>}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x512xf16>) outs(%f : tensor<256x512xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %p : tensor<256x512xf32>
}
