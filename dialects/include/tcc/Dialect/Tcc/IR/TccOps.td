//===- TccOps.td - tcc tensor dialect ops ------------------*- tablegen -*-===//
//
// Op names, operand names and attribute names here are shared with the Python
// builder: keep them stable.
//
//===----------------------------------------------------------------------===//

#ifndef TCC_DIALECT_TCC_IR_TCCOPS_TD
#define TCC_DIALECT_TCC_IR_TCCOPS_TD

include "tcc/Dialect/Tcc/IR/TccDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"

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
// Matmul: float operands, or i8 operands accumulating into i32.
def Tcc_MatmulOperand : RankedTensorOf<[F16, BF16, F32, F64, I8]>;
def Tcc_MatmulResult : RankedTensorOf<[F16, BF16, F32, F64, I32]>;

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

// Runs the op's `verifyEarly()` as a trait verifier. Listed before
// `Elementwise`, so our diagnostics (naming the operand and the mismatch) come
// before that trait's generic "same shape and base type" message.
def Tcc_EarlyVerifier : NativeOpTrait<"EarlyVerifier"> {
  let cppNamespace = "::mlir::tcc::OpTrait";
}

//===----------------------------------------------------------------------===//
// Host programs
//===----------------------------------------------------------------------===//

def Tcc_LaunchOp : Tcc_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "one kernel launch of a host program";
  let description = [{
    A step of a host program (a `func.func` marked `tcc.host`, made by
    `tcc-form-kernels`): runs kernel `callee` on the tensor `inputs` and
    yields its results as new tensors (buffers the runtime allocates). The
    callee is a `func.func` on tensors (before `convert-linalg-to-tile`:
    operand and result types equal the callee's), a `tile.func` (after it:
    the callee takes one memref per input, then one per result, of the same
    shapes and element types), or, after `convert-tile-to-gpu`, the kernel's
    `gpu.func` in its `gpu.module` (a nested reference,
    `@k_module::@k`).

    ```mlir
    %mean = tcc.launch @layer_norm_k0(%x) : (tensor<64x512xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$callee, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

// Operands and result have compatible shapes (a static dim may meet a dynamic
// one) and equal element types; checked by verifyElementwiseBinary so the
// diagnostic can name the operand. When all three types are equal the types
// print as one (`: tensor<4xf32>`), otherwise as `: (lhs, rhs) -> result`.
class Tcc_BinaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Tcc_Op<mnemonic, !listconcat([Tcc_EarlyVerifier], traits,
                                   [Pure, Elementwise])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:`
    custom<ElementwiseTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    ::llvm::LogicalResult verifyEarly() {
      return ::mlir::tcc::verifyElementwiseBinary(getOperation());
    }
  }];
}

def Tcc_AddOp : Tcc_BinaryOp<"add", Tcc_Tensor, [Commutative]> {
  let summary = "elementwise addition";
}
def Tcc_SubOp : Tcc_BinaryOp<"sub", Tcc_Tensor> {
  let summary = "elementwise subtraction";
}
def Tcc_MulOp : Tcc_BinaryOp<"mul", Tcc_Tensor, [Commutative]> {
  let summary = "elementwise multiplication";
}
def Tcc_DivOp : Tcc_BinaryOp<"div", Tcc_Tensor> {
  let summary = "elementwise division (signed for integers)";
}
def Tcc_MaxOp : Tcc_BinaryOp<"max", Tcc_Tensor, [Commutative]> {
  let summary = "elementwise maximum (signed for integers)";
}
def Tcc_MinOp : Tcc_BinaryOp<"min", Tcc_Tensor, [Commutative]> {
  let summary = "elementwise minimum (signed for integers)";
}
def Tcc_PowOp : Tcc_BinaryOp<"pow", Tcc_FloatTensor> {
  let summary = "elementwise power `lhs ** rhs` (float only)";
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Tcc_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : Tcc_Op<mnemonic, !listconcat(traits, [Pure, Elementwise,
          AllTypesMatch<["input", "result"]>])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Tcc_NegOp : Tcc_UnaryOp<"neg", Tcc_Tensor> {
  let summary = "elementwise negation";
  let hasFolder = 1;
}
def Tcc_AbsOp : Tcc_UnaryOp<"abs", Tcc_Tensor> {
  let summary = "elementwise absolute value";
  let hasFolder = 1;
}
def Tcc_ExpOp : Tcc_UnaryOp<"exp", Tcc_FloatTensor> {
  let summary = "elementwise exponential";
}
def Tcc_LogOp : Tcc_UnaryOp<"log", Tcc_FloatTensor> {
  let summary = "elementwise natural logarithm";
}
def Tcc_SqrtOp : Tcc_UnaryOp<"sqrt", Tcc_FloatTensor> {
  let summary = "elementwise square root";
}
def Tcc_RsqrtOp : Tcc_UnaryOp<"rsqrt", Tcc_FloatTensor> {
  let summary = "elementwise reciprocal square root";
}
def Tcc_TanhOp : Tcc_UnaryOp<"tanh", Tcc_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
}
def Tcc_SigmoidOp : Tcc_UnaryOp<"sigmoid", Tcc_FloatTensor> {
  let summary = "elementwise logistic sigmoid";
}
def Tcc_ReluOp : Tcc_UnaryOp<"relu", Tcc_Tensor> {
  let summary = "elementwise max(x, 0)";
  let hasFolder = 1;
}

