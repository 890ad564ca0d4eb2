//===- Passes.td - tcc lowerings ---------------------------*- tablegen -*-===//
//
// Lowerings between levels, named convert-<src>-to-<dst>; patterns live in
// passes/lib/Conversion/<Src>To<Dst>/, split by op family.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_CONVERSION_PASSES_TD
#define TCC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTccToLinalg : Pass<"convert-tcc-to-linalg"> {
  let summary = "Lower the tcc tensor dialect to linalg on tensors";
  let description = [{
    Rewrites every `tcc` op into upstream ops on tensors: named linalg ops
    where upstream has them (`linalg.add`, `linalg.exp`, `linalg.broadcast`,
    `linalg.transpose`, `linalg.matmul`, `linalg.batch_matmul`,
    `linalg.reduce`, `linalg.softmax`, ...) and `linalg.generic` otherwise
    (sigmoid, relu, gelu, casts, integer abs/neg). Destination tensors are
    `tensor.empty` ops whose dynamic sizes come from `tensor.dim` of the
    operands (or the `sizes` of `tcc.broadcast`). Transcendental math on
    f16/bf16 (gelu, sigmoid) is computed in f32 inside the body.

    Before:
    ```mlir
    %y = tcc.gelu %x approximate = tanh : tensor<?x128xf32>
    ```
    After:
    ```mlir
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x128xf32>
    %e = tensor.empty(%d0) : tensor<?x128xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x128xf32>) outs(%e : tensor<?x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      ...  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
      linalg.yield %g : f32
    } -> tensor<?x128xf32>
    ```
    Fails with a diagnostic on any tcc op it cannot lower.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TCC_CONVERSION_PASSES_TD
