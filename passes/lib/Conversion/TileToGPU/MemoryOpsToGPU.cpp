//===- MemoryOpsToGPU.cpp - pointers, loads and stores --------------------===//
//
// Memref form (tile.memref_load / tile.memref_store): each thread moves its
// runs of contiguous elements along the layout's fastest dim. A run is at
// most 16 bytes; it is one vector.load / vector.store (aligned to its size)
// when it is in bounds, unmasked and aligned, and element by element under
// scf.if otherwise (tails, masks, odd strides).
//
// tile.memref_gather: one scalar load per element, under its bounds test;
// runs of consecutive indices (contiguity analysis) as one vector load when
// aligned and in bounds.
//
// Pointer form (tile.addptr / tile.load / tile.store): llvm.getelementptr on
// the per-thread vector of pointers. Where the contiguity analysis proves a
// thread's run points at consecutive elements, the run is one vector
// llvm.load / llvm.store when its first pointer is aligned and its mask all
// set; otherwise (and for other tiles) one llvm.load / llvm.store per
// element, under scf.if when masked.
//
//===----------------------------------------------------------------------===//
#include "MemRefAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tcc;
using namespace mlir::tcc::tile_to_gpu;

/// And-reduction of `mask[first, first + count)` (null mask: null).
static Value maskAllOf(OpBuilder &b, Location loc, Value mask, int64_t first,
                       int64_t count) {
  if (!mask)
    return {};
  if (count == 1)
    return vector::ExtractOp::create(b, loc, mask, first);
  Value slice = vector::ExtractStridedSliceOp::create(
      b, loc, mask, ArrayRef<int64_t>{first}, ArrayRef<int64_t>{count},
      ArrayRef<int64_t>{1});
  return vector::ReductionOp::create(b, loc, vector::CombiningKind::AND, slice);
}

static Value andOpt(OpBuilder &b, Location loc, Value a, Value maybe) {
  return maybe ? arith::AndIOp::create(b, loc, a, maybe) : a;
}

