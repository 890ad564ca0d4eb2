//===- FormKernels.cpp - tcc-form-kernels pass ----------------------------===//
//
// Splits each program (a func.func of fused linalg on tensors) into kernel
// groups, outlines each group into a `tcc.kernel` func.func and turns the
// program into a `tcc.host` function of `tcc.launch` steps.
//
//===----------------------------------------------------------------------===//
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Analysis/RowSpace.h"
#include "tcc/Dialect/Tcc/IR/TccDialect.h"
#include "tcc/Dialect/Tcc/IR/TccOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
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

/// Ops a kernel clones instead of reading as an argument (a dynamic size,
/// `tensor.dim`, is the kernel's to read off its own argument).
bool isCloneable(Operation *op) {
  return op && (isa<arith::ConstantOp, tensor::EmptyOp, tensor::DimOp>(op) ||
                isConstantFill(op));
}

/// A dynamic size as a product of program-argument dims and a constant:
/// the canonical form in which two computations of one size compare equal
/// (B * S off x's dims, and the rows of x viewed as (B * S, D)).
struct SizeProduct {
  int64_t constant = 1;
  SmallVector<std::pair<const void *, int64_t>> dims; // sorted (value, dim)

  void multiply(const SizeProduct &other) {
    constant *= other.constant;
    llvm::append_range(dims, other.dims);
    llvm::sort(dims);
  }
  bool operator==(const SizeProduct &other) const {
    return constant == other.constant && dims == other.dims;
  }
};

std::optional<SizeProduct> dimProduct(Value value, int64_t dim,
                                      SymbolTable *symbols, unsigned depth = 0);

/// The product an index value computes, when it is one.
std::optional<SizeProduct> sizeProduct(Value size, SymbolTable *symbols,
                                       unsigned depth = 0) {
  if (depth > 32)
    return std::nullopt;
  if (std::optional<int64_t> c = getConstantIntValue(size)) {
    SizeProduct p;
    p.constant = *c;
    return p;
  }
  Operation *def = size.getDefiningOp();
  if (auto dimOp = dyn_cast_or_null<tensor::DimOp>(def)) {
    std::optional<int64_t> index = dimOp.getConstantIndex();
    if (!index)
      return std::nullopt;
    return dimProduct(dimOp.getSource(), *index, symbols, depth + 1);
  }
  if (auto mul = dyn_cast_or_null<arith::MulIOp>(def)) {
    auto lhs = sizeProduct(mul.getLhs(), symbols, depth + 1);
    auto rhs = sizeProduct(mul.getRhs(), symbols, depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->multiply(*rhs);
    return lhs;
  }
  auto apply = dyn_cast_or_null<affine::AffineApplyOp>(def);
  if (!apply)
    return std::nullopt;
  AffineMap map = apply.getAffineMap();
  std::function<std::optional<SizeProduct>(AffineExpr)> eval =
      [&](AffineExpr expr) -> std::optional<SizeProduct> {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      SizeProduct p;
      p.constant = c.getValue();
      return p;
    }
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return sizeProduct(apply.getMapOperands()[d.getPosition()], symbols,
                         depth + 1);
    if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      return sizeProduct(
          apply.getMapOperands()[map.getNumDims() + s.getPosition()], symbols,
          depth + 1);
    auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!bin || bin.getKind() != AffineExprKind::Mul)
      return std::nullopt;
    auto lhs = eval(bin.getLHS()), rhs = eval(bin.getRHS());
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->multiply(*rhs);
    return lhs;
  };
  return eval(map.getResult(0));
}

