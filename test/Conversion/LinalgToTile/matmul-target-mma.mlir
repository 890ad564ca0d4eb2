// convert-linalg-to-tile takes a GEMM's tensor-core instruction from the
// module target's mma: an AMD target offering only 16x16x16 gets it even
// where 32x32x8 would fit; one offering only 32x32x8 rejects
// mfma-shape=16; a target without tensor cores takes the FMA path.
// RUN: tcc-opt %s -split-input-file --tcc-select-strategy --convert-linalg-to-tile --tcc-accelerate-matmul -verify-diagnostics | FileCheck %s
// RUN: not tcc-opt %s -split-input-file --tcc-select-strategy="mfma-shape=16" --convert-linalg-to-tile --tcc-accelerate-matmul 2>&1 | FileCheck %s --check-prefix=ERR16

// CHECK-DAG: #[[M16:.*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
// CHECK-LABEL: tile.func @only16
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[M16]]>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_16x16x16], async_copy = false, math = expanded>} {
func.func @only16(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}
}

// -----

// CHECK-DAG: #[[M32:.*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
// CHECK-LABEL: tile.func @only32
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[M32]]>
// ERR16: error: 'linalg.generic' op target gfx942 has no v_mfma_f32_16x16x16 (#tile.target mma)
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_32x32x8], async_copy = false, math = expanded>} {
func.func @only32(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}
}

// -----

// CHECK-LABEL: tile.func @no_tensor_cores
// CHECK: tile.dot {{.*}} -> tensor<{{.*}}xf32, #blocked{{[0-9]*}}>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [], async_copy = true, math = libdevice>} {
func.func @no_tensor_cores(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark@+1 {{matmul of 'f16' x 'f16' -> 'f32': target sm_90 has no tensor-core instruction (#tile.target mma = []): using the FMA fallback}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}
}
