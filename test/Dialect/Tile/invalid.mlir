// One case per tile verifier error (layouts, types, ops); none may crash.
// RUN: tcc-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

// expected-error@+1 {{#tile.blocked: sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same rank, got 2, 1, 2 and 2}}
#b = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// expected-error@+1 {{#tile.blocked: sizePerThread entries must be positive, got [0, 4]}}
#b = #tile.blocked<{sizePerThread = [0, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// expected-error@+1 {{#tile.blocked: number of warps (product of warpsPerCTA [3, 1]) must be a power of two}}
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [3, 1], order = [1, 0]}>

// -----

// expected-error@+1 {{#tile.blocked: order [1, 1] is not a permutation of [0, 2)}}
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]}>

// -----

// expected-error@+1 {{#tile.blocked: threadsPerWarp [4, 4] has 16 threads; a warp has 32 (NVIDIA) or 64 (AMD CDNA)}}
#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 4], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// expected-error@+1 {{#tile.shared: perPhase must be a power of two, got 3}}
#s = #tile.shared<{vec = 8, perPhase = 3, maxPhase = 8, order = [1, 0]}>

// -----

// expected-error@+1 {{#tile.shared: order [0, 0] is not a permutation of [0, 2)}}
#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0, 0]}>

// -----

// expected-error@+1 {{#tile.nvidia_mma: warpsPerCTA must have rank 2, got [4]}}
#m = #tile.nvidia_mma<{version = 2, warpsPerCTA = [4], instrShape = [16, 8]}>

// -----

// expected-error@+1 {{#tile.nvidia_mma: version 2 (mma.sync) needs instrShape [16, 8], got [16, 16]}}
#m = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16]}>

// -----

// expected-error@+1 {{#tile.nvidia_mma: version 3 (wgmma) needs instrShape [16, N, K] with N a multiple of 8 in [8, 256] and K in {8, 16, 32}, got [16, 264, 16]}}
#m = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 264, 16]}>

// -----

// expected-error@+1 {{#tile.nvidia_mma: version 3 (wgmma) needs warpsPerCTA[0] a multiple of 4 (a warpgroup), got 2}}
#m = #tile.nvidia_mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 64, 16]}>

// -----

// expected-error@+1 {{#tile.nvidia_mma: version must be 2 (mma.sync) or 3 (wgmma), got 1}}
#m = #tile.nvidia_mma<{version = 1, warpsPerCTA = [2, 2], instrShape = [16, 8]}>

// -----

// expected-error@+1 {{#tile.amd_mfma: version must be 2 (CDNA2, gfx90a) or 3 (CDNA3, gfx942), got 4}}
#m = #tile.amd_mfma<{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>

// -----

