// Every verifier diagnostic of the tcc ops, one case each.
// RUN: tcc-opt %s -split-input-file -verify-diagnostics

func.func @case0(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{lhs type 'tensor<4xf32>' and rhs type 'tensor<8xf32>' are not compatible}}
  %0 = tcc.add %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case1(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{lhs type 'tensor<4xf32>' and rhs type 'tensor<4x1xf32>' are not compatible}}
  %0 = tcc.sub %a, %b : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case2(%a: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<8xf32>' is not compatible with lhs type 'tensor<4xf32>'}}
  %0 = tcc.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case3(%a: tensor<?xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<8xf32>' is not compatible with rhs type 'tensor<4xf32>'}}
  %0 = tcc.div %a, %b : (tensor<?xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case4(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{rhs element type 'f16' does not match lhs element type 'f32'}}
  %0 = tcc.max %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @case5(%a: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'i64' does not match lhs element type 'i32'}}
  %0 = tcc.min %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @case6(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = tcc.pow %a, %a : tensor<4xi32>
  return
}

// -----

func.func @case7(%a: tensor<4xindex>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = tcc.add %a, %a : tensor<4xindex>
  return
}

// -----

func.func @case8(%a: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = tcc.add %a, %a : tensor<*xf32>
  return
}

// -----

func.func @case9(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected a single type or '(lhs-type, rhs-type) -> result-type'}}
  %0 = tcc.add %a, %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case10(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.exp %a : tensor<4xi32>
  return
}

// -----

func.func @case11(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.log %a : tensor<4xi8>
  return
}

// -----

func.func @case12(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.sqrt %a : tensor<4xi8>
  return
}

// -----

func.func @case13(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.rsqrt %a : tensor<4xi8>
  return
}

// -----

func.func @case14(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.tanh %a : tensor<4xi8>
  return
}

// -----

func.func @case15(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.sigmoid %a : tensor<4xi8>
  return
}

// -----

func.func @case16(%a: tensor<4xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.gelu %a : tensor<4xi8>
  return
}

// -----

func.func @case17(%a: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "tcc.neg"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @case18(%a: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "tcc.abs"(%a) : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @case19(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 'none' or 'tanh', got 'erf'}}
  %0 = tcc.gelu %a approximate = erf : tensor<4xf32>
  return
}

// -----

func.func @case20(%a: tensor<8xf32>) {
  // expected-error @+1 {{result element type 'f16' does not match input element type 'f32'}}
  %0 = tcc.broadcast %a dims = [0] : tensor<8xf32> -> tensor<4x8xf16>
  return
}

// -----

func.func @case21(%a: tensor<8xf32>) {
  // expected-error @+1 {{'dims' entry -1 is out of range [0, 2)}}
  %0 = tcc.broadcast %a dims = [-1] : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case22(%a: tensor<8xf32>) {
  // expected-error @+1 {{'dims' entry 2 is out of range [0, 2)}}
  %0 = tcc.broadcast %a dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case23(%a: tensor<8xf32>) {
  // expected-error @+1 {{'dims' must be sorted and unique, but entry 0 follows 2}}
  %0 = tcc.broadcast %a dims = [2, 0] : tensor<8xf32> -> tensor<4x8x3xf32>
  return
}

// -----

func.func @case24(%a: tensor<8xf32>) {
  // expected-error @+1 {{'dims' must be sorted and unique, but entry 0 follows 0}}
  %0 = tcc.broadcast %a dims = [0, 0] : tensor<8xf32> -> tensor<4x8x3xf32>
  return
}

// -----

func.func @case25(%a: tensor<8xf32>) {
  // expected-error @+1 {{result rank 3 must equal input rank 1 plus the number of added dims 1}}
  %0 = tcc.broadcast %a dims = [0] : tensor<8xf32> -> tensor<4x3x8xf32>
  return
}

// -----

func.func @case26(%a: tensor<8xf32>) {
  // expected-error @+1 {{result dim 1 (size 7) does not match input dim 0 (size 8)}}
  %0 = tcc.broadcast %a dims = [0] : tensor<8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @case27(%a: tensor<8xf32>) {
  // expected-error @+1 {{expected 1 'sizes' operand(s), one per dynamic added dim, but got 0}}
  %0 = tcc.broadcast %a dims = [0] : tensor<8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @case28(%a: tensor<8xf32>, %m: index) {
  // expected-error @+1 {{expected 0 'sizes' operand(s), one per dynamic added dim, but got 1}}
  %0 = tcc.broadcast %a dims = [0] sizes(%m) : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @case29(%a: tensor<8xf32>, %m: i64) {
  // expected-error @+1 {{'%m' expects different type than prior uses: 'index' vs 'i64'}}
  %0 = tcc.broadcast %a dims = [0] sizes(%m) : tensor<8xf32> -> tensor<?x8xf32>
  return
}

// -----

func.func @case30(%a: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<8xbf16>' is not shape-compatible with input type 'tensor<4xf32>'}}
  %0 = tcc.cast %a : tensor<4xf32> to tensor<8xbf16>
  return
}

// -----

func.func @case31(%a: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<4x1xf32>' is not shape-compatible with input type 'tensor<4xf32>'}}
  %0 = tcc.cast %a : tensor<4xf32> to tensor<4x1xf32>
  return
}

// -----

func.func @case32(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of}}
  %0 = tcc.cast %a : tensor<4xf32> to tensor<4xindex>
  return
}

// -----

func.func @case33(%a: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = tcc.cast %a : tensor<4xf8E4M3FN> to tensor<4xf32>
  return
}

// -----

func.func @case34(%a: tensor<8xf32>) {
  // expected-error @+1 {{lhs must have rank 2 (MxK) or 3 (BxMxK), but has rank 1}}
  %0 = tcc.matmul %a, %a : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @case35(%a: tensor<2x2x2x2xf32>) {
  // expected-error @+1 {{lhs must have rank 2 (MxK) or 3 (BxMxK), but has rank 4}}
  %0 = tcc.matmul %a, %a : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  return
}

// -----

func.func @case36(%a: tensor<4x8xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{rhs rank 3 does not match lhs rank 2}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<2x8x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @case37(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{result rank 3 does not match lhs rank 2}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<1x4x2xf32>
  return
}

// -----

func.func @case38(%a: tensor<3x4x8xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{lhs dim 0 (B = 3) does not match rhs dim 0 (B = 2)}}
  %0 = tcc.matmul %a, %b : tensor<3x4x8xf32>, tensor<2x8x2xf32> -> tensor<3x4x2xf32>
  return
}

// -----

func.func @case39(%a: tensor<3x4x8xf32>, %b: tensor<?x8x2xf32>) {
  // expected-error @+1 {{result dim 0 (B = 5) does not match lhs dim 0 (B = 3)}}
  %0 = tcc.matmul %a, %b : tensor<3x4x8xf32>, tensor<?x8x2xf32> -> tensor<5x4x2xf32>
  return
}

// -----

func.func @case40(%a: tensor<4x64xf32>, %b: tensor<32x2xf32>) {
  // expected-error @+1 {{lhs dim 1 (K = 64) does not match rhs dim 0 (K = 32)}}
  %0 = tcc.matmul %a, %b : tensor<4x64xf32>, tensor<32x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @case41(%a: tensor<3x4x64xf32>, %b: tensor<3x32x2xf32>) {
  // expected-error @+1 {{lhs dim 2 (K = 64) does not match rhs dim 1 (K = 32)}}
  %0 = tcc.matmul %a, %b : tensor<3x4x64xf32>, tensor<3x32x2xf32> -> tensor<3x4x2xf32>
  return
}

// -----

func.func @case42(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{result dim 0 (M = 5) does not match lhs dim 0 (M = 4)}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<5x2xf32>
  return
}

// -----

func.func @case43(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{result dim 1 (N = 3) does not match rhs dim 1 (N = 2)}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @case44(%a: tensor<4x8xf32>, %b: tensor<8x2xf16>) {
  // expected-error @+1 {{rhs element type 'f16' does not match lhs element type 'f32'}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf16> -> tensor<4x2xf32>
  return
}

// -----

func.func @case45(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) {
  // expected-error @+1 {{result element type 'f32' must be i32 for i8 operands}}
  %0 = tcc.matmul %a, %b : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xf32>
  return
}

// -----

func.func @case46(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) {
  // expected-error @+1 {{acc_type 'f32' must be i32 for i8 operands}}
  %0 = tcc.matmul %a, %b acc(f32) : tensor<4x8xi8>, tensor<8x2xi8> -> tensor<4x2xi32>
  return
}

// -----

func.func @case47(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) {
  // expected-error @+1 {{result element type 'i32' must be float for float operands}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xi32>
  return
}

// -----

func.func @case48(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{acc_type 'f16' must be the operand element type 'f32' or a wider float type}}
  %0 = tcc.matmul %a, %b acc(f16) : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @case49(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) {
  // expected-error @+1 {{acc_type 'bf16' must be the operand element type 'f16' or a wider float type}}
  %0 = tcc.matmul %a, %b acc(bf16) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
  return
}

// -----

func.func @case50(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // The accumulator defaults to the result element type.
  // expected-error @+1 {{acc_type 'f16' must be the operand element type 'f32' or a wider float type}}
  %0 = tcc.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf16>
  return
}

// -----

func.func @case51(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{acc_type 'i32' must be the operand element type 'f32' or a wider float type}}
  %0 = tcc.matmul %a, %b acc(i32) : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @case52(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = tcc.matmul %a, %b : tensor<4x8xi32>, tensor<8x2xi32> -> tensor<4x2xi32>
  return
}

// -----

func.func @case53(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dims' must not be empty}}
  %0 = tcc.reduce_sum %a dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case54(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dims' entry 2 is out of range [0, 2)}}
  %0 = tcc.reduce_max %a dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case55(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dims' entry -1 is out of range [0, 2)}}
  %0 = tcc.reduce_min %a dims = [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case56(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dims' must be sorted and unique, but entry 0 follows 1}}
  %0 = tcc.reduce_mean %a dims = [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return
}

// -----

func.func @case57(%a: tensor<f32>) {
  // expected-error @+1 {{'dims' entry 0 is out of range [0, 0)}}
  %0 = tcc.reduce_sum %a dims = [0] : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @case58(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result rank 2 does not match expected rank 1 (input rank 2, reducing 1 dim(s))}}
  %0 = tcc.reduce_sum %a dims = [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @case59(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result rank 1 does not match expected rank 2 (input rank 2, reducing 1 dim(s) with keepdims)}}
  %0 = tcc.reduce_sum %a dims = [1] keepdims : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case60(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result dim 0 (size 8) does not match input dim 0 (size 4)}}
  %0 = tcc.reduce_sum %a dims = [1] : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @case61(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result dim 1 (size 8) must be 1: it is a reduced dim kept by keepdims}}
  %0 = tcc.reduce_sum %a dims = [1] keepdims : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case62(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result element type 'f16' does not match input element type 'f32'}}
  %0 = tcc.reduce_max %a dims = [1] : tensor<4x8xf32> -> tensor<4xf16>
  return
}

// -----

func.func @case63(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.reduce_mean %a dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
  return
}

// -----

func.func @case64(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dim' -1 is out of range [0, 2)}}
  %0 = tcc.softmax %a dim = -1 : tensor<4x8xf32>
  return
}

// -----

func.func @case65(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'dim' 2 is out of range [0, 2)}}
  %0 = tcc.softmax %a dim = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @case66(%a: tensor<f32>) {
  // expected-error @+1 {{'dim' 0 is out of range [0, 0)}}
  %0 = tcc.softmax %a dim = 0 : tensor<f32>
  return
}

// -----

func.func @case67(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float}}
  %0 = tcc.softmax %a dim = 0 : tensor<4xi32>
  return
}

// -----

func.func @case68(%a: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that all of {input, result} have same type}}
  %0 = "tcc.softmax"(%a) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @case69(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'permutation' has 1 entries but the input rank is 2}}
  %0 = tcc.transpose %a permutation = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case70(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'permutation' has 0 entries but the input rank is 2}}
  %0 = tcc.transpose %a permutation = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case71(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'permutation' entry 2 is out of range [0, 2)}}
  %0 = tcc.transpose %a permutation = [0, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case72(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'permutation' entry -1 is out of range [0, 2)}}
  %0 = tcc.transpose %a permutation = [-1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case73(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'permutation' repeats entry 1}}
  %0 = tcc.transpose %a permutation = [1, 1] : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @case74(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result rank 3 does not match input rank 2}}
  %0 = tcc.transpose %a permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4x1xf32>
  return
}

