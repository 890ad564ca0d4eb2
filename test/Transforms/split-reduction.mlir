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
