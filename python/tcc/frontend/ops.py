"""Tensor ops: shape/dtype checks in Python, then ``tcc`` ops.

Elementwise ops follow torch: operands are promoted to one dtype
(:func:`~tcc.frontend.dtypes.result_type`) and broadcast to one shape (numpy
rules) before the op. Shape ops live in :mod:`tcc.frontend.shape_ops`,
reductions in :mod:`tcc.frontend.reductions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir

from tcc.dialects import tcc as _tcc
from tcc.frontend._builder import Builder, current, locate_functions, tensor_type
from tcc.frontend.dtypes import (
    DEFAULT_FLOAT,
    DType,
    bf16,
    dtype,
    f16,
    f32,
    i1,
    i8,
    i32,
    i64,
    result_type,
)
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shapes import (
    Dim,
    Shape,
    Sym,
    as_shape,
    broadcast_shapes,
    fmt_shape,
    norm_dim,
    product,
)
from tcc.frontend.tensor import Scalar, Tensor, TensorSpec

Operand = Tensor | Scalar


def _tensor(where: str, name: str, x: object) -> Tensor:
    """``x`` checked to be a Tensor of the program being built."""
    builder = current(where)
    if not isinstance(x, Tensor):
        raise FrontendError(f"{where}: {name} must be a Tensor, got {type(x).__name__} {x!r}")
    if x.builder is not builder:
        raise FrontendError(f"{where}: {name} {x!r} belongs to another program")
    return x


def _wrap(value: ir.Value, shape: Shape, elt: DType) -> Tensor:
    builder = current("op")
    builder.shapes[value] = shape
    return Tensor(value, shape, elt, builder)


def _require_float(where: str, x: Tensor) -> None:
    if not x.dtype.is_float:
        raise DTypeError(f"{where}: expects a float tensor, got {x!r}")


def _is_scalar(x: object) -> bool:
    return isinstance(x, bool | int | float)


def _scalar_attr(where: str, value: Scalar, elt: DType) -> ir.Attribute:
    """``value`` as an attribute of type ``elt``; raises if it does not fit."""
    if elt.is_float and isinstance(value, int | float):
        return ir.FloatAttr.get(elt.to_mlir(), float(value))
    if not elt.is_float and isinstance(value, int):
        lo, hi = (0, 1) if elt == i1 else (-(2 ** (elt.bits - 1)), 2 ** (elt.bits - 1) - 1)
        if lo <= value <= hi:
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


def arange(end: Dim | str, elt: DType | str = "i32") -> Tensor:
    """``torch.arange(end)``: 0, 1, ..., end - 1, as i32 or i64 (``tcc.iota``).

    Positions compared make masks: ``arange(S).reshape(S, 1) >=
    arange(S).reshape(1, S)`` is attention's causal mask.
    """
    where = "arange"
    builder = current(where)
    target = _target_shape(where, builder, (end,))
    elt = dtype(elt)
    if elt not in (i32, i64):
        raise DTypeError(f"{where}: elt must be i32 or i64, got {elt}")
    sizes = [builder.size(d, where) for d in target if isinstance(d, Sym)]
    op = _tcc.IotaOp(tensor_type(target, elt), sizes)
    return _wrap(op.result, target, elt)


def _target_shape(
    where: str, builder: Builder, shape: Sequence[Dim | str] | TensorSpec | Tensor
) -> Shape:
    if isinstance(shape, Tensor | TensorSpec):
        return builder.resolve_shape(shape.shape)
    if isinstance(shape, int | str | Sym):
        shape = (shape,)
    return builder.resolve_shape(as_shape(shape, where))


# --- reshape and broadcast (the building blocks of implicit broadcasting) ----------------------


def reshape_to(x: Tensor, shape: Shape, where: str) -> Tensor:
    """``x`` as ``shape`` (same element count, checked by the callers).

    A reshape of a reshape reshapes the original; dropping the unit dims of a
    keepdims reduction re-emits the reduction without keepdims. A bypassed op
    is erased at the end of the build if nothing else uses it; each value is
    reshaped to a shape once.
    """
    if x.shape == shape:
        return x
    builder = current(where)
    ty = tensor_type(shape, x.dtype)
    key = (x.value, shape)  # the symbolic shape: (M, N) and (N, M) share a type
    if key in builder.reshapes:
        return _wrap(builder.reshapes[key], shape, x.dtype)
    source = x.value
    owner = source.owner
    op = owner.operation if isinstance(owner, ir.OpView | ir.Operation) else None
    value = None
    if op is not None and op.name == "tcc.reshape":
        builder.bypass(op)
        source = op.operands[0]
        if builder.shapes.get(source) == shape:
            value = source
    elif (op is not None and op.name == "tcc.transpose" and len(shape) >= 2
          and shape[-2:] == x.shape[-2:]
          and _swaps_last_two(list(ir.DenseI64ArrayAttr(op.attributes["permutation"])))
          and op.operands[0] in builder.shapes):
        # A transpose of the last two dims, reshaped in its leading dims only
        # (k.transpose(-1, -2) of a [B, H, S, D] attention, flattened for a
        # batched matmul): reshape first, then transpose, so the transpose
        # folds into the matmul's indexing as it does for 3-D operands.
        inner = _wrap(op.operands[0], builder.shapes[op.operands[0]], x.dtype)
        flat = reshape_to(inner, (*shape[:-2], shape[-1], shape[-2]), where)
        rank = len(shape)
        perm = [*range(rank - 2), rank - 1, rank - 2]
        builder.bypass(op)
        value = _tcc.TransposeOp(ty, flat.value, perm).result
    elif op is not None and op.name in _REDUCE_OPS and "keepdims" in op.attributes:
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dims"]))
        if tuple(d for i, d in enumerate(x.shape) if i not in dims) == shape:
            builder.bypass(op)
            value = _REDUCE_OPS[op.name](ty, op.operands[0], dims).result
    if value is None:
        sizes = [builder.size(d, where) for d in shape if isinstance(d, Sym)]
        value = _tcc.ReshapeOp(ty, source, sizes).result
    builder.reshapes[key] = value
    return _wrap(value, shape, x.dtype)


def _swaps_last_two(perm: list[int]) -> bool:
    rank = len(perm)
    return rank >= 2 and perm == [*range(rank - 2), rank - 1, rank - 2]


_REDUCE_OPS: dict[str, Callable[..., ir.OpView]] = {
    "tcc.reduce_sum": _tcc.ReduceSumOp,
    "tcc.reduce_max": _tcc.ReduceMaxOp,
    "tcc.reduce_min": _tcc.ReduceMinOp,
    "tcc.reduce_mean": _tcc.ReduceMeanOp,
}


def expand_to(x: Tensor, shape: Shape, where: str) -> Tensor:
    """``x`` broadcast to ``shape`` by numpy's rules (checked by the callers):
    its size-1 dims that grow are first dropped by a reshape, then one
    ``tcc.broadcast`` adds them and the missing leading dims."""
    if x.shape == shape:
        return x
    builder = current(where)
    key = ("broadcast", x.value, shape)
    if key in builder.implicit:  # each value is broadcast to a shape once
        return builder.implicit[key]
    pad = len(shape) - x.rank
    added = list(range(pad)) + [
        pad + i for i, d in enumerate(x.shape) if d == 1 and shape[pad + i] != 1
    ]
    kept = tuple(d for i, d in enumerate(x.shape) if pad + i not in added)
    x = reshape_to(x, kept, where)
    sizes = [builder.size(shape[i], where) for i in added if isinstance(shape[i], Sym)]
    op = _tcc.BroadcastOp(tensor_type(shape, x.dtype), x.value, added, sizes)
    builder.implicit[key] = _wrap(op.result, shape, x.dtype)
    return builder.implicit[key]


def _promote(x: Tensor, elt: DType) -> Tensor:
    """``x`` cast to ``elt`` for an op's type promotion (once per value)."""
    if x.dtype == elt:
        return x
    builder = current("op")
    key = ("cast", x.value, elt.name)
    if key not in builder.implicit:
        builder.implicit[key] = cast(x, elt)
    return builder.implicit[key]


