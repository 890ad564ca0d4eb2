// The FMA fallback of convert-linalg-to-tile: matmuls whose operand types
// have no tensor-core mapping (anything but f16 / bf16 operands of one type)
// become block-tiled GEMMs on a #tile.blocked accumulator, with a remark.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile --tcc-coalesce --canonicalize -verify-diagnostics | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-linalg-to-tile="target=sm_90 num-stages=3" -verify-diagnostics | FileCheck %s --check-prefix=STAGES

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// f32 at odd sizes: 64 x 64 blocks (4 warps of 4 x 8 lanes, 4 x 4 elements
// per thread, two rounds down the rows), 16 x 13 programs; K walks in steps
// of 8 (the tail, 333 = 41 * 8 + 5, loads zeros past K); each step loads the
// A and B slices, stages them through row-major shared memory (the form
// tcc-promote-shared-memory pipelines) and multiplies them as operands of the
// blocked accumulator; one (masked) store. Rows of 333 and 777 elements
// leave no row start of A or B aligned: tcc-coalesce keeps their loads at
// one element per thread (lanes along the row, warps down it).
// CHECK-DAG: #[[ACC:.*]] = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[LA:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[LB:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[SH:.*]] = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[ACC]], kWidth = 0}>
// CHECK-DAG: #[[OPB:.*]] = #tile.dot_operand<{opIdx = 1, parent = #[[ACC]], kWidth = 0}>
// CHECK-LABEL: tile.func @sgemm
// CHECK-SAME: tcc.grid = array<i64: 208, 1, 1>
// CHECK-SAME: tcc.num_warps = 4 : i32
// CHECK: %[[ACC0:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %c333 step %c8 iter_args(%[[C:.*]] = %[[ACC0]])
// CHECK: %[[A:.*]] = tile.memref_load %arg0[%[[M0:.*]], %[[K]]] : memref<1000x333xf32> -> tensor<64x8xf32, #[[LA]]>
// CHECK: %[[B:.*]] = tile.memref_load %arg1[%[[K]], %[[N0:.*]]] : memref<333x777xf32> -> tensor<8x64xf32, #[[LB]]>
// CHECK: %[[SA:.*]] = tile.convert_layout %[[A]] : tensor<64x8xf32, #[[LA]]> -> tensor<64x8xf32, #[[SH]]>
// CHECK: %[[SB:.*]] = tile.convert_layout %[[B]] : tensor<8x64xf32, #[[LB]]> -> tensor<8x64xf32, #[[SH]]>
// CHECK: %[[OA:.*]] = tile.convert_layout %[[SA]] : tensor<64x8xf32, #[[SH]]> -> tensor<64x8xf32, #[[OPA]]>
// CHECK: %[[OB:.*]] = tile.convert_layout %[[SB]] : tensor<8x64xf32, #[[SH]]> -> tensor<8x64xf32, #[[OPB]]>
// CHECK: %[[D:.*]] = tile.dot %[[OA]], %[[OB]], %[[C]] : tensor<64x8xf32, #[[OPA]]>, tensor<8x64xf32, #[[OPB]]> -> tensor<64x64xf32, #[[ACC]]>
// CHECK: scf.yield %[[D]]
// CHECK: tile.memref_store %arg2[%[[M0]], %[[N0]]], %[[R]] : memref<1000x777xf32>, tensor<64x64xf32, #[[ACC]]>

