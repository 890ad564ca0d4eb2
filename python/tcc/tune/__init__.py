"""Autotuning: time each kernel of a program under several plans on the GPU
and keep the fastest, recorded so that later compiles use it.

Three steps, because the GPU machine need not have MLIR::

    tcc tune build prog.mlir --target sm_90 --out DIR   # here: compile the variants
    tcc tune run DIR                                   # on the GPU: check and time them
    tcc tune apply DIR                                 # here: record the winners

``build`` compiles the program as the heuristics plan it, then, for each
kernel, one variant per candidate plan of its form (:mod:`tcc.tune.space`),
the other kernels keeping their plans; candidates compile in parallel on
all CPU cores. ``run`` checks every variant against the default on the same
fresh random inputs (NaN-poisoned outputs) and times each (median of CUDA
event timings after warm-up); a variant that is wrong or fails is never
chosen. ``apply`` records, per kernel, the fastest correct plan in the
tuning database (:class:`tcc.tune.db.TuningDB`), keyed by the program's
text, the target and the compiler's fingerprint; ``tcc.compile`` then uses
those plans (``tuned=False`` to not). Where one machine has both MLIR and
the GPU, ``tcc.autotune(program, target)`` runs the three steps and returns
the tuned program.
"""

from tcc.tune.autotune import autotune
from tcc.tune.build import build
from tcc.tune.db import TuningDB
from tcc.tune.space import candidates

__all__ = ["TuningDB", "autotune", "build", "candidates"]
