//===- TransposeKernel.cpp - permutations staged through shared memory ----===//
//
// An elementwise op that reads an operand transposed (a permutation that
// moves the operand's contiguous dim away from the last; other dims, such as
// batch and heads, are one index per program): each program covers a T x T
// block of the output's (transposed dim, last dim). The transposed operand is read through a transposed memref
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



LogicalResult mlir::tcc::buildTransposeKernel(
    linalg::GenericOp op, tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned rank = ranges.size();
  // The tile's dims: `across`, where the transposed operands' contiguous dim
  // lands, and the last (the output's contiguous dim); every other dim is
  // one index per program.
  unsigned across = 0;
  for (OpOperand *input : op.getDpsInputOperands())
    if (auto d = transposedDim(op.getMatchingIndexingMap(input)))
      across = *d;
  unsigned last = rank - 1;
  int64_t rows = ranges[across], cols = ranges[last];
  auto isDynamic = [](int64_t size) { return ShapedType::isDynamic(size); };
  // The other dims may be dynamic (verifyDynamicLoops: a batch, heads),
  // the tile's two not.
  SmallVector<int64_t> others;
  for (unsigned d = 0; d < rank; ++d)
    if (d != across && d != last)
      others.push_back(d);
  unsigned bytes = 1;
  for (Value operand : op->getOperands())
    bytes = std::max(bytes, elementBytes(getElementTypeOrSelf(operand)));
  unsigned warpSize = context.warpSize;
  // The config's T x T tile (a square block) on its warps.
  int64_t kTile = config.getBlock()[0];
  unsigned warps = config.getNumWarps();
  // T x T blocks in plain layouts (tcc-coalesce gives each side its vectors
  // of up to 16 bytes along its contiguous dim): lanes along that dim first,
  // warps along the other.
  // Output layout: threads along the output's columns.
  auto outLayout = tile::getDistributedBlocked(ctx, {kTile, kTile}, {1, 1},
                                               {1, 0}, warpSize, warps,
                                               {warps, 1});
  // Transposed-operand layout: threads along the tile's rows (the operand's
  // contiguous dim).
  auto inLayout = tile::getDistributedBlocked(ctx, {kTile, kTile}, {1, 1},
                                              {0, 1}, warpSize, warps,
                                              {1, warps});
  auto tileType = [&](Type element, Attribute layout) {
    return RankedTensorType::get({kTile, kTile}, element, layout);
  };

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // Loop `d`'s size: static, or the dim of an input that it indexes.
  auto loopSize = [&](unsigned d) -> FailureOr<Value> {
    if (!ShapedType::isDynamic(ranges[d]))
      return index(ranges[d]);
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      for (auto [j, result] : llvm::enumerate(map.getResults()))
        if (result == getAffineDimExpr(d, ctx)) {
          FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
          if (failed(memref))
            return failure();
          return memref::DimOp::create(b, loc, *memref, j).getResult();
        }
    }
    return op.emitOpError() << "has dynamic loop " << d
                            << " that no input indexes";
  };
  // The tiles along a dim (counted at run time when it is dynamic).
  auto tilesAlong = [&](unsigned d) -> FailureOr<Value> {
    if (!ShapedType::isDynamic(ranges[d]))
      return index(llvm::divideCeil(ranges[d], kTile));
    FailureOr<Value> size = loopSize(d);
    if (failed(size))
      return failure();
    return arith::DivUIOp::create(
               b, loc, arith::AddIOp::create(b, loc, *size, index(kTile - 1)),
               index(kTile))
        .getResult();
  };
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  pid = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  FailureOr<Value> blocksR = tilesAlong(across), blocksC = tilesAlong(last);
  if (failed(blocksR) || failed(blocksC))
    return failure();
  Value perBatch =
      isDynamic(rows) || isDynamic(cols)
          ? arith::MulIOp::create(b, loc, *blocksR, *blocksC).getResult()
          : index(llvm::divideCeil(rows, kTile) * llvm::divideCeil(cols, kTile));
  Value outer = arith::DivUIOp::create(b, loc, pid, perBatch);
  Value inBatch = arith::RemUIOp::create(b, loc, pid, perBatch);
  Value r0 = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, inBatch, *blocksC),
      index(kTile));
  Value c0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, inBatch, *blocksC),
      index(kTile));
  // The other dims' indices of this program (the last of them fastest; a
  // dynamic first takes what is left).
  DenseMap<unsigned, Value> fixed;
  for (auto [i, d] : llvm::enumerate(llvm::reverse(others))) {
    if (i + 1 == others.size() && ShapedType::isDynamic(ranges[d])) {
      fixed[d] = outer;
      break;
    }
    FailureOr<Value> size = loopSize(d);
    if (failed(size))
      return failure();
    fixed[d] = arith::RemUIOp::create(b, loc, outer, *size);
    outer = arith::DivUIOp::create(b, loc, outer, *size);
  }
  // The 2-D [rows, cols] slice of `memref` (read through the permutation
  // `map`) at this program's indices of the other dims.
  auto slice = [&](Value memref, AffineMap map) -> Value {
    if (!map.isIdentity()) {
      // The view's dim i is iteration dim i: operand dim j is read by
      // iteration dim map[j], so view dim i is operand dim map^-1(i).
      SmallVector<unsigned> perm(rank);
      for (unsigned i = 0; i < rank; ++i)
        perm[cast<AffineDimExpr>(map.getResult(i)).getPosition()] = i;
      memref = memref::TransposeOp::create(
          b, loc, memref,
          AffineMapAttr::get(AffineMap::getPermutationMap(perm, ctx)));
    }
    if (rank == 2)
      return memref;
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<OpFoldResult> offsets, sizes;
    for (unsigned d = 0; d < rank; ++d) {
      bool kept = d == across || d == last;
      offsets.push_back(kept ? OpFoldResult(b.getIndexAttr(0))
                             : OpFoldResult(fixed[d]));
      sizes.push_back(kept ? memref::getMixedSize(b, loc, memref, d)
                           : OpFoldResult(b.getIndexAttr(1)));
    }
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    auto sliceType = memref::SubViewOp::inferRankReducedResultType(
        {rows, cols}, type, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                     memref, offsets, sizes, strides);
  };

  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> memref = lookupInput(input->get(), inputArgs, op);
    if (failed(memref))
      return failure();
    Type element = getElementTypeOrSelf(input->get());
    AffineMap map = op.getMatchingIndexingMap(input);
    Value view = slice(*memref, map);
    Value loaded;
    if (transposedDim(map)) {
      Value t = tile::MemRefLoadOp::create(b, loc, tileType(element, inLayout),
                                           view, ValueRange{r0, c0}, Value(),
                                           Value());
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
  FailureOr<TileKernelBuilder::TileResults> results =
      TileKernelBuilder::yieldedTiles(op, mapping);
  if (failed(results))
    return failure();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  if (failed(storeResults(b, loc, outputs, *results, op, {r0, c0},
                          [&](Value m) { return slice(m, identity); })))
    return failure();
  // cdiv(rows, T) * cdiv(cols, T) programs per index of the other dims.
  grid = gridProduct(blocksOf(loopExtent(op, others), 1),
                     gridProduct(blocksOf(loopExtent(op, {across}), kTile),
                                 blocksOf(loopExtent(op, {last}), kTile)));
  numWarps = warps;
  return success();
}
