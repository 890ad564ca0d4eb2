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
#include "LinalgToTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc;

namespace {

constexpr double kLog2e = 1.4426950408889634;

/// The type a score-op value is computed in: 16-bit floats in f32.
Type widened(Type type) {
  auto f = dyn_cast<FloatType>(type);
  return f && f.getWidth() < 32 ? Float32Type::get(type.getContext()) : type;
}

/// The `linalg.index` dim integer `value` of a score-op body is (through
/// index casts and sign extensions), or nullopt.
std::optional<unsigned> positionDim(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      return index.getDim();
    if (!isa<arith::IndexCastOp, arith::ExtSIOp>(def))
      return std::nullopt;
    value = def->getOperand(0);
  }
  return std::nullopt;
}

/// The compare of a causal mask among the score ops, when they have one:
/// `select(cmp, x, -inf)` with `cmp` keeping the keys n <= the query m
/// (`m >= n` or `n <= m` on the positions `linalg.index` gives, a
/// tcc.iota folded in), used by that select only. Null otherwise. The
/// kernel then skips the key blocks past its last query row (masked whole)
/// and runs the blocks before its first row without the mask (kept whole).
arith::CmpIOp causalMask(ArrayRef<linalg::GenericOp> ops) {
  using P = arith::CmpIPredicate;
  arith::CmpIOp found;
  for (linalg::GenericOp op : ops)
    for (Operation &inner : op.getBody()->without_terminator()) {
      auto select = dyn_cast<arith::SelectOp>(inner);
      auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                        : arith::CmpIOp();
      FloatAttr other;
      if (!cmp || !cmp->hasOneUse() ||
          !matchPattern(select.getFalseValue(), m_Constant(&other)) ||
          !other.getValue().isInfinity() || !other.getValue().isNegative())
        continue;
      std::optional<unsigned> lhs = positionDim(cmp.getLhs());
      std::optional<unsigned> rhs = positionDim(cmp.getRhs());
      P pred = cmp.getPredicate();
      bool keepsLower =
          (lhs == 1u && rhs == 2u && (pred == P::sge || pred == P::uge)) ||
          (lhs == 2u && rhs == 1u && (pred == P::sle || pred == P::ule));
      if (!keepsLower)
        continue;
      if (found)
        return {}; // two of them: leave both as written
      found = cmp;
    }
  return found;
}

/// c when the score ops are one op computing x * c or x / c (casts around
/// it aside) for a constant c > 0 (attention's 1 / sqrt(d)): the kernel
/// folds it into exp2's factor, c · log2(e), one multiply per score.
std::optional<double> foldableScale(ArrayRef<linalg::GenericOp> ops) {
  if (ops.size() != 1)
    return std::nullopt;
  linalg::GenericOp only = ops.front();
  if (only.getNumDpsInputs() != 1)
    return std::nullopt;
  Block *body = only.getBody();
  Value x = body->getArgument(0);
  std::optional<double> scale;
  auto constantOf = [](Value v) -> std::optional<double> {
    FloatAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      return attr.getValueAsDouble();
    return std::nullopt;
  };
  for (Operation &op : body->without_terminator()) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      if (op.getOperand(0) != x)
        return std::nullopt;
      x = op.getResult(0);
      continue;
    }
    if (scale)
      return std::nullopt; // a second arithmetic op
    if (auto mul = dyn_cast<arith::MulFOp>(op)) {
      if (mul.getLhs() == x)
        scale = constantOf(mul.getRhs());
      else if (mul.getRhs() == x)
        scale = constantOf(mul.getLhs());
    } else if (auto div = dyn_cast<arith::DivFOp>(op); div && div.getLhs() == x) {
      if (std::optional<double> c = constantOf(div.getRhs()); c && *c != 0)
        scale = 1 / *c;
    }
    if (!scale || !(*scale > 0))
      return std::nullopt;
    x = op.getResult(0);
  }
  if (!scale || body->getTerminator()->getOperand(0) != x)
    return std::nullopt;
  return scale;
}

