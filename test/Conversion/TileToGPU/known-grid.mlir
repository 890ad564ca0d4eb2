// A static grid (tcc.grid, what the launch spec launches) becomes the
// gpu.func's known_grid_size, which bounds gpu.block_id: the range analysis
// then folds the bounds tests of blocks that cannot run past their memrefs.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// 4 blocks of 512 over 2048 elements: every block in bounds, no test.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: gpu.func @exact(
// CHECK-SAME: known_grid_size = array<i32: 4, 1, 1>
// CHECK-NOT: scf.if
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x2048xf32>, vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x2048xf32>, vector<4xf32>
// CHECK: gpu.return
tile.func @exact(%x: memref<1x2048xf32>, %y: memref<1x2048xf32>) attributes {grid_rank = 1 : i32, tcc.grid = array<i64: 4, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %n0 = arith.muli %p, %c512 : index
  %a = tile.memref_load %x[%c0, %n0] : memref<1x2048xf32> -> tensor<1x512xf32, #b>
  tile.memref_store %y[%c0, %n0], %a : memref<1x2048xf32>, tensor<1x512xf32, #b>
  tile.return
}

// -----

// 4 blocks of 512 over 2000 elements: the last one runs past, tested.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: gpu.func @ragged(
// CHECK-SAME: known_grid_size = array<i32: 4, 1, 1>
// CHECK: %[[IN:.*]] = arith.andi
// CHECK: scf.if %[[IN]] -> (vector<4xf32>)
// CHECK: vector.load %arg0
tile.func @ragged(%x: memref<1x2000xf32>, %y: memref<1x2000xf32>) attributes {grid_rank = 1 : i32, tcc.grid = array<i64: 4, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %n0 = arith.muli %p, %c512 : index
  %a = tile.memref_load %x[%c0, %n0] : memref<1x2000xf32> -> tensor<1x512xf32, #b>
  tile.memref_store %y[%c0, %n0], %a : memref<1x2000xf32>, tensor<1x512xf32, #b>
  tile.return
}

// -----

// No static grid (a tile program without tcc.grid, or a grid of run-time
// sizes): nothing bounds the block ids, every access is tested.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: gpu.func @unknown_grid(
// CHECK-NOT: known_grid_size
// CHECK: scf.if
// CHECK: vector.load %arg0
tile.func @unknown_grid(%x: memref<1x2048xf32>, %y: memref<1x2048xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %n0 = arith.muli %p, %c512 : index
  %a = tile.memref_load %x[%c0, %n0] : memref<1x2048xf32> -> tensor<1x512xf32, #b>
  tile.memref_store %y[%c0, %n0], %a : memref<1x2048xf32>, tensor<1x512xf32, #b>
  tile.return
}
