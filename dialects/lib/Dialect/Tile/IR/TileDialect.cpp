//===- TileDialect.cpp - tile dialect -------------------------------------===//
#include "tcc/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "tcc/Dialect/Tile/IR/TileAttrs.h"
#include "tcc/Dialect/Tile/IR/TileOps.h"
#include "tcc/Dialect/Tile/IR/TileTarget.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tcc::tile;

#include "tcc/Dialect/Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tcc/Dialect/Tile/IR/TileTypes.cpp.inc"

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PtrType>(pointeeType))
    return emitError() << "!tile.ptr: pointee must be an integer, float or "
                          "!tile.ptr type, got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "!tile.ptr: address space must be non-negative, got "
                       << addressSpace;
  return success();
}

Type SharedBufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  SharedEncodingAttr encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType, encoding);
}

void SharedBufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult
SharedBufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType,
                         SharedEncodingAttr encoding) {
  if (shape.size() < 2)
    return emitError() << "!tile.shared_buffer: shape needs a slot count and "
                          "at least one tile dimension, got "
                       << shape.size() << " dimension(s)";
  if (llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return emitError() << "!tile.shared_buffer: dimensions must be positive";
  if (!elementType.isIntOrFloat())
    return emitError() << "!tile.shared_buffer: element type must be an "
                          "integer or float, got "
                       << elementType;
  if (encoding.getOrder().size() != shape.size() - 1)
    return emitError() << "!tile.shared_buffer: layout order has "
                       << encoding.getOrder().size()
                       << " entries for a rank-" << shape.size() - 1
                       << " tile";
  return success();
}

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tcc/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tcc/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == kLoweringConfigAttrName) {
    if (!isa<LoweringConfigAttr>(attr.getValue()))
      return op->emitError() << "'" << kLoweringConfigAttrName
                             << "' must be a #tile.lowering_config<...>, got "
                             << attr.getValue();
    return success();
  }
  if (attr.getName() != kTargetAttrName)
    return op->emitError() << "unknown tile dialect attribute '"
                           << attr.getName().getValue()
                           << "' (the tile dialect defines 'tile.target' and "
                              "'tile.lowering_config')";
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #tile.target<...>, got "
                           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on a builtin.module, not on "
                           << op->getName();
  return success();
}
