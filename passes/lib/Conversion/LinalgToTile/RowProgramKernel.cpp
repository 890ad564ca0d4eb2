//===- RowProgramKernel.cpp - row programs (several row reductions) -------===//
//
// A kernel over whole rows made of row reductions and the elementwise ops
// around them (LayerNorm, RMSNorm, log-softmax, ...): BM rows per program,
// the ops evaluated in program order on [BM, BN] tiles (values over the
// row's columns) and [BM] tiles (one value per row: the reductions and what
// is computed from them).
//
// An arg reduction (values and indices, tcc/Analysis/ArgReduction.h) keeps
// (value, index) tiles chosen with its body and reduces them together, its
// indices the columns' (or the rows' coordinates).
//
// Persistent when the row fits in registers (BN >= N): every tile is
// computed once and each reduction reads it from registers. Looped
// otherwise: each reduction walks the row in BN-wide chunks, recomputing the
// tiles it needs from the loads (the row's later reads come from L2), and a
// last walk computes and stores the row-wide results.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "tcc/Analysis/RowSpace.h"
#include "tcc/Transforms/DecomposeSoftmax.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

class RowProgram {
public:
  RowProgram(ArrayRef<linalg::GenericOp> ops, TileKernelBuilder &kb,
             ArrayRef<Value> inputArgs, int64_t n)
      : ops(ops), kb(kb), b(kb.b), loc(kb.loc), inputArgs(inputArgs), n(n) {
    for (linalg::GenericOp op : ops)
      for (Value result : op->getResults())
        producer[result] = op;
  }

  LogicalResult build(const OutputMap &outputs, Value m0, bool persistent);

private:
  /// Tiles of one chunk of columns starting at `k`: the row-wide values
  /// computed for it so far.
  struct Chunk {
    Value k;
    DenseMap<Value, Value> tiles;
  };

  FailureOr<Value> blockValue(Chunk &chunk, Value value);
  /// Maps `op`'s inputs onto tiles of `chunk` (block ops and reductions).
  LogicalResult mapInputs(Chunk &chunk, linalg::GenericOp op,
                          IRMapping &mapping);
  FailureOr<Value> reduce(Chunk *persistent, linalg::GenericOp op);
  /// An arg reduction's [BM] values and indices.
  FailureOr<ArgPair> reduceArg(Chunk *persistent, linalg::GenericOp op,
                               const ArgReduction &r);
  /// [BM, BN] i32 tile of the indices of loop `dim` of a Block or Reduce
  /// op of `rank` loops over `chunk`'s columns: a column's, or (of a row
  /// dim) the row's coordinate along it.
  Value loopIndexTile(Chunk &chunk, unsigned dim, ArrayRef<int64_t> ranges);
  /// The positions (linalg.index) of `op`'s loop dims on `chunk`'s block
  /// (loopIndexTile), for cloneBody.
  std::function<FailureOr<Value>(unsigned)> positions(Chunk &chunk,
                                                      linalg::GenericOp op);
  /// The [BM, BN] tile of `input` of `op` (a Gather access, its memref
  /// `memref`) over `chunk`: each element loaded at the offset of its loop
  /// coordinates in the (contiguous) operand. Columns past the row's end
  /// read what they read (reductions select them out, stores mask them);
  /// rows past the last have offsets past the operand's end (read as zero).
  Value gather(Chunk &chunk, linalg::GenericOp op, OpOperand *input,
               Value memref);
  LogicalResult evalRows(linalg::GenericOp op);
  /// The [BM] tile of per-row value `value` (a reduction or rows op of the
  /// program, or an input).
  FailureOr<Value> rowsValue(Value value, Operation *user);

  ArrayRef<linalg::GenericOp> ops;
  TileKernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  ArrayRef<Value> inputArgs;
  int64_t n;
  Value m0;
  DenseMap<Value, linalg::GenericOp> producer;
  DenseMap<Value, Value> rows; // per-row values computed
};

FailureOr<Value> RowProgram::rowsValue(Value value, Operation *user) {
  if (Value tile = rows.lookup(value))
    return tile;
  if (producer.count(value))
    return user->emitOpError("reads a per-row value of its row program "
                             "before it is computed");
  FailureOr<Value> memref = lookupInput(value, inputArgs, user);
  if (failed(memref))
    return failure();
  // Loaded once, where every chunk loop sees it.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(m0);
  Type element = getElementTypeOrSelf(value);
  Value tile = tile::MemRefLoadOp::create(b, loc, kb.rowsType(element),
                                          viewAs1D(b, loc, *memref),
                                          ValueRange{m0}, Value(), Value());
  rows[value] = tile;
  return tile;
}

