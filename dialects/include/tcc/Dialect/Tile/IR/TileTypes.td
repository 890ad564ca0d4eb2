//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TCC_DIALECT_TILE_IR_TILETYPES_TD
#define TCC_DIALECT_TILE_IR_TILETYPES_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

// A pointer to global (or another address space's) memory. Tiles of pointers
// are `tensor<...x!tile.ptr<f16>>`, offset elementwise with `tile.addptr`.
def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "pointer to elements in an address space";
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
}

#endif // TCC_DIALECT_TILE_IR_TILETYPES_TD
