"""The state of the program being built: insertion point, symbol sources."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mlir import ir
from mlir.dialects import arith, tensor

from tcc.frontend.dtypes import DType
from tcc.frontend.errors import FrontendError, ShapeError
from tcc.frontend.shapes import Dim, Shape, Sym

_DYNAMIC = ir.ShapedType.get_dynamic_size()


class Builder:
    """Per-build state. ``bindings`` fixes some symbols to static sizes."""

    def __init__(self, bindings: dict[str, int]) -> None:
        self.bindings = bindings
        # Where each symbol's runtime size can be read: (argument, dim index).
        self.carriers: dict[Sym, tuple[ir.Value, int]] = {}
        self._index_consts: dict[int, ir.Value] = {}
        self._sizes: dict[Sym, ir.Value] = {}

    def resolve(self, dim: Dim) -> Dim:
        """``dim`` with bound symbols replaced by their static size."""
        if isinstance(dim, Sym) and dim.name in self.bindings:
            return self.bindings[dim.name]
        return dim

    def resolve_shape(self, shape: Shape) -> Shape:
        return tuple(self.resolve(d) for d in shape)

    def add_carrier(self, value: ir.Value, shape: Shape) -> None:
        for i, d in enumerate(shape):
            if isinstance(d, Sym) and d not in self.carriers:
                self.carriers[d] = (value, i)

    def size(self, dim: Sym, where: str) -> ir.Value:
        """The runtime size of ``dim`` (a ``tensor.dim`` of its first carrier)."""
        if dim in self._sizes:
            return self._sizes[dim]
        if dim not in self.carriers:
            raise ShapeError(
                f"{where}: symbolic size {dim} is not the size of any argument dim, "
                "so its runtime value is unknown"
            )
        value, index = self.carriers[dim]
        if index not in self._index_consts:
            self._index_consts[index] = arith.ConstantOp(ir.IndexType.get(), index).result
        size = tensor.DimOp(value, self._index_consts[index]).result
        self._sizes[dim] = size
        return size


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
