//===- TileTarget.td - the GPU target description ----------*- tablegen -*-===//
//
// `#tile.target<...>` describes the GPU a module is compiled for: the facts
// the passes decide by (warp size, shared memory, bank model, tensor-core
// instructions, asynchronous copies, how math functions are lowered). The
// module carries it as `tile.target`; passes read it instead of taking
// per-pass options. The known architectures are one table,
// KnownTargets.def, read by C++ (getKnownTarget) and by Python
// (tcc.targets).
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TILE_IR_TILETARGET_TD
#define TCC_DIALECT_TILE_IR_TILETARGET_TD

include "tcc/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

def Tile_Vendor : I32EnumAttr<"Vendor", "GPU vendor", [
    I32EnumAttrCase<"nvidia", 0>,
    I32EnumAttrCase<"amd", 1>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// How shared memory is banked and read, as tcc-swizzle-shared-memory and
// python/tcc/analysis/bank_conflicts.py model it.
def Tile_BankModel : I32EnumAttr<"BankModel", "shared-memory bank model", [
    // 32 banks x 4 bytes; tensor-core operands read with ldmatrix.
    I32EnumAttrCase<"nvidia", 0>,
    // CDNA LDS: 32 banks x 4 bytes, ds_read lane groups, MFMA operand reads.
    I32EnumAttrCase<"amd", 1>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// Tensor-core instructions a target offers for f16/bf16 operands with f32
// accumulation.
def Tile_MmaKind : I32EnumAttr<"MmaKind", "tensor-core instruction", [
    // NVIDIA sm_80+: mma.sync.aligned.m16n8k16 (one warp).
    I32EnumAttrCase<"mma_sync_m16n8k16", 0>,
    // AMD CDNA: v_mfma_f32_32x32x8 (one wave64).
    I32EnumAttrCase<"mfma_32x32x8", 1>,
    // AMD CDNA: v_mfma_f32_16x16x16 (one wave64).
    I32EnumAttrCase<"mfma_16x16x16", 2>,
    // NVIDIA sm_90a: wgmma.mma_async m64nNk16 (one warpgroup of 4 warps),
    // operands from shared memory through matrix descriptors, fed by TMA.
    I32EnumAttrCase<"wgmma_m64nNk16", 3>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

def Tile_MathLibrary : I32EnumAttr<"MathLibrary",
                                   "how math functions are lowered", [
    // Calls into NVIDIA's libdevice (linked when PTX is emitted).
    I32EnumAttrCase<"libdevice", 0>,
    // Expanded into polynomial approximations and exact leaf ops by
    // convert-tile-to-gpu (no device library needed).
    I32EnumAttrCase<"expanded", 1>
  ]> {
  let cppNamespace = "::mlir::tcc::tile";
  let genSpecializedAttr = 0;
}

// `[kind, ...]`, possibly empty (a target without tensor cores).
def Tile_MmaKindList : ArrayRefParameter<"::mlir::tcc::tile::MmaKind",
                                         "tensor-core instructions"> {
  let parser = [{ ::mlir::tcc::tile::parseMmaKinds($_parser) }];
  let printer = [{ ::mlir::tcc::tile::printMmaKinds($_printer, $_self) }];
}

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "the GPU target a module is compiled for";
  let description = [{
    ```mlir
    module attributes {tile.target = #tile.target<arch = "sm_90",
        vendor = nvidia, warp_size = 32, max_shared_bytes = 232448,
        banks = nvidia, mma = [mma_sync_m16n8k16], async_copy = true,
        math = libdevice>} { ... }
    ```

    - `arch`: the architecture (`sm_90`, `gfx942`, ...);
    - `warp_size`: threads per warp (32 on NVIDIA, 64 on AMD CDNA);
    - `max_shared_bytes`: workgroup memory one kernel may use;
    - `banks`: the shared-memory bank model the swizzle is chosen for;
    - `mma`: the tensor-core instructions, in order of preference
      (empty: matmuls take the FMA path);
    - `async_copy`: whether global-to-shared copies bypass registers
      (cp.async, NVIDIA sm_80+);
    - `math`: `libdevice` (calls into NVIDIA's device library) or
      `expanded` (polynomial approximations, no library).

    `tcc-set-target{arch=...}` (or the stage pipelines' `target=` option)
    writes the known target of an architecture (KnownTargets.def); a
    hand-written one may differ from the table (e.g. less shared memory)
    as long as it is consistent with its vendor.
  }];
  let parameters = (ins
    StringRefParameter<"architecture name">:$arch,
    EnumParameter<Tile_Vendor>:$vendor,
    "unsigned":$warp_size,
    "int64_t":$max_shared_bytes,
    EnumParameter<Tile_BankModel>:$banks,
    Tile_MmaKindList:$mma,
    "bool":$async_copy,
    EnumParameter<Tile_MathLibrary>:$math
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasMma(::mlir::tcc::tile::MmaKind kind) const {
      return ::llvm::is_contained(getMma(), kind);
    }
    /// Whether math functions are expanded into instructions (no device
    /// library call remains).
    bool expandsMath() const {
      return getMath() == ::mlir::tcc::tile::MathLibrary::expanded;
    }
  }];
}

#endif // TCC_DIALECT_TILE_IR_TILETARGET_TD
