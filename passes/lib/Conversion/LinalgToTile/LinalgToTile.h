//===- LinalgToTile.h - linalg kernels to tile programs ---------*- C++ -*-===//
//
// Private to passes/lib/Conversion/LinalgToTile: the schedule (block tile and
// blocked layout of one program), the kernel-building helpers, and the
// kernel forms (ElementwiseKernel.cpp, ReductionKernels.cpp, MatmulKernel.cpp,
// FmaMatmulKernel.cpp, RowProgramKernel.cpp, ColumnReductionKernel.cpp,
// TransposeKernel.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_LINALGTOTILE_LINALGTOTILE_H
#define TCC_CONVERSION_LINALGTOTILE_LINALGTOTILE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "tcc/Analysis/ArgReduction.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"

namespace mlir::tcc {

struct OutputMap;

/// A kernel's number of programs along x: `programs` when every size it
/// depends on is static, else `expr`, an expression of the program's size
/// symbols in the runtime's grid grammar (`cdiv(s0, 4) * 3`), which the
/// host evaluates per launch.
struct GridSize {
  int64_t programs = 0;
  std::string expr;
  GridSize &operator=(int64_t count) {
    programs = count;
    expr.clear();
    return *this;
  }
  bool isDynamic() const { return !expr.empty(); }
};

/// The product of loop sizes `dims` of kernel root `root`: a static factor
/// and the symbols of its dynamic sizes (the root's `tcc.loop_sizes`).
struct Extent {
  int64_t factor = 1;
  SmallVector<std::string> symbols;
  bool isStatic() const { return symbols.empty(); }
};
Extent loopExtent(Operation *root, ArrayRef<int64_t> dims);
/// cdiv(extent, block) * times programs.
GridSize blocksOf(const Extent &extent, int64_t block, int64_t times = 1);
/// a x b programs (static, or an expression of their symbols).
GridSize gridProduct(const GridSize &a, const GridSize &b);

/// What the kernel builders build for besides the kernel's config: the
/// module's target.
struct BuildContext {
  tile::TargetAttr target;
  unsigned warpSize = 32; // target.getWarpSize()
};

/// The blocked schedule of a [BM, BN] config (elementwise, row reduction,
/// softmax) over rows of `n` elements, or a diagnostic on `op` when the
/// block has fewer rows than its layout covers.
FailureOr<BlockSchedule> scheduleFromConfig(Operation *op,
                                            tile::LoweringConfigAttr config,
                                            int64_t n, unsigned elementBytes,
                                            const BuildContext &context);

/// Builds the body of one tile.func: typed tiles of the schedule, loads and
/// stores of operand windows, and cloning of linalg bodies onto tiles.
class TileKernelBuilder {
public:
  TileKernelBuilder(OpBuilder &builder, Location loc,
                    const BlockSchedule &schedule);

  OpBuilder &b;
  Location loc;
  BlockSchedule schedule;
  tile::BlockedEncodingAttr layout;

  /// tensor<BM x BN x elt, #blocked>
  RankedTensorType blockType(Type elementType) const;
  /// tensor<BM x elt, #slice<dim = 1>>: one value per row of the block.
  RankedTensorType rowsType(Type elementType) const;
  /// tensor<BN x elt, #slice<dim = 0>>: one value per column of the block.
  RankedTensorType colsType(Type elementType) const;

  Value index(int64_t value);
  Value splat(Value scalar, RankedTensorType type);
  /// [BM] per-row values -> [BM, BN] (expand_dims + broadcast).
  Value broadcastRows(Value rows);
  /// [BN] per-column values -> [BM, BN].
  Value broadcastCols(Value cols);
  /// origin + i down the block's rows (`rows`), or origin + j across its
  /// columns, as an i32 [BM, BN] tile.
  Value blockIndices(Value origin, bool rows);

  /// (m0, n0): the first row and column of this program's block, from a 1-D
  /// grid of ceil(m / BM) * ceil(n / BN) programs, row-block major.
  std::pair<Value, Value> blockOrigin(int64_t n);