def broadcast_shape(where: str, named: Sequence[tuple[str, Tensor]]) -> Shape:
    """The numpy broadcast of the operands' shapes; a ShapeError names the two
    operands, the dim and their sizes (and every operand's shape and dtype)."""
    shape = named[0][1].shape
    for k, (name, t) in enumerate(named[1:], start=1):
        new, bad = broadcast_shapes(shape, t.shape)
        if bad is None:
            shape = new
            continue
        # The earlier operand that holds the conflicting size at that dim.
        other, o = next((n, u) for n, u in named[:k] if -bad <= u.rank and u.shape[bad] not in (1,))
        hint = (
            " (a symbol only matches itself; specialize() to fix sizes)"
            if isinstance(o.shape[bad], Sym) or isinstance(t.shape[bad], Sym)
            else ""
        )
        operands = ", ".join(f"{n} is {u!r}" for n, u in named)
        raise ShapeError(
            f"{where}: {other} shape {fmt_shape(o.shape)} and {name} shape "
            f"{fmt_shape(t.shape)} do not broadcast: at dim {bad}, {other} has "
            f"{o.shape[bad]} and {name} has {t.shape[bad]}{hint}; {operands}"
        )
    return shape


# --- elementwise ------------------------------------------------------------------------------


def _operand_dtype(
    where: str, operands: Sequence[Operand], names: Sequence[str], scalars_only: bool = False
) -> tuple[list[tuple[str, Tensor]], DType]:
    """The tensor operands (checked) and torch's result dtype of all operands
    (which may all be scalars when ``scalars_only``)."""
    named = [
        (n, _tensor(where, n, x)) for n, x in zip(names, operands, strict=True) if not _is_scalar(x)
    ]
    if not named and not scalars_only:
        raise FrontendError(f"{where}: at least one operand must be a Tensor")
    elt = result_type(
        [t.dtype for _, t in named if t.rank],
        [t.dtype for _, t in named if not t.rank],
        [x for x in operands if isinstance(x, bool | int | float)],
    )
    return named, elt


