// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile -verify-diagnostics

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A column reduction into an argument (no constant fill to start from).
func.func @init_not_a_fill(%x: tensor<64x32xf32>, %init: tensor<32xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{reduction init is not a constant fill}}
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A combiner without a neutral element cannot mask the last chunk of rows.
func.func @no_neutral_element(%x: tensor<64x32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    // expected-error @+1 {{has no known neutral element; cannot mask a partial chunk of rows}}
    %r = arith.subf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// The body's value must come from the body (not be the accumulator alone).
func.func @not_a_combiner(%x: tensor<64x32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<32xf32>) -> tensor<32xf32>
  // expected-error @+1 {{reduction body is not `combiner(value, acc)`; not supported by convert-linalg-to-tile}}
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.addf %o, %o : f32
    %r = arith.addf %a, %d : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}
