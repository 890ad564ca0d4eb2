//===- Strategy.cpp - kernel-op classification and layout rules -----------===//
//
// Shared by tcc-select-strategy and convert-linalg-to-tile (Strategy.h).
//
//===----------------------------------------------------------------------===//
#include "tcc/Strategy/Strategy.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "tcc/Analysis/ColumnSpace.h"
#include "tcc/Analysis/RowSpace.h"
#include "llvm/ADT/SmallVectorExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

bool mlir::tcc::isSizeComputation(Operation *op) {
  if (!op)
    return false;
  if (isa<affine::AffineApplyOp>(op))
    return true;
  if (!isa_and_nonnull<arith::ArithDialect>(op->getDialect()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  if (op->getResult(0).getType().isIndex())
    return llvm::all_of(op->getOperandTypes(),
                        [](Type type) { return type.isIndex(); });
  // Scalar arithmetic of the host: its operands are sizes (or constants).
  auto scalar = [](Type type) { return type.isIntOrIndexOrFloat(); };
  return scalar(op->getResult(0).getType()) &&
         llvm::all_of(op->getOperands(), [](Value operand) {
           Operation *def = operand.getDefiningOp();
           return def && (isa<arith::ConstantOp, tensor::DimOp>(def) ||
                          isSizeComputation(def));
         });
}

unsigned mlir::tcc::elementBytes(Type type) {
  return std::max(1u, (type.getIntOrFloatBitWidth() + 7) / 8);
}

unsigned mlir::tcc::widestElementBytes(Operation *op) {
  unsigned bytes = 1;
  for (Value operand : op->getOperands())
    bytes = std::max(bytes, elementBytes(getElementTypeOrSelf(operand)));
  return bytes;
}

//===----------------------------------------------------------------------===//
// Kernel ops
//===----------------------------------------------------------------------===//

LogicalResult mlir::tcc::verifyKernelSignature(func::FuncOp func) {
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && !tensor.getElementType().isIntOrIndexOrFloat())
      return func.emitOpError()
             << what << " #" << i << " has type " << type
             << "; kernels read and write tensors of integers or floats";
    // (i1 has no byte of its own in memory: MemRefToLLVM asserts on it.)
    if (tensor && tensor.getElementType().isInteger(1))
      return func.emitOpError()
             << what << " #" << i << " has type " << type
             << "; kernels do not read or write i1 (bool) tensors: pass a "
                "mask as i8 and compare it (m != 0), or return a comparison "
                "cast to i8";
    if (tensor)
      return success();
    return func.emitOpError() << what << " #" << i << " has type " << type
                              << "; kernels read and write ranked tensors";
  };
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (failed(check(type, "argument", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  if (func.getNumResults() == 0)
    return func.emitOpError("returns nothing: no kernel to build");
  return success();
}

SmallVector<int64_t> mlir::tcc::planningSizes(ArrayRef<int64_t> sizes,
                                              int64_t extent) {
  SmallVector<int64_t> planned(sizes);
  for (int64_t &size : planned)
    if (ShapedType::isDynamic(size))
      size = extent;
  return planned;
}

int64_t mlir::tcc::planningProduct(ArrayRef<int64_t> sizes, int64_t extent) {
  int64_t product = 1;
  for (int64_t size : planningSizes(sizes, extent))
    product *= size;
  return product;
}

SmallVector<int64_t> mlir::tcc::rootLoopSizes(Operation *root) {
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(root))
    return SmallVector<int64_t>(
        cast<RankedTensorType>(softmax.getInput().getType()).getShape());
  if (auto op = dyn_cast<linalg::LinalgOp>(root))
    return op.getStaticLoopRanges();
  return {};
}

LogicalResult mlir::tcc::verifyDynamicLoops(Operation *root,
                                            tile::LoweringConfigAttr config) {
  SmallVector<int64_t> sizes = rootLoopSizes(root);
  SmallVector<unsigned> dynamic;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(d);
  if (dynamic.empty())
    return success();
  auto loopSizes = root->getAttrOfType<ArrayAttr>("tcc.loop_sizes");
  if (!loopSizes || loopSizes.size() != sizes.size())
    return root->emitOpError()
           << "has dynamic loop sizes but no tcc.loop_sizes naming them "
              "(run tcc-bind-shape-symbols after tcc-form-kernels)";
  // The loops the form's builder may leave dynamic, and what they are.
  tile::KernelForm form = config.getForm();
  SmallVector<unsigned> allowed;
  StringRef which = "no loop";
  auto generic = dyn_cast<linalg::GenericOp>(root);
  switch (form) {
  case tile::KernelForm::elementwise:
    if (generic && config.getView() != tile::ElementwiseView::flat_gather &&
        !isPermutedElementwise(generic)) {
      SmallVector<ReassociationIndices> groups = collapsibleDims(generic);
      if (groups.size() == 2)
        allowed.assign(groups.front().begin(), groups.front().end());
    }
    which = "the rows (the leading dims every operand reads together; a "
            "plain view, no permuted operand, no third group)";
    break;
  case tile::KernelForm::row_reduction:
  case tile::KernelForm::softmax:
  case tile::KernelForm::row_program:
    for (unsigned d = 0; d + 1 < sizes.size(); ++d)
      allowed.push_back(d);
    which = "the rows (every dim but the last)";
    break;
  case tile::KernelForm::transpose:
    // Tiles and the programs' other indices counted at run time, tails
    // masked.
    for (unsigned d = 0; d < sizes.size(); ++d)
      allowed.push_back(d);
    break;
  case tile::KernelForm::column_reduction:
    // [B, R, N] in memory order: the batch and the reduced rows (the
    // program's row walk and grid counted at run time).
    if (generic)
      if (std::optional<ColumnReductionInfo> info =
              classifyColumnReduction(generic))
        allowed.assign(info->order.begin(),
                       info->order.begin() + info->numBatchLoops +
                           info->numReducedLoops);
    which = "the batch and the reduced dims (a program's block spans the "
            "columns)";
    break;
  case tile::KernelForm::matmul:
  case tile::KernelForm::fma_matmul:
    // (batch,) m, n, k: the batch and M.
    for (unsigned d = 0; d + 2 < sizes.size(); ++d)
      allowed.push_back(d);
    which = "the batch and M";
    break;
  default:
    break;
  }
  for (unsigned d : dynamic)
    if (!llvm::is_contained(allowed, d))
      return root->emitOpError()
             << "has dynamic size " << loopSizes[d] << " in loop " << d
             << "; a form = " << tile::stringifyKernelForm(form)
             << " kernel takes dynamic sizes in " << which
             << " only: bind this size (compile a specialization)";
  return success();
}

LogicalResult mlir::tcc::emitNotOneKernel(func::FuncOp func,
                                          ArrayRef<Operation *> ops) {
  auto isDynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  bool dynamic = llvm::any_of(ops, [&](Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isDynamic);
  });
  InFlightDiagnostic diag = func.emitOpError();
  if (dynamic)
    diag << "has dynamic sizes that no kernel form takes (elementwise ops, "
            "row reductions, softmax and row programs take dynamic rows, "
            "matmuls a dynamic batch and M, transposes any dynamic dim, "
            "column reductions a dynamic batch and reduced dims): bind the "
            "sizes (compile a specialization)";
  else
    diag << "needs " << ops.size()
         << " kernels; convert-linalg-to-tile builds one kernel per function "
            "(an elementwise op, a row program of row reductions and the "
            "elementwise ops around them, a matmul with an elementwise "
            "epilogue, or a softmax): run tcc-form-kernels first to split a "
            "program into kernels";
  for (Operation *op : ops)
    diag.attachNote(op->getLoc()) << "kernel op: " << op->getName();
  return diag;
}

FailureOr<Value> mlir::tcc::getFillValue(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    if (fill.getInputs()[0].getDefiningOp<arith::ConstantOp>())
      return fill.getInputs()[0];
  if (auto generic = init.getDefiningOp<linalg::GenericOp>()) {
    if (generic.getNumDpsInputs() != 0)
      return failure();
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    Value value = yield.getOperand(0);
    if (value.getDefiningOp<arith::ConstantOp>())
      return value;
  }
  return failure();
}

static bool isFill(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && succeeded(getFillValue(generic.getResult(0)));
}

FailureOr<SmallVector<Operation *>>
mlir::tcc::collectKernelOps(func::FuncOp func) {
  SmallVector<Operation *> kernelOps;
  for (Operation &op : func.getBody().front()) {
    // Scalar arithmetic of sizes (a mean's divisor, which a kernel op's
    // body captures: the builders rebuild it from the kernel's memrefs).
    bool scalar =
        isa<arith::ArithDialect>(op.getDialect()) && isSizeComputation(&op);
    if (isa<linalg::LinalgOp, linalg::SoftmaxOp>(op) && !isFill(&op))
      kernelOps.push_back(&op);
    else if (!scalar && !isa<linalg::LinalgOp, func::ReturnOp, tensor::EmptyOp,
                  tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                  tensor::DimOp, arith::ConstantOp>(op))
      return op.emitOpError()
             << "is not supported between kernels by convert-linalg-to-tile";
  }
  return kernelOps;
}

bool mlir::tcc::isAllParallel(linalg::GenericOp op) {
  return llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
    return t == utils::IteratorType::parallel;
  });
}

