//===- Coalesce.cpp - tcc-coalesce pass -----------------------------------===//
//
// Picks each blocked layout's vector width from the global accesses that
// use it (Triton's Coalesce, on memref-form accesses): builders emit plain
// layouts (one element per thread along the fastest dim), and this pass
// gives every thread the widest run of consecutive elements, up to 16
// bytes, that the accesses' memory layout leaves aligned, then spreads the
// lanes and warps again for that run (tile::getDistributedBlocked).
//
// A layout and everything derived from it (its slices, the dot operands
// and copies that name it) form one family: one width for all of them, so
// no tile changes layout and no data moves.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Matchers.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Strategy/Strategy.h"
#include "tcc/Transforms/Passes.h"
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_TCCCOALESCE
#include "tcc/Transforms/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;

namespace {

template <typename T> int64_t product(ArrayRef<T> values) {
  int64_t result = 1;
  for (T v : values)
    result *= int64_t(v);
  return result;
}

/// What the pass learns about one family of tiles (Families, below).
struct Family {
  /// The family's block: the (first) largest tile carrying the layout
  /// itself, not a slice of it.
  std::optional<SmallVector<int64_t>> block;
  /// The run one 16-byte vector of the narrowest accessed type fills (none:
  /// no access runs along the layout's fastest dim).
  std::optional<unsigned> vector;
  /// The widest run every access whose starts cannot all be aligned to its
  /// own vector is aligned to.
  std::optional<unsigned> aligned;
  /// Left as written: a tile.dot's accumulator (its layout is the dot's
  /// register tiling), pointer-form accesses (their runs come from the
  /// pointers' contiguity, not from a memref).
  bool frozen = false;

  void noteTile(ArrayRef<int64_t> shape) {
    if (!block || product(shape) > product(ArrayRef<int64_t>(*block)))
      block = SmallVector<int64_t>(shape);
  }
};

/// The blocked layout an encoding is, or is a slice of (with the dim the
/// slice drops), or a dot operand of.
struct Root {
  tile::BlockedEncodingAttr layout;
  std::optional<unsigned> slicedDim;
  bool dotOperand = false;
};

std::optional<Root> rootOf(Attribute encoding) {
  if (auto blocked = dyn_cast_or_null<tile::BlockedEncodingAttr>(encoding))
    return Root{blocked, std::nullopt, false};
  if (auto slice = dyn_cast_or_null<tile::SliceEncodingAttr>(encoding))
    if (auto blocked = dyn_cast<tile::BlockedEncodingAttr>(slice.getParent()))
      return Root{blocked, slice.getDim(), false};
  if (auto operand = dyn_cast_or_null<tile::DotOperandEncodingAttr>(encoding))
    if (auto blocked = dyn_cast<tile::BlockedEncodingAttr>(operand.getParent()))
      return Root{blocked, std::nullopt, true};
  return std::nullopt;
}

/// What one access asks of its layout's run along tile dim `fast`: the
/// elements of one 16-byte vector of its type (`vector`), and the widest
/// power of two, up to that, that its starts can all be aligned to
/// (`aligned`): unit stride along the run, and every other stride the tile
/// steps along, the memref's offset, constant offsets and the run's extent
/// multiples of it. Offsets known only at run time do not narrow it: the
/// lowering tests them and takes the vector path when they are aligned.
/// None when the access does not run along `fast` in memory.
struct AccessWidth {
  unsigned vector = 1, aligned = 1;
};

std::optional<AccessWidth> accessWidth(MemRefType memref,
                                       ArrayRef<int64_t> shape, unsigned fast,
                                       ValueRange offsets) {
  Type element = memref.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 ||
      memref.getRank() != int64_t(shape.size()))
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides[fast] != 1)
    return std::nullopt;
  AccessWidth result;
  result.vector =
      std::max(1u, kMaxVectorBytes / (element.getIntOrFloatBitWidth() / 8));
  unsigned &width = result.aligned;
  width = result.vector;
  auto divides = [&](int64_t value) {
    while (width > 1 && value % width != 0)
      width /= 2;
  };
  divides(shape[fast]);
  if (!ShapedType::isDynamic(offset))
    divides(offset);
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (ShapedType::isDynamic(strides[d]))
      continue;
    if (d != fast && shape[d] > 1)
      divides(strides[d]);
    APInt start;
    if (d < offsets.size() &&
        matchPattern(offsets[d], m_ConstantInt(&start)))
      divides(start.getSExtValue() * strides[d]);
  }
  return result;
}

