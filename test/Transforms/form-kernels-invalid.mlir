// RUN: tcc-opt %s -split-input-file --tcc-form-kernels -verify-diagnostics

func.func @foreign_op(%x: tensor<8xf32>, %f: f32, %i: index) -> tensor<8xf32> {
  // expected-error @+1 {{is not supported in a program by tcc-form-kernels (expected linalg ops, reshapes and constants between kernels)}}
  %y = tensor.insert %f into %x[%i] : tensor<8xf32>
  return %y : tensor<8xf32>
}