bool mlir::tcc::isRowReduction(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  return iterators.size() == 2 &&
         iterators[0] == utils::IteratorType::parallel &&
         iterators[1] == utils::IteratorType::reduction;
}

std::optional<std::pair<bool, bool>>
mlir::tcc::matmulTransposes(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      (loops != 3 && loops != 4))
    return std::nullopt;
  SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (it[i] != utils::IteratorType::parallel)
      return std::nullopt;
  if (it.back() != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  // (b,) m, n, k: a batch dim leads every operand.
  bool batched = loops == 4;
  auto d = [&](unsigned i) { return getAffineDimExpr(i + batched, ctx); };
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, ctx));
    results.append({x, y});
    return AffineMap::get(loops, 0, results, ctx);
  };
  AffineExpr m = d(0), n = d(1), k = d(2);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] != map(m, n))
    return std::nullopt;
  bool aT = maps[0] == map(k, m), bT = maps[1] == map(n, k);
  if ((!aT && maps[0] != map(m, k)) || (!bT && maps[1] != map(k, n)))
    return std::nullopt;
  return std::make_pair(aT, bT);
}

bool mlir::tcc::isMatmulOp(linalg::GenericOp op) {
  return matmulTransposes(op) == std::make_pair(false, false);
}

/// Whether operand `i` (0: A, 1: B) of a contraction read with
/// `transposes` (matmulTransposes) is contiguous along K: A [M, K], B [N, K].
static bool isContiguousAlongK(std::pair<bool, bool> transposes, unsigned i) {
  return i == 0 ? !transposes.first : transposes.second;
}

