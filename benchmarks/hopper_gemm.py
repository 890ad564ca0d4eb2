"""tcc's Hopper GEMM (wgmma fed by TMA, warp-specialized, persistent) on an
H100/H200: correctness against float64 on fresh random inputs with poisoned
outputs, and TFLOP/s next to cuBLAS (torch.matmul / F.linear), an autotuned
Triton matmul (the configs of issue 9 and more, grouped ordering, reading the
operands in the same memory layout) and, for the fused epilogue,
torch.compile, all in one run.

    # here (CPU, MLIR): compile the cases into DIR
    PYTHONPATH=build/dev/python_packages python benchmarks/hopper_gemm.py build DIR \\
        [--quick | --small] [--only=NAME,NAME] [--plan=PLAN]
    # on the GPU machine (tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/hopper_gemm.py run DIR OUT [--no-time]
    # Nsight Compute on one launch:
    ncu --clock-control none --section SpeedOfLight --section WarpStateStats \\
        python3 benchmarks/hopper_gemm.py once DIR NAME

Times are medians per call over CUDA-graph replays (10 calls a graph), for
every contender alike: they measure the GPU, not the host launch path. The
contenders of a shape are interleaved over ROUNDS rounds (each round in a
rotated order, so no contender always takes the shape's cold first slot);
a figure is the median over the rounds, and `<contender>_spread` in the JSON
is (max - min) / median of its rounds.

Layouts: "nn" (A [M, K], B [K, N]), "nt" (B stored [N, K]: nn.Linear's
x @ w.T) and "tn" (A stored [K, M]).
"""

from __future__ import annotations

import faulthandler
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from checks import check_against_float64  # benchmarks/ is the script's directory
from triton_matmul import triton_matmul

ROUNDS = 3  # interleaved timing rounds per shape

# (M, N, K, dtype, layout, batch, epilogue)
FULL = [
    *[(s, s, s, dt, lay, None, False) for s in (4096, 8192) for dt in ("f16", "bf16")
      for lay in ("nn", "nt", "tn")],
    # Blocks near the SM count (2 x 1 clusters) and few rows (64 x 128 blocks).
    (2048, 2048, 2048, "f16", "nn", None, False),
    (2048, 2048, 2048, "bf16", "nt", None, False),
    (256, 4096, 4096, "f16", "nt", None, False),
    *[(m, n, k, dt, lay, None, False)
      for (m, n, k) in ((1000, 1000, 1000), (4097, 4095, 4096), (3000, 1500, 776))
      for dt in ("f16", "bf16") for lay in ("nn", "nt", "tn")],
    # Rows TMA cannot box, copied by the producer: along N (NN), along K (NT).
    (4096, 4094, 4096, "f16", "nn", None, False),
    (4096, 4096, 1500, "bf16", "nt", None, False),
    (4096, 4096, 1500, "bf16", "nt", None, True),
    (1024, 1024, 1024, "f16", "nn", 16, False),
    (1024, 1024, 1024, "bf16", "nt", 16, False),
    (4096, 4096, 1024, "bf16", "nn", None, True),
    (4096, 4096, 1024, "bf16", "nt", None, True),
    # Few output tiles over a long K (split-K's shapes).
    (256, 256, 65536, "f16", "nt", None, False),
    (512, 512, 16384, "bf16", "nn", None, False),
    (512, 512, 4096, "f16", "nt", None, False),
    (64, 1024, 16384, "bf16", "nt", None, False),
]
QUICK = [
    (256, 512, 256, "f16", "nn", None, False),
    (256, 512, 256, "f16", "nt", None, False),
    (256, 512, 256, "f16", "tn", None, False),
    (300, 200, 136, "bf16", "nn", None, False),
    (256, 256, 128, "bf16", "nt", 2, True),
    (4096, 4096, 4096, "f16", "nn", None, False),
]
# --small: every FULL case's layout, dtype, batch and epilogue at a size
# racecheck finishes. A size keeps its row bytes' residue mod 16 (whether an
# operand's rows can be TMA boxes, which picks the kernel's path) and its
# oddness: 1500 -> 204 (rows of 3000 and 408 bytes: not 16-byte multiples).
SMALL_SIZE = {4096: 256, 8192: 512, 1000: 200, 4097: 257, 4095: 255, 4094: 254, 3000: 304,
              1500: 204,
              776: 136, 1024: 256, 2048: 256, 256: 128, 512: 128, 16384: 512, 65536: 1024,
              64: 64}
SMALL = sorted({(SMALL_SIZE[m], SMALL_SIZE[n], SMALL_SIZE[k], dt, lay, batch, epi)
                for m, n, k, dt, lay, batch, epi in FULL}, key=str)
