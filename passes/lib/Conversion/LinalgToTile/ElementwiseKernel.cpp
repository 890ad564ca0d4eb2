//===- ElementwiseKernel.cpp - elementwise linalg.generic as a program ----===//
//
// One [BM, BN] block of the (collapsed) 2-D iteration space per program:
// load every operand's window (or broadcast row/column vector), apply the
// generic's body to whole tiles, store the results.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// Groups of adjacent iteration dims that every operand reads together (both
/// or neither, in order), so an N-d elementwise op runs on the flattest view:
/// [B, S, D] + a bias over D is [B*S, D] + a column vector.
SmallVector<ReassociationIndices> collapsibleDims(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto together = [&](unsigned d) {
    for (AffineMap map : maps) {
      std::optional<unsigned> a = map.getResultPosition(
          getAffineDimExpr(d, op.getContext()));
      std::optional<unsigned> b = map.getResultPosition(
          getAffineDimExpr(d + 1, op.getContext()));
      if (a.has_value() != b.has_value() || (a && *b != *a + 1))
        return false;
    }
    return true;
  };
  SmallVector<ReassociationIndices> groups{{0}};
  for (unsigned d = 0; d + 1 < rank; ++d) {
    if (together(d))
      groups.back().push_back(d + 1);
    else
      groups.push_back({int64_t(d + 1)});
  }
  return groups;
}

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

bool isInOrderProjection(AffineMap map) {
  if (!map.isProjectedPermutation())
    return false;
  int64_t last = -1;
  for (AffineExpr e : map.getResults()) {
    int64_t d = cast<AffineDimExpr>(e).getPosition();
    if (d <= last)
      return false;
    last = d;
  }
  return true;
}

} // namespace

LogicalResult mlir::tcc::buildElementwiseKernel(
    linalg::GenericOp op, tile::FuncOp kernel, const OutputMap &outputs,
    ArrayRef<Value> inputArgs, const ScheduleOptions &options, int64_t &grid,
    unsigned &numWarps) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return op.emitOpError("rank-0 kernels are not supported by "
                          "convert-linalg-to-tile");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, isInOrderProjection))
    return op.emitOpError()
           << "elementwise op reads an operand through a permuted or "
              "non-projection map; not supported by convert-linalg-to-tile";
  // Run on the flattest view: adjacent dims every operand reads together
  // are one; at most two dims (rows and columns) may remain.
  SmallVector<ReassociationIndices> groups = collapsibleDims(op);
  if (groups.size() > 2)
    return op.emitOpError()
           << "rank-" << ranges.size()
           << " elementwise op broadcasts along " << groups.size()
           << " separate groups of dims; convert-linalg-to-tile supports "
              "views of at most 2 (rows and columns)";
  if (groups.size() == 1)
    groups.insert(groups.begin(), ReassociationIndices{});
  int64_t m = 1, n = 1;
  for (int64_t d : groups[0])
    m *= ranges[d];
  for (int64_t d : groups[1])
    n *= ranges[d];
  SmallVector<ReassociationIndices> viewGroups = groups;
  bool oneDim = viewGroups.front().empty();
  if (oneDim)
    viewGroups.erase(viewGroups.begin());

  unsigned bytes = 1;
  for (Value operand : op->getOperands())
    bytes = std::max(bytes, elementBytes(getElementTypeOrSelf(operand)));
  // A flat stream (one row) takes the whole block along it.
  std::optional<int64_t> maxBlockN;
  if (m == 1)
    maxBlockN = std::max<int64_t>(
        options.elementsPerProgram,
        std::max(1u, options.vectorBytes / bytes) * options.warpSize *
            options.numWarps * 2);
  BlockSchedule schedule = chooseBlockSchedule(m, n, bytes, options.numWarps,
                                               options, maxBlockN);

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
    auto [viewed, map] = view(*memref, op.getMatchingIndexingMap(input));
    if (map.getNumResults() == 0)
      return op.emitOpError("reads a rank-0 operand; not supported by "
                            "convert-linalg-to-tile");
    FailureOr<Value> tile = kb.loadOperand(op, viewed, map, m0, n0);
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
  AffineMap outputMap =
      AffineMap::getMultiDimIdentityMap(ranges.size(), ctx);
  if (failed(storeResults(b, loc, outputs, results, op, {m0, n0},
                          [&](Value m) {
                            return viewAs2D(b, loc,
                                            view(m, outputMap).first);
                          })))
    return failure();
  grid = llvm::divideCeil(m, schedule.blockM) *
         llvm::divideCeil(n, schedule.blockN);
  numWarps = schedule.numWarps();
  return success();
}
