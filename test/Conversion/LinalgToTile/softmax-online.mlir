// The online softmax (rows past max-softmax-columns, walk = looped): the
// first walk keeps a running max m and sum s per element position with one
// exp per element, d = exp(min(m, x) - max(m, x)), and s = x > m ? s * d + 1
// : s + d; the positions merge (one exp), the second walk writes
// exp(x - M) / S (one exp per element). Each exp is exp2 of the difference
// times log2 e (one ex2 instruction).
// With walk = staged (what tcc-select-strategy picks with asynchronous
// copies and a row that fits in shared memory), the walks read the row from
// a copy there, made once.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy=max-softmax-columns=1024 --convert-linalg-to-tile --canonicalize | FileCheck %s

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
  %0 = "linalg.softmax"(%x, %e) <{dimension = 1 : i64}> {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = looped>} : (tensor<4x5000xf32>, tensor<4x5000xf32>) -> tensor<4x5000xf32>
  return %0 : tensor<4x5000xf32>
}

// -----

// walk = staged, on [1, 2048] chunks: rows of 5001 f32 start at any
// multiple of 4 bytes, so the program copies its row from the 16-byte
// aligned element before it (m0 * n - misalign, through a flat [1, rows * n]
// view) into ceil((5001 + 3) / 2048) = 3 slots, one asynchronous copy and
// one commit group each. The max walk is unrolled over the slots and reads
// slot i once its group has landed (pending = 3 - 1 - i), so it overlaps
// the row's arrival; it masks (columns outside [0, n), one unsigned
// compare, read as the lowest value) the first slot (it starts before the
// row) and the last (it may end past it). The other two walks (the sum of
// exp(x - max), approximate: summed; the quotients, exact exps: f32) read
// slot (k - start) / 2048 and mask their first chunk and their tail from
// start + 2048 * floor((n - start) / 2048) on; the chunks between are whole.
// CHECK-LABEL: tile.func @staged
// CHECK-SAME: walk = staged
// CHECK:         %[[MIS:.*]] = arith.remui %{{.*}}, %c4
// CHECK:         %[[START:.*]] = arith.subi %c0, %[[MIS]]
// CHECK:         %[[BUF:.*]] = tile.shared_alloc : !tile.shared_buffer<3x1x2048xf32, #shared>
// CHECK:         %[[FLAT:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 20004] : memref<20004xf32> into memref<1x20004xf32>
// CHECK:         %[[FIRST:.*]] = arith.subi %{{.*}}, %[[MIS]]
// CHECK:         scf.for %[[SLOT:.*]] = %c0 to %c3 step %c1 {
// CHECK:           %[[OFF:.*]] = arith.muli %[[SLOT]], %c2048
// CHECK:           %[[COL:.*]] = arith.addi %[[FIRST]], %[[OFF]]
// CHECK:           tile.async_copy %[[FLAT]][%c0, %[[COL]]], %[[BUF]][%[[SLOT]]] layout #blocked
// CHECK-NEXT:      tile.async_commit_group
// CHECK-NEXT:    }
// CHECK:         %[[SECOND:.*]] = arith.subi %c2048, %[[MIS]]
// CHECK:         %[[LEFT:.*]] = arith.addi %[[MIS]], %c5001
// CHECK:         %[[WHOLE:.*]] = arith.divui %[[LEFT]], %c2048
// CHECK:         %[[SPAN:.*]] = arith.muli %[[WHOLE]], %c2048
// CHECK:         %[[TAIL:.*]] = arith.addi %[[START]], %[[SPAN]]
// CHECK:         tile.async_wait {pending = 2 : i32}
// CHECK-NEXT:    %[[X0:.*]] = tile.shared_load %[[BUF]][%c0]
// CHECK:         arith.cmpi ult
// CHECK:         %[[M0:.*]] = arith.select %{{.*}}, %[[X0]], %{{.*}}
// CHECK-NEXT:    tile.async_wait {pending = 1 : i32}
// CHECK-NEXT:    %[[X1:.*]] = tile.shared_load %[[BUF]][%c1]
// CHECK-NEXT:    %[[M1:.*]] = arith.maximumf %[[M0]], %[[X1]]
// CHECK-NEXT:    tile.async_wait {pending = 0 : i32}
// CHECK:         %[[X2:.*]] = tile.shared_load %[[BUF]][%c2]
// CHECK:         arith.cmpi ult
// CHECK:         %[[T2:.*]] = arith.select %{{.*}}, %[[X2]], %{{.*}}
// CHECK-NEXT:    %[[M2:.*]] = arith.maximumf %[[M1]], %[[T2]]
// CHECK-NEXT:    tile.reduce %[[M2]]
// CHECK-NOT:     tile.async_wait
// CHECK:         math.exp2 %{{.*}} fastmath<afn>
// CHECK:         %[[MID:.*]] = scf.for %[[K:.*]] = %[[SECOND]] to %[[TAIL]] step %c2048 iter_args(
// CHECK:           %[[REL:.*]] = arith.subi %[[K]], %[[START]]
// CHECK:           %[[S1:.*]] = arith.divsi %[[REL]], %c2048
// CHECK:           tile.shared_load %[[BUF]][%[[S1]]]
// CHECK-NOT:       arith.cmpi
// CHECK:           math.exp2 %{{.*}} fastmath<afn>
// CHECK:           arith.addf
// CHECK-NEXT:      scf.yield
// CHECK:         scf.for %{{.*}} = %[[TAIL]] to %c5001 step %c2048 iter_args(%{{.*}} = %[[MID]])
// CHECK:           tile.shared_load %[[BUF]]
// CHECK:           arith.cmpi ult
// CHECK:           math.exp2 %{{.*}} fastmath<afn>
// CHECK:         tile.reduce
// CHECK:         math.exp2 %{{.*}} : tensor<1x2048xf32
// CHECK:         tile.memref_store
// CHECK:         scf.for
// CHECK:           tile.shared_load %[[BUF]]
// CHECK-NOT:       tile.memref_load
// CHECK:           math.exp2 %{{.*}} : tensor<1x2048xf32
// CHECK:           tile.memref_store
// CHECK:         scf.for
// CHECK:           tile.memref_store
// CHECK:         tile.return
func.func @staged(%x: tensor<4x5001xf32>) -> tensor<4x5001xf32> {
  %e = tensor.empty() : tensor<4x5001xf32>
  %0 = "linalg.softmax"(%x, %e) <{dimension = 1 : i64}> {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = staged>} : (tensor<4x5001xf32>, tensor<4x5001xf32>) -> tensor<4x5001xf32>
  return %0 : tensor<4x5001xf32>
}

