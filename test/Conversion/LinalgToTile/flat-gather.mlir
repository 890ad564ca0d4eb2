// view = flat_gather: the iteration space as one flat stream of [1, BN]
// blocks; the operands read straight and the results are [1, total] views
// in 16-byte runs (sizePerThread = [1, 4] even though 777 is odd), each
// broadcast operand a tile.memref_gather at its offset of the flat index.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile --tcc-coalesce --canonicalize | FileCheck %s

// A row bias: offset i % 777, in bounds by construction.
// CHECK: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK: #[[S:.*]] = #tile.slice<{dim = 0, parent = #[[B]]}>
// CHECK-LABEL: tile.func @row_bias(
// CHECK-SAME: tcc.grid = array<i64: 759, 1, 1>
// CHECK-SAME: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 1024], num_warps = 4, view = flat_gather>
// CHECK: %[[PID:.*]] = tile.program_id 0 : i32
// CHECK: %[[P:.*]] = arith.index_cast %[[PID]] : i32 to index
// CHECK: %[[N0:.*]] = arith.muli %[[P]], %c1024 : index
// CHECK: %[[XF:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<1000x777xf32> into memref<777000xf32>
// CHECK: %[[XV:.*]] = memref.expand_shape %[[XF]] {{\[\[}}0, 1]] output_shape [1, 777000]
// CHECK: %[[X:.*]] = tile.memref_load %[[XV]][%c0, %[[N0]]] : memref<1x777000xf32> -> tensor<1x1024xf32, #[[B]]>
// CHECK: %[[J:.*]] = tile.arange {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #[[S]]>
// CHECK: %[[N032:.*]] = arith.index_cast %[[N0]] : index to i32
// CHECK: %[[N0S:.*]] = tile.splat %[[N032]] : i32 -> tensor<1024xi32, #[[S]]>
// CHECK: %[[I1:.*]] = arith.addi %[[J]], %[[N0S]] : tensor<1024xi32, #[[S]]>
// CHECK: %[[I:.*]] = tile.expand_dims %[[I1]] {axis = 0 : i32} : tensor<1024xi32, #[[S]]> -> tensor<1x1024xi32, #[[B]]>
// CHECK: %[[N:.*]] = tile.splat %c777_i32 : i32 -> tensor<1x1024xi32, #[[B]]>
// CHECK: %[[K:.*]] = arith.remui %[[I]], %[[N]] : tensor<1x1024xi32, #[[B]]>
// CHECK: %[[G:.*]] = tile.memref_gather %arg1[%[[K]]] {in_bounds} : memref<777xf32>, tensor<1x1024xi32, #[[B]]> -> tensor<1x1024xf32, #[[B]]>
// CHECK: %[[R:.*]] = arith.addf %[[X]], %[[G]] : tensor<1x1024xf32, #[[B]]>
// CHECK: %[[YV:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 777000]
// CHECK: tile.memref_store %[[YV]][%c0, %[[N0]]], %[[R]] : memref<1x777000xf32>, tensor<1x1024xf32, #[[B]]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @row_bias(%x: tensor<1000x777xf32>, %b: tensor<777xf32>) -> tensor<1000x777xf32> {
  %e = tensor.empty() : tensor<1000x777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<1000x777xf32>, tensor<777xf32>) outs(%e : tensor<1000x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1000x777xf32>
  return %0 : tensor<1000x777xf32>
}

// -----

// A column bias on 7x13 (91 elements): offset i / 13; one block of 128 on
// one warp (a row of lanes covers it). The block runs past the stream and
// i / 13 is not reduced, so the gather tests its indices (no in_bounds).
// CHECK: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @column_bias(
// CHECK-SAME: tcc.grid = array<i64: 1, 1, 1>
// CHECK-SAME: tcc.num_warps = 1 : i32
// CHECK-SAME: block = [1, 128], num_warps = 1, view = flat_gather
// CHECK: tile.memref_load %{{.*}} : memref<1x91xf32> -> tensor<1x128xf32, #[[B]]>
// CHECK: %[[K:.*]] = arith.divui %{{.*}}, %{{.*}} : tensor<1x128xi32, #[[B]]>
// CHECK: tile.memref_gather %arg1[%[[K]]] : memref<7xf32>, tensor<1x128xi32, #[[B]]> -> tensor<1x128xf32, #[[B]]>
// CHECK: tile.memref_store %{{.*}} : memref<1x91xf32>, tensor<1x128xf32, #[[B]]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @column_bias(%x: tensor<7x13xf32>, %b: tensor<7xf32>) -> tensor<7x13xf32> {
  %e = tensor.empty() : tensor<7x13xf32>
  %0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<7x13xf32>, tensor<7xf32>) outs(%e : tensor<7x13xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<7x13xf32>
  return %0 : tensor<7x13xf32>
}

// -----