// expected-error@+1 {{#tile.amd_mfma: instrShape must be [32, 32] or [16, 16], got [32, 8]}}
#m = #tile.amd_mfma<{version = 2, warpsPerCTA = [2, 2], instrShape = [32, 8], isTransposed = true}>

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error@+1 {{#tile.dot_operand: opIdx must be 0 (A) or 1 (B), got 2}}
#d = #tile.dot_operand<{opIdx = 2, parent = #mma, kWidth = 4}>

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
// expected-error@+1 {{#tile.dot_operand: kWidth must be 0 for a blocked (FMA) parent, got 4}}
#d = #tile.dot_operand<{opIdx = 0, parent = #b, kWidth = 4}>

// -----

#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// expected-error@+1 {{#tile.dot_operand: parent must be #tile.nvidia_mma, #tile.amd_mfma or #tile.blocked, got #tile.shared}}
#d = #tile.dot_operand<{opIdx = 0, parent = #s, kWidth = 4}>

// -----

#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = false}>
// expected-error@+1 {{#tile.dot_operand: kWidth must be a positive power of two for an MMA parent, got 0}}
#d = #tile.dot_operand<{opIdx = 1, parent = #mfma, kWidth = 0}>

// -----

#wgmma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// expected-error@+1 {{#tile.dot_operand: wgmma (nvidia_mma version 3) reads B from shared memory; only opIdx 0 may live in registers}}
#d = #tile.dot_operand<{opIdx = 1, parent = #wgmma, kWidth = 4}>

// -----

#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// expected-error@+1 {{#tile.slice: parent must be a distributed layout (blocked, nvidia_mma, amd_mfma, dot_operand, slice), got #tile.shared}}
#sl = #tile.slice<{dim = 0, parent = #s}>

// -----

#b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error@+1 {{#tile.slice: parent must have rank >= 2, got rank 1}}
#sl = #tile.slice<{dim = 0, parent = #b}>

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
// expected-error@+1 {{#tile.slice: dim 2 is out of range for a parent of rank 2}}
#sl = #tile.slice<{dim = 2, parent = #b}>

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
// expected-error@+1 {{rank-1 tile cannot carry layout #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}> of rank 2}}
func.func private @f(tensor<128xf32, #b>)

// -----

// expected-error@+1 {{!tile.ptr: pointee must be an integer, float or !tile.ptr type, got 'tensor<4xf32>'}}
func.func private @f(!tile.ptr<tensor<4xf32>>)

// -----

// expected-error@+1 {{!tile.ptr: address space must be non-negative, got -1}}
func.func private @f(!tile.ptr<f32, -1>)

//===----------------------------------------------------------------------===//
// Kernel form and grid queries
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'tile.func' op grid_rank must be 1, 2 or 3, got 4}}
tile.func @k() attributes {grid_rank = 4 : i32} {
  tile.return
}

// -----

// expected-error@+1 {{'tile.func' op requires attribute 'grid_rank'}}
tile.func @k() {
  tile.return
}

// -----

// expected-error@+1 {{'tile.func' op a kernel returns nothing (it writes through pointers), but the signature has 1 result(s)}}
tile.func @k() -> i32 attributes {grid_rank = 1 : i32} {
  %c = arith.constant 0 : i32
  tile.return
}

// -----

// expected-error@+1 {{'tile.func' op argument #1 has type 'tensor<4xf32>'; kernel arguments are integers, floats, !tile.ptr or memrefs}}
tile.func @k(%a: i32, %t: tensor<4xf32>) attributes {grid_rank = 1 : i32} {
  tile.return
}

// -----

// expected-error@+1 {{'tile.func' op constexpr 'BLOCK' must be an integer or bool attribute, got "big"}}
tile.func @k() attributes {grid_rank = 1 : i32, constexprs = {BLOCK = "big"}} {
  tile.return
}

// -----

// expected-error@+1 {{'tile.func' op a kernel needs a body}}
tile.func private @k() attributes {grid_rank = 1 : i32}

// -----

func.func @f() {
  // expected-error@+1 {{'tile.return' op expects parent op 'tile.func'}}
  tile.return
}

// -----

tile.func @k() attributes {grid_rank = 3 : i32} {
  // expected-error@+1 {{'tile.program_id' op axis must be 0, 1 or 2, got 3}}
  %0 = tile.program_id 3 : i32
  tile.return
}

// -----

tile.func @k() attributes {grid_rank = 1 : i32} {
  // expected-error@+1 {{'tile.program_id' op axis 1 is out of range for the enclosing tile.func @k with grid_rank 1}}
  %0 = tile.program_id 1 : i32
  tile.return
}

// -----

tile.func @k() attributes {grid_rank = 2 : i32} {
  // expected-error@+1 {{'tile.num_programs' op axis 2 is out of range for the enclosing tile.func @k with grid_rank 2}}
  %0 = tile.num_programs 2 : i32
  tile.return
}

//===----------------------------------------------------------------------===//
// Building and reshaping tiles
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'tile.arange' op result must be a 1-D tile, got rank 2}}
%0 = tile.arange {start = 0 : i32, end = 128 : i32} : tensor<1x128xi32>

// -----

// expected-error@+1 {{'tile.arange' op end (0) must be greater than start (16)}}
%0 = tile.arange {start = 16 : i32, end = 0 : i32} : tensor<16xi32>

// -----

// expected-error@+1 {{'tile.arange' op end - start = 64 does not match the result length 128}}
%0 = tile.arange {start = 0 : i32, end = 64 : i32} : tensor<128xi32>

// -----

// expected-error@+1 {{'tile.arange' op length 96 must be a power of two}}
%0 = tile.arange {start = 32 : i32, end = 128 : i32} : tensor<96xi32>

// -----

func.func @f(%x: f32) {
  // expected-error@+1 {{'tile.splat' op result element type 'f16' must match the 'src' type 'f32'}}
  %0 = tile.splat %x : f32 -> tensor<128xf16>
  return
}

// -----

func.func @f(%x: tensor<1x128xf32>) {
  // expected-error@+1 {{'tile.broadcast' op result element type 'f16' must match 'src' element type 'f32'}}
  %0 = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf16>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<1x128xf32>) {
  // expected-error@+1 {{'tile.broadcast' op result layout #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}> must match 'src' layout <<NULL ATTRIBUTE>>}}
  %0 = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32, #b>
  return
}

// -----

