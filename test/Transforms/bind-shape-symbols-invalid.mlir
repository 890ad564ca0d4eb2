// RUN: tcc-opt %s -split-input-file --tcc-bind-shape-symbols -verify-diagnostics

// A size computed from the arguments' sizes other than by a product: the
// host could not allocate the result.
func.func @computed(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.addi %m, %c2 : index
  // expected-error @+1 {{'tensor.empty' op has dynamic size #0 that is no product of the arguments' sizes (tensor.dim, constants, arith.muli, affine.apply); tcc computes buffer sizes from the arguments' sizes only}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Two static sizes required equal.
#id = affine_map<(d0) -> (d0)>
func.func @conflict(%x: tensor<?xf32>, %y: tensor<4xf32>, %z: tensor<8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  // expected-error @+1 {{'linalg.generic' op needs sizes 4 and 8 to be equal}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y, %z : tensor<?xf32>, tensor<4xf32>, tensor<8xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An op the pass cannot relate sizes through.
func.func @opaque(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.subi %m, %c1 : index
  // expected-error @+1 {{'tensor.extract_slice' op has dynamic shapes that tcc cannot relate to the program arguments' sizes}}
  %s = tensor.extract_slice %x[1] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// A kernel whose sizes cannot be related: its own diagnostic, once.
func.func private @h_k0(%x: tensor<?xf32>) -> tensor<?xf32> attributes {tcc.kernel} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.addi %m, %m : index
  // expected-error @+1 {{'tensor.empty' op has dynamic size #0 that is no product of the arguments' sizes}}
  %e = tensor.empty(%n) : tensor<?xf32>
  return %e : tensor<?xf32>
}
func.func @h(%x: tensor<?xf32>) -> tensor<?xf32> attributes {tcc.host} {
  %r = tcc.launch @h_k0(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A tensor.dim index past the rank (found by the tcc-opt fuzzer: it read
// past the tensor's shape).
func.func @dim_out_of_range(%x: tensor<64x?xf32>) -> tensor<64x?xf32> {
  %c = arith.constant 2147483648 : index
  // expected-error @+1 {{'tensor.dim' op index 2147483648 is out of range for a rank-2 tensor}}
  %n = tensor.dim %x, %c : tensor<64x?xf32>
  %e = tensor.empty(%n) : tensor<64x?xf32>
  return %e : tensor<64x?xf32>
}

// -----

// A view whose size is a product of a size no argument gives: the host
// could not shape it.
func.func @unshaped_view(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.subi %m, %c1 : index
  // expected-error @+1 {{'tensor.expand_shape' op has a dynamic size that is no product of the arguments' sizes; tcc shapes a view from the arguments' sizes}}
  %v = tensor.expand_shape %x [[0, 1]] output_shape [%n, %n] : tensor<?xf32> into tensor<?x?xf32>
  return %x : tensor<?xf32>
}