// [3, 5, 777] + a per-batch row [3, 777]: offset (i / 3885) * 777 + i % 777
// (three dim groups, one flat stream all the same).
// CHECK-LABEL: tile.func @batch_row_bias(
// CHECK-SAME: view = flat_gather
// CHECK: tile.memref_load %{{.*}} : memref<1x11655xf32>
// CHECK: %[[R:.*]] = arith.remui %[[I:.*]], %{{.*}} : tensor<1x1024xi32, #{{.*}}>
// CHECK: %[[Q:.*]] = arith.divui %[[I]], %{{.*}} : tensor<1x1024xi32, #{{.*}}>
// CHECK: %[[QS:.*]] = arith.muli %[[Q]], %{{.*}} : tensor<1x1024xi32, #{{.*}}>
// CHECK: %[[K:.*]] = arith.addi %[[R]], %[[QS]] : tensor<1x1024xi32, #{{.*}}>
// CHECK: %[[BF:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<3x777xf32> into memref<2331xf32>
// CHECK: tile.memref_gather %[[BF]][%[[K]]] : memref<2331xf32>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#br = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @batch_row_bias(%x: tensor<3x5x777xf32>, %b: tensor<3x777xf32>) -> tensor<3x5x777xf32> {
  %e = tensor.empty() : tensor<3x5x777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #br, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<3x5x777xf32>, tensor<3x777xf32>) outs(%e : tensor<3x5x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x5x777xf32>
  return %0 : tensor<3x5x777xf32>
}

// -----

// A rank-0 operand (x * s of an s: [1]) needs no gather view: the op is one
// flat stream already; s is gathered at offset 0 by every element.
// CHECK-LABEL: tile.func @scalar(
// CHECK-NOT: view =
// CHECK: %[[Z:.*]] = tile.splat %c0_i32 : i32 -> tensor<1x2048xi32, #{{.*}}>
// CHECK: %[[SF:.*]] = memref.expand_shape %arg1 [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK: tile.memref_gather %[[SF]][%[[Z]]] : memref<1xf32>, tensor<1x2048xi32, #{{.*}}> -> tensor<1x2048xf32, #{{.*}}>
#id = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @scalar(%x: tensor<37x777xf32>, %s: tensor<f32>) -> tensor<37x777xf32> {
  %e = tensor.empty() : tensor<37x777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #none, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<37x777xf32>, tensor<f32>) outs(%e : tensor<37x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<37x777xf32>
  return %0 : tensor<37x777xf32>
}

// -----

// A hand-written view = flat_gather is obeyed where the strategy would keep
// the 2-D view (an even last dim).
// CHECK-LABEL: tile.func @forced(
// CHECK-SAME: tcc.grid = array<i64: 32, 1, 1>
// CHECK: tile.memref_load %{{.*}} : memref<1x65536xf16> -> tensor<1x2048xf16, #{{.*}}>
// CHECK: arith.remui %{{.*}}, %{{.*}} : tensor<1x2048xi32, #{{.*}}>
// CHECK: tile.memref_gather %arg1[%{{.*}}] {in_bounds} : memref<1024xf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forced(%x: tensor<64x1024xf16>, %b: tensor<1024xf16>) -> tensor<64x1024xf16> {
  %e = tensor.empty() : tensor<64x1024xf16>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"],
                       tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4, view = flat_gather>}
      ins(%x, %b : tensor<64x1024xf16>, tensor<1024xf16>) outs(%e : tensor<64x1024xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<64x1024xf16>
  return %0 : tensor<64x1024xf16>
}

// -----

// A row bias wider than the block ([8192, 7777] + [7777], blocks of 1024):
// the column of n0 + j is (n0 % 7777) + j wrapped once, the unsigned min of
// c and c - 7777 (no remainder per element).
// CHECK-LABEL: tile.func @wide_row_bias(
// CHECK-SAME: block = [1, 1024], num_warps = 4, view = flat_gather
// CHECK: %[[P:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[C0:.*]] = arith.remui %[[P]], %c7777_i32 : i32
// CHECK: %[[J:.*]] = tile.arange {end = 1024 : i32, start = 0 : i32}
// CHECK: %[[CS:.*]] = tile.splat %[[C0]] : i32 -> tensor<1024xi32, #{{.*}}>
// CHECK: %[[C1:.*]] = arith.addi %[[J]], %[[CS]]
// CHECK: %[[C:.*]] = tile.expand_dims %[[C1]] {axis = 0 : i32}
// CHECK: %[[W:.*]] = arith.subi %[[C]], %{{.*}} : tensor<1x1024xi32, #{{.*}}>
// CHECK: %[[K:.*]] = arith.minui %[[C]], %[[W]] : tensor<1x1024xi32, #{{.*}}>
// CHECK: tile.memref_gather %arg1[%[[K]]] {in_bounds} : memref<7777xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @wide_row_bias(%x: tensor<8192x7777xf32>, %b: tensor<7777xf32>) -> tensor<8192x7777xf32> {
  %e = tensor.empty() : tensor<8192x7777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8192x7777xf32>, tensor<7777xf32>) outs(%e : tensor<8192x7777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8192x7777xf32>
  return %0 : tensor<8192x7777xf32>
}
