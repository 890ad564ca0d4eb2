//===- TccDialect.td - the tcc tensor dialect --------------*- tablegen -*-===//
//
// `tcc` is tcc's tensor-level dialect: value-semantic ops over ranked tensors
// (static or dynamic dims) that a user writes programs in. It lowers to
// upstream linalg on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TCC_IR_TCCDIALECT_TD
#define TCC_DIALECT_TCC_IR_TCCDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tcc_Dialect : Dialect {
  let name = "tcc";
  let cppNamespace = "::mlir::tcc";
  let summary = "tcc tensor dialect: value-semantic tensor programs";
  let description = [{
    Elementwise (including comparison and select), broadcast, reshape, cast,
    matmul, reduction (including arg-max/min), softmax, permutation and
    constant ops over ranked tensors. Verifiers enforce shape, broadcast and
    element-type rules; the ops are `Pure` so CSE/DCE/canonicalize apply.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tcc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tcc_Dialect, mnemonic, traits>;

class Tcc_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tcc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TCC_DIALECT_TCC_IR_TCCDIALECT_TD
