// A hand-written wgmma plan on a target without wgmma (sm_80) is refused.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_80 --convert-linalg-to-tile -verify-diagnostics
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @wgmma_on_sm80(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<256x256xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config mma = wgmma_m64nNk16 is not an instruction of target sm_80 (#tile.target mma)}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>}
      ins(%x, %y : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
