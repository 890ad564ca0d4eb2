//===- LayoutUtils.cpp - per-thread index math of tile layouts ------------===//
#include "LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

static InFlightDiagnostic fail(function_ref<InFlightDiagnostic()> emitError) {
  return emitError();
}

FailureOr<TileLayout>
TileLayout::get(RankedTensorType type, unsigned warpSize,
                function_ref<InFlightDiagnostic()> emitError) {
  auto error = [&]() -> FailureOr<TileLayout> { return failure(); };
  Attribute encoding = type.getEncoding();
  if (!encoding) {
    if (emitError)
      fail(emitError) << "tile " << type
                      << " has no layout; run layout assignment first";
    return error();
  }
  // Peel slices down to the blocked root; `kept` lists, for each dim of the
  // current level, the root dim it is.
  SmallVector<unsigned> sliced;
  Attribute root = encoding;
  while (auto slice = dyn_cast<tile::SliceEncodingAttr>(root)) {
    sliced.push_back(slice.getDim());
    root = slice.getParent();
  }
  // mma.sync's accumulator (m16n8k16) is a blocked layout whose rows are
  // strided: each lane holds rows g and g + 8 (stride 8, not adjacent) and
  // 2 adjacent columns, lanes 8 x 4, warps tiling 16 x 8 blocks (see
  // MmaOpsToGPU.cpp).
  SmallVector<int64_t> run, runStride;
  if (auto mma = dyn_cast<tile::NvidiaMmaEncodingAttr>(root)) {
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    // wgmma's (version 3) is the same on warps [W, 1]: each warpgroup's
    // m64 tile is its 4 warps' 16-row tiles (WgmmaOpsToGPU.cpp).
    bool wgmma = mma.getVersion() == 3 && warps.size() == 2 &&
                 warps[1] == 1 && warps[0] % 4 == 0;
    if ((mma.getVersion() != 2 && !wgmma) || warps.size() != 2) {
      if (emitError)
        fail(emitError) << "layout " << mma
                        << " is not supported: only mma.sync (version 2) "
                           "and wgmma (version 3, warpsPerCTA [4k, 1]) "
                           "accumulators lower to per-thread vectors";
      return error();
    }
    root = tile::BlockedEncodingAttr::get(type.getContext(), {2, 2}, {8, 4},
                                          {warps[0], warps[1]}, {1, 0});
    run = {1, 2};
    runStride = {8, 1};
  }
  // MFMA accumulators (CDNA, wave64; MfmaShape has the lane maps): lane l
  // holds column l % M, rows in runs of 4 (16x16: one run, 4 * (l / 16) +
  // 0..3; 32x32: four runs 8 apart, 8 j + 4 * (l / 32) + 0..3).
  if (auto mfma = dyn_cast<tile::AMDMfmaEncodingAttr>(root)) {
    ArrayRef<unsigned> warps = mfma.getWarpsPerCTA();
    std::optional<MfmaShape> instr = MfmaShape::get(mfma.getInstrShape());
    if (!instr || mfma.getIsTransposed() || warps.size() != 2) {
      if (emitError)
        fail(emitError) << "layout " << mfma
                        << " is not supported: only untransposed 16x16 and "
                           "32x32 MFMA accumulators lower to per-thread "
                           "vectors";
      return error();
    }
    root = tile::BlockedEncodingAttr::get(
        type.getContext(), {unsigned(instr->accPerLane()), 1},
        {unsigned(instr->laneGroups()), unsigned(instr->m)},
        {warps[0], warps[1]}, {1, 0});
    run = {MfmaShape::accRun, 1};
    runStride = {MfmaShape::accRun * instr->laneGroups(), 1};
  }
  auto blocked = dyn_cast<tile::BlockedEncodingAttr>(root);
  if (!blocked) {
    if (emitError)
      fail(emitError) << "layout " << encoding << " of " << type
                      << " is not supported: only #tile.blocked and "
                         "#tile.slice of #tile.blocked lower to per-thread "
                         "vectors";
    return error();
  }
  TileLayout layout;
  layout.warpSize = warpSize;
  unsigned rootRank = blocked.getRank();
  for (unsigned r = 0; r < rootRank; ++r) {
    int64_t spt = blocked.getSizePerThread()[r];
    layout.rootRun.push_back(run.empty() ? spt : run[r]);
    layout.rootRunStride.push_back(run.empty() ? spt : runStride[r]);
    layout.rootSpt.push_back(spt);
    layout.rootTpw.push_back(blocked.getThreadsPerWarp()[r]);
    layout.rootWpc.push_back(blocked.getWarpsPerCTA()[r]);
  }
  layout.rootOrder.assign(blocked.getOrder().begin(), blocked.getOrder().end());
  int64_t lanes = 1, warps = 1;
  for (unsigned r = 0; r < rootRank; ++r) {
    lanes *= layout.rootTpw[r];
    warps *= layout.rootWpc[r];
  }
  if (lanes != warpSize) {
    if (emitError)
      fail(emitError) << "layout " << blocked << " has " << lanes
                      << " threads per warp but the target's warp size "
                         "(#tile.target warp_size) is "
                      << warpSize;
    return error();
  }
  layout.numWarps = warps;

  // Undo the slices innermost-first: start from all root dims, then remove
  // the sliced dim of each level from the outermost parent inwards.
  SmallVector<unsigned> dims;
  for (unsigned r = 0; r < rootRank; ++r)
    dims.push_back(r);
  for (unsigned dim : llvm::reverse(sliced))
    dims.erase(dims.begin() + dim);
  layout.dims = dims;
  for (unsigned r : layout.rootOrder)
    if (llvm::is_contained(dims, r))
      layout.order.push_back(llvm::find(dims, r) - dims.begin());

  for (auto [d, size] : llvm::enumerate(type.getShape())) {
    unsigned r = dims[d];
    int64_t spt = layout.rootSpt[r];
    int64_t cover = spt * layout.rootTpw[r] * layout.rootWpc[r];
    if (!llvm::isPowerOf2_64(size) || !llvm::isPowerOf2_64(spt) ||
        !llvm::isPowerOf2_64(cover)) {
      if (emitError)
        fail(emitError) << "tile " << type << ": dim " << d << " (size "
                        << size << ") and its layout parameters must be "
                        << "powers of two";
      return error();
    }
    layout.shape.push_back(size);
    layout.sizes.push_back(std::min(spt, size));
    layout.reps.push_back(std::max<int64_t>(1, size / cover));
  }
  return layout;
}

