// tcc-select-strategy, matmul form, NVIDIA sm_80 (warp 32, mma.sync): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy | FileCheck %s

// f16 4096^3: 128 x 128 x 32 blocks.
// CHECK-LABEL: func.func @gemm(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm(%arg0: tensor<4096x4096xf16>, %arg1: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4096x4096xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<4096x4096xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<4096x4096xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%1 : tensor<4096x4096xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<4096x4096xf32>
  %3 = tensor.empty() : tensor<4096x4096xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4096x4096xf32>) outs(%3 : tensor<4096x4096xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<4096x4096xf16>
  return %4 : tensor<4096x4096xf16>
}

// -----

// bf16 with an epilogue: the config is on the matmul.
// CHECK-LABEL: func.func @gemm_bias_gelu(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
func.func @gemm_bias_gelu(%arg0: tensor<1000x512xbf16>, %arg1: tensor<512x777xbf16>, %arg2: tensor<777xf32>) -> tensor<1000x777xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 4.471500e-02 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %cst_3 = arith.constant 5.000000e-01 : f32
  %0 = tensor.empty() : tensor<1000x777xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1000x777xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1000x777xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1000x512xbf16>, tensor<512x777xbf16>) outs(%1 : tensor<1000x777xf32>) {
  ^bb0(%in: bf16, %in_4: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_4 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1000x777xf32>
  %3 = tensor.empty() : tensor<1000x777xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<1000x777xf32>, tensor<777xf32>) outs(%3 : tensor<1000x777xbf16>) {
  ^bb0(%in: f32, %in_4: f32, %out: bf16):
    %5 = arith.addf %in, %in_4 : f32
    %6 = arith.mulf %5, %5 : f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.mulf %7, %cst_1 : f32
    %9 = arith.addf %5, %8 : f32
    %10 = arith.mulf %9, %cst_0 : f32
    %11 = math.tanh %10 : f32
    %12 = arith.mulf %5, %cst_3 : f32
    %13 = arith.addf %11, %cst_2 : f32
    %14 = arith.mulf %12, %13 : f32
    %15 = arith.truncf %14 : f32 to bf16
    linalg.yield %15 : bf16
  } -> tensor<1000x777xbf16>
  return %4 : tensor<1000x777xbf16>
}

// -----

// 64 x 64: 64-wide blocks.
// CHECK-LABEL: func.func @gemm_small(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 64, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_small(%arg0: tensor<64x64xf16>, %arg1: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<64x64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<64x64xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64x64xf16>, tensor<64x64xf16>) outs(%1 : tensor<64x64xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<64x64xf32>
  %3 = tensor.empty() : tensor<64x64xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x64xf32>) outs(%3 : tensor<64x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<64x64xf16>
  return %4 : tensor<64x64xf16>
}

// -----

// batched.
// CHECK-LABEL: func.func @gemm_batched(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @gemm_batched(%arg0: tensor<16x1024x1024xf16>, %arg1: tensor<16x1024x1024xf16>) -> tensor<16x1024x1024xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x1024x1024xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<16x1024x1024xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<16x1024x1024xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<16x1024x1024xf16>, tensor<16x1024x1024xf16>) outs(%1 : tensor<16x1024x1024xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<16x1024x1024xf32>
  %3 = tensor.empty() : tensor<16x1024x1024xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<16x1024x1024xf32>) outs(%3 : tensor<16x1024x1024xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<16x1024x1024xf16>
  return %4 : tensor<16x1024x1024xf16>
}

// -----

// nn.Linear's x @ w.T (w [N, K], K a multiple of 8 halves): the mma.sync
// form reads B as stored (tcc::mmaReadsTransposedB), with BK 64: B's staged
// rows are 128 bytes (whole lines).
// CHECK-LABEL: func.func @linear_nt(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linear_nt(%x: tensor<512x256xf16>, %w: tensor<1024x256xf16>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<512x256xf16>, tensor<1024x256xf16>) outs(%c : tensor<512x1024xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}
