"""The correctness check the GEMM benchmarks share (METHOD.md): the output was
poisoned with NaN before the run; count what stayed unwritten and the
relative Frobenius error against the float64 reference."""

from __future__ import annotations

from typing import Any


def check_against_float64(result: Any, ref: Any) -> tuple[int, float]:
    """(unwritten elements, ||result - ref|| / ||ref||) of torch tensors."""
    import torch

    torch.cuda.synchronize()
    unwritten = int(torch.isnan(result).sum())
    rel = float(torch.linalg.vector_norm(result.double() - ref) / torch.linalg.vector_norm(ref))
    return unwritten, rel
