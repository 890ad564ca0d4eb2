// On mma.sync targets (sm_80) the GEMM reads a transposed B of f16 / bf16
// contractions as it is stored (tcc::mmaReadsTransposedB: its rows, K, a
// static multiple of 16 bytes): no transpose kernel. A transposed A is still
// transposed, and so are B rows of other lengths and f32 operands (the FMA
// GEMM). AMD (MFMA) keeps the transpose of B.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-normalize-matmul-operands | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-normalize-matmul-operands | FileCheck %s --check-prefix=AMD

// x @ w.T, w [16, 32] f16 (64-byte rows): kept on sm_80, transposed on gfx942.
// CHECK-LABEL: func.func @nt_kept(
// CHECK-NOT:     iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<64x32xf16>, tensor<16x32xf16>)
// AMD-LABEL: func.func @nt_kept(
// AMD:         %[[WT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x32xf16>) outs(%{{.*}} : tensor<32x16xf16>)
// AMD:         ins(%arg0, %[[WT]] : tensor<64x32xf16>, tensor<32x16xf16>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt_kept(%x: tensor<64x32xf16>, %w: tensor<16x32xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf16>, tensor<16x32xf16>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

// Rows of 36 halves (72 bytes, no whole 16-byte vectors): transposed.
// CHECK-LABEL: func.func @nt_unaligned_rows(
// CHECK:         %[[WT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x36xf16>) outs(%{{.*}} : tensor<36x16xf16>)
// CHECK:         ins(%arg0, %[[WT]] : tensor<64x36xf16>, tensor<36x16xf16>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt_unaligned_rows(%x: tensor<64x36xf16>, %w: tensor<16x36xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x36xf16>, tensor<16x36xf16>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

// f32 operands take the FMA GEMM, which reads B row-major: transposed.
// CHECK-LABEL: func.func @nt_f32(
// CHECK:         %[[WT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x32xf32>)
// CHECK:         ins(%arg0, %[[WT]] : tensor<64x32xf32>, tensor<32x16xf32>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt_f32(%x: tensor<64x32xf32>, %w: tensor<16x32xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf32>, tensor<16x32xf32>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

// Both transposed (A [K, M], B [N, K]): A gets its transpose, B is kept.
// CHECK-DAG: #[[KM:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @tt(
// CHECK:         %[[AT:.*]] = linalg.generic {indexing_maps = [#[[KM]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x64xf16>) outs(%{{.*}} : tensor<64x32xf16>)
// CHECK-NOT:     iterator_types = ["parallel", "parallel"]}
// CHECK:         ins(%[[AT]], %arg1 : tensor<64x32xf16>, tensor<16x32xf16>)
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @tt(%x: tensor<32x64xf16>, %w: tensor<16x32xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#km, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<32x64xf16>, tensor<16x32xf16>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
