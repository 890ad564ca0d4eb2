// scf.for / scf.if carrying tiles, and pointer-form loads/stores.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -split-input-file | FileCheck %s

#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>

// CHECK-LABEL: gpu.func @ptr_loop(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32)
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: %[[M:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: %[[XB:.*]] = vector.broadcast %[[X]] : !llvm.ptr<1> to vector<2x!llvm.ptr<1>>
// CHECK: %[[XP:.*]] = llvm.getelementptr %[[XB]][%{{.*}}] : (vector<2x!llvm.ptr<1>>, vector<2xi32>) -> vector<2x!llvm.ptr<1>>, f32
// The pointers of each thread's 2 elements are consecutive (arange + splat):
// one 8-byte vector load when aligned and unmasked.
// CHECK: %[[P0:.*]] = vector.extract %[[XP]][0] : !llvm.ptr<1> from vector<2x!llvm.ptr<1>>
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[P0]] : !llvm.ptr<1> to i64
// CHECK: %[[LOW:.*]] = arith.andi %[[ADDR]], %c7_i64 : i64
// CHECK: %[[AL:.*]] = arith.cmpi eq, %[[LOW]], %c0_i64 : i64
// CHECK: %[[ALL:.*]] = vector.reduction <and>, %[[M]] : vector<2xi1> into i1
// CHECK: %[[FAST:.*]] = arith.andi %[[AL]], %[[ALL]] : i1
// CHECK: %[[V:.*]] = scf.if %[[FAST]] -> (vector<2xf32>) {
// CHECK:   llvm.load %[[P0]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: } else {
// CHECK:   %[[M0:.*]] = vector.extract %[[M]][0] : i1 from vector<2xi1>
// CHECK:   scf.if %[[M0]] -> (f32) {
// CHECK:     llvm.load %[[P0]] : !llvm.ptr<1> -> f32
// CHECK:   } else {
// CHECK:     scf.yield %cst : f32
// CHECK:   vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[V]]) -> (vector<2xf32>) {
// CHECK:   %[[A2:.*]] = arith.mulf %[[A]], %[[V]] : vector<2xf32>
// CHECK:   %[[A3:.*]] = scf.if %{{.*}} -> (vector<2xf32>) {
// CHECK:     llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK:     %[[S:.*]] = arith.addf %[[A2]], %{{.*}} : vector<2xf32>
// CHECK:     scf.yield %[[S]] : vector<2xf32>
// CHECK:   } else {
// CHECK:     scf.yield %[[A]] : vector<2xf32>
// CHECK:   scf.yield %[[A3]] : vector<2xf32>
// CHECK: scf.if %{{.*}} {
// CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK:   scf.if %{{.*}} {
// CHECK:     llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
tile.func @ptr_loop(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c128 = arith.constant 128 : i32
  %o = arith.muli %pid, %c128 : i32
  %r = tile.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #b>
  %os = tile.splat %o : i32 -> tensor<128xi32, #b>
  %offs = arith.addi %os, %r : tensor<128xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<128xi32, #b>
  %m = arith.cmpi slt, %offs, %ns : tensor<128xi32, #b>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  %zero = arith.constant dense<0.0> : tensor<128xf32, #b>
  %v = tile.load %xp, %m, %zero : tensor<128x!tile.ptr<f32>, #b>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %acc = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %v) -> (tensor<128xf32, #b>) {
    %a2 = arith.mulf %a, %v : tensor<128xf32, #b>
    %odd = arith.cmpi eq, %i, %c1 : index
    %a3 = scf.if %odd -> (tensor<128xf32, #b>) {
      %l = tile.load %xp : tensor<128x!tile.ptr<f32>, #b>
      %s = arith.addf %a2, %l : tensor<128xf32, #b>
      scf.yield %s : tensor<128xf32, #b>
    } else {
      scf.yield %a : tensor<128xf32, #b>
    }
    scf.yield %a3 : tensor<128xf32, #b>
  }
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %yp = tile.addptr %yb, %offs : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
  tile.store %yp, %acc, %m : tensor<128x!tile.ptr<f32>, #b>
  tile.return
}

// -----

// Scalar pointer accesses and grid queries.
// CHECK-LABEL: gpu.func @scalar(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr<1>
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: arith.index_castui %[[BY]] : index to i32
// CHECK: %[[GX:.*]] = gpu.grid_dim x
// CHECK: arith.index_castui %[[GX]] : index to i32
// CHECK: %[[Q:.*]] = llvm.getelementptr %[[P]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
// CHECK: llvm.store %{{.*}}, %[[Q]] : i32, !llvm.ptr<1>
tile.func @scalar(%p: !tile.ptr<i32>) attributes {grid_rank = 2 : i32} {
  %y = tile.program_id 1 : i32
  %n = tile.num_programs 0 : i32
  %q = tile.addptr %p, %y : !tile.ptr<i32>, i32
  tile.store %q, %n : !tile.ptr<i32>
  tile.return
}

// -----

// Contiguity of 2-D pointer tiles: rows * stride + cols is contiguous along
// the fastest dim (cols), so each thread's 4 f32 go in one 16-byte access;
// strided columns (cols * 2) are not, and go element by element.
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #b}>
#cols = #tile.slice<{dim = 0, parent = #b}>

// CHECK-LABEL: gpu.func @ptr_2d(
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK-NOT: vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
tile.func @ptr_2d(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %stride: i32) attributes {grid_rank = 1 : i32} {
  %r = tile.arange {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #rows>
  %c = tile.arange {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #cols>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #rows> -> tensor<16x1xi32, #b>
  %s = tile.splat %stride : i32 -> tensor<16x1xi32, #b>
  %rs = arith.muli %r2, %s : tensor<16x1xi32, #b>
  %rb = tile.broadcast %rs : tensor<16x1xi32, #b> -> tensor<16x32xi32, #b>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #b>
  %cb = tile.broadcast %c2 : tensor<1x32xi32, #b> -> tensor<16x32xi32, #b>
  %off = arith.addi %rb, %cb : tensor<16x32xi32, #b>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xb, %off : tensor<16x32x!tile.ptr<f32>, #b>, tensor<16x32xi32, #b>
  %v = tile.load %xp : tensor<16x32x!tile.ptr<f32>, #b>
  %two = arith.constant dense<2> : tensor<16x32xi32, #b>
  %strided = arith.muli %cb, %two : tensor<16x32xi32, #b>
  %yoff = arith.addi %rb, %strided : tensor<16x32xi32, #b>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>, #b>
  %yp = tile.addptr %yb, %yoff : tensor<16x32x!tile.ptr<f32>, #b>, tensor<16x32xi32, #b>
  tile.store %yp, %v : tensor<16x32x!tile.ptr<f32>, #b>
  tile.return
}
