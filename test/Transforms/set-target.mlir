// tcc-set-target writes the known target of each arch (KnownTargets.def).
// RUN: tcc-opt %s --tcc-set-target=arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tcc-opt %s --tcc-set-target=arch=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: tcc-opt %s --tcc-set-target=arch=sm_89 | FileCheck %s --check-prefix=SM89
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: tcc-opt %s --tcc-set-target=arch=gfx90a | FileCheck %s --check-prefix=GFX90A
// RUN: tcc-opt %s --tcc-set-target=arch=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: tcc-opt %s --tcc-set-target=arch=gfx950 | FileCheck %s --check-prefix=GFX950
// Twice with the same arch: unchanged.
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-set-target=arch=sm_90 | FileCheck %s --check-prefix=SM90
// Errors name the option and the allowed values.
// RUN: not tcc-opt %s --tcc-set-target 2>&1 | FileCheck %s --check-prefix=NOARCH
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_70 2>&1 | FileCheck %s --check-prefix=BADARCH
// RUN: not tcc-opt %s --tcc-set-target=arch=sm_90 --tcc-set-target=arch=gfx942 2>&1 | FileCheck %s --check-prefix=OTHER

// SM80: module attributes {tile.target = #tile.target<arch = "sm_80", vendor = nvidia, warp_size = 32, max_shared_bytes = 166912, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>}
// SM86: module attributes {tile.target = #tile.target<arch = "sm_86", vendor = nvidia, warp_size = 32, max_shared_bytes = 101376, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>}
// SM89: module attributes {tile.target = #tile.target<arch = "sm_89", vendor = nvidia, warp_size = 32, max_shared_bytes = 101376, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>}
// SM90: module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [wgmma_m64nNk16, mma_sync_m16n8k16], async_copy = true, math = libdevice>}
// SM90A: module attributes {tile.target = #tile.target<arch = "sm_90a", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [wgmma_m64nNk16, mma_sync_m16n8k16], async_copy = true, math = libdevice>}
// GFX90A: module attributes {tile.target = #tile.target<arch = "gfx90a", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_32x32x8, mfma_16x16x16], async_copy = false, math = expanded>}
// GFX942: module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_32x32x8, mfma_16x16x16], async_copy = false, math = expanded>}
// GFX950: module attributes {tile.target = #tile.target<arch = "gfx950", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_32x32x8, mfma_16x16x16], async_copy = false, math = expanded>}
// NOARCH: error: tcc-set-target: option 'arch' is required; allowed values: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950
// BADARCH: error: tcc-set-target: unknown arch 'sm_70'; allowed values: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950
// OTHER: error: tcc-set-target: the module already targets 'sm_90', not 'gfx942'

// SM90-LABEL: func.func @f
func.func @f() {
  return
}
