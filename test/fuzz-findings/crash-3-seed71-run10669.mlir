// Assertion `willBeValidAffineMap(dimCount, symbolCount, results)' failed
// from test/Transforms/form-kernels.mlir case 6, mutation: int
// rerun: tcc-opt test/fuzz-findings/crash-3-seed71-run10669.mlir (upstream: the parser asserts on a negative reassociation index; mlir-opt aborts too)
func.func @nothing(%x: tensor<2x33xf32>) -> tensor<66xf32> {
  %r = tensor.collapse_shape %x [[-1, 1]] : tensor<2x33xf32> into tensor<66xf32>
}