/// Dim `dim` of `value` as a product of program-argument dims: through the
/// inits of destination-style ops, `tensor.empty` sizes, reshapes, casts and
/// the kernels of launches made so far.
std::optional<SizeProduct> dimProduct(Value value, int64_t dim,
                                      SymbolTable *symbols, unsigned depth) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || depth > 32)
    return std::nullopt;
  if (!type.isDynamicDim(dim)) {
    SizeProduct p;
    p.constant = type.getDimSize(dim);
    return p;
  }
  if (isa<BlockArgument>(value)) {
    SizeProduct p;
    p.dims.push_back({value.getAsOpaquePointer(), dim});
    return p;
  }
  Operation *def = value.getDefiningOp();
  auto result = cast<OpResult>(value);
  if (auto empty = dyn_cast<tensor::EmptyOp>(def))
    return sizeProduct(empty.getDynamicSize(dim), symbols, depth + 1);
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    return dimProduct(dps.getDpsInits()[result.getResultNumber()], dim, symbols,
                      depth + 1);
  if (auto cast = dyn_cast<tensor::CastOp>(def))
    return dimProduct(cast.getSource(), dim, symbols, depth + 1);
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    if (auto size = dyn_cast<Value>(expand.getMixedOutputShape()[dim]))
      return sizeProduct(size, symbols, depth + 1);
    return std::nullopt;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    SizeProduct p;
    for (int64_t d : collapse.getReassociationIndices()[dim]) {
      auto factor = dimProduct(collapse.getSrc(), d, symbols, depth + 1);
      if (!factor)
        return std::nullopt;
      p.multiply(*factor);
    }
    return p;
  }
  auto launch = dyn_cast<tcc::LaunchOp>(def);
  auto kernel = launch && symbols ? symbols->lookup<func::FuncOp>(
                                        launch.getCallee().getRootReference())
                                  : func::FuncOp();
  if (!kernel)
    return std::nullopt;
  // The kernel's result in its arguments' dims, then those in the host's.
  Value returned = kernel.getBody().front().getTerminator()->getOperand(
      result.getResultNumber());
  auto inner = dimProduct(returned, dim, nullptr, depth + 1);
  if (!inner)
    return std::nullopt;
  SizeProduct p;
  p.constant = inner->constant;
  for (auto [opaque, d] : inner->dims) {
    auto arg = cast<BlockArgument>(Value::getFromOpaquePointer(opaque));
    auto outer = dimProduct(launch.getInputs()[arg.getArgNumber()], d,
                            symbols, depth + 1);
    if (!outer)
      return std::nullopt;
    p.multiply(*outer);
  }
  return p;
}

/// What a group of ops will be built as (convert-linalg-to-tile's forms).
enum class Form {
  Pointwise, // all-parallel ops
  Rows,      // a row program: row reductions with the ops around them
  Matmul,    // a contraction and its elementwise epilogue
  Attention, // an attention chain (tcc::matchAttention), matched up front
  Columns,   // a column reduction and the pointwise ops over its outputs
  Single,    // an op that is a kernel alone (softmax, other linalg ops)
};

struct Group {
  SmallVector<Operation *> ops; // in program order
  Form form;
  bool closed = false; // a later kernel reads its values: it cannot grow
  // The row space [rows..., columns] of Pointwise and Rows groups
  // (columns == 0: the group's ops are not row-program ops).
  SmallVector<int64_t> rows;
  int64_t columns = 0;
  // The output space of a Columns group, and how many of its dims are the
  // columns.
  SmallVector<int64_t, 4> outputShape;
  unsigned colLoops = 0;
};

/// The group `op` starts.
Group startGroup(Operation *op) {
  Group group{{op}, Form::Single};
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic)
    return group;
  std::optional<tcc::RowOpInfo> info = tcc::classifyRowOp(generic);
  if (isAllParallel(generic)) {
    group.form = Form::Pointwise;
  } else if (info && info->kind == tcc::RowOpKind::Reduce) {
    group.form = Form::Rows;
  } else if (auto column = tcc::classifyColumnReduction(generic)) {
    group.form = Form::Columns;
    group.outputShape.assign(column->outputShape.begin(),
                             column->outputShape.end());
    group.colLoops = column->numColLoops;
    return group;
  } else if (linalg::isaContractionOpInterface(generic) &&
             generic.getNumResults() == 1) {
    group.form = Form::Matmul;
    return group;
  } else {
    return group;
  }
  if (info) {
    group.rows = info->rows;
    group.columns = info->columns;
  }
  return group;
}

