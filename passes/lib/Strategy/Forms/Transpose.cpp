//===- Transpose.cpp - the transpose kernel form --------------------------===//
//
// An elementwise op reading an operand with its last two dims swapped (2-D
// or batched), the others straight: T x T tiles staged through shared
// memory so that reads and writes are both coalesced.
//
//===----------------------------------------------------------------------===//
#include "Forms.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::strategy;

namespace {

/// The tile side: 64 x 64 elements per program.
constexpr int64_t kTile = 64;
/// Warps per program: one warp's lanes cover a few rows of the tile.
constexpr unsigned kWarps = 4;

Operation *match(ArrayRef<Operation *> ops, const StrategyOptions &) {
  if (ops.size() != 1)
    return nullptr;
  auto generic = dyn_cast<linalg::GenericOp>(ops[0]);
  return generic && isTransposeKernel(generic) ? generic : nullptr;
}

FailureOr<tile::LoweringConfigAttr> configure(Operation *root,
                                              ArrayRef<Operation *>,
                                              const StrategyOptions &) {
  return makeConfig(root, tile::KernelForm::transpose, {kTile, kTile},
                    kWarps);
}

} // namespace

const KernelFormInfo mlir::tcc::strategy::kTransposeForm = {
    tile::KernelForm::transpose, match, configure};
