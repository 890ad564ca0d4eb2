// The tile stage swizzles the GEMM's shared operand tiles for the target's
// banks (tcc-swizzle-shared-memory); bank-model=none leaves them plain.
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_90" | FileCheck %s --check-prefix=SWZ
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_90 swizzle=false" | FileCheck %s --check-prefix=PLAIN
// SWZ-DAG: #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// SWZ-DAG: #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// PLAIN: #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// PLAIN-NOT: maxPhase = 4
func.func @gemm(%a: tensor<256x128xf16>, %b: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %c = tcc.matmul %a, %b acc(f32) : tensor<256x128xf16>, tensor<128x256xf16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