  /// Loads operand `memref` of a 2-D iteration space with indexing `map`:
  /// (d0, d1) -> (d0, d1) as a block window, (d0, d1) -> (d1) as a row
  /// vector broadcast down the block, (d0, d1) -> (d0) as a column vector
  /// broadcast across it. Fails (with a diagnostic on `user`) otherwise.
  FailureOr<Value> loadOperand(Operation *user, Value memref, AffineMap map,
                               Value m0, Value n0);

  /// A scalar a kernel op captures from outside its body, rebuilt in the
  /// tile program: a constant, or a dynamic size as a number (a mean's
  /// divisor, `sitofp(index_cast(tensor.dim x, d))`), the size read off the
  /// kernel's memref argument it comes from (through DPS inits and empty
  /// tensors). A diagnostic on `user` when it is neither.
  FailureOr<Value> rebuildScalar(Value value, Operation *user);

  /// Clones the scalar ops of `body` onto tiles. Block arguments must be
  /// mapped in `mapping` already; scalars from outside are rebuilt
  /// (rebuildScalar) and splatted. `tileTypeOf` gives the tile type for a scalar type.
  /// Ops in `skip` (and the terminator) are not cloned. `positions`, when
  /// given, is the i32 tile of the block's positions along a loop dim: a
  /// `linalg.index` of that dim. Index values are i32 tiles (an index_cast
  /// of one is a sign extension or truncation).
  LogicalResult
  cloneBody(Block &body, IRMapping &mapping,
            function_ref<RankedTensorType(Type)> tileTypeOf,
            ArrayRef<Operation *> skip = {},
            function_ref<FailureOr<Value>(unsigned)> positions = {});

  /// (value of the original function, its tile in the kernel)
  using TileResults = SmallVector<std::pair<Value, Value>>;

  /// `op`'s results and the tiles its body (cloned with `mapping`) yields
  /// for them.
  static FailureOr<TileResults> yieldedTiles(linalg::GenericOp op,
                                             const IRMapping &mapping);

