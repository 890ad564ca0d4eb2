//===- AttentionKernel.cpp - fused attention as a tile program ------------===//
//
// softmax((Q Kᵀ) ∘ f) V (tcc::matchAttention) as one kernel, after
// FlashAttention-2: each program takes BM query rows of one batch (programs
// batch-major, so the programs of a batch share its K and V in L2), keeps
// its Q block in registers as the first product's A operand, and walks the
// keys in BN-wide blocks:
//
//   S = Q Kᵀ_j                      (K read as stored: Kᵀ's slices are
//                                    contiguous along D, staged column-major)
//   X = f(S) · log2(e)              (the score ops in f32; a constant scale
//                                    is folded into the factor)
//   m' = max(m, rowmax X);  P = exp2(X - m');  α = exp2(m - m')
//   l = l α + rowsum P;  O = O α + P V_j   (P cast to V's type, in registers)
//
// and stores O / l (and its cast). The loop runs over the whole blocks of
// keys unmasked; a last partial block runs after it, its keys past the end
// masked to -inf. With a causal mask (where(m >= n, s, -inf) on the
// positions), the blocks before the program's first row run without it, the
// diagonal's blocks with it, and the blocks past its last row not at all. Every tile of the two products lives on one blocked
// accumulator layout, which tcc-accelerate-matmul puts on mma.sync with
// warps along the rows only ([W, 1]): the row max and sum reduce over a
// quad of lanes, and P's convert_layout to the A operand is a register
// permutation. tcc-promote-shared-memory pipelines the K and V blocks
// (num_stages slots each).
//
//===----------------------------------------------------------------------===//
#include "OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

