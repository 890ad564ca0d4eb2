"""``scaled_dot_product_attention``: torch's ``F.scaled_dot_product_attention``
written as its definition, ``softmax(q @ kᵀ * scale + mask) @ v``, which tcc
compiles as one fused attention kernel (form = attention).

Inference only: ``dropout_p`` must be 0; ``enable_gqa`` is not supported (repeat
the key and value heads first).
"""

from __future__ import annotations

import math

from tcc.frontend import ops as _ops
from tcc.frontend import reductions as _reductions
from tcc.frontend._builder import locate_functions
from tcc.frontend.dtypes import i1
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shape_ops import reshape
from tcc.frontend.tensor import Tensor


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``torch.nn.functional.scaled_dot_product_attention`` on query [..., L, E],
    key [..., S, E] and value [..., S, Ev] (batch dims broadcast): ``scale``
    defaults to 1 / sqrt(E); ``is_causal`` keeps key s <= query l (torch's
    top-left aligned lower triangle); a boolean ``attn_mask`` keeps where it is
    true, a float one is added to the scores."""
    where = "scaled_dot_product_attention"
    query = _ops._tensor(where, "query", query)
    key = _ops._tensor(where, "key", key)
    value = _ops._tensor(where, "value", value)
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.rank < 2:
            raise ShapeError(f"{where}: {name} must have rank 2 or more (..., L or S, E), "
                             f"got {t!r}")
        _ops._require_float(where, t)
    if dropout_p != 0.0:
        raise FrontendError(f"{where}: dropout_p must be 0 (inference only), got {dropout_p}")
    if enable_gqa:
        raise FrontendError(f"{where}: enable_gqa is not supported; repeat the key and value "
                            "heads to the query's first")
    if is_causal and attn_mask is not None:
        raise FrontendError(f"{where}: give is_causal or attn_mask, not both (torch's rule)")
    if scale is None:
        e = query.shape[-1]
        if not isinstance(e, int):
            raise ShapeError(f"{where}: the default scale 1/sqrt(E) needs a static head dim; "
                             f"query is {query!r}: pass scale=")
        scale = 1.0 / math.sqrt(e)
    scores = _ops.matmul(query, key.transpose(-2, -1)) * scale
    n_q, n_k = scores.shape[-2], scores.shape[-1]
    if is_causal:
        keep = (reshape(_ops.arange(n_q), (n_q, 1)) >= reshape(_ops.arange(n_k), (1, n_k)))
        scores = _ops.where(keep, scores, float("-inf"))
    elif attn_mask is not None:
        attn_mask = _ops._tensor(where, "attn_mask", attn_mask)
        if attn_mask.dtype == i1:
            scores = _ops.where(attn_mask, scores, float("-inf"))
        elif attn_mask.dtype.is_float:
            scores = scores + attn_mask
        else:
            raise DTypeError(f"{where}: attn_mask must be bool (i1) or float, got "
                             f"{attn_mask!r}")
    return _ops.matmul(_reductions.softmax(scores, -1), value)


# Every public op emits at the user's source location.
locate_functions(globals())
