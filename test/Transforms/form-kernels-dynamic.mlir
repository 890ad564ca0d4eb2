// RUN: tcc-opt %s -split-input-file --resolve-ranked-shaped-type-result-dims --tcc-form-kernels --tcc-bind-shape-symbols | FileCheck %s

// A program of dynamic rows: each kernel sizes its empties off its own
// arguments (the softmax's output, sized by x's rows on the host, takes
// them off the kernel's input, which has as many: the kernel does not read
// x), the host keeps no tensor.dim, and every value is named in the host's
// symbols.
// CHECK-LABEL: func.func private @scale_by_max_k0(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %{{.*}}: tensor<64x64xf32>) -> tensor<?x64xf32>
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 64], [64, 64], ["s0", 64]]
// CHECK: tensor.dim %[[X]]
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @scale_by_max_k1(
// CHECK-SAME: %[[P1:[a-z0-9]+]]: tensor<?x64xf32>) -> tensor<?x64xf32>
// CHECK: tensor.dim %[[P1]]
// CHECK: linalg.softmax
// CHECK-LABEL: func.func @scale_by_max(
// CHECK-SAME: tcc.host
// CHECK-NOT: tensor.dim
// CHECK: %[[P:.*]] = tcc.launch @scale_by_max_k0(%arg0, %arg1) {tcc.shape_symbols = {{\[}}["s0", 64]]}
// CHECK-NOT: tensor.dim
// CHECK: tcc.launch @scale_by_max_k1(%[[P]]) {tcc.shape_symbols = {{\[}}["s0", 64]]}
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

// -----

// x (B, S, 64) viewed as (B * S, 64) into a GEMM: the host keeps the view,
// the GEMM kernel reads it and sizes its result off its rows (the product
// of x's first two dims the host computed is that size), so it neither
// reads x nor computes B * S.
// CHECK-LABEL: func.func private @view_gemm_k0(
// CHECK-SAME: %[[V:[a-z0-9]+]]: tensor<?x64xf16>, %{{.*}}: tensor<64x128xf16>) -> tensor<?x128xf32>
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0_s1", 64], [64, 128], ["s0_s1", 128]]
// CHECK-NOT: affine.apply
// CHECK: tensor.dim %[[V]], %{{.*}} : tensor<?x64xf16>
// CHECK-NOT: affine.apply
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @view_gemm(
// CHECK-SAME: tcc.size_relations = {{\[}}["s0_s1", "s0 * s1"]]
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] {tcc.shape_symbols = {{\[}}["s0_s1", 64]]}
// CHECK: tcc.launch @view_gemm_k0(%[[C]], %arg1)
func.func @view_gemm(%x: tensor<?x?x64xf16>, %w: tensor<64x128xf16>) -> tensor<?x128xf32> {
  %cst = arith.constant 0.0 : f32
  %v = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf16> into tensor<?x64xf16>
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %v, %c0 : tensor<?x64xf16>
  %e = tensor.empty(%rows) : tensor<?x128xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x128xf32>) -> tensor<?x128xf32>
  %p = linalg.matmul ins(%v, %w : tensor<?x64xf16>, tensor<64x128xf16>) outs(%f : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %p : tensor<?x128xf32>
}

// -----

// A view of a kernel's result between two kernels: the second kernel's
// output, sized by x's dims 0 and 1 on the host, takes its size off the
// view it reads (its dims found through the first kernel's result).
// CHECK-LABEL: func.func private @view_between_k1(
// CHECK-SAME: %[[V:[a-z0-9]+]]: tensor<?x16xf32>) -> tensor<?xf32>
// CHECK: tensor.dim %[[V]]
// CHECK-LABEL: func.func @view_between(
// CHECK: %[[A:.*]] = tcc.launch @view_between_k0(%arg0)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[A]]
// CHECK: tcc.launch @view_between_k1(%[[C]])
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @view_between(%x: tensor<?x?x16xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x16xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x16xf32>
  %g = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x?x16xf32>) outs(%e : tensor<?x?x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<?x?x16xf32>
  %v = tensor.collapse_shape %g [[0, 1], [2]] : tensor<?x?x16xf32> into tensor<?x16xf32>
  %bs = arith.muli %b, %s : index
  %re = tensor.empty(%bs) : tensor<?xf32>
  %rf = linalg.fill ins(%cst : f32) outs(%re : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id2, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%v : tensor<?x16xf32>) outs(%rf : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A size as a number (a mean's divisor, sitofp(index_cast(dim))) is the host's
// scalar arithmetic: the kernel that reads it takes it along, off its own
// argument's dim.
// CHECK-LABEL: func.func private @center_k1(
// CHECK-SAME: %[[X:.*]]: tensor<?x32xf32>, %{{.*}}: tensor<32xf32>)
// CHECK: tensor.empty
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]]
// CHECK: %[[I:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %[[F]]
// CHECK-LABEL: func.func @center(
// CHECK-NOT: arith.sitofp
// CHECK: return
#in = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @center(%x: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#in, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %m = tensor.dim %x, %c0 : tensor<?x32xf32>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.sitofp %mi : i64 to f32
  %e2 = tensor.empty(%m) : tensor<?x32xf32>
  %r = linalg.generic {indexing_maps = [#in, #cols, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<?x32xf32>, tensor<32xf32>) outs(%e2 : tensor<?x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %s, %mf : f32
    %c = arith.subf %a, %d : f32
    linalg.yield %c : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
