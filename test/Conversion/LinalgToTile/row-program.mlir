// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy="max-softmax-columns=1024" --convert-linalg-to-tile | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>

// RMSNorm: a row reduction (x * x summed), then x * rsqrt(mean + eps) * w.
// Rows of 512 fit in registers: x is loaded once, reduced, and the result is
// computed from the same tile (no loop).
// CHECK-LABEL: tile.func @rms_norm(
// CHECK-SAME:    %[[X:[^:]*]]: memref<64x512xf32>, %[[W:[^:]*]]: memref<512xf32>, %[[Y:[^:]*]]: memref<64x512xf32>
// CHECK-SAME:    tcc.grid = array<i64: 64, 1, 1>
// CHECK-NOT:     scf.for
// CHECK:         %[[T:.*]] = tile.memref_load %[[X]]
// CHECK:         arith.mulf %[[T]], %[[T]]
// CHECK:         tile.reduce
// CHECK:         tile.reduce.return
// CHECK:         tile.memref_load %[[W]]
// CHECK-NOT:     tile.memref_load %[[X]]
// CHECK:         math.rsqrt
// CHECK:         tile.memref_store %[[Y]]
func.func @rms_norm(%x: tensor<64x512xf32>, %w: tensor<512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %i = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<64xf32>) -> tensor<64xf32>
  %ss = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x512xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<64x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<64x512xf32>, tensor<64xf32>, tensor<512xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %me = arith.addf %m, %eps : f32
    %r = math.rsqrt %me : f32
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  } -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// A softmax whose rows exceed max-softmax-columns (1024) is walked in
// chunks, in f32 for f16. One row per program; the walks start before the
// row so that its 16-byte runs are aligned (2001 halves per row). On sm_90
// the row fits in shared memory (walk = staged): one asynchronous copy of
// its one chunk, then the max of the chunk (in f16, masked, extended once),
// a walk for the sum of exp(x - max) and one writing exp(x - max) / sum,
// all reading the copy. Both exps are approximate (summed; rounded to f16).
// CHECK-LABEL: tile.func @long_softmax(
// CHECK-SAME:    walk = staged
// CHECK:         %[[MIS:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK:         %[[START:.*]] = arith.subi %c0, %[[MIS]] : index
// CHECK:         %[[BUF:.*]] = tile.shared_alloc : !tile.shared_buffer<1x1x2048xf16, #shared>
// CHECK:         tile.async_copy
// CHECK-NEXT:    tile.async_commit_group
// CHECK:         tile.async_wait {pending = 0 : i32}
// CHECK:         %[[X:.*]] = tile.shared_load %[[BUF]]
// CHECK:         %[[MAX:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : tensor<1x2048xi1, #blocked>, tensor<1x2048xf16, #blocked>
// CHECK-NEXT:    arith.extf %[[MAX]]
// CHECK-NOT:     math.exp
// CHECK:         tile.reduce
// CHECK:         scf.for %{{.*}} = %[[START]] to %{{.*}} step %{{.*}} iter_args
// CHECK:           math.exp2 %{{.*}} fastmath<afn>
// CHECK:           arith.addf
// CHECK:         tile.reduce
// CHECK:         scf.for %{{.*}} = %[[START]] to %{{.*}} step
// CHECK:           tile.shared_load %[[BUF]]
// CHECK:           math.exp2 %{{.*}} fastmath<afn>
// CHECK:           arith.truncf
// CHECK:           tile.memref_store
func.func @long_softmax(%x: tensor<8x2001xf16>) -> tensor<8x2001xf16> {
  %e = tensor.empty() : tensor<8x2001xf16>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<8x2001xf16>) outs(%e : tensor<8x2001xf16>) -> tensor<8x2001xf16>
  return %0 : tensor<8x2001xf16>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Rank 3: the leading dims are the rows ([2, 3] -> 6 rows of 16); the
// per-row result is stored through a 1-D view, the row-wide one through the
// [6, 16] view.
// CHECK-LABEL: tile.func @rank3_sum_and_scale(
// CHECK:         memref.collapse_shape
// CHECK:         tile.reduce
// CHECK:         tile.memref_store
// CHECK:         memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]]
// CHECK:         tile.memref_store
func.func @rank3_sum_and_scale(%x: tensor<2x3x16xf32>) -> (tensor<2x3xf32>, tensor<2x3x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x16xf32>) outs(%f : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3x16xf32>
  %y = linalg.generic {indexing_maps = [#id3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<2x3x16xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3x16xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  return %s, %y : tensor<2x3xf32>, tensor<2x3x16xf32>
}

// -----

// LayerNorm's statistics of x + pos, pos a [S, D] table shared by the batch
// ((b, s, d) -> (s, d)), scaled by a scalar: one row program. pos and the
// scalar are gathered at offsets from the row's coordinates (s = row % 8,
// times the row length), not broadcast by a kernel of their own.
// CHECK-LABEL: tile.func @sum_pos_scaled(
// CHECK-SAME:    %[[X:[^:]*]]: memref<4x8x64xf32>, %[[P:[^:]*]]: memref<8x64xf32>, %[[S:[^:]*]]: memref<f32>
// CHECK-SAME:    tcc.grid = array<i64: {{[0-9]+}}, 1, 1>
// CHECK:         arith.remui
// CHECK:         %[[PF:.*]] = memref.collapse_shape %[[P]] {{\[\[}}0, 1]] : memref<8x64xf32> into memref<512xf32>
// CHECK:         tile.memref_gather %[[PF]][%{{.*}}] : memref<512xf32>, tensor<{{.*}}xi32
// CHECK:         %[[SF:.*]] = memref.expand_shape %[[S]] [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK:         tile.memref_gather %[[SF]][%{{.*}}] : memref<1xf32>
// CHECK:         tile.reduce
// CHECK:         tile.memref_store
func.func @sum_pos_scaled(%x: tensor<4x8x64xf32>, %pos: tensor<8x64xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %pos, %s : tensor<4x8x64xf32>, tensor<8x64xf32>, tensor<f32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%a: f32, %p: f32, %c: f32, %o: f32):
    %h = arith.addf %a, %p : f32
    %t = arith.mulf %h, %c : f32
    %u = arith.addf %t, %o : f32
    linalg.yield %u : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
