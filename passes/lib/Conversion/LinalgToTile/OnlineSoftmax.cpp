//===- OnlineSoftmax.cpp - attention's score ops and online softmax -------===//
//
// See OnlineSoftmax.h.
//
//===----------------------------------------------------------------------===//
#include "OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

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

/// The constant scale of the scores the kernel folds into exp2's factor
/// (c · log2(e)), and the op applying it.
struct FoldedScale {
  double value;
  Operation *op;
};

/// When the score ops are one generic whose only float arithmetic on the
/// scores x is one x * c or x / c for a constant c > 0 (attention's
/// 1 / sqrt(d)), casts around it aside, and whose other uses of the scaled
/// scores are selects keeping them or -inf (a mask: c > 0 keeps -inf and
/// commutes with the select), that op: the kernel skips it and folds c
/// into exp2's factor, one multiply per score fewer. Ops on positions and
/// on constants may be there too.
std::optional<FoldedScale> foldableScale(ArrayRef<linalg::GenericOp> ops,
                                         linalg::GenericOp scores) {
  if (ops.size() != 1)
    return std::nullopt;
  linalg::GenericOp only = ops.front();
  Block *body = only.getBody();
  // The scores (the input the product gives) and their casts; the scaled
  // scores.
  llvm::SmallDenseSet<Value> raw, scaled;
  for (OpOperand *operand : only.getDpsInputOperands())
    if (operand->get().getDefiningOp() == scores.getOperation())
      raw.insert(only.getMatchingBlockArgument(operand));
  if (raw.size() != 1)
    return std::nullopt;
  std::optional<FoldedScale> found;
  auto constantOf = [](Value v) -> std::optional<double> {
    FloatAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      return attr.getValueAsDouble();
    return std::nullopt;
  };
  auto isNegInf = [&](Value v) {
    std::optional<double> c = constantOf(v);
    return c && std::isinf(*c) && *c < 0;
  };
  for (Operation &op : body->without_terminator()) {
    bool touches = llvm::any_of(op.getOperands(), [&](Value v) {
      return raw.contains(v) || scaled.contains(v);
    });
    if (!touches)
      continue; // constants, positions and their compares
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      (raw.contains(op.getOperand(0)) ? raw : scaled).insert(op.getResult(0));
      continue;
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      if (!scaled.contains(select.getTrueValue()) ||
          !isNegInf(select.getFalseValue()) ||
          raw.contains(select.getCondition()))
        return std::nullopt;
      scaled.insert(select.getResult());
      continue;
    }
    std::optional<double> c;
    if (auto mul = dyn_cast<arith::MulFOp>(op)) {
      if (raw.contains(mul.getLhs()))
        c = constantOf(mul.getRhs());
      else if (raw.contains(mul.getRhs()))
        c = constantOf(mul.getLhs());
    } else if (auto div = dyn_cast<arith::DivFOp>(op);
               div && raw.contains(div.getLhs())) {
      if (std::optional<double> d = constantOf(div.getRhs()); d && *d != 0)
        c = 1 / *d;
    }
    if (found || !c || !(*c > 0))
      return std::nullopt; // a second scale, or other arithmetic on x
    found = FoldedScale{*c, &op};
    scaled.insert(op.getResult(0));
  }
  if (!found || !scaled.contains(body->getTerminator()->getOperand(0)))
    return std::nullopt;
  return found;
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
/// true value. `folded`, when set, is the scale op folded into exp2's
/// factor (foldableScale): its result is its scores operand. Returns the
/// tile the body yields.
FailureOr<Value> cloneOnTiles(OpBuilder &b, Location loc, linalg::GenericOp op,
                              IRMapping &mapping,
                              function_ref<RankedTensorType(Type)> tileOf,
                              function_ref<Value(unsigned)> position,
                              Operation *alwaysTrue, Operation *folded) {
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
    if (&inner == folded) {
      // The scores operand: x * c's x, x / c's x.
      Value x = inner.getOperand(0);
      if (isa<arith::MulFOp>(inner) && matchPattern(x, m_Constant()))
        x = inner.getOperand(1);
      mapping.map(inner.getResult(0), mapping.lookup(x));
      continue;
    }
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

OnlineSoftmax::OnlineSoftmax(const AttentionOps &chain,
                             ArrayRef<Value> inputArgs, Attribute acc,
                             int64_t blockM, int64_t blockN, Location loc)
    : chain(chain), inputArgs(inputArgs), acc(acc), blockM(blockM),
      blockN(blockN), loc(loc) {
  MLIRContext *ctx = acc.getContext();
  rows = tile::SliceEncodingAttr::get(ctx, 1, acc);
  cols = tile::SliceEncodingAttr::get(ctx, 0, acc);
  f32 = Float32Type::get(ctx);
  element = getElementTypeOrSelf(this->chain.scores.getDpsInputs()[0]);
  n = cast<ShapedType>(this->chain.scores.getResult(0).getType()).getShape()[2];
  scoresType = RankedTensorType::get({blockM, blockN}, f32, acc);
  rowType = RankedTensorType::get({blockM}, f32, rows);
  std::optional<FoldedScale> scale =
      foldableScale(this->chain.scoreOps, this->chain.scores);
  factor = kLog2e * (scale ? scale->value : 1.0);
  foldedScale = scale ? scale->op : nullptr;
  causalCompare = causalMask(this->chain.scoreOps);
}

Value OnlineSoftmax::splat(OpBuilder &b, double value, RankedTensorType type) {
  Value s = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  return tile::SplatOp::create(b, loc, type, s).getResult();
}

Value OnlineSoftmax::broadcastRows(OpBuilder &b, Value row, int64_t columns) {
  return broadcastSlice(b, loc, row, 1, {blockM, columns}, acc);
}

// The score ops' other operands, loaded onto the scores' layout at this
// block of keys (as a batched GEMM's epilogue operands).
FailureOr<Value> OnlineSoftmax::loadScoreOperand(OpBuilder &b,
                                                 linalg::GenericOp op,
                                                 OpOperand *operand, Value j) {
  GemmProgram place;
  place.batched = true;
  FailureOr<Value> memref = lookupInput(operand->get(), inputArgs, op);
  if (failed(memref))
    return failure();
  // This batch's slice: [B, M, N] at b, a padding mask [B', N] at
  // b floordiv H, a per-head bias [H, M, N] at b mod H; shared operands
  // as they are.
  FailureOr<std::pair<Value, AffineMap>> sliced = sliceBatchOperand(
      b, loc, op, *memref, op.getMatchingIndexingMap(operand), batch);
  if (failed(sliced))
    return failure();
  auto [source, map] = *sliced;
  place.place(firstRow, j, batch);
  Type type = getElementTypeOrSelf(operand->get());
  FailureOr<Value> loaded = place.loadOnAccumulator(b, loc, op, source, map,
                                                    type, acc, blockM, blockN);
  if (failed(loaded) || widened(type) == type)
    return loaded;
  return arith::ExtFOp::create(
             b, loc,
             RankedTensorType::get({blockM, blockN}, widened(type), acc),
             *loaded)
      .getResult();
}

// The positions of this block's scores along loop dim `dim` (0: the batch,
// 1: the query rows from m0, 2: the keys from j), as i32.
Value OnlineSoftmax::positions(OpBuilder &b, Value j, unsigned dim) {
  Type i32 = b.getI32Type();
  auto type = RankedTensorType::get({blockM, blockN}, i32, acc);
  if (dim == 0)
    return tile::SplatOp::create(
        b, loc, type, arith::IndexCastOp::create(b, loc, i32, batch).getResult());
  bool queries = dim == 1;
  int64_t length = queries ? blockM : blockN;
  auto vector = RankedTensorType::get({length}, i32,
                                      queries ? Attribute(rows) : Attribute(cols));
  Value start = arith::IndexCastOp::create(b, loc, i32, queries ? firstRow : j);
  Value at = arith::AddIOp::create(
      b, loc, tile::ArangeOp::create(b, loc, vector, 0u, uint32_t(length)),
      tile::SplatOp::create(b, loc, vector, start));
  return broadcastSlice(b, loc, at, queries ? 1u : 0u, {blockM, blockN}, acc);
}

FailureOr<Value> OnlineSoftmax::scores(OpBuilder &b, Value s, Value j,
                                       bool masked, Operation *alwaysTrue) {
  Value x = s;
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
      FailureOr<Value> loaded = loadScoreOperand(b, op, operand, j);
      if (failed(loaded))
        return failure();
      mapping.map(arg, *loaded);
    }
    FailureOr<Value> result = cloneOnTiles(
        b, loc, op, mapping,
        [&](Type t) { return RankedTensorType::get({blockM, blockN}, t, acc); },
        [&](unsigned dim) { return positions(b, j, dim); }, alwaysTrue,
        foldedScale);
    if (failed(result))
      return failure();
    x = *result;
  }
  x = arith::MulFOp::create(b, loc, x, splat(b, factor, scoresType));
  if (masked) {
    Value limit = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(n));
    Value inside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, positions(b, j, 2),
        tile::SplatOp::create(
            b, loc, RankedTensorType::get({blockM, blockN}, b.getI32Type(), acc),
            limit));
    x = arith::SelectOp::create(b, loc, inside, x,
                                splat(b, -std::numeric_limits<double>::infinity(),
                                      scoresType));
  }
  return x;
}

