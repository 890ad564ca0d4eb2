//===- LayoutUtils.h - per-thread index math of tile layouts ----*- C++ -*-===//
//
// The one place that says which elements of a tile a thread owns and in
// which order they sit in its per-thread vector. Every pattern of
// convert-tile-to-gpu goes through TileLayout; none redoes the math.
//
// Model. A supported layout is a `#tile.blocked` ("root", rank R) or a chain
// of `#tile.slice`s of one; the tile keeps a subset of the root's dims (the
// slices drop the others). For root dim r:
//   spt[r], tpw[r], wpc[r]      sizePerThread, threadsPerWarp, warpsPerCTA
//   C[r] = spt*tpw*wpc          what one "CTA tile" of the layout covers
// The lane id splits into per-dim lane ids l[r] and the warp id into w[r]
// following `order` (fastest first), as in Triton. Along a tile dim d of
// size S (root dim r), with s = min(spt[r], S) and reps = max(1, S / C[r]),
// a thread owns n = s * reps elements; the k-th (k = rep * s + i) sits at
//   coord = base + rep * C[r] + i,   base = ((w*tpw + l) * spt) mod S
// (accumulators of mma.sync and 32x32 MFMA split i into runs of `run`
// consecutive elements, runs `runStride` apart, and base steps by `run` per
// lane: i becomes (i / run) * runStride + i % run)
// (the mod only matters when S < C: the layout then wraps around and
// several threads hold replicas of one element, the way Triton does it).
// Sliced root dims hold no elements: their lanes and warps are replicas.
//
// Canonical per-thread order: the element with per-dim indices
// (rep[d], i[d]) is number
//   linear(rep over `order`) * prod(s) + linear(i over `order`)
// with order's first dim fastest: each thread's run of s[order[0]]
// elements contiguous along the fastest dim is contiguous in its vector.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_TILETOGPU_LAYOUTUTILS_H
#define TCC_CONVERSION_TILETOGPU_LAYOUTUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tcc::tile_to_gpu {

/// An index constant (the per-thread address math is full of them).
inline Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Thread ids of the running thread, computed once per kernel.
struct ThreadIds {
  Value lane; // index, tid % warpSize
  Value warp; // index, tid / warpSize
};

/// Geometry of the wave64 MFMA instructions tcc emits,
/// v_mfma_f32_{M}x{M}x{K}{f16,bf16_1k} with M = 16 (K = 16) or M = 32
/// (K = 8), one block, untransposed (AMD matrix instruction calculator),
/// l = lane in [0, 64), G = 64 / M lane groups:
///   A (M x K): kPerLane = 4 elements A[l % M][4 * (l / M) + i], K = 4 G
///   B (K x M): 4 elements B[4 * (l / M) + i][l % M]
///   D (M x M): M * M / 64 floats, the e-th at row
///              4 G * (e / 4) + 4 * (l / M) + e % 4, column l % M
/// The one description shared by the fragment reads and the dot
/// (MfmaOpsToGPU.cpp) and the accumulator layout (TileLayout::get): D is the
/// blocked layout sizePerThread [M * M / 64, 1], threadsPerWarp [G, M]
/// whose per-thread rows come in runs of 4, runs 4 G rows apart.
struct MfmaShape {
  int64_t m;                    // M = N
  int64_t k;                    // K
  static constexpr int64_t kPerLane = 4;
  static constexpr int64_t accRun = 4; // consecutive D rows of one lane

  /// The shape of instrShape {16, 16} or {32, 32}; nullopt otherwise.
  static std::optional<MfmaShape> get(ArrayRef<unsigned> instrShape) {
    if (instrShape.size() != 2 || instrShape[0] != instrShape[1])
      return std::nullopt;
    if (instrShape[0] == 16)
      return MfmaShape{16, 16};
    if (instrShape[0] == 32)
      return MfmaShape{32, 8};
    return std::nullopt;
  }
  int64_t laneGroups() const { return 64 / m; }
  int64_t accPerLane() const { return m * m / 64; }
  /// Row of D element `e` inside the M x M tile, less the lane's
  /// 4 * (l / M).
  int64_t accRowOffset(int64_t e) const {
    return (e / accRun) * accRun * laneGroups() + e % accRun;
  }
};