func.func @f(%x: tensor<128xf32>) {
  // expected-error@+1 {{'tile.broadcast' op result rank 2 must equal 'src' rank 1}}
  %0 = tile.broadcast %x : tensor<128xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @f(%x: tensor<2x128xf32>) {
  // expected-error@+1 {{'tile.broadcast' op dimension 0 of 'src' has size 2 and the result 64; only size-1 dimensions broadcast}}
  %0 = tile.broadcast %x : tensor<2x128xf32> -> tensor<64x128xf32>
  return
}

// -----

func.func @f(%x: tensor<128xf32>) {
  // expected-error@+1 {{'tile.expand_dims' op axis 2 is out of range [0, 1]}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

func.func @f(%x: tensor<128xf32>) {
  // expected-error@+1 {{'tile.expand_dims' op result shape 128x1 must be 'src' shape 128 with a 1 at axis 0 (1x128)}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<128xf32>) {
  // expected-error@+1 {{'tile.expand_dims' op 'src' and result must both have layouts or neither}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32, #b>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#sl = #tile.slice<{dim = 1, parent = #b}>
func.func @f(%x: tensor<128xf32, #sl>) {
  // expected-error@+1 {{'tile.expand_dims' op 'src' layout must be the result layout sliced at axis 0 (#tile.slice<{dim = 0, parent = #tile.blocked<{sizePerThread = [1, 4]}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32, #sl> -> tensor<1x128xf32, #b>
  return
}

// -----

func.func @f(%x: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.reshape' op 'src' has 4096 elements but the result has 2048}}
  %0 = tile.reshape %x : tensor<64x64xf32> -> tensor<2048xf32>
  return
}

// -----

func.func @f(%x: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.convert_layout' op result shape 64x32 must equal 'src' shape 64x64}}
  %0 = tile.convert_layout %x : tensor<64x64xf32> -> tensor<64x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error@+1 {{'tile.addptr' op 'offset' type 'tensor<64xi32>' must have the shape and layout of 'ptr' type 'tensor<128x!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<64xi32>
  return
}

// -----

func.func @f(%p: !tile.ptr<f32>, %o: tensor<64xi32>) {
  // expected-error@+1 {{'tile.addptr' op 'offset' type 'tensor<64xi32>' must have the shape and layout of 'ptr' type '!tile.ptr<f32>'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<64xi32>
  return
}

// -----

func.func @f(%p: tensor<128xf32>) {
  // expected-error@+1 {{expected !tile.ptr or a tile of !tile.ptr, got 'tensor<128xf32>'}}
  %0 = tile.load %p : tensor<128xf32>
  return
}

// -----

func.func @f(%p: !tile.ptr<f32>, %m: i1) {
  // expected-error@+1 {{expected 'ptr', optional 'mask', 'other'}}
  %0 = tile.load %p, %m, %m, %m : !tile.ptr<f32>
  return
}

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error@+1 {{'tile.load' op result type 'tensor<128xf16>' must be 'tensor<128xf32>', the pointee tile of 'ptr'}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf16>
  return
}

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error@+1 {{'tile.load' op 'mask' type 'tensor<64xi1>' must be 'tensor<128xi1>' (i1, shaped like the data)}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  return
}

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xf32>) {
  // expected-error@+1 {{'tile.load' op 'other' requires a 'mask'}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  return
}

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: f32) {
  // expected-error@+1 {{'tile.load' op 'other' type 'f32' must match the loaded type 'tensor<128xf32>'}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, f32) -> tensor<128xf32>
  return
}

// -----

func.func @f(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf16>) {
  // expected-error@+1 {{'tile.store' op 'value' type 'tensor<128xf16>' must be 'tensor<128xf32>', the pointee tile of 'ptr'}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>>, tensor<128xf16>) -> ()
  return
}

// -----

func.func @f(%m: memref<?x?xf32>, %i: index) {
  // expected-error@+1 {{'tile.memref_load' op expects 2 offsets for a rank-2 memref, got 1}}
  %0 = tile.memref_load %m[%i] : memref<?x?xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%m: memref<?x?xf32>, %i: index) {
  // expected-error@+1 {{'tile.memref_load' op 'result' rank 1 must equal the memref rank 2}}
  %0 = tile.memref_load %m[%i, %i] : memref<?x?xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%m: memref<?x?xf32>, %i: index) {
  // expected-error@+1 {{'tile.memref_load' op 'result' element type 'f16' must match the memref element type 'f32'}}
  %0 = tile.memref_load %m[%i, %i] : memref<?x?xf32> -> tensor<64x64xf16>
  return
}

// -----

func.func @f(%m: memref<7x13xf32>, %i: tensor<64xi32>) {
  // expected-error@+1 {{'tile.memref_gather' op gathers from a 1-D memref, got rank 2}}
  %0 = tile.memref_gather %m[%i] : memref<7x13xf32>, tensor<64xi32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%m: memref<777xf32>, %i: tensor<32xi32>) {
  // expected-error@+1 {{'tile.memref_gather' op 'indices' 'tensor<32xi32>' must have the result's shape and layout ('tensor<64xf32>')}}
  %0 = tile.memref_gather %m[%i] : memref<777xf32>, tensor<32xi32> -> tensor<64xf32>
  return
}

// -----

#a = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%m: memref<777xf32>, %i: tensor<512xi32, #a>) {
  // expected-error@+1 {{'tile.memref_gather' op 'indices' 'tensor<512xi32, #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' must have the result's shape and layout}}
  %0 = tile.memref_gather %m[%i] : memref<777xf32>, tensor<512xi32, #a> -> tensor<512xf32, #b>
  return
}

// -----

func.func @f(%m: memref<777xf32>, %i: tensor<64xi32>) {
  // expected-error@+1 {{'tile.memref_gather' op result element type 'f16' must match the memref element type 'f32'}}
  %0 = tile.memref_gather %m[%i] : memref<777xf32>, tensor<64xi32> -> tensor<64xf16>
  return
}

// -----

func.func @f(%m: memref<777xf32>, %i: tensor<64xf32>) {
  // expected-error@+1 {{'tile.memref_gather' op operand #1 must be statically shaped tensor of signless integer or index values}}
  %0 = tile.memref_gather %m[%i] : memref<777xf32>, tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%m: memref<?x?xf32>, %i: index, %v: tensor<64x64xf16>) {
  // expected-error@+1 {{'tile.memref_store' op 'value' element type 'f16' must match the memref element type 'f32'}}
  tile.memref_store %m[%i, %i], %v : memref<?x?xf32>, tensor<64x64xf16>
  return
}

// -----

func.func @f(%m: memref<?xf32>, %i: index, %v: tensor<64xf32>, %k: tensor<32xi1>) {
  // expected-error@+1 {{'tile.memref_store' op 'mask' type 'tensor<32xi1>' must be 'tensor<64xi1>' (i1, shaped like the data)}}
  "tile.memref_store"(%m, %i, %v, %k) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (memref<?xf32>, index, tensor<64xf32>, tensor<32xi1>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Dot
//===----------------------------------------------------------------------===//

// -----

func.func @f(%a: tensor<2x16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op 'a' must be a 2-D tile, got rank 3}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op 'a' element type must be f16, bf16 or f32, got 'i8'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op 'b' element type 'bf16' must match 'a' element type 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error@+1 {{'tile.dot' op 'acc' element type must be f32, got 'f16'}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'tile.dot' op K mismatch: 'a' is MxK = 64x32 but 'b' is KxN = 16x64}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<32x64xf32>) {
  // expected-error@+1 {{'tile.dot' op 'acc' shape 32x64 must be MxN = 64x64 (M from 'a', N from 'b')}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  return
}

// -----

func.func @f(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x32xf32>
  return
}

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x16xf16, #dA>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'tile.dot' op 'a' has layout #tile.dot_operand<{opIdx = 0, parent = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}> but the accumulator has none}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16, #dA>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

#mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dA = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x16xf16, #dA>, %c: tensor<16x16xf32, #mma>) {
  // expected-error@+1 {{'tile.dot' op 'b' layout must be #tile.dot_operand with opIdx = 1 and parent = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, got #tile.dot_operand<{opIdx = 0}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16, #dA>, tensor<16x16xf16, #dA> -> tensor<16x16xf32, #mma>
  return
}

// -----

#mfma = #tile.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = false}>
#dA = #tile.dot_operand<{opIdx = 0, parent = #mfma, kWidth = 8}>
#s = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @f(%a: tensor<64x64xf16, #dA>, %b: tensor<64x64xf16, #s>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'tile.dot' op 'b' layout must be #tile.dot_operand with opIdx = 1 and parent = #tile.amd_mfma}}
  %0 = tile.dot %a, %b, %c : tensor<64x64xf16, #dA>, tensor<64x64xf16, #s> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#wgmma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#dA = #tile.dot_operand<{opIdx = 0, parent = #wgmma, kWidth = 4}>
func.func @f(%a: tensor<64x64xf16, #dA>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32, #wgmma>) {
  // expected-error@+1 {{(or #tile.shared for wgmma), got <<NULL ATTRIBUTE>>}}
  %0 = tile.dot %a, %b, %c : tensor<64x64xf16, #dA>, tensor<64x64xf16> -> tensor<64x64xf32, #wgmma>
  return
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

// -----

func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op axis 2 is out of range for rank-2 'src'}}
  %0 = tile.reduce %t {axis = 2 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<64x128xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%t: tensor<128xf32>) {
  // expected-error@+1 {{'tile.reduce' op reducing a 1-D tile gives a scalar 'f32', got 'tensor<1xf32>'}}
  %0 = tile.reduce %t {axis = 0 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<128xf32> -> tensor<1xf32>
  return
}

// -----

func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op result type 'tensor<128xf32>' must be 'tensor<64xf32>' ('src' without axis 1)}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<64x128xf32> -> tensor<128xf32>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#sl = #tile.slice<{dim = 0, parent = #b}>
func.func @f(%t: tensor<64x128xf32, #b>) {
  // expected-error@+1 {{'tile.reduce' op result layout must be #tile.slice<{dim = 1, parent = #tile.blocked}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<64x128xf32, #b> -> tensor<64xf32, #sl>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#sl = #tile.slice<{dim = 1, parent = #b}>
func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op result layout must be absent as 'src' has none, got #tile.slice}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }) : tensor<64x128xf32> -> tensor<64xf32, #sl>
  return
}

// -----

func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op combiner must take ('f32', 'f32') (the operands' element types, twice), got ('f32', 'f16')}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f16):
    tile.reduce.return %a : f32
  }) : tensor<64x128xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op combiner returns ('i32') but must return ('f32')}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    %i = arith.fptosi %a : f32 to i32
    tile.reduce.return %i : i32
  }) : tensor<64x128xf32> -> tensor<64xf32>
  return
}

