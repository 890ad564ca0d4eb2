"""``tcc tune run``: check and time a build's variants (GPU machine, torch;
no MLIR)."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

# Relative error (||got - ref|| / ||ref||) a variant must meet against the
# default program, by output dtype.
TOLERANCE = {"f32": 1e-4, "f64": 1e-9, "f16": 2e-2, "bf16": 4e-2}
# A variant replaces the default only when it is this much faster (noise).
MIN_GAIN = 0.02


def _inputs(spec: Any, torch: Any) -> Any:
    from tcc.runtime.launcher import TORCH_DTYPES

    dtype = getattr(torch, TORCH_DTYPES[spec.dtype])
    shape = tuple(spec.shape)
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, device="cuda") > 0.5
    return torch.randint(-8, 8, shape, device="cuda", dtype=dtype)


def _time_ms(call: Any, torch: Any, warmup: int, reps: int) -> float:
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            call()
        end.record()
        end.synchronize()
        rounds.append(start.elapsed_time(end) / reps)
    return statistics.median(rounds)


def _outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple | list) else [result]


def _rel_err(got: list[Any], ref: list[Any]) -> float:
    worst = 0.0
    for g, r in zip(got, ref, strict=True):
        g, r = g.double(), r.double()
        if g.shape != r.shape or g.isnan().any() != r.isnan().any():
            return float("inf")
        worst = max(worst, float((g - r).norm() / r.norm().clamp_min(1e-30)))
    return worst


def run(directory: str | Path, *, warmup: int = 25, reps: int = 50,
        progress: bool = True) -> dict[str, Any]:
    """Check and time every variant of ``directory`` (tcc tune build's);
    writes and returns ``results.json``: each variant's time and error, and
    the fastest correct plan per kernel."""
    import torch

    import tcc.runtime

    out = Path(directory)
    manifest = json.loads((out / "manifest.json").read_text())
    torch.manual_seed(0)
    default = tcc.runtime.load(str(out / manifest["default"]["path"]))
    inputs = [_inputs(spec, torch) for spec in default.artifact.inputs]
    ref = [r.clone() for r in _outputs(default(*inputs))]
    torch.cuda.synchronize()
    tol = max(TOLERANCE.get(s.dtype, 1e-4) for s in default.artifact.outputs)
    default_ms = _time_ms(lambda: default(*inputs), torch, warmup, reps)
    rows = []
    variants = manifest["variants"]
    for i, variant in enumerate(variants, 1):
        row = dict(variant)
        if not variant["error"]:
            try:
                program = tcc.runtime.load(str(out / variant["path"]))
                got = _outputs(program(*inputs))
                torch.cuda.synchronize()
                row["rel_err"] = _rel_err(got, ref)
                row["ok"] = row["rel_err"] <= tol
                row["ms"] = _time_ms(lambda p=program: p(*inputs), torch, warmup, reps)
            except Exception as exc:  # noqa: BLE001  (a variant that fails to run)
                row.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:300])
        else:
            row["ok"] = False
        rows.append(row)
        if progress:
            ms = f"{row['ms']:.4f} ms" if "ms" in row else "-"
            print(f"[{i}/{len(variants)}] {variant['kernel']} {ms:>12s} "
                  f"{'ok ' if row['ok'] else 'BAD'} {variant['plan'][22:-1]}",
                  file=sys.stderr, flush=True)
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["ok"] and row["ms"] < default_ms * (1 - MIN_GAIN) and (
                row["kernel"] not in best or row["ms"] < best[row["kernel"]]["ms"]):
            best[row["kernel"]] = row
    results = {
        "target": manifest["target"],
        "default_ms": default_ms,
        "default_plans": manifest["default"]["plans"],
        "variants": rows,
        "best": {k: {"plan": r["plan"], "ms": r["ms"]} for k, r in sorted(best.items())},
        "device": torch.cuda.get_device_name(),
    }
    (out / "results.json").write_text(json.dumps(results, indent=1))
    return results


def apply(directory: str | Path) -> dict[str, str]:
    """Record the fastest correct plans of a run (results.json) in the
    tuning database; returns them (empty: the heuristics' plans won)."""
    from tcc.tune.db import TuningDB

    out = Path(directory)
    manifest = json.loads((out / "manifest.json").read_text())
    results = json.loads((out / "results.json").read_text())
    plans = {k: v["plan"] for k, v in results["best"].items()}
    from tcc.compiler.cache import compiler_fingerprint

    if manifest["compiler"] != compiler_fingerprint():
        raise ValueError(
            f"{out} was built by compiler {manifest['compiler']}, this is "
            f"{compiler_fingerprint()}: its kernels and plans may differ; build and run again")
    if plans:
        TuningDB.default().record(manifest["text"], manifest["target"], plans, {
            "default_ms": results["default_ms"],
            "tuned_ms": {k: v["ms"] for k, v in results["best"].items()},
            "device": results.get("device", "")})
    return plans
