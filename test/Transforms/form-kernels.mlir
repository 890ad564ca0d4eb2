// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-form-kernels | FileCheck %s

// LayerNorm: two row reductions and the pointwise ops around them, over one
// row space, are one row program; reading only its arguments, the program is
// left as it is (one kernel).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NOT:     tcc.host
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "parallel"]
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         iterator_types = ["parallel", "parallel"]
// CHECK-NOT:     tcc.launch
// CHECK:         return
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

// The mean's division and the centring join the row sum; the keepdims
// reshape of the mean is returned as a view of the kernel's value.
// CHECK-LABEL: func.func @center(
// CHECK-NOT:     tcc.launch
// CHECK:         %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         %[[D:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[D]]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
func.func @center(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>) {
  %m = tcc.reduce_mean %x dims = [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  %m1 = tensor.collapse_shape %m [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
  %mb = tcc.broadcast %m1 dims = [1] : tensor<8xf32> -> tensor<8x64xf32>
  %d = tcc.sub %x, %mb : tensor<8x64xf32>
  return %d, %m : tensor<8x64xf32>, tensor<8x1xf32>
}

// -----

// A softmax is a kernel of its own; the row sum of its result is another.
// CHECK-LABEL: func.func private @softmax_sum_k0(
// CHECK:         linalg.softmax
// CHECK-LABEL: func.func private @softmax_sum_k1(
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK-LABEL: func.func @softmax_sum(
// CHECK:         %[[Y:.*]] = tcc.launch @softmax_sum_k0(%arg0)
// CHECK:         %[[S:.*]] = tcc.launch @softmax_sum_k1(%[[Y]])
// CHECK:         return %[[Y]], %[[S]]
func.func @softmax_sum(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %y = tcc.softmax %x dim = 1 : tensor<8x64xf32>
  %s = tcc.reduce_sum %y dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %y, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

// A matmul's value read by an op that is not its epilogue: the matmul's
// kernel stores it, and the row program over it is a second kernel (a GEMM
// whose consumer is not pointwise ends its kernel).
// CHECK-LABEL: func.func @gemm_softmax(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[C:.*]] = tcc.launch @gemm_softmax_k0(%arg0, %arg1) : (tensor<64x32xf16>, tensor<32x128xf16>) -> tensor<64x128xf32>
// CHECK:         %[[Y:.*]] = tcc.launch @gemm_softmax_k1(%[[C]])
// CHECK:         return %[[Y]]
func.func @gemm_softmax(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>) -> tensor<64x128xf32> {
  %c = tcc.matmul %a, %b acc(f32) : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %m = tcc.reduce_max %c dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %m dims = [1] : tensor<64xf32> -> tensor<64x128xf32>
  %d = tcc.sub %c, %mb : tensor<64x128xf32>
  %e = tcc.exp %d : tensor<64x128xf32>
  %s = tcc.reduce_sum %e dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %sb = tcc.broadcast %s dims = [1] : tensor<64xf32> -> tensor<64x128xf32>
  %y = tcc.div %e, %sb : tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// A result that is an argument: a pointwise kernel copies it into its
// output, so every output is written by a kernel.
// CHECK-LABEL: func.func private @passthrough_k1(
// CHECK-SAME:    tcc.kernel
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<8x64xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK-LABEL: func.func @passthrough(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[S:.*]] = tcc.launch @passthrough_k0(%arg0) : (tensor<8x64xf32>) -> tensor<8xf32>
// CHECK:         %[[C:.*]] = tcc.launch @passthrough_k1(%arg0) : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK:         return %[[C]], %[[S]]
func.func @passthrough(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %s = tcc.reduce_max %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %x, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

// Nothing to compute: the result is an argument's reshape (it was "needs 0
// kernels" from convert-linalg-to-tile). One kernel copies the reshape (a
// host view) into the output.
// CHECK-LABEL: func.func private @nothing_k0(
// CHECK:         linalg.generic
// CHECK-LABEL: func.func @nothing(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[R:.*]] = tensor.collapse_shape %arg0
// CHECK:         %[[C:.*]] = tcc.launch @nothing_k0(%[[R]])
// CHECK:         return %[[C]]
func.func @nothing(%x: tensor<2x33xf32>) -> tensor<66xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x33xf32> into tensor<66xf32>
  return %r : tensor<66xf32>
}

// -----

// A value returned twice: the second result is a copy of it (an output of
// its own), here the reduction's epilogue: still one kernel.
// CHECK-LABEL: func.func @twice(
// CHECK-NOT:     tcc.host
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         return %[[S]], %[[C]]
func.func @twice(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = tcc.reduce_max %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %s, %s : tensor<8xf32>, tensor<8xf32>
}
