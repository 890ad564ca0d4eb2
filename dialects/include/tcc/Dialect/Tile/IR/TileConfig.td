//===- TileConfig.td - a kernel's lowering plan ------------*- tablegen -*-===//
//
// `#tile.lowering_config<...>` is the plan of one kernel: which kernel form
// builds it, the block one program covers, its warps and pipeline depth and
// the tensor-core instruction. tcc-select-strategy writes it on the kernel's
// root op (`tile.lowering_config`); convert-linalg-to-tile builds the
// kernel from it and keeps it on the tile.func; a config written by hand
// is kept (the per-kernel override).
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TILE_IR_TILECONFIG_TD
#define TCC_DIALECT_TILE_IR_TILECONFIG_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "tcc/Dialect/Tile/IR/TileTarget.td"
include "mlir/IR/EnumAttr.td"

def Tile_KernelForm : I32EnumAttr<"KernelForm", "kernel form", [
    // An all-parallel generic: one [BM, BN] block per program.
    I32EnumAttrCase<"elementwise", 0>,
    // A [parallel, reduction] generic (+ an elementwise epilogue): BM rows
    // per program, a loop over BN-wide column chunks.
    I32EnumAttrCase<"row_reduction", 1>,
    // linalg.softmax over the last dim: BM whole rows (BN >= the row).
    I32EnumAttrCase<"softmax", 2>,
    // A matmul on tensor cores (+ an elementwise epilogue): [BM, BN] of C
    // per program, a loop over BK.
    I32EnumAttrCase<"matmul", 3>,
    // A matmul on per-thread FMAs (no tensor-core instruction fits).
    I32EnumAttrCase<"fma_matmul", 4>,
    // An elementwise op reading an operand with its last two dims swapped:
    // [T, T] tiles (BM = BN = T) staged through shared memory, one tile of
    // the last two dims (of one index of the others) per program.
    I32EnumAttrCase<"transpose", 5>,
    // A reduction of outer dims ([B, R, N] -> [B, N]) and the elementwise
    // ops over its outputs: one program per batch index and BN columns, a
    // loop over BM-row chunks of R; the warps all run down the rows.
    I32EnumAttrCase<"column_reduction", 6>,
    // Row reductions of one row space and the elementwise ops around them:
    // BM whole rows per program, persistent (BN >= the row) or walked in
    // BN-wide chunks (walk = looped).
    I32EnumAttrCase<"row_program", 7>,
    // Fused attention, softmax((Q Kᵀ) ∘ f) V (tcc::matchAttention): BM query
    // rows of one batch per program, a loop over BN-key blocks with the
    // online softmax (FlashAttention-2); both products on tensor cores.
    I32EnumAttrCase<"attention", 8>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// How a row program covers its rows: kept in registers, or walked in
// BN-wide chunks (each reduction one walk, the stores a last walk), or
// (softmax) copied once into shared memory chunk by chunk and walked there.
def Tile_RowWalk : I32EnumAttr<"RowWalk", "row walk", [
    I32EnumAttrCase<"persistent", 0>,
    I32EnumAttrCase<"looped", 1>,
    I32EnumAttrCase<"staged", 2>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// Which view of its iteration space an elementwise kernel runs on: the
// flattest 2-D view (adjacent dims every operand reads together collapsed;
// rows of the last group), or one flat stream of every element with the
// operands that broadcast gathered element by element (flat_gather: the
// identity-indexed operands and the results move in 16-byte vectors even
// when the last dim is not a multiple of the vector length).
def Tile_ElementwiseView : I32EnumAttr<"ElementwiseView", "elementwise view", [
    I32EnumAttrCase<"blocked", 0>,
    I32EnumAttrCase<"flat_gather", 1>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// How the consumer warpgroups of a warp-specialized (wgmma) GEMM share the
// work: cooperative (both on one [BM, BN] block, BM / 2 rows each; the
// default) or pingpong (each on its own [BM, BN] block, the two taking the
// program's tiles in turn, so one warpgroup's epilogue overlaps the other's
// MMAs).
def Tile_ConsumerSchedule : I32EnumAttr<"ConsumerSchedule", "consumer schedule", [
    I32EnumAttrCase<"cooperative", 0>,
    I32EnumAttrCase<"pingpong", 1>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// `[d0, d1, ...]` of positive sizes.
def Tile_BlockShapeParameter : ArrayRefParameter<"int64_t", "block shape"> {
  let parser = [{ ::mlir::tcc::tile::parseBlockShape($_parser) }];
  let printer = [{ ::mlir::tcc::tile::printBlockShape($_printer, $_self) }];
}

def Tile_ClusterShapeParameter : OptionalArrayRefParameter<"int64_t", "cluster shape"> {
  let parser = [{ ::mlir::tcc::tile::parseBlockShape($_parser) }];
  let printer = [{ ::mlir::tcc::tile::printBlockShape($_printer, $_self) }];
}

def Tile_LoweringConfigAttr : Tile_Attr<"LoweringConfig", "lowering_config"> {
  let summary = "the plan of one kernel";
  let description = [{
    ```mlir
    %p = linalg.generic {..., tile.lowering_config = #tile.lowering_config<
        form = matmul, block = [128, 128, 32], num_warps = 4,
        num_stages = 3, mma = mma_sync_m16n8k16>} ...
    ```

    - `form`: the builder (elementwise, row_reduction, softmax, matmul,
      fma_matmul, transpose, column_reduction, row_program, attention);
    - `block`: what one program covers, powers of two: `[BM, BN]` of the
      (collapsed 2-D) iteration space, or `[BM, BN, BK]` for the matmul
      forms; for attention `[BM, BN]`: BM query rows per program, BN keys
      per step of its loop;
    - `num_warps`: warps per program (1 to 16, a power of two);
    - `num_stages`: slots of each pipelined shared-memory operand buffer
      (matmul forms, and attention's K and V blocks; 1: synchronous
      staging);
    - `mma`: the tensor-core instruction (form = matmul and attention);
    - `walk`: `persistent` (whole rows in registers, the default) or
      `looped` (BN-wide chunks of longer rows) for form = row_program and
      form = softmax (a looped softmax is the online softmax: a walk for
      the running max and rescaled sum, a walk for the quotients);
      `staged` (form = softmax): the looped walks over a copy of the row
      in shared memory, so the row is read from global memory once
      (one asynchronous copy per BN-wide chunk, all in flight together);
    - `view`: for form = elementwise, `blocked` (the flattest 2-D view, the
      default) or `flat_gather` (one flat stream of all elements in blocks
      of [1, BN]: identity-indexed operands and results in 16-byte vectors,
      broadcast operands gathered at their offset of each flat index; what
      tcc-select-strategy picks for a broadcast over a last dim that is not
      a multiple of the vector length);
    - `consumers`: for mma = wgmma_m64nNk16 with two consumer warpgroups
      (num_warps = 12), `cooperative` (both on one block, the default) or
      `pingpong` (each warpgroup its own block, tiles taken in turn: one
      epilogue overlaps the other warpgroup's MMAs; the accumulator of a
      whole block per warpgroup).
    - `cluster`: for mma = wgmma_m64nNk16, `[CM, CN]` thread-block
      clusters of CM x CN programs (1 or 2 each): the CM programs of a
      cluster along M share each k step's B boxes, the CN along N its A
      boxes; each loads its part and multicasts it to the others (TMA
      `.multicast::cluster`), so an operand shared by two programs is read
      from L2 once. Left out: `[1, 1]`.
    - `split_k`: for mma = wgmma_m64nNk16 with the cooperative schedule,
      S > 1 programs share each output tile, each over its S-th of the k
      steps (split-K): the walk is over tiles x S work items, a program
      stores its f32 partial block into the kernel's workspace and counts
      itself on the tile's counter; the last of the S to arrive sums the
      partials in split order (deterministic) and runs the epilogue. For
      problems with too few output tiles to fill the GPU (a 256 x 4096
      nn.Linear over K = 4096). Left out: 1.

    The root op the config sits on: the op itself for elementwise,
    transpose and softmax; the reduction or matmul for row_reduction,
    column_reduction, matmul and fma_matmul (the ops after it are its
    epilogue); the last row reduction for row_program (the op whose rows
    the program walks); the softmax for attention.
  }];
  let parameters = (ins
    EnumParameter<Tile_KernelForm>:$form,
    Tile_BlockShapeParameter:$block,
    "unsigned":$num_warps,
    OptionalParameter<"std::optional<unsigned>">:$num_stages,
    OptionalParameter<"std::optional<::mlir::tcc::tile::MmaKind>">:$mma,
    OptionalParameter<"std::optional<::mlir::tcc::tile::RowWalk>">:$walk,
    OptionalParameter<"std::optional<::mlir::tcc::tile::ElementwiseView>">:$view,
    OptionalParameter<"std::optional<::mlir::tcc::tile::ConsumerSchedule>">:$consumers,
    Tile_ClusterShapeParameter:$cluster,
    OptionalParameter<"std::optional<unsigned>">:$split_k
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TCC_DIALECT_TILE_IR_TILECONFIG_TD