LogicalResult RowProgram::mapInputs(Chunk &chunk, linalg::GenericOp op,
                                    IRMapping &mapping) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    std::optional<RowAccess> access =
        classifyRowAccess(op.getMatchingIndexingMap(input));
    Value tile;
    if (access == RowAccess::Rows) {
      FailureOr<Value> perRow = rowsValue(value, op);
      if (failed(perRow))
        return failure();
      tile = kb.broadcastRows(*perRow);
    } else if (access == RowAccess::Block && producer.count(value)) {
      FailureOr<Value> computed = blockValue(chunk, value);
      if (failed(computed))
        return failure();
      tile = *computed;
    } else if (access == RowAccess::Gather) {
      FailureOr<Value> memref = lookupInput(value, inputArgs, op);
      if (failed(memref))
        return failure();
      tile = gather(chunk, op, input, *memref);
    } else if (access) {
      FailureOr<Value> memref = lookupInput(value, inputArgs, op);
      if (failed(memref))
        return failure();
      MLIRContext *ctx = b.getContext();
      AffineMap map = AffineMap::getMultiDimIdentityMap(2, ctx);
      if (access == RowAccess::Cols)
        map = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
      FailureOr<Value> loaded = kb.loadOperand(op, *memref, map, m0, chunk.k);
      if (failed(loaded))
        return failure();
      tile = *loaded;
    } else {
      return op.emitOpError("reads an operand through a map a row program "
                            "does not support");
    }
    mapping.map(op.getMatchingBlockArgument(input), tile);
  }
  return success();
}

FailureOr<Value> RowProgram::blockValue(Chunk &chunk, Value value) {
  if (Value tile = chunk.tiles.lookup(value))
    return tile;
  linalg::GenericOp op = producer.lookup(value);
  std::optional<RowOpInfo> info = classifyRowOp(op);
  if (!info || info->kind != RowOpKind::Block)
    return op.emitOpError("is read over the row's columns but does not "
                          "compute values over them");
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  IRMapping mapping;
  if (failed(mapInputs(chunk, op, mapping)))
    return failure();
  Block &body = op.getRegion().front();
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); }, {},
                          positions(chunk, op))))
    return failure();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value tile = mapping.lookupOrNull(yielded);
    if (!tile)
      return op.emitOpError("yields a value defined outside its body");
    chunk.tiles[result] = tile;
  }
  return chunk.tiles.lookup(value);
}

FailureOr<Value> RowProgram::reduce(Chunk *persistent, linalg::GenericOp op) {
  FailureOr<ReductionBody> reduction = matchReductionBody(op);
  if (failed(reduction))
    return failure();
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  if (failed(fill))
    return op.emitOpError("reduction init is not a constant fill");
  Type accType = reduction->combiner->getResult(0).getType();
  Value identity = arith::ConstantOp::create(b, loc, reduction->neutral);
  Value identityBlock = kb.splat(identity, kb.blockType(accType));
  Block &body = op.getRegion().front();

  // The chunk's reduced values folded into `acc`.
  auto accumulate = [&](Chunk &chunk, Value acc) -> FailureOr<Value> {
    IRMapping mapping;
    if (failed(mapInputs(chunk, op, mapping)))
      return failure();
    if (failed(kb.cloneBody(body, mapping,
                            [&](Type type) { return kb.blockType(type); },
                            {reduction->combiner}, positions(chunk, op))))
      return failure();
    Value x = mapping.lookupOrNull(reduction->x);
    if (!x)
      return op.emitOpError("reduces a value defined outside its body");
    if (n % kb.schedule.blockN != 0)
      x = arith::SelectOp::create(b, loc, columnsInBounds(kb, chunk.k, n), x,
                                  identityBlock);
    return cloneCombiner(b, loc, reduction->combiner, acc, x);
  };

  Value acc;
  if (persistent) {
    FailureOr<Value> folded = accumulate(*persistent, identityBlock);
    if (failed(folded))
      return failure();
    acc = *folded;
  } else {
    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, kb.index(0), kb.index(n), kb.index(kb.schedule.blockN),
        ValueRange{identityBlock},
        [&](OpBuilder &nested, Location, Value k, ValueRange iterArgs) {
          Chunk chunk{k, {}};
          FailureOr<Value> folded = accumulate(chunk, iterArgs[0]);
          status = failure(failed(folded));
          scf::YieldOp::create(nested, loc,
                               succeeded(folded) ? *folded : iterArgs[0]);
        });
    if (failed(status))
      return failure();
    acc = loop.getResult(0);
  }
  Value result = reduceRows(kb, acc, [&](OpBuilder &rb, Location l, Value lhs,
                                         Value rhs) {
    return cloneCombiner(rb, l, reduction->combiner, lhs, rhs);
  });
  // A fill other than the neutral element is an initial value: fold it in.
  auto fillConst = fill->getDefiningOp<arith::ConstantOp>();
  if (fillConst.getValue() != reduction->neutral) {
    Value init = arith::ConstantOp::create(b, loc, fillConst.getValue());
    result = cloneCombiner(b, loc, reduction->combiner, result,
                           kb.splat(init, kb.rowsType(accType)));
  }
  return result;
}

