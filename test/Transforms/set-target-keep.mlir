// A hand-written target of the same arch is kept (it may refine the table).
// RUN: tcc-opt %s --tcc-set-target=arch=sm_90 | FileCheck %s

// CHECK: module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 65535, banks = nvidia, mma = [], async_copy = false, math = expanded>}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 65535, banks = nvidia, mma = [], async_copy = false, math = expanded>} {
}
