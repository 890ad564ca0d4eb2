//===- TileToGPU.h - convert-tile-to-gpu internals --------------*- C++ -*-===//
//
// Shared by the pattern files of convert-tile-to-gpu: the type converter,
// what the pass learned about a kernel before converting it, and helpers
// every pattern family uses.
//
//===----------------------------------------------------------------------===//
#ifndef TCC_CONVERSION_TILETOGPU_TILETOGPU_H
#define TCC_CONVERSION_TILETOGPU_TILETOGPU_H

#include "LayoutUtils.h"

#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tcc::tile_to_gpu {

/// tile tensors -> per-thread vectors, !tile.ptr -> !llvm.ptr, everything
/// else unchanged.
class TileTypeConverter : public TypeConverter {
public:
  TileTypeConverter(MLIRContext *ctx, unsigned warpSize);
  unsigned getWarpSize() const { return warpSize; }
  MLIRContext &getContext() const { return *ctx; }
  /// The layout of a tile type; asserts it is supported (the pass checks
  /// every tile type before converting).
  TileLayout getLayout(RankedTensorType type) const;

private:
  MLIRContext *ctx;
  unsigned warpSize;
};

/// Whether a 2-D shared tile is stored column-major (order [0, 1]: its
/// dim 0 contiguous, e.g. a B slice [BK, BN] read as stored [N, K]). Its
/// buffer then holds the transposed [cols, rows] image, swizzled as a
/// row-major tile of that shape.
inline bool isColumnMajor(tile::SharedEncodingAttr shared) {
  return shared.getOrder() == ArrayRef<unsigned>{0, 1};
}
/// Whether `layout` moves a 2-D tile into or out of `shared`: both
/// row-major (order [1, 0]) or both column-major (order [0, 1]).
inline bool isMovableSharedOrder(tile::SharedEncodingAttr shared,
                                 tile::BlockedEncodingAttr layout) {
  return (shared.getOrder() == ArrayRef<unsigned>{1, 0} ||
          isColumnMajor(shared)) &&
         layout.getOrder() == shared.getOrder();
}
/// The buffer shape of shared tiles of `shape` ([slots..., rows, cols]) in
/// `shared`: the last two dims swapped where it is column-major.
SmallVector<int64_t> physicalSharedShape(ArrayRef<int64_t> shape,
                                         tile::SharedEncodingAttr shared);

/// A shared tile in a workgroup buffer: the buffer, the indices in front of
/// the tile's (row, col) (a pipelined buffer's slot), and its layout.
struct SharedTileRef {
  Value buffer;
  SmallVector<Value> leading;
  tile::SharedEncodingAttr layout;
  /// Added to the tile's rows (null: none): a tile stored at a row offset
  /// of the buffer's, a multiple of the swizzle period.
  Value rowOffset = {};
  /// Buffer indices of the tile's logical (row, col), swizzled (for a
  /// column-major tile: of its physical (col, row)).
  SmallVector<Value> indices(OpBuilder &b, Location loc, Value row,
                             Value col) const;
};
/// What the pass learned about one kernel before converting it.
struct KernelInfo {
  unsigned numWarps = 0;
  /// Warps of each consumer group when the kernel runs several groups of
  /// its tiles' layouts side by side (tcc.consumer_groups: ping-pong
  /// warpgroups); 0 otherwise. Warp ids are taken within the group.
  unsigned tileWarps = 0;
  unsigned warpSize = 32;
  /// Workgroup scratch buffers, one per storage element type, in the order
  /// of the gpu.func's workgroup attributions: (element type, elements).
  SmallVector<std::pair<Type, int64_t>> scratch;

  /// Pointer-form loads/stores and memref gathers whose per-thread runs
  /// read consecutive elements: the run width (> 1) to move with one vector
  /// access.
  DenseMap<Operation *, int64_t> pointerRunWidth;

  /// Shared-memory tiles: each `tile.convert_layout` into a `#tile.shared`
  /// layout and each `tile.shared_alloc` owns one workgroup buffer,
  /// attributed after the scratch ones.
  DenseMap<Operation *, unsigned> sharedBufferOf;
  SmallVector<MemRefType> sharedBuffers;

  /// Lower tile.async_copy to cp.async (else loads and shared stores).
  bool asyncCopy = true;

  /// Without cp.async, a copy's loads are emitted at the copy and its
  /// shared stores at the tile.async_commit_group closing its group (after
  /// the step's math: register-staged prefetch). Filled and drained during
  /// the conversion, hence mutable.
  struct DeferredStore {
    TileLayout layout;
    Value values;
    SharedTileRef dst;
  };
  mutable DenseMap<Operation *, SmallVector<DeferredStore, 2>> deferredStores;