bool mlir::tcc::fitsWgmma(linalg::GenericOp op, tile::TargetAttr target) {
  // matmulTransposes first: it checks the operand count.
  if (!target || !target.hasMma(tile::MmaKind::wgmma_m64nNk16) ||
      !matmulTransposes(op) || !hasTensorCoreTypes(op))
    return false;
  // Operands are buffers (kernel arguments once tcc-form-kernels outlined
  // the contraction: producers other than the casts tcc-fuse-elementwise
  // already folded into its body end their own kernels).
  // Static shapes, but for a dynamic batch (the leading dim of 3-D
  // operands) and M (the rows of a not-transposed A and of the result): the
  // tensor maps are built per launch and the persistent walk counts its
  // tiles at run time.
  std::pair<bool, bool> transposes = *matmulTransposes(op);
  auto staticBut = [](RankedTensorType type, bool rows) {
    int64_t rank = type.getRank();
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d) && !(rank == 3 && d == 0) &&
          !(rows && d == rank - 2))
        return false;
    return true;
  };
  // Rows TMA cannot read are copied with cp.async, whose smallest copy is
  // 4 bytes: rows of an odd number of 16-bit elements take the mma.sync
  // path (measured: copied through registers, 4097 x 4095 x 4096 NN ran at
  // 123 TFLOP/s on the H200 against 170-190 there). Copies along K (A [M, K],
  // B [N, K]) keep a row address per run row in the producer's registers:
  // with 4-byte runs a 128 x 128 step's 64 of them spilled (ptxas, NT
  // 3000 x 1500 x 778), so those rows need 8-byte runs.
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs())) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    bool alongK = isContiguousAlongK(transposes, i);
    if (!type || !staticBut(type, /*rows=*/i == 0 && !transposes.first) ||
        (!wgmmaReadsThroughTma(input) &&
         (type.getShape().back() * 2) % (alongK ? 8 : 4)))
      return false;
  }
  auto out = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  return out && staticBut(out, /*rows=*/true);
}

bool mlir::tcc::wgmmaReadsThroughTma(Value operand) {
  auto type = cast<ShapedType>(operand.getType());
  return !type.isDynamicDim(type.getRank() - 1) &&
         (type.getShape().back() * type.getElementTypeBitWidth() / 8) % 16 ==
             0;
}

bool mlir::tcc::wgmmaCopiesAlongK(linalg::GenericOp op) {
  std::optional<std::pair<bool, bool>> transposes = matmulTransposes(op);
  if (!transposes)
    return false;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputs()))
    if (isContiguousAlongK(*transposes, i) && !wgmmaReadsThroughTma(input))
      return true;
  return false;
}

unsigned mlir::tcc::wgmmaTensorMapCount(linalg::GenericOp op,
                                        linalg::GenericOp second,
                                        func::FuncOp func) {
  SmallVector<Value> operands(op.getDpsInputs());
  if (second)
    operands.push_back(second.getDpsInputs()[1]);
  return llvm::count_if(operands, wgmmaReadsThroughTma) +
         wgmmaStoresThroughTma(func);
}

bool mlir::tcc::canShareDualGemm(linalg::GenericOp first,
                                 linalg::GenericOp second,
                                 tile::TargetAttr target) {
  if (!first || !second || first == second || !fitsWgmma(first, target) ||
      !fitsWgmma(second, target) || first.getNumResults() != 1 ||
      second.getNumResults() != 1 ||
      first.getDpsInputs()[0] != second.getDpsInputs()[0] ||
      first.getIndexingMapsArray() != second.getIndexingMapsArray() ||
      first.getDpsInputs()[1].getType() != second.getDpsInputs()[1].getType() ||
      first.getResult(0).getType() != second.getResult(0).getType())
    return false;
  // Every operand by TMA: with box copies of three operands the dual
  // GEMM's two accumulators spilled (ptxas, K = 1500 bf16 SwiGLU).
  if (!llvm::all_of(first.getDpsInputs(), wgmmaReadsThroughTma) ||
      !wgmmaReadsThroughTma(second.getDpsInputs()[1]))
    return false;
  return first.getResult(0).hasOneUse() && second.getResult(0).hasOneUse();
}

bool mlir::tcc::isDualGemm(ArrayRef<Operation *> ops,
                           tile::TargetAttr target) {
  if (ops.size() != 3)
    return false;
  auto first = dyn_cast<linalg::GenericOp>(ops[0]);
  auto second = dyn_cast<linalg::GenericOp>(ops[1]);
  auto epilogue = dyn_cast<linalg::GenericOp>(ops[2]);
  if (!first || !second || !epilogue || !isAllParallel(epilogue) ||
      !canShareDualGemm(first, second, target) ||
      epilogue.getNumResults() < 1 ||
      cast<ShapedType>(epilogue.getResult(0).getType()).getShape() !=
          cast<ShapedType>(first.getResult(0).getType()).getShape())
    return false;
  // Each contraction's one use is an input of the epilogue, read with the
  // identity map.
  for (linalg::GenericOp gemm : {first, second}) {
    OpOperand &use = *gemm.getResult(0).getUses().begin();
    if (use.getOwner() != epilogue.getOperation() ||
        !epilogue.isDpsInput(&use) ||
        !epilogue.getMatchingIndexingMap(&use).isIdentity())
      return false;
  }
  return true;
}

