//===- FormKernels.cpp - tcc-form-kernels pass ----------------------------===//
//
// Splits each program (a func.func of fused linalg on tensors) into kernel
// groups, outlines each group into a `tcc.kernel` func.func and turns the
// program into a `tcc.host` function of `tcc.launch` steps.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"
#include "tcc/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCFORMKERNELS
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;

namespace {

/// Attributes marking what this pass made.
constexpr StringLiteral kKernelAttr = "tcc.kernel";
constexpr StringLiteral kHostAttr = "tcc.host";

bool isAllParallel(linalg::LinalgOp op) {
  return llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
}

/// A fill of a constant: linalg.fill, or a generalized one (a generic with no
/// inputs yielding a constant). Cloned into every kernel that uses it as an
/// init rather than computed by a kernel of its own.
bool isConstantFill(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() != nullptr;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 0 || generic.getNumResults() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getOperand(0).getDefiningOp<arith::ConstantOp>() != nullptr;
}

/// Ops a kernel clones instead of reading as an argument.
bool isCloneable(Operation *op) {
  return op && (isa<arith::ConstantOp, tensor::EmptyOp>(op) ||
                isConstantFill(op));
}

/// Whether a root's group can take an elementwise epilogue: the builders
/// of matmuls and row reductions can.
bool takesEpilogue(Operation *root) {
  auto generic = dyn_cast<linalg::GenericOp>(root);
  if (!generic || generic.getNumResults() != 1)
    return false;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  int reductions = llvm::count(iterators, utils::IteratorType::reduction);
  // Row reduction: (parallel, reduction); matmul: (batch?, m, n, k).
  if (iterators.size() == 2)
    return iterators[0] == utils::IteratorType::parallel && reductions == 1;
  return reductions == 1 && iterators.back() == utils::IteratorType::reduction &&
         (iterators.size() == 3 || iterators.size() == 4);
}

struct Group {
  SmallVector<Operation *> ops; // in program order; ops[0] is the root
  bool hasEpilogue = false;
};

struct TccFormKernelsPass
    : public tcc::impl::TccFormKernelsBase<TccFormKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> programs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kKernelAttr) &&
          !func->hasAttr(kHostAttr))
        programs.push_back(func);
    for (func::FuncOp func : programs)
      if (failed(formKernels(func)))
        return signalPassFailure();
  }

  LogicalResult formKernels(func::FuncOp func);
  func::FuncOp outline(func::FuncOp func, const Group &group, unsigned index);
};

LogicalResult TccFormKernelsPass::formKernels(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("has several blocks; tcc-form-kernels expects a "
                            "straight-line program");
  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  for (Operation &op : func.getBody().front()) {
    if (isCloneable(&op) ||
        isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::DimOp,
            func::ReturnOp>(op))
      continue;
    if (!isa<linalg::LinalgOp, linalg::SoftmaxOp>(op))
      return op.emitOpError()
             << "is not supported in a program by tcc-form-kernels (expected "
                "linalg ops, reshapes and constants between kernels)";
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && isAllParallel(linalgOp)) {
      // The epilogue of the group whose root result it reads, if that root
      // has no other user and takes one.
      std::optional<unsigned> target;
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        Operation *producer = input->get().getDefiningOp();
        auto found = producer ? groupOf.find(producer) : groupOf.end();
        if (found == groupOf.end())
          continue;
        Group &group = groups[found->second];
        if (group.ops.front() != producer || group.hasEpilogue ||
            !takesEpilogue(producer) || !input->get().hasOneUse() ||
            !linalgOp.getMatchingIndexingMap(input).isIdentity() ||
            cast<ShapedType>(input->get().getType()).getShape() !=
                cast<ShapedType>(op.getResult(0).getType()).getShape())
          continue;
        target = found->second;
        break;
      }
      if (target) {
        groups[*target].ops.push_back(&op);
        groups[*target].hasEpilogue = true;
        groupOf[&op] = *target;
        continue;
      }
    }
    groupOf[&op] = groups.size();
    groups.push_back(Group{{&op}});
  }
  if (groups.empty())
    return success();

  // A single group over the function's arguments is already one kernel.
  if (groups.size() == 1) {
    bool readsArgumentsOnly = true;
    for (Operation *op : groups.front().ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && !isCloneable(def) && !groupOf.count(def))
          readsArgumentsOnly = false;
      }
    bool returnsKernelValues =
        llvm::all_of(func.getBody().front().getTerminator()->getOperands(),
                     [&](Value value) {
                       Operation *def = value.getDefiningOp();
                       if (def && isa<tensor::ExpandShapeOp,
                                      tensor::CollapseShapeOp>(def))
                         def = def->getOperand(0).getDefiningOp();
                       return def && groupOf.count(def);
                     });
    if (readsArgumentsOnly && returnsKernelValues)
      return success();
  }

  for (auto [index, group] : llvm::enumerate(groups))
    if (!outline(func, group, index))
      return failure();
  func->setAttr(kHostAttr, UnitAttr::get(&getContext()));
  // The fills, empty tensors and constants the kernels took along.
  SmallVector<Operation *> leftovers;
  for (Operation &op : func.getBody().front().without_terminator())
    if (isCloneable(&op))
      leftovers.push_back(&op);
  for (Operation *op : llvm::reverse(leftovers))
    if (op->use_empty())
      op->erase();
  return success();
}

func::FuncOp TccFormKernelsPass::outline(func::FuncOp func, const Group &group,
                                         unsigned index) {
  llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(),
                                            group.ops.end());
  // Values the group reads from outside (arguments of the kernel), and the
  // cloneable ops it takes along, in program order.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> cloned;
  // Walks `op` (regions included) for values defined outside it.
  std::function<void(Operation *)> collect = [&](Operation *op) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def ? (members.contains(def) || op->isAncestor(def))
                : op->isAncestor(operand.getParentBlock()->getParentOp()))
          continue; // the group's own value, or one of op's regions
        if (!isCloneable(def)) {
          inputs.insert(operand);
        } else if (!cloned.contains(def)) {
          collect(def);
          cloned.insert(def);
        }
      }
    });
  };
  for (Operation *op : group.ops)
    collect(op);
  // Results used outside the group (later kernels, reshapes, the return).
  SmallVector<Value> outputs;
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        outputs.push_back(result);

  OpBuilder b(func);
  Location loc = group.ops.front()->getLoc();
  std::string name = (func.getSymName() + "_k" + Twine(index)).str();
  auto type = b.getFunctionType(TypeRange(inputs.getArrayRef()),
                                TypeRange(outputs));
  auto kernel = func::FuncOp::create(b, loc, name, type);
  kernel.setPrivate();
  kernel->setAttr(kKernelAttr, b.getUnitAttr());
  Block *entry = kernel.addEntryBlock();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip(inputs, entry->getArguments()))
    mapping.map(input, arg);
  b.setInsertionPointToStart(entry);
  // Cloneables in program order (their operands come first).
  SmallVector<Operation *> ordered(cloned.begin(), cloned.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  for (Operation *op : group.ops)
    b.clone(*op, mapping);
  SmallVector<Value> returned;
  for (Value output : outputs)
    returned.push_back(mapping.lookup(output));
  func::ReturnOp::create(b, loc, returned);

  // The host's step, where the group's last op was.
  b.setInsertionPoint(group.ops.back());
  auto launch = tcc::LaunchOp::create(b, loc, TypeRange(outputs),
                                      FlatSymbolRefAttr::get(b.getContext(), name),
                                      inputs.getArrayRef());
  for (auto [output, result] : llvm::zip(outputs, launch.getResults()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
  return kernel;
}

} // namespace
