//===- TileOps.td - tile dialect ops -----------------------*- tablegen -*-===//

#ifndef TCC_DIALECT_TILE_IR_TILEOPS_TD
#define TCC_DIALECT_TILE_IR_TILEOPS_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "tcc/Dialect/Tile/IR/TileAttrs.td"
include "tcc/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of the running program along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

#endif // TCC_DIALECT_TILE_IR_TILEOPS_TD
