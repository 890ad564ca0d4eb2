// convert-linalg-to-tile, the Hopper GEMM (lowering_config mma =
// wgmma_m64nNk16): a persistent, warp-specialized program. The last
// warpgroup produces (setmaxnreg.dec, one thread streams TMA boxes into a
// ring of slots, completing on full[s] after waiting empty[s]); the others
// consume (setmaxnreg.inc, wait full[s], wgmma on the slot, one group in
// flight, lane 0 of each warp frees the previous slot), then run the
// epilogue on the accumulator. A and B are read as stored.
// Each matmul carries its plan (64 x 128 blocks on one consumer warpgroup,
// 6 stages), which tcc-select-strategy keeps: the builder is what is tested
// here (the choice: test/Strategy/select-strategy-matmul-sm90.mlir).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels --tcc-select-strategy --convert-linalg-to-tile --canonicalize --cse | FileCheck %s

// NN f16 256x512x128 on 64 x 128 blocks (16 blocks, 16 programs), 6 slots;
// B [K, N] is N-major: 2 boxes of 64 x 64 per step.
// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SW:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
// CHECK-LABEL: tile.func @gemm_nn
// The f16 result leaves through a staging block with TMA: a third map (C's).
// CHECK-SAME: (%[[A:.*]]: memref<256x128xf16>, %[[B:.*]]: memref<128x512xf16>, %[[C:.*]]: memref<256x512xf16>, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr, %[[MAPC:.*]]: !llvm.ptr)
// CHECK-SAME: tcc.grid = array<i64: 16, 1, 1>
// CHECK-SAME: tcc.num_warps = 8 : i32, tcc.producer_warps = 4 : i32
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 2 : i64, swizzle = 128 : i64}]
// The producer's leader (thread 128) fetches the tensor maps first.
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[TID]], %c128 : index
// CHECK: scf.if %[[LEAD]] {
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPA]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPB]] : !llvm.ptr
// CHECK-NEXT: nvvm.prefetch tensormap in_param_space, %[[MAPC]] : !llvm.ptr
// CHECK-NEXT: }
// CHECK: %[[BUFA:.*]] = tile.shared_alloc : !tile.shared_buffer<6x1x64x64xf16, #[[SW]]>
// CHECK: %[[BUFB:.*]] = tile.shared_alloc : !tile.shared_buffer<6x2x64x64xf16, #[[SW]]>
// CHECK: %[[FULL:.*]] = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<6>
// CHECK: %[[EMPTY:.*]] = tile.mbarrier_alloc {arrivals = 4 : i64} : !tile.mbarriers<6>
// CHECK: %[[BUFC:.*]] = tile.shared_alloc : !tile.shared_buffer<1x2x64x64xf16, #[[SW]]>
// CHECK: %[[PID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[NPROG:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[PROD:.*]] = arith.cmpi uge, %[[TID]], %c128 : index
// CHECK: scf.if %[[PROD]] {
// CHECK:   nvvm.setmaxregister decrease 40
// CHECK:   scf.if %[[LEAD]] {
// The persistent walk: this program's blocks, num_programs apart.
// CHECK:   scf.for %{{.*}} = %[[PID]] to %c16 step %[[NPROG]] iter_args(%{{.*}} = %c0) -> (index) {
// CHECK:     scf.for %[[KK:.*]] = %c0 to %c2 step %c1 iter_args(%[[STEP:.*]] = %{{.*}}) -> (index) {
// Step i: slot i % 6 in phase i / 6; the slot is free once the consumers'
// arrivals completed its previous phase (parity phase + 1).
// CHECK:       %[[PHASE:.*]] = arith.divui %[[STEP]], %c6 : index
// CHECK:       %[[SLOT:.*]] = arith.remui %[[STEP]], %c6 : index
// CHECK:       %[[PREV:.*]] = arith.addi %[[PHASE]], %c1 : index
// CHECK:       tile.mbarrier_wait %[[EMPTY]][%[[SLOT]]], %[[PREV]]
// CHECK:       %[[K0:.*]] = arith.muli %[[KK]], %c64 : index
// CHECK:       tile.mbarrier_arrive %[[FULL]][%[[SLOT]]] {expect_tx = 24576 : i64}
// CHECK:       tile.tma_load %[[MAPA]][%{{.*}}, %[[K0]]], %[[BUFA]][%[[SLOT]], %c0], %[[FULL]][%[[SLOT]]]
// CHECK:       tile.tma_load %[[MAPB]][%[[K0]], %[[N0:.*]]], %[[BUFB]][%[[SLOT]], %c0], %[[FULL]][%[[SLOT]]]
// CHECK:       %[[N1:.*]] = arith.addi %[[N0]], %c64 : index
// CHECK:       tile.tma_load %[[MAPB]][%[[K0]], %[[N1]]], %[[BUFB]][%[[SLOT]], %c1], %[[FULL]][%[[SLOT]]]
// CHECK: } else {
// CHECK:   nvvm.setmaxregister increase 232
// CHECK:   %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK:   %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK:   scf.for %{{.*}} = %[[PID]] to %c16 step %[[NPROG]]
// CHECK:     %[[ZERO:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x128xf32, #[[MMA]]>
// CHECK:     %[[LOOP:.*]]:2 = scf.for %[[CK:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %[[ZERO]], %[[CSTEP:.*]] = %{{.*}})
// CHECK:       %[[CPHASE:.*]] = arith.divui %[[CSTEP]], %c6 : index
// CHECK:       %[[CSLOT:.*]] = arith.remui %[[CSTEP]], %c6 : index
// CHECK:       tile.mbarrier_wait %[[FULL]][%[[CSLOT]]], %[[CPHASE]]
// CHECK:       %[[D:.*]] = tile.warpgroup_dot %[[BUFA]][%[[CSLOT]]], %[[BUFB]][%[[CSLOT]]], %[[ACC]] {b_mn_major}
// CHECK:       %[[W:.*]] = tile.warpgroup_wait %[[D]] {pending = 1 : i32}
// CHECK:       %[[LATER:.*]] = arith.cmpi ugt, %[[CK]], %c0 : index
// CHECK:       %[[RELEASE:.*]] = arith.andi %[[LATER]], %[[LANE0]] : i1
// CHECK:       scf.if %[[RELEASE]] {
// CHECK:         %[[LAST:.*]] = arith.subi %[[CSTEP]], %c1 : index
// CHECK:         %[[LSLOT:.*]] = arith.remui %[[LAST]], %c6 : index
// CHECK:         tile.mbarrier_arrive %[[EMPTY]][%[[LSLOT]]]
// CHECK:       scf.yield %[[W]], %{{.*}} : tensor<64x128xf32, #[[MMA]]>, index
// CHECK:     %[[DONE:.*]] = tile.warpgroup_wait %[[LOOP]]#0 {pending = 0 : i32}
// CHECK:     scf.if %[[LANE0]] {
// CHECK:       tile.mbarrier_arrive %[[EMPTY]]
// CHECK:     %[[OUT:.*]] = arith.truncf %[[DONE]] : tensor<64x128xf32, #[[MMA]]> to tensor<64x128xf16, #[[MMA]]>
// CHECK:     tile.tma_store %[[OUT]], %[[MAPC]][%{{.*}}, %{{.*}}], %[[BUFC]]
// The last stores complete before the consumers end.
// CHECK:   tile.tma_store_wait
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @gemm_nn(%arg0: tensor<256x128xf16>, %arg1: tensor<128x512xf16>) -> tensor<256x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x512xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x512xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<256x512xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16>} ins(%arg0, %arg1 : tensor<256x128xf16>, tensor<128x512xf16>) outs(%1 : tensor<256x512xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<256x512xf32>
    %3 = tensor.empty() : tensor<256x512xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x512xf32>) outs(%3 : tensor<256x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<256x512xf16>
    return %4 : tensor<256x512xf16>
  }
}

