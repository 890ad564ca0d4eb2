// convert-tile-to-gpu, Hopper ops: mbarriers and TMA copies (TmaOpsToGPU.cpp),
// wgmma on shared slots (WgmmaOpsToGPU.cpp).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// The operand buffer starts 1024-byte aligned (the 128-byte swizzle's
// period); thread 0 initializes the barriers (arrival count 1), fences them
// for the async proxy, then the workgroup synchronizes. Barrier 1 is 8 bytes
// in; slot 1 chunk 0 is (1 * 1 + 0) * 64 rows * 128 bytes = 8192 bytes in;
// the TMA box coordinates go innermost first (k = 0, then row 64).
// CHECK-LABEL: gpu.func @tma
// CHECK-SAME: (%{{.*}}: memref<128x64xf16>, %[[MAP:.*]]: !llvm.ptr)
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<2x1x64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}, %[[BARS:.*]] : memref<2xi64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK:   nvvm.fence.mbarrier.init
// CHECK: }
// CHECK: gpu.barrier
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[BARS]]
// CHECK: %[[B32:.*]] = arith.index_castui %[[BASE]] : index to i32
// CHECK: %[[B1:.*]] = arith.addi %[[B32]], %c8_i32 : i32
// CHECK: %[[BAR1:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR1]], %c8192_i32 : !llvm.ptr<3>, i32
// CHECK: memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: arith.addi %{{.*}}, %c8192_i32 : i32
// CHECK: %[[DST:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[CLUSTER:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CLUSTER]], %[[MAP]], %[[BAR1]], box[%c0_i32, %c64_i32]
// CHECK: nvvm.mbarrier.try_wait.parity %[[BAR1]], %c0_i32, %{{.*}} : !llvm.ptr<3>, i32, i32
// Barrier 0: a plain arrival.
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
tile.func @tma(%a: memref<128x64xf16>, %map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  tile.mbarrier_arrive %bars[%c1] {expect_tx = 8192 : i64} : !tile.mbarriers<2>
  tile.tma_load %map[%c64, %c0], %buf[%c1, %c0], %bars[%c1] : !llvm.ptr, !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.mbarrier_wait %bars[%c1], %c0 : !tile.mbarriers<2>
  tile.mbarrier_arrive %bars[%c0] : !tile.mbarriers<2>
  tile.return
}

// -----

// One warpgroup's 64 x 128 x 64 on slot 1: four k steps of m64n128k16 between
// a fence and a commit. A [64, 64] is K-major (no transpose: row): its k steps
// move 32 bytes along the rows from 8192 (slot 1); descriptor LBO 1, SBO 1024
// bytes (64 << 32), 128-byte swizzle (1 << 62): 4611686293305360384. B
// [64, 128] is N-major (transposed: row): two 64-column chunks 8192 bytes
// apart (LBO 8192 = 512 << 16), its k steps 16 rows (2048 bytes) from 16384:
// 4611686293338849280. The wait ties all 64 accumulator registers.
// CHECK-LABEL: gpu.func @wgmma
// CHECK-DAG: %[[DA:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-DAG: %[[DB:.*]] = arith.constant 4611686293338849280 : i64
// CHECK: arith.addi %{{.*}}, %c8192_i32 : i32
// CHECK: arith.addi %{{.*}}, %c16384_i32 : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.ori %{{.*}}, %[[DB]] : i64
// CHECK: arith.ori %{{.*}}, %[[DA]] : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: arith.addi %{{.*}}, %c18432_i32 : i32
// CHECK: arith.addi %{{.*}}, %c8224_i32 : i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c20480_i32 : i32
// CHECK: arith.addi %{{.*}}, %c8256_i32 : i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c22528_i32 : i32
// CHECK: arith.addi %{{.*}}, %c8288_i32 : i32
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "=f,=f,{{.*}},=f,0,1,{{.*}},62,63"
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
tile.func @wgmma(%x: memref<64x128xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %b = tile.shared_alloc : !tile.shared_buffer<2x2x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x128xf32, #mma>
  %d = tile.warpgroup_dot %a[%c1], %b[%c1], %acc {b_mn_major} : !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.shared_buffer<2x2x64x64xf16, #sw> -> tensor<64x128xf32, #mma>
  %w = tile.warpgroup_wait %d {pending = 0 : i32} : tensor<64x128xf32, #mma>
  tile.memref_store %x[%c0, %c0], %w : memref<64x128xf32>, tensor<64x128xf32, #mma>
  tile.return
}

// -----

