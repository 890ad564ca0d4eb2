// tcc-select-strategy, softmax form, looped variant, NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// a vocabulary row (50257, longer than max-softmax-columns): the online
// softmax's walks over 2048-wide chunks; the row (25 chunks of f16, 100 KiB)
// fits in shared memory and sm_90 copies asynchronously: walk = staged.
// CHECK-LABEL: func.func @softmax_vocab(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = staged>
func.func @softmax_vocab(%x: tensor<64x50257xf16>) -> tensor<64x50257xf16> {
  %y = tcc.softmax %x dim = 1 : tensor<64x50257xf16>
  return %y : tensor<64x50257xf16>
}

// -----

// f32 rows of 60000: 30 chunks of 8 KiB, more than max_shared_bytes (227
// KiB): both walks read global memory (walk = looped).
// CHECK-LABEL: func.func @softmax_too_wide_to_stage(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = looped>
func.func @softmax_too_wide_to_stage(%x: tensor<64x60000xf32>) -> tensor<64x60000xf32> {
  %y = tcc.softmax %x dim = 1 : tensor<64x60000xf32>
  return %y : tensor<64x60000xf32>
}