// -----

// Several operands: one shape and layout.
func.func @f(%v: tensor<64x128xf32>, %i: tensor<64x64xi64>) {
  // expected-error@+1 {{'tile.reduce' op operand 1 has type 'tensor<64x64xi64>'; every operand must have the shape and layout of operand 0 ('tensor<64x128xf32>')}}
  %0:2 = tile.reduce %v, %i {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
    tile.reduce.return %a, %ai : f32, i64
  }) : tensor<64x128xf32>, tensor<64x64xi64> -> tensor<64xf32>, tensor<64xi64>
  return
}

// -----

#b = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%v: tensor<64x128xf32, #b>, %i: tensor<64x128xi64>) {
  // expected-error@+1 {{'tile.reduce' op operand 1 has type 'tensor<64x128xi64>'; every operand must have the shape and layout of operand 0}}
  %0:2 = tile.reduce %v, %i {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
    tile.reduce.return %a, %ai : f32, i64
  }) : tensor<64x128xf32, #b>, tensor<64x128xi64> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b}>>, tensor<64xi64>
  return
}

// -----

func.func @f(%v: tensor<64x128xf32>, %i: tensor<64x128xi64>) {
  // expected-error@+1 {{'tile.reduce' op has 2 operands but 1 results (one per operand)}}
  %0 = tile.reduce %v, %i {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
    tile.reduce.return %a : f32
  }) : tensor<64x128xf32>, tensor<64x128xi64> -> tensor<64xf32>
  return
}

