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

def ConvertLinalgToTile : Pass<"convert-linalg-to-tile", "::mlir::ModuleOp"> {
  let summary = "Schedule fused linalg kernels as tile-dialect programs";
  let description = [{
    Turns each `func.func` on static-shaped tensors whose body is one fused
    kernel into a `tile.func` over memrefs (the function's inputs, then one
    memref per result), choosing the schedule: the block tile each program
    covers, and the blocked layout that spreads it over threads and warps
    (16-byte vectors along the contiguous dim where the row length allows,
    whole warps along it first). Three kernel forms are recognized:

    * elementwise `linalg.generic` (all loops parallel) whose operands are
      identity or row/column-broadcast maps: one `[BM, BN]` block per program;
    * a row reduction (`[parallel, reduction]` generic into a `linalg.fill`
      init), with the elementwise ops before it fused into the loaded tiles
      and elementwise consumers of the reduced row as an epilogue: `BM` rows
      per program, a loop over `BN`-wide column chunks, then `tile.reduce`;
    * `linalg.softmax` over the last dim: whole rows per program (max,
      exp, sum, divide in registers, computed in f32 for f16/bf16).

    Rank-1 programs run as one row; higher ranks collapse their leading dims
    when every map is the identity. The kernel carries its launch contract as
    attributes: `tcc.grid` (programs per grid axis), `tcc.num_warps`,
    `tcc.num_inputs`. Anything else is a diagnostic naming the op.

    Before (after `convert-tcc-to-linalg`, `linalg-fuse-elementwise-ops`):
    ```mlir
    func.func @add(%x: tensor<1000x777xf32>, %y: tensor<1000x777xf32>) -> tensor<1000x777xf32>
    ```
    After:
    ```mlir
    tile.func @add(%x: memref<1000x777xf32>, %y: memref<1000x777xf32>,
                   %out: memref<1000x777xf32>)
        attributes {grid_rank = 1 : i32, tcc.grid = array<i64: 1000, 1, 1>, ...} {
      %pid = tile.program_id 0 : i32
      ...
      %a = tile.memref_load %x[%m0, %n0] : memref<1000x777xf32> -> tensor<1x1024xf32, #blocked>
      ...
      tile.memref_store %out[%m0, %n0], %s : memref<1000x777xf32>, tensor<1x1024xf32, #blocked>
      tile.return
    }
    ```
  }];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", "32",
           "threads per warp of the target (32 NVIDIA, 64 AMD CDNA)">,
    Option<"numWarps", "num-warps", "unsigned", "4",
           "warps per program for elementwise and row-reduction kernels">,
    Option<"elementsPerProgram", "elements-per-program", "int64_t", "4096",
           "target tile size (elements) one program covers">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "widest global access per thread (bytes)">,
    Option<"maxSoftmaxColumns", "max-softmax-columns", "int64_t", "16384",
           "longest row a softmax program keeps in registers">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tcc::tile::TileDialect"
  ];
}

#endif // TCC_CONVERSION_PASSES_TD
