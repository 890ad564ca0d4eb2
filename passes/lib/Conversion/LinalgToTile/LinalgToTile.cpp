//===- LinalgToTile.cpp - convert-linalg-to-tile pass ---------------------===//
//
// The pass driver (one kernel per function), the schedule, and the helpers
// the kernel forms share.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_CONVERTLINALGTOTILE
#include "tcc/Conversion/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

//===----------------------------------------------------------------------===//
// Schedule
//===----------------------------------------------------------------------===//

FailureOr<BlockSchedule>
mlir::tcc::scheduleFromConfig(Operation *op, tile::LoweringConfigAttr config,
                              int64_t n, unsigned elementBytes,
                              const BuildContext &context) {
  ArrayRef<int64_t> block = config.getBlock();
  BlockSchedule s = blockedSchedule(block[0], block[1], n, elementBytes,
                                    config.getNumWarps(), context.warpSize);
  if (s.blockM < s.coverM())
    return op->emitOpError()
           << "lowering_config block [" << block[0] << ", " << block[1]
           << "] has fewer rows than its layout covers (" << s.coverM()
           << " rows: " << s.tpwM << " lanes x " << s.wpcM << " warps)";
  return s;
}

//===----------------------------------------------------------------------===//
// TileKernelBuilder
//===----------------------------------------------------------------------===//

TileKernelBuilder::TileKernelBuilder(OpBuilder &builder, Location loc,
                                     const BlockSchedule &schedule)
    : b(builder), loc(loc), schedule(schedule),
      layout(schedule.layout(builder.getContext())) {}

RankedTensorType TileKernelBuilder::blockType(Type elementType) const {
  return RankedTensorType::get({schedule.blockM, schedule.blockN},
                               elementType, layout);
}

RankedTensorType TileKernelBuilder::rowsType(Type elementType) const {
  return RankedTensorType::get(
      {schedule.blockM}, elementType,
      tile::SliceEncodingAttr::get(b.getContext(), 1, layout));
}

RankedTensorType TileKernelBuilder::colsType(Type elementType) const {
  return RankedTensorType::get(
      {schedule.blockN}, elementType,
      tile::SliceEncodingAttr::get(b.getContext(), 0, layout));
}

Value TileKernelBuilder::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value TileKernelBuilder::splat(Value scalar, RankedTensorType type) {
  return tile::SplatOp::create(b, loc, type, scalar);
}

Value mlir::tcc::broadcastSlice(OpBuilder &b, Location loc, Value vector,
                                unsigned axis, ArrayRef<int64_t> shape,
                                Attribute layout) {
  Type elementType = cast<RankedTensorType>(vector.getType()).getElementType();
  SmallVector<int64_t> unit(shape);
  unit[axis] = 1;
  auto unitType = RankedTensorType::get(unit, elementType, layout);
  Value expanded = tile::ExpandDimsOp::create(b, loc, unitType, vector, axis);
  if (ArrayRef<int64_t>(unit) == shape)
    return expanded;
  return tile::BroadcastOp::create(
      b, loc, RankedTensorType::get(shape, elementType, layout), expanded);
}

Value TileKernelBuilder::broadcastRows(Value rows) {
  return broadcastSlice(b, loc, rows, 1, {schedule.blockM, schedule.blockN},
                        layout);
}

Value TileKernelBuilder::broadcastCols(Value cols) {
  return broadcastSlice(b, loc, cols, 0, {schedule.blockM, schedule.blockN},
                        layout);
}

Value TileKernelBuilder::blockIndices(Value origin, bool rows) {
  Type i32 = b.getI32Type();
  RankedTensorType type = rows ? rowsType(i32) : colsType(i32);
  int64_t length = rows ? schedule.blockM : schedule.blockN;
  Value at = tile::ArangeOp::create(b, loc, type, 0u, uint32_t(length));
  Value start = arith::IndexCastOp::create(b, loc, i32, origin);
  at = arith::AddIOp::create(b, loc, at, splat(start, type));
  return rows ? broadcastRows(at) : broadcastCols(at);
}

Extent mlir::tcc::loopExtent(Operation *root, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> sizes = rootLoopSizes(root);
  auto named = root->getAttrOfType<ArrayAttr>("tcc.loop_sizes");
  Extent extent;
  for (int64_t d : dims) {
    if (!ShapedType::isDynamic(sizes[d])) {
      extent.factor *= sizes[d];
      continue;
    }
    // verifyDynamicLoops made sure the names are there; a dynamic dim the
    // program ties to a static size has that size.
    if (auto size = dyn_cast<IntegerAttr>(named[d]))
      extent.factor *= size.getInt();
    else
      extent.symbols.push_back(cast<StringAttr>(named[d]).getValue().str());
  }
  return extent;
}

GridSize mlir::tcc::blocksOf(const Extent &extent, int64_t block,
                             int64_t times) {
  GridSize grid;
  if (extent.isStatic()) {
    grid = llvm::divideCeil(extent.factor, block) * times;
    return grid;
  }
  std::string size = llvm::join(extent.symbols, " * ");
  if (extent.factor != 1)
    size += " * " + std::to_string(extent.factor);
  grid.expr = block == 1 ? size
                         : "cdiv(" + size + ", " + std::to_string(block) + ")";
  if (times != 1)
    grid.expr += " * " + std::to_string(times);
  return grid;
}

GridSize mlir::tcc::gridProduct(const GridSize &a, const GridSize &b) {
  GridSize grid;
  if (!a.isDynamic() && !b.isDynamic()) {
    grid = a.programs * b.programs;
    return grid;
  }
  SmallVector<std::string> factors;
  for (const GridSize *g : {&a, &b}) {
    if (g->isDynamic())
      factors.push_back(g->expr);
    else if (g->programs != 1)
      factors.push_back(std::to_string(g->programs));
  }
  grid.expr = llvm::join(factors, " * ");
  return grid;
}

