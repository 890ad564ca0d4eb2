// LLVM ERROR: operation destroyed but still has uses
// from test/Conversion/LinalgToTile/config-invalid.mlir case 12, mutation: swap
// rerun: tcc-opt test/fuzz-findings/crash-4-seed71-run12806.mlir (upstream: the parser's error recovery destroys ops that still have uses; mlir-opt aborts too)
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<256x256xf32>) {
    %m = arith.mulf %pe, %qe : f32
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 32], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>}
      ins(%x, %y : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) {
    %qe = arith.extf %q : f16 to f32
  ^bb0(%o: f32):
