//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// `tile` is the per-program view of a GPU kernel, at Triton's level: a kernel
// body runs once per program (block) of a launch grid and computes on tiles,
// tensors whose layout encoding says how elements are spread over threads,
// warps and shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TCC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tcc::tile";
  let summary = "tcc tile dialect: per-program tile computations with layouts";
  let description = [{
    Programs index a launch grid (`tile.program_id`), build index tiles
    (`tile.arange`), move tiles between memory and registers (`tile.load`,
    `tile.store`, with masks), and compute with `tile.dot`, `tile.reduce` and
    arith/math on tile-shaped tensors. Kernels are `tile.func`s stating their
    grid rank and constexprs. Layout encodings (`#tile.blocked`,
    `#tile.shared`, `#tile.nvidia_mma`, `#tile.amd_mfma`,
    `#tile.dot_operand`, `#tile.slice`) ride on the tensor types. The module
    says which GPU it is compiled for with `tile.target = #tile.target<...>`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  // `tile.target` (a #tile.target) on a builtin.module.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // TCC_DIALECT_TILE_IR_TILEDIALECT_TD