OnlineSoftmax::Update OnlineSoftmax::update(OpBuilder &b, Value x, Value mPrev,
                                            Value lPrev, Value oPrev) {
  double negInf = -std::numeric_limits<double>::infinity();
  auto combine = [&](bool max) {
    return [max](OpBuilder &rb, Location l, Value lhs, Value rhs) -> Value {
      if (max)
        return arith::MaximumFOp::create(rb, l, lhs, rhs);
      return arith::AddFOp::create(rb, l, lhs, rhs);
    };
  };
  Value mNew = arith::MaximumFOp::create(
      b, loc, mPrev, reduceRows(b, loc, x, rowType, combine(true)));
  // A row whose scores are all -inf so far subtracts 0, not -inf
  // (exp2(-inf - -inf) is NaN; its exps are 0 either way).
  Value isNegInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         mNew, splat(b, negInf, rowType));
  Value mUse = arith::SelectOp::create(b, loc, isNegInf,
                                       splat(b, 0.0, rowType), mNew);
  Value p = approxExp2(
      b, loc, arith::SubFOp::create(b, loc, x, broadcastRows(b, mUse, blockN)));
  Value alpha = approxExp2(b, loc, arith::SubFOp::create(b, loc, mPrev, mUse));
  Value lNew = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, lPrev, alpha),
      reduceRows(b, loc, p, rowType, combine(false)));
  Value oScaled = oPrev ? rescale(b, oPrev, alpha) : Value();
  Value pNarrow = arith::TruncFOp::create(
      b, loc, RankedTensorType::get({blockM, blockN}, element, acc), p);
  return {mNew, lNew, oScaled, pNarrow, alpha};
}

