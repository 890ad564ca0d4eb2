//===- TileToGPU.cpp - convert-tile-to-gpu: pass, types, kernels ----------===//
//
// The pass, its type converter and the kernel-level lowering
// (tile.func/tile.return -> gpu.module/gpu.func/gpu.return). Op families
// live next to this file: LayoutOpsToGPU.cpp (grid queries, index tiles,
// shape ops, elementwise arith/math), MemoryOpsToGPU.cpp (pointers, loads,
// stores), ReduceOpToGPU.cpp (tile.reduce), MmaOpsToGPU.cpp /
// MfmaOpsToGPU.cpp (tensor cores), FmaDotToGPU.cpp (tile.dot without them).
// Index math: LayoutUtils.
//
//===----------------------------------------------------------------------===//
#include "tcc/Support/OptionChecks.h"
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "tcc/Conversion/Passes.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::tcc {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tcc/Conversion/Passes.h.inc"
} // namespace mlir::tcc

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

//===----------------------------------------------------------------------===//
// Type converter and shared helpers
//===----------------------------------------------------------------------===//

TileTypeConverter::TileTypeConverter(MLIRContext *ctx, unsigned warpSize)
    : ctx(ctx), warpSize(warpSize) {
  addConversion([](Type type) { return type; });
  addConversion([ctx](tile::PtrType type) -> Type {
    return LLVM::LLVMPointerType::get(ctx, type.getAddressSpace());
  });
  addConversion([ctx](tile::SharedBufferType type) -> Type {
    return MemRefType::get(
        physicalSharedShape(type.getShape(), type.getEncoding()),
        type.getElementType(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(
            ctx, gpu::GPUDialect::getWorkgroupAddressSpace()));
  });
  addConversion([ctx](tile::MBarriersType type) -> Type {
    return MemRefType::get(
        {type.getCount()}, IntegerType::get(ctx, 64),
        MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(
            ctx, gpu::GPUDialect::getWorkgroupAddressSpace()));
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (isSharedTile(type) || isDotOperandTile(type)) {
      if (Type converted = convertMmaTileType(type, this->warpSize))
        return converted;
      return std::nullopt;
    }
    FailureOr<TileLayout> layout = TileLayout::get(type, this->warpSize);
    if (failed(layout))
      return std::nullopt;
    Type elem = convertType(type.getElementType());
    if (!elem)
      return std::nullopt;
    return VectorType::get({layout->getNumElems()}, elem);
  });
}

TileLayout TileTypeConverter::getLayout(RankedTensorType type) const {
  FailureOr<TileLayout> layout = TileLayout::get(type, warpSize);
  assert(succeeded(layout) && "tile types are checked before conversion");
  return *layout;
}

Type mlir::tcc::tile_to_gpu::getScratchStorageType(Type elemType) {
  if (elemType.isInteger(1))
    return IntegerType::get(elemType.getContext(), 8);
  return elemType;
}

void KernelInfo::requestScratch(Type elemType, int64_t numElems) {
  Type storage = getScratchStorageType(elemType);
  for (auto &[type, size] : scratch)
    if (type == storage) {
      size = std::max(size, numElems);
      return;
    }
  scratch.emplace_back(storage, numElems);
}

SmallVector<MemRefType>
KernelInfo::getWorkgroupBufferTypes(MLIRContext *ctx) const {
  auto space = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<MemRefType> types;
  for (auto [type, size] : scratch)
    types.push_back(
        MemRefType::get({size}, type, MemRefLayoutAttrInterface(), space));
  llvm::append_range(types, sharedBuffers);
  return types;
}

/// Marks the memref.view of dynamic shared memory that is buffer N.
static constexpr StringLiteral kBufferIndexAttr = "tcc.workgroup_buffer";

Value mlir::tcc::tile_to_gpu::getWorkgroupBuffer(Operation *op,
                                                 const KernelInfo &info,
                                                 unsigned index) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!info.dynamicShared)
    return func.getWorkgroupAttributions()[index];
  for (auto view : func.getBody().front().getOps<memref::ViewOp>())
    if (auto attr = view->getAttrOfType<IntegerAttr>(kBufferIndexAttr);
        attr && attr.getInt() == index)
      return view;
  llvm_unreachable("dynamic shared-memory views are made with the gpu.func");
}

