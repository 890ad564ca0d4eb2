// tile.reduce with 64-wide warps (AMD CDNA): 6 butterfly steps.
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --convert-tile-to-gpu | FileCheck %s


#b = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
// CHECK-LABEL: gpu.func @wave64(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c64_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c32_i32, %c64_i32 : f32
// CHECK: gpu.barrier
tile.func @wave64(%x: memref<256xf32>, %out: !tile.ptr<f32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %x[%c0] : memref<256xf32> -> tensor<256xf32, #b>
  %s = tile.reduce %t {axis = 0 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }) : tensor<256xf32, #b> -> f32
  tile.store %out, %s : !tile.ptr<f32>
  tile.return
}
