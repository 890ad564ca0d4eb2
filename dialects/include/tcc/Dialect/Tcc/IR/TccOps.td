//===- TccOps.td - tcc tensor dialect ops ------------------*- tablegen -*-===//

#ifndef TCC_DIALECT_TCC_IR_TCCOPS_TD
#define TCC_DIALECT_TCC_IR_TCCOPS_TD

include "tcc/Dialect/Tcc/IR/TccDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tcc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how GELU is computed", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::tcc";
  let genSpecializedAttr = 0;
}
def Tcc_GeluApproximationAttr
    : EnumAttr<Tcc_Dialect, Tcc_GeluApproximation, "gelu_approximation">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tcc_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def Tcc_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;
def Tcc_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Tcc_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

class Tcc_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Tcc_Op<mnemonic, !listconcat(traits, [Pure, Elementwise,
          SameOperandsAndResultType])> {
  let arguments = (ins Tcc_Tensor:$lhs, Tcc_Tensor:$rhs);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Tcc_AddOp : Tcc_BinaryOp<"add", [Commutative]> {
  let summary = "elementwise addition";
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Tcc_GeluOp : Tcc_Op<"gelu", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Gaussian error linear unit";
  let arguments = (ins Tcc_FloatTensor:$input,
                       DefaultValuedAttr<Tcc_GeluApproximationAttr,
                           "::mlir::tcc::GeluApproximation::none">:$approximate);
  let results = (outs Tcc_FloatTensor:$result);
  let assemblyFormat = "$input (`approximate` `=` $approximate^)? attr-dict `:` type($result)";
}

#endif // TCC_DIALECT_TCC_IR_TCCOPS_TD
