//===- ElementwiseKernel.cpp - elementwise linalg.generic as a program ----===//
//
// One [BM, BN] block (the config's) of the (collapsed) 2-D iteration space
// per program: load every operand's window (or broadcast row/column
// vector), apply the generic's body to whole tiles, store the results.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tcc;

LogicalResult mlir::tcc::buildElementwiseKernel(
    linalg::GenericOp op, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, int64_t &grid, unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool allIdentity =
      llvm::all_of(maps, [](AffineMap map) { return map.isIdentity(); });
  if (ranges.empty())
    return op.emitOpError("rank-0 kernels are not supported by "
                          "convert-linalg-to-tile");
  if (ranges.size() != 2 && !allIdentity)
    return op.emitOpError()
           << "rank-" << ranges.size()
           << " elementwise op with broadcasting operands is not supported by "
              "convert-linalg-to-tile (rank 2 only)";
  // Rank != 2 runs on the collapsed [leading, last] view of each operand.
  int64_t n = ranges.back();
  int64_t m = 1;
  for (int64_t size : ArrayRef<int64_t>(ranges).drop_back())
    m *= size;
  AffineMap identity2D = AffineMap::getMultiDimIdentityMap(2, op.getContext());

  FailureOr<BlockSchedule> planned =
      scheduleFromConfig(op, config, n, widestElementBytes(op), context);
  if (failed(planned))
    return failure();
  BlockSchedule schedule = *planned;

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  TileKernelBuilder kb(b, op.getLoc(), schedule);
  auto [m0, n0] = kb.blockOrigin(n);

  Block &body = op.getRegion().front();
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    AffineMap map = allIdentity ? identity2D : op.getMatchingIndexingMap(input);
    FailureOr<Value> tile = kb.loadOperand(op, *memref, map, m0, n0);
    if (failed(tile))
      return failure();
    mapping.map(op.getMatchingBlockArgument(input), *tile);
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return op.emitOpError("reads its output operands; convert-linalg-to-"
                            "tile expects pure elementwise bodies");
  if (failed(kb.cloneBody(body, mapping,
                          [&](Type type) { return kb.blockType(type); })))
    return failure();

  TileKernelBuilder::TileResults results;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value value = mapping.lookupOrNull(yielded);
    if (!value)
      return op.emitOpError("yields a value defined outside its body");
    results.push_back({result, value});
  }
  Location loc = op.getLoc();
  if (failed(storeResults(b, loc, outputs, results, op, {m0, n0},
                          [&](Value m) { return viewAs2D(b, loc, m); })))
    return failure();
  grid = llvm::divideCeil(m, schedule.blockM) *
         llvm::divideCeil(n, schedule.blockN);
  numWarps = schedule.numWarps();
  return success();
}
