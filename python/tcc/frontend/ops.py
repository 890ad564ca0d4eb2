"""Tensor ops: shape/dtype checks in Python, then one ``tcc`` op each."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir

from tcc.dialects import tcc as _tcc
from tcc.frontend._builder import Builder, current, tensor_type
from tcc.frontend.dtypes import DType, dtype, i1, i8, i32
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shapes import Dim, Shape, Sym, as_shape, fmt_shape, norm_dim
from tcc.frontend.tensor import Scalar, Tensor, TensorSpec

DimsArg = int | Sequence[int] | None


def _tensor(where: str, name: str, x: object) -> Tensor:
    """``x`` checked to be a Tensor of the program being built."""
    builder = current(where)
    if not isinstance(x, Tensor):
        raise FrontendError(f"{where}: {name} must be a Tensor, got {type(x).__name__} {x!r}")
    if x.builder is not builder:
        raise FrontendError(f"{where}: {name} {x!r} belongs to another program")
    return x


def _wrap(value: ir.Value, shape: Shape, elt: DType) -> Tensor:
    return Tensor(value, shape, elt, current("op"))


def _require_float(where: str, x: Tensor) -> None:
    if not x.dtype.is_float:
        raise DTypeError(f"{where}: expects a float tensor, got {x!r}")


def _is_scalar(x: object) -> bool:
    return isinstance(x, bool | int | float)


def _scalar_attr(where: str, value: Scalar, elt: DType) -> ir.Attribute:
    """``value`` as an attribute of type ``elt``; raises if it does not fit."""
    if elt.is_float and isinstance(value, int | float) and not isinstance(value, bool):
        return ir.FloatAttr.get(elt.to_mlir(), float(value))
    if not elt.is_float and isinstance(value, int):
        lo, hi = (0, 1) if elt == i1 else (-(2 ** (elt.bits - 1)), 2 ** (elt.bits - 1) - 1)
        if lo <= value <= hi and (elt == i1 or not isinstance(value, bool)):
            return ir.IntegerAttr.get(elt.to_mlir(), int(value))
    raise DTypeError(f"{where}: scalar {value!r} is not a valid {elt} value")


def full(
    shape: Sequence[Dim | str] | TensorSpec | Tensor,
    value: Scalar,
    elt: DType | str,
    *,
    where: str = "full",
) -> Tensor:
    """A tensor filled with ``value``.

    Static shapes give ``tcc.constant dense<v>``; a symbolic shape gives a rank-0
    ``tcc.constant`` broadcast to it (sizes from ``tensor.dim`` of the arguments).
    """
    builder = current(where)
    target = _target_shape(where, builder, shape)
    elt = dtype(elt)
    attr = _scalar_attr(where, value, elt)
    static = all(isinstance(d, int) for d in target)
    splat_shape = target if static else ()
    splat_type = tensor_type(splat_shape, elt)
    const = _tcc.ConstantOp(
        ir.DenseElementsAttr.get_splat(splat_type, attr), results=[splat_type]
    ).result
    if static:
        return _wrap(const, target, elt)
    sizes = [builder.size(d, where) for d in target if isinstance(d, Sym)]
    op = _tcc.BroadcastOp(tensor_type(target, elt), const, list(range(len(target))), sizes)
    return _wrap(op.result, target, elt)


def _target_shape(
    where: str, builder: Builder, shape: Sequence[Dim | str] | TensorSpec | Tensor
) -> Shape:
    if isinstance(shape, Tensor | TensorSpec):
        return builder.resolve_shape(shape.shape)
    if isinstance(shape, int | str | Sym):
        shape = (shape,)
    return builder.resolve_shape(as_shape(shape, where))


# --- elementwise ------------------------------------------------------------------------------


def _binary(
    where: str,
    op: Callable[..., ir.OpView],
    lhs: Tensor | Scalar,
    rhs: Tensor | Scalar,
    float_only: bool = False,
) -> Tensor:
    if _is_scalar(lhs) and _is_scalar(rhs):
        raise FrontendError(f"{where}: at least one operand must be a Tensor")
    if _is_scalar(lhs):
        r = _tensor(where, "rhs", rhs)
        if float_only:
            _require_float(where, r)
        lhs = full(r.shape, lhs, r.dtype, where=f"{where}: lhs")
    if _is_scalar(rhs):
        lt = _tensor(where, "lhs", lhs)
        if float_only:
            _require_float(where, lt)
        rhs = full(lt.shape, rhs, lt.dtype, where=f"{where}: rhs")
    lhs, rhs = _tensor(where, "lhs", lhs), _tensor(where, "rhs", rhs)
    both = f"lhs is {lhs!r}, rhs is {rhs!r}"
    if lhs.dtype != rhs.dtype:
        raise DTypeError(
            f"{where}: lhs dtype {lhs.dtype} does not match rhs dtype {rhs.dtype}; " + both
        )
    if lhs.shape != rhs.shape:
        raise ShapeError(
            f"{where}: lhs shape {fmt_shape(lhs.shape)} does not match rhs shape "
            f"{fmt_shape(rhs.shape)}; " + both
        )
    if float_only:
        _require_float(where, lhs)
    return _wrap(op(lhs.type, lhs.value, rhs.value).result, lhs.shape, lhs.dtype)


def add(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """``lhs + rhs`` (same shape and dtype; no implicit broadcast)."""
    return _binary("add", _tcc.AddOp, lhs, rhs)


def sub(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """``lhs - rhs``."""
    return _binary("sub", _tcc.SubOp, lhs, rhs)


def mul(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """``lhs * rhs``."""
    return _binary("mul", _tcc.MulOp, lhs, rhs)


def div(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """``lhs / rhs`` (signed division for integers)."""
    return _binary("div", _tcc.DivOp, lhs, rhs)


def maximum(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """Elementwise maximum."""
    return _binary("max", _tcc.MaxOp, lhs, rhs)


def minimum(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """Elementwise minimum."""
    return _binary("min", _tcc.MinOp, lhs, rhs)


def pow(lhs: Tensor | Scalar, rhs: Tensor | Scalar) -> Tensor:
    """``lhs ** rhs`` (float only)."""
    return _binary("pow", _tcc.PowOp, lhs, rhs, float_only=True)


def _unary(
    where: str, op: Callable[..., ir.OpView], x: Tensor, float_only: bool, **attrs: object
) -> Tensor:
    x = _tensor(where, "input", x)
    if float_only:
        _require_float(where, x)
    return _wrap(op(x.value, results=[x.type], **attrs).result, x.shape, x.dtype)


def neg(x: Tensor) -> Tensor:
    """``-x``."""
    return _unary("neg", _tcc.NegOp, x, False)


def abs(x: Tensor) -> Tensor:
    """``|x|``."""
    return _unary("abs", _tcc.AbsOp, x, False)


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)``."""
    return _unary("relu", _tcc.ReluOp, x, False)


