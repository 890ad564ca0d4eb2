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

def TccSwizzleSharedMemory : Pass<"tcc-swizzle-shared-memory"> {
  let summary = "Pick bank-conflict-free XOR swizzles for shared dot-operand tiles";
  let description = [{
    Every `tile.convert_layout` result with an unswizzled `#tile.shared`
    encoding (`maxPhase = 1`) whose users all read it as a tensor-core dot
    operand (a `tile.convert_layout` to `#tile.dot_operand` of an
    `#tile.nvidia_mma` / `#tile.amd_mfma` parent, or `tile.dot` itself for
    wgmma's shared B) gets swizzle parameters (Triton's swizzled shared
    layout: the `vec`-element group of the contiguous index is XORed with
    `(row / perPhase) % maxPhase`). With a 128-byte bank line (32 banks x 4
    bytes on both targets), `V` the bytes one lane reads per access and `R`
    the bytes of one row (the contiguous dimension):

    ```
    V        = 16 (nvidia: an ldmatrix row)
             | clamp(kWidth * elemBytes, 4, 16) (amd: ds_read_b32/b64/b128)
    vec      = V / elemBytes
    perPhase = max(1, 128 / R)
    maxPhase = max(1, min((128 / V) / perPhase, R / V))
    ```

    `128 / V` lanes read one phase, each a different row at the same column:
    the XOR spreads them over all vector slots of a bank line. For mma.sync
    that is Triton's choice (f16: vec 8, perPhase 128 B / row, maxPhase 8 /
    perPhase). On AMD, operands whose K dimension is not the contiguous one
    are read element-wise and stay unswizzled (as in Triton). The result type
    is updated in place, so every user sees the new layout.

    Left unchanged: shared tiles with any other user (a store, `scf.yield`,
    ...), ones whose consumers would want different swizzles, rows shorter
    than one vector (`maxPhase` comes out 1), and (with a warning) wgmma
    operands with rows over 128 bytes, which `#tile.shared` cannot put into
    wgmma's 128-byte swizzle atoms. Errors: a contiguous dimension that is not
    a power of two; a consumer whose parent is the other vendor's than
    `bank-model`. `python/tcc/analysis/bank_conflicts.py` counts the
    conflicts and implements the same formula (`choose_swizzle`); see
    docs/shared-memory-swizzle.md.

    Before:
    ```mlir
    #sh = #tile.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
    %s = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sh>
    %o = tile.convert_layout %s : tensor<128x32xf16, #sh> -> tensor<128x32xf16, #opA>
    ```
    After:
    ```mlir
    #sh = #tile.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
    %s = tile.convert_layout %a : tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #sh>
    %o = tile.convert_layout %s : tensor<128x32xf16, #sh> -> tensor<128x32xf16, #opA>
    ```
  }];
  let options = [
    Option<"bankModel", "bank-model", "std::string", /*default=*/"\"nvidia\"",
           "Target whose banks and operand reads decide the swizzle: nvidia "
           "(32 x 4-byte banks, ldmatrix) or amd (CDNA LDS, MFMA reads)">,
  ];
}

#endif // TCC_TRANSFORMS_PASSES_TD
