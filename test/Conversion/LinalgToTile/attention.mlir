// convert-linalg-to-tile, form = attention (AttentionKernel.cpp):
// FlashAttention-2's loop. Q's block is staged once as the first product's
// A operand; the loop over the whole 64-key blocks carries the running max,
// the running sum and the output accumulator; each step multiplies Q Kᵀ (K
// read through its transpose: column-major [D, BN] slices), scales the
// scores by scale * log2(e) (the constant scale folded), takes the row max,
// exp2 (afn), the rescaled row sum and O * alpha + P V (P cast to f16 and
// converted to the A operand). A partial last block runs after the loop with
// its keys past S masked to -inf; O / l and its cast are stored.
// tcc-accelerate-matmul puts both products on mma.sync with warps [4, 1].
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=MMA
// gfx942: MFMA with warps [4, 1]; P goes through a blocked layout and LDS
// to the A operand (the MFMA accumulator is no A operand in registers).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-select-strategy --convert-linalg-to-tile --tcc-accelerate-matmul | FileCheck %s --check-prefix=MFMA

// CHECK-DAG: #[[ACC:.*]] = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[KT:.*]] = #tile.blocked<{{.*}}order = [0, 1]}>
// CHECK-DAG: #[[SHCOL:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1]}>
// CHECK-DAG: #[[ROWS:.*]] = #tile.slice<{dim = 1, parent = #[[ACC]]}>
// CHECK-DAG: #[[OPA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[ACC]], kWidth = 0}>
// CHECK-LABEL: tile.func @attn(
// CHECK-SAME: tcc.grid = array<i64: 8, 1, 1>
// CHECK-SAME: form = attention, block = [128, 64], num_warps = 4, num_stages = 2
// CHECK: %[[KV:.*]] = memref.transpose
// CHECK: tile.memref_load {{.*}} -> tensor<128x64xf16
// CHECK: %[[Q:.*]] = tile.convert_layout {{.*}} -> tensor<128x64xf16, #[[OPA]]>
// CHECK: %[[R:.*]]:3 = scf.for %[[J:.*]] = %{{.*}} to %c256 step %c64 iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[O:.*]] = %{{.*}}) -> (tensor<128xf32, #[[ROWS]]>, tensor<128xf32, #[[ROWS]]>, tensor<128x64xf32, #[[ACC]]>)
// CHECK: tile.memref_load %[[KV]][%{{.*}}, %[[J]]] {{.*}} -> tensor<64x64xf16, #[[KT]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<64x64xf16, #[[SHCOL]]>
// CHECK: %[[S:.*]] = tile.dot %[[Q]], {{.*}} -> tensor<128x64xf32, #[[ACC]]>
// CHECK: arith.constant 0.180336878 : f32
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<128x64xf32, #[[ACC]]>
// CHECK: tile.reduce %[[X]] {axis = 1 : i32}
// CHECK: arith.maximumf
// CHECK: %[[MNEW:.*]] = arith.maximumf %[[M]], %{{.*}} : tensor<128xf32, #[[ROWS]]>
// CHECK: math.exp2 %{{.*}} fastmath<afn> : tensor<128x64xf32, #[[ACC]]>
// CHECK: math.exp2 %{{.*}} fastmath<afn> : tensor<128xf32, #[[ROWS]]>
// CHECK: arith.addf
// CHECK: arith.mulf %[[L]]
// CHECK: arith.mulf %[[O]]
// CHECK: arith.truncf %{{.*}} : tensor<128x64xf32, #[[ACC]]> to tensor<128x64xf16, #[[ACC]]>
// CHECK: %[[P:.*]] = tile.convert_layout %{{.*}} : tensor<128x64xf16, #[[ACC]]> -> tensor<128x64xf16, #[[OPA]]>
// CHECK: tile.memref_load %{{.*}}[%[[J]], %{{.*}}] {{.*}} -> tensor<64x64xf16
// CHECK: %[[ONEW:.*]] = tile.dot %[[P]], %{{.*}}, %{{.*}} -> tensor<128x64xf32, #[[ACC]]>
// CHECK: scf.yield %[[MNEW]], %{{.*}}, %[[ONEW]]
// CHECK-NOT: tile.arange
// CHECK: arith.divf %[[R]]#2
// CHECK: arith.truncf
// CHECK: tile.memref_store
// MFMA-DAG: #[[MFMA:.*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [32, 32], isTransposed = false}>
// MFMA-DAG: #[[MA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MFMA]], kWidth = 4}>
// MFMA-LABEL: tile.func @attn(
// MFMA: tile.dot {{.*}} -> tensor<128x64xf32, #[[MFMA]]>
// MFMA: %[[PB:.*]] = tile.convert_layout %{{.*}} : tensor<128x64xf16, #[[MFMA]]> -> tensor<128x64xf16, #blocked{{[0-9]*}}>
// MFMA: %[[PS:.*]] = tile.convert_layout %[[PB]] : {{.*}} -> tensor<128x64xf16, #shared{{[0-9]*}}>
// MFMA: tile.convert_layout %[[PS]] : {{.*}} -> tensor<128x64xf16, #[[MA]]>
// MFMA: tile.dot {{.*}} -> tensor<128x64xf32, #[[MFMA]]>
// MMA-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// MMA-DAG: #[[PA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// MMA-LABEL: tile.func @attn(
// MMA: tile.dot {{.*}} -> tensor<128x64xf32, #[[MMA]]>
// MMA: tile.convert_layout {{.*}} : tensor<128x64xf16, #[[MMA]]> -> tensor<128x64xf16, #[[PA]]>
// MMA: tile.dot {{.*}} -> tensor<128x64xf32, #[[MMA]]>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// S = 80: one whole block in the loop, then the last 16 keys masked.
// CHECK-LABEL: tile.func @attn_tail(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c64
// CHECK: scf.yield
// CHECK: tile.dot
// CHECK: %[[KEYS:.*]] = tile.arange {end = 64 : i32, start = 0 : i32}
// CHECK: %[[J:.*]] = arith.addi %[[KEYS]]
// CHECK: %[[E:.*]] = tile.expand_dims %[[J]] {axis = 0 : i32}
// CHECK: %[[B:.*]] = tile.broadcast %[[E]]
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[B]], %{{.*}} : tensor<128x64xi32
// CHECK: arith.select %[[IN]], %{{.*}}, %{{.*}} : tensor<128x64xi1
// CHECK: tile.reduce
// CHECK: tile.dot
// CHECK: tile.memref_store
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_tail(%q: tensor<2x80x64xf16>, %k: tensor<2x80x64xf16>, %v: tensor<2x80x64xf16>) -> tensor<2x80x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x80x80xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x80x80xf32>) -> tensor<2x80x80xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x80x64xf16>, tensor<2x80x64xf16>) outs(%f0 : tensor<2x80x80xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x80x80xf32>
  %e1 = tensor.empty() : tensor<2x80x80xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x80x80xf32>) outs(%e1 : tensor<2x80x80xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<2x80x80xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x80x80xf16>) outs(%e1 : tensor<2x80x80xf16>) -> tensor<2x80x80xf16>
  %e2 = tensor.empty() : tensor<2x80x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x80x64xf32>) -> tensor<2x80x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x80x80xf16>, tensor<2x80x64xf16>) outs(%f2 : tensor<2x80x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x80x64xf32>
  %e3 = tensor.empty() : tensor<2x80x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<2x80x64xf32>) outs(%e3 : tensor<2x80x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<2x80x64xf16>
  return %r : tensor<2x80x64xf16>
}

