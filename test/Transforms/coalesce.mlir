// tcc-coalesce: each blocked layout's run along its fastest dim from the
// global accesses that use it; lanes and warps spread again for the run.
// RUN: tcc-opt %s -split-input-file --tcc-coalesce | FileCheck %s

// Rows of 1024 f32: 16-byte runs (4 elements), a warp along 128 columns,
// the bias row (a slice) on the same layout.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#cols = #tile.slice<{dim = 0, parent = #plain}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[COLS:.*]] = #tile.slice<{dim = 0, parent = #[[B]]}>
// CHECK-LABEL: tile.func @f32_rows
// CHECK: tile.memref_load %{{.*}} : memref<64x1024xf32> -> tensor<4x1024xf32, #[[B]]>
// CHECK: tile.memref_load %{{.*}} : memref<1024xf32> -> tensor<1024xf32, #[[COLS]]>
// CHECK: tile.expand_dims %{{.*}} : tensor<1024xf32, #[[COLS]]> -> tensor<1x1024xf32, #[[B]]>
// CHECK: tile.memref_store %{{.*}} : memref<64x1024xf32>, tensor<4x1024xf32, #[[B]]>
tile.func @f32_rows(%x: memref<64x1024xf32>, %b: memref<1024xf32>, %y: memref<64x1024xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %c4 = arith.constant 4 : index
  %m0 = arith.muli %p, %c4 : index
  %t = tile.memref_load %x[%m0, %c0] : memref<64x1024xf32> -> tensor<4x1024xf32, #plain>
  %r = tile.memref_load %b[%c0] : memref<1024xf32> -> tensor<1024xf32, #cols>
  %r1 = tile.expand_dims %r {axis = 0 : i32} : tensor<1024xf32, #cols> -> tensor<1x1024xf32, #plain>
  %rb = tile.broadcast %r1 : tensor<1x1024xf32, #plain> -> tensor<4x1024xf32, #plain>
  %s = arith.addf %t, %rb : tensor<4x1024xf32, #plain>
  tile.memref_store %y[%m0, %c0], %s : memref<64x1024xf32>, tensor<4x1024xf32, #plain>
  tile.return
}

// -----

// f16 in and out, f32 in between: 8-element runs (16 bytes of the f16
// accesses), lanes along 256 columns; the per-row slice (dim 1 dropped)
// holds no run and does not narrow it.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>
#rows = #tile.slice<{dim = 1, parent = #plain}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>
// CHECK-LABEL: tile.func @f16_rows
// CHECK: tile.memref_load %{{.*}} -> tensor<1x4096xf16, #[[B]]>
// CHECK: arith.extf %{{.*}} : tensor<1x4096xf16, #[[B]]> to tensor<1x4096xf32, #[[B]]>
// CHECK: tile.memref_store %{{.*}} : memref<512x4096xf16>, tensor<1x4096xf16, #[[B]]>
tile.func @f16_rows(%x: memref<512x4096xf16>, %s: memref<512xf32>, %y: memref<512x4096xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %t = tile.memref_load %x[%p, %c0] : memref<512x4096xf16> -> tensor<1x4096xf16, #plain>
  %w = arith.extf %t : tensor<1x4096xf16, #plain> to tensor<1x4096xf32, #plain>
  %sc = tile.memref_load %s[%p] : memref<512xf32> -> tensor<1xf32, #rows>
  %sc1 = tile.expand_dims %sc {axis = 1 : i32} : tensor<1xf32, #rows> -> tensor<1x1xf32, #plain>
  %sb = tile.broadcast %sc1 : tensor<1x1xf32, #plain> -> tensor<1x4096xf32, #plain>
  %m = arith.mulf %w, %sb : tensor<1x4096xf32, #plain>
  %n = arith.truncf %m : tensor<1x4096xf32, #plain> to tensor<1x4096xf16, #plain>
  tile.memref_store %y[%p, %c0], %n : memref<512x4096xf16>, tensor<1x4096xf16, #plain>
  tile.return
}

// -----

// Rows of 777: no row start but the first is aligned, the layout stays
// plain. One row of a flat view (its row stride never matters) and a
// constant column offset of 2 take 2-element runs.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#flat = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
// CHECK-DAG: #[[P:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[F:.*]] = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 2], order = [1, 0]}>
// CHECK-LABEL: tile.func @odd_rows
// CHECK: tile.memref_load %{{.*}} : memref<64x777xf32> -> tensor<4x1024xf32, #[[P]]>
// CHECK: tile.memref_load %{{.*}} : memref<1x49728xf32> -> tensor<1x2048xf32, #[[F]]>
tile.func @odd_rows(%x: memref<64x777xf32>, %y: memref<64x777xf32>, %f: memref<1x49728xf32>, %g: memref<1x49728xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %t = tile.memref_load %x[%c0, %c0] : memref<64x777xf32> -> tensor<4x1024xf32, #plain>
  tile.memref_store %y[%c0, %c0], %t : memref<64x777xf32>, tensor<4x1024xf32, #plain>
  %u = tile.memref_load %f[%c0, %c2] : memref<1x49728xf32> -> tensor<1x2048xf32, #flat>
  tile.memref_store %g[%c0, %c0], %u : memref<1x49728xf32>, tensor<1x2048xf32, #flat>
  tile.return
}

// -----