bool mlir::tcc::wgmmaStoresThroughTma(func::FuncOp func) {
  if (func.getNumResults() != 1 || func.getBody().empty())
    return false;
  // The kernel's own result (a reshaped one is stored through its view).
  Value returned = func.getBody().front().getTerminator()->getOperand(0);
  if (!returned.getDefiningOp<linalg::GenericOp>())
    return false;
  auto out = dyn_cast<RankedTensorType>(func.getResultTypes()[0]);
  // (Dynamic rows: the store's tensor map is built for the launch's M.)
  bool staticButRows = out && llvm::all_of(llvm::seq<int64_t>(1, out.getRank()),
                                           [&](int64_t d) {
                                             return !out.isDynamicDim(d);
                                           });
  return out && staticButRows && out.getElementTypeBitWidth() == 16 &&
         (out.getRank() == 2 || out.getRank() == 3) &&
         (out.getShape().back() * 2) % 16 == 0;
}

bool mlir::tcc::hasTensorCoreTypes(linalg::GenericOp op) {
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1]);
  return aType == bType && (aType.isF16() || aType.isBF16());
}

bool mlir::tcc::mmaReadsTransposedB(linalg::GenericOp op,
                                    tile::TargetAttr target) {
  std::optional<std::pair<bool, bool>> transposes = matmulTransposes(op);
  if (!target || !target.hasMma(tile::MmaKind::mma_sync_m16n8k16) ||
      !transposes || !transposes->second || !hasTensorCoreTypes(op))
    return false;
  // B's rows (K) a static multiple of 16 bytes: whole cp.async vectors
  // (rows of other lengths keep the transpose kernel).
  auto bType = cast<ShapedType>(op.getDpsInputs()[1].getType());
  int64_t k = bType.getShape().back();
  return !ShapedType::isDynamic(k) && (k * 2) % 16 == 0;
}

bool mlir::tcc::isFmaElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32();
}

/// `v` with extf / truncf casts peeled off.
static Value stripFloatCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the body of `op` is `out + a * b` (a, b the two inputs, possibly
/// cast): what both GEMM schedules compute.
static bool isMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add =
      stripFloatCasts(yield.getValues()[0]).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value lhs = stripFloatCasts(add.getLhs()), rhs = stripFloatCasts(add.getRhs());
  Value product = lhs == out ? rhs : rhs == out ? lhs : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = stripFloatCasts(mul.getLhs()), y = stripFloatCasts(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

bool mlir::tcc::isZeroInitMultiplyAdd(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isMultiplyAdd(op))
    return false;
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  auto constant = succeeded(fill) ? fill->getDefiningOp<arith::ConstantOp>()
                                  : arith::ConstantOp();
  auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  return value && value.getValue().isZero();
}

FailureOr<double> mlir::tcc::verifyGemmBody(linalg::GenericOp op) {
  if (!isMultiplyAdd(op))
    return op.emitOpError("matmul body is not a multiply-add (out + a * b); "
                          "convert-linalg-to-tile cannot schedule it");
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  auto constant = succeeded(fill)
                      ? fill->getDefiningOp<arith::ConstantOp>()
                      : arith::ConstantOp();
  auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  if (!value)
    return op.emitOpError(
        "matmul accumulator init is not a constant float fill");
  return value.getValueAsDouble();
}


//===----------------------------------------------------------------------===//
// The forms of whole programs' kernels (tcc-form-kernels)
//===----------------------------------------------------------------------===//

std::optional<unsigned> mlir::tcc::transposedDim(AffineMap map) {
  unsigned rank = map.getNumDims();
  if (rank < 2 || !map.isPermutation())
    return std::nullopt;
  unsigned from = cast<AffineDimExpr>(map.getResult(rank - 1)).getPosition();
  if (from == rank - 1)
    return std::nullopt;
  return from;
}

bool mlir::tcc::isTransposeKernel(linalg::GenericOp op) {
  if (op.getNumLoops() < 2 ||
      !llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t == utils::IteratorType::parallel;
      }))
    return false;
  // One transposition (every transposed operand moves its contiguous dim to
  // the same iteration dim), other operands read straight.
  std::optional<unsigned> dim;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (std::optional<unsigned> d = transposedDim(map)) {
      if (dim && *dim != *d)
        return false;
      dim = d;
    } else if (!map.isIdentity()) {
      return false;
    }
  }
  return dim &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

bool mlir::tcc::isColumnReductionKernel(ArrayRef<Operation *> ops) {
  auto root = ops.empty() ? nullptr : dyn_cast<linalg::GenericOp>(ops.front());
  std::optional<ColumnReductionInfo> info =
      root ? classifyColumnReduction(root) : std::nullopt;
  if (!info)
    return false;
  return llvm::all_of(ops.drop_front(), [&](Operation *op) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    return generic &&
           isColumnEpilogue(generic, info->outputShape, info->numColLoops);
  });
}

bool mlir::tcc::isRowProgram(ArrayRef<Operation *> ops) {
  std::optional<SmallVector<int64_t>> programRows;
  int64_t columns = 0;
  for (Operation *op : ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      return false;
    // (An op over the rows alone is classified against the reductions'
    // rows below: of dynamic rows, it has no static columns to be a block.)
    std::optional<RowOpInfo> info = classifyRowOp(generic);
    if (info && info->kind == RowOpKind::Reduce)
      programRows = info->rows;
  }
  for (Operation *op : ops) {
    std::optional<RowOpInfo> info = classifyRowOp(
        cast<linalg::GenericOp>(op),
        programRows ? std::optional<ArrayRef<int64_t>>(*programRows)
                    : std::nullopt);
    if (!info)
      return false;
    if (info->kind == RowOpKind::Rows)
      continue;
    if (programRows && info->rows != *programRows)
      return false;
    if (columns && info->columns != columns)
      return false;
    columns = info->columns;
  }
  return columns != 0;
}

