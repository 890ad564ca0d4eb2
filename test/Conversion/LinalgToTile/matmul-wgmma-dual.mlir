// convert-linalg-to-tile, matmul form on sm_90, a dual GEMM (two
// contractions of one A and their epilogue, as tcc-form-kernels groups
// SwiGLU's silu(x @ w1) * (x @ w3)): the plan counts two accumulators
// (128 x 128: 64 + 64 floats per consumer thread) and three operand boxes
// per stage; the kernel streams A once and both B, issues two wgmma groups
// per k step on one A slot, keeps both in flight, and runs the epilogue on
// the two accumulators.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s --check-prefix=PLAN
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s

// PLAN-LABEL: func.func @gate(
// PLAN: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>
// PLAN-NOT: tile.lowering_config

// CHECK-LABEL: tile.func @gate(
// CHECK-SAME: %arg0: memref<256x128xbf16>, %arg1: memref<128x512xbf16>, %arg2: memref<128x512xbf16>, %arg3: memref<256x512xbf16>, %arg4: !llvm.ptr, %arg5: !llvm.ptr, %arg6: !llvm.ptr, %arg7: !llvm.ptr
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 128, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 2 : i64, swizzle = 128 : i64}, {box = array<i64: 128, 64>, operand = 3 : i64, swizzle = 128 : i64}]
// CHECK: %[[A:.*]] = tile.shared_alloc : !tile.shared_buffer<4x1x128x64xbf16
// CHECK: %[[B1:.*]] = tile.shared_alloc : !tile.shared_buffer<4x2x64x64xbf16
// CHECK: %[[B2:.*]] = tile.shared_alloc : !tile.shared_buffer<4x2x64x64xbf16
// A step's bytes: A 16 KiB, each B 16 KiB.
// CHECK: tile.mbarrier_arrive {{.*}} {expect_tx = 49152 : i64}
// CHECK: tile.tma_load %arg4{{.*}}, %[[A]]
// CHECK: tile.tma_load %arg5{{.*}}, %[[B1]]
// CHECK: tile.tma_load %arg5{{.*}}, %[[B1]]
// CHECK: tile.tma_load %arg6{{.*}}, %[[B2]]
// CHECK: tile.tma_load %arg6{{.*}}, %[[B2]]
// CHECK: scf.for {{.*}} iter_args(%[[ACC1:.*]] = %{{.*}}, %[[ACC2:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[D1:.*]] = tile.warpgroup_dot %[[A]][%[[S:.*]]], %[[B1]][%[[S]]], %[[ACC1]] {b_mn_major}
// CHECK: %[[D2:.*]] = tile.warpgroup_dot %[[A]][%[[S]]], %[[B2]][%[[S]]], %[[ACC2]] {b_mn_major}
// CHECK: tile.warpgroup_wait %[[D1]] {pending = 2 : i32}
// CHECK: tile.warpgroup_wait %[[D2]] {pending = 2 : i32}
// CHECK: %[[G:.*]] = tile.warpgroup_wait %{{.*}}#0 {pending = 0 : i32}
// CHECK: %[[U:.*]] = tile.warpgroup_wait %{{.*}}#1 {pending = 0 : i32}
// CHECK: arith.negf %[[G]]
// CHECK: math.exp
// CHECK: arith.mulf %{{.*}}, %[[U]] : tensor<128x128xf32
// CHECK: tile.tma_store {{.*}}, %arg7

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @gate(%x: tensor<256x128xbf16>, %w1: tensor<128x512xbf16>, %w3: tensor<128x512xbf16>) -> tensor<256x512xbf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %u = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %eh = tensor.empty() : tensor<256x512xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<256x512xf32>, tensor<256x512xf32>) outs(%eh : tensor<256x512xbf16>) {
  ^bb0(%gi: f32, %ui: f32, %out: bf16):
    %0 = arith.negf %gi : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.divf %gi, %2 : f32
    %4 = arith.mulf %3, %ui : f32
    %5 = arith.truncf %4 : f32 to bf16
    linalg.yield %5 : bf16
  } -> tensor<256x512xbf16>
  return %h : tensor<256x512xbf16>
}
