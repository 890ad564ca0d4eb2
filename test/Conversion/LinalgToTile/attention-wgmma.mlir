// convert-linalg-to-tile, form = attention with mma = wgmma_m64nNk16
// (WgmmaAttentionKernel.cpp): sm_90's persistent, warp-specialized attention.
// Q, K and V arrive as TMA tensor maps too (boxes [1, rows, 64]); the last
// warpgroup (threads 256..383) is the producer: its leader loads each query
// block's Q after qEmpty shows the slot free, then every key block's K (after
// kEmpty) and V (after vEmpty) into a 2-slot ring, each on its own barrier
// (kFull, vFull). The consumers (8 warps, wgmma accumulators #mma version 3
// on [8, 1]) wait for Q, then run the key loop software-pipelined: the first
// block alone (S_0, its softmax, P_0 in registers as the A operand), then per
// block k, S_k issued, O α_{k-1} + P_{k-1} V_{k-1} issued, S_k waited alone
// (pending 1) and K's slot freed, S_k's softmax while P V runs, P V waited
// (P_{k-1} kept live in its registers) and V's slot freed; after the loop
// Q's slot, the last block's P V, and O / l stored from registers.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy --convert-linalg-to-tile | FileCheck %s

// CHECK-DAG: #[[MMA:.*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SW:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
// CHECK-DAG: #[[PA:.*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-LABEL: tile.func @attn(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<4x256x64xf16>, %[[MQ:[^:]*]]: !llvm.ptr, %[[MK:[^:]*]]: !llvm.ptr, %[[MV:[^:]*]]: !llvm.ptr)
// CHECK-SAME: tcc.grid = array<i64: 8, 1, 1>
// CHECK-SAME: tcc.num_warps = 12 : i32, tcc.producer_warps = 4 : i32
// CHECK-SAME: tcc.tensor_maps = [{box = array<i64: 1, 128, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 128, 64>, operand = 1 : i64, swizzle = 128 : i64}, {box = array<i64: 1, 128, 64>, operand = 2 : i64, swizzle = 128 : i64}]
// CHECK-SAME: form = attention, block = [128, 128], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16
// CHECK: %[[QB:.*]] = tile.shared_alloc : !tile.shared_buffer<1x1x128x64xf16, #[[SW]]>
// CHECK: %[[KB:.*]] = tile.shared_alloc : !tile.shared_buffer<2x1x128x64xf16, #[[SW]]>
// CHECK: %[[VB:.*]] = tile.shared_alloc : !tile.shared_buffer<2x1x128x64xf16, #[[SW]]>
// CHECK: %[[QFULL:.*]] = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<1>
// CHECK: %[[QEMPTY:.*]] = tile.mbarrier_alloc {arrivals = 8 : i64} : !tile.mbarriers<1>
// CHECK: %[[KFULL:.*]] = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
// CHECK: %[[VFULL:.*]] = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
// CHECK: %[[KEMPTY:.*]] = tile.mbarrier_alloc {arrivals = 8 : i64} : !tile.mbarriers<2>
// CHECK: %[[VEMPTY:.*]] = tile.mbarrier_alloc {arrivals = 8 : i64} : !tile.mbarriers<2>
// CHECK: scf.if
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c8 step %{{.*}} iter_args(%[[I:.*]] = %{{.*}}, %[[STEP:.*]] = %{{.*}}) -> (index, index)
// CHECK: %[[FREE:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[QPAR:.*]] = arith.remui %[[FREE]], %c2
// CHECK: tile.mbarrier_wait %[[QEMPTY]][%{{.*}}], %[[QPAR]]
// CHECK: tile.mbarrier_arrive %[[QFULL]][%{{.*}}] {expect_tx = 16384 : i64}
// CHECK: tile.tma_load %[[MQ]][%{{.*}}, %{{.*}}, %{{.*}}], %[[QB]]
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c256{{.*}} step %c128{{.*}} iter_args(%[[S:.*]] = %[[STEP]]) -> (index)
// CHECK: %[[PHASE:.*]] = arith.divui %[[S]], %c2
// CHECK: %[[SLOT:.*]] = arith.remui %[[S]], %c2
// CHECK: %[[PREV:.*]] = arith.addi %[[PHASE]], %c1
// CHECK: tile.mbarrier_wait %[[KEMPTY]][%[[SLOT]]], %[[PREV]]
// CHECK: tile.mbarrier_arrive %[[KFULL]][%[[SLOT]]] {expect_tx = 16384 : i64}
// CHECK: tile.tma_load %[[MK]][%{{.*}}, %[[J]], %{{.*}}], %[[KB]][%[[SLOT]], %{{.*}}], %[[KFULL]][%[[SLOT]]]
// CHECK: tile.mbarrier_wait %[[VEMPTY]][%[[SLOT]]], %[[PREV]]
// CHECK: tile.mbarrier_arrive %[[VFULL]][%[[SLOT]]] {expect_tx = 16384 : i64}
// CHECK: tile.tma_load %[[MV]][%{{.*}}, %[[J]], %{{.*}}], %[[VB]][%[[SLOT]], %{{.*}}], %[[VFULL]][%[[SLOT]]]
// CHECK: } else {
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %{{.*}} iter_args(%[[CI:.*]] = %{{.*}}, %[[CSTEP:.*]] = %{{.*}}) -> (index, index)
// CHECK: %[[CPAR:.*]] = arith.remui %[[CI]], %c2
// CHECK: tile.mbarrier_wait %[[QFULL]][%{{.*}}], %[[CPAR]]
// The first block: S_0 alone.
// CHECK: %[[FSL:.*]] = arith.remui %[[CSTEP]], %c2
// CHECK: tile.mbarrier_wait %[[KFULL]][%[[FSL]]]
// CHECK: %[[FD:.*]] = tile.warpgroup_dot %[[QB]][%{{.*}}], %[[KB]][%[[FSL]]], %{{.*}} : !tile.shared_buffer<1x1x128x64xf16, #[[SW]]>, !tile.shared_buffer<2x1x128x64xf16, #[[SW]]> -> tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[FS:.*]] = tile.warpgroup_wait %[[FD]] {pending = 0 : i32}
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_arrive %[[KEMPTY]][%[[FSL]]]
// CHECK: arith.constant 0.180336878 : f32
// CHECK: arith.mulf %[[FS]]
// CHECK: math.exp2 %{{.*}} fastmath<afn> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[P0:.*]] = tile.convert_layout %{{.*}} : tensor<128x128xf16, #[[MMA]]> -> tensor<128x128xf16, #[[PA]]>
// CHECK-NOT: tile.warpgroup_dot
// The others: S_k, then O α_{k-1} + P_{k-1} V_{k-1}; S_k waited alone.
// CHECK: %[[R:.*]]:6 = scf.for %{{.*}} = %c128{{.*}} to %c256{{.*}} step %c128{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[O:.*]] = %{{.*}}, %[[CS:.*]] = %{{.*}}, %[[PP:.*]] = %[[P0]], %[[AP:.*]] = %{{.*}}) -> (tensor<128xf32, #{{.*}}>, tensor<128xf32, #{{.*}}>, tensor<128x64xf32, #[[MMA]]>, index, tensor<128x128xf16, #[[PA]]>, tensor<128xf32, #{{.*}}>)
// CHECK: %[[CPH:.*]] = arith.divui %[[CS]], %c2
// CHECK: %[[CSL:.*]] = arith.remui %[[CS]], %c2
// CHECK: tile.mbarrier_wait %[[KFULL]][%[[CSL]]], %[[CPH]]
// CHECK: %[[SD:.*]] = tile.warpgroup_dot %[[QB]][%{{.*}}], %[[KB]][%[[CSL]]], %{{.*}} : !tile.shared_buffer<1x1x128x64xf16, #[[SW]]>, !tile.shared_buffer<2x1x128x64xf16, #[[SW]]> -> tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[BACK:.*]] = arith.subi %[[CS]], %c1
// CHECK: %[[VPH:.*]] = arith.divui %[[BACK]], %c2
// CHECK: %[[VSL:.*]] = arith.remui %[[BACK]], %c2
// CHECK: tile.expand_dims %[[AP]]
// CHECK: %[[OA:.*]] = arith.mulf %[[O]], %{{.*}} : tensor<128x64xf32, #[[MMA]]>
// CHECK: tile.mbarrier_wait %[[VFULL]][%[[VSL]]], %[[VPH]]
// CHECK: %[[OD:.*]] = tile.warpgroup_dot %[[PP]], %[[VB]][%[[VSL]]], %[[OA]] {b_mn_major} : tensor<128x128xf16, #[[PA]]>, !tile.shared_buffer<2x1x128x64xf16, #[[SW]]> -> tensor<128x64xf32, #[[MMA]]>
// CHECK: %[[SS:.*]] = tile.warpgroup_wait %[[SD]] {pending = 1 : i32}
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_arrive %[[KEMPTY]][%[[CSL]]]
// CHECK: arith.mulf %[[SS]]
// CHECK: math.exp2 %{{.*}} fastmath<afn> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[OW:.*]] = tile.warpgroup_wait %[[OD]] keep(%[[PP]] : tensor<128x128xf16, #[[PA]]>) {pending = 0 : i32}
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_arrive %[[VEMPTY]][%[[VSL]]]
// CHECK: %[[PN:.*]] = tile.convert_layout %{{.*}} : tensor<128x128xf16, #[[MMA]]> -> tensor<128x128xf16, #[[PA]]>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[OW]], %{{.*}}, %[[PN]], %{{.*}} :
// Q's slot, then the last block's P V.
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_arrive %[[QEMPTY]]
// CHECK: %[[LAST:.*]] = arith.subi %[[R]]#3, %c1
// CHECK: %[[LSL:.*]] = arith.remui %[[LAST]], %c2
// CHECK: tile.expand_dims %[[R]]#5
// CHECK: %[[LA:.*]] = arith.mulf %[[R]]#2
// CHECK: tile.mbarrier_wait %[[VFULL]][%[[LSL]]]
// CHECK: %[[LD:.*]] = tile.warpgroup_dot %[[R]]#4, %[[VB]][%[[LSL]]], %[[LA]] {b_mn_major}
// CHECK: %[[LO:.*]] = tile.warpgroup_wait %[[LD]] keep(%[[R]]#4 : tensor<128x128xf16, #[[PA]]>) {pending = 0 : i32}
// CHECK: scf.if
// CHECK-NEXT: tile.mbarrier_arrive %[[VEMPTY]][%[[LSL]]]
// CHECK: arith.divf %[[LO]]
// CHECK: arith.truncf
// CHECK: tile.memref_store
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
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

