//===- MatmulKernel.cpp - tensor-core GEMM as a tile program --------------===//
//
// A [parallel, parallel, reduction] linalg.generic with the matmul maps
// (A: (m, k), B: (k, n), C: (m, n)) and a multiply-add body becomes a
// block-tiled tile program: each program owns a BM x BN block of C (grouped
// rasterization keeps A's row blocks hot in L2), walks K in BK steps,
// stages the A and B slices through shared memory (pipelined later by
// tcc-promote-shared-memory) and multiplies them with tile.dot on a plain
// blocked accumulator, which tcc-accelerate-matmul then puts on the plan's
// tensor-core layouts; an elementwise consumer of the product (bias,
// activation, cast) runs on the accumulator before the one store. A B
// stored [N, K] (x @ w.T: tcc::mmaReadsTransposedB) is read through its
// transposed view: its [BK, BN] slices are contiguous along K, staged in
// shared tiles of order [0, 1] (ldmatrix reads them without .trans).
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

constexpr int64_t kGroupM = 8; // row blocks per rasterization group

} // namespace

tile::BlockedEncodingAttr mlir::tcc::operandLayout(MLIRContext *ctx,
                                                   int64_t rows, int64_t cols,
                                                   unsigned warpSize,
                                                   unsigned warps,
                                                   bool columnMajor) {
  if (columnMajor)
    return tile::getDistributedBlocked(ctx, {rows, cols}, {1, 1}, {0, 1},
                                       warpSize, warps, {1, warps});
  return tile::getDistributedBlocked(ctx, {rows, cols}, {1, 1}, {1, 0},
                                     warpSize, warps, {warps, 1});
}

std::pair<Value, Value> GemmProgram::groupedProgramIds(OpBuilder &b,
                                                       Location loc, Value pid,
                                                       int64_t blocksM,
                                                       int64_t blocksN,
                                                       Value dynamicBlocksM) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value perGroup = c(kGroupM * blocksN);
  Value group = arith::DivUIOp::create(b, loc, pid, perGroup);
  Value firstM = arith::MulIOp::create(b, loc, group, c(kGroupM));
  Value groupRows = arith::MinUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc,
                            dynamicBlocksM ? dynamicBlocksM : c(blocksM),
                            firstM),
      c(kGroupM));
  Value inGroup = arith::RemUIOp::create(b, loc, pid, perGroup);
  Value pidM = arith::AddIOp::create(
      b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value pidN = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {pidM, pidN};
}

Value GemmProgram::runTimeRowBlocks(OpBuilder &b, Location loc, Value a,
                                    int64_t blockM) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  // A [batch?, M, K]: its rows are the dim before the last.
  auto type = cast<MemRefType>(a.getType());
  Value rows = memref::DimOp::create(b, loc, a, type.getRank() - 2);
  return arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, rows, c(blockM - 1)), c(blockM));
}

