"""Random tensor programs through ``tcc.compile``, run on the CPU emulator
against float64 numpy (differential testing).

A program is generated as Python source twice from one random expression
tree: once for ``tcc.frontend`` (written as a torch user writes it) and once
for numpy. Inputs have ranks 1-4 and odd and tiny sizes, and broadcast by
numpy's rules; the ops are pointwise (unary, binary, comparisons with
``where``), casts, reductions over a dim (``keepdim`` or not), softmax and
small matmuls. Each program is compiled for every target given, run through
its gpu stage (:func:`tcc.testing.simt.run_gpu_stage`) on fresh random
inputs, and compared with the reference. Outcomes: ``ok``; ``refused`` (a
clear error: the frontend's or a stage's diagnostic); ``crash`` (a stage
crashed in the compile worker, or any other exception); ``mismatch``.

    python -m tcc.testing.fuzz programs --seed 1 --count 100
"""

from __future__ import annotations

import random
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_SIZES = (1, 2, 3, 5, 7, 8, 16, 17, 33, 64)
_UNARY = {  # name: (frontend, numpy)
    "neg": ("(-{a})", "(-{a})"),
    "abs": ("{a}.abs()", "np.abs({a})"),
    "relu": ("{a}.relu()", "np.maximum({a}, 0)"),
    # exp and squares of bounded values: no f16 overflow to inf (a float64
    # reference does not overflow, so an inf there would be no tcc bug).
    "exp": ("{a}.tanh().exp()", "np.exp(np.tanh({a}))"),
    "tanh": ("{a}.tanh()", "np.tanh({a})"),
    "sigmoid": ("{a}.sigmoid()", "1 / (1 + np.exp(-{a}))"),
    "sqrt": ("({a}.abs() + 1.0).sqrt()", "np.sqrt(np.abs({a}) + 1.0)"),
    "square": ("({a} * {a}.tanh())", "({a} * np.tanh({a}))"),
}
_BINARY = {
    "add": ("({a} + {b})", "({a} + {b})"),
    "sub": ("({a} - {b})", "({a} - {b})"),
    "mul": ("({a} * {b})", "({a} * {b})"),
    "max": ("tf.maximum({a}, {b})", "np.maximum({a}, {b})"),
    "min": ("tf.minimum({a}, {b})", "np.minimum({a}, {b})"),
    "where": ("tf.where({a} > {b}, {a}, {b} * 2.0)", "np.where({a} > {b}, {a}, {b} * 2.0)"),
}


@dataclass
class Expr:
    frontend: str
    numpy: str
    shape: tuple[int, ...]


@dataclass
class Generated:
    """A program's sources and its inputs' shapes."""

    frontend: str
    numpy: str
    inputs: list[tuple[int, ...]]
    dtype: str


@dataclass(frozen=True)
class Sizes:
    """The shapes a campaign draws: dims from ``dims``, a program's first
    input between ``min_elements`` and ``max_elements`` elements, a matmul's
    N from ``matmul_n``."""

    dims: tuple[int, ...]
    min_elements: int
    max_elements: int
    matmul_n: tuple[int, ...]


# Odd and tiny shapes for the CPU emulator.
SMALL = Sizes(_SIZES, 1, 2048, (1, 3, 8, 16, 33))
# Real sizes for a GPU (tcc.testing.fuzz.gpu): 16K to 4M elements, odd and
# power-of-two dims, rows up to a vocabulary (50257).
REAL = Sizes((1, 3, 17, 64, 128, 255, 256, 1000, 1024, 4096, 50257, 65536), 1 << 14, 1 << 22,
             (1, 33, 128, 1000))


