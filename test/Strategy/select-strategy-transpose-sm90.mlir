// tcc-select-strategy, transpose form, NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// a 2-D transpose: 64 x 64 tiles staged through shared memory.
// CHECK-LABEL: func.func @transpose_2d(
// CHECK: tile.lowering_config = #tile.lowering_config<form = transpose, block = [64, 64], num_warps = 4>
func.func @transpose_2d(%x: tensor<1000x777xf32>) -> tensor<777x1000xf32> {
  %y = tcc.transpose %x permutation = [1, 0] : tensor<1000x777xf32> -> tensor<777x1000xf32>
  return %y : tensor<777x1000xf32>
}

// -----

// a batched f16 transpose of the last two dims.
// CHECK-LABEL: func.func @transpose_batched(
// CHECK: tile.lowering_config = #tile.lowering_config<form = transpose, block = [64, 64], num_warps = 4>
func.func @transpose_batched(%x: tensor<4x256x128xf16>) -> tensor<4x128x256xf16> {
  %y = tcc.transpose %x permutation = [0, 2, 1] : tensor<4x256x128xf16> -> tensor<4x128x256xf16>
  return %y : tensor<4x128x256xf16>
}
