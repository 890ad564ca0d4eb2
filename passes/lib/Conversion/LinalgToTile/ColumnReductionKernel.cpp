//===- ColumnReductionKernel.cpp - reductions of outer dims ---------------===//
//
// A column reduction (tcc/Analysis/ColumnSpace.h: [B, R, N] -> [B, N], the
// reduced loops R not innermost) and the elementwise ops over its outputs.
// One program per batch index b and BN-wide block of columns: lanes run
// along the contiguous columns (16-byte vectors), the rest of each warp and
// the warps down the reduced rows. The program walks R in BR-row chunks,
// accumulating a [BR, BN] tile of per-thread partials with the combiner
// (the elementwise prologue fused into the reduction applied to each loaded
// chunk; a last partial chunk masked), then one tile.reduce along the rows
// (in-thread, lane shuffles, and a shared-memory combine across warps) gives
// the [BN] results; the epilogue runs on them and they are stored. The
// batch and the rows may be dynamic: the walk and the grid are counted at
// run time from the reduced operand's sizes, the last chunk always masked. No
// atomics: every output is written by one program, so results are
// deterministic. An arg reduction (values and indices,
// tcc/Analysis/ArgReduction.h) accumulates (value, index) tiles with its
// body's choice, the indices those of its loops, and reduces them together.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// `memref` (dims in memory order) as [prod of the first `lead` dims, prod
/// of the rest]; a unit leading dim when `lead` is 0.
Value viewAs2DGroups(OpBuilder &b, Location loc, Value memref, unsigned lead) {
  auto type = cast<MemRefType>(memref.getType());
  unsigned rank = type.getRank();
  if (lead == 0) {
    if (rank > 1) {
      ReassociationIndices all;
      for (unsigned d = 0; d < rank; ++d)
        all.push_back(d);
      memref = memref::CollapseShapeOp::create(
          b, loc, memref, ArrayRef<ReassociationIndices>{all});
    }
    auto flat = cast<MemRefType>(memref.getType());
    return memref::ExpandShapeOp::create(
        b, loc,
        MemRefType::get({1, flat.getDimSize(0)}, flat.getElementType()),
        memref, ArrayRef<ReassociationIndices>{{0, 1}});
  }
  if (lead == 1 && rank == 2)
    return memref;
  ReassociationIndices first, second;
  for (unsigned d = 0; d < rank; ++d)
    (d < lead ? first : second).push_back(d);
  return memref::CollapseShapeOp::create(
      b, loc, memref, ArrayRef<ReassociationIndices>{first, second});
}

/// `memref` flattened to 1-D.
/// The config's schedule: BN = block[1] columns in vector-wide runs (the
/// widest vector keeping every row aligned), the rest of the warp and the
/// config's warps along the rows, BM = block[0] rows per chunk; a diagnostic
/// when the lanes along the row exceed a warp or the chunk has fewer rows
/// than the layout covers.
FailureOr<BlockSchedule> columnScheduleFromConfig(
    Operation *op, const ColumnReductionInfo &info, unsigned bytes,
    tile::LoweringConfigAttr config, const BuildContext &context) {
  BlockSchedule s;
  int64_t cols = info.columns;
  s.vec = std::max(1u, kMaxVectorBytes / bytes);
  while (s.vec > 1 && cols % s.vec != 0)
    s.vec /= 2;
  s.blockM = config.getBlock()[0];
  s.blockN = config.getBlock()[1];
  s.vec = std::min<int64_t>(s.vec, s.blockN);
  if (s.blockN / s.vec > context.warpSize)
    return op->emitOpError()
           << "lowering_config block [" << s.blockM << ", " << s.blockN
           << "] is wider than one warp's lanes of " << s.vec
           << "-element vectors (" << context.warpSize << " lanes)";
  s.tpwN = s.blockN / s.vec;
  s.tpwM = context.warpSize / s.tpwN;
  s.wpcM = config.getNumWarps();
  s.wpcN = 1;
  if (s.blockM % s.coverM() != 0)
    return op->emitOpError()
           << "lowering_config block [" << s.blockM << ", " << s.blockN
           << "] is not a multiple of the rows its layout covers ("
           << s.coverM() << " rows: " << s.tpwM << " lanes x " << s.wpcM
           << " warps)";
  return s;
}

