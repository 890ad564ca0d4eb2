// LLVM ERROR: operation destroyed but still has uses
// from test/Strategy/select-strategy-matmul-sm90.mlir case 1, mutation: swap
// rerun: tcc-opt /tmp/exp/campaign/opt/crash-0-seed7-run1413.mlir --tcc-set-target=arch=sm_90 --tcc-select-strategy
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<1000x777xf32>) {
    linalg.yield %15 : bf16
  } -> tensor<1000x777xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1000x512xbf16>, tensor<512x777xbf16>) outs(%1 : tensor<1000x777xf32>) {
    %15 = arith.truncf %14 : f32 to bf16
  ^bb0(%out: f32):
