// convert-approx-math-to-nvvm: f32 exp2 with fastmath<afn> becomes
// ex2.approx.ftz per element; without afn, on other types or n-D vectors it
// is left to convert-gpu-to-nvvm (libdevice).
// RUN: tcc-opt %s -split-input-file --convert-approx-math-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @scalar
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK:         %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    return %[[E]]
func.func @scalar(%x: f32) -> f32 {
  %e = math.exp2 %x fastmath<afn> : f32
  return %e : f32
}

// -----

// CHECK-LABEL: func.func @vector
// CHECK-SAME:    (%[[X:.*]]: vector<2xf32>)
// CHECK:         %[[X0:.*]] = vector.extract %[[X]][0] : f32 from vector<2xf32>
// CHECK:         %[[E0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[X0]])
// CHECK:         %[[X1:.*]] = vector.extract %[[X]][1] : f32 from vector<2xf32>
// CHECK:         %[[E1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[X1]])
// CHECK:         %[[V:.*]] = vector.from_elements %[[E0]], %[[E1]] : vector<2xf32>
// CHECK-NEXT:    return %[[V]]
func.func @vector(%x: vector<2xf32>) -> vector<2xf32> {
  %e = math.exp2 %x fastmath<fast> : vector<2xf32>
  return %e : vector<2xf32>
}

// -----

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         math.exp2 %{{.*}} : f32
// CHECK:         math.exp2 %{{.*}} fastmath<afn> : f16
// CHECK:         math.exp2 %{{.*}} fastmath<afn> : vector<2x2xf32>
// CHECK:         math.exp %{{.*}} fastmath<afn> : f32
func.func @left_alone(%a: f32, %b: f16, %c: vector<2x2xf32>) -> (f32, f16, vector<2x2xf32>, f32) {
  %0 = math.exp2 %a : f32
  %1 = math.exp2 %b fastmath<afn> : f16
  %2 = math.exp2 %c fastmath<afn> : vector<2x2xf32>
  %3 = math.exp %a fastmath<afn> : f32
  return %0, %1, %2, %3 : f32, f16, vector<2x2xf32>, f32
}
