// tcc-form-kernels: two contractions of one A whose results one
// all-parallel op reads (SwiGLU's silu(x @ w1) * (x @ w3)) form one dual GEMM
// kernel on a wgmma target; elsewhere, or with different A, one kernel per
// contraction.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-form-kernels | FileCheck %s --check-prefix=SM90
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_80 --tcc-form-kernels | FileCheck %s --check-prefix=SM80

// SM90-LABEL: func.func private @swiglu_k0(
// SM90-SAME: %arg0: tensor<256x128xbf16>, %arg1: tensor<128x512xbf16>, %arg2: tensor<128x512xbf16>) -> tensor<256x512xbf16>
// SM90: linalg.generic {{.*}} ins(%arg0, %arg1 :
// SM90: linalg.generic {{.*}} ins(%arg0, %arg2 :
// SM90: math.exp
// SM90-LABEL: func.func private @swiglu_k1(
// SM90-SAME: %arg0: tensor<256x512xbf16>, %arg1: tensor<512x128xbf16>)
// SM90-LABEL: func.func @swiglu(
// SM90: %[[H:.*]] = tcc.launch @swiglu_k0(%arg0, %arg1, %arg2)
// SM90-NEXT: tcc.launch @swiglu_k1(%[[H]], %arg3)
// SM90-NOT: tcc.launch

// sm_80 (mma.sync, one product per kernel): the up projection is a kernel
// of its own, stored for the gate's epilogue.
// SM80-LABEL: func.func @swiglu(
// SM80: %[[U:.*]] = tcc.launch @swiglu_k1(%arg0, %arg2)
// SM80-NEXT: %[[H:.*]] = tcc.launch @swiglu_k0(%arg0, %arg1, %[[U]])
// SM80-NEXT: tcc.launch @swiglu_k2(%[[H]], %arg3)

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @swiglu(%x: tensor<256x128xbf16>, %w1: tensor<128x512xbf16>, %w3: tensor<128x512xbf16>, %w2: tensor<512x128xbf16>) -> tensor<256x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %u = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %eh = tensor.empty() : tensor<256x512xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<256x512xf32>, tensor<256x512xf32>) outs(%eh : tensor<256x512xbf16>) {
  ^bb0(%gi: f32, %ui: f32, %out: bf16):
    %0 = arith.negf %gi : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.divf %gi, %2 : f32
    %4 = arith.mulf %3, %ui : f32
    %5 = arith.truncf %4 : f32 to bf16
    linalg.yield %5 : bf16
  } -> tensor<256x512xbf16>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %d = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w2 : tensor<256x512xbf16>, tensor<512x128xbf16>) outs(%fill2 : tensor<256x128xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x128xf32>
  return %d : tensor<256x128xf32>
}

// -----

// Different A (x @ w1, y @ w3): no dual GEMM on either target.
// SM90-LABEL: func.func @two_inputs(
// SM90: tcc.launch @two_inputs_k1(%arg1, %arg3)
// SM90-NEXT: tcc.launch @two_inputs_k0(%arg0, %arg2,
// SM90-NEXT: tcc.launch @two_inputs_k2(
// SM80-LABEL: func.func @two_inputs(
// SM80-COUNT-3: tcc.launch

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @two_inputs(%x: tensor<256x128xbf16>, %y: tensor<256x128xbf16>, %w1: tensor<128x512xbf16>, %w3: tensor<128x512xbf16>, %w2: tensor<512x128xbf16>) -> tensor<256x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %g = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w1 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %u = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%y, %w3 : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%fill : tensor<256x512xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x512xf32>
  %eh = tensor.empty() : tensor<256x512xbf16>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<256x512xf32>, tensor<256x512xf32>) outs(%eh : tensor<256x512xbf16>) {
  ^bb0(%gi: f32, %ui: f32, %out: bf16):
    %0 = arith.negf %gi : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.divf %gi, %2 : f32
    %4 = arith.mulf %3, %ui : f32
    %5 = arith.truncf %4 : f32 to bf16
    linalg.yield %5 : bf16
  } -> tensor<256x512xbf16>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %d = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w2 : tensor<256x512xbf16>, tensor<512x128xbf16>) outs(%fill2 : tensor<256x128xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<256x128xf32>
  return %d : tensor<256x128xf32>
}