// Causal: the walk takes each batch's query blocks from the last (the most
// keys) to the first; the producer loads keys [0, min(m0 + 128, S)), the
// consumers run [0, m0) without the mask and [m0, min(m0 + 128, S)) with it.
// CHECK-LABEL: tile.func @attn_causal(
// CHECK-SAME: tcc.grid = array<i64: 4, 1, 1>
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for
// CHECK: %[[B:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[REV:.*]] = arith.subi %c1, %[[B]]
// CHECK: %[[M0:.*]] = arith.muli %[[REV]], %c128
// CHECK: %[[END:.*]] = arith.minui %{{.*}}, %c256
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step %c128
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: %[[CB:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[CREV:.*]] = arith.subi %c1{{.*}}, %[[CB]]
// CHECK: %[[CM0:.*]] = arith.muli %[[CREV]], %c128
// The scale (0.125) is folded into exp2's factor, 0.125 log2(e), through the
// mask's select: one multiply per score in each part. The first block (the
// pipeline's prologue) runs with the compare (the diagonal of the first
// query block, true everywhere in the others), then [128, m0) without it,
// [max(m0, 128), min(m0 + 128, S)) with it.
// CHECK: %[[S0:.*]] = tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// CHECK-NOT: arith.mulf
// CHECK: %[[K0:.*]] = arith.cmpi sge
// CHECK-NOT: arith.mulf
// CHECK: %[[X0:.*]] = arith.select %[[K0]], %[[S0]], %{{.*}} : tensor<128x128xi1, #{{.*}}>, tensor<128x128xf32
// CHECK: arith.constant 0.180336878 : f32
// CHECK-NEXT: tile.splat
// CHECK-NEXT: arith.mulf %[[X0]], %{{.*}} : tensor<128x128xf32
// CHECK: %[[CEND:.*]] = arith.minui %{{.*}}, %c256
// CHECK: %[[FROM:.*]] = arith.maxui %[[CM0]], %c128
// CHECK: %[[U:.*]]:6 = scf.for %{{.*}} = %c128{{.*}} to %[[CM0]] step %c128
// CHECK: %[[S1:.*]] = tile.warpgroup_wait %{{.*}} {pending = 1 : i32}
// CHECK-NOT: arith.cmpi sge
// CHECK-NOT: arith.mulf
// CHECK: arith.constant 0.180336878 : f32
// CHECK-NEXT: tile.splat
// CHECK-NEXT: arith.mulf %[[S1]], %{{.*}} : tensor<128x128xf32
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[CEND]] step %c128{{.*}} iter_args(%{{.*}} = %[[U]]#0, %{{.*}} = %[[U]]#1, %{{.*}} = %[[U]]#2, %{{.*}} = %[[U]]#3, %{{.*}} = %[[U]]#4, %{{.*}} = %[[U]]#5)
// CHECK: %[[S2:.*]] = tile.warpgroup_wait %{{.*}} {pending = 1 : i32}
// CHECK-NOT: arith.mulf
// CHECK: %[[KEEP:.*]] = arith.cmpi sge
// CHECK-NOT: arith.mulf
// CHECK: %[[X:.*]] = arith.select %[[KEEP]], %[[S2]], %{{.*}} : tensor<128x128xi1, #{{.*}}>, tensor<128x128xf32
// CHECK: arith.constant 0.180336878 : f32
// CHECK-NEXT: tile.splat
// CHECK-NEXT: arith.mulf %[[X]], %{{.*}} : tensor<128x128xf32
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