TOLERANCE = {"f16": 2e-3, "bf16": 1e-2}
TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16"}


def _name(case: tuple[Any, ...]) -> str:
    m, n, k, dtype, layout, batch, epilogue = case
    lead = f"{batch}x" if batch else ""
    return f"{'bias_gelu_' if epilogue else ''}{layout}_{dtype}_{lead}{m}x{n}x{k}"


def build(directory: Path, quick: bool, only: list[str] | None = None,
          small: bool = False, plan: str | None = None) -> None:
    """``plan``: a #tile.lowering_config every GEMM kernel takes instead of
    the heuristics' (e.g. consumers = pingpong)."""
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.examples.programs import gemm_program

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for case in SMALL if small else QUICK if quick else FULL:
        if only and _name(case) not in only:
            continue
        m, n, k, dtype, layout, batch, epilogue = case
        start = time.perf_counter()
        kernel = tcc_compile(gemm_program(m, n, k, dtype, bias_gelu=epilogue, batch=batch,
                                          layout=layout), "sm_90", cache=False,
                              plans={"gemm": plan} if plan else None)
        # Operand rows whose byte stride is no multiple of 16 cannot be TMA
        # boxes: the producer copies those through registers (recorded).
        asm = "\n".join(kk.asm for kk in kernel.kernels)
        path = "wgmma" if "wgmma.mma_async" in asm else "mma.sync"
        if "tile.box_copy" in kernel.ir.get("tile", ""):
            path += "+copies"
        kernel.artifact.save(directory / f"{_name(case)}.tcck")
        manifest.append({"name": _name(case), "case": list(case), "path": path,
                         "kernels": len(kernel.kernels),
                         "compile_s": time.perf_counter() - start})
        print(f"built {_name(case)} ({path}, {len(kernel.kernels)} kernel(s)) in "
              f"{manifest[-1]['compile_s']:.1f} s", flush=True)
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def _bench(fn: Any, replays: int = 30, per_graph: int = 10) -> float:
    """Median ms per call: ``per_graph`` calls captured in a CUDA graph (no
    host launch gaps, for every contender alike), its replays timed with CUDA
    events after warm-up; plain back-to-back calls if capture fails."""
    import torch

    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    try:
        with torch.cuda.stream(stream):
            fn()  # capture needs a warm-up on the capturing stream
            stream.synchronize()
            with torch.cuda.graph(graph, stream=stream):
                for _ in range(per_graph):
                    fn()
        run_once = graph.replay
    except Exception:  # noqa: BLE001 (a contender that cannot be captured)
        torch.cuda.synchronize()

        def run_once() -> None:
            for _ in range(per_graph):
                fn()
    for _ in range(3):
        run_once()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run_once()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / per_graph)
    return statistics.median(times)


def once(directory: Path, name: str) -> None:
    """One launch of one artifact on random inputs (for ncu)."""
    import torch

    from tcc.runtime import load

    entry = next(e for e in json.loads((directory / "manifest.json").read_text())
                 if e["name"] == name)
    m, n, k, dtype_name, layout, batch, epilogue = entry["case"]
    lead = (batch,) if batch else ()
    dtype = getattr(torch, TORCH_DTYPES[dtype_name])
    a = torch.randn((*lead, k, m) if layout == "tn" else (*lead, m, k), device="cuda").to(dtype)
    b = torch.randn((*lead, n, k) if layout == "nt" else (*lead, k, n), device="cuda").to(dtype)
    args = [a, b] + ([torch.randn((n,), device="cuda")] if epilogue else [])
    kernel = load(directory / f"{name}.tcck")
    kernel(*args)
    torch.cuda.synchronize()


