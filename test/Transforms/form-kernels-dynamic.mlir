// RUN: tcc-opt %s --resolve-ranked-shaped-type-result-dims --tcc-form-kernels --tcc-bind-shape-symbols | FileCheck %s

// A program of dynamic rows: each kernel sizes its empties off its own
// arguments (tensor.dim cloned in; the softmax kernel takes x, whose rows
// its output has), the host keeps no tensor.dim, and every value is named
// in the host's symbols.
// CHECK-LABEL: func.func private @scale_by_max_k0(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %{{.*}}: tensor<64x64xf32>) -> tensor<?x64xf32>
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 64], [64, 64], ["s0", 64]]
// CHECK: tensor.dim %[[X]]
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @scale_by_max_k1(
// CHECK-SAME: %{{.*}}: tensor<?x64xf32>, %[[X1:[a-z0-9]+]]: tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: tensor.dim %[[X1]]
// CHECK: linalg.softmax
// CHECK-LABEL: func.func @scale_by_max(
// CHECK-SAME: tcc.host
// CHECK-NOT: tensor.dim
// CHECK: %[[P:.*]] = tcc.launch @scale_by_max_k0(%arg0, %arg1) {tcc.shape_symbols = {{\[}}["s0", 64]]}
// CHECK-NOT: tensor.dim
// CHECK: tcc.launch @scale_by_max_k1(%[[P]], %arg0) {tcc.shape_symbols = {{\[}}["s0", 64]]}
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @scale_by_max(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %p = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%f : tensor<?x64xf32>) -> tensor<?x64xf32>
  %sm = linalg.softmax dimension(1) ins(%p : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %sm : tensor<?x64xf32>
}