class ColumnKernel {
public:
  ColumnKernel(ArrayRef<linalg::GenericOp> ops, const ColumnReductionInfo &info,
               TileKernelBuilder &kb, ArrayRef<Value> inputArgs)
      : ops(ops), info(info), kb(kb), b(kb.b), loc(kb.loc),
        inputArgs(inputArgs) {}

  LogicalResult build(const OutputMap &outputs);

private:
  /// The (one-result) reduction's [1, BN] result in `tiles`.
  LogicalResult reduce();
  /// The epilogue and the stores.
  LogicalResult finish(const OutputMap &outputs);
  /// tensor<1 x BN x elt, #blocked>: one value per output of the program.
  RankedTensorType outputsType(Type element) const {
    return RankedTensorType::get({1, kb.schedule.blockN}, element, kb.layout);
  }
  /// Loads operand `memref` read through `access` as a [1, BN] tile.
  Value loadOutputs(Value memref, ColumnAccess access);
  /// The [BR, BN] chunk of rows [r, r + BR) folded into `acc`.
  FailureOr<Value> accumulate(const ReductionBody &combiner, Value r, Value acc,
                              bool masked);
  LogicalResult evalEpilogue(linalg::GenericOp op);
  /// Rows [r, r + BR) of an arg reduction chosen into `acc` (rows past R
  /// leave it as it is when `masked`).
  FailureOr<ArgPair> accumulateArg(const ArgReduction &arg, Value r,
                                   ArgPair acc, bool masked);
  /// The arg reduction's [BN] values and indices.
  FailureOr<ArgPair> reduceArg(const ArgReduction &arg);
  /// Folds every BR-row chunk into `acc` with `step(r, acc, masked)`: the
  /// whole chunks in a loop, then the last partial one under a mask (always,
  /// when the rows are dynamic).
  using RowStep =
      function_ref<FailureOr<SmallVector<Value>>(Value, ValueRange, bool)>;
  FailureOr<SmallVector<Value>> walkRows(ValueRange acc, RowStep step);
  /// The extent (index) of the loop at memory-order `position`: a constant,
  /// or the reduced operand's size there.
  Value extent(unsigned position);
  /// i1 [BR, BN] tile: rows r + i < R.
  Value rowsInBounds(Value r);
  /// [BR, BN] i32 tile of loop `dim`'s indices over rows [r, r + BR).
  Value loopIndexTile(unsigned dim, Value r);

  ArrayRef<linalg::GenericOp> ops;
  const ColumnReductionInfo &info;
  TileKernelBuilder &kb;
  OpBuilder &b;
  Location loc;
  ArrayRef<Value> inputArgs;
  Value batchIndex, rowBase, n0;
  /// The first fully read operand (dims in memory order) and R.
  Value primary, reducedRows;
  /// The reduction's loop-invariant operands, as [BR, BN] tiles, and the
  /// [B * R, N] views of the others.
  DenseMap<unsigned, Value> invariant, fullViews;
  /// Values over the outputs, as [1, BN] tiles.
  DenseMap<Value, Value> tiles;
};

Value ColumnKernel::loadOutputs(Value memref, ColumnAccess access) {
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  if (access == ColumnAccess::Cols) {
    Value cols = tile::MemRefLoadOp::create(b, loc, kb.colsType(element),
                                            viewAs1D(b, loc, memref),
                                            ValueRange{n0}, Value(), Value());
    return tile::ExpandDimsOp::create(b, loc, outputsType(element), cols,
                                      /*axis=*/0u);
  }
  return tile::MemRefLoadOp::create(
      b, loc, outputsType(element),
      viewAs2DGroups(b, loc, memref, info.numBatchLoops),
      ValueRange{batchIndex, n0}, Value(), Value());
}

