// tcc-select-strategy, fma-matmul form, AMD gfx942 (wave64, MFMA): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s

// f32: no tensor-core mapping.
// CHECK-LABEL: func.func @sgemm(
// CHECK: tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [128, 64, 8], num_warps = 4, num_stages = 3>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @sgemm(%arg0: tensor<1024x1024xf32>, %arg1: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1024x1024xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1024x1024xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1024x1024xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%1 : tensor<1024x1024xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1024x1024xf32>
  return %2 : tensor<1024x1024xf32>
}

// -----

// M within one layout coverage: one repetition.
// CHECK-LABEL: func.func @sgemm_small(
// CHECK: tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 4, num_stages = 3>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @sgemm_small(%arg0: tensor<16x333xf32>, %arg1: tensor<333x777xf32>) -> tensor<16x777xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x777xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<16x777xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<16x777xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<16x333xf32>, tensor<333x777xf32>) outs(%1 : tensor<16x777xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<16x777xf32>
  return %2 : tensor<16x777xf32>
}
