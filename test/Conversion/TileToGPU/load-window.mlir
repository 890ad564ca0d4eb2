// A memref-form load with several 16-byte runs per thread (a GEMM operand
// slice): one bounds-and-alignment test for the whole window, then the runs
// as back-to-back vector loads; the per-run path stays as the fallback.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --convert-tile-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @window
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %c128 : index
// CHECK: arith.cmpi ule, %[[END]], %c256 : index
// CHECK: scf.if %{{.*}} -> (vector<32xf16>) {
// CHECK-NEXT: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x64xf16>, vector<8xf16>
// CHECK-NOT: scf.if
// CHECK-COUNT-3: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x64xf16>, vector<8xf16>
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (vector<8xf16>)
// CHECK: memref.load %arg0
#b = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @window(%x: memref<256x64xf16>, %y: memref<256x64xf16>) attributes {grid_rank = 1 : i32} {
  %pid = tile.program_id 0 : i32
  %p = arith.index_cast %pid : i32 to index
  %c128 = arith.constant 128 : index
  %c0 = arith.constant 0 : index
  %m0 = arith.muli %p, %c128 : index
  %t = tile.memref_load %x[%m0, %c0] : memref<256x64xf16> -> tensor<128x32xf16, #b>
  tile.memref_store %y[%m0, %c0], %t : memref<256x64xf16>, tensor<128x32xf16, #b>
  tile.return
}

// A window of a transposed view, read along its unit-stride dim (dim 0, not
// the last): each 4-float run is one vector load of a flat 1-D view of the
// same elements, at the run's linear index.
#t = #tile.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: gpu.func @transposed_view(
// CHECK:         %[[V:.*]] = memref.transpose %arg0
// CHECK:         %[[FLAT:.*]] = memref.reinterpret_cast %[[V]] to offset: [0], sizes: [16384], strides: [1]
// CHECK-COUNT-8: vector.load %[[FLAT]][%{{.*}}] {alignment = 16 : i64} : memref<16384xf32, strided<[1]>>, vector<4xf32>
tile.func @transposed_view(%x: memref<128x128xf32>, %y: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %v = memref.transpose %x (d0, d1) -> (d1, d0) : memref<128x128xf32> to memref<128x128xf32, strided<[1, 128]>>
  %t = tile.memref_load %v[%c0, %c0] : memref<128x128xf32, strided<[1, 128]>> -> tensor<64x64xf32, #t>
  tile.memref_store %y[%c0, %c0], %t : memref<64x64xf32>, tensor<64x64xf32, #t>
  tile.return
}
