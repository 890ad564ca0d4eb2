// #tile.target prints and parses back as the module's tile.target, fields
// in any order on input, in declaration order on output; mma may be empty.
// RUN: tcc-opt %s -split-input-file | tcc-opt -split-input-file | FileCheck %s
// RUN: tcc-opt %s -split-input-file --mlir-print-op-generic | tcc-opt -split-input-file | FileCheck %s

// CHECK: module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 232448, banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true, math = libdevice>} {
}

// -----

// CHECK: module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_32x32x8, mfma_16x16x16], async_copy = false, math = expanded>}
module attributes {tile.target = #tile.target<math = expanded, mma = [mfma_32x32x8, mfma_16x16x16], arch = "gfx942", vendor = amd, warp_size = 64, banks = amd, max_shared_bytes = 65536, async_copy = false>} {
}

// -----

// A hand-written target: no tensor cores, no cp.async, expanded math on
// NVIDIA.
// CHECK: module attributes {tile.target = #tile.target<arch = "sm_test", vendor = nvidia, warp_size = 32, max_shared_bytes = 49152, banks = nvidia, mma = [], async_copy = false, math = expanded>}
module attributes {tile.target = #tile.target<arch = "sm_test", vendor = nvidia, warp_size = 32, max_shared_bytes = 49152, banks = nvidia, mma = [], async_copy = false, math = expanded>} {
}