std::function<FailureOr<Value>(unsigned)>
RowProgram::positions(Chunk &chunk, linalg::GenericOp op) {
  return [this, &chunk, op](unsigned dim) mutable -> FailureOr<Value> {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // The division and remainder take static extents: a dynamic dim may
    // only be the first row dim.
    for (unsigned d = dim + 1; d + 1 < ranges.size(); ++d)
      if (ShapedType::isDynamic(ranges[d]))
        return op->emitOpError()
               << "reads the positions (linalg.index) of loop dim " << dim
               << " before a row dim of dynamic size; not supported by "
                  "convert-linalg-to-tile";
    if (dim != 0 && dim + 1 != ranges.size() &&
        ShapedType::isDynamic(ranges[dim]))
      return op->emitOpError()
             << "reads the positions (linalg.index) of loop dim " << dim
             << ", of dynamic size after another row dim; not supported by "
                "convert-linalg-to-tile";
    return loopIndexTile(chunk, dim, ranges);
  };
}

Value RowProgram::loopIndexTile(Chunk &chunk, unsigned dim,
                                ArrayRef<int64_t> ranges) {
  Type i32 = b.getI32Type();
  bool column = dim + 1 == ranges.size();
  RankedTensorType type = column ? kb.colsType(i32) : kb.rowsType(i32);
  int64_t size = column ? kb.schedule.blockN : kb.schedule.blockM;
  Value range = tile::ArangeOp::create(b, loc, type, 0u, uint32_t(size));
  Value origin = arith::IndexCastOp::create(b, loc, i32, column ? chunk.k : m0);
  Value index = arith::AddIOp::create(b, loc, range, kb.splat(origin, type));
  if (column)
    return kb.broadcastCols(index);
  // The flattened row's coordinate along row dim `dim`.
  auto constant = [&](int64_t v) {
    return kb.splat(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)),
                    type);
  };
  int64_t stride = 1;
  for (int64_t extent : ranges.slice(dim + 1, ranges.size() - dim - 2))
    stride *= extent;
  if (stride != 1)
    index = arith::DivUIOp::create(b, loc, index, constant(stride));
  if (dim != 0)
    index = arith::RemUIOp::create(b, loc, index, constant(ranges[dim]));
  return kb.broadcastRows(index);
}

Value RowProgram::gather(Chunk &chunk, linalg::GenericOp op, OpOperand *input,
                        Value memref) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  AffineMap map = op.getMatchingIndexingMap(input);
  Type i32 = b.getI32Type();
  RankedTensorType indexType = kb.blockType(i32);
  Value offsets;
  int64_t stride = 1;
  for (AffineExpr expr : llvm::reverse(map.getResults())) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    if (ranges[dim] != 1) {
      Value term = loopIndexTile(chunk, dim, ranges);
      if (stride != 1)
        term = arith::MulIOp::create(
            b, loc, term,
            kb.splat(arith::ConstantOp::create(b, loc,
                                               b.getI32IntegerAttr(stride)),
                     indexType));
      offsets = offsets ? arith::AddIOp::create(b, loc, offsets, term) : term;
    }
    stride *= ranges[dim];
  }
  if (!offsets)
    offsets = kb.splat(
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)), indexType);
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  return tile::MemRefGatherOp::create(b, loc, kb.blockType(element),
                                      viewFlat(b, loc, memref), offsets);
}