FailureOr<Value> ColumnKernel::accumulate(const ReductionBody &combiner, Value r,
                                          Value acc, bool masked) {
  linalg::GenericOp op = ops.front();
  Type accType = combiner.combiner->getResult(0).getType();
  Value mask = masked ? rowsInBounds(r) : Value();
  IRMapping mapping;
  Value row = arith::AddIOp::create(b, loc, rowBase, r);
  for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
    Value tile = invariant.lookup(i);
    if (!tile) {
      Type element = getElementTypeOrSelf(input->get());
      Value other =
          mask ? kb.splat(arith::ConstantOp::create(
                              b, loc, cast<TypedAttr>(b.getZeroAttr(element))),
                          kb.blockType(element))
               : Value();
      tile = tile::MemRefLoadOp::create(b, loc, kb.blockType(element),
                                        fullViews.lookup(i),
                                        ValueRange{row, n0}, mask, other);
    }
    mapping.map(op.getMatchingBlockArgument(input), tile);
  }
  Block &body = op.getRegion().front();
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); },
                          {combiner.combiner})))
    return failure();
  Value x = mapping.lookupOrNull(combiner.x);
  if (!x)
    return op.emitOpError("reduces a value defined outside its body");
  if (mask) {
    Value neutral = arith::ConstantOp::create(b, loc, combiner.neutral);
    x = arith::SelectOp::create(b, loc, mask, x,
                                kb.splat(neutral, kb.blockType(accType)));
  }
  return cloneCombiner(b, loc, combiner.combiner, acc, x);
}

Value ColumnKernel::extent(unsigned position) {
  linalg::GenericOp op = ops.front();
  int64_t size = op.getStaticLoopRanges()[info.order[position]];
  if (!ShapedType::isDynamic(size))
    return kb.index(size);
  return memref::DimOp::create(b, loc, primary, position);
}

FailureOr<SmallVector<Value>> ColumnKernel::walkRows(ValueRange init,
                                                     RowStep step) {
  int64_t blockM = kb.schedule.blockM;
  SmallVector<Value> acc(init);
  // Rows [0, whole) in whole chunks; -1 when counted at run time.
  bool dynamic = ShapedType::isDynamic(info.reduced);
  int64_t staticWhole = dynamic ? -1 : info.reduced - info.reduced % blockM;
  Value whole =
      dynamic ? arith::SubIOp::create(
                    b, loc, reducedRows,
                    arith::RemUIOp::create(b, loc, reducedRows,
                                           kb.index(blockM)))
                    .getResult()
              : kb.index(staticWhole);
  if (staticWhole == blockM) {
    FailureOr<SmallVector<Value>> folded = step(kb.index(0), acc, false);
    if (failed(folded))
      return failure();
    acc = *folded;
  } else if (staticWhole != 0) {
    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, kb.index(0), whole, kb.index(blockM), acc,
        [&](OpBuilder &nested, Location, Value r, ValueRange iterArgs) {
          FailureOr<SmallVector<Value>> folded = step(r, iterArgs, false);
          status = failure(failed(folded));
          scf::YieldOp::create(nested, loc,
                               succeeded(folded) ? ValueRange(*folded)
                                                 : iterArgs);
        });
    if (failed(status))
      return failure();
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (dynamic || staticWhole != info.reduced) {
    FailureOr<SmallVector<Value>> folded = step(whole, acc, true);
    if (failed(folded))
      return failure();
    acc = *folded;
  }
  return acc;
}

Value ColumnKernel::rowsInBounds(Value r) {
  Type i32 = b.getI32Type();
  Value rows = tile::ArangeOp::create(b, loc, kb.rowsType(i32), 0u,
                                      uint32_t(kb.schedule.blockM));
  Value r32 = arith::IndexCastOp::create(b, loc, i32, r);
  Value shifted =
      arith::AddIOp::create(b, loc, rows, kb.splat(r32, kb.rowsType(i32)));
  Value limit =
      ShapedType::isDynamic(info.reduced)
          ? arith::IndexCastOp::create(b, loc, i32, reducedRows).getResult()
          : arith::ConstantOp::create(b, loc,
                                      b.getI32IntegerAttr(info.reduced))
                .getResult();
  return kb.broadcastRows(arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, shifted,
      kb.splat(limit, kb.rowsType(i32))));
}

