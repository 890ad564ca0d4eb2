// Every tile layout and type prints and parses back, with Triton-style
// aliases (#blocked, #shared, #mma, #mfma, #dot_op, #slice).
// RUN: tcc-opt %s | tcc-opt | FileCheck %s
// RUN: tcc-opt %s --mlir-print-op-generic | tcc-opt | FileCheck %s

// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-DAG: #[[B3:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>
// CHECK-DAG: #[[SW:shared[0-9]*]] = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
// CHECK-DAG: #[[UNSW:shared[0-9]*]] = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-DAG: #[[MMA2:mma[0-9]*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[WG8:mma[0-9]*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8, 8]}>
// CHECK-DAG: #[[WG256:mma[0-9]*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [8, 2], instrShape = [16, 256, 32]}>
// CHECK-DAG: #[[MFMA16:mfma[0-9]*]] = #tile.amd_mfma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 16], isTransposed = true}>
// CHECK-DAG: #[[MFMA32:mfma[0-9]*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
// CHECK-DAG: #{{dot_op[0-9]*}} = #tile.dot_operand<{opIdx = 0, parent = #[[MMA2]], kWidth = 8}>
// CHECK-DAG: #{{dot_op[0-9]*}} = #tile.dot_operand<{opIdx = 1, parent = #[[MFMA16]], kWidth = 4}>
// CHECK-DAG: #{{dot_op[0-9]*}} = #tile.dot_operand<{opIdx = 0, parent = #[[WG256]], kWidth = 2}>
// CHECK-DAG: #{{dot_op[0-9]*}} = #tile.dot_operand<{opIdx = 1, parent = #[[B2]], kWidth = 0}>
// CHECK-DAG: #[[S3:slice[0-9]*]] = #tile.slice<{dim = 2, parent = #[[B3]]}>
// CHECK-DAG: #{{slice[0-9]*}} = #tile.slice<{dim = 0, parent = #[[S3]]}>
// CHECK-DAG: #{{slice[0-9]*}} = #tile.slice<{dim = 1, parent = #[[MMA2]]}>
// CHECK-DAG: #{{slice[0-9]*}} = #tile.slice<{dim = 0, parent = #[[MFMA32]]}>

// CHECK-LABEL: func.func private @layouts(
func.func private @layouts(
  tensor<64x64xf16, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>,
  tensor<2x16x32xf32, #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>>,
  tensor<64x64xf16, #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>>,
  tensor<64xf16, #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>,
  tensor<64x64xf32, #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8, 8]}>>,
  tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>, kWidth = 8}>>,
  tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #tile.amd_mfma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 16], isTransposed = true}>, kWidth = 4}>>,
  tensor<128x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #tile.nvidia_mma<{version = 3, warpsPerCTA = [8, 2], instrShape = [16, 256, 32]}>, kWidth = 2}>>,
  tensor<16x16xf32, #tile.dot_operand<{opIdx = 1, parent = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>, kWidth = 0}>>,
  tensor<32xf32, #tile.slice<{dim = 0, parent = #tile.slice<{dim = 2, parent = #tile.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>}>}>>,
  tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>}>>,
  tensor<64xf32, #tile.slice<{dim = 0, parent = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>}>>)

// Pointers: default (global, 1) address space elided; shared (3) and
// generic (0) spelled; pointers to pointers; tiles of pointers.
// CHECK-LABEL: func.func private @pointers(
// CHECK-SAME: !tile.ptr<f32>, !tile.ptr<f16, 3>, !tile.ptr<i8, 0>, !tile.ptr<!tile.ptr<bf16>>, tensor<128x!tile.ptr<f32>>, tensor<8x8x!tile.ptr<i64, 3>, #[[B2]]>)
func.func private @pointers(!tile.ptr<f32, 1>, !tile.ptr<f16, 3>, !tile.ptr<i8, 0>,
  !tile.ptr<!tile.ptr<bf16>>, tensor<128x!tile.ptr<f32>>,
  tensor<8x8x!tile.ptr<i64, 3>, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>)
