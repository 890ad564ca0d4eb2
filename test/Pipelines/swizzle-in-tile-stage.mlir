// The tile stage swizzles the GEMM's shared operand tiles for the target's
// banks (tcc-swizzle-shared-memory); swizzle=false leaves them plain. (sm_80:
// the mma.sync GEMM stages through swizzled tiles; sm_90's wgmma reads TMA's
// 128-byte swizzle, checked in test/Conversion/LinalgToTile/matmul-wgmma.mlir.)
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_80" | FileCheck %s --check-prefix=SWZ
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_80 swizzle=false" | FileCheck %s --check-prefix=PLAIN
// SWZ-DAG: #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// SWZ-DAG: #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// PLAIN: #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// PLAIN-NOT: maxPhase = 4
func.func @gemm(%a: tensor<256x128xf16>, %b: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %c = tcc.matmul %a, %b acc(f32) : tensor<256x128xf16>, tensor<128x256xf16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
