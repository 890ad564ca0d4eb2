//===- TccOps.cpp - tcc tensor dialect ops --------------------------------===//
//
// Verifiers, custom assembly directives and folds of the tcc ops. Shared
// checks (dim lists, compatible dims) live in the helpers at the top so every
// op reports mismatches the same way: naming the operand, the dim and sizes.
//
//===----------------------------------------------------------------------===//
#include "tcc/Dialect/Tcc/IR/TccOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::tcc;

#include "tcc/Dialect/Tcc/IR/TccEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Prints a dim size the way tensor types do: `?` when dynamic.
static std::string dimToString(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks that `dims` (the attribute `attrName`) is sorted, unique and every
/// entry lies in [0, rank).
static LogicalResult verifyDimList(Operation *op, StringRef attrName,
                                   ArrayRef<int64_t> dims, int64_t rank) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return op->emitOpError("'")
             << attrName << "' entry " << d << " is out of range [0, " << rank
             << ")";
    if (i > 0 && dims[i - 1] >= d)
      return op->emitOpError("'")
             << attrName << "' must be sorted and unique, but entry " << d
             << " follows " << dims[i - 1];
  }
  return success();
}

/// Checks that result dim `resIdx` is compatible with `otherName` dim
/// `otherIdx`.
static LogicalResult verifyResultDim(Operation *op, ShapedType result,
                                     int64_t resIdx, StringRef otherName,
                                     ShapedType other, int64_t otherIdx) {
  int64_t r = result.getDimSize(resIdx), o = other.getDimSize(otherIdx);
  if (dimsCompatible(r, o))
    return success();
  return op->emitOpError("result dim ")
         << resIdx << " (size " << dimToString(r) << ") does not match "
         << otherName << " dim " << otherIdx << " (size " << dimToString(o)
         << ")";
}

static LogicalResult verifySameElementType(Operation *op, StringRef aName,
                                           ShapedType a, StringRef bName,
                                           ShapedType b) {
  if (a.getElementType() == b.getElementType())
    return success();
  return op->emitOpError()
         << aName << " element type " << a.getElementType()
         << " does not match " << bName << " element type "
         << b.getElementType();
}

LogicalResult mlir::tcc::verifyElementwiseBinary(Operation *op) {
  auto lhs = cast<ShapedType>(op->getOperand(0).getType());
  auto rhs = cast<ShapedType>(op->getOperand(1).getType());
  auto res = cast<ShapedType>(op->getResult(0).getType());
  if (failed(verifyCompatibleShape(lhs, rhs)))
    return op->emitOpError("lhs type ")
           << lhs << " and rhs type " << rhs << " are not compatible";
  if (failed(verifyCompatibleShape(res, lhs)))
    return op->emitOpError("result type ")
           << res << " is not compatible with lhs type " << lhs;
  if (failed(verifyCompatibleShape(res, rhs)))
    return op->emitOpError("result type ")
           << res << " is not compatible with rhs type " << rhs;
  if (failed(verifySameElementType(op, "rhs", rhs, "lhs", lhs)) ||
      failed(verifySameElementType(op, "result", res, "lhs", lhs)))
    return failure();
  return success();
}

/// Checks that `res` (result `resName`) is `in` with `dims` removed, or set to
/// 1 with `keepdims`.
static LogicalResult verifyReducedType(Operation *op, StringRef resName,
                                       ShapedType in, ShapedType res,
                                       ArrayRef<int64_t> dims, bool keepdims) {
  // Expected result dims: input dim index, or -1 for a kept reduced dim.
  SmallVector<int64_t> fromInput;
  for (int64_t i = 0, e = in.getRank(); i < e; ++i) {
    if (!llvm::is_contained(dims, i))
      fromInput.push_back(i);
    else if (keepdims)
      fromInput.push_back(-1);
  }
  if (res.getRank() != static_cast<int64_t>(fromInput.size()))
    return op->emitOpError()
           << resName << " rank " << res.getRank()
           << " does not match expected rank " << fromInput.size()
           << " (input rank " << in.getRank() << ", reducing " << dims.size()
           << " dim(s)" << (keepdims ? " with keepdims" : "") << ")";
  for (auto [i, src] : llvm::enumerate(fromInput)) {
    if (src >= 0) {
      int64_t r = res.getDimSize(i), o = in.getDimSize(src);
      if (!dimsCompatible(r, o))
        return op->emitOpError()
               << resName << " dim " << i << " (size " << dimToString(r)
               << ") does not match input dim " << src << " (size "
               << dimToString(o) << ")";
      continue;
    }
    if (!dimsCompatible(res.getDimSize(i), 1))
      return op->emitOpError()
             << resName << " dim " << i << " (size "
             << dimToString(res.getDimSize(i))
             << ") must be 1: it is a reduced dim kept by keepdims";
  }
  return success();
}

