// Softmax over rows: max-reduce, subtract, exp, sum-reduce, divide. Both
// reductions share one workgroup buffer; exp becomes a polynomial (the
// target's math = expanded) so no device-library call is needed; with
// math = libdevice (sm_90's own) it stays math.exp.
// RUN: tcc-opt %s --convert-tile-to-gpu | FileCheck %s
// RUN: sed 's/math = expanded/math = libdevice/' %s | tcc-opt --convert-tile-to-gpu | FileCheck %s --check-prefix=NOEXPAND

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]}>
#col = #tile.slice<{dim = 1, parent = #b}>

// CHECK-LABEL: gpu.func @softmax(
// CHECK-SAME: %{{.*}}: memref<1xf32>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: memref<1xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: workgroup(%[[BUF:.*]] : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: arith.maximumf
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[BUF]]
// CHECK: gpu.barrier
// CHECK: %[[MAX:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: arith.subf %{{.*}}, %[[MAX]] : vector<4xf32>
// CHECK-NOT: math.exp
// CHECK: llvm.intr.fma
// CHECK: arith.addf
// CHECK: gpu.shuffle xor
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: %[[SUM:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: arith.divf %{{.*}}, %[[SUM]] : vector<4xf32>
// CHECK: vector.store
// CHECK-NOT: math.
// NOEXPAND: math.exp %{{.*}} : vector<4xf32>
// sm_90 with expanded math (a hand-written target may differ from the table).
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = expanded>} {
tile.func @softmax(%x: memref<?x?xf32>, %y: memref<?x?xf32>) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : i32
  %r = arith.muli %pid, %c2 : i32
  %row = arith.index_cast %r : i32 to index
  %ninf = arith.constant dense<0xFF800000> : tensor<2x256xf32, #b>
  %m = arith.constant dense<true> : tensor<2x256xi1, #b>
  %t = tile.memref_load %x[%row, %c0], %m, %ninf : memref<?x?xf32> -> tensor<2x256xf32, #b>
  %mx = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %v = arith.maximumf %a, %b : f32
    tile.reduce.return %v : f32
  }) : tensor<2x256xf32, #b> -> tensor<2xf32, #col>
  %me = tile.expand_dims %mx {axis = 1 : i32} : tensor<2xf32, #col> -> tensor<2x1xf32, #b>
  %mb = tile.broadcast %me : tensor<2x1xf32, #b> -> tensor<2x256xf32, #b>
  %d = arith.subf %t, %mb : tensor<2x256xf32, #b>
  %e = math.exp %d : tensor<2x256xf32, #b>
  %s = tile.reduce %e {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %v = arith.addf %a, %b : f32
    tile.reduce.return %v : f32
  }) : tensor<2x256xf32, #b> -> tensor<2xf32, #col>
  %se = tile.expand_dims %s {axis = 1 : i32} : tensor<2xf32, #col> -> tensor<2x1xf32, #b>
  %sb = tile.broadcast %se : tensor<2x1xf32, #b> -> tensor<2x256xf32, #b>
  %o = arith.divf %e, %sb : tensor<2x256xf32, #b>
  tile.memref_store %y[%row, %c0], %o : memref<?x?xf32>, tensor<2x256xf32, #b>
  tile.return
}
}
