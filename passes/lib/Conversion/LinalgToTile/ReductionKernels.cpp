//===- ReductionKernels.cpp - row reductions and softmax as programs ------===//
//
// Row reduction: BM rows per program (the config's block [BM, BN]); the
// columns are walked in BN-wide chunks accumulating a [BM, BN] tile with the
// combiner, then one tile.reduce across the row. An arg reduction (values
// and indices) accumulates (value, index) tiles with its body's choice and
// reduces them together. Softmax: whole rows per
// program (max, exp, sum, divide), computed in f32 for 16-bit floats.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;


/// An arg reduction along the rows (`x.max(-1)`: values and indices):
/// per-position (value, index) accumulators over the BN-wide chunks, the
/// body's choice folding each element in (its index the column's), then one
/// tile.reduce of both along the row with the choice as combiner (the lower
/// index wins ties across threads and warps as within them).
static LogicalResult buildRowArgReductionKernel(
    linalg::GenericOp op, const ArgReduction &r, linalg::GenericOp epilogue,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  Location loc = op.getLoc();
  if (epilogue)
    return epilogue.emitOpError("cannot be the epilogue of an arg reduction "
                                "(two results); it is a row program");
  FailureOr<std::pair<TypedAttr, TypedAttr>> fills = getArgFills(op);
  if (failed(fills))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t n = ranges[1];
  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, n, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, loc, schedule);
  Value m0 = kb.blockOrigin(schedule.blockN).first;
  Type valueType = r.acc.getType(), indexType = r.accIndex.getType();
  ArgPair init{
      kb.splat(arith::ConstantOp::create(b, loc, fills->first),
               kb.blockType(valueType)),
      kb.splat(arith::ConstantOp::create(b, loc, fills->second),
               kb.blockType(indexType))};
  Type i32 = b.getI32Type();
  auto along = [&](Value origin, bool rows) {
    int64_t size = rows ? schedule.blockM : schedule.blockN;
    RankedTensorType type = rows ? kb.rowsType(i32) : kb.colsType(i32);
    Value range = tile::ArangeOp::create(b, loc, type, 0u, uint32_t(size));
    Value start = arith::IndexCastOp::create(b, loc, i32, origin);
    Value shifted = arith::AddIOp::create(b, loc, range, kb.splat(start, type));
    return rows ? kb.broadcastRows(shifted) : kb.broadcastCols(shifted);
  };

  // One BN-wide chunk of columns starting at k, folded into `acc`.
  auto accumulateChunk = [&](Value k, ArgPair acc) -> FailureOr<ArgPair> {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
      if (failed(memref))
        return failure();
      FailureOr<Value> tile = kb.loadOperand(
          op, *memref, op.getMatchingIndexingMap(input), m0, k);
      if (failed(tile))
        return failure();
      mapping.map(op.getMatchingBlockArgument(input), *tile);
    }
    FailureOr<ArgPair> element = cloneArgElement(
        kb, op, r, mapping, [&](Type type) { return kb.blockType(type); },
        [&](unsigned dim) { return along(dim == 0 ? m0 : k, dim == 0); });
    if (failed(element))
      return failure();
    FailureOr<ArgPair> chosen = cloneArgChoiceOnTiles(kb, op, r, acc, *element);
    if (failed(chosen) || n % schedule.blockN == 0)
      return chosen;
    // Columns past the row's end leave the accumulator as it is.
    Value inBounds = columnsInBounds(kb, k, n);
    return ArgPair{
        arith::SelectOp::create(b, loc, inBounds, chosen->first, acc.first),
        arith::SelectOp::create(b, loc, inBounds, chosen->second,
                                acc.second)};
  };

  ArgPair acc;
  if (n <= schedule.blockN) {
    FailureOr<ArgPair> chunk = accumulateChunk(kb.index(0), init);
    if (failed(chunk))
      return failure();
    acc = *chunk;
  } else {
    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, kb.index(0), kb.index(n), kb.index(schedule.blockN),
        ValueRange{init.first, init.second},
        [&](OpBuilder &nested, Location, Value k, ValueRange iterArgs) {
          FailureOr<ArgPair> chunk =
              accumulateChunk(k, {iterArgs[0], iterArgs[1]});
          status = failure(failed(chunk));
          if (failed(chunk))
            chunk = ArgPair{iterArgs[0], iterArgs[1]};
          scf::YieldOp::create(nested, loc,
                               ValueRange{chunk->first, chunk->second});
        });
    if (failed(status))
      return failure();
    acc = {loop.getResult(0), loop.getResult(1)};
  }
  ArgPair rows = reduceArgPairs(b, loc, r, acc, /*axis=*/1,
                                kb.rowsType(valueType), kb.rowsType(indexType));
  TileKernelBuilder::TileResults results{{op.getResult(0), rows.first},
                                         {op.getResult(1), rows.second}};
  // Both results are stored (a value nobody reads has no output buffer).
  results.erase(llvm::remove_if(results,
                                [&](auto &result) {
                                  return !outputs.isReturned(result.first);
                                }),
                results.end());
  if (failed(storeResults(b, loc, outputs, results, op, {m0})))
    return failure();
  grid = blocksOf(loopExtent(op, {0}), schedule.blockM);
  numWarps = schedule.numWarps();
  return success();
}

