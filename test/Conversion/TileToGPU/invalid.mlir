// What convert-tile-to-gpu refuses, with the op and the reason.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu -split-input-file -verify-diagnostics

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
tile.func @mismatched_warps(%x: memref<512xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-note @below {{first layout used here}}
  %a = tile.memref_load %x[%c0] : memref<512xf32> -> tensor<512xf32, #b4>
  // expected-error @below {{'tile.convert_layout' op uses layout #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}> with 2 warps, but the kernel's tiles already use 4 warps}}
  %b = tile.convert_layout %a : tensor<512xf32, #b4> -> tensor<512xf32, #b2>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [16, 64, 16]}>
tile.func @to_mma(%x: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #b>
  // expected-error @below {{'tile.convert_layout' op layout #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [16, 64, 16]}> is not supported: only mma.sync (version 2) and wgmma (version 3, warpsPerCTA [4k, 1]) accumulators lower to per-thread vectors}}
  %b = tile.convert_layout %a : tensor<64x64xf32, #b> -> tensor<64x64xf32, #mma>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}>
tile.func @to_transposed_mfma(%x: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %x[%c0, %c0] : memref<64x64xf32> -> tensor<64x64xf32, #b>
  // expected-error @below {{'tile.convert_layout' op layout #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}> is not supported: only untransposed 16x16 and 32x32 MFMA accumulators lower to per-thread vectors}}
  %b = tile.convert_layout %a : tensor<64x64xf32, #b> -> tensor<64x64xf32, #mfma>
  tile.return
}

// -----

tile.func @no_layout(%x: memref<64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.memref_load' op tile 'tensor<64xf32>' has no layout; run layout assignment first}}
  %a = tile.memref_load %x[%c0] : memref<64xf32> -> tensor<64xf32>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
tile.func @wrong_warp_size(%x: memref<256xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{has 64 threads per warp but the target's warp size (#tile.target warp_size) is 32}}
  %a = tile.memref_load %x[%c0] : memref<256xf32> -> tensor<256xf32, #b>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.func @non_splat_constant(%x: memref<4xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'arith.constant' op non-splat tile constants are not supported by convert-tile-to-gpu}}
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #b>
  tile.memref_store %x[%c0], %a : memref<4xf32>, tensor<4xf32, #b>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.func @pointer_relayout(%p: !tile.ptr<f32>) attributes {grid_rank = 1 : i32} {
  %t = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  // expected-error @below {{'tile.reshape' op cannot move a tile of pointers between layouts through shared memory}}
  %r = tile.reshape %t : tensor<128x!tile.ptr<f32>, #b> -> tensor<128x!tile.ptr<f32>, #b>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @mma_operand_from_registers(%a: memref<64x32xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %x = tile.memref_load %a[%c0, %c0] : memref<64x32xf16> -> tensor<64x32xf16, #b>
  // expected-error @below {{'tile.convert_layout' op mma operands are read from a #tile.shared tile (or, for A, from the accumulator of the same #tile.nvidia_mma); only the FMA fallback (a #tile.blocked accumulator) takes them from registers (convert-tile-to-gpu maps #tile.nvidia_mma tile.dot to mma.sync m16n8k16 only so far)}}
  %xa = tile.convert_layout %x : tensor<64x32xf16, #b> -> tensor<64x32xf16, #opA>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.func @non_pow2(%x: memref<96xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{dim 0 (size 96) and its layout parameters must be powers of two}}
  %a = tile.memref_load %x[%c0] : memref<96xf32> -> tensor<96xf32, #b>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tile.func @tensor_op(%x: memref<128xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %x[%c0] : memref<128xf32> -> tensor<128xf32, #b>
  %c0f = arith.constant 0.0 : f32
  // expected-error @below {{failed to legalize operation 'tensor.insert'}}
  %b = tensor.insert %c0f into %a[%c0] : tensor<128xf32, #b>
  tile.return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#wgmma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #wgmma, kWidth = 2}>
tile.func @wgmma_not_yet(%x: memref<64x64xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %a = tile.memref_load %x[%c0, %c0] : memref<64x64xf16> -> tensor<64x64xf16, #b>
  %s = tile.convert_layout %a : tensor<64x64xf16, #b> -> tensor<64x64xf16, #sh>
  // expected-error @below {{'tile.convert_layout' op wgmma operands (mma version 3) are not supported yet (convert-tile-to-gpu maps #tile.nvidia_mma tile.dot to mma.sync m16n8k16 only so far)}}
  %o = tile.convert_layout %s : tensor<64x64xf16, #sh> -> tensor<64x64xf16, #opA>
  tile.return
}

// -----

#blkT = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tile.func @copy_column_major(%A: memref<64x64xf16>, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  // expected-error@+1 {{'tile.async_copy' op shared tiles must be row-major (order = [1, 0]) or column-major (order = [0, 1]) and copied with a layout of the same order}}
  tile.async_copy %A[%c0, %c0], %buf[%slot] layout #blkT : memref<64x64xf16> -> !tile.shared_buffer<2x64x32xf16, #sh>
  tile.return
}

// -----

#blkT = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
tile.func @shared_load_blocked_column_major(%slot: index) attributes {grid_rank = 1 : i32} {
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #sh>
  // expected-error@+1 {{'tile.shared_load' op shared tiles must be row-major (order = [1, 0]) or column-major (order = [0, 1]) and read into a layout of the same order}}
  %t = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x64x32xf16, #sh> -> tensor<64x32xf16, #blkT>
  tile.return
}

// -----

#blk = #tile.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 8, 4], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
tile.func @shared_load_blocked_3d(%slot: index) attributes {grid_rank = 1 : i32} {
  %buf = tile.shared_alloc : !tile.shared_buffer<2x2x64x32xf16, #sh>
  // expected-error@+1 {{'tile.shared_load' op convert-tile-to-gpu reads 2-D slots into a #tile.blocked tile only}}
  %t = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x2x64x32xf16, #sh> -> tensor<2x64x32xf16, #blk>
  tile.return
}

// -----

// A 64 x 65536 tile over 128 threads: 32768 values per thread. Lowering it
// took longer than the tile grows (20 s and more); it is refused instead.
#big = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
tile.func @too_many_elements_per_thread(%x: memref<64x65536xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{puts 32768 elements in each thread; convert-tile-to-gpu lowers at most 1024 per thread (registers)}}
  %a = tile.memref_load %x[%c0, %c0] : memref<64x65536xf32> -> tensor<64x65536xf32, #big>
  tile.return
}

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#shT = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @column_major_a_operand(%slot: index) attributes {grid_rank = 1 : i32} {
  %buf = tile.shared_alloc : !tile.shared_buffer<2x64x32xf16, #shT>
  // expected-error@+1 {{'tile.shared_load' op a column-major shared tile (order = [0, 1]) is read as the B operand only}}
  %a = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x64x32xf16, #shT> -> tensor<64x32xf16, #opA>
  tile.return
}

// -----

#acc = #tile.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#shT = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#fmaB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
tile.func @column_major_fma_operand(%slot: index) attributes {grid_rank = 1 : i32} {
  %buf = tile.shared_alloc : !tile.shared_buffer<2x32x64xf32, #shT>
  // expected-error@+1 {{'tile.shared_load' op a column-major shared tile (order = [0, 1]) is read only as an mma.sync operand or an MFMA B operand}}
  %b = tile.shared_load %buf[%slot] : !tile.shared_buffer<2x32x64xf32, #shT> -> tensor<32x64xf32, #fmaB>
  tile.return
}

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @accumulator_to_operand_across_warps_along_n(%x: f16) attributes {grid_rank = 1 : i32} {
  %p = tile.splat %x : f16 -> tensor<64x64xf16, #mma>
  // expected-error@+1 {{'tile.convert_layout' op an accumulator becomes the A operand in registers only when the warps split M alone (warpsPerCTA = [W, 1])}}
  %a = tile.convert_layout %p : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #opA>
  tile.return
}

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @accumulator_to_operand_f32(%x: f32) attributes {grid_rank = 1 : i32} {
  %p = tile.splat %x : f32 -> tensor<64x64xf32, #mma>
  // expected-error@+1 {{'tile.convert_layout' op operand element type must be f16 or bf16}}
  %a = tile.convert_layout %p : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #opA>
  tile.return
}
