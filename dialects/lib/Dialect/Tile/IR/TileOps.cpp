//===- TileOps.cpp - tile dialect ops -------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#define GET_OP_CLASSES
#include "tcc/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

static Attribute layoutOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getEncoding();
  return {};
}

/// `elem`, as a tile with `shapeOf`'s shape and layout when that is a tile.
static Type tileLike(Type shapeOf, Type elem) {
  if (auto tensor = dyn_cast<RankedTensorType>(shapeOf))
    return RankedTensorType::get(tensor.getShape(), elem, tensor.getEncoding());
  return elem;
}

/// What a load through `ptrLike` gives (null if it holds no pointers).
static Type pointeeTileOf(Type ptrLike) {
  auto ptr = dyn_cast<PtrType>(elementTypeOf(ptrLike));
  return ptr ? tileLike(ptrLike, ptr.getPointeeType()) : Type();
}

/// `64x128` for diagnostics.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string str;
  llvm::raw_string_ostream os(str);
  llvm::interleave(shape, os, "x");
  return str;
}

static LogicalResult verifySameElementType(Operation *op, Type src, Type res) {
  if (elementTypeOf(src) != elementTypeOf(res))
    return op->emitOpError("result element type ")
           << elementTypeOf(res) << " must match 'src' element type "
           << elementTypeOf(src);
  return success();
}

static LogicalResult verifySameLayout(Operation *op, Type src, Type res) {
  if (layoutOf(src) != layoutOf(res))
    return op->emitOpError("result layout ")
           << layoutOf(res) << " must match 'src' layout " << layoutOf(src);
  return success();
}

/// `b` is a scalar when `a` is, else a tile of `a`'s shape and layout.
static LogicalResult verifyShapedLike(Operation *op, StringRef aName, Type a,
                                      StringRef bName, Type b) {
  auto aTile = dyn_cast<RankedTensorType>(a);
  auto bTile = dyn_cast<RankedTensorType>(b);
  if (!aTile && !bTile)
    return success();
  if (!aTile || !bTile || aTile.getShape() != bTile.getShape() ||
      aTile.getEncoding() != bTile.getEncoding())
    return op->emitOpError("'")
           << bName << "' type " << b << " must have the shape and layout of '"
           << aName << "' type " << a;
  return success();
}

/// The mask and `other` value of an access moving data of type `dataType`.
static LogicalResult verifyMaskAndOther(Operation *op, Type dataType,
                                        Value mask, Value other) {
  if (mask) {
    Type expected = tileLike(dataType, IntegerType::get(op->getContext(), 1));
    if (mask.getType() != expected)
      return op->emitOpError("'mask' type ")
             << mask.getType() << " must be " << expected
             << " (i1, shaped like the data)";
  }
  if (other) {
    if (!mask)
      return op->emitOpError("'other' requires a 'mask'");
    if (other.getType() != dataType)
      return op->emitOpError("'other' type ")
             << other.getType() << " must match the loaded type " << dataType;
  }
  return success();
}

