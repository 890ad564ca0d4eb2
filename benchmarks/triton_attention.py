"""A FlashAttention-2 forward in Triton after its tutorial 06 (non-causal and
causal, [BH, S, D] operands), autotuned over block sizes, warps and stages,
for benchmarks/attention.py: the tile-language peer of tcc's fused attention.
A single fixed config would flatter the contender; this one is tuned per
shape."""

from __future__ import annotations

from typing import Any

TRITON_CONFIGS = [  # (BLOCK_M, BLOCK_N, stages, warps)
    (128, 64, 2, 4), (128, 64, 3, 4), (128, 64, 3, 8), (128, 128, 2, 8),
    (128, 32, 3, 4), (64, 64, 3, 4), (64, 32, 4, 4), (128, 128, 3, 8),
]


def triton_attention() -> Any:
    """``attention(q, k, v, scale, causal)`` of [BH, S, D] tensors."""
    import torch
    import triton
    import triton.language as tl

    configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
               for bm, bn, s, w in TRITON_CONFIGS]

    @triton.autotune(configs=configs, key=["S", "D", "CAUSAL"])
    @triton.jit
    def kernel(q, k, v, o, qk_scale, S, D: tl.constexpr, CAUSAL: tl.constexpr,  # noqa: ANN001, N803
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):  # noqa: N803
        start_m = tl.program_id(0)
        bh = tl.program_id(1)
        base = bh.to(tl.int64) * S * D
        rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rd = tl.arange(0, D)
        qt = tl.load(q + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0)
        m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
        l_i = tl.zeros((BLOCK_M,), tl.float32)
        acc = tl.zeros((BLOCK_M, D), tl.float32)
        hi = tl.minimum(S, (start_m + 1) * BLOCK_M) if CAUSAL else S
        for start_n in range(0, hi, BLOCK_N):
            rn = start_n + tl.arange(0, BLOCK_N)
            kt = tl.load(k + base + rn[None, :] * D + rd[:, None], mask=rn[None, :] < S, other=0)
            s = tl.dot(qt, kt) * qk_scale
            keep = rn[None, :] < S
            if CAUSAL:
                keep = keep & (rn[None, :] <= rm[:, None])
            s = tl.where(keep, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            vt = tl.load(v + base + rn[:, None] * D + rd[None, :], mask=rn[:, None] < S, other=0)
            acc = acc * alpha[:, None] + tl.dot(p.to(vt.dtype), vt)
            m_i = m_new
        acc = acc / l_i[:, None]
        tl.store(o + base + rm[:, None] * D + rd[None, :], acc.to(o.dtype.element_ty),
                 mask=rm[:, None] < S)

    def attention(q: Any, k: Any, v: Any, scale: float, causal: bool = False) -> Any:
        bh, s, d = q.shape
        out = torch.empty_like(q)

        def grid(meta: dict[str, int]) -> tuple[int, int]:
            return (triton.cdiv(s, meta["BLOCK_M"]), bh)

        kernel[grid](q, k, v, out, scale * 1.4426950408889634, s, d, causal)
        return out

    return attention
