// Folds and canonicalizations of the tcc ops, and CSE of identical pure ops.
// RUN: tcc-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: tcc-opt %s -cse -split-input-file | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @broadcast_nothing
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NOT: tcc.broadcast
// CHECK: return %[[X]]
func.func @broadcast_nothing(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tcc.broadcast %x dims = [] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A type-changing empty broadcast is kept: a fold may not change the type.
// CHECK-LABEL: func.func @broadcast_nothing_refines_type
// CHECK: tcc.broadcast %{{.*}} dims = [] : tensor<?xf32> -> tensor<8xf32>
func.func @broadcast_nothing_refines_type(%x: tensor<?xf32>) -> tensor<8xf32> {
  %0 = tcc.broadcast %x dims = [] : tensor<?xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: tcc.cast
// CHECK: return %[[X]]
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cast(cast(x)) rounds through the middle type: both casts stay.
// CHECK-LABEL: func.func @cast_cast_kept
// CHECK: %[[A:.*]] = tcc.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[B:.*]] = tcc.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[B]]
func.func @cast_cast_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = tcc.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tcc.transpose
// CHECK: return %[[X]]
func.func @transpose_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tcc.transpose %x permutation = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_rank0
// CHECK-SAME: (%[[X:.*]]: tensor<f32>)
// CHECK-NOT: tcc.transpose
// CHECK: return %[[X]]
func.func @transpose_rank0(%x: tensor<f32>) -> tensor<f32> {
  %0 = tcc.transpose %x permutation = [] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose_transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tcc.transpose
// CHECK: return %[[X]]
func.func @transpose_transpose_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tcc.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tcc.transpose %0 permutation = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Result dim i of the outer op is x dim inner[outer[i]]: inner = outer =
// [1, 2, 0] compose to [2, 0, 1].
// CHECK-LABEL: func.func @transpose_transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tcc.transpose %[[X]] permutation = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tcc.transpose %x permutation = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tcc.transpose %0 permutation = [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// The composition is the identity but the types differ (dynamic vs static):
// it becomes one identity transpose that keeps the result type.
// CHECK-LABEL: func.func @transpose_transpose_refines_type
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NEXT: %[[T:.*]] = tcc.transpose %[[X]] permutation = [0, 1] : tensor<?x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_transpose_refines_type(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %0 = tcc.transpose %x permutation = [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %1 = tcc.transpose %0 permutation = [1, 0] : tensor<8x?xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NOT: tcc.neg
// CHECK: return %[[X]]
func.func @neg_neg(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tcc.neg %x : tensor<4xi32>
  %1 = tcc.neg %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @abs_abs
// CHECK-NEXT: %[[A:.*]] = tcc.abs %{{.*}} : tensor<4xf32>
// CHECK-NEXT: return %[[A]]
func.func @abs_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc.abs %x : tensor<4xf32>
  %1 = tcc.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %[[A:.*]] = tcc.relu %{{.*}} : tensor<?xf16>
// CHECK-NEXT: return %[[A]]
func.func @relu_relu(%x: tensor<?xf16>) -> tensor<?xf16> {
  %0 = tcc.relu %x : tensor<?xf16>
  %1 = tcc.relu %0 : tensor<?xf16>
  return %1 : tensor<?xf16>
}

// -----

// CHECK-LABEL: func.func @fold_float_splats
// CHECK-DAG: %[[ADD:.*]] = tcc.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[SUB:.*]] = tcc.constant dense<-1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[MUL:.*]] = tcc.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NOT: tcc.add
// CHECK-NOT: tcc.sub
// CHECK-NOT: tcc.mul
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]]
func.func @fold_float_splats() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = tcc.constant dense<1.0> : tensor<4xf32>
  %b = tcc.constant dense<2.0> : tensor<4xf32>
  %0 = tcc.add %a, %b : tensor<4xf32>
  %1 = tcc.sub %a, %b : tensor<4xf32>
  %2 = tcc.mul %a, %b : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_int_dense
// CHECK: %[[C:.*]] = tcc.constant dense<[11, 22, 33]> : tensor<3xi32>
// CHECK-NOT: tcc.add
// CHECK: return %[[C]]
func.func @fold_int_dense() -> tensor<3xi32> {
  %a = tcc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = tcc.constant dense<[10, 20, 30]> : tensor<3xi32>
  %0 = tcc.add %a, %b : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Compatibility is not transitive through `?`: this pair is left alone since
// the composed transpose would not verify.
// CHECK-LABEL: func.func @transpose_transpose_not_transitive
// CHECK: tcc.transpose
// CHECK: tcc.transpose
func.func @transpose_transpose_not_transitive(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tcc.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<?x?xf32>
  %1 = tcc.transpose %0 permutation = [1, 0] : tensor<?x?xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Division is not constant-folded (division by zero is the lowering's call).
// CHECK-LABEL: func.func @no_fold_div
// CHECK: tcc.div
func.func @no_fold_div() -> tensor<4xf32> {
  %a = tcc.constant dense<1.0> : tensor<4xf32>
  %z = tcc.constant dense<0.0> : tensor<4xf32>
  %0 = tcc.div %a, %z : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Constant operands with a type mismatch (static vs dynamic) are not folded:
// the folded constant must have the result type exactly.
// CHECK-LABEL: func.func @no_fold_mixed_types
// CHECK: tcc.add
func.func @no_fold_mixed_types() -> tensor<?xf32> {
  %a = tcc.constant dense<1.0> : tensor<4xf32>
  %0 = tcc.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Pure ops without uses are erased.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT: return
func.func @dead(%x: tensor<4x8xf32>) {
  %0 = tcc.exp %x : tensor<4x8xf32>
  %1 = tcc.reduce_sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %2 = tcc.constant dense<1.0> : tensor<4xf32>
  return
}

// -----

// CSE-LABEL: func.func @cse
// CSE-NEXT: %[[A:.*]] = tcc.add
// CSE-NEXT: %[[M:.*]] = tcc.matmul
// CSE-NEXT: %[[S:.*]] = tcc.softmax
// CSE-NEXT: return %[[A]], %[[A]], %[[M]], %[[M]], %[[S]], %[[S]]
func.func @cse(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = tcc.add %x, %x : tensor<4x4xf32>
  %1 = tcc.add %x, %x : tensor<4x4xf32>
  %2 = tcc.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = tcc.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %4 = tcc.softmax %x dim = 1 : tensor<4x4xf32>
  %5 = tcc.softmax %x dim = 1 : tensor<4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @select_same_values
// CHECK-SAME: (%{{.*}}: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: tcc.select
// CHECK: return %[[A]]
func.func @select_same_values(%c: tensor<4xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tcc.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @select_constant_condition
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: tcc.select
// CHECK: return %[[B]], %[[A]]
func.func @select_constant_condition(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %f = tcc.constant dense<false> : tensor<4xi1>
  %t = tcc.constant dense<true> : tensor<4xi1>
  %0 = tcc.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = tcc.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[Y:.*]]: tensor<?x6xf32>, %{{.*}}: index)
// CHECK-NOT: tcc.reshape
// CHECK: return %[[X]], %[[Y]]
func.func @reshape_identity(%x: tensor<4x6xf32>, %y: tensor<?x6xf32>, %n: index) -> (tensor<4x6xf32>, tensor<?x6xf32>) {
  %0 = tcc.reshape %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %1 = tcc.reshape %y sizes(%n) : tensor<?x6xf32> -> tensor<?x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<?x6xf32>
}

// -----

// Two dynamic dims: the same type may still be another shape (2x6 vs 3x4).
// CHECK-LABEL: func.func @reshape_two_dynamic_dims_kept
// CHECK: tcc.reshape
func.func @reshape_two_dynamic_dims_kept(%x: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %0 = tcc.reshape %x sizes(%a, %b) : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// reshape(reshape(x)) reshapes x once, or not at all when it comes back.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK: %[[R:.*]] = tcc.reshape %[[X]] : tensor<4x6xf32> -> tensor<2x12xf32>
// CHECK: return %[[X]], %[[R]]
func.func @reshape_of_reshape(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<2x12xf32>) {
  %0 = tcc.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  %1 = tcc.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  %2 = tcc.reshape %0 : tensor<24xf32> -> tensor<2x12xf32>
  return %1, %2 : tensor<4x6xf32>, tensor<2x12xf32>
}

// -----

// Different attributes: no merge.
// CSE-LABEL: func.func @cse_attrs_differ
// CSE: tcc.softmax %{{.*}} dim = 0
// CSE: tcc.softmax %{{.*}} dim = 1
func.func @cse_attrs_differ(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = tcc.softmax %x dim = 0 : tensor<4x4xf32>
  %1 = tcc.softmax %x dim = 1 : tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}
