// RUN: tcc-opt %s -split-input-file --tcc-decompose-softmax | FileCheck %s

// A softmax over dim 0: a max over the dim (init -inf), a sum of
// exp(x - max), one reciprocal per column, then exp(x - max) * (1 / sum),
// in f32 for f16.
// CHECK-LABEL: func.func @softmax_dim0(
// CHECK:         %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%arg0 : tensor<64x32xf16>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:           arith.extf
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%arg0, %[[MAX]] : tensor<64x32xf16>, tensor<32xf32>)
// CHECK:           arith.mulf
// CHECK:           math.exp2
// CHECK:           arith.addf
// CHECK:         %[[INV:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}} ins(%[[SUM]] : tensor<32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:           arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %[[MAX]], %[[INV]] : tensor<64x32xf16>, tensor<32xf32>, tensor<32xf32>)
// CHECK:           math.exp
// CHECK-NEXT:      arith.mulf
// CHECK:           arith.truncf
// CHECK-NOT:     linalg.softmax
func.func @softmax_dim0(%x: tensor<64x32xf16>) -> tensor<64x32xf16> {
  %e = tensor.empty() : tensor<64x32xf16>
  %0 = linalg.softmax dimension(0) ins(%x : tensor<64x32xf16>) outs(%e : tensor<64x32xf16>) -> tensor<64x32xf16>
  return %0 : tensor<64x32xf16>
}

// -----

// Over the last dim the softmax stays one op (its own kernel form).
// CHECK-LABEL: func.func @softmax_last(
// CHECK:         linalg.softmax dimension(1)
func.func @softmax_last(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// Over the last dim with an elementwise producer (a scale and a mask): its
// reductions, which kernel formation fuses with the producer into one row
// program.
// CHECK-LABEL: func.func @softmax_last_scaled(
// CHECK:         %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %arg1 :
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[S]] : tensor<64x32xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[S]], %[[MAX]] :
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[S]], %[[MAX]], %{{.*}} :
// CHECK-NOT:     linalg.softmax
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax_last_scaled(%x: tensor<64x32xf32>, %mask: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = arith.constant 0.125 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mask : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    %u = arith.addf %t, %m : f32
    linalg.yield %u : f32
  } -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %0 = linalg.softmax dimension(1) ins(%s : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// Over the last dim read by an elementwise op (a cast): its reductions.
// CHECK-LABEL: func.func @softmax_last_cast(
// CHECK-NOT:     linalg.softmax
// CHECK:         arith.truncf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax_last_cast(%x: tensor<64x32xf32>) -> tensor<64x32xf16> {
  %e = tensor.empty() : tensor<64x32xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %e1 = tensor.empty() : tensor<64x32xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<64x32xf32>) outs(%e1 : tensor<64x32xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x32xf16>
  return %1 : tensor<64x32xf16>
}
