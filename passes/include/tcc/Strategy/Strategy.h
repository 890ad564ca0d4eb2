//===- Strategy.h - shared by the strategy and the builders ----*- C++ -*-===//
//
// tcc-select-strategy (passes/lib/Strategy) chooses each kernel's
// #tile.lowering_config; convert-linalg-to-tile (passes/lib/Conversion/
// LinalgToTile) builds the kernel from it. Both classify a function's ops the
// same way and derive the same plain blocked layouts from a block and a warp
// count: those rules live here, once.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_STRATEGY_STRATEGY_H
#define TCC_STRATEGY_STRATEGY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"

namespace mlir::tcc {

/// The unit attribute marking a program's host function (launches and
/// buffers, no kernel of its own): the strategy leaves it alone.
constexpr llvm::StringLiteral kHostAttrName = "tcc.host";

/// Widest global access per thread (bytes), on every target.
constexpr unsigned kMaxVectorBytes = 16;

/// The most elements an elementwise kernel streams flat with its broadcast
/// operands gathered (view = flat_gather): the flat indices and the
/// gathers' offsets are i32.
constexpr int64_t kMaxFlatGatherElements = int64_t(1) << 30;

/// Bytes of one element of `type` (i1 counts as 1).
unsigned elementBytes(Type type);
/// An index computation of the host (a size: `affine.apply` or index
/// arithmetic over `tensor.dim`s, what a reshape's product of sizes
/// resolves to), or a size as a number (a mean's divisor over a dynamic
/// dim: `sitofp(index_cast(tensor.dim))`): scalar arithmetic whose operands
/// are sizes and constants. tcc-form-kernels has kernels read their sizes
/// off their own arguments, or clones one along; convert-linalg-to-tile
/// rebuilds such a scalar from the kernel's memrefs.
bool isSizeComputation(Operation *op);
/// The widest element (bytes) among `op`'s operands.
unsigned widestElementBytes(Operation *op);

/// Checks that `func` has tensor arguments and results of integers or
/// floats and returns something (the kernel's contract), with a diagnostic
/// otherwise. Dynamic sizes are checked per form (verifyDynamicLoops).
LogicalResult verifyKernelSignature(func::FuncOp func);

/// The size the heuristics plan a dynamic extent for: a kernel with
/// dynamic sizes is correct for every size, and planned for large ones.
constexpr int64_t kPlanningExtent = 16384;
/// `sizes` with each dynamic size replaced by `extent` (tcc-select-strategy's
/// dynamic-extent, kPlanningExtent by default).
SmallVector<int64_t> planningSizes(ArrayRef<int64_t> sizes,
                                   int64_t extent = kPlanningExtent);
/// The product of planningSizes(sizes, extent).
int64_t planningProduct(ArrayRef<int64_t> sizes,
                        int64_t extent = kPlanningExtent);
/// The loop sizes of kernel root `root` (a linalg op, or a softmax: its
/// input's dims), dynamic ones as ShapedType::kDynamic.
SmallVector<int64_t> rootLoopSizes(Operation *root);
/// Refuses, with a diagnostic naming the loop and the form, a plan of
/// `config`'s form for `root` whose dynamic loops that form's builder does
/// not take: elementwise (plain view, not permuted, at most two collapsed
/// groups) takes dynamic sizes in its rows group, row reductions, softmax
/// and row programs in their rows, mma.sync / MFMA / FMA matmuls (not
/// batched) in M. A dynamic loop also needs the root's `tcc.loop_sizes`
/// (tcc-bind-shape-symbols).
LogicalResult verifyDynamicLoops(Operation *root,
                                 tile::LoweringConfigAttr config);
/// The kernel ops of `func`'s body: its linalg ops (linalg.softmax
/// included) except fills (reduction inits). Fails, with a diagnostic, on
/// an op that may not sit between kernels.
FailureOr<SmallVector<Operation *>> collectKernelOps(func::FuncOp func);

/// The scalar constant a reduction's init is filled with (linalg.fill, or
/// a generalized fill: a generic with no inputs yielding a constant).
FailureOr<Value> getFillValue(Value init);
/// The diagnostic for a function whose kernel ops `ops` are no one kernel
/// (not split by tcc-form-kernels): names the count and notes each op.
LogicalResult emitNotOneKernel(func::FuncOp func, ArrayRef<Operation *> ops);
bool isAllParallel(linalg::GenericOp op);
/// A [parallel, reduction] generic.
bool isRowReduction(linalg::GenericOp op);
/// A matmul generic (A (m, k), B (k, n), C (m, n)), or a batched one
/// (A (b, m, k), B (b, k, n), C (b, m, n)).
bool isMatmulOp(linalg::GenericOp op);
/// Which operands a (batch?, m, n, k) contraction reads transposed: A as
/// (b?, k, m), B as (b?, n, k); nullopt when `op` is no such contraction
/// (C must be (b?, m, n)). isMatmulOp is {false, false}.
std::optional<std::pair<bool, bool>> matmulTransposes(linalg::GenericOp op);
/// f16 or bf16 operands of one type: what the tensor-core kinds take.
bool hasTensorCoreTypes(linalg::GenericOp op);
/// Whether the mma.sync GEMM reads contraction `op`'s B as it is stored,
/// [N, K] (x @ w.T, q @ k^T): a target with mma.sync m16n8k16, f16 / bf16
/// operands, B transposed with rows (K) a static multiple of 16 bytes (whole
/// cp.async vectors). The kernel stages B's K-contiguous slices in
/// shared tiles of order [0, 1] and ldmatrix reads them without .trans, so
/// tcc-normalize-matmul-operands leaves such a B alone (no transpose
/// kernel); a transposed A it still transposes.
bool mmaReadsTransposedB(linalg::GenericOp op, tile::TargetAttr target);
/// Whether the Hopper GEMM (wgmma fed by TMA) takes contraction `op` on
/// `target`: a target with wgmma, f16 / bf16 operands (read as they are in
/// memory; A and B may be transposed), static shapes (M may be dynamic) and
/// operand rows TMA reads (a multiple of 16 bytes) or cp.async copies (a
/// multiple of 4 bytes, 8 along K: A [M, K], B [N, K]).
bool fitsWgmma(linalg::GenericOp op, tile::TargetAttr target);
/// Whether TMA can read Hopper GEMM operand `operand`: its rows (last dim)
/// are a multiple of 16 bytes, a tensor map's stride rule. The producer
/// copies other operands with cp.async (tile.box_copy).
bool wgmmaReadsThroughTma(Value operand);
/// Whether the Hopper GEMM's producer copies an operand of contraction `op`
/// whose contiguous dim is K (A [M, K] or B [N, K] with rows TMA cannot
/// read): its boxes run along M or N, many per k step, and the producer
/// needs more registers (WgmmaMatmulKernel.cpp) and at most 128 x 128
/// blocks (Forms/Matmul.cpp).
bool wgmmaCopiesAlongK(linalg::GenericOp op);
/// The tensor maps a Hopper GEMM kernel takes (trailing parameters): one
/// per operand TMA reads (A, B, a dual GEMM's second B), then its result's
/// when it stores it with TMA.
unsigned wgmmaTensorMapCount(linalg::GenericOp op, linalg::GenericOp second,
                             func::FuncOp func);
/// Whether contractions `first` and `second` can share one Hopper GEMM
/// kernel (a dual GEMM, SwiGLU's x @ w1.T and x @ w3.T): both fitsWgmma
/// with every operand read by TMA (wgmmaReadsThroughTma), the same A value, the same indexing maps, operand and result types, each
/// result used once.
bool canShareDualGemm(linalg::GenericOp first, linalg::GenericOp second,
                      tile::TargetAttr target);
/// Whether kernel ops `ops` are a dual GEMM: two contractions that
/// canShareDualGemm and an all-parallel epilogue reading both results with
/// the identity map over their output space (silu(a) * b).
bool isDualGemm(ArrayRef<Operation *> ops, tile::TargetAttr target);
/// Whether a Hopper GEMM kernel `func` (one contraction and its epilogue)
/// stores its result through shared memory with TMA: one result, returned as
/// the contraction or its epilogue makes it (not reshaped), 16-bit
/// elements, 2-D or batched 3-D, rows a multiple of 16 bytes.
bool wgmmaStoresThroughTma(func::FuncOp func);
/// Columns of the Hopper GEMM's output staging block: up to 128 (a 128 x 256
/// block leaves in two rounds, so 4 operand stages still fit).
inline int64_t wgmmaStagingColumns(int64_t blockN) {
  return blockN < 128 ? blockN : 128;
}
/// Multiprocessors of the sm_90 parts the Hopper GEMM's persistent grid is
/// sized for (H100 SXM, H200: 132). The grid strides by its program count,
/// so any part runs it correctly; this one it fills.
inline constexpr int64_t kHopperSMs = 132;
/// Fused attention (form = attention): softmax((Q Kᵀ) ∘ f) V as one kernel,
/// FlashAttention-2's schedule (AttentionKernel.cpp). The ops, in program
/// order: the scores contraction Q Kᵀ (batched, A [B, M, D], B read as
/// stored [B, N, D]), the elementwise ops on the scores (a scale, an
/// additive bias, a mask written with select), the softmax over the last
/// dim, the contraction P V (V [B, N, Dv]) and its elementwise epilogue (a
/// cast).
///
/// Q, K, V and the result may be views (AttentionView): q, k, v stored
/// [B, S, H, D] and read with `.transpose(1, 2)` (its batch dims flattened
/// by the batched matmul), the result transposed back; the kernel then reads
/// and writes the stored tensors through strided views, with no copies.
struct AttentionView {
  /// The tensor the kernel reads (or, for the result, returns).
  Value source;
  /// View dim i is source dim perm[i]: the view is [batch..., rows, cols]
  /// (Q [.., M, D], K [.., N, D], V [.., N, Dv], the result [.., M, Dv]),
  /// its batch dims (all but the last two) flattened into the chain's one.
  SmallVector<int64_t> perm;
  /// The ops between source and the chain (a permutation generic and the
  /// reshape of its batch dims), in program order; none: read as it is.
  SmallVector<Operation *> ops;
  /// The view's shape, [batch..., rows, cols].
  SmallVector<int64_t> shape() const;
};
struct AttentionOps {
  linalg::GenericOp scores;
  SmallVector<linalg::GenericOp> scoreOps;
  linalg::SoftmaxOp softmax;
  /// A softmax in f32: P's cast to the operands' type (null otherwise).
  linalg::GenericOp pCast;
  linalg::GenericOp output;
  linalg::GenericOp epilogue; // may be null
  AttentionView q, k, v, result;
  /// Every op, views included, in program order.
  SmallVector<Operation *> ops() const;
  /// The kernel ops (collectKernelOps' of the chain's kernel: all but the
  /// views' reshapes), in order.
  SmallVector<Operation *> linalgOps() const;
};
/// The attention chain around last-dim softmax `softmax`, when `target`'s
/// attention kernel builds it: a target with mma.sync (m16n8k16) or MFMA;
/// Q, K, V and P
/// of one 16-bit float type, static shapes, head dims D and Dv multiples of
/// 16 up to 128; both contractions out + a * b from a zero fill into f32;
/// the score ops all-parallel generics over the [B, M, N] scores (each
/// result used once, by the next), their other operands [B, M, N], shared
/// by every batch ((m, n), (m) or (n)), or indexed by the batch alone in
/// some dims and by m, n in order in the others (a padding mask [B', N] of
/// B = B'·H heads read at (b floordiv H, n), a per-head bias [H, M, N] at
/// (b mod H, m, n): tcc-flatten-attention-scores); each value of the
/// chain used once, by the next op; the epilogue, when there is one, reads
/// only P V. tcc-decompose-softmax leaves such a softmax whole and
/// tcc-form-kernels makes the chain one kernel.
std::optional<AttentionOps> matchAttention(linalg::SoftmaxOp softmax,
                                           tile::TargetAttr target);
/// Whether contraction `op` is the Q Kᵀ of an attention chain
/// (matchAttention): the attention kernel reads its K as stored, so
/// tcc-normalize-matmul-operands leaves it alone.
bool isAttentionScores(linalg::GenericOp op, tile::TargetAttr target);
/// Whether kernel ops `ops` are exactly one attention chain (matchAttention).
std::optional<AttentionOps> matchAttentionKernel(ArrayRef<Operation *> ops,
                                                 tile::TargetAttr target);
/// Whether score-op body `op` is one the attention kernel clones onto its
/// f32 scores (arith and math ops on floats, compares, selects, casts,
/// constants, and the positions `linalg.index` gives: a mask such as the
/// causal one, `where(iota(S)[:, None] >= iota(S)[None, :], s, -inf)`).
bool isAttentionScoreBodyOp(Operation *op);
/// Checks that a matmul's body is out + a * b (operands possibly cast) and
/// its init a constant float fill; returns the fill.
FailureOr<double> verifyGemmBody(linalg::GenericOp op);
/// Whether contraction `op` is out + a * b (operands possibly cast) from a
/// fill of zero: linear in each operand, so a constant scale of one moves to
/// its result. No diagnostics.
bool isZeroInitMultiplyAdd(linalg::GenericOp op);
/// Per-thread FMA GEMMs take f16, bf16 or f32 operands and results.
bool isFmaElementType(Type type);

/// Where a permutation `map` (iteration dims -> operand dims) sends the
/// operand's contiguous (last) dim among the iteration dims, when that is
/// not the last iteration dim (a transpose), else nullopt.
std::optional<unsigned> transposedDim(AffineMap map);
/// Whether `op` is an elementwise op reading an operand with its last two
/// dims swapped (a transpose, 2-D or batched), others straight.
bool isTransposeKernel(linalg::GenericOp op);
/// Whether `ops` are a column reduction (tcc/Analysis/ColumnSpace.h) and
/// the elementwise ops over its outputs (tcc-form-kernels' Columns form).
bool isColumnReductionKernel(ArrayRef<Operation *> ops);
/// Whether `ops` form a row program (tcc-form-kernels' Rows form): row
/// reductions of one row space and the elementwise ops over its rows and
/// columns (tcc/Analysis/RowSpace.h).
bool isRowProgram(ArrayRef<Operation *> ops);
/// The op of a row program whose row space the program walks: its last row
/// reduction (the first op with columns when it has none). Its root.
Operation *rowProgramRoot(ArrayRef<Operation *> ops);

/// Groups of adjacent iteration dims that every operand of the elementwise
/// `op` reads together (both or neither, in order), so an N-d elementwise
/// op runs on the flattest view: [B, S, D] + a bias over D is [B*S, D] + a
/// column vector.
SmallVector<ReassociationIndices> collapsibleDims(linalg::GenericOp op);
/// A projected permutation whose results are in increasing dim order.
bool isInOrderProjection(AffineMap map);
/// Whether `map` permutes the dims of a rank >= 3 space keeping the last one
/// last (a transpose of middle dims, as attention's q.transpose(1, 2)).
bool permutesKeepingLast(AffineMap map);
/// Whether the elementwise `op` runs as a permuted kernel (an operand read
/// through permutesKeepingLast, the others straight).
bool isPermutedElementwise(linalg::GenericOp op);

/// A 2-D block one program covers and how its elements spread over the
/// program's threads: each thread holds `vec` contiguous elements of a row
/// (of `sptM` contiguous rows), lanes run along the row first (coalescing),
/// then warps.
struct BlockSchedule {
  int64_t blockM = 1, blockN = 1;
  unsigned vec = 1, tpwM = 1, tpwN = 1, wpcM = 1, wpcN = 1;
  unsigned sptM = 1; // > 1 only for the FMA GEMM's accumulator
  /// The FMA GEMM's accumulator (fmaAccumulatorSchedule): its layout is the
  /// dot's register tiling, not an access pattern.
  bool accumulator = false;
  unsigned numWarps() const { return wpcM * wpcN; }
  /// Rows the layout covers once (the block must be a multiple).
  int64_t coverM() const { return int64_t(sptM) * tpwM * wpcM; }
  /// The layout a builder gives the block's tiles: plain (one element per
  /// thread along the row, lanes and warps distributed for that), whose
  /// vector width tcc-coalesce then picks from the accesses (`vec` is what
  /// the strategy expects it to find, and what builders align starts to);
  /// the accumulator's as scheduled.
  tile::BlockedEncodingAttr layout(MLIRContext *ctx) const;
};

/// The schedule of a [blockM, blockN] block of an iteration space with rows
/// of `n` elements (the widest `elementBytes` wide) on `numWarps` warps of
/// `warpSize` lanes, as the strategy plans it: the widest vector (up to 16
/// bytes) that keeps every row start aligned, lanes along the row first,
/// the rest of the warp down rows, then warps along the row and down. (The
/// tiles are built on its plain layout(); tcc-coalesce sets the vector.)
BlockSchedule blockedSchedule(int64_t blockM, int64_t blockN, int64_t n,
                              unsigned elementBytes, unsigned numWarps,
                              unsigned warpSize);

/// The FMA GEMM accumulator's layout on `warps` warps: sizePerThread
/// [4, 4], lanes [warpSize / 8, 8], warps as square as possible; blockM and
/// blockN are one coverage of it.
BlockSchedule fmaAccumulatorSchedule(unsigned warps, unsigned warpSize);

/// The accumulator layout of tensor-core instruction `kind` (mma.sync or
/// MFMA; not wgmma, whose kernels WgmmaMatmulKernel.cpp builds) on a 2 x
/// (warps / 2) grid of warps, and the instruction's [M, N] tile: what
/// tcc-accelerate-matmul gives a matmul plan's tile.dot, and what the
/// matmul builder checks the plan's block against.
std::pair<Attribute, std::pair<int64_t, int64_t>>
mmaAccumulatorLayout(MLIRContext *ctx, tile::MmaKind kind, unsigned warps);

/// The accumulator layout of `kind` (mma.sync m16n8k16 or MFMA) with `warps`
/// warps along M only (warpsPerCTA [W, 1]): each warp owns whole rows of
/// the block, so a row reduction stays in its lanes (a quad for mma.sync)
/// and an mma.sync f16 accumulator is the next product's A operand in
/// registers. What tcc-accelerate-matmul gives the attention kernel's two
/// tile.dots.
Attribute mmaRowsAccumulatorLayout(MLIRContext *ctx, unsigned warps,
                                   tile::MmaKind kind =
                                       tile::MmaKind::mma_sync_m16n8k16);

/// Shared memory a staged softmax walk (walk = staged) of schedule `s`
/// over rows of `n` elements of `elementBytes` keeps: one [BM, BN] slot per
/// chunk of the walk, which starts up to vec - 1 columns before a one-row
/// block's row when rows are not a multiple of the widest vector.
int64_t stagedRowBytes(const BlockSchedule &s, int64_t n,
                       unsigned elementBytes);

} // namespace mlir::tcc

#endif // TCC_STRATEGY_STRATEGY_H