FailureOr<GemmProgram> GemmProgram::get(linalg::GenericOp op) {
  FailureOr<double> init = verifyGemmBody(op);
  if (failed(init))
    return failure();
  GemmProgram program;
  program.op = op;
  program.init = *init;
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
  // A dynamic M (verifyDynamicLoops: M and the batch may be) has its row
  // blocks counted at run time, from A's rows (A is [batch?, M, K]: the
  // not-transposed operand the forms take dynamic rows of).
  Value dynamicBlocksM;
  if (ShapedType::isDynamic(m)) {
    FailureOr<Value> a = lookupInput(op.getDpsInputs()[0], inputArgs, op);
    if (failed(a))
      return failure();
    dynamicBlocksM = runTimeRowBlocks(b, loc, *a, blockM);
  }
  unsigned lead = batched;
  programs = blocksOf(loopExtent(op, {lead}), blockM, blocksN);
  if (batched)
    programs = gridProduct(blocksOf(loopExtent(op, {0}), 1), programs);
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  if (batched) {
    Value perBatch =
        dynamicBlocksM
            ? arith::MulIOp::create(b, loc, dynamicBlocksM, c(blocksN))
                  .getResult()
            : c(blocksM * blocksN).getResult();
    batchIndex = arith::DivUIOp::create(b, loc, pid, perBatch);
    pid = arith::RemUIOp::create(b, loc, pid, perBatch);
  }
  auto [pidM, pidN] =
      groupedProgramIds(b, loc, pid, blocksM, blocksN, dynamicBlocksM);
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

FailureOr<Value> GemmProgram::loadOnAccumulator(
    OpBuilder &b, Location loc, linalg::GenericOp epilogue, Value memref,
    AffineMap map, Type element, Attribute layout, int64_t blockM,
    int64_t blockN) const {
  MLIRContext *ctx = b.getContext();
  auto tileOf = [&](ArrayRef<int64_t> shape, Type elem) {
    return RankedTensorType::get(shape, elem, layout);
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  if (map == AffineMap::get(2, 0, {d0, d1}, ctx))
    return tile::MemRefLoadOp::create(b, loc, tileOf({blockM, blockN}, element),
                                      memref, ValueRange{m0, n0}, Value(),
                                      Value())
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
      tile::SliceEncodingAttr::get(ctx, sliced, layout));
  Value v = tile::MemRefLoadOp::create(b, loc, vecType, memref,
                                       ValueRange{cols ? n0 : m0}, Value(),
                                       Value());
  return broadcastSlice(b, loc, v, sliced, {blockM, blockN}, layout);
}

void GemmProgram::place(Value blockRow, Value blockCol, Value batchIdx) {
  m0 = blockRow;
  n0 = blockCol;
  batchIndex = batchIdx;
}

Value GemmProgram::slice(OpBuilder &b, Location loc, Value memref) const {
  return batched ? sliceBatch(b, loc, memref, batchIndex) : memref;
}

LogicalResult GemmProgram::finish(
    OpBuilder &b, Location loc, Value product, linalg::GenericOp epilogue,
    ArrayRef<Value> inputArgs, const OutputMap &outputs,
    function_ref<FailureOr<Value>(Value, AffineMap, Type)> loadOnAcc,
    function_ref<RankedTensorType(Type)> accTile, GridSize &grid,
    function_ref<LogicalResult(Value)> storeReturned,
    ArrayRef<std::pair<Value, Value>> moreProducts) const {
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
    // Positions (linalg.index) on the accumulator's layout: the batch, the
    // block's rows m0 + i and columns n0 + j.
    auto positions = [&](unsigned dim) -> FailureOr<Value> {
      Type i32 = b.getI32Type();
      RankedTensorType tileType = accTile(i32);
      if (batched && dim == 0)
        return tile::SplatOp::create(
                   b, loc, tileType,
                   arith::IndexCastOp::create(b, loc, i32, batchIndex))
            .getResult();
      bool rows = dim + 2 == epilogue.getNumLoops();
      unsigned sliced = rows ? 1 : 0;
      auto vectorType = RankedTensorType::get(
          {tileType.getDimSize(rows ? 0 : 1)}, i32,
          tile::SliceEncodingAttr::get(b.getContext(), sliced,
                                       tileType.getEncoding()));
      Value at = tile::ArangeOp::create(b, loc, vectorType, 0u,
                                        uint32_t(vectorType.getDimSize(0)));
      Value start = arith::IndexCastOp::create(b, loc, i32, rows ? m0 : n0);
      at = arith::AddIOp::create(
          b, loc, at, tile::SplatOp::create(b, loc, vectorType, start));
      return broadcastSlice(b, loc, at, sliced, tileType.getShape(),
                            tileType.getEncoding());
    };
    TileKernelBuilder kb(b, loc, BlockSchedule{});
    FailureOr<TileKernelBuilder::TileResults> applied =
        kb.applyEpilogue(matmul, product, epilogue, inputArgs, load, accTile,
                         moreProducts, positions);
    if (failed(applied))
      return failure();
    results = *applied;
    producer = epilogue;
  }
  grid = programs;
  // One result the function returns as it is: the caller's store.
  func::ReturnOp returnOp = outputs.returnOp;
  if (storeReturned && results.size() == 1 && returnOp.getNumOperands() == 1 &&
      returnOp.getOperand(0) == results.front().first)
    return storeReturned(results.front().second);
  if (failed(storeResults(b, loc, outputs, results, producer, {m0, n0},
                          [&](Value m) { return slice(b, loc, m); })))
    return failure();
  grid = programs;
  return success();
}

