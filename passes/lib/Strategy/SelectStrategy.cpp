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

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCSELECTSTRATEGY
#include "tcc/Strategy/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

/// The forms, in the order they are asked.
static const KernelFormInfo *const kForms[] = {
    &kAttentionForm, &kSoftmaxForm,   &kTransposeForm,     &kElementwiseForm,
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
                                maxSoftmaxColumns, 64, 1 << 20, true)) ||
        failed(tcc::checkOptionRange(module, pass, "dynamic-extent",
                                dynamicExtent, 1, 1 << 30)))
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
    options.dynamicExtent = dynamicExtent;
    FailureOr<llvm::StringMap<tile::LoweringConfigAttr>> given =
        parsePlans(funcs);
    if (failed(given))
      return signalPassFailure();
    for (func::FuncOp func : funcs) {
      auto it = given->find(func.getSymName());
      if (failed(selectStrategy(func, options,
                                it == given->end() ? tile::LoweringConfigAttr()
                                                   : it->second)))
        return signalPassFailure();
    }
  }

  /// The `plans` option: kernel name -> config, with a diagnostic naming
  /// the entry that is malformed or names no kernel.
  FailureOr<llvm::StringMap<tile::LoweringConfigAttr>>
  parsePlans(ArrayRef<func::FuncOp> funcs) {
    llvm::StringMap<tile::LoweringConfigAttr> result;
    SmallVector<StringRef> entries;
    StringRef(plans).split(entries, ';', -1, /*KeepEmpty=*/false);
    for (StringRef entry : entries) {
      auto [name, text] = entry.split('=');
      name = name.trim();
      text = text.trim();
      auto fail = [&](const Twine &why) {
        return getOperation().emitError()
               << "tcc-select-strategy: plans entry '" << entry << "' " << why;
      };
      if (name.empty() || text.empty()) {
        fail("is not KERNEL=#tile.lowering_config<...>");
        return failure();
      }
      if (!llvm::any_of(funcs, [&](func::FuncOp f) {
            return f.getSymName() == name;
          })) {
        std::string names;
        for (func::FuncOp f : funcs)
          names += (names.empty() ? "" : ", ") + f.getSymName().str();
        fail("names no kernel of this module (kernels: " + names + ")");
        return failure();
      }
      Attribute attr = parseAttribute(text, &getContext());
      auto config = dyn_cast_or_null<tile::LoweringConfigAttr>(attr);
      if (!config) {
        fail("does not hold a #tile.lowering_config");
        return failure();
      }
      result[name] = config;
    }
    return result;
  }


  /// Plans `func`'s kernel: `given` (the plans option's) on the root op of
  /// the form it names, else a plan already written, else the first form
  /// that matches picks one.
  LogicalResult selectStrategy(func::FuncOp func,
                               const StrategyOptions &options,
                               tile::LoweringConfigAttr given) {
    if (failed(verifyKernelSignature(func)))
      return failure();
    FailureOr<SmallVector<Operation *>> ops = collectKernelOps(func);
    if (failed(ops))
      return failure();
    if (given) {
      for (Operation *op : *ops)
        op->removeAttr(tile::kLoweringConfigAttrName);
      for (const KernelFormInfo *form : kForms)
        if (form->form == given.getForm())
          if (Operation *root = form->match(*ops, options)) {
            root->setAttr(tile::kLoweringConfigAttrName, given);
            return verifyDynamicLoops(root, given);
          }
      return func.emitOpError()
             << "plan " << given << " (tcc-select-strategy plans) names form '"
             << tile::stringifyKernelForm(given.getForm())
             << "', which does not build this kernel";
    }
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
      return verifyDynamicLoops(root, *config);
    }
    return emitNotOneKernel(func, *ops);
  }
};

} // namespace
