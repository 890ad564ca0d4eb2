// AMD CDNA (wave64): MFMA 32x32x8 (instrShape [32, 32]) operand fragments
// read from LDS and v_mfma_f32_32x32x8 through ROCDL, 16 f32 accumulators
// per lane.
// RUN: tcc-opt %s --split-input-file --tcc-set-target=arch=gfx942 --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @dot_f16
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: gpu.barrier
// A fragment: lane l reads row l % 32 (+ 32 * wave m), 4 consecutive k from
// 4 * (l / 32): one 8-byte LDS read per k step of 8.
// CHECK: arith.remui %{{.*}}, %c32 : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-COUNT-3: vector.load %{{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// B fragment: 4 rows of one column.
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x64xf16, #gpu.address_space<workgroup>>
// Per wave: 1 m tile x 1 n tile x 4 k steps, the accumulator chained.
// CHECK: %[[D0:.*]] = rocdl.mfma.f32.32x32x8f16 %{{.*}} : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: %[[D1:.*]] = rocdl.mfma.f32.32x32x8f16 %{{.*}}, %{{.*}}, %[[D0]],
// CHECK: %[[D2:.*]] = rocdl.mfma.f32.32x32x8f16 %{{.*}}, %{{.*}}, %[[D1]],
// CHECK: %[[D3:.*]] = rocdl.mfma.f32.32x32x8f16 %{{.*}}, %{{.*}}, %[[D2]],
// CHECK-NOT: rocdl.mfma
// CHECK: gpu.return
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
#shA = #tile.shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>
#shB = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 4}>
tile.func @dot_f16(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
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

// bf16: the bf16_1k form takes its operands as i16 bits; 2 x 1 m x n tiles
// per wave on a 128 x 64 accumulator (64 f32 per thread).
// CHECK-LABEL: gpu.func @dot_bf16
// CHECK: vector.bitcast %{{.*}} : vector<4xbf16> to vector<4xi16>
// CHECK-COUNT-4: rocdl.mfma.f32.32x32x8bf16.1k %{{.*}} : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK-NOT: rocdl.mfma
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
#shA = #tile.shared<{vec = 4, perPhase = 4, maxPhase = 4, order = [1, 0]}>
#shB = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 4}>
tile.func @dot_bf16(%A: memref<128x16xbf16>, %B: memref<16x64xbf16>, %C: memref<128x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<128x64xf32, #mma>
  %a = tile.memref_load %A[%c0, %c0] : memref<128x16xbf16> -> tensor<128x16xbf16, #blkA>
  %b = tile.memref_load %B[%c0, %c0] : memref<16x64xbf16> -> tensor<16x64xbf16, #blkB>
  %as = tile.convert_layout %a : tensor<128x16xbf16, #blkA> -> tensor<128x16xbf16, #shA>
  %bs = tile.convert_layout %b : tensor<16x64xbf16, #blkB> -> tensor<16x64xbf16, #shB>
  %ao = tile.convert_layout %as : tensor<128x16xbf16, #shA> -> tensor<128x16xbf16, #opA>
  %bo = tile.convert_layout %bs : tensor<16x64xbf16, #shB> -> tensor<16x64xbf16, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<128x16xbf16, #opA>, tensor<16x64xbf16, #opB> -> tensor<128x64xf32, #mma>
  tile.memref_store %C[%c0, %c0], %d : memref<128x64xf32>, tensor<128x64xf32, #mma>
  tile.return
}
