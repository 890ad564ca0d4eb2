// RUN: tcc-opt %s -split-input-file --tcc-lower-to-tile="target=sm_80 dynamic-extent=256" | FileCheck %s

// Column reductions of dynamic rows planned short (dynamic-extent below the
// 1024 rows where a static twin of few column programs is split; planned
// longer they are refused, dynamic-invalid.mlir).

// A column reduction of dynamic rows: the walk runs to R - R % BM (R from
// the operand), the last chunk always masked (rows < R); one program per
// column block.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: tile.func @column_sum(
// CHECK-SAME: %[[X:.*]]: memref<?x64xf32>, %{{.*}}: memref<64xf32>)
// CHECK-SAME: tcc.grid = array<i64: 1, 1, 1>
// CHECK-SAME: form = column_reduction
// CHECK: %[[R:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[REM:.*]] = arith.remui %[[R]], %c64
// CHECK: %[[WHOLE:.*]] = arith.subi %[[R]], %[[REM]]
// CHECK: scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c64
// CHECK: %[[LIMIT:.*]] = arith.index_cast %[[R]] : index to i32
// CHECK: %[[LIMITS:.*]] = tile.splat %[[LIMIT]]
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %[[LIMITS]]
// CHECK: %[[MASK2:.*]] = tile.expand_dims %[[MASK]]
// CHECK: %[[MASK3:.*]] = tile.broadcast %[[MASK2]]
// CHECK: tile.memref_load %[[X]][%{{.*}}, %c0], %[[MASK3]]
// CHECK: tile.reduce
func.func @column_sum(%x: tensor<?x64xf32>) -> tensor<64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----
// A mean over dynamic rows: the divisor (the host's sitofp(index_cast(dim)))
// is rebuilt in the program from the operand's memref.
#in = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: tile.func @column_mean(
// CHECK-SAME: %[[X:.*]]: memref<?x32xf32>
// CHECK: %[[R:.*]] = memref.dim %[[X]], %c0
// CHECK: tile.reduce
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : index to i64
// CHECK: %[[RF:.*]] = arith.sitofp %[[RI]] : i64 to f32
// CHECK: %[[RS:.*]] = tile.splat %[[RF]]
// CHECK: arith.divf %{{.*}}, %[[RS]]
func.func @column_mean(%x: tensor<?x32xf32>) -> tensor<32xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#in, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %m = tensor.dim %x, %c0 : tensor<?x32xf32>
  %mi = arith.index_cast %m : index to i64
  %mf = arith.sitofp %mi : i64 to f32
  %e2 = tensor.empty() : tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%sum : tensor<32xf32>) outs(%e2 : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %mf : f32
    linalg.yield %d : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}
