// End to end through upstream to the LLVM dialect with ROCDL ops, 64-wide
// warps (CDNA3): nothing of tile, gpu, vector, scf, memref or math is left,
// no OCML call either.
// RUN: tcc-opt %s --pass-pipeline='builtin.module(tcc-set-target{arch=gfx942},convert-tile-to-gpu,gpu.module(expand-strided-metadata,convert-scf-to-cf,convert-vector-to-llvm,convert-gpu-to-rocdl{chipset=gfx942 use-bare-ptr-memref-call-conv=1},canonicalize,cse),reconcile-unrealized-casts)' | FileCheck %s

// CHECK: module attributes {gpu.container_module, tile.target = #tile.target<arch = "gfx942"
// CHECK: gpu.module @softmax_module
// CHECK: llvm.mlir.global internal @__wg_softmax_0() {addr_space = 3 : i32{{.*}}} : !llvm.array<4 x f32>
// CHECK: llvm.func @softmax(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-SAME: rocdl.kernel
// CHECK: rocdl.workgroup.id.x
// CHECK: rocdl.workitem.id.x
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK: rocdl.ds_swizzle
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: rocdl.barrier
// CHECK: llvm.intr.fma
// CHECK: llvm.call_intrinsic "llvm.sqrt"
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK-NOT: {{^ *(%[^ ]* = )?"?(tile|gpu|vector|scf|memref|math|arith)\.}}
// CHECK: llvm.return
// CHECK: gpu.module @add_module
// CHECK: llvm.func @add(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: __ocml_
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK-NOT: {{^ *(%[^ ]* = )?"?(tile|gpu|vector|scf|memref|math|arith)\.}}

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
#col = #tile.slice<{dim = 1, parent = #b}>
#v = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>

tile.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : i32
  %r = arith.muli %pid, %c2 : i32
  %row = arith.index_cast %r : i32 to index
  %m = arith.constant dense<true> : tensor<2x512xi1, #b>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x512xf32, #b>
  %t = tile.memref_load %x[%row, %c0], %m, %ninf : memref<?x?xf32> -> tensor<2x512xf32, #b>
  %mx = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %v = arith.maximumf %a, %b : f32
    tile.reduce.return %v : f32
  }) : tensor<2x512xf32, #b> -> tensor<2xf32, #col>
  %me = tile.expand_dims %mx {axis = 1 : i32} : tensor<2xf32, #col> -> tensor<2x1xf32, #b>
  %mb = tile.broadcast %me : tensor<2x1xf32, #b> -> tensor<2x512xf32, #b>
  %d = arith.subf %t, %mb : tensor<2x512xf32, #b>
  %e = math.exp %d : tensor<2x512xf32, #b>
  %s = tile.reduce %e {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %v = arith.addf %a, %b : f32
    tile.reduce.return %v : f32
  }) : tensor<2x512xf32, #b> -> tensor<2xf32, #col>
  %se = tile.expand_dims %s {axis = 1 : i32} : tensor<2xf32, #col> -> tensor<2x1xf32, #b>
  %sb = tile.broadcast %se : tensor<2x1xf32, #b> -> tensor<2x512xf32, #b>
  %o = arith.divf %e, %sb : tensor<2x512xf32, #b>
  %q = math.sqrt %o : tensor<2x512xf32, #b>
  tile.memref_store %y[%row, %c0], %q : memref<?x?xf32>, tensor<2x512xf32, #b>
  tile.return
}

tile.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %n: i32) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c512 = arith.constant 512 : i32
  %o = arith.muli %pid, %c512 : i32
  %r = tile.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #v>
  %os = tile.splat %o : i32 -> tensor<512xi32, #v>
  %offs = arith.addi %os, %r : tensor<512xi32, #v>
  %ns = tile.splat %n : i32 -> tensor<512xi32, #v>
  %m = arith.cmpi slt, %offs, %ns : tensor<512xi32, #v>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #v>
  %xp = tile.addptr %xb, %offs : tensor<512x!tile.ptr<f32>, #v>, tensor<512xi32, #v>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #v>
  %yp = tile.addptr %yb, %offs : tensor<512x!tile.ptr<f32>, #v>, tensor<512xi32, #v>
  %a = tile.load %xp, %m : tensor<512x!tile.ptr<f32>, #v>
  %b = tile.load %yp, %m : tensor<512x!tile.ptr<f32>, #v>
  %s = arith.addf %a, %b : tensor<512xf32, #v>
  %zb = tile.splat %z : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #v>
  %zp = tile.addptr %zb, %offs : tensor<512x!tile.ptr<f32>, #v>, tensor<512xi32, #v>
  tile.store %zp, %s, %m : tensor<512x!tile.ptr<f32>, #v>
  tile.return
}