SmallVector<ReassociationIndices> mlir::tcc::collapsibleDims(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto together = [&](unsigned d) {
    // Dynamic dims (rows) and static ones (columns a program's block
    // spans) stay apart.
    if (ShapedType::isDynamic(ranges[d]) != ShapedType::isDynamic(ranges[d + 1]))
      return false;
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

bool mlir::tcc::isInOrderProjection(AffineMap map) {
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

bool mlir::tcc::permutesKeepingLast(AffineMap map) {
  unsigned rank = map.getNumDims();
  return rank >= 3 && map.isPermutation() && !map.isIdentity() &&
         map.getResult(rank - 1) == getAffineDimExpr(rank - 1, map.getContext());
}

Operation *mlir::tcc::rowProgramRoot(ArrayRef<Operation *> ops) {
  Operation *root = nullptr;
  for (Operation *op : ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    std::optional<RowOpInfo> info =
        generic ? classifyRowOp(generic) : std::nullopt;
    if (info && info->kind != RowOpKind::Rows &&
        (!root || info->kind == RowOpKind::Reduce))
      root = op;
  }
  return root;
}

bool mlir::tcc::isPermutedElementwise(linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return llvm::any_of(maps, permutesKeepingLast) &&
         llvm::all_of(maps, [](AffineMap map) {
           return map.isIdentity() || permutesKeepingLast(map);
         });
}

//===----------------------------------------------------------------------===//
// Layout rules
//===----------------------------------------------------------------------===//

tile::BlockedEncodingAttr BlockSchedule::layout(MLIRContext *ctx) const {
  if (accumulator)
    return tile::BlockedEncodingAttr::get(ctx, {sptM, vec}, {tpwM, tpwN},
                                          {wpcM, wpcN}, {1, 0});
  return tile::getDistributedBlocked(ctx, {blockM, blockN}, {sptM, 1}, {1, 0},
                                     tpwM * tpwN, numWarps());
}

BlockSchedule mlir::tcc::blockedSchedule(int64_t blockM, int64_t blockN,
                                         int64_t n, unsigned elementBytes,
                                         unsigned numWarps,
                                         unsigned warpSize) {
  BlockSchedule s;
  s.blockM = blockM;
  s.blockN = blockN;
  // Widest vector that keeps every row start aligned: rows are n elements
  // apart, so n must be a multiple of the vector length.
  s.vec = std::max(1u, kMaxVectorBytes / elementBytes);
  while (s.vec > 1 && n % s.vec != 0)
    s.vec /= 2;
  s.vec = std::min<int64_t>(s.vec, blockN);
  // Lanes along the row first (coalescing), the rest of the warp down rows,
  // then warps likewise: the distribution the built layout gets once
  // tcc-coalesce has set this vector.
  tile::BlockedDistribution d = tile::distributeBlocked(
      {blockM, blockN}, {1, s.vec}, {1, 0}, warpSize, numWarps);
  s.tpwM = d.threadsPerWarp[0];
  s.tpwN = d.threadsPerWarp[1];
  s.wpcM = d.warpsPerCTA[0];
  s.wpcN = d.warpsPerCTA[1];
  return s;
}

BlockSchedule mlir::tcc::fmaAccumulatorSchedule(unsigned warps,
                                                unsigned warpSize) {
  BlockSchedule s;
  s.accumulator = true;
  s.sptM = 4;
  s.vec = 4;
  s.tpwN = 8;
  s.tpwM = warpSize / s.tpwN;
  s.wpcN = 1u << (llvm::Log2_32(warps) / 2);
  s.wpcM = warps / s.wpcN;
  s.blockM = s.coverM();
  s.blockN = int64_t(s.vec) * s.tpwN * s.wpcN;
  return s;
}

int64_t mlir::tcc::stagedRowBytes(const BlockSchedule &s, int64_t n,
                                  unsigned elementBytes) {
  unsigned widest = std::max(1u, kMaxVectorBytes / elementBytes);
  bool shifted = n % widest != 0 && s.blockM == 1;
  int64_t chunks = llvm::divideCeil(n + (shifted ? s.vec - 1 : 0), s.blockN);
  return chunks * s.blockM * s.blockN * elementBytes;
}

std::pair<Attribute, std::pair<int64_t, int64_t>>
mlir::tcc::mmaAccumulatorLayout(MLIRContext *ctx, tile::MmaKind kind,
                                unsigned warps) {
  switch (kind) {
  case tile::MmaKind::mma_sync_m16n8k16:
    return {tile::NvidiaMmaEncodingAttr::get(ctx, 2, {2, warps / 2}, {16, 8}),
            {16, 8}};
  case tile::MmaKind::wgmma_m64nNk16:
    llvm_unreachable("wgmma plans build in WgmmaMatmulKernel.cpp");
  case tile::MmaKind::mfma_32x32x8:
  case tile::MmaKind::mfma_16x16x16: {
    unsigned size = kind == tile::MmaKind::mfma_32x32x8 ? 32 : 16;
    return {tile::AMDMfmaEncodingAttr::get(ctx, 3, {2, warps / 2},
                                           {size, size}, false),
            {size, size}};
  }
  }
  llvm_unreachable("unknown MMA kind");
}

//===----------------------------------------------------------------------===//
// Attention (form = attention)
//===----------------------------------------------------------------------===//

Attribute mlir::tcc::mmaRowsAccumulatorLayout(MLIRContext *ctx,
                                              unsigned warps,
                                              tile::MmaKind kind) {
  if (kind == tile::MmaKind::mfma_32x32x8 ||
      kind == tile::MmaKind::mfma_16x16x16) {
    unsigned size = kind == tile::MmaKind::mfma_32x32x8 ? 32 : 16;
    return tile::AMDMfmaEncodingAttr::get(ctx, 3, {warps, 1}, {size, size},
                                          false);
  }
  return tile::NvidiaMmaEncodingAttr::get(ctx, 2, {warps, 1}, {16, 8});
}

SmallVector<int64_t> mlir::tcc::AttentionView::shape() const {
  ArrayRef<int64_t> stored = cast<ShapedType>(source.getType()).getShape();
  return llvm::map_to_vector(perm, [&](int64_t p) { return stored[p]; });
}

SmallVector<Operation *> mlir::tcc::AttentionOps::ops() const {
  SmallVector<Operation *> all{scores};
  for (linalg::GenericOp op : scoreOps)
    all.push_back(op);
  all.push_back(softmax);
  if (pCast)
    all.push_back(pCast);
  all.push_back(output);
  if (epilogue)
    all.push_back(epilogue);
  for (const AttentionView *view : {&q, &k, &v, &result})
    llvm::append_range(all, view->ops);
  llvm::sort(all, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  return all;
}

SmallVector<Operation *> mlir::tcc::AttentionOps::linalgOps() const {
  // (The views' reshapes are not kernel ops; the softmax is no LinalgOp.)
  return llvm::filter_to_vector(ops(), [](Operation *op) {
    return !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
  });
}

/// The permutation all-parallel `op` computes of its one input (the input
/// read through a permutation map, yielded, written straight): result dim
/// i is input dim perm[i].
static std::optional<SmallVector<int64_t>>
permutationOf(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumResults() != 1 ||
      !isAllParallel(op))
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  if (!out.isIdentity() || !in.isPermutation() ||
      yield.getOperand(0) != op.getBody()->getArgument(0))
    return std::nullopt;
  SmallVector<int64_t> perm(in.getNumResults());
  for (auto [j, e] : llvm::enumerate(in.getResults()))
    perm[cast<AffineDimExpr>(e).getPosition()] = j;
  return perm;
}

/// Whether `reassociation` of a rank-`rank` tensor groups its leading dims
/// (all but the last two) into one: a batched matmul's flattened batch.
static bool groupsBatchDims(ArrayRef<ReassociationIndices> reassociation,
                            int64_t rank) {
  if (rank < 4 || reassociation.size() != 3)
    return false;
  ReassociationIndices batch = llvm::to_vector(llvm::seq<int64_t>(0, rank - 2));
  return reassociation[0] == batch &&
         reassociation[1] == ReassociationIndices{rank - 2} &&
         reassociation[2] == ReassociationIndices{rank - 1};
}

/// An all-parallel generic of one input and one result, every map the
/// identity (a cast, an elementwise epilogue).
static bool isIdentityElementwise(linalg::GenericOp op) {
  return op && isAllParallel(op) && op.getNumDpsInputs() == 1 &&
         op.getNumResults() == 1 &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); });
}

