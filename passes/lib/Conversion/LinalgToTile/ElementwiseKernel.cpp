//===- ElementwiseKernel.cpp - elementwise linalg.generic as a program ----===//
//
// One [BM, BN] block (the config's) of the (collapsed) 2-D iteration space
// per program: load every operand's window (or broadcast row/column
// vector), apply the generic's body to whole tiles, store the results. With
// view = flat_gather, one [1, BN] block of the flat stream of all elements
// per program, broadcast operands gathered (tile.memref_gather).
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

using namespace mlir;
using namespace mlir::tcc;

namespace {


/// `map` (a projected permutation in order) on the collapsed dims, and the
/// reassociation that collapses its operand's dims the same way.
std::pair<AffineMap, SmallVector<ReassociationIndices>>
collapseMap(AffineMap map, ArrayRef<ReassociationIndices> groups) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> results;
  SmallVector<ReassociationIndices> operandGroups;
  unsigned position = 0;
  for (auto [g, group] : llvm::enumerate(groups)) {
    if (!map.getResultPosition(getAffineDimExpr(group.front(), ctx)))
      continue;
    results.push_back(getAffineDimExpr(g, ctx));
    ReassociationIndices dims;
    for (size_t i = 0; i < group.size(); ++i)
      dims.push_back(position++);
    operandGroups.push_back(dims);
  }
  return {AffineMap::get(groups.size(), 0, results, ctx), operandGroups};
}



/// Scalar index `index` as an i32 tile on the block's layout.
Value splatIndex(TileKernelBuilder &kb, Value index) {
  Type i32 = kb.b.getI32Type();
  return kb.splat(arith::IndexCastOp::create(kb.b, kb.loc, i32, index),
                  kb.blockType(i32));
}

/// The positions (`linalg.index`) along loop dim `dim` of a block whose loop
/// dims are collapsed into `groups`, group g's row-major index being
/// `indexOf(g)` (an i32 tile): (x / inner) % extent, inner the extent of
/// the group's dims after `dim` (no remainder for the group's first dim).
FailureOr<Value> positionOf(TileKernelBuilder &kb, linalg::GenericOp op,
                            ArrayRef<ReassociationIndices> groups,
                            unsigned dim, function_ref<Value(unsigned)> indexOf) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [g, group] : llvm::enumerate(groups)) {
    auto at = llvm::find(group, int64_t(dim));
    if (at == group.end())
      continue;
    // The extents the division and remainder take are static: a dynamic
    // dim may only be the run's first (read without a remainder).
    bool first = at == group.begin();
    if (llvm::any_of(llvm::make_range(first ? std::next(at) : group.begin(),
                                      group.end()),
                     [&](int64_t d) { return ShapedType::isDynamic(ranges[d]); }))
      return op.emitOpError()
             << "reads the positions (linalg.index) of loop dim " << dim
             << ", collapsed with a dim of dynamic size; not supported by "
                "convert-linalg-to-tile";
    int64_t extent = 1;
    for (int64_t d : group)
      if (!ShapedType::isDynamic(ranges[d]))
        extent *= ranges[d];
    if (extent > std::numeric_limits<int32_t>::max())
      return op.emitOpError()
             << "reads the positions (linalg.index) of a loop dim in a "
                "collapsed run of "
             << extent << " elements; the kernel's positions are i32";
    OpBuilder &b = kb.b;
    Value x = indexOf(g);
    auto constant = [&](int64_t value) {
      return kb.splat(arith::ConstantOp::create(b, kb.loc,
                                                b.getI32IntegerAttr(value)),
                      cast<RankedTensorType>(x.getType()));
    };
    if (ranges[dim] == 1)
      return constant(0);
    int64_t inner = 1;
    for (int64_t d : llvm::make_range(std::next(at), group.end()))
      inner *= ranges[d];
    if (inner != 1)
      x = arith::DivUIOp::create(b, kb.loc, x, constant(inner));
    if (!first)
      x = arith::RemUIOp::create(b, kb.loc, x, constant(ranges[dim]));
    return x;
  }
  return op.emitOpError() << "reads the position of loop dim " << dim
                          << ", which no group of the kernel's view holds";
}