// -----

// The combiner takes the left partial's elements, then the right's.
func.func @f(%v: tensor<64x128xf32>, %i: tensor<64x128xi64>) {
  // expected-error@+1 {{'tile.reduce' op combiner must take ('f32', 'i64', 'f32', 'i64') (the operands' element types, twice), got ('f32', 'f32', 'i64', 'i64')}}
  %0:2 = tile.reduce %v, %i {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32, %ai: i64, %bi: i64):
    tile.reduce.return %a, %ai : f32, i64
  }) : tensor<64x128xf32>, tensor<64x128xi64> -> tensor<64xf32>, tensor<64xi64>
  return
}

// -----

func.func @f(%v: tensor<64x128xf32>, %i: tensor<64x128xi64>) {
  // expected-error@+1 {{'tile.reduce' op combiner returns ('f32') but must return ('f32', 'i64')}}
  %0:2 = tile.reduce %v, %i {axis = 1 : i32} ({
  ^bb0(%a: f32, %ai: i64, %b: f32, %bi: i64):
    tile.reduce.return %a : f32
  }) : tensor<64x128xf32>, tensor<64x128xi64> -> tensor<64xf32>, tensor<64xi64>
  return
}

// -----

func.func @f(%t: tensor<64x128xf32>) {
  // expected-error@+1 {{'tile.reduce' op combiner must end with tile.reduce.return}}
  %0 = tile.reduce %t {axis = 1 : i32} ({
  ^bb0(%a: f32, %b: f32):
    llvm.unreachable
  }) : tensor<64x128xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%x: f32) {
  // expected-error@+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error@+1 {{!tile.shared_buffer: shape needs a slot count and at least one tile dimension, got 1 dimension(s)}}
func.func @f(%b: !tile.shared_buffer<128xf16, #sw>) {
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error@+1 {{!tile.shared_buffer: layout order has 2 entries for a rank-3 tile}}
func.func @f(%b: !tile.shared_buffer<2x4x128x32xf16, #sw>) {
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @f() {
  scf.execute_region {
    // expected-error@+1 {{'tile.shared_alloc' op must be directly in a tile.func body}}
    %b = tile.shared_alloc : !tile.shared_buffer<2x128x32xf16, #sw>
    scf.yield
  }
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#cp = #tile.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%A: memref<?x?xf16>, %b: !tile.shared_buffer<2x128x32xf16, #sw>, %i: index) {
  // expected-error@+1 {{'tile.async_copy' op layout rank 1 must equal the slot's tile rank 2}}
  tile.async_copy %A[%i, %i], %b[%i] layout #cp : memref<?x?xf16> -> !tile.shared_buffer<2x128x32xf16, #sw>
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#cp = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @f(%A: memref<?x?xf32>, %b: !tile.shared_buffer<2x128x32xf16, #sw>, %i: index) {
  // expected-error@+1 {{'tile.async_copy' op 'slot tile' element type 'f16' must match the memref element type 'f32'}}
  tile.async_copy %A[%i, %i], %b[%i] layout #cp : memref<?x?xf32> -> !tile.shared_buffer<2x128x32xf16, #sw>
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#cp = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @f(%b: !tile.shared_buffer<2x128x32xf16, #sw>, %i: index) {
  // expected-error@+1 {{'tile.shared_load' op result 'tensor<64x32xf16, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>' must have the slot's tile shape and element type ('tensor<128x32xf16>')}}
  %t = tile.shared_load %b[%i] : !tile.shared_buffer<2x128x32xf16, #sw> -> tensor<64x32xf16, #cp>
  return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @f(%b: !tile.shared_buffer<2x128x32xf16, #sw>, %i: index) {
  // expected-error@+1 {{'tile.shared_load' op result must be a register layout, not #tile.shared}}
  %t = tile.shared_load %b[%i] : !tile.shared_buffer<2x128x32xf16, #sw> -> tensor<128x32xf16, #sw>
  return
}

// -----

func.func @f() {
  // expected-error@+1 {{'tile.async_wait' op attribute 'pending' failed to satisfy constraint}}
  tile.async_wait {pending = -1 : i32}
  return
}

// -----

// expected-error@+1 {{#tile.target: arch must not be empty}}
module attributes {tile.target = #tile.target<arch = "", vendor = nvidia, warp_size = 32, max_shared_bytes = 1024, banks = nvidia, mma = [], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+1 {{#tile.target: warp_size must be 64 for vendor = amd (CDNA wave64), got 32}}
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 32, max_shared_bytes = 65536, banks = amd, mma = [], async_copy = false, math = expanded>} {
}

// -----

// expected-error@+1 {{#tile.target: warp_size must be 32 for vendor = nvidia, got 64}}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 64, max_shared_bytes = 1024, banks = nvidia, mma = [], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+1 {{#tile.target: max_shared_bytes must be positive, got 0}}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 0, banks = nvidia, mma = [], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+1 {{#tile.target: banks = amd is not the bank model of vendor = nvidia}}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 1024, banks = amd, mma = [], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+1 {{#tile.target: mma kind mfma_32x32x8 is not an instruction of vendor = nvidia}}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 1024, banks = nvidia, mma = [mfma_32x32x8], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+1 {{#tile.target: mma kind mma_sync_m16n8k16 is not an instruction of vendor = amd}}
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mma_sync_m16n8k16], async_copy = false, math = expanded>} {
}

// -----

// expected-error@+1 {{#tile.target: mma kind mfma_16x16x16 is listed twice}}
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [mfma_16x16x16, mfma_32x32x8, mfma_16x16x16], async_copy = false, math = expanded>} {
}

// -----

// expected-error@+1 {{#tile.target: async_copy (cp.async) exists for vendor = nvidia only}}
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [], async_copy = true, math = expanded>} {
}