def _defining_op(x: Tensor) -> ir.Operation | None:
    owner = x.value.owner
    return owner.operation if isinstance(owner, ir.OpView | ir.Operation) else None


def _is_reshape_like(x: Tensor) -> bool:
    """Whether dropping ``x``'s unit dims costs no op (see :func:`reshape_to`)."""
    op = _defining_op(x)
    return op is not None and (
        op.name == "tcc.reshape" or (op.name in _REDUCE_OPS and "keepdims" in op.attributes)
    )


def _reshape_source_shape(named: Sequence[tuple[str, Tensor]], shape: Shape) -> Shape | None:
    """A shape to run an elementwise op in instead of ``shape``: that of the
    source of a reshape among the operands (``x @ w.T`` on a rank-3 ``x`` is a
    reshape of a 2-D matmul), when it ends in the dims the other operands
    broadcast over and every full-rank operand is a reshape of the same shape.
    Keeps a matmul and its epilogue (``+ b``, ``.gelu()``) next to each other."""
    builder = current("op")
    sources = []
    for _, t in named:
        op = _defining_op(t)
        src = builder.shapes.get(op.operands[0]) if op and op.name == "tcc.reshape" else None
        sources.append(src if t.shape == shape else None)
    source = next((s for s in sources if s is not None), None)
    if source is None or source == shape:
        return None
    suffix = 0
    while suffix < min(len(source), len(shape)) and source[-1 - suffix] == shape[-1 - suffix]:
        suffix += 1
    for (_, t), src in zip(named, sources, strict=True):
        if src != source and t.rank > suffix:
            return None
    return source


