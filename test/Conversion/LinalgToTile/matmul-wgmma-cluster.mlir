// convert-linalg-to-tile, the Hopper GEMM in thread-block clusters
// (lowering_config cluster = [CM, CN]): a cluster's programs are
// consecutive in the 1-D grid (rank = pid % C, rm = rank % CM, rn = rank /
// CM); the walk is over the clusters' CM x CN blocks of tiles. Each program
// loads its part of the boxes its cluster shares and multicasts it; a slot
// is free once the consumer warps of every program writing into it arrived
// (remote arrivals); the programs meet on the cluster barrier before the
// first arrival and before leaving.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels --tcc-select-strategy --convert-linalg-to-tile --canonicalize --cse | FileCheck %s

// NN f16 512x512x128, 128 x 256 blocks in clusters of 2 x 1: 4 x 2 tiles
// make 2 x 2 cluster blocks, 8 programs. B's 4 chunks a step split by
// chunks: rm 0 loads chunks 0-1, rm 1 chunks 2-3, each multicast
// to the ranks of its rn (mask 3 << 2 rn); A is the program's own. The
// empty barriers count 8 consumer warps of 2 programs.
// CHECK-LABEL: tile.func @gemm_nn
// CHECK-SAME: tcc.cluster = array<i32: 2, 1, 1>, tcc.grid = array<i64: 8, 1, 1>
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 128, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 1 : i64, swizzle = 128 : i64}
// CHECK: tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<4>
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 16 : i64} : !tile.mbarriers<4>
// CHECK: %[[PID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[RANK:.*]] = arith.remui %[[PID]], %c2 : index
// CHECK: %[[RM:.*]] = arith.remui %[[RANK]], %c2 : index
// CHECK: %[[RN:.*]] = arith.divui %[[RANK]], %c2 : index
// CHECK: %[[CID:.*]] = arith.divui %[[PID]], %c2 : index
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: tile.mbarrier_arrive %{{.*}} {expect_tx = 49152 : i64}
// CHECK: tile.tma_load %arg3[%{{.*}}], %{{.*}}[%{{.*}}, %c0], %{{.*}} : !llvm.ptr
// CHECK: %[[MASK:.*]] = arith.shli %c3_i16, %{{.*}} : i16
// CHECK: scf.if
// CHECK: tile.tma_load %arg4[{{.*}}], %{{.*}}[%{{.*}}, %c0], %{{.*}} multicast %[[MASK]]
// CHECK: tile.tma_load %arg4[{{.*}}], %{{.*}}[%{{.*}}, %c1], %{{.*}} multicast %[[MASK]]
// CHECK: scf.if
// CHECK: tile.tma_load %arg4[{{.*}}], %{{.*}}[%{{.*}}, %c2], %{{.*}} multicast %[[MASK]]
// CHECK: tile.tma_load %arg4[{{.*}}], %{{.*}}[%{{.*}}, %c3], %{{.*}} multicast %[[MASK]]
// Consumers free a slot in both programs of their rn.
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta %{{.*}} : !tile.mbarriers<4>
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta %{{.*}} : !tile.mbarriers<4>
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta %{{.*}} : !tile.mbarriers<4>
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta %{{.*}} : !tile.mbarriers<4>
// CHECK: tile.tma_store_wait
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_nn(%arg0: tensor<512x128xf16>, %arg1: tensor<128x512xf16>) -> tensor<512x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<512x512xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<512x512xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<512x512xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>} ins(%arg0, %arg1 : tensor<512x128xf16>, tensor<128x512xf16>) outs(%1 : tensor<512x512xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<512x512xf32>
    %3 = tensor.empty() : tensor<512x512xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<512x512xf32>) outs(%3 : tensor<512x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<512x512xf16>
    return %4 : tensor<512x512xf16>
  }
}

// -----

// NT (x @ w.T) 512x512x128, 128 x 128 blocks in clusters of 1 x 2: A is
// shared along N, and its one chunk a step splits by rows: rn 0 loads rows
// 0-63, rn 1 rows 64-127 (boxes of 64 rows, row = 64), multicast to both
// ranks (mask 3); B is the program's own. 4 x 2 cluster blocks: 16
// programs.
// CHECK-LABEL: tile.func @gemm_nt
// CHECK-SAME: tcc.cluster = array<i32: 2, 1, 1>, tcc.grid = array<i64: 16, 1, 1>
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 128, 64>, operand = 1 : i64, swizzle = 128 : i64}
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 16 : i64} : !tile.mbarriers<4>
// CHECK: tile.mbarrier_arrive %{{.*}} {expect_tx = 32768 : i64}
// CHECK: scf.if
// CHECK: tile.tma_load %arg3[{{.*}}], %{{.*}}[%{{.*}}, %c0], %{{.*}} multicast %c3_i16 :
// CHECK: scf.if
// CHECK: tile.tma_load %arg3[{{.*}}], %{{.*}}[%{{.*}}, %c0], %{{.*}} multicast %c3_i16 {row = 64 : i64}
// CHECK: tile.tma_load %arg4[{{.*}}], %{{.*}}[%{{.*}}, %c0], %{{.*}} :
// CHECK: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] cta
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_nt(%arg0: tensor<512x128xf16>, %arg1: tensor<512x128xf16>) -> tensor<512x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<512x512xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<512x512xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<512x512xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [1, 2]>} ins(%arg0, %arg1 : tensor<512x128xf16>, tensor<512x128xf16>) outs(%1 : tensor<512x512xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<512x512xf32>
    %3 = tensor.empty() : tensor<512x512xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<512x512xf32>) outs(%3 : tensor<512x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<512x512xf16>
    return %4 : tensor<512x512xf16>
  }
}