/// How a supported distributed layout spreads a tile of a given shape over
/// a program's threads. Cheap to copy.
class TileLayout {
public:
  /// Analyzes `type` (a tile tensor); on failure, reports why through
  /// `emitError` (when given) and returns failure.
  static FailureOr<TileLayout>
  get(RankedTensorType type, unsigned warpSize,
      function_ref<InFlightDiagnostic()> emitError = {});

  /// This layout with tile dim `dim` sliced away (what `tile.reduce` along
  /// `dim` produces; rank 0, one element per thread, for a 1-D tile).
  TileLayout dropDim(unsigned dim) const;

  unsigned getRank() const { return shape.size(); }
  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getNumWarps() const { return numWarps; }
  unsigned getWarpSize() const { return warpSize; }
  unsigned getNumThreads() const { return numWarps * warpSize; }

  /// Elements per thread along tile dim `d`, and their product.
  int64_t getElemsAlong(unsigned d) const { return sizes[d] * reps[d]; }
  int64_t getNumElems() const;
  /// The contiguous run along tile dim `d`: min(sizePerThread, size), or
  /// the root's run where a thread's elements along it are strided (1
  /// along an mma.sync accumulator's rows: rows g and g + 8; 4 along a 32x32
  /// MFMA's). A 1-D slice of such rows (a per-row vector of the
  /// accumulator) is strided too.
  int64_t getSizePerThread(unsigned d) const {
    return std::min(sizes[d], rootRun[dims[d]]);
  }
  /// Tile dims, fastest first (the root's `order` restricted to them).
  ArrayRef<unsigned> getOrder() const { return order; }

  /// Per-dim indices (each in [0, getElemsAlong(d))) of element `e`.
  SmallVector<int64_t> delinearize(int64_t e) const;
  /// Inverse of delinearize.
  int64_t linearize(ArrayRef<int64_t> idx) const;
  /// The compile-time part of the coordinate along dim `d` of the element
  /// with index `k` along `d`: rep * C + i.
  int64_t getElemOffset(unsigned d, int64_t k) const;

  /// The thread-dependent part of each dim's coordinate (`base` above), as
  /// index values.
  SmallVector<Value> emitThreadBase(OpBuilder &b, Location loc,
                                    ThreadIds ids) const;
  /// Per-dim lane id / warp id of the running thread along tile dim `d`.
  Value emitLaneAlong(OpBuilder &b, Location loc, ThreadIds ids,
                      unsigned d) const;
  Value emitWarpAlong(OpBuilder &b, Location loc, ThreadIds ids,
                      unsigned d) const;

  /// Lanes (warps) along tile dim `d` that hold distinct data, and the
  /// stride of dim `d`'s lane (warp) id inside the lane (warp) id.
  int64_t getDistinctLanes(unsigned d) const;
  int64_t getDistinctWarps(unsigned d) const;
  int64_t getLaneStride(unsigned d) const;
  int64_t getWarpStride(unsigned d) const;

  /// Whether two tile values of these layouts hold every element at the
  /// same (thread, position): then converting between them is a no-op.
  bool isSameDistribution(const TileLayout &other) const;

private:
  TileLayout() = default;
  unsigned rootDimOf(unsigned d) const { return dims[d]; }

  unsigned warpSize = 32, numWarps = 1;
  // Root blocked layout parameters (rank R). A thread's spt elements along
  // a dim come in runs of rootRun consecutive ones, runs rootRunStride
  // apart: run = spt for blocked layouts; run 1, stride 8 along the rows of
  // an mma.sync accumulator; run 4, stride 8 along those of a 32x32 MFMA.
  SmallVector<int64_t> rootSpt, rootTpw, rootWpc, rootRun, rootRunStride;
  SmallVector<unsigned> rootOrder;
  // Per tile dim (rank = shape size).
  SmallVector<unsigned> dims; // root dim of each tile dim
  SmallVector<int64_t> shape, sizes, reps;
  SmallVector<unsigned> order; // tile dims, fastest first
};

/// Row-major linear index of `coord` in `shape` (index values).
Value emitRowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                        ArrayRef<int64_t> shape);

} // namespace mlir::tcc::tile_to_gpu

#endif // TCC_CONVERSION_TILETOGPU_LAYOUTUTILS_H
