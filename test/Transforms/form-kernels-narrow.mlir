// RUN: tcc-opt %s -split-input-file --tcc-form-kernels | FileCheck %s

// SwiGLU's gate: silu(x @ w1.T) * (x @ w3.T), with the bf16 rounding of each
// GEMM result fused into the pointwise op. The pointwise op joins the first
// GEMM's kernel; the second GEMM's result, which it reads from memory and
// uses only rounded to bf16, is stored in bf16: the rounding becomes that
// kernel's epilogue (half the bytes of the f32 accumulator, written and read).
// CHECK-LABEL: func.func private @swiglu_gate_k0(
// CHECK-SAME:    %{{.*}}: tensor<256x128xbf16>) -> tensor<256x128xbf16>
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<256x128xf32>, tensor<256x128xbf16>)
// CHECK:         ^bb0(%{{.*}}: f32, %[[G:.*]]: bf16, %{{.*}}: bf16):
// CHECK:           arith.extf %[[G]] : bf16 to f32
// CHECK-LABEL: func.func private @swiglu_gate_k1(
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<256x128xf32>) outs(%{{.*}} : tensor<256x128xbf16>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[A]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK-LABEL: func.func @swiglu_gate(
// CHECK:         %[[B:.*]] = tcc.launch @swiglu_gate_k1(%arg0, %arg2) : {{.*}} -> tensor<256x128xbf16>
// CHECK:         tcc.launch @swiglu_gate_k0(%arg0, %arg1, %[[B]])
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @swiglu_gate(%x: tensor<256x64xbf16>, %w1: tensor<128x64xbf16>, %w3: tensor<128x64xbf16>) -> tensor<256x128xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x128xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<256x64xbf16>, tensor<128x64xbf16>) outs(%1 : tensor<256x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %a = arith.extf %in : bf16 to f32
    %b = arith.extf %in_1 : bf16 to f32
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x128xf32>
  %3 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<256x64xbf16>, tensor<128x64xbf16>) outs(%1 : tensor<256x128xf32>) {
  ^bb0(%in: bf16, %in_1: bf16, %out: f32):
    %a = arith.extf %in : bf16 to f32
    %b = arith.extf %in_1 : bf16 to f32
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x128xf32>
  %4 = tensor.empty() : tensor<256x128xbf16>
  %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %3 : tensor<256x128xf32>, tensor<256x128xf32>) outs(%4 : tensor<256x128xbf16>) {
  ^bb0(%in: f32, %in_1: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    %e = arith.extf %t : bf16 to f32
    %n = arith.negf %e : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %e, %sig : f32
    %t3 = arith.truncf %in_1 : f32 to bf16
    %e3 = arith.extf %t3 : bf16 to f32
    %y = arith.mulf %silu, %e3 : f32
    %r = arith.truncf %y : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x128xbf16>
  return %5 : tensor<256x128xbf16>
}

// -----

// A stored GEMM result the consumer uses at full precision stays f32.
// CHECK-LABEL: func.func private @wide_k0(
// CHECK:         ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK-LABEL: func.func private @wide_k1(
// CHECK-SAME:    -> tensor<64x32xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @wide(%x: tensor<64x16xf16>, %w1: tensor<32x16xf16>, %w3: tensor<32x16xf16>) -> tensor<64x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<64x16xf16>, tensor<32x16xf16>) outs(%1 : tensor<64x32xf32>) {
  ^bb0(%in: f16, %in_1: f16, %out: f32):
    %a = arith.extf %in : f16 to f32
    %b = arith.extf %in_1 : f16 to f32
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  %3 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<64x16xf16>, tensor<32x16xf16>) outs(%1 : tensor<64x32xf32>) {
  ^bb0(%in: f16, %in_1: f16, %out: f32):
    %a = arith.extf %in : f16 to f32
    %b = arith.extf %in_1 : f16 to f32
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %3 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%0 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %y = arith.mulf %in, %in_1 : f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  return %5 : tensor<64x32xf32>
}
