//===- MatmulKernel.cpp - tensor-core GEMM as a tile program --------------===//
//
// A [parallel, parallel, reduction] linalg.generic with the matmul maps
// (A: (m, k), B: (k, n), C: (m, n)) and a multiply-add body becomes a
// block-tiled tile program: each program owns a BM x BN block of C (grouped
// rasterization keeps A's row blocks hot in L2), walks K in BK steps,
// stages the A and B slices through shared memory (pipelined later by
// tcc-promote-shared-memory) and multiplies them with tile.dot on mma
// layouts; an elementwise consumer of the product (bias,
// activation, cast) runs on the accumulator before the one store.
//
//===----------------------------------------------------------------------===//
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

constexpr int64_t kBlockK = 32;
constexpr int64_t kGroupM = 8; // row blocks per rasterization group

/// Blocked layout for a [rows, cols] 16-bit tile loaded with 16-byte vectors.
tile::BlockedEncodingAttr operandLayout(MLIRContext *ctx, int64_t cols,
                                        unsigned warpSize, unsigned warps) {
  unsigned vec = 8;
  unsigned tpwN = std::min<int64_t>(warpSize, cols / vec);
  return tile::BlockedEncodingAttr::get(ctx, {1, vec},
                                        {warpSize / tpwN, tpwN}, {warps, 1},
                                        {1, 0});
}

bool isMatmul(linalg::GenericOp op) {
  unsigned loops = op.getNumLoops();
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      (loops != 3 && loops != 4))
    return false;
  SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
  for (unsigned i = 0; i + 1 < loops; ++i)
    if (it[i] != utils::IteratorType::parallel)
      return false;
  if (it.back() != utils::IteratorType::reduction)
    return false;
  MLIRContext *ctx = op.getContext();
  // (b,) m, n, k: a batch dim leads every operand.
  bool batched = loops == 4;
  auto d = [&](unsigned i) { return getAffineDimExpr(i + batched, ctx); };
  auto map = [&](AffineExpr x, AffineExpr y) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.push_back(getAffineDimExpr(0, ctx));
    results.append({x, y});
    return AffineMap::get(loops, 0, results, ctx);
  };
  AffineExpr m = d(0), n = d(1), k = d(2);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  return maps[0] == map(m, k) && maps[1] == map(k, n) && maps[2] == map(m, n);
}

/// (pid_m, pid_n) of this program under grouped rasterization: programs walk
/// kGroupM row blocks down a column of blocks before moving right, so
/// consecutive programs share B's column block and A's rows stay in L2.
std::pair<Value, Value> groupedProgramIds(OpBuilder &b, Location loc, Value pid,
                                          int64_t blocksM, int64_t blocksN) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value perGroup = c(kGroupM * blocksN);
  Value group = arith::DivUIOp::create(b, loc, pid, perGroup);
  Value firstM = arith::MulIOp::create(b, loc, group, c(kGroupM));
  Value groupRows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(blocksM), firstM), c(kGroupM));
  Value inGroup = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value pidM = arith::AddIOp::create(
      b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value pidN = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {pidM, pidN};
}

