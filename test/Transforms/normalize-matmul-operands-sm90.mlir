// On sm_90 the Hopper GEMM reads transposed operands through its TMA boxes and
// wgmma descriptors: tcc-normalize-matmul-operands leaves such contractions as
// they are, also where TMA cannot box the rows but cp.async can copy them
// (byte strides a multiple of 4). Rows of an odd count of 16-bit elements
// (or, copied along K, of a count that is no multiple of 4) still get the
// transpose and the mma.sync path.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-normalize-matmul-operands | FileCheck %s

// x @ w.T with w [16, 32] f16 (64-byte rows): kept.
// CHECK-LABEL: func.func @nt_kept(
// CHECK-NOT:     linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], {{.*}} ins(%arg0, %arg1 : tensor<64x32xf16>, tensor<16x32xf16>)
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

// w [16, 36] f16: 72-byte rows, no TMA box but whole 8-byte cp.async runs:
// kept (the Hopper GEMM's producer copies its boxes).
// CHECK-LABEL: func.func @nt_copied_kept(
// CHECK-NOT:     linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], {{.*}} ins(%arg0, %arg1 : tensor<64x36xf16>, tensor<16x36xf16>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt_copied_kept(%x: tensor<64x36xf16>, %w: tensor<16x36xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
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

// w [16, 33] f16: 66-byte rows are no TMA box nor cp.async run, so w is
// transposed first.
// CHECK-LABEL: func.func @nt_unaligned(
// CHECK:         %[[WT:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x33xf16>)
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[WT]] : tensor<64x33xf16>, tensor<33x16xf16>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt_unaligned(%x: tensor<64x33xf16>, %w: tensor<16x33xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x33xf16>, tensor<16x33xf16>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