// Two tiles built on the same plain layout but never related (a GEMM's A
// and B slices): each gets the run and lanes its shape wants. Warps stay
// down the rows.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[LA:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[LB:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @operands
// CHECK: tile.memref_load %{{.*}} -> tensor<128x32xf16, #[[LA]]>
// CHECK: tile.memref_load %{{.*}} -> tensor<32x128xf16, #[[LB]]>
tile.func @operands(%a: memref<256x256xf16>, %b: memref<256x256xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %la = tile.memref_load %a[%c0, %c0] : memref<256x256xf16> -> tensor<128x32xf16, #plain>
  %lb = tile.memref_load %b[%c0, %c0] : memref<256x256xf16> -> tensor<32x128xf16, #plain>
  %sa = tile.convert_layout %la : tensor<128x32xf16, #plain> -> tensor<128x32xf16, #sh>
  %sb = tile.convert_layout %lb : tensor<32x128xf16, #plain> -> tensor<32x128xf16, #sh>
  tile.return
}

// -----

// No replicas: an [8, 32] f32 slice on 4 warps down the rows holds 2
// elements per thread, so its run is 2 (4 would need 16 rows of lanes).
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @small_slice
// CHECK: tile.memref_load %{{.*}} -> tensor<8x32xf32, #[[B]]>
tile.func @small_slice(%a: memref<64x64xf32>, %c: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %a[%c0, %c0] : memref<64x64xf32> -> tensor<8x32xf32, #plain>
  tile.memref_store %c[%c0, %c0], %t : memref<64x64xf32>, tensor<8x32xf32, #plain>
  tile.return
}

// -----

// A transposed view (unit stride along dim 0): the run goes down the
// tile's rows, lanes along them first, warps across.
#t = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[T:.*]] = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: tile.func @transposed
// CHECK: tile.memref_load %{{.*}} : memref<64x64xf32, strided<[1, 64]>> -> tensor<64x64xf32, #[[T]]>
tile.func @transposed(%a: memref<64x64xf32, strided<[1, 64]>>, %c: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %a[%c0, %c0] : memref<64x64xf32, strided<[1, 64]>> -> tensor<64x64xf32, #t>
  tile.return
}

// -----

// The staged walk's copies and reads share one layout: the copy's
// `layout` and the tiles read back take the same run.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 16], order = [1, 0]}>
// CHECK-LABEL: tile.func @staged
// CHECK: tile.async_copy %{{.*}} layout #[[B]] :
// CHECK: tile.shared_load %{{.*}} -> tensor<1x4096xf16, #[[B]]>
tile.func @staged(%x: memref<1x50264xf16>, %y: memref<1x50264xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x4096xf16, #sh>
  tile.async_copy %x[%c0, %c0], %buf[%c0] layout #plain : memref<1x50264xf16> -> !tile.shared_buffer<2x1x4096xf16, #sh>
  tile.async_commit_group
  tile.async_wait {pending = 0 : i32}
  %t = tile.shared_load %buf[%c0] : !tile.shared_buffer<2x1x4096xf16, #sh> -> tensor<1x4096xf16, #plain>
  tile.memref_store %y[%c0, %c0], %t : memref<1x50264xf16>, tensor<1x4096xf16, #plain>
  tile.return
}

// -----

// Left as written: an FMA tile.dot's blocked accumulator (also where it is
// stored) and pointer-form accesses.
#acc = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #acc, kWidth = 0}>
#p = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[ACC:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[P:.*]] = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: tile.func @unchanged
// CHECK: tile.dot {{.*}} -> tensor<32x32xf32, #[[ACC]]>
// CHECK: tile.memref_store %{{.*}} : memref<32x32xf32>, tensor<32x32xf32, #[[ACC]]>
// CHECK: tile.load %{{.*}} : tensor<128x!tile.ptr<f32>, #[[P]]>
tile.func @unchanged(%c: memref<32x32xf32>, %x: !tile.ptr<f32>, %y: memref<128xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = tile.splat %zero : f32 -> tensor<32x16xf32, #opA>
  %b = tile.splat %zero : f32 -> tensor<16x32xf32, #opB>
  %init = tile.splat %zero : f32 -> tensor<32x32xf32, #acc>
  %d = tile.dot %a, %b, %init : tensor<32x16xf32, #opA>, tensor<16x32xf32, #opB> -> tensor<32x32xf32, #acc>
  tile.memref_store %c[%c0, %c0], %d : memref<32x32xf32>, tensor<32x32xf32, #acc>
  %r = tile.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #p>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #p>
  %xp = tile.addptr %xb, %r : tensor<128x!tile.ptr<f32>, #p>, tensor<128xi32, #p>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>, #p>
  tile.memref_store %y[%c0], %v : memref<128xf32>, tensor<128xf32, #p>
  tile.return
}

// -----

// A tile extent that is no power of two (96 columns): lanes and warps
// still divide the warp and the program (the largest power of two of lanes
// the row leaves); 4-element runs would need 8 rows of lanes for a 4-row
// tile, so the run is 2.
#plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: tile.func @odd_extent
// CHECK: tile.memref_load %{{.*}} -> tensor<4x96xf32, #[[B]]>
tile.func @odd_extent(%a: memref<64x96xf32>, %c: memref<64x96xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %t = tile.memref_load %a[%c0, %c0] : memref<64x96xf32> -> tensor<4x96xf32, #plain>
  tile.memref_store %c[%c0, %c0], %t : memref<64x96xf32>, tensor<4x96xf32, #plain>
  tile.return
}