// A TMA store of one ping-pong consumer group (tcc.consumer_groups = 2, a
// [4, 1]-warp accumulator): 2 x 4 consumer warps + 4 producer warps; group
// g = tid / 128 meets on named barrier 1 + g (128 threads), warp ids are
// taken within the group (mod 4), the group's first thread issues the
// stores from its slot (slot 1: 1 x 2 chunks x 128 rows x 128 bytes = 32768
// bytes in) and waits for them at the end.
// CHECK-LABEL: gpu.func @pingpong_store
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[G:.*]] = arith.divui %[[TID]], %c128 : index
// CHECK: %[[G32:.*]] = arith.index_cast %[[G]] : index to i32
// CHECK: %[[BAR:.*]] = arith.addi %[[G32]], %c1_i32 : i32
// CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: arith.remui %[[W]], %c4 : index
// CHECK: %[[IN:.*]] = arith.remui %[[TID]], %c128 : index
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[IN]], %c0 : index
// CHECK: nvvm.barrier id = %[[BAR]] number_of_threads = %c128_i32
// CHECK: nvvm.barrier id = %[[BAR]] number_of_threads = %c128_i32
// CHECK: scf.if %[[LEAD]] {
// CHECK: arith.addi %{{.*}}, %c32768_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: scf.if %[[LEAD]] {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
tile.func @pingpong_store(%c: memref<256x128xf16>, %map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.consumer_groups = 2 : i32, tcc.producer_warps = 4 : i32, tcc.tensor_maps = [{box = array<i64: 128, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %t = tile.splat %zero : f16 -> tensor<128x128xf16, #mma>
  %buf = tile.shared_alloc : !tile.shared_buffer<2x2x128x64xf16, #sw>
  tile.tma_store %t, %map[%c0, %c0], %buf[%c1] : tensor<128x128xf16, #mma>, !llvm.ptr, !tile.shared_buffer<2x2x128x64xf16, #sw>
  tile.tma_store_wait
  tile.return
}

// -----

// A cluster's part of a box: rows 32.. of chunk 0 of slot 1 (1 * 64 * 128 +
// 32 * 128 = 12288 bytes in), multicast to the CTAs of the mask; a slot
// freed in CTA 1 of the cluster: mapa of the barrier's address, then an
// arrival on the shared::cluster address (default .release.cta semantics).
// CHECK-LABEL: gpu.func @cluster
// CHECK: gpu.barrier
// CHECK: arith.addi %{{.*}}, %c12288_i32 : i32
// CHECK: %[[DST:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[CLUSTER:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: %[[BAR1:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CLUSTER]], %{{.*}}, %[[BAR1]], box[%c0_i32, %c32_i32] multicast_mask = %c3_i16 :
// CHECK: %[[BAR0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %[[BAR0]], %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// CHECK-NOT: scope
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
tile.func @cluster(%a: memref<128x64xf16>, %map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<i64: 32, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %mask = arith.constant 3 : i16
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  tile.tma_load %map[%c32, %c0], %buf[%c1, %c0], %bars[%c1] multicast %mask {row = 32 : i64} : !llvm.ptr, !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.mbarrier_arrive %bars[%c0] cta %c1 : !tile.mbarriers<2>
  tile.return
}

// -----

// A from registers (attention's P): the accumulator, cast to f16, becomes
// the A operand in registers (no shared memory), and each 16-deep k step is
// `wgmma ... d, {a0, a1, a2, a3}, b-desc, 1, 1, 1, tnspB` as inline PTX
// (the NVVM op takes descriptors only): the 32 accumulator registers tied
// in and out, four b32 of A, V's descriptor (MN-major, its 64 rows: LBO
// 8192, from slot 1 at 8192 bytes, a k step 16 rows = 2048 bytes on).
// CHECK-LABEL: gpu.func @wgmma_register_a
// CHECK-NOT: memref.store
// CHECK: %[[DV:.*]] = arith.constant 4611686293338849280 : i64
// CHECK: arith.addi %{{.*}}, %c8192_i32 : i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.ori %{{.*}}, %[[DV]] : i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, 1, 1, 1, 1;", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l" {{.*}} : (f32, {{.*}}, f32, i32, i32, i32, i32, i64) -> !llvm.struct<(f32
// CHECK: arith.addi %{{.*}}, %c10240_i32 : i32
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c12288_i32 : i32
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async
// CHECK: arith.addi %{{.*}}, %c14336_i32 : i32
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0;
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#pa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @wgmma_register_a(%x: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  %v = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %s = tile.memref_load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #mma>
  %h = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
  %p = tile.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #pa>
  %d = tile.warpgroup_dot %p, %v[%c1], %s {b_mn_major} : tensor<64x64xf16, #pa>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma>
  %w = tile.warpgroup_wait %d {pending = 0 : i32} : tensor<64x64xf32, #mma>
  tile.memref_store %x[%c0, %c0], %w : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// keep: the register A of a group in flight stays live up to its wait: the
// wait's asm reads it (16 b32 per thread: 64 x 64 f16 over 128 threads)
// after the 32 accumulator registers it ties, so no instruction between the
// wgmma and the wait may reuse those registers.
// CHECK-LABEL: gpu.func @wgmma_keep
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: %[[A:.*]] = vector.bitcast %{{.*}} : vector<32xf16> to vector<16xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0] : i32 from vector<16xi32>
// CHECK: %[[A15:.*]] = vector.extract %[[A]][15] : i32 from vector<16xi32>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "=f,{{.*}},=f,0,{{.*}},31,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r" {{.*}}, %[[A0]], {{.*}}, %[[A15]] : (f32, {{.*}}, f32, i32, {{.*}}, i32) -> !llvm.struct<(f32
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#pa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @wgmma_keep(%x: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %s = tile.memref_load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #mma>
  %h = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
  %p = tile.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #pa>
  %d = tile.warpgroup_dot %p, %v[%c1], %s {b_mn_major} : tensor<64x64xf16, #pa>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma>
  %w = tile.warpgroup_wait %d keep(%p : tensor<64x64xf16, #pa>) {pending = 1 : i32} : tensor<64x64xf32, #mma>
  tile.memref_store %x[%c0, %c0], %w : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}
