// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --canonicalize | FileCheck %s

// Every tcc op lowers to linalg on tensors: named ops where upstream has them.

// CHECK-LABEL: func.func @add_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4x?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK: linalg.add ins(%[[A]], %[[B]] : tensor<4x?xf32>, tensor<4x?xf32>) outs(%[[E]] : tensor<4x?xf32>)
// CHECK-NOT: tcc.
func.func @add_f32(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = tcc.add %a, %b : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @max_i32
// CHECK: linalg.max ins(%{{.*}}, %{{.*}} : tensor<8xi32>, tensor<8xi32>)
func.func @max_i32(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<8xi32> {
  %0 = tcc.max %a, %b : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// Integer neg has no named op (linalg.negf is float-only): a generic.
// CHECK-LABEL: func.func @neg_int_abs_float
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.subi %{{.*}}, %[[IN]] : i32
// CHECK: linalg.abs ins(%{{.*}} : tensor<8xf32>)
func.func @neg_int_abs_float(%a: tensor<8xi32>, %f: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xf32>) {
  %0 = tcc.neg %a : tensor<8xi32>
  %1 = tcc.abs %f : tensor<8xf32>
  return %0, %1 : tensor<8xi32>, tensor<8xf32>
}

// -----

// f16 GELU is computed in f32 inside the body.
// CHECK-LABEL: func.func @gelu_f16
// CHECK-DAG: %[[C:.*]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[K:.*]] = arith.constant 4.471500e-02 : f32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[X:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[X3:.*]] = arith.mulf %[[X]], %[[X2]] : f32
// CHECK: arith.mulf %[[X3]], %[[K]] : f32
// CHECK: math.tanh
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
func.func @gelu_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = tcc.gelu %x approximate = tanh : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CHECK-LABEL: func.func @gelu_erf
// CHECK: arith.constant 0.707106769 : f32
// CHECK: linalg.generic
// CHECK: math.erf
// CHECK-NOT: math.tanh
func.func @gelu_erf(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc.gelu %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @relu_sigmoid
// CHECK: linalg.generic
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @relu_sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc.relu %x : tensor<8xf32>
  %1 = tcc.sigmoid %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @casts
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.uitofp %{{.*}} : i1 to f16
func.func @casts(%x: tensor<8xf32>, %i: tensor<8xi1>) -> (tensor<8xbf16>, tensor<8xi32>, tensor<8xf16>) {
  %0 = tcc.cast %x : tensor<8xf32> to tensor<8xbf16>
  %1 = tcc.cast %x : tensor<8xf32> to tensor<8xi32>
  %2 = tcc.cast %i : tensor<8xi1> to tensor<8xf16>
  return %0, %1, %2 : tensor<8xbf16>, tensor<8xi32>, tensor<8xf16>
}

// -----

// f16 <-> bf16 (one width): through f32.
// CHECK-LABEL: func.func @half_to_bfloat
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %[[W]] : f32 to bf16
// CHECK: %[[V:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %[[V]] : f32 to f16
func.func @half_to_bfloat(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = tcc.cast %x : tensor<8xf16> to tensor<8xbf16>
  %1 = tcc.cast %0 : tensor<8xbf16> to tensor<8xf16>
  return %1 : tensor<8xf16>
}

// -----

// The added dynamic dim takes its size from `sizes`, the kept one from the input.
// CHECK-LABEL: func.func @broadcast_sizes
// CHECK-SAME: (%[[B:.*]]: tensor<?xf32>, %[[M:.*]]: index)
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: linalg.broadcast ins(%[[B]] : tensor<?xf32>) outs(%[[E]] : tensor<?x?xf32>) dimensions = [0]
func.func @broadcast_sizes(%b: tensor<?xf32>, %m: index) -> tensor<?x?xf32> {
  %0 = tcc.broadcast %b dims = [0] sizes(%m) : tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<8x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x8xf32>) outs(%[[E]] : tensor<8x?xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<?x8xf32>) -> tensor<8x?xf32> {
  %0 = tcc.transpose %x permutation = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

// f32 accumulation, then a cast to the f16 result.
// CHECK-LABEL: func.func @matmul_acc
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x16xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<64x16xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x16xf16>) outs(%[[F]] : tensor<64x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<64x16xf32>) outs(%{{.*}} : tensor<64x16xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_acc(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>) -> tensor<64x16xf16> {
  %0 = tcc.matmul %a, %b acc(f32) : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf16>
  return %0 : tensor<64x16xf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x?x32xf32>, %[[B:.*]]: tensor<2x32x?xf32>)
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<2x?x32xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<2x32x?xf32>
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<2x?x?xf32>
// CHECK: linalg.batch_matmul
// CHECK-NOT: linalg.generic
func.func @batch_matmul(%a: tensor<2x?x32xf32>, %b: tensor<2x32x?xf32>) -> tensor<2x?x?xf32> {
  %0 = tcc.matmul %a, %b : tensor<2x?x32xf32>, tensor<2x32x?xf32> -> tensor<2x?x?xf32>
  return %0 : tensor<2x?x?xf32>
}

// -----

// f16 sums accumulate in f32; keepdims re-inserts the unit dim.
// CHECK-LABEL: func.func @sum_keepdims_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%{{.*}} : tensor<4x?xf32>) outs(%[[F]] : tensor<4xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf16> into tensor<4x1xf16>
func.func @sum_keepdims_f16(%x: tensor<4x?xf16>) -> tensor<4x1xf16> {
  %0 = tcc.reduce_sum %x dims = [1] keepdims : tensor<4x?xf16> -> tensor<4x1xf16>
  return %0 : tensor<4x1xf16>
}

// -----

// CHECK-LABEL: func.func @max_rows
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32)
// CHECK: linalg.reduce
// CHECK: arith.maximumf
func.func @max_rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = tcc.reduce_max %x dims = [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// The count of a dynamic reduction is computed at run time.
// CHECK-LABEL: func.func @mean_all
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x8xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[NF]] : f32
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @mean_all(%x: tensor<?x8xf32>) -> tensor<1x1xf32> {
  %0 = tcc.reduce_mean %x dims = [0, 1] keepdims : tensor<?x8xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<?x128xf16>) outs(%{{.*}} : tensor<?x128xf16>)
func.func @softmax(%x: tensor<?x128xf16>) -> tensor<?x128xf16> {
  %0 = tcc.softmax %x dim = 1 : tensor<?x128xf16>
  return %0 : tensor<?x128xf16>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NOT: tcc.constant
func.func @constant() -> tensor<4xf32> {
  %0 = tcc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Comparisons: ordered float predicates (`ne` unordered), signed integers,
// unsigned i1.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: i1):
// CHECK: arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK: linalg.generic
// CHECK: arith.cmpf une
// CHECK: linalg.generic
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
func.func @compare(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %i: tensor<3xi32>, %p: tensor<3xi1>)
    -> (tensor<4x?xi1>, tensor<4x?xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = tcc.cmp lt, %a, %b : tensor<4x?xf32> -> tensor<4x?xi1>
  %1 = tcc.cmp ne, %a, %b : tensor<4x?xf32> -> tensor<4x?xi1>
  %2 = tcc.cmp ge, %i, %i : tensor<3xi32> -> tensor<3xi1>
  %3 = tcc.cmp gt, %p, %p : tensor<3xi1> -> tensor<3xi1>
  return %0, %1, %2, %3 : tensor<4x?xi1>, tensor<4x?xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<4x?xi1>, %[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4x?xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[A]], %[[B]] : tensor<4x?xi1>, tensor<4x?xf32>, tensor<4x?xf32>)
// CHECK: ^bb0(%[[IC:.*]]: i1, %[[IA:.*]]: f32, %[[IB:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.select %[[IC]], %[[IA]], %[[IB]] : f32
func.func @select(%c: tensor<4x?xi1>, %a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = tcc.select %c, %a, %b : tensor<4x?xi1>, tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// f16 erf is computed in f32.
// CHECK-LABEL: func.func @erf_f16
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[E:.*]] = math.erf %[[X]] : f32
// CHECK: arith.truncf %[[E]] : f32 to f16
func.func @erf_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = tcc.erf %x : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// One generic with a values and an indices output; the index of the reduced
// dim from linalg.index.
// CHECK-LABEL: func.func @argmax_keepdims
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[BIG:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[V:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[I:.*]] = linalg.fill ins(%[[BIG]] : i64) outs(%{{.*}} : tensor<?xi64>)
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<?x8xf32>) outs(%[[V]], %[[I]] : tensor<?xf32>, tensor<?xi64>)
// CHECK: linalg.index 1 : index
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK: tensor.expand_shape %[[G]]#0 {{\[\[}}0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK: tensor.expand_shape %[[G]]#1 {{\[\[}}0, 1]] output_shape [%{{.*}}, 1] : tensor<?xi64> into tensor<?x1xi64>
func.func @argmax_keepdims(%x: tensor<?x8xf32>) -> (tensor<?x1xf32>, tensor<?x1xi64>) {
  %v, %i = tcc.reduce_argmax %x dim = 1 keepdims : tensor<?x8xf32> -> tensor<?x1xf32>, tensor<?x1xi64>
  return %v, %i : tensor<?x1xf32>, tensor<?x1xi64>
}

// -----

// CHECK-LABEL: func.func @argmin_int_dim0
// CHECK-DAG: arith.constant 2147483647 : i32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK: linalg.index 0 : index
// CHECK: arith.cmpi slt
func.func @argmin_int_dim0(%x: tensor<5x3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %v, %i = tcc.reduce_argmin %x dim = 0 : tensor<5x3xi32> -> tensor<3xi32>, tensor<3xi32>
  return %v, %i : tensor<3xi32>, tensor<3xi32>
}

// -----

// Reshapes: collapse to one dim per group of equal size, expand from there.
// CHECK-LABEL: func.func @reshape_static
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x12xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 2, 12] : tensor<2x12xf32> into tensor<1x2x12xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x1x3xf32> into tensor<4x3xf32>
func.func @reshape_static(%x: tensor<2x12xf32>, %y: tensor<4x1x3xf32>) -> (tensor<4x6xf32>, tensor<1x2x12xf32>, tensor<4x3xf32>) {
  %0 = tcc.reshape %x : tensor<2x12xf32> -> tensor<4x6xf32>
  %1 = tcc.reshape %x : tensor<2x12xf32> -> tensor<1x2x12xf32>
  %2 = tcc.reshape %y : tensor<4x1x3xf32> -> tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x6xf32>, tensor<1x2x12xf32>, tensor<4x3xf32>
}

// -----

// Dynamic dims: static groups from both ends, the dynamic middle as one
// group; the result's dynamic sizes come from `sizes`.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[A:.*]]: index, %[[B:.*]]: index, %[[Y:.*]]: tensor<?x1xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2, 3]] output_shape [%[[A]], %[[B]], 2, 4] : tensor<?x8xf32> into tensor<?x?x2x4xf32>
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0, 1]] : tensor<?x1xf32> into tensor<?xf32>
func.func @reshape_dynamic(%x: tensor<?x?x8xf32>, %a: index, %b: index, %y: tensor<?x1xf32>) -> (tensor<?x?x2x4xf32>, tensor<?xf32>) {
  %0 = tcc.reshape %x sizes(%a, %b) : tensor<?x?x8xf32> -> tensor<?x?x2x4xf32>
  %1 = tcc.reshape %y sizes(%a) : tensor<?x1xf32> -> tensor<?xf32>
  return %0, %1 : tensor<?x?x2x4xf32>, tensor<?xf32>
}

// -----

// Rank 0 to and from unit dims; a static result of a dynamic input is a cast.
// CHECK-LABEL: func.func @reshape_rank0_and_cast
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[CAST:.*]] = tensor.cast %{{.*}} : tensor<?xf32> to tensor<6xf32>
// CHECK: tensor.expand_shape %[[CAST]] {{\[\[}}0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
func.func @reshape_rank0_and_cast(%s: tensor<f32>, %u: tensor<1x1xf32>, %v: tensor<?xf32>) -> (tensor<1x1xf32>, tensor<f32>, tensor<2x3xf32>) {
  %0 = tcc.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %1 = tcc.reshape %u : tensor<1x1xf32> -> tensor<f32>
  %2 = tcc.reshape %v : tensor<?xf32> -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<1x1xf32>, tensor<f32>, tensor<2x3xf32>
}

// -----

// tcc.iota: a generic with no inputs yielding its index.
// CHECK-LABEL: func.func @iota
// CHECK: %[[E:.*]] = tensor.empty(%arg0) : tensor<?xi64>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xi64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: linalg.yield %[[C]] : i64
func.func @iota(%n: index) -> tensor<?xi64> {
  %0 = tcc.iota(%n) : tensor<?xi64>
  return %0 : tensor<?xi64>
}
