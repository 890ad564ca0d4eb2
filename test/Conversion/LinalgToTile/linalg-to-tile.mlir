// sm_80: the mma.sync GEMM (sm_90 plans wgmma: test/Conversion/LinalgToTile/matmul-wgmma.mlir).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy="elements-per-program=4096" --convert-linalg-to-tile --tcc-accelerate-matmul --tcc-coalesce --canonicalize | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Elementwise with a bias row: 16-byte vectors along the row (4 x f32), a
// warp along 128 columns, 4 warps along the 1024-wide block, 2 rows per
// program (half of 4096 elements: the bias broadcasts along the rows), 32
// programs.
// CHECK: #[[BLK:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK: #[[COLS:.*]] = #tile.slice<{dim = 0, parent = #[[BLK]]}>
// CHECK-LABEL: tile.func @bias_tanh
// CHECK-SAME: (%[[X:.*]]: memref<64x1024xf32>, %[[B:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<64x1024xf32>)
// CHECK-SAME: tcc.grid = array<i64: 32, 1, 1>, tcc.num_inputs = 2 : i32, tcc.num_warps = 4 : i32
// CHECK: %[[PID:.*]] = tile.program_id 0 : i32
// CHECK: %[[P:.*]] = arith.index_cast %[[PID]] : i32 to index
// CHECK: %[[M0:.*]] = arith.muli %[[P]], %c2 : index
// CHECK: %[[XT:.*]] = tile.memref_load %[[X]][%[[M0]], %c0] : memref<64x1024xf32> -> tensor<2x1024xf32, #[[BLK]]>
// CHECK: %[[BT:.*]] = tile.memref_load %[[B]][%c0] : memref<1024xf32> -> tensor<1024xf32, #[[COLS]]>
// CHECK: %[[BE:.*]] = tile.expand_dims %[[BT]] {axis = 0 : i32} : tensor<1024xf32, #[[COLS]]> -> tensor<1x1024xf32, #[[BLK]]>
// CHECK: %[[BB:.*]] = tile.broadcast %[[BE]] : tensor<1x1024xf32, #[[BLK]]> -> tensor<2x1024xf32, #[[BLK]]>
// CHECK: %[[S:.*]] = arith.addf %[[XT]], %[[BB]] : tensor<2x1024xf32, #[[BLK]]>
// CHECK: %[[T:.*]] = math.tanh %[[S]] : tensor<2x1024xf32, #[[BLK]]>
// CHECK: tile.memref_store %[[OUT]][%[[M0]], %c0], %[[T]] : memref<64x1024xf32>, tensor<2x1024xf32, #[[BLK]]>
// CHECK: tile.return
// CHECK-NOT: func.func
func.func @bias_tanh(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  return %0 : tensor<64x1024xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Rank 1 runs as one row of a [1, n] view (a flat stream: a program takes
// elements-per-program of it); 8 x f16 per vector; a captured constant is
// splatted.
// CHECK: #[[BLK:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: tile.func @scale
// CHECK-SAME: tcc.grid = array<i64: 2, 1, 1>
// CHECK: %[[C:.*]] = arith.constant 2.000000e+00 : f16
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %c4096 : index
// CHECK: %[[V:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [1, 5000] : memref<5000xf16> into memref<1x5000xf16>
// CHECK: %[[T:.*]] = tile.memref_load %[[V]][%{{.*}}, %[[N0]]] : memref<1x5000xf16> -> tensor<1x4096xf16, #[[BLK]]>
// CHECK: %[[CS:.*]] = tile.splat %[[C]] : f16 -> tensor<1x4096xf16, #[[BLK]]>
// CHECK: arith.mulf %[[T]], %[[CS]] : tensor<1x4096xf16, #[[BLK]]>
func.func @scale(%x: tensor<5000xf16>) -> tensor<5000xf16> {
  %two = arith.constant 2.0 : f16
  %e = tensor.empty() : tensor<5000xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5000xf16>) outs(%e : tensor<5000xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.mulf %a, %two : f16
    linalg.yield %m : f16
  } -> tensor<5000xf16>
  return %0 : tensor<5000xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>

// A per-row operand (column broadcast) over rows of 777 (no multiple of 4):
// one flat stream of 4-wide vectors (view = flat_gather), the per-row
// operand gathered at i / 777 (test/Conversion/LinalgToTile/flat-gather.mlir
// has more).
// CHECK: #[[FLAT:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: tile.func @row_scale
// CHECK-SAME: tcc.grid = array<i64: 380, 1, 1>
// CHECK-SAME: view = flat_gather
// CHECK: %[[XF:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 777000] : memref<777000xf32> into memref<1x777000xf32>
// CHECK: tile.memref_load %[[XF]][%c0, %{{.*}}] : memref<1x777000xf32> -> tensor<1x2048xf32, #[[FLAT]]>
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %{{.*}} : tensor<1x2048xi32, #[[FLAT]]>
// CHECK: tile.memref_gather %arg1[%[[I]]] : memref<1000xf32>, tensor<1x2048xi32, #[[FLAT]]> -> tensor<1x2048xf32, #[[FLAT]]>
func.func @row_scale(%x: tensor<1000x777xf32>, %s: tensor<1000xf32>) -> tensor<1000x777xf32> {
  %e = tensor.empty() : tensor<1000x777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<1000x777xf32>, tensor<1000xf32>) outs(%e : tensor<1000x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<1000x777xf32>
  return %0 : tensor<1000x777xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>

// The same with a hand-written view = blocked: the 2-D [1000, 777] view,
// whose row length allows no vector wider than one element.
// CHECK: #[[BLK:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK: #[[ROWS:.*]] = #tile.slice<{dim = 1, parent = #[[BLK]]}>
// CHECK-LABEL: tile.func @row_scale_blocked
// CHECK-SAME: tcc.grid = array<i64: 250, 1, 1>
// CHECK: %[[S:.*]] = tile.memref_load %arg1[%{{.*}}] : memref<1000xf32> -> tensor<4xf32, #[[ROWS]]>
// CHECK: %[[SE:.*]] = tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<4xf32, #[[ROWS]]> -> tensor<4x1xf32, #[[BLK]]>
// CHECK: tile.broadcast %[[SE]] : tensor<4x1xf32, #[[BLK]]> -> tensor<4x1024xf32, #[[BLK]]>
func.func @row_scale_blocked(%x: tensor<1000x777xf32>, %s: tensor<1000xf32>) -> tensor<1000x777xf32> {
  %e = tensor.empty() : tensor<1000x777xf32>
  %0 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"],
                       tile.lowering_config = #tile.lowering_config<form = elementwise, block = [4, 1024], num_warps = 4, view = blocked>}
      ins(%x, %s : tensor<1000x777xf32>, tensor<1000xf32>) outs(%e : tensor<1000x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<1000x777xf32>
  return %0 : tensor<1000x777xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>

// Row sum of f16 in f32 with a cast-back epilogue: the partial chunk is
// masked to the neutral element, then one tile.reduce per row block.
// CHECK: #[[BLK:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[COLS:.*]] = #tile.slice<{dim = 0, parent = #[[BLK]]}>
// CHECK-DAG: #[[ROWS:.*]] = #tile.slice<{dim = 1, parent = #[[BLK]]}>
// CHECK-LABEL: tile.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<1000x777xf16>, %[[OUT:.*]]: memref<1000xf16>)
// CHECK-SAME: tcc.grid = array<i64: 250, 1, 1>
// CHECK: %[[ZERO:.*]] = tile.splat %{{.*}} : f32 -> tensor<4x1024xf32, #[[BLK]]>
// CHECK: %[[T:.*]] = tile.memref_load %[[X]][%[[M0:.*]], %c0] : memref<1000x777xf16> -> tensor<4x1024xf16, #[[BLK]]>
// CHECK: %[[W:.*]] = arith.extf %[[T]]
// CHECK: %[[IDX:.*]] = tile.arange {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #[[COLS]]>
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<1024xi32, #[[COLS]]>
// CHECK: %[[MASK:.*]] = tile.broadcast
// CHECK: %[[SEL:.*]] = arith.select %[[MASK]], %[[W]], %[[ZERO]]
// CHECK: %[[ACC:.*]] = arith.addf %[[ZERO]], %[[SEL]]
// CHECK: %[[R:.*]] = tile.reduce %[[ACC]] {axis = 1 : i32} ({
// CHECK: arith.addf
// CHECK: }) : tensor<4x1024xf32, #[[BLK]]> -> tensor<4xf32, #[[ROWS]]>
// CHECK: %[[H:.*]] = arith.truncf %[[R]] : tensor<4xf32, #[[ROWS]]> to tensor<4xf16, #[[ROWS]]>
// CHECK: tile.memref_store %[[OUT]][%[[M0]]], %[[H]] : memref<1000xf16>, tensor<4xf16, #[[ROWS]]>
func.func @row_sum(%x: tensor<1000x777xf16>) -> tensor<1000xf16> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1000x777xf16>) outs(%f : tensor<1000xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %o : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  %e = tensor.empty() : tensor<1000xf16>
  %h = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%r : tensor<1000xf32>) outs(%e : tensor<1000xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1000xf16>
  return %h : tensor<1000xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Rows longer than one chunk loop over 1024-wide chunks; keepdims' reshape
// is undone on the output buffer; no mask when chunks divide the row.
// CHECK-LABEL: tile.func @row_max_keepdims
// CHECK-SAME: (%[[X:.*]]: memref<64x8192xf32>, %[[OUT:.*]]: memref<64x1xf32>)
// CHECK: %[[NINF:.*]] = tile.splat %{{.*}} : f32 -> tensor<4x1024xf32, #{{.*}}>
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %c0 to %c8192 step %c1024 iter_args(%[[A:.*]] = %[[NINF]])
// CHECK: %[[T:.*]] = tile.memref_load %[[X]][%{{.*}}, %[[K]]]
// CHECK-NOT: arith.select
// CHECK: %[[M:.*]] = arith.maximumf %[[A]], %[[T]]
// CHECK: scf.yield %[[M]]
// CHECK: tile.reduce %[[ACC]] {axis = 1 : i32}
// CHECK: %[[V:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<64x1xf32> into memref<64xf32>
// CHECK: tile.memref_store %[[V]]
func.func @row_max_keepdims(%x: tensor<64x8192xf32>) -> tensor<64x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %i = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%i : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x8192xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %k = tensor.expand_shape %r [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
  return %k : tensor<64x1xf32>
}

// -----

// Softmax keeps a whole 4096-wide f16 row in registers: 8 warps of 32
// lanes x 8 halves, f32 math, one program per row.
// CHECK: #[[BLK:.*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>
// CHECK-LABEL: tile.func @softmax
// CHECK-SAME: tcc.grid = array<i64: 128, 1, 1>
// CHECK-SAME: tcc.num_warps = 8 : i32
// CHECK: %[[X:.*]] = tile.memref_load %arg0[%{{.*}}, %c0] : memref<128x4096xf16> -> tensor<1x4096xf16, #[[BLK]]>
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : tensor<1x4096xf16, #[[BLK]]> to tensor<1x4096xf32, #[[BLK]]>
// CHECK: %[[MAX:.*]] = tile.reduce %[[XF]] {axis = 1 : i32}
// CHECK: arith.maximumf
// CHECK: %[[SUB:.*]] = arith.subf %[[XF]], %{{.*}}
// CHECK: %[[SCALED:.*]] = arith.mulf %[[SUB]], %{{.*}}
// CHECK: %[[E:.*]] = math.exp2 %[[SCALED]]
// CHECK: %[[SUM:.*]] = tile.reduce %[[E]] {axis = 1 : i32}
// CHECK: arith.addf
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[SUM]] : tensor<1xf32, #{{.*}}>
// CHECK: %[[Y:.*]] = arith.mulf %[[E]], %{{.*}}
// CHECK: %[[YH:.*]] = arith.truncf %[[Y]]
// CHECK: tile.memref_store %arg1[%{{.*}}, %c0], %[[YH]]
func.func @softmax(%x: tensor<128x4096xf16>) -> tensor<128x4096xf16> {
  %e = tensor.empty() : tensor<128x4096xf16>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<128x4096xf16>) outs(%e : tensor<128x4096xf16>) -> tensor<128x4096xf16>
  return %0 : tensor<128x4096xf16>
}

// -----

// A row shorter than its power-of-two block reads -inf past its end. Two
// rows per program on 4 warps (about 16 elements per thread, at least 128
// threads).
// CHECK-LABEL: tile.func @softmax_tail
// CHECK-SAME: tcc.grid = array<i64: 50, 1, 1>
// CHECK-SAME: tcc.num_warps = 4 : i32
// CHECK: %[[NINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK: %[[MASK:.*]] = tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<1024xi1, #{{.*}}> -> tensor<1x1024xi1, #{{.*}}>
// CHECK: %[[OTHER:.*]] = tile.splat %[[NINF]] : bf16 -> tensor<2x1024xbf16, #{{.*}}>
// CHECK: tile.memref_load %arg0[%{{.*}}, %c0], %{{.*}}, %[[OTHER]] : memref<100x777xbf16> -> tensor<2x1024xbf16, #{{.*}}>
func.func @softmax_tail(%x: tensor<100x777xbf16>) -> tensor<100x777xbf16> {
  %e = tensor.empty() : tensor<100x777xbf16>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<100x777xbf16>) outs(%e : tensor<100x777xbf16>) -> tensor<100x777xbf16>
  return %0 : tensor<100x777xbf16>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A GEMM with a bias epilogue: 128 x 128 blocks over 4 warps (2 x 2 on
// mma.sync m16n8k16), BK = 32, grouped rasterization (8 row blocks per
// group); each K step loads A and B, stages them through (unswizzled:
// tcc-swizzle-shared-memory's job; synchronous: tcc-promote-shared-memory
// pipelines it) shared memory and reads the mma operands back; the bias is
// added on the accumulator's layout; one store.
// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[SH:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[OPB:.*]] = #tile.dot_operand<{opIdx = 1, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[SLICE:.*]] = #tile.slice<{dim = 0, parent = #[[MMA]]}>
// CHECK-LABEL: tile.func @gemm_bias
// CHECK-SAME: tcc.grid = array<i64: 12, 1, 1>
// CHECK-SAME: tcc.num_warps = 4 : i32
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c24 : index
// CHECK: %[[ACC0:.*]] = tile.splat %{{.*}} : f32 -> tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %c0 to %c256 step %c32 iter_args(%[[ACC:.*]] = %[[ACC0]])
// CHECK: %[[A:.*]] = tile.memref_load %arg0[%{{.*}}, %[[K]]] : memref<512x256xf16> -> tensor<128x32xf16
// CHECK: %[[B:.*]] = tile.memref_load %arg1[%[[K]], %{{.*}}] : memref<256x384xf16> -> tensor<32x128xf16
// CHECK: %[[SA:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<128x32xf16, #[[SH]]>
// CHECK: %[[SB:.*]] = tile.convert_layout %[[B]] : {{.*}} -> tensor<32x128xf16, #[[SH]]>
// CHECK: %[[OA:.*]] = tile.convert_layout %[[SA]] : tensor<128x32xf16, #[[SH]]> -> tensor<128x32xf16, #[[OPA]]>
// CHECK: %[[OB:.*]] = tile.convert_layout %[[SB]] : tensor<32x128xf16, #[[SH]]> -> tensor<32x128xf16, #[[OPB]]>
// CHECK: %[[D:.*]] = tile.dot %[[OA]], %[[OB]], %[[ACC]]
// CHECK: scf.yield %[[D]]
// CHECK: tile.memref_load %arg2[%{{.*}}] : memref<384xf32> -> tensor<128xf32, #[[SLICE]]>
// CHECK: %[[S:.*]] = arith.addf %[[R]], %{{.*}} : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[H:.*]] = arith.truncf %[[S]] : tensor<128x128xf32, #[[MMA]]> to tensor<128x128xf16, #[[MMA]]>
// CHECK: tile.memref_store %arg3[%{{.*}}, %{{.*}}], %[[H]] : memref<512x384xf16>, tensor<128x128xf16, #[[MMA]]>
func.func @gemm_bias(%x: tensor<512x256xf16>, %w: tensor<256x384xf16>, %bias: tensor<384xf32>) -> tensor<512x384xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x384xf32>) -> tensor<512x384xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<512x256xf16>, tensor<256x384xf16>) outs(%f : tensor<512x384xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x384xf32>
  %e16 = tensor.empty() : tensor<512x384xf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<512x384xf32>, tensor<384xf32>) outs(%e16 : tensor<512x384xf16>) {
  ^bb0(%v: f32, %c: f32, %o: f16):
    %s = arith.addf %v, %c : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  } -> tensor<512x384xf16>
  return %y : tensor<512x384xf16>
}

// -----

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, m, n) -> (b, m, n)>
#col = affine_map<(b, m, n) -> (n)>