LogicalResult mlir::tcc::buildAttentionKernel(
    AttentionOps chain, tile::LoweringConfigAttr config,
    tile::FuncOp kernel, const OutputMap &outputs, ArrayRef<Value> inputArgs,
    const BuildContext &context, GridSize &grid, unsigned &numWarps) {
  linalg::SoftmaxOp softmax = chain.softmax;
  MLIRContext *ctx = softmax.getContext();
  Location loc = softmax.getLoc();
  int64_t blockM = config.getBlock()[0], blockN = config.getBlock()[1];
  unsigned warps = config.getNumWarps();
  tile::MmaKind kind = *config.getMma();
  if (!context.target.hasMma(kind))
    return softmax.emitOpError()
           << "lowering_config mma = " << tile::stringifyMmaKind(kind)
           << " is not an instruction of target " << context.target.getArch()
           << " (#tile.target mma)";
  // Rows per instruction tile (each warp takes whole ones), and the n tile
  // of the scores' and the output's columns.
  bool mmaSync = kind == tile::MmaKind::mma_sync_m16n8k16;
  int64_t tileM = kind == tile::MmaKind::mfma_32x32x8 ? 32 : 16;
  int64_t tileN = mmaSync ? 16 : tileM;
  Value qArg = chain.scores.getDpsInputs()[0];
  Value vArg = chain.output.getDpsInputs()[1];
  auto qType = cast<ShapedType>(qArg.getType());
  auto vType = cast<ShapedType>(vArg.getType());
  int64_t batch = qType.getShape()[0], m = qType.getShape()[1];
  int64_t d = qType.getShape()[2];
  int64_t dv = vType.getShape()[2];
  Type element = qType.getElementType();
  Type f32 = Float32Type::get(ctx);
  if (blockM % (tileM * int64_t(warps)) || blockN % tileN || dv % tileN)
    return softmax.emitOpError()
           << "lowering_config block [" << blockM << ", " << blockN
           << "] does not fit " << tile::stringifyMmaKind(kind) << " on "
           << warps << " warps along the query rows (BM a multiple of "
           << tileM << " x num_warps; BN and the head dim " << dv << " of "
           << tileN << ")";

  // One blocked accumulator layout for both products and everything on
  // them (lanes [warpSize / 4, 4], which no operand tile of at least 16
  // columns takes), warps down the rows.
  unsigned warpSize = context.warpSize;
  auto acc = tile::BlockedEncodingAttr::get(ctx, {1, 1}, {warpSize / 4, 4},
                                            {warps, 1}, {1, 0});
  auto layoutQ = operandLayout(ctx, blockM, d, warpSize, warps);
  auto layoutK = operandLayout(ctx, d, blockN, warpSize, warps,
                               /*columnMajor=*/true);
  auto layoutV = operandLayout(ctx, blockN, dv, warpSize, warps);
  auto layoutP = operandLayout(ctx, blockM, blockN, warpSize, warps);
  auto sharedRows = tile::SharedEncodingAttr::get(ctx, 8, 1, 1, {1, 0});
  auto sharedCols = tile::SharedEncodingAttr::get(ctx, 8, 1, 1, {0, 1});
  auto operandA = tile::DotOperandEncodingAttr::get(ctx, 0, acc, 0);
  auto operandB = tile::DotOperandEncodingAttr::get(ctx, 1, acc, 0);
  auto tileOf = [](ArrayRef<int64_t> shape, Type type, Attribute layout) {
    return RankedTensorType::get(shape, type, layout);
  };
  RankedTensorType scoresType = tileOf({blockM, blockN}, f32, acc);
  RankedTensorType outType = tileOf({blockM, dv}, f32, acc);

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto f32Splat = [&](OpBuilder &ob, double value, RankedTensorType type) {
    Value s = arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(value));
    return tile::SplatOp::create(ob, loc, type, s).getResult();
  };

  // Programs batch-major: this one's batch and first query row.
  int64_t blocksM = llvm::divideCeil(m, blockM);
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  Value batchIndex = arith::DivUIOp::create(b, loc, pid, c(blocksM));
  Value m0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, pid, c(blocksM)), c(blockM));
  grid = batch * blocksM;
  // Q, K and V as stored, or through the views that read [B, S, H, D]
  // heads transposed (AttentionView).
  auto input = [&](const AttentionView &view,
                   Operation *user) -> FailureOr<Value> {
    FailureOr<Value> memref = lookupView(b, loc, view, inputArgs, user);
    if (failed(memref))
      return failure();
    return sliceBatch(b, loc, *memref, batchIndex);
  };
  FailureOr<Value> q = input(chain.q, chain.scores);
  FailureOr<Value> k = input(chain.k, chain.scores);
  FailureOr<Value> v = input(chain.v, chain.output);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  // Kᵀ [D, N]: its [D, BN] slices are contiguous along D (column-major).
  Value kt = permuteView(b, loc, *k, {1, 0});

  // Q's block, staged once, in registers as the first product's A operand.
  auto stage = [&](OpBuilder &ob, Value memref, ValueRange offsets,
                   ArrayRef<int64_t> shape, Attribute layout,
                   Attribute shared, Attribute operand) {
    Value loaded = tile::MemRefLoadOp::create(
        ob, loc, tileOf(shape, element, layout), memref, offsets, Value(),
        Value());
    Value staged = tile::ConvertLayoutOp::create(
        ob, loc, tileOf(shape, element, shared), loaded);
    return tile::ConvertLayoutOp::create(
               ob, loc, tileOf(shape, element, operand), staged)
        .getResult();
  };
  Value qOperand = stage(b, *q, {m0, c(0)}, {blockM, d}, layoutQ, sharedRows,
                         operandA);

  OnlineSoftmax softmaxOf(chain, inputArgs, acc, blockM, blockN, loc);
  softmaxOf.place(batchIndex, m0);
  // One block of keys at `j`: the online softmax's update of (m, l, O).
  auto step = [&](OpBuilder &ob, Value j, ValueRange iter, bool masked,
                  Operation *alwaysTrue) -> FailureOr<SmallVector<Value>> {
    Value kOperand = stage(ob, kt, {c(0), j}, {d, blockN}, layoutK,
                           sharedCols, operandB);
    Value s = tile::DotOp::create(ob, loc, scoresType, qOperand, kOperand,
                                  f32Splat(ob, 0.0, scoresType));
    FailureOr<Value> x = softmaxOf.scores(ob, s, j, masked, alwaysTrue);
    if (failed(x))
      return failure();
    OnlineSoftmax::Update next =
        softmaxOf.update(ob, *x, iter[0], iter[1], iter[2]);
    Value pNarrow = next.p;
    // mma.sync: P is the A operand in registers (a permutation of the
    // accumulator's); MFMA's accumulator holds columns per lane where its A
    // operand holds rows: through shared memory.
    if (!mmaSync) {
      // (Tiles enter shared memory from a blocked layout.)
      pNarrow = tile::ConvertLayoutOp::create(
          ob, loc, tileOf({blockM, blockN}, element, layoutP), pNarrow);
      pNarrow = tile::ConvertLayoutOp::create(
          ob, loc, tileOf({blockM, blockN}, element, sharedRows), pNarrow);
    }
    Value pOperand = tile::ConvertLayoutOp::create(
        ob, loc, tileOf({blockM, blockN}, element, operandA), pNarrow);
    Value vOperand = stage(ob, *v, {j, c(0)}, {blockN, dv}, layoutV,
                           sharedRows, operandB);
    Value oNew = tile::DotOp::create(ob, loc, outType, pOperand, vOperand,
                                     next.oScaled);
    return SmallVector<Value>{next.m, next.l, oNew};
  };

  SmallVector<Value> state = softmaxOf.initialState(b, dv);
  if (failed(softmaxOf.walk(b, state, step)))
    return failure();
  FailureOr<Value> result = softmaxOf.finish(b, state[2], state[1], dv);
  if (failed(result))
    return failure();
  FailureOr<Value> out = lookupResult(b, loc, chain, outputs);
  if (failed(out))
    return failure();
  tile::MemRefStoreOp::create(b, loc, sliceBatch(b, loc, *out, batchIndex),
                              ValueRange{m0, c(0)}, *result, Value());
  numWarps = warps;
  return success();
}
