"""Build tcc tensor programs from Python functions over symbolic tensors.

```python
from tcc.frontend import Tensor, f32, program, sym

M, N = sym("M"), sym("N")

@program
def bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32]) -> Tensor[M, N, f32]:
    return (x + b.broadcast_to(x)).gelu(approximate="tanh")

print(bias_gelu.ir)                                  # func.func @bias_gelu(tensor<?x?xf32>, ...)
static = bias_gelu.specialize(M=1024, N=4096).to_module()
```

Rules (all checked in Python before any op is built; ShapeError / DTypeError
name the op, the operands, their shapes and dtypes):

- Symbols print as ``?``. Two dims are equal only if they are the same int or
  the same symbol (by name): ``M`` never matches ``N`` nor ``4`` (no
  unification; ``specialize(M=4)`` instead). Equal symbols in two arguments
  are assumed, not checked at run time.
- Binary ops need equal shapes and dtypes; broadcasting is explicit with
  ``broadcast_to(shape_or_tensor, dims=added_dims)`` (default: leading dims).
  A dynamic added dim takes its size from ``tensor.dim`` of the first argument
  dim carrying that symbol (one ``arith.constant``/``tensor.dim`` per symbol,
  emitted at first use); a symbol no argument carries is an error.
- A Python scalar becomes ``tcc.constant dense<v>`` of the other operand's
  type when the shape is static; for a symbolic shape, a rank-0 constant
  ``tcc.broadcast`` to it. The scalar must fit the dtype (no float -> int).
- ``matmul(acc=..., out=...)``: result dtype is ``out``, else ``acc``, else
  i32 for i8 operands, else the operand dtype; ``acc(...)`` is printed only
  when ``acc`` is given.
- ``gelu(approximate="none")`` stores no attribute (the default).
- ``specialize(**sizes)`` returns a Program whose symbols are fixed ints
  (static types, no ``tensor.dim``). Only argument symbols can be fixed.
- Calling a Program inside another inlines its body.
"""

from tcc.frontend.dtypes import DTYPES, DType, bf16, dtype, f16, f32, f64, i1, i8, i16, i32, i64
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.ops import (
    abs,
    add,
    broadcast_to,
    cast,
    div,
    exp,
    full,
    gelu,
    log,
    matmul,
    maximum,
    minimum,
    mul,
    neg,
    pow,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
    relu,
    rsqrt,
    sigmoid,
    softmax,
    sqrt,
    sub,
    tanh,
    transpose,
)
from tcc.frontend.program import Program, program
from tcc.frontend.shapes import Dim, Shape, Sym, sym, syms
from tcc.frontend.tensor import Tensor, TensorSpec

__all__ = [
    "DTYPES",
    "DType",
    "DTypeError",
    "Dim",
    "FrontendError",
    "Program",
    "Shape",
    "ShapeError",
    "Sym",
    "Tensor",
    "TensorSpec",
    "abs",
    "add",
    "bf16",
    "broadcast_to",
    "cast",
    "div",
    "dtype",
    "exp",
    "f16",
    "f32",
    "f64",
    "full",
    "gelu",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "log",
    "matmul",
    "maximum",
    "minimum",
    "mul",
    "neg",
    "pow",
    "program",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_sum",
    "relu",
    "rsqrt",
    "sigmoid",
    "softmax",
    "sqrt",
    "sub",
    "sym",
    "syms",
    "tanh",
    "transpose",
]
