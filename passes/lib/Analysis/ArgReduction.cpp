//===- ArgReduction.cpp - reductions to a (value, index) pair -------------===//
#include "tcc/Analysis/ArgReduction.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tcc;

std::optional<ArgReduction>
mlir::tcc::matchArgReduction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 2 ||
      op.getNumResults() != 2 ||
      llvm::none_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::reduction;
      }))
    return std::nullopt;
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      op.getMatchingIndexingMap(op.getDpsInitOperand(1)))
    return std::nullopt;
  Block &body = op.getRegion().front();
  ArgReduction r;
  r.acc = body.getArgument(op.getNumDpsInputs());
  r.accIndex = body.getArgument(op.getNumDpsInputs() + 1);
  if (!r.acc.getType().isIntOrFloat() || !isa<IntegerType>(r.accIndex.getType()))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto valueSelect = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto indexSelect = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!valueSelect || !indexSelect || valueSelect->getBlock() != &body ||
      indexSelect->getBlock() != &body ||
      valueSelect.getCondition() != indexSelect.getCondition() ||
      valueSelect.getFalseValue() != r.acc ||
      indexSelect.getFalseValue() != r.accIndex)
    return std::nullopt;
  r.value = valueSelect.getTrueValue();
  r.index = indexSelect.getTrueValue();
  r.yieldedValue = valueSelect.getResult();
  r.yieldedIndex = indexSelect.getResult();
  // The choice: the ops the yielded selects are computed with, back to the
  // two pairs (and constants).
  llvm::SmallPtrSet<Operation *, 16> slice;
  SmallVector<Operation *> worklist{valueSelect, indexSelect};
  while (!worklist.empty()) {
    Operation *inner = worklist.pop_back_val();
    if (!slice.insert(inner).second)
      continue;
    if (inner->getNumRegions() != 0 ||
        !isa<arith::ArithDialect>(inner->getDialect()))
      return std::nullopt;
    for (Value operand : inner->getOperands()) {
      if (operand == r.acc || operand == r.accIndex || operand == r.value ||
          operand == r.index)
        continue;
      Operation *def = operand.getDefiningOp();
      if (def && isa<arith::ConstantOp>(def))
        continue;
      // An input read other than through the element, or a value from
      // outside the body.
      if (!def || def->getBlock() != &body)
        return std::nullopt;
      worklist.push_back(def);
    }
  }
  for (Operation &inner : body.without_terminator())
    if (slice.contains(&inner))
      r.choice.insert(&inner);
  // The element does not read the accumulator or the choice.
  for (Operation &inner : body.without_terminator()) {
    if (r.choice.contains(&inner))
      continue;
    for (Value operand : inner.getOperands())
      if (operand == r.acc || operand == r.accIndex ||
          r.choice.contains(operand.getDefiningOp()))
        return std::nullopt;
  }
  if (r.choice.contains(r.value.getDefiningOp()) ||
      r.choice.contains(r.index.getDefiningOp()))
    return std::nullopt;
  // The element's loop indices, cast to integers where they are read.
  for (auto index : body.getOps<linalg::IndexOp>())
    for (Operation *user : index->getUsers()) {
      auto cast = dyn_cast<arith::IndexCastOp>(user);
      if (!cast || !isa<IntegerType>(cast.getType()))
        return std::nullopt;
      r.loopIndices.push_back({cast, unsigned(index.getDim())});
    }
  return r;
}

std::pair<Value, Value> mlir::tcc::cloneArgChoice(OpBuilder &b,
                                                  const ArgReduction &r,
                                                  Value accValue,
                                                  Value accIndex, Value value,
                                                  Value index) {
  IRMapping mapping;
  mapping.map(r.acc, accValue);
  mapping.map(r.accIndex, accIndex);
  mapping.map(r.value, value);
  mapping.map(r.index, index);
  for (Operation *inner : r.choice) {
    for (Value operand : inner->getOperands())
      if (!mapping.contains(operand))
        if (auto constant = operand.getDefiningOp<arith::ConstantOp>())
          mapping.map(operand,
                      b.clone(*constant.getOperation())->getResult(0));
    b.clone(*inner, mapping);
  }
  return {mapping.lookup(r.yieldedValue), mapping.lookup(r.yieldedIndex)};
}
