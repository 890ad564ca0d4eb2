// RUN: tcc-opt %s --tcc-lower-to-tile="target=sm_90" --tcc-tile-to-gpu | FileCheck %s

// A program of two kernels (a softmax, and a row sum of it) through the tile
// and gpu stages: each kernel becomes its gpu.module, and the host program
// launches the kernels' gpu.funcs in order.
// CHECK-DAG:   gpu.module @two_k0_module
// CHECK-DAG:   gpu.module @two_k1_module
// CHECK-LABEL: func.func @two(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[Y:.*]] = tcc.launch @two_k0_module::@two_k0(%arg0) : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK:         %[[S:.*]] = tcc.launch @two_k1_module::@two_k1(%[[Y]]) : (tensor<8x64xf32>) -> tensor<8xf32>
// CHECK:         return %[[Y]], %[[S]]
func.func @two(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %y = tcc.softmax %x dim = 1 : tensor<8x64xf32>
  %s = tcc.reduce_sum %y dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %y, %s : tensor<8x64xf32>, tensor<8xf32>
}
