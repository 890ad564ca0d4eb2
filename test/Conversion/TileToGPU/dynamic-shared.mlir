// Over 48 KiB of buffers: views of one dynamic shared-memory array at
// 16-byte aligned offsets, the size recorded for the launch; over the
// target's max_shared_bytes: an error naming both sizes.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -verify-diagnostics | FileCheck %s

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// CHECK-LABEL: gpu.func @four_slots
// CHECK-NOT: workgroup(
// CHECK-SAME: tcc.dynamic_shared_bytes = 65536 : i32
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.view %[[BASE]][%c0{{.*}}][] {tcc.workgroup_buffer = 0 : i64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.view %[[BASE]][%c32768{{.*}}][] {tcc.workgroup_buffer = 1 : i64} : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[A]][%arg2,
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[B]][%arg2,
tile.func @four_slots(%A: memref<256x256xf16>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  %b = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %a[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %b[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.return
}

// -----

// The same kernel for an sm_90 target that offers one byte less (a
// hand-written target of the same arch is kept by tcc-set-target).
#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 65535, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>} {
// expected-error@+1 {{'tile.func' op needs 65536 bytes of workgroup memory, more than the target's 65535 (#tile.target max_shared_bytes); use fewer stages or smaller blocks}}
tile.func @four_slots_small(%A: memref<256x256xf16>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  %b = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %a[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %b[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.return
}
}
