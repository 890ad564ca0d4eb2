// RUN: tcc-opt %s -split-input-file --tcc-fuse-elementwise | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A bias add feeding a tanh: one generic reading both inputs.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK-NEXT: math.tanh
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.addf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A producer with two consumers is not duplicated into each.
// CHECK-LABEL: func.func @shared_producer
// CHECK-COUNT-3: linalg.generic
func.func @shared_producer(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.sqrt %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  return %t, %u : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// A widening cast fuses into the row sum; the keepdims reshape stays after
// the reduction instead of being pushed through it.
// CHECK-LABEL: func.func @keepdims_sum
// CHECK-NOT: tensor.expand_shape %arg0
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%arg0 : tensor<4x64xf16>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
func.func @keepdims_sum(%x: tensor<4x64xf16>) -> tensor<4x1xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf16>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    linalg.yield %0 : f32
  } -> tensor<4x64xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<4x64xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %o : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %k = tensor.expand_shape %r [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  return %k : tensor<4x1xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Into a contraction only casts and copies fuse: SwiGLU's silu(a) * b stays
// a kernel before the down projection, while the widening of a f16 operand
// joins the GEMM's body.
// CHECK-LABEL: func.func @prologue_into_matmul
// CHECK:         %[[G:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[G]], %arg2 : tensor<8x16xf32>, tensor<16x4xf16>)
// CHECK:           arith.extf
func.func @prologue_into_matmul(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %w: tensor<16x4xf16>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %ew = tensor.empty() : tensor<16x4xf32>
  %wf = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x4xf16>) outs(%ew : tensor<16x4xf32>) {
  ^bb0(%x: f16, %o: f32):
    %p = arith.extf %x : f16 to f32
    linalg.yield %p : f32
  } -> tensor<16x4xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%g, %wf : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// A last-dim softmax of regrouped rows ([8, 256, 256] scores viewed as
// [2, 4, 256, 256]) runs on the rows as they were; the reshape follows it.
// CHECK-LABEL: func.func @softmax_of_regrouped_rows(
// CHECK: %[[S:.*]] = linalg.softmax dimension(2) ins(%arg0 : tensor<8x256x256xf16>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 4, 256, 256] : tensor<8x256x256xf16> into tensor<2x4x256x256xf16>
// CHECK: return %[[E]]
func.func @softmax_of_regrouped_rows(%x: tensor<8x256x256xf16>) -> tensor<2x4x256x256xf16> {
  %e = tensor.expand_shape %x [[0, 1], [2], [3]] output_shape [2, 4, 256, 256] : tensor<8x256x256xf16> into tensor<2x4x256x256xf16>
  %o = tensor.empty() : tensor<2x4x256x256xf16>
  %s = linalg.softmax dimension(3) ins(%e : tensor<2x4x256x256xf16>) outs(%o : tensor<2x4x256x256xf16>) -> tensor<2x4x256x256xf16>
  return %s : tensor<2x4x256x256xf16>
}

// -----

// A reshape that splits the softmax's dim stays before it.
// CHECK-LABEL: func.func @softmax_of_split_rows(
// CHECK: tensor.expand_shape
// CHECK: linalg.softmax dimension(2)
func.func @softmax_of_split_rows(%x: tensor<8x512xf16>) -> tensor<8x2x256xf16> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 2, 256] : tensor<8x512xf16> into tensor<8x2x256xf16>
  %o = tensor.empty() : tensor<8x2x256xf16>
  %s = linalg.softmax dimension(2) ins(%e : tensor<8x2x256xf16>) outs(%o : tensor<8x2x256xf16>) -> tensor<8x2x256xf16>
  return %s : tensor<8x2x256xf16>
}