/// Whether `op`, which reads `value` of `group`, can join the group (Inductor's
/// rules: the same row space, pointwise into a reduction over its rows,
/// pointwise consumers of the reduced rows; one epilogue per contraction).
bool canJoin(const Group &group, Operation *op, Value value) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (group.closed || !generic)
    return false;
  switch (group.form) {
  case Form::Matmul: {
    if (group.ops.size() != 1 || !isAllParallel(generic) ||
        value != group.ops.front()->getResult(0) || !value.hasOneUse())
      return false;
    auto input = llvm::find_if(generic.getDpsInputOperands(),
                               [&](OpOperand *o) { return o->get() == value; });
    return generic.getMatchingIndexingMap(*input).isIdentity() &&
           cast<ShapedType>(value.getType()).getShape() ==
               cast<ShapedType>(generic.getResult(0).getType()).getShape();
  }
  case Form::Pointwise:
  case Form::Rows: {
    if (group.columns == 0)
      return false;
    std::optional<tcc::RowOpInfo> info = tcc::classifyRowOp(
        generic, group.form == Form::Rows
                     ? std::optional<ArrayRef<int64_t>>(group.rows)
                     : std::nullopt);
    if (!info || info->rows != group.rows)
      return false;
    if (info->kind == tcc::RowOpKind::Rows)
      return group.form == Form::Rows;
    return info->columns == group.columns;
  }
  case Form::Columns:
    return tcc::isColumnEpilogue(generic, group.outputShape, group.colLoops);
  case Form::Attention:
  case Form::Single:
    return false;
  }
  return false;
}

/// A contraction's result that `consumer` reads from memory (it joins
/// another kernel) but uses only narrowed (`arith.truncf` to f16/bf16, what
/// the program computes: elementwise fusion moved the cast into the
/// consumer) is stored narrow: the cast becomes the contraction kernel's
/// epilogue and `consumer` reads the narrow tensor. SwiGLU's silu(a) * b
/// then moves a and b in bf16, half the bytes of their f32 accumulators.
/// Returns the cast (a new op of the producer's group), or null.
linalg::GenericOp narrowStoredResult(Group &producer, linalg::GenericOp consumer,
                                     OpOperand &operand) {
  if (producer.form != Form::Matmul || producer.ops.size() != 1 ||
      operand.get() != producer.ops.front()->getResult(0) ||
      !operand.get().hasOneUse() || !consumer.isDpsInput(&operand))
    return nullptr;
  BlockArgument arg = consumer.getMatchingBlockArgument(&operand);
  if (!arg.hasOneUse())
    return nullptr;
  auto trunc = dyn_cast<arith::TruncFOp>(*arg.getUsers().begin());
  Type narrow = trunc ? trunc.getType() : Type();
  if (!trunc || !(narrow.isF16() || narrow.isBF16()))
    return nullptr;
  Operation *contraction = producer.ops.front();
  auto wide = cast<RankedTensorType>(operand.get().getType());
  auto narrowType = RankedTensorType::get(wide.getShape(), narrow);
  OpBuilder b(contraction->getContext());
  b.setInsertionPointAfter(contraction);
  Location loc = trunc.getLoc();
  // Its sizes: those of the tensor.empty its inits start from (dynamic ones
  // are then tensor.dim of the program's arguments, not of a value this
  // pass is about to move into a kernel).
  Value init = operand.get();
  while (auto dps = init.getDefiningOp<DestinationStyleOpInterface>())
    init = dps.getDpsInits()[cast<OpResult>(init).getResultNumber()];
  auto source = init.getDefiningOp<tensor::EmptyOp>();
  Value empty = tensor::EmptyOp::create(
      b, loc,
      source ? source.getMixedSizes() : tensor::getMixedSizes(b, loc, init),
      narrow);
  AffineMap identity = b.getMultiDimIdentityMap(wide.getRank());
  SmallVector<utils::IteratorType> parallel(wide.getRank(),
                                            utils::IteratorType::parallel);
  auto cast = linalg::GenericOp::create(
      b, loc, TypeRange{narrowType}, ValueRange{operand.get()},
      ValueRange{empty}, ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = arith::TruncFOp::create(nb, l, narrow, args[0]);
        linalg::YieldOp::create(nb, l, v);
      });
  operand.set(cast.getResult(0));
  arg.setType(narrow);
  trunc.getResult().replaceAllUsesWith(arg);
  trunc.erase();
  return cast;
}