LogicalResult mlir::tcc::buildRowReductionKernel(
    linalg::GenericOp op, linalg::GenericOp epilogue,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  AffineMap rowsMap =
      AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
  if (llvm::any_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return op.getMatchingIndexingMap(&init) != rowsMap;
      }))
    return op.emitOpError("reduces into an operand not indexed by the rows; "
                          "convert-linalg-to-tile reduces along the last dim");
  if (std::optional<ArgReduction> arg = matchArgReduction(op))
    return buildRowArgReductionKernel(op, *arg, epilogue, config, kernel,
                                      outputs, inputArgs, context, grid,
                                      numWarps);
  if (op.getNumDpsInits() != 1)
    return op.emitOpError("row reductions with several results are not "
                          "supported by convert-linalg-to-tile (but arg "
                          "reductions: a value and its index)");
  FailureOr<Value> fillValue = getFillValue(op.getDpsInits()[0]);
  if (failed(fillValue))
    return op.emitOpError("reduction init is not a constant fill");

  // The body is `yield combiner(x(inputs...), out)`.
  Block &body = op.getRegion().front();
  FailureOr<ReductionBody> reduction = matchReductionBody(op);
  if (failed(reduction))
    return failure();
  Operation *combiner = reduction->combiner;
  Value xValue = reduction->x;
  std::optional<TypedAttr> neutral = reduction->neutral;
  Type accType = combiner->getResult(0).getType();

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[0], n = ranges[1];
  // The widest of the inputs and the accumulator (the output's type).
  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, n, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, loc, schedule);
  Value m0 = kb.blockOrigin(schedule.blockN).first;
  Value identity = arith::ConstantOp::create(b, loc, *neutral);
  Value identityBlock = kb.splat(identity, kb.blockType(accType));

  // One BN-wide chunk of columns starting at k, folded into `acc`.
  auto accumulateChunk = [&](Value k, Value acc) -> FailureOr<Value> {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
      if (failed(memref))
        return failure();
      FailureOr<Value> tile = kb.loadOperand(
          op, *memref, op.getMatchingIndexingMap(input), m0, k);
      if (failed(tile))
        return failure();
      mapping.map(op.getMatchingBlockArgument(input), *tile);
    }
    // Positions (linalg.index): rows m0 + i, columns k + j.
    auto positions = [&](unsigned dim) -> FailureOr<Value> {
      return kb.blockIndices(dim == 0 ? m0 : k, dim == 0);
    };
    if (failed(kb.cloneBody(body, mapping,
                            [&](Type type) { return kb.blockType(type); },
                            {combiner}, positions)))
      return failure();
    Value x = mapping.lookupOrNull(xValue);
    if (!x)
      return op.emitOpError("reduces a value defined outside its body");
    if (n % schedule.blockN != 0)
      x = arith::SelectOp::create(b, loc, columnsInBounds(kb, k, n), x,
                                  identityBlock);
    return cloneCombiner(b, loc, combiner, acc, x);
  };

  Value acc;
  if (n <= schedule.blockN) {
    FailureOr<Value> chunk = accumulateChunk(kb.index(0), identityBlock);
    if (failed(chunk))
      return failure();
    acc = *chunk;
  } else {
    LogicalResult status = success();
    auto loop = scf::ForOp::create(
        b, loc, kb.index(0), kb.index(n), kb.index(schedule.blockN),
        ValueRange{identityBlock},
        [&](OpBuilder &nested, Location, Value k, ValueRange iterArgs) {
          FailureOr<Value> chunk = accumulateChunk(k, iterArgs[0]);
          if (failed(chunk)) {
            status = failure();
            scf::YieldOp::create(nested, loc, iterArgs[0]);
            return;
          }
          scf::YieldOp::create(nested, loc, *chunk);
        });
    if (failed(status))
      return failure();
    acc = loop.getResult(0);
  }
  Value rows = reduceRows(kb, acc, [&](OpBuilder &rb, Location l, Value lhs,
                                       Value rhs) {
    return cloneCombiner(rb, l, combiner, lhs, rhs);
  });
  // A fill other than the neutral element is an initial value: fold it in.
  auto fillConst = fillValue->getDefiningOp<arith::ConstantOp>();
  if (fillConst.getValue() != *neutral) {
    Value init = arith::ConstantOp::create(b, loc, fillConst.getValue());
    rows = cloneCombiner(b, loc, combiner, rows,
                         kb.splat(init, kb.rowsType(accType)));
  }

  // Elementwise consumers of the reduced rows (mean's divide, a cast back
  // to f16, ...) run on the [BM] rows before the store.
  TileKernelBuilder::TileResults results{{op.getResult(0), rows}};
  Operation *producer = op;
  if (epilogue) {
    if (epilogue.getNumLoops() != 1 ||
        epilogue.getStaticLoopRanges().front() != m)
      return epilogue.emitOpError("is not an elementwise epilogue over the "
                                  "reduced rows");
    auto loadRows = [&](Value memref, AffineMap map,
                        Type element) -> FailureOr<Value> {
      if (!map.isIdentity())
        return epilogue.emitOpError("reads an operand through a non-identity "
                                    "map; not supported after a reduction");
      return tile::MemRefLoadOp::create(b, loc, kb.rowsType(element), memref,
                                        ValueRange{m0}, Value(), Value())
          .getResult();
    };
    FailureOr<TileKernelBuilder::TileResults> applied = kb.applyEpilogue(
        op, rows, epilogue, inputArgs, loadRows,
        [&](Type type) { return kb.rowsType(type); });
    if (failed(applied))
      return failure();
    results = *applied;
    producer = epilogue;
  }
  if (failed(storeResults(b, loc, outputs, results, producer, {m0})))
    return failure();
  grid = blocksOf(loopExtent(op, {0}), schedule.blockM);
  numWarps = schedule.numWarps();
  return success();
}

