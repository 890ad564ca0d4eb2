// RUN: tcc-opt %s -split-input-file --tcc-split-reduction | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-split-reduction="target-programs=64 min-row-chunk=1024" | FileCheck %s --check-prefix=SMALL

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>

// A sum of every element: a one-row reduction of the flattened input, split
// into 1024 partial rows of 262144 elements (2^28 / target-programs), then
// the sum of the partials into the original fill; the scalar is a reshape.
// CHECK-LABEL: func.func @full_sum(
// CHECK-SAME:    %[[X:.*]]: tensor<16384x16384xf32>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<16384x16384xf32> into tensor<268435456xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [1, 1024, 262144]
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1024xf32>)
// CHECK:         %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[E]] : tensor<1x1024x262144xf32>) outs(%[[ZEROS]] : tensor<1x1024xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[P]] : tensor<1x1024xf32>) outs(%[[INIT]] : tensor<1xf32>)
// CHECK-NOT:       arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[S]] [] : tensor<1xf32> into tensor<f32>
// CHECK:         return %[[R]]
// SMALL-LABEL: func.func @full_sum(
// SMALL:         output_shape [1, 64, 4194304]
func.func @full_sum(%x: tensor<16384x16384xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<16384x16384xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %two : f32
    %r = arith.addf %d, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>

// A column sum of a tall matrix (8 outputs): S = 1024 chunks of 8192 rows,
// the partials [1024, 8] at the reduced dim's place, then a column sum of
// them. A fill other than the neutral element is folded in by the final
// reduction only.
// CHECK-LABEL: func.func @tall_column_sum(
// CHECK:         %[[ONE:.*]] = arith.constant 1.0
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}}outs(%{{.*}} : tensor<8xf32>)
// CHECK:           linalg.yield %[[ONE]]
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1024, 8192, 8] : tensor<8388608x8xf32> into tensor<1024x8192x8xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%[[ZERO:.*]] : f32) outs(%{{.*}} : tensor<1024x8xf32>)
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[PMAP:.*]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[E]] : {{.*}}) outs(%[[Z]] : tensor<1024x8xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[P]] : tensor<1024x8xf32>) outs(%[[INIT]] : tensor<8xf32>)
func.func @tall_column_sum(%x: tensor<8388608x8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %i = tensor.empty() : tensor<8xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%i : tensor<8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %one : f32
  } -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8388608x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>

