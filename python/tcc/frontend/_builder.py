"""The state of the program being built: insertion point, symbol sources."""

from __future__ import annotations

import contextvars
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from mlir import ir
from mlir.dialects import arith, tensor

from tcc.frontend.dtypes import DType
from tcc.frontend.errors import FrontendError, ShapeError
from tcc.frontend.shapes import Dim, Shape, Sym, factors, from_factors

_DYNAMIC = ir.ShapedType.get_dynamic_size()


class Builder:
    """Per-build state. ``bindings`` fixes some symbols to static sizes."""

    def __init__(self, bindings: dict[str, int]) -> None:
        self.bindings = bindings
        # Where each symbol's runtime size can be read: (argument, dim index).
        self.carriers: dict[Sym, tuple[ir.Value, int]] = {}
        self._index_consts: dict[int, ir.Value] = {}
        self._sizes: dict[Sym, ir.Value] = {}
        # Ops whose result a peephole replaced (e.g. a keepdims reduction
        # re-emitted without keepdims to be broadcast); erased if unused.
        self._bypassed: list[ir.Operation] = []
        # (value, shape) -> the value reshaped to that shape.
        self.reshapes: dict[tuple[ir.Value, Shape], ir.Value] = {}
        # Casts and broadcasts the frontend inserted (promotion, implicit
        # broadcasting), so that each is made once: key -> Tensor.
        self.implicit: dict[tuple[object, ...], Any] = {}
        # The (symbolic) shape of every value the frontend made.
        self.shapes: dict[ir.Value, Shape] = {}

    def resolve(self, dim: Dim) -> Dim:
        """``dim`` with bound symbols replaced by their static size."""
        if not isinstance(dim, Sym):
            return dim
        coeff, names = factors(dim)
        rest = []
        for name in names:
            if name in self.bindings:
                coeff *= self.bindings[name]
            else:
                rest.append(name)
        return from_factors(coeff, rest)

    def resolve_shape(self, shape: Shape) -> Shape:
        return tuple(self.resolve(d) for d in shape)

    def add_carrier(self, value: ir.Value, shape: Shape) -> None:
        self.shapes[value] = shape
        for i, d in enumerate(shape):
            if isinstance(d, Sym) and d not in self.carriers:
                self.carriers[d] = (value, i)

    def size(self, dim: Sym, where: str) -> ir.Value:
        """The runtime size of ``dim`` (a ``tensor.dim`` of its first carrier)."""
        if dim in self._sizes:
            return self._sizes[dim]
        coeff, names = factors(dim)
        if coeff != 1 or len(names) > 1:
            # A product: multiply the factors' sizes (arith.muli).
            size = self.index_constant(coeff) if coeff != 1 else None
            for name in names:
                factor = self.size(Sym(name), where)
                size = factor if size is None else arith.MulIOp(size, factor).result
            assert size is not None
            self._sizes[dim] = size
            return size
        if dim not in self.carriers:
            raise ShapeError(
                f"{where}: symbolic size {dim} is not the size of any argument dim, "
                "so its runtime value is unknown"
            )
        value, index = self.carriers[dim]
        size = tensor.DimOp(value, self.index_constant(index)).result
        self._sizes[dim] = size
        return size

    def index_constant(self, value: int) -> ir.Value:
        """One ``arith.constant value : index`` per value."""
        if value not in self._index_consts:
            self._index_consts[value] = arith.ConstantOp(ir.IndexType.get(), value).result
        return self._index_consts[value]

    def bypass(self, op: ir.Operation) -> None:
        """Note that ``op``'s results were replaced by a peephole."""
        if not any(op == seen for seen in self._bypassed):
            self._bypassed.append(op)

    def erase_unused_bypassed(self) -> None:
        """Erase the bypassed ops nothing uses (latest first, so chains go),
        then the sizes nothing uses any more."""
        for op in reversed(self._bypassed):
            if all(not list(r.uses) for r in op.results):
                op.erase()
        self._bypassed.clear()
        # Then the size computations only they used (latest first).
        for value in [*reversed(self._sizes.values()), *reversed(self._index_consts.values())]:
            if not list(value.uses):
                value.owner.erase()
        self._sizes.clear()
        self._index_consts.clear()


def tensor_type(shape: Shape, dtype: DType) -> ir.RankedTensorType:
    """``tensor<...>`` for a (resolved) shape: symbols become ``?``."""
    dims = [d if isinstance(d, int) else _DYNAMIC for d in shape]
    return ir.RankedTensorType.get(dims, dtype.to_mlir())


_stack: list[Builder] = []


def current(where: str) -> Builder:
    """The builder of the program being built; raises outside ``@program``."""
    if not _stack:
        raise FrontendError(f"{where}: no program is being built; use tensors inside @program")
    return _stack[-1]


@contextmanager
def building(builder: Builder) -> Iterator[Builder]:
    _stack.append(builder)
    try:
        yield builder
    finally:
        _stack.pop()


# -- source locations ---------------------------------------------------------
# Each op the frontend emits carries the file:line:col of the user's code that
# traced it (the first frame outside tcc.frontend), so stage errors and
# remarks name the user's line. Only the outermost frontend call sets it: the
# ops a `.softmax()` or a promotion emits share the user's line.
_FRONTEND_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_tracing: contextvars.ContextVar[bool] = contextvars.ContextVar("tcc_tracing", default=False)
_F = TypeVar("_F", bound=Callable[..., Any])


def _user_position() -> tuple[str, int, int] | None:
    """(file, line, column from 1) of the first frame outside tcc.frontend."""
    frame = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _FRONTEND_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    line, col = frame.f_lineno, 0
    positions = list(frame.f_code.co_positions())
    if 0 <= frame.f_lasti // 2 < len(positions):
        start_line, _, start_col, _ = positions[frame.f_lasti // 2]
        if start_line is not None and start_col is not None:
            line, col = start_line, start_col
    return frame.f_code.co_filename, line, col + 1


def located(fn: _F) -> _F:
    """``fn`` emitting its ops at the user's source location."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _tracing.get() or not _stack:
            return fn(*args, **kwargs)
        position = _user_position()
        token = _tracing.set(True)
        try:
            if position is None:
                return fn(*args, **kwargs)
            with ir.Location.file(*position):
                return fn(*args, **kwargs)
        except FrontendError as err:
            # The user's line first, as a compiler's diagnostics read
            # (FILE:LINE:COL: message); once, at the outermost call.
            if position is not None and not getattr(err, "position", None):
                err.position = position  # type: ignore[attr-defined]
                first = err.args[0] if err.args else ""
                err.args = (f"{position[0]}:{position[1]}:{position[2]}: {first}",
                            *err.args[1:])
            raise
        finally:
            _tracing.reset(token)

    return wrapper  # type: ignore[return-value]


_OPERATORS = frozenset({
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__neg__", "__abs__", "__eq__",
    "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__",
    "__ror__", "__invert__", "__getitem__"})


def locate_functions(namespace: dict[str, Any]) -> None:
    """Wraps the public functions a frontend module defines with
    :func:`located`."""
    module = namespace["__name__"]
    for name, value in list(namespace.items()):
        if (not name.startswith("_") and callable(value) and not isinstance(value, type)
                and getattr(value, "__module__", None) == module):
            namespace[name] = located(value)


def locate_methods(cls: type) -> None:
    """Wraps ``cls``'s public methods and operators with :func:`located`."""
    for name, value in list(vars(cls).items()):
        if callable(value) and not isinstance(value, (staticmethod, classmethod, type)) and (
                not name.startswith("_") or name in _OPERATORS):
            setattr(cls, name, located(value))
