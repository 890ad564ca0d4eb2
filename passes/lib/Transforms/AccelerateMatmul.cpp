//===- AccelerateMatmul.cpp - tcc-accelerate-matmul pass ------------------===//
//
// Puts the tile.dot of a matmul kernel on its plan's tensor-core instruction
// (Triton's AccelerateMatmul, reading the plan IREE-style): the matmul
// builder multiplies on a plain blocked accumulator (the FMA form of
// tile.dot), and this pass gives the accumulator the instruction's layout
// (#tile.nvidia_mma for mma.sync, #tile.amd_mfma for MFMA), the operands
// the matching #tile.dot_operand, and every other tile on the accumulator's
// layout (the loop-carried accumulator, the epilogue's bias rows and
// operands, the store) the same layout, so no data moves.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/AttrTypeSubElements.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCACCELERATEMATMUL
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// The operands' k elements per lane: a lane's k pairs for mma.sync, its 4
/// consecutive k for MFMA.
unsigned operandKWidth(Attribute mma) {
  return isa<tile::AMDMfmaEncodingAttr>(mma) ? 4 : 2;
}

struct TccAccelerateMatmulPass
    : public tcc::impl::TccAccelerateMatmulBase<TccAccelerateMatmulPass> {
  void runOnOperation() override {
    getOperation()->walk([&](tile::FuncOp func) {
      if (failed(accelerate(func)))
        signalPassFailure();
    });
  }

  LogicalResult accelerate(tile::FuncOp func) {
    auto config = func->getAttrOfType<tile::LoweringConfigAttr>(
        tile::kLoweringConfigAttrName);
    bool attention =
        config && config.getForm() == tile::KernelForm::attention;
    if (!config ||
        (config.getForm() != tile::KernelForm::matmul && !attention) ||
        !config.getMma() || *config.getMma() == tile::MmaKind::wgmma_m64nNk16)
      return success();
    SmallVector<tile::DotOp> dots;
    func.walk([&](tile::DotOp dot) {
      if (isa_and_nonnull<tile::BlockedEncodingAttr>(
              dot.getType().getEncoding()))
        dots.push_back(dot);
    });
    if (dots.empty())
      return success(); // already on the instruction's layouts
    auto blocked =
        cast<tile::BlockedEncodingAttr>(dots.front().getType().getEncoding());
    for (tile::DotOp dot : dots)
      if (dot.getType().getEncoding() != blocked)
        return dot.emitOpError()
               << "tcc-accelerate-matmul: the kernel's tile.dot ops have "
                  "different accumulator layouts ("
               << blocked << " and " << dot.getType().getEncoding()
               << "); a matmul or attention plan's kernel has one";
    unsigned warps = config.getNumWarps();
    if (!attention && (warps < 2 || warps % 2))
      return func.emitOpError()
             << "tcc-accelerate-matmul: plan num_warps = " << warps
             << " does not split into 2 x W / 2 warps";
    // Attention: warps along the rows only (the scores' row max and sum in
    // a quad of lanes, P the second product's A operand in registers).
    Attribute mma =
        attention
            ? mmaRowsAccumulatorLayout(&getContext(), warps, *config.getMma())
            : mmaAccumulatorLayout(&getContext(), *config.getMma(), warps)
                  .first;
    unsigned kWidth = operandKWidth(mma);
    MLIRContext *ctx = &getContext();
    // Every occurrence of the accumulator's layout, also inside slices
    // (bias rows) and dot operands, in every type and attribute of the
    // kernel, block arguments (the loop-carried accumulator) included.
    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](tile::BlockedEncodingAttr attr) -> std::optional<Attribute> {
          if (attr == blocked)
            return mma;
          return std::nullopt;
        });
    replacer.addReplacement(
        [&](tile::DotOperandEncodingAttr attr)
            -> std::optional<std::pair<Attribute, WalkResult>> {
          if (attr.getParent() != blocked)
            return std::nullopt;
          return std::make_pair(
              Attribute(tile::DotOperandEncodingAttr::get(
                  ctx, attr.getOpIdx(), mma, kWidth)),
              WalkResult::skip());
        });
    replacer.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
    return success();
  }
};

} // namespace