// The stage pipeline (tcc-linalg-to-tile: tcc-swizzle-shared-memory leaves
// the FMA operands unswizzled, tcc-promote-shared-memory pipelines them
// three stages deep): async copies two K steps ahead, shared_load of the
// slot straight into the FMA operand layouts.
// STAGES-DAG: #[[SH:.*]] = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// STAGES-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #{{.*}}, kWidth = 0}>
// STAGES-LABEL: tile.func @sgemm
// STAGES: %[[BA:.*]] = tile.shared_alloc : !tile.shared_buffer<3x64x8xf32, #[[SH]]>
// STAGES: tile.async_copy %arg0[%{{.*}}, %c0], %[[BA]][%c0]
// STAGES: tile.async_commit_group
// STAGES: tile.async_copy %arg0[%{{.*}}, %c8], %[[BA]][%c1]
// STAGES: scf.for
// STAGES: tile.async_wait {pending = 1 : i32}
// STAGES: tile.shared_load %[[BA]][%{{.*}}] : !tile.shared_buffer<3x64x8xf32, #[[SH]]> -> tensor<64x8xf32, #[[OPA]]>
// STAGES: tile.dot
func.func @sgemm(%x: tensor<1000x333xf32>, %w: tensor<333x777xf32>) -> tensor<1000x777xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x777xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x777xf32>) -> tensor<1000x777xf32>
  // expected-remark @+1 {{matmul of 'f32' x 'f32' -> 'f32' has no tensor-core mapping (f16 or bf16 operands of one type): using the FMA fallback (64x64x8 blocks, f32 accumulation)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1000x333xf32>, tensor<333x777xf32>) outs(%f : tensor<1000x777xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1000x777xf32>
  return %p : tensor<1000x777xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A bias + GELU epilogue runs on the accumulator's blocked layout (the
// bias row as its column slice); small M: one round of rows, 32 x 64 blocks.
// CHECK-DAG: #[[ACC:.*]] = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[COLS:.*]] = #tile.slice<{dim = 0, parent = #[[ACC]]}>
// CHECK-LABEL: tile.func @sgemm_bias_gelu
// CHECK-SAME: tcc.grid = array<i64: 4, 1, 1>
// CHECK: %[[R:.*]] = scf.for
// CHECK: tile.dot {{.*}} -> tensor<32x64xf32, #[[ACC]]>
// CHECK: %[[BIAS:.*]] = tile.memref_load %arg2[%{{.*}}] : memref<256xf32> -> tensor<64xf32, #[[COLS]]>
// CHECK: %[[E:.*]] = tile.expand_dims %[[BIAS]] {axis = 0 : i32} : tensor<64xf32, #[[COLS]]> -> tensor<1x64xf32, #[[ACC]]>
// CHECK: %[[BB:.*]] = tile.broadcast %[[E]] : tensor<1x64xf32, #[[ACC]]> -> tensor<32x64xf32, #[[ACC]]>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %[[BB]] : tensor<32x64xf32, #[[ACC]]>
// CHECK: math.tanh %{{.*}} : tensor<32x64xf32, #[[ACC]]>
// CHECK: tile.memref_store %arg3[%{{.*}}, %{{.*}}], %{{.*}} : memref<32x256xf32>, tensor<32x64xf32, #[[ACC]]>
func.func @sgemm_bias_gelu(%x: tensor<32x128xf32>, %w: tensor<128x256xf32>, %bias: tensor<256xf32>) -> tensor<32x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x256xf32>) -> tensor<32x256xf32>
  // expected-remark @+1 {{using the FMA fallback (32x64x8 blocks, f32 accumulation)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<32x128xf32>, tensor<128x256xf32>) outs(%f : tensor<32x256xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<32x256xf32>, tensor<256xf32>) outs(%e : tensor<32x256xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %c05 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %s = arith.addf %v, %bv : f32
    %t = math.tanh %s : f32
    %u = arith.addf %t, %c1 : f32
    %h = arith.mulf %s, %c05 : f32
    %g = arith.mulf %h, %u : f32
    linalg.yield %g : f32
  } -> tensor<32x256xf32>
  return %y : tensor<32x256xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// Mixed operand types (f16 x f32): the f16 slice is loaded as f16 (16-bit
