// tcc-select-strategy, softmax form, AMD gfx942 (wave64, MFMA): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s

// rows of 4096: ~16 elements per thread.
// CHECK-LABEL: func.func @softmax_f16(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 4>
func.func @softmax_f16(%arg0: tensor<32768x4096xf16>) -> tensor<32768x4096xf16> {
  %0 = tensor.empty() : tensor<32768x4096xf16>
  %1 = linalg.softmax dimension(1) ins(%arg0 : tensor<32768x4096xf16>) outs(%0 : tensor<32768x4096xf16>) -> tensor<32768x4096xf16>
  return %1 : tensor<32768x4096xf16>
}

// -----

// an odd row: the block rounds it up.
// CHECK-LABEL: func.func @softmax_odd(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [2, 1024], num_warps = 2>
func.func @softmax_odd(%arg0: tensor<4096x1000xf32>) -> tensor<4096x1000xf32> {
  %0 = tensor.empty() : tensor<4096x1000xf32>
  %1 = linalg.softmax dimension(1) ins(%arg0 : tensor<4096x1000xf32>) outs(%0 : tensor<4096x1000xf32>) -> tensor<4096x1000xf32>
  return %1 : tensor<4096x1000xf32>
}