std::pair<Value, Value> TileKernelBuilder::blockOrigin(int64_t n) {
  int64_t blocksN = llvm::divideCeil(n, schedule.blockN);
  Value pid = tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u);
  Value pidIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), pid);
  Value blockRow = arith::DivUIOp::create(b, loc, pidIndex, index(blocksN));
  Value blockCol = arith::RemUIOp::create(b, loc, pidIndex, index(blocksN));
  Value m0 = arith::MulIOp::create(b, loc, blockRow, index(schedule.blockM));
  Value n0 = arith::MulIOp::create(b, loc, blockCol, index(schedule.blockN));
  return {m0, n0};
}

FailureOr<Value> TileKernelBuilder::loadOperand(Operation *user, Value memref,
                                                AffineMap map, Value m0,
                                                Value n0) {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  if (map == AffineMap::get(2, 0, {d0, d1}, ctx))
    return tile::MemRefLoadOp::create(b, loc, blockType(elementType),
                                      viewAs2D(b, loc, memref),
                                      ValueRange{m0, n0}, Value(), Value())
        .getResult();
  if (map == AffineMap::get(2, 0, {d1}, ctx)) {
    Value cols = tile::MemRefLoadOp::create(b, loc, colsType(elementType),
                                            memref, ValueRange{n0}, Value(),
                                            Value());
    return broadcastCols(cols);
  }
  if (map == AffineMap::get(2, 0, {d0}, ctx)) {
    Value rows = tile::MemRefLoadOp::create(b, loc, rowsType(elementType),
                                            memref, ValueRange{m0}, Value(),
                                            Value());
    return broadcastRows(rows);
  }
  return user->emitOpError()
         << "operand indexing map " << AffineMapAttr::get(map)
         << " is not supported by convert-linalg-to-tile (identity, or a "
            "broadcast of the rows or columns)";
}

/// Size `d` of `tensor` (a value of the kernel's func.func) in the tile
/// program: static, or read off the memref argument it derives from.
static FailureOr<Value> rebuildSize(OpBuilder &b, Location loc, Value tensor,
                                    int64_t d) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || d < 0 || d >= type.getRank())
    return failure();
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
        .getResult();
  if (auto arg = dyn_cast<BlockArgument>(tensor)) {
    if (!isa<func::FuncOp>(arg.getOwner()->getParentOp()))
      return failure();
    Operation *parent = b.getInsertionBlock()->getParentOp();
    auto kernel = isa<tile::FuncOp>(parent)
                      ? cast<tile::FuncOp>(parent)
                      : parent->getParentOfType<tile::FuncOp>();
    if (!kernel)
      return failure();
    return memref::DimOp::create(
               b, loc, kernel.getBody().getArgument(arg.getArgNumber()), d)
        .getResult();
  }
  if (auto result = dyn_cast<OpResult>(tensor))
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner()))
      return rebuildSize(b, loc, dps.getTiedOpOperand(result)->get(), d);
  if (auto empty = tensor.getDefiningOp<tensor::EmptyOp>()) {
    Value size = empty.getDynamicSize(d);
    if (auto dim = size.getDefiningOp<tensor::DimOp>())
      if (std::optional<int64_t> index = dim.getConstantIndex())
        return rebuildSize(b, loc, dim.getSource(), *index);
  }
  return failure();
}

FailureOr<Value> TileKernelBuilder::rebuildScalar(Value value,
                                                  Operation *user) {
  auto fail = [&]() {
    return user->emitOpError()
           << "uses a value defined outside the kernel that is neither a "
              "constant nor a size of the kernel's operands; "
              "convert-linalg-to-tile cannot capture it";
  };
  Operation *def = value.getDefiningOp();
  if (!def)
    return fail();
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return arith::ConstantOp::create(b, loc, constant.getValue()).getResult();
  if (auto dim = dyn_cast<tensor::DimOp>(def)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    FailureOr<Value> size = failure();
    if (index)
      size = rebuildSize(b, loc, dim.getSource(), *index);
    if (failed(size))
      return fail();
    return *size;
  }
  if (!isa<arith::ArithDialect>(def->getDialect()) ||
      def->getNumResults() != 1 || def->getNumRegions() != 0)
    return fail();
  IRMapping mapping;
  for (Value operand : def->getOperands()) {
    FailureOr<Value> rebuilt = rebuildScalar(operand, user);
    if (failed(rebuilt))
      return failure();
    mapping.map(operand, *rebuilt);
  }
  return b.clone(*def, mapping)->getResult(0);
}

