//===- SetTarget.cpp - tcc-set-target -------------------------------------===//
//
// Writes the known #tile.target of an architecture on the module.
//
//===----------------------------------------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCSETTARGET
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

namespace {

struct TccSetTargetPass
    : public tcc::impl::TccSetTargetBase<TccSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    tile::TargetAttr known = tile::getKnownTarget(&getContext(), arch);
    if (!known) {
      module.emitError() << "tcc-set-target: "
                         << (arch.empty() ? "option 'arch' is required"
                                          : "unknown arch '" + arch + "'")
                         << "; allowed values: "
                         << tile::getKnownTargetList();
      return signalPassFailure();
    }
    if (auto present =
            module->getAttrOfType<tile::TargetAttr>(tile::kTargetAttrName)) {
      if (present.getArch() == known.getArch())
        return; // kept: it may refine the table's facts
      module.emitError() << "tcc-set-target: the module already targets '"
                         << present.getArch() << "', not '" << arch << "'";
      return signalPassFailure();
    }
    module->setAttr(tile::kTargetAttrName, known);
  }
};

} // namespace