/// Clones the scalar ops of score op `op`'s body onto tiles
/// (`tileOf(element)`), its block arguments mapped in `mapping`, scalars
/// from outside rebuilt and splatted (TileKernelBuilder::cloneBody, but
/// widened): 16-bit float values are computed in f32, a cast between float
/// types becomes the value it casts (the scores stay f32, as SDPA computes
/// them). Positions (`linalg.index` d) are the i32 tiles `position(d)`,
/// index values i32. `alwaysTrue`, when set, is an i1
/// op whose value is known true here (a causal mask's compare before the
/// program's first query row), used only by a select: that select is its
/// true value. Returns the tile the body yields.
FailureOr<Value> cloneOnTiles(OpBuilder &b, Location loc, linalg::GenericOp op,
                              IRMapping &mapping,
                              function_ref<RankedTensorType(Type)> tileOf,
                              function_ref<Value(unsigned)> position,
                              Operation *alwaysTrue) {
  TileKernelBuilder kb(b, loc, BlockSchedule{});
  Type i32 = b.getI32Type();
  auto typeFor = [&](Type type) {
    return type.isIndex() ? i32 : widened(type);
  };
  Block *body = op.getBody();
  for (Operation &inner : body->without_terminator()) {
    for (Value operand : inner.getOperands()) {
      if (mapping.contains(operand) || operand.getParentBlock() == body)
        continue;
      FailureOr<Value> scalar = kb.rebuildScalar(operand, op);
      if (failed(scalar))
        return failure();
      Value s = *scalar;
      if (widened(s.getType()) != s.getType())
        s = arith::ExtFOp::create(b, loc, widened(s.getType()), s);
      mapping.map(operand, tile::SplatOp::create(b, loc, tileOf(s.getType()), s)
                               .getResult());
    }
    Type want = typeFor(inner.getResult(0).getType());
    if (&inner == alwaysTrue)
      continue; // its select (its one use) takes the true value
    if (auto select = dyn_cast<arith::SelectOp>(inner);
        select && alwaysTrue &&
        select.getCondition().getDefiningOp() == alwaysTrue) {
      mapping.map(select.getResult(), mapping.lookup(select.getTrueValue()));
      continue;
    }
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), position(index.getDim()));
      continue;
    }
    if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(inner)) {
      Value src = mapping.lookup(inner.getOperand(0));
      unsigned have = getElementTypeOrSelf(src).getIntOrFloatBitWidth();
      unsigned bits = want.getIntOrFloatBitWidth();
      Value cast =
          bits == have ? src
          : bits > have
              ? arith::ExtSIOp::create(b, loc, tileOf(want), src).getResult()
              : arith::TruncIOp::create(b, loc, tileOf(want), src).getResult();
      mapping.map(inner.getResult(0), cast);
      continue;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      TypedAttr value = constant.getValue();
      if (auto f = dyn_cast<FloatAttr>(value); f && want != f.getType())
        value = FloatAttr::get(want, f.getValueAsDouble());
      if (auto n = dyn_cast<IntegerAttr>(value); n && want != n.getType())
        value = IntegerAttr::get(want, n.getInt());
      Value s = arith::ConstantOp::create(b, loc, value);
      mapping.map(constant.getResult(),
                  tile::SplatOp::create(b, loc, tileOf(want), s).getResult());
      continue;
    }
    if (isa<arith::ExtFOp, arith::TruncFOp>(inner)) {
      Value src = mapping.lookup(inner.getOperand(0));
      Type have = getElementTypeOrSelf(src);
      if (have == want) {
        mapping.map(inner.getResult(0), src);
        continue;
      }
      Value cast =
          want.getIntOrFloatBitWidth() > have.getIntOrFloatBitWidth()
              ? arith::ExtFOp::create(b, loc, tileOf(want), src).getResult()
              : arith::TruncFOp::create(b, loc, tileOf(want), src).getResult();
      mapping.map(inner.getResult(0), cast);
      continue;
    }
    Operation *clone = b.clone(inner, mapping);
    clone->getResult(0).setType(tileOf(want));
  }
  return mapping.lookup(body->getTerminator()->getOperand(0));
}

} // namespace

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
  Value kArg = chain.scores.getDpsInputs()[1];
  Value vArg = chain.output.getDpsInputs()[1];
  auto qType = cast<ShapedType>(qArg.getType());
  auto kType = cast<ShapedType>(kArg.getType());
  auto vType = cast<ShapedType>(vArg.getType());
  int64_t batch = qType.getShape()[0], m = qType.getShape()[1];
  int64_t d = qType.getShape()[2];
  int64_t n = kType.getShape()[1], dv = vType.getShape()[2];
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
  auto rows = tile::SliceEncodingAttr::get(ctx, 1, acc);
  auto cols = tile::SliceEncodingAttr::get(ctx, 0, acc);
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
  RankedTensorType rowType = tileOf({blockM}, f32, rows);

  OpBuilder b = OpBuilder::atBlockEnd(&kernel.getBody().front());
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto f32Splat = [&](OpBuilder &ob, double value, RankedTensorType type) {
    Value s = arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(value));
    return tile::SplatOp::create(ob, loc, type, s).getResult();
  };
  double negInf = -std::numeric_limits<double>::infinity();

  // Programs batch-major: this one's batch and first query row.
  int64_t blocksM = llvm::divideCeil(m, blockM);
  Value pid = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tile::ProgramIdOp::create(b, loc, b.getI32Type(), 0u));
  Value batchIndex = arith::DivUIOp::create(b, loc, pid, c(blocksM));
  Value m0 = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, pid, c(blocksM)), c(blockM));
  grid = batch * blocksM;
  auto input = [&](Value tensor, Operation *user) -> FailureOr<Value> {
    FailureOr<Value> memref = lookupInput(tensor, inputArgs, user);
    if (failed(memref))
      return failure();
    return sliceBatch(b, loc, *memref, batchIndex);
  };
  FailureOr<Value> q = input(qArg, chain.scores);
  FailureOr<Value> k = input(kArg, chain.scores);
  FailureOr<Value> v = input(vArg, chain.output);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  // Kᵀ [D, N]: its [D, BN] slices are contiguous along D (column-major).
  Value kt = memref::TransposeOp::create(
      b, loc, *k,
      AffineMapAttr::get(
          AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx)));

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

  std::optional<double> scale = foldableScale(chain.scoreOps);
  double factor = kLog2e * scale.value_or(1.0);
  // The score ops' other operands, loaded onto the scores' layout at this
  // block of keys (as a batched GEMM's epilogue operands).
  GemmProgram place;
  place.batched = true;
  auto loadScoreOperand = [&](OpBuilder &ob, linalg::GenericOp op,
                              OpOperand *operand, Value j) -> FailureOr<Value> {
    bool perBatch = false;
    FailureOr<AffineMap> map =
        unbatchEpilogueMap(op, op.getMatchingIndexingMap(operand), perBatch);
    FailureOr<Value> memref = lookupInput(operand->get(), inputArgs, op);
    if (failed(map) || failed(memref))
      return failure();
    place.place(m0, j, batchIndex);
    Value source = perBatch ? place.slice(ob, loc, *memref) : *memref;
    Type type = getElementTypeOrSelf(operand->get());
    FailureOr<Value> loaded = place.loadOnAccumulator(
        ob, loc, op, source, *map, type, acc, blockM, blockN);
    if (failed(loaded) || widened(type) == type)
      return loaded;
    return arith::ExtFOp::create(ob, loc, tileOf({blockM, blockN},
                                                 widened(type), acc),
                                 *loaded)
        .getResult();
  };
  auto broadcastRows = [&](OpBuilder &ob, Value row, int64_t columns) {
    return broadcastSlice(ob, loc, row, 1, {blockM, columns}, acc);
  };
  auto rowMax = [&](OpBuilder &ob, Value x) {
    return reduceRows(ob, loc, x, rowType,
                      [](OpBuilder &rb, Location l, Value lhs, Value rhs) {
                        return arith::MaximumFOp::create(rb, l, lhs, rhs)
                            .getResult();
                      });
  };
  auto rowSum = [&](OpBuilder &ob, Value x) {
    return reduceRows(ob, loc, x, rowType,
                      [](OpBuilder &rb, Location l, Value lhs, Value rhs) {
                        return arith::AddFOp::create(rb, l, lhs, rhs)
                            .getResult();
                      });
  };

  // The positions of this block's scores along loop dim `dim` (0: the
  // batch, 1: the query rows from m0, 2: the keys from j), as i32.
  auto positions = [&](OpBuilder &ob, Value j, unsigned dim) -> Value {
    Type i32 = ob.getI32Type();
    RankedTensorType type = tileOf({blockM, blockN}, i32, acc);
    if (dim == 0)
      return tile::SplatOp::create(
          ob, loc, type,
          arith::IndexCastOp::create(ob, loc, i32, batchIndex).getResult());
    bool queries = dim == 1;
    int64_t length = queries ? blockM : blockN;
    RankedTensorType vector =
        tileOf({length}, i32, queries ? Attribute(rows) : Attribute(cols));
    Value start = arith::IndexCastOp::create(ob, loc, i32, queries ? m0 : j);
    Value at = arith::AddIOp::create(
        ob, loc,
        tile::ArangeOp::create(ob, loc, vector, 0u, uint32_t(length)),
        tile::SplatOp::create(ob, loc, vector, start));
    return broadcastSlice(ob, loc, at, queries ? 1u : 0u, {blockM, blockN},
                          acc);
  };

  // One block of keys at `j`: the online softmax's update of (m, l, O).
  // `masked`: the keys from n on are -inf (the last, partial block);
  // `alwaysTrue`: the causal mask's compare, known true for this block.
  auto step = [&](OpBuilder &ob, Value j, Value mPrev, Value lPrev,
                  Value oPrev, bool masked,
                  Operation *alwaysTrue) -> FailureOr<SmallVector<Value>> {
    Value kOperand = stage(ob, kt, {c(0), j}, {d, blockN}, layoutK,
                           sharedCols, operandB);
    Value s = tile::DotOp::create(ob, loc, scoresType, qOperand, kOperand,
                                  f32Splat(ob, 0.0, scoresType));
    Value x = s;
    if (!scale)
      for (linalg::GenericOp op : chain.scoreOps) {
        IRMapping mapping;
        for (OpOperand *operand : op.getDpsInputOperands()) {
          BlockArgument arg = op.getMatchingBlockArgument(operand);
          Operation *producer = operand->get().getDefiningOp();
          if (producer == chain.scores.getOperation() ||
              llvm::is_contained(chain.scoreOps, producer)) {
            mapping.map(arg, x);
            continue;
          }
          FailureOr<Value> loaded = loadScoreOperand(ob, op, operand, j);
          if (failed(loaded))
            return failure();
          mapping.map(arg, *loaded);
        }
        FailureOr<Value> result = cloneOnTiles(
            ob, loc, op, mapping,
            [&](Type t) { return tileOf({blockM, blockN}, t, acc); },
            [&](unsigned dim) { return positions(ob, j, dim); }, alwaysTrue);
        if (failed(result))
          return failure();
        x = *result;
      }
    x = arith::MulFOp::create(ob, loc, x, f32Splat(ob, factor, scoresType));
    if (masked) {
      Value limit = arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(n));
      Value inside = arith::CmpIOp::create(
          ob, loc, arith::CmpIPredicate::slt, positions(ob, j, 2),
          tile::SplatOp::create(
              ob, loc, tileOf({blockM, blockN}, ob.getI32Type(), acc), limit));
      x = arith::SelectOp::create(ob, loc, inside, x,
                                  f32Splat(ob, negInf, scoresType));
    }
    Value mNew = arith::MaximumFOp::create(ob, loc, mPrev, rowMax(ob, x));
    // A row whose scores are all -inf so far subtracts 0, not -inf
    // (exp2(-inf - -inf) is NaN; its exps are 0 either way).
    Value isNegInf = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OEQ,
                                           mNew, f32Splat(ob, negInf, rowType));
    Value mUse = arith::SelectOp::create(ob, loc, isNegInf,
                                         f32Splat(ob, 0.0, rowType), mNew);
    Value p = approxExp2(
        ob, loc, arith::SubFOp::create(ob, loc, x, broadcastRows(ob, mUse, blockN)));
    Value alpha = approxExp2(ob, loc, arith::SubFOp::create(ob, loc, mPrev, mUse));
    Value lNew = arith::AddFOp::create(
        ob, loc, arith::MulFOp::create(ob, loc, lPrev, alpha),
        rowSum(ob, p));
    Value oScaled =
        arith::MulFOp::create(ob, loc, oPrev, broadcastRows(ob, alpha, dv));
    Value pNarrow = arith::TruncFOp::create(
        ob, loc, tileOf({blockM, blockN}, element, acc), p);
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
    Value oNew =
        tile::DotOp::create(ob, loc, outType, pOperand, vOperand, oScaled);
    return SmallVector<Value>{mNew, lNew, oNew};
  };

  SmallVector<Value> state{f32Splat(b, negInf, rowType),
                           f32Splat(b, 0.0, rowType),
                           f32Splat(b, 0.0, outType)};
  // A loop of steps over keys [from, to).
  auto walk = [&](Value from, Value to, bool masked,
                  Operation *alwaysTrue) -> LogicalResult {
    bool failedStep = false;
    auto loop = scf::ForOp::create(
        b, loc, from, to, c(blockN), state,
        [&](OpBuilder &lb, Location, Value j, ValueRange iter) {
          FailureOr<SmallVector<Value>> next = step(
              lb, j, iter[0], iter[1], iter[2], masked, alwaysTrue);
          failedStep = failed(next);
          scf::YieldOp::create(lb, loc, failedStep ? ValueRange(iter)
                                                   : ValueRange(*next));
        });
    state.assign(loop.getResults().begin(), loop.getResults().end());
    return failure(failedStep);
  };
  if (arith::CmpIOp causal = causalMask(chain.scoreOps)) {
    // Causal: the key blocks before the program's first query row are kept
    // whole (the mask's compare is true there: no mask), the blocks of its
    // diagonal run masked, and those past its last row (masked whole) are
    // skipped. Keys past n only reach rows past n, which are not stored.
    if (blockM % blockN)
      return softmax.emitOpError()
             << "lowering_config block [" << blockM << ", " << blockN
             << "]: a causal attention plan needs BM a multiple of BN (the "
                "diagonal starts at a whole block of keys)";
    Value end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, m0, c(blockM)), c(n));
    if (failed(walk(c(0), m0, /*masked=*/false, causal)) ||
        failed(walk(m0, end, /*masked=*/false, nullptr)))
      return failure();
  } else {
    int64_t whole = n / blockN * blockN;
    if (whole > 0 && failed(walk(c(0), c(whole), /*masked=*/false, nullptr)))
      return failure();
    if (whole < n) {
      FailureOr<SmallVector<Value>> next = step(
          b, c(whole), state[0], state[1], state[2], /*masked=*/true, nullptr);
      if (failed(next))
        return failure();
      state = *next;
    }
  }
  Value result =
      arith::DivFOp::create(b, loc, state[2], broadcastRows(b, state[1], dv));
  Value returned = chain.output.getResult(0);
  if (chain.epilogue) {
    IRMapping mapping;
    Block *body = chain.epilogue.getBody();
    mapping.map(body->getArgument(0), result);
    TileKernelBuilder kb(b, loc, BlockSchedule{});
    if (failed(kb.cloneBody(*body, mapping, [&](Type t) {
          return tileOf({blockM, dv}, t, acc);
        })))
      return failure();
    result = mapping.lookup(body->getTerminator()->getOperand(0));
    returned = chain.epilogue.getResult(0);
  }
  Operation *last = chain.epilogue ? chain.epilogue.getOperation()
                                   : chain.output.getOperation();
  FailureOr<Value> out = outputs.lookup(b, loc, returned, last);
  if (failed(out))
    return failure();
  tile::MemRefStoreOp::create(b, loc, sliceBatch(b, loc, *out, batchIndex),
                              ValueRange{m0, c(0)}, result, Value());
  numWarps = warps;
  return success();
}
