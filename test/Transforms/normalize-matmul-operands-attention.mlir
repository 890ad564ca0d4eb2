// tcc-normalize-matmul-operands leaves the K of an attention chain's Q Kᵀ as
// stored (tcc::isAttentionScores): the fused attention kernel reads K's
// slices column-major, on AMD (MFMA) too, where a plain x @ w.T is still
// transposed first.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-normalize-matmul-operands | FileCheck %s

// CHECK-LABEL: func.func @attn(
// CHECK-NOT: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 :
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// Head dim 8: no attention kernel, so K is transposed first.
// CHECK-LABEL: func.func @attn_d8(
// CHECK: %[[KT:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x256x8xf16>)
// CHECK: ins(%arg0, %[[KT]] :
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_d8(%q: tensor<4x256x8xf16>, %k: tensor<4x256x8xf16>, %v: tensor<4x256x8xf16>) -> tensor<4x256x8xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x8xf16>, tensor<4x256x8xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x8xf32>) -> tensor<4x256x8xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x8xf16>) outs(%f2 : tensor<4x256x8xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x8xf32>
  %e3 = tensor.empty() : tensor<4x256x8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x8xf32>) outs(%e3 : tensor<4x256x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x8xf16>
  return %r : tensor<4x256x8xf16>
}
