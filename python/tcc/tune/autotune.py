"""``tcc.autotune``: the three tuning steps in one call, where one machine has
both MLIR and the GPU."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any


def autotune(source: Any, target: str, *, sizes: Mapping[str, int] | None = None,
             directory: str | Path | None = None, jobs: int | None = None,
             warmup: int = 25, reps: int = 50, progress: bool = True) -> Any:
    """Tune ``source``'s kernels for ``target`` and return it compiled with
    the winners: :func:`tcc.tune.build` (every candidate plan compiled in
    parallel on the CPU cores), :func:`tcc.tune.run.run` (each checked
    against the default on fresh inputs and timed on the GPU, CUDA events
    after warm-up, medians), :func:`tcc.tune.run.apply` (the fastest correct
    plans, 2% or more ahead of the heuristics', recorded in the tuning
    database), then ``tcc.compile(..., tuned=True)``. Later compiles of the
    same program for the same target and compiler use the recorded plans
    without tuning again. ``directory`` keeps the variants and results
    (a temporary one otherwise)."""
    import tcc
    from tcc.tune.build import build
    from tcc.tune.run import apply, run

    where = (nullcontext(str(directory)) if directory is not None
             else tempfile.TemporaryDirectory(prefix="tcc-tune-"))
    with where as folder:
        build(source, target, folder, sizes=sizes, jobs=jobs, progress=progress)
        run(folder, warmup=warmup, reps=reps, progress=progress)
        apply(folder)
    return tcc.compile(source, target, tuned=True, **dict(sizes or {}))