/// Bytes a workgroup buffer takes, padded to 16 so the next one starts
/// 16-byte aligned (static attributions and dynamic-memory views alike).
static int64_t paddedBytes(MemRefType type) {
  int64_t elemBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return llvm::alignTo(type.getNumElements() * elemBytes, 16);
}

int64_t KernelInfo::getBufferAlignment(unsigned index) const {
  return index >= scratch.size() &&
                 alignedBuffers.contains(index - scratch.size())
             ? 1024
             : 16;
}

SmallVector<int64_t> KernelInfo::getBufferOffsets(MLIRContext *ctx) const {
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (auto [i, type] : llvm::enumerate(getWorkgroupBufferTypes(ctx))) {
    offset = llvm::alignTo(offset, getBufferAlignment(i));
    offsets.push_back(offset);
    offset += paddedBytes(type);
  }
  offsets.push_back(offset);
  return offsets;
}

int64_t KernelInfo::getSharedBytes() const {
  if (scratch.empty() && sharedBuffers.empty())
    return 0;
  MLIRContext *ctx = scratch.empty() ? sharedBuffers.front().getContext()
                                     : scratch.front().first.getContext();
  return getBufferOffsets(ctx).back();
}

Value mlir::tcc::tile_to_gpu::getScratchBuffer(Operation *op,
                                               const KernelInfo &info,
                                               Type elemType) {
  Type storage = getScratchStorageType(elemType);
  for (auto [i, entry] : llvm::enumerate(info.scratch))
    if (entry.first == storage)
      return getWorkgroupBuffer(op, info, i);
  llvm_unreachable("scratch requested by the kernel analysis");
}

ThreadIds mlir::tcc::tile_to_gpu::emitThreadIds(OpBuilder &b, Location loc,
                                                unsigned warpSize) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value ws = arith::ConstantIndexOp::create(b, loc, warpSize);
  return {arith::RemUIOp::create(b, loc, tid, ws),
          arith::DivUIOp::create(b, loc, tid, ws)};
}

ThreadIds mlir::tcc::tile_to_gpu::emitThreadIds(OpBuilder &b, Location loc,
                                                const KernelInfo &info) {
  ThreadIds ids = emitThreadIds(b, loc, info.warpSize);
  if (info.tileWarps)
    ids.warp = arith::RemUIOp::create(
        b, loc, ids.warp, arith::ConstantIndexOp::create(b, loc, info.tileWarps));
  return ids;
}

Value mlir::tcc::tile_to_gpu::emitZero(OpBuilder &b, Location loc, Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::ZeroOp::create(b, loc, type);
  return arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(type)));
}

Value mlir::tcc::tile_to_gpu::toStorage(OpBuilder &b, Location loc,
                                        Value value) {
  Type storage = getScratchStorageType(value.getType());
  if (storage == value.getType())
    return value;
  return arith::ExtUIOp::create(b, loc, storage, value);
}

Value mlir::tcc::tile_to_gpu::fromStorage(OpBuilder &b, Location loc,
                                          Value stored, Type type) {
  if (stored.getType() == type)
    return stored;
  return arith::TruncIOp::create(b, loc, type, stored);
}

/// Row-major index of the running thread's element `e` of `layout`, rows
/// `rowPad` elements longer than the tile's (rank 2).
static Value emitElementIndex(OpBuilder &b, Location loc,
                              const TileLayout &layout, ArrayRef<Value> base,
                              int64_t e, int64_t rowPad = 0) {
  SmallVector<int64_t> idx = layout.delinearize(e);
  SmallVector<Value> coord;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    coord.push_back(arith::AddIOp::create(
        b, loc, base[d],
        arith::ConstantIndexOp::create(b, loc,
                                       layout.getElemOffset(d, idx[d]))));
  SmallVector<int64_t> shape(layout.getShape());
  if (rowPad)
    shape.back() += rowPad;
  return emitRowMajorIndex(b, loc, coord, shape);
}

/// Elements of padding after each row of the scratch copy of a tile moved
/// between layouts whose threads run along different dims (a transpose):
/// one 4-byte bank, so that lanes walking down a column of the row-major
/// copy hit different banks.
static int64_t transposePadding(const TileLayout &src, const TileLayout &dst,
                                Type elem) {
  if (src.getRank() != 2 || src.getOrder()[0] == dst.getOrder()[0])
    return 0;
  unsigned bits = getScratchStorageType(elem).getIntOrFloatBitWidth();
  return std::max<int64_t>(1, 32 / std::max(8u, bits));
}