LogicalResult mlir::tcc::buildMatmulKernel(
    linalg::GenericOp op, linalg::GenericOp epilogue,
    tile::LoweringConfigAttr config, tile::FuncOp kernel,
    const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0]);
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1]);
  FailureOr<GemmProgram> program = GemmProgram::get(op);
  if (failed(program))
    return failure();
  Type outType = getElementTypeOrSelf(op.getResult(0));

  // The config's block, warps (2 x W/2 over the block: each computes a
  // (BM / 2) x (2 BN / W) sub-block, so one A fragment feeds several n tiles
  // and one B fragment several m tiles) and instruction.
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  int64_t blockK = config.getBlock()[2];
  unsigned warps = config.getNumWarps();
  tile::MmaKind kind = *config.getMma();
  if (warps < 2)
    return op.emitOpError() << "lowering_config num_warps = " << warps
                            << ": a GEMM program needs 2, 4, 8 or 16 warps";
  if (!context.target.hasMma(kind))
    return op.emitOpError() << "lowering_config mma = "
                            << tile::stringifyMmaKind(kind)
                            << " is not an instruction of target "
                            << context.target.getArch()
                            << " (#tile.target mma)";
  std::pair<int64_t, int64_t> instr =
      mmaAccumulatorLayout(ctx, kind, warps).second;
  if (blockM % (2 * instr.first) || blockN % ((warps / 2) * instr.second) ||
      blockK % 16)
    return op.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN << ", "
           << blockK << "] does not fit " << tile::stringifyMmaKind(kind)
           << " on " << warps << " warps (2 x " << warps / 2 << " warps of "
           << instr.first << " x " << instr.second
           << " tiles; BK a multiple of 16)";
  // The product on a plain blocked accumulator (the FMA form of tile.dot):
  // tcc-accelerate-matmul, next in the pipeline, puts it on the plan's
  // instruction (the accumulator, the operands and the epilogue on its
  // layout). Lanes 4 x 8 (8 x 8 on 64-lane waves), warps 2 x W / 2.
  auto acc = tile::BlockedEncodingAttr::get(
      ctx, {1, 1}, {context.warpSize / 8, 8}, {2, warps / 2}, {1, 0});
  // B read as stored [N, K] (tcc::mmaReadsTransposedB): through the
  // transposed view, its slices contiguous along K (dim 0).
  bool bT = matmulTransposes(op)->second; // A is (m, k): the caller's check
  auto layoutA = operandLayout(ctx, blockM, blockK, context.warpSize, warps);
  auto layoutB =
      operandLayout(ctx, blockK, blockN, context.warpSize, warps, bT);
  // Unswizzled staging: tcc-swizzle-shared-memory (next in the pipeline)
  // picks the XOR swizzle from the element width, row length and the
  // target's bank model.
  auto sharedA = tile::SharedEncodingAttr::get(ctx, 8, 1, 1, {1, 0});
  auto sharedB = bT ? tile::SharedEncodingAttr::get(ctx, 8, 1, 1, {0, 1})
                    : sharedA;
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, acc, 0);
  auto operandB = tile::DotOperandEncodingAttr::get(ctx, 1, acc, 0);
  auto tileOf = [](ArrayRef<int64_t> shape, Type element, Attribute layout) {
    return RankedTensorType::get(shape, element, layout);
  };
  Type f32 = Float32Type::get(ctx);
  RankedTensorType accType = tileOf({blockM, blockN}, f32, acc);

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  // Accumulate in f32 whatever the result type (mma.sync's f32 form).
  FailureOr<Value> acc0 =
      program->begin(b, loc, blockM, blockN, inputArgs, accType);
  if (failed(acc0))
    return failure();
  Value m0 = program->m0, n0 = program->n0;
  if (bT)
    program->memB = memref::TransposeOp::create(
        b, loc, program->memB,
        AffineMapAttr::get(AffineMap::getPermutationMap(
            ArrayRef<unsigned>{1, 0}, ctx)));
  // Staging: the slices as they are, in the (unswizzled) shared layouts.
  auto toShared = [&](OpBuilder &lb, Location l, Value slice) -> Value {
    auto type = cast<RankedTensorType>(slice.getType());
    bool isB = type.getEncoding() == layoutB;
    return tile::ConvertLayoutOp::create(
        lb, l,
        tileOf(type.getShape(), type.getElementType(), isB ? sharedB : sharedA),
        slice);
  };
  Value product = program->emitMainLoop(
      b, loc, tileOf({blockM, blockK}, aType, layoutA),
      tileOf({blockK, blockN}, bType, layoutB), toShared,
      tileOf({blockM, blockK}, aType, operandA),
      tileOf({blockK, blockN}, bType, operandB), *acc0,
      tileOf({blockM, blockN}, outType, acc));

  auto accTile = [&](Type element) {
    return tileOf({blockM, blockN}, element, acc);
  };
  auto loadOnAcc = [&](Value memref, AffineMap map,
                       Type element) -> FailureOr<Value> {
    return program->loadOnAccumulator(b, loc, epilogue, memref, map, element,
                                      acc, blockM, blockN);
  };
  if (failed(program->finish(b, loc, product, epilogue, inputArgs, outputs,
                             loadOnAcc, accTile, grid)))
    return failure();
  numWarps = warps;
  return success();
}