// -----

// NT (x @ w.T, B stored [N, K]) bf16 with bias + GELU: B is K-major, one
// 128 x 64 box per step and no b_mn_major; no transpose kernel; the bias is
// read in the accumulator's sliced layout.
// CHECK-DAG: #[[SLICE:.*]] = #tile.slice<{dim = 0, parent = #[[NTMMA:.*]]}>
// CHECK-LABEL: tile.func @linear_nt
// CHECK-SAME: (%{{.*}}: memref<256x128xbf16>, %{{.*}}: memref<256x128xbf16>, %[[BIAS:.*]]: memref<256xf32>, %[[OUT:.*]]: memref<256x256xbf16>, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 128, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 3 : i64, swizzle = 128 : i64}]
// CHECK: tile.shared_alloc : !tile.shared_buffer<6x1x128x64xbf16
// A at (m0, k0), then B at (n0, k0): one box each per step.
// CHECK: tile.tma_load %{{.*}}[%{{.*}}, %[[KB:.*]]], %{{.*}}[%{{.*}}, %c0]
// CHECK-NEXT: tile.tma_load %{{.*}}[%{{.*}}, %[[KB]]], %{{.*}}[%{{.*}}, %c0]
// CHECK-NOT: tile.tma_load
// CHECK: tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.shared_buffer<6x1x64x64xbf16, #{{.*}}>, !tile.shared_buffer<6x1x128x64xbf16
// CHECK: tile.memref_load %[[BIAS]][%{{.*}}] : memref<256xf32> -> tensor<128xf32, #[[SLICE]]>
// CHECK: math.tanh
// CHECK: tile.tma_store
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @linear_nt(%arg0: tensor<256x128xbf16>, %arg1: tensor<256x128xbf16>, %arg2: tensor<256xf32>) -> tensor<256x256xbf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.797884583 : f32
    %cst_1 = arith.constant 4.471500e-02 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<256x256xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<256x256xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<256x256xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16>} ins(%arg0, %arg1 : tensor<256x128xbf16>, tensor<256x128xbf16>) outs(%1 : tensor<256x256xf32>) {
    ^bb0(%in: bf16, %in_4: bf16, %out: f32):
      %5 = arith.extf %in : bf16 to f32
      %6 = arith.extf %in_4 : bf16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<256x256xf32>
    %3 = tensor.empty() : tensor<256x256xbf16>
    %4 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<256x256xf32>, tensor<256xf32>) outs(%3 : tensor<256x256xbf16>) {
    ^bb0(%in: f32, %in_4: f32, %out: bf16):
      %5 = arith.addf %in, %in_4 : f32
      %6 = arith.mulf %5, %5 : f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.mulf %7, %cst_1 : f32
      %9 = arith.addf %5, %8 : f32
      %10 = arith.mulf %9, %cst_0 : f32
      %11 = math.tanh %10 : f32
      %12 = arith.mulf %5, %cst_3 : f32
      %13 = arith.addf %11, %cst_2 : f32
      %14 = arith.mulf %12, %13 : f32
      %15 = arith.truncf %14 : f32 to bf16
      linalg.yield %15 : bf16
    } -> tensor<256x256xbf16>
    return %4 : tensor<256x256xbf16>
  }
}