LogicalResult
TileKernelBuilder::cloneBody(Block &body, IRMapping &mapping,
                             function_ref<RankedTensorType(Type)> tileTypeOf,
                             ArrayRef<Operation *> skip,
                             function_ref<FailureOr<Value>(unsigned)> positions) {
  // Index values (positions, sizes) are i32 tiles.
  Type i32 = b.getI32Type();
  auto tileOf = [&](Type type) {
    return tileTypeOf(type.isIndex() ? i32 : type);
  };
  for (Operation &op : body.without_terminator()) {
    if (llvm::is_contained(skip, &op))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(op); index && positions) {
      FailureOr<Value> at = positions(index.getDim());
      if (failed(at))
        return failure();
      mapping.map(index.getResult(), *at);
      continue;
    }
    if (op.getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return op.emitOpError()
             << "cannot be mapped onto tiles by convert-linalg-to-tile "
                "(only arith and math ops on scalars"
             << (positions ? "" : ", and linalg.index in elementwise kernels")
             << ")";
    SmallVector<Value> operands;
    for (Value operand : op.getOperands()) {
      if (Value mapped = mapping.lookupOrNull(operand)) {
        operands.push_back(mapped);
        continue;
      }
      FailureOr<Value> scalar = rebuildScalar(operand, &op);
      if (failed(scalar))
        return failure();
      Value value = *scalar;
      if (value.getType().isIndex())
        value = arith::IndexCastOp::create(b, loc, i32, value);
      Value tile = splat(value, tileOf(value.getType()));
      mapping.map(operand, tile);
      operands.push_back(tile);
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      TypedAttr value = constant.getValue();
      if (auto n = dyn_cast<IntegerAttr>(value); n && n.getType().isIndex())
        value = IntegerAttr::get(i32, n.getInt());
      Value scalar = arith::ConstantOp::create(b, loc, value);
      mapping.map(op.getResult(0), splat(scalar, tileOf(scalar.getType())));
      continue;
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      // i32 (an index) to the integer type, or the integer type to i32.
      RankedTensorType type = tileOf(op.getResult(0).getType());
      unsigned have = getElementTypeOrSelf(operands[0]).getIntOrFloatBitWidth();
      unsigned want = type.getElementTypeBitWidth();
      Value cast = operands[0];
      if (want > have)
        cast = isa<arith::IndexCastUIOp>(op)
                   ? arith::ExtUIOp::create(b, loc, type, cast).getResult()
                   : arith::ExtSIOp::create(b, loc, type, cast).getResult();
      else if (want < have)
        cast = arith::TruncIOp::create(b, loc, type, cast);
      mapping.map(op.getResult(0), cast);
      continue;
    }
    SmallVector<Type> resultTypes;
    for (Type type : op.getResultTypes())
      resultTypes.push_back(tileOf(type));
    OperationState state(loc, op.getName(), operands, resultTypes,
                         op.getAttrs());
    Operation *clone = b.create(state);
    mapping.map(op.getResults(), clone->getResults());
  }
  return success();
}

FailureOr<TileKernelBuilder::TileResults>
TileKernelBuilder::yieldedTiles(linalg::GenericOp op,
                                const IRMapping &mapping) {
  TileResults results;
  auto yield = cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
  for (auto [result, yielded] : llvm::zip(op.getResults(), yield.getValues())) {
    Value value = mapping.lookupOrNull(yielded);
    if (!value)
      return op.emitOpError("yields a value defined outside its body");
    results.push_back({result, value});
  }
  return results;
}

FailureOr<TileKernelBuilder::TileResults> TileKernelBuilder::applyEpilogue(
    linalg::GenericOp producer, Value produced, linalg::GenericOp epilogue,
    ArrayRef<Value> inputArgs,
    function_ref<FailureOr<Value>(Value, AffineMap, Type)> loadInput,
    function_ref<RankedTensorType(Type)> tileTypeOf,
    ArrayRef<std::pair<Value, Value>> moreProducts,
    function_ref<FailureOr<Value>(unsigned)> positions) {
  Value result = producer->getResult(0);
  if (!result.hasOneUse())
    return producer.emitOpError("result is used by more than its epilogue; "
                                "not supported by convert-linalg-to-tile");
  DenseMap<Value, Value> products(moreProducts.begin(), moreProducts.end());
  products[result] = produced;
  IRMapping mapping;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    Value tile;
    if (auto product = products.find(input->get());
        product != products.end()) {
      if (!map.isIdentity())
        return epilogue.emitOpError("reads its producer through a "
                                    "non-identity map");
      tile = product->second;
    } else {
      FailureOr<Value> memref = lookupInput(input->get(), inputArgs, epilogue);
      if (failed(memref))
        return failure();
      FailureOr<Value> loaded =
          loadInput(*memref, map, getElementTypeOrSelf(input->get()));
      if (failed(loaded))
        return failure();
      tile = *loaded;
    }
    mapping.map(epilogue.getMatchingBlockArgument(input), tile);
  }
  Block &body = epilogue.getRegion().front();
  if (failed(cloneBody(body, mapping, tileTypeOf, {}, positions)))
    return failure();
  TileResults results;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (auto [original, value] :
       llvm::zip(epilogue.getResults(), yield.getValues())) {
    Value mapped = mapping.lookupOrNull(value);
    if (!mapped)
      return epilogue.emitOpError("yields a value defined outside its body");
    results.push_back({original, mapped});
  }
  return results;
}

LogicalResult mlir::tcc::storeResults(OpBuilder &b, Location loc,
                                      const OutputMap &outputs,
                                      ArrayRef<std::pair<Value, Value>> results,
                                      Operation *producer, ValueRange offsets,
                                      function_ref<Value(Value)> view) {
  for (auto [original, tile] : results) {
    FailureOr<Value> memref = outputs.lookup(b, loc, original, producer);
    if (failed(memref))
      return failure();
    Value target = view ? view(*memref) : *memref;
    tile::MemRefStoreOp::create(b, loc, target, offsets, tile, Value());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Views, inputs and outputs
//===----------------------------------------------------------------------===//

Value mlir::tcc::viewAs2D(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 2)
    return memref;
  if (type.getRank() == 1)
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get({1, type.getDimSize(0)}, type.getElementType()),
        memref, ArrayRef<ReassociationIndices>{{0, 1}});
  ReassociationIndices leading;
  for (int64_t dim = 0; dim < type.getRank() - 1; ++dim)
    leading.push_back(dim);
  return memref::CollapseShapeOp::create(
      b, loc, memref,
      ArrayRef<ReassociationIndices>{leading, {type.getRank() - 1}});
}

Value mlir::tcc::sliceBatch(OpBuilder &b, Location loc, Value memref,
                            Value batchIndex) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  if (rank < 3)
    return memref;
  // Several batch dims (a view of heads, [B, H, S, D]): the flat index
  // delinearized, the last batch dim fastest.
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    sizes.push_back(memref::DimOp::create(b, loc, memref, dim));
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  for (auto [dim, index] :
       llvm::enumerate(delinearizeBatch(b, loc, batchIndex, sizes)))
    offsets[dim] = index;
  // (A dynamic M: the slice's rows are the memref's.)
  SmallVector<OpFoldResult> extents(rank - 2, b.getIndexAttr(1));
  extents.push_back(memref::getMixedSize(b, loc, memref, rank - 2));
  extents.push_back(memref::getMixedSize(b, loc, memref, rank - 1));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto sliceType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(rank - 2), type.getDimSize(rank - 1)}, type, offsets,
      extents, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                   memref, offsets, extents, strides);
}

