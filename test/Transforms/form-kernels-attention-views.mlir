// tcc-form-kernels: attention on q, k, v stored [B, S, H, D] and read with
// `.transpose(1, 2)` (nanoGPT's layout; the batched matmul flattens the
// [B, H] batch), its result transposed back and viewed [B, S, H * D]: the
// transposes are views of the attention kernel (tcc::AttentionView), which
// reads and writes the stored tensors, so the program is one kernel with no
// permute kernels around it. A transposed value used elsewhere stays a
// kernel of its own, and the attention kernel reads it.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-form-kernels | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-form-kernels | FileCheck %s

// CHECK-LABEL: func.func @attn_bshd(
// CHECK-SAME: %arg0: tensor<2x128x2x64xf16>, %arg1: tensor<2x128x2x64xf16>, %arg2: tensor<2x128x2x64xf16>) -> tensor<2x128x128xf16>
// CHECK-NOT: tcc.launch
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x128x2x64xf16>)
// CHECK: linalg.softmax
// CHECK: tensor.expand_shape
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x128x2x64xf16>)
// CHECK: tensor.collapse_shape {{.*}} into tensor<2x128x128xf16>
// CHECK-NOT: tcc.launch
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

// -----

// CHECK-LABEL: func.func private @attn_bshd_q_returned_k0(
// CHECK-SAME: %arg0: tensor<2x128x2x64xf16>) -> tensor<2x2x128x64xf16>
// CHECK-LABEL: func.func private @attn_bshd_q_returned_k1(
// CHECK-SAME: %arg0: tensor<2x128x2x64xf16>, %arg1: tensor<2x128x2x64xf16>, %arg2: tensor<4x128x64xf16>) -> tensor<2x128x2x64xf16>
// CHECK: linalg.generic {{.*}} ins(%arg2, %{{.*}} : tensor<4x128x64xf16>, tensor<4x128x64xf16>)
// CHECK: linalg.softmax
// CHECK-LABEL: func.func @attn_bshd_q_returned(
// CHECK: %[[Q:.*]] = tcc.launch @attn_bshd_q_returned_k0(%arg0)
// CHECK: %[[QC:.*]] = tensor.collapse_shape %[[Q]]
// CHECK: %[[O:.*]] = tcc.launch @attn_bshd_q_returned_k1(%arg1, %arg2, %[[QC]])
// CHECK: tensor.collapse_shape %[[O]]
// CHECK-NOT: tcc.launch
#map = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
func.func @attn_bshd_q_returned(%arg0: tensor<2x128x2x64xf16>, %arg1: tensor<2x128x2x64xf16>, %arg2: tensor<2x128x2x64xf16>) -> (tensor<2x128x128xf16>, tensor<2x2x128x64xf16>) {
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
  return %collapsed_3, %1 : tensor<2x128x128xf16>, tensor<2x2x128x64xf16>
}
