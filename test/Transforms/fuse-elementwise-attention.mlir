// tcc-fuse-elementwise on attention written over [B, H, S, D] heads: the score
// op of a mask shared by the heads ([S, S], nanoGPT's masked_fill) runs on
// the batched matmul's [B·H, S, S] scores (its batch dims collapsed: the
// reshape moves after it, then past the softmax); P's cast after an f32
// softmax stays an op of its own (not fused into the P V contraction, whose
// operands stay f16), also on the [B·H, S, S] scores. Both chains are then
// the 3-D one tcc::matchAttention takes (one kernel). A constant scale of a
// contraction's operand (timm's q * scale before q @ kᵀ) moves to its result;
// a scale by another tensor stays a kernel of its own.
// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --linalg-generalize-named-ops --tcc-fuse-elementwise --canonicalize | FileCheck %s
// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --linalg-generalize-named-ops --tcc-fuse-elementwise --canonicalize --tcc-set-target=arch=sm_80 --tcc-form-kernels | FileCheck %s --check-prefix=KERNELS

// CHECK-LABEL: func.func @masked_heads(
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[X:.*]] = linalg.generic {{.*}} ins(%arg3, %[[S]] : tensor<64x64xf16>, tensor<4x64x64xf32>) outs(%{{.*}} : tensor<4x64x64xf16>)
// CHECK: arith.select
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%[[X]] : tensor<4x64x64xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<4x64x64xf16>, tensor<4x64x64xf16>)
// CHECK: tensor.expand_shape
// CHECK-NOT: tensor.expand_shape
// KERNELS-LABEL: func.func private @masked_heads_k0(
// KERNELS: linalg.softmax
// KERNELS-LABEL: func.func @masked_heads(
// KERNELS: tcc.launch @masked_heads_k0(
// KERNELS-NOT: tcc.launch
module {
  func.func @masked_heads(%arg0: tensor<2x2x64x64xf16>, %arg1: tensor<2x2x64x64xf16>, %arg2: tensor<2x2x64x64xf16>, %arg3: tensor<64x64xf16>) -> tensor<2x2x64x64xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %1 = tcc.reshape %arg1 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %4 = tcc.constant dense<1.250000e-01> : tensor<4x64x64xf16>
    %5 = tcc.mul %3, %4 : tensor<4x64x64xf16>
    %6 = tcc.reshape %5 : tensor<4x64x64xf16> -> tensor<2x2x64x64xf16>
    %7 = tcc.constant dense<0.000000e+00> : tensor<64x64xf16>
    %8 = tcc.cmp eq, %arg3, %7 : tensor<64x64xf16> -> tensor<64x64xi1>
    %9 = tcc.broadcast %8 dims = [0, 1] : tensor<64x64xi1> -> tensor<2x2x64x64xi1>
    %10 = tcc.constant dense<0xFC00> : tensor<2x2x64x64xf16>
    %11 = tcc.select %9, %10, %6 : tensor<2x2x64x64xi1>, tensor<2x2x64x64xf16>
    %12 = tcc.softmax %11 dim = 3 : tensor<2x2x64x64xf16>
    %13 = tcc.reshape %12 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %14 = tcc.reshape %arg2 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %15 = tcc.matmul %13, %14 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %16 = tcc.reshape %15 : tensor<4x64x64xf16> -> tensor<2x2x64x64xf16>
    return %16 : tensor<2x2x64x64xf16>
  }
}

// -----