/// The per-thread vector of a memref-form load of a `shape` window at
/// `offsets` distributed as `layout` (see the file comment).
Value mlir::tcc::tile_to_gpu::emitMemRefLoad(OpBuilder &b, Location loc,
                                             const TileLayout &layout,
                                             VectorType vecType,
                                             ArrayRef<int64_t> shape,
                                             Value memref, ValueRange offsets,
                                             ArrayRef<int64_t> offsetDivisors,
                                             Value mask, Value other,
                                             const KernelInfo &info,
                                             const ThreadIds *ids,
                                             bool interiorFirst) {
  Type elem = vecType.getElementType();
  MemRefAccessPlan plan(b, loc, layout, memref, offsets, info,
                        offsetDivisors, ids);
  int64_t width = plan.getWidth();
  VectorType runType = VectorType::get({width}, elem);

  // Element by element: scf.if (in bounds && mask) load else other.
  auto slowRun = [&](OpBuilder &b, Location loc,
                     ArrayRef<Value> indices, int64_t first) -> Value {
    SmallVector<Value> elems;
    for (int64_t i = 0; i < width; ++i) {
      SmallVector<Value> at = plan.shifted(indices, i);
      Value cond = andOpt(b, loc, plan.inBounds(at, 1),
                          mask ? vector::ExtractOp::create(b, loc, mask,
                                                           first + i)
                                     .getResult()
                               : Value());
      auto ifOp = scf::IfOp::create(
          b, loc, cond,
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(
                b, loc, memref::LoadOp::create(b, loc, memref, at).getResult());
          },
          [&](OpBuilder &b, Location loc) {
            Value fallback =
                other ? vector::ExtractOp::create(b, loc, other, first + i)
                            .getResult()
                      : emitZero(b, loc, elem);
            scf::YieldOp::create(b, loc, fallback);
          });
      elems.push_back(ifOp.getResult(0));
    }
    if (width == 1)
      return elems.front();
    return vector::FromElementsOp::create(b, loc, runType, elems);
  };

  Value init = other ? other
                     : arith::ConstantOp::create(
                           b, loc,
                           cast<TypedAttr>(b.getZeroAttr(vecType)))
                           .getResult();
  // Run by run: a vector load when the run is in bounds, aligned and
  // unmasked, element by element otherwise.
  auto loadRunByRun = [&]() {
    Value result = init;
    for (int64_t run = 0; run < plan.getNumRuns(); ++run) {
      int64_t first = run * width;
      SmallVector<Value> indices = plan.indicesOf(first);
      if (width == 1) {
        result = vector::InsertOp::create(
            b, loc, slowRun(b, loc, indices, first), result,
            first);
        continue;
      }
      Value fast = plan.fastPath(
          indices, maskAllOf(b, loc, mask, first, width));
      auto ifOp = scf::IfOp::create(
          b, loc, fast,
          [&](OpBuilder &b, Location loc) {
            auto load = vector::LoadOp::create(b, loc, runType,
                                               plan.accessMemRef(),
                                               plan.accessIndices(indices));
            load.setAlignment(plan.getAlignment());
            scf::YieldOp::create(b, loc, load.getResult());
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, slowRun(b, loc, indices, first));
          });
      result = vector::InsertStridedSliceOp::create(
          b, loc, ifOp.getResult(0), result,
          ArrayRef<int64_t>{first}, ArrayRef<int64_t>{1});
    }
    return result;
  };
  // With several vector runs per thread (GEMM operand slices), one test
  // for the whole window first: interior tiles (most of them) then issue
  // their vector loads back to back, with no per-run branches. (With one
  // or two runs the extra branch measured slower.)
  // (`interiorFirst`: scalar runs too, for a copy whose windows are
  // nearly all interior.)
  if (mask || plan.getNumRuns() < 4 || (width == 1 && !interiorFirst)) {
    return loadRunByRun();
  }
  Value windowOk =
      plan.windowFastPath(shape, offsets);
  auto ifOp = scf::IfOp::create(
      b, loc, windowOk,
      [&](OpBuilder &b, Location loc) {
        Value result = init;
        for (int64_t run = 0; run < plan.getNumRuns(); ++run) {
          int64_t first = run * width;
          SmallVector<Value> indices = plan.indicesOf(first);
          if (width == 1) {
            result = vector::InsertOp::create(
                b, loc, memref::LoadOp::create(b, loc, memref, indices),
                result, first);
            continue;
          }
          auto load = vector::LoadOp::create(
              b, loc, runType, plan.accessMemRef(),
              plan.accessIndices(indices));
          load.setAlignment(plan.getAlignment());
          result = vector::InsertStridedSliceOp::create(
              b, loc, load.getResult(), result, ArrayRef<int64_t>{first},
              ArrayRef<int64_t>{1});
        }
        scf::YieldOp::create(b, loc, result);
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, loadRunByRun());
      });
  return ifOp.getResult(0);
}

namespace {

struct MemRefLoadLowering : public TilePattern<tile::MemRefLoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MemRefLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, emitMemRefLoad(rewriter, op.getLoc(), layoutOf(op.getType()),
                           vectorTypeOf(op.getType()), op.getType().getShape(),
                           adaptor.getMemref(), adaptor.getOffsets(),
                           info.getOffsetDivisors(op), adaptor.getMask(),
                           adaptor.getOther(), info));
    return success();
  }
};

