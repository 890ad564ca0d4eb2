// RUN: tcc-opt %s --tcc-lower-to-tile --tcc-tile-to-gpu | FileCheck %s

// A program of two kernels through the tile and gpu stages: each kernel
// becomes its gpu.module, and the host program launches the kernels'
// gpu.funcs in order.
// CHECK-DAG:   gpu.module @two_k0_module
// CHECK-DAG:   gpu.module @two_k1_module
// CHECK-LABEL: func.func @two(
// CHECK-SAME:    attributes {tcc.host}
// CHECK:         %[[S:.*]] = tcc.launch @two_k0_module::@two_k0(%arg0) : (tensor<8x64xf32>) -> tensor<8xf32>
// CHECK:         %[[E:.*]] = tcc.launch @two_k1_module::@two_k1(%[[S]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK:         return %[[S]], %[[E]]
func.func @two(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = tcc.reduce_sum %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  %e = tcc.exp %s : tensor<8xf32>
  return %s, %e : tensor<8xf32>, tensor<8xf32>
}
