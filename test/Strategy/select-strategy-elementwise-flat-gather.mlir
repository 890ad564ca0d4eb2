// tcc-select-strategy, elementwise form: a broadcast over a last dim that is
// no multiple of the widest vector (16 bytes) runs as one flat stream with
// the broadcast operands gathered (view = flat_gather, [1, BN] blocks);
// even last dims keep the 2-D view. NVIDIA sm_90 (warp 32) and AMD gfx942
// (wave64): the plan only.
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-form-kernels --tcc-set-target=arch=gfx942 --tcc-select-strategy | FileCheck %s --check-prefixes=CHECK,GFX942

// 1000x777 f32 + a row bias: 777,000 elements in 4-wide vectors.
// CHECK-LABEL: func.func @row_bias(
// SM90: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
// GFX942: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
func.func @row_bias(%x: tensor<1000x777xf32>, %b: tensor<777xf32>) -> tensor<1000x777xf32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<777xf32> -> tensor<1000x777xf32>
  %y = tcc.add %x, %bb : tensor<1000x777xf32>
  return %y : tensor<1000x777xf32>
}

// -----

// An even last dim (1024): the 2-D view; rows with a broadcast operand take
// half the elements per program (8 per thread): [1, 1024].
// CHECK-LABEL: func.func @row_bias_even(
// SM90: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4>
// GFX942: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4>
func.func @row_bias_even(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<1024xf32> -> tensor<64x1024xf32>
  %y = tcc.add %x, %bb : tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

// 7x13 * a column [7]: 91 elements, one block a row of lanes covers (one
// warp).
// CHECK-LABEL: func.func @column_bias(
// SM90: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 128], num_warps = 1, view = flat_gather>
// GFX942: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 256], num_warps = 1, view = flat_gather>
func.func @column_bias(%x: tensor<7x13xf32>, %c: tensor<7xf32>) -> tensor<7x13xf32> {
  %cb = tcc.broadcast %c dims = [1] : tensor<7xf32> -> tensor<7x13xf32>
  %y = tcc.mul %x, %cb : tensor<7x13xf32>
  return %y : tensor<7x13xf32>
}

// -----

// Three dim groups ([3, 5, 777] + a per-batch row): one flat stream too.
// CHECK-LABEL: func.func @batch_row_bias(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
func.func @batch_row_bias(%x: tensor<3x5x777xf32>, %b: tensor<3x777xf32>) -> tensor<3x5x777xf32> {
  %bb = tcc.broadcast %b dims = [1] : tensor<3x777xf32> -> tensor<3x5x777xf32>
  %y = tcc.add %x, %bb : tensor<3x5x777xf32>
  return %y : tensor<3x5x777xf32>
}

// -----

// f16 over rows of 772 (a multiple of 4, not of 8): the 2-D view would take
// 8-byte vectors; the stream takes 16-byte ones.
// CHECK-LABEL: func.func @f16_row_bias(
// SM90: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
// GFX942: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4, view = flat_gather>
func.func @f16_row_bias(%x: tensor<37x772xf16>, %b: tensor<772xf16>) -> tensor<37x772xf16> {
  %bb = tcc.broadcast %b dims = [0] : tensor<772xf16> -> tensor<37x772xf16>
  %y = tcc.add %x, %bb : tensor<37x772xf16>
  return %y : tensor<37x772xf16>
}

// -----

// No broadcast: one flat stream already (no view recorded).
// CHECK-LABEL: func.func @no_broadcast(
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4>
func.func @no_broadcast(%x: tensor<1000x777xf32>, %y: tensor<1000x777xf32>) -> tensor<1000x777xf32> {
  %r = tcc.add %x, %y : tensor<1000x777xf32>
  return %r : tensor<1000x777xf32>
}

// -----

// Every input broadcasts (an outer sum): nothing to stream but the result;
// the 2-D view's row and column vectors stay.
// CHECK-LABEL: func.func @outer_sum(
// CHECK-NOT: view =
// CHECK: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [{{[0-9]+}}, {{[0-9]+}}], num_warps = 4>
func.func @outer_sum(%a: tensor<100xf32>, %b: tensor<777xf32>) -> tensor<100x777xf32> {
  %ab = tcc.broadcast %a dims = [1] : tensor<100xf32> -> tensor<100x777xf32>
  %bb = tcc.broadcast %b dims = [0] : tensor<777xf32> -> tensor<100x777xf32>
  %y = tcc.add %ab, %bb : tensor<100x777xf32>
  return %y : tensor<100x777xf32>
}