struct MemRefStoreLowering : public TilePattern<tile::MemRefStoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MemRefStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TileLayout layout = layoutOf(op.getValue().getType());
    Value memref = adaptor.getMemref(), mask = adaptor.getMask(),
          value = adaptor.getValue();
    MemRefAccessPlan plan(rewriter, loc, layout, memref, adaptor.getOffsets(),
                          info, info.getOffsetDivisors(op));
    int64_t width = plan.getWidth();

    auto slowRun = [&](OpBuilder &b, Location loc, ArrayRef<Value> indices,
                       int64_t first) {
      for (int64_t i = 0; i < width; ++i) {
        SmallVector<Value> at = plan.shifted(indices, i);
        Value cond = andOpt(b, loc, plan.inBounds(at, 1),
                            mask ? vector::ExtractOp::create(b, loc, mask,
                                                             first + i)
                                       .getResult()
                                 : Value());
        scf::IfOp::create(b, loc, cond, [&](OpBuilder &b, Location loc) {
          Value v = vector::ExtractOp::create(b, loc, value, first + i);
          memref::StoreOp::create(b, loc, v, memref, at);
          scf::YieldOp::create(b, loc);
        });
      }
    };

    for (int64_t run = 0; run < plan.getNumRuns(); ++run) {
      int64_t first = run * width;
      SmallVector<Value> indices = plan.indicesOf(first);
      if (width == 1) {
        slowRun(rewriter, loc, indices, first);
        continue;
      }
      Value fast = plan.fastPath(indices,
                                 maskAllOf(rewriter, loc, mask, first, width));
      scf::IfOp::create(
          rewriter, loc, fast,
          [&](OpBuilder &b, Location loc) {
            Value chunk = vector::ExtractStridedSliceOp::create(
                b, loc, value, ArrayRef<int64_t>{first},
                ArrayRef<int64_t>{width}, ArrayRef<int64_t>{1});
            auto store = vector::StoreOp::create(b, loc, chunk,
                                                 plan.accessMemRef(),
                                                 plan.accessIndices(indices));
            store.setAlignment(plan.getAlignment());
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            slowRun(b, loc, indices, first);
            scf::YieldOp::create(b, loc);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

static int64_t runWidthOf(const KernelInfo &info, Operation *op);

/// A thread's vector of `vecType` loaded in runs of `width` elements: the
/// run at `first` starts at `runStart(first)` (an address or an index) and
/// is one `vectorLoad` of it when `fastPath(first, start)` holds, else its
/// elements (`elementsOf(first, count)`) under scf.if; with `width == 1`
/// every element is loaded alone.
static Value loadByRuns(
    OpBuilder &b, Location loc, VectorType vecType, int64_t width,
    function_ref<Value(int64_t)> runStart,
    function_ref<Value(int64_t, Value)> fastPath,
    function_ref<Value(OpBuilder &, Location, VectorType, Value)> vectorLoad,
    function_ref<SmallVector<Value>(OpBuilder &, Location, int64_t, int64_t)>
        elementsOf) {
  if (width == 1)
    return vector::FromElementsOp::create(
        b, loc, vecType, elementsOf(b, loc, 0, vecType.getNumElements()));
  VectorType runType = VectorType::get({width}, vecType.getElementType());
  Value result = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(vecType)));
  for (int64_t first = 0; first < vecType.getNumElements(); first += width) {
    Value start = runStart(first);
    auto ifOp = scf::IfOp::create(
        b, loc, fastPath(first, start),
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(nb, l, vectorLoad(nb, l, runType, start));
        },
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(
              nb, l,
              vector::FromElementsOp::create(nb, l, runType,
                                             elementsOf(nb, l, first, width))
                  .getResult());
        });
    result = vector::InsertStridedSliceOp::create(
        b, loc, ifOp.getResult(0), result, ArrayRef<int64_t>{first},
        ArrayRef<int64_t>{1});
  }
  return result;
}

