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
  let summary = "Build each fused linalg kernel as a tile-dialect program "
                "from its lowering_config";
  let description = [{
    Turns each `func.func` on static-shaped tensors whose body is one fused
    kernel (a program `tcc-form-kernels` left whole, or one of the kernels it
    outlined; the `tcc.host` function of their launches is left alone) into
    a `tile.func` over memrefs (the function's inputs, then one memref per
    result). The plan is the `tile.lowering_config` on the kernel's root op
    (tcc-select-strategy's, or written by hand; see #tile.lowering_config):
    its `form` picks the builder, which builds the kernel on plain blocked
    layouts (16-byte vectors along the contiguous dim where the row length
    allows, whole warps along it first) for the config's `block`,
    `num_warps`, `walk` and `mma`:

    * elementwise: an all-parallel `linalg.generic` whose operands are
      identity or row/column-broadcast maps: one `[BM, BN]` block per
      program;
    * row_reduction: a `[parallel, reduction]` generic into a `linalg.fill`
      init, with the elementwise ops before it fused into the loaded tiles
      and elementwise consumers of the reduced row as an epilogue: `BM` rows
      per program, a loop over `BN`-wide column chunks, then `tile.reduce`;
    * softmax: `linalg.softmax` over the last dim: whole rows per program
      (max, exp, sum, divide in registers, computed in f32 for f16/bf16);
      rows too long for registers (`walk = looped`): the online softmax,
      one walk of `BN`-wide chunks for a running max and rescaled sum, one
      for the quotients;
    * matmul / fma_matmul: a (batched) matmul with an elementwise epilogue,
      `[BM, BN]` of C per program, K in `BK` steps staged through shared
      memory, `tile.dot` on the config's MMA layout (mma.sync, MFMA) or on
      blocked layouts (per-thread FMAs);
    * transpose: an elementwise op reading an operand with its last two
      dims swapped: `[T, T]` tiles staged through shared memory;
    * column_reduction: a reduced dim that is not the innermost, as the
      reduced operand is laid out (`[B, R, N] -> [B, N]`, e.g. `x.sum(0)`,
      `x.mean(1)` of a rank-3 tensor), with the elementwise ops over its
      outputs: one program per batch index and `BN`-wide column block,
      lanes along the columns, warps down the rows, a loop over `BM`-row
      chunks (the last one masked) accumulating per-thread partials, then
      `tile.reduce` along the rows and the epilogue;
    * row_program: row reductions of one row space and the elementwise ops
      around them: `BM` whole rows per program, persistent in registers or
      walked in `BN`-wide chunks (`walk = looped`).

    Rank-1 programs run as one row; higher ranks collapse their leading dims
    when every map is the identity. The kernel carries its launch contract as
    attributes: `tcc.grid` (programs per grid axis), `tcc.num_warps`,
    `tcc.num_inputs`, and keeps its plan as `tile.lowering_config`. A config
    that does not fit its op (a block smaller than its layout, an MMA the
    target lacks, ...) or anything else unsupported is a diagnostic naming
    the op. The module's `tile.target` (see `tcc-set-target`) gives the warp
    size; a module without it is an error. Functions marked `tcc.host` are
    left alone.

    Before (after `tcc-select-strategy`):
    ```mlir
    func.func @add(%x: tensor<1000x777xf32>, %y: tensor<1000x777xf32>) -> tensor<1000x777xf32> {
      %r = linalg.generic {..., tile.lowering_config = #tile.lowering_config<
          form = elementwise, block = [2, 1024], num_warps = 4>} ...
    ```
    After:
    ```mlir
    tile.func @add(%x: memref<1000x777xf32>, %y: memref<1000x777xf32>,
                   %out: memref<1000x777xf32>)
        attributes {grid_rank = 1 : i32, tcc.grid = array<i64: 500, 1, 1>,
                    tile.lowering_config = ..., ...} {
      %pid = tile.program_id 0 : i32
      ...
      %a = tile.memref_load %x[%m0, %n0] : memref<1000x777xf32> -> tensor<2x1024xf32, #blocked>
      ...
      tile.memref_store %out[%m0, %n0], %s : memref<1000x777xf32>, tensor<2x1024xf32, #blocked>
      tile.return
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
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

    The module's `tile.target` (see `tcc-set-target`) decides: the warp size
    every layout must agree with (`warp_size`), cp.async for
    `tile.async_copy` (`async_copy`; otherwise each copy is a load into
    registers and a shared store, and the waits are barriers), whether math
    functions are expanded into polynomial approximations and exact leaf ops
    (`math = expanded`) or left to libdevice (`math = libdevice`), and the
    workgroup memory one kernel may use (`max_shared_bytes`; over 48 KiB the
    buffers are views of dynamic shared memory and the gpu.func records
    `tcc.dynamic_shared_bytes`). A module with kernels but no target is an
    error.
  }];
  let options = [
    Option<"defaultNumWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per program for kernels whose tiles carry no layout that "
           "fixes it (scalar-only kernels)">,
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

//===----------------------------------------------------------------------===//
// ApproxMathToNVVM
//===----------------------------------------------------------------------===//

def ConvertApproxMathToNVVM : Pass<"convert-approx-math-to-nvvm"> {
  let summary = "lower approximate (fastmath<afn>) f32 exp2 to "
                "ex2.approx.ftz.f32";
  let description = [{
    The NVIDIA back half's first step (before `convert-gpu-to-nvvm`): each
    `math.exp2` on f32 (a scalar or a 1-D vector) whose fastmath flags
    include `afn` becomes the `llvm.nvvm.ex2.approx.ftz.f` intrinsic per
    element, which ptxas assembles to one MUFU.EX2. Without the flag
    `convert-gpu-to-nvvm` calls libdevice's `__nv_exp2f`, whose
    `ex2.approx.f32` keeps subnormal results at the price of four more
    instructions around each MUFU operation (a compare, two multiplies and
    a select). The kernel builders set `afn` on the exps whose results are
    summed or rounded to f16/bf16 (the softmax forms): a result below 2^-126
    flushed to zero moves a sum with a term of 1 by nothing, an f16 output
    by nothing (its least subnormal is 2^-24) and a bf16 output by less
    than 2^-126 (only its subnormals are lost).

    Before:
    ```mlir
    %e = math.exp2 %x fastmath<afn> : vector<2xf32>
    ```
    After:
    ```mlir
    %0 = vector.extract %x[0] : f32 from vector<2xf32>
    %1 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%0) : (f32) -> f32
    %2 = vector.extract %x[1] : f32 from vector<2xf32>
    %3 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%2) : (f32) -> f32
    %e = vector.from_elements %1, %3 : vector<2xf32>
    ```
    Other element types, n-D vectors and exps without `afn` are left to
    `convert-gpu-to-nvvm`. AMD targets expand math in convert-tile-to-gpu
    (`#tile.target` `math = expanded`) and do not run this pass.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TCC_CONVERSION_PASSES_TD
