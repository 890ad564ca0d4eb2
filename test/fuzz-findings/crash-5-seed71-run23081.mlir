// Assertion `use_empty() && "Cannot destroy a value that still has uses!"' failed
// from test/Conversion/LinalgToTile/config-invalid.mlir case 11, mutation: swap
// rerun: tcc-opt test/fuzz-findings/crash-5-seed71-run23081.mlir (upstream: the parser's error recovery destroys ops that still have uses; mlir-opt aborts too)
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
    %r = arith.addf %a, %o : f32
  %m = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 256], num_warps = 2, walk = persistent>}
      ins(%x : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
  ^bb0(%a: f32, %o: f32):
