// Tensor-core tiles on NVIDIA: blocked -> swizzled shared stores, ldmatrix
// fragments (.trans for B), nvvm.mma.sync m16n8k16, the accumulator stored
// from its blocked-equivalent layout.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @dot
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<64x32xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[SB:.*]] : memref<32x64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// The A tile: 16-byte runs at XOR-swizzled columns, between barriers.
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK: vector.store %{{.*}}, %[[SA]][%{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[SB]][%{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
// Fragments: A row-major, B transposed, at swizzled addresses.
// CHECK: arith.xori
// CHECK: nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[SB]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// Per warp: 2 m tiles x 4 n tiles x 2 k steps.
// CHECK-COUNT-16: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  B[%{{.*}}, %{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// Two adjacent columns per thread: 8-byte stores of the accumulator.
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {{.*}}: memref<64x64xf32>, vector<2xf32>
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shA = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shB = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
tile.func @dot(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mma>
  %a = tile.memref_load %A[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #blkA>
  %b = tile.memref_load %B[%c0, %c0] : memref<32x64xf16> -> tensor<32x64xf16, #blkB>
  %as = tile.convert_layout %a : tensor<64x32xf16, #blkA> -> tensor<64x32xf16, #shA>
  %bs = tile.convert_layout %b : tensor<32x64xf16, #blkB> -> tensor<32x64xf16, #shB>
  %ao = tile.convert_layout %as : tensor<64x32xf16, #shA> -> tensor<64x32xf16, #opA>
  %bo = tile.convert_layout %bs : tensor<32x64xf16, #shB> -> tensor<32x64xf16, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}

// -----

// bf16 operands go to mma.sync as i32 register pairs.
// CHECK-LABEL: gpu.func @dot_bf16
// CHECK: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: nvvm.mma.sync A[{{.*}}] {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shA = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shB = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
tile.func @dot_bf16(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #mma>
  %a = tile.memref_load %A[%c0, %c0] : memref<64x32xbf16> -> tensor<64x32xbf16, #blkA>
  %b = tile.memref_load %B[%c0, %c0] : memref<32x64xbf16> -> tensor<32x64xbf16, #blkB>
  %as = tile.convert_layout %a : tensor<64x32xbf16, #blkA> -> tensor<64x32xbf16, #shA>
  %bs = tile.convert_layout %b : tensor<32x64xbf16, #blkB> -> tensor<32x64xbf16, #shB>
  %ao = tile.convert_layout %as : tensor<64x32xbf16, #shA> -> tensor<64x32xbf16, #opA>
  %bo = tile.convert_layout %bs : tensor<32x64xbf16, #shB> -> tensor<32x64xbf16, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
  tile.memref_store %C[%c0, %c0], %d : memref<64x64xf32>, tensor<64x64xf32, #mma>
  tile.return
}
