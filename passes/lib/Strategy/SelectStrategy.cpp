//===- SelectStrategy.cpp - tcc-select-strategy ---------------------------===//
//
// Per kernel function: the first kernel form (Forms/) that matches its ops
// picks the plan, recorded as #tile.lowering_config on the root op. A config
// already there is kept.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/OptionChecks.h"
#include "Forms/Forms.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "tcc/Strategy/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCSELECTSTRATEGY
#include "tcc/Strategy/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

/// The forms, in the order they are asked.
static const KernelFormInfo *const kForms[] = {
    &kSoftmaxForm,   &kTransposeForm,     &kElementwiseForm,
    &kColumnReductionForm, &kMatmulForm,  &kFmaMatmulForm,
    &kRowReductionForm,    &kRowProgramForm};

Operation *mlir::tcc::strategy::matchRootWithEpilogue(
    ArrayRef<Operation *> ops, function_ref<bool(linalg::GenericOp)> isRoot) {
  if (ops.empty() || ops.size() > 2)
    return nullptr;
  auto root = dyn_cast<linalg::GenericOp>(ops[0]);
  if (!root || !isRoot(root))
    return nullptr;
  if (ops.size() == 2) {
    auto epilogue = dyn_cast<linalg::GenericOp>(ops[1]);
    if (!epilogue || !isAllParallel(epilogue))
      return nullptr;
  }
  return root;
}

namespace {

struct TccSelectStrategyPass
    : public tcc::impl::TccSelectStrategyBase<TccSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *module = getOperation();
    constexpr StringLiteral pass = "tcc-select-strategy";
    if (failed(tcc::checkOptionRange(module, pass, "num-warps", numWarps, 1, 16,
                                /*powerOfTwo=*/true)) ||
        failed(tcc::checkOptionRange(module, pass, "elements-per-program",
                                elementsPerProgram, 64, 1 << 20, true)) ||
        failed(tcc::checkOptionRange(module, pass, "num-stages", numStages, 1, 8)) ||
        failed(tcc::checkOptionChoice(module, pass, "mfma-shape", mfmaShape,
                                 {"auto", "16", "32"})) ||
        failed(tcc::checkOptionRange(module, pass, "max-softmax-columns",
                                maxSoftmaxColumns, 64, 1 << 20, true)))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs;
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kHostAttrName))
        funcs.push_back(func);
    if (funcs.empty())
      return;
    FailureOr<tile::TargetAttr> target =
        tile::requireTarget(getOperation(), "tcc-select-strategy");
    if (failed(target))
      return signalPassFailure();
    StrategyOptions options;
    options.target = *target;
    options.numWarps = numWarps;
    options.elementsPerProgram = elementsPerProgram;
    options.numStages = numStages;
    options.mfmaShape = mfmaShape;
    options.maxSoftmaxColumns = maxSoftmaxColumns;
    for (func::FuncOp func : funcs)
      if (failed(selectStrategy(func, options)))
        return signalPassFailure();
  }

  LogicalResult selectStrategy(func::FuncOp func,
                               const StrategyOptions &options) {
    if (failed(verifyKernelSignature(func)))
      return failure();
    FailureOr<SmallVector<Operation *>> ops = collectKernelOps(func);
    if (failed(ops))
      return failure();
    // A plan written by hand (or by an earlier run) is kept.
    if (llvm::any_of(*ops, [](Operation *op) {
          return op->hasAttr(tile::kLoweringConfigAttrName);
        }))
      return success();
    for (const KernelFormInfo *form : kForms) {
      Operation *root = form->match(*ops, options);
      if (!root)
        continue;
      FailureOr<tile::LoweringConfigAttr> config =
          form->configure(root, *ops, options);
      if (failed(config))
        return failure();
      root->setAttr(tile::kLoweringConfigAttrName, *config);
      return success();
    }
    return emitNotOneKernel(func, *ops);
  }
};

} // namespace