/// An elementwise op whose operands are read straight or through a
/// permutation that keeps the last dim: each program covers a block of the
/// last two dims of one index of the leading dims; every operand is the 2-D
/// strided slice of its (transposed) view at that index, contiguous along
/// the last dim.
LogicalResult buildPermutedKernel(linalg::GenericOp op,
                                  tile::LoweringConfigAttr config,
                                  tile::FuncOp kernel,
                                  const OutputMap &outputs,
                                  ArrayRef<Value> inputArgs,
                                  const BuildContext &context,
                                  GridSize &grid, unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned rank = ranges.size();
  int64_t rows = ranges[rank - 2], cols = ranges[rank - 1];
  int64_t leading = 1;
  for (unsigned d = 0; d + 2 < rank; ++d)
    leading *= ranges[d];
  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, cols, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  TileKernelBuilder kb(b, loc, schedule);
  int64_t blocks = llvm::divideCeil(rows, schedule.blockM) *
                   llvm::divideCeil(cols, schedule.blockN);
  // The program's leading index, then its block of the last two dims.
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  pid = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  Value outer = arith::DivUIOp::create(b, loc, pid, kb.index(blocks));
  Value inner = arith::RemUIOp::create(b, loc, pid, kb.index(blocks));
  int64_t blocksN = llvm::divideCeil(cols, schedule.blockN);
  Value m0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, inner, kb.index(blocksN)),
      kb.index(schedule.blockM));
  Value n0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, inner, kb.index(blocksN)),
      kb.index(schedule.blockN));
  SmallVector<OpFoldResult> lead(rank - 2);
  for (int64_t d = rank - 3; d >= 0; --d) {
    lead[d] = arith::RemUIOp::create(b, loc, outer, kb.index(ranges[d]))
                  .getResult();
    outer = arith::DivUIOp::create(b, loc, outer, kb.index(ranges[d]));
  }
  // `memref` (read through `map`) as the 2-D slice at the leading index.
  auto slice = [&](Value memref, AffineMap map) -> Value {
    if (!map.isIdentity()) {
      // View dim i = operand dim map[i]... reordered so view dims follow the
      // iteration dims.
      SmallVector<unsigned> perm(rank);
      for (unsigned i = 0; i < rank; ++i)
        perm[cast<AffineDimExpr>(map.getResult(i)).getPosition()] = i;
      memref = memref::TransposeOp::create(
          b, loc, memref,
          AffineMapAttr::get(AffineMap::getPermutationMap(perm, ctx)));
    }
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<OpFoldResult> offsets(lead), sizes(rank - 2, b.getIndexAttr(1));
    offsets.append({b.getIndexAttr(0), b.getIndexAttr(0)});
    sizes.append({b.getIndexAttr(rows), b.getIndexAttr(cols)});
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto sliceType = memref::SubViewOp::inferRankReducedResultType(
        {rows, cols}, type, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                     memref, offsets, sizes, strides);
  };
  AffineMap identity2D = AffineMap::getMultiDimIdentityMap(2, ctx);
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    Value view = slice(*memref, op.getMatchingIndexingMap(input));
    FailureOr<Value> tile = kb.loadOperand(op, view, identity2D, m0, n0);
    if (failed(tile))
      return failure();
    mapping.map(op.getMatchingBlockArgument(input), *tile);
  }
  Block &body = op.getRegion().front();
  // Positions: the leading dims at the program's index, the last two its
  // block's rows and columns.
  SmallVector<ReassociationIndices> dims;
  for (unsigned d = 0; d < rank; ++d)
    dims.push_back({int64_t(d)});
  auto positions = [&](unsigned dim) {
    return positionOf(kb, op, dims, dim, [&](unsigned d) {
      if (d + 2 < rank)
        return splatIndex(kb, cast<Value>(lead[d]));
      return kb.blockIndices(d + 2 == rank ? m0 : n0, d + 2 == rank);
    });
  };
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); }, {},
                          positions)))
    return failure();
  FailureOr<TileKernelBuilder::TileResults> results =
      TileKernelBuilder::yieldedTiles(op, mapping);
  if (failed(results))
    return failure();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  if (failed(storeResults(b, loc, outputs, *results, op, {m0, n0},
                          [&](Value m) { return slice(m, identity); })))
    return failure();
  grid = leading * blocks;
  numWarps = schedule.numWarps();
  return success();
}