  /// Runs the elementwise `epilogue` on tiles: `produced` is the tile of
  /// `producer`'s result (its only use must be the epilogue); the epilogue's
  /// other inputs are function arguments loaded by `loadInput(memref, map,
  /// element type)`. Returns the epilogue's results and their tiles.
  /// `moreProducts` maps further producers' results (a dual GEMM's second
  /// contraction) to their tiles alike. `positions`, when given, gives the
  /// epilogue's `linalg.index` tiles (cloneBody).
  FailureOr<TileResults> applyEpilogue(
      linalg::GenericOp producer, Value produced, linalg::GenericOp epilogue,
      ArrayRef<Value> inputArgs,
      function_ref<FailureOr<Value>(Value, AffineMap, Type)> loadInput,
      function_ref<RankedTensorType(Type)> tileTypeOf,
      ArrayRef<std::pair<Value, Value>> moreProducts = {},
      function_ref<FailureOr<Value>(unsigned)> positions = {});
};

/// Stores each result tile at `offsets` of the output buffer that `outputs`
/// maps its original value to, or of `view(buffer)` when given (a 2-D view,
/// one batch's slice).
LogicalResult storeResults(OpBuilder &b, Location loc,
                           const OutputMap &outputs,
                           ArrayRef<std::pair<Value, Value>> results,
                           Operation *producer, ValueRange offsets,
                           function_ref<Value(Value)> view = {});

/// A view of a memref as the 2-D [rows, cols] space a kernel iterates:
/// rank 1 -> [1, n], rank 2 as is, rank > 2 with its leading dims collapsed.
Value viewAs2D(OpBuilder &b, Location loc, Value memref);

/// A batched GEMM program's slice of a [batch, rows, cols] memref: the 2-D
/// subview of batch `batchIndex`; memrefs of another rank (a bias shared by
/// every batch) are returned as they are.
/// A memref with several batch dims ([B, H, S, D]) takes the flat batch
/// index delinearized (the last batch dim fastest).
Value sliceBatch(OpBuilder &b, Location loc, Value memref, Value batchIndex);
/// A flat batch index as the indices of batch dims of `sizes` (the last
/// fastest).
SmallVector<Value> delinearizeBatch(OpBuilder &b, Location loc, Value index,
                                    ArrayRef<Value> sizes);
/// `memref` through `perm` (view dim i is memref dim perm[i]): a
/// memref.transpose, or `memref` itself for the identity.
Value permuteView(OpBuilder &b, Location loc, Value memref,
                  ArrayRef<int64_t> perm);
/// The kernel's memref of attention input `view` (tcc::AttentionView): its
/// source's memref through its perm.
FailureOr<Value> lookupView(OpBuilder &b, Location loc,
                            const AttentionView &view,
                            ArrayRef<Value> inputArgs, Operation *user);
/// The map of a batched matmul's epilogue operand, (b, m, n) -> ..., on the
/// per-batch 2-D space (m, n): `perBatch` is set when the operand leads with
/// the batch dim (to be read through sliceBatch). Fails (with a diagnostic
/// on `epilogue`) when b appears elsewhere.
FailureOr<AffineMap> unbatchEpilogueMap(Operation *epilogue, AffineMap map,
                                        bool &perBatch);

/// Operand `memref` of a batched op over (b, m, n), read through `map`, at
/// flat batch `batchIndex`: the dims `map` indexes by the batch alone (b,
/// b floordiv H, b mod H, a constant) sliced at their index, and the map
/// over (m, n) that reads the slice ((b, m, n) -> (m, n) on [B, M, N];
/// (b floordiv H, n) -> (n) on a padding mask [B', N]). Fails (with a
/// diagnostic on `user`) on a dim read otherwise (m and n, in order, only).
FailureOr<std::pair<Value, AffineMap>>
sliceBatchOperand(OpBuilder &b, Location loc, Operation *user, Value memref,
                  AffineMap map, Value batchIndex);

/// The kernel's memref for a value the function returns (through
/// tensor.expand_shape / tensor.collapse_shape, undone on the memref).
struct OutputMap {
  /// Original function's tensor value -> the kernel's output memref shaped
  /// like that value.
  FailureOr<Value> lookup(OpBuilder &b, Location loc, Value tensor,
                          Operation *user) const;
  /// Whether the function returns `tensor` (directly or through a reshape).
  bool isReturned(Value tensor) const;
  func::ReturnOp returnOp;
  ValueRange outputArgs;
};

/// A reduction body `yield combiner(x, out)`: the combiner, the reduced
/// value `x` (computed in the body) and the combiner's neutral element.
struct ReductionBody {
  Operation *combiner;
  Value x;
  TypedAttr neutral;
};
/// `op`'s reduction body, or failure with a diagnostic (no such body, or a
/// combiner without a neutral element to mask a partial chunk with).
FailureOr<ReductionBody> matchReductionBody(linalg::GenericOp op);
/// Re-creates the scalar binary `combiner` on `lhs`, `rhs` (tiles or
/// scalars: the result type follows `lhs`).
Value cloneCombiner(OpBuilder &b, Location loc, Operation *combiner, Value lhs,
                    Value rhs);
/// tile.reduce of a [BM, BN] tile along its rows with a scalar `combine`.
Value reduceRows(TileKernelBuilder &kb, Value block,
                 function_ref<Value(OpBuilder &, Location, Value, Value)>
                     combine);
/// The same into `rowsType` (a [BM] slice of `block`'s layout).
Value reduceRows(OpBuilder &b, Location loc, Value block,
                 RankedTensorType rowsType,
                 function_ref<Value(OpBuilder &, Location, Value, Value)>
                     combine);
/// 1-D tile `vector`, the slice along `axis` of `layout` (axis 1: one value
/// per row; axis 0: per column), expanded at `axis` and broadcast to
/// `shape` on `layout` (no broadcast where `shape` is 1 along `axis`).
Value broadcastSlice(OpBuilder &b, Location loc, Value vector, unsigned axis,
                     ArrayRef<int64_t> shape, Attribute layout);

/// A (value, index) pair of tiles (or of scalars).
using ArgPair = std::pair<Value, Value>;
/// The element of arg reduction `op` (`r`) on tiles: its body but the
/// choice cloned with the inputs mapped in `mapping`; each loop-index cast
/// is `loopIndex(dim)` (an i32 tile of the loop's indices), cast to its
/// type. Returns the element's (value, index) tiles.
FailureOr<ArgPair>
cloneArgElement(TileKernelBuilder &kb, linalg::GenericOp op,
                const ArgReduction &r, IRMapping &mapping,
                function_ref<RankedTensorType(Type)> tileTypeOf,
                function_ref<Value(unsigned)> loopIndex);
/// `r`'s choice between the tiles `acc` and `element` (same type).
FailureOr<ArgPair> cloneArgChoiceOnTiles(TileKernelBuilder &kb,
                                         linalg::GenericOp op,
                                         const ArgReduction &r, ArgPair acc,
                                         ArgPair element);
/// tile.reduce of the (values, indices) tiles along `axis` together, with
/// `r`'s choice as the combiner, into results of `valueType` / `indexType`.
ArgPair reduceArgPairs(OpBuilder &b, Location loc, const ArgReduction &r,
                       ArgPair tiles, unsigned axis, Type valueType,
                       Type indexType);
/// The constant fills of arg reduction `op`'s two inits (its identity: the
/// choice keeps a real element over them, and they fold into the result
/// as linalg's init does), or failure with a diagnostic.
FailureOr<std::pair<TypedAttr, TypedAttr>> getArgFills(linalg::GenericOp op);
/// Extends (or truncates) i32 index tile `index` to `type`'s element type.
Value castIndexTile(OpBuilder &b, Location loc, Value index,
                    RankedTensorType type);

/// i1 [BM, BN] tile: column index (k + j) < n (and >= 0 with `fromZero`:
/// a walk that starts before the row).
Value columnsInBounds(TileKernelBuilder &kb, Value k, int64_t n,
                      bool fromZero = false);
/// A memref as a 1-D vector (all dims collapsed).
Value viewAs1D(OpBuilder &b, Location loc, Value memref);
/// exp(a - c) of f32 tiles as the softmax forms compute it: exp2((a - c) *
/// log2 e), one ex2 instruction (PTX ex2.approx, AMD v_exp_f32) instead of
/// expf's range reduction around it (ten instructions on NVIDIA): relative
/// error about 2^-22 plus |a - c| * 2^-24, as Triton's and FlashAttention's
/// exp. `approximate` marks the exp2 `fastmath<afn>` (approxExp2).
Value expOfDifference(OpBuilder &b, Location loc, Value a, Value c,
                      bool approximate = false);
/// exp2(x) marked `fastmath<afn>`: the target may use its bare exp2
/// instruction and flush results below 2^-126 to zero (NVIDIA:
/// convert-approx-math-to-nvvm's ex2.approx.ftz.f32, one MUFU operation
/// where ex2.approx.f32 takes four more for subnormal results). For exps
/// that are summed (a term below 2^-126 of a sum with a term of 1 is
/// nothing) or rounded to a 16-bit type (f16's least subnormal is 2^-24;
/// bf16 loses its subnormals, an error below 2^-126).
Value approxExp2(OpBuilder &b, Location loc, Value x);
/// A memref as 1-D: rank 0 as one element, others all dims collapsed.
Value viewFlat(OpBuilder &b, Location loc, Value memref);

/// The kernel builders, one per form. Each builds the kernel its `config`
/// describes (tcc-select-strategy's, or written by hand: checked here),
/// filling `kernel`'s body (up to, not including, the terminator), and
/// records the grid and warp count in `grid`/`numWarps`.
LogicalResult buildElementwiseKernel(linalg::GenericOp op,
                                     tile::LoweringConfigAttr config,
                                     tile::FuncOp kernel,
                                     const OutputMap &outputs,
                                     ArrayRef<Value> inputArgs,
                                     const BuildContext &context,
                                     GridSize &grid, unsigned &numWarps);
LogicalResult buildRowReductionKernel(linalg::GenericOp op,
                                      linalg::GenericOp epilogue,
                                      tile::LoweringConfigAttr config,
                                      tile::FuncOp kernel,
                                      const OutputMap &outputs,
                                      ArrayRef<Value> inputArgs,
                                      const BuildContext &context,
                                      GridSize &grid, unsigned &numWarps);
LogicalResult buildSoftmaxKernel(linalg::SoftmaxOp op,
                                 tile::LoweringConfigAttr config,
                                 tile::FuncOp kernel, const OutputMap &outputs,
                                 ArrayRef<Value> inputArgs,
                                 const BuildContext &context, GridSize &grid,
                                 unsigned &numWarps);

/// A row program (row reductions of one row space and the elementwise ops
/// around them, isRowProgram): BM whole rows per program, persistent in
/// registers, or walked in BN-wide chunks (config walk = looped)
/// (RowProgramKernel.cpp).
LogicalResult buildRowProgramKernel(ArrayRef<Operation *> ops,
                                    tile::LoweringConfigAttr config,
                                    tile::FuncOp kernel,
                                    const OutputMap &outputs,
                                    ArrayRef<Value> inputArgs,
                                    const BuildContext &context,
                                    GridSize &grid, unsigned &numWarps);

/// A column reduction and the elementwise ops over its outputs
/// (isColumnReductionKernel): one program per batch index and block of
/// columns, a loop over the reduced rows, a cross-warp combine, the
/// epilogue (ColumnReductionKernel.cpp).
LogicalResult buildColumnReductionKernel(ArrayRef<Operation *> ops,
                                         tile::LoweringConfigAttr config,
                                         tile::FuncOp kernel,
                                         const OutputMap &outputs,
                                         ArrayRef<Value> inputArgs,
                                         const BuildContext &context,
                                         GridSize &grid, unsigned &numWarps);

/// Fused attention (tcc::matchAttention), FlashAttention-2's schedule
/// (AttentionKernel.cpp): BM query rows of one batch per program, a loop
/// over BN-key blocks with the online softmax, P from registers into P V.
LogicalResult buildAttentionKernel(AttentionOps chain,
                                   tile::LoweringConfigAttr config,
                                   tile::FuncOp kernel,
                                   const OutputMap &outputs,
                                   ArrayRef<Value> inputArgs,
                                   const BuildContext &context,
                                   GridSize &grid, unsigned &numWarps);

/// Fused attention on sm_90 (a wgmma plan, WgmmaAttentionKernel.cpp): the
/// same online softmax, warp-specialized (a TMA producer warpgroup, 1 or 2
/// consumer warpgroups on wgmma, P from registers), persistent.
LogicalResult buildWgmmaAttentionKernel(AttentionOps chain,
                                        tile::LoweringConfigAttr config,
                                        tile::FuncOp kernel,
                                        const OutputMap &outputs,
                                        ArrayRef<Value> inputArgs,
                                        const BuildContext &context,
                                        GridSize &grid, unsigned &numWarps);

/// A transpose (isTransposeKernel) staged through shared memory so that
/// reads and writes are both coalesced (TransposeKernel.cpp).
LogicalResult buildTransposeKernel(linalg::GenericOp op,
                                   tile::LoweringConfigAttr config,
                                   tile::FuncOp kernel,
                                   const OutputMap &outputs,
                                   ArrayRef<Value> inputArgs,
                                   const BuildContext &context,
                                   GridSize &grid, unsigned &numWarps);

/// Plain blocked layout of a [rows, cols] tensor-core operand tile staged
/// through shared memory: warps down the rows (tcc-coalesce gives it its
/// 16-byte vectors along the cols); with `columnMajor` (a slice contiguous
/// along its rows, a B read as stored [N, K]) lanes down the rows and warps
/// across the cols.
tile::BlockedEncodingAttr operandLayout(MLIRContext *ctx, int64_t rows,
                                        int64_t cols, unsigned warpSize,
                                        unsigned warps,
                                        bool columnMajor = false);

/// What the tensor-core and FMA GEMM schedules share (MatmulKernel.cpp): the
/// (batched) iteration space, this program's block and batch slice, the
/// operand memrefs, the accumulator's initial value, and the epilogue and
/// store on the accumulator's layout.
class GemmProgram {
public:
  /// Checks that `op`'s body is out + a * b (operands possibly cast) and
  /// its init a constant fill (verifyGemmBody).
  static FailureOr<GemmProgram> get(linalg::GenericOp op);

