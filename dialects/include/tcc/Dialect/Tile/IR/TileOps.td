//===- TileOps.td - tile dialect ops -----------------------*- tablegen -*-===//
//
// Tiles are builtin statically shaped tensors whose encoding is a tile layout
// (or none before layout assignment); elementwise math on them is upstream
// arith/math. These ops add what arith/math cannot say: the launch grid,
// index tiles, shape changes that keep layouts consistent, memory access
// through pointers and memrefs, dot and reduce.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TILE_IR_TILEOPS_TD
#define TCC_DIALECT_TILE_IR_TILEOPS_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "tcc/Dialect/Tile/IR/TileAttrs.td"
include "tcc/Dialect/Tile/IR/TileTypes.td"
include "mlir/Dialect/LLVMIR/LLVMOpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Kernel form
//===----------------------------------------------------------------------===//

def Tile_FuncOp : Tile_Op<"func", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "a kernel: one program of a launch grid";
  let description = [{
    The body runs once per program of a `grid_rank`-dimensional launch grid
    (1 to 3). `constexprs` names the compile-time constants the kernel was
    specialized for (integer or bool attributes); they are not arguments.
    Arguments are scalars, `!tile.ptr`s or memrefs; kernels return nothing.

    ```mlir
    tile.func @add(%x: !tile.ptr<f32>, %n: i32)
        attributes {constexprs = {BLOCK = 128 : i32}, grid_rank = 1 : i32} {
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       I32Attr:$grid_rank,
                       OptionalAttr<DictionaryAttr>:$constexprs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type,
                                 "unsigned":$gridRank,
                                 CArg<"::mlir::DictionaryAttr", "{}">:$constexprs)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isDeclaration() { return isExternal(); }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"FuncOp">, ReturnLike,
                                       Terminator]> {
  let summary = "ends a kernel's program";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

// The axis must exist in the enclosing kernel's grid.
class Tile_GridQueryOp<string mnemonic, string opSummary>
    : Tile_Op<mnemonic, [Pure]> {
  let summary = opSummary;
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyGridAxis(getOperation(), getAxis());
    }
  }];
}

def Tile_ProgramIdOp
    : Tile_GridQueryOp<"program_id", "index of the running program along a grid axis">;
def Tile_NumProgramsOp
    : Tile_GridQueryOp<"num_programs", "number of programs along a grid axis">;

//===----------------------------------------------------------------------===//
// Building and reshaping tiles
//===----------------------------------------------------------------------===//

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "1-D tile of consecutive i32 values [start, end)";
  let description = [{
    `tile.arange {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #l>`.
    The length `end - start` is the tile's and a power of two.
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

// One tile (or scalar) in, one tile out: `op %src : A -> B`.
class Tile_ShapeOp<string mnemonic> : Tile_Op<mnemonic, [Pure]> {
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_ShapeOp<"splat"> {
  let summary = "tile with every element equal to a scalar";
  let arguments = (ins Tile_Scalar:$src);
}

def Tile_BroadcastOp : Tile_ShapeOp<"broadcast"> {
  let summary = "expand size-1 dimensions of a tile";
  let description = [{
    `tile.broadcast %t : tensor<1x128xf32, #l> -> tensor<64x128xf32, #l>`:
    same rank, element type and layout; only size-1 dimensions change.
  }];
  let arguments = (ins Tile_Tensor:$src);
}

def Tile_ExpandDimsOp : Tile_ShapeOp<"expand_dims"> {
  let summary = "insert a size-1 dimension at `axis`";
  let description = [{
    `tile.expand_dims %t {axis = 0 : i32} : tensor<128xf32, #tile.slice<{dim
    = 0, parent = #b}>> -> tensor<1x128xf32, #b>`: an operand layout must be
    the slice of the result layout along `axis`.
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
}

def Tile_ReshapeOp : Tile_ShapeOp<"reshape"> {
  let summary = "reinterpret a tile's shape (same element count, row-major)";
  let arguments = (ins Tile_Tensor:$src);
}

def Tile_ConvertLayoutOp : Tile_ShapeOp<"convert_layout"> {
  let summary = "move a tile to another layout (same shape and elements)";
  let description = [{
    What layout passes insert where producer and consumer layouts differ;
    it may go through shared memory.
  }];
  let arguments = (ins Tile_Tensor:$src);
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "offset pointers by element counts";
  let description = [{
    `tile.addptr %p, %off : tensor<128x!tile.ptr<f32>, #l>, tensor<128xi32, #l>`
    or `tile.addptr %p, %i : !tile.ptr<f32>, i32`. Offsets count elements
    of the pointee type; tile operands have one shape and layout.
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = [{
    $ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
                                   MemoryEffects<[MemRead]>]> {
  let summary = "load a tile (or scalar) through pointers";
  let description = [{
    `tile.load %ptrs, %mask, %other : tensor<128x!tile.ptr<f32>, #l>` gives
    `tensor<128xf32, #l>`. Lanes whose `mask` bit is false are not read and
    take `other` (undefined without it); `other` needs `mask`. Mask, other
    and result have the pointers' shape and layout.
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_ScalarOrTensor>:$other);
  let results = (outs Tile_ScalarOrTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "store a tile (or scalar) through pointers";
  let description = [{
    `tile.store %ptrs, %value, %mask : tensor<128x!tile.ptr<f32>, #l>`; lanes
    whose `mask` bit is false are not written.
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_ScalarOrTensor:$value,
                       Optional<Tile_BoolLike>:$mask);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_MemRefLoadOp : Tile_Op<"memref_load", [AttrSizedOperandSegments]> {
  let summary = "load a tile from a memref window";
  let description = [{
    `tile.memref_load %m[%i, %j], %mask, %other : memref<?x?xf32> ->
    tensor<64x64xf32, #l>` reads the window of the result's shape whose first
    element is at the offsets. Elements outside the memref or whose `mask`
    bit is false are not read and take `other` (zero without it); `other`
    needs `mask`.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$memref,
                       Variadic<Index>:$offsets,
                       Optional<Tile_BoolTensor>:$mask,
                       Optional<Tile_Tensor>:$other);
  let results = (outs Tile_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_MemRefStoreOp : Tile_Op<"memref_store", [AttrSizedOperandSegments]> {
  let summary = "store a tile into a memref window";
  let description = [{
    `tile.memref_store %m[%i, %j], %value, %mask : memref<?x?xf32>,
    tensor<64x64xf32, #l>`; elements outside the memref or whose `mask` bit
    is false are not written.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$memref,
                       Variadic<Index>:$offsets,
                       Tile_Tensor:$value,
                       Optional<Tile_BoolTensor>:$mask);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_MemRefGatherOp : Tile_Op<"memref_gather", []> {
  let summary = "load a tile of a 1-D memref's elements at computed indices";
  let description = [{
    `tile.memref_gather %m[%idx] : memref<777xf32>, tensor<1x1024xi32, #l>
    -> tensor<1x1024xf32, #l>` reads, for every element of the result, the
    memref element at the index tile's element of the same position (the
    index tile and the result share shape and layout). Indices outside the
    memref (unsigned: negative ones too) are not read and give zero. Each
    element is its own scalar load: for small operands that stay in the
    caches (a bias broadcast over a flat stream, view = flat_gather).

    `in_bounds` is the builder's promise that every index lies inside the
    memref (as `vector.transfer_read`'s): the lowering tests none of them.
    Without it, each index the lowering cannot prove in range is tested.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$memref,
                       Tile_IntTensor:$indices,
                       UnitAttr:$in_bounds);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $memref `[` $indices `]` attr-dict `:` type($memref) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared-memory staging (what tcc-promote-shared-memory produces)
//===----------------------------------------------------------------------===//

def Tile_SharedAllocOp : Tile_Op<"shared_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "allocate a multi-slot shared-memory buffer";
  let description = [{
    `%buf = tile.shared_alloc : !tile.shared_buffer<3x128x32xf16, #sh>`: a
    workgroup buffer for the whole kernel, contents undefined. Slots are
    filled with `tile.async_copy` and read with `tile.shared_load`.
  }];
  let results = (outs Tile_SharedBuffer:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", []> {
  let summary = "start a cooperative global -> shared copy of one tile";
  let description = [{
    ```mlir
    tile.async_copy %A[%m0, %k0], %buf[%slot] layout #blocked
        : memref<4096x4096xf16> -> !tile.shared_buffer<3x128x32xf16, #sh>
    ```
    Copies the window of the slot's tile shape whose first element is at the
    offsets into slot `slot` of the buffer. Each thread copies the elements
    the `#tile.blocked` `layout` gives it (its 16-byte runs: cp.async on
    NVIDIA sm_80+, a load and an LDS store on AMD). Elements outside the
    memref are zero. The copy is asynchronous: it belongs to the next group
    `tile.async_commit_group` closes, and its data may only be read after a
    `tile.async_wait` has retired that group.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src,
                       Variadic<Index>:$offsets,
                       Arg<Tile_SharedBuffer, "", [MemWrite]>:$dst,
                       Index:$slot,
                       Tile_BlockedEncodingAttr:$layout);
  let assemblyFormat = [{
    $src `[` $offsets `]` `,` $dst `[` $slot `]` `layout` $layout attr-dict
    `:` type($src) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tile this thread's part of the copy is distributed as.
    ::mlir::RankedTensorType getTileType() {
      return getDst().getType().getTileType(getLayout());
    }
  }];
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "close the group of this thread's async copies issued so far";
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for async copy groups, then synchronize the workgroup";
  let description = [{
    `tile.async_wait {pending = 1}` waits until at most `pending` of this
    thread's committed groups are still in flight, then is a workgroup
    barrier: afterwards every thread sees the data of the retired groups,
    and every thread has finished the shared-memory reads it made before
    (so their slots may be overwritten).
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}

def Tile_SharedLoadOp : Tile_Op<"shared_load", []> {
  let summary = "read one slot of a shared buffer into a tile";
  let description = [{
    `%a = tile.shared_load %buf[%slot] : !tile.shared_buffer<3x128x32xf16, #sh>
    -> tensor<128x32xf16, #opA>`; the result layout is a
    `#tile.dot_operand` (ldmatrix on NVIDIA, LDS reads for MFMA on AMD).
  }];
  let arguments = (ins Arg<Tile_SharedBuffer, "", [MemRead]>:$src,
                       Index:$slot);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $slot `]` attr-dict `:` qualified(type($src)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "tile matrix multiply-accumulate: a * b + acc";
  let description = [{
    `tile.dot %a, %b, %acc : tensor<MxKxf16, #dA>, tensor<KxNxf16, #dB> ->
    tensor<MxNxf32, #mma>`. Operands are f16, bf16 or f32 (one type), the
    accumulator f32. With an accumulator layout, operand layouts are
    `#tile.dot_operand` of it (opIdx 0 for a, 1 for b), or `#tile.shared`
    when it is wgmma's (`#tile.nvidia_mma` version 3).
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [RecursiveMemoryEffects,
                                       SingleBlock]> {
  let summary = "reduce tiles along an axis with a combiner region";
  let description = [{
    ```mlir
    %r = tile.reduce %t {axis = 1 : i32} ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.reduce.return %s : f32
    }) : tensor<64x128xf32, #b> -> tensor<64xf32, #tile.slice<{dim = 1, parent = #b}>>
    ```
    Several operands (one shape and layout, any element types) are reduced
    together, as Triton's `tt.reduce`: the combiner takes the left
    partial's elements, then the right's, and returns the combined ones
    (an argmax carries a value and its index):
    ```mlir
    %v, %i = tile.reduce %x, %idx {axis = 1 : i32} ({
    ^bb0(%v0: f32, %i0: i64, %v1: f32, %i1: i64):
      ...
      tile.reduce.return %v, %i : f32, i64
    }) : tensor<4x128xf32, #b>, tensor<4x128xi64, #b>
        -> tensor<4xf32, #s>, tensor<4xi64, #s>
    ```
    Each result drops `axis` (a scalar for 1-D operands); its layout is the
    operands' sliced along `axis`. The combiner must be associative and
    commutative.
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_ScalarOrTensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $srcs attr-dict ` ` `(` $combiner `)` `:` type($srcs) `->` type($results)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return", [
    Pure, HasParent<"ReduceOp">, ReturnLike, Terminator]> {
  let summary = "yield the combined values of a tile.reduce combiner";
  let arguments = (ins Variadic<Tile_Scalar>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

//===----------------------------------------------------------------------===//
// Hopper (sm_90a): TMA copies, mbarriers, warpgroup MMA
//===----------------------------------------------------------------------===//

def Tile_MBarrierAllocOp : Tile_Op<"mbarrier_alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>, MemWrite]>]> {
  let summary = "allocate and initialize a row of mbarriers";
  let description = [{
    `%full = tile.mbarrier_alloc {arrivals = 1} : !tile.mbarriers<4>`: every
    barrier starts in phase 0 expecting `arrivals` arrivals per phase. One
    thread initializes them, fences the initialization for the async proxy
    and the workgroup synchronizes, so every thread may use them next.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$arrivals);
  let results = (outs Tile_MBarriers:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on one mbarrier (optionally announcing TMA bytes)";
  let description = [{
    `tile.mbarrier_arrive %bars[%i] {expect_tx = 49152}`: each executing
    thread arrives once on barrier `%i`; with `expect_tx` it first raises the
    phase's pending transaction count by that many bytes (what the TMA
    copies completing on the barrier deliver).

    `tile.mbarrier_arrive %bars[%i] cta %r`: the arrival lands on barrier
    `%i` of CTA `%r` of the cluster (the same barrier in that CTA's shared
    memory, addressed through `mapa`), with cluster scope: how the consumers
    of a cluster free a slot that other CTAs multicast into.
  }];
  let arguments = (ins Tile_MBarriers:$barriers, Index:$index,
                       Optional<Index>:$cta,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$expect_tx);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`cta` $cta^)? attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until an mbarrier's phase of the given parity completed";
  let description = [{
    `tile.mbarrier_wait %bars[%i], %parity`: spins on `try_wait.parity`
    until the phase with parity `%parity` (the low bit of an index) of
    barrier `%i` has completed. A fresh barrier is in phase 0, so waiting on
    parity 1 returns at once (how a producer sees an empty slot first).
  }];
  let arguments = (ins Tile_MBarriers:$barriers, Index:$index, Index:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "TMA copy of one box of a tensor into a shared slot";
  let description = [{
    ```mlir
    tile.tma_load %mapA[%m0, %k0], %bufA[%slot, %chunk], %full[%slot]
        : !llvm.ptr, !tile.shared_buffer<4x1x128x64xf16, #sw128>,
          !tile.mbarriers<4>
    ```
    `cp.async.bulk.tensor` of the box whose first element is at the 2 to 5
    coordinates (outermost first, as the memref's indices) from the tensor
    map `%map` (a 128-byte CUtensorMap kernel parameter, passed by value)
    into chunk `%chunk` of slot `%slot`: the buffer's tile is
    [chunks, rows, cols], each chunk one box of [rows, cols] written in the
    map's swizzle. The copy completes on barrier `%bar`'s current phase
    (its bytes count against the phase's expected transactions); elements
    outside the tensor are zero. Issued by every executing thread: guard it
    to one.

    `{row = 64}`: the box covers the chunk's rows from `row` on (a map
    whose box has fewer rows than the chunk: the CTAs of a cluster load a
    chunk in parts), a multiple of 8 (the 128-byte swizzle's period).
    `multicast %mask` (an i16 of cluster CTA ranks): the box lands at the
    same offset of every CTA in the mask and completes the same barrier in
    each of them (`.multicast::cluster`).
  }];
  let arguments = (ins LLVM_AnyPointer:$map, Variadic<Index>:$coords,
                       Tile_SharedBuffer:$dst, Index:$slot, Index:$chunk,
                       Tile_MBarriers:$barriers, Index:$barrier,
                       Optional<I16>:$multicast,
                       DefaultValuedAttr<I64Attr, "0">:$row);
  let assemblyFormat = [{
    $map `[` $coords `]` `,` $dst `[` $slot `,` $chunk `]` `,`
    $barriers `[` $barrier `]` (`multicast` $multicast^)? attr-dict `:`
    qualified(type($map)) `,` qualified(type($dst)) `,`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_BoxCopyOp : Tile_Op<"box_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "copy one box of a memref into a shared slot through registers";
  let description = [{
    ```mlir
    tile.box_copy %B[%k0, %n0], %bufB[%slot, %chunk], %full[%slot]
        layout #blocked {row = 32 : i64, rows = 32 : i64}
        : memref<776x1500xf16> -> !tile.shared_buffer<4x4x64x64xf16, #sw128>,
          !tile.mbarriers<4>
    ```
    What `tile.tma_load` does where no tensor map can describe the operand
    (its rows are not a multiple of 16 bytes): the threads of the
    `#tile.blocked` `layout` (warp ids taken modulo its warps, so any
    warpgroup of the kernel may run it) copy the window of `rows` x 64
    elements (1 x `rows` x 64 for 3 coordinates: one of a batch) whose first
    element is at the coordinates, zero outside the memref, into rows
    [`row`, `row` + `rows`) of chunk `%chunk` of slot `%slot` in the
    128-byte swizzle, as a TMA box lands. Each executing thread arrives
    once on barrier `%barrier` when its part has landed: cp.async runs
    tracked by `cp.async.mbarrier.arrive.noinc` where the rows' alignment
    allows (NVIDIA async copies), else loads into registers, shared stores
    and an arrival. The copy is in the generic proxy: readers through the
    async proxy (wgmma) fence (`fence.proxy.async`) after their wait.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src,
                       Variadic<Index>:$coords,
                       Arg<Tile_SharedBuffer, "", [MemWrite]>:$dst,
                       Index:$slot, Index:$chunk,
                       Tile_MBarriers:$barriers, Index:$barrier,
                       Tile_BlockedEncodingAttr:$layout,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$row,
                       ConfinedAttr<I64Attr, [IntPositive]>:$rows);
  let assemblyFormat = [{
    $src `[` $coords `]` `,` $dst `[` $slot `,` $chunk `]` `,`
    $barriers `[` $barrier `]` `layout` $layout attr-dict `:` type($src) `->`
    qualified(type($dst)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The window this thread's part of the copy is distributed as:
    /// [rows, 64] (or [1, rows, 64]) in `layout`.
    ::mlir::RankedTensorType getBoxType();
  }];
}

// (A's optional slot is the last operand: ODS infers the result's type from
// the accumulator at a fixed operand index.)
def Tile_WarpGroupDotOp : Tile_Op<"warpgroup_dot", [
    MemoryEffects<[MemRead]>, AllTypesMatch<["acc", "result"]>]> {
  let summary = "issue wgmma on shared slots of A and B (asynchronous)";
  let description = [{
    ```mlir
    %d = tile.warpgroup_dot %bufA[%s], %bufB[%s], %acc {b_mn_major}
        : !tile.shared_buffer<4x1x128x64xf16, #sw128>,
          !tile.shared_buffer<4x4x64x64xf16, #sw128>
          -> tensor<128x256xf32, #tile.nvidia_mma<{version = 3, ...}>>
    %o = tile.warpgroup_dot %p, %bufV[%s], %o0 {b_mn_major}
        : tensor<128x128xf16, #tile.dot_operand<{opIdx = 0, parent = #mma}>>,
          !tile.shared_buffer<2x1x128x64xf16, #sw128>
          -> tensor<128x64xf32, #mma>
    ```
    `acc + A x B` of slot `%s` of each buffer, as wgmma m64nNk16 groups of
    each warpgroup (fenced, then committed as one group): A is [BM, BK] and
    B [BK, BN]. Each buffer's tile is [chunks, rows, 64] of 16-bit elements
    in the 128-byte swizzle TMA writes; K-major operands (A's rows are M,
    B's rows are N) keep K in the 64 columns, MN-major ones (`a_mn_major`,
    `b_mn_major`: A stored [K, M], B [K, N]) keep 64 of M or N there, the
    chunks stepping along M or N. A may instead be a register tile (no
    slot) in the `#tile.dot_operand<{opIdx = 0}>` layout of the
    accumulator's `#tile.nvidia_mma`: wgmma's A-from-registers form, whose
    fragment is mma.sync's m16k16 A fragment on each warp's 16 rows (an
    accumulator converted to it is a permutation of registers: attention's
    P). The result may only be read after a `tile.warpgroup_wait` retires
    its group.
  }];
  let arguments = (ins AnyTypeOf<[Tile_SharedBuffer, Tile_Tensor]>:$a,
                       Tile_SharedBuffer:$b, Index:$bSlot,
                       Tile_Tensor:$acc, Optional<Index>:$aSlot,
                       UnitAttr:$a_mn_major, UnitAttr:$b_mn_major);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a (`[` $aSlot^ `]`)? `,` $b `[` $bSlot `]` `,` $acc attr-dict `:`
    qualified(type($a)) `,` qualified(type($b)) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// A read from registers (a #tile.dot_operand tile), not a shared slot.
    bool hasRegisterA() { return isa<RankedTensorType>(getA().getType()); }
  }];
  let hasVerifier = 1;
}

def Tile_WarpGroupWaitOp : Tile_Op<"warpgroup_wait", [
    MemoryEffects<[MemRead, MemWrite]>, AllTypesMatch<["src", "result"]>]> {
  let summary = "wait until at most `pending` wgmma groups are in flight";
  let description = [{
    `%r = tile.warpgroup_wait %d {pending = 1} : tensor<...>`: the groups
    committed before the last `pending` have completed; `%r` is `%d` with
    its registers safe to read (and the shared slots those groups read free
    to overwrite).

    `keep(%p : type)` names register tiles that a retiring group reads as
    its A operand (wgmma's A from registers): they stay live, in their
    registers, up to the wait, so nothing overwrites them while that group
    is in flight (a pipelined loop computes the next A beside it).
  }];
  let arguments = (ins Tile_Tensor:$src, Variadic<Tile_Tensor>:$kept,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`keep` `(` $kept^ `:` type($kept) `)`)? attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "int32_t":$pending), [{
      build($_builder, $_state, src.getType(), src, ::mlir::ValueRange(),
            pending);
    }]>
  ];
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [MemoryEffects<[MemWrite]>,
                                              AttrSizedOperandSegments]> {
  let summary = "store a register tile through shared memory with TMA";
  let description = [{
    ```mlir
    tile.tma_store %res, %mapC[%m0, %n0], %bufC
        : tensor<128x256xf16, #mma>, !llvm.ptr,
          !tile.shared_buffer<1x4x128x64xf16, #sw128>
    tile.tma_store %res, %mapC[%m0, %n0], %bufC[%group]
        : tensor<128x128xf16, #mma>, !llvm.ptr,
          !tile.shared_buffer<2x2x128x64xf16, #sw128>
    ```
    In rounds of as many 64-column chunks as a staging slot holds
    ([chunks, rows, 64] in the 128-byte swizzle; slot `slot`, 0 when the
    buffer has one), the tile's threads (those of its layout's warps) write
    their elements of the round's columns, fence them for the async proxy
    and synchronize on a named barrier; the tile's first thread then issues
    one `cp.async.bulk.tensor` store per chunk at the coordinates (outermost
    first; the map's box is [rows, 64]) and commits them as a bulk group.
    Before each round's writes, that thread waits until the previous group
    has read the slot. Elements outside the tensor are not written. When
    the kernel runs several tiles of this layout side by side (ping-pong
    consumer warpgroups, `tcc.consumer_groups` on the kernel), group g's
    threads are warps [g W, (g + 1) W) of the W the layout has, meet on
    named barrier 1 + g and stage in their own slot.
    `tile.tma_store_wait` waits for the stores to complete.
  }];
  let arguments = (ins Tile_Tensor:$src, LLVM_AnyPointer:$map,
                       Variadic<Index>:$coords, Tile_SharedBuffer:$buffer,
                       Optional<Index>:$slot);
  let assemblyFormat = [{
    $src `,` $map `[` $coords `]` `,` $buffer (`[` $slot^ `]`)? attr-dict `:`
    type($src) `,` qualified(type($map)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for this thread's TMA stores to complete";
  let description = [{
    `tile.tma_store_wait`: `cp.async.bulk.wait_group 0` in the threads that
    issue `tile.tma_store`s (thread 0, or the first thread of each consumer
    group); a kernel ends with it.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TCC_DIALECT_TILE_IR_TILEOPS_TD