  /// Memref-form accesses (memref_load / memref_store / async_copy): a
  /// power of two each window offset is known to be a multiple of, found on
  /// the tile IR before conversion (see getKnownDivisor).
  DenseMap<Operation *, SmallVector<int64_t>> offsetDivisors;
  ArrayRef<int64_t> getOffsetDivisors(Operation *op) const {
    auto it = offsetDivisors.find(op);
    return it == offsetDivisors.end() ? ArrayRef<int64_t>() : it->second;
  }

  /// Whether the buffers live in dynamic shared memory (over the 48 KiB a
  /// kernel may declare statically): views of one
  /// gpu.dynamic_shared_memory at 16-byte aligned offsets.
  bool dynamicShared = false;

  /// Indices (into sharedBuffers) of TMA / wgmma operand buffers, which
  /// start 1024-byte aligned (the 128-byte swizzle's period).
  llvm::DenseSet<unsigned> alignedBuffers;
  /// Alignment of workgroup buffer `index` (scratch first): 16 or 1024.
  int64_t getBufferAlignment(unsigned index) const;
  /// Byte offset of each workgroup buffer, then the total.
  SmallVector<int64_t> getBufferOffsets(MLIRContext *ctx) const;

  /// The workgroup buffers in order: scratch ones, then shared tiles.
  SmallVector<MemRefType> getWorkgroupBufferTypes(MLIRContext *ctx) const;
  /// Asks for `numElems` elements of scratch of `elemType`'s storage type.
  void requestScratch(Type elemType, int64_t numElems);
  /// Bytes of workgroup memory the kernel declares (scratch + shared tiles).
  int64_t getSharedBytes() const;
};

/// Static workgroup memory a kernel may declare; more goes to dynamic
/// shared memory (up to the target's max-shared-bytes).
inline constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// Workgroup buffer `index` (KernelInfo::getWorkgroupBufferTypes order) of
/// the gpu.func around `op`.
Value getWorkgroupBuffer(Operation *op, const KernelInfo &info,
                         unsigned index);

/// Widest access, in bytes: 16 gives ld.global.v4.f32 / global_load_dwordx4.
inline constexpr int64_t kMaxAccessBytes = 16;

/// Groups of how many coordinates along `dim`, aligned to that count, hold
/// consecutive values of the integer or pointer tile `tile` (a power of two;
/// 1 when unknown). See Contiguity.cpp.
int64_t getContiguity(Value tile, unsigned dim);

/// A power of two that integer (index) `value` is known to be a multiple of,
/// from constants, products, sums, casts and loop counters (1 when nothing
/// is known; capped at 2^30). See Contiguity.cpp.
int64_t getKnownDivisor(Value value);

/// The type scratch memory stores `elemType` as (i1 is kept as i8).
Type getScratchStorageType(Type elemType);
/// The workgroup buffer of the enclosing gpu.func holding `elemType`.
Value getScratchBuffer(Operation *op, const KernelInfo &info, Type elemType);

/// A zero of `type` (int, float or !llvm.ptr).
Value emitZero(OpBuilder &b, Location loc, Type type);

/// The running thread's lane and warp ids.
ThreadIds emitThreadIds(OpBuilder &b, Location loc, unsigned warpSize);
/// The same for a kernel's tiles: with ping-pong consumer groups
/// (info.tileWarps), the warp id within the thread's group.
ThreadIds emitThreadIds(OpBuilder &b, Location loc, const KernelInfo &info);

/// Scalar `value` converted to / from its scratch storage type.
Value toStorage(OpBuilder &b, Location loc, Value value);
Value fromStorage(OpBuilder &b, Location loc, Value stored, Type type);

/// Writes every element of a per-thread vector to its row-major index of
/// the scratch buffer (no barrier).
void emitStoreToScratch(OpBuilder &b, Location loc, Value src,
                        const TileLayout &srcLayout, Value buffer,
                        ThreadIds ids, int64_t rowPad = 0);
/// Writes every element of a per-thread vector to row-major scratch, syncs,
/// reads back the elements of `dst` (same element count) and syncs again.
/// Reshapes and layout conversions go through it.
Value emitRelayoutThroughScratch(OpBuilder &b, Location loc, Value src,
                                 const TileLayout &srcLayout,
                                 const TileLayout &dstLayout, Value buffer,
                                 ThreadIds ids);