LogicalResult mlir::tcc::verifyReduction(Operation *op, ArrayRef<int64_t> dims,
                                         bool keepdims) {
  auto in = cast<ShapedType>(op->getOperand(0).getType());
  auto res = cast<ShapedType>(op->getResult(0).getType());
  if (dims.empty())
    return op->emitOpError("'dims' must not be empty");
  if (failed(verifyDimList(op, "dims", dims, in.getRank())) ||
      failed(verifySameElementType(op, "result", res, "input", in)))
    return failure();
  return verifyReducedType(op, "result", in, res, dims, keepdims);
}

LogicalResult mlir::tcc::verifyArgReduction(Operation *op, int64_t dim,
                                            bool keepdims) {
  auto in = cast<ShapedType>(op->getOperand(0).getType());
  auto values = cast<ShapedType>(op->getResult(0).getType());
  auto indices = cast<ShapedType>(op->getResult(1).getType());
  if (dim < 0 || dim >= in.getRank())
    return op->emitOpError("'dim' ")
           << dim << " is out of range [0, " << in.getRank() << ")";
  if (failed(verifySameElementType(op, "values", values, "input", in)))
    return failure();
  int64_t dims[] = {dim};
  if (failed(verifyReducedType(op, "values", in, values, dims, keepdims)) ||
      failed(verifyReducedType(op, "indices", in, indices, dims, keepdims)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// `: T` when lhs, rhs and result types are all equal, else
/// `: (lhs, rhs) -> result` (they may differ in static vs dynamic dims).
static ParseResult parseElementwiseTypes(OpAsmParser &parser, Type &lhs,
                                         Type &rhs, Type &result) {
  Type type;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseType(type))
    return failure();
  auto fn = dyn_cast<FunctionType>(type);
  if (!fn) {
    lhs = rhs = result = type;
    return success();
  }
  if (fn.getNumInputs() != 2 || fn.getNumResults() != 1)
    return parser.emitError(loc, "expected a single type or "
                                 "'(lhs-type, rhs-type) -> result-type'");
  lhs = fn.getInput(0);
  rhs = fn.getInput(1);
  result = fn.getResult(0);
  return success();
}

static void printElementwiseTypes(OpAsmPrinter &printer, Operation *op,
                                  Type lhs, Type rhs, Type result) {
  if (lhs == rhs && rhs == result)
    printer << result;
  else
    printer << FunctionType::get(op->getContext(), {lhs, rhs}, {result});
}

/// The predicate as a bare keyword: `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
static ParseResult parseComparePredicate(OpAsmParser &parser,
                                         ComparePredicateAttr &attr) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ComparePredicate> value = symbolizeComparePredicate(keyword);
  if (!value)
    return parser.emitError(loc, "expected one of eq, ne, lt, le, gt, ge, "
                                 "got '")
           << keyword << "'";
  attr = ComparePredicateAttr::get(parser.getContext(), *value);
  return success();
}

static void printComparePredicate(OpAsmPrinter &printer, Operation *,
                                  ComparePredicateAttr attr) {
  printer << stringifyComparePredicate(attr.getValue());
}

/// `: T -> R` when lhs and rhs types are equal, else `: (lhs, rhs) -> R`.
static ParseResult parseCompareTypes(OpAsmParser &parser, Type &lhs,
                                     Type &rhs, Type &result) {
  Type type;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseType(type))
    return failure();
  if (auto fn = dyn_cast<FunctionType>(type)) {
    if (fn.getNumInputs() != 2 || fn.getNumResults() != 1)
      return parser.emitError(loc, "expected 'type -> result-type' or "
                                   "'(lhs-type, rhs-type) -> result-type'");
    lhs = fn.getInput(0);
    rhs = fn.getInput(1);
    result = fn.getResult(0);
    return success();
  }
  lhs = rhs = type;
  return failure(parser.parseArrow() || parser.parseType(result));
}