// A batched f16 GEMM on tensor cores: batch x blocks programs (2 x 2 x 2),
// each on its batch's 2-D slices; a per-batch residual is read from its
// slice, a bias shared by all batches as it is.
// CHECK-LABEL: tile.func @batched_gemm
// CHECK-SAME: tcc.grid = array<i64: 8, 1, 1>
// CHECK: %[[PID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[BATCH:.*]] = arith.divui %[[PID]], %c4 : index
// CHECK: %[[SA:.*]] = memref.subview %arg0[%[[BATCH]], 0, 0] [1, 200, 64] [1, 1, 1] : memref<2x200x64xf16> to memref<200x64xf16, strided<[64, 1], offset: ?>>
// CHECK: %[[SB:.*]] = memref.subview %arg1[%[[BATCH]], 0, 0] [1, 64, 136] [1, 1, 1]
// CHECK: scf.for
// CHECK: tile.memref_load %[[SA]]
// CHECK: tile.memref_load %[[SB]]
// CHECK: tile.dot
// CHECK: %[[SR:.*]] = memref.subview %arg2[%[[BATCH]], 0, 0] [1, 200, 136] [1, 1, 1]
// CHECK: tile.memref_load %[[SR]]
// CHECK: tile.memref_load %arg3[%{{.*}}] : memref<136xf32>
// CHECK: %[[SC:.*]] = memref.subview %arg4[%[[BATCH]], 0, 0] [1, 200, 136] [1, 1, 1]
// CHECK: tile.memref_store %[[SC]]
func.func @batched_gemm(%x: tensor<2x200x64xf16>, %w: tensor<2x64x136xf16>, %res: tensor<2x200x136xf32>, %bias: tensor<136xf32>) -> tensor<2x200x136xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x200x136xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x200x136xf32>) -> tensor<2x200x136xf32>
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x200x64xf16>, tensor<2x64x136xf16>) outs(%f : tensor<2x200x136xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x200x136xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #col, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %res, %bias : tensor<2x200x136xf32>, tensor<2x200x136xf32>, tensor<136xf32>) outs(%e : tensor<2x200x136xf32>) {
  ^bb0(%v: f32, %q: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %q : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<2x200x136xf32>
  return %y : tensor<2x200x136xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>

// Rank 3 with a bias over the last dim runs on the flattest view: the two
// leading dims, which every operand reads together, are one ([24, 100]).
// CHECK-LABEL: tile.func @bias_relu_3d
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<4x6x100xf32> into memref<24x100xf32>
// CHECK: tile.memref_load %arg1[%{{.*}}] : memref<100xf32>
// CHECK: memref.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : memref<4x6x100xf32> into memref<24x100xf32>
// CHECK: tile.memref_store
func.func @bias_relu_3d(%x: tensor<4x6x100xf32>, %b: tensor<100xf32>) -> tensor<4x6x100xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6x100xf32>
  %0 = linalg.generic {indexing_maps = [#id3, #last, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<4x6x100xf32>, tensor<100xf32>) outs(%e : tensor<4x6x100xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x6x100xf32>
  return %0 : tensor<4x6x100xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// All-identity maps: one flat stream, vectorized although the last dim (777)
// is odd.
// CHECK: #[[FLAT:.*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: tile.func @add_odd
// CHECK: memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<1000x777xf32> into memref<777000xf32>
// CHECK: tile.memref_load {{.*}} : memref<1x777000xf32> -> tensor<1x4096xf32, #[[FLAT]]>
func.func @add_odd(%x: tensor<1000x777xf32>, %y: tensor<1000x777xf32>) -> tensor<1000x777xf32> {
  %e = tensor.empty() : tensor<1000x777xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1000x777xf32>, tensor<1000x777xf32>) outs(%e : tensor<1000x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1000x777xf32>
  return %0 : tensor<1000x777xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#outer = affine_map<(d0, d1, d2) -> (d0, d2)>

// Broadcasting along three separate groups of dims ([B, M, N] over a [B, N]
// operand, as a softmax over the middle dim divides by its sums): the batch
// is one index per program, each operand its slice at it.
// CHECK-LABEL: tile.func @batched_broadcast
// CHECK-SAME: tcc.grid = array<i64: 4, 1, 1>
// CHECK: memref.subview %arg1[%{{.*}}, 0] [1, 100] [1, 1] : memref<4x100xf32> to memref<100xf32, strided<[1], offset: ?>>
// CHECK: tile.memref_load %{{.*}} : memref<100xf32, strided<[1], offset: ?>> -> tensor<{{.*}}xf32, #{{.*}}>
// CHECK: tile.broadcast
// CHECK: memref.subview %arg2[%{{.*}}, 0, 0] [1, 6, 100] [1, 1, 1]
func.func @batched_broadcast(%x: tensor<4x6x100xf32>, %b: tensor<4x100xf32>) -> tensor<4x6x100xf32> {
  %e = tensor.empty() : tensor<4x6x100xf32>
  %0 = linalg.generic {indexing_maps = [#id3, #outer, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<4x6x100xf32>, tensor<4x100xf32>) outs(%e : tensor<4x6x100xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x6x100xf32>
  return %0 : tensor<4x6x100xf32>
}
