// RUN: tcc-opt %s -split-input-file --tcc-lower-to-tile=target=sm_80 -verify-diagnostics

// A program's block spans its columns: a dynamic last dim is refused with
// the loop and what the form takes.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_columns(%x: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%n) : tensor<64x?xf32>
  // expected-error @+1 {{'linalg.generic' op has dynamic size "s0" in loop 1; a form = elementwise kernel takes dynamic sizes in the rows (the leading dims every operand reads together; a plain view, no permuted operand, no third group) only: bind this size (compile a specialization)}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x?xf32>) outs(%e : tensor<64x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<64x?xf32>
  return %r : tensor<64x?xf32>
}

// -----

// A column reduction's block spans its columns: dynamic columns are refused.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// expected-error @+1 {{'func.func' op has dynamic sizes that no kernel form takes (elementwise ops, row reductions, softmax and row programs take dynamic rows, matmuls a dynamic batch and M, transposes any dynamic dim, column reductions a dynamic batch and reduced dims)}}
func.func @dynamic_column_sum(%x: tensor<64x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c1 : tensor<64x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  // expected-note @+1 {{kernel op: linalg.generic}}
  %r = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}



// -----

// Dynamic rows planned long (the default dynamic-extent, 16384) over one
// column program: its static twin would be split over many programs.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @tall_column_sum(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  // expected-error @+1 {{'linalg.generic' op reduces dynamic rows planned as 16384 (dynamic-extent) on 1 column programs: its static twin splits the rows over many programs (tcc-split-reduction), which a dynamic extent cannot; bind the rows (compile a specialization) or plan them short (dynamic-extent < 1024)}}
  %r = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