static void printCompareTypes(OpAsmPrinter &printer, Operation *op, Type lhs,
                              Type rhs, Type result) {
  if (lhs == rhs)
    printer << lhs << " -> " << result;
  else
    printer << FunctionType::get(op->getContext(), {lhs, rhs}, {result});
}

/// Optional ` approximate = tanh`; absent means the default, `none`. The
/// directive prints its own leading space so the default form has no double
/// space.
static ParseResult parseGeluApproximation(OpAsmParser &parser,
                                          GeluApproximationAttr &attr) {
  if (failed(parser.parseOptionalKeyword("approximate"))) {
    attr = GeluApproximationAttr::get(parser.getContext(),
                                      GeluApproximation::none);
    return success();
  }
  StringRef keyword;
  SMLoc loc;
  if (parser.parseEqual() ||
      (loc = parser.getCurrentLocation(), parser.parseKeyword(&keyword)))
    return failure();
  std::optional<GeluApproximation> value =
      symbolizeGeluApproximation(keyword);
  if (!value)
    return parser.emitError(loc, "expected 'none' or 'tanh', got '")
           << keyword << "'";
  attr = GeluApproximationAttr::get(parser.getContext(), *value);
  return success();
}

static void printGeluApproximation(OpAsmPrinter &printer, Operation *,
                                   GeluApproximationAttr attr) {
  if (attr && attr.getValue() != GeluApproximation::none)
    printer << " approximate = " << stringifyGeluApproximation(attr.getValue());
}

#define GET_OP_CLASSES
#include "tcc/Dialect/Tcc/IR/TccOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Elementwise folds
//===----------------------------------------------------------------------===//

/// Folds a binary op over two constants. Only when all types are equal and
/// static, so the folded attribute has exactly the result type.
template <typename FloatFn, typename IntFn>
static OpFoldResult foldConstantBinary(Operation *op,
                                       ArrayRef<Attribute> operands,
                                       FloatFn floatFn, IntFn intFn) {
  auto type = cast<ShapedType>(op->getResult(0).getType());
  if (op->getOperand(0).getType() != type ||
      op->getOperand(1).getType() != type || !type.hasStaticShape())
    return {};
  if (isa<FloatType>(type.getElementType()))
    return constFoldBinaryOp<FloatAttr>(operands, type, floatFn);
  return constFoldBinaryOp<IntegerAttr>(operands, type, intFn);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldConstantBinary(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b) { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldConstantBinary(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a - b; },
      [](const APInt &a, const APInt &b) { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldConstantBinary(
      *this, adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b) { return a * b; });
}

// Division by zero, NaN handling of max/min and pow's precision are left to
// the lowering; these ops do not constant-fold.
OpFoldResult DivOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MaxOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MinOp::fold(FoldAdaptor) { return {}; }
OpFoldResult PowOp::fold(FoldAdaptor) { return {}; }

/// neg(neg(x)) -> x.
OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

/// abs(abs(x)) -> abs(x): abs is idempotent.
OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (getInput().getDefiningOp<AbsOp>())
    return getInput();
  return {};
}