Value ColumnKernel::loopIndexTile(unsigned dim, Value r) {
  linalg::GenericOp op = ops.front();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ArrayRef<unsigned> order = info.order;
  unsigned position = llvm::find(order, dim) - order.begin();
  unsigned firstReduced = info.numBatchLoops;
  unsigned firstCol = firstReduced + info.numReducedLoops;
  // The loop's group (batch, reduced or columns) and the flat index in it.
  unsigned begin = position < firstReduced ? 0
                   : position < firstCol   ? firstReduced
                                           : firstCol;
  unsigned end = position < firstReduced ? firstReduced
                 : position < firstCol   ? firstCol
                                         : unsigned(order.size());
  Type i32 = b.getI32Type();
  RankedTensorType blockType = kb.blockType(i32);
  auto constant = [&](int64_t v) {
    return kb.splat(arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v)),
                    blockType);
  };
  Value flat;
  if (begin == 0 && position < firstReduced) {
    flat = kb.splat(arith::IndexCastOp::create(b, loc, i32, batchIndex),
                    blockType);
  } else {
    bool rows = begin == firstReduced;
    RankedTensorType type = rows ? kb.rowsType(i32) : kb.colsType(i32);
    int64_t size = rows ? kb.schedule.blockM : kb.schedule.blockN;
    Value range = tile::ArangeOp::create(b, loc, type, 0u, uint32_t(size));
    Value origin = arith::IndexCastOp::create(b, loc, i32, rows ? r : n0);
    Value shifted =
        arith::AddIOp::create(b, loc, range, kb.splat(origin, type));
    flat = rows ? kb.broadcastRows(shifted) : kb.broadcastCols(shifted);
  }
  // Its coordinate along the loop (the group's loops are row-major; dynamic
  // extents read off the reduced operand).
  auto extentTile = [&](Value size) {
    return kb.splat(arith::IndexCastOp::create(b, loc, i32, size), blockType);
  };
  int64_t stride = 1;
  Value dynamicStride;
  for (unsigned p = position + 1; p < end; ++p) {
    if (!ShapedType::isDynamic(ranges[order[p]])) {
      stride *= ranges[order[p]];
      continue;
    }
    Value size = extent(p);
    dynamicStride = dynamicStride
                        ? arith::MulIOp::create(b, loc, dynamicStride, size)
                        : size;
  }
  if (dynamicStride)
    flat = arith::DivUIOp::create(
        b, loc, flat,
        extentTile(arith::MulIOp::create(b, loc, dynamicStride,
                                         kb.index(stride))));
  else if (stride != 1)
    flat = arith::DivUIOp::create(b, loc, flat, constant(stride));
  if (position != begin)
    flat = arith::RemUIOp::create(
        b, loc, flat,
        ShapedType::isDynamic(ranges[dim]) ? extentTile(extent(position))
                                           : constant(ranges[dim]));
  return flat;
}

FailureOr<ArgPair> ColumnKernel::accumulateArg(const ArgReduction &arg,
                                               Value r, ArgPair acc,
                                               bool masked) {
  linalg::GenericOp op = ops.front();
  Value mask = masked ? rowsInBounds(r) : Value();
  IRMapping mapping;
  Value row = arith::AddIOp::create(b, loc, rowBase, r);
  for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
    Value tile = invariant.lookup(i);
    if (!tile) {
      Type element = getElementTypeOrSelf(input->get());
      Value other =
          mask ? kb.splat(arith::ConstantOp::create(
                              b, loc, cast<TypedAttr>(b.getZeroAttr(element))),
                          kb.blockType(element))
               : Value();
      tile = tile::MemRefLoadOp::create(b, loc, kb.blockType(element),
                                        fullViews.lookup(i),
                                        ValueRange{row, n0}, mask, other);
    }
    mapping.map(op.getMatchingBlockArgument(input), tile);
  }
  FailureOr<ArgPair> element = cloneArgElement(
      kb, op, arg, mapping, [&](Type type) { return kb.blockType(type); },
      [&](unsigned dim) { return loopIndexTile(dim, r); });
  if (failed(element))
    return failure();
  FailureOr<ArgPair> chosen = cloneArgChoiceOnTiles(kb, op, arg, acc, *element);
  if (failed(chosen) || !mask)
    return chosen;
  return ArgPair{
      arith::SelectOp::create(b, loc, mask, chosen->first, acc.first),
      arith::SelectOp::create(b, loc, mask, chosen->second, acc.second)};
}