SmallVector<Value> mlir::tcc::delinearizeBatch(OpBuilder &b, Location loc,
                                              Value index,
                                              ArrayRef<Value> sizes) {
  SmallVector<Value> at(sizes.size());
  for (int64_t dim = int64_t(sizes.size()) - 1; dim > 0; --dim) {
    at[dim] = arith::RemUIOp::create(b, loc, index, sizes[dim]);
    index = arith::DivUIOp::create(b, loc, index, sizes[dim]);
  }
  if (!at.empty())
    at[0] = index;
  return at;
}

Value mlir::tcc::permuteView(OpBuilder &b, Location loc, Value memref,
                             ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return memref;
  SmallVector<unsigned> dims(perm.begin(), perm.end());
  return memref::TransposeOp::create(
      b, loc, memref,
      AffineMapAttr::get(AffineMap::getPermutationMap(dims, b.getContext())));
}

FailureOr<Value> mlir::tcc::lookupView(OpBuilder &b, Location loc,
                                       const AttentionView &view,
                                       ArrayRef<Value> inputArgs,
                                       Operation *user) {
  FailureOr<Value> memref = lookupInput(view.source, inputArgs, user);
  if (failed(memref))
    return failure();
  return permuteView(b, loc, *memref, view.perm);
}

FailureOr<Value> mlir::tcc::lookupResult(OpBuilder &b, Location loc,
                                         const AttentionOps &chain,
                                         const OutputMap &outputs) {
  linalg::GenericOp epilogue = chain.epilogue, output = chain.output;
  Operation *last = !chain.result.ops.empty() ? chain.result.ops.back()
                    : epilogue                ? epilogue.getOperation()
                                              : output.getOperation();
  FailureOr<Value> memref =
      outputs.lookup(b, loc, chain.result.source, last);
  if (failed(memref))
    return failure();
  return permuteView(b, loc, *memref, chain.result.perm);
}

FailureOr<AffineMap> mlir::tcc::unbatchEpilogueMap(Operation *epilogue,
                                                   AffineMap map,
                                                   bool &perBatch) {
  MLIRContext *ctx = map.getContext();
  AffineExpr batchDim = getAffineDimExpr(0, ctx);
  perBatch = map.getNumResults() == 3 && map.getResult(0) == batchDim;
  if (perBatch)
    map = map.dropResult(0);
  if (llvm::any_of(map.getResults(),
                   [](AffineExpr e) { return e.isFunctionOfDim(0); }))
    return epilogue->emitOpError()
           << "epilogue operand map " << AffineMapAttr::get(map)
           << " of a batched matmul is not supported (identity or a "
              "row/column broadcast shared by all batches)";
  // (b, m, n) dims -> the slice's (m, n).
  return map.replaceDimsAndSymbols({getAffineConstantExpr(0, ctx),
                                    getAffineDimExpr(0, ctx),
                                    getAffineDimExpr(1, ctx)},
                                   {}, 2, 0);
}

/// Batch-only affine expression `e` at flat batch `batch` (indices are
/// non-negative, divisors positive constants: unsigned division).
static FailureOr<Value> expandBatchExpr(OpBuilder &b, Location loc,
                                        AffineExpr e, Value batch) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return arith::ConstantIndexOp::create(b, loc, c.getValue()).getResult();
  if (auto dim = dyn_cast<AffineDimExpr>(e)) {
    if (dim.getPosition() != 0)
      return failure();
    return batch;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(e);
  if (!binary)
    return failure();
  auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
  bool division = e.getKind() == AffineExprKind::FloorDiv ||
                  e.getKind() == AffineExprKind::Mod;
  if (e.getKind() == AffineExprKind::CeilDiv ||
      (division && (!divisor || divisor.getValue() <= 0)))
    return failure();
  FailureOr<Value> lhs = expandBatchExpr(b, loc, binary.getLHS(), batch);
  FailureOr<Value> rhs = expandBatchExpr(b, loc, binary.getRHS(), batch);
  if (failed(lhs) || failed(rhs))
    return failure();
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, *lhs, *rhs).getResult();
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, *lhs, *rhs).getResult();
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, *lhs, *rhs).getResult();
  default:
    return arith::RemUIOp::create(b, loc, *lhs, *rhs).getResult();
  }
}

FailureOr<std::pair<Value, AffineMap>>
mlir::tcc::sliceBatchOperand(OpBuilder &b, Location loc, Operation *user,
                             Value memref, AffineMap map, Value batchIndex) {
  MLIRContext *ctx = map.getContext();
  auto type = cast<MemRefType>(memref.getType());
  auto refuse = [&]() -> FailureOr<std::pair<Value, AffineMap>> {
    return user->emitOpError()
           << "operand map " << AffineMapAttr::get(map)
           << " of a batched op is not supported (each dim read by the "
              "batch alone, or by the rows and columns in order)";
  };
  SmallVector<OpFoldResult> offsets, sizes;
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  SmallVector<AffineExpr> inner;
  SmallVector<int64_t> innerShape;
  int64_t last = -1;
  for (auto [dim, e] : llvm::enumerate(map.getResults())) {
    if (e.isFunctionOfDim(1) || e.isFunctionOfDim(2)) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || int64_t(d.getPosition()) <= last)
        return refuse();
      last = d.getPosition();
      inner.push_back(getAffineDimExpr(d.getPosition() - 1, ctx));
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(memref::getMixedSize(b, loc, memref, dim));
      innerShape.push_back(type.getDimSize(dim));
      continue;
    }
    FailureOr<Value> index = expandBatchExpr(b, loc, e, batchIndex);
    if (failed(index))
      return refuse();
    offsets.push_back(*index);
    sizes.push_back(b.getIndexAttr(1));
  }
  if (inner.empty())
    return refuse();
  AffineMap innerMap = AffineMap::get(2, 0, inner, ctx);
  if (inner.size() == size_t(type.getRank()))
    return std::make_pair(memref, innerMap);
  auto sliceType = memref::SubViewOp::inferRankReducedResultType(
      innerShape, type, offsets, sizes, strides);
  Value slice = memref::SubViewOp::create(
      b, loc, cast<MemRefType>(sliceType), memref, offsets, sizes, strides);
  return std::make_pair(slice, innerMap);
}

