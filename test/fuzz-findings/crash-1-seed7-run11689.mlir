// Assertion `isIntOrFloat() && "only integers and floats have a bitwidth"' failed
// from test/Dialect/Tile/invalid.mlir case 132, mutation: element
// rerun: tcc-opt /tmp/exp/campaign/opt/crash-1-seed7-run11689.mlir 
tile.func @tma_one_coordinate(%map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<index: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