def _broadcastable(shape: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape``: a suffix, some dims set to 1."""
    keep = rng.randint(1, len(shape))
    suffix = list(shape[len(shape) - keep:])
    for i in range(len(suffix)):
        if rng.random() < 0.3:
            suffix[i] = 1
    return tuple(suffix)


def generate(rng: random.Random, sizes: Sizes = SMALL) -> Generated:
    rank = rng.randint(1, 4)
    shape: tuple[int, ...] = ()
    while not shape or not sizes.min_elements <= int(np.prod(shape)) <= sizes.max_elements:
        shape = tuple(rng.choice(sizes.dims) for _ in range(rank))
    dtype = rng.choice(("f32", "f32", "f16"))
    inputs = [shape] + [_broadcastable(shape, rng) for _ in range(rng.randint(0, 2))]
    leaves = [Expr(f"x{i}", f"x{i}", s) for i, s in enumerate(inputs)]
    expr = rng.choice(leaves[:1])
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.35:
            fe, ne = _UNARY[rng.choice(sorted(_UNARY))]
            expr = Expr(fe.format(a=expr.frontend), ne.format(a=expr.numpy), expr.shape)
        elif roll < 0.8:
            other = rng.choice(leaves)
            fe, ne = _BINARY[rng.choice(sorted(_BINARY))]
            a, b = (expr, other) if rng.random() < 0.5 else (other, expr)
            expr = Expr(fe.format(a=a.frontend, b=b.frontend), ne.format(a=a.numpy, b=b.numpy),
                        tuple(np.broadcast_shapes(a.shape, b.shape)))
        else:
            break
    tail = rng.random()
    if tail < 0.45 and expr.shape:
        dim = rng.randrange(len(expr.shape)) - (len(expr.shape) if rng.random() < 0.5 else 0)
        keep = rng.random() < 0.4
        op = rng.choice(("sum", "mean", "amax"))
        nop = {"sum": "sum", "mean": "mean", "amax": "max"}[op]
        expr = Expr(f"{expr.frontend}.{op}({dim}, keepdim={keep})",
                    f"np.{nop}({expr.numpy}, axis={dim}, keepdims={keep})", ())
    elif tail < 0.6 and expr.shape:
        expr = Expr(f"{expr.frontend}.softmax(-1)", f"_softmax({expr.numpy})", expr.shape)
    elif tail < 0.7 and len(expr.shape) == 2:
        k = expr.shape[1]
        n = rng.choice(sizes.matmul_n)
        inputs.append((k, n))
        name = f"x{len(inputs) - 1}"
        expr = Expr(f"({expr.frontend} @ {name})", f"({expr.numpy} @ {name})", expr.shape)
    params = ", ".join(f"x{i}: Tensor[{', '.join(map(str, s))}, {dtype}]"
                       for i, s in enumerate(inputs))
    frontend = (f"def fuzzed({params}):\n    return {expr.frontend}\n")
    numpy_src = (f"def reference({', '.join(f'x{i}' for i in range(len(inputs)))}):\n"
                 f"    return {expr.numpy}\n")
    return Generated(frontend, numpy_src, inputs, dtype)


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@dataclass
class Outcome:
    kind: str  # ok | refused | crash | mismatch
    detail: str = ""


def compile_generated(gen: Generated, target: str) -> Any:
    """``gen``'s program compiled for ``target``, or the :class:`Outcome`
    (refused or crash) that stopped it."""
    import tcc
    import tcc.frontend as tf
    from tcc.compiler.compile import CompilationError
    from tcc.frontend import FrontendError, Program, Tensor, f16, f32

    scope: dict[str, Any] = {"Tensor": Tensor, "f16": f16, "f32": f32, "tf": tf}
    try:
        exec(gen.frontend, scope)  # noqa: S102  (generated here, from the tree above)
        program = Program(scope["fuzzed"])
        return tcc.compile(program, target, cache=False)
    except CompilationError as exc:
        text = str(exc)
        lines = [line for line in text.splitlines() if "error:" in line] or [text]
        return Outcome("crash" if "crashed inside" in text or "did not finish" in text
                       else "refused", lines[0][:300])
    except (FrontendError, ValueError, TypeError) as exc:
        return Outcome("refused", f"{type(exc).__name__}: {exc}"[:300])
    except Exception:  # noqa: BLE001  (anything else is a bug to report)
        return Outcome("crash", traceback.format_exc()[-1500:])


def inputs_for(gen: Generated, rng: np.random.Generator) -> list[np.ndarray]:
    np_dtype = np.float16 if gen.dtype == "f16" else np.float32
    return [rng.standard_normal(s).astype(np_dtype) for s in gen.inputs]


def compare(gen: Generated, inputs: list[np.ndarray], output: np.ndarray) -> Outcome:
    """The oracle: ``output`` (the program's result on ``inputs``) against
    the numpy reference in float64 (or, for f16, in f16)."""
    ref_scope: dict[str, Any] = {"np": np, "_softmax": _softmax}
    exec(gen.numpy, ref_scope)  # noqa: S102
    ref = np.asarray(ref_scope["reference"](*[x.astype(np.float64) for x in inputs]))
    got = np.asarray(output, dtype=np.float64).reshape(ref.shape) if np.size(
        output) == ref.size else None
    if got is None:
        return Outcome("mismatch", f"shape {np.shape(output)} vs {ref.shape}")
    tol = 2e-2 if gen.dtype == "f16" else 1e-4
    scale = max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
    if not np.allclose(got, ref, rtol=tol, atol=tol * scale, equal_nan=True) and not (
            gen.dtype in ("f16", "f32") and _matches_native(ref_scope["reference"], inputs, got,
                                                              tol,
                                                   scale)):
        nans = int(np.sum(np.isnan(got) != np.isnan(ref)))
        worst = float(np.nanmax(np.abs(got - ref))) if ref.size else 0.0
        return Outcome("mismatch", f"max abs error {worst:.3g} (tolerance {tol * scale:.3g}), "
                                   f"{nans} elements NaN on one side only")
    return Outcome("ok")


def check(gen: Generated, target: str, rng: np.random.Generator) -> Outcome:
    from tcc.testing.simt import run_gpu_stage

    compiled = compile_generated(gen, target)
    if isinstance(compiled, Outcome):
        return compiled
    inputs = inputs_for(gen, rng)
    try:
        outputs = run_gpu_stage(compiled, *inputs)
    except Exception:  # noqa: BLE001
        return Outcome("crash", "emulator: " + traceback.format_exc()[-1500:])
    return compare(gen, inputs, outputs[0])


def _matches_native(reference: Callable[..., Any], inputs: list[np.ndarray],
                    got: np.ndarray, tol: float, scale: float) -> bool:
    """Whether ``got`` matches the reference evaluated in the inputs' own
    dtype (numpy rounds f16 and f32 after every op, as the kernels do). A
    comparison or a max whose operands round across each other picks
    another branch than float64 does (f16: ``where(a > b, ...)`` with a and
    b equal to f16 precision; f32: ``(x1 - x0) + x0 > x1``, seed 61): that
    is the dtype's semantics, not a wrong answer."""
    with np.errstate(all="ignore"):
        native = np.asarray(reference(*inputs), dtype=np.float64)
    return native.shape == got.shape and bool(
        np.allclose(got, native, rtol=tol, atol=tol * scale, equal_nan=True))


@dataclass
class Report:
    programs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    # (kind, target, program source, detail)
    failures: list[tuple[str, str, str, str]] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)


def campaign(seed: int, *, count: int | None = None, seconds: float | None = None,
             targets: tuple[str, ...] = ("sm_80", "gfx942"),
             progress: Callable[[Report], None] | None = None) -> Report:
    import time

    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    report = Report()
    start = time.monotonic()
    while (count is None or report.programs < count) and (
            seconds is None or time.monotonic() - start < seconds):
        gen = generate(rng)
        report.programs += 1
        for target in targets:
            outcome = check(gen, target, data)
            report.outcomes[outcome.kind] += 1
            if outcome.kind == "refused":
                report.refusals[outcome.detail[:80]] += 1
            elif outcome.kind != "ok":
                report.failures.append((outcome.kind, target, gen.frontend, outcome.detail))
        if progress is not None:
            progress(report)
    return report
