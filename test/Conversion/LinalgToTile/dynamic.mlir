// RUN: tcc-opt %s -split-input-file --tcc-lower-to-tile=target=sm_80 | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-lower-to-tile=target=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: tcc-opt %s -split-input-file --tcc-lower-to-tile="target=sm_90 dynamic-extent=256" | FileCheck %s --check-prefix=SMALL

// Kernels of dynamic sizes: the memrefs keep their ? dims (the lowering passes
// them as arguments), the grid is an expression of the size symbols the
// host evaluates per launch, tails are masked by the memrefs' bounds.

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: tile.func @exp(%{{.*}}: memref<?x64xf32>, %{{.*}}: memref<?x64xf32>)
// CHECK-SAME: tcc.grid = ["cdiv(s0, 32)", 1, 1]
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", 64], ["s0", 64]]
func.func @exp(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: tile.func @row_sum(%{{.*}}: memref<?x512xf32>, %{{.*}}: memref<?xf32>)
// CHECK-SAME: tcc.grid = ["cdiv(s0, 4)", 1, 1]
// CHECK-SAME: form = row_reduction
func.func @row_sum(%x: tensor<?x512xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x512xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x512xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
// Rows over two dynamic dims: their product.
// CHECK-LABEL: tile.func @softmax(
// CHECK-SAME: tcc.grid = ["cdiv(s0 * s1, 2)", 1, 1]
// CHECK-SAME: form = softmax
func.func @softmax(%x: tensor<?x?x1000xf32>) -> tensor<?x?x1000xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x1000xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?x1000xf32>
  %e = tensor.empty(%b, %m) : tensor<?x?x1000xf32>
  %r = linalg.softmax dimension(2) ins(%x : tensor<?x?x1000xf32>) outs(%e : tensor<?x?x1000xf32>) -> tensor<?x?x1000xf32>
  return %r : tensor<?x?x1000xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
// M dynamic: the grouped program order counts its row blocks at run time.
// On sm_90 the persistent wgmma walk counts its tiles at run time and the
// grid is about one program per SM.
// SM90-LABEL: tile.func @matmul(
// SM90-SAME: tcc.grid = ["min(cdiv(s0, 128) * 2, 132)", 1, 1]
// SM90: memref.dim %arg0, %{{.*}} : memref<?x256xf16>
// Planned for M up to 256 (dynamic-extent, tcc.jit's small class): smaller
// blocks, more programs.
// SMALL-LABEL: tile.func @matmul(
// SMALL-SAME: tcc.grid = ["min(cdiv(s0, 128) * 4, 132)", 1, 1]
// SMALL-SAME: block = [128, 128, 64]
// SM90: tile.tma_load
// SM90: tile.warpgroup_dot
// CHECK-LABEL: tile.func @matmul(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x256xf16>, %{{.*}}: memref<256x512xf16>, %{{.*}}: memref<?x512xf32>)
// CHECK-SAME: tcc.grid = ["cdiv(s0, 128) * 4", 1, 1]
// CHECK: %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x256xf16>
// CHECK: arith.addi %[[M]]
// CHECK: tile.dot
func.func @matmul(%a: tensor<?x256xf16>, %w: tensor<256x512xf16>) -> tensor<?x512xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x256xf16>
  %e = tensor.empty(%m) : tensor<?x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x256xf16>, tensor<256x512xf16>) outs(%f : tensor<?x512xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x512xf32>
  return %r : tensor<?x512xf32>
}

// -----

#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// A batched NT GEMM of dynamic batch and M. On sm_80 one mma.sync kernel
// reading w as stored (each batch's [512, 256] slice through its transposed
// view: no transpose kernel); batch index pid / (cdiv(M, 128) * 4), its row
// blocks counted from A's rows, dim 1. On sm_90 one wgmma kernel: the
// walk's tile count is A's batch times its row blocks times 2.
// CHECK-LABEL: tile.func @bmm_nt(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?x256xf16>, %[[W:[a-z0-9]+]]: memref<?x512x256xf16>
// CHECK-SAME: tcc.grid = ["s0 * cdiv(s1, 128) * 4", 1, 1]
// CHECK: %[[M:.*]] = memref.dim %[[A]], %c1 : memref<?x?x256xf16>
// CHECK: %[[RB:.*]] = arith.divui %{{.*}}, %c128
// CHECK: %[[PER:.*]] = arith.muli %[[RB]], %c4
// CHECK: arith.divui %{{.*}}, %[[PER]]
// CHECK: arith.remui %{{.*}}, %[[PER]]
// CHECK: %[[WS:.*]] = memref.subview %[[W]]
// CHECK: %[[WT:.*]] = memref.transpose %[[WS]] (d0, d1) -> (d1, d0) : memref<512x256xf16, strided<[256, 1], offset: ?>> to memref<256x512xf16, strided<[1, 256], offset: ?>>
// CHECK: tile.async_copy %[[WT]]{{.*}} layout #{{.*}} : memref<256x512xf16, strided<[1, 256], offset: ?>> -> !tile.shared_buffer<3x64x128xf16, #{{.*}}>
// CHECK: tile.dot
// SM90-LABEL: tile.func @bmm_nt(
// SM90-SAME: %[[A:[a-z0-9]+]]: memref<?x?x256xf16>, %{{.*}}: memref<?x512x256xf16>
// SM90-SAME: tcc.grid = ["min(s0 * cdiv(s1, 128) * 2, 132)", 1, 1]
// SM90: memref.dim %[[A]], %c1
// SM90: %[[PER:.*]] = arith.muli %{{.*}}, %c2
// SM90: %[[B:.*]] = memref.dim %[[A]], %c0
// SM90: arith.muli %[[B]], %[[PER]]
// SM90: tile.warpgroup_dot
func.func @bmm_nt(%a: tensor<?x?x256xf16>, %w: tensor<?x512x256xf16>) -> tensor<?x?x512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %b = tensor.dim %a, %c0 : tensor<?x?x256xf16>
  %m = tensor.dim %a, %c1 : tensor<?x?x256xf16>
  %e = tensor.empty(%b, %m) : tensor<?x?x512xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?x512xf32>) -> tensor<?x?x512xf32>
  %r = linalg.generic {indexing_maps = [#bmk, #bnk, #bmn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<?x?x256xf16>, tensor<?x512x256xf16>) outs(%f : tensor<?x?x512xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?x512xf32>
  return %r : tensor<?x?x512xf32>
}

// -----

#in = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// A transpose of dynamic rows: the tiles along them are counted from the
// input's dim at run time (2 x cdiv(M, 64) programs), tails masked by the
// memrefs' bounds.
// CHECK-LABEL: tile.func @transpose(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x96xf32>, %{{.*}}: memref<96x?xf32>)
// CHECK-SAME: tcc.grid = ["2 * cdiv(s0, 64)", 1, 1]
// CHECK: %[[M:.*]] = memref.dim %[[X]], %c0 : memref<?x96xf32>
// CHECK: %[[T:.*]] = arith.divui %{{.*}}, %c64
// CHECK: %[[PER:.*]] = arith.muli %[[T]], %c2
// CHECK: arith.remui %{{.*}}, %[[PER]]
// CHECK: memref.transpose %[[X]]
// CHECK: tile.convert_layout
func.func @transpose(%x: tensor<?x96xf32>) -> tensor<96x?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e = tensor.empty(%m) : tensor<96x?xf32>
  %r = linalg.generic {indexing_maps = [#in, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x96xf32>) outs(%e : tensor<96x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<96x?xf32>
  return %r : tensor<96x?xf32>
}

// -----

// A dynamic batch too: B programs (the grid's symbol; one column block),
// program b starting at row b * R of the [B * R, N] view.
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: tile.func @batched_column_max(
// CHECK-SAME: %[[X:.*]]: memref<?x?x96xf32>, %{{.*}}: memref<?x96xf32>)
// CHECK-SAME: tcc.grid = ["s0", 1, 1]
// CHECK-SAME: tcc.shape_symbols = {{\[}}["s0", "s1", 96], ["s0", 96]]
// CHECK: %[[B:.*]] = arith.index_cast
// CHECK: %[[R:.*]] = memref.dim %[[X]], %c1
// CHECK: arith.muli %[[B]], %[[R]]
// CHECK: scf.for
// CHECK: arith.maximumf
func.func @batched_column_max(%x: tensor<?x?x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0xFF800000 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x96xf32>
  %e = tensor.empty(%b) : tensor<?x96xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<?x?x96xf32>) outs(%f : tensor<?x96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}
