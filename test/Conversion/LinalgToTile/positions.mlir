// convert-linalg-to-tile: a body reading its positions (linalg.index,
// tf.arange) gets them from its block as i32 tiles (elementwise kernels, GEMM
// epilogues, row reductions and row programs).
// form = elementwise: every operand is read whole here, so the three dims
// are one flat run of 384: the columns n0 + j of the [1, 512] block, dim 1 at
// (x / 64) % 3, dim 2 at x % 64; their index sum's index_cast to i64 is a
// sign extension.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s

// CHECK-LABEL: tile.func @positions(
// CHECK: %[[COLS:.*]] = tile.arange {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #{{.*}}>
// CHECK: %[[AT:.*]] = arith.addi %[[COLS]], %{{.*}} : tensor<512xi32
// CHECK: %[[X:.*]] = tile.expand_dims %[[AT]] {axis = 0 : i32} : tensor<512xi32, #{{.*}}> -> tensor<1x512xi32, #[[BL:.*]]>
// CHECK: %[[C64:.*]] = tile.splat %c64_i32
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[C64]] : tensor<1x512xi32
// CHECK: %[[I:.*]] = arith.remui %[[Q]], %{{.*}} : tensor<1x512xi32
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %{{.*}} : tensor<1x512xi32
// CHECK: %[[S:.*]] = arith.addi %[[I]], %[[J]] : tensor<1x512xi32
// CHECK: %[[W:.*]] = arith.extsi %[[S]] : tensor<1x512xi32, #[[BL]]> to tensor<1x512xi64, #[[BL]]>
// CHECK: arith.sitofp %[[W]] : tensor<1x512xi64, #[[BL]]> to tensor<1x512xf32, #[[BL]]>
// CHECK-NOT: linalg.index
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @positions(%x: tensor<2x3x64xf32>) -> tensor<2x3x64xf32> {
  %e = tensor.empty() : tensor<2x3x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x3x64xf32>) outs(%e : tensor<2x3x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %s = arith.addi %i, %j : index
    %c = arith.index_cast %s : index to i64
    %f = arith.sitofp %c : i64 to f32
    %y = arith.addf %a, %f : f32
    linalg.yield %y : f32
  } -> tensor<2x3x64xf32>
  return %r : tensor<2x3x64xf32>
}

// -----

// form = matmul: an epilogue's column positions n0 + j on the accumulator's
// layout (a slice of it, expanded and broadcast over the rows).
// CHECK-LABEL: tile.func @gemm_positions(
// CHECK: %[[ACC:.*]] = tile.dot
// CHECK: %[[COLS:.*]] = tile.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #[[SLICE:.*]]>
// CHECK: %[[AT:.*]] = arith.addi %[[COLS]], %{{.*}} : tensor<128xi32, #[[SLICE]]>
// CHECK: %[[ROW:.*]] = tile.expand_dims %[[AT]] {axis = 0 : i32}
// CHECK: %[[J:.*]] = tile.broadcast %[[ROW]] : tensor<1x128xi32, #[[L:.*]]> -> tensor<128x128xi32, #[[L]]>
// CHECK: arith.sitofp %[[J]] : tensor<128x128xi32, #[[L]]> to tensor<128x128xf32, #[[L]]>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_positions(%x: tensor<128x128xf16>, %w: tensor<128x128xf16>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<128x128xf16>, tensor<128x128xf16>) outs(%f : tensor<128x128xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %0 = arith.extf %l : f16 to f32
    %1 = arith.extf %r : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<128x128xf32>
  %e2 = tensor.empty() : tensor<128x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<128x128xf32>) outs(%e2 : tensor<128x128xf32>) {
  ^bb0(%v: f32, %o: f32):
    %j = linalg.index 1 : index
    %c = arith.index_cast %j : index to i32
    %w2 = arith.sitofp %c : i32 to f32
    %s = arith.addf %v, %w2 : f32
    linalg.yield %s : f32
  } -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}

// -----

// form = row_reduction: the reduced columns' positions k + j of each chunk.
// CHECK-LABEL: tile.func @reduction_positions(
// CHECK: tile.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32
// CHECK: %[[J:.*]] = tile.broadcast %{{.*}} : tensor<1x64xi32, #[[L:.*]]> -> tensor<8x64xi32, #[[L]]>
// CHECK: arith.sitofp %[[J]]
// CHECK: tile.reduce
func.func @reduction_positions(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %c = arith.index_cast %j : index to i32
    %w = arith.sitofp %c : i32 to f32
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
