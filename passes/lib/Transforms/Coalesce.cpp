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
#include "llvm/ADT/SetVector.h"

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
  /// Shapes of the tiles carrying the layout itself (not a slice of it).
  llvm::SetVector<SmallVector<int64_t>> shapes;
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
/// spread again over its block (the largest of the tiles carrying it);
/// none when that layout would cover more of the block than `layout` does
/// (replicas: more elements per thread than the block has). Smaller tiles
/// of the layout (a broadcast row, a reduction's kept dim) may hold
/// replicas either way.
std::optional<tile::BlockedEncodingAttr>
widened(tile::BlockedEncodingAttr layout,
        ArrayRef<SmallVector<int64_t>> shapes, unsigned width) {
  unsigned fast = layout.getOrder()[0];
  SmallVector<unsigned> perThread(layout.getSizePerThread());
  perThread[fast] = width;
  ArrayRef<int64_t> block = shapes.front();
  for (ArrayRef<int64_t> other : shapes)
    if (product(other) > product(block))
      block = other;
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
        unsigned id = node(v.getAsOpaquePointer(), root->layout);
        auto [it, inserted] = first.try_emplace(root->layout, id);
        if (!inserted)
          classes.join(it->second, id);
      }
      if (auto copy = dyn_cast<tile::AsyncCopyOp>(op))
        copies.push_back(copy);
    });
    // Each copy joins every tile of exactly its layout.
    SmallVector<std::pair<const void *, unsigned>> values(ids.begin(),
                                                          ids.end());
    for (tile::AsyncCopyOp copy : copies) {
      unsigned id = node(copy.getOperation(), copy.getLayout());
      for (auto [pointer, index] : values)
        if (encodingOf(Value::getFromOpaquePointer(pointer)) ==
            copy.getLayout())
          classes.join(id, index);
    }
    classes.compress();
    rootLayout.assign(classes.getNumClasses(), {});
    for (auto [pointer, index] : ids)
      rootLayout[classes[index]] = layouts[index];
  }

  /// The family of `v` (a tile on a blocked-derived layout).
  std::optional<unsigned> of(Value v) const { return find(v.getAsOpaquePointer()); }
  std::optional<unsigned> of(tile::AsyncCopyOp copy) const {
    return find(copy.getOperation());
  }
  unsigned count() const { return classes.getNumClasses(); }
  /// The blocked layout family `f` derives from.
  tile::BlockedEncodingAttr layout(unsigned f) const { return rootLayout[f]; }

  /// Every tile (value) of family `f`.
  template <typename Fn> void forEachValue(unsigned f, Fn fn) const {
    for (auto [pointer, index] : ids)
      if (classes[index] == f && !isCopy(pointer))
        fn(Value::getFromOpaquePointer(pointer));
  }
  void forEachCopy(unsigned f, function_ref<void(tile::AsyncCopyOp)> fn) const {
    for (tile::AsyncCopyOp copy : copies)
      if (of(copy) == f)
        fn(copy);
  }

  static Attribute encodingOf(Value v) {
    auto tensor = dyn_cast<RankedTensorType>(v.getType());
    return tensor ? tensor.getEncoding() : Attribute();
  }

private:
  unsigned node(const void *pointer, tile::BlockedEncodingAttr layout) {
    auto [it, inserted] = ids.try_emplace(pointer, layouts.size());
    if (inserted) {
      layouts.push_back(layout);
      classes.grow(layouts.size());
    }
    return it->second;
  }
  std::optional<unsigned> find(const void *pointer) const {
    auto it = ids.find(pointer);
    if (it == ids.end())
      return std::nullopt;
    return classes[it->second];
  }
  bool isCopy(const void *pointer) const {
    return llvm::any_of(copies, [&](tile::AsyncCopyOp copy) {
      return copy.getOperation() == pointer;
    });
  }

  llvm::MapVector<const void *, unsigned> ids;
  SmallVector<tile::BlockedEncodingAttr> layouts;
  SmallVector<tile::BlockedEncodingAttr> rootLayout;
  SmallVector<tile::AsyncCopyOp> copies;
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
      families.forEachValue(f, [&](Value v) {
        auto tensor = cast<RankedTensorType>(v.getType());
        if (tensor.getEncoding() == layout)
          family.shapes.insert(SmallVector<int64_t>(tensor.getShape()));
        if (isa<tile::PtrType>(tensor.getElementType()))
          family.frozen = true;
      });
      families.forEachCopy(f, [&](tile::AsyncCopyOp copy) {
        family.shapes.insert(
            SmallVector<int64_t>(copy.getTileType().getShape()));
      });
      if (family.frozen || !family.vector || family.shapes.empty())
        continue;
      unsigned width = std::min(*family.vector,
                                family.aligned.value_or(*family.vector));
      std::optional<tile::BlockedEncodingAttr> result;
      for (; width >= 1 && !result; width /= 2)
        result = widened(layout, family.shapes.getArrayRef(), width);
      if (!result || *result == layout)
        continue;
      AttrTypeReplacer replacer;
      replacer.addReplacement(
          [&](tile::BlockedEncodingAttr attr) -> std::optional<Attribute> {
            if (attr != layout)
              return std::nullopt;
            return *result;
          });
      families.forEachValue(
          f, [&](Value v) { v.setType(replacer.replace(v.getType())); });
      families.forEachCopy(
          f, [&](tile::AsyncCopyOp copy) { copy.setLayoutAttr(*result); });
    }
  }
};

} // namespace
