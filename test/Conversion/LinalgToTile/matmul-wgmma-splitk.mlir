// convert-linalg-to-tile, the Hopper GEMM with split_k = S: the walk is over
// tiles x S work items (tile u / S, split u % S, k steps [s kSteps / S,
// (s + 1) kSteps / S)); a program stores its f32 partial into the
// workspace (after the results, before the tensor maps: tcc.workspace,
// 1 where the runtime zero-fills it), counts itself on the tile's counter
// and the one that counts the S-th arrival sums the partials in split
// order, resets the counter and runs the epilogue.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels --tcc-select-strategy --convert-linalg-to-tile --canonicalize --cse -verify-diagnostics | FileCheck %s

// NN f16 256x256x384, 128 x 128 blocks: 4 tiles x 2 splits of 6 k steps
// (3 each), 8 programs; partials [4 x 2 x 128, 128] f32, 4 counters.
// CHECK-LABEL: tile.func @gemm_nn
// CHECK-SAME: %arg3: memref<1024x128xf32>, %arg4: memref<4xi32>, %arg5: !llvm.ptr
// CHECK-SAME: tcc.grid = array<i64: 8, 1, 1>
// CHECK-SAME: tcc.workspace = array<i32: 0, 1>
// The producer walks the same items (its TMA loads)...
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8 step
// CHECK: tile.tma_load
// ... and the consumers: item u, its split s = u % 2 and tile u / 2.
// CHECK: scf.for %[[U:.*]] = %{{.*}} to %c8 step
// CHECK-NEXT: %[[S:.*]] = arith.remui %[[U]], %c2 : index
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[U]], %c2 : index
// CHECK-NEXT: %[[B0:.*]] = arith.muli %[[S]], %c6 : index
// CHECK-NEXT: %[[KB:.*]] = arith.divui %[[B0]], %c2 : index
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[S]], %c1 : index
// CHECK-NEXT: %[[B1:.*]] = arith.muli %[[S1]], %c6 : index
// CHECK-NEXT: %[[KE:.*]] = arith.divui %[[B1]], %c2 : index
// CHECK: scf.for %{{.*}} = %[[KB]] to %[[KE]] step %c1
// CHECK: tile.warpgroup_dot
// The partial at row (2 t + s) 128; the consumer threads meet; thread 0
// releases their stores and counts itself.
// CHECK: %[[T2:.*]] = arith.muli %[[T]], %c2 : index
// CHECK: %[[SLOT:.*]] = arith.addi %[[T2]], %[[S]] : index
// CHECK: %[[ROW:.*]] = arith.muli %[[SLOT]], %c128 : index
// CHECK: tile.memref_store %arg3[%[[ROW]], %c0], %{{.*}} : memref<1024x128xf32>, tensor<128x128xf32, #{{.*}}>
// CHECK-NEXT: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %thread_id_x, %c0 : index
// CHECK: %[[ARRIVED:.*]] = scf.if %[[LEAD]] -> (i1) {
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: %[[OLD:.*]] = memref.atomic_rmw addi %c1_i32, %arg4[%[[T]]] : (i32, memref<4xi32>) -> i32
// CHECK-NEXT: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]], %c1_i32 : i32
// CHECK-NEXT: nvvm.memory.barrier <gpu>
// CHECK-NEXT: scf.yield %[[LAST]] : i1
// CHECK: %[[P:.*]] = arith.extui %[[ARRIVED]] : i1 to i32
// CHECK-NEXT: %[[ANY:.*]] = llvm.inline_asm has_side_effects {{.*}}bar.red.or.pred %p, $1, $2, %p;{{.*}} %c1_i32, %c256_i32, %[[P]] : (i32, i32, i32) -> i32
// CHECK-NEXT: %[[GO:.*]] = arith.cmpi ne, %[[ANY]], %c0_i32 : i32
// The last arrival: partials 0 and 1 in order, the counter back to 0, the
// epilogue (cast, TMA store) on the sum.
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT: %[[R0:.*]] = arith.muli %[[T]], %c256 : index
// CHECK-NEXT: %[[P0:.*]] = tile.memref_load %arg3[%[[R0]], %c0]
// CHECK: %[[P1:.*]] = tile.memref_load %arg3[%{{.*}}, %c0]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[P0]], %[[P1]]
// CHECK-NEXT: scf.if %[[LEAD]] {
// CHECK-NEXT: memref.store %c0_i32, %arg4[%[[T]]] : memref<4xi32>
// CHECK: %[[H:.*]] = arith.truncf %[[SUM]]
// CHECK-NEXT: tile.tma_store %[[H]]
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_nn(%arg0: tensor<256x384xf16>, %arg1: tensor<384x256xf16>) -> tensor<256x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, split_k = 2>} ins(%arg0, %arg1 : tensor<256x384xf16>, tensor<384x256xf16>) outs(%1 : tensor<256x256xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<256x256xf32>
  %3 = tensor.empty() : tensor<256x256xf16>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x256xf32>) outs(%3 : tensor<256x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<256x256xf16>
  return %4 : tensor<256x256xf16>
}

// -----

// A split per k step at most.
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gemm_few_k(%arg0: tensor<256x64xf16>, %arg1: tensor<64x256xf16>) -> tensor<256x256xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<256x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{'linalg.generic' op lowering_config split_k = 2 splits 1 k steps of 64 (K = 64): at most one split per k step}}
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, split_k = 2>} ins(%arg0, %arg1 : tensor<256x64xf16>, tensor<64x256xf16>) outs(%1 : tensor<256x256xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<256x256xf32>
  %3 = tensor.empty() : tensor<256x256xf16>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<256x256xf32>) outs(%3 : tensor<256x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %5 = arith.truncf %in : f32 to f16
    linalg.yield %5 : f16
  } -> tensor<256x256xf16>
  return %4 : tensor<256x256xf16>
}