/// A softmax over rows longer than registers hold, walked in BN-wide
/// chunks. walk = looped (online softmax, two walks over global memory):
/// the first keeps, per element position of the chunk, a running max m and
/// a sum s of exp(x - m), rescaled when m grows (s = s * exp(m_old - x) + 1
/// when x is the new max, s + exp(x - m) otherwise: one exp per element);
/// the row's max M and sum S then merge the positions (S = sum of
/// s * exp(m - M)). The last walk writes exp(x - M) / S. Computed in f32
/// for 16-bit floats.
///
/// walk = staged: the program first copies its row, chunk by chunk, into
/// one shared-memory slot per chunk (tile.async_copy, every chunk in flight
/// at once), and the walks read the slots: the row crosses global memory
/// once. Re-reading is cheap there, so a walk for the max and one for the
/// sum of exp(x - M) replace the online walk (half its arithmetic, for the
/// same exps), and only the first and last chunks are masked. Each thread
/// reads back the elements it copied (the copy's layout is the walk's).
static LogicalResult buildOnlineSoftmaxKernel(
    linalg::SoftmaxOp op, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t n = type.getShape().back();
  Type elementType = type.getElementType();
  unsigned bytes = elementBytes(elementType);
  // The config's [BM, BN] chunks (tcc-select-strategy: one row of 16
  // elements per thread of 8 warps). A one-row block walks its row from a
  // start that makes the row's vector runs aligned in memory whatever its
  // length (a 50257-wide row starts at any element): the layout takes the
  // widest vector, and the walks begin up to vec - 1 columns before the row
  // (those elements are outside the memref: not read, not written).
  unsigned widest = std::max(1u, kMaxVectorBytes / bytes);
  bool shifted = n % widest != 0 && config.getBlock()[0] == 1;
  FailureOr<BlockSchedule> planned = scheduleFromConfig(
      op, config, shifted ? int64_t(llvm::alignTo(n, widest)) : n, bytes,
      context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;
  bool staged = config.getWalk() == tile::RowWalk::staged;
  int64_t sharedBytes = stagedRowBytes(schedule, n, bytes);
  int64_t chunks = sharedBytes / (schedule.blockM * schedule.blockN * bytes);
  if (staged && sharedBytes > int64_t(context.target.getMaxSharedBytes()))
    return op.emitOpError()
           << "lowering_config walk = staged keeps " << chunks << " chunks of ["
           << schedule.blockM << ", " << schedule.blockN
           << "] in shared memory (" << sharedBytes
           << " bytes), more than the target's "
           << context.target.getMaxSharedBytes()
           << " (#tile.target max_shared_bytes); use walk = looped";
  FailureOr<Value> input = lookupInput(op.getInput(), inputArgs, op);
  if (failed(input))
    return failure();
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  FailureOr<Value> output = outputs.lookup(b, loc, op.getResult()[0], op);
  if (failed(output))
    return failure();
  TileKernelBuilder kb(b, loc, schedule);
  Value m0 = kb.blockOrigin(schedule.blockN).first;
  Type f32 = elementType.getIntOrFloatBitWidth() < 32 ? Type(b.getF32Type())
                                                      : elementType;
  const llvm::fltSemantics &semantics = cast<FloatType>(f32).getFloatSemantics();
  auto constant = [&](const APFloat &v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, v));
  };
  auto splat = [&](const APFloat &v) {
    return kb.splat(constant(v), kb.blockType(f32));
  };
  Value x2d = viewAs2D(b, loc, *input);
  Value y2d = viewAs2D(b, loc, (*output));
  Value start = kb.index(0), misalign;
  if (shifted) {
    Value offset = arith::MulIOp::create(b, loc, m0, kb.index(n));
    misalign = arith::RemUIOp::create(b, loc, offset, kb.index(schedule.vec));
    start = arith::SubIOp::create(b, loc, start, misalign);
  }
  Value slots;
  if (staged) {
    auto sharedLayout = tile::SharedEncodingAttr::get(
        b.getContext(), schedule.vec, 1, 1, ArrayRef<unsigned>{1, 0});
    auto bufferType = tile::SharedBufferType::get(
        b.getContext(), {chunks, schedule.blockM, schedule.blockN},
        elementType, sharedLayout);
    slots = tile::SharedAllocOp::create(b, loc, bufferType);
    // A shifted walk reads the row through a flat [1, rows * n] view from
    // its aligned start (m0 * n - misalign: the previous row's tail, never
    // before the buffer), so each copy is aligned; the walks mask what is
    // outside the row.
    Value source = x2d, row = m0, first = kb.index(0);
    if (shifted) {
      Value flat = viewAs1D(b, loc, *input);
      int64_t total = cast<MemRefType>(flat.getType()).getDimSize(0);
      source = memref::ExpandShapeOp::create(
          b, loc, MemRefType::get({1, total}, elementType), flat,
          ArrayRef<ReassociationIndices>{{0, 1}});
      row = kb.index(0);
      first = arith::SubIOp::create(
          b, loc, arith::MulIOp::create(b, loc, m0, kb.index(n)), misalign);
    }
    scf::ForOp::create(
        b, loc, kb.index(0), kb.index(chunks), kb.index(1), ValueRange{},
        [&](OpBuilder &, Location, Value slot, ValueRange) {
          Value col = arith::AddIOp::create(
              b, loc, first,
              arith::MulIOp::create(b, loc, slot, kb.index(schedule.blockN)));
          tile::AsyncCopyOp::create(b, loc, source, ValueRange{row, col},
                                    slots, slot, kb.layout);
          // One group per chunk: the max walk reads each chunk as it lands.
          tile::AsyncCommitGroupOp::create(b, loc);
          scf::YieldOp::create(b, loc);
        });
  }
  // Columns outside the row read as the lowest value: exp of them is 0.
  Value lowestInput = kb.splat(
      arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(elementType,
                         APFloat::getLargest(
                             cast<FloatType>(elementType).getFloatSemantics(),
                             /*Negative=*/true))),
      kb.blockType(elementType));
  // One chunk in the element type (the max is exact in it); staged: from
  // slot (k - start) / BN, or `knownSlot` where the caller knows it.
  auto loadRawChunk = [&](Value k, bool masked, Value knownSlot = {}) {
    Value x;
    if (staged) {
      Value slot = knownSlot ? knownSlot
                             : arith::DivSIOp::create(
                                   b, loc, arith::SubIOp::create(b, loc, k, start),
                                   kb.index(schedule.blockN))
                                   .getResult();
      x = tile::SharedLoadOp::create(b, loc, kb.blockType(elementType), slots,
                                     slot);
      if (masked)
        x = arith::SelectOp::create(b, loc, columnsInBounds(kb, k, n, shifted),
                                    x, lowestInput);
    } else {
      x = tile::MemRefLoadOp::create(b, loc, kb.blockType(elementType), x2d,
                                     ValueRange{m0, k},
                                     columnsInBounds(kb, k, n), lowestInput);
    }
    return x;
  };
  // One chunk as computed in (f32 for 16-bit floats).
  auto loadChunk = [&](Value k, bool masked) {
    Value x = loadRawChunk(k, masked);
    return f32 == elementType
               ? x
               : arith::ExtFOp::create(b, loc, kb.blockType(f32), x)
                     .getResult();
  };
  // One walk over the row's chunks carrying `init`: `step(k, masked,
  // carried)` is one chunk's. Looped: every chunk masked. Staged: the
  // first chunk masked (it starts before the row when shifted), then the
  // chunks wholly inside the row unmasked, then the rest (the row's tail)
  // masked.
  using Step =
      function_ref<SmallVector<Value>(Value k, bool masked, ValueRange)>;
  // The split of a staged walk (once for all its walks): the second chunk
  // and the first that ends past the row, start + BN * floor((n - start) /
  // BN).
  bool split = staged && chunks >= 3;
  Value second, tail;
  if (split) {
    Value blockN = kb.index(schedule.blockN);
    second = arith::AddIOp::create(b, loc, start, blockN);
    tail = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(
            b, loc,
            arith::DivUIOp::create(
                b, loc, arith::SubIOp::create(b, loc, kb.index(n), start),
                blockN),
            blockN));
  }
  auto walk = [&](ValueRange init, Step step) -> SmallVector<Value> {
    auto loop = [&](Value from, Value to, bool masked, ValueRange carried) {
      auto forOp = scf::ForOp::create(
          b, loc, from, to, kb.index(schedule.blockN), carried,
          [&](OpBuilder &, Location, Value k, ValueRange iter) {
            scf::YieldOp::create(b, loc, step(k, masked, iter));
          });
      return SmallVector<Value>(forOp.getResults());
    };
    if (!split)
      return loop(start, kb.index(n), /*masked=*/true, init);
    SmallVector<Value> carried = step(start, /*masked=*/true, init);
    carried = loop(second, tail, /*masked=*/false, carried);
    return loop(tail, kb.index(n), /*masked=*/true, carried);
  };
  auto combineMax = [](OpBuilder &rb, Location l, Value lhs, Value rhs) {
    return arith::MaximumFOp::create(rb, l, lhs, rhs).getResult();
  };
  auto combineAdd = [](OpBuilder &rb, Location l, Value lhs, Value rhs) {
    return arith::AddFOp::create(rb, l, lhs, rhs).getResult();
  };
  Value lowest = splat(APFloat::getLargest(semantics, true));
  Value zeros = splat(APFloat::getZero(semantics));
  Value rowMax, rowSum;
  APFloat log2eValue(semantics, "1.4426950408889634");
  Value log2e = splat(log2eValue);
  // exp2(x * log2 e + negShift) (staged: the row's shift, below).
  Value negShift;
  auto shiftedExp = [&](Value x, Value shift, bool approximate) -> Value {
    Value exponent = math::FmaOp::create(b, loc, x, log2e, shift);
    return approximate ? approxExp2(b, loc, exponent)
                       : math::Exp2Op::create(b, loc, exponent).getResult();
  };
  if (staged) {
    // The max walk stays in the element type: the max of 16-bit floats is
    // one of them, and packed f16x2/bf16x2 maxima take half the
    // instructions of converting each element first (the staged walks are
    // bound by instruction issue: 77% of issue slots for f16 50257-wide
    // rows on the H200). The per-position maxima are extended once.
    //
    // The max walk follows the copies in, unrolled over the chunks: chunk i
    // is read once its group has landed (at most chunks - 1 - i groups
    // still in flight), so the walk overlaps the row's arrival instead of
    // waiting for all of it. Chunk i is wholly inside the row when it starts
    // at or after column 0 (i > 0, or an unshifted walk) and ends by n
    // whatever the shift (start <= 0).
    Value positionMax;
    for (int64_t i = 0; i < chunks; ++i) {
      tile::AsyncWaitOp::create(b, loc,
                                b.getI32IntegerAttr(int32_t(chunks - 1 - i)));
      Value k = arith::AddIOp::create(b, loc, start,
                                      kb.index(i * schedule.blockN));
      bool inside = (i > 0 || !shifted) && (i + 1) * schedule.blockN <= n;
      Value x = loadRawChunk(k, !inside, kb.index(i));
      positionMax =
          i == 0 ? x : arith::MaximumFOp::create(b, loc, positionMax, x);
    }
    if (f32 != elementType)
      positionMax =
          arith::ExtFOp::create(b, loc, kb.blockType(f32), positionMax);
    rowMax = reduceRows(kb, positionMax, combineMax);
    // Both staged walks take exp2(x * log2 e - c) with one c per row, c =
    // M * log2 e rounded once: an fma per element instead of a subtraction
    // and a multiply. c's rounding shifts every exponent of the row alike,
    // so it cancels between the sum and the quotients.
    negShift = kb.broadcastRows(arith::NegFOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, rowMax,
            kb.splat(constant(log2eValue), kb.rowsType(f32)))));
    SmallVector<Value> sumTile =
        walk(zeros, [&](Value k, bool masked, ValueRange carried) {
          // Summed: approximate (approxExp2).
          Value e = shiftedExp(loadChunk(k, masked), negShift, true);
          return SmallVector<Value>{
              arith::AddFOp::create(b, loc, carried[0], e)};
        });
    rowSum = reduceRows(kb, sumTile[0], combineAdd);
  } else {
    SmallVector<Value> online = walk(
        ValueRange{lowest, zeros}, [&](Value k, bool masked, ValueRange carried) {
          // One exp per element: d = exp(min(m, x) - max(m, x)) is the
          // rescale of s when x is the new max (s * d + 1) and x's term
          // otherwise (s + d). NaN propagates through max, min and d.
          Value x = loadChunk(k, masked);
          Value mOld = carried[0], sOld = carried[1];
          Value mNew = arith::MaximumFOp::create(b, loc, mOld, x);
          Value low = arith::MinimumFOp::create(b, loc, mOld, x);
          Value d = expOfDifference(b, loc, low, mNew, /*approximate=*/true);
          Value grows = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::OGT, x, mOld);
          Value rescaled = arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, sOld, d),
              splat(APFloat::getOne(semantics)));
          Value added = arith::AddFOp::create(b, loc, sOld, d);
          return SmallVector<Value>{
              mNew, arith::SelectOp::create(b, loc, grows, rescaled, added)};
        });
    rowMax = reduceRows(kb, online[0], combineMax);
    Value merged = arith::MulFOp::create(
        b, loc, online[1],
        expOfDifference(b, loc, online[0], kb.broadcastRows(rowMax),
                        /*approximate=*/true));
    rowSum = reduceRows(kb, merged, combineAdd);
  }
  Value maxBlock = kb.broadcastRows(rowMax);
  // The quotient exp(x - M) / S. For a 16-bit result it is one exp2,
  // exp2((x - M) * log2 e - log2 S) (an fma, no multiply by 1 / S: the
  // exponent's extra rounding is far below the result's half ulp); an f32
  // result keeps the exact exp and one reciprocal per row.
  Value quotientTerm;
  bool foldSum = f32 != elementType;
  if (foldSum) {
    quotientTerm = kb.broadcastRows(arith::NegFOp::create(
        b, loc, math::Log2Op::create(b, loc, rowSum)));
  } else {
    quotientTerm = kb.broadcastRows(arith::DivFOp::create(
        b, loc,
        kb.splat(constant(APFloat::getOne(semantics)), kb.rowsType(f32)),
        rowSum));
  }
  walk(ValueRange{}, [&](Value k, bool masked, ValueRange) {
    Value x = loadChunk(k, masked);
    Value y;
    // 16-bit quotients (foldSum) are rounded to f16/bf16: approximate.
    if (foldSum && staged) {
      y = approxExp2(
          b, loc,
          arith::AddFOp::create(
              b, loc, math::FmaOp::create(b, loc, x, log2e, negShift),
              quotientTerm));
    } else if (foldSum) {
      Value d = arith::SubFOp::create(b, loc, x, maxBlock);
      y = approxExp2(b, loc,
                     math::FmaOp::create(b, loc, d, log2e, quotientTerm));
    } else {
      Value e = staged ? shiftedExp(x, negShift, false)
                       : expOfDifference(b, loc, x, maxBlock);
      y = arith::MulFOp::create(b, loc, e, quotientTerm);
    }
    if (f32 != elementType)
      y = arith::TruncFOp::create(b, loc, kb.blockType(elementType), y);
    tile::MemRefStoreOp::create(b, loc, y2d, ValueRange{m0, k}, y, Value());
    return SmallVector<Value>{};
  });
  grid = blocksOf(loopExtent(op, llvm::to_vector(llvm::seq<int64_t>(
                                      0, type.getRank() - 1))),
                  schedule.blockM);
  numWarps = schedule.numWarps();
  return success();
}