TileLayout TileLayout::dropDim(unsigned dim) const {
  TileLayout result = *this;
  result.dims.erase(result.dims.begin() + dim);
  result.shape.erase(result.shape.begin() + dim);
  result.sizes.erase(result.sizes.begin() + dim);
  result.reps.erase(result.reps.begin() + dim);
  result.order.clear();
  for (unsigned d : order)
    if (d != dim)
      result.order.push_back(d > dim ? d - 1 : d);
  return result;
}

int64_t TileLayout::getNumElems() const {
  int64_t n = 1;
  for (unsigned d = 0; d < getRank(); ++d)
    n *= getElemsAlong(d);
  return n;
}

SmallVector<int64_t> TileLayout::delinearize(int64_t e) const {
  SmallVector<int64_t> idx(getRank(), 0);
  int64_t inner = 1;
  for (unsigned d : order)
    inner *= sizes[d];
  int64_t repLinear = e / inner, innerLinear = e % inner;
  for (unsigned d : order) {
    idx[d] = innerLinear % sizes[d];
    innerLinear /= sizes[d];
  }
  for (unsigned d : order) {
    idx[d] += (repLinear % reps[d]) * sizes[d];
    repLinear /= reps[d];
  }
  return idx;
}

int64_t TileLayout::linearize(ArrayRef<int64_t> idx) const {
  int64_t inner = 0, repLinear = 0, innerStride = 1, repStride = 1;
  for (unsigned d : order) {
    inner += (idx[d] % sizes[d]) * innerStride;
    innerStride *= sizes[d];
    repLinear += (idx[d] / sizes[d]) * repStride;
    repStride *= reps[d];
  }
  return repLinear * innerStride + inner;
}

int64_t TileLayout::getElemOffset(unsigned d, int64_t k) const {
  unsigned r = dims[d];
  int64_t cover = rootSpt[r] * rootTpw[r] * rootWpc[r];
  int64_t i = k % sizes[d];
  return (k / sizes[d]) * cover + (i / rootRun[r]) * rootRunStride[r] +
         i % rootRun[r];
}

/// The product of `counts` over the root dims before `root` in `order`:
/// the step of `root`'s index in a lane (or warp) id.
static int64_t strideInOrder(ArrayRef<unsigned> order,
                             ArrayRef<int64_t> counts, unsigned root) {
  int64_t stride = 1;
  for (unsigned r : order) {
    if (r == root)
      return stride;
    stride *= counts[r];
  }
  llvm_unreachable("dim not in order");
}

