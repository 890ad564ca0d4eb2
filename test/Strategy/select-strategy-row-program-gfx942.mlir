// tcc-select-strategy, row-program form (and a program of several kernels), AMD gfx942 (wave64): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s

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
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 8192], num_warps = 8, walk = looped>
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
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [8, 64], num_warps = 2>
// CHECK-LABEL: func.func private @two_k1(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [16, 64], num_warps = 4>
// CHECK-LABEL: func.func @two(
// CHECK-SAME: tcc.host
// CHECK-NOT: tile.lowering_config
func.func @two(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %y = tcc.softmax %x dim = 1 : tensor<8x64xf32>
  %s = tcc.reduce_sum %y dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %y, %s : tensor<8x64xf32>, tensor<8xf32>
}
