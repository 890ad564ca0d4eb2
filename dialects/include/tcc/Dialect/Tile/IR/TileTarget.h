//===- TileTarget.h - the module's GPU target -------------------*- C++ -*-===//
//
// The module attribute `tile.target` (a #tile.target, TileTarget.td) and the
// table of known architectures (KnownTargets.def).
//
//===----------------------------------------------------------------------===//
#ifndef TCC_DIALECT_TILE_IR_TILETARGET_H
#define TCC_DIALECT_TILE_IR_TILETARGET_H

#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tcc::tile {

/// The discardable module attribute holding the module's #tile.target.
constexpr llvm::StringLiteral kTargetAttrName = "tile.target";
/// The discardable attribute holding a kernel's #tile.lowering_config (on
/// its root op, then on its tile.func).
constexpr llvm::StringLiteral kLoweringConfigAttrName = "tile.lowering_config";

/// The #tile.target of a known architecture ("sm_90", "gfx942", ...), or
/// null when `arch` is not in KnownTargets.def.
TargetAttr getKnownTarget(MLIRContext *ctx, llvm::StringRef arch);
/// The known architectures, in table order.
llvm::SmallVector<llvm::StringRef> getKnownTargetArchs();
/// The known architectures as "sm_80, sm_86, ...", for diagnostics.
std::string getKnownTargetList();

/// The target of `op`'s module (`op` itself when it is a module, else the
/// closest enclosing module carrying one), or null.
TargetAttr lookupTarget(Operation *op);
/// lookupTarget, or an error on `op` naming the missing attribute and how
/// to set it; `pass` prefixes the message.
FailureOr<TargetAttr> requireTarget(Operation *op, llvm::StringRef pass);

} // namespace mlir::tcc::tile

#endif // TCC_DIALECT_TILE_IR_TILETARGET_H
