// Round trip of every tile op, in the custom and the generic form, through
// complete Triton-style kernels (vector add, row reduction, dot with NVIDIA
// and AMD layouts) and memref-window accesses.
// RUN: tcc-opt %s | tcc-opt | FileCheck %s
// RUN: tcc-opt %s --mlir-print-op-generic | tcc-opt | FileCheck %s
// RUN: tcc-opt %s --mlir-print-op-generic | tcc-opt --mlir-print-op-generic | tcc-opt --verify-roundtrip | FileCheck %s

#b1 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tile.slice<{dim = 1, parent = #b2}>
#col = #tile.slice<{dim = 0, parent = #b2}>
#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#wgmma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
#shared = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[ROW:slice[0-9]*]] = #tile.slice<{dim = 1, parent = #[[B2]]}>
// CHECK-DAG: #[[COL:slice[0-9]*]] = #tile.slice<{dim = 0, parent = #[[B2]]}>
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[WGMMA:mma[0-9]*]] = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[MFMA:mfma[0-9]*]] = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
// CHECK-DAG: #[[SHARED:shared[0-9]*]] = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #[[A_MMA:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MMA]], kWidth = 4}>
// CHECK-DAG: #[[B_MMA:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, parent = #[[MMA]], kWidth = 4}>
// CHECK-DAG: #[[A_WG:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[WGMMA]], kWidth = 4}>
// CHECK-DAG: #[[A_MFMA:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 0, parent = #[[MFMA]], kWidth = 8}>
// CHECK-DAG: #[[B_MFMA:dot_op[0-9]*]] = #tile.dot_operand<{opIdx = 1, parent = #[[MFMA]], kWidth = 8}>