static SmallVector<int64_t> identityPerm(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// How the chain reads `operand`, 3-D: through a permutation of a stored
/// tensor whose batch dims the batched matmul flattened
/// (collapse_shape(permutation(source)), q.transpose(1, 2) of [B, S, H, D]),
/// or as it is. `swap`: the contraction reads the operand's last two dims
/// swapped (Kᵀ materialized [B, D, N]), so the view swaps them back. The
/// view keeps the source's contiguous dim last; nullopt when it would not
/// (the operand must then be read as it is, which `swap` excludes).
static std::optional<AttentionView> inputView(Value operand, bool swap) {
  // Read as it is (not possible when the contraction reads it swapped).
  auto plain = [&]() -> std::optional<AttentionView> {
    if (swap)
      return std::nullopt;
    return AttentionView{operand, identityPerm(3), {}};
  };
  auto collapse = operand.getDefiningOp<tensor::CollapseShapeOp>();
  auto permute = collapse ? collapse.getSrc().getDefiningOp<linalg::GenericOp>()
                          : linalg::GenericOp();
  std::optional<SmallVector<int64_t>> perm = permutationOf(permute);
  if (!perm || !operand.hasOneUse() || !collapse.getSrc().hasOneUse() ||
      !groupsBatchDims(collapse.getReassociationIndices(),
                       collapse.getSrcType().getRank()))
    return plain();
  int64_t rank = perm->size();
  if (swap)
    std::swap((*perm)[rank - 2], (*perm)[rank - 1]);
  if (perm->back() != rank - 1)
    return plain();
  Value source = permute.getDpsInputs()[0];
  if (!cast<ShapedType>(source.getType()).hasStaticShape())
    return plain();
  return AttentionView{source, *perm, {permute, collapse}};
}

/// Where the chain's result `value` [B, M, Dv] goes: transposed back from
/// its batch dims unflattened (permutation(expand_shape(value)), the
/// result's `.transpose(1, 2)` to [B, S, H, D]), or as it is.
static AttentionView resultView(Value value) {
  AttentionView plain{value, identityPerm(3), {}};
  if (!value.hasOneUse())
    return plain;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*value.getUsers().begin());
  if (!expand || !expand.getResult().hasOneUse() ||
      !groupsBatchDims(expand.getReassociationIndices(),
                       expand.getResultType().getRank()))
    return plain;
  auto permute =
      dyn_cast<linalg::GenericOp>(*expand.getResult().getUsers().begin());
  std::optional<SmallVector<int64_t>> perm = permutationOf(permute);
  if (!perm || permute.getDpsInputs()[0] != expand.getResult() ||
      perm->back() != int64_t(perm->size()) - 1)
    return plain;
  // Source dim i is view dim perm[i]: the view's dim j is source dim
  // inverse[j].
  SmallVector<int64_t> inverse(perm->size());
  for (auto [i, p] : llvm::enumerate(*perm))
    inverse[p] = i;
  return AttentionView{permute.getResult(0), inverse, {expand, permute}};
}

