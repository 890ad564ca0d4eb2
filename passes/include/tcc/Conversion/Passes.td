//===- Passes.td - tcc lowerings ---------------------------*- tablegen -*-===//
//
// Lowerings between levels, named convert-<src>-to-<dst>; patterns live in
// passes/lib/Conversion/<Src>To<Dst>/, split by op family.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_CONVERSION_PASSES_TD
#define TCC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TCC_CONVERSION_PASSES_TD