def run(directory: Path, out: Path, timed: bool) -> int:
    import torch
    import torch.nn.functional as F  # noqa: N812

    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator(device="cuda").manual_seed(int(time.time()))
    triton_mm = triton_matmul() if timed else None
    rows, failures = [], 0
    for entry in json.loads((directory / "manifest.json").read_text()):
        m, n, k, dtype_name, layout, batch, epilogue = entry["case"]
        # A hung kernel (a lost mbarrier phase) must not eat the device time.
        faulthandler.dump_traceback_later(120, exit=True)
        lead = (batch,) if batch else ()
        dtype = getattr(torch, TORCH_DTYPES[dtype_name])
        a = torch.randn((*lead, m, k), generator=gen, device="cuda").to(dtype)
        b = torch.randn((*lead, k, n), generator=gen, device="cuda").to(dtype)
        # The stored operands (what the kernel reads) and their logical views.
        sa = a.transpose(-1, -2).contiguous() if layout == "tn" else a
        sb = b.transpose(-1, -2).contiguous() if layout == "nt" else b
        args = [sa, sb]
        ref = a.double() @ b.double()
        bias = None
        if epilogue:
            bias = torch.randn((n,), generator=gen, device="cuda")
            args.append(bias)
            ref = F.gelu(ref + bias.double(), approximate="tanh")
        kernel = load(directory / f"{entry['name']}.tcck")
        result = torch.full((*lead, m, n), float("nan"), device="cuda", dtype=dtype)
        kernel(*args, out=result)
        unwritten, rel = check_against_float64(result, ref)
        ok = unwritten == 0 and rel <= TOLERANCE[dtype_name]
        failures += not ok
        row: dict[str, Any] = {"name": entry["name"], "path": entry["path"], "rel_err": rel,
                               "unwritten": unwritten, "ok": ok}
        if timed:
            flops = 2.0 * m * n * k * (batch or 1)
            la = sa.transpose(-1, -2) if layout == "tn" else sa
            lb = sb.transpose(-1, -2) if layout == "nt" else sb
            fns: dict[str, Any] = {"tcc": lambda k_=kernel, a_=args, o=result: k_(*a_, out=o)}
            if epilogue:
                def eager(x: Any = la, y: Any = lb, z: Any = bias) -> Any:
                    return F.gelu(torch.matmul(x, y).float() + z,
                                  approximate="tanh").to(x.dtype)
                fns["eager"] = eager
                fns["torch.compile"] = torch.compile(eager)
            elif layout == "nt" and not lead:
                fns["cuBLAS"] = lambda x=la, w=sb: F.linear(x, w)
            else:
                fns["cuBLAS"] = lambda x=la, y=lb: torch.matmul(x, y)
            if not lead and not epilogue:
                fns["triton"] = lambda x=la, y=lb: triton_mm(x, y)  # type: ignore[misc]
            # Contenders interleaved over rounds, each round in a rotated
            # order (the first timing on a shape reads low: clocks and L2
            # settle), the median over the rounds.
            labels = list(fns)
            samples: dict[str, list[float]] = {label: [] for label in labels}
            for r in range(ROUNDS):
                shift = r % len(labels)
                for label in labels[shift:] + labels[:shift]:
                    samples[label].append(_bench(fns[label], replays=10))
            for label in labels:
                row[label] = flops / (statistics.median(samples[label]) * 1e-3) / 1e12
                row[f"{label}_spread"] = (max(samples[label]) - min(samples[label])) / \
                    statistics.median(samples[label])
        faulthandler.cancel_dump_traceback_later()
        rows.append(row)
        rates = " ".join(f"{lab} {row[lab]:.0f}" for lab in row
                         if lab not in ("name", "path", "rel_err", "unwritten", "ok")
                         and not lab.endswith("_spread"))
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']:34s} rel.err {rel:.1e} unwritten "
              f"{unwritten} {rates}", flush=True)
    (out / "hopper_gemm.json").write_text(json.dumps(rows, indent=1))
    if timed:
        lines = ["| GEMM | path | rel. err | tcc TFLOP/s | cuBLAS | Triton (autotuned) | "
                 "torch.compile | tcc / cuBLAS | tcc / Triton | tcc / compile |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        nan = float("nan")
        for r in rows:
            peer = r.get("cuBLAS", r.get("eager", nan))
            lines.append(
                f"| {r['name']} | {r['path']} | {r['rel_err']:.1e} | {r['tcc']:.0f} | {peer:.0f} | "
                f"{r.get('triton', nan):.0f} | {r.get('torch.compile', nan):.0f} | "
                f"{r['tcc'] / peer:.2f} | {r['tcc'] / r.get('triton', nan):.2f} | "
                f"{r['tcc'] / r.get('torch.compile', nan):.2f} |")
        report = "\n".join(lines)
        (out / "hopper_gemm.md").write_text(report + "\n")
        print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb == "build" and len(sys.argv) >= 3:
        only = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")),
                    None)
        plan = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--plan=")), None)
        build(Path(sys.argv[2]), "--quick" in sys.argv, only, "--small" in sys.argv, plan)
    elif verb == "once" and len(sys.argv) == 4:
        once(Path(sys.argv[2]), sys.argv[3])
    elif verb == "run" and len(sys.argv) >= 4:
        sys.exit(run(Path(sys.argv[2]), Path(sys.argv[3]), "--no-time" not in sys.argv))
    else:
        print(__doc__)
        sys.exit(2)
