//===- ColumnSpace.cpp - ops of a column reduction ------------------------===//
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Analysis/ArgReduction.h"
#include "tcc/Support/Sizes.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// (d0, ..., dn-1) -> (d_dims[0], d_dims[1], ...)
AffineMap dimsMap(unsigned numDims, ArrayRef<unsigned> dims,
                  MLIRContext *ctx) {
  SmallVector<AffineExpr> results;
  for (unsigned dim : dims)
    results.push_back(getAffineDimExpr(dim, ctx));
  return AffineMap::get(numDims, 0, results, ctx);
}

/// The loop ranges of a tensor op (dynamic ones as ShapedType::kDynamic);
/// whether there are any.
bool getRanges(linalg::GenericOp op, SmallVector<int64_t> &ranges) {
  if (!op.hasPureTensorSemantics())
    return false;
  ranges = op.getStaticLoopRanges();
  return !ranges.empty();
}

bool usesLoopIndices(linalg::GenericOp op) {
  return !op.getRegion().front().getOps<linalg::IndexOp>().empty();
}

} // namespace

std::optional<ColumnReductionInfo>
mlir::tcc::classifyColumnReduction(linalg::GenericOp op) {
  SmallVector<int64_t> ranges;
  if (!getRanges(op, ranges))
    return std::nullopt;
  // One reduced value, or an arg reduction's value and index (its inits
  // read through one map; its element's index from the loop indices).
  if ((op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
       usesLoopIndices(op)) &&
      !matchArgReduction(op))
    return std::nullopt;
  unsigned numDims = ranges.size();
  MLIRContext *ctx = op.getContext();
  // The memory order: that of the first input reading every loop.
  OpOperand *const *primary =
      llvm::find_if(op.getDpsInputOperands(), [&](OpOperand *input) {
        AffineMap map = op.getMatchingIndexingMap(input);
        return map.isPermutation() && map.getNumResults() == numDims;
      });
  if (primary == op.getDpsInputOperands().end())
    return std::nullopt;
  AffineMap primaryMap = op.getMatchingIndexingMap(*primary);
  ColumnReductionInfo info;
  for (unsigned i = 0; i < numDims; ++i)
    info.order.push_back(primaryMap.getDimPosition(i));

  // In memory order the loops are [parallel*, reduction+, parallel+].
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto isReduced = [&](unsigned i) {
    return iterators[info.order[i]] == utils::IteratorType::reduction;
  };
  unsigned i = 0;
  while (i < numDims && !isReduced(i))
    ++i;
  info.numBatchLoops = i;
  while (i < numDims && isReduced(i))
    ++i;
  info.numReducedLoops = i - info.numBatchLoops;
  unsigned firstCol = i;
  while (i < numDims && !isReduced(i))
    ++i;
  info.numColLoops = i - firstCol;
  if (i != numDims || info.numReducedLoops == 0 || info.numColLoops == 0)
    return std::nullopt;

  ArrayRef<unsigned> order = info.order;
  SmallVector<unsigned> parallel(order.take_front(info.numBatchLoops));
  llvm::append_range(parallel, order.drop_front(firstCol));
  AffineMap fullMap = dimsMap(numDims, order, ctx);
  AffineMap outputsMap = dimsMap(numDims, parallel, ctx);
  AffineMap colsMap = dimsMap(numDims, order.drop_front(firstCol), ctx);
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != outputsMap)
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map == fullMap)
      info.inputs.push_back(ColumnAccess::Full);
    else if (map == outputsMap)
      info.inputs.push_back(ColumnAccess::Outputs);
    else if (map == colsMap)
      info.inputs.push_back(ColumnAccess::Cols);
    else
      return std::nullopt;
  }
  SmallVector<int64_t> extents;
  for (unsigned d : order)
    extents.push_back(ranges[d]);
  ArrayRef<int64_t> inOrder = extents;
  info.batch = productOrDynamic(inOrder.take_front(info.numBatchLoops));
  info.reduced = productOrDynamic(
      inOrder.slice(info.numBatchLoops, info.numReducedLoops));
  info.columns = productOrDynamic(inOrder.drop_front(firstCol));
  // A program's block spans columns: they are static (the batch and the
  // reduced rows may be dynamic, counted at run time).
  if (ShapedType::isDynamic(info.columns))
    return std::nullopt;
  info.outputShape.assign(
      cast<ShapedType>(op.getResult(0).getType()).getShape().begin(),
      cast<ShapedType>(op.getResult(0).getType()).getShape().end());
  return info;
}

unsigned mlir::tcc::streamedElementBytes(linalg::GenericOp op,
                                         const ColumnReductionInfo &info) {
  unsigned bytes = 1;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs()))
    if (info.inputs[i] == ColumnAccess::Full)
      bytes = std::max(
          bytes, (getElementTypeOrSelf(input).getIntOrFloatBitWidth() + 7) / 8);
  return bytes;
}

std::optional<ColumnAccess>
mlir::tcc::classifyColumnEpilogueAccess(AffineMap map, unsigned numColLoops) {
  unsigned rank = map.getNumDims();
  if (map.getNumSymbols() != 0 || rank < numColLoops)
    return std::nullopt;
  if (map.isIdentity())
    return ColumnAccess::Outputs;
  if (map == AffineMap::getMultiDimIdentityMap(rank, map.getContext())
                 .getMinorSubMap(numColLoops))
    return ColumnAccess::Cols;
  return std::nullopt;
}

bool mlir::tcc::isColumnEpilogue(linalg::GenericOp op,
                                 ArrayRef<int64_t> outputShape,
                                 unsigned numColLoops) {
  // Dynamic sizes match the reduction's outputs' (the consumer reads them
  // through the identity).
  SmallVector<int64_t> ranges;
  if (!getRanges(op, ranges) || ArrayRef(ranges) != outputShape ||
      usesLoopIndices(op) || op.getNumResults() == 0)
    return false;
  if (llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return false;
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return classifyColumnEpilogueAccess(op.getMatchingIndexingMap(input),
                                        numColLoops)
        .has_value();
  });
}
