// tile.reduce: within-thread folds, gpu.shuffle xor butterflies over the
// lanes along the axis, then workgroup memory across the warps along it.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -split-input-file | FileCheck %s

// Row sum of 16x256: 4 per thread along the row, 16 lanes (xor 1..8), 4 warps.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #b}>

// CHECK-LABEL: gpu.func @row_sum(
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[T:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<16x256xf32>, vector<4xf32>
// CHECK: %[[E0:.*]] = vector.extract %[[T]][0] : f32 from vector<4xf32>
// CHECK: %[[E1:.*]] = vector.extract %[[T]][1] : f32 from vector<4xf32>
// CHECK: %[[S01:.*]] = arith.addf %[[E0]], %[[E1]] : f32
// CHECK: %[[S:.*]], %{{.*}} = gpu.shuffle xor %[[P:.*]], %c1_i32, %c32_i32 : f32
// CHECK: arith.addf %[[P]], %[[S]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[BUF]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<16xf32>
tile.func @row_sum(%x: memref<16x256xf32>, %y: memref<16xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0, %c0] : memref<16x256xf32> -> tensor<16x256xf32, #b>
  %s = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }) : tensor<16x256xf32, #b> -> tensor<16xf32, #rows>
  tile.memref_store %y[%c0], %s : memref<16xf32>, tensor<16xf32, #rows>
  tile.return
}

// -----

// Column max of 64x32 whose axis lies within the warps (lanes along dim 0 at
// lane-id stride 8): shuffles xor 8 and 16 only, no workgroup memory.
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#cols = #tile.slice<{dim = 0, parent = #b}>

// CHECK-LABEL: gpu.func @col_max(
// CHECK-NOT: workgroup
// CHECK: arith.maximumf
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.func @col_max(%x: memref<64x32xf32>, %y: memref<32xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0, %c0] : memref<64x32xf32> -> tensor<64x32xf32, #b>
  %m = tile.reduce %t {axis = 0 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.reduce.return %r : f32
  }) : tensor<64x32xf32, #b> -> tensor<32xf32, #cols>
  tile.memref_store %y[%c0], %m : memref<32xf32>, tensor<32xf32, #cols>
  tile.return
}

// -----

// 1-D reduce to a scalar; f16 is shuffled through i32 and i64 as two halves.
// With 64-wide warps (AMD CDNA) the butterfly has 6 steps.
#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// CHECK-LABEL: gpu.func @scalar_sums(
// CHECK-SAME: workgroup(%{{.*}} : memref<2xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<2xi64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: gpu.barrier
// CHECK: arith.shrui %{{.*}}, %c32_i64 : i64
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: gpu.barrier
tile.func @scalar_sums(%x: memref<128xf16>, %i: memref<128xi64>, %out: !tile.ptr<f16>, %iout: !tile.ptr<i64>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0] : memref<128xf16> -> tensor<128xf16, #b>
  %s = tile.reduce %t {axis = 0 : i32} ({
  ^bb0(%a: f16, %b: f16):
    %r = arith.addf %a, %b : f16
    tile.reduce.return %r : f16
  }) : tensor<128xf16, #b> -> f16
  tile.store %out, %s : !tile.ptr<f16>
  %ti = tile.memref_load %i[%c0] : memref<128xi64> -> tensor<128xi64, #b>
  %si = tile.reduce %ti {axis = 0 : i32} ({
  ^bb0(%a: i64, %b: i64):
    %r = arith.maxsi %a, %b : i64
    tile.reduce.return %r : i64
  }) : tensor<128xi64, #b> -> i64
  tile.store %iout, %si : !tile.ptr<i64>
  tile.return
}


// -----

// An argmax: values and their i64 indices reduced together (one tile.reduce
// of two operands). Each combine step is the combiner on (value, index)
// pairs: within the thread, then per xor butterfly both the value (f32) and
// the index (i64: two 32-bit halves) are shuffled and combined; across the
// 4 warps each goes to its type's workgroup buffer (f32 and i64, 16 rows x
// 4 warps each) and both are read back per warp.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #b}>

