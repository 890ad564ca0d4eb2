//===- Passes.td - tcc strategy selection ------------------*- tablegen -*-===//
//
// Passes that decide a kernel's plan and record it as IR
// (#tile.lowering_config); passes/lib/Strategy/.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_STRATEGY_PASSES_TD
#define TCC_STRATEGY_PASSES_TD

include "mlir/Pass/PassBase.td"

def TccSelectStrategy : Pass<"tcc-select-strategy", "::mlir::ModuleOp"> {
  let summary = "Choose each kernel's plan and record it as "
                "#tile.lowering_config on its root op";
  let description = [{
    For every kernel function (a `func.func` on static-shaped tensors whose
    body is one fused kernel: a program left whole, or each `tcc.kernel`
    function tcc-form-kernels outlined; functions marked `tcc.host` are
    skipped), reads the module's `tile.target` and asks the kernel forms in
    order (passes/lib/Strategy/Forms/: softmax, transpose, elementwise,
    column reduction, tensor-core matmul, FMA matmul, row reduction with an
    elementwise epilogue, row program) which one builds it; the first that
    matches picks the plan with its heuristics and the pass writes it on the
    kernel's root op as `tile.lowering_config` (the root: the op itself for
    the one-op forms; the reduction or matmul followed by its epilogue; a
    row program's last row reduction):

    - elementwise / row_reduction: `block = [BM, BN]` of the (collapsed
      2-D) iteration space: BN the row rounded up to a power of two, capped
      at two rounds of 16-byte vectors across the program's lanes; BM from
      `elements-per-program`, at least the rows the layout covers;
      `num_warps` from `num-warps`;
    - elementwise on more than two dim groups (a batch of broadcasting
      blocks) or with operands permuted keeping the last dim: the same
      `[BM, BN]` rule on the last two groups (dims); a flat stream (one row)
      takes up to `elements-per-program` along it;
    - softmax: whole rows (BN = the row rounded up, at most
      `max-softmax-columns`), about 16 elements per thread; longer rows:
      `walk = looped`, planned as a row program;
    - transpose: `block = [64, 64]`, 4 warps;
    - column_reduction: `BN` columns of 16-byte vectors (at most one warp's
      lanes), warps (up to 8) down the rows where each gets a few rows,
      `BM` rows per chunk (about 64 bytes in flight per thread);
    - row_program: whole rows in registers while the row (rounded up) is at
      most `max-softmax-columns` (`walk = persistent`), else `walk = looped`
      over chunks of 16 elements per thread of up to 8 warps;
    - matmul (f16/bf16 on a target with tensor cores): `block = [BM, BN,
      32]`, 128 x 128 (64 where the problem is smaller; 128 x 256 with 8
      warps), `num_stages` from `num-stages`, `mma` the target's
      instruction (AMD: 32x32x8 when each wave's share is a multiple of 32,
      or as `mfma-shape` says);
    - fma_matmul (no tensor-core instruction fits): a 4 x 4 patch per
      thread, `block = [BM, BN, 8]`, with a remark saying so.

    A root op that already carries a config keeps it: writing the config by
    hand overrides the plan of one kernel. convert-linalg-to-tile then
    builds each kernel from its config alone. A function no form matches is
    an error naming its kernel ops.

    Before:
    ```mlir
    func.func @add(%x: tensor<1000x777xf32>, %y: tensor<1000x777xf32>)
        -> tensor<1000x777xf32> {
      %r = linalg.generic {iterator_types = ["parallel", "parallel"], ...}
          ins(%x, %y : ...) outs(%e : ...) { ... }
      return %r : tensor<1000x777xf32>
    }
    ```
    After:
    ```mlir
      %r = linalg.generic {iterator_types = ["parallel", "parallel"],
          tile.lowering_config = #tile.lowering_config<form = elementwise,
              block = [2, 1024], num_warps = 4>, ...} ...
    ```
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per program (elementwise, row-reduction and GEMM kernels; "
           "softmax sizes its own)">,
    Option<"elementsPerProgram", "elements-per-program", "int64_t", "2048",
           "Target block size (elements) of elementwise and row-reduction "
           "programs">,
    Option<"numStages", "num-stages", "int64_t", "3",
           "Slots of each pipelined shared-memory operand buffer of a GEMM "
           "(1: synchronous staging)">,
    Option<"mfmaShape", "mfma-shape", "std::string", "\"auto\"",
           "AMD (MFMA target) GEMM instruction: 32 (v_mfma_f32_32x32x8), 16 "
           "(v_mfma_f32_16x16x16) or auto (32 when each wave's share of the "
           "block is a multiple of 32 in both dims: half the instructions "
           "and conflict-free B reads; 16 otherwise)">,
    Option<"plans", "plans", "std::string", "\"\"",
           "plans chosen elsewhere (an autotuner, tcc.compile(plans=...)): "
           "`KERNEL=#tile.lowering_config<...>` entries separated by `;`, "
           "KERNEL a kernel function's name; each replaces the heuristics' "
           "(and a written) plan of that kernel, on the root op of the form "
           "it names">,
    Option<"dynamicExtent", "dynamic-extent", "int64_t", "16384",
           "The size the heuristics plan a dynamic (run-time) extent for: "
           "the kernel is correct for every size, and planned for this one "
           "(a shape class's bound: tcc.jit plans its small class for 256)">,
    Option<"maxSoftmaxColumns", "max-softmax-columns", "int64_t", "16384",
           "Longest row a softmax or row program keeps in registers (longer "
           "rows are walked in chunks)">,
  ];
  let dependentDialects = ["::mlir::tcc::tile::TileDialect"];
}

#endif // TCC_STRATEGY_PASSES_TD
