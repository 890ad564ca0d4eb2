// tcc-select-strategy, elementwise form on N-d views (flattest, batched, permuted), NVIDIA sm_90 (warp 32): the plan only (each kernel
// tcc-form-kernels outlines gets its config on its root op).
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-decompose-softmax --tcc-split-reduction --tcc-normalize-matmul-operands --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s

// [B, M, N] divided by a [B, N] broadcast over M: more than two dim groups,
// a [BM, BN] block of the last two per program.
// CHECK-LABEL: func.func @batched_broadcast(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 4>
func.func @batched_broadcast(%x: tensor<8x512x256xf32>, %s: tensor<8x256xf32>) -> tensor<8x512x256xf32> {
  %sb = tcc.broadcast %s dims = [1] : tensor<8x256xf32> -> tensor<8x512x256xf32>
  %y = tcc.div %x, %sb : tensor<8x512x256xf32>
  return %y : tensor<8x512x256xf32>
}

// -----

// attention's q.transpose(1, 2): a permutation keeping the last dim, a
// block of the last two dims per program.
// CHECK-LABEL: func.func @permuted(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [32, 64], num_warps = 4>
func.func @permuted(%q: tensor<2x128x4x64xf16>) -> tensor<2x4x128x64xf16> {
  %y = tcc.transpose %q permutation = [0, 2, 1, 3] : tensor<2x128x4x64xf16> -> tensor<2x4x128x64xf16>
  return %y : tensor<2x4x128x64xf16>
}

// -----

// a flat stream (rank 1): the whole block along its one row.
// CHECK-LABEL: func.func @flat(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4>
func.func @flat(%x: tensor<100000xf32>, %y: tensor<100000xf32>) -> tensor<100000xf32> {
  %r = tcc.add %x, %y : tensor<100000xf32>
  return %r : tensor<100000xf32>
}

// -----

// [B, S, D] + a bias over D: collapsed to [B*S, D].
// CHECK-LABEL: func.func @bias3d(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4>
func.func @bias3d(%x: tensor<4x100x768xf32>, %b: tensor<768xf32>) -> tensor<4x100x768xf32> {
  %bb = tcc.broadcast %b dims = [0, 1] : tensor<768xf32> -> tensor<4x100x768xf32>
  %y = tcc.add %x, %bb : tensor<4x100x768xf32>
  return %y : tensor<4x100x768xf32>
}
