// Round trip of every tcc op and form, through the custom and the generic
// syntax.
// RUN: tcc-opt %s | tcc-opt | FileCheck %s
// RUN: tcc-opt %s --mlir-print-op-generic | tcc-opt | FileCheck %s

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %i: tensor<4xi32>, %s: tensor<4x8xf32>) {
  // CHECK: tcc.add %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %add = tcc.add %a, %b : tensor<4x?xf32>
  // CHECK: tcc.sub %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %sub = tcc.sub %a, %b : tensor<4x?xf32>
  // CHECK: tcc.mul %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %mul = tcc.mul %a, %b : tensor<4x?xf32>
  // CHECK: tcc.div %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %div = tcc.div %a, %b : tensor<4x?xf32>
  // CHECK: tcc.max %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %max = tcc.max %a, %b : tensor<4x?xf32>
  // CHECK: tcc.min %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %min = tcc.min %a, %b : tensor<4x?xf32>
  // CHECK: tcc.pow %{{.*}}, %{{.*}} : tensor<4x?xf32>
  %pow = tcc.pow %a, %b : tensor<4x?xf32>
  // CHECK: tcc.add %{{.*}}, %{{.*}} : tensor<4xi32>
  %add_i = tcc.add %i, %i : tensor<4xi32>
  // CHECK: tcc.sub %{{.*}}, %{{.*}} : tensor<4xi32>
  %sub_i = tcc.sub %i, %i : tensor<4xi32>
  // CHECK: tcc.mul %{{.*}}, %{{.*}} : tensor<4xi32>
  %mul_i = tcc.mul %i, %i : tensor<4xi32>
  // CHECK: tcc.div %{{.*}}, %{{.*}} : tensor<4xi32>
  %div_i = tcc.div %i, %i : tensor<4xi32>
  // CHECK: tcc.max %{{.*}}, %{{.*}} : tensor<4xi32>
  %max_i = tcc.max %i, %i : tensor<4xi32>
  // CHECK: tcc.min %{{.*}}, %{{.*}} : tensor<4xi32>
  %min_i = tcc.min %i, %i : tensor<4xi32>
  // Static meets dynamic: the types print as a function type.
  // CHECK: tcc.add %{{.*}}, %{{.*}} : (tensor<4x?xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %mixed = tcc.add %a, %s : (tensor<4x?xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: tcc.mul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x?xf32>
  %mixed2 = tcc.mul %s, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x?xf32>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x?x8xf16>, %i: tensor<3xi8>, %z: tensor<f64>) {
  // CHECK: tcc.neg %{{.*}} : tensor<2x?x8xf16>
  %neg = tcc.neg %x : tensor<2x?x8xf16>
  // CHECK: tcc.abs %{{.*}} : tensor<2x?x8xf16>
  %abs = tcc.abs %x : tensor<2x?x8xf16>
  // CHECK: tcc.exp %{{.*}} : tensor<2x?x8xf16>
  %exp = tcc.exp %x : tensor<2x?x8xf16>
  // CHECK: tcc.log %{{.*}} : tensor<2x?x8xf16>
  %log = tcc.log %x : tensor<2x?x8xf16>
  // CHECK: tcc.sqrt %{{.*}} : tensor<2x?x8xf16>
  %sqrt = tcc.sqrt %x : tensor<2x?x8xf16>
  // CHECK: tcc.rsqrt %{{.*}} : tensor<2x?x8xf16>
  %rsqrt = tcc.rsqrt %x : tensor<2x?x8xf16>
  // CHECK: tcc.tanh %{{.*}} : tensor<2x?x8xf16>
  %tanh = tcc.tanh %x : tensor<2x?x8xf16>
  // CHECK: tcc.sigmoid %{{.*}} : tensor<2x?x8xf16>
  %sigmoid = tcc.sigmoid %x : tensor<2x?x8xf16>
  // CHECK: tcc.relu %{{.*}} : tensor<2x?x8xf16>
  %relu = tcc.relu %x : tensor<2x?x8xf16>
  // CHECK: tcc.gelu %{{.*}} : tensor<2x?x8xf16>
  %gelu = tcc.gelu %x : tensor<2x?x8xf16>
  // CHECK: tcc.neg %{{.*}} : tensor<3xi8>
  %neg_i = tcc.neg %i : tensor<3xi8>
  // CHECK: tcc.abs %{{.*}} : tensor<3xi8>
  %abs_i = tcc.abs %i : tensor<3xi8>
  // CHECK: tcc.relu %{{.*}} : tensor<3xi8>
  %relu_i = tcc.relu %i : tensor<3xi8>
  // CHECK: tcc.exp %{{.*}} : tensor<f64>
  %rank0 = tcc.exp %z : tensor<f64>
  return
}

