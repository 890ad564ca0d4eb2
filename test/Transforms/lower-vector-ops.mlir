// RUN: tcc-opt %s -split-input-file --tcc-lower-vector-ops | FileCheck %s

// Strided slices become shuffles.
// CHECK-LABEL: func.func @slices
// CHECK-NOT: vector.insert_strided_slice
// CHECK-NOT: vector.extract_strided_slice
// CHECK: vector.shuffle
func.func @slices(%v: vector<4xf32>, %acc: vector<16xf32>) -> (vector<16xf32>, vector<2xf32>) {
  %r = vector.insert_strided_slice %v, %acc {offsets = [4], strides = [1]} : vector<4xf32> into vector<16xf32>
  %e = vector.extract_strided_slice %r {offsets = [6], sizes = [2], strides = [1]} : vector<16xf32> to vector<2xf32>
  return %r, %e : vector<16xf32>, vector<2xf32>
}

// -----

// Vector-to-vector broadcasts become a scalar broadcast (which the GPU
// conversions lower), 2-D <-> 1-D shape casts (mma fragments) element ops.
// CHECK-LABEL: func.func @broadcast_and_shape_cast
// CHECK: %[[S:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK: vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-NOT: vector.shape_cast
// CHECK-COUNT-4: vector.extract %{{.*}}[{{[0-3]}}] : vector<2xf16> from vector<4x2xf16>
func.func @broadcast_and_shape_cast(%x: vector<1xf32>, %f: vector<4x2xf16>) -> (vector<8xf32>, vector<8xf16>) {
  %b = vector.broadcast %x : vector<1xf32> to vector<8xf32>
  %s = vector.shape_cast %f : vector<4x2xf16> to vector<8xf16>
  return %b, %s : vector<8xf32>, vector<8xf16>
}