def exp(x: Tensor) -> Tensor:
    """``e ** x`` (float only)."""
    return _unary("exp", _tcc.ExpOp, x, True)


def log(x: Tensor) -> Tensor:
    """Natural logarithm (float only)."""
    return _unary("log", _tcc.LogOp, x, True)


def sqrt(x: Tensor) -> Tensor:
    """Square root (float only)."""
    return _unary("sqrt", _tcc.SqrtOp, x, True)


def rsqrt(x: Tensor) -> Tensor:
    """``1 / sqrt(x)`` (float only)."""
    return _unary("rsqrt", _tcc.RsqrtOp, x, True)


def tanh(x: Tensor) -> Tensor:
    """Hyperbolic tangent (float only)."""
    return _unary("tanh", _tcc.TanhOp, x, True)


def sigmoid(x: Tensor) -> Tensor:
    """Logistic sigmoid (float only)."""
    return _unary("sigmoid", _tcc.SigmoidOp, x, True)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU; ``approximate`` is ``"none"`` (erf) or ``"tanh"`` (float only)."""
    if approximate not in ("none", "tanh"):
        raise FrontendError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    attrs: dict[str, object] = {}
    if approximate == "tanh":  # `none` is the default and is not stored.
        attrs["approximate"] = ir.Attribute.parse("#tcc<gelu_approximation tanh>")
    return _unary("gelu", _tcc.GeluOp, x, True, **attrs)


def cast(x: Tensor, to: DType | str) -> Tensor:
    """Convert the element type."""
    x = _tensor("cast", "input", x)
    elt = dtype(to)
    return _wrap(_tcc.CastOp(tensor_type(x.shape, elt), x.value).result, x.shape, elt)


# --- shape ops --------------------------------------------------------------------------------


def broadcast_to(
    x: Tensor, shape: Sequence[Dim | str] | TensorSpec | Tensor, dims: Sequence[int] | None = None
) -> Tensor:
    """Broadcast ``x`` to ``shape`` (a shape or a tensor whose shape to take).

    ``dims`` lists the added result dims (negative counts from the end); by default
    the leading ones, as in numpy. The other result dims must equal ``x``'s dims.
    """
    where = "broadcast_to"
    x = _tensor(where, "input", x)
    builder = current(where)
    target = _target_shape(where, builder, shape)
    added = len(target) - x.rank
    ctx = f"input is {x!r}, target shape is {fmt_shape(target)}"
    if added < 0:
        raise ShapeError(
            f"{where}: target rank {len(target)} is lower than input rank {x.rank}; {ctx}"
        )
    if dims is None:
        dims = range(added)
    new = sorted({norm_dim(d, len(target), where) for d in dims})
    if len(new) != len(dims):
        raise ShapeError(f"{where}: dims {list(dims)} repeat a dim; {ctx}")
    if len(new) != added:
        raise ShapeError(
            f"{where}: dims {list(dims)} add {len(new)} dim(s) but the target "
            f"rank {len(target)} is the input rank {x.rank} plus {added}; {ctx}"
        )
    kept = [i for i in range(len(target)) if i not in new]
    for j, i in enumerate(kept):
        if target[i] != x.shape[j]:
            raise ShapeError(
                f"{where}: target dim {i} (size {target[i]}) does not match "
                f"input dim {j} (size {x.shape[j]}); {ctx}"
            )
    sizes = [builder.size(target[i], where) for i in new if isinstance(target[i], Sym)]
    op = _tcc.BroadcastOp(tensor_type(target, x.dtype), x.value, new, sizes)
    return _wrap(op.result, target, x.dtype)


def transpose(x: Tensor, permutation: Sequence[int] | None = None) -> Tensor:
    """Permute dims: result dim ``i`` is input dim ``permutation[i]`` (default: reverse)."""
    where = "transpose"
    x = _tensor(where, "input", x)
    perm = list(reversed(range(x.rank))) if permutation is None else list(permutation)
    if len(perm) != x.rank:
        raise ShapeError(
            f"{where}: permutation {perm} has {len(perm)} entries but the input "
            f"{x!r} has rank {x.rank}"
        )
    perm = [norm_dim(p, x.rank, where) for p in perm]
    if len(set(perm)) != len(perm):
        raise ShapeError(f"{where}: permutation {list(permutation or [])} repeats a dim")
    shape = tuple(x.shape[p] for p in perm)
    op = _tcc.TransposeOp(tensor_type(shape, x.dtype), x.value, perm)
    return _wrap(op.result, shape, x.dtype)


def matmul(
    lhs: Tensor, rhs: Tensor, *, acc: DType | str | None = None, out: DType | str | None = None
) -> Tensor:
    """``MxK @ KxN -> MxN`` (or batched ``BxMxK @ BxKxN``).

    ``acc`` is the accumulator type (printed ``acc(...)``); the result dtype is
    ``out``, else ``acc``, else i32 for i8 operands, else the operand dtype.
    """
    where = "matmul"
    lhs, rhs = _tensor(where, "lhs", lhs), _tensor(where, "rhs", rhs)
    both = f"lhs is {lhs!r}, rhs is {rhs!r}"
    if lhs.rank not in (2, 3) or rhs.rank != lhs.rank:
        raise ShapeError(f"{where}: expects two rank-2 or two rank-3 tensors; {both}")
    if lhs.dtype != rhs.dtype:
        raise DTypeError(
            f"{where}: lhs dtype {lhs.dtype} does not match rhs dtype {rhs.dtype}; {both}"
        )
    b = lhs.rank - 2
    if lhs.shape[b + 1] != rhs.shape[b]:
        raise ShapeError(
            f"{where}: lhs shape {fmt_shape(lhs.shape)} and rhs shape "
            f"{fmt_shape(rhs.shape)} disagree on K ({lhs.shape[b + 1]} vs "
            f"{rhs.shape[b]}); {both}"
        )
    if b and lhs.shape[0] != rhs.shape[0]:
        raise ShapeError(
            f"{where}: lhs shape {fmt_shape(lhs.shape)} and rhs shape "
            f"{fmt_shape(rhs.shape)} disagree on the batch dim; {both}"
        )
    elt = lhs.dtype
    acc_t = None if acc is None else dtype(acc)
    if elt == i8:
        res = dtype(out) if out is not None else i32
        if res != i32 or acc_t not in (None, i32):
            raise DTypeError(f"{where}: i8 operands accumulate into and return i32; {both}")
    elif elt.is_float:
        res = dtype(out) if out is not None else acc_t or elt
        if not res.is_float:
            raise DTypeError(f"{where}: result dtype {res} must be float for {elt} operands")
        if acc_t is not None and acc_t != elt and not (acc_t.is_float and acc_t.bits > elt.bits):
            raise DTypeError(f"{where}: acc {acc_t} must be {elt} or a wider float type; {both}")
    else:
        raise DTypeError(f"{where}: expects float or i8 operands; {both}")
    shape = (*lhs.shape[:b], lhs.shape[b], rhs.shape[b + 1])
    attr = None if acc_t is None else ir.TypeAttr.get(acc_t.to_mlir())
    op = _tcc.MatmulOp(tensor_type(shape, res), lhs.value, rhs.value, acc_type=attr)
    return _wrap(op.result, shape, res)


def _reduce(
    where: str,
    op: Callable[..., ir.OpView],
    x: Tensor,
    dims: DimsArg,
    keepdims: bool,
    float_only: bool = False,
) -> Tensor:
    x = _tensor(where, "input", x)
    if float_only:
        _require_float(where, x)
    if dims is None:
        dims = range(x.rank)
    elif isinstance(dims, int):
        dims = (dims,)
    red = sorted({norm_dim(d, x.rank, where) for d in dims})
    if len(red) != len(dims):
        raise ShapeError(f"{where}: dims {list(dims)} repeat a dim of {x!r}")
    if not red:
        raise ShapeError(f"{where}: nothing to reduce in {x!r}")
    shape: Shape = tuple(
        1 if i in red else d for i, d in enumerate(x.shape) if keepdims or i not in red
    )
    value = op(tensor_type(shape, x.dtype), x.value, red, keepdims=keepdims).result
    return _wrap(value, shape, x.dtype)


def reduce_sum(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """Sum over ``dims`` (default: all)."""
    return _reduce("reduce_sum", _tcc.ReduceSumOp, x, dims, keepdims)


def reduce_max(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """Maximum over ``dims`` (default: all)."""
    return _reduce("reduce_max", _tcc.ReduceMaxOp, x, dims, keepdims)


def reduce_min(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """Minimum over ``dims`` (default: all)."""
    return _reduce("reduce_min", _tcc.ReduceMinOp, x, dims, keepdims)


def reduce_mean(x: Tensor, dims: DimsArg = None, keepdims: bool = False) -> Tensor:
    """Mean over ``dims`` (default: all; float only)."""
    return _reduce("reduce_mean", _tcc.ReduceMeanOp, x, dims, keepdims, float_only=True)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """Softmax along ``dim`` (float only)."""
    x = _tensor("softmax", "input", x)
    _require_float("softmax", x)
    d = norm_dim(dim, x.rank, "softmax")
    i64 = ir.IntegerType.get_signless(64)
    value = _tcc.SoftmaxOp(x.value, ir.IntegerAttr.get(i64, d), results=[x.type]).result
    return _wrap(value, x.shape, x.dtype)