FailureOr<Value> mlir::tcc::lookupInput(Value tensor,
                                        ArrayRef<Value> inputArgs,
                                        Operation *user) {
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return user->emitOpError()
           << "operand is not a function argument; convert-linalg-to-tile "
              "needs the whole program fused into one kernel";
  return inputArgs[arg.getArgNumber()];
}

bool OutputMap::isReturned(Value tensor) const {
  return llvm::any_of(func::ReturnOp(returnOp).getOperands(), [&](Value returned) {
    if (returned == tensor)
      return true;
    Operation *def = returned.getDefiningOp();
    return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
               def) &&
           def->getOperand(0) == tensor;
  });
}

FailureOr<Value> OutputMap::lookup(OpBuilder &b, Location loc, Value tensor,
                                   Operation *user) const {
  for (auto [index, returned] :
       llvm::enumerate(func::ReturnOp(returnOp).getOperands())) {
    Value memref = outputArgs[index];
    if (returned == tensor)
      return memref;
    // The function returns a reshape of the kernel's value: undo it on the
    // output buffer (same bytes, row-major).
    if (auto expand = returned.getDefiningOp<tensor::ExpandShapeOp>();
        expand && expand.getSrc() == tensor)
      return memref::CollapseShapeOp::create(
                 b, loc, memref, expand.getReassociationIndices())
          .getResult();
    if (auto collapse = returned.getDefiningOp<tensor::CollapseShapeOp>();
        collapse && collapse.getSrc() == tensor) {
      auto srcType = cast<RankedTensorType>(collapse.getSrcType());
      return memref::ExpandShapeOp::create(
                 b, loc,
                 MemRefType::get(srcType.getShape(), srcType.getElementType()),
                 memref, collapse.getReassociationIndices())
          .getResult();
    }
  }
  return user->emitOpError()
         << "result is not returned by the function (directly or through a "
            "reshape); convert-linalg-to-tile cannot place it";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

FailureOr<ReductionBody> mlir::tcc::matchReductionBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  Value yielded = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 || combiner->getBlock() != &body ||
      !llvm::is_contained(combiner->getOperands(), Value(outArg)) ||
      !outArg.hasOneUse())
    return op.emitOpError("reduction body is not `combiner(value, acc)`; "
                          "not supported by convert-linalg-to-tile");
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  if (!neutral)
    return combiner->emitOpError("has no known neutral element; cannot mask "
                                 "a partial chunk of rows");
  Value x = combiner->getOperand(0) == outArg ? combiner->getOperand(1)
                                              : combiner->getOperand(0);
  return ReductionBody{combiner, x, *neutral};
}

Value mlir::tcc::cloneCombiner(OpBuilder &b, Location loc, Operation *combiner,
                               Value lhs, Value rhs) {
  OperationState state(loc, combiner->getName(), ValueRange{lhs, rhs},
                       TypeRange{lhs.getType()}, combiner->getAttrs());
  return b.create(state)->getResult(0);
}

Value mlir::tcc::reduceRows(
    TileKernelBuilder &kb, Value block,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  Type elementType = cast<RankedTensorType>(block.getType()).getElementType();
  return reduceRows(kb.b, kb.loc, block, kb.rowsType(elementType), combine);
}

Value mlir::tcc::reduceRows(
    OpBuilder &b, Location loc, Value block, RankedTensorType rowsType,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  Type elementType = rowsType.getElementType();
  auto reduce = tile::ReduceOp::create(b, loc, TypeRange{rowsType},
                                       ValueRange{block}, /*axis=*/1u);
  OpBuilder::InsertionGuard guard(b);
  Block *region = b.createBlock(&reduce.getCombiner(), {},
                                {elementType, elementType}, {loc, loc});
  Value combined =
      combine(b, loc, region->getArgument(0), region->getArgument(1));
  tile::ReduceReturnOp::create(b, loc, ValueRange{combined});
  return reduce.getResult(0);
}

FailureOr<ArgPair>
mlir::tcc::cloneArgElement(TileKernelBuilder &kb, linalg::GenericOp op,
                           const ArgReduction &r, IRMapping &mapping,
                           function_ref<RankedTensorType(Type)> tileTypeOf,
                           function_ref<Value(unsigned)> loopIndex) {
  SmallVector<Operation *> skip(r.choice.begin(), r.choice.end());
  Block &body = op.getRegion().front();
  for (auto index : body.getOps<linalg::IndexOp>())
    skip.push_back(index);
  for (auto [indexCast, dim] : r.loopIndices) {
    skip.push_back(indexCast);
    mapping.map(indexCast.getResult(),
                castIndexTile(kb.b, kb.loc, loopIndex(dim),
                              tileTypeOf(indexCast.getType())));
  }
  if (failed(kb.cloneBody(body, mapping, tileTypeOf, skip)))
    return failure();
  Value value = mapping.lookupOrNull(r.value);
  Value index = mapping.lookupOrNull(r.index);
  if (!value || !index)
    return op.emitOpError("reduces a value defined outside its body");
  return ArgPair{value, index};
}