void mlir::tcc::tile_to_gpu::emitStoreToScratch(OpBuilder &b, Location loc,
                                                Value src,
                                                const TileLayout &srcLayout,
                                                Value buffer, ThreadIds ids,
                                                int64_t rowPad) {
  // Element e of this thread goes to its row-major index.
  SmallVector<Value> srcBase = srcLayout.emitThreadBase(b, loc, ids);
  for (int64_t e = 0; e < srcLayout.getNumElems(); ++e) {
    Value v = vector::ExtractOp::create(b, loc, src, e);
    memref::StoreOp::create(
        b, loc, toStorage(b, loc, v), buffer,
        emitElementIndex(b, loc, srcLayout, srcBase, e, rowPad));
  }
}

Value mlir::tcc::tile_to_gpu::emitRelayoutThroughScratch(
    OpBuilder &b, Location loc, Value src, const TileLayout &srcLayout,
    const TileLayout &dstLayout, Value buffer, ThreadIds ids) {
  Type elem = cast<VectorType>(src.getType()).getElementType();
  int64_t rowPad = transposePadding(srcLayout, dstLayout, elem);
  emitStoreToScratch(b, loc, src, srcLayout, buffer, ids, rowPad);
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> dstBase = dstLayout.emitThreadBase(b, loc, ids);
  SmallVector<Value> elems;
  for (int64_t e = 0; e < dstLayout.getNumElems(); ++e) {
    Value v = memref::LoadOp::create(
        b, loc, buffer,
        emitElementIndex(b, loc, dstLayout, dstBase, e, rowPad));
    elems.push_back(fromStorage(b, loc, v, elem));
  }
  gpu::BarrierOp::create(b, loc);
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({dstLayout.getNumElems()}, elem), elems);
}

//===----------------------------------------------------------------------===//
// Kernel analysis
//===----------------------------------------------------------------------===//

/// Checks every tile type of `func` (supported layout, one warp count) and
/// collects what the kernel-level lowering needs up front.
/// The most elements of one tile a thread may hold (see analyzeKernel).
constexpr int64_t kMaxElementsPerThread = 1024;

