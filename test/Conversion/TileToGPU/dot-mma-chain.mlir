// An mma accumulator as the next dot's A operand, in registers (P of
// attention, softmax(Q K^T) as the second product's A): with warps along M
// only (warpsPerCTA = [W, 1]), the m16n8 accumulator fragments of n tiles 2s
// and 2s + 1 are the m16k16 A fragment of k step s, so the convert_layout is
// a permutation of each thread's registers: no workgroup buffer for P, no
// ldmatrix of it, no scratch (the A operand of the first product and both
// B operands keep their shared tiles).
// RUN: tcc-opt %s --tcc-set-target=arch=sm_80 --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @pv
// CHECK-SAME: workgroup(%[[Q:.*]] : memref<64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[K:.*]] : memref<32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : vector<32xf32> to vector<32xf16>
// CHECK-NOT: nvgpu.ldmatrix %[[Q]]
// CHECK-NOT: nvgpu.ldmatrix %[[K]]
// CHECK: nvgpu.ldmatrix %[[V]]
// CHECK-NOT: nvgpu.ldmatrix %[[Q]]
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
tile.func @pv(%q: memref<64x32xf16>, %kt: memref<32x64xf16>, %v: memref<64x32xf16>, %o: memref<64x32xf32>) attributes {grid_rank = 1 : i32, tcc.grid = array<i64: 1, 1, 1>, tcc.num_inputs = 3 : i32, tcc.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = tile.memref_load %q[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #blkA>
  %as = tile.convert_layout %a : tensor<64x32xf16, #blkA> -> tensor<64x32xf16, #sh>
  %ao = tile.convert_layout %as : tensor<64x32xf16, #sh> -> tensor<64x32xf16, #opA>
  %b = tile.memref_load %kt[%c0, %c0] : memref<32x64xf16> -> tensor<32x64xf16, #blkB>
  %bs = tile.convert_layout %b : tensor<32x64xf16, #blkB> -> tensor<32x64xf16, #sh>
  %bo = tile.convert_layout %bs : tensor<32x64xf16, #sh> -> tensor<32x64xf16, #opB>
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mma>
  %s = tile.dot %ao, %bo, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  %p = arith.truncf %s : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
  %pa = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #opA>
  %vv = tile.memref_load %v[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #blkA>
  %vs = tile.convert_layout %vv : tensor<64x32xf16, #blkA> -> tensor<64x32xf16, #sh>
  %vo = tile.convert_layout %vs : tensor<64x32xf16, #sh> -> tensor<64x32xf16, #opB>
  %acc2 = tile.splat %zero : f32 -> tensor<64x32xf32, #mma>
  %out = tile.dot %pa, %vo, %acc2 : tensor<64x64xf16, #opA>, tensor<64x32xf16, #opB> -> tensor<64x32xf32, #mma>
  tile.memref_store %o[%c0, %c0], %out : memref<64x32xf32>, tensor<64x32xf32, #mma>
  tile.return
}
