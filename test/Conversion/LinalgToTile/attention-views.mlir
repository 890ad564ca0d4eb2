// convert-linalg-to-tile: the attention kernel of q, k, v stored [B, S, H, D]
// and read with `.transpose(1, 2)` (tcc::AttentionView; the program
// tcc-form-kernels leaves as one kernel in form-kernels-attention-views.mlir)
// reads the stored tensors through memref.transpose views, each program's
// flat batch index delinearized into (b, h); the result, transposed back and
// viewed [B, S, H * D], is written in place through the same view of the
// output. On sm_90 the TMA maps are the stored tensors' 4-D ones, boxes
// [1, rows, 1, 64] at (b, row, h, col).
// RUN: tcc-opt %s --tcc-set-target=arch=sm_80 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s --check-prefix=SM80
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s --check-prefix=SM90

// SM80-LABEL: tile.func @attn_bshd(
// SM80-SAME: %arg0: memref<2x128x2x64xf16>, %arg1: memref<2x128x2x64xf16>, %arg2: memref<2x128x2x64xf16>, %arg3: memref<2x128x128xf16>)
// SM80-SAME: tcc.grid = array<i64: 4, 1, 1>
// SM80-SAME: form = attention
// SM80: %[[QT:.*]] = memref.transpose %arg0 (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x128x2x64xf16> to memref<2x2x128x64xf16, strided<[16384, 64, 128, 1]>>
// SM80: %[[H:.*]] = arith.remui %[[BH:.*]], %
// SM80: %[[B:.*]] = arith.divui %[[BH]], %
// SM80: memref.subview %[[QT]][%[[B]], %[[H]], 0, 0] [1, 1, 128, 64] [1, 1, 1, 1] {{.*}} to memref<128x64xf16, strided<[128, 1], offset: ?>>
// SM80: memref.transpose %arg1 (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// SM80: memref.transpose %arg2 (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// SM80: scf.for
// SM80: %[[OUT:.*]] = memref.expand_shape %arg3 {{\[}}[0], [1], [2, 3]] output_shape [2, 128, 2, 64]
// SM80: %[[OT:.*]] = memref.transpose %[[OUT]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x128x2x64xf16> to memref<2x2x128x64xf16, strided<[16384, 64, 128, 1]>>
// SM80: %[[OS:.*]] = memref.subview %[[OT]]
// SM80: tile.memref_store %[[OS]]
// SM80-NOT: linalg.generic