// CHECK-LABEL: gpu.func @row_argmax(
// CHECK-SAME: workgroup(%[[VBUF:.*]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[IBUF:.*]] : memref<64xi64, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %[[T:.*]] = vector.load %{{.*}} : memref<16x256xf32>, vector<4xf32>
// CHECK: %[[IDX:.*]] = arith.extsi %{{.*}} : vector<32xi32> to vector<32xi64>
// CHECK: %[[E0:.*]] = vector.extract %[[T]][0] : f32 from vector<4xf32>
// CHECK: %[[I0:.*]] = vector.extract %[[IDX]][0] : i64 from vector<32xi64>
// CHECK: %[[E1:.*]] = vector.extract %[[T]][1] : f32 from vector<4xf32>
// CHECK: %[[I1:.*]] = vector.extract %[[IDX]][1] : i64 from vector<32xi64>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[E1]], %[[E0]] : f32
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[E1]], %[[E0]] : f32
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[I1]], %[[I0]] : i64
// CHECK: %[[TIE:.*]] = arith.andi %[[EQ]], %[[LT]] : i1
// CHECK: %[[TAKE:.*]] = arith.ori %[[GT]], %[[TIE]] : i1
// CHECK: arith.select %[[TAKE]], %[[E1]], %[[E0]] : f32
// CHECK: arith.select %[[TAKE]], %[[I1]], %[[I0]] : i64
// CHECK: %[[SV:.*]], %{{.*}} = gpu.shuffle xor %[[V:.*]], %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK: arith.cmpf ogt, %[[SV]], %[[V]] : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK: memref.store %{{.*}}, %[[VBUF]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[IBUF]][%{{.*}}] : memref<64xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[VBUF]]
// CHECK: memref.load %[[IBUF]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<16xf32>
// CHECK-COUNT-8: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<16xi64>
tile.func @row_argmax(%x: memref<16x256xf32>, %v: memref<16xf32>, %i: memref<16xi64>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0, %c0] : memref<16x256xf32> -> tensor<16x256xf32, #b>
  %cols = tile.arange {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #tile.slice<{dim = 0, parent = #b}>>
  %row = tile.expand_dims %cols {axis = 0 : i32} : tensor<256xi32, #tile.slice<{dim = 0, parent = #b}>> -> tensor<1x256xi32, #b>
  %all = tile.broadcast %row : tensor<1x256xi32, #b> -> tensor<16x256xi32, #b>
  %idx = arith.extsi %all : tensor<16x256xi32, #b> to tensor<16x256xi64, #b>
  %m:2 = tile.reduce %t, %idx {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i64, %c: f32, %ci: i64):
    %gt = arith.cmpf ogt, %c, %a : f32
    %eq = arith.cmpf oeq, %c, %a : f32
    %lt = arith.cmpi slt, %ci, %ai : i64
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %c, %a : f32
    %ri = arith.select %take, %ci, %ai : i64
    tile.reduce.return %rv, %ri : f32, i64
  }) : tensor<16x256xf32, #b>, tensor<16x256xi64, #b> -> tensor<16xf32, #rows>, tensor<16xi64, #rows>
  tile.memref_store %v[%c0], %m#0 : memref<16xf32>, tensor<16xf32, #rows>
  tile.memref_store %i[%c0], %m#1 : memref<16xi64>, tensor<16xi64, #rows>
  tile.return
}

// -----

// Two operands of one type (an i32 argmax of i32 indices) share its
// workgroup buffer, the second's warps x rows slice after the first's.
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #b}>

// CHECK-LABEL: gpu.func @shared_scratch(
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<8xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: %[[V:.*]] = arith.select %{{.*}} : i32
// CHECK: %[[I:.*]] = arith.select %{{.*}} : i32
// CHECK: memref.store %[[V]], %[[BUF]][%[[W:.*]]] : memref<8xi32
// CHECK: %[[AT:.*]] = arith.addi %[[W]], %c4 : index
// CHECK: memref.store %[[I]], %[[BUF]][%[[AT]]] : memref<8xi32
// CHECK: gpu.barrier
// CHECK: memref.load %[[BUF]][%c0]
// CHECK: memref.load %[[BUF]][%c4]
// CHECK: memref.load %[[BUF]][%c1]
// CHECK: memref.load %[[BUF]][%c5]
tile.func @shared_scratch(%x: memref<1x128xi32>, %y: memref<1xi32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0, %c0] : memref<1x128xi32> -> tensor<1x128xi32, #b>
  %cols = tile.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #b}>>
  %idx = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #tile.slice<{dim = 0, parent = #b}>> -> tensor<1x128xi32, #b>
  %m:2 = tile.reduce %t, %idx {axis = 1 : i32} ({
  ^bb0(%a: i32, %ai: i32, %c: i32, %ci: i32):
    %gt = arith.cmpi sgt, %c, %a : i32
    %eq = arith.cmpi eq, %c, %a : i32
    %lt = arith.cmpi slt, %ci, %ai : i32
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %rv = arith.select %take, %c, %a : i32
    %ri = arith.select %take, %ci, %ai : i32
    tile.reduce.return %rv, %ri : i32, i32
  }) : tensor<1x128xi32, #b>, tensor<1x128xi32, #b> -> tensor<1xi32, #rows>, tensor<1xi32, #rows>
  tile.memref_store %y[%c0], %m#1 : memref<1xi32>, tensor<1xi32, #rows>
  tile.return
}