/// `layout` with runs of `width` along its fastest dim, lanes and warps
/// spread again over its `block` (the largest of the tiles carrying it);
/// none when that layout would cover more of the block than `layout` does
/// (replicas: more elements per thread than the block has). Smaller tiles
/// of the layout (a broadcast row, a reduction's kept dim) may hold
/// replicas either way.
std::optional<tile::BlockedEncodingAttr>
widened(tile::BlockedEncodingAttr layout, ArrayRef<int64_t> block,
        unsigned width) {
  unsigned fast = layout.getOrder()[0];
  SmallVector<unsigned> perThread(layout.getSizePerThread());
  perThread[fast] = width;
  auto result = tile::getDistributedBlocked(
      layout.getContext(), block, perThread, layout.getOrder(),
      product(layout.getThreadsPerWarp()), product(layout.getWarpsPerCTA()),
      layout.getWarpsPerCTA());
  SmallVector<int64_t> before = tile::getCoverage(layout);
  SmallVector<int64_t> after = tile::getCoverage(result);
  for (unsigned d = 0; d < block.size(); ++d)
    if (after[d] > std::max(block[d], before[d]))
      return std::nullopt;
  return result;
}

/// The blocked-layout tiles of a kernel grouped into families: tiles an op
/// relates (operands, results, the block arguments and yields of its
/// regions) whose layouts derive from the same blocked layout, and every
/// tile.async_copy naming a layout with all tiles of exactly it (a staged
/// walk reads back the elements its thread copied). A family keeps one
/// layout; families that merely share a layout (a GEMM's A and B tiles
/// built the same way) are chosen for separately.
class Families {
public:
  explicit Families(tile::FuncOp func) {
    func.walk([&](Operation *op) {
      SmallVector<Value> related;
      for (Value v : op->getOperands())
        related.push_back(v);
      for (Value v : op->getResults())
        related.push_back(v);
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          for (Value v : block.getArguments())
            related.push_back(v);
          if (!block.empty())
            for (Value v : block.back().getOperands())
              related.push_back(v);
        }
      DenseMap<Attribute, unsigned> first;
      for (Value v : related) {
        std::optional<Root> root = rootOf(encodingOf(v));
        if (!root)
          continue;
        auto [entry, isNew] = valueIds.try_emplace(v.getAsOpaquePointer(), 0);
        if (isNew)
          entry->second = node(root->layout);
        unsigned id = entry->second;
        auto [it, inserted] = first.try_emplace(root->layout, id);
        if (!inserted)
          classes.join(it->second, id);
      }
      if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
        copyOps.push_back(copy);
    });
    // Each copy joins every tile of exactly its layout.
    SmallVector<unsigned> copyIds;
    for (tile::AsyncCopyOp copy : copyOps) {
      copyIds.push_back(node(copy.getLayout()));
      for (auto [pointer, index] : valueIds)
        if (encodingOf(Value::getFromOpaquePointer(pointer)) ==
            copy.getLayout())
          classes.join(copyIds.back(), index);
    }
    classes.compress();
    members.resize(classes.getNumClasses());
    for (auto [pointer, index] : valueIds)
      members[classes[index]].values.push_back(
          Value::getFromOpaquePointer(pointer));
    for (auto [copy, index] : llvm::zip_equal(copyOps, copyIds)) {
      members[classes[index]].copies.push_back(copy);
      copyFamily[copy] = classes[index];
    }
    for (unsigned index = 0; index < layouts.size(); ++index)
      members[classes[index]].layout = layouts[index];
  }

  /// The family of `v` (a tile on a blocked-derived layout).
  std::optional<unsigned> of(Value v) const {
    auto it = valueIds.find(v.getAsOpaquePointer());
    if (it == valueIds.end())
      return std::nullopt;
    return classes[it->second];
  }
  std::optional<unsigned> of(tile::AsyncCopyOp copy) const {
    auto it = copyFamily.find(copy);
    if (it == copyFamily.end())
      return std::nullopt;
    return it->second;
  }
  unsigned count() const { return members.size(); }
  /// The blocked layout family `f` derives from.
  tile::BlockedEncodingAttr layout(unsigned f) const {
    return members[f].layout;
  }
  /// The tiles (values) and copies of family `f`.
  ArrayRef<Value> values(unsigned f) const { return members[f].values; }
  ArrayRef<tile::AsyncCopyOp> copies(unsigned f) const {
    return members[f].copies;
  }

  static Attribute encodingOf(Value v) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    return tensor ? tensor.getEncoding() : Attribute();
  }

