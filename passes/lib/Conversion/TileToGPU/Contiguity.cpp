//===- Contiguity.cpp - which pointer tiles point at consecutive elements -===//
//
// A small forward analysis on the tile IR (before conversion), a cut-down
// Triton AxisInfo: for each integer or pointer tile and each dim,
//   contiguity: groups of this many coordinates, aligned to multiples of it,
//               hold consecutive values (v[c+1] = v[c] + 1);
//   constancy:  groups of this many coordinates, aligned likewise, hold one
//               value.
// All counts are powers of two. Pointer-form loads and stores use the
// contiguity along the layout's fastest dim to move a thread's run with one
// vector access.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

namespace {
struct AxisInfo {
  SmallVector<int64_t> contiguity, constancy;
};
} // namespace

static AxisInfo unknown(RankedTensorType type) {
  return {SmallVector<int64_t>(type.getRank(), 1),
          SmallVector<int64_t>(type.getRank(), 1)};
}

static AxisInfo uniform(RankedTensorType type) {
  return {SmallVector<int64_t>(type.getRank(), 1),
          SmallVector<int64_t>(type.getShape())};
}

/// a + b (or a - b when `isSub`: b's contiguity does not help).
static AxisInfo add(const AxisInfo &a, const AxisInfo &b, bool isSub) {
  AxisInfo r = a;
  for (size_t d = 0; d < a.contiguity.size(); ++d) {
    int64_t fromA = std::min(a.contiguity[d], b.constancy[d]);
    int64_t fromB = isSub ? 1 : std::min(a.constancy[d], b.contiguity[d]);
    r.contiguity[d] = std::max(fromA, fromB);
    r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
  }
  return r;
}

static AxisInfo compute(Value value, DenseMap<Value, AxisInfo> &cache);

static AxisInfo lookup(Value value, DenseMap<Value, AxisInfo> &cache) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  AxisInfo info = compute(value, cache);
  cache[value] = info;
  return info;
}

static AxisInfo compute(Value value, DenseMap<Value, AxisInfo> &cache) {
  auto type = cast<RankedTensorType>(value.getType());
  Operation *def = value.getDefiningOp();
  if (!def)
    return unknown(type);
  return TypeSwitch<Operation *, AxisInfo>(def)
      .Case([&](tile::ArangeOp) {
        AxisInfo r = unknown(type);
        r.contiguity[0] = type.getDimSize(0);
        return r;
      })
      .Case([&](tile::SplatOp) { return uniform(type); })
      .Case([&](arith::ConstantOp op) {
        return isa<SplatElementsAttr>(op.getValue()) ? uniform(type)
                                                      : unknown(type);
      })
      .Case([&](tile::BroadcastOp op) {
        AxisInfo r = lookup(op.getSrc(), cache);
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (op.getSrc().getType().getDimSize(d) == 1) {
            r.contiguity[d] = 1;
            r.constancy[d] = type.getDimSize(d);
          }
        return r;
      })
      .Case([&](tile::ExpandDimsOp op) {
        AxisInfo r = lookup(op.getSrc(), cache);
        r.contiguity.insert(r.contiguity.begin() + op.getAxis(), 1);
        r.constancy.insert(r.constancy.begin() + op.getAxis(), 1);
        return r;
      })
      .Case([&](tile::ConvertLayoutOp op) { return lookup(op.getSrc(), cache); })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::IndexCastOp>(
          [&](Operation *op) { return lookup(op->getOperand(0), cache); })
      .Case([&](arith::AddIOp op) {
        return add(lookup(op.getLhs(), cache), lookup(op.getRhs(), cache),
                   false);
      })
      .Case([&](arith::SubIOp op) {
        return add(lookup(op.getLhs(), cache), lookup(op.getRhs(), cache),
                   true);
      })
      .Case([&](tile::AddPtrOp op) {
        return add(lookup(op.getPtr(), cache), lookup(op.getOffset(), cache),
                   false);
      })
      .Case<arith::MulIOp, arith::AndIOp, arith::OrIOp, arith::DivSIOp,
            arith::DivUIOp>([&](Operation *op) {
        // Uniform in, uniform out.
        AxisInfo a = lookup(op->getOperand(0), cache);
        AxisInfo b = lookup(op->getOperand(1), cache);
        AxisInfo r = unknown(type);
        for (int64_t d = 0; d < type.getRank(); ++d)
          r.constancy[d] = std::min(a.constancy[d], b.constancy[d]);
        return r;
      })
      .Default([&](Operation *) { return unknown(type); });
}

int64_t mlir::tcc::tile_to_gpu::getContiguity(Value tile, unsigned dim) {
  DenseMap<Value, AxisInfo> cache;
  return lookup(tile, cache).contiguity[dim];
}

//===----------------------------------------------------------------------===//
// Divisibility of scalar integers
//===----------------------------------------------------------------------===//

static constexpr int64_t kMaxDivisor = int64_t(1) << 30;

static int64_t powerOfTwoDivisor(int64_t v) {
  if (v == 0)
    return kMaxDivisor;
  uint64_t mag = v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return std::min<int64_t>(kMaxDivisor, int64_t(mag & (~mag + 1)));
}

static int64_t knownDivisor(Value value, unsigned depth) {
  if (depth > 12)
    return 1;
  auto recurse = [&](Value v) { return knownDivisor(v, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // A loop counter: lb + i * step.
    // (A detached block has no parent op.)
    Operation *parent = arg.getOwner()->getParentOp();
    auto loop = dyn_cast_or_null<scf::ForOp>(parent);
    if (loop && arg == loop.getInductionVar())
      return std::min(recurse(loop.getLowerBound()), recurse(loop.getStep()));
    return 1;
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return 1;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return powerOfTwoDivisor(constant.getSExtValue());
  return llvm::TypeSwitch<Operation *, int64_t>(def)
      .Case<arith::MulIOp>([&](auto op) {
        return std::min(kMaxDivisor,
                        recurse(op.getLhs()) * recurse(op.getRhs()));
      })
      .Case<arith::AddIOp, arith::SubIOp>([&](auto op) {
        return std::min(recurse(op.getLhs()), recurse(op.getRhs()));
      })
      .Case<arith::ShLIOp>([&](arith::ShLIOp op) {
        APInt shift;
        if (!matchPattern(op.getRhs(), m_ConstantInt(&shift)) ||
            shift.getZExtValue() > 30)
          return int64_t(1);
        return std::min(kMaxDivisor,
                        recurse(op.getLhs()) << shift.getZExtValue());
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(
          [&](auto op) { return recurse(op->getOperand(0)); })
      .Case<arith::SelectOp>([&](arith::SelectOp op) {
        return std::min(recurse(op.getTrueValue()),
                        recurse(op.getFalseValue()));
      })
      .Default([](Operation *) { return int64_t(1); });
}

int64_t mlir::tcc::tile_to_gpu::getKnownDivisor(Value value) {
  return knownDivisor(value, 0);
}
