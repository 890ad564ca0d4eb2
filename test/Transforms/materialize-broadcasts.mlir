// RUN: tcc-opt %s -split-input-file --tcc-materialize-broadcasts | FileCheck %s

// A row reduction reading an operand transposed ((x + y.T).sum(-1)): a row
// program reads its operands in order (whole, by row, by column, or gathered
// at in-order offsets), so y.T is made whole, in x's memory order.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @row_transposed(
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[T]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x5xf32>) outs(%{{.*}} : tensor<5x16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[B]] : tensor<5x16xf32>, tensor<5x16xf32>)
func.func @row_transposed(%x: tensor<5x16xf32>, %y: tensor<16x5xf32>, %init: tensor<5xf32>) -> tensor<5xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : tensor<5x16xf32>, tensor<16x5xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// Left alone: row reductions whose prologue reads a scalar or an operand
// lacking the leading dim (the row program gathers them in order).
// CHECK-LABEL: func.func @row_gathered(
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1, %arg2 : tensor<3x33x2x3xf32>, tensor<33x2x3xf32>, tensor<f32>)
func.func @row_gathered(%x: tensor<3x33x2x3xf32>, %y: tensor<33x2x3xf32>, %s: tensor<f32>, %init: tensor<3x33x2xf32>) -> tensor<3x33x2xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y, %s : tensor<3x33x2x3xf32>, tensor<33x2x3xf32>, tensor<f32>) outs(%init : tensor<3x33x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.mulf %m, %c : f32
    %r = arith.maximumf %n, %o : f32
    linalg.yield %r : f32
  } -> tensor<3x33x2xf32>
  return %0 : tensor<3x33x2xf32>
}

// -----

// A column reduction (x.sum(0)) whose prologue reads an operand that does not
// vary along the reduced dim, lacking a column dim: broadcast to the outputs.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-LABEL: func.func @column_outputs(
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<16x5xf32>) outs(%{{.*}} : tensor<16x5x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[OUT]], #[[OUT]]], iterator_types = ["reduction", "parallel", "parallel", "parallel"]} ins(%arg0, %[[B]] : tensor<3x16x5x8xf32>, tensor<16x5x8xf32>)
func.func @column_outputs(%x: tensor<3x16x5x8xf32>, %y: tensor<16x5xf32>, %init: tensor<16x5x8xf32>) -> tensor<16x5x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>], iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<3x16x5x8xf32>, tensor<16x5xf32>) outs(%init : tensor<16x5x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<16x5x8xf32>
  return %0 : tensor<16x5x8xf32>
}

// -----

// A column reduction with a size-1 batch dim that the mul's other operand
// lacks (a mul-add body: not a matmul, so it is not left alone).
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-LABEL: func.func @column_unit_batch(
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], {{.*}} ins(%arg1 : tensor<17x3x1xf16>) outs(%{{.*}} : tensor<1x17x3x1xf16>)
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[B]] : tensor<1x17x3x1xf16>, tensor<1x17x3x1xf16>)
func.func @column_unit_batch(%x: tensor<1x17x3x1xf16>, %y: tensor<17x3x1xf16>, %init: tensor<1x3x1xf32>) -> tensor<1x3x1xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x, %y : tensor<1x17x3x1xf16>, tensor<17x3x1xf16>) outs(%init : tensor<1x3x1xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %m = arith.mulf %a, %b : f16
    %e = arith.extf %m : f16 to f32
    %r = arith.addf %e, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Left alone: a row reduction that reads a column vector (a form reads it),
// and a matmul.
// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<5x16xf32>, tensor<16xf32>)
// CHECK:         linalg.generic {{.*}} ins(%arg3, %arg4 : tensor<8x4xf16>, tensor<4x8xf16>)
func.func @untouched(%x: tensor<5x16xf32>, %c: tensor<16xf32>, %init: tensor<5xf32>, %a: tensor<8x4xf16>, %b: tensor<4x8xf16>, %acc: tensor<8x8xf32>) -> (tensor<5xf32>, tensor<8x8xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %c : tensor<5x16xf32>, tensor<16xf32>) outs(%init : tensor<5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf16>, tensor<4x8xf16>) outs(%acc : tensor<8x8xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %0, %1 : tensor<5xf32>, tensor<8x8xf32>
}

// -----

// Left alone: a reduction of two dims that are not one run stays unformed
// even with its scalar broadcast (tcc-split-reduction's business), so
// nothing is added.
// CHECK-LABEL: func.func @unformable(
// CHECK-NOT:     tensor.empty
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x5x6xf32>, tensor<f32>)
func.func @unformable(%x: tensor<4x5x6xf32>, %s: tensor<f32>, %init: tensor<5xf32>) -> tensor<5xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x, %s : tensor<4x5x6xf32>, tensor<f32>) outs(%init : tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// A matmul's epilogue reads its operands whole, by row or by column: a
// scalar ((x @ w) * s, s of shape [1]) becomes a column vector.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @epilogue_scalar(
// CHECK:         %[[MM:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<32x16xf16>, tensor<16x40xf16>)
// CHECK:         %[[B:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}], iterator_types = ["parallel"]} ins(%arg2 : tensor<f32>) outs(%{{.*}} : tensor<40xf32>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[COLS]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[B]] : tensor<32x40xf32>, tensor<40xf32>)
func.func @epilogue_scalar(%x: tensor<32x16xf16>, %w: tensor<16x40xf16>, %s: tensor<f32>, %acc: tensor<32x40xf32>) -> tensor<32x40xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<32x16xf16>, tensor<16x40xf16>) outs(%acc : tensor<32x40xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<32x40xf32>
  %e = tensor.empty() : tensor<32x40xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0, %s : tensor<32x40xf32>, tensor<f32>) outs(%e : tensor<32x40xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.mulf %a, %c : f32
    linalg.yield %t : f32
  } -> tensor<32x40xf32>
  return %1 : tensor<32x40xf32>
}