// -----

// TN batched (A stored [B, K, M]): both operands MN-major, 3-D boxes
// [1, 64, 64] at (batch, k0, m0 / n0); the TMA store at (batch, m0, n0).
// CHECK-LABEL: tile.func @gemm_tn
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 1, 64, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 64, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 64, 64>, operand = 2 : i64, swizzle = 128 : i64}]
// CHECK: tile.tma_load %{{.*}}[%[[BATCH:.*]], %c0, %{{.*}}]
// CHECK: tile.warpgroup_dot {{.*}} {a_mn_major, b_mn_major}
// CHECK: tile.tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : tensor<64x128xf16
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @gemm_tn(%arg0: tensor<2x64x128xf16>, %arg1: tensor<2x64x128xf16>) -> tensor<2x128x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x128x128xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x128x128xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<2x128x128xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 6, mma = wgmma_m64nNk16>} ins(%arg0, %arg1 : tensor<2x64x128xf16>, tensor<2x64x128xf16>) outs(%1 : tensor<2x128x128xf32>) {
    ^bb0(%in: f16, %in_0: f16, %out: f32):
      %5 = arith.extf %in : f16 to f32
      %6 = arith.extf %in_0 : f16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<2x128x128xf32>
    %3 = tensor.empty() : tensor<2x128x128xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x128x128xf32>) outs(%3 : tensor<2x128x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %5 = arith.truncf %in : f32 to f16
      linalg.yield %5 : f16
    } -> tensor<2x128x128xf16>
    return %4 : tensor<2x128x128xf16>
  }
}
