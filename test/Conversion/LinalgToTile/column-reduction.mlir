// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile --tcc-coalesce --canonicalize | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A column sum with odd sizes: rows of 777 f32 start unaligned (no
// vectors): one warp's lanes across 32 columns, 8 warps down the rows, 16
// rows each per chunk (BR = 128); 25 programs. Whole chunks in a loop, the
// last 104 rows under a mask (loads skipped, the value replaced by the
// neutral element), then tile.reduce along the rows and a store of the
// [1, 32] results.
// CHECK-DAG:   #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @column_sum(
// CHECK-SAME:    %[[X:[^:]*]]: memref<1000x777xf32>, %[[Y:[^:]*]]: memref<777xf32>
// CHECK-SAME:    tcc.grid = array<i64: 25, 1, 1>
// CHECK-SAME:    tcc.num_warps = 8
// CHECK:         %[[PID:.*]] = arith.index_cast
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %c32
// CHECK:         %[[ACC:.*]] = scf.for %[[R:.*]] = %c0 to %c896 step %c128 iter_args(%[[A:.*]] = %{{.*}})
// CHECK:           %[[T:.*]] = tile.memref_load %[[X]][%{{.*}}, %[[N0]]] : memref<1000x777xf32> -> tensor<128x32xf32, #[[B]]>
// CHECK:           %[[S:.*]] = arith.addf %[[A]], %[[T]]
// CHECK:           scf.yield %[[S]]
// CHECK:         %[[MASK:.*]] = tile.broadcast %{{.*}} : tensor<128x1xi1, #[[B]]> -> tensor<128x32xi1, #[[B]]>
// CHECK:         %[[TAIL:.*]] = tile.memref_load %[[X]][%{{.*}}, %[[N0]]], %[[MASK]], %{{.*}}
// CHECK:         %[[V:.*]] = arith.select %[[MASK]], %[[TAIL]]
// CHECK:         %[[LAST:.*]] = arith.addf %[[ACC]], %[[V]]
// CHECK:         %[[RED:.*]] = tile.reduce %[[LAST]] {axis = 0 : i32}
// CHECK:           arith.addf
// CHECK:         }) : tensor<128x32xf32, #[[B]]> -> tensor<32xf32, #{{.*}}>
// CHECK:         %[[OUT:.*]] = tile.expand_dims %[[RED]] {axis = 0 : i32} {{.*}} -> tensor<1x32xf32, #[[B]]>
// CHECK:         %[[Y2:.*]] = memref.expand_shape %[[Y]] {{\[\[}}0, 1]] output_shape [1, 777]
// CHECK:         tile.memref_store %[[Y2]][%{{.*}}, %[[N0]]], %[[OUT]]
func.func @column_sum(%x: tensor<1000x777xf32>) -> tensor<777xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<777xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<777xf32>) -> tensor<777xf32>
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<1000x777xf32>) outs(%f : tensor<777xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<777xf32>
  return %s : tensor<777xf32>
}

// -----