// -----

// expected-error@+1 {{#tile.target: math = libdevice is NVIDIA's device library; vendor = amd needs math = expanded}}
module attributes {tile.target = #tile.target<arch = "gfx942", vendor = amd, warp_size = 64, max_shared_bytes = 65536, banks = amd, mma = [], async_copy = false, math = libdevice>} {
}

// -----

// expected-error@+2 {{expected one of [mma_sync_m16n8k16, mfma_32x32x8, mfma_16x16x16, wgmma_m64nNk16] for tensor-core instruction, got: wgmma}}
// expected-error@+1 {{failed to parse Tile_TargetAttr parameter 'mma'}}
module attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 1024, banks = nvidia, mma = [wgmma], async_copy = false, math = libdevice>} {
}


// -----

// expected-error@+1 {{'tile.target' must be a #tile.target<...>, got "sm_90"}}
module attributes {tile.target = "sm_90"} {
}

// -----

// expected-error@+1 {{'tile.target' belongs on a builtin.module, not on func.func}}
func.func @f() attributes {tile.target = #tile.target<arch = "sm_90", vendor = nvidia, warp_size = 32, max_shared_bytes = 1024, banks = nvidia, mma = [], async_copy = false, math = libdevice>} {
  return
}

// -----

// expected-error@+1 {{unknown tile dialect attribute 'tile.targets' (the tile dialect defines 'tile.target' and 'tile.lowering_config')}}
module attributes {tile.targets = 1} {
}

// -----

// expected-error@+1 {{#tile.lowering_config: form = matmul needs a block of 3 sizes ([BM, BN, BK]), got [128, 128]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>}

// -----

// expected-error@+1 {{#tile.lowering_config: form = elementwise needs a block of 2 sizes ([BM, BN]), got [1, 2, 1024]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2, 1024], num_warps = 4>}

// -----

// expected-error@+1 {{#tile.lowering_config: block sizes must be positive powers of two, got [3, 1024]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = elementwise, block = [3, 1024], num_warps = 4>}

// -----

// expected-error@+1 {{#tile.lowering_config: num_warps must be a power of two from 1 to 16, got 32}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [1, 1024], num_warps = 32>}

// -----

// expected-error@+1 {{#tile.lowering_config: num_stages is for the matmul and attention forms, not form = softmax}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 1024], num_warps = 4, num_stages = 2>}

// -----

// expected-error@+1 {{#tile.lowering_config: num_stages must be from 1 to 8, got 9}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 4, num_stages = 9>}

// -----

// expected-error@+1 {{#tile.lowering_config: form = matmul needs its tensor-core instruction (mma = ...)}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3>}

// -----

// expected-error@+1 {{#tile.lowering_config: mma is for form = matmul and form = attention, not form = fma_matmul}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 4, mma = mma_sync_m16n8k16>}

// -----

// expected-error@+1 {{'tile.lowering_config' must be a #tile.lowering_config<...>, got 4 : i64}}
func.func private @f() attributes {tile.lowering_config = 4}

// -----

// expected-error@+1 {{#tile.lowering_config: walk is for form = row_program and form = softmax, not form = elementwise}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = elementwise, block = [2, 1024], num_warps = 4, walk = looped>}

