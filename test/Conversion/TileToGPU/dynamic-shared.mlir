// Over 48 KiB of buffers: views of one dynamic shared-memory array at
// 16-byte aligned offsets, the size recorded for the launch; over the
// target's max-shared-bytes: an error naming both sizes.
// RUN: tcc-opt %s --convert-tile-to-gpu | FileCheck %s
// RUN: tcc-opt %s --convert-tile-to-gpu="max-shared-bytes=65535" -verify-diagnostics -o /dev/null

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
// expected-error@+1 {{'tile.func' op needs 65536 bytes of workgroup memory, more than the target's 65535 (max-shared-bytes); use fewer stages or smaller blocks}}
tile.func @four_slots(%A: memref<256x256xf16>, %m0: index, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  %b = tile.shared_alloc : !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %a[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.async_copy %A[%m0, %c0], %b[%slot] layout #blk : memref<256x256xf16> -> !tile.shared_buffer<4x128x32xf16, #sh>
  tile.return
}
