"""Random programs at real sizes on a GPU, against float64 numpy.

The programs of :mod:`tcc.testing.fuzz.programs` with real sizes (16K to 4M
elements, rows up to 65536, matmuls to N = 1000): compiled here (MLIR) into
a folder of artifacts and a manifest, then run where a GPU is, with only
``tcc.runtime``, numpy and torch: fresh random inputs, a NaN-poisoned
output, and the same oracle as the CPU campaign (float64 numpy; f16
programs may match the f16 evaluation instead).

    # here: 500 programs of seed 51 compiled for sm_90
    python -m tcc.testing.fuzz gpu-build DIR --seed 51 --runs 500
    # on the GPU machine
    python -m tcc.testing.fuzz gpu-run DIR OUT
"""

from __future__ import annotations

import json
import random
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from tcc.testing.fuzz.programs import REAL, Generated, Outcome, compare, generate, inputs_for


def build(directory: Path, seed: int, count: int, target: str = "sm_90",
          progress: bool = True) -> Counter[str]:
    """Generates and compiles ``count`` programs into ``directory``; returns
    the compile outcomes (ok, refused, crash)."""
    from tcc.testing.fuzz.programs import compile_generated

    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    manifest: list[dict[str, Any]] = []
    outcomes: Counter[str] = Counter()
    start = time.monotonic()
    for i in range(count):
        gen = generate(rng, REAL)
        entry: dict[str, Any] = {"name": f"p{i:05d}", "frontend": gen.frontend,
                                 "numpy": gen.numpy, "inputs": gen.inputs,
                                 "dtype": gen.dtype}
        compiled = compile_generated(gen, target)
        if isinstance(compiled, Outcome):
            entry["outcome"], entry["detail"] = compiled.kind, compiled.detail
        else:
            compiled.artifact.save(directory / f"{entry['name']}.tccprog")
            entry["outcome"] = "compiled"
        outcomes[entry["outcome"]] += 1
        manifest.append(entry)
        if progress and (i + 1) % 25 == 0:
            print(f"  {i + 1}/{count} built in {time.monotonic() - start:.0f} s: "
                  f"{dict(outcomes)}", flush=True)
    (directory / "manifest.json").write_text(json.dumps(
        {"seed": seed, "target": target, "programs": manifest}, indent=1))
    return outcomes


def run(directory: Path, out: Path) -> dict[str, Any]:
    """Runs every compiled program of ``directory`` on the GPU (device 0)
    and writes ``out/fuzz_gpu.json``: outcome counts and each failure."""
    import torch

    import tcc.runtime

    manifest = json.loads((directory / "manifest.json").read_text())
    data = np.random.default_rng(manifest["seed"])
    outcomes: Counter[str] = Counter()
    failures: list[dict[str, str]] = []
    elements = 0
    for entry in manifest["programs"]:
        if entry["outcome"] != "compiled":
            outcomes[entry["outcome"]] += 1
            failures.append({"program": entry["frontend"], "kind": entry["outcome"],
                             "detail": entry.get("detail", "")})
            continue
        gen = Generated(entry["frontend"], entry["numpy"],
                        [tuple(s) for s in entry["inputs"]], entry["dtype"])
        inputs = inputs_for(gen, data)
        try:
            program = tcc.runtime.load(str(directory / f"{entry['name']}.tccprog"))
            spec = program.artifact.outputs[0]
            dtype = torch.float16 if spec.dtype == "f16" else torch.float32
            poisoned = torch.full(tuple(spec.shape), float("nan"), device="cuda", dtype=dtype)
            program(*[torch.from_numpy(x).cuda() for x in inputs], out=poisoned)
            torch.cuda.synchronize()
            outcome = compare(gen, inputs, poisoned.cpu().numpy())
        except Exception:  # noqa: BLE001  (a launch or runtime failure is a finding)
            outcome = Outcome("crash", traceback.format_exc()[-1500:])
        elements += sum(int(np.prod(s)) for s in gen.inputs)
        outcomes[outcome.kind] += 1
        if outcome.kind != "ok":
            failures.append({"program": gen.frontend, "kind": outcome.kind,
                             "detail": outcome.detail})
    report = {"seed": manifest["seed"], "target": manifest["target"],
              "programs": len(manifest["programs"]), "outcomes": dict(outcomes),
              "input_elements": elements, "failures": failures,
              "device": torch.cuda.get_device_name(0)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "fuzz_gpu.json").write_text(json.dumps(report, indent=1))
    return report