/// A memref window: one offset per memref dimension, a tile of its rank and
/// element type.
static LogicalResult verifyMemRefWindow(Operation *op, MemRefType memref,
                                        size_t numOffsets, Type tile,
                                        StringRef tileName) {
  int64_t rank = memref.getRank();
  if (static_cast<int64_t>(numOffsets) != rank)
    return op->emitOpError("expects ")
           << rank << " offsets for a rank-" << rank << " memref, got "
           << numOffsets;
  auto tileType = cast<RankedTensorType>(tile);
  if (tileType.getRank() != rank)
    return op->emitOpError("'")
           << tileName << "' rank " << tileType.getRank()
           << " must equal the memref rank " << rank;
  if (tileType.getElementType() != memref.getElementType())
    return op->emitOpError("'")
           << tileName << "' element type " << tileType.getElementType()
           << " must match the memref element type "
           << memref.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel form
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, unsigned gridRank,
                   DictionaryAttr constexprs) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addAttribute(getGridRankAttrName(state.name),
                     builder.getI32IntegerAttr(gridRank));
  if (constexprs)
    state.addAttribute(getConstexprsAttrName(state.name), constexprs);
  // Kernels always have a body: create the entry block with the arguments.
  Block *entry = new Block();
  state.addRegion()->push_back(entry);
  for (Type input : type.getInputs())
    entry->addArgument(input, state.location);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  int64_t gridRank = getGridRankAttr().getInt();
  if (gridRank < 1 || gridRank > 3)
    return emitOpError("grid_rank must be 1, 2 or 3, got ") << gridRank;
  if (getFunctionType().getNumResults() != 0)
    return emitOpError("a kernel returns nothing (it writes through "
                       "pointers), but the signature has ")
           << getFunctionType().getNumResults() << " result(s)";
  // `tcc.tensor_maps` names the trailing !llvm.ptr arguments that are TMA
  // tensor maps (128-byte CUtensorMaps the runtime passes by value).
  auto maps = (*this)->getAttrOfType<ArrayAttr>("tcc.tensor_maps");
  unsigned firstMap = getArgumentTypes().size() - (maps ? maps.size() : 0);
  for (auto [i, type] : llvm::enumerate(getArgumentTypes())) {
    if (i >= firstMap && isa<LLVM::LLVMPointerType>(type))
      continue;
    if (!isa<IntegerType, IndexType, FloatType, PtrType, MemRefType>(type))
      return emitOpError("argument #")
             << i << " has type " << type
             << "; kernel arguments are integers, floats, !tile.ptr or "
                "memrefs (and trailing !llvm.ptr tensor maps that "
                "tcc.tensor_maps describes)";
  }
  if (DictionaryAttr constexprs = getConstexprsAttr())
    for (NamedAttribute entry : constexprs)
      if (!isa<IntegerAttr>(entry.getValue()))
        return emitOpError("constexpr '")
               << entry.getName().getValue()
               << "' must be an integer or bool attribute, got "
               << entry.getValue();
  if (isExternal())
    return emitOpError("a kernel needs a body");
  return success();
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

LogicalResult mlir::tcc::tile::verifyGridAxis(Operation *op, int32_t axis) {
  if (axis < 0 || axis > 2)
    return op->emitOpError("axis must be 0, 1 or 2, got ") << axis;
  // Outside a kernel (e.g. while one is being built) there is no grid yet.
  auto func = op->getParentOfType<FuncOp>();
  if (!func || !func.getGridRankAttr())
    return success();
  int64_t gridRank = func.getGridRankAttr().getInt();
  if (axis >= gridRank)
    return op->emitOpError("axis ")
           << axis << " is out of range for the enclosing tile.func @"
           << func.getSymName() << " with grid_rank " << gridRank;
  return success();
}

