// convert-linalg-to-tile builds what a kernel's lowering_config says and
// rejects a (hand-written) config that does not fit the op or the target.
// RUN: tcc-opt %s -split-input-file --tcc-set-target=arch=sm_90 --convert-linalg-to-tile -verify-diagnostics

// No config: run tcc-select-strategy first.
#id = affine_map<(d0, d1) -> (d0, d1)>
// expected-error@+1 {{'func.func' op has no kernel op with a tile.lowering_config; run tcc-select-strategy first (the tcc-linalg-to-tile pipeline does)}}
func.func @no_config(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A block with fewer rows than its layout covers (4 warps down 2-lane rows: 8).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @short_block(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  // expected-error@+1 {{lowering_config block [1, 64] has fewer rows than its layout covers (8 rows: 2 lanes x 4 warps)}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 64], num_warps = 4>}
      ins(%x, %y : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A form that does not build this op.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @wrong_form(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  // expected-error@+1 {{has a lowering_config of form = softmax, which builds a linalg.softmax}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 1024], num_warps = 4>}
      ins(%x, %y : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// An MMA the target (sm_90) does not have.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @foreign_mma(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config mma = mfma_32x32x8 is not an instruction of target sm_90 (#tile.target mma)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mfma_32x32x8>}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// A block the MMA warps do not tile.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @misfit_block(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config block [128, 8, 32] does not fit mma_sync_m16n8k16 on 4 warps (2 x 2 warps of 16 x 8 tiles; BK a multiple of 16)}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 8, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// One warp cannot run the tensor-core schedule.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @one_warp(%x: tensor<256x128xf16>, %w: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config num_warps = 1: a GEMM program needs 2, 4, 8 or 16 warps}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 1, num_stages = 3, mma = mma_sync_m16n8k16>}
      ins(%x, %w : tensor<256x128xf16>, tensor<128x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f16, %r: f16, %o: f32):
    %le = arith.extf %l : f16 to f32
    %re = arith.extf %r : f16 to f32
    %m = arith.mulf %le, %re : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// Tensor cores need f16 or bf16 operands.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f32_on_mma(%x: tensor<256x128xf32>, %w: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{has a lowering_config of form = matmul, which builds a matmul generic with f16 or bf16 operands of one type}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, num_stages = 3, mma = mma_sync_m16n8k16>}
      ins(%x, %w : tensor<256x128xf32>, tensor<128x256xf32>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// An FMA block that is not a whole number of accumulator layouts (32 x 64 on sm_90).
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @fma_misfit(%x: tensor<256x128xf32>, %w: tensor<128x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config block [16, 64, 8] is not a multiple of the FMA accumulator layout's 32 x 64 on 4 warps}}
  %p = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [16, 64, 8], num_warps = 4>}
      ins(%x, %w : tensor<256x128xf32>, tensor<128x256xf32>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%l: f32, %r: f32, %o: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %p : tensor<256x256xf32>
}

// -----

// A softmax block must hold a row.
func.func @softmax_short(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  // expected-error@+1 {{lowering_config block [1, 512] does not hold a softmax row of 1000 elements}}
  %r = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 512], num_warps = 4>} dimension(1) ins(%x : tensor<64x1000xf32>) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}

// -----

// form = transpose on an op that reads nothing transposed.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_form_on_a_copy(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tensor.empty() : tensor<256x256xf32>
  // expected-error@+1 {{has a lowering_config of form = transpose, which builds an elementwise linalg.generic reading an operand with its last two dims swapped}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = transpose, block = [64, 64], num_warps = 4>}
      ins(%x : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A column-reduction block wider than one warp's lanes of vectors (32 x 4).
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @column_block_too_wide(%x: tensor<64x1024xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<1024xf32>) -> tensor<1024xf32>
  // expected-error@+1 {{lowering_config block [8, 256] is wider than one warp's lanes of 4-element vectors (32 lanes)}}
  %s = linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [8, 256], num_warps = 1>}
      ins(%x : tensor<64x1024xf32>) outs(%f : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %s : tensor<1024xf32>
}

// -----

// A persistent row program whose block does not hold the row.
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @persistent_short_block(%x: tensor<8x1000xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<8xf32>) -> tensor<8xf32>
  // expected-error@+1 {{lowering_config block [1, 256] does not hold a row of 1000 elements; a shorter block needs walk = looped}}
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 256], num_warps = 2, walk = persistent>}
      ins(%x : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// A wgmma plan whose block does not fit the schedule (BK a multiple of 64).
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @wgmma_bk(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<256x256xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<256x256xf32>
  // expected-error@+1 {{lowering_config block [128, 256, 32], num_warps = 12, num_stages = 4 does not fit the wgmma schedule}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 32], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>}
      ins(%x, %y : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// wgmma plans count a producer warpgroup: num_warps 8 or 12.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @wgmma_warps(%x: tensor<256x256xf16>, %y: tensor<256x256xf16>, %o: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error@+2 {{#tile.lowering_config: mma = wgmma_m64nNk16 needs num_warps 8 or 12 (a producer warpgroup and 1 or 2 consumer warpgroups), got 4}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 4, num_stages = 4, mma = wgmma_m64nNk16>}
      ins(%x, %y : tensor<256x256xf16>, tensor<256x256xf16>) outs(%o : tensor<256x256xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// 256 x 256 on two consumer warpgroups: 256 accumulator floats a thread.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @wgmma_registers(%x: tensor<512x256xf16>, %y: tensor<256x512xf16>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<512x512xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<512x512xf32>
  // expected-error@+1 {{lowering_config block [256, 256] on 8 consumer warps holds 256 accumulator floats per thread, more than the 128 that fit the consumers' registers}}
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"],
      tile.lowering_config = #tile.lowering_config<form = matmul, block = [256, 256, 64], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>}
      ins(%x, %y : tensor<512x256xf16>, tensor<256x512xf16>) outs(%f : tensor<512x512xf32>) {
  ^bb0(%p: f16, %q: f16, %o: f32):
    %pe = arith.extf %p : f16 to f32
    %qe = arith.extf %q : f16 to f32
    %m = arith.mulf %pe, %qe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

// -----

// view = flat_gather on an operand read through a permutation: a flat
// stream gathers broadcasts, it does not transpose.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#perm = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
func.func @flat_gather_permuted(%x: tensor<4x8x777xf32>) -> tensor<8x4x777xf32> {
  %e = tensor.empty() : tensor<8x4x777xf32>
  // expected-error@+1 {{has a lowering_config with view = flat_gather, which streams operands read straight and gathers broadcast ones; an operand here is read through a permuted map}}
  %r = linalg.generic {indexing_maps = [#perm, #id], iterator_types = ["parallel", "parallel", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4, view = flat_gather>}
      ins(%x : tensor<4x8x777xf32>) outs(%e : tensor<8x4x777xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x4x777xf32>
  return %r : tensor<8x4x777xf32>
}

// -----

// view = flat_gather blocks are one row; 4 warps of 16-lane rows cover 8.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @flat_gather_short_block(%x: tensor<1000x777xf32>, %b: tensor<777xf32>) -> tensor<1000x777xf32> {
  %e = tensor.empty() : tensor<1000x777xf32>
  // expected-error@+1 {{lowering_config block [1, 64] has fewer rows than its layout covers (8 rows: 2 lanes x 4 warps)}}
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"],
      tile.lowering_config = #tile.lowering_config<form = elementwise, block = [1, 64], num_warps = 4, view = flat_gather>}
      ins(%x, %b : tensor<1000x777xf32>, tensor<777xf32>) outs(%e : tensor<1000x777xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1000x777xf32>
  return %r : tensor<1000x777xf32>
}

// -----

// walk = staged keeps the row in shared memory: 60000 f32 (30 slots of
// [1, 2048]) do not fit sm_90's 227 KiB.
func.func @staged_too_wide(%x: tensor<4x60000xf32>) -> tensor<4x60000xf32> {
  %e = tensor.empty() : tensor<4x60000xf32>
  // expected-error@+1 {{lowering_config walk = staged keeps 30 chunks of [1, 2048] in shared memory (245760 bytes), more than the target's 232448 (#tile.target max_shared_bytes); use walk = looped}}
  %0 = "linalg.softmax"(%x, %e) <{dimension = 1 : i64}> {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = staged>} : (tensor<4x60000xf32>, tensor<4x60000xf32>) -> tensor<4x60000xf32>
  return %0 : tensor<4x60000xf32>
}

// -----

// A 128 x 256 block per warpgroup holds 256 accumulator floats per thread.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @too_wide(%arg0: tensor<512x128xf16>, %arg1: tensor<128x512xf16>) -> tensor<512x512xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<512x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  // expected-error@+1 {{lowering_config block [128, 256] on 4 consumer warps (pingpong: a block per warpgroup) holds 256 accumulator floats per thread, more than the 128 that fit the consumers' registers}}
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"], tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 3, mma = wgmma_m64nNk16, consumers = pingpong>} ins(%arg0, %arg1 : tensor<512x128xf16>, tensor<128x512xf16>) outs(%1 : tensor<512x512xf32>) {
  ^bb0(%in: f16, %in_0: f16, %out: f32):
    %5 = arith.extf %in : f16 to f32
    %6 = arith.extf %in_0 : f16 to f32
    %7 = arith.mulf %5, %6 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<512x512xf32>
  return %2 : tensor<512x512xf32>
}

// -----

// An attention plan whose warps do not split its query rows into 16-row
// mma tiles.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_warps(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  // expected-error@+1 {{'linalg.softmax' op lowering_config block [128, 64] does not fit mma_sync_m16n8k16 on 16 warps along the query rows (BM a multiple of 16 x num_warps; BN and the head dim 64 of 16)}}
  %p = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 16, num_stages = 2, mma = mma_sync_m16n8k16>} dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// Hopper attention plans (WgmmaAttentionKernel.cpp): a 128 x 256 block of
// scores with the output on two consumer warpgroups holds too many
// accumulators per thread.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_wgmma_registers(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  // expected-error@+1 {{'linalg.softmax' op lowering_config block [128, 256] with head dim 64 on 8 consumer warps holds 160 accumulator floats per thread (scores and output), more than the 128 that fit the consumers' registers}}
  %p = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 256], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>} dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// Two consumer warpgroups need 64 query rows each.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_wgmma_rows(%q: tensor<4x256x64xf16>, %k: tensor<4x256x64xf16>, %v: tensor<4x256x64xf16>) -> tensor<4x256x64xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x64xf16>, tensor<4x256x64xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  // expected-error@+1 {{'linalg.softmax' op lowering_config block [64, 64], num_warps = 12, num_stages = 2 does not fit the wgmma attention schedule (a producer and 1 or 2 consumer warpgroups: num_warps 8 or 12; BM a multiple of 64 per consumer warpgroup, BN a multiple of 64 up to 256)}}
  %p = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [64, 64], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>} dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x64xf16>) outs(%f2 : tensor<4x256x64xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x64xf32>
  %e3 = tensor.empty() : tensor<4x256x64xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x64xf32>) outs(%e3 : tensor<4x256x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x64xf16>
  return %r : tensor<4x256x64xf16>
}

// -----

// Head dims the 128-byte swizzle spans do not tile.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d1, d2)>
#n = affine_map<(d0, d1, d2) -> (d2)>
#q = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#k = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#v = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @attn_wgmma_head_dim(%q: tensor<4x256x32xf16>, %k: tensor<4x256x32xf16>, %v: tensor<4x256x32xf16>) -> tensor<4x256x32xf16> {
  %scale = arith.constant 1.250000e-01 : f16
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x256x32xf16>, tensor<4x256x32xf16>) outs(%f0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x256xf32>
  %e1 = tensor.empty() : tensor<4x256x256xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<4x256x256xf32>) outs(%e1 : tensor<4x256x256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    %1 = arith.mulf %0, %scale : f16
    linalg.yield %1 : f16
  } -> tensor<4x256x256xf16>
  // expected-error@+1 {{'linalg.softmax' op the wgmma attention schedule reads head dims that are multiples of 64 (one 128-byte swizzle span; Dv up to 256), got 32 and 32}}
  %p = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 128], num_warps = 12, num_stages = 2, mma = wgmma_m64nNk16>} dimension(2) ins(%x : tensor<4x256x256xf16>) outs(%e1 : tensor<4x256x256xf16>) -> tensor<4x256x256xf16>
  %e2 = tensor.empty() : tensor<4x256x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256x32xf32>) -> tensor<4x256x32xf32>
  %pv = linalg.generic {indexing_maps = [#q, #v, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<4x256x256xf16>, tensor<4x256x32xf16>) outs(%f2 : tensor<4x256x32xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<4x256x32xf32>
  %e3 = tensor.empty() : tensor<4x256x32xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pv : tensor<4x256x32xf32>) outs(%e3 : tensor<4x256x32xf16>) {
  ^bb0(%a: f32, %o: f16):
    %0 = arith.truncf %a : f32 to f16
    linalg.yield %0 : f16
  } -> tensor<4x256x32xf16>
  return %r : tensor<4x256x32xf16>
}

// -----

// A form = attention plan on a softmax that is no attention chain.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @softmax_attention_plan(%x: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %e = tensor.empty() : tensor<64x256xf16>
  // expected-error@+1 {{'linalg.softmax' op has a lowering_config of form = attention, which builds an attention chain (Q Kᵀ, elementwise ops on the scores, a last-dim softmax, P V and its cast), on its softmax}}
  %p = linalg.softmax {tile.lowering_config = #tile.lowering_config<form = attention, block = [128, 64], num_warps = 4, num_stages = 2, mma = mma_sync_m16n8k16>} dimension(1) ins(%x : tensor<64x256xf16>) outs(%e : tensor<64x256xf16>) -> tensor<64x256xf16>
  return %p : tensor<64x256xf16>
}
