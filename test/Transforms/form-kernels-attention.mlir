// tcc-form-kernels: an attention chain (Q Kᵀ, the elementwise ops on the
// scores, a last-dim softmax, P V and its cast; tcc::matchAttention) is one
// kernel on NVIDIA and AMD targets: the S x S scores are never stored. A
// residual add after it is a kernel of its own. When the chain is not one
// the attention kernel builds (a softmax over another dim, a head dim that
// is not a multiple of 16), the contractions and the softmax are kernels of
// their own.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-form-kernels | FileCheck %s --check-prefix=SM80
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-form-kernels | FileCheck %s --check-prefix=GFX

// SM80-LABEL: func.func private @attn_k0(
// SM80-SAME: %arg0: tensor<4x256x64xf16>, %arg1: tensor<4x256x64xf16>, %arg2: tensor<4x256x64xf16>) -> tensor<4x256x64xf16>
// SM80: linalg.generic {{.*}} ins(%arg0, %arg1 :
// SM80: arith.mulf {{.*}} : f16
// SM80: linalg.softmax dimension(2)
// SM80: linalg.generic {{.*}} ins(%{{.*}}, %arg2 :
// SM80: arith.truncf
// SM80-LABEL: func.func @attn(
// SM80: %[[O:.*]] = tcc.launch @attn_k0(%arg0, %arg1, %arg2) : (tensor<4x256x64xf16>, tensor<4x256x64xf16>, tensor<4x256x64xf16>) -> tensor<4x256x64xf16>
// SM80-NEXT: tcc.launch @attn_k1(%[[O]], %arg0)
// SM80-NOT: tcc.launch
// GFX-LABEL: func.func @attn(
// GFX: %[[O:.*]] = tcc.launch @attn_k0(%arg0, %arg1, %arg2) : (tensor<4x256x64xf16>, tensor<4x256x64xf16>, tensor<4x256x64xf16>) -> tensor<4x256x64xf16>
// GFX-NEXT: tcc.launch @attn_k1(%[[O]], %arg0)
// GFX-NOT: tcc.launch
// GFX-LABEL: func.func @attn_bias(
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
  %e4 = tensor.empty() : tensor<4x256x64xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %q : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%e4 : tensor<4x256x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %0 = arith.addf %a, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %y : tensor<4x256x64xf16>
}

// -----

// The bias of the scores ([S, S], shared by the batch) is an input of the
// kernel.
// SM80-LABEL: func.func private @attn_bias_k0(
// SM80-SAME: %arg0: tensor<4x256x64xf16>, %arg1: tensor<4x256x64xf16>, %arg2: tensor<256x256xf32>, %arg3: tensor<4x256x64xf16>) -> tensor<4x256x64xf16>
// SM80-LABEL: func.func @attn_bias(
// SM80: %[[O:.*]] = tcc.launch @attn_bias_k0(%arg0, %arg1, %arg3, %arg2)
// SM80-NEXT: tcc.launch @attn_bias_k1(%[[O]], %arg0)
// SM80-NOT: tcc.launch
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
  %e4 = tensor.empty() : tensor<4x256x64xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %q : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%e4 : tensor<4x256x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %0 = arith.addf %a, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %y : tensor<4x256x64xf16>
}

// -----

// A softmax over the queries (dim 1) is no attention: the scores are stored.
// SM80-LABEL: func.func @attn_dim1(
// SM80: tcc.launch {{.*}} -> tensor<4x256x256xf16>
// GFX-LABEL: func.func @attn_dim1(
// GFX: tcc.launch {{.*}} -> tensor<4x256x256xf16>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_dim1(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
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
  %p = linalg.softmax dimension(1) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
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
  %e4 = tensor.empty() : tensor<4x256x64xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %q : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%e4 : tensor<4x256x64xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %0 = arith.addf %a, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %y : tensor<4x256x64xf16>
}

// -----

// Head dim 8 (not a multiple of 16, mma.sync's k step): the scores are stored.
// SM80-LABEL: func.func @attn_d8(
// SM80: tcc.launch {{.*}} -> tensor<4x256x256xf16>
// GFX-LABEL: func.func @attn_d8(
// GFX: tcc.launch {{.*}} -> tensor<4x256x256xf16>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_d8(%q: tensor<4x256x8xf16>, %k: tensor<4x256x8xf16>, %v: tensor<4x256x8xf16>) -> tensor<4x256x8xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x8xf16>, tensor<4x256x8xf16>) outs(%f0 : tensor<4x256x256xf32>) {
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
  %e2 = tensor.empty() : tensor<4x256x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x8xf32>) -> tensor<4x256x8xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x8xf16>) outs(%f2 : tensor<4x256x8xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x8xf32>
  %e3 = tensor.empty() : tensor<4x256x8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x8xf32>) outs(%e3 : tensor<4x256x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x8xf16>
  %e4 = tensor.empty() : tensor<4x256x8xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %q : tensor<4x256x8xf16>, tensor<4x256x8xf16>) outs(%e4 : tensor<4x256x8xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %0 = arith.addf %a, %bb : f16
    linalg.yield %0 : f16
  } -> tensor<4x256x8xf16>
  return %y : tensor<4x256x8xf16>
}