/// Tiles of the tensor-core path (MmaOpsToGPU.cpp): `#tile.shared` tiles are
/// workgroup buffers, `#tile.dot_operand` tiles per-thread mma fragments.
bool isSharedTile(Type type);
bool isDotOperandTile(Type type);
/// The converted type of a shared or dot-operand tile (null if invalid).
Type convertMmaTileType(RankedTensorType type, unsigned warpSize);
/// Whether a convert_layout from `src` to `dst` takes an mma accumulator
/// tile to the A operand of a dot on that same accumulator layout (P of
/// attention, softmax(Q K^T), as the second product's A): a permutation of
/// each thread's registers (warps [W, 1]), no shared memory.
bool isAccumulatorToOperandA(RankedTensorType src, RankedTensorType dst);
/// Checks a shared / dot-operand tile type or a tile.dot for the mma.sync
/// path; emits the reason when it is not supported.
LogicalResult verifyMmaOp(Operation *op, unsigned warpSize);
/// Physical column of logical (row, col) of a swizzled shared tile: the
/// column's vec-group index XOR ((row / perPhase) % maxPhase).
Value emitSwizzledColumn(OpBuilder &b, Location loc,
                         tile::SharedEncodingAttr shared, Value row,
                         Value col);
/// Elements a thread moves to or from shared memory at once: its run, cut
/// at swizzle-group borders (a group stays contiguous after the XOR).
int64_t sharedPiece(tile::SharedEncodingAttr shared, int64_t run);
/// Visits each piece of each run (along the layout's fastest dim, the
/// shared tile's contiguous one) of the 2-D `layout` tile's per-thread
/// elements in shared tile `ref` (elements of type `element`):
/// `visit(first, piece, indices, alignment)` with the piece's first index
/// in the thread's vector, its length, its buffer indices (swizzled) and
/// its known alignment in bytes (0: unknown).
void forEachSharedPiece(
    OpBuilder &b, Location loc, const TileLayout &layout,
    const SharedTileRef &ref, Type element, unsigned warpSize,
    function_ref<void(int64_t, int64_t, ArrayRef<Value>, int64_t)> visit,
    const ThreadIds *ids = nullptr);
/// Stores a per-thread vector of a 2-D `src`-layout tile into `dst` (vector
/// stores of at most one swizzle group each; no barriers).
/// `ids`: the threads' ids when not those of emitThreadIds(warpSize).
void emitSharedTileStore(OpBuilder &b, Location loc, const TileLayout &src,
                         Value values, const SharedTileRef &dst,
                         unsigned warpSize, const ThreadIds *ids = nullptr);
/// Reads the mma.sync operand fragments of dot-operand tile `type` from
/// `src` with ldmatrix (MmaOpsToGPU.cpp).
Value emitMmaOperandLoad(OpBuilder &b, Location loc, RankedTensorType type,
                         const SharedTileRef &src, VectorType resultType,
                         unsigned warpSize);
/// Reads the MFMA operand fragments of dot-operand tile `type` from `src`
/// with LDS loads (MfmaOpsToGPU.cpp).
Value emitMfmaOperandLoad(OpBuilder &b, Location loc, RankedTensorType type,
                          const SharedTileRef &src, VectorType resultType,
                          unsigned warpSize);
/// The per-thread vector of a memref-form load (`tile.memref_load`) of a
/// `shape` window at `offsets` distributed as `layout` (MemoryOpsToGPU.cpp).
/// Barrier `index` of a converted `!tile.mbarriers` (memref<N x i64, 3>),
/// as a shared pointer (TmaOpsToGPU.cpp).
Value emitMBarrierPointer(OpBuilder &b, Location loc, Value barriers,
                          Value index);
Value emitMemRefLoad(OpBuilder &b, Location loc, const TileLayout &layout,
                     VectorType vecType, ArrayRef<int64_t> shape, Value memref,
                     ValueRange offsets, ArrayRef<int64_t> offsetDivisors,
                     Value mask, Value other, const KernelInfo &info,
                     const ThreadIds *ids = nullptr,
                     bool interiorFirst = false);
/// AMD MFMA operands (MfmaOpsToGPU.cpp).
tile::AMDMfmaEncodingAttr mfmaParentOf(Type type);
Type convertMfmaOperandType(RankedTensorType type);
LogicalResult verifyMfmaOperand(Operation *op, RankedTensorType type,
                                unsigned warpSize);

