// tcc-select-strategy, attention form (tcc::matchAttention), NVIDIA sm_80:
// the plan on the softmax. 128 query rows per program (64 for at most 64),
// 64 keys per step, K and V double-buffered; 32 rows per warp for head dims
// up to 64 (4 warps), 16 for larger ones (8 warps). sm_90 plans the Hopper
// schedule (mma = wgmma_m64nNk16: a producer and two consumer warpgroups,
// 128 x 128 blocks; 64 x 64 on one consumer for at most 64 query rows) where
// both head dims are multiples of 64, and mma.sync otherwise.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-select-strategy | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy | FileCheck %s --check-prefixes=CHECK,SM90

// CHECK-LABEL: func.func @attn(
// CHECK-NOT: tile.lowering_config
// SM80: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>
// SM90: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 128], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>
// CHECK-NOT: tile.lowering_config
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

// CHECK-LABEL: func.func @attn_d128(
// CHECK-NOT: tile.lowering_config
// SM80: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 8, num_stages = 2, mma = mma_sync_m16n8k16>
// SM90: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 128], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>
// CHECK-NOT: tile.lowering_config
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_d128(%q: tensor<2x1000x128xbf16>, %k: tensor<2x1000x128xbf16>, %v: tensor<2x1000x128xbf16>) -> tensor<2x1000x128xbf16> {
  %scale = arith.constant 1.250000e-01 : bf16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2x1000x1000xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x1000x1000xf32>) -> tensor<2x1000x1000xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x1000x128xbf16>, tensor<2x1000x128xbf16>) outs(%f0 : tensor<2x1000x1000xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x1000x1000xf32>
  %e1 = tensor.empty() : tensor<2x1000x1000xbf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<2x1000x1000xf32>) outs(%e1 : tensor<2x1000x1000xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %0 = arith.truncf %a : f32 to bf16
    %1 = arith.mulf %0, %scale : bf16
    linalg.yield %1 : bf16
  } -> tensor<2x1000x1000xbf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<2x1000x1000xbf16>) outs(%e1 : tensor<2x1000x1000xbf16>) -> tensor<2x1000x1000xbf16>
  %e2 = tensor.empty() : tensor<2x1000x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x1000x128xf32>) -> tensor<2x1000x128xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x1000x1000xbf16>, tensor<2x1000x128xbf16>) outs(%f2 : tensor<2x1000x128xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<2x1000x128xf32>
  %e3 = tensor.empty() : tensor<2x1000x128xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<2x1000x128xf32>) outs(%e3 : tensor<2x1000x128xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %0 = arith.truncf %a : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<2x1000x128xbf16>
  return %r : tensor<2x1000x128xbf16>
}

// -----

// CHECK-LABEL: func.func @attn_short(
// CHECK-NOT: tile.lowering_config
// SM80: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [64, 64], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>
// SM90: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [64, 64], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>
// CHECK-NOT: tile.lowering_config
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_short(%q: tensor<8x48x64xf16>, %k: tensor<8x80x64xf16>, %v: tensor<8x80x32xf16>) -> tensor<8x48x32xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<8x48x80xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x48x80xf32>) -> tensor<8x48x80xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<8x48x64xf16>, tensor<8x80x64xf16>) outs(%f0 : tensor<8x48x80xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x48x80xf32>
  %e1 = tensor.empty() : tensor<8x48x80xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<8x48x80xf32>) outs(%e1 : tensor<8x48x80xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<8x48x80xf16>
  %p = linalg.softmax dimension(2) ins(%x : tensor<8x48x80xf16>) outs(%e1 : tensor<8x48x80xf16>) -> tensor<8x48x80xf16>
  %e2 = tensor.empty() : tensor<8x48x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x48x32xf32>) -> tensor<8x48x32xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<8x48x80xf16>, tensor<8x80x32xf16>) outs(%f2 : tensor<8x48x32xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x48x32xf32>
  %e3 = tensor.empty() : tensor<8x48x32xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<8x48x32xf32>) outs(%e3 : tensor<8x48x32xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<8x48x32xf16>
  return %r : tensor<8x48x32xf16>
}

// -----

// CHECK-LABEL: func.func @attn_bias(
// CHECK-NOT: tile.lowering_config
// SM80: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>
// SM90: linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 128], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>
// CHECK-NOT: tile.lowering_config
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_bias(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>, %bias: tensor<4x256x256xf32>) -> tensor<4x256x64xf16> {
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
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %bias : tensor<4x256x256xf32>, tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
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