/// The two open contraction groups whose results all-parallel `op` reads as
/// one dual GEMM's epilogue (canShareDualGemm: the same A, SwiGLU's
/// silu(x @ w1.T) * (x @ w3.T)), in program order; nullopt when none.
/// Only on a target whose GEMM builds it (wgmma).
std::optional<std::pair<unsigned, unsigned>>
dualGemmGroups(ArrayRef<Group> groups,
               const DenseMap<Operation *, unsigned> &groupOf,
               linalg::GenericOp op, tcc::tile::TargetAttr target) {
  if (!target || !target.hasMma(tcc::tile::MmaKind::wgmma_m64nNk16) ||
      !isAllParallel(op))
    return std::nullopt;
  SmallVector<unsigned> candidates;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Operation *producer = input->get().getDefiningOp();
    auto found = producer ? groupOf.find(producer) : groupOf.end();
    if (found == groupOf.end())
      continue;
    const Group &group = groups[found->second];
    if (group.form != Form::Matmul || group.ops.size() != 1 || group.closed ||
        !op.getMatchingIndexingMap(input).isIdentity() ||
        llvm::is_contained(candidates, found->second))
      continue;
    candidates.push_back(found->second);
  }
  for (unsigned i = 0; i < candidates.size(); ++i)
    for (unsigned j = i + 1; j < candidates.size(); ++j) {
      auto [first, second] = std::minmax(candidates[i], candidates[j]);
      auto a = cast<linalg::GenericOp>(groups[first].ops.front());
      auto b = cast<linalg::GenericOp>(groups[second].ops.front());
      if (tcc::isDualGemm({a, b, op}, target))
        return std::make_pair(first, second);
    }
  return std::nullopt;
}

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

/// The value `value` is a host reshape (a chain of expand/collapse_shape)
/// of: itself when it is none.
Value beforeReshapes(Value value) {
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

/// Each result that no kernel would write (an argument, a reshape of one,
/// or a value returned before) becomes a copy of it: an identity
/// linalg.generic, a pointwise kernel of its own.
void copyUnwrittenResults(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  OpBuilder b(ret);
  llvm::SmallPtrSet<Value, 4> returned;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value value = operand.get(), root = beforeReshapes(value);
    bool fresh = returned.insert(value).second;
    if (fresh && !isa<BlockArgument>(root))
      continue;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      continue;
    Location loc = value.getLoc();
    Value empty =
        tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, value),
                                type.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(type.getRank());
    auto copy = linalg::GenericOp::create(
        b, loc, type, ValueRange{value}, ValueRange{empty},
        ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, args[0]);
        });
    operand.set(copy.getResult(0));
  }
}