//===----------------------------------------------------------------------===//
// Building and reshaping tiles
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  RankedTensorType type = getType();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-D tile, got rank ")
           << type.getRank();
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError("end (") << end << ") must be greater than start ("
                                << start << ")";
  int64_t length = end - start;
  if (length != type.getDimSize(0))
    return emitOpError("end - start = ")
           << length << " does not match the result length "
           << type.getDimSize(0);
  if (!llvm::isPowerOf2_64(length))
    return emitOpError("length ") << length << " must be a power of two";
  return success();
}

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError("result element type ")
           << getType().getElementType() << " must match the 'src' type "
           << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType src = getSrc().getType(), res = getType();
  if (failed(verifySameElementType(*this, src, res)) ||
      failed(verifySameLayout(*this, src, res)))
    return failure();
  if (src.getRank() != res.getRank())
    return emitOpError("result rank ")
           << res.getRank() << " must equal 'src' rank " << src.getRank();
  for (int64_t i = 0, e = src.getRank(); i < e; ++i)
    if (src.getDimSize(i) != res.getDimSize(i) && src.getDimSize(i) != 1)
      return emitOpError("dimension ")
             << i << " of 'src' has size " << src.getDimSize(i)
             << " and the result " << res.getDimSize(i)
             << "; only size-1 dimensions broadcast";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  RankedTensorType src = getSrc().getType(), res = getType();
  if (failed(verifySameElementType(*this, src, res)))
    return failure();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " is out of range [0, "
                                << src.getRank() << "]";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << shapeStr(res.getShape()) << " must be 'src' shape "
           << shapeStr(src.getShape()) << " with a 1 at axis " << axis << " ("
           << shapeStr(expected) << ")";
  Attribute srcLayout = src.getEncoding(), resLayout = res.getEncoding();
  if (!srcLayout && !resLayout)
    return success();
  if (!srcLayout || !resLayout)
    return emitOpError("'src' and result must both have layouts or neither");
  auto slice = dyn_cast<SliceEncodingAttr>(srcLayout);
  if (!slice || slice.getDim() != axis || slice.getParent() != resLayout)
    return emitOpError("'src' layout must be the result layout sliced at axis ")
           << axis << " ("
           << SliceEncodingAttr::get(getContext(), axis, resLayout)
           << "), got " << srcLayout;
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType src = getSrc().getType(), res = getType();
  if (failed(verifySameElementType(*this, src, res)))
    return failure();
  if (src.getNumElements() != res.getNumElements())
    return emitOpError("'src' has ")
           << src.getNumElements() << " elements but the result has "
           << res.getNumElements();
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  RankedTensorType src = getSrc().getType(), res = getType();
  if (failed(verifySameElementType(*this, src, res)))
    return failure();
  if (src.getShape() != res.getShape())
    return emitOpError("result shape ")
           << shapeStr(res.getShape()) << " must equal 'src' shape "
           << shapeStr(src.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  return verifyShapedLike(*this, "ptr", getPtr().getType(), "offset",
                          getOffset().getType());
}

/// Operands after the address (`%mask, %other` / `%value, %mask`).
static ParseResult parseTrailingOperands(
    OpAsmParser &parser, size_t min, size_t max,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
    StringRef expected) {
  SMLoc loc = parser.getCurrentLocation();
  size_t before = operands.size();
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseOperandList(operands))
    return failure();
  size_t parsed = operands.size() - before;
  if (parsed < min || parsed > max)
    return parser.emitError(loc, "expected ") << expected;
  return success();
}

static ParseResult
resolveAll(OpAsmParser &parser,
           ArrayRef<OpAsmParser::UnresolvedOperand> operands,
           ArrayRef<Type> types, OperationState &result) {
  for (auto [operand, type] : llvm::zip(operands, types))
    if (parser.resolveOperand(operand, type, result.operands))
      return failure();
  return success();
}

/// `%ptr, <trailing> attr-dict : ptr-type`; returns the ptr type and the
/// pointee tile it implies.
static ParseResult parsePtrAccess(
    OpAsmParser &parser, OperationState &result, size_t minTrailing,
    size_t maxTrailing, StringRef expected,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands, Type &ptrType,
    Type &valueType) {
  operands.emplace_back();
  if (parser.parseOperand(operands.front()) ||
      parseTrailingOperands(parser, minTrailing, maxTrailing, operands,
                            expected) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseColonType(ptrType))
    return failure();
  valueType = pointeeTileOf(ptrType);
  if (!valueType)
    return parser.emitError(typeLoc,
                            "expected !tile.ptr or a tile of !tile.ptr, got ")
           << ptrType;
  return success();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType, valueType;
  if (parsePtrAccess(parser, result, 0, 2, "'ptr', optional 'mask', 'other'",
                     operands, ptrType, valueType))
    return failure();
  Type maskType = tileLike(ptrType, parser.getBuilder().getI1Type());
  if (resolveAll(parser, operands, {ptrType, maskType, valueType}, result))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, operands.size() > 1, operands.size() > 2};
  result.addTypes(valueType);
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << ' ' << getOperation()->getOperands();
  p.printOptionalAttrDict((*this)->getAttrs(), {"operandSegmentSizes"});
  p << " : " << getPtr().getType();
}

LogicalResult LoadOp::verify() {
  Type expected = pointeeTileOf(getPtr().getType());
  if (getType() != expected)
    return emitOpError("result type ")
           << getType() << " must be " << expected
           << ", the pointee tile of 'ptr'";
  return verifyMaskAndOther(*this, getType(), getMask(), getOther());
}

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> operands;
  Type ptrType, valueType;
  if (parsePtrAccess(parser, result, 1, 2, "'ptr', 'value', optional 'mask'",
                     operands, ptrType, valueType))
    return failure();
  Type maskType = tileLike(ptrType, parser.getBuilder().getI1Type());
  return resolveAll(parser, operands, {ptrType, valueType, maskType}, result);
}

