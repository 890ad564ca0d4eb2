// AMD (gfx942: MFMA) GEMMs: the MFMA instruction shape. auto takes
// 32x32x8 when every wave's share of the block is a multiple of 32 in both
// dims (128 x 128 over 2 x 2 waves: 64 x 64), 16x16x16 otherwise (16 waves:
// 64 x 16); mfma-shape=16 / 32 force one.
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=AUTO
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy="mfma-shape=32" --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=AUTO
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy="mfma-shape=16" --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=M16
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy="num-warps=16" --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=W16
// RUN: not tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy="num-warps=16 mfma-shape=32" --convert-linalg-to-tile --tcc-accelerate-matmul 2>&1 | FileCheck %s --check-prefix=ERR32
// RUN: not tcc-opt %s --tcc-set-target=arch=gfx942 --tcc-select-strategy="mfma-shape=8" --convert-linalg-to-tile --tcc-accelerate-matmul 2>&1 | FileCheck %s --check-prefix=ERR8

// AUTO-DAG: #[[MFMA:.*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
// AUTO-DAG: #tile.dot_operand<{opIdx = 0, parent = #[[MFMA]], kWidth = 4}>
// AUTO: tile.dot {{.*}} -> tensor<128x128xf32, #[[MFMA]]>
// M16: #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
// W16: #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 8], instrShape = [16, 16], isTransposed = false}>
// ERR32: error: 'linalg.generic' op mfma-shape = 32: each wave's share of the 128 x 128 block (64 x 16) is not a multiple of 32
// ERR8: error: tcc-select-strategy: mfma-shape must be one of auto, 16, 32, got '8'
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @gemm(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
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
