//===- SwizzleSharedMemory.cpp - tcc-swizzle-shared-memory pass -----------===//
//
// Gives unswizzled #tile.shared dot-operand tiles the XOR swizzle that makes
// both the cooperative 16-byte stores into shared memory and the operand
// reads out of it (ldmatrix rows on NVIDIA, ds_read_b64/b128 MFMA fragments
// on AMD) bank-conflict free. The formula is documented in Passes.td and
// docs/shared-memory-swizzle.md; python/tcc/analysis/bank_conflicts.py
// (choose_swizzle) implements the same one and counts the conflicts.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/BuiltinTypes.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "tcc/Transforms/Passes.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCSWIZZLESHAREDMEMORY
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

namespace {

/// Bytes of one bank line: 32 banks x 4 bytes on NVIDIA shared memory and
/// on CDNA2/3 LDS alike.
constexpr int64_t kLineBytes = 32 * 4;
/// NVIDIA operand reads are ldmatrix rows (ld.shared.v4 likewise).
constexpr int64_t kLdmatrixRowBytes = 16;

enum class Vendor { Nvidia, Amd };

struct Swizzle {
  unsigned vec, perPhase, maxPhase;
  bool operator==(const Swizzle &o) const {
    return vec == o.vec && perPhase == o.perPhase && maxPhase == o.maxPhase;
  }
};

/// One reader of a shared tile as a dot operand.
struct Consumer {
  Operation *op;
  Vendor vendor;
  unsigned opIdx;
  unsigned kWidth;
  bool wgmma; // tile.dot reading the shared tile directly
};

/// The swizzle for a [rows, cols] tile with `order` whose contiguous
/// dimension is a power of two, read by `c` (see Passes.td). maxPhase == 1:
/// leave it unswizzled.
Swizzle chooseSwizzle(Vendor model, int64_t elemBytes, int64_t rowElems,
                      bool kContiguous, unsigned kWidth) {
  int64_t vectorBytes = kLdmatrixRowBytes;
  if (model == Vendor::Amd) {
    if (!kContiguous)
      return {1, 1, 1};
    if (kWidth)
      vectorBytes = std::clamp<int64_t>(kWidth * elemBytes, 4, 16);
  }
  vectorBytes = std::max(vectorBytes, elemBytes);
  int64_t rowBytes = rowElems * elemBytes;
  int64_t perPhase = std::max<int64_t>(1, kLineBytes / rowBytes);
  int64_t maxPhase = std::max<int64_t>(
      1, std::min((kLineBytes / vectorBytes) / perPhase, rowBytes / vectorBytes));
  return {static_cast<unsigned>(vectorBytes / elemBytes),
          static_cast<unsigned>(perPhase), static_cast<unsigned>(maxPhase)};
}

/// The dot-operand reader `use` is, or nullopt for any other use.
std::optional<Consumer> asDotConsumer(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(user)) {
    auto operand = dyn_cast_or_null<tile::DotOperandEncodingAttr>(
        convert.getType().getEncoding());
    if (!operand)
      return std::nullopt;
    if (isa<tile::NvidiaMmaEncodingAttr>(operand.getParent()))
      return Consumer{user, Vendor::Nvidia, operand.getOpIdx(),
                      operand.getKWidth(), false};
    if (isa<tile::AMDMfmaEncodingAttr>(operand.getParent()))
      return Consumer{user, Vendor::Amd, operand.getOpIdx(),
                      operand.getKWidth(), false};
    return std::nullopt; // FMA fallback (blocked parent)
  }
  if (auto dot = dyn_cast<tile::DotOp>(user)) {
    unsigned idx = use.getOperandNumber();
    if (idx > 1)
      return std::nullopt;
    auto acc = cast<RankedTensorType>(dot.getType()).getEncoding();
    if (isa_and_nonnull<tile::NvidiaMmaEncodingAttr>(acc))
      return Consumer{user, Vendor::Nvidia, idx, 0, true};
    return std::nullopt;
  }
  return std::nullopt;
}

StringRef vendorName(Vendor v) { return v == Vendor::Nvidia ? "nvidia" : "amd"; }

struct TccSwizzleSharedMemoryPass
    : public tcc::impl::TccSwizzleSharedMemoryBase<
          TccSwizzleSharedMemoryPass> {
  using TccSwizzleSharedMemoryBase::TccSwizzleSharedMemoryBase;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](tile::ConvertLayoutOp producer) {
      if (this->swizzle(producer).failed())
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }

  /// The bank model of the module's target (read on first need: a module
  /// without shared dot-operand tiles needs no target).
  FailureOr<Vendor> getBankModel() {
    if (!target) {
      FailureOr<tile::TargetAttr> found =
          tile::requireTarget(getOperation(), "tcc-swizzle-shared-memory");
      if (failed(found))
        return failure();
      target = *found;
    }
    return target.getBanks() == tile::BankModel::nvidia ? Vendor::Nvidia
                                                         : Vendor::Amd;
  }

  tile::TargetAttr target;

  LogicalResult swizzle(tile::ConvertLayoutOp producer) {
    RankedTensorType type = producer.getType();
    auto shared =
        dyn_cast_or_null<tile::SharedEncodingAttr>(type.getEncoding());
    if (!shared || shared.getMaxPhase() != 1 || type.getRank() != 2)
      return success();
    Type elem = type.getElementType();
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
      return success();
    int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;

    SmallVector<Consumer> consumers;
    for (OpOperand &use : producer->getUses()) {
      std::optional<Consumer> c = asDotConsumer(use);
      if (!c)
        return success(); // a non-dot reader: leave the layout alone
      consumers.push_back(*c);
    }
    if (consumers.empty())
      return success();

    unsigned contiguous = shared.getOrder()[0];
    int64_t rowElems = type.getDimSize(contiguous);
    if (!llvm::isPowerOf2_64(rowElems))
      return producer.emitOpError()
             << "cannot swizzle " << type << ": its contiguous dimension ("
             << rowElems << " elements) is not a power of two";

    FailureOr<Vendor> model = getBankModel();
    if (failed(model))
      return failure();
    std::optional<Swizzle> chosen;
    for (const Consumer &c : consumers) {
      if (c.vendor != *model)
        return c.op->emitOpError()
               << "reads a shared tile as an " << vendorName(c.vendor)
               << " dot operand, but the target " << target.getArch()
               << " has banks = " << vendorName(*model);
      int64_t rowBytes = rowElems * elemBytes;
      if (c.wgmma && rowBytes > kLineBytes) {
        producer.emitWarning()
            << "left unswizzled: wgmma reads rows of " << rowBytes
            << " bytes, wider than one 128-byte swizzle atom, which "
               "#tile.shared cannot express";
        return success();
      }
      // K is dim 1 of A (opIdx 0) and dim 0 of B.
      unsigned kDim = c.opIdx == 0 ? 1 : 0;
      Swizzle s = chooseSwizzle(*model, elemBytes, rowElems,
                                contiguous == kDim, c.kWidth);
      if (chosen && !(*chosen == s))
        return success(); // readers disagree: no single best swizzle
      chosen = s;
    }
    if (chosen->maxPhase == 1)
      return success();
    auto swizzled = tile::SharedEncodingAttr::get(
        producer.getContext(), chosen->vec, chosen->perPhase,
        chosen->maxPhase, shared.getOrder());
    // Every reader sees the value's new type.
    producer.getResult().setType(RankedTensorType::get(
        type.getShape(), type.getElementType(), swizzled));
    return success();
  }
};

} // namespace
