// The mma.sync GEMM reading B as stored [N, K] (nn.Linear's x @ w.T on sm_80,
// tcc::mmaReadsTransposedB): one kernel, B read through memref.transpose (its
// [BK, BN] slices contiguous along K), tcc-coalesce's 8-element runs down
// dim 0 (order [0, 1]), staged in a column-major shared tile that
// tcc-swizzle-shared-memory swizzles along K (BK 64 for such a B: 128-byte
// rows, 8 phases), then read as the B operand.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_80 --tcc-select-strategy --convert-linalg-to-tile --tcc-accelerate-matmul --tcc-coalesce --tcc-swizzle-shared-memory | FileCheck %s

// CHECK-DAG: #[[BLKT:.*]] = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[SHT:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
// CHECK-DAG: #[[OPB:.*]] = #tile.dot_operand<{opIdx = 1,
// CHECK-LABEL: tile.func @linear(
// CHECK-SAME: %{{.*}}: memref<256x128xf16>, %[[W:.*]]: memref<128x128xf16>, %{{.*}}: memref<256x128xf32>)
// CHECK-SAME: tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>
// CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<128x128xf16> to memref<128x128xf16, strided<[1, 128]>>
// CHECK: scf.for %[[K:[a-z0-9]+]] =
// CHECK: %[[B:.*]] = tile.memref_load %[[WT]][%[[K]], %{{.*}}] : memref<128x128xf16, strided<[1, 128]>> -> tensor<64x128xf16, #[[BLKT]]>
// CHECK: %[[BS:.*]] = tile.convert_layout %[[B]] : tensor<64x128xf16, #[[BLKT]]> -> tensor<64x128xf16, #[[SHT]]>
// CHECK: tile.convert_layout %[[BS]] : tensor<64x128xf16, #[[SHT]]> -> tensor<64x128xf16, #[[OPB]]>
// CHECK: tile.dot
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @linear(%x: tensor<256x128xf16>, %w: tensor<128x128xf16>) -> tensor<256x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %0 = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x128xf16>) outs(%f : tensor<256x128xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}