int64_t TileLayout::getLaneStride(unsigned d) const {
  return strideInOrder(rootOrder, rootTpw, dims[d]);
}

int64_t TileLayout::getWarpStride(unsigned d) const {
  return strideInOrder(rootOrder, rootWpc, dims[d]);
}

int64_t TileLayout::getDistinctLanes(unsigned d) const {
  unsigned r = dims[d];
  return std::clamp<int64_t>(shape[d] / rootSpt[r], 1, rootTpw[r]);
}

int64_t TileLayout::getDistinctWarps(unsigned d) const {
  unsigned r = dims[d];
  return std::clamp<int64_t>(shape[d] / (rootSpt[r] * rootTpw[r]), 1,
                             rootWpc[r]);
}

Value TileLayout::emitLaneAlong(OpBuilder &b, Location loc, ThreadIds ids,
                                unsigned d) const {
  Value v = ids.lane;
  int64_t stride = getLaneStride(d);
  if (stride != 1)
    v = arith::DivUIOp::create(b, loc, v, cst(b, loc, stride));
  // The lane id is below warpSize: the outermost dim needs no wrap.
  if (stride * rootTpw[dims[d]] == warpSize)
    return v;
  return arith::RemUIOp::create(b, loc, v, cst(b, loc, rootTpw[dims[d]]));
}

Value TileLayout::emitWarpAlong(OpBuilder &b, Location loc, ThreadIds ids,
                                unsigned d) const {
  Value v = ids.warp;
  int64_t stride = getWarpStride(d);
  if (stride != 1)
    v = arith::DivUIOp::create(b, loc, v, cst(b, loc, stride));
  // The warp id is below numWarps (the kernel's known block size).
  if (stride * rootWpc[dims[d]] == numWarps)
    return v;
  return arith::RemUIOp::create(b, loc, v, cst(b, loc, rootWpc[dims[d]]));
}

SmallVector<Value> TileLayout::emitThreadBase(OpBuilder &b, Location loc,
                                              ThreadIds ids) const {
  SmallVector<Value> base;
  for (unsigned d = 0; d < getRank(); ++d) {
    unsigned r = dims[d];
    // ((w * tpw + l) * spt) mod S; with runs shorter than spt (mma.sync and
    // 32x32 MFMA rows) a lane steps by the run and a warp by tpw * spt.
    Value lane = emitLaneAlong(b, loc, ids, d);
    Value warp = emitWarpAlong(b, loc, ids, d);
    int64_t laneStep = rootRun[r];
    Value v = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, warp,
                              cst(b, loc, rootTpw[r] * rootSpt[r])),
        arith::MulIOp::create(b, loc, lane, cst(b, loc, laneStep)));
    if (shape[d] < rootSpt[r] * rootTpw[r] * rootWpc[r])
      v = arith::RemUIOp::create(b, loc, v, cst(b, loc, shape[d]));
    base.push_back(v);
  }
  return base;
}

bool TileLayout::isSameDistribution(const TileLayout &other) const {
  if (shape != other.shape || sizes != other.sizes || reps != other.reps ||
      order != other.order || warpSize != other.warpSize ||
      numWarps != other.numWarps)
    return false;
  for (unsigned d = 0; d < getRank(); ++d) {
    unsigned r = dims[d], o = other.dims[d];
    if (rootSpt[r] != other.rootSpt[o] || rootTpw[r] != other.rootTpw[o] ||
        rootWpc[r] != other.rootWpc[o] ||
        rootRun[r] != other.rootRun[o] ||
        rootRunStride[r] != other.rootRunStride[o] ||
        getLaneStride(d) != other.getLaneStride(d) ||
        getWarpStride(d) != other.getWarpStride(d))
      return false;
  }
  return true;
}

Value mlir::tcc::tile_to_gpu::emitRowMajorIndex(OpBuilder &b, Location loc,
                                                ArrayRef<Value> coord,
                                                ArrayRef<int64_t> shape) {
  Value linear = cst(b, loc, 0);
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value term = coord[d];
    if (stride != 1)
      term = arith::MulIOp::create(b, loc, term, cst(b, loc, stride));
    linear = arith::AddIOp::create(b, loc, linear, term);
    stride *= shape[d];
  }
  return linear;
}
