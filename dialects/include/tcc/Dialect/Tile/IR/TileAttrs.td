//===- TileAttrs.td - tile layout encodings ----------------*- tablegen -*-===//

#ifndef TCC_DIALECT_TILE_IR_TILEATTRS_TD
#define TCC_DIALECT_TILE_IR_TILEATTRS_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"

// A blocked distribution: each thread owns `sizePerThread` contiguous
// elements, `threadsPerWarp` threads tile a warp, `warpsPerCTA` warps tile a
// program; `order` lists dims fastest-varying first.
def Tile_BlockedEncodingAttr : Tile_Attr<"BlockedEncoding", "blocked"> {
  let summary = "blocked distribution of a tile over threads and warps";
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
  let genVerifyDecl = 1;
}

#endif // TCC_DIALECT_TILE_IR_TILEATTRS_TD
