// RUN: tcc-opt %s -split-input-file --tcc-decompose-softmax | FileCheck %s

// A softmax over dim 0: a max over the dim (init -inf), a sum of
// exp(x - max), then exp(x - max) / sum, in f32 for f16.
// CHECK-LABEL: func.func @softmax_dim0(
// CHECK:         %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%arg0 : tensor<64x32xf16>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:           arith.extf
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%arg0, %[[MAX]] : tensor<64x32xf16>, tensor<32xf32>)
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0, %[[MAX]], %[[SUM]] : tensor<64x32xf16>, tensor<32xf32>, tensor<32xf32>)
// CHECK:           arith.divf
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
