"""Shape ops: broadcast, reshape/view, (un)squeeze, flatten, transpose, permute."""

from __future__ import annotations

from collections.abc import Sequence

from tcc.dialects import tcc as _tcc
from tcc.frontend import ops as _ops  # a module: ops may still be initializing
from tcc.frontend._builder import current, locate_functions, tensor_type
from tcc.frontend.errors import ShapeError
from tcc.frontend.shapes import (
    Dim,
    Shape,
    Sym,
    as_dim,
    fmt_shape,
    norm_dim,
    product,
    quotient,
)
from tcc.frontend.tensor import Tensor, TensorSpec


def broadcast_to(
    x: Tensor, shape: Sequence[Dim | str] | TensorSpec | Tensor, dims: Sequence[int] | None = None
) -> Tensor:
    """Broadcast ``x`` to ``shape`` (a shape or a tensor whose shape to take).

    Without ``dims``, numpy's rules (``torch.broadcast_to``): dims align at the
    end, missing leading dims and size-1 dims grow. With ``dims``, they list the
    added result dims (negative counts from the end) and the other result dims
    must equal ``x``'s dims in order.
    """
    where = "broadcast_to"
    x = _ops._tensor(where, "input", x)
    builder = current(where)
    target = _ops._target_shape(where, builder, shape)
    added = len(target) - x.rank
    ctx = f"input is {x!r}, target shape is {fmt_shape(target)}"
    if added < 0:
        raise ShapeError(
            f"{where}: target rank {len(target)} is lower than input rank {x.rank}; {ctx}"
        )
    if dims is None:
        for j, d in enumerate(x.shape):
            i = added + j
            if d != target[i] and d != 1:
                raise ShapeError(
                    f"{where}: target dim {i} (size {target[i]}) does not match "
                    f"input dim {j} (size {d}); {ctx}"
                )
        return _ops.expand_to(x, target, where)
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
    return _ops._wrap(op.result, target, x.dtype)


