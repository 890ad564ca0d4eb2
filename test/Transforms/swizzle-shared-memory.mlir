// The bank model is the module target's (banks = nvidia on sm_90, amd on
// gfx942).
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --tcc-swizzle-shared-memory --verify-diagnostics | FileCheck %s
// The AMD run rejects the NVIDIA kernels (the diagnostic is checked once, on
// the NVIDIA run's @mfma) and prints the rest:
// RUN: not tcc-opt %s -split-input-file --tcc-set-target=arch=gfx942 --tcc-swizzle-shared-memory 2>/dev/null | FileCheck %s --check-prefix=AMD
// Without a target, shared dot-operand tiles are an error:
// RUN: not tcc-opt %s -split-input-file --tcc-swizzle-shared-memory 2>&1 | FileCheck %s --check-prefix=NOTARGET
// NOTARGET: error: tcc-swizzle-shared-memory: the module has no 'tile.target' attribute (a #tile.target<...>); set it with tcc-set-target{arch=...} or the stage pipeline's target= option (known targets: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx950)

// The GEMM main loop of convert-linalg-to-tile (128x128 block, BK = 32, f16):
// A [128, 32] has 64-byte rows (two rows per 128-byte bank line: perPhase 2,
// maxPhase 4), B [32, 128] 256-byte rows (perPhase 1, maxPhase 8). Both
// shared tiles start from one unswizzled attribute; each value gets its own.
// CHECK-DAG: #[[SA:.*]] = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-DAG: #[[SB:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @gemm_step
// CHECK: %[[AS:.*]] = tile.convert_layout %{{.*}} : tensor<128x32xf16, #{{.*}}> -> tensor<128x32xf16, #[[SA]]>
// CHECK: %[[BS:.*]] = tile.convert_layout %{{.*}} : tensor<32x128xf16, #{{.*}}> -> tensor<32x128xf16, #[[SB]]>
// CHECK: tile.convert_layout %[[AS]] : tensor<128x32xf16, #[[SA]]> -> tensor<128x32xf16, #{{.*}}>
// CHECK: tile.convert_layout %[[BS]] : tensor<32x128xf16, #[[SB]]> -> tensor<32x128xf16, #{{.*}}>
// CHECK: tile.dot
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#la = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#lb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>
func.func @gemm_step(%a: tensor<128x32xf16, #la>, %b: tensor<32x128xf16, #lb>, %acc: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> {
  %as = tile.convert_layout %a : tensor<128x32xf16, #la> -> tensor<128x32xf16, #sh>
  %bs = tile.convert_layout %b : tensor<32x128xf16, #lb> -> tensor<32x128xf16, #sh>
  %ao = tile.convert_layout %as : tensor<128x32xf16, #sh> -> tensor<128x32xf16, #opA>
  %bo = tile.convert_layout %bs : tensor<32x128xf16, #sh> -> tensor<32x128xf16, #opB>
  %d = tile.dot %ao, %bo, %acc : tensor<128x32xf16, #opA>, tensor<32x128xf16, #opB> -> tensor<128x128xf32, #mma>
  return %d : tensor<128x128xf32, #mma>
}

// -----

// bf16 64x64 (128-byte rows) and f32 64x32 (128-byte rows, 4-element
// vectors): one phase per row, 8 phases.
// CHECK-DAG: #[[S16:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #[[S32:.*]] = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @bf16_and_f32
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x64xbf16, #[[S16]]>
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x32xf32, #[[S32]]>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @bf16_and_f32(%a: tensor<64x64xbf16, #l>, %b: tensor<64x32xf32, #l>)
    -> (tensor<64x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>,
        tensor<64x32xf32, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 1}>>) {
  %as = tile.convert_layout %a : tensor<64x64xbf16, #l> -> tensor<64x64xbf16, #sh>
  %ao = tile.convert_layout %as : tensor<64x64xbf16, #sh> -> tensor<64x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>
  %bs = tile.convert_layout %b : tensor<64x32xf32, #l> -> tensor<64x32xf32, #sh>
  %bo = tile.convert_layout %bs : tensor<64x32xf32, #sh> -> tensor<64x32xf32, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 1}>>
  return %ao, %bo : tensor<64x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>, tensor<64x32xf32, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 1}>>
}

// -----

// Left unchanged: a shared tile that is also stored (a non-dot user), one
// already swizzled, rows shorter than one 16-byte vector (f16 x 4 = 8 bytes:
// maxPhase comes out 1), and a shared tile feeding the FMA fallback.
// CHECK-DAG: #[[PLAIN:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-DAG: #[[SWZ:.*]] = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 2, order = [1, 0]}>
// CHECK-NOT: maxPhase = 8
// CHECK-LABEL: func.func @unchanged
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x64xf16, #[[PLAIN]]>
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x64xf16, #[[SWZ]]>
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x4xf16, #[[PLAIN]]>
// CHECK: tile.convert_layout %{{.*}} -> tensor<16x16xf32, #[[PLAIN]]>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sw = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 2, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
#fma = #tile.dot_operand<{opIdx = 0, parent = #l, kWidth = 0}>
func.func @unchanged(%a: tensor<64x64xf16, #l>, %n: tensor<64x4xf16, #l>, %f: tensor<16x16xf32, #l>, %m: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %s = tile.convert_layout %a : tensor<64x64xf16, #l> -> tensor<64x64xf16, #sh>
  %o = tile.convert_layout %s : tensor<64x64xf16, #sh> -> tensor<64x64xf16, #opA>
  tile.memref_store %m[%c0, %c0], %s : memref<64x64xf16>, tensor<64x64xf16, #sh>
  %w = tile.convert_layout %a : tensor<64x64xf16, #l> -> tensor<64x64xf16, #sw>
  %wo = tile.convert_layout %w : tensor<64x64xf16, #sw> -> tensor<64x64xf16, #opA>
  %ns = tile.convert_layout %n : tensor<64x4xf16, #l> -> tensor<64x4xf16, #sh>
  %no = tile.convert_layout %ns : tensor<64x4xf16, #sh> -> tensor<64x4xf16, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 2}>>
  %fs = tile.convert_layout %f : tensor<16x16xf32, #l> -> tensor<16x16xf32, #sh>
  %fo = tile.convert_layout %fs : tensor<16x16xf32, #sh> -> tensor<16x16xf32, #fma>
  return
}

