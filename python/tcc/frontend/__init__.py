"""Build tcc tensor programs from Python functions over symbolic tensors,
written as a PyTorch user writes them.

```python
from tcc.frontend import Tensor, f32, program, syms

M, N = syms("M N")

@program
def layer_norm(x: Tensor[M, N, f32], w: Tensor[N, f32], b: Tensor[N, f32]) -> Tensor[M, N, f32]:
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mu) / (var + 1e-5).sqrt() * w + b

print(layer_norm.ir)                                  # func.func @layer_norm(tensor<?x?xf32>, ...)
static = layer_norm.specialize(M=1024, N=4096).to_module()
```

Rules (all checked in Python before any op is built; FrontendError /
ShapeError / DTypeError name the op, the operands, their shapes and dtypes):

- Symbols print as ``?``. Two dims are equal only if they are the same int or
  the same symbol (by name): ``M`` never matches ``N`` nor ``4`` (no
  unification; ``specialize(M=4)`` instead). Equal symbols in two arguments
  are assumed, not checked at run time. A product of sizes (``x.view(-1)`` of
  ``(M, 8)``) is the symbol ``8*M``; its runtime size is ``arith.muli`` of the
  factors' sizes.
- Elementwise ops (``+ - * / **``, ``maximum``, comparisons, ``where``, ...)
  follow torch: operands are promoted to ``result_type`` (f16 + f32 -> f32,
  bf16 + f16 -> f32, an f16 tensor times 2.0 stays f16, an int tensor plus 0.5
  is f32, ``/`` divides integers as f32, integer ``sum`` is i64, exp/log/...
  compute integers in f32) and broadcast by numpy's rules: a tensor is
  ``tcc.reshape``d to drop its size-1 dims that grow, then one
  ``tcc.broadcast`` adds them and the missing leading dims. A dynamic added
  dim takes its size from ``tensor.dim`` of the first argument dim carrying
  that symbol (one ``arith.constant``/``tensor.dim`` per symbol, emitted at
  first use); a symbol no argument carries is an error.
- Reshapes are kept out of the way of fusion: a keepdims reduction that is
  broadcast is re-emitted without keepdims, ops on keepdims results run
  without the size-1 dims, and ops on a reshaped matmul result run on the
  matmul's shape (the reshape moves after them). Replaced ops nothing else
  uses are erased when the build ends.
- A Python scalar becomes ``tcc.constant dense<v>`` of the operation's dtype
  when the shape is static; for a symbolic shape, a rank-0 constant
  ``tcc.broadcast`` to it. The scalar must fit the dtype.
- Reductions take ``dim`` as an int, a negative int or a tuple, positionally,
  and ``keepdim=`` or ``keepdims=``; ``max(x, dim)`` / ``min(x, dim)`` return
  ``MaxMin(values, indices)`` (``tcc.reduce_argmax``: the first index, i64;
  NaN is the maximum); ``amax``/``amin`` reduce several dims; ``var``/``std``
  default to ``correction=1``; the ``reduce_*`` functions are the tcc ops as
  they are.
- ``a @ b`` is ``torch.matmul``: 1-D operands, batch dims that broadcast, a
  2-D rhs folds lhs's batch dims into M. ``matmul(acc=..., out=...)``: f16 and
  bf16 accumulate in f32 by default; the result dtype is ``out``, else an
  explicit ``acc``, else i32 for i8 operands, else the operand dtype.
- ``gelu(approximate="none")`` stores no attribute (the default).
- ``specialize(**sizes)`` returns a Program whose symbols are fixed ints
  (static types, no ``tensor.dim``). Only argument symbols can be fixed.
- A program returns a Tensor, a tuple of them (annotated ``-> tuple[Tensor[...],
  ...]`` or not), or nothing. Calling a Program inside another inlines its body.
"""

from tcc.frontend import reductions
from tcc.frontend.attention import scaled_dot_product_attention
from tcc.frontend.dtypes import (
    DTYPES,
    DType,
    bf16,
    dtype,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    promote_types,
    result_type,
)
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.ops import (
    abs,
    add,
    arange,
    cast,
    clamp,
    div,
    eq,
    erf,
    exp,
    full,
    ge,
    gelu,
    gt,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    lt,
    matmul,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    pow,
    relu,
    rsqrt,
    sigmoid,
    silu,
    sqrt,
    sub,
    tanh,
    where,
)
from tcc.frontend.program import Program, program
from tcc.frontend.reductions import (
    MaxMin,
    amax,
    amin,
    argmax,
    argmin,
    log_softmax,
    mean,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
    softmax,
    std,
    var,
)
from tcc.frontend.shape_ops import (
    broadcast_to,
    expand,
    flatten,
    permute,
    reshape,
    squeeze,
    transpose,
    unsqueeze,
    view,
)
from tcc.frontend.shapes import Dim, Shape, Sym, sym, syms
from tcc.frontend.tensor import Tensor, TensorSpec

# torch's `max`, `min` and `sum` are attributes (tcc.frontend.max(x, 1)), not
# star-exported: they would shadow the builtins.
max = reductions.max
min = reductions.min
sum = reductions.sum

__all__ = [
    "DTYPES",
    "DType",
    "DTypeError",
    "Dim",
    "FrontendError",
    "MaxMin",
    "Program",
    "Shape",
    "ShapeError",
    "Sym",
    "Tensor",
    "TensorSpec",
    "abs",
    "add",
    "amax",
    "amin",
    "arange",
    "argmax",
    "argmin",
    "bf16",
    "broadcast_to",
    "cast",
    "clamp",
    "div",
    "dtype",
    "eq",
    "erf",
    "exp",
    "expand",
    "f16",
    "f32",
    "f64",
    "flatten",
    "full",
    "ge",
    "gelu",
    "gt",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "le",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "lt",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "mul",
    "ne",
    "neg",
    "permute",
    "pow",
    "program",
    "promote_types",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_sum",
    "relu",
    "reshape",
    "result_type",
    "rsqrt",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "sqrt",
    "squeeze",
    "std",
    "sub",
    "sym",
    "syms",
    "tanh",
    "transpose",
    "unsqueeze",
    "var",
    "view",
    "where",
]
