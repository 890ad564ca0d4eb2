// Vector add on memref windows: 1-D blocked layout with 4 f32 per thread,
// so each thread's run is one aligned 16-byte vector.load/store; dynamic
// memrefs become bare memref<1xf32> + size arguments; the masked tail takes
// the element-by-element scf.if path.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -split-input-file | FileCheck %s

#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK: module attributes {gpu.container_module, tile.target = #tile.target<arch = "sm_90"
// CHECK: gpu.module @add_module
// CHECK-LABEL: gpu.func @add(
// CHECK-SAME: %[[X:.*]]: memref<1xf32>, %[[NX:.*]]: index, %[[Y:.*]]: memref<1xf32>, %[[NY:.*]]: index, %[[Z:.*]]: memref<1xf32>, %[[NZ:.*]]: index)
// CHECK-SAME: kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: tcc.num_warps = 4 : i32, tcc.shared_bytes = 0 : i32, tcc.threads = 128 : i32
// CHECK: %[[XV:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[NX]]], strides: [1] : memref<1xf32> to memref<?xf32>
// CHECK: gpu.block_id x
// CHECK: gpu.thread_id x
// CHECK: %[[A:.*]] = scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK:   vector.load %[[XV]][%[[I:.*]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK:   scf.if %{{.*}} -> (f32) {
// CHECK:     memref.load %[[XV]][%[[I]]] : memref<?xf32>
// CHECK:   vector.from_elements {{.*}} : vector<4xf32>
// CHECK: %[[B:.*]] = scf.if
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : vector<4xf32>
// CHECK: scf.if
// CHECK:   vector.store %[[S]], %{{.*}}[%[[I]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK:   memref.store
// CHECK: gpu.return
// CHECK-NOT: {{^ *(%[^ ]* = )?tile\.}}
tile.func @add(%x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c512 = arith.constant 512 : i32
  %o = arith.muli %pid, %c512 : i32
  %off = arith.index_cast %o : i32 to index
  %a = tile.memref_load %x[%off] : memref<?xf32> -> tensor<512xf32, #b>
  %b = tile.memref_load %y[%off] : memref<?xf32> -> tensor<512xf32, #b>
  %s = arith.addf %a, %b : tensor<512xf32, #b>
  tile.memref_store %z[%off], %s : memref<?xf32>, tensor<512xf32, #b>
  tile.return
}

// -----

// Static shapes and in-bounds windows: the bounds checks fold away (thread
// ids are bounded by the known block size) and only vector accesses remain.
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: gpu.func @copy_static(
// CHECK-SAME: %[[X:.*]]: memref<1024xf32>, %[[Y:.*]]: memref<1024xf32>)
// CHECK-NOT: scf.if
// CHECK: %[[V0:.*]] = vector.load %[[X]][%[[I0:.*]]] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK: %[[I1:.*]] = arith.addi %[[I0]], %c512
// CHECK: %[[V1:.*]] = vector.load %[[X]][%[[I1]]] {alignment = 16 : i64}
// CHECK: vector.store %[[V0]], %[[Y]][%[[I0]]] {alignment = 16 : i64}
// CHECK: vector.store %[[V1]], %[[Y]][%[[I1]]] {alignment = 16 : i64}
// CHECK-NOT: scf.if
// CHECK: gpu.return
tile.func @copy_static(%x: memref<1024xf32>, %y: memref<1024xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %v = tile.memref_load %x[%c0] : memref<1024xf32> -> tensor<1024xf32, #b>
  tile.memref_store %y[%c0], %v : memref<1024xf32>, tensor<1024xf32, #b>
  tile.return
}

// -----

// Masked load with `other` and masked store: the fast path also needs the
// whole run's mask (vector.reduction <and>); masked-off lanes take `other`.
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// CHECK-LABEL: gpu.func @masked_tail(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: %[[M:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[ALL:.*]] = vector.reduction <and>, %[[M]] : vector<4xi1> into i1
// CHECK: %[[FAST:.*]] = arith.andi %{{.*}}, %[[ALL]] : i1
// CHECK: scf.if %[[FAST]] -> (vector<4xf32>) {
// CHECK:   vector.load {{.*}} {alignment = 16 : i64}
// CHECK: } else {
// CHECK:   %[[M0:.*]] = vector.extract %[[M]][0] : i1 from vector<4xi1>
// CHECK:   scf.if %{{.*}} -> (f32) {
// CHECK:     memref.load
// CHECK:   } else {
// CHECK:     scf.yield %{{.*}} : f32
// CHECK: scf.if
// CHECK:   vector.store
// CHECK: memref.store
tile.func @masked_tail(%x: memref<?xf32>, %y: memref<?xf32>, %n: i32) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c256 = arith.constant 256 : i32
  %o = arith.muli %pid, %c256 : i32
  %off = arith.index_cast %o : i32 to index
  %r = tile.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #b>
  %os = tile.splat %o : i32 -> tensor<256xi32, #b>
  %idx = arith.addi %os, %r : tensor<256xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
  %m = arith.cmpi slt, %idx, %ns : tensor<256xi32, #b>
  %other = arith.constant dense<-1.0> : tensor<256xf32, #b>
  %v = tile.memref_load %x[%off], %m, %other : memref<?xf32> -> tensor<256xf32, #b>
  tile.memref_store %y[%off], %v, %m : memref<?xf32>, tensor<256xf32, #b>
  tile.return
}

// -----

// f16: 8 elements per thread are one 16-byte access.
#b = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>

// CHECK-LABEL: gpu.func @half(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<256xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<256xf16>, vector<8xf16>
tile.func @half(%x: memref<256xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %v = tile.memref_load %x[%c0] : memref<256xf16> -> tensor<256xf16, #b>
  %w = arith.addf %v, %v : tensor<256xf16, #b>
  tile.memref_store %x[%c0], %w : memref<256xf16>, tensor<256xf16, #b>
  tile.return
}