FailureOr<ArgPair> ColumnKernel::reduceArg(const ArgReduction &arg) {
  linalg::GenericOp op = ops.front();
  FailureOr<std::pair<TypedAttr, TypedAttr>> fills = getArgFills(op);
  if (failed(fills))
    return failure();
  Type valueType = arg.acc.getType(), indexType = arg.accIndex.getType();
  ArgPair acc{kb.splat(arith::ConstantOp::create(b, loc, fills->first),
                       kb.blockType(valueType)),
              kb.splat(arith::ConstantOp::create(b, loc, fills->second),
                       kb.blockType(indexType))};
  FailureOr<SmallVector<Value>> walked = walkRows(
      ValueRange{acc.first, acc.second},
      [&](Value r, ValueRange iter,
          bool masked) -> FailureOr<SmallVector<Value>> {
        FailureOr<ArgPair> folded =
            accumulateArg(arg, r, {iter[0], iter[1]}, masked);
        if (failed(folded))
          return failure();
        return SmallVector<Value>{folded->first, folded->second};
      });
  if (failed(walked))
    return failure();
  acc = {(*walked)[0], (*walked)[1]};
  return reduceArgPairs(b, loc, arg, acc, /*axis=*/0, kb.colsType(valueType),
                        kb.colsType(indexType));
}

LogicalResult ColumnKernel::evalEpilogue(linalg::GenericOp op) {
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value tile = tiles.lookup(input->get());
    std::optional<ColumnAccess> access = classifyColumnEpilogueAccess(
        op.getMatchingIndexingMap(input), info.numColLoops);
    if (tile && access != ColumnAccess::Outputs)
      return op.emitOpError("reads a value of its kernel through a map other "
                            "than the identity");
    if (!tile) {
      FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
      if (failed(memref))
        return failure();
      tile = loadOutputs(*memref, *access);
    }
    mapping.map(op.getMatchingBlockArgument(input), tile);
  }
  Block &body = op.getRegion().front();
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return outputsType(type); })))
    return failure();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value tile = mapping.lookupOrNull(yielded);
    if (!tile)
      return op.emitOpError("yields a value defined outside its body");
    tiles[result] = tile;
  }
  return success();
}

LogicalResult ColumnKernel::build(const OutputMap &outputs) {
  linalg::GenericOp op = ops.front();
  std::optional<ArgReduction> arg = matchArgReduction(op);
  const BlockSchedule &s = kb.schedule;

  // This program's batch index and first column.
  int64_t blocksN = llvm::divideCeil(info.columns, s.blockN);
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  Value pidIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  batchIndex = arith::DivUIOp::create(b, loc, pidIndex, kb.index(blocksN));
  n0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, pidIndex, kb.index(blocksN)),
      kb.index(s.blockN));

  // Operands that do not vary along the rows are loaded once; the others
  // are read through [B * R, N] views. The first of those gives R.
  for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    if (info.inputs[i] == ColumnAccess::Full) {
      if (!primary) {
        primary = *memref;
        if (!ShapedType::isDynamic(info.reduced)) {
          reducedRows = kb.index(info.reduced);
        } else {
          reducedRows = extent(info.numBatchLoops);
          for (unsigned p = 1; p < info.numReducedLoops; ++p)
            reducedRows = arith::MulIOp::create(
                b, loc, reducedRows, extent(info.numBatchLoops + p));
        }
        rowBase = arith::MulIOp::create(b, loc, batchIndex, reducedRows);
      }
      fullViews[i] = viewAs2DGroups(
          b, loc, *memref, info.numBatchLoops + info.numReducedLoops);
      continue;
    }
    Value tile = loadOutputs(*memref, info.inputs[i]);
    invariant[i] = tile::BroadcastOp::create(
        b, loc, kb.blockType(getElementTypeOrSelf(input->get())), tile);
  }

  if (arg) {
    FailureOr<ArgPair> result = reduceArg(*arg);
    if (failed(result))
      return failure();
    tiles[op.getResult(0)] =
        tile::ExpandDimsOp::create(
            b, loc, outputsType(arg->acc.getType()), result->first,
            /*axis=*/0u);
    tiles[op.getResult(1)] =
        tile::ExpandDimsOp::create(
            b, loc, outputsType(arg->accIndex.getType()), result->second,
            /*axis=*/0u);
  } else if (failed(reduce())) {
    return failure();
  }
  return finish(outputs);
}

