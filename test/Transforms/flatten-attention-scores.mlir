// tcc-flatten-attention-scores on attention over [B, H, S, D] heads whose
// score op reads an operand over some of the batch dims, which upstream's
// fold-reshape-by-collapsing (tcc-fuse-elementwise) leaves on the [B, H, S, S]
// view: a BERT padding mask [B, S] read across the heads, a per-head bias
// [H, S, S] (ALiBi), the same with an f32 softmax and P cast back. The score
// op, the softmax and the cast run on the flat [B·H, S, S] scores, the
// operand read at the flat batch index delinearized in its map, and the chain
// is then one attention kernel. A chain the attention kernel does not build
// (head dim 8) is left as it was.
// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --linalg-generalize-named-ops --tcc-fuse-elementwise --canonicalize --tcc-set-target=arch=sm_80 --tcc-flatten-attention-scores | FileCheck %s
// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --linalg-generalize-named-ops --tcc-fuse-elementwise --canonicalize --tcc-set-target=arch=gfx942 --tcc-flatten-attention-scores --tcc-decompose-softmax --tcc-form-kernels | FileCheck %s --check-prefix=KERNELS
// Without a target nothing changes.
// RUN: tcc-opt %s -split-input-file --convert-tcc-to-linalg --linalg-generalize-named-ops --tcc-fuse-elementwise --canonicalize --tcc-flatten-attention-scores | FileCheck %s --check-prefix=NOTARGET

// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 3, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @padding_mask(
// CHECK-SAME: %[[ARG3:[a-z0-9]+]]: tensor<2x64xf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[X:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[MASK]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}}, %[[ARG3]] : tensor<6x64x64xf16>, tensor<2x64xf16>) outs(%{{.*}} : tensor<6x64x64xf16>)
// CHECK: arith.addf
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%[[X]] : tensor<6x64x64xf16>)
// CHECK-NOT: tensor.collapse_shape %[[P]]
// CHECK: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<6x64x64xf16>, tensor<6x64x64xf16>)
// KERNELS-LABEL: func.func private @padding_mask_k0(
// KERNELS: linalg.softmax dimension(2)
// KERNELS-LABEL: func.func @padding_mask(
// KERNELS: tcc.launch @padding_mask_k0(
// KERNELS-NOT: tcc.launch
// NOTARGET-LABEL: func.func @padding_mask(
// NOTARGET: linalg.softmax dimension(3)
module {
  func.func @padding_mask(%arg0: tensor<2x3x64x64xf16>, %arg1: tensor<2x3x64x64xf16>, %arg2: tensor<2x3x64x64xf16>, %arg3: tensor<2x64xf16>) -> tensor<2x3x64x64xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %1 = tcc.reshape %arg1 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %4 = tcc.constant dense<1.250000e-01> : tensor<6x64x64xf16>
    %5 = tcc.mul %3, %4 : tensor<6x64x64xf16>
    %6 = tcc.reshape %5 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    %7 = tcc.broadcast %arg3 dims = [1, 2] : tensor<2x64xf16> -> tensor<2x3x64x64xf16>
    %8 = tcc.add %6, %7 : tensor<2x3x64x64xf16>
    %9 = tcc.softmax %8 dim = 3 : tensor<2x3x64x64xf16>
    %10 = tcc.reshape %9 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %11 = tcc.reshape %arg2 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %12 = tcc.matmul %10, %11 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %13 = tcc.reshape %12 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    return %13 : tensor<2x3x64x64xf16>
  }
}

// -----

// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d0 mod 3, d1, d2)>
// CHECK-LABEL: func.func @head_bias(
// CHECK-SAME: %[[ARG3:[a-z0-9]+]]: tensor<3x64x64xf16>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #{{.*}}], {{.*}} ins(%{{.*}}, %[[ARG3]] : tensor<6x64x64xf16>, tensor<3x64x64xf16>)
// CHECK: linalg.softmax dimension(2) ins(%{{.*}} : tensor<6x64x64xf16>)
// KERNELS-LABEL: func.func @head_bias(
// KERNELS: tcc.launch @head_bias_k0(
// KERNELS-NOT: tcc.launch
module {
  func.func @head_bias(%arg0: tensor<2x3x64x64xf16>, %arg1: tensor<2x3x64x64xf16>, %arg2: tensor<2x3x64x64xf16>, %arg3: tensor<3x64x64xf16>) -> tensor<2x3x64x64xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %1 = tcc.reshape %arg1 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %6 = tcc.reshape %3 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    %7 = tcc.broadcast %arg3 dims = [0] : tensor<3x64x64xf16> -> tensor<2x3x64x64xf16>
    %8 = tcc.add %6, %7 : tensor<2x3x64x64xf16>
    %9 = tcc.softmax %8 dim = 3 : tensor<2x3x64x64xf16>
    %10 = tcc.reshape %9 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %11 = tcc.reshape %arg2 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %12 = tcc.matmul %10, %11 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %13 = tcc.reshape %12 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    return %13 : tensor<2x3x64x64xf16>
  }
}

