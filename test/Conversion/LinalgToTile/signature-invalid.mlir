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

// -----

// A bool mask argument: refused (it was an assertion in MemRefToLLVM: i1 has
// no byte of its own in memory).
// expected-error@below {{'func.func' op argument #0 has type 'tensor<64xi1>'; kernels do not read or write i1 (bool) tensors: pass a mask as i8 and compare it (m != 0), or return a comparison cast to i8}}
func.func @bool_mask(%m: tensor<64xi1>, %x: tensor<64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m, %x : tensor<64xi1>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%b: i1, %v: f32, %o: f32):
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}