/// An elementwise op whose operands broadcast along more than two separate
/// groups of dims ([B, M, N] divided by a [B, N] reduction over M): the
/// leading groups are one index per program, the last two groups a block;
/// each operand is the slice of its collapsed view at the program's leading
/// indices (a block, a row or column vector, or a scalar broadcast).
LogicalResult buildBatchedElementwiseKernel(
    linalg::GenericOp op, ArrayRef<ReassociationIndices> groups,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned count = groups.size(), numLead = count - 2;
  SmallVector<int64_t> extents;
  for (const ReassociationIndices &group : groups) {
    int64_t size = 1;
    for (int64_t d : group)
      size *= ranges[d];
    extents.push_back(size);
  }
  int64_t m = extents[count - 2], n = extents[count - 1], leading = 1;
  for (unsigned g = 0; g < numLead; ++g)
    leading *= extents[g];
  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, n, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  TileKernelBuilder kb(b, loc, schedule);
  int64_t blocksN = llvm::divideCeil(n, schedule.blockN);
  int64_t blocks = llvm::divideCeil(m, schedule.blockM) * blocksN;
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  pid = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  Value outer = arith::DivUIOp::create(b, loc, pid, kb.index(blocks));
  Value inner = arith::RemUIOp::create(b, loc, pid, kb.index(blocks));
  Value m0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, inner, kb.index(blocksN)),
      kb.index(schedule.blockM));
  Value n0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, inner, kb.index(blocksN)),
      kb.index(schedule.blockN));
  SmallVector<Value> lead(numLead);
  for (int64_t g = numLead - 1; g >= 0; --g) {
    lead[g] = arith::RemUIOp::create(b, loc, outer, kb.index(extents[g]));
    outer = arith::DivUIOp::create(b, loc, outer, kb.index(extents[g]));
  }
  // The operand's collapsed view sliced at the leading indices, and its map
  // on the [m, n] block space.
  auto view = [&](Value memref, AffineMap map) -> std::pair<Value, AffineMap> {
    auto [collapsed, operandGroups] = collapseMap(map, groups);
    if (cast<MemRefType>(memref.getType()).getRank() !=
        int64_t(operandGroups.size()))
      memref = memref::CollapseShapeOp::create(b, loc, memref, operandGroups);
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<OpFoldResult> offsets, sizes;
    SmallVector<int64_t> kept;
    SmallVector<AffineExpr> blockDims;
    for (auto [position, expr] : llvm::enumerate(collapsed.getResults())) {
      unsigned g = cast<AffineDimExpr>(expr).getPosition();
      bool isLead = g < numLead;
      offsets.push_back(isLead ? OpFoldResult(lead[g])
                               : OpFoldResult(b.getIndexAttr(0)));
      sizes.push_back(b.getIndexAttr(isLead ? 1 : extents[g]));
      if (!isLead) {
        kept.push_back(extents[g]);
        blockDims.push_back(getAffineDimExpr(g - numLead, ctx));
      }
    }
    if (kept.size() != size_t(type.getRank())) {
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      auto sliceType = memref::SubViewOp::inferRankReducedResultType(
          kept, type, offsets, sizes, strides);
      memref = memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                         memref, offsets, sizes, strides);
    }
    return {memref, AffineMap::get(2, 0, blockDims, ctx)};
  };
  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    auto [viewed, map] = view(*memref, op.getMatchingIndexingMap(input));
    if (map.getNumResults() == 0)
      return op.emitOpError("reads an operand that is one value per program "
                            "of a batched elementwise op; not supported by "
                            "convert-linalg-to-tile");
    FailureOr<Value> tile = kb.loadOperand(op, viewed, map, m0, n0);
    if (failed(tile))
      return failure();
    mapping.map(op.getMatchingBlockArgument(input), *tile);
  }
  // Positions: the leading groups at the program's indices, the last two
  // its block's rows and columns.
  auto positions = [&](unsigned dim) {
    return positionOf(kb, op, groups, dim, [&](unsigned g) {
      if (g < numLead)
        return splatIndex(kb, lead[g]);
      return kb.blockIndices(g == numLead ? m0 : n0, g == numLead);
    });
  };
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); }, {},
                          positions)))
    return failure();
  FailureOr<TileKernelBuilder::TileResults> results =
      TileKernelBuilder::yieldedTiles(op, mapping);
  if (failed(results))
    return failure();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(ranges.size(), ctx);
  if (failed(storeResults(b, loc, outputs, *results, op, {m0, n0},
                          [&](Value mem) { return view(mem, identity).first; })))
    return failure();
  grid = leading * blocks;
  numWarps = schedule.numWarps();
  return success();
}