/// relu(relu(x)) -> relu(x): relu is idempotent.
OpFoldResult ReluOp::fold(FoldAdaptor) {
  if (getInput().getDefiningOp<ReluOp>())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CmpOp, SelectOp
//===----------------------------------------------------------------------===//

/// Checks that `a` (named `aName`) and `b` have compatible shapes.
static LogicalResult verifyNamedCompatible(Operation *op, StringRef aName,
                                            Type a, StringRef bName, Type b) {
  if (succeeded(verifyCompatibleShape(a, b)))
    return success();
  return op->emitOpError() << aName << " type " << a << " and " << bName
                           << " type " << b << " are not compatible";
}

LogicalResult CmpOp::verifyEarly() {
  Type lhs = getLhs().getType(), rhs = getRhs().getType();
  if (failed(verifyNamedCompatible(*this, "lhs", lhs, "rhs", rhs)) ||
      failed(verifyNamedCompatible(*this, "result", getType(), "lhs", lhs)) ||
      failed(verifyNamedCompatible(*this, "result", getType(), "rhs", rhs)))
    return failure();
  return verifySameElementType(*this, "rhs", cast<ShapedType>(rhs), "lhs",
                               cast<ShapedType>(lhs));
}

/// The values and the result have one type (AllTypesMatch); the condition
/// needs a compatible shape.
LogicalResult SelectOp::verifyEarly() {
  return verifyNamedCompatible(*this, "condition", getCondition().getType(),
                               "true_value", getTrueValue().getType());
}

/// select(c, a, a) -> a; select(splat true/false, a, b) -> a / b (when the
/// chosen value has the result type).
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  Value chosen;
  if (getTrueValue() == getFalseValue())
    chosen = getTrueValue();
  else if (auto cond =
               dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition()))
    chosen = cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  if (chosen && chosen.getType() == getType())
    return chosen;
  return {};
}

//===----------------------------------------------------------------------===//
// ReduceArgMaxOp, ReduceArgMinOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceArgMaxOp::verify() {
  return verifyArgReduction(*this, getDim(), getKeepdims());
}

LogicalResult ReduceArgMinOp::verify() {
  return verifyArgReduction(*this, getDim(), getKeepdims());
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto in = cast<ShapedType>(getInput().getType());
  auto res = cast<ShapedType>(getResult().getType());
  ArrayRef<int64_t> dims = getDims();
  if (failed(verifySameElementType(*this, "result", res, "input", in)) ||
      failed(verifyDimList(*this, "dims", dims, res.getRank())))
    return failure();
  if (res.getRank() != in.getRank() + static_cast<int64_t>(dims.size()))
    return emitOpError("result rank ")
           << res.getRank() << " must equal input rank " << in.getRank()
           << " plus the number of added dims " << dims.size();
  int64_t inIdx = 0, numDynamicAdded = 0;
  for (int64_t i = 0, e = res.getRank(); i < e; ++i) {
    if (llvm::is_contained(dims, i)) {
      numDynamicAdded += res.isDynamicDim(i);
      continue;
    }
    if (failed(verifyResultDim(*this, res, i, "input", in, inIdx++)))
      return failure();
  }
  if (static_cast<int64_t>(getSizes().size()) != numDynamicAdded)
    return emitOpError("expected ")
           << numDynamicAdded
           << " 'sizes' operand(s), one per dynamic added dim, but got "
           << getSizes().size();
  return success();
}

/// Broadcasting nothing is the identity.
OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getDims().empty() && getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verifyEarly() {
  if (failed(verifyCompatibleShape(getInput().getType(), getType())))
    return emitOpError("result type ")
           << getType() << " is not shape-compatible with input type "
           << getInput().getType();
  return success();
}

/// Casting to the same type is the identity. cast(cast(x)) is deliberately
/// not folded: the intermediate type may round.
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

Type MatmulOp::getAccumulatorType() {
  if (std::optional<Type> acc = getAccType())
    return *acc;
  return getType().getElementType();
}

