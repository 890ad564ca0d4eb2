// tcc-select-strategy, matmul form, NVIDIA sm_90 (wgmma fed by TMA): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// f16 4096^3: 128 x 256 x 64 blocks (two consumer warpgroups and a producer:
// 12 warps), 4 stages of 48 KiB.
// CHECK-LABEL: func.func @gemm(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>

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

// B [512, 777] bf16: rows of 1554 bytes are no TMA box nor whole 4-byte
// cp.async runs: the mma.sync plan.
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

// B [512, 778] bf16: rows of 1556 bytes are no TMA box, but whole 4-byte
// cp.async runs: the wgmma plan (the producer copies B's boxes), 128 x 128
// for 8 x 7 blocks.
// CHECK-LABEL: func.func @gemm_bias_gelu_copied(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 6, mma = wgmma_m64nNk16>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
func.func @gemm_bias_gelu_copied(%arg0: tensor<1000x512xbf16>, %arg1: tensor<512x778xbf16>, %arg2: tensor<778xf32>) -> tensor<1000x778xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0.797884583 : f32
  %cst_1 = arith.constant 4.471500e-02 : f32
  %cst_2 = arith.constant 1.000000e+00 : f32
  %cst_3 = arith.constant 5.000000e-01 : f32
  %0 = tensor.empty() : tensor<1000x778xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1000x778xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1000x778xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1000x512xbf16>, tensor<512x778xbf16>) outs(%1 : tensor<1000x778xf32>) {
  ^bb0(%in: bf16, %in_4: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_4 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1000x778xf32>
  %3 = tensor.empty() : tensor<1000x778xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<1000x778xf32>, tensor<778xf32>) outs(%3 : tensor<1000x778xbf16>) {
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
  } -> tensor<1000x778xbf16>
  return %4 : tensor<1000x778xbf16>
}

// -----

// 64 x 64: one 64 x 64 block on one consumer warpgroup (8 warps), 6 stages.
// CHECK-LABEL: func.func @gemm_small(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 64, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16>
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

// batched 16 x 1024^3: 512 blocks of 128 x 256 (4 waves of 132 SMs).
// CHECK-LABEL: func.func @gemm_batched(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>
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

// x @ w.T, 1000^3: B read as (n, k) through the descriptors (no transpose
// kernel); 128 blocks of 64 x 128 in 2 x 1 clusters (one round on every SM;
// 64 blocks of 128 x 128 would run on half of them).
// CHECK-LABEL: func.func @linear(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16, cluster = [2, 1]>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linear(%arg0: tensor<1000x1000xf16>, %arg1: tensor<1000x1000xf16>) -> tensor<1000x1000xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1000x1000xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1000x1000xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1000x1000xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1000x1000xf16>, tensor<1000x1000xf16>) outs(%1 : tensor<1000x1000xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1000x1000xf32>
  return %2 : tensor<1000x1000xf32>
}

// -----

// An epilogue that reads a whole [M, N] bf16 tile beside the accumulator
// (SwiGLU's silu(x @ w1.T) * (x @ w3.T)): 128 x 256 would hold 128 + 64
// registers per consumer thread and spill, so 128 x 128 (64 + 32). A bias
// row keeps 128 x 256 (the first case of this file's kind, @gemm_bias).
// Both in 2 x 1 clusters; 128 x 128 blocks only with more blocks than SMs
// (at 1280 x 1280, 100 blocks, none; 64 x 128's 200 would take two rounds).
// CHECK-LABEL: func.func @gemm_tile_epilogue(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 6, mma = wgmma_m64nNk16, cluster = [2, 1]>
// CHECK-LABEL: func.func @gemm_bias(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>
// CHECK-LABEL: func.func @gemm_tile_epilogue_few(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 6, mma = wgmma_m64nNk16>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @gemm_tile_epilogue(%a: tensor<4096x1024xbf16>, %b: tensor<1024x4096xbf16>, %g: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4096x4096xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4096x1024xbf16>, tensor<1024x4096xbf16>) outs(%1 : tensor<4096x4096xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_0 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<4096x4096xf32>
  %3 = tensor.empty() : tensor<4096x4096xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %g : tensor<4096x4096xf32>, tensor<4096x4096xbf16>) outs(%3 : tensor<4096x4096xbf16>) {
  ^bb0(%in: f32, %gate: bf16, %out: bf16):
    %5 = arith.extf %gate : bf16 to f32
    %6 = arith.mulf %in, %5 : f32
    %7 = arith.truncf %6 : f32 to bf16
    linalg.yield %7 : bf16
  } -> tensor<4096x4096xbf16>
  return %4 : tensor<4096x4096xbf16>
}

func.func @gemm_bias(%a: tensor<4096x1024xbf16>, %b: tensor<1024x4096xbf16>, %bias: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4096x4096xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4096x1024xbf16>, tensor<1024x4096xbf16>) outs(%1 : tensor<4096x4096xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_0 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<4096x4096xf32>
  %3 = tensor.empty() : tensor<4096x4096xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %bias : tensor<4096x4096xf32>, tensor<4096xbf16>) outs(%3 : tensor<4096x4096xbf16>) {
  ^bb0(%in: f32, %bv: bf16, %out: bf16):
    %5 = arith.extf %bv : bf16 to f32
    %6 = arith.addf %in, %5 : f32
    %7 = arith.truncf %6 : f32 to bf16
    linalg.yield %7 : bf16
  } -> tensor<4096x4096xbf16>
  return %4 : tensor<4096x4096xbf16>
}