// out[i] = x[i] + y[i] for i < n, BLOCK elements per program.
// CHECK-LABEL: tile.func @vector_add(
// CHECK-SAME: %{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32)
// CHECK-SAME: attributes {constexprs = {BLOCK = 512 : i32}, grid_rank = 1 : i32}
tile.func @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32)
    attributes {grid_rank = 1 : i32, constexprs = {BLOCK = 512 : i32}} {
  // CHECK: %[[PID:.*]] = tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  %block = arith.constant 512 : i32
  %start = arith.muli %pid, %block : i32
  // CHECK: tile.arange {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #[[B1]]>
  %range = tile.arange {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b1>
  // CHECK: tile.splat %{{.*}} : i32 -> tensor<512xi32, #[[B1]]>
  %starts = tile.splat %start : i32 -> tensor<512xi32, #b1>
  %offs = arith.addi %starts, %range : tensor<512xi32, #b1>
  %ns = tile.splat %n : i32 -> tensor<512xi32, #b1>
  %mask = arith.cmpi slt, %offs, %ns : tensor<512xi32, #b1>
  // CHECK: tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #[[B1]]>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
  // CHECK: %[[XP:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #[[B1]]>, tensor<512xi32, #[[B1]]>
  %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
  %yp = tile.addptr %ys, %offs : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
  %zero = arith.constant dense<0.0> : tensor<512xf32, #b1>
  // CHECK: tile.load %[[XP]], %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #[[B1]]>
  %xv = tile.load %xp, %mask, %zero : tensor<512x!tile.ptr<f32>, #b1>
  // CHECK: tile.load %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #[[B1]]>
  %yv = tile.load %yp, %mask : tensor<512x!tile.ptr<f32>, #b1>
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<512xf32, #[[B1]]>
  %sum = arith.addf %xv, %yv : tensor<512xf32, #b1>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
  %op = tile.addptr %outs, %offs : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<512x!tile.ptr<f32>, #[[B1]]>
  tile.store %op, %sum, %mask : tensor<512x!tile.ptr<f32>, #b1>
  // CHECK: tile.return
  tile.return
}

// out[r] = sum_c in[r, c] over a 64x128 row block; unmasked scalar access too.
// CHECK-LABEL: tile.func @row_sum(
tile.func @row_sum(%in: !tile.ptr<f32>, %out: !tile.ptr<f32, 1>, %stride: i32)
    attributes {grid_rank = 2 : i32} {
  // CHECK: tile.program_id 1 : i32
  %pid = tile.program_id 1 : i32
  // CHECK: tile.num_programs 0 : i32
  %np = tile.num_programs 0 : i32
  %rows = tile.arange {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #row>
  %cols = tile.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #col>
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xi32, #[[ROW]]> -> tensor<64x1xi32, #[[B2]]>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #row> -> tensor<64x1xi32, #b2>
  // CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<128xi32, #[[COL]]> -> tensor<1x128xi32, #[[B2]]>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #col> -> tensor<1x128xi32, #b2>
  %strides = tile.splat %stride : i32 -> tensor<64x1xi32, #b2>
  %rowoff = arith.muli %r2, %strides : tensor<64x1xi32, #b2>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xi32, #[[B2]]> -> tensor<64x128xi32, #[[B2]]>
  %rb = tile.broadcast %rowoff : tensor<64x1xi32, #b2> -> tensor<64x128xi32, #b2>
  %cb = tile.broadcast %c2 : tensor<1x128xi32, #b2> -> tensor<64x128xi32, #b2>
  %offs = arith.addi %rb, %cb : tensor<64x128xi32, #b2>
  %base = tile.splat %in : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>, #b2>
  %ptrs = tile.addptr %base, %offs : tensor<64x128x!tile.ptr<f32>, #b2>, tensor<64x128xi32, #b2>
  // CHECK: tile.load %{{.*}} : tensor<64x128x!tile.ptr<f32>, #[[B2]]>
  %tile = tile.load %ptrs : tensor<64x128x!tile.ptr<f32>, #b2>
  // CHECK: tile.reduce %{{.*}} {axis = 1 : i32} ({
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
  // CHECK-NEXT: tile.reduce.return %[[S]] : f32
  // CHECK-NEXT: }) : tensor<64x128xf32, #[[B2]]> -> tensor<64xf32, #[[ROW]]>
  %sums = tile.reduce %tile {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<64x128xf32, #b2> -> tensor<64xf32, #row>
  // A 1-D reduction gives a scalar.
  // CHECK: tile.reduce %{{.*}} {axis = 0 : i32} ({
  // CHECK: }) : tensor<64xf32, #[[ROW]]> -> f32
  %total = tile.reduce %sums {axis = 0 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.reduce.return %m : f32
  }) : tensor<64xf32, #row> -> f32
  // Several operands reduced together (a value and its index): the combiner
  // takes the left partial's elements, then the right's.
  // CHECK: tile.reduce %{{.*}}, %{{.*}} {axis = 1 : i32} ({
  // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
  // CHECK: tile.reduce.return %{{.*}}, %{{.*}} : f32, i32
  // CHECK-NEXT: }) : tensor<64x128xf32, #[[B2]]>, tensor<64x128xi32, #[[B2]]> -> tensor<64xf32, #[[ROW]]>, tensor<64xi32, #[[ROW]]>
  %best:2 = tile.reduce %tile, %offs {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %b, %a : f32
    %v = arith.select %gt, %b, %a : f32
    %i = arith.select %gt, %bi, %ai : i32
    tile.reduce.return %v, %i : f32, i32
  }) : tensor<64x128xf32, #b2>, tensor<64x128xi32, #b2> -> tensor<64xf32, #row>, tensor<64xi32, #row>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #row>
  %optrs = tile.addptr %outs, %rows : tensor<64x!tile.ptr<f32>, #row>, tensor<64xi32, #row>
  tile.store %optrs, %sums : tensor<64x!tile.ptr<f32>, #row>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f32>, i32
  %p = tile.addptr %out, %pid : !tile.ptr<f32>, i32
  // CHECK: tile.load %{{.*}} : !tile.ptr<f32>
  %old = tile.load %p : !tile.ptr<f32>
  %new = arith.addf %old, %total : f32
  // CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>
  tile.store %p, %new : !tile.ptr<f32>
  // CHECK: tile.reshape %{{.*}} : tensor<64x128xf32, #[[B2]]> -> tensor<8192xf32, #[[B1]]>
  %flat = tile.reshape %tile : tensor<64x128xf32, #b2> -> tensor<8192xf32, #b1>
  tile.return
}

// C = A * B on mma.sync: blocked loads, conversion to operand layouts.
// CHECK-LABEL: tile.func @dot_mma(
// CHECK-SAME: attributes {constexprs = {BLOCK_K = 32 : i32, EVEN_K = true}, grid_rank = 2 : i32}
tile.func @dot_mma(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16, 1>)
    attributes {grid_rank = 2 : i32, constexprs = {BLOCK_K = 32 : i32, EVEN_K = true}} {
  %ap = tile.splat %pa : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>, #b2>
  %bp = tile.splat %pb : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #b2>
  %a = tile.load %ap : tensor<64x32x!tile.ptr<f16>, #b2>
  %b = tile.load %bp : tensor<32x64x!tile.ptr<f16>, #b2>
  // CHECK: tile.convert_layout %{{.*}} : tensor<64x32xf16, #[[B2]]> -> tensor<64x32xf16, #[[A_MMA]]>
  %a_op = tile.convert_layout %a : tensor<64x32xf16, #b2> -> tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>>
  %b_op = tile.convert_layout %b : tensor<32x64xf16, #b2> -> tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 4}>>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16, #[[A_MMA]]>, tensor<32x64xf16, #[[B_MMA]]> -> tensor<64x64xf32, #[[MMA]]>
  %c = tile.dot %a_op, %b_op, %acc : tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>>, tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #mma, kWidth = 4}>> -> tensor<64x64xf32, #mma>
  tile.return
}

// wgmma: A in registers, B in (swizzled) shared memory; bf16 operands.
// CHECK-LABEL: tile.func @dot_wgmma(
tile.func @dot_wgmma(%a: !tile.ptr<bf16>) attributes {grid_rank = 1 : i32} {
  %ap = tile.splat %a : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>, #b2>
  %av = tile.load %ap : tensor<64x64x!tile.ptr<bf16>, #b2>
  %ar = tile.convert_layout %av : tensor<64x64xbf16, #b2> -> tensor<64x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #wgmma, kWidth = 4}>>
  %bs = tile.convert_layout %av : tensor<64x64xbf16, #b2> -> tensor<64x64xbf16, #shared>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #wgmma>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xbf16, #[[A_WG]]>, tensor<64x64xbf16, #[[SHARED]]> -> tensor<64x64xf32, #[[WGMMA]]>
  %c = tile.dot %ar, %bs, %acc : tensor<64x64xbf16, #tile.dot_operand<{opIdx = 0, parent = #wgmma, kWidth = 4}>>, tensor<64x64xbf16, #shared> -> tensor<64x64xf32, #wgmma>
  tile.return
}

// MFMA 32x32 on CDNA3, tiles moved through memref windows; f32 operands too
// on the FMA (blocked) path, and without layouts before assignment.
// CHECK-LABEL: tile.func @dot_mfma(
// CHECK-SAME: %{{.*}}: memref<?x?xf16>, %{{.*}}: memref<?x?xf32, strided<[?, 1]>>, %{{.*}}: index
tile.func @dot_mfma(%A: memref<?x?xf16>, %C: memref<?x?xf32, strided<[?, 1]>>, %k: index)
    attributes {grid_rank = 2 : i32} {
  %i = arith.constant 0 : index
  // CHECK: tile.memref_load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf16> -> tensor<64x32xf16, #[[A_MFMA]]>
  %a = tile.memref_load %A[%i, %k] : memref<?x?xf16> -> tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>>
  %m = arith.constant dense<true> : tensor<32x64xi1, #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>>
  %z = arith.constant dense<0.0> : tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>>
  // CHECK: tile.memref_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<?x?xf16> -> tensor<32x64xf16, #[[B_MFMA]]>
  %b = tile.memref_load %A[%k, %i], %m, %z : memref<?x?xf16> -> tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  // CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[MFMA]]>
  %c = tile.dot %a, %b, %acc : tensor<64x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>>, tensor<32x64xf16, #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 8}>> -> tensor<64x64xf32, #mfma>
  %cm = arith.constant dense<true> : tensor<64x64xi1, #mfma>
  // CHECK: tile.memref_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : memref<?x?xf32, strided<[?, 1]>>, tensor<64x64xf32, #[[MFMA]]>
  tile.memref_store %C[%i, %i], %c, %cm : memref<?x?xf32, strided<[?, 1]>>, tensor<64x64xf32, #mfma>
  // CHECK: tile.memref_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[?, 1]>>, tensor<64x64xf32, #[[MFMA]]>
  tile.memref_store %C[%i, %i], %c : memref<?x?xf32, strided<[?, 1]>>, tensor<64x64xf32, #mfma>
  // FMA fallback: blocked accumulator, kWidth 0.
  %fa = arith.constant dense<1.0> : tensor<16x16xf32, #tile.dot_operand<{opIdx = 0, parent = #b2, kWidth = 0}>>
  %fb = arith.constant dense<1.0> : tensor<16x16xf32, #tile.dot_operand<{opIdx = 1, parent = #b2, kWidth = 0}>>
  %facc = arith.constant dense<0.0> : tensor<16x16xf32, #b2>
  // CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #[[B2]]>
  %fc = tile.dot %fa, %fb, %facc : tensor<16x16xf32, #tile.dot_operand<{opIdx = 0, parent = #b2, kWidth = 0}>>, tensor<16x16xf32, #tile.dot_operand<{opIdx = 1, parent = #b2, kWidth = 0}>> -> tensor<16x16xf32, #b2>
  // Before layout assignment.
  %pa = arith.constant dense<1.0> : tensor<16x16xf16>
  %pacc = arith.constant dense<0.0> : tensor<16x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %pc = tile.dot %pa, %pa, %pacc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return
}

// Shared-memory staging: a 3-slot operand buffer, one async copy group.
#cp = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sw = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#mma2 = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-LABEL: tile.func @staging
tile.func @staging(%A: memref<256x64xf16>, %slot: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  // CHECK: %[[BUF:.*]] = tile.shared_alloc : !tile.shared_buffer<3x128x32xf16, #{{.*}}>
  %buf = tile.shared_alloc : !tile.shared_buffer<3x128x32xf16, #sw>
  // CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[BUF]][%{{.*}}] layout #{{.*}} : memref<256x64xf16> -> !tile.shared_buffer<3x128x32xf16, #{{.*}}>
  tile.async_copy %A[%c0, %c0], %buf[%slot] layout #cp : memref<256x64xf16> -> !tile.shared_buffer<3x128x32xf16, #sw>
  // CHECK: tile.async_commit_group
  tile.async_commit_group
  // CHECK: tile.async_wait {pending = 1 : i32}
  tile.async_wait {pending = 1 : i32}
  // CHECK: tile.shared_load %[[BUF]][%{{.*}}] : !tile.shared_buffer<3x128x32xf16, #{{.*}}> -> tensor<128x32xf16, #{{.*}}>
  %a = tile.shared_load %buf[%slot] : !tile.shared_buffer<3x128x32xf16, #sw> -> tensor<128x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mma2, kWidth = 2}>>
  tile.return
}

// A gather of a 1-D memref's elements at an index tile of the result's
// shape and layout.
#g = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: tile.func @gather
tile.func @gather(%b: memref<777xf32>, %d: memref<?xf16>) attributes {grid_rank = 1 : i32} {
  %i = arith.constant dense<3> : tensor<1x512xi32, #g>
  // CHECK: tile.memref_gather %{{.*}}[%{{.*}}] : memref<777xf32>, tensor<1x512xi32, #{{.*}}> -> tensor<1x512xf32, #{{.*}}>
  %v = tile.memref_gather %b[%i] : memref<777xf32>, tensor<1x512xi32, #g> -> tensor<1x512xf32, #g>
  // CHECK: tile.memref_gather %{{.*}}[%{{.*}}] : memref<?xf16>, tensor<1x512xi32, #{{.*}}> -> tensor<1x512xf16, #{{.*}}>
  %h = tile.memref_gather %d[%i] : memref<?xf16>, tensor<1x512xi32, #g> -> tensor<1x512xf16, #g>
  tile.return
}

// The Hopper GEMM producer's copy of a box TMA cannot read (rows of 1500
// f16: 3000 bytes), completing on an mbarrier.
// CHECK-LABEL: tile.func @box_copy(
// CHECK: tile.box_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] layout #{{.*}} {row = 32 : i64, rows = 32 : i64} : memref<776x1500xf16> -> !tile.shared_buffer<4x4x64x64xf16, #{{.*}}>, !tile.mbarriers<4>
#sw128 = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#copy = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @box_copy(%b: memref<776x1500xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<4x4x64x64xf16, #sw128>
  %full = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<4>
  tile.box_copy %b[%c0, %c0], %buf[%c1, %c0], %full[%c1] layout #copy {row = 32 : i64, rows = 32 : i64} : memref<776x1500xf16> -> !tile.shared_buffer<4x4x64x64xf16, #sw128>, !tile.mbarriers<4>
  tile.return
}