/// Element by element: `index < size ? memref[index] : 0`, one scalar load
/// each (the bounds test folds away where the index's range is known, as
/// `i % n` on an n-element memref, and is not emitted for an `in_bounds`
/// gather). Where the contiguity analysis proves a
/// thread's run of indices consecutive, the run is one vector.load when its
/// first index is a multiple of the run (the memref's base is 16-byte
/// aligned: the launcher checks its arguments) and the run is in bounds.
struct MemRefGatherLowering : public TilePattern<tile::MemRefGatherOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MemRefGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType vecType = vectorTypeOf(op.getType());
    Type elem = vecType.getElementType();
    Value memref = adaptor.getMemref(), indices = adaptor.getIndices();
    Value size = memref::DimOp::create(rewriter, loc, memref, 0);
    auto indexAt = [&](OpBuilder &b, Location loc, int64_t e) -> Value {
      Value index = vector::ExtractOp::create(b, loc, indices, e);
      if (!index.getType().isIndex())
        index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), index);
      return index;
    };
    bool inBoundsByBuild = op.getInBounds();
    auto elementsOf = [&](OpBuilder &b, Location loc, int64_t first,
                          int64_t count) {
      SmallVector<Value> elems;
      for (int64_t e = first; e < first + count; ++e) {
        Value index = indexAt(b, loc, e);
        if (inBoundsByBuild) {
          elems.push_back(memref::LoadOp::create(b, loc, memref, index));
          continue;
        }
        Value inBounds = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, index, size);
        auto ifOp = scf::IfOp::create(
            b, loc, inBounds,
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(
                  b, loc, memref::LoadOp::create(b, loc, memref, index)
                              .getResult());
            },
            [&](OpBuilder &b, Location loc) {
              scf::YieldOp::create(b, loc, emitZero(b, loc, elem));
            });
        elems.push_back(ifOp.getResult(0));
      }
      return elems;
    };
    int64_t width = runWidthOf(info, op);
    int64_t bytes = width * elem.getIntOrFloatBitWidth() / 8;
    Value widthIndex = arith::ConstantIndexOp::create(rewriter, loc, width);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value result = loadByRuns(
        rewriter, loc, vecType, width,
        [&](int64_t first) { return indexAt(rewriter, loc, first); },
        [&](int64_t, Value start) -> Value {
          Value aligned = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(rewriter, loc, start, widthIndex), zero);
          // start + width <= size, as start < size - width + 1 (no overflow).
          Value last = arith::AddIOp::create(rewriter, loc, start, widthIndex);
          Value inBounds = arith::AndIOp::create(
              rewriter, loc,
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule,
                                    last, size),
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                    start, last));
          return arith::AndIOp::create(rewriter, loc, aligned, inBounds);
        },
        [&](OpBuilder &b, Location loc, VectorType runType,
            Value start) -> Value {
          auto load =
              vector::LoadOp::create(b, loc, runType, memref, ValueRange{start});
          load.setAlignment(bytes);
          return load;
        },
        elementsOf);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pointer form
//===----------------------------------------------------------------------===//

struct AddPtrLowering : public TilePattern<tile::AddPtrOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type ptrType = op.getType();
    if (auto tile = dyn_cast<RankedTensorType>(ptrType))
      ptrType = tile.getElementType();
    Type pointee = getTypeConverter()->convertType(
        cast<tile::PtrType>(ptrType).getPointeeType());
    Type resultType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, resultType, pointee,
                                             adaptor.getPtr(),
                                             ValueRange{adaptor.getOffset()});
    return success();
  }
};

/// Loads through one pointer: `mask ? *ptr : other`.
static Value emitGuardedLoad(OpBuilder &b, Location loc, Type type, Value ptr,
                             Value mask, Value other) {
  if (!mask)
    return LLVM::LoadOp::create(b, loc, type, ptr);
  auto ifOp = scf::IfOp::create(
      b, loc, mask,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc,
                             LLVM::LoadOp::create(b, loc, type, ptr).getResult());
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, other ? other : emitZero(b, loc, type));
      });
  return ifOp.getResult(0);
}

static void emitGuardedStore(OpBuilder &b, Location loc, Value value,
                             Value ptr, Value mask) {
  if (!mask) {
    LLVM::StoreOp::create(b, loc, value, ptr);
    return;
  }
  scf::IfOp::create(b, loc, mask, [&](OpBuilder &b, Location loc) {
    LLVM::StoreOp::create(b, loc, value, ptr);
    scf::YieldOp::create(b, loc);
  });
}

static Value elementOf(OpBuilder &b, Location loc, Value vec, int64_t e) {
  return vec ? vector::ExtractOp::create(b, loc, vec, e).getResult() : Value();
}

/// Whether `ptr` (a pointer) is aligned to `bytes`.
static Value isAligned(OpBuilder &b, Location loc, Value ptr, int64_t bytes) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
  Value low = arith::AndIOp::create(
      b, loc, addr, arith::ConstantIntOp::create(b, loc, bytes - 1, 64));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, low,
      arith::ConstantIntOp::create(b, loc, 0, 64));
}

/// The run width the kernel analysis found for a pointer-form access.
static int64_t runWidthOf(const KernelInfo &info, Operation *op) {
  auto it = info.pointerRunWidth.find(op);
  return it == info.pointerRunWidth.end() ? 1 : it->second;
}