/// view = flat_gather: the iteration space as one flat stream of all its
/// elements in [1, BN] blocks (the all-identity flat stream's plan). The
/// operands read through the identity and the results are [1, total] views
/// of their buffers, moved in the widest vectors: a stream has no rows to
/// keep aligned, so the total need not be a multiple of the vector length
/// (the tail run goes element by element, in bounds). Every other operand
/// (a broadcast: an in-order projection of the dims) is gathered at its
/// row-major offset of each flat index i: per maximal run of the dims it
/// reads that are adjacent in the iteration space (dims of extent 1
/// between them do not break a run), ((i / stride) % extent) * its stride
/// in the operand; [M, N] + a row bias [N] is i % N, a column [M] i / N.
LogicalResult buildFlatGatherKernel(linalg::GenericOp op,
                                    tile::LoweringConfigAttr config,
                                    tile::FuncOp kernel,
                                    const OutputMap &outputs,
                                    ArrayRef<Value> inputArgs,
                                    const BuildContext &context,
                                    GridSize &grid, unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned rank = ranges.size();
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  unsigned bytes = widestElementBytes(op);
  int64_t widest = std::max(1u, kMaxVectorBytes / bytes);
  int64_t blockN = config.getBlock()[1];
  if (total > kMaxFlatGatherElements ||
      total + blockN - 1 > std::numeric_limits<int32_t>::max())
    return op.emitOpError()
           << "has a lowering_config with view = flat_gather over " << total
           << " elements; its flat indices are i32 (at most "
           << kMaxFlatGatherElements << " elements)";
  FailureOr<BlockSchedule> planned = scheduleFromConfig(
      op, config, llvm::alignTo(total, widest), bytes, context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  Location loc = op.getLoc();
  TileKernelBuilder kb(b, loc, schedule);
  // Block pid of the one row.
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  pid = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  Value m0 = kb.index(0);
  Value n0 = arith::MulIOp::create(b, loc, pid, kb.index(schedule.blockN));
  Type i32 = b.getI32Type();
  RankedTensorType indexType = kb.blockType(i32);
  auto constant = [&](int64_t value) {
    return kb.splat(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value)),
                    indexType);
  };
  // The flat index of every element of the block: n0 + j (built once, for
  // the first gather).
  Value flat;
  auto flatIndex = [&]() {
    if (!flat)
      flat = kb.blockIndices(n0, /*rows=*/false);
    return flat;
  };
  // (n0 + j) % extent for every element j of the block, given BN <= extent:
  // c = (n0 % extent) + j, less extent where c >= extent.
  auto wrappedColumns = [&](int64_t extent) -> Value {
    Value start = arith::IndexCastOp::create(b, loc, i32, n0);
    start = arith::RemUIOp::create(
        b, loc, start,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(extent)));
    Value cols = tile::ArangeOp::create(b, loc, kb.colsType(i32), 0u,
                                        uint32_t(schedule.blockN));
    cols = arith::AddIOp::create(b, loc, cols,
                                 kb.splat(start, kb.colsType(i32)));
    cols = kb.broadcastCols(cols);
    // c - extent wraps around below zero (unsigned) exactly where c is
    // already in range, so the unsigned min of the two is the column.
    Value wrapped = arith::SubIOp::create(b, loc, cols, constant(extent));
    return arith::MinUIOp::create(b, loc, cols, wrapped);
  };
  // Elements between consecutive iteration dims.
  SmallVector<int64_t> iterStride(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    iterStride[d] = iterStride[d + 1] * ranges[d + 1];
  // Whether every offset gatherOffsets builds lies inside its operand: each
  // term is reduced modulo its extent, or the block has no element past the
  // stream (then i / stride < extent for the outermost run too).
  bool offsetsInBounds = true;
  auto gatherOffsets = [&](AffineMap map) -> Value {
    offsetsInBounds = total % schedule.blockN == 0;
    bool everyTermReduced = true;
    SmallVector<int64_t> dims;
    for (AffineExpr e : map.getResults())
      dims.push_back(cast<AffineDimExpr>(e).getPosition());
    Value offsets;
    // Runs [first, last] of dims, walked from the innermost.
    int64_t operandStride = 1;
    for (int64_t k = int64_t(dims.size()) - 1; k >= 0;) {
      int64_t last = dims[k], extent = ranges[last];
      int64_t j = k;
      while (j > 0 && llvm::all_of(llvm::seq<int64_t>(dims[j - 1] + 1, dims[j]),
                                   [&](int64_t d) { return ranges[d] == 1; })) {
        --j;
        extent *= ranges[dims[j]];
      }
      k = j - 1;
      if (extent == 1)
        continue;
      Value term;
      if (iterStride[last] == 1 && extent < total &&
          schedule.blockN <= extent) {
        // i % extent for i = n0 + j, j < BN <= extent: the program's
        // (n0 % extent) + j wraps at most once, so one conditional
        // subtraction per element replaces a remainder (seven instructions
        // per element on NVIDIA).
        term = wrappedColumns(extent);
      } else {
        term = flatIndex();
        if (iterStride[last] != 1)
          term = arith::DivUIOp::create(b, loc, term,
                                        constant(iterStride[last]));
        if (extent * iterStride[last] < total)
          term = arith::RemUIOp::create(b, loc, term, constant(extent));
        else
          everyTermReduced = false;
      }
      if (operandStride != 1)
        term = arith::MulIOp::create(b, loc, term, constant(operandStride));
      offsets = offsets ? arith::AddIOp::create(b, loc, offsets, term) : term;
      operandStride *= extent;
    }
    offsetsInBounds |= everyTermReduced;
    return offsets ? offsets : constant(0);
  };

  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    AffineMap map = op.getMatchingIndexingMap(input);
    Type element = cast<MemRefType>(memref->getType()).getElementType();
    Value tile;
    if (map.isIdentity())
      tile = tile::MemRefLoadOp::create(
          b, loc, kb.blockType(element),
          viewAs2D(b, loc, viewFlat(b, loc, *memref)), ValueRange{m0, n0},
          Value(), Value());
    else {
      Value offsets = gatherOffsets(map);
      tile = tile::MemRefGatherOp::create(b, loc, kb.blockType(element),
                                          viewFlat(b, loc, *memref), offsets,
                                          offsetsInBounds);
    }
    mapping.map(op.getMatchingBlockArgument(input), tile);
  }
  Block &body = op.getRegion().front();
  // Positions: the flat index of each element, delinearized.
  SmallVector<ReassociationIndices> all{
      llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  auto positions = [&](unsigned dim) {
    return positionOf(kb, op, all, dim, [&](unsigned) { return flatIndex(); });
  };
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); }, {},
                          positions)))
    return failure();
  FailureOr<TileKernelBuilder::TileResults> results =
      TileKernelBuilder::yieldedTiles(op, mapping);
  if (failed(results))
    return failure();
  if (failed(storeResults(b, loc, outputs, *results, op, {m0, n0},
                          [&](Value m) {
                            return viewAs2D(b, loc, viewFlat(b, loc, m));
                          })))
    return failure();
  grid = llvm::divideCeil(total, schedule.blockN);
  numWarps = schedule.numWarps();
  return success();
}

} // namespace

