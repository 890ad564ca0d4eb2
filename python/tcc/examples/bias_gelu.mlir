// Fused bias + GELU(tanh) over a row-major activation: y = gelu(x + b[None, :]).
func.func @bias_gelu(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %bb = tcc.broadcast %b dims = [0] sizes(%m) : tensor<?xf32> -> tensor<?x?xf32>
  %s = tcc.add %x, %bb : tensor<?x?xf32>
  %y = tcc.gelu %s approximate = tanh : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
