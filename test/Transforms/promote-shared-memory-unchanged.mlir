// RUN: tcc-opt %s -split-input-file --tcc-promote-shared-memory | FileCheck %s

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sha = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#opa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>

// Left alone: a masked load, an offset carried by the loop, a shared tile
// that is also yielded (no canonicalize here: nothing reads the results).
// CHECK-LABEL: tile.func @not_promoted
// CHECK-NOT: tile.shared_alloc
// CHECK-NOT: tile.async_copy
// CHECK-COUNT-3: tile.memref_load
tile.func @not_promoted(%A: memref<256x256xf16>, %m0: index) attributes {grid_rank = 1 : i32} {
  %mask = arith.constant dense<true> : tensor<128x32xi1, #blocked>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %init = tile.memref_load %A[%m0, %c0] : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
  %init_s = tile.convert_layout %init : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
  %r:2 = scf.for %k = %c0 to %c256 step %c32 iter_args(%off = %c0, %prev = %init_s) -> (index, tensor<128x32xf16, #sha>) {
    %a = tile.memref_load %A[%m0, %k], %mask : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
    %as = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
    %ao = tile.convert_layout %as : tensor<128x32xf16, #sha> -> tensor<128x32xf16, #opa>
    %b = tile.memref_load %A[%m0, %off] : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
    %bs = tile.convert_layout %b : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
    %bo = tile.convert_layout %bs : tensor<128x32xf16, #sha> -> tensor<128x32xf16, #opa>
    %next = arith.addi %off, %c32 : index
    scf.yield %next, %bs : index, tensor<128x32xf16, #sha>
  }
  tile.return
}

// -----

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sha = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#opa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>

// A loop that also stores: a copy issued ahead could read data the store
// has not written yet, so the staging stays synchronous.
// CHECK-LABEL: tile.func @stores_in_loop
// CHECK-NOT: tile.async_copy
// CHECK: tile.convert_layout
tile.func @stores_in_loop(%A: memref<256x256xf16>, %m0: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  scf.for %k = %c0 to %c256 step %c32 {
    %a = tile.memref_load %A[%m0, %k] : memref<256x256xf16> -> tensor<128x32xf16, #blocked>
    %as = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sha>
    %ao = tile.convert_layout %as : tensor<128x32xf16, #sha> -> tensor<128x32xf16, #opa>
    %next = arith.addi %k, %c32 : index
    %zero = arith.constant dense<0.0> : tensor<128x32xf16, #blocked>
    tile.memref_store %A[%m0, %next], %zero : memref<256x256xf16>, tensor<128x32xf16, #blocked>
  }
  tile.return
}
