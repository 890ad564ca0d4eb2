// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy -verify-diagnostics

// A tensor of tile pointers is valid IR but no kernel argument: refused with
// a diagnostic (it was an assertion in MemRefType::get).
// expected-error@below {{'func.func' op argument #0 has type 'tensor<128x!tile.ptr<f32>>'; kernels read and write tensors of integers or floats}}
func.func @pointers(%a: tensor<128x!tile.ptr<f32>>, %b: tensor<128xf32>) -> tensor<128xf32> {
  %c = linalg.add ins(%b, %b : tensor<128xf32>, tensor<128xf32>) outs(%b : tensor<128xf32>) -> tensor<128xf32>
  return %c : tensor<128xf32>
}

// -----

// expected-error@below {{'func.func' op result #0 has type 'tensor<8x!tile.ptr<f16>>'; kernels read and write tensors of integers or floats}}
func.func @pointer_result(%a: tensor<8xi64>) -> tensor<8x!tile.ptr<f16>> {
  %p = tensor.empty() : tensor<8x!tile.ptr<f16>>
  return %p : tensor<8x!tile.ptr<f16>>
}
