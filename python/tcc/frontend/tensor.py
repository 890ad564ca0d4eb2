"""``Tensor``: the annotation ``Tensor[M, N, f32]`` and the traced value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mlir import ir

from tcc.frontend._builder import Builder, locate_methods
from tcc.frontend.dtypes import DType, dtype
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shapes import Dim, Shape, as_shape, norm_dim

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

    @property
    def type(self) -> ir.Type:
        return self.value.type

    def __repr__(self) -> str:
        return str(self.spec)

    def __bool__(self) -> bool:
        raise FrontendError(f"{self!r} has no truth value while a program is being built")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dim(self) -> int:
        """The rank (``torch.Tensor.dim``)."""
        return len(self.shape)

    def size(self, dim: int | None = None) -> Shape | Dim:
        """The shape, or the size of ``dim`` (``torch.Tensor.size``)."""
        if dim is None:
            return self.shape
        return self.shape[norm_dim(dim, self.rank, "size")]

    def __hash__(self) -> int:  # `==` builds a comparison; hash by identity
        return id(self)

    # Arithmetic operators: torch's promotion and broadcasting; Python scalars
    # become constants.
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

    # Comparisons give i1 tensors.
    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        if not isinstance(other, Tensor | bool | int | float):
            return NotImplemented
        return _ops.eq(self, other)

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        if not isinstance(other, Tensor | bool | int | float):
            return NotImplemented
        return _ops.ne(self, other)

    def __lt__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.lt(self, other)

    def __le__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.le(self, other)

    def __gt__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.gt(self, other)

    def __ge__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.ge(self, other)

    # Logical ops on i1 tensors.
    def __and__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.logical_and(self, other)

    def __rand__(self, other: Scalar) -> Tensor:
        return _ops.logical_and(other, self)

    def __or__(self, other: Tensor | Scalar) -> Tensor:
        return _ops.logical_or(self, other)

    def __ror__(self, other: Scalar) -> Tensor:
        return _ops.logical_or(other, self)

    def __invert__(self) -> Tensor:
        return _ops.logical_not(self)

    def eq(self, other: Tensor | Scalar) -> Tensor:
        return _ops.eq(self, other)

    def ne(self, other: Tensor | Scalar) -> Tensor:
        return _ops.ne(self, other)

    def lt(self, other: Tensor | Scalar) -> Tensor:
        return _ops.lt(self, other)

    def le(self, other: Tensor | Scalar) -> Tensor:
        return _ops.le(self, other)

    def gt(self, other: Tensor | Scalar) -> Tensor:
        return _ops.gt(self, other)

    def ge(self, other: Tensor | Scalar) -> Tensor:
        return _ops.ge(self, other)

    def where(self, condition: Tensor, other: Tensor | Scalar) -> Tensor:
        """``torch.Tensor.where``: ``self`` where ``condition``, else ``other``."""
        return _ops.where(condition, self, other)

    def masked_fill(self, mask: Tensor, value: Tensor | Scalar) -> Tensor:
        """``value`` where ``mask`` holds, else ``self`` (in ``self``'s dtype)."""
        return _ops.where(mask, value, self).to(self.dtype)

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

    def erf(self) -> Tensor:
        return _ops.erf(self)

    def relu(self) -> Tensor:
        return _ops.relu(self)

    def gelu(self, approximate: str = "none") -> Tensor:
        return _ops.gelu(self, approximate=approximate)

    def silu(self) -> Tensor:
        return _ops.silu(self)

    def square(self) -> Tensor:
        return _ops.mul(self, self)

    def reciprocal(self) -> Tensor:
        return _ops.div(1.0, self)

    def clamp(
        self, min: Tensor | Scalar | None = None, max: Tensor | Scalar | None = None
    ) -> Tensor:
        return _ops.clamp(self, min, max)

    # Binary ops without an operator.
    def maximum(self, other: Tensor | Scalar) -> Tensor:
        return _ops.maximum(self, other)

    def minimum(self, other: Tensor | Scalar) -> Tensor:
        return _ops.minimum(self, other)

    def pow(self, other: Tensor | Scalar) -> Tensor:
        return _ops.pow(self, other)

    # Type changes.
    def cast(self, to: object) -> Tensor:
        """Convert the element type (a DType, its name, or a torch dtype or name)."""
        return _ops.cast(self, to)

    def to(self, dtype: object) -> Tensor:
        """``torch.Tensor.to(dtype)``: the same as :meth:`cast`."""
        return _ops.cast(self, dtype)

    def float(self) -> Tensor:
        return _ops.cast(self, "f32")

    def half(self) -> Tensor:
        return _ops.cast(self, "f16")

    def bfloat16(self) -> Tensor:
        return _ops.cast(self, "bf16")

    def double(self) -> Tensor:
        return _ops.cast(self, "f64")

    def int(self) -> Tensor:
        return _ops.cast(self, "i32")

    def long(self) -> Tensor:
        return _ops.cast(self, "i64")

    def bool(self) -> Tensor:
        """``self != 0`` as i1 (torch's bool conversion)."""
        return _ops.ne(self, 0)

    def type_as(self, other: Tensor) -> Tensor:
        return _ops.cast(self, other.dtype)

    # Matmul.
    def matmul(
        self, other: Tensor, *, acc: DType | str | None = None, out: DType | str | None = None
    ) -> Tensor:
        return _ops.matmul(self, other, acc=acc, out=out)

    # Reductions (torch's signatures: dim positional, keepdim= or keepdims=).
    def sum(
        self,
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        *,
        dtype: DType | str | None = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        return _red.sum(self, dim, keepdim, dtype=dtype, keepdims=keepdims)

    def mean(
        self,
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        *,
        dtype: DType | str | None = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        return _red.mean(self, dim, keepdim, dtype=dtype, keepdims=keepdims)

    def amax(
        self, dim: int | Sequence[int] = (), keepdim: bool = False, *, keepdims: bool | None = None
    ) -> Tensor:
        return _red.amax(self, dim, keepdim, keepdims=keepdims)

    def amin(
        self, dim: int | Sequence[int] = (), keepdim: bool = False, *, keepdims: bool | None = None
    ) -> Tensor:
        return _red.amin(self, dim, keepdim, keepdims=keepdims)

    def max(
        self,
        dim: int | Tensor | None = None,
        keepdim: bool = False,
        *,
        keepdims: bool | None = None,
    ) -> Any:
        """``max()``: a 0-d tensor; ``max(dim)``: ``(values, indices)``;
        ``max(other)``: the elementwise maximum."""
        return _red.max(self, dim, keepdim, keepdims=keepdims)

    def min(
        self,
        dim: int | Tensor | None = None,
        keepdim: bool = False,
        *,
        keepdims: bool | None = None,
    ) -> Any:
        """As :meth:`max`, with the minimum."""
        return _red.min(self, dim, keepdim, keepdims=keepdims)

    def argmax(
        self, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None
    ) -> Tensor:
        return _red.argmax(self, dim, keepdim, keepdims=keepdims)

    def argmin(
        self, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None
    ) -> Tensor:
        return _red.argmin(self, dim, keepdim, keepdims=keepdims)

    def var(
        self,
        dim: int | Sequence[int] | bool | None = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: int | float | None = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        return _red.var(self, dim, unbiased, keepdim, correction=correction, keepdims=keepdims)

    def std(
        self,
        dim: int | Sequence[int] | bool | None = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: int | float | None = None,
        keepdims: bool | None = None,
    ) -> Tensor:
        return _red.std(self, dim, unbiased, keepdim, correction=correction, keepdims=keepdims)

    def softmax(self, dim: int = -1) -> Tensor:
        return _red.softmax(self, dim)

    def log_softmax(self, dim: int = -1) -> Tensor:
        return _red.log_softmax(self, dim)

    # Shape ops.
    def transpose(self, *dims: int | Sequence[int]) -> Tensor:
        """``transpose(d0, d1)`` swaps two dims; ``transpose(perm)`` permutes;
        ``transpose()`` reverses the dims."""
        return _shape.transpose(self, *dims)

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        return _shape.permute(self, *dims)

    @property
    def T(self) -> Tensor:
        if self.rank != 2:
            raise ShapeError(f"T: expects a 2-D tensor, got {self!r}; use transpose(permutation)")
        return _shape.transpose(self, (1, 0))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped."""
        if self.rank < 2:
            raise ShapeError(f"mT: expects a tensor of rank 2 or more, got {self!r}")
        return _shape.transpose(self, -2, -1)

    def reshape(self, *shape: object) -> Tensor:
        return _shape.reshape(self, *shape)

    def view(self, *shape: object) -> Tensor:
        return _shape.view(self, *shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return _shape.flatten(self, start_dim, end_dim)

    def unsqueeze(self, dim: int) -> Tensor:
        return _shape.unsqueeze(self, dim)

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        return _shape.squeeze(self, dim)

    def expand(self, *sizes: object) -> Tensor:
        return _shape.expand(self, *sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return _shape.broadcast_to(self, other)

    def broadcast_to(
        self, shape: Tensor | TensorSpec | Sequence[Dim | str], dims: Sequence[int] | None = None
    ) -> Tensor:
        return _shape.broadcast_to(self, shape, dims=dims)


# The op modules need Tensor; imported as modules, in dependency order.
from tcc.frontend import ops as _ops  # noqa: E402
from tcc.frontend import reductions as _red  # noqa: E402
from tcc.frontend import shape_ops as _shape  # noqa: E402

locate_methods(Tensor)  # each op emits at the user's source location
