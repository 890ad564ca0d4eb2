"""Reductions: sum, mean, amax/amin, max/min with indices, var/std, softmax.

``reduce_*`` are the tcc ops as they are; the torch-named functions follow
torch: ``dim`` is an int, a negative int or a tuple (None or ``()``: all dims),
``keepdim=`` (or ``keepdims=``), integer sums are int64, ``max(x, dim)``
returns ``(values, indices)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from mlir import ir

from tcc.dialects import tcc as _tcc
from tcc.frontend import ops as _ops  # a module: ops may still be initializing
from tcc.frontend._builder import locate_functions, tensor_type
from tcc.frontend.dtypes import DType, f32, i64
from tcc.frontend.errors import FrontendError, ShapeError
from tcc.frontend.shape_ops import flatten
from tcc.frontend.shapes import Shape, norm_dim, product
from tcc.frontend.tensor import Tensor

DimsArg = int | Sequence[int] | None


def _reduce(
    where: str,
    op: Callable[..., ir.OpView],
    x: Tensor,
    dims: DimsArg,
    keepdims: bool,
    float_only: bool = False,
) -> Tensor:
    x = _ops._tensor(where, "input", x)
    if float_only:
        _ops._require_float(where, x)
    red = list(range(x.rank)) if dims is None else _ops._norm_dims(where, x, dims)
    if not red:
        raise ShapeError(f"{where}: nothing to reduce in {x!r}")
    shape: Shape = tuple(
        1 if i in red else d for i, d in enumerate(x.shape) if keepdims or i not in red
    )
    value = op(tensor_type(shape, x.dtype), x.value, red, keepdims=keepdims).result
    return _ops._wrap(value, shape, x.dtype)


def reduce_sum(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """``tcc.reduce_sum`` over ``dims`` (default: all), in the input dtype."""
    return _reduce("reduce_sum", _tcc.ReduceSumOp, x, dims, keepdims)


def reduce_max(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """``tcc.reduce_max`` over ``dims`` (default: all)."""
    return _reduce("reduce_max", _tcc.ReduceMaxOp, x, dims, keepdims)


def reduce_min(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """``tcc.reduce_min`` over ``dims`` (default: all)."""
    return _reduce("reduce_min", _tcc.ReduceMinOp, x, dims, keepdims)


def reduce_mean(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """``tcc.reduce_mean`` over ``dims`` (default: all; float only)."""
    return _reduce("reduce_mean", _tcc.ReduceMeanOp, x, dims, keepdims, float_only=True)


def _keep(where: str, keepdim: bool, keepdims: bool | None) -> bool:
    """torch's ``keepdim=`` or numpy's ``keepdims=``."""
    if keepdims is not None and bool(keepdims) != bool(keepdim) and keepdim:
        raise FrontendError(f"{where}: keepdim={keepdim} and keepdims={keepdims} disagree")
    return bool(keepdim or keepdims)


def _all_dims(dim: DimsArg) -> DimsArg:
    """None and ``()`` reduce every dim (as torch's sum/amax do)."""
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return None
    return dim


def _is_16bit_float(d: DType) -> bool:
    return d.is_float and d.bits == 16


def sum(
    x: Tensor,
    dim: DimsArg = None,
    keepdim: bool = False,
    *,
    dtype: DType | str | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """``torch.sum``: over ``dim`` (default: all); bool and integer inputs sum
    in int64 unless ``dtype`` is given (the input is cast to it first)."""
    where = "sum"
    x = _ops._tensor(where, "input", x)
    keep = _keep(where, keepdim, keepdims)
    if dtype is not None:
        x = _ops.cast(x, dtype)
    elif not x.dtype.is_float:
        x = _ops.cast(x, i64)
    if x.rank == 0:
        return x
    return _reduce(where, _tcc.ReduceSumOp, x, _all_dims(dim), keep)


def mean(
    x: Tensor,
    dim: DimsArg = None,
    keepdim: bool = False,
    *,
    dtype: DType | str | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """``torch.mean`` over ``dim`` (default: all; float only, or ``dtype``)."""
    where = "mean"
    x = _ops._tensor(where, "input", x)
    keep = _keep(where, keepdim, keepdims)
    if dtype is not None:
        x = _ops.cast(x, dtype)
    _ops._require_float(where, x)
    if x.rank == 0:
        return x
    return _reduce(where, _tcc.ReduceMeanOp, x, _all_dims(dim), keep)


def amax(
    x: Tensor, dim: DimsArg = (), keepdim: bool = False, *, keepdims: bool | None = None
) -> Tensor:
    """``torch.amax``: the maximum over ``dim`` (int or tuple; default: all)."""
    x = _ops._tensor("amax", "input", x)
    if x.rank == 0:
        return x
    return _reduce("amax", _tcc.ReduceMaxOp, x, _all_dims(dim), _keep("amax", keepdim, keepdims))


def amin(
    x: Tensor, dim: DimsArg = (), keepdim: bool = False, *, keepdims: bool | None = None
) -> Tensor:
    """``torch.amin``: the minimum over ``dim`` (int or tuple; default: all)."""
    x = _ops._tensor("amin", "input", x)
    if x.rank == 0:
        return x
    return _reduce("amin", _tcc.ReduceMinOp, x, _all_dims(dim), _keep("amin", keepdim, keepdims))


class MaxMin(NamedTuple):
    """``(values, indices)`` of ``max(x, dim)`` / ``min(x, dim)``, as torch's
    ``torch.return_types.max``; indices are int64."""

    values: Tensor
    indices: Tensor


def _arg_reduce(
    where: str, op: Callable[..., ir.OpView], x: Tensor, dim: object, keep: bool
) -> MaxMin:
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise ShapeError(
            f"{where}: dim must be an int, got {dim!r}; use amax/amin to reduce several dims"
        )
    if x.rank == 0:
        zero = _ops.full((), 0, i64, where=where)
        return MaxMin(x, zero)
    d = norm_dim(dim, x.rank, where)
    shape: Shape = tuple(1 if i == d else s for i, s in enumerate(x.shape) if keep or i != d)
    res = op(
        tensor_type(shape, x.dtype), tensor_type(shape, i64), x.value,
        ir.IntegerAttr.get(ir.IntegerType.get_signless(64), d), keepdims=keep,
    )  # fmt: skip
    return MaxMin(
        _ops._wrap(res.results[0], shape, x.dtype), _ops._wrap(res.results[1], shape, i64)
    )


def max(
    x: Tensor,
    dim: int | Tensor | None = None,
    keepdim: bool = False,
    *,
    keepdims: bool | None = None,
) -> Tensor | MaxMin:
    """``torch.max``: ``max(x)`` is the maximum of all elements (a 0-d tensor);
    ``max(x, dim)`` is ``(values, indices)`` along ``dim`` (the first index of
    the maximum; NaN is the maximum); ``max(x, other)`` is ``maximum``."""
    x = _ops._tensor("max", "input", x)
    if isinstance(dim, Tensor):
        return _ops.maximum(x, dim)
    if dim is None:
        return amax(x)
    return _arg_reduce("max", _tcc.ReduceArgMaxOp, x, dim, _keep("max", keepdim, keepdims))


def min(
    x: Tensor,
    dim: int | Tensor | None = None,
    keepdim: bool = False,
    *,
    keepdims: bool | None = None,
) -> Tensor | MaxMin:
    """``torch.min``: as :func:`max` with the minimum."""
    x = _ops._tensor("min", "input", x)
    if isinstance(dim, Tensor):
        return _ops.minimum(x, dim)
    if dim is None:
        return amin(x)
    return _arg_reduce("min", _tcc.ReduceArgMinOp, x, dim, _keep("min", keepdim, keepdims))


def argmax(
    x: Tensor, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None
) -> Tensor:
    """``torch.argmax``: int64 index of the first maximum along ``dim`` (of
    the flattened input when ``dim`` is None)."""
    x = _ops._tensor("argmax", "input", x)
    if dim is None:
        return _arg_reduce("argmax", _tcc.ReduceArgMaxOp, flatten(x), 0, False).indices
    keep = _keep("argmax", keepdim, keepdims)
    return _arg_reduce("argmax", _tcc.ReduceArgMaxOp, x, dim, keep).indices


def argmin(
    x: Tensor, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None
) -> Tensor:
    """``torch.argmin``: as :func:`argmax` with the minimum."""
    x = _ops._tensor("argmin", "input", x)
    if dim is None:
        return _arg_reduce("argmin", _tcc.ReduceArgMinOp, flatten(x), 0, False).indices
    keep = _keep("argmin", keepdim, keepdims)
    return _arg_reduce("argmin", _tcc.ReduceArgMinOp, x, dim, keep).indices


def var(
    x: Tensor,
    dim: DimsArg | bool = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: int | float | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """``torch.var``: ``sum((x - mean)**2) / max(N - correction, 0)`` over
    ``dim`` (default: all). ``correction`` defaults to 1 (unbiased);
    ``unbiased=False`` means 0. f16/bf16 are computed in f32."""
    where = "var"
    x = _ops._tensor(where, "input", x)
    _ops._require_float(where, x)
    if isinstance(dim, bool):  # torch's var(unbiased) overload
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise FrontendError(f"{where}: give correction or unbiased, not both")
    c = correction if correction is not None else 0 if unbiased is False else 1
    keep = _keep(where, keepdim, keepdims)
    xs = _ops.cast(x, f32) if _is_16bit_float(x.dtype) else x
    if xs.rank == 0:
        dims: list[int] = []
    else:
        dims = list(range(xs.rank)) if _all_dims(dim) is None else _ops._norm_dims(where, xs, dim)
    if not dims:  # a 0-d tensor: N = 1
        out = _ops.div(_ops.sub(xs, xs), float(1 - c if 1 - c > 0 else 0))
        return _ops.cast(out, x.dtype) if out.dtype != x.dtype else out
    mu = _reduce(where, _tcc.ReduceMeanOp, xs, dims, True)
    d = _ops.sub(xs, mu)
    ss = _reduce(where, _tcc.ReduceSumOp, _ops.mul(d, d), dims, keep)
    n = product(xs.shape[i] for i in dims)
    if isinstance(n, int):
        out = _ops.div(ss, float(n - c if n - c > 0 else 0))
    else:  # N at run time: a sum of ones over the same dims.
        count = _reduce(where, _tcc.ReduceSumOp, _ops.full(xs.shape, 1.0, xs.dtype), dims, keep)
        den = count if c == 0 else _ops.maximum(_ops.sub(count, c), 0.0)
        out = _ops.div(ss, den)
    return _ops.cast(out, x.dtype) if out.dtype != x.dtype else out


def std(
    x: Tensor,
    dim: DimsArg | bool = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: int | float | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """``torch.std``: the square root of :func:`var` (same arguments)."""
    v = var(x, dim, unbiased, keepdim, correction=correction, keepdims=keepdims)
    return _ops.sqrt(v)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """Softmax along ``dim`` (``tcc.softmax``; float only)."""
    x = _ops._tensor("softmax", "input", x)
    _ops._require_float("softmax", x)
    d = norm_dim(dim, x.rank, "softmax")
    i64_t = ir.IntegerType.get_signless(64)
    value = _tcc.SoftmaxOp(x.value, ir.IntegerAttr.get(i64_t, d), results=[x.type]).result
    return _ops._wrap(value, x.shape, x.dtype)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """``x - max - log(sum(exp(x - max)))`` along ``dim`` (float only;
    f16/bf16 are computed in f32)."""
    where = "log_softmax"
    x = _ops._tensor(where, "input", x)
    _ops._require_float(where, x)
    d = norm_dim(dim, x.rank, where)
    xs = _ops.cast(x, f32) if _is_16bit_float(x.dtype) else x
    shifted = _ops.sub(xs, _reduce(where, _tcc.ReduceMaxOp, xs, [d], True))
    lse = _ops.log(_reduce(where, _tcc.ReduceSumOp, _ops.exp(shifted), [d], True))
    out = _ops.sub(shifted, lse)
    return _ops.cast(out, x.dtype) if out.dtype != x.dtype else out


# Every public op emits at the user's source location.
locate_functions(globals())