Value OnlineSoftmax::rescale(OpBuilder &b, Value o, Value alpha) {
  int64_t dv = cast<RankedTensorType>(o.getType()).getDimSize(1);
  return arith::MulFOp::create(b, loc, o, broadcastRows(b, alpha, dv));
}

SmallVector<Value> OnlineSoftmax::initialState(OpBuilder &b, int64_t dv) {
  return {splat(b, -std::numeric_limits<double>::infinity(), rowType),
          splat(b, 0.0, rowType),
          splat(b, 0.0, RankedTensorType::get({blockM, dv}, f32, acc))};
}

FailureOr<Value> OnlineSoftmax::finish(OpBuilder &b, Value o, Value l,
                                       int64_t dv) {
  Value result = arith::DivFOp::create(b, loc, o, broadcastRows(b, l, dv));
  if (!chain.epilogue)
    return result;
  IRMapping mapping;
  Block *body = chain.epilogue.getBody();
  mapping.map(body->getArgument(0), result);
  TileKernelBuilder kb(b, loc, BlockSchedule{});
  if (failed(kb.cloneBody(*body, mapping, [&](Type t) {
        return RankedTensorType::get({blockM, dv}, t, acc);
      })))
    return failure();
  return mapping.lookup(body->getTerminator()->getOperand(0));
}

Value OnlineSoftmax::keysEnd(OpBuilder &b) {
  Value keys = arith::ConstantIndexOp::create(b, loc, n);
  if (!causalCompare)
    return keys;
  return arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, firstRow,
                            arith::ConstantIndexOp::create(b, loc, blockM)),
      keys);
}

LogicalResult OnlineSoftmax::walk(OpBuilder &b, SmallVector<Value> &state,
                                  Step step, Step first) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // A pipelined loop's first block, built apart: masked when it is also a
  // partial last block (n < BN); causal, with the compare evaluated (the
  // diagonal when m0 = 0, true everywhere otherwise).
  int64_t from = 0;
  if (first) {
    FailureOr<SmallVector<Value>> next =
        first(b, c(0), state, /*masked=*/!causalCompare && n < blockN,
              nullptr);
    if (failed(next))
      return failure();
    state = *next;
    from = blockN;
  }
  // A loop of steps over keys [lo, hi).
  auto loop = [&](Value lo, Value hi, bool masked,
                  Operation *alwaysTrue) -> LogicalResult {
    bool failedStep = false;
    auto forOp = scf::ForOp::create(
        b, loc, lo, hi, c(blockN), state,
        [&](OpBuilder &lb, Location, Value j, ValueRange iter) {
          FailureOr<SmallVector<Value>> next =
              step(lb, j, iter, masked, alwaysTrue);
          failedStep = failed(next);
          scf::YieldOp::create(lb, loc, failedStep ? ValueRange(iter)
                                                   : ValueRange(*next));
        });
    state.assign(forOp.getResults().begin(), forOp.getResults().end());
    return failure(failedStep);
  };
  if (causalCompare) {
    // Causal: the key blocks before the program's first query row are kept
    // whole (the mask's compare is true there: no mask), the blocks of its
    // diagonal run masked, and those past its last row (masked whole) are
    // skipped. Keys past n only reach rows past n, which are not stored.
    if (blockM % blockN)
      return chain.softmax.emitOpError()
             << "lowering_config block [" << blockM << ", " << blockN
             << "]: a causal attention plan needs BM a multiple of BN (the "
                "diagonal starts at a whole block of keys)";
    Value end = keysEnd(b);
    Value diagonal = firstRow;
    if (from)
      diagonal = arith::MaxUIOp::create(b, loc, firstRow, c(from));
    if (failed(loop(c(from), firstRow, /*masked=*/false, causalCompare)) ||
        failed(loop(diagonal, end, /*masked=*/false, nullptr)))
      return failure();
    return success();
  }
  int64_t whole = n / blockN * blockN;
  if (whole > from &&
      failed(loop(c(from), c(whole), /*masked=*/false, nullptr)))
    return failure();
  if (whole < n && whole >= from) {
    FailureOr<SmallVector<Value>> next =
        step(b, c(whole), state, /*masked=*/true, nullptr);
    if (failed(next))
      return failure();
    state = *next;
  }
  return success();
}
