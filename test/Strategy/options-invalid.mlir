// Every tcc pass checks its options first: an unsupported value is an error
// naming the pass, the option, what it accepts and what it got.
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=num-warps=0 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=num-warps=3 2>&1 | FileCheck %s --check-prefix=WARPS3
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=elements-per-program=0 2>&1 | FileCheck %s --check-prefix=EPP
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=elements-per-program=3 2>&1 | FileCheck %s --check-prefix=EPP3
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=num-stages=100 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=mfma-shape=7 2>&1 | FileCheck %s --check-prefix=MFMA
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=max-softmax-columns=0 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-select-strategy=dynamic-extent=0 2>&1 | FileCheck %s --check-prefix=EXTENT
// RUN: not tcc-opt %s --tcc-split-reduction=target-programs=0 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not tcc-opt %s --tcc-split-reduction=min-row-chunk=-4 2>&1 | FileCheck %s --check-prefix=ROWCHUNK
// RUN: not tcc-opt %s --convert-tile-to-gpu=num-warps=0 2>&1 | FileCheck %s --check-prefix=GPUWARPS
// RUN: not tcc-opt %s "--tcc-lower-to-tile=target=sm_90 num-warps=0" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_1 2>&1 | FileCheck %s --check-prefix=ARCH

// WARPS: error: tcc-select-strategy: num-warps must be a power of two from 1 to 16, got 0
// WARPS3: error: tcc-select-strategy: num-warps must be a power of two from 1 to 16, got 3
// EPP: error: tcc-select-strategy: elements-per-program must be a power of two from 64 to 1048576, got 0
// EPP3: error: tcc-select-strategy: elements-per-program must be a power of two from 64 to 1048576, got 3
// STAGES: error: tcc-select-strategy: num-stages must be from 1 to 8, got 100
// MFMA: error: tcc-select-strategy: mfma-shape must be one of auto, 16, 32, got '7'
// SOFTMAX: error: tcc-select-strategy: max-softmax-columns must be a power of two from 64 to 1048576, got 0
// EXTENT: error: tcc-select-strategy: dynamic-extent must be from 1 to 1073741824, got 0
// SPLIT: error: tcc-split-reduction: target-programs must be from 1 to 1048576, got 0
// ROWCHUNK: error: tcc-split-reduction: min-row-chunk must be from 1 to 1073741824, got -4
// GPUWARPS: error: convert-tile-to-gpu: num-warps must be a power of two from 1 to 32, got 0
// ARCH: error: tcc-set-target: unknown arch 'sm_1'; allowed values: sm_80

func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %c = tcc.add %a, %b : tensor<1024xf32>
  return %c : tensor<1024xf32>
}
