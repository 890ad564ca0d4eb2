"""Symbolic dims and shapes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tcc.frontend.errors import ShapeError


@dataclass(frozen=True)
class Sym:
    """A named symbolic size. Symbols with the same name are the same size."""

    name: str

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


Dim = int | Sym
Shape = tuple[Dim, ...]


def sym(name: str) -> Sym:
    """A symbolic dim, printed ``?`` in IR types; e.g. ``M = sym("M")``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ShapeError(f"symbol name must be an identifier, got {name!r}")
    return Sym(name)


def syms(names: str) -> tuple[Sym, ...]:
    """Several symbols at once: ``M, N = syms("M N")``."""
    return tuple(sym(n) for n in names.replace(",", " ").split())


def as_dim(value: object, where: str) -> Dim:
    """``value`` (int >= 0, Sym or symbol name) as a Dim."""
    if isinstance(value, Sym):
        return value
    if isinstance(value, str):
        return sym(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ShapeError(f"{where}: dim must be a non-negative int or a symbol, got {value!r}")


def as_shape(values: Iterable[object], where: str) -> Shape:
    return tuple(as_dim(v, where) for v in values)


def fmt_shape(shape: Shape) -> str:
    """Python tuple spelling: ``(M, 8)``, ``(N,)``, ``()``."""
    inner = ", ".join(str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def norm_dim(dim: object, rank: int, where: str) -> int:
    """A dim index in [-rank, rank) as a non-negative index."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise ShapeError(f"{where}: dim must be an int, got {dim!r}")
    if not -rank <= dim < rank:
        raise ShapeError(f"{where}: dim {dim} is out of range for rank {rank}")
    return dim + rank if dim < 0 else dim