FailureOr<ArgPair> RowProgram::reduceArg(Chunk *persistent,
                                         linalg::GenericOp op,
                                         const ArgReduction &r) {
  FailureOr<std::pair<TypedAttr, TypedAttr>> fills = getArgFills(op);
  if (failed(fills))
    return failure();
  Type valueType = r.acc.getType(), indexType = r.accIndex.getType();
  ArgPair init{kb.splat(arith::ConstantOp::create(b, loc, fills->first),
                        kb.blockType(valueType)),
               kb.splat(arith::ConstantOp::create(b, loc, fills->second),
                        kb.blockType(indexType))};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();

  // The chunk's elements chosen into `acc` (columns past the row's end
  // leave it as it is).
  auto accumulate = [&](Chunk &chunk, ArgPair acc) -> FailureOr<ArgPair> {
    IRMapping mapping;
    if (failed(mapInputs(chunk, op, mapping)))
      return failure();
    FailureOr<ArgPair> element = cloneArgElement(
        kb, op, r, mapping, [&](Type type) { return kb.blockType(type); },
        [&](unsigned dim) { return loopIndexTile(chunk, dim, ranges); });
    if (failed(element))
      return failure();
    FailureOr<ArgPair> chosen = cloneArgChoiceOnTiles(kb, op, r, acc, *element);
    if (failed(chosen) || n % kb.schedule.blockN == 0)
      return chosen;
    Value inBounds = columnsInBounds(kb, chunk.k, n);
    return ArgPair{
        arith::SelectOp::create(b, loc, inBounds, chosen->first, acc.first),
        arith::SelectOp::create(b, loc, inBounds, chosen->second,
                                acc.second)};
  };

  ArgPair acc;
  if (persistent) {
    FailureOr<ArgPair> folded = accumulate(*persistent, init);
    if (failed(folded))
      return failure();
    acc = *folded;
  } else {
    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, kb.index(0), kb.index(n), kb.index(kb.schedule.blockN),
        ValueRange{init.first, init.second},
        [&](OpBuilder &nested, Location, Value k, ValueRange iterArgs) {
          Chunk chunk{k, {}};
          FailureOr<ArgPair> folded =
              accumulate(chunk, {iterArgs[0], iterArgs[1]});
          status = failure(failed(folded));
          if (failed(folded))
            folded = ArgPair{iterArgs[0], iterArgs[1]};
          scf::YieldOp::create(nested, loc,
                               ValueRange{folded->first, folded->second});
        });
    if (failed(status))
      return failure();
    acc = {loop.getResult(0), loop.getResult(1)};
  }
  return reduceArgPairs(b, loc, r, acc, /*axis=*/1, kb.rowsType(valueType),
                        kb.rowsType(indexType));
}

LogicalResult RowProgram::evalRows(linalg::GenericOp op) {
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> tile = rowsValue(input->get(), op);
    if (failed(tile))
      return failure();
    mapping.map(op.getMatchingBlockArgument(input), *tile);
  }
  Block &body = op.getRegion().front();
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.rowsType(type); })))
    return failure();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value tile = mapping.lookupOrNull(yielded);
    if (!tile)
      return op.emitOpError("yields a value defined outside its body");
    rows[result] = tile;
  }
  return success();
}