FailureOr<ArgPair> mlir::tcc::cloneArgChoiceOnTiles(TileKernelBuilder &kb,
                                                    linalg::GenericOp op,
                                                    const ArgReduction &r,
                                                    ArgPair acc,
                                                    ArgPair element) {
  Block &body = op.getRegion().front();
  SmallVector<Operation *> skip;
  for (Operation &inner : body.without_terminator())
    if (!r.choice.contains(&inner))
      skip.push_back(&inner);
  IRMapping mapping;
  mapping.map(r.acc, acc.first);
  mapping.map(r.accIndex, acc.second);
  mapping.map(r.value, element.first);
  mapping.map(r.index, element.second);
  auto shape = cast<RankedTensorType>(acc.first.getType());
  if (failed(kb.cloneBody(body, mapping, [&](Type type) {
        return RankedTensorType::get(shape.getShape(), type,
                                     shape.getEncoding());
      }, skip)))
    return failure();
  return ArgPair{mapping.lookup(r.yieldedValue),
                 mapping.lookup(r.yieldedIndex)};
}

ArgPair mlir::tcc::reduceArgPairs(OpBuilder &b, Location loc,
                                  const ArgReduction &r, ArgPair tiles,
                                  unsigned axis, Type valueType,
                                  Type indexType) {
  Type valueElement = getElementTypeOrSelf(tiles.first);
  Type indexElement = getElementTypeOrSelf(tiles.second);
  auto reduce = tile::ReduceOp::create(
      b, loc, TypeRange{valueType, indexType},
      ValueRange{tiles.first, tiles.second}, axis);
  OpBuilder::InsertionGuard guard(b);
  Block *region = b.createBlock(
      &reduce.getCombiner(), {},
      {valueElement, indexElement, valueElement, indexElement},
      {loc, loc, loc, loc});
  auto [value, index] = cloneArgChoice(
      b, r, region->getArgument(0), region->getArgument(1),
      region->getArgument(2), region->getArgument(3));
  tile::ReduceReturnOp::create(b, loc, ValueRange{value, index});
  return {reduce.getResult(0), reduce.getResult(1)};
}

FailureOr<std::pair<TypedAttr, TypedAttr>>
mlir::tcc::getArgFills(linalg::GenericOp op) {
  SmallVector<TypedAttr, 2> fills;
  for (Value init : op.getDpsInits()) {
    FailureOr<Value> fill = getFillValue(init);
    if (failed(fill))
      return op.emitOpError("reduction init is not a constant fill");
    fills.push_back(
        cast<TypedAttr>(fill->getDefiningOp<arith::ConstantOp>().getValue()));
  }
  return std::make_pair(fills[0], fills[1]);
}

Value mlir::tcc::castIndexTile(OpBuilder &b, Location loc, Value index,
                               RankedTensorType type) {
  unsigned width = type.getElementTypeBitWidth();
  if (width > 32)
    return arith::ExtSIOp::create(b, loc, type, index);
  if (width < 32)
    return arith::TruncIOp::create(b, loc, type, index);
  return index;
}

Value mlir::tcc::columnsInBounds(TileKernelBuilder &kb, Value k, int64_t n,
                                 bool fromZero) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Type i32 = b.getI32Type();
  Value cols = tile::ArangeOp::create(b, loc, kb.colsType(i32), 0u,
                                      uint32_t(kb.schedule.blockN));
  Value k32 = arith::IndexCastOp::create(b, loc, i32, k);
  Value shifted = arith::AddIOp::create(b, loc, cols,
                                        kb.splat(k32, kb.colsType(i32)));
  Value limit = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(n));
  // fromZero: one unsigned compare (a negative k + j wraps past n).
  Value inBounds = arith::CmpIOp::create(
      b, loc, fromZero ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      shifted, kb.splat(limit, kb.colsType(i32)));
  return kb.broadcastCols(inBounds);
}

Value mlir::tcc::viewAs1D(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  ReassociationIndices all;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    all.push_back(dim);
  return memref::CollapseShapeOp::create(b, loc, memref,
                                         ArrayRef<ReassociationIndices>{all});
}

Value mlir::tcc::approxExp2(OpBuilder &b, Location loc, Value x) {
  return math::Exp2Op::create(b, loc, x, arith::FastMathFlags::afn);
}

Value mlir::tcc::expOfDifference(OpBuilder &b, Location loc, Value a,
                                 Value c, bool approximate) {
  auto type = cast<RankedTensorType>(a.getType());
  Value log2e = tile::SplatOp::create(
      b, loc, type,
      arith::ConstantOp::create(
          b, loc, b.getFloatAttr(type.getElementType(), 1.4426950408889634)));
  Value scaled = arith::MulFOp::create(
      b, loc, arith::SubFOp::create(b, loc, a, c), log2e);
  return approximate ? approxExp2(b, loc, scaled)
                     : math::Exp2Op::create(b, loc, scaled).getResult();
}

Value mlir::tcc::viewFlat(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() != 0)
    return viewAs1D(b, loc, memref);
  return memref::ExpandShapeOp::create(
      b, loc, MemRefType::get({1}, type.getElementType()), memref,
      ArrayRef<ReassociationIndices>{});
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

/// The root of the kernel `ops` of one function: the op carrying the
/// config. Fails with a diagnostic when none or several do.
FailureOr<Operation *> findRoot(func::FuncOp func, ArrayRef<Operation *> ops) {
  SmallVector<Operation *> roots;
  for (Operation *op : ops)
    if (op->hasAttr(tile::kLoweringConfigAttrName))
      roots.push_back(op);
  if (roots.size() == 1)
    return roots.front();
  if (roots.empty())
    return func.emitOpError()
           << "has no kernel op with a " << tile::kLoweringConfigAttrName
           << "; run tcc-select-strategy first (the tcc-linalg-to-tile "
              "pipeline does)";
  return func.emitOpError()
         << "has " << roots.size() << " kernel ops with a "
         << tile::kLoweringConfigAttrName
         << "; convert-linalg-to-tile builds one kernel per function";
}

