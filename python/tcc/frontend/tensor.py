"""``Tensor``: the annotation ``Tensor[M, N, f32]`` and the traced value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mlir import ir

from tcc.frontend._builder import Builder
from tcc.frontend.dtypes import DType, dtype
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shapes import Dim, Shape, as_shape

Scalar = bool | int | float


@dataclass(frozen=True)
class TensorSpec:
    """A tensor type with symbolic dims: what ``Tensor[M, 8, f32]`` returns."""

    shape: Shape
    dtype: DType

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        return f"Tensor[{', '.join([*map(str, self.shape), str(self.dtype)])}]"

    __repr__ = __str__


def make_spec(params: object) -> TensorSpec:
    """Parse ``Tensor[...]`` subscripts: dims (ints, syms, names) then a dtype."""
    items = params if isinstance(params, tuple) else (params,)
    if not items:
        raise DTypeError("Tensor[...] needs a dtype as its last entry")
    *dims, last = items
    if len(dims) == 1 and isinstance(dims[0], tuple | list):
        dims = list(dims[0])
    try:
        elt = dtype(last)
    except DTypeError as e:
        raise DTypeError(f"Tensor[...]: the last entry must be a dtype; {e}") from None
    return TensorSpec(as_shape(dims, "Tensor[...]"), elt)


class Tensor:
    """A tensor value inside a ``@program``; its shape may hold symbols.

    As an annotation, ``Tensor[M, N, f32]`` is a :class:`TensorSpec`.
    """

    __slots__ = ("value", "shape", "dtype", "builder")

    def __init__(self, value: ir.Value, shape: Shape, dtype: DType, builder: Builder) -> None:
        self.value = value
        self.shape = shape
        self.dtype = dtype
        self.builder = builder

    def __class_getitem__(cls, params: object) -> TensorSpec:
        return make_spec(params)

    @property
    def spec(self) -> TensorSpec:
        return TensorSpec(self.shape, self.dtype)

    @property
    def rank(self) -> int:
        return len(self.shape)

    ndim = rank

    @property
    def type(self) -> ir.Type:
        return self.value.type

    def __repr__(self) -> str:
        return str(self.spec)

    def __bool__(self) -> bool:
        raise FrontendError(f"{self!r} has no truth value while a program is being built")

    # Arithmetic operators (tcc binary ops; Python scalars become constants).
    def __add__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.add(self, other)

    def __radd__(self, other: Scalar) -> Tensor:
        return _ops.add(other, self)

    def __sub__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.sub(self, other)

    def __rsub__(self, other: Scalar) -> Tensor:
        return _ops.sub(other, self)

    def __mul__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.mul(self, other)

    def __rmul__(self, other: Scalar) -> Tensor:
        return _ops.mul(other, self)

    def __truediv__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Scalar) -> Tensor:
        return _ops.div(other, self)

    def __pow__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.pow(self, other)

    def __rpow__(self, other: Scalar) -> Tensor:
        return _ops.pow(other, self)

    def __matmul__(self, other: Tensor) -> Tensor:
        return _ops.matmul(self, other)

    def __neg__(self) -> Tensor:
        return _ops.neg(self)

    def __abs__(self) -> Tensor:
        return _ops.abs(self)

    # Unary ops.
    def neg(self) -> Tensor:
        return _ops.neg(self)

    def abs(self) -> Tensor:
        return _ops.abs(self)

    def exp(self) -> Tensor:
        return _ops.exp(self)

    def log(self) -> Tensor:
        return _ops.log(self)

    def sqrt(self) -> Tensor:
        return _ops.sqrt(self)

    def rsqrt(self) -> Tensor:
        return _ops.rsqrt(self)

    def tanh(self) -> Tensor:
        return _ops.tanh(self)

    def sigmoid(self) -> Tensor:
        return _ops.sigmoid(self)

    def relu(self) -> Tensor:
        return _ops.relu(self)

    def gelu(self, approximate: str = "none") -> Tensor:
        return _ops.gelu(self, approximate=approximate)

    # Binary ops without an operator.
    def maximum(self, other: Tensor | Scalar) -> Tensor:
        return _ops.maximum(self, other)

    def minimum(self, other: Tensor | Scalar) -> Tensor:
        return _ops.minimum(self, other)

    # Shape and type changes.
    def cast(self, to: DType | str) -> Tensor:
        return _ops.cast(self, to)

    to = cast

    def matmul(
        self, other: Tensor, *, acc: DType | str | None = None, out: DType | str | None = None
    ) -> Tensor:
        return _ops.matmul(self, other, acc=acc, out=out)

    def sum(self, dims: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.reduce_sum(self, dims, keepdims=keepdims)

    def max(self, dims: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.reduce_max(self, dims, keepdims=keepdims)

    def min(self, dims: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.reduce_min(self, dims, keepdims=keepdims)

    def mean(self, dims: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        return _ops.reduce_mean(self, dims, keepdims=keepdims)

    def softmax(self, dim: int = -1) -> Tensor:
        return _ops.softmax(self, dim)

    def transpose(self, permutation: Sequence[int] | None = None) -> Tensor:
        return _ops.transpose(self, permutation)

    @property
    def T(self) -> Tensor:
        if self.rank != 2:
            raise ShapeError(f"T: expects a 2-D tensor, got {self!r}; use transpose(permutation)")
        return _ops.transpose(self, (1, 0))

    def broadcast_to(
        self, shape: Tensor | TensorSpec | Sequence[Dim | str], dims: Sequence[int] | None = None
    ) -> Tensor:
        return _ops.broadcast_to(self, shape, dims=dims)


from tcc.frontend import ops as _ops  # noqa: E402  (ops needs Tensor)
