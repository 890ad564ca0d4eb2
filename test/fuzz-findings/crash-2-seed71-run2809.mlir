// Assertion `isIntOrFloat() && "only integers and floats have a bitwidth"' failed
// from test/Dialect/Tile/invalid.mlir case 57, mutation: element
// rerun: tcc-opt test/fuzz-findings/crash-2-seed71-run2809.mlir (upstream: the parser asserts on a dense array of index, array<index: ...>) 
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<index: 1, 1, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, f32) -> tensor<128xf32>