// -----

// A bias of the scores: loaded per block of keys onto the scores' layout and
// added in f32 (the scores are not rounded to f16), the scale applied as
// written, then log2(e).
// CHECK-LABEL: tile.func @attn_bias(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<256x256xf32>
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args
// CHECK: %[[S:.*]] = tile.dot
// CHECK: %[[B:.*]] = tile.memref_load %[[BIAS]][%{{.*}}, %[[J]]] : memref<256x256xf32> -> tensor<128x64xf32
// CHECK: %[[SB:.*]] = arith.addf %[[S]], %[[B]]
// CHECK-NOT: arith.truncf
// CHECK: %[[SCALE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %[[SB]]
// CHECK: arith.mulf
// CHECK: tile.reduce
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_bias(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>, %bias: tensor<256x256xf32>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #mn, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %bias : tensor<4x256x256xf32>, tensor<256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %bb: f32, %o: f16):
    %0 = arith.addf %a, %bb : f32
    %1 = arith.truncf %0 : f32 to f16
    %2 = arith.mulf %1, %scale : f16
    linalg.yield %2 : f16
  } -> tensor<4x256x256xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// Causal, as the frontend writes it (tf.arange positions folded into the
// score op as linalg.index): the key blocks before the program's first row
// (keys [0, m0)) run without the mask, the diagonal's (keys [m0, min(m0 +
// BM, S))) with it, and the blocks past its last row not at all.
// CHECK-LABEL: tile.func @attn_causal(
// CHECK: %[[M0:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK: %[[END0:.*]] = arith.addi %[[M0]], %c128
// CHECK: %[[END:.*]] = arith.minui %[[END0]], %c256 : index
// CHECK: %[[OFF:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %[[M0]] step %c64
// CHECK-NOT: arith.cmpi sge
// CHECK: tile.dot
// CHECK-NOT: arith.cmpi sge
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[M0]] to %[[END]] step %{{.*}} iter_args(%{{.*}} = %[[OFF]]#0, %{{.*}} = %[[OFF]]#1, %{{.*}} = %[[OFF]]#2)
// CHECK: tile.dot
// CHECK: %[[ROWS:.*]] = tile.arange {end = 128 : i32, start = 0 : i32}
// CHECK: %[[KEYS:.*]] = tile.arange {end = 64 : i32, start = 0 : i32}
// CHECK: %[[KEEP:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<128x64xi32
// CHECK: arith.select %[[KEEP]]
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: tile.memref_store
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>

func.func @attn_causal(%arg0: tensor<2x256x64xf16>, %arg1: tensor<2x256x64xf16>, %arg2: tensor<2x256x64xf16>) -> tensor<2x256x64xf16> {
  %cst = arith.constant 0xFC00 : f16
  %cst_0 = arith.constant 1.250000e-01 : f16
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x256x256xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x256x256xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst_1 : f32
  } -> tensor<2x256x256xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x256x64xf16>, tensor<2x256x64xf16>) outs(%1 : tensor<2x256x256xf32>) {
  ^bb0(%in: f16, %in_2: f16, %out: f32):
    %11 = arith.extf %in : f16 to f32
    %12 = arith.extf %in_2 : f16 to f32
    %13 = arith.mulf %11, %12 : f32
    %14 = arith.addf %out, %13 : f32
    linalg.yield %14 : f32
  } -> tensor<2x256x256xf32>
  %3 = tensor.empty() : tensor<2x256x256xf16>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x256x256xf32>) outs(%3 : tensor<2x256x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %11 = arith.truncf %in : f32 to f16
    %12 = linalg.index 1 : index
    %13 = arith.index_cast %12 : index to i32
    %14 = linalg.index 2 : index
    %15 = arith.index_cast %14 : index to i32
    %16 = arith.cmpi sge, %13, %15 : i32
    %17 = arith.mulf %11, %cst_0 : f16
    %18 = arith.select %16, %17, %cst : f16
    linalg.yield %18 : f16
  } -> tensor<2x256x256xf16>
  %5 = linalg.softmax dimension(2) ins(%4 : tensor<2x256x256xf16>) outs(%3 : tensor<2x256x256xf16>) -> tensor<2x256x256xf16>
  %6 = tensor.empty() : tensor<2x256x64xf32>
  %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%6 : tensor<2x256x64xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst_1 : f32
  } -> tensor<2x256x64xf32>
  %8 = linalg.generic {indexing_maps = [#map1, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%5, %arg2 : tensor<2x256x256xf16>, tensor<2x256x64xf16>) outs(%7 : tensor<2x256x64xf32>) {
  ^bb0(%in: f16, %in_2: f16, %out: f32):
    %11 = arith.extf %in : f16 to f32
    %12 = arith.extf %in_2 : f16 to f32
    %13 = arith.mulf %11, %12 : f32
    %14 = arith.addf %out, %13 : f32
    linalg.yield %14 : f32
  } -> tensor<2x256x64xf32>
  %9 = tensor.empty() : tensor<2x256x64xf16>
  %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x256x64xf32>) outs(%9 : tensor<2x256x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %11 = arith.truncf %in : f32 to f16
    linalg.yield %11 : f16
  } -> tensor<2x256x64xf16>
  return %10 : tensor<2x256x64xf16>
}

// -----

// A padding mask [B', S] of B = B'·H heads (H = 2), read at (b floordiv 2, n)
// (tcc-flatten-attention-scores): each block of keys loads this program's
// row of the mask, the subview at b / H, as a column vector.
// CHECK-LABEL: tile.func @attn_padding_mask(
// CHECK-SAME: %[[MASK:[a-z0-9]+]]: memref<2x256xf16>
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args
// CHECK: %[[BI:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK: %[[ROW:.*]] = memref.subview %[[MASK]][%[[BI]], 0] [1, 256] [1, 1] : memref<2x256xf16> to memref<256xf16, strided<[1], offset: ?>>
// CHECK: tile.memref_load %[[ROW]][%[[J]]] : memref<256xf16, strided<[1], offset: ?>> -> tensor<64xf16
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bn = affine_map<(d0, d1, d2) -> (d0 floordiv 2, d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_padding_mask(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>, %mask: tensor<2x256xf16>) -> tensor<4x256x64xf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #bn, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<4x256x256xf32>, tensor<2x256xf16>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %m: f16, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.addf %0, %m : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}