// -----

// expected-error@+1 {{#tile.lowering_config: walk = staged is for form = softmax, not form = row_program}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 1024], num_warps = 4, walk = staged>}

// -----

// expected-error@+1 {{#tile.lowering_config: view is for form = elementwise, not form = row_reduction}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [1, 1024], num_warps = 4, view = flat_gather>}

// -----

// expected-error@+1 {{#tile.lowering_config: view = flat_gather streams one row of all elements: its block must be [1, BN], got [2, 1024]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = elementwise, block = [2, 1024], num_warps = 4, view = flat_gather>}

// -----

// expected-error@+1 {{#tile.lowering_config: form = transpose needs a square block ([T, T]), got [32, 64]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = transpose, block = [32, 64], num_warps = 4>}

// -----

// expected-error@+1 {{#tile.lowering_config: form = row_program needs a block of 2 sizes ([BM, BN]), got [1, 2, 512]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 2, 512], num_warps = 1>}

// -----

// expected-error@+1 {{#tile.lowering_config: mma is for form = matmul and form = attention, not form = column_reduction}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [64, 128], num_warps = 8, mma = mma_sync_m16n8k16>}

// -----

// Hopper ops: TMA boxes and wgmma operands are [chunks, rows, 64] 16-bit
// slots in the 128-byte swizzle.
#plain = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>
tile.func @tma_unswizzled(%map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #plain>
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  // expected-error @below {{'tile.tma_load' op destination buffer must use the 128-byte swizzle (#tile.shared vec = 8, perPhase = 1, maxPhase = 8)}}
  tile.tma_load %map[%c0, %c0], %buf[%c0, %c0], %bars[%c0] : !llvm.ptr, !tile.shared_buffer<2x1x64x64xf16, #plain>, !tile.mbarriers<2>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
tile.func @tma_one_coordinate(%map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  // expected-error @below {{'tile.tma_load' op takes 2 to 5 coordinates (a 2-D box, or one of a batch's, such as [1, rows, 1, 64] of [B, S, H, D] heads), got 1}}
  tile.tma_load %map[%c0], %buf[%c0, %c0], %bars[%c0] : !llvm.ptr, !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
tile.func @wgmma_shapes(%x: memref<64x128xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %b = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x128xf32, #mma>
  // expected-error @below {{'tile.warpgroup_dot' op operand tiles (A 64 x 64, B 64 x 64) do not multiply into the 64 x 128 accumulator}}
  %d = tile.warpgroup_dot %a[%c0], %b[%c0], %acc {b_mn_major} : !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x128xf32, #mma>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma2 = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
tile.func @wgmma_needs_v3(%x: memref<64x64xf32>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x64xf32, #mma2>
  // expected-error @below {{'tile.warpgroup_dot' op accumulator must be an f32 2-D tile in a #tile.nvidia_mma version 3 (wgmma) layout}}
  %d = tile.warpgroup_dot %a[%c0], %a[%c0], %acc : !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma2>
  tile.return
}

// -----

// A from registers: the dot_operand of the accumulator's own #mma.
#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#other = #tile.nvidia_mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#pa = #tile.dot_operand<{opIdx = 0, parent = #other, kWidth = 2}>
tile.func @wgmma_register_a_layout() attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %half = arith.constant 1.0 : f16
  %p = tile.splat %half : f16 -> tensor<64x64xf16, #pa>
  %v = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x64xf32, #mma>
  // expected-error @below {{'tile.warpgroup_dot' op a register A must be a 2-D tile in the #tile.dot_operand<{opIdx = 0}> layout of the accumulator's #tile.nvidia_mma}}
  %d = tile.warpgroup_dot %p, %v[%c0], %acc {b_mn_major} : tensor<64x64xf16, #pa>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#pa = #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>
tile.func @wgmma_register_a_is_k_major() attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %half = arith.constant 1.0 : f16
  %p = tile.splat %half : f16 -> tensor<64x64xf16, #pa>
  %v = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x64xf32, #mma>
  // expected-error @below {{'tile.warpgroup_dot' op a register A takes no slot and no a_mn_major}}
  %d = tile.warpgroup_dot %p, %v[%c0], %acc {a_mn_major, b_mn_major} : tensor<64x64xf16, #pa>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#mma = #tile.nvidia_mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
tile.func @wgmma_shared_a_needs_a_slot() attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %acc = tile.splat %cst : f32 -> tensor<64x64xf32, #mma>
  // expected-error @below {{'tile.warpgroup_dot' op a shared A needs the slot to read}}
  %d = tile.warpgroup_dot %a, %a[%c0], %acc : !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.shared_buffer<2x1x64x64xf16, #sw> -> tensor<64x64xf32, #mma>
  tile.return
}

// -----

tile.func @barriers_in_a_loop(%n: index) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{'tile.mbarrier_alloc' op must be directly in a tile.func body (barriers live for the whole kernel), not inside loops or branches}}
    %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  }
  tile.return
}

// -----

