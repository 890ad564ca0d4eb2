// #tile.lowering_config prints and parses back; num_stages and mma are
// optional (the matmul forms' fields), as are walk (row programs and
// softmax) and view (elementwise), fields in any order on input.
// RUN: tcc-opt %s | tcc-opt | FileCheck %s
// RUN: tcc-opt %s --mlir-print-op-generic | tcc-opt | FileCheck %s

// CHECK-LABEL: func.func private @elementwise()
// CHECK-SAME: tile.lowering_config = #tile.lowering_config<form = elementwise, block = [2, 1024], num_warps = 4>
func.func private @elementwise() attributes {tile.lowering_config = #tile.lowering_config<num_warps = 4, block = [2, 1024], form = elementwise>}
// CHECK-LABEL: func.func private @row_reduction()
// CHECK-SAME: #tile.lowering_config<form = row_reduction, block = [1, 2048], num_warps = 8>
func.func private @row_reduction() attributes {tile.lowering_config = #tile.lowering_config<form = row_reduction, block = [1, 2048], num_warps = 8>}
// CHECK-LABEL: func.func private @softmax()
// CHECK-SAME: #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 16>
func.func private @softmax() attributes {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 16>}
// CHECK-LABEL: func.func private @matmul()
// CHECK-SAME: #tile.lowering_config<form = matmul, block = [128, 256, 32], num_warps = 8, num_stages = 3, mma = mfma_32x32x8>
func.func private @matmul() attributes {tile.lowering_config = #tile.lowering_config<form = matmul, block = [128, 256, 32], num_warps = 8, num_stages = 3, mma = mfma_32x32x8>}
// CHECK-LABEL: func.func private @fma_matmul()
// CHECK-SAME: #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 4, num_stages = 2>
func.func private @fma_matmul() attributes {tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 4, num_stages = 2>}
// CHECK-LABEL: func.func private @fma_matmul_default_stages()
// CHECK-SAME: #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 1>
func.func private @fma_matmul_default_stages() attributes {tile.lowering_config = #tile.lowering_config<form = fma_matmul, block = [64, 64, 8], num_warps = 1>}
// CHECK-LABEL: func.func private @transpose()
// CHECK-SAME: #tile.lowering_config<form = transpose, block = [64, 64], num_warps = 4>
func.func private @transpose() attributes {tile.lowering_config = #tile.lowering_config<form = transpose, block = [64, 64], num_warps = 4>}
// CHECK-LABEL: func.func private @column_reduction()
// CHECK-SAME: #tile.lowering_config<form = column_reduction, block = [64, 128], num_warps = 8>
func.func private @column_reduction() attributes {tile.lowering_config = #tile.lowering_config<form = column_reduction, block = [64, 128], num_warps = 8>}
// CHECK-LABEL: func.func private @row_program()
// CHECK-SAME: #tile.lowering_config<form = row_program, block = [1, 512], num_warps = 1, walk = persistent>
func.func private @row_program() attributes {tile.lowering_config = #tile.lowering_config<walk = persistent, form = row_program, block = [1, 512], num_warps = 1>}
// CHECK-LABEL: func.func private @row_program_looped()
// CHECK-SAME: #tile.lowering_config<form = row_program, block = [1, 4096], num_warps = 8, walk = looped>
func.func private @row_program_looped() attributes {tile.lowering_config = #tile.lowering_config<form = row_program, block = [1, 4096], num_warps = 8, walk = looped>}
// CHECK-LABEL: func.func private @softmax_looped()
// CHECK-SAME: #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 8, walk = looped>
func.func private @softmax_looped() attributes {tile.lowering_config = #tile.lowering_config<form = softmax, block = [1, 4096], num_warps = 8, walk = looped>}
// CHECK-LABEL: func.func private @elementwise_flat_gather()
// CHECK-SAME: #tile.lowering_config<form = elementwise, block = [1, 2048], num_warps = 4, view = flat_gather>
func.func private @elementwise_flat_gather() attributes {tile.lowering_config = #tile.lowering_config<view = flat_gather, form = elementwise, block = [1, 2048], num_warps = 4>}
// CHECK-LABEL: func.func private @elementwise_blocked()
// CHECK-SAME: #tile.lowering_config<form = elementwise, block = [2, 1024], num_warps = 4, view = blocked>
func.func private @elementwise_blocked() attributes {tile.lowering_config = #tile.lowering_config<form = elementwise, block = [2, 1024], num_warps = 4, view = blocked>}
// CHECK-LABEL: func.func private @wgmma_pingpong()
// CHECK-SAME: #tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong>
func.func private @wgmma_pingpong() attributes {tile.lowering_config = #tile.lowering_config<consumers = pingpong, form = matmul, block = [128, 128, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>}

// A wgmma plan in clusters of 2 x 1 programs (B multicast along M).
// CHECK-LABEL: func.func private @wgmma_cluster()
// CHECK-SAME: #tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>
func.func private @wgmma_cluster() attributes {tile.lowering_config = #tile.lowering_config<cluster = [2, 1], form = matmul, block = [128, 256, 64], num_warps = 12, num_stages = 4, mma = wgmma_m64nNk16>}
