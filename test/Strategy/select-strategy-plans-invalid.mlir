// Bad `plans` entries are refused with a diagnostic naming the entry.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy='plans="nope=#tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 2>"' -verify-diagnostics
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy='plans="add=42"' 2>&1 | FileCheck %s --check-prefix=NOTCONFIG
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy='plans="add"' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-select-strategy='plans="add=#tile.lowering_config<form = softmax, block = [8, 256], num_warps = 2>"' 2>&1 | FileCheck %s --check-prefix=FORM

// NOTCONFIG: plans entry 'add=42' does not hold a #tile.lowering_config
// MALFORMED: plans entry 'add' is not KERNEL=#tile.lowering_config<...>
// FORM: error: 'func.func' op plan #tile.lowering_config<form = softmax, block = [8, 256], num_warps = 2> (tcc-select-strategy plans) names form 'softmax', which does not build this kernel

// expected-error @+1 {{tcc-select-strategy: plans entry 'nope=#tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 2>' names no kernel of this module (kernels: add)}}
module {
func.func @add(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
}
