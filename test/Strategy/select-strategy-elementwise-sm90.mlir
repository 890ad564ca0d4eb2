// tcc-select-strategy, elementwise form, NVIDIA sm_90 (warp 32, mma.sync): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// f32 bias + GELU, odd row (777 is no multiple of 4): one flat stream of
// 4-wide vectors, the bias gathered.
// CHECK-LABEL: func.func @bias_gelu(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @bias_gelu(%arg0: tensor<1000x777xf32>, %arg1: tensor<777xf32>) -> tensor<1000x777xf32> {
  %cst = arith.constant 0.797884583 : f32
  %cst_0 = arith.constant 4.471500e-02 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %cst_2 = arith.constant 5.000000e-01 : f32
  %0 = tensor.empty() : tensor<1000x777xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<1000x777xf32>, tensor<777xf32>) outs(%0 : tensor<1000x777xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %2 = arith.addf %in, %in_3 : f32
    %3 = arith.mulf %2, %2 : f32
    %4 = arith.mulf %2, %3 : f32
    %5 = arith.mulf %4, %cst_0 : f32
    %6 = arith.addf %2, %5 : f32
    %7 = arith.mulf %6, %cst : f32
    %8 = math.tanh %7 : f32
    %9 = arith.mulf %2, %cst_2 : f32
    %10 = arith.addf %8, %cst_1 : f32
    %11 = arith.mulf %9, %10 : f32
    linalg.yield %11 : f32
  } -> tensor<1000x777xf32>
  return %1 : tensor<1000x777xf32>
}

// -----

// bf16: 8-wide vectors, whole-row blocks.
// CHECK-LABEL: func.func @add_bf16(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_bf16(%arg0: tensor<16384x8192xbf16>, %arg1: tensor<16384x8192xbf16>) -> tensor<16384x8192xbf16> {
  %0 = tensor.empty() : tensor<16384x8192xbf16>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<16384x8192xbf16>, tensor<16384x8192xbf16>) outs(%0 : tensor<16384x8192xbf16>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: bf16):
    %2 = arith.addf %in, %in_0 : bf16
    linalg.yield %2 : bf16
  } -> tensor<16384x8192xbf16>
  return %1 : tensor<16384x8192xbf16>
}

// -----

// rank 1: one row.
// CHECK-LABEL: func.func @relu_1d(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4>
#map = affine_map<(d0) -> (d0)>
func.func @relu_1d(%arg0: tensor<4096xf16>) -> tensor<4096xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<4096xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<4096xf16>) outs(%0 : tensor<4096xf16>) {
  ^bb0(%in: f16, %out: f16):
    %2 = arith.maximumf %in, %cst : f16
    linalg.yield %2 : f16
  } -> tensor<4096xf16>
  return %1 : tensor<4096xf16>
}
