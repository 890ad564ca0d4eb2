"""Reductions along outer dims and split reductions on a GPU: correctness
against float64 and GB/s next to torch eager and torch.compile, in one run.

The programs are ``tcc.examples.programs.REDUCTION_BENCHMARKS`` (column
sum/max of 16384^2 f32 and f16, a full sum of 2^28 f32, the mean over the
middle dim of 64x4096x1024 f32 and f16, a column sum of a tall 2^23 x 8
matrix, a row sum of 4 rows of 2^24). Two halves, because the GPU machine
has no MLIR:

    # here (CPU, MLIR): compile every program into DIR (artifacts + manifest)
    python benchmarks/reductions.py build DIR
    # on the GPU machine (tcc.runtime, torch; triton for do_bench if present):
    PYTHONPATH=python python3 benchmarks/reductions.py run DIR OUT [--check-only]

`build` prints each program's kernels with their grid and block. `run`
checks each program on fresh random inputs against a float64 reference
(NaN-poisoned output), then times it (median) next to torch eager and
torch.compile; bytes moved = input + output. `--check-only` stops after the
checks (e.g. under compute-sanitizer).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

# Relative error (‖out - ref‖ / ‖ref‖ against float64) each dtype must meet.
TOLERANCE = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}


def build(directory: Path, target: str = "sm_90") -> None:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.examples.programs import REDUCTION_BENCHMARKS, reduction_benchmarks

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, src in reduction_benchmarks().items():
        op, shape, dims, dtype = REDUCTION_BENCHMARKS[name]
        start = time.perf_counter()
        program = tcc_compile(src, target, cache=False)
        seconds = time.perf_counter() - start
        program.artifact.save(directory / f"{name}.tccprog")
        kernels = [{"name": k.name, "grid": list(k.launch.grid), "block": list(k.launch.block)}
                   for k in program.kernels]
        manifest.append({"name": name, "op": op, "shape": list(shape), "dims": list(dims),
                         "dtype": dtype, "compile_s": seconds, "kernels": kernels})
        launches = ", ".join(f"{k['name']} grid={k['grid'][0]} block={k['block'][0]}"
                             for k in kernels)
        print(f"built {name:22s} {seconds * 1e3:7.1f} ms  {launches}")
    (directory / "manifest.json").write_text(json.dumps({"programs": manifest}, indent=1))


# ---------------------------------------------------------------- GPU side --
def _torch_fn(op: str, dims: tuple[int, ...]):  # noqa: ANN202
    if op == "reduce_sum":
        return lambda x: x.sum(dim=dims)
    if op == "reduce_max":
        return lambda x: x.amax(dim=dims)
    if op == "reduce_min":
        return lambda x: x.amin(dim=dims)
    if op == "reduce_mean":
        return lambda x: x.mean(dim=dims)
    raise ValueError(op)


def _bench(fn) -> float:  # noqa: ANN001
    """Median milliseconds of ``fn()``."""
    try:
        import triton.testing

        return triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")
    except ImportError:
        import torch

        for _ in range(20):
            fn()
        times = []
        for _ in range(100):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        return sorted(times)[len(times) // 2]


def run(directory: Path, out: Path, check_only: bool = False) -> int:
    import torch

    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((directory / "manifest.json").read_text())
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    gen = torch.Generator(device="cuda").manual_seed(1234)
    failures = 0
    rows = []
    for entry in manifest["programs"]:
        dtype = dtypes[entry["dtype"]]
        dims = tuple(entry["dims"])
        program = load(directory / f"{entry['name']}.tccprog")
        x = torch.randn(entry["shape"], generator=gen, device="cuda").to(dtype)
        fn = _torch_fn(entry["op"], dims)
        # The float64 reference and the comparison run on the CPU: no torch
        # reduction kernel runs on the GPU beside tcc's (racecheck reports a
        # hazard inside torch's own at::native::reduce_kernel).
        ref = fn(x.double().cpu())
        poisoned = torch.full(ref.shape, float("nan"), device="cuda", dtype=dtype)
        program(x, out=poisoned)
        torch.cuda.synchronize()
        got = poisoned.double().cpu()
        unwritten = int(torch.isnan(got).sum())
        rel = float(torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref))
        ok = unwritten == 0 and rel <= TOLERANCE[entry["dtype"]]
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']:22s} rel.err {rel:.2e} "
              f"unwritten {unwritten}")
        nbytes = x.numel() * x.element_size() + ref.numel() * x.element_size()
        result = {"name": entry["name"], "bytes": nbytes, "ok": ok, "rel_err": rel,
                  "kernels": entry["kernels"]}
        if check_only:
            continue
        compiled = torch.compile(fn)
        candidates = {"tcc": lambda p=program, x=x, o=poisoned: p(x, out=o),
                      "torch eager": lambda f=fn, x=x: f(x),
                      "torch.compile": lambda f=compiled, x=x: f(x)}
        for label, f in candidates.items():
            result[label] = nbytes / (_bench(f) * 1e-3) / 1e9
        rows.append(result)
    if check_only:
        print(f"correctness: {len(manifest['programs']) - failures}/"
              f"{len(manifest['programs'])} programs ok")
        return 1 if failures else 0
    (out / "bench.json").write_text(json.dumps(rows, indent=1))
    lines = ["| program | bytes | kernels (grid x block) | tcc GB/s | torch eager | "
             "torch.compile | tcc / eager | tcc / compile |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        kernels = " + ".join(f"{k['grid'][0]}x{k['block'][0]}" for k in r["kernels"])
        lines.append(
            f"| {r['name']} | {r['bytes'] / 2**20:.0f} MiB | {kernels} | {r['tcc']:.0f} | "
            f"{r['torch eager']:.0f} | {r['torch.compile']:.0f} | "
            f"{r['tcc'] / r['torch eager']:.2f} | {r['tcc'] / r['torch.compile']:.2f} |")
    lines.append(f"correctness: {len(rows) - failures}/{len(rows)} programs ok")
    report = "\n".join(lines)
    (out / "report.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]), *(sys.argv[3:4]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(Path(sys.argv[2]), Path(sys.argv[3]), "--check-only" in sys.argv[4:]))
    else:
        print(__doc__)
        sys.exit(2)