// CHECK-LABEL: func.func @gelu
func.func @gelu(%x: tensor<4xf32>, %y: tensor<?x?xbf16>) {
  // CHECK: tcc.gelu %{{.*}} : tensor<4xf32>
  %0 = tcc.gelu %x : tensor<4xf32>
  // `none` is the default and is not printed.
  // CHECK: tcc.gelu %{{.*}} : tensor<4xf32>
  %1 = tcc.gelu %x approximate = none : tensor<4xf32>
  // CHECK: tcc.gelu %{{.*}} approximate = tanh : tensor<4xf32>
  %2 = tcc.gelu %x approximate = tanh : tensor<4xf32>
  // CHECK: tcc.gelu %{{.*}} approximate = tanh : tensor<?x?xbf16>
  %3 = tcc.gelu %y approximate = tanh : tensor<?x?xbf16>
  return
}

// CHECK-LABEL: func.func @broadcast
func.func @broadcast(%b: tensor<8xf32>, %d: tensor<?xi32>, %s: tensor<f16>, %m: index, %n: index) {
  // CHECK: tcc.broadcast %{{.*}} dims = [0] : tensor<8xf32> -> tensor<4x8xf32>
  %0 = tcc.broadcast %b dims = [0] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: tcc.broadcast %{{.*}} dims = [1] : tensor<8xf32> -> tensor<8x3xf32>
  %1 = tcc.broadcast %b dims = [1] : tensor<8xf32> -> tensor<8x3xf32>
  // CHECK: tcc.broadcast %{{.*}} dims = [0] sizes(%{{.*}}) : tensor<8xf32> -> tensor<?x8xf32>
  %2 = tcc.broadcast %b dims = [0] sizes(%m) : tensor<8xf32> -> tensor<?x8xf32>
  // CHECK: tcc.broadcast %{{.*}} dims = [0, 2] sizes(%{{.*}}, %{{.*}}) : tensor<?xi32> -> tensor<?x?x?xi32>
  %3 = tcc.broadcast %d dims = [0, 2] sizes(%m, %n) : tensor<?xi32> -> tensor<?x?x?xi32>
  // A dynamic input dim may become static and vice versa.
  // CHECK: tcc.broadcast %{{.*}} dims = [0] : tensor<?xi32> -> tensor<2x5xi32>
  %4 = tcc.broadcast %d dims = [0] : tensor<?xi32> -> tensor<2x5xi32>
  // CHECK: tcc.broadcast %{{.*}} dims = [0, 1] : tensor<f16> -> tensor<2x3xf16>
  %5 = tcc.broadcast %s dims = [0, 1] : tensor<f16> -> tensor<2x3xf16>
  // CHECK: tcc.broadcast %{{.*}} dims = [] : tensor<8xf32> -> tensor<?xf32>
  %6 = tcc.broadcast %b dims = [] : tensor<8xf32> -> tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @cast
func.func @cast(%f32: tensor<4xf32>, %f16: tensor<4xf16>, %bf16: tensor<?xbf16>, %f64: tensor<4xf64>,
                %i1: tensor<4xi1>, %i8: tensor<4xi8>, %i16: tensor<4xi16>, %i32: tensor<4xi32>, %i64: tensor<4xi64>) {
  // float <-> float
  // CHECK: tcc.cast %{{.*}} : tensor<4xf32> to tensor<4xbf16>
  %0 = tcc.cast %f32 : tensor<4xf32> to tensor<4xbf16>
  // CHECK: tcc.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
  %1 = tcc.cast %f32 : tensor<4xf32> to tensor<4xf16>
  // CHECK: tcc.cast %{{.*}} : tensor<4xf16> to tensor<4xf64>
  %2 = tcc.cast %f16 : tensor<4xf16> to tensor<4xf64>
  // CHECK: tcc.cast %{{.*}} : tensor<?xbf16> to tensor<4xf32>
  %3 = tcc.cast %bf16 : tensor<?xbf16> to tensor<4xf32>
  // CHECK: tcc.cast %{{.*}} : tensor<4xf64> to tensor<?xf32>
  %4 = tcc.cast %f64 : tensor<4xf64> to tensor<?xf32>
  // float <-> int
  // CHECK: tcc.cast %{{.*}} : tensor<4xf32> to tensor<4xi32>
  %5 = tcc.cast %f32 : tensor<4xf32> to tensor<4xi32>
  // CHECK: tcc.cast %{{.*}} : tensor<4xi32> to tensor<4xf16>
  %6 = tcc.cast %i32 : tensor<4xi32> to tensor<4xf16>
  // CHECK: tcc.cast %{{.*}} : tensor<4xi1> to tensor<4xf32>
  %7 = tcc.cast %i1 : tensor<4xi1> to tensor<4xf32>
  // CHECK: tcc.cast %{{.*}} : tensor<4xf64> to tensor<4xi8>
  %8 = tcc.cast %f64 : tensor<4xf64> to tensor<4xi8>
  // int <-> int
  // CHECK: tcc.cast %{{.*}} : tensor<4xi8> to tensor<4xi32>
  %9 = tcc.cast %i8 : tensor<4xi8> to tensor<4xi32>
  // CHECK: tcc.cast %{{.*}} : tensor<4xi64> to tensor<4xi16>
  %10 = tcc.cast %i64 : tensor<4xi64> to tensor<4xi16>
  // CHECK: tcc.cast %{{.*}} : tensor<4xi16> to tensor<4xi1>
  %11 = tcc.cast %i16 : tensor<4xi16> to tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>, %da: tensor<?x?xbf16>, %db: tensor<?x16xbf16>,
                  %ba: tensor<3x4x8xf32>, %bb: tensor<3x8x2xf32>, %ia: tensor<4x8xi8>, %ib: tensor<8x2xi8>,
                  %fa: tensor<4x8xf64>, %fb: tensor<8x2xf64>) {
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
  %0 = tcc.matmul %a, %b : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  %1 = tcc.matmul %a, %b acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  %2 = tcc.matmul %a, %b : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} acc(f64) : tensor<?x?xbf16>, tensor<?x16xbf16> -> tensor<?x16xbf16>
  %3 = tcc.matmul %da, %db acc(f64) : tensor<?x?xbf16>, tensor<?x16xbf16> -> tensor<?x16xbf16>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<?x?xbf16>, tensor<?x16xbf16> -> tensor<8x?xf32>
  %4 = tcc.matmul %da, %db : tensor<?x?xbf16>, tensor<?x16xbf16> -> tensor<8x?xf32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<3x4x8xf32>, tensor<3x8x2xf32> -> tensor<3x4x2xf32>
  %5 = tcc.matmul %ba, %bb : tensor<3x4x8xf32>, tensor<3x8x2xf32> -> tensor<3x4x2xf32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} acc(f64) : tensor<3x4x8xf32>, tensor<3x8x2xf32> -> tensor<?x4x2xf32>
  %6 = tcc.matmul %ba, %bb acc(f64) : tensor<3x4x8xf32>, tensor<3x8x2xf32> -> tensor<?x4x2xf32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  %7 = tcc.matmul %ia, %ib : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} acc(i32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  %8 = tcc.matmul %ia, %ib acc(i32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  // CHECK: tcc.matmul %{{.*}}, %{{.*}} : tensor<4x8xf64>, tensor<8x2xf64> -> tensor<4x2xf64>
  %9 = tcc.matmul %fa, %fb : tensor<4x8xf64>, tensor<8x2xf64> -> tensor<4x2xf64>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>, %d: tensor<?x8x?xi32>, %v: tensor<5xf16>) {
  // CHECK: tcc.reduce_sum %{{.*}} dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %reduce_sum_k = tcc.reduce_sum %x dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: tcc.reduce_sum %{{.*}} dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %reduce_sum = tcc.reduce_sum %x dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tcc.reduce_max %{{.*}} dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %reduce_max_k = tcc.reduce_max %x dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: tcc.reduce_max %{{.*}} dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %reduce_max = tcc.reduce_max %x dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tcc.reduce_min %{{.*}} dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %reduce_min_k = tcc.reduce_min %x dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: tcc.reduce_min %{{.*}} dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %reduce_min = tcc.reduce_min %x dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tcc.reduce_mean %{{.*}} dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %reduce_mean_k = tcc.reduce_mean %x dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: tcc.reduce_mean %{{.*}} dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  %reduce_mean = tcc.reduce_mean %x dims = [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tcc.reduce_sum %{{.*}} dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  %reduce_sum_i = tcc.reduce_sum %d dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  // CHECK: tcc.reduce_max %{{.*}} dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  %reduce_max_i = tcc.reduce_max %d dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  // CHECK: tcc.reduce_min %{{.*}} dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  %reduce_min_i = tcc.reduce_min %d dims = [0, 2] : tensor<?x8x?xi32> -> tensor<8xi32>
  // CHECK: tcc.reduce_sum %{{.*}} dims = [0, 1] keepdims : tensor<4x8xf32> -> tensor<1x1xf32>
  %all_k = tcc.reduce_sum %x dims = [0, 1] keepdims : tensor<4x8xf32> -> tensor<1x1xf32>
  // CHECK: tcc.reduce_mean %{{.*}} dims = [0] : tensor<5xf16> -> tensor<f16>
  %rank0 = tcc.reduce_mean %v dims = [0] : tensor<5xf16> -> tensor<f16>
  // Dynamic dims stay compatible.
  // CHECK: tcc.reduce_max %{{.*}} dims = [1] keepdims : tensor<?x8x?xi32> -> tensor<?x?x4xi32>
  %dyn = tcc.reduce_max %d dims = [1] keepdims : tensor<?x8x?xi32> -> tensor<?x?x4xi32>
  return
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<4x8xf32>, %y: tensor<?xbf16>) {
  // CHECK: tcc.softmax %{{.*}} dim = 1 : tensor<4x8xf32>
  %0 = tcc.softmax %x dim = 1 : tensor<4x8xf32>
  // CHECK: tcc.softmax %{{.*}} dim = 0 : tensor<4x8xf32>
  %1 = tcc.softmax %x dim = 0 : tensor<4x8xf32>
  // CHECK: tcc.softmax %{{.*}} dim = 0 : tensor<?xbf16>
  %2 = tcc.softmax %y dim = 0 : tensor<?xbf16>
  return
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<4x8xf32>, %y: tensor<2x?x6xi64>, %z: tensor<i1>) {
  // CHECK: tcc.transpose %{{.*}} permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %0 = tcc.transpose %x permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: tcc.transpose %{{.*}} permutation = [2, 0, 1] : tensor<2x?x6xi64> -> tensor<6x2x?xi64>
  %1 = tcc.transpose %y permutation = [2, 0, 1] : tensor<2x?x6xi64> -> tensor<6x2x?xi64>
  // CHECK: tcc.transpose %{{.*}} permutation = [1, 2, 0] : tensor<2x?x6xi64> -> tensor<?x?x2xi64>
  %2 = tcc.transpose %y permutation = [1, 2, 0] : tensor<2x?x6xi64> -> tensor<?x?x2xi64>
  // CHECK: tcc.transpose %{{.*}} permutation = [] : tensor<i1> -> tensor<i1>
  %3 = tcc.transpose %z permutation = [] : tensor<i1> -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @constant
func.func @constant() {
  // CHECK: tcc.constant dense<1.000000e+00> : tensor<4xf32>
  %0 = tcc.constant dense<1.0> : tensor<4xf32>
  // CHECK: tcc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = tcc.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: tcc.constant dense<true> : tensor<2x2xi1>
  %2 = tcc.constant dense<true> : tensor<2x2xi1>
  // CHECK: tcc.constant dense<5.000000e-01> : tensor<bf16>
  %3 = tcc.constant dense<0.5> : tensor<bf16>
  return
}

// A host program's launch of a kernel on tensors.
// CHECK-LABEL: func.func @host
// CHECK: tcc.launch @host_k0(%{{.*}}) : (tensor<8x64xf32>) -> tensor<8xf32>
func.func private @host_k0(%x: tensor<8x64xf32>) -> tensor<8xf32>
func.func @host(%x: tensor<8x64xf32>) -> tensor<8xf32> attributes {tcc.host} {
  %s = tcc.launch @host_k0(%x) : (tensor<8x64xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// A launch of a tile kernel: one memref per input, then per result.
// CHECK-LABEL: func.func @host_tile
// CHECK: tcc.launch @tile_k0(%{{.*}}) : (tensor<8x64xf32>) -> tensor<8xf32>
tile.func @tile_k0(%x: memref<8x64xf32>, %s: memref<8xf32>) attributes {grid_rank = 1 : i32} {
  tile.return
}
func.func @host_tile(%x: tensor<8x64xf32>) -> tensor<8xf32> attributes {tcc.host} {
  %s = tcc.launch @tile_k0(%x) : (tensor<8x64xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func.func @compare_select_erf
func.func @compare_select_erf(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %s: tensor<4x8xf32>,
                              %i: tensor<3xi32>, %p: tensor<3xi1>) {
  // CHECK: tcc.cmp eq, %{{.*}}, %{{.*}} : tensor<4x?xf32> -> tensor<4x?xi1>
  %eq = tcc.cmp eq, %a, %b : tensor<4x?xf32> -> tensor<4x?xi1>
  // CHECK: tcc.cmp ne, %{{.*}}, %{{.*}} : tensor<4x?xf32> -> tensor<4x8xi1>
  %ne = tcc.cmp ne, %a, %b : tensor<4x?xf32> -> tensor<4x8xi1>
  // CHECK: tcc.cmp lt, %{{.*}}, %{{.*}} : (tensor<4x?xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %lt = tcc.cmp lt, %a, %s : (tensor<4x?xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: tcc.cmp le, %{{.*}}, %{{.*}} : tensor<3xi32> -> tensor<3xi1>
  %le = tcc.cmp le, %i, %i : tensor<3xi32> -> tensor<3xi1>
  // CHECK: tcc.cmp gt, %{{.*}}, %{{.*}} : tensor<3xi1> -> tensor<3xi1>
  %gt = tcc.cmp gt, %p, %p : tensor<3xi1> -> tensor<3xi1>
  // CHECK: tcc.cmp ge, %{{.*}}, %{{.*}} : tensor<3xi32> -> tensor<3xi1>
  %ge = tcc.cmp ge, %i, %i : tensor<3xi32> -> tensor<3xi1>
  // CHECK: tcc.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x?xi1>, tensor<4x?xf32>
  %sel = tcc.select %eq, %a, %b : tensor<4x?xi1>, tensor<4x?xf32>
  // CHECK: tcc.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
  %sel2 = tcc.select %ne, %s, %s : tensor<4x8xi1>, tensor<4x8xf32>
  // CHECK: tcc.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xi1>, tensor<3xi32>
  %sel3 = tcc.select %le, %i, %i : tensor<3xi1>, tensor<3xi32>
  // CHECK: tcc.erf %{{.*}} : tensor<4x?xf32>
  %erf = tcc.erf %a : tensor<4x?xf32>
  return
}

// CHECK-LABEL: func.func @arg_reductions
func.func @arg_reductions(%x: tensor<4x8xf32>, %d: tensor<?x8xi32>) {
  // CHECK: tcc.reduce_argmax %{{.*}} dim = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xi64>
  %v0, %i0 = tcc.reduce_argmax %x dim = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xi64>
  // CHECK: tcc.reduce_argmax %{{.*}} dim = 0 keepdims : tensor<4x8xf32> -> tensor<1x8xf32>, tensor<1x8xi32>
  %v1, %i1 = tcc.reduce_argmax %x dim = 0 keepdims : tensor<4x8xf32> -> tensor<1x8xf32>, tensor<1x8xi32>
  // CHECK: tcc.reduce_argmin %{{.*}} dim = 0 : tensor<?x8xi32> -> tensor<8xi32>, tensor<8xi64>
  %v2, %i2 = tcc.reduce_argmin %d dim = 0 : tensor<?x8xi32> -> tensor<8xi32>, tensor<8xi64>
  // CHECK: tcc.reduce_argmin %{{.*}} dim = 1 keepdims : tensor<?x8xi32> -> tensor<?x1xi32>, tensor<?x1xi64>
  %v3, %i3 = tcc.reduce_argmin %d dim = 1 keepdims : tensor<?x8xi32> -> tensor<?x1xi32>, tensor<?x1xi64>
  return
}

// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<4x6xf32>, %y: tensor<?x8xi8>, %n: index, %z: tensor<f16>) {
  // CHECK: tcc.reshape %{{.*}} : tensor<4x6xf32> -> tensor<2x2x6xf32>
  %0 = tcc.reshape %x : tensor<4x6xf32> -> tensor<2x2x6xf32>
  // CHECK: tcc.reshape %{{.*}} : tensor<4x6xf32> -> tensor<24xf32>
  %1 = tcc.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  // CHECK: tcc.reshape %{{.*}} sizes(%{{.*}}) : tensor<?x8xi8> -> tensor<?xi8>
  %2 = tcc.reshape %y sizes(%n) : tensor<?x8xi8> -> tensor<?xi8>
  // CHECK: tcc.reshape %{{.*}} : tensor<?x8xi8> -> tensor<4x2x4xi8>
  %3 = tcc.reshape %y : tensor<?x8xi8> -> tensor<4x2x4xi8>
  // CHECK: tcc.reshape %{{.*}} : tensor<f16> -> tensor<1x1xf16>
  %4 = tcc.reshape %z : tensor<f16> -> tensor<1x1xf16>
  return
}

// CHECK-LABEL: func.func @iota
func.func @iota(%n: index) {
  // CHECK: tcc.iota : tensor<128xi32>
  %0 = tcc.iota : tensor<128xi32>
  // CHECK: tcc.iota(%{{.*}}) : tensor<?xi64>
  %1 = tcc.iota(%n) : tensor<?xi64>
  return
}
