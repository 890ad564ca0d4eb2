// Passes that need the target and find no tile.target on the module say
// which attribute is missing and how to set it.
// RUN: not tcc-opt %s --tcc-tensor-to-linalg --convert-linalg-to-tile 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_90" | sed 's/tile.target = #tile.target<[^>]*>//' | not tcc-opt --tcc-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=GPU
// The stage pipelines set it with target=:
// RUN: tcc-opt %s --tcc-lower-to-tile="target=gfx942" --tcc-tile-to-gpu | FileCheck %s --check-prefix=OK

// TILE: error: convert-linalg-to-tile: the module has no 'tile.target' attribute (a #tile.target<...>); set it with tcc-set-target{arch=...} or the stage pipeline's target= option (known targets: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950)
// GPU: error: convert-tile-to-gpu: the module has no 'tile.target' attribute (a #tile.target<...>)
// OK: module attributes {gpu.container_module, tile.target = #tile.target<arch = "gfx942"
// OK: gpu.func @add
func.func @add(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = tcc.add %x, %y : tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
