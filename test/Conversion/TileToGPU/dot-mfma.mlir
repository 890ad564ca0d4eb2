// AMD CDNA (wave64): MFMA 16x16x16 operand fragments read from LDS (8-byte
// A rows, B columns) and v_mfma through ROCDL.
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @dot
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = {{[0-9]+}} : i64} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: gpu.barrier
// A fragment: 4 consecutive k of one row (one 8-byte LDS read).
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// B fragment: 4 rows of one column.
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x64xf16, #gpu.address_space<workgroup>>
// Per wave: 2 m tiles x 2 n tiles x 2 k steps.
// CHECK-COUNT-8: rocdl.mfma.f32.16x16x16f16 %{{.*}} : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// CHECK-NOT: rocdl.mfma
#blkA = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blkB = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
#shA = #tile.shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#shB = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 4}>
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
