// tcc-select-strategy, row-reduction form, AMD gfx942 (wave64, MFMA): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s

// f32 rows of 4096: chunks of BN columns.
// CHECK-LABEL: func.func @row_sum(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [1, 2048], num_warps = 4>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%arg0: tensor<32768x4096xf32>) -> tensor<32768xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<32768xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<32768xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<32768xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<32768x4096xf32>) outs(%1 : tensor<32768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<32768xf32>
  return %2 : tensor<32768xf32>
}

// -----

// a mean: the divide is the epilogue.
// CHECK-LABEL: func.func @row_mean_f16(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [2, 1024], num_warps = 4>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
func.func @row_mean_f16(%arg0: tensor<1000x777xf16>) -> tensor<1000xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 7.770000e+02 : f32
  %0 = tensor.empty() : tensor<1000xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<1000xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1000xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1000x777xf16>) outs(%1 : tensor<1000xf32>) {
  ^bb0(%in: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.addf %5, %out : f32
    linalg.yield %6 : f32
  } -> tensor<1000xf32>
  %3 = tensor.empty() : tensor<1000xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<1000xf32>) outs(%3 : tensor<1000xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.divf %in, %cst_0 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<1000xf16>
  return %4 : tensor<1000xf16>
}
