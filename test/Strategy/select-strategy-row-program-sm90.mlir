// tcc-select-strategy, row-program form (and a program of several kernels), NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// LayerNorm over rows of 512: two reductions, persistent in registers; the
// config is on the last reduction (the variance).
// CHECK-LABEL: func.func @layer_norm(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 512], num_warps = 1, walk = persistent>
func.func @layer_norm(%x: tensor<64x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>) -> tensor<64x512xf32> {
  %mean = tcc.reduce_mean %x dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %mean dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %d = tcc.sub %x, %mb : tensor<64x512xf32>
  %sq = tcc.mul %d, %d : tensor<64x512xf32>
  %var = tcc.reduce_mean %sq dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %vb = tcc.broadcast %var dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %n = tcc.div %d, %vb : tensor<64x512xf32>
  %wb = tcc.broadcast %w dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %bb = tcc.broadcast %b dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %y0 = tcc.mul %n, %wb : tensor<64x512xf32>
  %y = tcc.add %y0, %bb : tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// rows of 50000 (longer than max-softmax-columns): walked in chunks.
// CHECK-LABEL: func.func @center_long(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 4096], num_warps = 8, walk = looped>
func.func @center_long(%x: tensor<8x50000xf16>) -> tensor<8x50000xf16> {
  %mean = tcc.reduce_mean %x dims = [1] : tensor<8x50000xf16> -> tensor<8xf16>
  %mb = tcc.broadcast %mean dims = [1] : tensor<8xf16> -> tensor<8x50000xf16>
  %d = tcc.sub %x, %mb : tensor<8x50000xf16>
  %sq = tcc.mul %d, %d : tensor<8x50000xf16>
  %ss = tcc.reduce_sum %sq dims = [1] : tensor<8x50000xf16> -> tensor<8xf16>
  %sb = tcc.broadcast %ss dims = [1] : tensor<8xf16> -> tensor<8x50000xf16>
  %y = tcc.div %d, %sb : tensor<8x50000xf16>
  return %y : tensor<8x50000xf16>
}

// -----

// a program of two kernels (tcc-form-kernels): a softmax, and a row sum of
// it; each tcc.kernel function gets its plan, the tcc.host one none.
// CHECK-LABEL: func.func private @two_k0(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [8, 64], num_warps = 4>
// CHECK-LABEL: func.func private @two_k1(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [8, 64], num_warps = 4>
// CHECK-LABEL: func.func @two(
// CHECK-SAME: tcc.host
// CHECK-NOT: tile.lowering_config
func.func @two(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %y = tcc.softmax %x dim = 1 : tensor<8x64xf32>
  %s = tcc.reduce_sum %y dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %y, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

// An arg reduction (values and indices) with an elementwise op on its
// values is no row reduction with an epilogue (that form takes one result):
// a row program. Alone it is a row reduction.
// CHECK-LABEL: func.func @argmax_scaled(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program
func.func @argmax_scaled(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xi64>) {
  %v, %i = tcc.reduce_argmax %x dim = 1 : tensor<64x1000xf32> -> tensor<64xf32>, tensor<64xi64>
  %s = tcc.mul %v, %v : tensor<64xf32>
  return %s, %i : tensor<64xf32>, tensor<64xi64>
}

// -----

// CHECK-LABEL: func.func @argmax(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction
func.func @argmax(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xi64>) {
  %v, %i = tcc.reduce_argmax %x dim = 1 : tensor<64x1000xf32> -> tensor<64xf32>, tensor<64xi64>
  return %v, %i : tensor<64xf32>, tensor<64xi64>
}

// -----

// f16 rows of 4096 in registers: 64 bytes of the row per thread (32 x f16),
// so 4 warps (f32 rows of 4096 take 8: 16 per thread).
// CHECK-LABEL: func.func @rms_norm_f16(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 4096], num_warps = 4, walk = persistent>
func.func @rms_norm_f16(%x: tensor<64x4096xf16>) -> tensor<64x4096xf16> {
  %sq = tcc.mul %x, %x : tensor<64x4096xf16>
  %ms = tcc.reduce_mean %sq dims = [1] : tensor<64x4096xf16> -> tensor<64xf16>
  %mb = tcc.broadcast %ms dims = [1] : tensor<64xf16> -> tensor<64x4096xf16>
  %y = tcc.div %x, %mb : tensor<64x4096xf16>
  return %y : tensor<64x4096xf16>
}

// -----

// f16 rows of 1024: 32 per thread would be one warp; programs keep 2 warps
// (16 per thread), one-warp programs hit the SM's resident-program limit.
// CHECK-LABEL: func.func @rms_norm_f16_1024(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 1024], num_warps = 2, walk = persistent>
func.func @rms_norm_f16_1024(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %sq = tcc.mul %x, %x : tensor<64x1024xf16>
  %ms = tcc.reduce_mean %sq dims = [1] : tensor<64x1024xf16> -> tensor<64xf16>
  %mb = tcc.broadcast %ms dims = [1] : tensor<64xf16> -> tensor<64x1024xf16>
  %y = tcc.div %x, %mb : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// The same row of 4096 in f32: 16 per thread, 8 warps.
// CHECK-LABEL: func.func @rms_norm_f32(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 4096], num_warps = 8, walk = persistent>
func.func @rms_norm_f32(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  %sq = tcc.mul %x, %x : tensor<64x4096xf32>
  %ms = tcc.reduce_mean %sq dims = [1] : tensor<64x4096xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %ms dims = [1] : tensor<64xf32> -> tensor<64x4096xf32>
  %y = tcc.div %x, %mb : tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}
