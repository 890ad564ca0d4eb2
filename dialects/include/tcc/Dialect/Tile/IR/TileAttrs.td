//===- TileAttrs.td - tile layout encodings ----------------*- tablegen -*-===//
//
// Layout encodings ride on tile tensor types (`tensor<64x64xf16, #blocked>`)
// and say how a tile's elements are spread over threads, warps and shared
// memory. Layout assignment picks them; later passes rewrite them. The family
// follows Triton's TritonGPU attributes, kept to what tcc's targets need.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TILE_IR_TILEATTRS_TD
#define TCC_DIALECT_TILE_IR_TILEATTRS_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/TensorEncoding.td"
include "tcc/Dialect/Tile/IR/TileTarget.td"
include "tcc/Dialect/Tile/IR/TileConfig.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Tile_LayoutEncodingAttrInterface : AttrInterface<"LayoutEncodingAttr"> {
  let cppNamespace = "::mlir::tcc::tile";
  let description = [{
    Any tile layout encoding. A tile tensor carrying one must have this rank.
  }];
  let methods = [
    InterfaceMethod<"Rank of the tiles this layout applies to.",
                    "unsigned", "getRank">,
  ];
}

def Tile_DistributedEncodingAttrInterface
    : AttrInterface<"DistributedEncodingAttr",
                    [Tile_LayoutEncodingAttrInterface]> {
  let cppNamespace = "::mlir::tcc::tile";
  let description = [{
    A layout spreading a tile over the registers of a program's threads (as
    opposed to a shared-memory layout).
  }];
  let methods = [
    // One body for all: the attrs that store `warpsPerCTA` already have a
    // getter of that name returning ArrayRef, so dispatch through a helper.
    InterfaceMethod<"Number of warps along each tile dimension.",
                    "::llvm::SmallVector<unsigned>", "getWarpsPerCTA", (ins),
                    [{ return ::mlir::tcc::tile::getWarpsPerCTA($_attr); }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Attribute classes
//===----------------------------------------------------------------------===//

// Every layout: rank via the interface, and tensor types check their rank
// against it through VerifiableTensorEncoding (defined once, here).
class Tile_LayoutAttr<string name, string attrMnemonic, list<Trait> traits = []>
    : Tile_Attr<name, attrMnemonic,
                !listconcat([DeclareAttrInterfaceMethods<
                                 Tile_LayoutEncodingAttrInterface>,
                             VerifiableTensorEncoding], traits)> {
  let genVerifyDecl = 1;
  code extraLayoutDecls = "";
  let extraClassDeclaration = extraLayoutDecls # [{
    ::llvm::LogicalResult
    verifyEncoding(::llvm::ArrayRef<int64_t> shape, ::mlir::Type elementType,
                   ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError)
        const {
      return ::mlir::tcc::tile::verifyLayoutRank(*this, shape, emitError);
    }
  }];
}

class Tile_DistributedAttr<string name, string attrMnemonic,
                           list<Trait> traits = []>
    : Tile_LayoutAttr<name, attrMnemonic,
                      !listconcat([Tile_DistributedEncodingAttrInterface],
                                  traits)>;

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

// A blocked distribution: each thread owns `sizePerThread` contiguous
// elements, `threadsPerWarp` threads tile a warp, `warpsPerCTA` warps tile a
// program; `order` lists dims fastest-varying first.
def Tile_BlockedEncodingAttr : Tile_DistributedAttr<"BlockedEncoding", "blocked"> {
  let summary = "blocked distribution of a tile over threads and warps";
  let description = [{
    `#tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
    warpsPerCTA = [4, 1], order = [1, 0]}>`. The product of `threadsPerWarp`
    is the warp size: 32 on NVIDIA, 64 on AMD CDNA.
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order
  );
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
}

// Swizzled shared memory (Triton's SwizzledSharedEncodingAttr): rows of
// `vec`-element vectors; every `perPhase` rows the vector index is XORed with
// the phase (row / perPhase) % maxPhase, spreading columns over banks.
def Tile_SharedEncodingAttr : Tile_LayoutAttr<"SharedEncoding", "shared"> {
  let summary = "swizzled shared-memory layout";
  let description = [{
    `#tile.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>`;
    `maxPhase = 1` is unswizzled. `order` lists dims fastest-varying first.
  }];
  let parameters = (ins
    "unsigned":$vec,
    "unsigned":$perPhase,
    "unsigned":$maxPhase,
    ArrayRefParameter<"unsigned">:$order
  );
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
            `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
}

// NVIDIA tensor-core accumulator layout. Version 2: mma.sync m16n8k16
// (Ampere+), instrShape = [16, 8]. Version 3: wgmma (Hopper), instrShape =
// [16, N, 16], N a multiple of 8 up to 256; warps group in fours along M.
def Tile_NvidiaMmaEncodingAttr
    : Tile_DistributedAttr<"NvidiaMmaEncoding", "nvidia_mma"> {
  let summary = "NVIDIA mma.sync / wgmma accumulator layout";
  let parameters = (ins
    "unsigned":$version,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$instrShape
  );
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
}

// AMD matrix-core accumulator layout: MFMA 32x32 or 16x16. Version 2 is
// CDNA2 (gfx90a), 3 is CDNA3 (gfx942). `isTransposed` gives each lane a row
// of the result instead of a column (wider stores for row-major outputs).
def Tile_AMDMfmaEncodingAttr
    : Tile_DistributedAttr<"AMDMfmaEncoding", "amd_mfma"> {
  let summary = "AMD MFMA accumulator layout";
  let parameters = (ins
    "unsigned":$version,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$instrShape,
    "bool":$isTransposed
  );
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]` `,`
            `isTransposed` `=` $isTransposed `}` `>`
  }];
}

// The registers of a dot operand (A: opIdx 0, B: opIdx 1) as the `parent`
// accumulator layout's instruction wants them; `kWidth` consecutive K
// elements per thread. A blocked parent is the FMA fallback (kWidth = 0).
def Tile_DotOperandEncodingAttr
    : Tile_DistributedAttr<"DotOperandEncoding", "dot_operand"> {
  let summary = "layout of a tile.dot operand, relative to the accumulator's";
  let parameters = (ins
    "unsigned":$opIdx,
    "::mlir::Attribute":$parent,
    "unsigned":$kWidth
  );
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,`
            `kWidth` `=` $kWidth `}` `>`
  }];
}

// `parent` with dimension `dim` removed: the layout of a reduction's result,
// and the operand layout `tile.expand_dims` re-inserts a dimension into.
def Tile_SliceEncodingAttr : Tile_DistributedAttr<"SliceEncoding", "slice"> {
  let summary = "a distributed layout with one dimension sliced away";
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = [{
    `<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`
  }];
}

#endif // TCC_DIALECT_TILE_IR_TILEATTRS_TD
