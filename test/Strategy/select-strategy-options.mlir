// tcc-select-strategy's options are the defaults its heuristics start from.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy="num-warps=16" | FileCheck %s --check-prefix=W16
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy="num-warps=8 num-stages=2" | FileCheck %s --check-prefix=W8
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy="mfma-shape=16 elements-per-program=8192" | FileCheck %s --check-prefix=M16
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy="mfma-shape=8" 2>&1 | FileCheck %s --check-prefix=ERR8
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy="num-warps=1" 2>&1 | FileCheck %s --check-prefix=ERRW
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy="num-stages=0" 2>&1 | FileCheck %s --check-prefix=ERRS
// RUN: not tcc-opt %s -split-input-file --tcc-select-strategy 2>&1 | FileCheck %s --check-prefix=NOTARGET

// ERR8: error: tcc-select-strategy: mfma-shape must be one of auto, 16, 32, got '8'
// ERRW: error: 'linalg.generic' op num-warps = 1: a GEMM program needs 2, 4, 8 or 16 warps
// ERRS: error: tcc-select-strategy: num-stages must be from 1 to 8, got 0
// NOTARGET: error: tcc-select-strategy: the module has no 'tile.target' attribute

// CHECK-LABEL: func.func @gemm(
// CHECK: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mfma_32x32x8>
// W16-LABEL: func.func @gemm(
// W16: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 16, num_stages = 3, mma = mfma_16x16x16>
// W8-LABEL: func.func @gemm(
// W8: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 32], num_warps = 8, num_stages = 2, mma = mfma_32x32x8>
// M16-LABEL: func.func @gemm(
// M16: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mfma_16x16x16>
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

// (identity maps: the flattest view is one row of 1024 * 1024, a flat
// stream whose block takes elements-per-program along it)
// CHECK-LABEL: func.func @add(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4>
// W16-LABEL: func.func @add(
// W16: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 8192], num_warps = 16>
// M16-LABEL: func.func @add(
// M16: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 8192], num_warps = 4>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%arg0: tensor<1024x1024xf32>, %arg1: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = tensor.empty() : tensor<1024x1024xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %2 = arith.addf %in, %in_0 : f32
    linalg.yield %2 : f32
  } -> tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// -----

// A host function (tcc.host) is not a kernel: left alone.
// CHECK-LABEL: func.func @host(
// CHECK-NOT: tile.lowering_config
// CHECK: return
func.func @host(%x: tensor<?xf32>) -> tensor<?xf32> attributes {tcc.host} {
  return %x : tensor<?xf32>
}