struct ConvertLinalgToTilePass
    : public tcc::impl::ConvertLinalgToTileBase<ConvertLinalgToTilePass> {
  using Base::Base;

  LogicalResult convertFunction(func::FuncOp func);
  LogicalResult build(tile::LoweringConfigAttr config, Operation *root,
                      ArrayRef<Operation *> ops, linalg::GenericOp epilogue,
                      linalg::GenericOp second, tile::FuncOp kernel,
                      const OutputMap &outputs, ArrayRef<Value> inputArgs,
                      GridSize &grid, unsigned &warps);

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kHostAttrName))
        funcs.push_back(func);
    if (funcs.empty())
      return;
    FailureOr<tile::TargetAttr> found =
        tile::requireTarget(getOperation(), "convert-linalg-to-tile");
    if (failed(found))
      return signalPassFailure();
    context.target = *found;
    context.warpSize = found->getWarpSize();
    for (func::FuncOp func : funcs)
      if (failed(convertFunction(func)))
        return signalPassFailure();
  }

  BuildContext context;
};

LogicalResult ConvertLinalgToTilePass::convertFunction(func::FuncOp func) {
  // Dynamic sizes stay dynamic in the memrefs (the lowering passes them as
  // kernel arguments); the forms say which loops may be dynamic.
  if (failed(verifyKernelSignature(func)))
    return failure();
  SmallVector<Type> memrefTypes;
  auto addMemRef = [&](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    memrefTypes.push_back(
        MemRefType::get(tensor.getShape(), tensor.getElementType()));
  };
  llvm::for_each(func.getArgumentTypes(), addMemRef);
  llvm::for_each(func.getResultTypes(), addMemRef);
  FailureOr<SmallVector<Operation *>> kernelOps = collectKernelOps(func);
  if (failed(kernelOps))
    return failure();
  FailureOr<Operation *> root = findRoot(func, *kernelOps);
  if (failed(root))
    return failure();
  auto config = (*root)->getAttrOfType<tile::LoweringConfigAttr>(
      tile::kLoweringConfigAttrName);
  if (!config)
    return (*root)->emitOpError() << tile::kLoweringConfigAttrName
                                  << " must be a #tile.lowering_config";
  if (failed(verifyDynamicLoops(*root, config)))
    return failure();
  // The forms of several ops (a row program, a column reduction and its
  // epilogue) take all of them; the others one more kernel op, the root's
  // elementwise epilogue.
  tile::KernelForm form = config.getForm();
  bool group = form == tile::KernelForm::row_program ||
               form == tile::KernelForm::column_reduction ||
               form == tile::KernelForm::attention;
  linalg::GenericOp epilogue, second;
  // A dual GEMM (two contractions of one A and their epilogue): the Hopper
  // GEMM builds it, the first contraction carrying the plan.
  bool dual = form == tile::KernelForm::matmul &&
              config.getMma() == tile::MmaKind::wgmma_m64nNk16 &&
              kernelOps->front() == *root &&
              isDualGemm(*kernelOps, context.target);
  if (dual) {
    second = cast<linalg::GenericOp>((*kernelOps)[1]);
    epilogue = cast<linalg::GenericOp>((*kernelOps)[2]);
  } else if (!group && (kernelOps->size() > 2 ||
                 (kernelOps->size() == 2 && kernelOps->front() != *root))) {
    return emitNotOneKernel(func, *kernelOps);
  }
  if (!dual && !group && kernelOps->size() == 2) {
    epilogue = dyn_cast<linalg::GenericOp>(kernelOps->back());
    if (!epilogue || !isAllParallel(epilogue) ||
        form == tile::KernelForm::elementwise ||
        form == tile::KernelForm::softmax ||
        form == tile::KernelForm::transpose)
      return kernelOps->back()->emitOpError()
             << "cannot be the epilogue of a form = "
             << tile::stringifyKernelForm(form)
             << " kernel (matmul, fma_matmul and row_reduction kernels take "
                "one elementwise epilogue)";
  }

  // A wgmma kernel's operands TMA reads (and its result, when it stores it
  // with TMA) arrive as TMA tensor maps too: trailing parameters that
  // WgmmaMatmulKernel.cpp describes in tcc.tensor_maps.
  // A split-K plan's workspace comes before them (tcc.workspace: per
  // buffer, 1 where the runtime zero-fills it once).
  unsigned numMemRefs = memrefTypes.size();
  SmallVector<int32_t> workspace;
  if (form == tile::KernelForm::matmul &&
      config.getMma() == tile::MmaKind::wgmma_m64nNk16)
    if (auto contraction = dyn_cast<linalg::GenericOp>(*root)) {
      for (auto [type, zeroed] : wgmmaWorkspaceTypes(contraction, config)) {
        memrefTypes.push_back(type);
        workspace.push_back(zeroed);
      }
      memrefTypes.append(wgmmaTensorMapCount(contraction, second, func),
                         LLVM::LLVMPointerType::get(func.getContext()));
    }
  // The Hopper attention kernel's Q, K and V (WgmmaAttentionKernel.cpp).
  if (form == tile::KernelForm::attention &&
      config.getMma() == tile::MmaKind::wgmma_m64nNk16)
    memrefTypes.append(3, LLVM::LLVMPointerType::get(func.getContext()));
  OpBuilder b(func);
  Location loc = func.getLoc();
  auto kernel = tile::FuncOp::create(
      b, loc, func.getName(), b.getFunctionType(memrefTypes, {}),
      /*gridRank=*/1);
  // The FuncOp builder may already give the kernel its entry block.
  Block *entry = kernel.getBody().empty() ? kernel.addEntryBlock()
                                          : &kernel.getBody().front();
  b.setInsertionPointToStart(entry);
  auto returnOp = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  OutputMap outputs{returnOp,
                    entry->getArguments()
                        .take_front(numMemRefs)
                        .drop_front(func.getNumArguments())};
  SmallVector<Value> inputArgs(
      entry->getArguments().take_front(func.getNumArguments()));

  GridSize grid;
  unsigned warps = 0;
  if (failed(build(config, *root, *kernelOps, epilogue, second, kernel,
                   outputs, inputArgs, grid, warps))) {
    kernel.erase();
    return failure();
  }
  b.setInsertionPointToEnd(entry);
  tile::ReturnOp::create(b, loc);
  // The launch contract: the grid (an expression of the program's size
  // symbols when a size it depends on is dynamic), and the symbols of the
  // memrefs' dims (tcc-bind-shape-symbols).
  if (grid.isDynamic())
    kernel->setAttr("tcc.grid",
                    b.getArrayAttr({b.getStringAttr(grid.expr),
                                    b.getI64IntegerAttr(1),
                                    b.getI64IntegerAttr(1)}));
  else
    kernel->setAttr("tcc.grid",
                    b.getDenseI64ArrayAttr({grid.programs, 1, 1}));
  if (Attribute symbols = func->getAttr("tcc.shape_symbols"))
    kernel->setAttr("tcc.shape_symbols", symbols);
  kernel->setAttr("tcc.num_warps", b.getI32IntegerAttr(warps));
  kernel->setAttr("tcc.num_inputs",
                  b.getI32IntegerAttr(func.getNumArguments()));
  if (!workspace.empty())
    kernel->setAttr("tcc.workspace", b.getDenseI32ArrayAttr(workspace));
  // The plan stays with the kernel (tcc-promote-shared-memory reads its
  // num_stages).
  kernel->setAttr(tile::kLoweringConfigAttrName, config);
  func.erase();
  return success();
}

