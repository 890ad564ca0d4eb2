// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy="max-softmax-columns=1024" --convert-linalg-to-tile -verify-diagnostics

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_unnamed(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%m) : tensor<?x8xf32>
  // expected-error @+1 {{'linalg.generic' op has dynamic loop sizes but no tcc.loop_sizes naming them (run tcc-bind-shape-symbols after tcc-form-kernels)}}
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// expected-error @+1 {{'func.func' op needs 2 kernels; convert-linalg-to-tile builds one kernel per function (an elementwise op, a row program of row reductions and the elementwise ops around them, a matmul with an elementwise epilogue, or a softmax): run tcc-form-kernels first to split a program into kernels}}
func.func @two_kernels(%a: tensor<8x32xf32>, %b: tensor<32x64xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<8x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<8x64xf32>) -> tensor<8x64xf32>
  // expected-note @+1 {{kernel op: linalg.generic}}
  %c = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x32xf32>, tensor<32x64xf32>) outs(%f : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %j = tensor.empty() : tensor<8xf32>
  %g = linalg.fill ins(%zero : f32) outs(%j : tensor<8xf32>) -> tensor<8xf32>
  // expected-note @+1 {{kernel op: linalg.generic}}
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<8x64xf32>) outs(%g : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

func.func @softmax_dim0(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  // expected-error @+1 {{softmax over a dim other than the last is not supported by convert-linalg-to-tile}}
  %0 = linalg.softmax dimension(0) ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// A two-result reduction that is no arg reduction (its yield is no
// choice between the element and the accumulator) is refused.
func.func @two_sums(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-error@+1 {{row reductions with several results are not supported by convert-linalg-to-tile (but arg reductions: a value and its index)}}
  %r:2 = linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%f, %f : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %s: f32, %q: f32):
    %s1 = arith.addf %a, %s : f32
    %sq = arith.mulf %a, %a : f32
    %q1 = arith.addf %sq, %q : f32
    linalg.yield %s1, %q1 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}