// -----

// The score op of an attention chain (on a target whose attention kernel
// builds it) keeps its padding mask [B, N], read at (b, n): the kernel loads
// it at its program's batch. The same epilogue of a plain batched matmul
// (no softmax after it) gets the mask broadcast whole.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-materialize-broadcasts | FileCheck %s --check-prefix=ATTN
// ATTN-LABEL: func.func @attention_padding_mask(
// ATTN-NOT: ins(%arg3 : tensor<2x80xf16>)
// ATTN: linalg.generic {{.*}} ins(%{{.*}}, %arg3 : tensor<2x80x80xf32>, tensor<2x80xf16>)
// ATTN: linalg.softmax
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bn = affine_map<(d0, d1, d2) -> (d0, d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attention_padding_mask(%q: tensor<2x80x64xf16>, %k: tensor<2x80x64xf16>, %v: tensor<2x80x64xf16>, %mask: tensor<2x80xf16>) -> tensor<2x80x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x80x80xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x80x80xf32>) -> tensor<2x80x80xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x80x64xf16>, tensor<2x80x64xf16>) outs(%f0 : tensor<2x80x80xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x80x80xf32>
  %e1 = tensor.empty() : tensor<2x80x80xf16>
  %x = linalg.generic {indexing_maps = [#id, #bn, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<2x80x80xf32>, tensor<2x80xf16>) outs(%e1 : tensor<2x80x80xf16>) {
  ^bb0(%a: f32, %m: f16, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.addf %0, %m : f16
    linalg.yield %1 : f16
  } -> tensor<2x80x80xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x80x80xf16>) outs(%e1 : tensor<2x80x80xf16>) -> tensor<2x80x80xf16>
  %e2 = tensor.empty() : tensor<2x80x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x80x64xf32>) -> tensor<2x80x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x80x80xf16>, tensor<2x80x64xf16>) outs(%f2 : tensor<2x80x64xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x80x64xf32>
  return %pv : tensor<2x80x64xf32>
}

// -----

// ATTN-LABEL: func.func @batched_matmul_padding_mask(
// ATTN: linalg.generic {{.*}} ins(%arg2 : tensor<2x80xf16>) outs(%{{.*}} : tensor<2x80x80xf16>)
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bn = affine_map<(d0, d1, d2) -> (d0, d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @batched_matmul_padding_mask(%q: tensor<2x80x64xf16>, %k: tensor<2x80x64xf16>, %mask: tensor<2x80xf16>) -> tensor<2x80x80xf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x80x80xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x80x80xf32>) -> tensor<2x80x80xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x80x64xf16>, tensor<2x80x64xf16>) outs(%f0 : tensor<2x80x80xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %b : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x80x80xf32>
  %e1 = tensor.empty() : tensor<2x80x80xf16>
  %x = linalg.generic {indexing_maps = [#id, #bn, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<2x80x80xf32>, tensor<2x80xf16>) outs(%e1 : tensor<2x80x80xf16>) {
  ^bb0(%a: f32, %m: f16, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.addf %0, %m : f16
    linalg.yield %1 : f16
  } -> tensor<2x80x80xf16>
  return %x : tensor<2x80x80xf16>
}