LogicalResult RowProgram::build(const OutputMap &outputs, Value origin,
                                bool persistent) {
  m0 = origin;
  // A copy: classifyRowOp's results are temporaries (an ArrayRef into them
  // dangled once the statement ended).
  SmallVector<int64_t> programRows = classifyRowOp(ops.front())->rows;
  for (linalg::GenericOp op : ops)
    if (auto info = classifyRowOp(op); info && info->kind == RowOpKind::Reduce)
      programRows = info->rows;
  std::optional<Chunk> whole;
  if (persistent)
    whole = Chunk{kb.index(0), {}};
  // Per-row values, in program order (row-wide ones are computed where
  // they are read).
  SmallVector<Value> rowWideResults;
  for (linalg::GenericOp op : ops) {
    std::optional<RowOpInfo> info =
        classifyRowOp(op, ArrayRef<int64_t>(programRows));
    if (!info)
      return op.emitOpError("is not an op of a row program");
    if (info->kind == RowOpKind::Reduce) {
      if (std::optional<ArgReduction> arg = matchArgReduction(op)) {
        FailureOr<ArgPair> result =
            reduceArg(persistent ? &*whole : nullptr, op, *arg);
        if (failed(result))
          return failure();
        rows[op.getResult(0)] = result->first;
        rows[op.getResult(1)] = result->second;
        continue;
      }
      FailureOr<Value> result = reduce(persistent ? &*whole : nullptr, op);
      if (failed(result))
        return failure();
      rows[op.getResult(0)] = *result;
    } else if (info->kind == RowOpKind::Rows) {
      if (failed(evalRows(op)))
        return failure();
    } else {
      for (Value result : op->getResults())
        rowWideResults.push_back(result);
    }
  }

  // Store what leaves the kernel: per-row values once, row-wide values
  // chunk by chunk.
  for (linalg::GenericOp op : ops)
    for (Value value : op->getResults()) {
      Value tile = rows.lookup(value);
      if (!tile || !outputs.isReturned(value))
        continue;
      FailureOr<Value> memref = outputs.lookup(b, loc, value, op);
      if (failed(memref))
        return failure();
      tile::MemRefStoreOp::create(b, loc, viewAs1D(b, loc, *memref),
                                  ValueRange{m0}, tile, Value());
    }
  SmallVector<Value> stored;
  for (Value value : rowWideResults)
    if (outputs.isReturned(value))
      stored.push_back(value);
  auto storeChunk = [&](Chunk &chunk) -> LogicalResult {
    for (Value value : stored) {
      FailureOr<Value> tile = blockValue(chunk, value);
      if (failed(tile))
        return failure();
      FailureOr<Value> memref =
          outputs.lookup(b, loc, value, producer.lookup(value));
      if (failed(memref))
        return failure();
      tile::MemRefStoreOp::create(b, loc, viewAs2D(b, loc, *memref),
                                  ValueRange{m0, chunk.k}, *tile, Value());
    }
    return success();
  };
  if (stored.empty())
    return success();
  if (persistent)
    return storeChunk(*whole);
  LogicalResult status = success();
  scf::ForOp::create(b, loc, kb.index(0), kb.index(n),
                     kb.index(kb.schedule.blockN), ValueRange{},
                     [&](OpBuilder &nested, Location, Value k, ValueRange) {
                       Chunk chunk{k, {}};
                       status = storeChunk(chunk);
                       scf::YieldOp::create(nested, loc);
                     });
  return status;
}

} // namespace


LogicalResult mlir::tcc::buildRowProgramKernel(
    ArrayRef<Operation *> kernelOps, tile::LoweringConfigAttr config,
    tile::FuncOp kernel, const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  SmallVector<linalg::GenericOp> ops;
  for (Operation *op : kernelOps)
    ops.push_back(cast<linalg::GenericOp>(op));
  std::optional<RowOpInfo> space =
      classifyRowOp(cast<linalg::GenericOp>(rowProgramRoot(kernelOps)));
  int64_t n = space->columns;
  unsigned bytes = 1;
  for (linalg::GenericOp op : ops)
    bytes = std::max(bytes, widestElementBytes(op));
  // Whole rows in registers (persistent), or BN-wide chunks (looped).
  bool persistent = config.getWalk() != tile::RowWalk::looped;
  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(ops.front(), config, n, bytes, context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;
  if (persistent && schedule.blockN < n)
    return ops.front()->emitOpError()
           << "lowering_config block [" << schedule.blockM << ", "
           << schedule.blockN << "] does not hold a row of " << n
           << " elements; a shorter block needs walk = looped";

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, ops.front().getLoc(), schedule);
  Value m0 = kb.blockOrigin(schedule.blockN).first;
  RowProgram program(ops, kb, inputArgs, n);
  if (failed(program.build(outputs, m0, persistent)))
    return failure();
  grid = blocksOf(loopExtent(rowProgramRoot(kernelOps),
                             llvm::to_vector(llvm::seq<int64_t>(
                                 0, space->rows.size()))),
                  schedule.blockM);
  numWarps = schedule.numWarps();
  return success();
}
