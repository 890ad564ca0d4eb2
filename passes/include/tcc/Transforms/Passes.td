//===- Passes.td - tcc same-level rewrites -----------------*- tablegen -*-===//
//
// Rewrites that stay within a level: scheduling, shared-memory promotion,
// swizzling, MMA mapping, ... One pass per file in passes/lib/Transforms/.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_TRANSFORMS_PASSES_TD
#define TCC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TccFuseElementwise : Pass<"tcc-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into their consumers";
  let description = [{
    Producer/consumer fusion of `linalg.generic` ops on tensors (upstream's
    elementwise fusion patterns) so that a chain such as bias add + GELU, or
    a cast feeding a row sum, becomes one generic: one kernel, one pass over
    memory. Unlike `linalg-fuse-elementwise-ops` it does not move reshapes
    (`tensor.expand_shape` from `keepdims`) through the ops, which would turn
    a row reduction into a higher-rank one; reshapes stay at the program's
    edges, where they are free views. A producer is fused only into its only
    consumer, so no work is duplicated. Run `linalg-generalize-named-ops`
    first: the patterns act on `linalg.generic`.

    Before:
    ```mlir
    %s = linalg.generic {...} ins(%x, %b : ...) { arith.addf }
    %y = linalg.generic {...} ins(%s : ...) { ...math.tanh... }
    ```
    After:
    ```mlir
    %y = linalg.generic {...} ins(%x, %b : ...) { arith.addf ... math.tanh }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TccLowerVectorOps : Pass<"tcc-lower-vector-ops"> {
  let summary = "Lower vector ops the GPU-to-LLVM conversions do not handle";
  let description = [{
    convert-tile-to-gpu assembles each thread's registers with
    `vector.insert_strided_slice` / `vector.extract_strided_slice`,
    `vector.broadcast` and (for mma fragments) `vector.shape_cast`;
    `convert-gpu-to-nvvm` / `convert-gpu-to-rocdl` only
    carry the direct vector-to-LLVM patterns, so this pass first applies
    upstream's lowerings of those ops into `vector.shuffle`,
    `vector.insert` / `vector.extract` and `vector.from_elements`.

    Before:
    ```mlir
    %r = vector.insert_strided_slice %v, %acc {offsets = [4], strides = [1]}
        : vector<4xf32> into vector<32xf32>
    %s = vector.broadcast %x : f32 to vector<8xf32>
    ```
    After:
    ```mlir
    %w = vector.shuffle %v, %v [0, 1, 2, 3, -1, ...] : vector<4xf32>, vector<4xf32>
    %r = vector.shuffle %acc, %w [0, 1, 2, 3, 32, 33, 34, 35, 8, ...] : ...
    %s = vector.from_elements %x, %x, ... : vector<8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

#endif // TCC_TRANSFORMS_PASSES_TD
