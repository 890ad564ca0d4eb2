// RUN: tcc-opt %s -split-input-file --tcc-normalize-matmul-operands | FileCheck %s

// nn.Linear's x @ w.T: B read as (n, k) gets an explicit transpose and the
// row-major map.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @nt(
// CHECK:         %[[WT:.*]] = linalg.generic {indexing_maps = [#[[T]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x32xf16>) outs(%{{.*}} : tensor<32x16xf16>)
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[KN]], #{{.*}}], {{.*}} ins(%arg0, %[[WT]] : tensor<64x32xf16>, tensor<32x16xf16>)
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nt(%x: tensor<64x32xf16>, %w: tensor<16x32xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
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

// Batched q @ k^T: B read as (b, n, k).
// CHECK-DAG: #[[T3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @batched_nt(
// CHECK:         %[[KT:.*]] = linalg.generic {indexing_maps = [#[[T3]], #{{.*}}], {{.*}} ins(%arg1 : tensor<2x16x8xf32>) outs(%{{.*}} : tensor<2x8x16xf32>)
// CHECK:         ins(%arg0, %[[KT]] : tensor<2x16x8xf32>, tensor<2x8x16xf32>)
#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @batched_nt(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %0 = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%c : tensor<2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x16x16xf32>
  return %0 : tensor<2x16x16xf32>
}

// -----

// Row-major operands are left alone.
// CHECK-LABEL: func.func @nn(
// CHECK-NOT:     iterator_types = ["parallel", "parallel"]}
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @nn(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x32xf32>, tensor<32x16xf32>) outs(%c : tensor<64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

// A batched contraction whose A is shared by the batch (w @ x, w [M, K], x
// [B, K, N]): A is copied to every batch index, then a batched GEMM.
// CHECK-DAG: #[[SHARED:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[BMK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @shared_a(
// CHECK:         %[[A:.*]] = linalg.generic {indexing_maps = [#[[SHARED]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<32x16xf16>) outs(%{{.*}} : tensor<4x32x16xf16>)
// CHECK:         linalg.generic {indexing_maps = [#[[BMK]], #{{.*}}, #{{.*}}], {{.*}} ins(%[[A]], %arg1 : tensor<4x32x16xf16>, tensor<4x16x24xf16>)
func.func @shared_a(%a: tensor<32x16xf16>, %b: tensor<4x16x24xf16>, %c: tensor<4x32x24xf32>) -> tensor<4x32x24xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x16xf16>, tensor<4x16x24xf16>) outs(%c : tensor<4x32x24xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x32x24xf32>
  return %0 : tensor<4x32x24xf32>
}

// -----

// Not a GEMM body (a max of products): left alone.
// CHECK-LABEL: func.func @shared_not_gemm(
// CHECK-NOT:     tensor.empty
func.func @shared_not_gemm(%a: tensor<32x16xf32>, %b: tensor<4x16x24xf32>, %c: tensor<4x32x24xf32>) -> tensor<4x32x24xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<32x16xf32>, tensor<4x16x24xf32>) outs(%c : tensor<4x32x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.maximumf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x32x24xf32>
  return %0 : tensor<4x32x24xf32>
}