// A few long rows (4 outputs): each row in 64 chunks of min-row-chunk
// (16384) elements; an operand read per column is split the same way; the
// final reduction keeps the combiner (a max).
// CHECK-LABEL: func.func @long_rows(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x1048576xf32>, %[[W:[^:]*]]: tensor<1048576xf32>
// CHECK-DAG:     %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1, 2]] output_shape [4, 64, 16384]
// CHECK-DAG:     %[[WE:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1]] output_shape [64, 16384]
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID3:.*]], #[[COLS3:.*]], #[[ROWS3:.*]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XE]], %[[WE]] : {{.*}}) outs(%{{.*}} : tensor<4x64xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<4x64xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.maximumf
func.func @long_rows(%x: tensor<4x1048576xf32>, %w: tensor<1048576xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %i = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%i : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #cols, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<4x1048576xf32>, tensor<1048576xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.maximumf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Not split: enough rows to fill the GPU; rows whose chunks would be
// shorter than min-row-chunk; a reduced extent with no divisor up to the
// factor wanted (2^20 - 3);
// a reduction read back over the reduced space (a normalization's
// statistics, which stay in their row program).
// CHECK-LABEL: func.func @not_split(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return
func.func @not_split(%many: tensor<4096x65536xf32>, %short: tensor<4x16384xf32>,
                     %prime: tensor<2x1048573xf32>, %norm: tensor<4x1048576xf32>)
    -> (tensor<4096xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4x1048576xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4096xf32>) -> tensor<4096xf32>
  %a = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%many : tensor<4096x65536xf32>) outs(%f : tensor<4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  %j = tensor.empty() : tensor<4xf32>
  %g = linalg.fill ins(%zero : f32) outs(%j : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<4x16384xf32>) outs(%g : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %k = tensor.empty() : tensor<2xf32>
  %h = linalg.fill ins(%zero : f32) outs(%k : tensor<2xf32>) -> tensor<2xf32>
  %c = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%prime : tensor<2x1048573xf32>) outs(%h : tensor<2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %d = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%norm : tensor<4x1048576xf32>) outs(%g : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x1048576xf32>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%norm, %d : tensor<4x1048576xf32>, tensor<4xf32>) outs(%e : tensor<4x1048576xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.subf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x1048576xf32>
  return %a, %b, %c, %y : tensor<4096xf32>, tensor<4xf32>, tensor<2xf32>, tensor<4x1048576xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>

// A small reduction of every dim is one row, not split.
// CHECK-LABEL: func.func @small_full_max(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<30x7xf32> into tensor<210xf32>
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 210]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<1xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @small_full_max(%x: tensor<30x7xf32>) -> tensor<f32> {
  %ninf = arith.constant 0xFF800000 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%ninf : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<30x7xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0)>

// A reduction of the two trailing dims is a row reduction of the collapsed
// input (not split: 8 rows of 1500).
// CHECK-LABEL: func.func @trailing_dims(
// CHECK-SAME:    %[[X:.*]]: tensor<8x30x50xf32>
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<8x30x50xf32> into tensor<8x1500xf32>
// CHECK:         %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[C]] : tensor<8x1500xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         return %[[S]]
func.func @trailing_dims(%x: tensor<8x30x50xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#x3, #r3], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x30x50xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A 1-D sum to a scalar: one row [1, 100000], split in 5 chunks of 20000
// (the largest divisor up to 100000 / min-row-chunk).
// CHECK-LABEL: func.func @vector_sum(
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [1, 5, 20000]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @vector_sum(%x: tensor<100000xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<100000xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mid = affine_map<(d0, d1, d2) -> (d1)>

// Reduced dims that are not one run ([R, P, R]: x.sum((0, 2))): the
// innermost run first, into neutral partials over the other dims (a row
// reduction [3, 4, 5] -> [3, 4], the body's prologue in it), then the rest
// with the combiner alone into the original init (a column reduction).
// CHECK-LABEL: func.func @not_one_run(
// CHECK-SAME:    %[[X:.*]]: tensor<3x4x5xf32>
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK:         %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<3x4x5xf32>) outs(%[[Z]] : tensor<3x4xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[P]] : tensor<3x4xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NOT:       math.exp
// CHECK:           arith.addf
func.func @not_one_run(%x: tensor<3x4x5xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %i = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%i : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#x3, #mid], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : tensor<3x4x5xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    %r = arith.addf %e, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>

// A sum of every element of x * b (b per column) cannot flatten b: the last
// dim is reduced first (a row reduction reading b per column), then the
// per-row sums as one row.
// CHECK-LABEL: func.func @weighted_sum(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<300x40xf32>, %[[B:[^:]*]]: tensor<40xf32>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[B]] : {{.*}}) outs(%{{.*}} : tensor<300xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1]] output_shape [1, 300]
// CHECK:         %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<1x300xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK:         tensor.collapse_shape %[[S]] [] : tensor<1xf32> into tensor<f32>
func.func @weighted_sum(%x: tensor<300x40xf32>, %b: tensor<40xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #cols, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x, %b : tensor<300x40xf32>, tensor<40xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %w: f32, %o: f32):
    %p = arith.mulf %a, %w : f32
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

#x1 = affine_map<(d0) -> (d0)>
#s1 = affine_map<(d0) -> ()>

// An argmax of every element (x.argmax(): of the flattened input, one
// reduced loop): a one-row arg reduction [1, N] -> [1], then split into 4
// partial rows of 16384 whose element index is the original loop's
// (s * 16384 + k); the final reduction chooses among the 4 (value, index)
// partials with the body's own choice (the partial pair as the element)
// into the original fills; the scalars are reshapes of the [1] results.
// CHECK-LABEL: func.func @full_argmax(
// CHECK-SAME:    %[[X:.*]]: tensor<65536xf32>
// CHECK-DAG:     %[[FV:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>)
// CHECK-DAG:     %[[FI:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<1xi64>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1, 2]] output_shape [1, 4, 16384]
// CHECK:         %[[PV:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4xf32>)
// CHECK:         %[[PI:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<1x4xi64>)
// CHECK:         %[[P:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[E]] : tensor<1x4x16384xf32>) outs(%[[PV]], %[[PI]] : tensor<1x4xf32>, tensor<1x4xi64>)
// CHECK:           %[[S:.*]] = linalg.index 1 : index
// CHECK:           %[[S64:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK:           %[[K:.*]] = linalg.index 2 : index
// CHECK:           %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK:           %[[BASE:.*]] = arith.muli %[[S64]], %c16384_i64 : i64
// CHECK:           %[[IDX:.*]] = arith.addi %[[BASE]], %[[K64]] : i64
// CHECK:           arith.cmpi slt, %[[IDX]], %{{.*}} : i64
// CHECK:         %[[F:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[P]]#0, %[[P]]#1 : tensor<1x4xf32>, tensor<1x4xi64>) outs(%[[FV]], %[[FI]] : tensor<1xf32>, tensor<1xi64>)
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32, %[[I:.*]]: i64, %[[ACC:.*]]: f32, %[[ACCI:.*]]: i64):
// CHECK-NOT:       linalg.index
// CHECK:           arith.cmpi slt, %[[I]], %[[ACCI]] : i64
// CHECK:           arith.cmpf ogt, %[[V]], %[[ACC]] : f32
// CHECK:           %[[RV:.*]] = arith.select %{{.*}}, %[[V]], %[[ACC]] : f32
// CHECK:           %[[RI:.*]] = arith.select %{{.*}}, %[[I]], %[[ACCI]] : i64
// CHECK:           linalg.yield %[[RV]], %[[RI]] : f32, i64
// CHECK:         %[[RV0:.*]] = tensor.collapse_shape %[[F]]#0 [] : tensor<1xf32> into tensor<f32>
// CHECK:         %[[RI0:.*]] = tensor.collapse_shape %[[F]]#1 [] : tensor<1xi64> into tensor<i64>
// CHECK:         return %[[RV0]], %[[RI0]]
// SMALL-LABEL: func.func @full_argmax(
// SMALL:         output_shape [1, 64, 1024]
// SMALL:         arith.muli %{{.*}}, %c1024_i64 : i64
func.func @full_argmax(%x: tensor<65536xf32>) -> (tensor<f32>, tensor<i64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %imax = arith.constant 9223372036854775807 : i64
  %e0 = tensor.empty() : tensor<f32>
  %fv = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %e1 = tensor.empty() : tensor<i64>
  %fi = linalg.fill ins(%imax : i64) outs(%e1 : tensor<i64>) -> tensor<i64>
  %r:2 = linalg.generic {indexing_maps = [#x1, #s1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<65536xf32>) outs(%fv, %fi : tensor<f32>, tensor<i64>) {
  ^bb0(%a: f32, %acc: f32, %ai: i64):
    %j = linalg.index 0 : index
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
  } -> (tensor<f32>, tensor<i64>)
  return %r#0, %r#1 : tensor<f32>, tensor<i64>
}

// -----

// A full reduction whose prologue was fused into it (x * x + out is no
// plain combiner) and a pointwise op on its rank-0 value (the mean's
// division) run over one row: a leading unit loop, [1, 3] -> [1] and
// [1] -> [1], the rank-0 values reshapes of the [1] results.
// CHECK-LABEL: func.func @scalar_results(
// CHECK:         %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK:         %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<1x3xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[S]] : tensor<1xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK:           arith.divf
// CHECK:         tensor.collapse_shape %[[M]] [] : tensor<1xf32> into tensor<f32>
#id = affine_map<(d0) -> (d0)>
#to0 = affine_map<(d0) -> ()>
#s = affine_map<() -> ()>
func.func @scalar_results(%x: tensor<3xf32>) -> tensor<f32> {
  %zero = arith.constant 0.000000e+00 : f32
  %three = arith.constant 3.000000e+00 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #to0], iterator_types = ["reduction"]} ins(%x : tensor<3xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    %a = arith.addf %m, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [#s, #s], iterator_types = []} ins(%sum : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.divf %in, %three : f32
    linalg.yield %d : f32
  } -> tensor<f32>
  return %mean : tensor<f32>
}

// -----

// A matmul with 128 outputs and K = 65536 (a GEMV-like nn.Linear of one
// row): a contraction is never split (its partials [1, 128, S] would be no
// kernel form's; the GEMM forms walk K).
// CHECK-LABEL: func.func @long_k_matmul(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT:     linalg.generic
// CHECK:         return
// SMALL-LABEL: func.func @long_k_matmul(
// SMALL-NOT:     tensor.expand_shape
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @long_k_matmul(%x: tensor<1x65536xf32>, %w: tensor<65536x128xf32>) -> tensor<1x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128xf32>) -> tensor<1x128xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x65536xf32>, tensor<65536x128xf32>) outs(%f : tensor<1x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128xf32>
  return %y : tensor<1x128xf32>
}