LogicalResult TccFormKernelsPass::formKernels(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("has several blocks; tcc-form-kernels expects a "
                            "straight-line program");
  copyUnwrittenResults(func);
  tcc::tile::TargetAttr target = tcc::tile::lookupTarget(func);
  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  // Attention chains are one group each: found before the rules below,
  // which would close a group at the contraction's epilogue.
  DenseMap<Operation *, Operation *> attentionOf; // op -> its chain's softmax
  func.walk([&](linalg::SoftmaxOp softmax) {
    if (std::optional<tcc::AttentionOps> chain =
            tcc::matchAttention(softmax, target))
      for (Operation *op : chain->ops())
        attentionOf[op] = softmax;
  });
  DenseMap<Operation *, unsigned> attentionGroup; // softmax -> group
  for (Operation &op : func.getBody().front()) {
    if (auto chain = attentionOf.find(&op); chain != attentionOf.end()) {
      auto [found, fresh] =
          attentionGroup.try_emplace(chain->second, groups.size());
      if (fresh)
        groups.push_back(Group{{}, Form::Attention});
      groups[found->second].ops.push_back(&op);
      groupOf[&op] = found->second;
      // Groups it reads from are done: their values are stored.
      for (Value operand : op.getOperands())
        if (Operation *producer = beforeReshapes(operand).getDefiningOp())
          if (auto from = groupOf.find(producer);
              from != groupOf.end() && from->second != found->second)
            groups[from->second].closed = true;
      groups[found->second].closed = true;
      continue;
    }
    if (isCloneable(&op) || tcc::isSizeComputation(&op) ||
        isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::DimOp,
            func::ReturnOp>(op))
      continue;
    if (!isa<linalg::LinalgOp, linalg::SoftmaxOp>(op))
      return op.emitOpError()
             << "is not supported in a program by tcc-form-kernels (expected "
                "linalg ops, reshapes and constants between kernels)";
    // The epilogue of two contractions of one A (a dual GEMM): the second's
    // group joins the first's, with `op` as their epilogue.
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      if (auto dual = dualGemmGroups(groups, groupOf, generic, target)) {
        auto [first, second] = *dual;
        Operation *gemm = groups[second].ops.front();
        groups[first].ops.append({gemm, &op});
        groups[first].closed = true; // one epilogue
        groups[second].ops.clear();  // dropped below
        groupOf[gemm] = first;
        groupOf[&op] = first;
        for (OpOperand &use : op.getOpOperands())
          if (Operation *producer = beforeReshapes(use.get()).getDefiningOp())
            if (auto found = groupOf.find(producer);
                found != groupOf.end() && found->second != first)
              groups[found->second].closed = true;
        continue;
      }
    // Join the first open group whose value `op` reads and that takes it;
    // every other group it reads from is done (its values are stored).
    std::optional<unsigned> target;
    SmallVector<unsigned> readFrom;
    SmallVector<std::pair<unsigned, OpOperand *>> stored;
    for (OpOperand &use : op.getOpOperands()) {
      Value operand = use.get();
      // A value read through a host reshape is stored by its kernel.
      Value source = beforeReshapes(operand);
      Operation *producer = source.getDefiningOp();
      auto found = producer ? groupOf.find(producer) : groupOf.end();
      if (found == groupOf.end())
        continue;
      readFrom.push_back(found->second);
      if (!target && source == operand &&
          canJoin(groups[found->second], &op, operand))
        target = found->second;
      else if (source == operand)
        stored.push_back({found->second, &use});
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      for (auto [index, use] : stored)
        if (index != target)
          if (linalg::GenericOp cast =
                  narrowStoredResult(groups[index], generic, *use)) {
            groups[index].ops.push_back(cast);
            groupOf[cast] = index;
          }
    for (unsigned index : readFrom)
      if (index != target)
        groups[index].closed = true;
    if (!target) {
      groupOf[&op] = groups.size();
      groups.push_back(startGroup(&op));
      continue;
    }
    Group &group = groups[*target];
    group.ops.push_back(&op);
    groupOf[&op] = *target;
    if (group.form == Form::Matmul)
      group.closed = true; // one epilogue
    else if (auto info = tcc::classifyRowOp(cast<linalg::GenericOp>(op));
             info && info->kind == tcc::RowOpKind::Reduce)
      group.form = Form::Rows;
  }
  // Groups a dual GEMM emptied.
  llvm::erase_if(groups, [](const Group &group) { return group.ops.empty(); });
  if (groups.empty()) {
    // Nothing to compute (no results): a host program with no launches.
    func->setAttr(kHostAttr, UnitAttr::get(&getContext()));
    return success();
  }

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
    if (isCloneable(&op) || tcc::isSizeComputation(&op))
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
  SetVector<Value> inputs;
  SetVector<Operation *> cloned;
  // Empty tensors of dynamic sizes, sized off the kernel's inputs below.
  SetVector<tensor::EmptyOp> sized;
  // Walks `op` (regions included) for values defined outside it.
  std::function<void(Operation *)> collect = [&](Operation *op) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def ? (members.contains(def) || op->isAncestor(def))
                : op->isAncestor(operand.getParentBlock()->getParentOp()))
          continue; // the group's own value, or one of op's regions
        if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def);
            empty && !empty.getDynamicSizes().empty()) {
          sized.insert(empty);
        } else if (!isCloneable(def) && !tcc::isSizeComputation(def)) {
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
  // A dynamic size of an empty tensor is read off the kernel input that has
  // it (the same product of the program's argument dims: B * S is the rows
  // of x viewed as (B * S, D)), so the kernel reads no other value for it;
  // an empty whose sizes no input carries takes its size computation along.
  SymbolTable symbolTable(func->getParentOfType<ModuleOp>());
  DenseMap<tensor::EmptyOp, SmallVector<std::pair<unsigned, int64_t>>>
      sizedBy;
  for (tensor::EmptyOp empty : sized) {
    SmallVector<std::pair<unsigned, int64_t>> from;
    for (Value size : empty.getDynamicSizes()) {
      std::optional<std::pair<unsigned, int64_t>> found;
      if (auto dimOp = size.getDefiningOp<tensor::DimOp>())
        if (std::optional<int64_t> index = dimOp.getConstantIndex())
          if (auto at = llvm::find(inputs, dimOp.getSource());
              at != inputs.end())
            found = {static_cast<unsigned>(at - inputs.begin()), *index};
      std::optional<SizeProduct> want = sizeProduct(size, &symbolTable);
      for (auto [i, input] : llvm::enumerate(inputs)) {
        auto type = dyn_cast<RankedTensorType>(input.getType());
        for (int64_t d = 0; want && !found && type && d < type.getRank(); ++d)
          if (type.isDynamicDim(d) && dimProduct(input, d, &symbolTable) == want)
            found = {static_cast<unsigned>(i), d};
      }
      if (!found)
        break;
      from.push_back(*found);
    }
    if (from.size() == empty.getDynamicSizes().size()) {
      sizedBy[empty] = from;
      continue;
    }
    collect(empty);
    cloned.insert(empty);
  }
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
  DenseMap<std::pair<unsigned, int64_t>, Value> dims;
  for (tensor::EmptyOp empty : sized) {
    auto it = sizedBy.find(empty);
    if (it == sizedBy.end())
      continue; // cloned with its size computation
    SmallVector<Value> sizes;
    for (auto [input, d] : it->second) {
      Value &dim = dims[{input, d}];
      if (!dim)
        dim = tensor::DimOp::create(b, empty.getLoc(),
                                    entry->getArgument(input), d);
      sizes.push_back(dim);
    }
    mapping.map(empty.getResult(),
                tensor::EmptyOp::create(b, empty.getLoc(), empty.getType(),
                                        sizes)
                    .getResult());
  }
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
  // Host reshapes of the group's values that came before its last op now
  // follow the launch (with the reshapes of them), in their order.
  SetVector<Operation *> early;
  SmallVector<Value> worklist(launch->getResults());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers())
      if (user->isBeforeInBlock(launch) && early.insert(user))
        llvm::append_range(worklist, user->getResults());
  }
  SmallVector<Operation *> moved(early.begin(), early.end());
  llvm::sort(moved, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  Operation *after = launch;
  for (Operation *op : moved) {
    op->moveAfter(after);
    after = op;
  }
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
  return kernel;
}

} // namespace
