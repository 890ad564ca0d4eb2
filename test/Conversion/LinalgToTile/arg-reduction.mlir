// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>

// x.max(-1) of 64x1000 (values and indices, as tcc-to-linalg writes it): a
// row reduction. (value, index) accumulators start at the fills (-inf,
// INT64_MAX); each chunk's element index is the column (arange + k, as
// i64), folded in with the body's choice (NaN wins, the lower index on
// ties); columns past the row's end keep the accumulator; then one
// tile.reduce of both along the rows with the same choice as combiner, and
// both results are stored.
// CHECK-LABEL: tile.func @row_argmax(
// CHECK-SAME:    %[[X:[^:]*]]: memref<64x1000xf32>, %[[V:[^:]*]]: memref<64xf32>, %[[I:[^:]*]]: memref<64xi64>
// CHECK-SAME:    tcc.grid = array<i64: 16, 1, 1>
// CHECK-SAME:    form = row_reduction, block = [4, 512]
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[A0:.*]] = tile.splat %[[NEGINF]] : f32 -> tensor<4x512xf32, #[[B:.*]]>
// CHECK:         %[[IMAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK:         %[[I0:.*]] = tile.splat %[[IMAX]] : i64 -> tensor<4x512xi64, #[[B]]>
// CHECK:         %[[ACC:.*]]:2 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]], %[[AI:.*]] = %[[I0]])
// CHECK:           %[[T:.*]] = tile.memref_load %[[X]]
// CHECK:           tile.arange {end = 512 : i32, start = 0 : i32}
// CHECK:           arith.index_cast %[[K]] : index to i32
// CHECK:           %[[IDX:.*]] = arith.extsi %{{.*}} : tensor<4x512xi32, #[[B]]> to tensor<4x512xi64, #[[B]]>
// CHECK:           arith.cmpi slt, %[[IDX]], %[[AI]]
// CHECK:           arith.cmpf uno, %[[T]], %[[T]]
// CHECK:           arith.cmpf ogt, %[[T]], %[[A]]
// CHECK:           arith.cmpf oeq, %[[T]], %[[A]]
// CHECK:           arith.andi
// CHECK-NEXT:      %[[TAKE:.*]] = arith.ori
// CHECK-NEXT:      %[[NV:.*]] = arith.select %[[TAKE]], %[[T]], %[[A]]
// CHECK:           %[[NI:.*]] = arith.select %[[TAKE]], %[[IDX]], %[[AI]]
// CHECK:           %[[IN:.*]] = tile.broadcast %{{.*}} : tensor<1x512xi1, #[[B]]> -> tensor<4x512xi1, #[[B]]>
// CHECK:           %[[MV:.*]] = arith.select %[[IN]], %[[NV]], %[[A]]
// CHECK:           %[[MI:.*]] = arith.select %[[IN]], %[[NI]], %[[AI]]
// CHECK:           scf.yield %[[MV]], %[[MI]]
// CHECK:         %[[R:.*]]:2 = tile.reduce %[[ACC]]#0, %[[ACC]]#1 {axis = 1 : i32} ({
// CHECK-NEXT:    ^bb0(%[[LV:.*]]: f32, %[[LI:.*]]: i64, %[[RV:.*]]: f32, %[[RI:.*]]: i64):
// CHECK:           arith.cmpi slt, %[[RI]], %[[LI]] : i64
// CHECK:           arith.cmpf ogt, %[[RV]], %[[LV]] : f32
// CHECK:           %[[CV:.*]] = arith.select %{{.*}}, %[[RV]], %[[LV]] : f32
// CHECK:           %[[CI:.*]] = arith.select %{{.*}}, %[[RI]], %[[LI]] : i64
// CHECK:           tile.reduce.return %[[CV]], %[[CI]] : f32, i64
// CHECK:         tile.memref_store %[[V]][%{{.*}}], %[[R]]#0
// CHECK:         tile.memref_store %[[I]][%{{.*}}], %[[R]]#1
func.func @row_argmax(%x: tensor<64x1000xf32>) -> (tensor<64xf32>, tensor<64xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %imax = arith.constant 9223372036854775807 : i64
  %e0 = tensor.empty() : tensor<64xf32>
  %fv = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xi64>
  %fi = linalg.fill ins(%imax : i64) outs(%e1 : tensor<64xi64>) -> tensor<64xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1000xf32>) outs(%fv, %fi : tensor<64xf32>, tensor<64xi64>) {
  ^bb0(%a: f32, %acc: f32, %ai: i64):
    %j = linalg.index 1 : index
    %i = arith.index_cast %j : index to i64
    %earlier = arith.cmpi slt, %i, %ai : i64
    %anan = arith.cmpf uno, %a, %a : f32
    %accnum = arith.cmpf ord, %acc, %acc : f32
    %gt = arith.cmpf ogt, %a, %acc : f32
    %nanwins = arith.andi %anan, %accnum : i1
    %better = arith.ori %nanwins, %gt : i1
    %accnan = arith.cmpf uno, %acc, %acc : f32
    %bothnan = arith.andi %anan, %accnan : i1
    %oeq = arith.cmpf oeq, %a, %acc : f32
    %eq = arith.ori %bothnan, %oeq : i1
    %tie = arith.andi %eq, %earlier : i1
    %take = arith.ori %better, %tie : i1
    %v = arith.select %take, %a, %acc : f32
    %k = arith.select %take, %i, %ai : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<64xf32>, tensor<64xi64>)
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xi64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// x.argmin(0) of 300x77: a column reduction whose element index is the
// row (r + arange down the chunk); the values have no output buffer (not
// stored); two whole chunks in a loop, then the masked tail (its rows past
// 300 keep the accumulator); the tile.reduce along the rows combines both.
// CHECK-LABEL: tile.func @column_argmin(
// CHECK-SAME:    %[[X:[^:]*]]: memref<300x77xf32>, %[[I:[^:]*]]: memref<77xi64>
// CHECK-SAME:    form = column_reduction, block = [128, 32]
// CHECK:         %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK:         scf.for %[[R0:.*]] = %c0 to %c256 step %c128 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<128x32xf32, #{{.*}}>, tensor<128x32xi64, #{{.*}}>)
// CHECK:           tile.memref_load %[[X]]
// CHECK:           tile.arange {end = 128 : i32, start = 0 : i32}
// CHECK:           arith.index_cast %[[R0]] : index to i32
// CHECK:           tile.expand_dims %{{.*}} {axis = 1 : i32}
// CHECK:           arith.extsi
// CHECK:           arith.cmpf olt
// CHECK:           scf.yield
// CHECK:         %[[MASK:.*]] = tile.broadcast %{{.*}} : tensor<{{.*}}x1xi1, #{{.*}}> -> tensor<{{.*}}xi1, #{{.*}}>
// CHECK:         tile.memref_load %[[X]][%{{.*}}, %{{.*}}], %[[MASK]]
// CHECK:         arith.select %[[MASK]]
// CHECK:         arith.select %[[MASK]]
// CHECK:         %[[R:.*]]:2 = tile.reduce %{{.*}}, %{{.*}} {axis = 0 : i32}
// CHECK:         tile.reduce.return %{{.*}}, %{{.*}} : f32, i64
// CHECK:         %[[OUT:.*]] = tile.expand_dims %[[R]]#1 {axis = 0 : i32}
// CHECK-NOT:     tile.memref_store %{{.*}}, %{{.*}}xf32
// CHECK:         tile.memref_store %{{.*}}, %[[OUT]]
func.func @column_argmin(%x: tensor<300x77xf32>) -> tensor<77xi64> {
  %inf = arith.constant 0x7F800000 : f32
  %imax = arith.constant 9223372036854775807 : i64
  %e0 = tensor.empty() : tensor<77xf32>
  %fv = linalg.fill ins(%inf : f32) outs(%e0 : tensor<77xf32>) -> tensor<77xf32>
  %e1 = tensor.empty() : tensor<77xi64>
  %fi = linalg.fill ins(%imax : i64) outs(%e1 : tensor<77xi64>) -> tensor<77xi64>
  %r:2 = linalg.generic {indexing_maps = [#id, #cols, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<300x77xf32>) outs(%fv, %fi : tensor<77xf32>, tensor<77xi64>) {
  ^bb0(%a: f32, %acc: f32, %ai: i64):
    %j = linalg.index 0 : index
    %i = arith.index_cast %j : index to i64
    %earlier = arith.cmpi slt, %i, %ai : i64
    %anan = arith.cmpf uno, %a, %a : f32
    %accnum = arith.cmpf ord, %acc, %acc : f32
    %lt = arith.cmpf olt, %a, %acc : f32
    %nanwins = arith.andi %anan, %accnum : i1
    %better = arith.ori %nanwins, %lt : i1
    %accnan = arith.cmpf uno, %acc, %acc : f32
    %bothnan = arith.andi %anan, %accnan : i1
    %oeq = arith.cmpf oeq, %a, %acc : f32
    %eq = arith.ori %bothnan, %oeq : i1
    %tie = arith.andi %eq, %earlier : i1
    %take = arith.ori %better, %tie : i1
    %v = arith.select %take, %a, %acc : f32
    %k = arith.select %take, %i, %ai : i64
    linalg.yield %v, %k : f32, i64
  } -> (tensor<77xf32>, tensor<77xi64>)
  return %r#1 : tensor<77xi64>
}