// expected-error @below {{'tile.func' op argument #0 has type '!llvm.ptr'; kernel arguments are integers, floats, !tile.ptr or memrefs (and trailing !llvm.ptr tensor maps that tcc.tensor_maps describes)}}
tile.func @pointer_without_map(%p: !llvm.ptr) attributes {grid_rank = 1 : i32} {
  tile.return
}

// -----

// expected-error@+1 {{#tile.lowering_config: consumers is for mma = wgmma_m64nNk16 plans}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16, consumers = pingpong>}

// -----

// expected-error@+1 {{#tile.lowering_config: consumers = pingpong needs two consumer warpgroups (num_warps = 12), got num_warps = 8}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [64, 128, 64], num_warps = 8, num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong>}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#copy = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @box_copy_past_chunk(%b: memref<776x1500xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<2>
  // expected-error @below {{'tile.box_copy' op rows [48, 80) must be whole swizzle periods (multiples of 8) within the 64 rows of a chunk}}
  tile.box_copy %b[%c0, %c0], %buf[%c0, %c0], %bars[%c0] layout #copy {row = 48 : i64, rows = 32 : i64} : memref<776x1500xf16> -> !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#copy = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @box_copy_batch_coordinates(%b: memref<2x776x1500xf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<2>
  // expected-error @below {{'tile.box_copy' op layout rank 2 must equal the 3 coordinates}}
  tile.box_copy %b[%c0, %c0, %c0], %buf[%c0, %c0], %bars[%c0] layout #copy {row = 0 : i64, rows = 32 : i64} : memref<2x776x1500xf16> -> !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
#copy = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.func @box_copy_element_type(%b: memref<776x1500xbf16>) attributes {grid_rank = 1 : i32} {
  %c0 = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 128 : i64} : !tile.mbarriers<2>
  // expected-error @below {{'tile.box_copy' op 'box' element type 'f16' must match the memref element type 'bf16'}}
  tile.box_copy %b[%c0, %c0], %buf[%c0, %c0], %bars[%c0] layout #copy {row = 0 : i64, rows = 32 : i64} : memref<776x1500xbf16> -> !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

// expected-error@+1 {{#tile.lowering_config: cluster is for mma = wgmma_m64nNk16 plans}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16, cluster = [2, 1]>}

// -----

// expected-error@+1 {{#tile.lowering_config: cluster must be [CM, CN] with CM and CN 1 or 2}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [4, 1]>}

// -----

// expected-error@+1 {{#tile.lowering_config: a cluster of more than one program runs the cooperative consumer schedule, not consumers = pingpong}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong, cluster = [1, 2]>}

// -----

#sw = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
tile.func @tma_row(%map: !llvm.ptr) attributes {grid_rank = 1 : i32, tcc.tensor_maps = [{box = array<i64: 64, 64>, operand = 0 : i64, swizzle = 128 : i64}]} {
  %i = arith.constant 0 : index
  %buf = tile.shared_alloc : !tile.shared_buffer<2x1x64x64xf16, #sw>
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  // expected-error@+1 {{'tile.tma_load' op row 36 must be a multiple of 8 (the 128-byte swizzle's period) below the chunk's 64 rows}}
  tile.tma_load %map[%i, %i], %buf[%i, %i], %bars[%i] {row = 36 : i64} : !llvm.ptr, !tile.shared_buffer<2x1x64x64xf16, #sw>, !tile.mbarriers<2>
  tile.return
}

// -----

tile.func @remote_expect_tx(%i: index) attributes {grid_rank = 1 : i32} {
  %bars = tile.mbarrier_alloc {arrivals = 1 : i64} : !tile.mbarriers<2>
  // expected-error@+1 {{'tile.mbarrier_arrive' op announces TMA bytes (expect_tx) on a barrier of its own CTA only (no cta operand)}}
  tile.mbarrier_arrive %bars[%i] cta %i {expect_tx = 8192 : i64} : !tile.mbarriers<2>
  tile.return
}

// -----

// expected-error@+1 {{#tile.lowering_config: form = attention needs its tensor-core instruction (mma = ...)}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 4, num_stages = 2>}

// -----

// The Hopper attention plan counts its producer warpgroup too.
// expected-error@+1 {{#tile.lowering_config: mma = wgmma_m64nNk16 needs num_warps 8 or 12 (a producer warpgroup and 1 or 2 consumer warpgroups), got 4}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 128], num_warps = 4, mma = wgmma_m64nNk16>}

// -----

// expected-error@+1 {{#tile.lowering_config: form = attention needs a block of 2 sizes ([BM, BN]), got [128, 64, 64]}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64, 64], num_warps = 4, mma = mma_sync_m16n8k16>}

// -----

// expected-error@+1 {{#tile.lowering_config: split_k is for mma = wgmma_m64nNk16 plans}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16, split_k = 2>}

// -----

// expected-error@+1 {{#tile.lowering_config: split_k must be from 1 to 16, got 17}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, split_k = 17>}

// -----

// expected-error@+1 {{#tile.lowering_config: split_k runs the cooperative consumer schedule, not consumers = pingpong}}
func.func private @f() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong, split_k = 2>}