// -----

// A staged f16 row: the max walk stays in f16 (exact; packed f16x2 maxima
// on NVIDIA), its per-position maxima extended to f32 once before the row's
// reduction; the sum and the quotients are computed in f32 as exp2(x *
// log2 e - c), an fma with one shift c = M * log2 e per row (its rounding
// cancels between the sum and the quotients), each quotient with -log2 S
// added to its exponent (no reciprocal).
// CHECK-LABEL: tile.func @staged_f16
// CHECK-SAME: walk = staged
// CHECK:         tile.async_wait {pending = 2 : i32}
// CHECK-NEXT:    %[[X0:.*]] = tile.shared_load %{{.*}} -> tensor<1x2048xf16, #{{.*}}>
// CHECK:         %[[M0:.*]] = arith.select %{{.*}}, %[[X0]], %{{.*}} : tensor<1x2048xi1, #{{.*}}>, tensor<1x2048xf16, #{{.*}}>
// CHECK-NOT:     arith.extf
// CHECK:         %[[M1:.*]] = arith.maximumf %[[M0]], %{{.*}} : tensor<1x2048xf16, #{{.*}}>
// CHECK-NOT:     arith.extf
// CHECK:         %[[LAST:.*]] = arith.maximumf %[[M1]], %{{.*}} : tensor<1x2048xf16, #{{.*}}>
// CHECK-NEXT:    %[[WIDE:.*]] = arith.extf %[[LAST]] : tensor<1x2048xf16, #{{.*}}> to tensor<1x2048xf32, #{{.*}}>
// CHECK:         %[[ROWMAX:.*]] = tile.reduce %[[WIDE]]
// CHECK:         %[[C:.*]] = arith.mulf %[[ROWMAX]], %{{.*}} : tensor<1xf32, #{{.*}}>
// CHECK:         %[[NC:.*]] = arith.negf %[[C]] : tensor<1xf32, #{{.*}}>
// CHECK:         scf.for
// CHECK:           %[[XS:.*]] = arith.extf
// CHECK-NOT:       arith.subf
// CHECK:           %[[T:.*]] = math.fma %[[XS]], %{{.*}}, %{{.*}} : tensor<1x2048xf32, #{{.*}}>
// CHECK:           math.exp2 %[[T]] fastmath<afn> : tensor<1x2048xf32, #{{.*}}>
// The quotients: exp2(fma(x, log2 e, -c) - log2 S), no reciprocal.
// CHECK:         %[[L:.*]] = math.log2 %{{.*}} : tensor<1xf32, #{{.*}}>
// CHECK:         %[[NL:.*]] = arith.negf %[[L]]
// CHECK-NOT:     arith.divf
// CHECK:         scf.for
// CHECK:           %[[T2:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x2048xf32, #{{.*}}>
// CHECK:           %[[E:.*]] = arith.addf %[[T2]], %{{.*}} : tensor<1x2048xf32, #{{.*}}>
// CHECK:           %[[Y:.*]] = math.exp2 %[[E]] fastmath<afn>
// CHECK:           arith.truncf %[[Y]] : tensor<1x2048xf32, #{{.*}}> to tensor<1x2048xf16, #{{.*}}>
// CHECK:           tile.memref_store
// CHECK:         tile.return
func.func @staged_f16(%x: tensor<4x5001xf16>) -> tensor<4x5001xf16> {
  %e = tensor.empty() : tensor<4x5001xf16>
  %0 = "linalg.softmax"(%x, %e) <{dimension = 1 : i64}> {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = staged>} : (tensor<4x5001xf16>, tensor<4x5001xf16>) -> tensor<4x5001xf16>
  return %0 : tensor<4x5001xf16>
}
