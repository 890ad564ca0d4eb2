// convert-linalg-to-tile, the Hopper GEMM with consumers = pingpong: each
// consumer warpgroup runs a whole 128 x 128 block (its accumulator on 4
// warps), the two taking the program's tiles in turn; the producer loads
// every tile. The slots are freed by the 4 warps that read them; each
// warpgroup stages its TMA store in its own slot.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels --tcc-select-strategy --convert-linalg-to-tile --canonicalize --cse | FileCheck %s

// NN f16 512x512x128: 16 tiles on 16 programs, 2 k steps a tile.
// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-LABEL: tile.func @gemm_nn
// CHECK-SAME: tcc.consumer_groups = 2 : i32
// CHECK-SAME: tcc.num_warps = 12 : i32, tcc.producer_warps = 4 : i32
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: nvvm.prefetch tensormap
// CHECK: tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<4>
// CHECK: tile.mbarrier_alloc {arrivals = 4 : i64} : !tile.mbarriers<4>
// The turn barriers: order[g] completes when the other warpgroup's 4 warps
// are past their k loop.
// CHECK: %[[ORDER:.*]] = tile.mbarrier_alloc {arrivals = 4 : i64} : !tile.mbarriers<2>
// CHECK: %[[BUFC:.*]] = tile.shared_alloc : !tile.shared_buffer<2x2x128x64xf16
// CHECK: %[[PID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[NPROG:.*]] = arith.index_cast %{{.*}} : i32 to index
// The producer walks every tile.
// CHECK: scf.for %{{.*}} = %[[PID]] to %c16 step %[[NPROG]]
// Warpgroup g: tiles pid + g * programs, step 2 * programs; its k-step
// counter starts at g * 2 and skips the other warpgroup's 2 steps a tile.
// CHECK: %[[G:.*]] = arith.divui %[[TID]], %c128 : index
// CHECK: %[[GP:.*]] = arith.muli %[[G]], %[[NPROG]] : index
// CHECK: %[[START:.*]] = arith.addi %[[PID]], %[[GP]] : index
// CHECK: %[[STEP:.*]] = arith.muli %[[NPROG]], %c2 : index
// CHECK: %[[K0:.*]] = arith.muli %[[G]], %c2 : index
// CHECK: scf.for %[[T:.*]] = %[[START]] to %c16 step %[[STEP]] iter_args(%{{.*}} = %[[K0]])
// Its i-th tile waits for phase i - g (parity (i + 1 - g) % 2) of order[g].
// CHECK: %[[D:.*]] = arith.subi %[[T]], %[[START]] : index
// CHECK: %[[I:.*]] = arith.divui %[[D]], %[[STEP]] : index
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %c1 : index
// CHECK: %[[IG:.*]] = arith.subi %[[I1]], %[[G]] : index
// CHECK: %[[PAR:.*]] = arith.remui %[[IG]], %c2 : index
// CHECK: tile.mbarrier_wait %[[ORDER]][%[[G]]], %[[PAR]]
// CHECK: tile.warpgroup_dot {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// After the k loop, lane 0 of each warp hands the turn to the other.
// CHECK: %[[OTHER:.*]] = arith.subi %c1, %[[G]] : index
// CHECK: tile.mbarrier_arrive %[[ORDER]][%[[OTHER]]]
// CHECK: tile.tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %[[BUFC]][%[[G]]]
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c2 : index
// CHECK: scf.yield %[[NEXT]] : index
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
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong>} ins(%arg0, %arg1 : tensor<512x128xf16>, tensor<128x512xf16>) outs(%1 : tensor<512x512xf32>) {
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


