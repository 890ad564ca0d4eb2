// RUN: tcc-opt %s -split-input-file --tcc-bind-shape-symbols | FileCheck %s

// Dims read over one loop are one size: x's rows and y's are s0, and so is
// the result (an empty sized by tensor.dim of y).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 8], ["s0", 8], ["s0", 8]]
// CHECK: linalg.generic
// CHECK-SAME: tcc.loop_sizes = ["s0", 8]
func.func @add(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %y, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A dynamic dim read over the loop of a static one takes its size (the
// runtime checks it); unrelated dynamic dims get their own symbols.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pinned
// CHECK-SAME: tcc.shape_symbols = {{\[}}[4, "s0"], [4, "s0"], [4, "s0"]]
func.func @pinned(%x: tensor<?x?xf32>, %y: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// A host program: each launch's results in the host's symbols, each kernel
// in the same symbols (its arguments, then its results), its loops too.
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func private @p_k0
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 16], ["s0"]]
// CHECK: linalg.generic
// CHECK-SAME: tcc.loop_sizes = ["s0", 16]
func.func private @p_k0(%x: tensor<?x16xf32>) -> tensor<?xf32> attributes {tcc.kernel} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x16xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
// CHECK-LABEL: func.func @p
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 16], ["s0"]]
// CHECK: tcc.launch @p_k0
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0"]]
func.func @p(%x: tensor<?x16xf32>) -> tensor<?xf32> attributes {tcc.host} {
  %r = tcc.launch @p_k0(%x) : (tensor<?x16xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A static program is left alone.
// CHECK-LABEL: func.func @static
// CHECK-NOT: tcc.shape_symbols
func.func @static(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

// The program's own names (tcc.arg_symbols, as tcc.frontend writes for sizes
// left unbound): dims it names alike share the symbol even where no op ties
// them (the runtime checks them equal); unnamed ones get generated names.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @named
// CHECK-SAME: tcc.shape_symbols = {{\[}}["M"], ["M"], ["s2"], ["M"], ["M"], ["s2"]]
func.func @named(%x: tensor<?xf32>, %y: tensor<?xf32>, %z: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
    attributes {tcc.arg_symbols = [["M"], ["M"], [0]]} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %k = tensor.dim %z, %c0 : tensor<?xf32>
  %ex = tensor.empty(%m) : tensor<?xf32>
  %ey = tensor.empty(%n) : tensor<?xf32>
  %ez = tensor.empty(%k) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%ex : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<?xf32>) outs(%ey : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<?xf32>) outs(%ez : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %a, %b, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Products: x (s0, s1, 8) viewed as (s0 * s1, 8) has rows no argument
// names, named after their factors and defined on the program; the view
// back to (s0, s1, 8) (its output_shape the same dims) relates the same
// product once; an empty of twice the view's rows is s0_s1_2.
// CHECK-LABEL: func.func @views
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", "s1", 8], ["s0", "s1", 8], ["s0_s1_2"]]
// CHECK-SAME: tcc.size_relations = {{\[}}["s0_s1", "s0 * s1"], ["s0_s1_2", "s0_s1 * 2"]]
// CHECK: tensor.collapse_shape
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0_s1", 8]]
// CHECK: tensor.expand_shape
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", "s1", 8]]
func.func @views(%x: tensor<?x?x8xf32>) -> (tensor<?x?x8xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %v = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %back = tensor.expand_shape %v [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %rows = tensor.dim %v, %c0 : tensor<?x8xf32>
  %twice = arith.muli %rows, %c2 : index
  %e = tensor.empty(%twice) : tensor<?xf32>
  return %back, %e : tensor<?x?x8xf32>, tensor<?xf32>
}

// -----

// A product equal to a named size is a check the host makes (M = B * S);
// a named size of which a view takes a factor of 4 defines the other one
// by division, then checks the product.
// CHECK-LABEL: func.func @checks
// CHECK-SAME: tcc.shape_symbols = {{\[}}["B", "S", 8], ["M", 8], ["M", 8], ["s3", 4, 8]]
// CHECK-SAME: tcc.size_relations = {{\[}}["M", "B * S"], ["s3", "M // 4"], ["M", "s3 * 4"]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @checks(%x: tensor<?x?x8xf32>, %y: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x4x8xf32>)
    attributes {tcc.arg_symbols = [["B", "S", 0], ["M", 0]]} {
  %c0 = arith.constant 0 : index
  %v = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %m = tensor.dim %y, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %y : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<?x8xf32>
  %c4 = arith.constant 4 : index
  %q = arith.divui %m, %c4 : index
  %split = tensor.expand_shape %y [[0, 1], [2]] output_shape [%q, 4, 8] : tensor<?x8xf32> into tensor<?x4x8xf32>
  return %r, %split : tensor<?x8xf32>, tensor<?x4x8xf32>
}