// -----

// On AMD, MFMA operands with K contiguous: A [128, 64] f16, kWidth 8
// (ds_read_b128): 128-byte rows, 8 phases. B stored N x K ([64, 128] with
// order [0, 1]: K = dim 0 is contiguous, 128-byte rows), kWidth 4
// (ds_read_b64): 8-byte vectors, 16 phases. A B tile stored K x N
// (N contiguous) is read element-wise by MFMA and stays unswizzled. With
// bank-model=nvidia these are errors.
// AMD-DAG: #[[MA:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// AMD-DAG: #[[MB:.*]] = #tile.shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>
// AMD-DAG: #[[PLAIN:.*]] = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// AMD-LABEL: func.func @mfma
// AMD: tile.convert_layout %{{.*}} -> tensor<128x64xf16, #[[MA]]>
// AMD: tile.convert_layout %{{.*}} -> tensor<64x128xf16, #[[MB]]>
// AMD: tile.convert_layout %{{.*}} -> tensor<64x128xf16, #[[PLAIN]]>
#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
#sh = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shT = #tile.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#lT = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [0, 1]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
#opB = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 4}>
func.func @mfma(%a: tensor<128x64xf16, #l>, %b: tensor<64x128xf16, #lT>, %c: tensor<64x128xf16, #l>) -> (tensor<128x64xf16, #opA>, tensor<64x128xf16, #opB>, tensor<64x128xf16, #opB>) {
  %as = tile.convert_layout %a : tensor<128x64xf16, #l> -> tensor<128x64xf16, #sh>
  // expected-error@+1 {{reads a shared tile as an amd dot operand, but the target sm_90 has banks = nvidia}}
  %ao = tile.convert_layout %as : tensor<128x64xf16, #sh> -> tensor<128x64xf16, #opA>
  %bs = tile.convert_layout %b : tensor<64x128xf16, #lT> -> tensor<64x128xf16, #shT>
  // expected-error@+1 {{has banks = nvidia}}
  %bo = tile.convert_layout %bs : tensor<64x128xf16, #shT> -> tensor<64x128xf16, #opB>
  %cs = tile.convert_layout %c : tensor<64x128xf16, #l> -> tensor<64x128xf16, #sh>
  // expected-error@+1 {{has banks = nvidia}}
  %co = tile.convert_layout %cs : tensor<64x128xf16, #sh> -> tensor<64x128xf16, #opB>
  return %ao, %bo, %co : tensor<128x64xf16, #opA>, tensor<64x128xf16, #opB>, tensor<64x128xf16, #opB>
}

// -----

// wgmma reads B straight from shared memory: 128-byte rows get the formula's
// swizzle (the same as wgmma's 128-byte swizzle mode); 256-byte rows cannot
// be put into wgmma's 128-byte atoms by #tile.shared and stay unswizzled.
// CHECK-DAG: #[[W128:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #[[PLAIN:.*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-LABEL: func.func @wgmma
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xbf16, #{{.*}}>, tensor<64x64xbf16, #[[W128]]>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xbf16, #{{.*}}>, tensor<64x128xbf16, #[[PLAIN]]>
#wgmma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#wgmma2 = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #wgmma, kWidth = 4}>
#opA2 = #tile.dot_operand<{opIdx = 0, parent = #wgmma2, kWidth = 4}>
func.func @wgmma(%a: tensor<64x64xbf16, #opA>, %a2: tensor<64x64xbf16, #opA2>, %b: tensor<64x64xbf16, #l>, %b2: tensor<64x128xbf16, #l>,
                 %acc: tensor<64x64xf32, #wgmma>, %acc2: tensor<64x128xf32, #wgmma2>) {
  %bs = tile.convert_layout %b : tensor<64x64xbf16, #l> -> tensor<64x64xbf16, #sh>
  %c = tile.dot %a, %bs, %acc : tensor<64x64xbf16, #opA>, tensor<64x64xbf16, #sh> -> tensor<64x64xf32, #wgmma>
  // expected-warning@+1 {{left unswizzled: wgmma reads rows of 256 bytes, wider than one 128-byte swizzle atom}}
  %bs2 = tile.convert_layout %b2 : tensor<64x128xbf16, #l> -> tensor<64x128xbf16, #sh>
  %c2 = tile.dot %a2, %bs2, %acc2 : tensor<64x64xbf16, #opA2>, tensor<64x128xbf16, #sh> -> tensor<64x128xf32, #wgmma2>
  return
}

// -----

// Rows whose length is not a power of two have no XOR swizzle that stays
// inside the row: rejected.
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#opA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
func.func @odd_row(%a: tensor<64x48xf16, #l>) -> tensor<64x48xf16, #opA> {
  // expected-error@+1 {{cannot swizzle 'tensor<64x48xf16, #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>>': its contiguous dimension (48 elements) is not a power of two}}
  %s = tile.convert_layout %a : tensor<64x48xf16, #l> -> tensor<64x48xf16, #sh>
  %o = tile.convert_layout %s : tensor<64x48xf16, #sh> -> tensor<64x48xf16, #opA>
  return %o : tensor<64x48xf16, #opA>
}