// CHECK-LABEL: func.func @f32_scores(
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%{{.*}} : tensor<4x64x64xf32>)
// CHECK: %[[P16:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x64x64xf32>) outs(%{{.*}} : tensor<4x64x64xf16>)
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[P16]], %{{.*}} : tensor<4x64x64xf16>, tensor<4x64x64xf16>)
// KERNELS-LABEL: func.func private @f32_scores_k0(
// KERNELS: linalg.softmax
// KERNELS-LABEL: func.func @f32_scores(
// KERNELS: tcc.launch @f32_scores_k0(
// KERNELS-NOT: tcc.launch
module {
  func.func @f32_scores(%arg0: tensor<2x2x64x64xf16>, %arg1: tensor<2x2x64x64xf16>, %arg2: tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %1 = tcc.reshape %arg1 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf32>
    %4 = tcc.constant dense<1.250000e-01> : tensor<4x64x64xf32>
    %5 = tcc.mul %3, %4 : tensor<4x64x64xf32>
    %6 = tcc.reshape %5 : tensor<4x64x64xf32> -> tensor<2x2x64x64xf32>
    %7 = tcc.softmax %6 dim = 3 : tensor<2x2x64x64xf32>
    %8 = tcc.cast %7 : tensor<2x2x64x64xf32> to tensor<2x2x64x64xf16>
    %9 = tcc.reshape %8 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %10 = tcc.reshape %arg2 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %11 = tcc.matmul %9, %10 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %12 = tcc.reshape %11 : tensor<4x64x64xf16> -> tensor<2x2x64x64xf16>
    return %12 : tensor<2x2x64x64xf16>
  }
}

// -----

// CHECK-LABEL: func.func @timm(
// CHECK-NOT: arith.constant 1.250000e-01 : f16
// CHECK-DAG: %[[Q:.*]] = tensor.collapse_shape %arg0
// CHECK-DAG: %[[K:.*]] = tensor.collapse_shape %arg1
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[K]] : tensor<4x64x64xf16>, tensor<4x64x64xf16>) outs(%{{.*}} : tensor<4x64x64xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<4x64x64xf32>) outs(%{{.*}} : tensor<4x64x64xf16>)
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.truncf
// CHECK: linalg.softmax
// KERNELS-LABEL: func.func private @timm_k0(
// KERNELS: linalg.softmax
// KERNELS-LABEL: func.func @timm(
// KERNELS: tcc.launch @timm_k0(
// KERNELS-NOT: tcc.launch
module {
  func.func @timm(%arg0: tensor<2x2x64x64xf16>, %arg1: tensor<2x2x64x64xf16>, %arg2: tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16> {
    %0 = tcc.constant dense<1.250000e-01> : tensor<2x2x64x64xf16>
    %1 = tcc.mul %arg0, %0 : tensor<2x2x64x64xf16>
    %2 = tcc.reshape %1 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %3 = tcc.reshape %arg1 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %4 = tcc.transpose %3 permutation = [0, 2, 1] : tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %5 = tcc.matmul %2, %4 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %6 = tcc.reshape %5 : tensor<4x64x64xf16> -> tensor<2x2x64x64xf16>
    %7 = tcc.softmax %6 dim = 3 : tensor<2x2x64x64xf16>
    %8 = tcc.reshape %7 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %9 = tcc.reshape %arg2 : tensor<2x2x64x64xf16> -> tensor<4x64x64xf16>
    %10 = tcc.matmul %8, %9 acc(f32) : tensor<4x64x64xf16>, tensor<4x64x64xf16> -> tensor<4x64x64xf16>
    %11 = tcc.reshape %10 : tensor<4x64x64xf16> -> tensor<2x2x64x64xf16>
    return %11 : tensor<2x2x64x64xf16>
  }
}

// -----

// CHECK-LABEL: func.func @gated(
// CHECK: %[[XG:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 :
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[XG]], %arg2 :
// KERNELS-LABEL: func.func @gated(
// KERNELS: tcc.launch
// KERNELS: tcc.launch
module {
  func.func @gated(%arg0: tensor<64x64xf16>, %arg1: tensor<64x64xf16>, %arg2: tensor<64x64xf16>) -> tensor<64x64xf16> {
    %0 = tcc.mul %arg0, %arg1 : tensor<64x64xf16>
    %1 = tcc.matmul %0, %arg2 acc(f32) : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
    return %1 : tensor<64x64xf16>
  }
}
