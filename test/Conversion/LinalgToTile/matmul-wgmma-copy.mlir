// convert-linalg-to-tile, the Hopper GEMM with operands TMA cannot read
// (rows of 100 f16, 200 bytes: no multiple of 16): the whole producer
// warpgroup copies their boxes (tile.box_copy, 32 rows x 64 each) into the
// same swizzled slots, each copy one arrival per producer thread on the
// slot's full barrier, and the leader issues the other operand's TMA. The
// consumers fence the copies for the async proxy after their wait. No tensor
// map is passed for a copied operand; the producer keeps more registers.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels --tcc-select-strategy --convert-linalg-to-tile --canonicalize --cse | FileCheck %s

// NN f16 256x100x128: B [128, 100] is copied, A by TMA.
// CHECK-DAG: #[[COPY:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @gemm_nn_copied
// CHECK-SAME: (%{{.*}}: memref<256x128xf16>, %[[B:.*]]: memref<128x100xf16>, %{{.*}}: memref<256x100xf16>, %[[MAPA:.*]]: !llvm.ptr)
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 128, 64>, operand = 0 : i64, swizzle = 128 : i64}]
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %c256 : index
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPA]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK: %[[BUFA:.*]] = tile.shared_alloc : !tile.shared_buffer<6x1x128x64xf16
// CHECK: %[[BUFB:.*]] = tile.shared_alloc : !tile.shared_buffer<6x2x64x64xf16
// 4 copies of 128 threads and the leader's expect-tx.
// CHECK: %[[FULL:.*]] = tile.mbarrier_alloc {arrivals = 513 : i64} : !tile.mbarriers<6>
// CHECK: nvvm.setmaxregister decrease 104
// The walk runs in every producer thread.
// CHECK-NEXT: scf.for
// CHECK: scf.for %[[KK:.*]] = %c0 to %c2 step %c1
// CHECK: %[[SLOT:.*]] = arith.remui %{{.*}}, %c6 : index
// CHECK: %[[K0:.*]] = arith.muli %[[KK]], %c64 : index
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.mbarrier_arrive %[[FULL]][%[[SLOT]]] {expect_tx = 16384 : i64}
// CHECK-NEXT: tile.tma_load %[[MAPA]][%{{.*}}, %[[K0]]], %[[BUFA]][%[[SLOT]], %c0], %[[FULL]][%[[SLOT]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.box_copy %[[B]][%[[K0]], %[[N0:.*]]], %[[BUFB]][%[[SLOT]], %c0], %[[FULL]][%[[SLOT]]] layout #[[COPY]] {row = 0 : i64, rows = 32 : i64}
// CHECK-NEXT: %[[K32:.*]] = arith.addi %[[K0]], %c32 : index
// CHECK-NEXT: tile.box_copy %[[B]][%[[K32]], %[[N0]]], %[[BUFB]][%[[SLOT]], %c0], %[[FULL]][%[[SLOT]]] layout #[[COPY]] {row = 32 : i64, rows = 32 : i64}
// CHECK-NEXT: %[[N64:.*]] = arith.addi %[[N0]], %c64 : index
// CHECK-NEXT: tile.box_copy %[[B]][%[[K0]], %[[N64]]], %[[BUFB]][%[[SLOT]], %c1], %[[FULL]][%[[SLOT]]] layout #[[COPY]] {row = 0 : i64, rows = 32 : i64}
// CHECK-NEXT: tile.box_copy %[[B]][%[[K32]], %[[N64]]], %[[BUFB]][%[[SLOT]], %c1], %[[FULL]][%[[SLOT]]] layout #[[COPY]] {row = 32 : i64, rows = 32 : i64}
// CHECK: nvvm.setmaxregister increase 200
// CHECK: tile.mbarrier_wait %[[FULL]][%[[CSLOT:.*]]], %{{.*}}
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: tile.warpgroup_dot %[[BUFA]][%[[CSLOT]]], %[[BUFB]][%[[CSLOT]]], %{{.*}} {b_mn_major}
// The result's rows (200 bytes) are no TMA box either: per-thread stores.
// CHECK: tile.memref_store
// CHECK-NOT: tile.tma_store
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_nn_copied(%arg0: tensor<256x128xf16>, %arg1: tensor<128x100xf16>) -> tensor<256x100xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x100xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x100xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<256x100xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x128xf16>, tensor<128x100xf16>) outs(%1 : tensor<256x100xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<256x100xf32>
    %3 = tensor.empty() : tensor<256x100xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x100xf32>) outs(%3 : tensor<256x100xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<256x100xf16>
    return %4 : tensor<256x100xf16>
  }
}



// -----

// NT f16 256x128x100: both operands copied along K (K-major boxes: rows of
// M or N, 64 columns of K), no TMA load and so no expect-tx; C leaves by TMA.
// CHECK-LABEL: tile.func @gemm_nt_copied
// CHECK-SAME: (%[[A:.*]]: memref<256x100xf16>, %[[B:.*]]: memref<128x100xf16>, %{{.*}}: memref<256x128xf16>, %{{.*}}: !llvm.ptr)
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 128, 64>, operand = 2 : i64, swizzle = 128 : i64}]
// CHECK: tile.mbarrier_alloc {arrivals = 1024 : i64} : !tile.mbarriers<6>
// CHECK-NOT: expect_tx
// CHECK-NOT: tile.tma_load
// CHECK-COUNT-4: tile.box_copy %[[A]]
// CHECK-COUNT-4: tile.box_copy %[[B]]
// CHECK: tile.warpgroup_dot
// CHECK: tile.tma_store
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_nt_copied(%arg0: tensor<256x100xf16>, %arg1: tensor<128x100xf16>) -> tensor<256x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<256x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x100xf16>, tensor<128x100xf16>) outs(%1 : tensor<256x128xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<256x128xf32>
    %3 = tensor.empty() : tensor<256x128xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x128xf32>) outs(%3 : tensor<256x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<256x128xf16>
    return %4 : tensor<256x128xf16>
  }
}


