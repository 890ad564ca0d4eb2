// Plans given through tcc-select-strategy's `plans` option (what an
// autotuner or tcc.compile(plans=...) passes) replace the heuristics' plan
// of the kernels they name, on the root op of the form they name; other
// kernels keep the heuristics' plan.
// RUN: tcc-opt %s --tcc-form-kernels --tcc-set-target=arch=sm_90 --tcc-select-strategy='plans="two_k0=#tile.lowering_config<form = softmax, block = [4, 64], num_warps = 2>"' | FileCheck %s
// RUN: tcc-opt %s --tcc-linalg-to-tile='target=sm_90 plans="two_k1=#tile.lowering_config<form = row_reduction, block = [8, 64], num_warps = 2>"' | FileCheck %s --check-prefix=PIPE

// CHECK-LABEL: func.func private @two_k0(
// CHECK: tile.lowering_config = #tile.lowering_config<form = softmax, block = [4, 64], num_warps = 2>
// CHECK-LABEL: func.func private @two_k1(
// CHECK: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [8, 64], num_warps = 4>
// PIPE-LABEL: tile.func @two_k0(
// PIPE-SAME: tile.lowering_config = #tile.lowering_config<form = softmax, block = [8, 64], num_warps = 4>
// PIPE-LABEL: tile.func @two_k1(
// PIPE-SAME: tcc.grid = array<i64: 1, 1, 1>
// PIPE-SAME: tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [8, 64], num_warps = 2>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @two(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<8x64xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %s, %r : tensor<8x64xf32>, tensor<8xf32>
}