// SM90-LABEL: tile.func @attn_bshd(
// SM90-SAME: %arg4: !llvm.ptr, %arg5: !llvm.ptr, %arg6: !llvm.ptr)
// SM90-SAME: tcc.tensor_maps = [{box = array<i64: 1, 128, 1, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 128, 1, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 128, 1, 64>, operand = 2 : i64, swizzle = 128 : i64}]
// SM90: %[[H:.*]] = arith.remui %[[BH:.*]], %c2_{{[0-9]+}} : index
// SM90-NEXT: %[[B:.*]] = arith.divui %[[BH]], %c2{{.*}} : index
// SM90-NEXT: tile.tma_load %arg4[%[[B]], %{{.*}}, %[[H]], %{{.*}}]
// SM90: tile.tma_load %arg5[%{{[0-9]+}}, %[[J:[a-z0-9_]+]], %{{.*}}, %{{.*}}]
// SM90: tile.tma_load %arg6[%{{[0-9]+}}, %[[J]], %{{.*}}, %{{.*}}]
// SM90: memref.expand_shape %arg3 {{\[}}[0], [1], [2, 3]] output_shape [2, 128, 2, 64]
// SM90: memref.transpose
// SM90: tile.memref_store
#map = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
func.func @attn_bshd(%arg0: tensor<2x128x2x64xf16>, %arg1: tensor<2x128x2x64xf16>, %arg2: tensor<2x128x2x64xf16>) -> tensor<2x128x128xf16> {
  %cst = arith.constant 1.250000e-01 : f16
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x2x128x64xf16>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x128x2x64xf16>) outs(%0 : tensor<2x2x128x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<2x2x128x64xf16>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x128x2x64xf16>) outs(%0 : tensor<2x2x128x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<2x2x128x64xf16>
  %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg2 : tensor<2x128x2x64xf16>) outs(%0 : tensor<2x2x128x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<2x2x128x64xf16>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<2x2x128x64xf16> into tensor<4x128x64xf16>
  %collapsed_1 = tensor.collapse_shape %2 [[0, 1], [2], [3]] : tensor<2x2x128x64xf16> into tensor<4x128x64xf16>
  %4 = tensor.empty() : tensor<4x128x128xf32>
  %5 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel", "parallel", "parallel"]} outs(%4 : tensor<4x128x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst_0 : f32
  } -> tensor<4x128x128xf32>
  %6 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%collapsed, %collapsed_1 : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%5 : tensor<4x128x128xf32>) {
  ^bb0(%in: f16, %in_4: f16, %out: f32):
    %17 = arith.extf %in : f16 to f32
    %18 = arith.extf %in_4 : f16 to f32
    %19 = arith.mulf %17, %18 : f32
    %20 = arith.addf %out, %19 : f32
    linalg.yield %20 : f32
  } -> tensor<4x128x128xf32>
  %7 = tensor.empty() : tensor<4x128x128xf16>
  %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<4x128x128xf32>) outs(%7 : tensor<4x128x128xf16>) {
  ^bb0(%in: f32, %out: f16):
    %17 = arith.truncf %in : f32 to f16
    %18 = arith.mulf %17, %cst : f16
    linalg.yield %18 : f16
  } -> tensor<4x128x128xf16>
  %9 = linalg.softmax dimension(2) ins(%8 : tensor<4x128x128xf16>) outs(%7 : tensor<4x128x128xf16>) -> tensor<4x128x128xf16>
  %collapsed_2 = tensor.collapse_shape %3 [[0, 1], [2], [3]] : tensor<2x2x128x64xf16> into tensor<4x128x64xf16>
  %10 = tensor.empty() : tensor<4x128x64xf32>
  %11 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel", "parallel", "parallel"]} outs(%10 : tensor<4x128x64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst_0 : f32
  } -> tensor<4x128x64xf32>
  %12 = linalg.generic {indexing_maps = [#map3, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%9, %collapsed_2 : tensor<4x128x128xf16>, tensor<4x128x64xf16>) outs(%11 : tensor<4x128x64xf32>) {
  ^bb0(%in: f16, %in_4: f16, %out: f32):
    %17 = arith.extf %in : f16 to f32
    %18 = arith.extf %in_4 : f16 to f32
    %19 = arith.mulf %17, %18 : f32
    %20 = arith.addf %out, %19 : f32
    linalg.yield %20 : f32
  } -> tensor<4x128x64xf32>
  %13 = tensor.empty() : tensor<4x128x64xf16>
  %14 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12 : tensor<4x128x64xf32>) outs(%13 : tensor<4x128x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %17 = arith.truncf %in : f32 to f16
    linalg.yield %17 : f16
  } -> tensor<4x128x64xf16>
  %expanded = tensor.expand_shape %14 [[0, 1], [2], [3]] output_shape [2, 2, 128, 64] : tensor<4x128x64xf16> into tensor<2x2x128x64xf16>
  %15 = tensor.empty() : tensor<2x128x2x64xf16>
  %16 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x2x128x64xf16>) outs(%15 : tensor<2x128x2x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<2x128x2x64xf16>
  %collapsed_3 = tensor.collapse_shape %16 [[0], [1], [2, 3]] : tensor<2x128x2x64xf16> into tensor<2x128x128xf16>
  return %collapsed_3 : tensor<2x128x128xf16>
}