// -----

// An f32 softmax, P cast back to f16 after it: the cast runs flat too.
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 3, d2)>
// CHECK-LABEL: func.func @padding_mask_f32(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[MASK]], #{{.*}}], {{.*}} ins(%{{.*}}, %arg3 : tensor<6x64x64xf32>, tensor<2x64xf32>)
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%{{.*}} : tensor<6x64x64xf32>)
// CHECK: %[[P16:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<6x64x64xf32>) outs(%{{.*}} : tensor<6x64x64xf16>)
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[P16]], %{{.*}} : tensor<6x64x64xf16>, tensor<6x64x64xf16>)
// KERNELS-LABEL: func.func @padding_mask_f32(
// KERNELS: tcc.launch @padding_mask_f32_k0(
// KERNELS-NOT: tcc.launch
module {
  func.func @padding_mask_f32(%arg0: tensor<2x3x64x64xf16>, %arg1: tensor<2x3x64x64xf16>, %arg2: tensor<2x3x64x64xf16>, %arg3: tensor<2x64xf32>) -> tensor<2x3x64x64xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %1 = tcc.reshape %arg1 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf32>
    %6 = tcc.reshape %3 : tensor<6x64x64xf32> -> tensor<2x3x64x64xf32>
    %7 = tcc.broadcast %arg3 dims = [1, 2] : tensor<2x64xf32> -> tensor<2x3x64x64xf32>
    %8 = tcc.add %6, %7 : tensor<2x3x64x64xf32>
    %9 = tcc.softmax %8 dim = 3 : tensor<2x3x64x64xf32>
    %10 = tcc.cast %9 : tensor<2x3x64x64xf32> to tensor<2x3x64x64xf16>
    %11 = tcc.reshape %10 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %12 = tcc.reshape %arg2 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %13 = tcc.matmul %11, %12 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x64xf16> -> tensor<6x64x64xf16>
    %14 = tcc.reshape %13 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    return %14 : tensor<2x3x64x64xf16>
  }
}

// -----

// Head dim 8: no attention kernel builds the chain, which stays on the
// [B, H, S, S] view (three kernels, the scores stored).
// CHECK-LABEL: func.func @head_dim_8(
// CHECK: tensor.expand_shape
// CHECK: linalg.softmax dimension(3) ins(%{{.*}} : tensor<2x3x64x64xf16>)
// CHECK: tensor.collapse_shape
// KERNELS-LABEL: func.func @head_dim_8(
// KERNELS-COUNT-3: tcc.launch
module {
  func.func @head_dim_8(%arg0: tensor<2x3x64x8xf16>, %arg1: tensor<2x3x64x8xf16>, %arg2: tensor<2x3x64x8xf16>, %arg3: tensor<2x64xf16>) -> tensor<2x3x64x8xf16> {
    %0 = tcc.reshape %arg0 : tensor<2x3x64x8xf16> -> tensor<6x64x8xf16>
    %1 = tcc.reshape %arg1 : tensor<2x3x64x8xf16> -> tensor<6x64x8xf16>
    %2 = tcc.transpose %1 permutation = [0, 2, 1] : tensor<6x64x8xf16> -> tensor<6x8x64xf16>
    %3 = tcc.matmul %0, %2 acc(f32) : tensor<6x64x8xf16>, tensor<6x8x64xf16> -> tensor<6x64x64xf16>
    %6 = tcc.reshape %3 : tensor<6x64x64xf16> -> tensor<2x3x64x64xf16>
    %7 = tcc.broadcast %arg3 dims = [1, 2] : tensor<2x64xf16> -> tensor<2x3x64x64xf16>
    %8 = tcc.add %6, %7 : tensor<2x3x64x64xf16>
    %9 = tcc.softmax %8 dim = 3 : tensor<2x3x64x64xf16>
    %10 = tcc.reshape %9 : tensor<2x3x64x64xf16> -> tensor<6x64x64xf16>
    %11 = tcc.reshape %arg2 : tensor<2x3x64x8xf16> -> tensor<6x64x8xf16>
    %12 = tcc.matmul %10, %11 acc(f32) : tensor<6x64x64xf16>, tensor<6x64x8xf16> -> tensor<6x64x8xf16>
    %13 = tcc.reshape %12 : tensor<6x64x8xf16> -> tensor<2x3x64x8xf16>
    return %13 : tensor<2x3x64x8xf16>
  }
}
