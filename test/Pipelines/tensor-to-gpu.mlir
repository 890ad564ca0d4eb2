// The named stage pipelines, chained as tcc.compile runs them.
// RUN: tcc-opt %s --tcc-tensor-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: tcc-opt %s --tcc-tensor-to-linalg --tcc-linalg-to-tile="target=sm_90" | FileCheck %s --check-prefix=TILE
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_90" --tcc-tile-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: tcc-opt %s --tcc-lower-to-tile="target=gfx942" --tcc-tile-to-gpu | FileCheck %s --check-prefix=WAVE64

// LINALG-LABEL: func.func @bias_gelu
// LINALG: linalg.generic
// LINALG-SAME: ins(%arg0, %arg1 : tensor<64x1024xf32>, tensor<1024xf32>)
// LINALG: math.tanh
// LINALG-NOT: linalg.generic
// LINALG-NOT: tcc.

// TILE-LABEL: tile.func @bias_gelu
// TILE-SAME: tcc.grid = array<i64: 64, 1, 1>
// TILE: tile.memref_load %arg0
// TILE: math.tanh %{{.*}} : tensor<1x1024xf32
// TILE: tile.memref_store %arg2

// GPU: gpu.module @bias_gelu_module
// GPU: gpu.func @bias_gelu(%{{.*}}: memref<64x1024xf32>, %{{.*}}: memref<1024xf32>, %{{.*}}: memref<64x1024xf32>) kernel
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>
// GPU: gpu.block_id x
// GPU: gpu.thread_id x
// GPU: vector.load %{{.*}} : memref<64x1024xf32>, vector<4xf32>
// GPU: math.tanh %{{.*}} : vector<8xf32>
// GPU: vector.store %{{.*}} : memref<64x1024xf32>, vector<4xf32>
// GPU-NOT: tile.

// A wave64 target: 64 lanes per warp, 256 threads per program; math is
// expanded (no device library on AMD).
// WAVE64: gpu.func @bias_gelu
// WAVE64-SAME: known_block_size = array<i32: 256, 1, 1>
// WAVE64-NOT: math.tanh
func.func @bias_gelu(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<1024xf32> -> tensor<64x1024xf32>
  %s = tcc.add %x, %bb : tensor<64x1024xf32>
  %y = tcc.gelu %s approximate = tanh : tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