  /// Emits this program's ids for blockM x blockN blocks (batch after
  /// batch; within a batch grouped rasterization: kGroupM row blocks down a
  /// column of blocks, so consecutive programs share B's column block and
  /// A's rows stay in L2), m0 / n0, the operand memrefs (this batch's 2-D
  /// slices), and returns the initial accumulator: `accType` (f32) filled
  /// with the matmul's init.
  FailureOr<Value> begin(OpBuilder &b, Location loc, int64_t blockM,
                         int64_t blockN, ArrayRef<Value> inputArgs,
                         RankedTensorType accType);
  /// The K loop from `acc`: each step loads A's [BM, BK] and B's [BK, BN]
  /// slices in `sliceA` / `sliceB`'s types, stages them in shared memory
  /// with `toShared` (tcc-promote-shared-memory later pipelines that), reads
  /// them back as `operandA` / `operandB` and accumulates their tile.dot.
  /// Returns the final accumulator, truncated to `resultType`'s element
  /// type when that is narrower than the accumulator's.
  Value emitMainLoop(OpBuilder &b, Location loc, RankedTensorType sliceA,
                     RankedTensorType sliceB,
                     function_ref<Value(OpBuilder &, Location, Value)> toShared,
                     RankedTensorType operandA, RankedTensorType operandB,
                     Value acc, RankedTensorType resultType) const;
  /// This program's batch slice of a [batch, rows, cols] memref, as 2-D;
  /// other memrefs (a bias shared by all batches) as they are.
  Value slice(OpBuilder &b, Location loc, Value memref) const;
  /// Runs `epilogue` (may be null) on `product` and stores the results.
  /// `loadOnAcc(memref, map, element)` loads an epilogue operand onto the
  /// accumulator's layout, given its 2-D (m, n) map and its slice;
  /// `accTile(element)` is the accumulator-layout tile type. Sets `grid`.
  /// `storeReturned`, when given, stores the one result the function
  /// returns as it is (a TMA store) instead of the generic stores.
  LogicalResult finish(
      OpBuilder &b, Location loc, Value product, linalg::GenericOp epilogue,
      ArrayRef<Value> inputArgs, const OutputMap &outputs,
      function_ref<FailureOr<Value>(Value, AffineMap, Type)> loadOnAcc,
      function_ref<RankedTensorType(Type)> accTile, GridSize &grid,
      function_ref<LogicalResult(Value)> storeReturned = {},
      ArrayRef<std::pair<Value, Value>> moreProducts = {}) const;

