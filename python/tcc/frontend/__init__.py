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

Symbols print as ``?``; two dims are equal only if they are the same int or the
same symbol (``M`` never matches ``4``: specialize instead). Shapes and dtypes
are checked in Python before any op is built (ShapeError / DTypeError).
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
