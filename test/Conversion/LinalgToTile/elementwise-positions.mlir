// convert-linalg-to-tile, form = elementwise: a body reading its positions
// (linalg.index, tf.arange) gets them from its block as i32 tiles. Here every
// operand is read whole, so the three dims are one flat run of 384: the
// columns n0 + j of the [1, 512] block, dim 1 at (x / 64) % 3, dim 2 at
// x % 64; their index sum's index_cast to i64 is a sign extension.
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

