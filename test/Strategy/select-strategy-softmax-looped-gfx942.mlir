// tcc-select-strategy, softmax form, looped variant, AMD gfx942 (wave64): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s

// a vocabulary row (50257, longer than max-softmax-columns): the looped
// variant, sized for the f32 the decomposition computes in; never staged
// in LDS (no asynchronous copies: the copies would pass through registers).
// CHECK-LABEL: func.func @softmax_vocab(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 8, walk = looped>
func.func @softmax_vocab(%x: tensor<64x50257xf16>) -> tensor<64x50257xf16> {
  %y = tcc.softmax %x dim = 1 : tensor<64x50257xf16>
  return %y : tensor<64x50257xf16>
}

// -----

// 20000 f16 (40 KiB) would fit the 64 KiB of LDS, but without asynchronous
// copies a staged walk only adds the LDS round trip: walk = looped.
// CHECK-LABEL: func.func @softmax_fits_lds(
// CHECK: walk = looped>
func.func @softmax_fits_lds(%x: tensor<64x20000xf16>) -> tensor<64x20000xf16> {
  %y = tcc.softmax %x dim = 1 : tensor<64x20000xf16>
  return %y : tensor<64x20000xf16>
}