static FailureOr<KernelInfo> analyzeKernel(tile::FuncOp func,
                                           const TileTypeConverter &converter,
                                           unsigned defaultNumWarps,
                                           bool asyncCopy,
                                           int64_t maxSharedBytes) {
  KernelInfo info;
  unsigned warpSize = converter.getWarpSize();
  info.warpSize = warpSize;
  info.asyncCopy = asyncCopy;
  Operation *warpOwner = nullptr;
  Attribute warpLayout;

  auto checkType = [&](Operation *op, Type type) -> LogicalResult {
    auto tile = dyn_cast<RankedTensorType>(type);
    if (!tile)
      return success();
    if (isSharedTile(tile) || isDotOperandTile(tile))
      return success(); // checked with the ops that use them (verifyMmaOp)
    FailureOr<TileLayout> layout =
        TileLayout::get(tile, warpSize, [&] { return op->emitOpError(); });
    if (failed(layout))
      return failure();
    // Each thread's share of a tile becomes a vector of that many values
    // (registers); past this the unrolled lowering's time and memory grow
    // faster than the tile, so the tile is refused (a layout that spreads
    // it over more threads, or a loop over smaller tiles, is the fix).
    if (layout->getNumElems() > kMaxElementsPerThread)
      return op->emitOpError("tile ")
             << tile << " puts " << layout->getNumElems()
             << " elements in each thread; convert-tile-to-gpu lowers at most "
             << kMaxElementsPerThread
             << " per thread (registers): spread the tile over more threads or "
                "loop over smaller tiles";
    if (!warpOwner) {
      info.numWarps = layout->getNumWarps();
      warpOwner = op;
      warpLayout = tile.getEncoding();
      return success();
    }
    if (layout->getNumWarps() != info.numWarps) {
      InFlightDiagnostic diag =
          op->emitOpError("uses layout ")
          << tile.getEncoding() << " with " << layout->getNumWarps()
          << " warps, but the kernel's tiles already use " << info.numWarps
          << " warps (layout " << warpLayout
          << "); every distributed layout of a kernel must agree on the "
             "number of warps";
      diag.attachNote(warpOwner->getLoc()) << "first layout used here";
      return failure();
    }
    return success();
  };

  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    for (Type type : op->getOperandTypes())
      if (failed(checkType(op, type)))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (failed(checkType(op, type)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(checkType(op, type)))
            return WalkResult::interrupt();

    // Divisibility is read here, on the tile IR: mid-conversion, loop
    // bodies may be detached from their loops.
    llvm::TypeSwitch<Operation *>(op)
        .Case<tile::MemRefLoadOp, tile::MemRefStoreOp, tile::AsyncCopyOp>(
            [&](auto access) {
              info.offsetDivisors[op] = llvm::map_to_vector(
                  access.getOffsets(),
                  [](Value v) { return getKnownDivisor(v); });
            });
    if (auto box = dyn_cast<tile::BoxCopyOp>(op)) {
      info.offsetDivisors[op] = llvm::map_to_vector(
          box.getCoords(), [](Value v) { return getKnownDivisor(v); });
      // Its layout spreads the box over the warpgroup running it (the
      // producer), not over the kernel's tiles' warps.
      if (failed(TileLayout::get(box.getBoxType(), warpSize,
                                 [&] { return op->emitOpError(); })))
        return WalkResult::interrupt();
    }
    if (isa<tile::SharedAllocOp, tile::MBarrierAllocOp>(op)) {
      // TMA / wgmma operand buffers ([slots, chunks, rows, 64] in the
      // 128-byte swizzle) start at the swizzle period, 1024 bytes.
      if (auto buffer =
              dyn_cast<tile::SharedBufferType>(op->getResult(0).getType());
          buffer && buffer.getTileShape().size() == 3 &&
          buffer.getEncoding().getMaxPhase() == 8)
        info.alignedBuffers.insert(info.sharedBuffers.size());
      info.sharedBufferOf[op] = info.sharedBuffers.size();
      info.sharedBuffers.push_back(
          cast<MemRefType>(converter.convertType(op->getResult(0).getType())));
      return WalkResult::advance();
    }
    if (auto copy = dyn_cast<tile::AsyncCopyOp>(op)) {
      if (failed(checkType(op, copy.getTileType())) ||
          failed(verifyAsyncCopy(copy)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (auto load = dyn_cast<tile::SharedLoadOp>(op);
        load && isa<tile::BlockedEncodingAttr>(load.getType().getEncoding())) {
      if (failed(verifyBlockedSharedLoad(load)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (isa<tile::DotOp, tile::SharedLoadOp>(op) ||
        (isa<tile::ConvertLayoutOp>(op) &&
         llvm::any_of(TypeRange{op->getOperand(0).getType(),
                                op->getResult(0).getType()},
                      [](Type t) {
                        return isSharedTile(t) || isDotOperandTile(t);
                      }))) {
      if (failed(verifyMmaOp(op, warpSize)))
        return WalkResult::interrupt();
      // FMA operands not read from a shared tile go through scratch.
      if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op);
          convert && isDotOperandTile(convert.getType()) &&
          !isSharedTile(convert.getSrc().getType()) &&
          !isAccumulatorToOperandA(convert.getSrc().getType(),
                                   convert.getType()))
        info.requestScratch(convert.getType().getElementType(),
                            convert.getType().getNumElements());
      if (isa<tile::ConvertLayoutOp>(op) &&
          isSharedTile(op->getResult(0).getType())) {
        auto shared = cast<RankedTensorType>(op->getResult(0).getType());
        info.sharedBufferOf[op] = info.sharedBuffers.size();
        info.sharedBuffers.push_back(cast<MemRefType>(
            convertMmaTileType(shared, warpSize)));
      }
      return WalkResult::advance();
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op);
        constant && isa<RankedTensorType>(constant.getType()) &&
        !isa<SplatElementsAttr>(constant.getValue())) {
      op->emitOpError("non-splat tile constants are not supported by "
                      "convert-tile-to-gpu; build them from tile.arange and "
                      "arithmetic");
      return WalkResult::interrupt();
    }
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      TileLayout src = *TileLayout::get(expand.getSrc().getType(), warpSize);
      TileLayout dst = *TileLayout::get(expand.getType(), warpSize);
      if (!dst.dropDim(expand.getAxis()).isSameDistribution(src)) {
        op->emitOpError("cannot lower: the operand and result layouts do not "
                        "place the elements on the same threads");
        return WalkResult::interrupt();
      }
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      auto src = cast<RankedTensorType>(reduce.getSrcs().front().getType());
      TileLayout layout = *TileLayout::get(src, warpSize);
      unsigned axis = reduce.getAxis();
      int64_t warps = layout.getDistinctWarps(axis);
      if (warps > 1) {
        // One slice of warps x outputs per operand; operands stored as one
        // type share its buffer, one slice after the other.
        int64_t outElems = src.getNumElements() / src.getDimSize(axis);
        llvm::MapVector<Type, int64_t> slices;
        for (Value operand : reduce.getSrcs()) {
          Type elem = cast<RankedTensorType>(operand.getType()).getElementType();
          ++slices[getScratchStorageType(elem)];
        }
        for (auto [storage, count] : slices)
          info.requestScratch(storage, count * warps * outElems);
      }
    }
    if (auto gather = dyn_cast<tile::MemRefGatherOp>(op)) {
      // Runs of consecutive indices (a row-program gather of an operand
      // lacking leading dims: (row % S) * D + column) load as vectors.
      Type elem = gather.getType().getElementType();
      if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
        return WalkResult::advance();
      TileLayout layout = *TileLayout::get(gather.getIndices().getType(), warpSize);
      unsigned fast = layout.getOrder()[0];
      int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
      int64_t width = std::min({layout.getSizePerThread(fast),
                                getContiguity(gather.getIndices(), fast),
                                std::max<int64_t>(1, kMaxAccessBytes / bytes)});
      if (width > 1)
        info.pointerRunWidth[op] = width;
      return WalkResult::advance();
    }
    if (isa<tile::LoadOp, tile::StoreOp>(op)) {
      Value ptr = op->getOperand(0);
      auto tile = dyn_cast<RankedTensorType>(ptr.getType());
      if (!tile)
        return WalkResult::advance();
      Type pointee =
          cast<tile::PtrType>(tile.getElementType()).getPointeeType();
      if (!pointee.isIntOrFloat() || pointee.getIntOrFloatBitWidth() % 8)
        return WalkResult::advance();
      TileLayout layout = *TileLayout::get(tile, warpSize);
      unsigned fast = layout.getOrder()[0];
      int64_t bytes = pointee.getIntOrFloatBitWidth() / 8;
      int64_t width = std::min({layout.getSizePerThread(fast),
                                getContiguity(ptr, fast),
                                std::max<int64_t>(1, kMaxAccessBytes / bytes)});
      if (width > 1)
        info.pointerRunWidth[op] = width;
      return WalkResult::advance();
    }
    if (isa<tile::ConvertLayoutOp, tile::ReshapeOp>(op)) {
      auto src = cast<RankedTensorType>(op->getOperand(0).getType());
      auto dst = cast<RankedTensorType>(op->getResult(0).getType());
      if (isa<tile::ConvertLayoutOp>(op) &&
          TileLayout::get(src, warpSize)->isSameDistribution(
              *TileLayout::get(dst, warpSize)))
        return WalkResult::advance();
      if (isa<tile::PtrType>(src.getElementType())) {
        op->emitOpError("cannot move a tile of pointers between layouts "
                        "through shared memory; convert the offsets instead");
        return WalkResult::interrupt();
      }
      int64_t elems = src.getNumElements();
      if (isa<tile::ConvertLayoutOp>(op))
        if (int64_t pad = transposePadding(*TileLayout::get(src, warpSize),
                                           *TileLayout::get(dst, warpSize),
                                           src.getElementType()))
          elems += src.getShape().front() * pad;
      info.requestScratch(src.getElementType(), elems);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!info.numWarps)
    info.numWarps = defaultNumWarps;
  // Warp-specialized kernels: warps past the tiles' (a TMA producer
  // warpgroup) run no distributed layout.
  if (auto groups = func->getAttrOfType<IntegerAttr>("tcc.consumer_groups");
      groups && groups.getInt() > 1) {
    info.tileWarps = info.numWarps;
    info.numWarps *= groups.getInt();
  }
  if (auto extra = func->getAttrOfType<IntegerAttr>("tcc.producer_warps"))
    info.numWarps += extra.getInt();
  if (info.getSharedBytes() > maxSharedBytes) {
    func.emitOpError("needs ")
        << info.getSharedBytes()
        << " bytes of workgroup memory, more than the target's "
        << maxSharedBytes
        << " (#tile.target max_shared_bytes); use fewer stages or smaller "
           "blocks";
    return failure();
  }
  info.dynamicShared = info.getSharedBytes() > kMaxStaticSharedBytes;
  return info;
}

//===----------------------------------------------------------------------===//
// tile.func / tile.return
//===----------------------------------------------------------------------===//

namespace {

/// Whether a memref argument can stay as it is under the bare-pointer
/// calling convention (static shape, strides and offset).
static bool isBarePointerCompatible(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

struct FuncOpLowering : public OpConversionPattern<tile::FuncOp> {
  FuncOpLowering(const TypeConverter &converter, MLIRContext *ctx,
                 const KernelInfo &info)
      : OpConversionPattern(converter, ctx), info(info) {}

  LogicalResult
  matchAndRewrite(tile::FuncOp func, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = func.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    rewriter.setInsertionPoint(func);
    auto gpuModule = gpu::GPUModuleOp::create(
        rewriter, loc, (func.getSymName() + "_module").str());
    rewriter.setInsertionPointToStart(gpuModule.getBody());

    // New signature: memrefs the bare-pointer convention cannot pass become
    // memref<1xT> plus one index per dynamic size, stride and offset.
    struct ArgPlan {
      unsigned first = 0, count = 1;
      MemRefType view; // set when the memref is rebuilt in the kernel
    };
    SmallVector<ArgPlan> plans;
    SmallVector<Type> argTypes;
    for (Type type : func.getArgumentTypes()) {
      ArgPlan plan;
      plan.first = argTypes.size();
      auto memref = dyn_cast<MemRefType>(type);
      if (memref && !isBarePointerCompatible(memref)) {
        plan.view = memref;
        argTypes.push_back(MemRefType::get({1}, memref.getElementType(),
                                           MemRefLayoutAttrInterface(),
                                           memref.getMemorySpace()));
        SmallVector<int64_t> strides;
        int64_t offset;
        if (failed(memref.getStridesAndOffset(strides, offset)))
          return rewriter.notifyMatchFailure(func, "non-strided memref");
        int64_t extra = memref.getNumDynamicDims();
        if (!memref.getLayout().isIdentity())
          extra += llvm::count_if(strides, ShapedType::isDynamic) +
                   ShapedType::isDynamic(offset);
        argTypes.append(extra, rewriter.getIndexType());
        plan.count = 1 + extra;
      } else {
        argTypes.push_back(getTypeConverter()->convertType(type));
      }
      plans.push_back(plan);
    }
    SmallVector<MemRefType> buffers =
        info.getWorkgroupBufferTypes(rewriter.getContext());
    SmallVector<Type> workgroup;
    if (!info.dynamicShared)
      workgroup.assign(buffers.begin(), buffers.end());
    auto gpuFunc = gpu::GPUFuncOp::create(
        rewriter, loc, func.getSymName(),
        rewriter.getFunctionType(argTypes, {}), workgroup);
    unsigned threads = info.numWarps * info.warpSize;
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     rewriter.getUnitAttr());
    gpuFunc.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    gpuFunc->setAttr("tcc.num_warps", rewriter.getI32IntegerAttr(info.numWarps));
    gpuFunc->setAttr("tcc.threads", rewriter.getI32IntegerAttr(threads));
    gpuFunc->setAttr("tcc.grid_rank", func.getGridRankAttr());
    // 16-byte aligned buffers: vector accesses and ldmatrix rows need it.
    for (unsigned i = 0; i < workgroup.size(); ++i)
      gpuFunc.setWorkgroupAttributionAttr(
          i, rewriter.getStringAttr(LLVM::LLVMDialect::getAlignAttrName()),
          rewriter.getI64IntegerAttr(info.getBufferAlignment(i)));
    // Arguments keep their attributes (a TMA tensor map's llvm.byval and
    // nvvm.grid_constant); tensor maps are described for the runtime.
    for (auto [i, plan] : llvm::enumerate(plans))
      if (DictionaryAttr attrs = func.getArgAttrDict(i))
        gpuFunc.setArgAttrs(plan.first, attrs);
    for (StringRef name :
         {"tcc.tensor_maps", "tcc.producer_warps", "tcc.consumer_groups",
          "tcc.cluster", "tcc.workspace"})
      if (Attribute attr = func->getAttr(name))
        gpuFunc->setAttr(name, attr);
    gpuFunc->setAttr("tcc.shared_bytes",
                     rewriter.getI32IntegerAttr(info.getSharedBytes()));
    if (info.dynamicShared)
      gpuFunc->setAttr("tcc.dynamic_shared_bytes",
                       rewriter.getI32IntegerAttr(info.getSharedBytes()));
    if (DictionaryAttr constexprs = func.getConstexprsAttr())
      gpuFunc->setAttr("tcc.constexprs", constexprs);

    // Values replacing the old arguments.
    Block *entry = &gpuFunc.getBody().front();
    rewriter.setInsertionPointToStart(entry);
    if (info.dynamicShared) {
      // Every buffer is a view of the one dynamic shared-memory array, at
      // 16-byte aligned offsets (the packing getSharedBytes counts).
      auto bytesType = MemRefType::get(
          {ShapedType::kDynamic}, rewriter.getI8Type(),
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(
              ctx, gpu::GPUDialect::getWorkgroupAddressSpace()));
      Value base = gpu::DynamicSharedMemoryOp::create(rewriter, loc, bytesType);
      SmallVector<int64_t> offsets = info.getBufferOffsets(ctx);
      for (auto [i, type] : llvm::enumerate(buffers)) {
        Value at = arith::ConstantIndexOp::create(rewriter, loc, offsets[i]);
        auto view = memref::ViewOp::create(rewriter, loc, type, base, at,
                                           ValueRange{});
        view->setAttr(kBufferIndexAttr, rewriter.getI64IntegerAttr(i));
      }
    }
    SmallVector<Value> replacements;
    for (auto [i, plan] : llvm::enumerate(plans)) {
      Value first = entry->getArgument(plan.first);
      if (!plan.view) {
        replacements.push_back(first);
        continue;
      }
      replacements.push_back(rebuildMemRef(
          rewriter, loc, plan.view, first,
          entry->getArguments().slice(plan.first + 1, plan.count - 1)));
    }
    Block *oldEntry = &func.getBody().front();
    rewriter.inlineRegionBefore(func.getBody(), gpuFunc.getBody(),
                                gpuFunc.getBody().end());
    rewriter.mergeBlocks(oldEntry, entry, replacements);
    rewriter.eraseOp(func);
    return success();
  }

  /// `memref.reinterpret_cast` of the base pointer to the original view.
  static Value rebuildMemRef(OpBuilder &b, Location loc, MemRefType view,
                             Value base, ValueRange extra) {
    SmallVector<int64_t> strides;
    int64_t offset;
    (void)view.getStridesAndOffset(strides, offset);
    unsigned next = 0;
    SmallVector<OpFoldResult> sizes, strideValues;
    for (int64_t size : view.getShape())
      sizes.push_back(ShapedType::isDynamic(size)
                          ? OpFoldResult(extra[next++])
                          : OpFoldResult(b.getIndexAttr(size)));
    OpFoldResult offsetValue = b.getIndexAttr(0);
    if (view.getLayout().isIdentity()) {
      // Row-major strides from the sizes.
      OpFoldResult stride = b.getIndexAttr(1);
      strideValues.assign(view.getRank(), OpFoldResult());
      for (int64_t d = view.getRank() - 1; d >= 0; --d) {
        strideValues[d] = stride;
        if (d == 0)
          break;
        auto mul = [&](OpFoldResult x) -> Value {
          if (auto v = dyn_cast<Value>(x))
            return v;
          return arith::ConstantIndexOp::create(
              b, loc, cast<IntegerAttr>(cast<Attribute>(x)).getInt());
        };
        if (isa<Attribute>(stride) && isa<Attribute>(sizes[d]))
          stride = b.getIndexAttr(
              cast<IntegerAttr>(cast<Attribute>(stride)).getInt() *
              cast<IntegerAttr>(cast<Attribute>(sizes[d])).getInt());
        else
          stride = OpFoldResult(
              arith::MulIOp::create(b, loc, mul(stride), mul(sizes[d]))
                  .getResult());
      }
    } else {
      for (int64_t stride : strides)
        strideValues.push_back(ShapedType::isDynamic(stride)
                                   ? OpFoldResult(extra[next++])
                                   : OpFoldResult(b.getIndexAttr(stride)));
      offsetValue = ShapedType::isDynamic(offset)
                        ? OpFoldResult(extra[next++])
                        : OpFoldResult(b.getIndexAttr(offset));
    }
    return memref::ReinterpretCastOp::create(b, loc, view, base, offsetValue,
                                             sizes, strideValues);
  }

  const KernelInfo &info;
};

struct ReturnOpLowering : public OpConversionPattern<tile::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTileToGPUPass
    : public tcc::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (failed(tcc::checkOptionRange(module, "convert-tile-to-gpu", "num-warps",
                                defaultNumWarps, 1, 32, /*powerOfTwo=*/true)))
      return signalPassFailure();
    SmallVector<tile::FuncOp> funcs(module.getOps<tile::FuncOp>());
    if (funcs.empty())
      return;
    FailureOr<tile::TargetAttr> gpuTarget =
        tile::requireTarget(module, "convert-tile-to-gpu");
    if (failed(gpuTarget))
      return signalPassFailure();
    unsigned warpSize = gpuTarget->getWarpSize();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));
    for (tile::FuncOp func : funcs) {
      TileTypeConverter converter(ctx, warpSize);
      FailureOr<KernelInfo> info =
          analyzeKernel(func, converter, defaultNumWarps,
                        gpuTarget->getAsyncCopy(),
                        gpuTarget->getMaxSharedBytes());
      if (failed(info))
        return signalPassFailure();
      std::string kernelName = func.getSymName().str();
      std::string moduleName = kernelName + "_module";

      RewritePatternSet patterns(ctx);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<tile::TileDialect>();
      target.addLegalOp<gpu::GPUModuleOp, gpu::GPUFuncOp>();
      target.markUnknownOpDynamicallyLegal(
          [&](Operation *op) { return converter.isLegal(op); });
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      patterns.add<FuncOpLowering>(converter, ctx, *info);
      patterns.add<ReturnOpLowering>(converter, ctx);
      populateTileToGPUCorePatterns(converter, *info, patterns);
      populateTileToGPUMemoryPatterns(converter, *info, patterns);
      populateTileToGPUReducePatterns(converter, *info, patterns);
      populateTileToGPUMmaPatterns(converter, *info, patterns);
      populateTileToGPUStagingPatterns(converter, *info, patterns);
      populateTileToGPUFmaPatterns(converter, *info, patterns);
      populateTileToGPUTmaPatterns(converter, *info, patterns);
      populateTileToGPUWgmmaPatterns(converter, *info, patterns);
      if (failed(applyPartialConversion(func.getOperation(), target,
                                        std::move(patterns))))
        return signalPassFailure();

      // Host programs (tcc.launch steps) now launch the kernel's gpu.func.
      auto nested = SymbolRefAttr::get(
          ctx, moduleName, {FlatSymbolRefAttr::get(ctx, kernelName)});
      module.walk([&](Operation *op) {
        auto callee = op->getAttrOfType<FlatSymbolRefAttr>("callee");
        if (op->getName().getStringRef() == "tcc.launch" && callee &&
            callee.getValue() == kernelName)
          op->setAttr("callee", nested);
      });

      // Fold the bounds checks that are static (thread ids are bounded by
      // the known block size), share the thread-id math.
      auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(moduleName);
      OpPassManager cleanup(gpu::GPUModuleOp::getOperationName());
      cleanup.addPass(createCanonicalizerPass());
      cleanup.addPass(arith::createIntRangeOptimizationsPass());
      cleanup.addPass(createCanonicalizerPass());
      cleanup.addPass(createCSEPass());
      if (!gpuModule)
        continue;
      eraseRedundantBarriers(gpuModule);
      if (gpuTarget->expandsMath() && failed(expandMathOps(gpuModule))) {
        gpuModule.emitError("convert-tile-to-gpu: expanding math ops failed");
        return signalPassFailure();
      }
      if (failed(runPipeline(cleanup, gpuModule)))
        return signalPassFailure();
    }
  }
};

} // namespace