LogicalResult mlir::tcc::buildElementwiseKernel(
    linalg::GenericOp op, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return op.emitOpError("rank-0 kernels are not supported by "
                          "convert-linalg-to-tile");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (config.getView() == tile::ElementwiseView::flat_gather) {
    // Written by hand or chosen by tcc-select-strategy: any op of straight
    // and broadcast operands streams flat.
    if (!llvm::all_of(op.getDpsInputOperands(),
                      [&](OpOperand *input) {
                        return isInOrderProjection(
                            op.getMatchingIndexingMap(input));
                      }) ||
        !llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
          return op.getMatchingIndexingMap(&init).isIdentity();
        }))
      return op.emitOpError()
             << "has a lowering_config with view = flat_gather, which "
                "streams operands read straight and gathers broadcast ones; "
                "an operand here is read through a permuted map";
    for (OpOperand &init : op.getDpsInitsMutable())
      if (!op.getMatchingBlockArgument(&init).use_empty())
        return op.emitOpError("reads its output operands; convert-linalg-to-"
                              "tile expects pure elementwise bodies");
    return buildFlatGatherKernel(op, config, kernel, outputs, inputArgs,
                                 context, grid, numWarps);
  }
  if (isPermutedElementwise(op)) {
    for (OpOperand &init : op.getDpsInitsMutable())
      if (!op.getMatchingBlockArgument(&init).use_empty())
        return op.emitOpError("reads its output operands; convert-linalg-to-"
                              "tile expects pure elementwise bodies");
    return buildPermutedKernel(op, config, kernel, outputs, inputArgs,
                               context, grid, numWarps);
  }
  if (!llvm::all_of(maps, isInOrderProjection))
    return op.emitOpError()
           << "elementwise op reads an operand through a permuted or "
              "non-projection map; not supported by convert-linalg-to-tile";
  // Run on the flattest view: adjacent dims every operand reads together
  // are one; at most two dims (rows and columns) may remain.
  SmallVector<ReassociationIndices> groups = collapsibleDims(op);
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  if (groups.size() > 2)
    return buildBatchedElementwiseKernel(op, groups, config, kernel, outputs,
                                         inputArgs, context, grid, numWarps);
  if (groups.size() == 1)
    groups.insert(groups.begin(), ReassociationIndices{});
  int64_t n = 1;
  for (int64_t d : groups[1])
    n *= ranges[d];
  SmallVector<ReassociationIndices> viewGroups = groups;
  bool oneDim = viewGroups.front().empty();
  if (oneDim)
    viewGroups.erase(viewGroups.begin());

  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, n, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  Location loc = op.getLoc();
  TileKernelBuilder kb(b, loc, schedule);
  auto [m0, n0] = kb.blockOrigin(n);
  MLIRContext *ctx = op.getContext();
  AffineMap identity2D = AffineMap::getMultiDimIdentityMap(2, ctx);

  // The operand's memref collapsed like the iteration space, and its map on
  // the [m, n] view.
  auto view = [&](Value memref, AffineMap map) -> std::pair<Value, AffineMap> {
    auto [collapsed, operandGroups] = collapseMap(map, viewGroups);
    auto type = cast<MemRefType>(memref.getType());
    if (type.getRank() != int64_t(operandGroups.size()))
      memref = memref::CollapseShapeOp::create(b, loc, memref, operandGroups);
    if (oneDim) // [n] seen as [1, n]
      collapsed = collapsed.getNumResults() == 0 ? AffineMap::get(2, 0, {}, ctx)
                                                 : identity2D;
    if (collapsed.getNumResults() == 2)
      collapsed = identity2D;
    return {memref, collapsed};
  };

  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    if (op.getMatchingIndexingMap(input).getNumResults() == 0) {
      // One value for the whole space (a rank-0 operand, as x * s of an
      // s: [1]): its element gathered at offset 0 by every thread.
      Type element = cast<MemRefType>(memref->getType()).getElementType();
      Value zero = kb.splat(
          arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)),
          kb.blockType(b.getI32Type()));
      mapping.map(op.getMatchingBlockArgument(input),
                  tile::MemRefGatherOp::create(b, loc, kb.blockType(element),
                                               viewFlat(b, loc, *memref),
                                               zero));
      continue;
    }
    auto [viewed, map] = view(*memref, op.getMatchingIndexingMap(input));
    FailureOr<Value> tile = kb.loadOperand(op, viewed, map, m0, n0);
    if (failed(tile))
      return failure();
    mapping.map(op.getMatchingBlockArgument(input), *tile);
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  // Positions: the rows' group down the block, the columns' across it.
  auto positions = [&](unsigned dim) {
    return positionOf(kb, op, groups, dim, [&](unsigned g) {
      return kb.blockIndices(g == 0 ? m0 : n0, g == 0);
    });
  };
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); }, {},
                          positions)))
    return failure();

  FailureOr<TileKernelBuilder::TileResults> results =
      TileKernelBuilder::yieldedTiles(op, mapping);
  if (failed(results))
    return failure();
  AffineMap outputMap =
      AffineMap::getMultiDimIdentityMap(ranges.size(), ctx);
  if (failed(storeResults(b, loc, outputs, *results, op, {m0, n0},
                          [&](Value m) {
                            return viewAs2D(b, loc,
                                            view(m, outputMap).first);
                          })))
    return failure();
  grid = blocksOf(loopExtent(op, groups[0]), schedule.blockM,
                  llvm::divideCeil(n, schedule.blockN));
  numWarps = schedule.numWarps();
  return success();
}
