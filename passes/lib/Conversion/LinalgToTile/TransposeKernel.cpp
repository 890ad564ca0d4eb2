//===- TransposeKernel.cpp - permutations staged through shared memory ----===//
//
// An elementwise op that reads an operand transposed (the last two dims
// swapped, a leading batch dim kept): each program covers a T x T block of
// the output. The transposed operand is read through a transposed memref
// view with a layout whose threads run along the operand's contiguous dim
// (coalesced, 16-byte vectors), converted to the output's layout (threads
// along the output's contiguous dim) through shared memory, computed on and
// stored coalesced. Operands read straight are loaded in the output's
// layout.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

constexpr int64_t kTile = 64;

/// The permutation `map` applies when it swaps the last two dims of a rank-r
/// space (r = 2, or 3 with a leading batch dim), else nullopt.
bool swapsLastTwo(AffineMap map) {
  unsigned rank = map.getNumDims();
  if ((rank != 2 && rank != 3) || !map.isPermutation())
    return false;
  SmallVector<unsigned> perm;
  for (AffineExpr e : map.getResults())
    perm.push_back(cast<AffineDimExpr>(e).getPosition());
  return rank == 2 ? perm == SmallVector<unsigned>{1, 0}
                   : perm == SmallVector<unsigned>{0, 2, 1};
}

} // namespace

bool mlir::tcc::isTransposeKernel(linalg::GenericOp op) {
  if (op.getNumLoops() < 2 || op.getNumLoops() > 3 ||
      !llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::parallel;
      }))
    return false;
  bool anySwapped = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (swapsLastTwo(map))
      anySwapped = true;
    else if (!map.isIdentity())
      return false;
  }
  return anySwapped &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

LogicalResult mlir::tcc::buildTransposeKernel(
    linalg::GenericOp op, tile::FuncOp kernel, const OutputMap &outputs,
    ArrayRef<Value> inputArgs, const ScheduleOptions &options, int64_t &grid,
    unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool batched = ranges.size() == 3;
  int64_t batch = batched ? ranges[0] : 1;
  int64_t rows = ranges[ranges.size() - 2], cols = ranges.back();
  unsigned bytes = 1;
  for (Value operand : op->getOperands())
    bytes = std::max(bytes, elementBytes(getElementTypeOrSelf(operand)));
  unsigned warpSize = options.warpSize;
  unsigned warps = 4;
  // T x T blocks, vectors of up to 16 bytes along each side's contiguous
  // dim; lanes cover T / vec of it, the rest of the warp the other dim.
  int64_t vec = std::min<int64_t>(options.vectorBytes / bytes, 4);
  int64_t lanesAlong = std::min<int64_t>(kTile / vec, warpSize);
  int64_t lanesAcross = warpSize / lanesAlong;
  // Output layout: threads along the output's columns.
  auto outLayout = tile::BlockedEncodingAttr::get(
      ctx, {1, unsigned(vec)}, {unsigned(lanesAcross), unsigned(lanesAlong)},
      {warps, 1}, {1, 0});
  // Transposed-operand layout: threads along the output's rows (the
  // operand's contiguous dim).
  auto inLayout = tile::BlockedEncodingAttr::get(
      ctx, {unsigned(vec), 1}, {unsigned(lanesAlong), unsigned(lanesAcross)},
      {1, warps}, {0, 1});
  auto tileType = [&](Type element, Attribute layout) {
    return RankedTensorType::get({kTile, kTile}, element, layout);
  };

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t blocksR = llvm::divideCeil(rows, kTile);
  int64_t blocksC = llvm::divideCeil(cols, kTile);
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  pid = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  Value perBatch = index(blocksR * blocksC);
  Value batchIndex = arith::DivUIOp::create(b, loc, pid, perBatch);
  Value inBatch = arith::RemUIOp::create(b, loc, pid, perBatch);
  Value r0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, inBatch, index(blocksC)),
      index(kTile));
  Value c0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, inBatch, index(blocksC)),
      index(kTile));
  // This batch's 2-D slice of a memref (rank 3), or the memref.
  auto slice = [&](Value memref) {
    return batched ? sliceBatch(b, loc, memref, batchIndex) : memref;
  };

  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    Type element = getElementTypeOrSelf(input->get());
    Value view = slice(*memref);
    Value loaded;
    if (swapsLastTwo(op.getMatchingIndexingMap(input))) {
      // [cols, rows] in memory, read as the [rows, cols] view.
      auto transposed = memref::TransposeOp::create(
          b, loc, view,
          AffineMapAttr::get(AffineMap::getPermutationMap(
              ArrayRef<unsigned>{1, 0}, ctx)));
      Value t = tile::MemRefLoadOp::create(b, loc, tileType(element, inLayout),
                                           transposed, ValueRange{r0, c0},
                                           Value(), Value());
      loaded = tile::ConvertLayoutOp::create(b, loc,
                                             tileType(element, outLayout), t);
    } else {
      loaded = tile::MemRefLoadOp::create(b, loc, tileType(element, outLayout),
                                          view, ValueRange{r0, c0}, Value(),
                                          Value());
    }
    mapping.map(op.getMatchingBlockArgument(input), loaded);
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  TileKernelBuilder kb(b, loc, BlockSchedule{});
  Block &body = op.getRegion().front();
  if (failed(kb.cloneBody(body, mapping, [&](Type type) {
        return tileType(type, outLayout);
      })))
    return failure();
  TileKernelBuilder::TileResults results;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value value = mapping.lookupOrNull(yielded);
    if (!value)
      return op.emitOpError("yields a value defined outside its body");
    results.push_back({result, value});
  }
  if (failed(storeResults(b, loc, outputs, results, op, {r0, c0}, slice)))
    return failure();
  grid = batch * blocksR * blocksC;
  numWarps = warps;
  return success();
}