LogicalResult ColumnKernel::reduce() {
  linalg::GenericOp op = ops.front();
  FailureOr<ReductionBody> combiner = matchReductionBody(op);
  if (failed(combiner))
    return failure();
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  if (failed(fill))
    return op.emitOpError("reduction init is not a constant fill");
  Type accType = combiner->combiner->getResult(0).getType();
  Value neutral = arith::ConstantOp::create(b, loc, combiner->neutral);
  FailureOr<SmallVector<Value>> walked = walkRows(
      ValueRange{kb.splat(neutral, kb.blockType(accType))},
      [&](Value r, ValueRange iter,
          bool masked) -> FailureOr<SmallVector<Value>> {
        FailureOr<Value> folded = accumulate(*combiner, r, iter[0], masked);
        if (failed(folded))
          return failure();
        return SmallVector<Value>{*folded};
      });
  if (failed(walked))
    return failure();
  Value acc = walked->front();

  auto reduceOp = tile::ReduceOp::create(b, loc, TypeRange{kb.colsType(accType)},
                                         ValueRange{acc}, /*axis=*/0u);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *region = b.createBlock(&reduceOp.getCombiner(), {},
                                  {accType, accType}, {loc, loc});
    tile::ReduceReturnOp::create(
        b, loc,
        cloneCombiner(b, loc, combiner->combiner, region->getArgument(0),
                      region->getArgument(1)));
  }
  Value result = reduceOp.getResult(0);
  // A fill other than the neutral element is an initial value: fold it in.
  auto fillConst = fill->getDefiningOp<arith::ConstantOp>();
  if (fillConst.getValue() != combiner->neutral) {
    Value init = arith::ConstantOp::create(b, loc, fillConst.getValue());
    result = cloneCombiner(b, loc, combiner->combiner, result,
                           kb.splat(init, kb.colsType(accType)));
  }
  tiles[op.getResult(0)] = tile::ExpandDimsOp::create(
      b, loc, outputsType(accType), result, /*axis=*/0u);
  return success();
}

LogicalResult ColumnKernel::finish(const OutputMap &outputs) {
  for (linalg::GenericOp epilogue : ops.drop_front())
    if (failed(evalEpilogue(epilogue)))
      return failure();

  for (linalg::GenericOp kernelOp : ops)
    for (Value value : kernelOp->getResults()) {
      if (!outputs.isReturned(value))
        continue;
      FailureOr<Value> memref = outputs.lookup(b, loc, value, kernelOp);
      if (failed(memref))
        return failure();
      tile::MemRefStoreOp::create(
          b, loc, viewAs2DGroups(b, loc, *memref, info.numBatchLoops),
          ValueRange{batchIndex, n0}, tiles.lookup(value), Value());
    }
  return success();
}

} // namespace


LogicalResult mlir::tcc::buildColumnReductionKernel(
    ArrayRef<Operation *> kernelOps, tile::LoweringConfigAttr config,
    tile::FuncOp kernel, const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  SmallVector<linalg::GenericOp> ops;
  for (Operation *op : kernelOps)
    ops.push_back(cast<linalg::GenericOp>(op));
  ColumnReductionInfo info = *classifyColumnReduction(ops.front());
  // The vectors are those of the streamed (fully read) operands.
  unsigned bytes = streamedElementBytes(ops.front(), info);
  FailureOr<BlockSchedule> planned =
      columnScheduleFromConfig(ops.front(), info, bytes, config, context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, ops.front().getLoc(), schedule);
  ColumnKernel program(ops, info, kb, inputArgs);
  if (failed(program.build(outputs)))
    return failure();
  // Programs: B x column blocks (B counted at run time when dynamic).
  SmallVector<int64_t> batchLoops(info.order.begin(),
                                  info.order.begin() + info.numBatchLoops);
  grid = blocksOf(loopExtent(ops.front(), batchLoops), 1,
                  llvm::divideCeil(info.columns, schedule.blockN));
  numWarps = schedule.numWarps();
  return success();
}
