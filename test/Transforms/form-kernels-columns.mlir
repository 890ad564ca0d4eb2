// RUN: tcc-opt %s -split-input-file --tcc-tensor-to-linalg --tcc-split-reduction --tcc-form-kernels | FileCheck %s

// A column mean of f16 (summed in f32), its divide and cast back to f16
// over the outputs: one column-reduction kernel over the arguments, left as
// it is.
// CHECK-LABEL: func.func @column_mean(
// CHECK-NOT:     tcc.host
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:           arith.extf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK:           arith.divf
// CHECK:           arith.truncf
// CHECK-NOT:     tcc.launch
func.func @column_mean(%x: tensor<512x64xf16>) -> tensor<64xf16> {
  %m = tcc.reduce_mean %x dims = [0] : tensor<512x64xf16> -> tensor<64xf16>
  return %m : tensor<64xf16>
}

// -----

// x - x.mean(0): the column mean (with its divide) is a kernel; the
// centring, over the reduced space, reads it in a second kernel.
// CHECK-LABEL: func.func private @center_columns_k0(
// CHECK-SAME:    tensor<64x40xf32>) -> tensor<40xf32> attributes {tcc.kernel}
// CHECK:         iterator_types = ["reduction", "parallel"]
// CHECK:         iterator_types = ["parallel"]
// CHECK-LABEL: func.func private @center_columns_k1(
// CHECK-SAME:    attributes {tcc.kernel}
// CHECK:         iterator_types = ["parallel", "parallel"]
// CHECK-LABEL: func.func @center_columns(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[M:.*]] = tcc.launch @center_columns_k0(%{{.*}})
// CHECK:         %[[D:.*]] = tcc.launch @center_columns_k1(%{{.*}}, %[[M]])
// CHECK:         return %[[D]], %[[M]]
func.func @center_columns(%x: tensor<64x40xf32>) -> (tensor<64x40xf32>, tensor<40xf32>) {
  %m = tcc.reduce_mean %x dims = [0] : tensor<64x40xf32> -> tensor<40xf32>
  %mb = tcc.broadcast %m dims = [0] : tensor<40xf32> -> tensor<64x40xf32>
  %d = tcc.sub %x, %mb : tensor<64x40xf32>
  return %d, %m : tensor<64x40xf32>, tensor<40xf32>
}

// -----

// The mean over the middle dim of a rank-3 tensor plus a per-column bias:
// the bias add is an epilogue over the [B, N] outputs reading the bias per
// column; one kernel.
// CHECK-LABEL: func.func @mean_dim1_bias(
// CHECK-NOT:     tcc.host
// CHECK:         iterator_types = ["parallel", "reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<8x256xf32>, tensor<256xf32>)
// CHECK-NOT:     tcc.launch
func.func @mean_dim1_bias(%x: tensor<8x100x256xf32>, %b: tensor<256xf32>) -> tensor<8x256xf32> {
  %m = tcc.reduce_mean %x dims = [1] : tensor<8x100x256xf32> -> tensor<8x256xf32>
  %bb = tcc.broadcast %b dims = [0] : tensor<256xf32> -> tensor<8x256xf32>
  %y = tcc.add %m, %bb : tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}

// -----

// A pointwise op over two column reductions' outputs joins the first (its
// epilogue) and reads the second's stored value: two kernels, the second
// reduction's launched first.
// CHECK-LABEL: func.func private @sum_plus_max_k0(
// CHECK-SAME:    tensor<128x32xf32>, %{{.*}}: tensor<32xf32>) -> tensor<32xf32>
// CHECK:         arith.addf
// CHECK:         iterator_types = ["parallel"]
// CHECK-LABEL: func.func private @sum_plus_max_k1(
// CHECK-SAME:    tensor<128x32xf32>) -> tensor<32xf32>
// CHECK:         arith.maximumf
// CHECK-LABEL: func.func @sum_plus_max(
// CHECK:         %[[M:.*]] = tcc.launch @sum_plus_max_k1(%arg1)
// CHECK:         tcc.launch @sum_plus_max_k0(%arg0, %[[M]])
func.func @sum_plus_max(%x: tensor<128x32xf32>, %y: tensor<128x32xf32>) -> tensor<32xf32> {
  %s = tcc.reduce_sum %x dims = [0] : tensor<128x32xf32> -> tensor<32xf32>
  %m = tcc.reduce_max %y dims = [0] : tensor<128x32xf32> -> tensor<32xf32>
  %r = tcc.add %s, %m : tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// A sum of every element (tcc-split-reduction: a one-row reduction split in
// 16 chunks of 16384): the partial row program, then the final reduction;
// the input's flattening and the scalar result are host reshapes (views).
// CHECK-LABEL: func.func private @total_k0(
// CHECK-SAME:    tensor<1x16x16384xf32>) -> tensor<1x16xf32>
// CHECK-LABEL: func.func private @total_k1(
// CHECK-SAME:    tensor<1x16xf32>) -> tensor<1xf32>
// CHECK-LABEL: func.func @total(
// CHECK-SAME:    %[[X:.*]]: tensor<512x512xf32>) -> tensor<f32> attributes {tcc.host}
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]]
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[FLAT]]
// CHECK:         %[[P:.*]] = tcc.launch @total_k0(%[[E]])
// CHECK:         %[[S:.*]] = tcc.launch @total_k1(%[[P]])
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[S]] [] : tensor<1xf32> into tensor<f32>
// CHECK:         return %[[R]]
func.func @total(%x: tensor<512x512xf32>) -> tensor<f32> {
  %s = tcc.reduce_sum %x dims = [0, 1] : tensor<512x512xf32> -> tensor<f32>
  return %s : tensor<f32>
}