def Tcc_GeluOp : Tcc_UnaryOp<"gelu", Tcc_FloatTensor> {
  let summary = "Gaussian error linear unit";
  let arguments = (ins Tcc_FloatTensor:$input,
      DefaultValuedAttr<Tcc_GeluApproximationAttr,
                        "::mlir::tcc::GeluApproximation::none">:$approximate);
  // `approximate = tanh` is printed only when it is not the default; the
  // directive prints its own leading space (hence the empty literal).
  let assemblyFormat = [{
    $input `` custom<GeluApproximation>($approximate) attr-dict `:`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Broadcast
//===----------------------------------------------------------------------===//

def Tcc_BroadcastOp : Tcc_Op<"broadcast", [Pure]> {
  let summary = "explicit broadcast: insert result dims";
  let description = [{
    `dims` lists the result dims that are added (sorted, unique, in range);
    the remaining result dims, in order, are the input's dims. Each added dim
    that is dynamic in the result takes its size from `sizes`, in order.

    ```mlir
    %r = tcc.broadcast %b dims = [0] sizes(%m)
        : tensor<8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Tcc_Tensor:$input, DenseI64ArrayAttr:$dims,
                       Variadic<Index>:$sizes);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`sizes` `(` $sizes^ `)`)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

def Tcc_CastOp : Tcc_Op<"cast", [Tcc_EarlyVerifier, Pure, Elementwise]> {
  let summary = "elementwise element-type conversion";
  let arguments = (ins Tcc_Tensor:$input);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let extraClassDeclaration = [{
    ::llvm::LogicalResult verifyEarly();
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

def Tcc_MatmulOp : Tcc_Op<"matmul", [Pure]> {
  let summary = "(batched) matrix multiplication";
  let description = [{
    `MxK` times `KxN` gives `MxN`; rank-3 operands are batched (`BxMxK`,
    `BxKxN` -> `BxMxN`). `acc_type` is the accumulator element type; it
    defaults to the result element type. Float operands (f16, bf16, f32, f64)
    need a float result and an accumulator that is the operand type or a
    wider float; i8 operands need an i32 result and accumulator.

    ```mlir
    %r = tcc.matmul %a, %b acc(f32)
        : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
    ```
  }];
  let arguments = (ins Tcc_MatmulOperand:$lhs, Tcc_MatmulOperand:$rhs,
                       OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs Tcc_MatmulResult:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`acc` `(` $acc_type^ `)`)? attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator element type: `acc_type` or the result element type.
    ::mlir::Type getAccumulatorType();
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tcc_ReduceOp<string mnemonic, Type operandType>
    : Tcc_Op<mnemonic, [Pure]> {
  let arguments = (ins operandType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdims);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::tcc::verifyReduction(getOperation(), getDims(),
                                          getKeepdims());
    }
  }];
}

def Tcc_ReduceSumOp : Tcc_ReduceOp<"reduce_sum", Tcc_Tensor> {
  let summary = "sum over `dims`";
}
def Tcc_ReduceMaxOp : Tcc_ReduceOp<"reduce_max", Tcc_Tensor> {
  let summary = "maximum over `dims` (signed for integers)";
}
def Tcc_ReduceMinOp : Tcc_ReduceOp<"reduce_min", Tcc_Tensor> {
  let summary = "minimum over `dims` (signed for integers)";
}
def Tcc_ReduceMeanOp : Tcc_ReduceOp<"reduce_mean", Tcc_FloatTensor> {
  let summary = "arithmetic mean over `dims` (float only)";
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

def Tcc_SoftmaxOp : Tcc_Op<"softmax", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "softmax along `dim`";
  let arguments = (ins Tcc_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Tcc_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

def Tcc_TransposeOp : Tcc_Op<"transpose", [Pure]> {
  let summary = "permute dims: result dim i is input dim permutation[i]";
  let arguments = (ins Tcc_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Constant
//===----------------------------------------------------------------------===//

def Tcc_ConstantOp : Tcc_Op<"constant", [Pure, ConstantLike,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

#endif // TCC_DIALECT_TCC_IR_TCCOPS_TD
