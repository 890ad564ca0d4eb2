//===- KnownTargets.cpp - the architectures tcc compiles for --------------===//
//
// The #tile.target of each known architecture, from KnownTargets.def (the
// project's only arch table), and the lookup of a module's target.
//
//===----------------------------------------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tcc::tile;

namespace {
struct KnownTarget {
  StringLiteral arch;
  Vendor vendor;
  unsigned warpSize;
  int64_t maxSharedBytes;
  BankModel banks;
  StringLiteral mma; // space-separated MmaKind names
  bool asyncCopy;
  MathLibrary math;
  StringLiteral isaFeatures; // read by the Python backends only
};

constexpr KnownTarget kKnownTargets[] = {
#define TCC_TARGET(ARCH, VENDOR, WARP_SIZE, MAX_SHARED_BYTES, BANKS, MMA,     \
                   ASYNC_COPY, MATH, ISA_FEATURES)                             \
  {ARCH, Vendor::VENDOR, WARP_SIZE, MAX_SHARED_BYTES, BankModel::BANKS, MMA,   \
   ASYNC_COPY, MathLibrary::MATH, ISA_FEATURES},
#include "tcc/Dialect/Tile/IR/KnownTargets.def"
};
} // namespace

TargetAttr mlir::tcc::tile::getKnownTarget(MLIRContext *ctx, StringRef arch) {
  const KnownTarget *known = llvm::find_if(
      kKnownTargets, [&](const KnownTarget &t) { return t.arch == arch; });
  if (known == std::end(kKnownTargets))
    return {};
  SmallVector<StringRef> names;
  SplitString(known->mma, names);
  SmallVector<MmaKind> mma;
  for (StringRef name : names) {
    std::optional<MmaKind> kind = symbolizeMmaKind(name);
    assert(kind && "KnownTargets.def names an unknown MmaKind");
    mma.push_back(*kind);
  }
  return TargetAttr::get(ctx, known->arch, known->vendor, known->warpSize,
                         known->maxSharedBytes, known->banks, mma,
                         known->asyncCopy, known->math);
}

SmallVector<StringRef> mlir::tcc::tile::getKnownTargetArchs() {
  return llvm::map_to_vector(kKnownTargets,
                             [](const KnownTarget &t) -> StringRef {
                               return t.arch;
                             });
}

std::string mlir::tcc::tile::getKnownTargetList() {
  return llvm::join(getKnownTargetArchs(), ", ");
}

TargetAttr mlir::tcc::tile::lookupTarget(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (isa<ModuleOp>(at))
      if (auto target = at->getAttrOfType<TargetAttr>(kTargetAttrName))
        return target;
  return {};
}

FailureOr<TargetAttr> mlir::tcc::tile::requireTarget(Operation *op,
                                                      StringRef pass) {
  if (TargetAttr target = lookupTarget(op))
    return target;
  return op->emitError()
         << pass << ": the module has no '" << kTargetAttrName
         << "' attribute (a #tile.target<...>); set it with "
            "tcc-set-target{arch=...} or the stage pipeline's target= option "
            "(known targets: "
         << getKnownTargetList() << ")";
}