LogicalResult MatmulOp::verify() {
  auto lhs = cast<ShapedType>(getLhs().getType());
  auto rhs = cast<ShapedType>(getRhs().getType());
  auto res = cast<ShapedType>(getType());
  int64_t rank = lhs.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("lhs must have rank 2 (MxK) or 3 (BxMxK), but has rank ")
           << rank;
  if (rhs.getRank() != rank)
    return emitOpError("rhs rank ")
           << rhs.getRank() << " does not match lhs rank " << rank;
  if (res.getRank() != rank)
    return emitOpError("result rank ")
           << res.getRank() << " does not match lhs rank " << rank;

  // Compares dim `ai` of `aName` with dim `bi` of `bName`, both named `letter`.
  auto checkDim = [&](StringRef aName, ShapedType a, int64_t ai,
                      StringRef bName, ShapedType b, int64_t bi,
                      StringRef letter) -> LogicalResult {
    int64_t x = a.getDimSize(ai), y = b.getDimSize(bi);
    if (dimsCompatible(x, y))
      return success();
    return emitOpError()
           << aName << " dim " << ai << " (" << letter << " = "
           << dimToString(x) << ") does not match " << bName << " dim " << bi
           << " (" << letter << " = " << dimToString(y) << ")";
  };
  int64_t b = rank - 2; // Index of M in lhs / result, of K in rhs.
  if (rank == 3 && (failed(checkDim("lhs", lhs, 0, "rhs", rhs, 0, "B")) ||
                    failed(checkDim("result", res, 0, "lhs", lhs, 0, "B"))))
    return failure();
  if (failed(checkDim("lhs", lhs, b + 1, "rhs", rhs, b, "K")) ||
      failed(checkDim("result", res, b, "lhs", lhs, b, "M")) ||
      failed(checkDim("result", res, b + 1, "rhs", rhs, b + 1, "N")))
    return failure();

  if (failed(verifySameElementType(*this, "rhs", rhs, "lhs", lhs)))
    return failure();
  Type elt = lhs.getElementType(), resElt = res.getElementType();
  Type acc = getAccumulatorType();
  if (elt.isInteger(8)) {
    if (!resElt.isInteger(32))
      return emitOpError("result element type ")
             << resElt << " must be i32 for i8 operands";
    if (!acc.isInteger(32))
      return emitOpError("acc_type ") << acc << " must be i32 for i8 operands";
    return success();
  }
  if (!isa<FloatType>(resElt))
    return emitOpError("result element type ")
           << resElt << " must be float for float operands";
  // The accumulator is the operand type itself or a strictly wider float
  // (bf16 does not accumulate f16 or vice versa).
  auto accFloat = dyn_cast<FloatType>(acc);
  if (!accFloat || (acc != elt && accFloat.getWidth() <=
                                      cast<FloatType>(elt).getWidth()))
    return emitOpError("acc_type ")
           << acc << " must be the operand element type " << elt
           << " or a wider float type";
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getType().getRank(), dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError("'dim' ")
           << dim << " is out of range [0, " << rank << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 1)
    return emitOpError("result must be 1-D, got ") << type;
  if (int64_t(getSizes().size()) != type.getNumDynamicDims())
    return emitOpError("takes one size per dynamic dim of its result (")
           << type.getNumDynamicDims() << "), got " << getSizes().size();
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = cast<ShapedType>(getInput().getType());
  auto res = cast<ShapedType>(getType());
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = in.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError("'permutation' has ")
           << perm.size() << " entries but the input rank is " << rank;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return emitOpError("'permutation' entry ")
             << p << " is out of range [0, " << rank << ")";
    if (seen[p])
      return emitOpError("'permutation' repeats entry ") << p;
    seen[p] = true;
  }
  if (res.getRank() != rank)
    return emitOpError("result rank ")
           << res.getRank() << " does not match input rank " << rank;
  if (failed(verifySameElementType(*this, "result", res, "input", in)))
    return failure();
  for (auto [i, p] : llvm::enumerate(perm))
    if (failed(verifyResultDim(*this, res, i, "input", in, p)))
      return failure();
  return success();
}

/// Identity permutations fold away; transpose(transpose(x)) becomes one
/// transpose of x (in place) or x itself when the composition is the identity
/// and the types agree (an identity that refines the type stays as an op).
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    for (auto [i, p] : llvm::enumerate(perm))
      if (static_cast<int64_t>(i) != p)
        return false;
    return true;
  };
  if (isIdentity(getPermutation()) && getInput().getType() == getType())
    return getInput();

  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // result dim i = inner dim perm[i] = x dim innerPerm[perm[i]].
  SmallVector<int64_t> composed;
  for (int64_t p : getPermutation())
    composed.push_back(inner.getPermutation()[p]);
  Value x = inner.getInput();
  auto xType = cast<ShapedType>(x.getType());
  if (isIdentity(composed) && xType == getType())
    return x;
  // Compatibility is not transitive through a dynamic dim: only rewrite when
  // the composed op still verifies.
  for (auto [i, p] : llvm::enumerate(composed))
    if (!dimsCompatible(getType().getDimSize(i), xType.getDimSize(p)))
      return {};
  getInputMutable().assign(x);
  setPermutation(composed);
  return getResult();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = cast<ShapedType>(getInput().getType());
  auto res = cast<ShapedType>(getType());
  if (failed(verifySameElementType(*this, "result", res, "input", in)))
    return failure();
  int64_t numDynamic = res.getNumDynamicDims();
  if (static_cast<int64_t>(getSizes().size()) != numDynamic)
    return emitOpError("expected ")
           << numDynamic
           << " 'sizes' operand(s), one per dynamic result dim, but got "
           << getSizes().size();
  if (in.hasStaticShape() && res.hasStaticShape() &&
      in.getNumElements() != res.getNumElements())
    return emitOpError("input type ")
           << in << " has " << in.getNumElements()
           << " elements but result type " << res << " has "
           << res.getNumElements();
  // A rank-0 side holds one element: the other side must be static ones.
  auto allStaticOnes = [](ShapedType t) {
    return llvm::all_of(t.getShape(), [](int64_t d) { return d == 1; });
  };
  if ((in.getRank() == 0 && !allStaticOnes(res)) ||
      (res.getRank() == 0 && !allStaticOnes(in)))
    return emitOpError("a reshape to or from rank 0 needs static unit dims, "
                       "but input type is ")
           << in << " and result type is " << res;
  return success();
}