  /// An epilogue operand read onto the accumulator's `layout` ([blockM,
  /// blockN] at m0 / n0): the identity map loads the block, (m) / (n) maps a
  /// per-row / per-column vector broadcast across it.
  FailureOr<Value> loadOnAccumulator(OpBuilder &b, Location loc,
                                     linalg::GenericOp epilogue, Value memref,
                                     AffineMap map, Type element,
                                     Attribute layout, int64_t blockM,
                                     int64_t blockN) const;
  /// Sets the block origin and batch (a persistent program's current tile)
  /// instead of begin()'s program ids.
  void place(Value blockRow, Value blockCol, Value batchIdx);
  /// (pid_m, pid_n) of block `pid` of a blocksM x blocksN grid under
  /// grouped rasterization (kGroupM row blocks down a column of blocks
  /// before moving right: consecutive blocks share B's column block and A's
  /// rows stay in L2).
  /// `dynamicBlocksM`, when set, is the run-time row block count (M
  /// dynamic) and `blocksM` unused.
  /// cdiv(rows of `a`, blockM) at run time: a dynamic M's row blocks.
  static Value runTimeRowBlocks(OpBuilder &b, Location loc, Value a,
                                int64_t blockM);
  static std::pair<Value, Value> groupedProgramIds(OpBuilder &b, Location loc,
                                                   Value pid, int64_t blocksM,
                                                   int64_t blocksN,
                                                   Value dynamicBlocksM = {});