def _elementwise(
    where: str,
    operands: Sequence[Operand],
    names: Sequence[str],
    elt: DType | Sequence[DType],
    result_elt: DType,
    build: Callable[[ir.Type, list[ir.Value]], ir.Value],
    shape: Shape | None = None,
    after_squeeze: bool = False,
) -> Tensor:
    """One elementwise op: operands converted to ``elt`` (one dtype, or one
    per operand) and broadcast to one shape (theirs, or ``shape``), in order
    (Python scalars become constants), then ``build(result_type, values)``.

    When the shape has size-1 dims that every operand having them can drop for
    free (keepdims reductions and reshapes: ``(v + eps).rsqrt()`` on a
    ``var(-1, keepdim=True)``), the op runs without them and its result is a
    reshape, so chains of such ops have no reshapes between them.
    """
    named = [(n, x) for n, x in zip(names, operands, strict=True) if isinstance(x, Tensor)]
    if shape is None:
        shape = broadcast_shape(where, named)
    unit = [i for i, d in enumerate(shape) if d == 1]
    if unit and all(
        _is_reshape_like(t) or not any(i >= len(shape) - t.rank for i in unit) for _, t in named
    ):
        inner = tuple(d for i, d in enumerate(shape) if i not in unit)
        squeezed: list[Operand] = []
        for x in operands:
            if isinstance(x, Tensor):
                pad = len(shape) - x.rank
                x = reshape_to(
                    x, tuple(d for j, d in enumerate(x.shape) if pad + j not in unit), where
                )
            squeezed.append(x)
        res = _elementwise(where, squeezed, names, elt, result_elt, build, inner,
                           after_squeeze=True)
        return reshape_to(res, shape, where)
    source = _reshape_source_shape(named, shape)
    # (Not back to a shape with the unit dims just dropped: a [1, 1] of
    # keepdims rows, M = 1, would go to [] and back without end.)
    if source is not None and not (after_squeeze and 1 in source):
        moved = [
            reshape_to(x, source, where) if isinstance(x, Tensor) and x.shape == shape else x
            for x in operands
        ]
        res = _elementwise(where, moved, names, elt, result_elt, build, source)
        return reshape_to(res, shape, where)
    elts = [elt] * len(operands) if isinstance(elt, DType) else list(elt)
    values = []
    for name, x, e in zip(names, operands, elts, strict=True):
        if isinstance(x, bool | int | float):
            values.append(full(shape, x, e, where=f"{where}: {name}").value)
            continue
        values.append(expand_to(_promote(x, e), shape, where).value)
    return _wrap(build(tensor_type(shape, result_elt), values), shape, result_elt)


def _binary(
    where: str,
    op: Callable[..., ir.OpView],
    lhs: Operand,
    rhs: Operand,
    float_only: bool = False,
    true_divide: bool = False,
) -> Tensor:
    named, elt = _operand_dtype(where, [lhs, rhs], ["lhs", "rhs"])
    if true_divide and not elt.is_float:
        elt = DEFAULT_FLOAT
    if float_only and not elt.is_float:
        _require_float(where, named[0][1])
    return _elementwise(
        where, [lhs, rhs], ["lhs", "rhs"], elt, elt, lambda ty, v: op(ty, v[0], v[1]).result
    )


