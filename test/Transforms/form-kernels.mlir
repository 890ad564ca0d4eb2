// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-form-kernels | FileCheck %s

// LayerNorm without the multi-reduction form: two row reductions and their
// pointwise consumers, which read the reduced rows broadcast (not through the
// identity), so each is a kernel; the host launches them in order.
// CHECK-LABEL: func.func private @layer_norm_k0(
// CHECK-SAME:    %{{.*}}: tensor<64x512xf32>) -> tensor<64xf32> attributes {tcc.kernel}
// CHECK:         arith.constant 0.0
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-LABEL: func.func private @layer_norm_k1(
// CHECK-SAME:    tensor<64x512xf32>, %{{.*}}: tensor<64xf32>) -> tensor<64x512xf32>
// CHECK-LABEL: func.func private @layer_norm_k2(
// CHECK-LABEL: func.func private @layer_norm_k3(
// CHECK-SAME:    tensor<64x512xf32>, %{{.*}}: tensor<64xf32>, %{{.*}}: tensor<512xf32>, %{{.*}}: tensor<512xf32>)
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    attributes {tcc.host}
// CHECK-NEXT:    %[[S:.*]] = tcc.launch @layer_norm_k0(%arg0)
// CHECK-NEXT:    %[[D:.*]] = tcc.launch @layer_norm_k1(%arg0, %[[S]])
// CHECK-NEXT:    %[[V:.*]] = tcc.launch @layer_norm_k2(%[[D]])
// CHECK-NEXT:    %[[Y:.*]] = tcc.launch @layer_norm_k3(%[[D]], %[[V]], %arg1, %arg2)
// CHECK-NEXT:    return %[[Y]]
func.func @layer_norm(%x: tensor<64x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>) -> tensor<64x512xf32> {
  %mean = tcc.reduce_mean %x dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %mean dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %d = tcc.sub %x, %mb : tensor<64x512xf32>
  %sq = tcc.mul %d, %d : tensor<64x512xf32>
  %var = tcc.reduce_mean %sq dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %eps = tcc.constant dense<1.0e-5> : tensor<64xf32>
  %ve = tcc.add %var, %eps : tensor<64xf32>
  %r = tcc.rsqrt %ve : tensor<64xf32>
  %rb = tcc.broadcast %r dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %n = tcc.mul %d, %rb : tensor<64x512xf32>
  %wb = tcc.broadcast %w dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %bb = tcc.broadcast %b dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %y0 = tcc.mul %n, %wb : tensor<64x512xf32>
  %y = tcc.add %y0, %bb : tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// A matmul with its bias epilogue is one kernel over the arguments: left as
// it is (no host program).
// CHECK-LABEL: func.func @linear(
// CHECK-NOT:     tcc.host
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-NOT:     tcc.launch
// CHECK:         return
func.func @linear(%x: tensor<64x32xf16>, %w: tensor<32x16xf16>, %b: tensor<16xf16>) -> tensor<64x16xf16> {
  %y = tcc.matmul %x, %w acc(f32) : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  %bb = tcc.broadcast %b dims = [0] : tensor<16xf16> -> tensor<64x16xf16>
  %z = tcc.add %y, %bb : tensor<64x16xf16>
  return %z : tensor<64x16xf16>
}

// -----

// The mean's division joins the row sum as its epilogue (identity map over
// the reduced rows); the keepdims reshape of a kernel result is a host view.
// CHECK-LABEL: func.func private @center_k0(
// CHECK-SAME:    -> tensor<8xf32>
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel"]
// CHECK:         arith.divf
// CHECK-LABEL: func.func private @center_k1(
// CHECK-LABEL: func.func @center(
// CHECK:         %[[M:.*]] = tcc.launch @center_k0(%arg0)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[M]]
// CHECK:         %[[D:.*]] = tcc.launch @center_k1(%arg0, %[[M]])
// CHECK:         return %[[D]], %[[E]]
func.func @center(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
  %m = tcc.reduce_mean %x dims = [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  %m1 = tensor.collapse_shape %m [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
  %mb = tcc.broadcast %m1 dims = [1] : tensor<8xf32> -> tensor<8x64xf32>
  %d = tcc.sub %x, %mb : tensor<8x64xf32>
  return %d, %m : tensor<8x64xf32>, tensor<8x1xf32>
}

// -----

// A root result used by its epilogue and by a later kernel: the epilogue
// stays its own kernel (the root's value must be stored for the other user).
// CHECK-LABEL: func.func @two_users(
// CHECK:         %[[S:.*]] = tcc.launch @two_users_k0(%arg0)
// CHECK:         %[[A:.*]] = tcc.launch @two_users_k1(%[[S]])
// CHECK:         %[[B:.*]] = tcc.launch @two_users_k2(%[[S]])
// CHECK:         return %[[A]], %[[B]]
func.func @two_users(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = tcc.reduce_sum %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  %e = tcc.exp %s : tensor<8xf32>
  %l = tcc.log %s : tensor<8xf32>
  return %e, %l : tensor<8xf32>, tensor<8xf32>
}

// -----

// A result that is an argument: the host returns it as it is.
// CHECK-LABEL: func.func @passthrough(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[S:.*]] = tcc.launch @passthrough_k0(%arg0) : (tensor<8x64xf32>) -> tensor<8xf32>
// CHECK:         return %arg0, %[[S]]
func.func @passthrough(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %s = tcc.reduce_max %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8xf32>
}
