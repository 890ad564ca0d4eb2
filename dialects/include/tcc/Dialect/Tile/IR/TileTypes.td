//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TCC_DIALECT_TILE_IR_TILETYPES_TD
#define TCC_DIALECT_TILE_IR_TILETYPES_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

// A pointer to global (or another address space's) memory. Address spaces
// follow NVVM/AMDGPU numbering: 1 global (the default), 3 shared. Tiles of pointers
// are `tensor<...x!tile.ptr<f16>>`, offset elementwise with `tile.addptr`.
def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "pointer to elements in an address space";
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
}

// A multi-slot shared-memory (workgroup / LDS) buffer: `slots` copies of one
// tile, laid out as `encoding` says. What tcc-promote-shared-memory
// allocates to pipeline operand tiles (one slot per stage in flight).
def Tile_SharedBufferType : Tile_Type<"SharedBuffer", "shared_buffer"> {
  let summary = "slots of one tile in shared memory";
  let description = [{
    `!tile.shared_buffer<3x128x32xf16, #tile.shared<{vec = 8, perPhase = 2,
    maxPhase = 4, order = [1, 0]}>>` holds 3 slots of a 128x32 f16 tile.
    The leading dimension counts slots; the rest is the tile's shape,
    stored per `encoding` (row order and XOR swizzle).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::tcc::tile::SharedEncodingAttr":$encoding);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumSlots() const { return getShape().front(); }
    /// The shape of one slot's tile.
    ::llvm::ArrayRef<int64_t> getTileShape() const {
      return getShape().drop_front();
    }
    /// The tensor type one slot holds under `layout`.
    ::mlir::RankedTensorType getTileType(::mlir::Attribute layout) const {
      return ::mlir::RankedTensorType::get(getTileShape(), getElementType(),
                                           layout);
    }
  }];
}

// A row of mbarriers in shared memory (NVIDIA sm_90: what TMA copies complete
// on and warpgroups hand stages over with), one per pipeline stage.
def Tile_MBarriersType : Tile_Type<"MBarriers", "mbarriers"> {
  let summary = "mbarriers in shared memory, one per pipeline slot";
  let description = [{
    `!tile.mbarriers<4>`: four 8-byte mbarrier objects, made by
    `tile.mbarrier_alloc` with the arrival count each phase waits for.
  }];
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Ptr : Type<CPred<"::llvm::isa<::mlir::tcc::tile::PtrType>($_self)">,
                    "!tile.ptr", "::mlir::tcc::tile::PtrType">;
def Tile_Scalar : AnyTypeOf<[AnySignlessIntegerOrIndex, AnyFloat, Tile_Ptr],
                            "tile element (integer, float or !tile.ptr)">;
def Tile_SharedBuffer
    : Type<CPred<"::llvm::isa<::mlir::tcc::tile::SharedBufferType>($_self)">,
           "!tile.shared_buffer", "::mlir::tcc::tile::SharedBufferType">;
def Tile_MBarriers
    : Type<CPred<"::llvm::isa<::mlir::tcc::tile::MBarriersType>($_self)">,
           "!tile.mbarriers", "::mlir::tcc::tile::MBarriersType">;
def Tile_Int : AnyTypeOf<[AnySignlessIntegerOrIndex]>;

// A tile: a statically shaped tensor, with a layout encoding once assigned.
def Tile_Tensor : StaticShapeTensorOf<[Tile_Scalar]>;
def Tile_IntTensor : StaticShapeTensorOf<[AnySignlessIntegerOrIndex]>;
def Tile_BoolTensor : StaticShapeTensorOf<[I1]>;
def Tile_PtrTensor : StaticShapeTensorOf<[Tile_Ptr]>;

def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor],
                             "!tile.ptr or tile of !tile.ptr">;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor],
                             "integer or tile of integers">;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor], "i1 or tile of i1">;
def Tile_ScalarOrTensor : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;

#endif // TCC_DIALECT_TILE_IR_TILETYPES_TD