/// Pointer-form loads. A run of `width` consecutive elements (contiguity
/// analysis) is one vector llvm.load when its first pointer is aligned to the
/// run's size and its mask is all set, element by element otherwise.
struct LoadLowering : public TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = getTypeConverter()->convertType(op.getType());
    Value ptr = adaptor.getPtr(), mask = adaptor.getMask(),
          other = adaptor.getOther();
    auto vecType = dyn_cast<VectorType>(type);
    if (!vecType) {
      rewriter.replaceOp(op, emitGuardedLoad(rewriter, loc, type, ptr, mask,
                                             other));
      return success();
    }
    Type elem = vecType.getElementType();
    int64_t width = runWidthOf(info, op);
    auto elementsOf = [&](OpBuilder &b, Location loc, int64_t first,
                          int64_t count) {
      SmallVector<Value> elems;
      for (int64_t e = first; e < first + count; ++e)
        elems.push_back(emitGuardedLoad(b, loc, elem, elementOf(b, loc, ptr, e),
                                        elementOf(b, loc, mask, e),
                                        elementOf(b, loc, other, e)));
      return elems;
    };
    int64_t bytes = width * elem.getIntOrFloatBitWidth() / 8;
    Value result = loadByRuns(
        rewriter, loc, vecType, width,
        [&](int64_t first) { return elementOf(rewriter, loc, ptr, first); },
        [&](int64_t first, Value start) {
          Value fast = isAligned(rewriter, loc, start, bytes);
          if (Value all = maskAllOf(rewriter, loc, mask, first, width))
            fast = arith::AndIOp::create(rewriter, loc, fast, all);
          return fast;
        },
        [&](OpBuilder &b, Location loc, VectorType runType,
            Value start) -> Value {
          return LLVM::LoadOp::create(b, loc, runType, start, bytes);
        },
        elementsOf);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Pointer-form stores, vectorized like LoadLowering.
struct StoreLowering : public TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ptr = adaptor.getPtr(), mask = adaptor.getMask(),
          value = adaptor.getValue();
    auto vecType = dyn_cast<VectorType>(value.getType());
    if (!vecType) {
      emitGuardedStore(rewriter, loc, value, ptr, mask);
      rewriter.eraseOp(op);
      return success();
    }
    auto storeElements = [&](OpBuilder &b, Location loc, int64_t first,
                             int64_t count) {
      for (int64_t e = first; e < first + count; ++e)
        emitGuardedStore(b, loc, elementOf(b, loc, value, e),
                         elementOf(b, loc, ptr, e), elementOf(b, loc, mask, e));
    };
    int64_t width = runWidthOf(info, op);
    if (width == 1) {
      storeElements(rewriter, loc, 0, vecType.getNumElements());
      rewriter.eraseOp(op);
      return success();
    }
    int64_t bytes = width * vecType.getElementType().getIntOrFloatBitWidth() / 8;
    for (int64_t first = 0; first < vecType.getNumElements(); first += width) {
      Value start = elementOf(rewriter, loc, ptr, first);
      Value fast = isAligned(rewriter, loc, start, bytes);
      if (Value all = maskAllOf(rewriter, loc, mask, first, width))
        fast = arith::AndIOp::create(rewriter, loc, fast, all);
      scf::IfOp::create(
          rewriter, loc, fast,
          [&](OpBuilder &b, Location loc) {
            Value chunk = vector::ExtractStridedSliceOp::create(
                b, loc, value, ArrayRef<int64_t>{first},
                ArrayRef<int64_t>{width}, ArrayRef<int64_t>{1});
            LLVM::StoreOp::create(b, loc, chunk, start, bytes);
            scf::YieldOp::create(b, loc);
          },
          [&](OpBuilder &b, Location loc) {
            storeElements(b, loc, first, width);
            scf::YieldOp::create(b, loc);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tcc::tile_to_gpu::populateTileToGPUMemoryPatterns(
    TileTypeConverter &converter, const KernelInfo &info,
    RewritePatternSet &patterns) {
  patterns.add<MemRefLoadLowering, MemRefStoreLowering, MemRefGatherLowering,
               AddPtrLowering,
               LoadLowering, StoreLowering>(converter, info);
}
