"""``tcc tune build``: compile a program's variants (CPU, MLIR)."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tcc.tune.space import candidates, plan_in


def _compile(text: str, target: str, plans: dict[str, str] | None, path: str) -> str:
    """Compile one variant into ``path`` (in a worker process); '' or the
    error's last line."""
    import tcc

    try:
        program = tcc.compile(text, target, plans=plans, tuned=False, cache=False)
    except Exception as exc:  # noqa: BLE001  (a plan the builder refuses)
        lines = [line for line in str(exc).splitlines() if line.strip()]
        return (lines[-1] if lines else type(exc).__name__)[:300]
    program.artifact.save(path)
    return ""


def _progress(done: int, total: int, what: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {what[:60]:60s}",
          end="" if done < total else "\n", file=sys.stderr, flush=True)


def build(source: Any, target: str, directory: str | Path, *,
          sizes: Mapping[str, int] | None = None, jobs: int | None = None,
          progress: bool = True) -> Path:
    """Compile ``source`` for ``target`` into ``directory``: the default
    (heuristics') program and one variant per kernel and candidate plan;
    writes ``manifest.json``. Returns the directory."""
    import tcc
    from tcc.compiler.cache import compiler_fingerprint
    from tcc.compiler.compile import _source_text

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    text = _source_text(source, dict(sizes or {}))
    default = tcc.compile(text, target, tuned=False, cache=False)
    default.artifact.save(out / "default.tccprog")
    plans: dict[str, str] = {}
    for kernel in default.kernels:
        if plan := plan_in(kernel.ir["tile"]):
            plans[kernel.name] = plan
    jobs_list: list[tuple[str, str, str]] = []  # (kernel, plan, file)
    for kernel, plan in plans.items():
        for i, candidate in enumerate(candidates(plan)):
            jobs_list.append((kernel, candidate, f"{kernel}.{i}.tccprog"))
    variants: list[dict[str, str]] = []
    start = time.monotonic()
    workers = jobs or os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_compile, text, target, {k: p}, str(out / f)): (k, p, f)
                   for k, p, f in jobs_list}
        for done, future in enumerate(as_completed(futures), 1):
            kernel, plan, path = futures[future]
            error = future.result()
            variants.append({"kernel": kernel, "plan": plan, "path": path, "error": error})
            if progress:
                _progress(done, len(futures), f"{kernel} {plan[22:-1]}")
    variants.sort(key=lambda v: (v["kernel"], v["path"]))
    manifest = {
        "target": target,
        "text": text,
        "compiler": compiler_fingerprint(),
        "default": {"path": "default.tccprog", "plans": plans},
        "variants": variants,
        "build_s": time.monotonic() - start,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return out
