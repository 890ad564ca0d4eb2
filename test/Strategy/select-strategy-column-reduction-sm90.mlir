// tcc-select-strategy, column-reduction form, NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// x.sum(0): f32 columns, 16-byte vectors along them, warps down the rows.
// CHECK-LABEL: func.func private @column_sum_k0(
// CHECK: tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [32, 128], num_warps = 8>
// CHECK-LABEL: func.func private @column_sum_k1(
// CHECK: tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [32, 128], num_warps = 8>
// CHECK-LABEL: func.func @column_sum(
// CHECK-SAME: tcc.host
// CHECK-NOT: tile.lowering_config
func.func @column_sum(%x: tensor<16384x1024xf32>) -> tensor<1024xf32> {
  %y = tcc.reduce_sum %x dims = [0] : tensor<16384x1024xf32> -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

// a mean over the middle dim of [B, R, N]: the divide is the epilogue.
// CHECK-LABEL: func.func @mean_mid(
// CHECK: tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [32, 128], num_warps = 8>
func.func @mean_mid(%x: tensor<8x512x256xf32>) -> tensor<8x256xf32> {
  %y = tcc.reduce_mean %x dims = [1] : tensor<8x512x256xf32> -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// -----

// few reduced rows, odd f16 columns: one warp, narrower vectors.
// CHECK-LABEL: func.func @column_sum_small(
// CHECK: tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [8, 256], num_warps = 2>
func.func @column_sum_small(%x: tensor<12x1000xf16>) -> tensor<1000xf16> {
  %y = tcc.reduce_sum %x dims = [0] : tensor<12x1000xf16> -> tensor<1000xf16>
  return %y : tensor<1000xf16>
}