func.func @gemm_tile_epilogue_few(%a: tensor<1280x1280xbf16>, %b: tensor<1280x1280xbf16>, %g: tensor<1280x1280xbf16>) -> tensor<1280x1280xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1280x1280xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1280x1280xf32>) -> tensor<1280x1280xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1280x1280xbf16>, tensor<1280x1280xbf16>) outs(%1 : tensor<1280x1280xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_0 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1280x1280xf32>
  %3 = tensor.empty() : tensor<1280x1280xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %g : tensor<1280x1280xf32>, tensor<1280x1280xbf16>) outs(%3 : tensor<1280x1280xbf16>) {
  ^bb0(%in: f32, %gate: bf16, %out: bf16):
    %5 = arith.extf %gate : bf16 to f32
    %6 = arith.mulf %in, %5 : f32
    %7 = arith.truncf %6 : f32 to bf16
    linalg.yield %7 : bf16
  } -> tensor<1280x1280xbf16>
  return %4 : tensor<1280x1280xbf16>
}

// -----

// Split-K: 256x256x65536 NT, 8 unsplit tiles of 64 x 128 on 132 SMs; 4 of
// 128 x 128 with S = min(16, 132 / 4, 1024 k steps / 32) = 16.
// CHECK-LABEL: func.func @gemm_long_k(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 6, mma = wgmma_m64nNk16, split_k = 16>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_long_k(%arg0: tensor<256x65536xf16>, %arg1: tensor<256x65536xf16>) -> tensor<256x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x65536xf16>, tensor<256x65536xf16>) outs(%1 : tensor<256x256xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<256x256xf32>
  %3 = tensor.empty() : tensor<256x256xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x256xf32>) outs(%3 : tensor<256x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<256x256xf16>
  return %4 : tensor<256x256xf16>
}

// -----

// 512x512x16384 NN bf16: 16 tiles of 128 x 128, S = 132 / 16 = 8 (one wave
// of 128 items; 16 would make two).
// CHECK-LABEL: func.func @gemm_long_k_bf16(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 6, mma = wgmma_m64nNk16, split_k = 8>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_long_k_bf16(%arg0: tensor<512x16384xbf16>, %arg1: tensor<16384x512xbf16>) -> tensor<512x512xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<512x16384xbf16>, tensor<16384x512xbf16>) outs(%1 : tensor<512x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %5 = arith.extf %in : bf16 to f32
    %6 = arith.extf %in_0 : bf16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<512x512xf32>
  %3 = tensor.empty() : tensor<512x512xbf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<512x512xf32>) outs(%3 : tensor<512x512xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %5 = arith.truncf %in : f32 to bf16
    linalg.yield %5 : bf16
  } -> tensor<512x512xbf16>
  return %4 : tensor<512x512xbf16>
}

// -----

// 64 rows: 64 x 128 blocks on one consumer warpgroup, 2 tiles, S = 128 k
// steps / 32 = 4.
// CHECK-LABEL: func.func @gemm_long_k_rows(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16, split_k = 4>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_long_k_rows(%arg0: tensor<64x8192xf16>, %arg1: tensor<256x8192xf16>) -> tensor<64x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64x8192xf16>, tensor<256x8192xf16>) outs(%1 : tensor<64x256xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<64x256xf32>
  %3 = tensor.empty() : tensor<64x256xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x256xf32>) outs(%3 : tensor<64x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<64x256xf16>
  return %4 : tensor<64x256xf16>
}

// -----

// 16 k steps: below 2 x 32 steps, no split (the unsplit 64 x 128 plan).
// CHECK-LABEL: func.func @gemm_short_k(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16, cluster = [2, 1]>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_short_k(%arg0: tensor<256x1024xf16>, %arg1: tensor<256x1024xf16>) -> tensor<256x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x1024xf16>, tensor<256x1024xf16>) outs(%1 : tensor<256x256xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<256x256xf32>
  %3 = tensor.empty() : tensor<256x256xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x256xf32>) outs(%3 : tensor<256x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<256x256xf16>
  return %4 : tensor<256x256xf16>
}

// -----

// 256x4096x4096 NT: 64 x 128 blocks fill the SMs (128 tiles): no split.
// CHECK-LABEL: func.func @gemm_many_tiles(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16, cluster = [2, 1]>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gemm_many_tiles(%arg0: tensor<256x4096xf16>, %arg1: tensor<4096x4096xf16>) -> tensor<256x4096xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x4096xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x4096xf32>) -> tensor<256x4096xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x4096xf16>, tensor<4096x4096xf16>) outs(%1 : tensor<256x4096xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<256x4096xf32>
  %3 = tensor.empty() : tensor<256x4096xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x4096xf32>) outs(%3 : tensor<256x4096xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<256x4096xf16>
  return %4 : tensor<256x4096xf16>
}