bool mlir::tcc::isAttentionScoreBodyOp(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return false;
  // Positions (tcc.iota folded in: a causal mask's query and key indices).
  if (isa<linalg::IndexOp, arith::IndexCastOp, arith::ExtSIOp,
          arith::TruncIOp>(op))
    return true;
  if (isa<arith::ConstantOp, arith::SelectOp, arith::CmpFOp, arith::CmpIOp,
          arith::ExtFOp,
          arith::TruncFOp, arith::AddFOp, arith::SubFOp, arith::MulFOp,
          arith::DivFOp, arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
          arith::MaxNumFOp, arith::MinNumFOp, arith::AndIOp, arith::OrIOp,
          arith::XOrIOp, arith::AddIOp, arith::SubIOp, arith::SIToFPOp>(op))
    return true;
  // Float math (exp, tanh, ...): one result of its operands' type.
  return op->getDialect()->getNamespace() == "math" &&
         isa<FloatType>(op->getResult(0).getType());
}

/// A contraction out + a * b into f32 from a zero fill, reading 16-bit
/// float operands with `transposes` (matmulTransposes), batched.
static bool isAttentionContraction(linalg::GenericOp op,
                                   std::pair<bool, bool> transposes) {
  if (!op || op.getNumLoops() != 4 || matmulTransposes(op) != transposes ||
      !hasTensorCoreTypes(op) || !isZeroInitMultiplyAdd(op) ||
      !getElementTypeOrSelf(op.getResult(0)).isF32())
    return false;
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return false;
  return true;
}

/// Whether `e` is b, a constant, or sums, products, floordivs and mods by
/// positive constants of those (what sliceBatchOperand computes).
static bool isBatchIndexExpr(AffineExpr e) {
  if (isa<AffineConstantExpr>(e))
    return true;
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return dim.getPosition() == 0;
  auto binary = dyn_cast<AffineBinaryOpExpr>(e);
  if (!binary || e.getKind() == AffineExprKind::CeilDiv)
    return false;
  if (e.getKind() == AffineExprKind::FloorDiv ||
      e.getKind() == AffineExprKind::Mod) {
    auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    if (!divisor || divisor.getValue() <= 0)
      return false;
  }
  return isBatchIndexExpr(binary.getLHS()) && isBatchIndexExpr(binary.getRHS());
}

/// Whether operand map `map` of a score op (over (b, m, n)) reads what the
/// attention kernel loads onto its scores: the scores' own shape (b, m, n),
/// an operand shared by every batch, (m, n), (m) or (n), or one whose dims
/// are each indexed by the batch alone (b, b floordiv H, b mod H, a
/// constant) or, in order, by m and n: a padding mask [B', N] of B = B'·H
/// heads read at (b floordiv H, n), a per-head bias [H, M, N] at
/// (b mod H, m, n). (OnlineSoftmax::loadScoreOperand slices the former dims
/// at this program's batch.)
static bool isScoreOperandMap(AffineMap map) {
  if (map.getNumResults() == 0 || map.getNumSymbols() != 0)
    return false;
  unsigned last = 0;
  for (AffineExpr e : map.getResults()) {
    bool ofRows = e.isFunctionOfDim(1), ofCols = e.isFunctionOfDim(2);
    if (!ofRows && !ofCols) {
      if (!isBatchIndexExpr(e))
        return false;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() <= last)
      return false;
    last = dim.getPosition();
  }
  // (At least one dim read by m or n: a per-batch scalar is not loaded.)
  return last != 0;
}