def add(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs + rhs`` (promoted and broadcast as in torch)."""
    return _binary("add", _tcc.AddOp, lhs, rhs)


def sub(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs - rhs``."""
    return _binary("sub", _tcc.SubOp, lhs, rhs)


def mul(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs * rhs``."""
    return _binary("mul", _tcc.MulOp, lhs, rhs)


def div(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs / rhs``: true division as in torch (integers are divided as f32)."""
    return _binary("div", _tcc.DivOp, lhs, rhs, true_divide=True)


def maximum(lhs: Operand, rhs: Operand) -> Tensor:
    """Elementwise maximum (``torch.maximum``)."""
    return _binary("max", _tcc.MaxOp, lhs, rhs)


def minimum(lhs: Operand, rhs: Operand) -> Tensor:
    """Elementwise minimum (``torch.minimum``)."""
    return _binary("min", _tcc.MinOp, lhs, rhs)


def pow(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs ** rhs`` (float only, after promotion).

    A tensor to the Python scalar power 1, 2, 3, -1, -2, 0.5 or -0.5 is
    multiplies, divides and (r)sqrt, as torch computes it (exact for negative
    bases, and no transcendental math)."""
    if isinstance(lhs, Tensor) and isinstance(rhs, int | float) and not isinstance(rhs, bool):
        _, elt = _operand_dtype("pow", [lhs, rhs], ["lhs", "rhs"])
        if elt.is_float and rhs in (1, 2, 3, -1, -2, 0.5, -0.5):
            x = _promote(_tensor("pow", "lhs", lhs), elt)
            if rhs in (0.5, -0.5):
                return sqrt(x) if rhs > 0 else rsqrt(x)
            out = x
            for _ in range((int(rhs) if rhs > 0 else -int(rhs)) - 1):
                out = mul(out, x)
            return out if rhs > 0 else div(1.0, out)
    return _binary("pow", _tcc.PowOp, lhs, rhs, float_only=True)


def _compare(where: str, predicate: str, lhs: Operand, rhs: Operand) -> Tensor:
    _, elt = _operand_dtype(where, [lhs, rhs], ["lhs", "rhs"])
    pred = ir.Attribute.parse(f"#tcc<compare_predicate {predicate}>")
    return _elementwise(
        where,
        [lhs, rhs],
        ["lhs", "rhs"],
        elt,
        i1,
        lambda ty, v: _tcc.CmpOp(ty, pred, v[0], v[1]).result,
    )


def eq(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs == rhs`` as an i1 tensor."""
    return _compare("eq", "eq", lhs, rhs)


def ne(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs != rhs`` as an i1 tensor (true where either is NaN)."""
    return _compare("ne", "ne", lhs, rhs)


def lt(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs < rhs`` as an i1 tensor."""
    return _compare("lt", "lt", lhs, rhs)


def le(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs <= rhs`` as an i1 tensor."""
    return _compare("le", "le", lhs, rhs)


def gt(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs > rhs`` as an i1 tensor."""
    return _compare("gt", "gt", lhs, rhs)


def ge(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs >= rhs`` as an i1 tensor."""
    return _compare("ge", "ge", lhs, rhs)


def where(condition: Tensor, input: Operand, other: Operand) -> Tensor:
    """``torch.where``: ``input`` where ``condition`` (an i1 tensor) holds,
    else ``other``; all three broadcast together, the values promoted."""
    name = "where"
    cond = _tensor(name, "condition", condition)
    if cond.dtype != i1:
        raise DTypeError(f"{name}: condition must be an i1 (bool) tensor, got {cond!r}")
    _, elt = _operand_dtype(name, [input, other], ["input", "other"], scalars_only=True)
    return _elementwise(
        name,
        [cond, input, other],
        ["condition", "input", "other"],
        [i1, elt, elt],
        elt,
        lambda ty, v: _tcc.SelectOp(v[0], v[1], v[2]).result,
    )


def _bool_binary(where: str, lhs: Operand, rhs: Operand, is_and: bool) -> Tensor:
    named, elt = _operand_dtype(where, [lhs, rhs], ["lhs", "rhs"])
    if elt != i1:
        operands = ", ".join(f"{n} is {t!r}" for n, t in named)
        raise DTypeError(f"{where}: expects i1 (bool) operands; {operands}")

    def build(ty: ir.Type, v: list[ir.Value]) -> ir.Value:
        if is_and:
            return _tcc.MulOp(ty, v[0], v[1]).result
        return _tcc.SelectOp(v[0], v[0], v[1]).result

    return _elementwise(where, [lhs, rhs], ["lhs", "rhs"], i1, i1, build)


def logical_and(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs & rhs`` on i1 tensors."""
    return _bool_binary("and", lhs, rhs, is_and=True)


def logical_or(lhs: Operand, rhs: Operand) -> Tensor:
    """``lhs | rhs`` on i1 tensors."""
    return _bool_binary("or", lhs, rhs, is_and=False)


def logical_not(x: Tensor) -> Tensor:
    """``~x`` on an i1 tensor."""
    x = _tensor("not", "input", x)
    if x.dtype != i1:
        raise DTypeError(f"not: expects an i1 (bool) tensor, got {x!r}")
    return eq(x, False)


def _unary(
    where: str,
    op: Callable[..., ir.OpView],
    x: Tensor,
    float_only: bool,
    promote: bool = False,
    **attrs: object,
) -> Tensor:
    """``promote``: integer inputs are computed in f32, as torch does for
    exp, log, ...; otherwise ``float_only`` rejects them."""
    x = _tensor(where, "input", x)
    elt = DEFAULT_FLOAT if promote and not x.dtype.is_float else x.dtype
    if float_only and not elt.is_float:
        _require_float(where, x)
    return _elementwise(
        where, [x], ["input"], elt, elt, lambda ty, v: op(v[0], results=[ty], **attrs).result
    )


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
    """``e ** x`` (integers are computed as f32)."""
    return _unary("exp", _tcc.ExpOp, x, True, promote=True)


def log(x: Tensor) -> Tensor:
    """Natural logarithm (integers are computed as f32)."""
    return _unary("log", _tcc.LogOp, x, True, promote=True)


def sqrt(x: Tensor) -> Tensor:
    """Square root (integers are computed as f32)."""
    return _unary("sqrt", _tcc.SqrtOp, x, True, promote=True)


def rsqrt(x: Tensor) -> Tensor:
    """``1 / sqrt(x)`` (integers are computed as f32)."""
    return _unary("rsqrt", _tcc.RsqrtOp, x, True, promote=True)


def tanh(x: Tensor) -> Tensor:
    """Hyperbolic tangent (integers are computed as f32)."""
    return _unary("tanh", _tcc.TanhOp, x, True, promote=True)


def sigmoid(x: Tensor) -> Tensor:
    """Logistic sigmoid (integers are computed as f32)."""
    return _unary("sigmoid", _tcc.SigmoidOp, x, True, promote=True)


def erf(x: Tensor) -> Tensor:
    """Gauss error function (integers are computed as f32)."""
    return _unary("erf", _tcc.ErfOp, x, True, promote=True)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU; ``approximate`` is ``"none"`` (erf) or ``"tanh"`` (float only)."""
    if approximate not in ("none", "tanh"):
        raise FrontendError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    attrs: dict[str, object] = {}
    if approximate == "tanh":  # `none` is the default and is not stored.
        attrs["approximate"] = ir.Attribute.parse("#tcc<gelu_approximation tanh>")
    return _unary("gelu", _tcc.GeluOp, x, True, **attrs)


def silu(x: Tensor) -> Tensor:
    """``x * sigmoid(x)`` (``torch.nn.functional.silu``; float only)."""
    x = _tensor("silu", "input", x)
    _require_float("silu", x)
    return mul(x, sigmoid(x))


def clamp(x: Tensor, min: Operand | None = None, max: Operand | None = None) -> Tensor:
    """``torch.clamp``: ``minimum(maximum(x, min), max)``, either bound optional."""
    x = _tensor("clamp", "input", x)
    if min is None and max is None:
        raise FrontendError("clamp: at least one of min and max must be given")
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


def cast(x: Tensor, to: object) -> Tensor:
    """Convert the element type (a DType, its name, or a torch dtype or name)."""
    x = _tensor("cast", "input", x)
    elt = dtype(to)
    return _elementwise(
        "cast", [x], ["input"], x.dtype, elt, lambda ty, v: _tcc.CastOp(ty, v[0]).result
    )


# --- matmul -----------------------------------------------------------------------------------


def matmul(
    lhs: Tensor, rhs: Tensor, *, acc: DType | str | None = None, out: DType | str | None = None
) -> Tensor:
    """``torch.matmul``: ``... x M x K @ ... x K x N -> ... x M x N``.

    1-D operands are a row (lhs) or a column (rhs) vector, the added dim removed
    from the result. Batch dims broadcast; with a 2-D rhs, lhs's batch dims fold
    into M (one ``tcc.matmul``, as nn.Linear), otherwise they flatten into one
    batch dim of a batched ``tcc.matmul``.

    Operand dtypes must be equal. ``acc`` is the accumulator type (printed
    ``acc(...)``); f16/bf16 accumulate in f32 by default. The result dtype is
    ``out``, else the explicit ``acc``, else i32 for i8 operands, else the
    operand dtype.
    """
    where = "matmul"
    lhs, rhs = _tensor(where, "lhs", lhs), _tensor(where, "rhs", rhs)
    both = f"lhs is {lhs!r}, rhs is {rhs!r}"
    if lhs.rank == 0 or rhs.rank == 0:
        raise ShapeError(f"{where}: expects tensors of rank 1 or more; {both}")
    if lhs.dtype != rhs.dtype:
        raise DTypeError(
            f"{where}: lhs dtype {lhs.dtype} does not match rhs dtype {rhs.dtype}; {both}"
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
        if acc_t is None and elt in (f16, bf16):
            acc_t = f32
    else:
        raise DTypeError(f"{where}: expects float or i8 operands; {both}")

    # K must agree (a 1-D lhs is 1 x K, a 1-D rhs is K x 1).
    k_lhs, k_rhs = lhs.shape[-1], rhs.shape[-2] if rhs.rank > 1 else rhs.shape[0]
    if k_lhs != k_rhs:
        raise ShapeError(
            f"{where}: lhs shape {fmt_shape(lhs.shape)} and rhs shape "
            f"{fmt_shape(rhs.shape)} disagree on K ({k_lhs} vs {k_rhs}); {both}"
        )
    a = lhs if lhs.rank > 1 else reshape_to(lhs, (1, *lhs.shape), where)
    b = rhs if rhs.rank > 1 else reshape_to(rhs, (*rhs.shape, 1), where)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    attr = None if acc_t is None else ir.TypeAttr.get(acc_t.to_mlir())

    def mm(x: Tensor, y: Tensor, shape: Shape) -> Tensor:
        op = _tcc.MatmulOp(tensor_type(shape, res), x.value, y.value, acc_type=attr)
        return _wrap(op.result, shape, res)

    batch_a, batch_b = a.shape[:-2], b.shape[:-2]
    if not batch_b:
        # lhs batch dims fold into M: one 2-D matmul.
        rows = product((*batch_a, m))
        c = mm(reshape_to(a, (rows, k), where), b, (rows, n))
        c = reshape_to(c, (*batch_a, m, n), where)
    else:
        batch, bad = broadcast_shapes(batch_a, batch_b)
        if bad is not None:
            raise ShapeError(
                f"{where}: lhs shape {fmt_shape(lhs.shape)} and rhs shape "
                f"{fmt_shape(rhs.shape)} disagree on the batch dims (dim {bad - 2}: "
                f"{batch_a[bad]} vs {batch_b[bad]}); {both}"
            )
        a = expand_to(a, (*batch, m, k), where)
        b = expand_to(b, (*batch, k, n), where)
        nb = product(batch)
        c = mm(reshape_to(a, (nb, m, k), where), reshape_to(b, (nb, k, n), where), (nb, m, n))
        c = reshape_to(c, (*batch, m, n), where)
    shape = c.shape
    if lhs.rank == 1:
        shape = shape[:-2] + shape[-1:]
    if rhs.rank == 1:
        shape = shape[:-1]
    return reshape_to(c, shape, where)


def _norm_dims(where: str, x: Tensor, dims: int | Sequence[int]) -> list[int]:
    """``dims`` (an int or a sequence; negative counts from the end) sorted,
    checked in range and unique."""
    seq = [dims] if isinstance(dims, int) else list(dims)
    out = sorted({norm_dim(d, x.rank, where) for d in seq})
    if len(out) != len(seq):
        raise ShapeError(f"{where}: dims {seq} repeat a dim of {x!r}")
    return out


# Every public op emits at the user's source location.
locate_functions(globals())
