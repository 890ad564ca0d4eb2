// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile --tcc-coalesce | FileCheck %s

#t = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A transpose: 64 x 64 output blocks; the operand is read through its
// transposed view with threads along its contiguous dim (order [0, 1]),
// moved to the output's layout (order [1, 0]) through shared memory, and
// stored coalesced.
// CHECK-DAG: #[[IN:.*]] = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[OUT:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @transpose(
// CHECK-SAME:    tcc.grid = array<i64: 8, 1, 1>
// CHECK:         %[[V:.*]] = memref.transpose %arg0 (d0, d1) -> (d1, d0) : memref<256x128xf32> to memref<128x256xf32, strided<[1, 128]>>
// CHECK:         %[[T:.*]] = tile.memref_load %[[V]][{{.*}}] : memref<128x256xf32, strided<[1, 128]>> -> tensor<64x64xf32, #[[IN]]>
// CHECK:         %[[C:.*]] = tile.convert_layout %[[T]] : tensor<64x64xf32, #[[IN]]> -> tensor<64x64xf32, #[[OUT]]>
// CHECK:         tile.memref_store %arg1[{{.*}}], %[[C]] : memref<128x256xf32>, tensor<64x64xf32, #[[OUT]]>
func.func @transpose(%x: tensor<256x128xf32>) -> tensor<128x256xf32> {
  %e = tensor.empty() : tensor<128x256xf32>
  %0 = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x128xf32>) outs(%e : tensor<128x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

#t3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Batched: the 2-D slices of one batch index per program (of the operand's
// transposed view, and of the output), batch after batch.
// CHECK-LABEL: tile.func @batched_transpose(
// CHECK-SAME:    tcc.grid = array<i64: 6, 1, 1>
// CHECK:         %[[V:.*]] = memref.transpose %arg0 (d0, d1, d2) -> (d0, d2, d1)
// CHECK:         memref.subview %[[V]]
// CHECK:         memref.subview %arg1
func.func @batched_transpose(%x: tensor<3x64x128xf16>) -> tensor<3x128x64xf16> {
  %e = tensor.empty() : tensor<3x128x64xf16>
  %0 = linalg.generic {indexing_maps = [#t3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<3x64x128xf16>) outs(%e : tensor<3x128x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    linalg.yield %a : f16
  } -> tensor<3x128x64xf16>
  return %0 : tensor<3x128x64xf16>
}

// -----

#bshd = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Attention's k.transpose(1, 2).transpose(-2, -1): [B, S, H, D] read as
// [B, H, D, S]; the operand's contiguous dim (D) lands on iteration dim 2,
// so each program covers a [D, S] block of one (b, h).
// CHECK-LABEL: tile.func @heads_transpose(
// CHECK-SAME:    tcc.grid = array<i64: 16, 1, 1>
// CHECK:         %[[V:.*]] = memref.transpose %arg0 (d0, d1, d2, d3) -> (d0, d2, d3, d1)
// CHECK:         %[[S:.*]] = memref.subview %[[V]]{{.*}} to memref<64x128xf32, strided<[1, 256], offset: ?>>
// CHECK:         tile.memref_load %[[S]]
// CHECK:         tile.convert_layout
func.func @heads_transpose(%k: tensor<2x128x4x64xf32>) -> tensor<2x4x64x128xf32> {
  %e = tensor.empty() : tensor<2x4x64x128xf32>
  %0 = linalg.generic {indexing_maps = [#bshd, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x128x4x64xf32>) outs(%e : tensor<2x4x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x4x64x128xf32>
  return %0 : tensor<2x4x64x128xf32>
}
