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

def Tcc_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::mlir::tcc";
  let genSpecializedAttr = 0;
}
def Tcc_ComparePredicateAttr
    : EnumAttr<Tcc_Dialect, Tcc_ComparePredicate, "compare_predicate">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tcc_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def Tcc_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;
def Tcc_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Tcc_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64]>;
def Tcc_BoolTensor : RankedTensorOf<[I1]>;
def Tcc_IndexTensor : RankedTensorOf<[I32, I64]>;
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
// Comparison and selection
//===----------------------------------------------------------------------===//

def Tcc_CmpOp : Tcc_Op<"cmp", [Tcc_EarlyVerifier, Pure, Elementwise]> {
  let summary = "elementwise comparison giving an i1 tensor";
  let description = [{
    `lhs <predicate> rhs` per element. Floats compare ordered (a NaN operand
    gives false) except `ne`, which is true for NaN, as in torch; integers
    compare signed, i1 unsigned (false < true). Operands have equal element
    types and compatible shapes; the result is i1 of a compatible shape.

    ```mlir
    %m = tcc.cmp lt, %a, %b : tensor<4x?xf32> -> tensor<4x?xi1>
    ```
  }];
  let arguments = (ins Tcc_ComparePredicateAttr:$predicate, Tcc_Tensor:$lhs,
                       Tcc_Tensor:$rhs);
  let results = (outs Tcc_BoolTensor:$result);
  let assemblyFormat = [{
    custom<ComparePredicate>($predicate) `,` $lhs `,` $rhs attr-dict `:`
    custom<CompareTypes>(type($lhs), type($rhs), type($result))
  }];
  let extraClassDeclaration = [{
    ::llvm::LogicalResult verifyEarly();
  }];
}

def Tcc_SelectOp : Tcc_Op<"select", [Tcc_EarlyVerifier, Pure, Elementwise,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "elementwise `condition ? true_value : false_value`";
  let description = [{
    torch's `where(condition, a, b)`: the condition is an i1 tensor of a
    compatible shape; the two values and the result have one type.

    ```mlir
    %r = tcc.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Tcc_BoolTensor:$condition, Tcc_Tensor:$true_value,
                       Tcc_Tensor:$false_value);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let extraClassDeclaration = [{
    ::llvm::LogicalResult verifyEarly();
  }];
  let hasFolder = 1;
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
def Tcc_ErfOp : Tcc_UnaryOp<"erf", Tcc_FloatTensor> {
  let summary = "elementwise Gauss error function";
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

def Tcc_ReduceArgMaxOp : Tcc_Op<"reduce_argmax", [Pure]> {
  let summary = "maximum over `dim` and the index of its first occurrence";
  let description = [{
    torch's `max(x, dim)`: `values` is the maximum along `dim` (a NaN is the
    maximum, as in torch), `indices` the position of its first occurrence
    along `dim` (i32 or i64). Both results are the input shape with `dim`
    removed, or set to 1 with `keepdims`. Integers compare signed.

    ```mlir
    %v, %i = tcc.reduce_argmax %x dim = 1
        : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xi64>
    ```
  }];
  let arguments = (ins Tcc_Tensor:$input, I64Attr:$dim, UnitAttr:$keepdims);
  let results = (outs Tcc_Tensor:$values, Tcc_IndexTensor:$indices);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Tcc_ReduceArgMinOp : Tcc_Op<"reduce_argmin", [Pure]> {
  let summary = "minimum over `dim` and the index of its first occurrence";
  let description = [{
    torch's `min(x, dim)`; as `tcc.reduce_argmax` with the minimum.
  }];
  let arguments = (ins Tcc_Tensor:$input, I64Attr:$dim, UnitAttr:$keepdims);
  let results = (outs Tcc_Tensor:$values, Tcc_IndexTensor:$indices);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
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
// Reshape
//===----------------------------------------------------------------------===//

def Tcc_ReshapeOp : Tcc_Op<"reshape", [Pure]> {
  let summary = "same elements in row-major order, another shape";
  let description = [{
    torch's `reshape`/`view` on a contiguous tensor: the result holds the
    input's elements in row-major order. Element types are equal; static
    element counts are equal. Each dynamic result dim takes its size from
    `sizes`, in order (the number of elements is not checked at run time).
    It lowers to `tensor.collapse_shape` and/or `tensor.expand_shape`.

    ```mlir
    %r = tcc.reshape %x : tensor<4x6xf32> -> tensor<2x2x6xf32>
    %f = tcc.reshape %y sizes(%n) : tensor<?x8xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Tcc_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Tcc_Tensor:$result);
  let assemblyFormat = [{
    $input (`sizes` `(` $sizes^ `)`)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Iota
//===----------------------------------------------------------------------===//

def Tcc_IotaOp : Tcc_Op<"iota", [Pure]> {
  let summary = "0, 1, ..., n - 1 (torch.arange(n))";
  let description = [{
    `tcc.iota : tensor<128xi32>`, or `tcc.iota(%n) : tensor<?xi64>` for a
    dynamic length: a 1-D tensor of integers counting from 0. Positions
    compared to one another make masks: `where(iota(S)[:, None] >=
    iota(S)[None, :], s, -inf)` is attention's causal mask, which the fused
    attention kernel recognizes (and skips the blocks it masks whole).
  }];
  let arguments = (ins Variadic<Index>:$sizes);
  let results = (outs Tcc_IndexTensor:$result);
  let assemblyFormat = "(`(` $sizes^ `)`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
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