/// `v` with extf / truncf casts peeled off.
Value stripFloatCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the body of `op` is `out + a * b` (a, b the two inputs, possibly
/// cast): what both GEMM schedules compute.
bool isMultiplyAdd(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add =
      stripFloatCasts(yield.getValues()[0]).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value lhs = stripFloatCasts(add.getLhs()), rhs = stripFloatCasts(add.getRhs());
  Value product = lhs == out ? rhs : rhs == out ? lhs : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  Value x = stripFloatCasts(mul.getLhs()), y = stripFloatCasts(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

} // namespace

FailureOr<GemmProgram> GemmProgram::get(linalg::GenericOp op) {
  if (!isMultiplyAdd(op))
    return op.emitOpError("matmul body is not a multiply-add (out + a * b); "
                          "convert-linalg-to-tile cannot schedule it");
  FailureOr<Value> fill = getFillValue(op.getDpsInits()[0]);
  auto constant = succeeded(fill)
                      ? fill->getDefiningOp<arith::ConstantOp>()
                      : arith::ConstantOp();
  auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  if (!value)
    return op.emitOpError(
        "matmul accumulator init is not a constant float fill");
  GemmProgram program;
  program.op = op;
  program.init = value.getValueAsDouble();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A batched matmul runs batch x blocks programs, each on its batch's 2-D
  // [m, k], [k, n] and [m, n] slices.
  program.batched = ranges.size() == 4;
  unsigned lead = program.batched;
  program.batch = program.batched ? ranges[0] : 1;
  program.m = ranges[lead];
  program.n = ranges[lead + 1];
  program.k = ranges[lead + 2];
  return program;
}

FailureOr<Value> GemmProgram::begin(OpBuilder &b, Location loc,
                                    int64_t blockM, int64_t blockN,
                                    ArrayRef<Value> inputArgs,
                                    RankedTensorType accType) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  int64_t blocksM = llvm::divideCeil(m, blockM);
  int64_t blocksN = llvm::divideCeil(n, blockN);
  blocks = blocksM * blocksN;
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  if (batched) {
    batchIndex = arith::DivUIOp::create(b, loc, pid, c(blocks));
    pid = arith::RemUIOp::create(b, loc, pid, c(blocks));
  }
  auto [pidM, pidN] = groupedProgramIds(b, loc, pid, blocksM, blocksN);
  m0 = arith::MulIOp::create(b, loc, pidM, c(blockM));
  n0 = arith::MulIOp::create(b, loc, pidN, c(blockN));
  FailureOr<Value> a = lookupInput(op.getDpsInputs()[0], inputArgs, op);
  FailureOr<Value> bm = lookupInput(op.getDpsInputs()[1], inputArgs, op);
  if (failed(a) || failed(bm))
    return failure();
  memA = slice(b, loc, *a);
  memB = slice(b, loc, *bm);
  Value fill = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(accType.getElementType(), init));
  return tile::SplatOp::create(b, loc, accType, fill).getResult();
}

Value GemmProgram::emitMainLoop(
    OpBuilder &b, Location loc, RankedTensorType sliceA,
    RankedTensorType sliceB,
    function_ref<Value(OpBuilder &, Location, Value)> toShared,
    RankedTensorType operandA, RankedTensorType operandB, Value acc,
    RankedTensorType resultType) const {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  int64_t blockK = sliceA.getDimSize(1);
  auto loop = scf::ForOp::create(
      b, loc, c(0), c(k), c(blockK), ValueRange{acc},
      [&](OpBuilder &lb, Location l, Value kk, ValueRange iter) {
        Value a = tile::MemRefLoadOp::create(lb, l, sliceA, memA,
                                             ValueRange{m0, kk}, Value(),
                                             Value());
        Value bt = tile::MemRefLoadOp::create(lb, l, sliceB, memB,
                                              ValueRange{kk, n0}, Value(),
                                              Value());
        Value as = toShared(lb, l, a), bs = toShared(lb, l, bt);
        Value ao = tile::ConvertLayoutOp::create(lb, l, operandA, as);
        Value bo = tile::ConvertLayoutOp::create(lb, l, operandB, bs);
        Value d = tile::DotOp::create(lb, l, acc.getType(), ao, bo, iter[0]);
        scf::YieldOp::create(lb, l, ValueRange{d});
      });
  Value product = loop.getResult(0);
  if (resultType.getElementType() !=
      cast<RankedTensorType>(acc.getType()).getElementType())
    product = arith::TruncFOp::create(b, loc, resultType, product);
  return product;
}

Value GemmProgram::slice(OpBuilder &b, Location loc, Value memref) const {
  return batched ? sliceBatch(b, loc, memref, batchIndex) : memref;
}

LogicalResult GemmProgram::finish(
    OpBuilder &b, Location loc, Value product, linalg::GenericOp epilogue,
    ArrayRef<Value> inputArgs, const OutputMap &outputs,
    function_ref<FailureOr<Value>(Value, AffineMap, Type)> loadOnAcc,
    function_ref<RankedTensorType(Type)> accTile, int64_t &grid) const {
  // The epilogue runs on the accumulator's layout: no data movement.
  linalg::GenericOp matmul = op;
  TileKernelBuilder::TileResults results{{matmul.getResult(0), product}};
  Operation *producer = matmul;
  if (epilogue) {
    auto load = [&](Value memref, AffineMap map,
                    Type element) -> FailureOr<Value> {
      if (batched) {
        // (b, m, n) -> (b, m, n) reads this batch's slice; maps without b
        // (a bias shared by every batch) read the operand as is.
        bool perBatch = false;
        FailureOr<AffineMap> unbatched =
            unbatchEpilogueMap(epilogue, map, perBatch);
        if (failed(unbatched))
          return failure();
        map = *unbatched;
        if (perBatch)
          memref = slice(b, loc, memref);
      }
      return loadOnAcc(memref, map, element);
    };
    TileKernelBuilder kb(b, loc, BlockSchedule{});
    FailureOr<TileKernelBuilder::TileResults> applied =
        kb.applyEpilogue(matmul, product, epilogue, inputArgs, load, accTile);
    if (failed(applied))
      return failure();
    results = *applied;
    producer = epilogue;
  }
  if (failed(storeResults(b, loc, outputs, results, producer, {m0, n0},
                          [&](Value m) { return slice(b, loc, m); })))
    return failure();
  grid = batch * blocks;
  return success();
}