std::optional<AttentionOps>
mlir::tcc::matchAttention(linalg::SoftmaxOp softmax, tile::TargetAttr target) {
  if (!target || !(target.hasMma(tile::MmaKind::mma_sync_m16n8k16) ||
                   target.hasMma(tile::MmaKind::mfma_16x16x16) ||
                   target.hasMma(tile::MmaKind::mfma_32x32x8)))
    return std::nullopt;
  auto type = cast<RankedTensorType>(softmax.getInput().getType());
  Type element = type.getElementType();
  if (type.getRank() != 3 || softmax.getDimension() != 2 ||
      !type.hasStaticShape() ||
      !(element.isF16() || element.isBF16() || element.isF32()) ||
      !softmax.getResult()[0].hasOneUse())
    return std::nullopt;
  AttentionOps chain;
  chain.softmax = softmax;
  // Back from the softmax: the score ops, then the contraction.
  Value value = softmax.getInput();
  while (true) {
    auto op = value.getDefiningOp<linalg::GenericOp>();
    if (!op || !value.hasOneUse() || op.getNumResults() != 1)
      return std::nullopt;
    if (!isAllParallel(op)) {
      // K read as stored, or Kᵀ a transposed view of a stored K.
      std::optional<AttentionView> k;
      if (isAttentionContraction(op, {false, true}))
        k = inputView(op.getDpsInputs()[1], /*swap=*/false);
      else if (isAttentionContraction(op, {false, false}))
        k = inputView(op.getDpsInputs()[1], /*swap=*/true);
      std::optional<AttentionView> q =
          inputView(op.getDpsInputs()[0], /*swap=*/false);
      if (!k || !q)
        return std::nullopt;
      chain.scores = op;
      chain.q = *q;
      chain.k = *k;
      break;
    }
    if (op.getNumLoops() != 3 ||
        cast<ShapedType>(op.getResult(0).getType()).getShape() !=
            type.getShape() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
      return std::nullopt;
    // The one input from the chain (its identity map), the others operands.
    OpOperand *from = nullptr;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      // (A bias another elementwise op computes reads like a score op's
      // result: two such inputs are refused, not guessed between.)
      bool chained = producer && map.isIdentity() &&
                     failed(getFillValue(input->get())) &&
                     (isAllParallel(producer) ||
                      isAttentionContraction(producer, {false, true}) ||
                      isAttentionContraction(producer, {false, false}));
      if (chained) {
        if (from)
          return std::nullopt;
        from = input;
        continue;
      }
      if (!isScoreOperandMap(map) ||
          !cast<ShapedType>(input->get().getType()).hasStaticShape())
        return std::nullopt;
    }
    if (!from || !llvm::all_of(op.getBody()->without_terminator(),
                               [](Operation &inner) {
                                 return isAttentionScoreBodyOp(&inner);
                               }))
      return std::nullopt;
    chain.scoreOps.insert(chain.scoreOps.begin(), op);
    value = from->get();
  }
  // Q [B, M, D], K [B, N, D]: D a multiple of 16 up to 128.
  auto qType = cast<ShapedType>(chain.scores.getDpsInputs()[0].getType());
  int64_t d = qType.getShape().back();
  // (The softmax in Q's type, or in f32 and P cast to Q's type: Llama's
  // F.softmax(scores.float(), dim=-1).type_as(q).)
  Type operand = qType.getElementType();
  if (d % 16 || d > 128 || !(operand.isF16() || operand.isBF16()) ||
      (element != operand && !element.isF32()))
    return std::nullopt;
  // P V: P the A operand, V [B, N, Dv].
  Value p = softmax.getResult()[0];
  auto output = dyn_cast<linalg::GenericOp>(*p.getUsers().begin());
  if (element.isF32()) {
    chain.pCast = output;
    if (!isIdentityElementwise(output) || !output.getResult(0).hasOneUse())
      return std::nullopt;
    auto yield = cast<linalg::YieldOp>(output.getBody()->getTerminator());
    auto trunc = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
    if (!trunc || trunc.getIn() != output.getBody()->getArgument(0) ||
        trunc.getType() != operand ||
        std::distance(output.getBody()->begin(), output.getBody()->end()) != 2)
      return std::nullopt;
    p = output.getResult(0);
    output = dyn_cast<linalg::GenericOp>(*p.getUsers().begin());
  }
  if (!output || !isAttentionContraction(output, {false, false}) ||
      output.getDpsInputs()[0] != p)
    return std::nullopt;
  auto vType = cast<ShapedType>(output.getDpsInputs()[1].getType());
  int64_t dv = vType.getShape().back();
  if (dv % 16 || dv > 128 || vType.getElementType() != operand)
    return std::nullopt;
  chain.output = output;
  chain.v = *inputView(output.getDpsInputs()[1], /*swap=*/false);
  Value result = output.getResult(0);
  if (result.hasOneUse()) {
    auto epilogue = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
    if (isIdentityElementwise(epilogue) &&
        llvm::all_of(epilogue.getBody()->without_terminator(),
                     [](Operation &inner) {
                       return isAttentionScoreBodyOp(&inner);
                     }))
      chain.epilogue = epilogue;
  }
  chain.result =
      resultView(chain.epilogue ? chain.epilogue.getResult(0) : result);
  return chain;
}

bool mlir::tcc::isAttentionScores(linalg::GenericOp op,
                                  tile::TargetAttr target) {
  Value value = op->getNumResults() == 1 ? op->getResult(0) : Value();
  while (value && value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(user)) {
      std::optional<AttentionOps> chain = matchAttention(softmax, target);
      return chain && chain->scores == op;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !isAllParallel(generic) || generic.getNumResults() != 1)
      return false;
    value = generic.getResult(0);
  }
  return false;
}

std::optional<AttentionOps>
mlir::tcc::matchAttentionKernel(ArrayRef<Operation *> ops,
                                tile::TargetAttr target) {
  for (Operation *op : ops)
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      std::optional<AttentionOps> chain = matchAttention(softmax, target);
      if (!chain)
        return std::nullopt;
      SmallVector<Operation *> all = chain->linalgOps();
      // A kernel whose P V result is not consumed by the epilogue in it
      // stores P V itself.
      if (chain->epilogue && !llvm::is_contained(ops, chain->epilogue)) {
        chain->epilogue = nullptr;
        chain->result = AttentionView{chain->output.getResult(0),
                                      identityPerm(3), {}};
        all = chain->linalgOps();
      }
      if (ArrayRef<Operation *>(all) != ops)
        return std::nullopt;
      return chain;
    }
  return std::nullopt;
}