// runs) and widened before it enters shared memory; an f16 result is
// truncated from the f32 accumulator before the store.
// CHECK-LABEL: tile.func @mixed
// CHECK: scf.for
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : tensor<64x8xf16, #{{.*}}> to tensor<64x8xf32, #{{.*}}>
// CHECK: tile.convert_layout %[[W]] : tensor<64x8xf32, #{{.*}}> -> tensor<64x8xf32, #{{.*}}>
// CHECK: tile.dot
// CHECK: arith.truncf %{{.*}} : tensor<64x64xf32, #{{.*}}> to tensor<64x64xf16, #{{.*}}>
// CHECK: tile.memref_store {{.*}} : memref<128x64xf16>, tensor<64x64xf16
func.func @mixed(%x: tensor<128x32xf16>, %w: tensor<32x64xf32>) -> tensor<128x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x64xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<128x64xf16>) -> tensor<128x64xf16>
  // expected-remark @+1 {{matmul of 'f16' x 'f32' -> 'f16' has no tensor-core mapping (f16 or bf16 operands of one type): using the FMA fallback (64x64x8 blocks, f32 accumulation)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<128x32xf16>, tensor<32x64xf32>) outs(%f : tensor<128x64xf16>) {
  ^bb0(%l: f16, %r: f32, %o: f16):
    %le = arith.extf %l : f16 to f32
    %m = arith.mulf %le, %r : f32
    %mt = arith.truncf %m : f32 to f16
    %s = arith.addf %o, %mt : f16
    linalg.yield %s : f16
  } -> tensor<128x64xf16>
  return %p : tensor<128x64xf16>
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// Batched: batch x blocks programs (3 x 2 x 2), each on its batch's 2-D
// slices of A, B and C.
// CHECK-LABEL: tile.func @batched
// CHECK-SAME: tcc.grid = array<i64: 12, 1, 1>
// CHECK: %[[PID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[BATCH:.*]] = arith.divui %[[PID]], %c4 : index
// CHECK: %[[SA:.*]] = memref.subview %arg0[%[[BATCH]], 0, 0] [1, 100, 40] [1, 1, 1] : memref<3x100x40xf32> to memref<100x40xf32, strided<[40, 1], offset: ?>>
// CHECK: %[[SB:.*]] = memref.subview %arg1[%[[BATCH]], 0, 0] [1, 40, 72] [1, 1, 1]
// CHECK: scf.for
// CHECK: tile.memref_load %[[SA]]
// CHECK: tile.memref_load %[[SB]]
// CHECK: tile.dot
// CHECK: %[[SC:.*]] = memref.subview %arg2[%[[BATCH]], 0, 0] [1, 100, 72] [1, 1, 1]
// CHECK: tile.memref_store %[[SC]]
func.func @batched(%x: tensor<3x100x40xf32>, %w: tensor<3x40x72xf32>) -> tensor<3x100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x100x72xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x100x72xf32>) -> tensor<3x100x72xf32>
  // expected-remark @+1 {{using the FMA fallback (64x64x8 blocks, f32 accumulation)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<3x100x40xf32>, tensor<3x40x72xf32>) outs(%f : tensor<3x100x72xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x100x72xf32>
  return %p : tensor<3x100x72xf32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// Neither tensor cores nor the FMA fallback: a clear error.
func.func @f64_matmul(%x: tensor<64x64xf64>, %w: tensor<64x64xf64>) -> tensor<64x64xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x64xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<64x64xf64>) -> tensor<64x64xf64>
  // expected-error @+1 {{matmul of 'f64' x 'f64' -> 'f64' is not supported by convert-linalg-to-tile: tensor cores take f16 or bf16 operands of one type, the FMA fallback f16, bf16 or f32 operands and results}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x64xf64>, tensor<64x64xf64>) outs(%f : tensor<64x64xf64>) {
  ^bb0(%l: f64, %r: f64, %o: f64):
    %m = arith.mulf %l, %r : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<64x64xf64>
  return %p : tensor<64x64xf64>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

func.func @i32_matmul(%x: tensor<64x64xi32>, %w: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x64xi32>) -> tensor<64x64xi32>
  // expected-error @+1 {{matmul of 'i32' x 'i32' -> 'i32' is not supported by convert-linalg-to-tile}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x64xi32>, tensor<64x64xi32>) outs(%f : tensor<64x64xi32>) {
  ^bb0(%l: i32, %r: i32, %o: i32):
    %m = arith.muli %l, %r : i32
    %s = arith.addi %o, %m : i32
    linalg.yield %s : i32
  } -> tensor<64x64xi32>
  return %p : tensor<64x64xi32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// A matmul-shaped generic that is not a multiply-add (max-plus).
func.func @max_plus(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @+1 {{matmul body is not a multiply-add (out + a * b); convert-linalg-to-tile cannot schedule it}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.addf %l, %r : f32
    %s = arith.maximumf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %p : tensor<64x64xf32>
}