  /// The accumulator's initial value (the matmul's constant fill).
  double getInit() const { return init; }

  linalg::GenericOp op;
  bool batched = false;
  int64_t batch = 1, m = 0, n = 0, k = 0; // batch and m may be dynamic
  Value m0, n0, memA, memB; // set by begin()

private:
  double init = 0.0; // the accumulator's fill
  Value batchIndex;
  GridSize programs; // set by begin()
};

/// The Hopper GEMM (mma = wgmma_m64nNk16; WgmmaMatmulKernel.cpp): a
/// persistent, warp-specialized program; a producer warpgroup streams A and
/// B boxes with TMA into a ring of shared slots, consumer warpgroups run
/// wgmma on them and apply the epilogue. A and B may be read transposed.
/// `second`, when set, is a dual GEMM's other contraction (isDualGemm):
/// its B streams beside `op`'s into a second accumulator, and `epilogue`
/// reads both.
LogicalResult buildWgmmaMatmulKernel(linalg::GenericOp op,
                                     linalg::GenericOp second,
                                     linalg::GenericOp epilogue,
                                     tile::LoweringConfigAttr config,
                                     tile::FuncOp kernel,
                                     const OutputMap &outputs,
                                     ArrayRef<Value> inputArgs,
                                     const BuildContext &context,
                                     GridSize &grid, unsigned &numWarps);
/// The split-K workspace a Hopper GEMM plan (`split_k` = S > 1) takes
/// after its results: an f32 memref of S partial [BM, BN] blocks per output
/// tile ([tiles x S x BM, BN]) and an i32 memref of one arrival counter per
/// tile. Empty without split_k, or when the GEMM's sizes are not all static
/// (buildWgmmaMatmulKernel then says why). Each buffer with whether it must
/// read as zero at the kernel's first launch (the counters: the runtime
/// zero-fills them once, and the kernel leaves every counter at zero).
SmallVector<std::pair<MemRefType, bool>>
wgmmaWorkspaceTypes(linalg::GenericOp op, tile::LoweringConfigAttr config);
/// Block-tiled tensor-core GEMM with an optional elementwise epilogue, on
/// the config's MMA (mma.sync / MFMA).
LogicalResult buildMatmulKernel(linalg::GenericOp op,
                                linalg::GenericOp epilogue,
                                tile::LoweringConfigAttr config,
                                tile::FuncOp kernel, const OutputMap &outputs,
                                ArrayRef<Value> inputArgs,
                                const BuildContext &context, GridSize &grid,
                                unsigned &numWarps);
/// The FMA fallback for matmuls without a tensor-core mapping (f32, mixed
/// types, targets without tensor cores): a block-tiled GEMM on blocked
/// layouts whose tile.dot lowers to per-thread FMAs, with the same
/// epilogues.
LogicalResult buildFmaMatmulKernel(linalg::GenericOp op,
                                   linalg::GenericOp epilogue,
                                   tile::LoweringConfigAttr config,
                                   tile::FuncOp kernel,
                                   const OutputMap &outputs,
                                   ArrayRef<Value> inputArgs,
                                   const BuildContext &context,
                                   GridSize &grid, unsigned &numWarps);

/// The kernel's memref of an attention chain's result, viewed as [batch...,
/// M, Dv] (through chain.result's perm: the result's `.transpose(1, 2)`
/// back to [B, S, H, D] is written in place).
FailureOr<Value> lookupResult(OpBuilder &b, Location loc,
                              const AttentionOps &chain,
                              const OutputMap &outputs);

/// The kernel memref for function argument `tensor` (a block argument of
/// the original function), or failure with a diagnostic on `user`.
FailureOr<Value> lookupInput(Value tensor, ArrayRef<Value> inputArgs,
                             Operation *user);

} // namespace mlir::tcc

#endif // TCC_CONVERSION_LINALGTOTILE_LINALGTOTILE_H