LogicalResult mlir::tcc::buildSoftmaxKernel(
    linalg::SoftmaxOp op, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (int64_t(op.getDimension()) != type.getRank() - 1)
    return op.emitOpError("softmax over a dim other than the last is not "
                          "supported by convert-linalg-to-tile");
  int64_t n = type.getShape().back();
  if (config.getWalk() == tile::RowWalk::looped ||
      config.getWalk() == tile::RowWalk::staged)
    // Rows longer than registers hold: two walks of BN-wide chunks.
    return buildOnlineSoftmaxKernel(op, config, kernel, outputs, inputArgs,
                                    context, grid, numWarps);
  Type elementType = type.getElementType();
  // Whole rows in registers: the block holds a row.
  int64_t blockN = config.getBlock()[1];
  if (blockN < n)
    return op.emitOpError()
           << "lowering_config block [" << config.getBlock()[0] << ", "
           << blockN << "] does not hold a softmax row of " << n
           << " elements";
  FailureOr<BlockSchedule> planned = scheduleFromConfig(
      op, config, n, elementBytes(elementType), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  FailureOr<Value> input = lookupInput(op.getInput(), inputArgs, op);
  if (failed(input))
    return failure();
  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, loc, schedule);
  Value m0 = kb.blockOrigin(blockN).first;
  Value zero = kb.index(0);

  // Columns past the row end read as -inf: they vanish from max and exp.
  Value mask, other;
  if (n != blockN) {
    mask = columnsInBounds(kb, zero, n);
    Value negInf = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(elementType,
                       APFloat::getInf(cast<FloatType>(elementType)
                                           .getFloatSemantics(),
                                       /*Negative=*/true)));
    other = kb.splat(negInf, kb.blockType(elementType));
  }
  Value x = tile::MemRefLoadOp::create(b, loc, kb.blockType(elementType),
                                       viewAs2D(b, loc, *input),
                                       ValueRange{m0, zero}, mask, other);
  Type computeType = elementType.getIntOrFloatBitWidth() < 32
                         ? Type(b.getF32Type())
                         : elementType;
  if (computeType != elementType)
    x = arith::ExtFOp::create(b, loc, kb.blockType(computeType), x);
  Value rowMax = reduceRows(kb, x, [](OpBuilder &rb, Location l, Value lhs,
                                      Value rhs) {
    return arith::MaximumFOp::create(rb, l, lhs, rhs).getResult();
  });
  // Summed, and the quotients' only factor: approximate where they are
  // rounded to a 16-bit type.
  Value exps = expOfDifference(b, loc, x, kb.broadcastRows(rowMax),
                               computeType != elementType);
  Value rowSum = reduceRows(kb, exps, [](OpBuilder &rb, Location l, Value lhs,
                                         Value rhs) {
    return arith::AddFOp::create(rb, l, lhs, rhs).getResult();
  });
  // One reciprocal per row, then multiplies: a full-precision divide per
  // element costs more than the row's loads.
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(computeType, 1.0));
  Value inverse = arith::DivFOp::create(
      b, loc, kb.splat(one, kb.rowsType(computeType)), rowSum);
  Value y = arith::MulFOp::create(b, loc, exps, kb.broadcastRows(inverse));
  if (computeType != elementType)
    y = arith::TruncFOp::create(b, loc, kb.blockType(elementType), y);

  FailureOr<Value> output = outputs.lookup(b, loc, op.getResult()[0], op);
  if (failed(output))
    return failure();
  tile::MemRefStoreOp::create(b, loc, viewAs2D(b, loc, *output),
                              ValueRange{m0, zero}, y, Value());
  grid = blocksOf(loopExtent(op, llvm::to_vector(llvm::seq<int64_t>(
                                      0, type.getRank() - 1))),
                  schedule.blockM);
  numWarps = schedule.numWarps();
  return success();
}
