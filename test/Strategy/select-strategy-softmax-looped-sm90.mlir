// tcc-select-strategy, softmax form, looped variant, NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// a vocabulary row (50257, longer than max-softmax-columns): the row (13
// chunks of 4096 f16, 104 KiB) fits in shared memory and sm_90 copies
// asynchronously: walk = staged, on 16 warps.
// CHECK-LABEL: func.func @softmax_vocab(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 16, walk = staged>
func.func @softmax_vocab(%x: tensor<64x50257xf16>) -> tensor<64x50257xf16> {
  %y = tcc.softmax %x dim = 1 : tensor<64x50257xf16>
  return %y : tensor<64x50257xf16>
}

// -----

// f32 rows of 60000: 15 chunks of 16 KiB, more than max_shared_bytes (227
// KiB): the online softmax's walks over global memory (walk = looped).
// CHECK-LABEL: func.func @softmax_too_wide_to_stage(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = looped>
func.func @softmax_too_wide_to_stage(%x: tensor<64x60000xf32>) -> tensor<64x60000xf32> {
  %y = tcc.softmax %x dim = 1 : tensor<64x60000xf32>
  return %y : tensor<64x60000xf32>
}
