//===- Passes.td - tcc same-level rewrites -----------------*- tablegen -*-===//
//
// Rewrites that stay within a level: scheduling, shared-memory promotion,
// swizzling, MMA mapping, ... One pass per file in passes/lib/Transforms/.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_TRANSFORMS_PASSES_TD
#define TCC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TccSetTarget : Pass<"tcc-set-target", "::mlir::ModuleOp"> {
  let summary = "Record the GPU target on the module (tile.target)";
  let description = [{
    Sets the module attribute `tile.target` to the `#tile.target` of a known
    architecture (the table in KnownTargets.def: sm_80, sm_86, sm_89, sm_90,
    sm_90a, gfx90a, gfx942, gfx950). Later passes read the warp size, shared
    memory, bank model, tensor-core instructions, asynchronous copies and
    math lowering from it instead of taking options. A module that already
    carries a target of the same arch keeps it (a hand-written target may
    refine the table's facts, e.g. less shared memory); one of another arch
    is an error. The stage pipelines run this pass when given `target=`.

    Before:
    ```mlir
    module {
      func.func @add(...)
    }
    ```
    After (`tcc-set-target{arch=sm_90}`):
    ```mlir
    module attributes {tile.target = #tile.target<arch = "sm_90",
        vendor = nvidia, warp_size = 32, max_shared_bytes = 232448,
        banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true,
        math = libdevice>} {
      func.func @add(...)
    }
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"\"",
           "Target architecture: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, "
           "gfx942 or gfx950">,
  ];
  let dependentDialects = ["::mlir::tcc::tile::TileDialect"];
}

def TccFuseElementwise : Pass<"tcc-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into their consumers";
  let description = [{
    Producer/consumer fusion of `linalg.generic` ops on tensors (upstream's
    elementwise fusion patterns) so that a chain such as bias add + GELU, or
    a cast feeding a row sum, becomes one generic: one kernel, one pass over
    memory. Unlike `linalg-fuse-elementwise-ops` it does not move reshapes
    (`tensor.expand_shape` from `keepdims`) through the ops, which would turn
    a row reduction into a higher-rank one; reshapes stay at the program's
    edges, where they are free views. One reshape does move: a
    `tensor.expand_shape` into a last-dim `linalg.softmax` that keeps the
    last dim whole (rows regrouped, [B·H, S, S] viewed as [B, H, S, S])
    moves after it, so 4-D attention's chain stays 3-D and fuses
    (tcc::matchAttention). A producer is fused only into its only
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

def TccNormalizeMatmulOperands : Pass<"tcc-normalize-matmul-operands"> {
  let summary = "Read transposed matmul operands through an explicit transpose";
  let description = [{
    The GEMM schedules of convert-linalg-to-tile read A as (batch?, m, k)
    and B as (batch?, k, n), row-major. A contraction that reads an operand
    transposed (`x @ w.T`, nn.Linear's layout: B as (n, k); `q @ k^T`; TN's A
    as (k, m)), as `tcc-fuse-elementwise` makes it when it fuses the
    transpose into the contraction, gets a transpose of that operand (an
    elementwise generic: a kernel of its own, staged through shared memory)
    and the row-major map. The transpose costs one pass over the operand
    (for a 4096^3 GEMM about 5% of its time). Contractions the Hopper GEMM
    takes (tcc::fitsWgmma: a wgmma target, f16 / bf16 operands straight
    from the kernel's arguments) keep their maps: its TMA boxes and wgmma
    descriptors read either layout. So does a transposed B of f16 / bf16
    contractions on mma.sync targets (tcc::mmaReadsTransposedB): the
    mma.sync GEMM stages its K-contiguous slices in shared tiles of order
    [0, 1], which ldmatrix reads without `.trans` (their A, if transposed,
    is still transposed), and the K of an attention chain's Q Kᵀ on every
    target (tcc::isAttentionScores: the fused attention kernel reads K's
    slices column-major). A batched contraction whose operand is
    shared by the batch (`w @ x`, w [M, K], x [B, K, N]: A read through
    (m, k)) first gets that operand copied to every batch index (an
    elementwise generic, B copies of it), then is a batched GEMM; a body
    that is no multiply-accumulate is left alone.

    Before:
    ```mlir
    %y = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (n, k), (m, n, k) -> (m, n)], ...}
        ins(%x, %w : tensor<64x32xf16>, tensor<16x32xf16>) ...
    ```
    After:
    ```mlir
    %wt = linalg.generic {indexing_maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)], ...}
        ins(%w : tensor<16x32xf16>) -> tensor<32x16xf16>
    %y = linalg.generic {indexing_maps = [(m, n, k) -> (m, k), (m, n, k) -> (k, n), (m, n, k) -> (m, n)], ...}
        ins(%x, %wt : tensor<64x32xf16>, tensor<32x16xf16>) ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TccMaterializeBroadcasts : Pass<"tcc-materialize-broadcasts"> {
  let summary = "Broadcast the operands no reduction form reads into one it "
                "reads";
  let description = [{
    The reduction forms read each operand of a reduction and of its fused
    prologue in an order of their own: a row program
    (tcc/Analysis/RowSpace.h) whole, along the rows, along the columns, or
    gathered at in-order offsets (a scalar, an operand lacking a batch dim);
    a column reduction (tcc/Analysis/ColumnSpace.h) whole, once per output
    or along the columns; a full reduction (rank-0 result) is made one row
    by `tcc-split-reduction` when every input is read whole.
    `tcc-fuse-elementwise` fuses any broadcast or transpose into a
    reduction, so a prologue can read an operand otherwise: `(x + y).sum(0)`
    with x [3, 16, 5, 8] and y [16, 5, 1] (a column reduction; y lacks the
    reduced dim and a column dim), `(s - x).sum()` with s of shape [1],
    `(x + y.T).sum(-1)`. A reduction no form takes as it is gets each such
    operand broadcast by an elementwise generic (a pointwise kernel of its
    own, which gathers the operand) into a view the forms read: the
    reduction's output space when the operand does not vary along the
    reduced loops (a tensor no larger than the result), else the whole
    iteration space in the memory order of the first input read through
    every loop (with no such input, as an outer product's or a
    contraction's, nothing is made whole: that would multiply the bytes the
    kernel reads). Operands read through one dim are kept when the rest
    suffices. A reduction that no form takes even then is left as it is
    (convert-linalg-to-tile names it). A matmul's elementwise epilogue
    reads operands whole, by row or by column (shared by the batches): a
    scalar there becomes a column vector, anything else whole (but for
    the score ops of an attention chain, `tcc::matchAttention`, whose
    kernel reads their operands as they are: a padding mask [B, N] at its
    program's batch). Reductions
    that a form takes, matmuls and other elementwise ops (whose kernels
    gather broadcast operands themselves) are not touched. The pipeline
    runs it before `tcc-split-reduction` and after it (for the reductions
    the split makes).

    Before:
    ```mlir
    %r = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d1),
                                          (d0, d1, d2) -> (d1, d2)],
                         iterator_types = ["reduction", "parallel", "parallel"]}
        ins(%x, %y : tensor<3x16x8xf32>, tensor<16xf32>) outs(%init : tensor<16x8xf32>) {...}
    ```
    After (y once per output):
    ```mlir
    %b = linalg.generic {indexing_maps = [(d0, d1) -> (d0), (d0, d1) -> (d0, d1)], ...}
        ins(%y : tensor<16xf32>) outs(%e : tensor<16x8xf32>) {yield}
    %r = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d1, d2),
                                          (d0, d1, d2) -> (d1, d2)], ...}
        ins(%x, %b : tensor<3x16x8xf32>, tensor<16x8xf32>) outs(%init : tensor<16x8xf32>) {...}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TccSplitReduction : Pass<"tcc-split-reduction"> {
  let summary = "Split reductions with too few outputs into a partial and a "
                "final reduction";
  let description = [{
    A reduction with too few outputs to fill the GPU (a sum to a scalar, a
    column sum of a tall matrix such as 1M x 8, a row sum of a few very
    long rows) becomes two reductions, so that the work spreads over many
    programs with no atomics (the results are deterministic): a partial
    reduction of S chunks of the reduced dim into a small buffer with S at
    the reduced dim's place, then a final reduction over S with the
    combiner alone (the elementwise prologue stays in the partial; the
    original init is folded in once, by the final). `tcc-form-kernels` then
    makes two kernels of them, each a row program or a column reduction.

    First, reductions are put in the forms convert-linalg-to-tile builds.
    Reduced dims that are not one run (`x.sum((0, 2))` of [A, B, C]) are
    reduced in two steps: the innermost run into neutral partials over the
    other dims ([A, B, C] -> [A, B], a row reduction here), then the rest of
    the partials with the combiner alone into the original init ([A, B] ->
    [B], a column reduction). A reduction of several trailing dims whose
    inputs are read whole becomes a reduction of one last dim of its
    collapsed inputs (`x.sum((1, 2))` of [B, H, W]: [B, H * W] -> [B]; of
    every dim: a one-row reduction `[1, numel] -> [1]` of the flattened
    inputs, its rank-0 result a reshape of the `[1]` one); with an input
    that is not read whole (`(x * b).sum()`, b a row) its last dim is
    reduced first, then the rest.

    Split: a reduction of one loop, its init holding the parallel loops in
    loop order, whose value is not read back over the reduced space (a
    normalization's statistics stay in their row program), and that is no
    contraction (a matmul's K stays whole: the GEMM forms walk it). The unsplit
    kernel's programs are estimated as one per row (innermost dim reduced)
    or one per batch index and 512 bytes of columns (column reductions: a
    32-lane warp of 16-byte vectors); when that
    is at most a quarter of `target-programs`, the reduced extent R is split
    into S chunks, S the largest divisor of R up to
    `target-programs / programs` that leaves chunks of at least
    `min-row-chunk` elements (rows) or `min-column-chunk` rows (columns).
    No split when R has no such divisor of at least 4 (fewer chunks do not
    pay for the second launch).

    Arg reductions (`x.max(dim)` with its indices, `x.argmax()`:
    tcc/Analysis/ArgReduction.h) are made one-row (of every element: [1,
    numel] -> [1]) and split the same way: the partial reduction keeps the
    element's index in the original loop (s * chunk + k), the final one
    chooses among the S (value, index) partials with the body's own choice
    (NaN wins, the first index on ties), into the original fills.

    Before:
    ```mlir
    %s = linalg.generic {iterator_types = ["reduction", "parallel"]}
        ins(%x : tensor<1048576x8xf32>) outs(%fill : tensor<8xf32>) {addf}
    ```
    After (S = 1024):
    ```mlir
    %e = tensor.expand_shape %x [[0, 1], [2]] : tensor<1048576x8xf32> into tensor<1024x1024x8xf32>
    %p = linalg.generic {iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%e : tensor<1024x1024x8xf32>) outs(%zeros : tensor<1024x8xf32>) {addf}
    %s = linalg.generic {iterator_types = ["reduction", "parallel"]}
        ins(%p : tensor<1024x8xf32>) outs(%fill : tensor<8xf32>) {addf}
    ```
  }];
  let options = [
    Option<"targetPrograms", "target-programs", "int64_t", "1024",
           "programs a split reduction's partial kernel aims at (about a "
           "wave of 256-thread programs on a 132-SM GPU)">,
    Option<"minRowChunk", "min-row-chunk", "int64_t", "16384",
           "fewest elements of a row one partial program reduces">,
    Option<"minColumnChunk", "min-column-chunk", "int64_t", "256",
           "fewest rows a partial column-reduction program reduces">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TccFlattenAttentionScores : Pass<"tcc-flatten-attention-scores"> {
  let summary = "Run a multi-head attention's score ops and softmax on the "
                "flat [B·H, M, N] scores";
  let description = [{
    Attention over [B, H, S, D] heads is a batched Q Kᵀ over the flattened
    [B·H, M, N] scores, viewed back as [B, H, M, N] for the score ops and
    the softmax, and flattened again for P V. tcc-fuse-elementwise moves the
    view past them when every operand of the score op reads all batch dims
    or none (upstream's fold-reshape-by-collapsing); an operand that reads
    some of them, as a BERT padding mask [B, S] read at (b, n) across the
    heads or a per-head bias [H, S, S] (ALiBi) read at (h, m, n) do, stops
    it, and the chain would be three kernels with the scores stored.

    This pass runs such a score op (an all-parallel generic reading the
    expanded scores, followed by a last-dim softmax, possibly P's cast after
    an f32 softmax, and the collapse back to [B·H, M, N]) on the flat
    scores: every other operand keeps its tensor and is read at the flat
    batch index delinearized in its map ((b, h) = (i floordiv H, i mod H):
    a [B, S] mask at (i floordiv H, n), a [H, S, S] bias at
    (i mod H, m, n)), which the attention kernel slices at its program's
    batch. The rewrite is kept only where the result is an attention chain
    the target's attention kernel builds (`tcc::matchAttention`); anything
    else (no target, f32 operands, a dim the kernel refuses) is left as it
    was.

    Before (B = 2, H = 3; the mask [2, 80] read across the heads):
    ```mlir
    %e = tensor.expand_shape %scores [[0, 1], [2], [3]] output_shape [2, 3, 80, 80] : tensor<6x80x80xf32> into tensor<2x3x80x80xf32>
    %a = linalg.generic {indexing_maps = [(d0, d1, d2, d3) -> (d0, d1, d2, d3), (d0, d1, d2, d3) -> (d0, d3), (d0, d1, d2, d3) -> (d0, d1, d2, d3)], ...} ins(%e, %mask : tensor<2x3x80x80xf32>, tensor<2x80xf16>) outs(...) {addf}
    %p = linalg.softmax dimension(3) ins(%a : tensor<2x3x80x80xf32>) outs(...)
    %c = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x3x80x80xf32> into tensor<6x80x80xf32>
    ```
    After:
    ```mlir
    %a = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2), (d0, d1, d2) -> (d0 floordiv 3, d2), (d0, d1, d2) -> (d0, d1, d2)], ...} ins(%scores, %mask : tensor<6x80x80xf32>, tensor<2x80xf16>) outs(...) {addf}
    %c = linalg.softmax dimension(2) ins(%a : tensor<6x80x80xf32>) outs(...)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TccDecomposeSoftmax : Pass<"tcc-decompose-softmax"> {
  let summary = "Softmax as its reductions where kernel formation fuses "
                "more of them";
  let description = [{
    A bare `linalg.softmax` over the last dim is one kernel of its own (the
    softmax form: whole rows in registers, or the online softmax's two
    walks for long rows). Over another dim, or over the last when an
    elementwise op produces its input or reads its result (a scale, a
    mask, a bias: `(s * scale + mask).softmax(-1)`; a cast after it), it
    becomes its reductions and the quotient, computed in f32 for 16-bit
    floats, which kernel formation groups like any other reductions with
    the elementwise ops around them (one row program for the last dim, a
    column reduction for an outer one): a max over the dim, a sum of
    exp(x - max), then exp(x - max) / sum.

    The softmax of an attention chain (`tcc::matchAttention`: Q Kᵀ, the
    elementwise ops on the scores, the softmax, P V, on a target whose
    attention kernel builds it) stays whole: tcc-form-kernels makes the
    chain one kernel (form = attention), which computes the softmax online.

    Before:
    ```mlir
    %y = linalg.softmax dimension(0) ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
    ```
    After:
    ```mlir
    %m = linalg.generic {iterator_types = ["reduction", "parallel"]} ins(%x) outs(%neg_inf : tensor<32xf32>) {maximumf}
    %s = linalg.generic {iterator_types = ["reduction", "parallel"]} ins(%x, %m) outs(%zeros : tensor<32xf32>) {exp(x - m) + acc}
    %y = linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s) outs(%e) {exp(x - m) / s}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TccFormKernels : Pass<"tcc-form-kernels", "::mlir::ModuleOp"> {
  let summary = "Split each program into kernels and a host launch sequence";
  let description = [{
    Groups the linalg ops of each `func.func` (fused linalg on tensors) into
    kernels and outlines every group into a `func.func` marked `tcc.kernel`,
    named `<program>_k<i>`; the program becomes a host function (marked
    `tcc.host`) of `tcc.launch` steps in program order, with the reshapes
    between kernels (free views) and its results. `convert-linalg-to-tile`
    then builds one tile kernel per group.

    Groups, after Inductor's legality rules: a root (a reduction, a
    contraction, a softmax) starts a group; an all-parallel consumer of a
    root's only use, reading it over the root's output space with the
    identity map, joins the root's group as its epilogue (one per group);
    every other all-parallel op is a pointwise kernel of its own (its
    pointwise producers were fused into it by `tcc-fuse-elementwise`). On a
    target with wgmma, an all-parallel op reading the results of two
    contractions of one A (the same value, indexing maps and types, each
    result read once with the identity map: SwiGLU's `silu(x @ w1.T) *
    (x @ w3.T)`) joins both into one group, a dual GEMM that the Hopper GEMM
    builds with two accumulators (A read once, neither product stored).
    An attention chain (`tcc::matchAttention`: Q Kᵀ, the elementwise ops on
    the scores, a last-dim softmax, P V and its cast) is one group, matched
    before the rules above: the fused attention kernel never stores the
    scores.
    Fills and empty tensors that initialize a group's ops, and constants,
    are cloned into the kernel. A program that is a single group reading
    only its arguments is left as it is: it already is one kernel.

    Every result gets an output buffer a kernel writes: a result that is an
    argument (or a reshape of one), or a value returned a second time, is
    first copied by a pointwise kernel (an identity `linalg.generic`), so
    that `return %x` fills its output as `return %x + 0` would.

    Before:
    ```mlir
    func.func @f(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
      %s = linalg.generic {reduction} ins(%x) outs(%fill)      // row sum
      %e = tensor.expand_shape %s [[0, 1]] ...                   // keepdim
      %y = linalg.generic {parallel} ins(%x, %e) outs(%empty)    // x - mean
      return %y
    }
    ```
    After:
    ```mlir
    func.func private @f_k0(%x: tensor<64x512xf32>) -> tensor<64xf32> attributes {tcc.kernel} {...}
    func.func private @f_k1(%x: ..., %e: tensor<64x1xf32>) -> tensor<64x512xf32> attributes {tcc.kernel} {...}
    func.func @f(%x: tensor<64x512xf32>) -> tensor<64x512xf32> attributes {tcc.host} {
      %s = tcc.launch @f_k0(%x) : (tensor<64x512xf32>) -> tensor<64xf32>
      %e = tensor.expand_shape %s [[0, 1]] ...
      %y = tcc.launch @f_k1(%x, %e) : (...) -> tensor<64x512xf32>
      return %y
    }
    ```
    A kernel's dynamic sizes are read off its own arguments: an empty tensor
    it takes along is sized by the dim of one of its inputs that is the same
    product of program-argument dims (found through inits, reshapes and the
    kernels launched before), so the GEMM of `x.view(B * S, D) @ w.T` sizes
    its result by the rows of the view it reads, neither reading x nor
    computing `B * S`; a size no input has is computed in the kernel.

    Ops other than linalg ops, reshapes, constants, empty tensors,
    `tensor.dim` and index arithmetic (sizes: `affine.apply`, `arith.muli`)
    are refused with a diagnostic naming the op.
  }];
  let dependentDialects = ["::mlir::tcc::TccDialect",
                           "::mlir::func::FuncDialect"];
}

def TccBindShapeSymbols : Pass<"tcc-bind-shape-symbols", "::mlir::ModuleOp"> {
  let summary = "Name each dynamic size of a program by the argument size it equals";
  let description = [{
    Runs after `tcc-form-kernels` on programs with a dynamic (`?`) size. The
    host computes every grid, temporary buffer and result shape from the
    arguments' shapes, and checks that the sizes the program needs equal are
    equal; this pass says which those are. Dims are one size when the
    program requires it: a linalg op reads them over the same loop, a
    result's dim and its init's, a `tensor.empty` sized by a `tensor.dim`,
    the two sides of a reshape group whose other dims are 1, a `tcc.launch`'s
    operands and results as its kernel relates them. A dynamic dim required
    equal to a static one takes that size (the runtime checks it).

    A dim can also equal a product of others: a reshape group's collapsed
    dim is the product of its dims (`x.view(B * S, D)`), and a
    `tensor.empty` or `expand_shape` size may be any product of `tensor.dim`s
    and constants (`arith.muli`, `affine.apply`). A class no argument names
    that is a product of named ones is named after its factors (`B_S`); a
    named class with one factor unnamed names that factor by division. The
    program then carries `tcc.size_relations`, in order, each `[symbol or
    size, expression]` in the runtime's grid-expression grammar: a symbol
    not yet bound is defined by its expression (`["B_S", "B * S"]`), a bound
    one or a static size is checked against it (`["M", "B * S"]`,
    `["M", "s3 * 4"]`). Dynamic host views (`expand_shape` /
    `collapse_shape`) get their result's entry in `tcc.shape_symbols`.

    Writes `tcc.shape_symbols`, one entry per argument then per result, each
    the dims' static sizes (integers) or symbols (strings: the program's
    own names for its arguments' dims where its `tcc.arg_symbols` gives
    them, as tcc.frontend does for unbound sizes, else `s0`, `s1`, ...,
    numbered in order of first appearance among the program arguments'
    dims), on the program (the `tcc.host` function, or a program that is one
    kernel), on each kernel `func.func` (in the host's symbols) and, for its
    results, on each `tcc.launch`. `convert-linalg-to-tile` carries a
    kernel's entry onto its `tile.func`.

    ```mlir
    func.func @f(%x: tensor<?x512xf32>, %y: tensor<?x512xf32>) -> tensor<?x512xf32>
        attributes {tcc.shape_symbols = [["s0", 512], ["s0", 512], ["s0", 512]]}
    ```
    A dynamic size of a result, temporary or view that equals no product of
    argument sizes (`m - 1`), an op relating dynamic sizes in a way the pass
    does not know, and two different static sizes required equal are errors
    naming the op.
  }];
  let dependentDialects = ["::mlir::tcc::TccDialect",
                           "::mlir::func::FuncDialect"];
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

def TccAccelerateMatmul : Pass<"tcc-accelerate-matmul"> {
  let summary = "Put a matmul kernel's tile.dot on its plan's tensor-core "
                "instruction";
  let description = [{
    The matmul kernel form's builder (convert-linalg-to-tile) multiplies on
    a plain `#tile.blocked` accumulator: the FMA form of `tile.dot`. For
    each `tile.func` whose `tile.lowering_config` has `form = matmul` and
    an `mma` of mma.sync or MFMA (wgmma kernels are built on their layouts
    by their own builder), this pass gives that accumulator the
    instruction's layout on the plan's 2 x (num_warps / 2) warps
    (`#tile.nvidia_mma` version 2 with instrShape [16, 8] for
    mma_sync_m16n8k16; `#tile.amd_mfma` version 3 with [32, 32] or
    [16, 16] for mfma_32x32x8 / mfma_16x16x16), the operands the matching
    `#tile.dot_operand` (kWidth 2: a lane's k pairs for mma.sync; 4: its 4
    consecutive k for MFMA), and every other tile of the accumulator's
    layout the same one: the loop-carried accumulator, the epilogue's tiles
    and the bias rows sliced from it, the store. No data moves: the
    epilogue runs on the accumulator's registers.

    An attention plan (`form = attention`, mma_sync_m16n8k16) puts both of
    its tile.dots (Q Kᵀ and P V, one blocked accumulator layout) on
    `#tile.nvidia_mma` with its warps along M only (`warpsPerCTA = [W, 1]`):
    each warp owns whole score rows, so the softmax's row max and sum stay
    in a quad of lanes, and P's convert_layout to the second product's A
    operand is a permutation of registers.

    Before (128 x 128 on 4 warps):
    ```mlir
    #acc = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
    %d = tile.dot %a, %b, %c : tensor<128x32xf16, #tile.dot_operand<{opIdx = 0, parent = #acc, kWidth = 0}>>, ...
    ```
    After (plan mma = mma_sync_m16n8k16):
    ```mlir
    #mma = #tile.nvidia_mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    %d = tile.dot %a, %b, %c : tensor<128x32xf16, #tile.dot_operand<{opIdx = 0, parent = #mma, kWidth = 2}>>, ...
    ```
    A kernel without such a plan, or whose dot is already on an MMA
    layout, is left as it is; the FMA form (`form = fma_matmul`: no MMA
    fits the operands) keeps its blocked accumulator.
  }];
}

def TccCoalesce : Pass<"tcc-coalesce"> {
  let summary = "Give each blocked layout the widest aligned vector its "
                "global accesses allow";
  let description = [{
    Kernel builders (convert-linalg-to-tile) emit plain `#tile.blocked`
    layouts: one element per thread along the fastest dim, lanes and warps
    spread for that. For every blocked layout of a `tile.func` that a
    memref-form global access uses (`tile.memref_load`, `tile.memref_store`,
    `tile.async_copy`), this pass picks the run of consecutive elements each
    thread moves along the fastest dim (Triton's Coalesce): one 16-byte
    vector of the narrowest type accessed (8 x f16 whatever type the kernel
    computes in; an access of a wider type moves the run as several
    vectors), narrowed to what every access whose starts cannot all be
    aligned to its own vector is aligned to. An access is aligned to the
    largest power of two dividing the tile's extent along the run, every
    static stride of a dim the tile steps along, the memref's static offset
    and each constant offset times its stride; offsets known only at run
    time do not narrow it (the lowering tests them and takes the vector
    path when the whole access is aligned). The layout is then rebuilt for
    the run (`sizePerThread[fastest] = run`, lanes then warps along the dims
    in `order`, the given warps kept where they still fit), narrower while
    it would cover more of the layout's block (its largest tile) than the
    plain layout did: no replicas.
    Accesses that do not run along the layout's fastest dim in memory
    (stride != 1 there) do not constrain it. The new layout replaces the old
    everywhere in the kernel: its slices (bias rows), block arguments, the
    copies' `layout`, so no tile changes layout.

    Left as they are: layouts no such access uses, a `tile.dot`'s blocked
    accumulator (the FMA form's register tiling) and layouts of pointer-form
    accesses (`tile.load` / `tile.store` through `!tile.ptr` tiles: their
    runs come from the pointers' contiguity when lowered).

    Before (a [4, 1024] f32 block on 4 warps, rows of 1024):
    ```mlir
    #plain = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
    %x = tile.memref_load %X[%m0, %c0] : memref<64x1024xf32> -> tensor<4x1024xf32, #plain>
    ```
    After:
    ```mlir
    #blocked = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
    %x = tile.memref_load %X[%m0, %c0] : memref<64x1024xf32> -> tensor<4x1024xf32, #blocked>
    ```
  }];
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
    a power of two; a consumer whose parent is the other vendor's than the
    bank model (`banks`) of the module's `tile.target`; shared dot-operand
    tiles in a module without a target.
    `python/tcc/analysis/bank_conflicts.py` counts the conflicts and
    implements the same formula (`choose_swizzle`); see
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
}

def TccPromoteSharedMemory : Pass<"tcc-promote-shared-memory"> {
  let summary = "Pipeline shared-memory operand tiles through multi-slot "
                "buffers filled by asynchronous copies";
  let description = [{
    A tile that a loop loads from global memory and moves into shared memory
    only to be read back in register layouts (a GEMM's A and B slices:
    `tile.memref_load` -> `tile.convert_layout` to `#tile.shared` ->
    `tile.convert_layout` to `#tile.dot_operand`) is instead copied straight
    into a `num-stages`-slot `!tile.shared_buffer` with `tile.async_copy`
    (cp.async on NVIDIA: no registers, no wait for the data at the copy),
    `num-stages - 1` loop iterations ahead:

    - before the loop, iterations 0 .. S-2 are copied into slots 0 .. S-2,
      one `tile.async_commit_group` per iteration;
    - each iteration first waits until its own group has landed
      (`tile.async_wait {pending = S-2}`, which is also the barrier that
      ends every thread's reads of the previous iteration's slot), issues
      the copies of iteration i + S-1 into the slot iteration i-1 used
      (where the loads were), reads its slot with `tile.shared_load`, and
      commits the group at the end of the step, after the math (targets
      that copy through registers store the fetched data there, so the
      loads' latency overlaps the math);
    - after the loop, `tile.async_wait {pending = 0}` drains the copies.

    Copies past the loop's end read windows that the copy's bounds check
    zero-fills or that are never consumed, so the prologue and the steady
    state need no predication. Offsets may be any side-effect-free function
    of the induction variable and loop invariants; they are recomputed for
    the iteration being fetched. The shared layout (and its swizzle, chosen
    by `tcc-swizzle-shared-memory` beforehand) is kept. Loads with a mask,
    tiles with other users, values that depend on the loop's iter_args, and
    loops that store to memory (a store could change what an earlier copy
    already read) are left alone. The stage count S is the `num_stages` of
    the kernel's `tile.lowering_config` (on its tile.func) when it has one,
    else `num-stages`; S = 1 leaves the IR unchanged (the synchronous
    load / store / barrier form).

    Before:
    ```mlir
    scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (...) {
      %a = tile.memref_load %A[%m0, %k] : memref<...> -> tensor<128x32xf16, #blocked>
      %s = tile.convert_layout %a : ... -> tensor<128x32xf16, #shared>
      %o = tile.convert_layout %s : ... -> tensor<128x32xf16, #opA>
      ...
    }
    ```
    After (num-stages = 3):
    ```mlir
    %buf = tile.shared_alloc : !tile.shared_buffer<3x128x32xf16, #shared>
    tile.async_copy %A[%m0, %c0], %buf[%c0] layout #blocked : ...
    tile.async_commit_group
    tile.async_copy %A[%m0, %c32], %buf[%c1] layout #blocked : ...
    tile.async_commit_group
    scf.for %k = ... iter_args(%acc = %zero, %read = %c0, %write = %c2) {
      tile.async_wait {pending = 1 : i32}
      %k2 = arith.addi %k, %c64 : index
      tile.async_copy %A[%m0, %k2], %buf[%write] layout #blocked : ...
      %o = tile.shared_load %buf[%read] : ... -> tensor<128x32xf16, #opA>
      ...
      tile.async_commit_group
      scf.yield ...
    }
    tile.async_wait {pending = 0 : i32}
    ```
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", /*default=*/"3",
           "Slots per promoted tile of kernels whose lowering_config gives "
           "none: copies run num-stages - 1 iterations ahead (1: no "
           "promotion)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TCC_TRANSFORMS_PASSES_TD