/// Whether reshaping a `from` tensor to `to` is the identity: equal types with
/// at most one dynamic dim (the element count then fixes it).
static bool isIdentityReshape(Type from, RankedTensorType to) {
  return from == to && to.getNumDynamicDims() <= 1;
}

/// An identity reshape folds away; reshape(reshape(x)) reshapes x once (the
/// outer op's sizes already describe its result).
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (isIdentityReshape(getInput().getType(), getType()))
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (isIdentityReshape(inner.getInput().getType(), getType()))
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

/// Whether `memref` (a tile.func argument) holds `tensor`'s values: same
/// shape and element type.
static bool holds(Type memref, Type tensor) {
  auto m = dyn_cast<MemRefType>(memref);
  auto t = cast<RankedTensorType>(tensor);
  return m && m.getShape() == t.getShape() &&
         m.getElementType() == t.getElementType();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *callee =
      symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("kernel ") << getCallee() << " does not exist";
  auto function = dyn_cast<FunctionOpInterface>(callee);
  if (!function)
    return emitOpError("callee ") << getCallee() << " is not a kernel function";
  if (callee->getName().getStringRef() == "gpu.func")
    return success(); // after convert-tile-to-gpu: memrefs were lowered
  ArrayRef<Type> args = function.getArgumentTypes();
  bool onTensors = llvm::all_of(
      args, [](Type type) { return isa<RankedTensorType>(type); });
  if (onTensors) {
    if (TypeRange(args) != getInputs().getTypes() ||
        TypeRange(function.getResultTypes()) != getResults().getTypes())
      return emitOpError("types do not match kernel ")
             << getCallee() << " of type " << function.getFunctionType();
    return success();
  }
  // A kernel's trailing TMA tensor maps (tcc.tensor_maps) are the
  // runtime's to build from the memrefs, not the launch's operands.
  if (auto maps = callee->getAttrOfType<ArrayAttr>("tcc.tensor_maps"))
    args = args.drop_back(std::min<size_t>(maps.size(), args.size()));
  // Before them, a split-K kernel's workspace (tcc.workspace), which the
  // host plan provides.
  if (auto workspace =
          callee->getAttrOfType<DenseI32ArrayAttr>("tcc.workspace"))
    args = args.drop_back(std::min<size_t>(workspace.size(), args.size()));
  if (!function.getResultTypes().empty() ||
      args.size() != getInputs().size() + getResults().size())
    return emitOpError("kernel ")
           << getCallee() << " of type " << function.getFunctionType()
           << " does not take one memref per input and result ("
           << getInputs().size() << " + " << getResults().size() << ")";
  SmallVector<Type> values(getInputs().getTypes());
  llvm::append_range(values, getResults().getTypes());
  for (auto [i, pair] : llvm::enumerate(llvm::zip(args, values)))
    if (!holds(std::get<0>(pair), std::get<1>(pair)))
      return emitOpError("kernel ")
             << getCallee() << " argument #" << i << " has type "
             << std::get<0>(pair) << ", which does not hold "
             << std::get<1>(pair);
  return success();
}
