// The online softmax (rows past max-softmax-columns, walk = looped): the
// first walk keeps a running max m and sum s per element position with one
// exp per element, d = exp(min(m, x) - max(m, x)), and s = x > m ? s * d + 1
// : s + d; the positions merge (one exp), the second walk writes
// exp(x - M) / S (one exp per element). Each exp is exp2 of the difference
// times log2 e (one ex2 instruction).
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=max-softmax-columns=1024 --convert-linalg-to-tile | FileCheck %s

// CHECK-LABEL: tile.func @online
// CHECK:         %[[W:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}})
// CHECK:           %[[X:.*]] = tile.memref_load
// CHECK:           %[[HI:.*]] = arith.maximumf %[[M]], %[[X]]
// CHECK:           %[[LO:.*]] = arith.minimumf %[[M]], %[[X]]
// CHECK:           %[[DIFF:.*]] = arith.subf %[[LO]], %[[HI]]
// CHECK:           %[[SCALED:.*]] = arith.mulf %[[DIFF]], %{{.*}}
// CHECK:           %[[D:.*]] = math.exp2 %[[SCALED]]
// CHECK-NOT:       math.exp
// CHECK:           %[[GROWS:.*]] = arith.cmpf ogt, %[[X]], %[[M]]
// CHECK:           %[[SD:.*]] = arith.mulf %[[S]], %[[D]]
// CHECK:           %[[RESCALED:.*]] = arith.addf %[[SD]], %{{.*}}
// CHECK:           %[[ADDED:.*]] = arith.addf %[[S]], %[[D]]
// CHECK:           %[[NEW:.*]] = arith.select %[[GROWS]], %[[RESCALED]], %[[ADDED]]
// CHECK:           scf.yield %[[HI]], %[[NEW]]
// CHECK:         tile.reduce %[[W]]#0
// CHECK:         math.exp2
// CHECK:         tile.reduce
// CHECK:         scf.for
// CHECK:           math.exp2
// CHECK-NOT:     math.exp
// CHECK:         tile.return
func.func @online(%x: tensor<4x5000xf32>) -> tensor<4x5000xf32> {
  %e = tensor.empty() : tensor<4x5000xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x5000xf32>) outs(%e : tensor<4x5000xf32>) -> tensor<4x5000xf32>
  return %0 : tensor<4x5000xf32>
}
