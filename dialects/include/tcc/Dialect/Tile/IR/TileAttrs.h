//===- TileAttrs.h - tile layout encodings ----------------------*- C++ -*-===//
#ifndef TCC_DIALECT_TILE_IR_TILEATTRS_H
#define TCC_DIALECT_TILE_IR_TILEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TensorEncoding.h"
#include "tcc/Dialect/Tile/IR/TileDialect.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tcc::tile {
/// Warps along each dimension of a distributed layout (blocked, MMA, MFMA,
/// dot operand, slice); empty for anything else.
llvm::SmallVector<unsigned> getWarpsPerCTA(Attribute layout);
/// Checks that a tile of `shape` may carry `layout` (ranks agree).
llvm::LogicalResult
verifyLayoutRank(Attribute layout, llvm::ArrayRef<int64_t> shape,
                 llvm::function_ref<InFlightDiagnostic()> emitError);
} // namespace mlir::tcc::tile

#include "tcc/Dialect/Tile/IR/TileAttrInterfaces.h.inc"
#include "tcc/Dialect/Tile/IR/TileEnums.h.inc"

namespace mlir::tcc::tile {
/// `[kind, ...]` of #tile.target's mma (possibly empty).
FailureOr<llvm::SmallVector<MmaKind>> parseMmaKinds(AsmParser &parser);
void printMmaKinds(AsmPrinter &printer, llvm::ArrayRef<MmaKind> kinds);
/// `[d0, ...]` of #tile.lowering_config's block.
FailureOr<llvm::SmallVector<int64_t>> parseBlockShape(AsmParser &parser);
void printBlockShape(AsmPrinter &printer, llvm::ArrayRef<int64_t> shape);
} // namespace mlir::tcc::tile

#define GET_ATTRDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileAttrs.h.inc"

namespace mlir::tcc::tile {
/// Lanes and warps of each dim of a blocked layout.
struct BlockedDistribution {
  llvm::SmallVector<unsigned> threadsPerWarp, warpsPerCTA;
};
/// How a tile of `shape` with `sizePerThread` elements per thread spreads
/// over a program (Triton's default distribution): lanes along the dims in
/// `order` (fastest first), each dim taking as many as its elements leave
/// (shape / sizePerThread), the rest of the warp down the slowest dim; then
/// warps the same way. `warpsPerCTA`, when given, is kept where it still
/// fits the shape (no dim covered beyond its extent by the lanes' share),
/// so a builder's "warps down the rows" survives a wider vector. A dim
/// takes the largest power of two of lanes (warps) its elements leave.
BlockedDistribution distributeBlocked(llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<unsigned> sizePerThread,
                                      llvm::ArrayRef<unsigned> order,
                                      unsigned warpSize, unsigned numWarps,
                                      llvm::ArrayRef<unsigned> warpsPerCTA = {});
/// The #tile.blocked of distributeBlocked's lanes and warps.
BlockedEncodingAttr getDistributedBlocked(MLIRContext *ctx,
                                          llvm::ArrayRef<int64_t> shape,
                                          llvm::ArrayRef<unsigned> sizePerThread,
                                          llvm::ArrayRef<unsigned> order,
                                          unsigned warpSize, unsigned numWarps,
                                          llvm::ArrayRef<unsigned> warpsPerCTA = {});
/// Elements of each dim one coverage of a blocked layout spans.
llvm::SmallVector<int64_t> getCoverage(BlockedEncodingAttr layout);
} // namespace mlir::tcc::tile

#endif // TCC_DIALECT_TILE_IR_TILEATTRS_H