LogicalResult ConvertLinalgToTilePass::build(
    tile::LoweringConfigAttr config, Operation *root,
    ArrayRef<Operation *> ops, linalg::GenericOp epilogue,
    linalg::GenericOp second, tile::FuncOp kernel, const OutputMap &outputs,
    ArrayRef<Value> inputArgs, GridSize &grid, unsigned &warps) {
  tile::KernelForm form = config.getForm();
  auto generic = dyn_cast<linalg::GenericOp>(root);
  auto mismatch = [&](StringRef what) {
    return root->emitOpError()
           << "has a lowering_config of form = "
           << tile::stringifyKernelForm(form) << ", which builds " << what;
  };
  switch (form) {
  case tile::KernelForm::softmax:
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(root))
      return buildSoftmaxKernel(softmax, config, kernel, outputs, inputArgs,
                                context, grid, warps);
    return mismatch("a linalg.softmax");
  case tile::KernelForm::elementwise:
    if (generic && isAllParallel(generic))
      return buildElementwiseKernel(generic, config, kernel, outputs,
                                    inputArgs, context, grid, warps);
    return mismatch("an all-parallel linalg.generic");
  case tile::KernelForm::row_reduction:
    if (generic && isRowReduction(generic))
      return buildRowReductionKernel(generic, epilogue, config, kernel,
                                     outputs, inputArgs, context, grid, warps);
    return mismatch("a [parallel, reduction] linalg.generic");
  case tile::KernelForm::matmul:
    // wgmma reads A and B transposed or not (through its descriptors).
    if (generic && hasTensorCoreTypes(generic) &&
        config.getMma() == tile::MmaKind::wgmma_m64nNk16 &&
        matmulTransposes(generic))
      return buildWgmmaMatmulKernel(generic, second, epilogue, config,
                                    kernel, outputs, inputArgs, context, grid,
                                    warps);
    // mma.sync reads B as stored, [K, N] or [N, K] (mmaReadsTransposedB).
    if (generic && hasTensorCoreTypes(generic) &&
        matmulTransposes(generic) && !matmulTransposes(generic)->first)
      return buildMatmulKernel(generic, epilogue, config, kernel, outputs,
                               inputArgs, context, grid, warps);
    return mismatch("a matmul generic with f16 or bf16 operands of one type "
                    "(A read as (m, k))");
  case tile::KernelForm::fma_matmul:
    if (generic && isMatmulOp(generic))
      return buildFmaMatmulKernel(generic, epilogue, config, kernel, outputs,
                                  inputArgs, context, grid, warps);
    return mismatch("a matmul generic");
  case tile::KernelForm::transpose:
    if (generic && isTransposeKernel(generic))
      return buildTransposeKernel(generic, config, kernel, outputs, inputArgs,
                                  context, grid, warps);
    return mismatch("an elementwise linalg.generic reading an operand with "
                    "its last two dims swapped");
  case tile::KernelForm::column_reduction:
    if (root == ops.front() && isColumnReductionKernel(ops))
      return buildColumnReductionKernel(ops, config, kernel, outputs,
                                        inputArgs, context, grid, warps);
    return mismatch("a column reduction (first) and elementwise ops over "
                    "its outputs");
  case tile::KernelForm::attention:
    if (std::optional<AttentionOps> chain =
            matchAttentionKernel(ops, context.target);
        chain && root == chain->softmax.getOperation()) {
      if (config.getMma() == tile::MmaKind::wgmma_m64nNk16)
        return buildWgmmaAttentionKernel(*chain, config, kernel, outputs,
                                         inputArgs, context, grid, warps);
      return buildAttentionKernel(*chain, config, kernel, outputs, inputArgs,
                                  context, grid, warps);
    }
    return mismatch("an attention chain (Q Kᵀ, elementwise ops on the "
                    "scores, a last-dim softmax, P V and its cast), on its "
                    "softmax");
  case tile::KernelForm::row_program:
    if (isRowProgram(ops) && root == rowProgramRoot(ops))
      return buildRowProgramKernel(ops, config, kernel, outputs, inputArgs,
                                   context, grid, warps);
    return mismatch("a row program, on its last row reduction");
  }
  llvm_unreachable("unknown kernel form");
}

} // namespace