// -----

func.func @case75(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result element type 'i32' does not match input element type 'f32'}}
  %0 = tcc.transpose %a permutation = [1, 0] : tensor<4x8xf32> -> tensor<8x4xi32>
  return
}

// -----

func.func @case76(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{result dim 0 (size 4) does not match input dim 1 (size 8)}}
  %0 = tcc.transpose %a permutation = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @case77() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "tcc.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf16>
  return
}

// -----

func.func @case78() {
  // expected-error @+1 {{result #0 must be ranked tensor of}}
  %0 = tcc.constant dense<1> : tensor<4xindex>
  return
}

// -----

func.func @case79() {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "tcc.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

func.func @launch_missing(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{kernel @nowhere does not exist}}
  %y = tcc.launch @nowhere(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func private @k(%x: tensor<8xf32>) -> tensor<8xf32>
func.func @launch_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{types do not match kernel @k of type '(tensor<8xf32>) -> tensor<8xf32>'}}
  %y = tcc.launch @k(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

tile.func @tk(%x: memref<8xf32>, %y: memref<8xf16>) attributes {grid_rank = 1 : i32} {
  tile.return
}
func.func @launch_tile_types(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{kernel @tk argument #1 has type 'memref<8xf16>', which does not hold 'tensor<8xf32>'}}
  %y = tcc.launch @tk(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

tile.func @tk2(%x: memref<8xf32>) attributes {grid_rank = 1 : i32} {
  tile.return
}
func.func @launch_tile_arity(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{does not take one memref per input and result (1 + 1)}}
  %y = tcc.launch @tk2(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @case80(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{lhs type 'tensor<4xf32>' and rhs type 'tensor<8xf32>' are not compatible}}
  %0 = tcc.cmp lt, %a, %b : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @case81(%a: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<8xi1>' and lhs type 'tensor<4xf32>' are not compatible}}
  %0 = tcc.cmp lt, %a, %a : tensor<4xf32> -> tensor<8xi1>
  return
}

// -----

func.func @case82(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{rhs element type 'f16' does not match lhs element type 'f32'}}
  %0 = tcc.cmp eq, %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return
}

// -----

func.func @case83(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tcc.cmp eq, %a, %a : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case84(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected one of eq, ne, lt, le, gt, ge, got 'olt'}}
  %0 = tcc.cmp olt, %a, %a : tensor<4xf32> -> tensor<4xi1>
  return
}

// -----

func.func @case85(%c: tensor<8xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{condition type 'tensor<8xi1>' and true_value type 'tensor<4xf32>' are not compatible}}
  %0 = tcc.select %c, %a, %a : tensor<8xi1>, tensor<4xf32>
  return
}

// -----

func.func @case86(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{failed to verify that all of {true_value, false_value, result} have same type}}
  %0 = "tcc.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @case87(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = "tcc.select"(%c, %a, %a) : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @case88(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = tcc.erf %a : tensor<4xi32>
  return
}

// -----

func.func @case89(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'dim' 2 is out of range [0, 2)}}
  %v, %i = tcc.reduce_argmax %x dim = 2 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xi64>
  return
}