private:
  /// A new node (a value's or a copy's) of `layout`'s families.
  unsigned node(tile::BlockedEncodingAttr layout) {
    layouts.push_back(layout);
    classes.grow(layouts.size());
    return layouts.size() - 1;
  }

  struct Members {
    tile::BlockedEncodingAttr layout;
    SmallVector<Value> values;
    SmallVector<tile::AsyncCopyOp> copies;
  };
  llvm::MapVector<const void *, unsigned> valueIds; // in program order
  SmallVector<tile::BlockedEncodingAttr> layouts;   // of each node
  SmallVector<tile::AsyncCopyOp> copyOps;
  DenseMap<Operation *, unsigned> copyFamily;
  SmallVector<Members> members;
  llvm::IntEqClasses classes;
};

struct TccCoalescePass : public tcc::impl::TccCoalesceBase<TccCoalescePass> {
  void runOnOperation() override {
    getOperation()->walk([&](tile::FuncOp func) { coalesce(func); });
  }

  void coalesce(tile::FuncOp func) {
    Families families(func);
    SmallVector<Family> info(families.count());
    auto constrain = [&](std::optional<unsigned> f, RankedTensorType tile,
                         Value memref, ValueRange offsets) {
      std::optional<Root> root = rootOf(tile.getEncoding());
      if (!f || !root || root->dotOperand)
        return;
      unsigned fast = root->layout.getOrder()[0];
      if (root->slicedDim) {
        if (*root->slicedDim == fast)
          return; // the slice holds no run along the fastest dim
        fast -= *root->slicedDim < fast;
      }
      auto memrefType = dyn_cast<MemRefType>(memref.getType());
      if (!memrefType)
        return;
      std::optional<AccessWidth> width =
          accessWidth(memrefType, tile.getShape(), fast, offsets);
      if (!width)
        return;
      // A run wider than the access's vector moves as several aligned
      // vectors; one its starts cannot align to loses the vector path.
      Family &family = info[*f];
      family.vector = std::max(family.vector.value_or(1), width->vector);
      if (width->aligned < width->vector)
        family.aligned =
            std::min(family.aligned.value_or(width->aligned), width->aligned);
    };
    func.walk([&](Operation *op) {
      if (auto load = dyn_cast<tile::MemRefLoadOp>(op))
        constrain(families.of(load.getResult()), load.getType(),
                  load.getMemref(), load.getOffsets());
      else if (auto store = dyn_cast<tile::MemRefStoreOp>(op))
        constrain(families.of(store.getValue()),
                  cast<RankedTensorType>(store.getValue().getType()),
                  store.getMemref(), store.getOffsets());
      else if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
        constrain(families.of(copy), copy.getTileType(), copy.getSrc(),
                  copy.getOffsets());
      else if (auto dot = dyn_cast<tile::DotOp>(op))
        if (std::optional<unsigned> f = families.of(dot.getResult()))
          info[*f].frozen = true;
    });

    for (unsigned f = 0; f < families.count(); ++f) {
      Family &family = info[f];
      tile::BlockedEncodingAttr layout = families.layout(f);
      for (Value v : families.values(f)) {
        auto tensor = cast<RankedTensorType>(v.getType());
        if (tensor.getEncoding() == layout)
          family.noteTile(tensor.getShape());
        if (isa<tile::PtrType>(tensor.getElementType()))
          family.frozen = true;
      }
      for (tile::AsyncCopyOp copy : families.copies(f))
        family.noteTile(copy.getTileType().getShape());
      if (family.frozen || !family.vector || !family.block)
        continue;
      unsigned width = std::min(*family.vector,
                                family.aligned.value_or(*family.vector));
      std::optional<tile::BlockedEncodingAttr> result;
      for (; width >= 1 && !result; width /= 2)
        result = widened(layout, *family.block, width);
      if (!result || *result == layout)
        continue;
      AttrTypeReplacer replacer;
      replacer.addReplacement(
          [&](tile::BlockedEncodingAttr attr) -> std::optional<Attribute> {
            if (attr != layout)
              return std::nullopt;
            return *result;
          });
      for (Value v : families.values(f))
        v.setType(replacer.replace(v.getType()));
      for (tile::AsyncCopyOp copy : families.copies(f))
        copy.setLayoutAttr(*result);
    }
  }
};

} // namespace
