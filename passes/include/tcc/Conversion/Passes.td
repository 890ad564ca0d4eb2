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
    (sigmoid, relu, gelu, erf, casts, comparisons, select, integer abs/neg;
    one two-output generic for `reduce_argmax`/`reduce_argmin`);
    `tcc.reshape` becomes `tensor.collapse_shape`/`tensor.expand_shape`.
    Destination tensors are `tensor.empty` ops whose dynamic sizes come from
    `tensor.dim` of the operands (or the `sizes` of `tcc.broadcast` and
    `tcc.reshape`). Transcendental math on f16/bf16 (gelu, sigmoid, erf) is
    computed in f32 inside the body.

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
    kernel (a program `tcc-form-kernels` left whole, or one of the kernels it
    outlined; the `tcc.host` function of their launches is left alone) into
    a `tile.func` over memrefs (the function's inputs, then one
    memref per result), choosing the schedule: the block tile each program
    covers, and the blocked layout that spreads it over threads and warps
    (16-byte vectors along the contiguous dim where the row length allows,
    whole warps along it first). These kernel forms are recognized:

    * elementwise `linalg.generic` (all loops parallel) whose operands are
      identity or row/column-broadcast maps: one `[BM, BN]` block per program;
    * a row reduction (`[parallel, reduction]` generic into a `linalg.fill`
      init), with the elementwise ops before it fused into the loaded tiles
      and elementwise consumers of the reduced row as an epilogue: `BM` rows
      per program, a loop over `BN`-wide column chunks, then `tile.reduce`;
    * `linalg.softmax` over the last dim: whole rows per program (max,
      exp, sum, divide in registers, computed in f32 for f16/bf16);
    * a column reduction (a reduced dim that is not the innermost, as the
      reduced operand is laid out: `[B, R, N] -> [B, N]`, e.g. `x.sum(0)`,
      `x.mean(1)` of a rank-3 tensor) with the elementwise ops over its
      outputs: one program per batch index and `BN`-wide column block,
      lanes along the columns (16-byte vectors where the row length
      allows), warps down the rows, a loop over `BR`-row chunks (the last
      one masked) accumulating per-thread partials, then `tile.reduce`
      along the rows (shared memory across warps) and the epilogue.

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
    Option<"elementsPerProgram", "elements-per-program", "int64_t", "2048",
           "target tile size (elements) one program covers">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "widest global access per thread (bytes)">,
    Option<"maxSoftmaxColumns", "max-softmax-columns", "int64_t", "16384",
           "longest row a softmax program keeps in registers">,
    Option<"mfmaShape", "mfma-shape", "std::string", "\"auto\"",
           "AMD (warp-size 64) GEMM instruction: 32 (v_mfma_f32_32x32x8), 16 "
           "(v_mfma_f32_16x16x16) or auto (32 when each wave's share of the "
           "block is a multiple of 32 in both dims: half the instructions "
           "and conflict-free B reads; 16 otherwise)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tcc::tile::TileDialect"
  ];
}

//===----------------------------------------------------------------------===//
// TileToGPU
//===----------------------------------------------------------------------===//

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels to gpu.func code on per-thread vectors";
  let description = [{
    Turns every `tile.func` of the module into a `gpu.module @<name>_module`
    holding one `gpu.func @<name> kernel`, and the module gets
    `gpu.container_module`. Tiles (`tensor<SHAPE x T, #layout>` with a
    `#tile.blocked` layout or a `#tile.slice` of one) become, per thread, one
    `vector<N x T>` of the elements the thread owns in a fixed order (see
    docs/tile-to-gpu.md); upstream `arith`/`math` ops on tiles become the same
    ops on those vectors, `scf` control flow carries them as well.

    Memref-form accesses (`tile.memref_load`/`tile.memref_store`) move each
    thread's run of contiguous elements along the fastest dimension with one
    `vector.load`/`vector.store` (up to 16 bytes) when it is in bounds,
    unmasked and aligned, and element by element under `scf.if` otherwise.
    Pointer-form accesses go element by element through `llvm.load` /
    `llvm.store`. `tile.reduce` combines within a thread, across lanes with
    `gpu.shuffle xor` and across warps through workgroup memory.

    Before:

    ```mlir
    #b = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32],
                        warpsPerCTA = [4], order = [0]}>
    tile.func @copy(%x: memref<4096xf32>, %y: memref<4096xf32>)
        attributes {grid_rank = 1 : i32} {
      %pid = tile.program_id 0 : i32
      ...
      %v = tile.memref_load %x[%off] : memref<4096xf32> -> tensor<512xf32, #b>
      tile.memref_store %y[%off], %v : memref<4096xf32>, tensor<512xf32, #b>
      tile.return
    }
    ```

    After (abridged):

    ```mlir
    module attributes {gpu.container_module} {
      gpu.module @copy_module {
        gpu.func @copy(%x: memref<4096xf32>, %y: memref<4096xf32>) kernel
            attributes {known_block_size = array<i32: 128, 1, 1>,
                        tcc.num_warps = 4 : i32, tcc.threads = 128 : i32} {
          %tid = gpu.thread_id x
          ...
          %r0 = vector.load %x[%i0] {alignment = 16 : i64}
              : memref<4096xf32>, vector<4xf32>
          ...
          gpu.return
        }
      }
    }
    ```

    Memref arguments with a dynamic size, stride or offset become a bare
    `memref<1xT>` (a plain pointer under `use-bare-ptr-memref-call-conv`)
    followed by one `index` argument per dynamic size, stride and offset,
    in that order; the kernel rebuilds the view with
    `memref.reinterpret_cast`.
  }];
  let options = [
    Option<"warpSize", "warp-size", "unsigned", /*default=*/"32",
           "Threads per warp: 32 (NVIDIA) or 64 (AMD CDNA); every blocked "
           "layout must agree">,
    Option<"defaultNumWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per program for kernels whose tiles carry no layout that "
           "fixes it (scalar-only kernels)">,
    Option<"expandMath", "expand-math", "bool", /*default=*/"true",
           "Rewrite math functions into polynomial approximations and exact "
           "leaf ops, so that GPU lowerings need no libdevice / OCML calls">,
    Option<"asyncCopy", "async-copy", "bool", /*default=*/"true",
           "Lower tile.async_copy to cp.async (NVIDIA sm_80+: 16-byte copies "
           "that bypass registers); otherwise each copy is a load into "
           "registers and a shared store (AMD), and the waits are barriers">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"232448",
           "Workgroup memory one kernel may use (sm_90: 227 KiB, sm_80: 163 "
           "KiB, CDNA: 64 KiB); over 48 KiB the buffers are views of dynamic "
           "shared memory and the gpu.func records tcc.dynamic_shared_bytes">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::ROCDL::ROCDLDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TCC_CONVERSION_PASSES_TD