#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#c3 = affine_map<(d0, d1, d2) -> (d2)>
#o3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// The mean over the middle dim of [4, 100, 256] of (x - b), then + r: one
// program per batch index and 128 columns (8 programs), 16-byte vectors.
// The per-column b is loaded once, before the loop over the rows (3 whole
// chunks of 32 rows, then 4 masked); the epilogue divides and reads the
// residual r over the [B, N] outputs; the store is at (batch, n0).
// CHECK-DAG:   #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @mean_dim1(
// CHECK-SAME:    %[[X:[^:]*]]: memref<4x100x256xf32>, %[[BIAS:[^:]*]]: memref<256xf32>, %[[RES:[^:]*]]: memref<4x256xf32>, %[[Y:[^:]*]]: memref<4x256xf32>
// CHECK-SAME:    tcc.grid = array<i64: 8, 1, 1>
// CHECK:         %[[PID:.*]] = arith.index_cast
// CHECK:         %[[BATCH:.*]] = arith.divui %[[PID]], %c2
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %c128
// CHECK:         %[[ROW0:.*]] = arith.muli %[[BATCH]], %c100
// CHECK:         %[[X2:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<4x100x256xf32> into memref<400x256xf32>
// CHECK:         %[[BV:.*]] = tile.memref_load %[[BIAS]][%[[N0]]] : memref<256xf32> -> tensor<128xf32, #{{.*}}>
// CHECK:         %[[BB:.*]] = tile.broadcast %{{.*}} : tensor<1x128xf32, #[[B]]> -> tensor<32x128xf32, #[[B]]>
// CHECK:         scf.for %[[R:.*]] = %c0 to %c96 step %c32
// CHECK:           %[[ROW:.*]] = arith.addi %[[ROW0]], %[[R]]
// CHECK:           %[[T:.*]] = tile.memref_load %[[X2]][%[[ROW]], %[[N0]]] : memref<400x256xf32> -> tensor<32x128xf32, #[[B]]>
// CHECK:           arith.subf %[[T]], %[[BB]]
// CHECK:         tile.memref_load %[[X2]]
// CHECK:         tile.reduce %{{.*}} {axis = 0 : i32}
// CHECK:         tile.expand_dims
// CHECK:         %[[RT:.*]] = tile.memref_load %[[RES]][%[[BATCH]], %[[N0]]] : memref<4x256xf32> -> tensor<1x128xf32, #[[B]]>
// CHECK:         arith.divf
// CHECK:         %[[Z:.*]] = arith.addf %{{.*}}, %[[RT]] : tensor<1x128xf32, #[[B]]>
// CHECK:         tile.memref_store %[[Y]][%[[BATCH]], %[[N0]]], %[[Z]]
func.func @mean_dim1(%x: tensor<4x100x256xf32>, %b: tensor<256xf32>, %res: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 100.0 : f32
  %i = tensor.empty() : tensor<4x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4x256xf32>) -> tensor<4x256xf32>
  %s = linalg.generic {indexing_maps = [#x3, #c3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x, %b : tensor<4x100x256xf32>, tensor<256xf32>) outs(%f : tensor<4x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %c : f32
    %r = arith.addf %d, %o : f32
    linalg.yield %r : f32
  } -> tensor<4x256xf32>
  %e = tensor.empty() : tensor<4x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %res : tensor<4x256xf32>, tensor<4x256xf32>) outs(%e : tensor<4x256xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %m = arith.divf %v, %count : f32
    %z = arith.addf %m, %w : f32
    linalg.yield %z : f32
  } -> tensor<4x256xf32>
  return %y : tensor<4x256xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#rows = affine_map<(d0, d1) -> (d0)>

// A reduction reading its input through (d1, d0) (a transpose fused in) is
// a column reduction of the input as laid out: f16 loads of 8 elements (16
// bytes), 16 rows in one chunk (no loop, no mask), f32 accumulation.
// CHECK-DAG:   #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @transposed_sum(
// CHECK-SAME:    %[[X:[^:]*]]: memref<16x64xf16>
// CHECK-SAME:    tcc.grid = array<i64: 1, 1, 1>
// CHECK-SAME:    tcc.num_warps = 1
// CHECK-NOT:     scf.for
// CHECK:         %[[T:.*]] = tile.memref_load %[[X]][%{{.*}}, %{{.*}}] : memref<16x64xf16> -> tensor<16x64xf16, #[[B]]>
// CHECK:         %[[W:.*]] = arith.extf %[[T]] : tensor<16x64xf16, #[[B]]> to tensor<16x64xf32, #[[B]]>
// CHECK:         tile.reduce %{{.*}} {axis = 0 : i32}
// CHECK:         tile.memref_store
func.func @transposed_sum(%x: tensor<16x64xf16>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#t, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf16>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    %r = arith.addf %w, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}