void StoreOp::print(OpAsmPrinter &p) {
  p << ' ' << getOperation()->getOperands();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getPtr().getType();
}

LogicalResult StoreOp::verify() {
  Type expected = pointeeTileOf(getPtr().getType());
  if (getValue().getType() != expected)
    return emitOpError("'value' type ")
           << getValue().getType() << " must be " << expected
           << ", the pointee tile of 'ptr'";
  return verifyMaskAndOther(*this, expected, getMask(), Value());
}

/// `%memref[%offsets], <trailing> attr-dict : memref-type <sep> tile-type`.
/// Resolves the memref and offsets; the caller resolves the trailing
/// operands, whose types follow from the tile type.
static ParseResult parseMemRefAccess(
    OpAsmParser &parser, OperationState &result, size_t minTrailing,
    size_t maxTrailing, StringRef expected, StringRef sep,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &trailing,
    size_t &numOffsets, RankedTensorType &tileType) {
  OpAsmParser::UnresolvedOperand memref;
  SmallVector<OpAsmParser::UnresolvedOperand, 4> offsets;
  MemRefType memrefType;
  if (parser.parseOperand(memref) ||
      parser.parseOperandList(offsets, OpAsmParser::Delimiter::Square) ||
      parseTrailingOperands(parser, minTrailing, maxTrailing, trailing,
                            expected) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(memrefType))
    return failure();
  if ((sep == "->" ? parser.parseArrow() : parser.parseComma()) ||
      parser.parseType(tileType) ||
      parser.resolveOperand(memref, memrefType, result.operands) ||
      parser.resolveOperands(offsets, parser.getBuilder().getIndexType(),
                             result.operands))
    return failure();
  numOffsets = offsets.size();
  return success();
}

static void printMemRefAccess(OpAsmPrinter &p, Operation *op, Value memref,
                              ValueRange offsets, ValueRange trailing,
                              StringRef sep, Type tileType) {
  p << ' ' << memref << '[' << offsets << ']';
  if (!trailing.empty())
    p << ", " << trailing;
  p.printOptionalAttrDict(op->getAttrs(), {"operandSegmentSizes"});
  p << " : " << memref.getType() << (sep == "," ? ", " : " -> ") << tileType;
}

ParseResult MemRefLoadOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 2> trailing;
  size_t numOffsets;
  RankedTensorType tileType;
  if (parseMemRefAccess(parser, result, 0, 2, "optional 'mask', 'other'",
                        "->", trailing, numOffsets, tileType))
    return failure();
  Type maskType = tileLike(tileType, parser.getBuilder().getI1Type());
  if (resolveAll(parser, trailing, {maskType, tileType}, result))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, static_cast<int32_t>(numOffsets), !trailing.empty(),
      trailing.size() > 1};
  result.addTypes(tileType);
  return success();
}

void MemRefLoadOp::print(OpAsmPrinter &p) {
  SmallVector<Value, 2> trailing;
  if (getMask())
    trailing.push_back(getMask());
  if (getOther())
    trailing.push_back(getOther());
  printMemRefAccess(p, *this, getMemref(), getOffsets(), trailing, "->",
                    getType());
}

LogicalResult MemRefLoadOp::verify() {
  if (failed(verifyMemRefWindow(*this, getMemref().getType(),
                                getOffsets().size(), getType(), "result")))
    return failure();
  return verifyMaskAndOther(*this, getType(), getMask(), getOther());
}

ParseResult MemRefStoreOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand, 2> trailing;
  size_t numOffsets;
  RankedTensorType tileType;
  if (parseMemRefAccess(parser, result, 1, 2, "'value', optional 'mask'", ",",
                        trailing, numOffsets, tileType))
    return failure();
  Type maskType = tileLike(tileType, parser.getBuilder().getI1Type());
  if (resolveAll(parser, trailing, {tileType, maskType}, result))
    return failure();
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, static_cast<int32_t>(numOffsets), 1, trailing.size() > 1};
  return success();
}

