"""Symbolic dims and shapes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tcc.frontend.errors import ShapeError


@dataclass(frozen=True)
class Sym:
    """A named symbolic size. Symbols with the same name are the same size.

    Products of sizes (a flattened ``(M, 8)`` is ``8*M``) are symbols too,
    named by their factors: a coefficient, then the symbol names sorted.
    """

    name: str

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    # Size arithmetic as a traced torch program does it on ``x.shape``
    # (``x.view(b * s, d)``, ``d // heads``): products are sizes (product
    # symbols); a quotient only where it is a whole size for every binding.
    def __mul__(self, other: object) -> Dim:
        return product((self, _size_operand(other, "*", self)))

    __rmul__ = __mul__

    def __floordiv__(self, other: object) -> Dim:
        den = _size_operand(other, "//", self)
        whole = quotient(self, den)
        if whole is None or den == 0:
            raise ShapeError(
                f"size {self} // {den} is not a whole size for every value of "
                f"{self}; bind the sizes it depends on (e.g. tcc.compile(program, "
                f"target, {', '.join(f'{n}=...' for n in factors(self)[1])}))"
            )
        return whole


def _size_operand(value: object, op: str, sym_: Sym) -> Dim:
    if isinstance(value, Sym) or (
        isinstance(value, int) and not isinstance(value, bool) and value >= 0
    ):
        return value
    raise ShapeError(
        f"size {sym_} {op} {value!r}: sizes combine with non-negative ints and "
        "symbols only"
    )


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


def factors(dim: Dim) -> tuple[int, tuple[str, ...]]:
    """``dim`` as a coefficient times symbol names: ``8*M`` is ``(8, ("M",))``."""
    if isinstance(dim, int):
        return dim, ()
    coeff, names = 1, []
    for part in dim.name.split("*"):
        if part.isdigit():
            coeff *= int(part)
        else:
            names.append(part)
    return coeff, tuple(sorted(names))


def from_factors(coeff: int, names: Iterable[str]) -> Dim:
    """The Dim of a coefficient times symbols (an int when there are none)."""
    names = sorted(names)
    if not names or coeff == 0:
        return coeff
    if coeff == 1 and len(names) == 1:
        return Sym(names[0])
    return Sym("*".join(([str(coeff)] if coeff != 1 else []) + names))


def product(dims: Iterable[Dim]) -> Dim:
    """The product of sizes: an int, a symbol, or a product symbol."""
    coeff, names = 1, []
    for d in dims:
        c, n = factors(d)
        coeff *= c
        names.extend(n)
    return from_factors(coeff, names)


def quotient(num: Dim, den: Dim) -> Dim | None:
    """``num / den`` when it is a whole size (ints divide, den's symbols are
    among num's), else None."""
    (cn, nn), (cd, nd) = factors(num), factors(den)
    rest = list(nn)
    for name in nd:
        if name not in rest:
            return None
        rest.remove(name)
    if cd == 0 or cn % cd:
        return None
    return from_factors(cn // cd, rest)


def broadcast_shapes(a: Shape, b: Shape) -> tuple[Shape, int | None]:
    """numpy broadcasting of two shapes (aligned at the end; a 1 or a missing
    dim takes the other's size). Returns the shape and None, or ``a``'s
    length-aligned result and the first dim (from the end, as a negative
    index) where the sizes differ and neither is 1."""
    rank = len(a) if len(a) > len(b) else len(b)
    out: list[Dim] = []
    for i in range(-rank, 0):
        x = a[i] if -i <= len(a) else 1
        y = b[i] if -i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return (), i
    return tuple(out), None


def norm_dim(dim: object, rank: int, where: str) -> int:
    """A dim index in [-rank, rank) as a non-negative index."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise ShapeError(f"{where}: dim must be an int, got {dim!r}")
    if not -rank <= dim < rank:
        raise ShapeError(f"{where}: dim {dim} is out of range for rank {rank}")
    return dim + rank if dim < 0 else dim