/// The FMA fallback (FmaDotToGPU.cpp): tile.dot on a #tile.blocked
/// accumulator, its #tile.dot_operand<{parent = #blocked}> operands.
/// The blocked accumulator layout of an FMA operand tile, or null.
tile::BlockedEncodingAttr fmaParentOf(Type type);
/// Whether `op` is an FMA tile.dot, a convert_layout from / to an FMA
/// operand tile or a tile.shared_load of one (verifyMmaOp hands those to
/// verifyFmaOp).
bool isFmaOp(Operation *op);
Type convertFmaOperandType(RankedTensorType type, unsigned warpSize);
LogicalResult verifyFmaOp(Operation *op, unsigned warpSize);
/// Reads the FMA operand elements of `type` the running thread needs from
/// `src` (16-byte reads along the rows).
Value emitFmaOperandLoad(OpBuilder &b, Location loc, RankedTensorType type,
                         const SharedTileRef &src, VectorType resultType,
                         unsigned warpSize);

/// Erases barriers that follow another barrier with no memory access in
/// between (consecutive shared-memory stores each ask for one).
void eraseRedundantBarriers(Operation *root);

/// Base of the patterns that need the kernel info or tile layouts.
template <typename Op>
struct TilePattern : public OpConversionPattern<Op> {
  TilePattern(TileTypeConverter &converter, const KernelInfo &info)
      : OpConversionPattern<Op>(converter, &converter.getContext()),
        info(info), tileConverter(converter) {}
  TileLayout layoutOf(Type type) const {
    return tileConverter.getLayout(cast<RankedTensorType>(type));
  }
  VectorType vectorTypeOf(Type type) const {
    return cast<VectorType>(tileConverter.convertType(type));
  }
  const KernelInfo &info;
  TileTypeConverter &tileConverter;
};

/// Rewrites the math ops under `root` that GPU lowerings would turn into
/// libdevice / OCML calls (see MathToGPU.cpp).
LogicalResult expandMathOps(Operation *root);

void populateTileToGPUCorePatterns(TileTypeConverter &converter,
                                   const KernelInfo &info,
                                   RewritePatternSet &patterns);
void populateTileToGPUMemoryPatterns(TileTypeConverter &converter,
                                     const KernelInfo &info,
                                     RewritePatternSet &patterns);
void populateTileToGPUReducePatterns(TileTypeConverter &converter,
                                     const KernelInfo &info,
                                     RewritePatternSet &patterns);
void populateTileToGPUMmaPatterns(TileTypeConverter &converter,
                                  const KernelInfo &info,
                                  RewritePatternSet &patterns);
void populateTileToGPUStagingPatterns(TileTypeConverter &converter,
                                      const KernelInfo &info,
                                      RewritePatternSet &patterns);
/// Checks a tile.async_copy for convert-tile-to-gpu (SharedStagingToGPU.cpp).
LogicalResult verifyAsyncCopy(tile::AsyncCopyOp op);
/// Checks a tile.shared_load into a #tile.blocked tile (a 2-D row-major
/// slot read back by the threads' runs).
LogicalResult verifyBlockedSharedLoad(tile::SharedLoadOp op);
void populateTileToGPUMfmaPatterns(TileTypeConverter &converter,
                                   const KernelInfo &info,
                                   RewritePatternSet &patterns);
void populateTileToGPUFmaPatterns(TileTypeConverter &converter,
                                  const KernelInfo &info,
                                  RewritePatternSet &patterns);
/// Hopper: TMA copies and mbarriers (TmaOpsToGPU.cpp), wgmma
/// (WgmmaOpsToGPU.cpp).
void populateTileToGPUTmaPatterns(TileTypeConverter &converter,
                                  const KernelInfo &info,
                                  RewritePatternSet &patterns);
void populateTileToGPUWgmmaPatterns(TileTypeConverter &converter,
                                    const KernelInfo &info,
                                    RewritePatternSet &patterns);
/// The 32-bit shared-window address of a workgroup memref's first element.
Value emitSharedAddress(OpBuilder &b, Location loc, Value memref);
/// A shared address as an LLVM pointer in address space 3.
Value emitSharedPointer(OpBuilder &b, Location loc, Value address);
/// The shared address of chunk `chunk` of slot `slot` of a converted
/// [slots, chunks, rows, 64] Hopper operand buffer.
Value emitSlotChunkAddress(OpBuilder &b, Location loc,
                           tile::SharedBufferType type, Value buffer,
                           Value slot, Value chunk);

} // namespace mlir::tcc::tile_to_gpu

#endif // TCC_CONVERSION_TILETOGPU_TILETOGPU_H