bool mlir::tcc::isMatmulKernel(linalg::GenericOp op) { return isMatmul(op); }

LogicalResult mlir::tcc::buildMatmulKernel(
    linalg::GenericOp op, linalg::GenericOp epilogue, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const ScheduleOptions &options, int64_t &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1]);
  if (aType != bType || !(aType.isF16() || aType.isBF16()))
    return op.emitOpError()
           << "matmul of " << aType << " x " << bType
           << " has no tensor-core mapping in convert-linalg-to-tile (f16 or "
              "bf16 operands of one type)";
  FailureOr<GemmProgram> program = GemmProgram::get(op);
  if (failed(program))
    return failure();
  Type outType = getElementTypeOrSelf(op.getResult(0));
  int64_t m = program->m, n = program->n;
  // 128 x 128 blocks (num-warps = 4, the default); smaller problems use
  // 64-wide blocks (each warp needs at least one mma tile per dim).
  auto blockFor = [](int64_t size) {
    return std::clamp<int64_t>(llvm::PowerOf2Ceil(size), 64, 128);
  };
  // Each warp computes a 64 x 64 sub-block when the problem allows: 4 warps
  // cover 128 x 128, 8 warps 128 x 256 (more reuse of every loaded tile).
  unsigned warpCount = options.numWarps;
  if (warpCount < 2 || warpCount > 16 || !llvm::isPowerOf2_32(warpCount))
    return op.emitOpError() << "num-warps = " << warpCount
                            << ": a GEMM program needs 2, 4, 8 or 16 warps";
  int64_t blockM = blockFor(m), blockN = blockFor(n);
  if (warpCount == 8 && n >= 256)
    blockN = 256;

  // Warps 2 x (W / 2) over the block: each computes a (BM / 2) x (2 BN / W)
  // sub-block, so one A fragment feeds several n tiles and one B fragment
  // several m tiles.
  unsigned warps = warpCount;
  // The target's tensor-core instruction (#tile.target mma):
  // mma.sync m16n8k16 (NVIDIA; kWidth 2: a lane's k pairs), or
  // v_mfma_f32_32x32x8 / v_mfma_f32_16x16x16 (AMD CDNA, wave64; kWidth 4
  // both: a lane's 4 consecutive k). A 32x32x8 fragment pair is half the
  // operand bytes per flop of a 16x16x16 one: half the MFMA issues for the
  // wave's tile, and its B column reads (32 lanes along one row) are free of
  // the LDS bank conflicts of 16x16's (16 lanes each on rows 4 apart). It is
  // the choice when every wave's share of the block is a multiple of 32 in
  // both dims (the default 128 x 128 block over 2 x 2 waves: 64 x 64 each).
  tile::TargetAttr target = options.target;
  bool has32 = target.hasMma(tile::MmaKind::mfma_32x32x8);
  bool has16 = target.hasMma(tile::MmaKind::mfma_16x16x16);
  bool amd = has32 || has16;
  if (!amd && !target.hasMma(tile::MmaKind::mma_sync_m16n8k16))
    return op.emitOpError() << "target " << target.getArch()
                            << " has no tensor-core instruction this GEMM "
                               "schedule emits";
  unsigned mfmaSize = 16;
  if (amd) {
    bool fits32 = (blockM / 2) % 32 == 0 && (blockN / (warps / 2)) % 32 == 0;
    if (options.mfmaShape == "auto")
      mfmaSize = fits32 && has32 ? 32 : 16;
    else if (options.mfmaShape == "32" && fits32)
      mfmaSize = 32;
    else if (options.mfmaShape == "32")
      return op.emitOpError()
             << "mfma-shape = 32: each wave's share of the " << blockM << " x "
             << blockN << " block (" << blockM / 2 << " x "
             << blockN / (warps / 2) << ") is not a multiple of 32";
    else if (options.mfmaShape != "16")
      return op.emitOpError() << "mfma-shape must be auto, 16 or 32, got '"
                              << options.mfmaShape << "'";
    if ((mfmaSize == 32 && !has32) || (mfmaSize == 16 && !has16))
      return op.emitOpError()
             << "target " << target.getArch() << " has no v_mfma_f32_"
             << (mfmaSize == 32 ? "32x32x8" : "16x16x16")
             << " (#tile.target mma)";
  }
  Attribute mma =
      amd ? Attribute(tile::AMDMfmaEncodingAttr::get(
                ctx, 3, {2, warps / 2}, {mfmaSize, mfmaSize}, false))
          : Attribute(tile::NvidiaMmaEncodingAttr::get(ctx, 2, {2, warps / 2},
                                                       {16, 8}));
  unsigned kWidth = amd ? 4 : 2;
  auto layoutA = operandLayout(ctx, kBlockK, options.warpSize, warps);
  auto layoutB = operandLayout(ctx, blockN, options.warpSize, warps);
  // Unswizzled staging: tcc-swizzle-shared-memory (next in the pipeline)
  // picks the XOR swizzle from the element width, row length and the
  // target's bank model.
  auto sharedA = tile::SharedEncodingAttr::get(ctx, 8, 1, 1, {1, 0});
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, mma, kWidth);
  auto operandB = tile::DotOperandEncodingAttr::get(ctx, 1, mma, kWidth);
  auto tileOf = [](ArrayRef<int64_t> shape, Type element, Attribute layout) {
    return RankedTensorType::get(shape, element, layout);
  };
  Type f32 = Float32Type::get(ctx);
  RankedTensorType accType = tileOf({blockM, blockN}, f32, mma);

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  // Accumulate in f32 whatever the result type (mma.sync's f32 form).
  FailureOr<Value> acc0 =
      program->begin(b, loc, blockM, blockN, inputArgs, accType);
  if (failed(acc0))
    return failure();
  Value m0 = program->m0, n0 = program->n0;
  // Staging: the slices as they are, in the (unswizzled) shared layouts.
  auto toShared = [&](OpBuilder &lb, Location l, Value slice) -> Value {
    auto type = cast<RankedTensorType>(slice.getType());
    return tile::ConvertLayoutOp::create(
        lb, l, tileOf(type.getShape(), type.getElementType(), sharedA), slice);
  };
  Value product = program->emitMainLoop(
      b, loc, tileOf({blockM, kBlockK}, aType, layoutA),
      tileOf({kBlockK, blockN}, bType, layoutB), toShared,
      tileOf({blockM, kBlockK}, aType, operandA),
      tileOf({kBlockK, blockN}, bType, operandB), *acc0,
      tileOf({blockM, blockN}, outType, mma));

  auto mmaTile = [&](Type element) {
    return tileOf({blockM, blockN}, element, mma);
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  auto loadOnMma = [&](Value memref, AffineMap map,
                       Type element) -> FailureOr<Value> {
    if (map == AffineMap::get(2, 0, {d0, d1}, ctx))
      return tile::MemRefLoadOp::create(b, loc, mmaTile(element), memref,
                                        ValueRange{m0, n0}, Value(), Value())
          .getResult();
    bool cols = map == AffineMap::get(2, 0, {d1}, ctx);
    if (!cols && map != AffineMap::get(2, 0, {d0}, ctx))
      return epilogue.emitOpError()
             << "epilogue operand map " << AffineMapAttr::get(map)
             << " is not supported (identity or a row/column broadcast)";
    // A bias row (or per-row scale) in the accumulator's sliced layout.
    unsigned sliced = cols ? 0 : 1;
    auto vecType = RankedTensorType::get(
        {cols ? blockN : blockM}, element,
        tile::SliceEncodingAttr::get(ctx, sliced, mma));
    Value v = tile::MemRefLoadOp::create(b, loc, vecType, memref,
                                         ValueRange{cols ? n0 : m0}, Value(),
                                         Value());
    SmallVector<int64_t> unitShape = cols ? SmallVector<int64_t>{1, blockN}
                                          : SmallVector<int64_t>{blockM, 1};
    Value e = tile::ExpandDimsOp::create(
        b, loc, tileOf(unitShape, element, mma), v, sliced);
    return tile::BroadcastOp::create(b, loc, mmaTile(element), e).getResult();
  };
  if (failed(program->finish(b, loc, product, epilogue, inputArgs, outputs,
                             loadOnMma, mmaTile, grid)))
    return failure();
  numWarps = warps;
  return success();
}