void MemRefStoreOp::print(OpAsmPrinter &p) {
  SmallVector<Value, 2> trailing{getValue()};
  if (getMask())
    trailing.push_back(getMask());
  printMemRefAccess(p, *this, getMemref(), getOffsets(), trailing, ",",
                    getValue().getType());
}

LogicalResult MemRefStoreOp::verify() {
  if (failed(verifyMemRefWindow(*this, getMemref().getType(),
                                getOffsets().size(), getValue().getType(),
                                "value")))
    return failure();
  return verifyMaskAndOther(*this, getValue().getType(), getMask(), Value());
}

LogicalResult MemRefGatherOp::verify() {
  MemRefType memref = getMemref().getType();
  if (memref.getRank() != 1)
    return emitOpError("gathers from a 1-D memref, got rank ")
           << memref.getRank();
  RankedTensorType indices = getIndices().getType(), result = getType();
  if (indices.getShape() != result.getShape() ||
      indices.getEncoding() != result.getEncoding())
    return emitOpError("'indices' ")
           << indices << " must have the result's shape and layout ("
           << result << ")";
  if (!indices.getElementType().isIndex() &&
      indices.getElementType().getIntOrFloatBitWidth() > 64)
    return emitOpError("'indices' must be index or integers of at most 64 "
                       "bits, got ")
           << indices.getElementType();
  if (result.getElementType() != memref.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " must match the memref element type "
           << memref.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Shared-memory staging
//===----------------------------------------------------------------------===//

LogicalResult SharedAllocOp::verify() {
  if (!isa_and_nonnull<FuncOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a tile.func body (one buffer for "
                       "the whole kernel), not inside loops or branches");
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  SharedBufferType buffer = getDst().getType();
  if (getLayout().getRank() != buffer.getTileShape().size())
    return emitOpError("layout rank ")
           << getLayout().getRank() << " must equal the slot's tile rank "
           << buffer.getTileShape().size();
  return verifyMemRefWindow(*this, getSrc().getType(), getOffsets().size(),
                            getTileType(), "slot tile");
}

LogicalResult SharedLoadOp::verify() {
  SharedBufferType buffer = getSrc().getType();
  RankedTensorType type = getType();
  if (type.getShape() != buffer.getTileShape() ||
      type.getElementType() != buffer.getElementType())
    return emitOpError("result ")
           << type << " must have the slot's tile shape and element type ("
           << buffer.getTileType(Attribute()) << ")";
  if (isa_and_nonnull<SharedEncodingAttr>(type.getEncoding()))
    return emitOpError("result must be a register layout, not #tile.shared");
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

/// Operand `opIdx` of a dot whose accumulator layout is `accLayout`.
static LogicalResult verifyDotOperandLayout(Operation *op, StringRef name,
                                            unsigned opIdx, Attribute layout,
                                            Attribute accLayout) {
  if (!accLayout) {
    if (layout)
      return op->emitOpError("'")
             << name << "' has layout " << layout
             << " but the accumulator has none";
    return success();
  }
  // wgmma reads its operands (B always, A optionally) from shared memory.
  auto mma = dyn_cast<NvidiaMmaEncodingAttr>(accLayout);
  if (mma && mma.getVersion() == 3 && isa_and_nonnull<SharedEncodingAttr>(layout))
    return success();
  auto dotOp = dyn_cast_or_null<DotOperandEncodingAttr>(layout);
  if (!dotOp || dotOp.getOpIdx() != opIdx || dotOp.getParent() != accLayout)
    return op->emitOpError("'")
           << name << "' layout must be #tile.dot_operand with opIdx = "
           << opIdx << " and parent = " << accLayout
           << (mma && mma.getVersion() == 3 ? " (or #tile.shared for wgmma)"
                                            : "")
           << ", got " << layout;
  return success();
}

LogicalResult DotOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   acc = getAcc().getType();
  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>{"a", a},
                            {"b", b},
                            {"acc", acc}})
    if (type.getRank() != 2)
      return emitOpError("'") << name << "' must be a 2-D tile, got rank "
                              << type.getRank();
  Type elem = a.getElementType();
  if (!elem.isF16() && !elem.isBF16() && !elem.isF32())
    return emitOpError("'a' element type must be f16, bf16 or f32, got ")
           << elem;
  if (b.getElementType() != elem)
    return emitOpError("'b' element type ")
           << b.getElementType() << " must match 'a' element type " << elem;
  if (!acc.getElementType().isF32())
    return emitOpError("'acc' element type must be f32, got ")
           << acc.getElementType();
  int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
  if (b.getDimSize(0) != k)
    return emitOpError("K mismatch: 'a' is MxK = ")
           << shapeStr(a.getShape()) << " but 'b' is KxN = "
           << shapeStr(b.getShape());
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError("'acc' shape ")
           << shapeStr(acc.getShape()) << " must be MxN = " << m << "x" << n
           << " (M from 'a', N from 'b')";
  Attribute accLayout = acc.getEncoding();
  if (failed(verifyDotOperandLayout(*this, "a", 0, a.getEncoding(),
                                    accLayout)) ||
      failed(verifyDotOperandLayout(*this, "b", 1, b.getEncoding(),
                                    accLayout)))
    return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one operand");
  if (getResults().size() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " operands but "
                               << getResults().size()
                               << " results (one per operand)";
  auto first = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxisAttr().getInt(), rank = first.getRank();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank-"
                                << rank << " 'src'";
  for (auto [i, operand] : llvm::enumerate(getSrcs())) {
    auto src = cast<RankedTensorType>(operand.getType());
    if (src.getShape() != first.getShape() ||
        src.getEncoding() != first.getEncoding())
      return emitOpError("operand ")
             << i << " has type " << src
             << "; every operand must have the shape and layout of operand 0 ("
             << first << ")";
    Type elem = src.getElementType();
    Type result = getResults()[i].getType();
    if (rank == 1) {
      if (result != elem)
        return emitOpError("reducing a 1-D tile gives a scalar ")
               << elem << ", got " << result << " for result " << i;
      continue;
    }
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    auto res = dyn_cast<RankedTensorType>(result);
    if (!res || res.getShape() != ArrayRef<int64_t>(shape) ||
        res.getElementType() != elem)
      return emitOpError("result type ")
             << result << " must be " << RankedTensorType::get(shape, elem)
             << " ('src' without axis " << axis << ")";
    Attribute srcLayout = src.getEncoding();
    Attribute expected =
        srcLayout ? SliceEncodingAttr::get(getContext(), axis, srcLayout)
                  : Attribute();
    if (res.getEncoding() == expected)
      continue;
    if (!expected)
      return emitOpError("result layout must be absent as 'src' has none, got ")
             << res.getEncoding();
    return emitOpError("result layout must be ")
           << expected << " ('src' layout sliced at axis " << axis << "), got "
           << res.getEncoding();
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  SmallVector<Type> elems;
  for (Value src : getSrcs())
    elems.push_back(cast<RankedTensorType>(src.getType()).getElementType());
  // (left partial's elements..., right partial's elements...)
  SmallVector<Type> expected(elems);
  expected.append(elems);
  Block &body = getCombiner().front();
  if (TypeRange(body.getArgumentTypes()) != TypeRange(expected)) {
    InFlightDiagnostic diag = emitOpError("combiner must take (");
    llvm::interleaveComma(expected, diag);
    diag << ") (the operands' element types, twice), got (";
    llvm::interleaveComma(body.getArgumentTypes(), diag);
    return diag << ")";
  }
  auto ret = body.empty() ? nullptr : dyn_cast<ReduceReturnOp>(body.back());
  if (!ret)
    return emitOpError("combiner must end with tile.reduce.return");
  if (TypeRange(ret.getValues().getTypes()) != TypeRange(elems)) {
    InFlightDiagnostic diag = emitOpError("combiner returns (");
    llvm::interleaveComma(ret.getValues().getTypes(), diag);
    diag << ") but must return (";
    llvm::interleaveComma(elems, diag);
    return diag << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Hopper: TMA copies, mbarriers, warpgroup MMA
//===----------------------------------------------------------------------===//

LogicalResult MBarrierAllocOp::verify() {
  if (!isa_and_nonnull<FuncOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a tile.func body (barriers live "
                       "for the whole kernel), not inside loops or branches");
  if (getType().getCount() <= 0)
    return emitOpError("needs at least one barrier, got ")
           << getType().getCount();
  return success();
}

/// A wgmma / TMA operand buffer: [slots, chunks, rows, 64] of 16-bit
/// elements in the 128-byte swizzle (#tile.shared vec 8, perPhase 1,
/// maxPhase 8).
static LogicalResult verifyCanonicalHopperBuffer(Operation *op,
                                                 SharedBufferType buffer,
                                                 StringRef name) {
  ArrayRef<int64_t> tile = buffer.getTileShape();
  SharedEncodingAttr enc = buffer.getEncoding();
  if (tile.size() != 3 || tile[2] != 64 ||
      buffer.getElementType().getIntOrFloatBitWidth() != 16)
    return op->emitOpError()
           << name << " buffer " << buffer
           << " must hold [chunks, rows, 64] tiles of 16-bit elements (one "
              "128-byte swizzle span per row)";
  if (enc.getVec() != 8 || enc.getPerPhase() != 1 || enc.getMaxPhase() != 8)
    return op->emitOpError()
           << name << " buffer must use the 128-byte swizzle (#tile.shared "
              "vec = 8, perPhase = 1, maxPhase = 8), got "
           << enc;
  if (tile[1] % 8)
    return op->emitOpError() << name << " buffer rows (" << tile[1]
                             << ") must be a multiple of 8 (one swizzle "
                                "period)";
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (getCta() && getExpectTx())
    return emitOpError("announces TMA bytes (expect_tx) on a barrier of its "
                       "own CTA only (no cta operand)");
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (getCoords().size() < 2 || getCoords().size() > 5)
    return emitOpError("takes 2 to 5 coordinates (a 2-D box, or one of a "
                       "batch's, such as [1, rows, 1, 64] of [B, S, H, D] "
                       "heads), got ")
           << getCoords().size();
  if (failed(verifyCanonicalHopperBuffer(*this, getDst().getType(),
                                         "destination")))
    return failure();
  int64_t chunkRows = getDst().getType().getTileShape()[1];
  if (getRow() < 0 || getRow() % 8 || getRow() >= chunkRows)
    return emitOpError("row ")
           << getRow() << " must be a multiple of 8 (the 128-byte swizzle's "
           << "period) below the chunk's " << chunkRows << " rows";
  return success();
}

RankedTensorType BoxCopyOp::getBoxType() {
  SmallVector<int64_t> shape = {getRows(), 64};
  if (getCoords().size() == 3)
    shape.insert(shape.begin(), 1);
  return RankedTensorType::get(shape, getDst().getType().getElementType(),
                               getLayout());
}

LogicalResult BoxCopyOp::verify() {
  if (getCoords().size() != 2 && getCoords().size() != 3)
    return emitOpError("takes 2 or 3 coordinates (a 2-D box, or one of a "
                       "batch's), got ")
           << getCoords().size();
  SharedBufferType buffer = getDst().getType();
  if (failed(verifyCanonicalHopperBuffer(*this, buffer, "destination")))
    return failure();
  if (getLayout().getRank() != getCoords().size())
    return emitOpError("layout rank ")
           << getLayout().getRank() << " must equal the "
           << getCoords().size() << " coordinates";
  int64_t chunkRows = buffer.getTileShape()[1];
  if (getRow() % 8 || getRows() % 8 || getRow() + getRows() > chunkRows)
    return emitOpError("rows [")
           << getRow() << ", " << getRow() + getRows()
           << ") must be whole swizzle periods (multiples of 8) within the "
           << chunkRows << " rows of a chunk";
  return verifyMemRefWindow(*this, getSrc().getType(), getCoords().size(),
                            getBoxType(), "box");
}

LogicalResult WarpGroupDotOp::verify() {
  SharedBufferType b = getB().getType();
  if (failed(verifyCanonicalHopperBuffer(*this, b, "B")))
    return failure();
  auto acc = cast<RankedTensorType>(getAcc().getType());
  auto mma = dyn_cast_or_null<NvidiaMmaEncodingAttr>(acc.getEncoding());
  if (!mma || mma.getVersion() != 3 || acc.getRank() != 2 ||
      !acc.getElementType().isF32())
    return emitOpError("accumulator must be an f32 2-D tile in a "
                       "#tile.nvidia_mma version 3 (wgmma) layout, got ")
           << acc;
  // Logical [BM, BK] and [BK, BN] from the chunked storage.
  auto extent = [](SharedBufferType t, bool mnMajor) {
    ArrayRef<int64_t> s = t.getTileShape();
    int64_t cols = s[0] * 64;
    return mnMajor ? std::make_pair(s[1], cols) : std::make_pair(cols, s[1]);
  };
  Type aElement;
  int64_t aK, aM;
  if (hasRegisterA()) {
    auto a = cast<RankedTensorType>(getA().getType());
    auto operand =
        dyn_cast_or_null<DotOperandEncodingAttr>(a.getEncoding());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma ||
        a.getRank() != 2)
      return emitOpError("a register A must be a 2-D tile in the "
                         "#tile.dot_operand<{opIdx = 0}> layout of the "
                         "accumulator's #tile.nvidia_mma, got ")
             << a;
    if (getASlot() || getAMnMajor())
      return emitOpError("a register A takes no slot and no a_mn_major");
    aElement = a.getElementType();
    aM = a.getDimSize(0);
    aK = a.getDimSize(1);
  } else {
    auto a = cast<SharedBufferType>(getA().getType());
    if (failed(verifyCanonicalHopperBuffer(*this, a, "A")))
      return failure();
    if (!getASlot())
      return emitOpError("a shared A needs the slot to read");
    aElement = a.getElementType();
    std::tie(aK, aM) = extent(a, getAMnMajor());
  }
  if (aElement != b.getElementType() ||
      !(aElement.isF16() || aElement.isBF16()))
    return emitOpError("operands must be f16 or bf16, of one type");
  auto [bK, bN] = extent(b, getBMnMajor());
  int64_t bm = acc.getDimSize(0), bn = acc.getDimSize(1);
  if (aM != bm || bN != bn || aK != bK)
    return emitOpError("operand tiles (A ")
           << aM << " x " << aK << ", B " << bK << " x " << bN
           << ") do not multiply into the " << bm << " x " << bn
           << " accumulator";
  unsigned warps = mma.getWarpsPerCTA()[0];
  if (mma.getWarpsPerCTA().size() != 2 || mma.getWarpsPerCTA()[1] != 1 ||
      warps % 4 || bm % (16 * warps) || bn % 8 || bn > 256 || aK % 16)
    return emitOpError("block ")
           << bm << " x " << bn << " x " << aK
           << " does not fit wgmma m64nNk16 on warpsPerCTA = [" << warps
           << ", 1] (whole warpgroups along M, N a multiple of 8 up to 256)";
  return success();
}

LogicalResult TmaStoreOp::verify() {
  if (getCoords().size() != 2 && getCoords().size() != 3)
    return emitOpError("takes 2 or 3 coordinates, got ") << getCoords().size();
  SharedBufferType buffer = getBuffer().getType();
  if (failed(verifyCanonicalHopperBuffer(*this, buffer, "staging")))
    return failure();
  auto src = cast<RankedTensorType>(getSrc().getType());
  ArrayRef<int64_t> tile = buffer.getTileShape();
  if (buffer.getNumSlots() != 1 && !getSlot())
    return emitOpError("a staging buffer of ")
           << buffer.getNumSlots() << " slots needs the slot to stage in";
  if (src.getRank() != 2 || src.getDimSize(0) != tile[1] ||
      src.getDimSize(1) % (tile[0] * 64) ||
      src.getElementType() != buffer.getElementType())
    return emitOpError("source ")
           << src << " must be rounds of a staging buffer slot of ["
           << tile[1] << ", " << tile[0] * 64 << "] "
           << buffer.getElementType();
  return success();
}