// -----

func.func @case90(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{values element type 'f16' does not match input element type 'f32'}}
  %v, %i = tcc.reduce_argmax %x dim = 1 : tensor<4x8xf32> -> tensor<4xf16>, tensor<4xi64>
  return
}

// -----

func.func @case91(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{indices dim 0 (size 8) does not match input dim 0 (size 4)}}
  %v, %i = tcc.reduce_argmin %x dim = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<8xi64>
  return
}

// -----

func.func @case92(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{values rank 1 does not match expected rank 2 (input rank 2, reducing 1 dim(s) with keepdims)}}
  %v, %i = tcc.reduce_argmin %x dim = 1 keepdims : tensor<4x8xf32> -> tensor<4xf32>, tensor<4x1xi64>
  return
}

// -----

func.func @case93(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{indices dim 1 (size 8) must be 1: it is a reduced dim kept by keepdims}}
  %v, %i = tcc.reduce_argmax %x dim = 1 keepdims : tensor<4x8xf32> -> tensor<4x1xf32>, tensor<4x8xi64>
  return
}

// -----

func.func @case94(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %v, %i = tcc.reduce_argmax %x dim = 1 : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @case95(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{input type 'tensor<4x6xf32>' has 24 elements but result type 'tensor<5x5xf32>' has 25}}
  %0 = tcc.reshape %x : tensor<4x6xf32> -> tensor<5x5xf32>
  return
}

// -----

func.func @case96(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{result element type 'f16' does not match input element type 'f32'}}
  %0 = tcc.reshape %x : tensor<4x6xf32> -> tensor<24xf16>
  return
}

// -----

func.func @case97(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{expected 1 'sizes' operand(s), one per dynamic result dim, but got 0}}
  %0 = tcc.reshape %x : tensor<?x6xf32> -> tensor<?xf32>
  return
}

// -----

func.func @case98(%x: tensor<?xf32>) {
  // expected-error @+1 {{a reshape to or from rank 0 needs static unit dims, but input type is 'tensor<?xf32>' and result type is 'tensor<f32>'}}
  %0 = tcc.reshape %x : tensor<?xf32> -> tensor<f32>
  return
}

// -----

func.func @iota_rank2() {
  // expected-error @+1 {{result must be 1-D, got 'tensor<4x4xi32>'}}
  %0 = tcc.iota : tensor<4x4xi32>
  return
}

// -----

func.func @iota_sizes(%n: index) {
  // expected-error @+1 {{takes one size per dynamic dim of its result (0), got 1}}
  %0 = tcc.iota(%n) : tensor<8xi32>
  return
}

// -----

func.func @iota_float() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = tcc.iota : tensor<8xf32>
  return
}
