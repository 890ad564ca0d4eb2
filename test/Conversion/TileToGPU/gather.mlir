// tile.memref_gather: one scalar memref.load per element of the thread,
// under its bounds test (index < size, zero otherwise); the test folds away
// where the index range is known (i % 777 on a 777-element bias). Runs of
// indices the contiguity analysis proves consecutive are one vector load
// when aligned and in bounds (last case). Next to
// it the flat stream's window loads and stores stay 16-byte vectors
// (view = flat_gather kernels, ElementwiseKernel.cpp). The lowering is
// target-neutral (gfx942 runs it in test/python/test_flat_gather.py).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// A 1000x777 stream plus a row bias, as convert-linalg-to-tile builds it:
// x and the result as [1, 777000] in vector<4xf32> runs, the bias at i % 777.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#s = #tile.slice<{dim = 0, parent = #b}>
// CHECK-LABEL: gpu.func @bias(
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x777000xf32>, vector<4xf32>
// CHECK: %[[I:.*]] = arith.remui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[E0:.*]] = vector.extract %[[I]][0] : i32 from vector<4xi32>
// CHECK: %[[X0:.*]] = arith.index_castui %[[E0]] : i32 to index
// CHECK-NOT: scf.if
// CHECK: memref.load %arg1[%[[X0]]] : memref<777xf32>
// CHECK-COUNT-3: memref.load %arg1[%{{.*}}] : memref<777xf32>
// CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x777000xf32>, vector<4xf32>
tile.func @bias(%x: memref<1000x777xf32>, %bias: memref<777xf32>, %y: memref<1000x777xf32>) attributes {grid_rank = 1 : i32} {
  %c777 = arith.constant 777 : i32
  %c512 = arith.constant 512 : index
  %c0 = arith.constant 0 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %n0 = arith.muli %p, %c512 : index
  %xf = memref.collapse_shape %x [[0, 1]] : memref<1000x777xf32> into memref<777000xf32>
  %xv = memref.expand_shape %xf [[0, 1]] output_shape [1, 777000] : memref<777000xf32> into memref<1x777000xf32>
  %a = tile.memref_load %xv[%c0, %n0] : memref<1x777000xf32> -> tensor<1x512xf32, #b>
  %j = tile.arange {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #s>
  %n032 = arith.index_cast %n0 : index to i32
  %n0s = tile.splat %n032 : i32 -> tensor<512xi32, #s>
  %i1 = arith.addi %j, %n0s : tensor<512xi32, #s>
  %i = tile.expand_dims %i1 {axis = 0 : i32} : tensor<512xi32, #s> -> tensor<1x512xi32, #b>
  %n = tile.splat %c777 : i32 -> tensor<1x512xi32, #b>
  %k = arith.remui %i, %n : tensor<1x512xi32, #b>
  %g = tile.memref_gather %bias[%k] : memref<777xf32>, tensor<1x512xi32, #b> -> tensor<1x512xf32, #b>
  %r = arith.addf %a, %g : tensor<1x512xf32, #b>
  %yf = memref.collapse_shape %y [[0, 1]] : memref<1000x777xf32> into memref<777000xf32>
  %yv = memref.expand_shape %yf [[0, 1]] output_shape [1, 777000] : memref<777000xf32> into memref<1x777000xf32>
  tile.memref_store %yv[%c0, %n0], %r : memref<1x777000xf32>, tensor<1x512xf32, #b>
  tile.return
}

// -----

// Indices of unknown range (a column gather at i / 13, past the end in the
// last block): each element is loaded only in bounds, zero otherwise.
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: gpu.func @column(
// CHECK: arith.divui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c7 : index
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK:   memref.load %arg0[%{{.*}}] : memref<7xf32>
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : f32
// CHECK-COUNT-3: memref.load %arg0[%{{.*}}] : memref<7xf32>
tile.func @column(%c: memref<7xf32>, %y: memref<128xf32>) attributes {grid_rank = 1 : i32} {
  %c13 = arith.constant 13 : i32
  %c0 = arith.constant 0 : index
  %j = tile.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b>
  %n = tile.splat %c13 : i32 -> tensor<128xi32, #b>
  %k = arith.divui %j, %n : tensor<128xi32, #b>
  %g = tile.memref_gather %c[%k] : memref<7xf32>, tensor<128xi32, #b> -> tensor<128xf32, #b>
  tile.memref_store %y[%c0], %g : memref<128xf32>, tensor<128xf32, #b>
  tile.return
}

// -----

// Indices in bounds by construction that no range analysis proves: the
// flat stream's wrapped row columns, min(c, c - 128) for c = (n0 % 128) + j
// (ElementwiseKernel.cpp). The gather says so (`in_bounds`): plain loads,
// no test.
#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: gpu.func @wrapped_in_bounds(
// CHECK: arith.minui %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT: scf.if
// CHECK-COUNT-4: memref.load %arg0[%{{.*}}] : memref<128xf32>
// CHECK-NOT: scf.if
// CHECK: gpu.return
tile.func @wrapped_in_bounds(%c: memref<128xf32>, %y: memref<128xf32>) attributes {grid_rank = 1 : i32} {
  %c128 = arith.constant 128 : i32
  %c0 = arith.constant 0 : index
  %pid = tile.program_id 0 : i32
  %start = arith.remui %pid, %c128 : i32
  %j = tile.arange {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b>
  %s = tile.splat %start : i32 -> tensor<128xi32, #b>
  %cols = arith.addi %j, %s : tensor<128xi32, #b>
  %n = tile.splat %c128 : i32 -> tensor<128xi32, #b>
  %w = arith.subi %cols, %n : tensor<128xi32, #b>
  %k = arith.minui %cols, %w : tensor<128xi32, #b>
  %g = tile.memref_gather %c[%k] {in_bounds} : memref<128xf32>, tensor<128xi32, #b> -> tensor<128xf32, #b>
  tile.memref_store %y[%c0], %g : memref<128xf32>, tensor<128xf32, #b>
  tile.return
}

// -----

// A row program's gather of a [S, D] table over [B * S, D] rows: (row % 8) *
// 64 + column, consecutive along the thread's 4 columns. Each run is one
// aligned vector.load when its first index is a multiple of 4 and the run
// ends in bounds, element by element (bounds-tested) otherwise.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #b}>
#cols = #tile.slice<{dim = 0, parent = #b}>
// CHECK-LABEL: gpu.func @table(
// CHECK: %[[START:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[REM:.*]] = arith.remui %[[START]], %c4 : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %c0 : index
// CHECK: %[[END:.*]] = arith.addi %[[START]], %c4 : index
// CHECK: arith.cmpi ule, %[[END]], %c512 : index
// CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
// CHECK:   vector.load %{{.*}}[%[[START]]] {alignment = 16 : i64} : memref<512xf32>, vector<4xf32>
// CHECK: } else {
// CHECK:   memref.load
// CHECK-COUNT-3: memref.load
// CHECK:   vector.from_elements
tile.func @table(%t: memref<8x64xf32>, %y: memref<32x64xf32>) attributes {grid_rank = 1 : i32} {
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c0 = arith.constant 0 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %c2 = arith.constant 2 : index
  %m0 = arith.muli %p, %c2 : index
  %m032 = arith.index_cast %m0 : index to i32
  %r0 = tile.arange {end = 2 : i32, start = 0 : i32} : tensor<2xi32, #rows>
  %m032s = tile.splat %m032 : i32 -> tensor<2xi32, #rows>
  %r1 = arith.addi %r0, %m032s : tensor<2xi32, #rows>
  %c8s = tile.splat %c8 : i32 -> tensor<2xi32, #rows>
  %s = arith.remui %r1, %c8s : tensor<2xi32, #rows>
  %se = tile.expand_dims %s {axis = 1 : i32} : tensor<2xi32, #rows> -> tensor<2x1xi32, #b>
  %sb = tile.broadcast %se : tensor<2x1xi32, #b> -> tensor<2x64xi32, #b>
  %c64s = tile.splat %c64 : i32 -> tensor<2x64xi32, #b>
  %row = arith.muli %sb, %c64s : tensor<2x64xi32, #b>
  %j = tile.arange {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #cols>
  %je = tile.expand_dims %j {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #b>
  %jb = tile.broadcast %je : tensor<1x64xi32, #b> -> tensor<2x64xi32, #b>
  %k = arith.addi %row, %jb : tensor<2x64xi32, #b>
  %tf = memref.collapse_shape %t [[0, 1]] : memref<8x64xf32> into memref<512xf32>
  %g = tile.memref_gather %tf[%k] : memref<512xf32>, tensor<2x64xi32, #b> -> tensor<2x64xf32, #b>
  tile.memref_store %y[%m0, %c0], %g : memref<32x64xf32>, tensor<2x64xf32, #b>
  tile.return
}