def _shape_args(args: tuple[object, ...]) -> list[object]:
    """``f(2, 3)`` and ``f((2, 3))`` alike."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        return list(args[0])
    return list(args)


def expand(x: Tensor, *sizes: object) -> Tensor:
    """``torch.Tensor.expand``: broadcast to ``sizes``; -1 keeps a dim of ``x``."""
    where = "expand"
    x = _ops._tensor(where, "input", x)
    wanted = _shape_args(sizes)
    pad = len(wanted) - x.rank
    if pad < 0:
        raise ShapeError(
            f"{where}: {len(wanted)} sizes are fewer than the input rank {x.rank}; input is {x!r}"
        )
    shape: list[Dim | str] = []
    for i, s in enumerate(wanted):
        if s == -1:
            if i < pad:
                raise ShapeError(
                    f"{where}: size -1 is not allowed for the new leading dim {i}; input is {x!r}"
                )
            shape.append(x.shape[i - pad])
        else:
            shape.append(as_dim(s, where))
    return broadcast_to(x, shape)


def reshape(x: Tensor, *shape: object, where: str = "reshape") -> Tensor:
    """``torch.reshape`` / ``view``: the same elements in row-major order.

    One entry may be -1 (inferred). Sizes are ints or symbols; a product of
    symbols (flattening ``(M, 8)`` gives ``8*M``) is a symbol whose runtime size
    is computed from the arguments' ``tensor.dim``.
    """
    x = _ops._tensor(where, "input", x)
    wanted = _shape_args(shape)
    numel = product(x.shape)
    infer = [i for i, s in enumerate(wanted) if isinstance(s, int) and s == -1]
    if len(infer) > 1:
        raise ShapeError(f"{where}: only one dim can be -1, got {wanted}; input is {x!r}")
    dims: list[Dim] = [0 if i in infer else as_dim(s, where) for i, s in enumerate(wanted)]
    dims = [current(where).resolve(d) for d in dims]
    if infer:
        known = product(d for i, d in enumerate(dims) if i not in infer)
        inferred = quotient(numel, known)
        if inferred is None:
            raise ShapeError(
                f"{where}: shape {tuple(wanted)} is invalid for input {x!r} of {numel} "
                "elements (the -1 dim is not a whole size)"
            )
        dims[infer[0]] = inferred
    result: Shape = tuple(dims)
    if product(result) != numel:
        raise ShapeError(
            f"{where}: shape {fmt_shape(result)} ({product(result)} elements) is invalid "
            f"for input {x!r} of {numel} elements"
        )
    return _ops.reshape_to(x, result, where)


def view(x: Tensor, *shape: object) -> Tensor:
    """``torch.Tensor.view``: :func:`reshape` (tcc tensors are contiguous)."""
    return reshape(x, *shape, where="view")


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """``torch.flatten``: dims ``start_dim..end_dim`` (inclusive) become one."""
    where = "flatten"
    x = _ops._tensor(where, "input", x)
    if x.rank == 0:
        return _ops.reshape_to(x, (1,), where)
    lo, hi = norm_dim(start_dim, x.rank, where), norm_dim(end_dim, x.rank, where)
    if lo > hi:
        raise ShapeError(f"{where}: start_dim {start_dim} comes after end_dim {end_dim}")
    shape = (*x.shape[:lo], product(x.shape[lo : hi + 1]), *x.shape[hi + 1 :])
    return _ops.reshape_to(x, shape, where)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    """``torch.unsqueeze``: a size-1 dim inserted at ``dim`` (in [-rank-1, rank])."""
    where = "unsqueeze"
    x = _ops._tensor(where, "input", x)
    d = norm_dim(dim, x.rank + 1, where)
    return _ops.reshape_to(x, (*x.shape[:d], 1, *x.shape[d:]), where)


def squeeze(x: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """``torch.squeeze``: size-1 dims removed (all, or those of ``dim`` that are 1)."""
    where = "squeeze"
    x = _ops._tensor(where, "input", x)
    if dim is None:
        dims = set(range(x.rank))
    else:
        seq = [dim] if isinstance(dim, int) else list(dim)
        dims = {norm_dim(d, x.rank, where) for d in seq}
    shape = tuple(d for i, d in enumerate(x.shape) if not (i in dims and d == 1))
    return _ops.reshape_to(x, shape, where)


def _permute(where: str, x: Tensor, perm: list[int], given: object) -> Tensor:
    if len(perm) != x.rank:
        raise ShapeError(
            f"{where}: permutation {perm} has {len(perm)} entries but the input "
            f"{x!r} has rank {x.rank}"
        )
    perm = [norm_dim(p, x.rank, where) for p in perm]
    if len(set(perm)) != len(perm):
        raise ShapeError(f"{where}: permutation {given} repeats a dim")
    shape = tuple(x.shape[p] for p in perm)
    op = _tcc.TransposeOp(tensor_type(shape, x.dtype), x.value, perm)
    return _ops._wrap(op.result, shape, x.dtype)


def transpose(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """``transpose(x, d0, d1)`` swaps two dims (torch); ``transpose(x, perm)``
    permutes (result dim ``i`` is input dim ``perm[i]``); ``transpose(x)``
    reverses the dims."""
    where = "transpose"
    x = _ops._tensor(where, "input", x)
    if len(dims) == 2 and all(isinstance(d, int) for d in dims):
        d0, d1 = (norm_dim(d, x.rank, where) for d in dims)
        perm = list(range(x.rank))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return _permute(where, x, perm, perm)
    if not dims:
        perm = list(reversed(range(x.rank)))
        return _permute(where, x, perm, perm)
    if len(dims) == 1 and isinstance(dims[0], Sequence):
        return _permute(where, x, list(dims[0]), list(dims[0]))
    raise ShapeError(
        f"{where}: expects two dims to swap or one permutation, got {list(dims)}; input is {x!r}"
    )


def permute(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """``torch.permute``: result dim ``i`` is input dim ``dims[i]``
    (``permute(x, 2, 0, 1)`` or ``permute(x, (2, 0, 1))``)."""
    x = _ops._tensor("permute", "input", x)
    given = _shape_args(dims)
    perm = [p for p in given if isinstance(p, int)]
    if len(perm) != len(given):
        raise ShapeError(f"permute: dims must be ints, got {given}")
    return _permute("permute", x, perm, given)


# Every public op emits at the user's source location.
locate_functions(globals())
