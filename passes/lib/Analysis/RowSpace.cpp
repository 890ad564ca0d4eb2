//===- RowSpace.cpp - ops of a row program --------------------------------===//
#include "tcc/Analysis/RowSpace.h"
#include "tcc/Analysis/ArgReduction.h"
#include "tcc/Support/Sizes.h"

using namespace mlir;
using namespace mlir::tcc;

int64_t RowOpInfo::numRows() const { return productOrDynamic(rows); }

std::optional<RowAccess> mlir::tcc::classifyRowAccess(AffineMap map) {
  unsigned rank = map.getNumDims();
  if (rank == 0 || map.getNumSymbols() != 0)
    return std::nullopt;
  if (map.isIdentity())
    return RowAccess::Block;
  MLIRContext *ctx = map.getContext();
  if (map == AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx))
    return RowAccess::Cols;
  if (rank > 1 && map == AffineMap::getMultiDimIdentityMap(rank, ctx)
                             .getMajorSubMap(rank - 1))
    return RowAccess::Rows;
  int64_t previous = -1;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || int64_t(dim.getPosition()) <= previous)
      return std::nullopt;
    previous = dim.getPosition();
  }
  return RowAccess::Gather;
}

std::optional<RowOpInfo>
mlir::tcc::classifyRowOp(linalg::GenericOp op,
                         std::optional<ArrayRef<int64_t>> programRows) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto parallel = [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  };
  bool allParallel = llvm::all_of(iterators, parallel);
  bool reducesLast = !allParallel && ranges.size() > 1 &&
                     llvm::all_of(ArrayRef(iterators).drop_back(), parallel);
  if (!allParallel && !reducesLast)
    return std::nullopt;
  if (allParallel && programRows && ArrayRef(ranges) == *programRows &&
      llvm::all_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return map.isIdentity(); })) {
    RowOpInfo info{RowOpKind::Rows, SmallVector<int64_t>(ranges), 0};
    return info;
  }
  // The rows may be dynamic (their count a kernel argument); the columns,
  // which a program walks, are static.
  if (ShapedType::isDynamic(ranges.back()))
    return std::nullopt;
  // Inits: identity for all-parallel ops, the rows for a reduction.
  for (OpOperand &init : op.getDpsInitsMutable()) {
    std::optional<RowAccess> access =
        classifyRowAccess(op.getMatchingIndexingMap(&init));
    if (access != (allParallel ? RowAccess::Block : RowAccess::Rows))
      return std::nullopt;
  }
  // One reduced value, or an arg reduction's value and index.
  if (reducesLast && op.getNumDpsInits() != 1 && !matchArgReduction(op))
    return std::nullopt;
  // Gathered operands ride along a tensor read whole (a matmul, whose
  // operands are both "gathered", is no row program).
  bool gathers = false, whole = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    std::optional<RowAccess> access =
        classifyRowAccess(op.getMatchingIndexingMap(input));
    if (!access)
      return std::nullopt;
    gathers |= access == RowAccess::Gather;
    whole |= access == RowAccess::Block;
  }
  if (gathers && !whole)
    return std::nullopt;
  RowOpInfo info;
  info.kind = reducesLast ? RowOpKind::Reduce : RowOpKind::Block;
  info.rows.assign(ranges.begin(), ranges.end() - 1);
  info.columns = ranges.back();
  return info;
}
