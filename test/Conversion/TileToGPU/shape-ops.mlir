// Shape ops: expand_dims of a slice is free, broadcast is a register
// shuffle, arange/splat build per-thread coordinates, convert_layout between
// distinct layouts and reshape go through workgroup memory.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -split-input-file | FileCheck %s

// 2-D bias add: a row vector (slice of dim 0) broadcast over 64 rows.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 0, parent = #b}>

// CHECK-LABEL: gpu.func @bias_add(
// CHECK-SAME: %[[X:.*]]: memref<64x128xf32>, %[[BIAS:.*]]: memref<128xf32>, %[[Y:.*]]: memref<64x128xf32>)
// CHECK-NOT: scf.if
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK: %[[L1:.*]] = arith.remui %[[LANE]], %c8 : index
// CHECK: %[[COL:.*]] = arith.muli %[[L1]], %c4 : index
// CHECK: vector.load %[[BIAS]][%[[COL]]] {alignment = 16 : i64} : memref<128xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.load %[[BIAS]]
// CHECK: %[[BB:.*]] = vector.shuffle %[[BV:.*]], %[[BV]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, {{.*}}] : vector<16xf32>, vector<16xf32>
// CHECK: %[[L0:.*]] = arith.divui %[[LANE]], %c8 : index
// CHECK: vector.load %[[X]][%[[R:.*]], %[[COL]]] {alignment = 16 : i64} : memref<64x128xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BB]] : vector<64xf32>
// CHECK: vector.extract_strided_slice %[[SUM]] {offsets = [0], sizes = [4], strides = [1]}
// CHECK: vector.store %{{.*}}, %[[Y]][%[[R]], %[[COL]]] {alignment = 16 : i64}
// CHECK-COUNT-15: vector.store
// CHECK-NOT: scf.if
// CHECK: gpu.return
tile.func @bias_add(%x: memref<64x128xf32>, %bias: memref<128xf32>, %y: memref<64x128xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %bv = tile.memref_load %bias[%c0] : memref<128xf32> -> tensor<128xf32, #row>
  %e = tile.expand_dims %bv {axis = 0 : i32} : tensor<128xf32, #row> -> tensor<1x128xf32, #b>
  %bb = tile.broadcast %e : tensor<1x128xf32, #b> -> tensor<64x128xf32, #b>
  %a = tile.memref_load %x[%c0, %c0] : memref<64x128xf32> -> tensor<64x128xf32, #b>
  %s = arith.addf %a, %bb : tensor<64x128xf32, #b>
  tile.memref_store %y[%c0, %c0], %s : memref<64x128xf32>, tensor<64x128xf32, #b>
  tile.return
}

// -----

// arange: thread base coordinate + the compile-time offsets of its elements
// (2 per thread, and the layout repeats twice over 256 elements).
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// CHECK-LABEL: gpu.func @arange(
// CHECK-DAG: %[[OFFS:.*]] = arith.constant dense<[16, 17, 144, 145]> : vector<4xi32>
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BASE:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[BASE]] : i32 to vector<4xi32>
// CHECK: %[[R:.*]] = arith.addi %[[SPLAT]], %[[OFFS]] : vector<4xi32>
// CHECK: %[[P:.*]] = vector.broadcast %{{.*}} : !llvm.ptr<1> to vector<4x!llvm.ptr<1>>
// CHECK: llvm.getelementptr %[[P]][%[[R]]] : (vector<4x!llvm.ptr<1>>, vector<4xi32>) -> vector<4x!llvm.ptr<1>>, i32
tile.func @arange(%out: !tile.ptr<i32>) attributes {grid_rank = 1 : i32} {
  %r = tile.arange {start = 16 : i32, end = 272 : i32} : tensor<256xi32, #b>
  %p = tile.splat %out : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #b>
  %q = tile.addptr %p, %r : tensor<256x!tile.ptr<i32>, #b>, tensor<256xi32, #b>
  tile.store %q, %r : tensor<256x!tile.ptr<i32>, #b>
  tile.return
}

// -----

// A tile smaller than the layout's coverage: 64 elements over 128 threads
// with 1 each, so warps 2 and 3 hold replicas (coordinates wrap modulo 64).
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// CHECK-LABEL: gpu.func @replicated(
// CHECK: %[[T:.*]] = arith.addi
// CHECK: %[[C:.*]] = arith.remui %[[T]], %c64 : index
// CHECK: memref.load %{{.*}}[%[[C]]] : memref<64xf32>
tile.func @replicated(%x: memref<64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %v = tile.memref_load %x[%c0] : memref<64xf32> -> tensor<64xf32, #b>
  tile.memref_store %x[%c0], %v : memref<64xf32>, tensor<64xf32, #b>
  tile.return
}

// -----

// convert_layout: identical distributions are free; others round-trip
// through a workgroup buffer of the tile's size, between barriers. Between
// layouts whose threads run along different dims (a transpose) each row of
// the buffer is padded by one bank (32 x 33 floats), so lanes walking down a
// column do not hit one bank.
#a = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
#t = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]}>

// CHECK-LABEL: gpu.func @transpose_layout(
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<1056xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[PITCH:.*]] = arith.constant 33 : index
// CHECK-COUNT-8: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<1056xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[BUF]][%{{.*}}] : memref<1056xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.return
tile.func @transpose_layout(%x: memref<32x32xf32>, %y: memref<32x32xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %v = tile.memref_load %x[%c0, %c0] : memref<32x32xf32> -> tensor<32x32xf32, #a>
  %same = tile.convert_layout %v : tensor<32x32xf32, #a> -> tensor<32x32xf32, #a>
  %w = tile.convert_layout %same : tensor<32x32xf32, #a> -> tensor<32x32xf32, #t>
  tile.memref_store %y[%c0, %c0], %w : memref<32x32xf32>, tensor<32x32xf32, #t>
  tile.return
}

// -----

// reshape: row-major order through workgroup memory; i1 is stored as i8.
#b1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @reshape(
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<128xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK: gpu.barrier
// CHECK: arith.trunci %{{.*}} : i8 to i1
// CHECK: gpu.barrier
tile.func @reshape(%x: memref<128xi32>, %y: memref<4x32xi32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0> : tensor<128xi32, #b1>
  %v = tile.memref_load %x[%c0] : memref<128xi32> -> tensor<128xi32, #b1>
  %m = arith.cmpi sgt, %v, %zero : tensor<128xi32, #b1>
  %m2 = tile.reshape %m : tensor<128xi1, #b1> -> tensor<4x32xi1, #b2>
  %one = arith.constant dense<1> : tensor<4x32xi32, #b2>
  %z2 = arith.constant dense<0> : tensor<4x32xi32, #b2>
  %s = arith.select %m2, %one, %z2 : tensor<4x32xi1, #b2>, tensor<4x32xi32, #b2>
  tile.memref_store %y[%c0, %c0], %s : memref<4x32xi32>, tensor<4x32xi32, #b2>
  tile.return
}
