"""Whole programs on a GPU: correctness against float64 and GB/s or TFLOP/s
next to torch eager and torch.compile, in one run.

Two halves, because the GPU machine has no MLIR:

    # here (CPU, MLIR): compile every program into DIR (artifacts + manifest)
    PYTHONPATH=build/dev/python_packages python benchmarks/programs.py build DIR [NAME ...]
    # on the GPU machine (tcc.runtime, torch):
    PYTHONPATH=python python3 benchmarks/programs.py run DIR OUT [--profile | --check-only]
        [--baseline=DIR0] [--compile-mode=MODE]

`run` checks each program on fresh random inputs against a float64 torch
reference with NaN-poisoned outputs, then times it with CUDA events (median
after warm-up) beside torch eager and torch.compile on the same inputs, and
prints a table: time, GB/s (the fewest bytes the program must move: each
input read once, each output written once) or TFLOP/s, and the ratios.
With `--baseline=DIR0` (artifacts of the same programs from another compiler
build, e.g. the commit before a change) each program's baseline artifact is
checked and timed on the same inputs too, and the table gains its rate and
the ratio new / baseline. `--compile-mode=MODE` passes torch.compile a mode
(e.g. max-autotune-no-cudagraphs: Inductor autotunes its Triton GEMM
templates against cuBLAS); each program is compiled afresh (dynamo reset), so
one program's shapes never make another's compile dynamic. With matplotlib
installed, `run` also writes OUT/programs.png (benchmarks/plot_results.py:
each program's floor / time).
"""

# (no `from __future__ import annotations`: the frontend programs below are
# defined in a function and their annotations must evaluate there)

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

F = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # the program (frontend builder below) and its torch twin
    sizes: tuple[tuple[str, int], ...]
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    tol: float
    flops: float = 0.0  # > 0: a compute-bound program, reported in TFLOP/s
    scale: float = 1.0  # inputs are randn * scale


def _programs() -> dict[str, object]:
    """The programs, written as a PyTorch user writes them (tcc.frontend)."""
    import tcc.frontend as tf
    from tcc.frontend import Tensor, bf16, f16, f32, program, syms

    M, N, K, B, S, D, H = syms("M N K B S D H")

    @program
    def layer_norm(x: Tensor[M, N, f16], w: Tensor[N, f16], b: Tensor[N, f16]):
        xf = x.float()
        mu = xf.mean(-1, keepdim=True)
        var = xf.var(-1, unbiased=False, keepdim=True)
        return ((xf - mu) * (var + 1e-5).rsqrt() * w.float() + b.float()).to(f16)

    @program
    def rms_norm(x: Tensor[M, N, bf16], w: Tensor[N, bf16]):
        xf = x.float()
        return (xf * (xf.pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt()).to(bf16) * w

    @program
    def log_softmax(x: Tensor[M, N, f32]):
        return x.log_softmax(-1)

    @program
    def softmax_f16(x: Tensor[M, N, f16]):
        return x.softmax(-1)

    @program
    def softmax_f32(x: Tensor[M, N, f32]):
        return x.softmax(-1)

    @program
    def column_sum(x: Tensor[M, N, f32]):
        return x.sum(0)

    @program
    def full_sum(x: Tensor[N, f32]):
        return x.sum()

    @program
    def transpose(x: Tensor[M, N, f32]):
        return x.T

    @program
    def mean_mid(x: Tensor[B, M, N, f32]):
        return x.mean(1)

    @program
    def bias_relu(x: Tensor[B, M, N, f32], b: Tensor[N, f32]):
        return (x + b).relu()

    @program
    def bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32]):
        return tf.gelu(x + b)

    @program
    def linear(x: Tensor[M, K, f16], w: Tensor[N, K, f16], b: Tensor[N, f16]):
        return x @ w.T + b

    @program
    def linear_view(x: Tensor[B, S, K, f16], w: Tensor[N, K, f16], b: Tensor[N, f16]):
        # nn.Linear on a (batch, sequence, features) activation.
        return (x.view(B * S, K) @ w.T + b).view(B, S, N)

    @program
    def swiglu(x: Tensor[M, K, bf16], w1: Tensor[N, K, bf16], w3: Tensor[N, K, bf16],
               w2: Tensor[K, N, bf16]):
        return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T

    @program
    def gemm_softmax(a: Tensor[M, K, f16], b: Tensor[K, N, f16]):
        return (a @ b).softmax(-1)

    @program
    def layer_norm_pos(x: Tensor[B, S, D, f16], pos: Tensor[S, D, f16], w: Tensor[D, f16],
                       b: Tensor[D, f16]):
        h = x.float() + pos.float()
        mu = h.mean(-1, keepdim=True)
        var = h.var(-1, unbiased=False, keepdim=True)
        return ((h - mu) * (var + 1e-5).rsqrt() * w.float() + b.float()).to(f16)

    @program
    def masked_softmax(x: Tensor[M, N, f16], m: Tensor[M, N, f16]):
        return (x * 0.125 + m).softmax(-1)

    @program
    def column_sum_bcast(x: Tensor[B, M, N, f32], y: Tensor[M, 1, f32]):
        return (x + y).sum(0)

    @program
    def attention(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16]):
        return ((q @ k.transpose(-1, -2)) * 0.125).softmax(-1) @ v

    return dict(locals())


def _torch(kind: str) -> Callable:
    """The same program in torch: eager, torch.compile'd, and (on float64
    inputs) the reference."""
    import torch
    import torch.nn.functional as tnf

    return {
        "layer_norm": lambda x, w, b: tnf.layer_norm(x, x.shape[-1:], w, b, 1e-5),
        "rms_norm": lambda x, w: (x.float() * torch.rsqrt(
            x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w,
        "log_softmax": lambda x: torch.log_softmax(x, -1),
        "softmax_f16": lambda x: torch.softmax(x, -1),
        "softmax_f32": lambda x: torch.softmax(x, -1),
        "column_sum": lambda x: x.sum(0),
        "full_sum": lambda x: x.sum(),
        "transpose": lambda x: x.t().contiguous(),
        "mean_mid": lambda x: x.mean(1),
        "bias_relu": lambda x, b: torch.relu(x + b),
        "bias_gelu": lambda x, b: tnf.gelu(x + b),
        "linear": lambda x, w, b: tnf.linear(x, w, b),
        "linear_view": lambda x, w, b: tnf.linear(x, w, b),
        "swiglu": lambda x, w1, w3, w2: (tnf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T,
        "gemm_softmax": lambda a, b: (a @ b).softmax(-1),
        "attention": lambda q, k, v: ((q @ k.transpose(-1, -2)) * 0.125).softmax(-1) @ v,
        "layer_norm_pos": lambda x, pos, w, b: tnf.layer_norm(
            x.float() + pos.float(), x.shape[-1:], w.float(), b.float(), 1e-5).to(x.dtype),
        "masked_softmax": lambda x, m: (x * 0.125 + m).softmax(-1),
        "column_sum_bcast": lambda x, y: (x + y).sum(0),
    }[kind]


def _case(kind: str, tol: float, flops: float = 0.0, scale: float = 1.0,
          **sizes: int) -> Case:
    shapes = {
        "layer_norm": lambda s: (((s["M"], s["N"]), "f16"), ((s["N"],), "f16"),
                                 ((s["N"],), "f16")),
        "rms_norm": lambda s: (((s["M"], s["N"]), "bf16"), ((s["N"],), "bf16")),
        "log_softmax": lambda s: (((s["M"], s["N"]), "f32"),),
        "softmax_f16": lambda s: (((s["M"], s["N"]), "f16"),),
        "softmax_f32": lambda s: (((s["M"], s["N"]), "f32"),),
        "column_sum": lambda s: (((s["M"], s["N"]), "f32"),),
        "full_sum": lambda s: (((s["N"],), "f32"),),
        "transpose": lambda s: (((s["M"], s["N"]), "f32"),),
        "mean_mid": lambda s: (((s["B"], s["M"], s["N"]), "f32"),),
        "bias_relu": lambda s: (((s["B"], s["M"], s["N"]), "f32"), ((s["N"],), "f32")),
        "bias_gelu": lambda s: (((s["M"], s["N"]), "f32"), ((s["N"],), "f32")),
        "linear": lambda s: (((s["M"], s["K"]), "f16"), ((s["N"], s["K"]), "f16"),
                             ((s["N"],), "f16")),
        "linear_view": lambda s: (((s["B"], s["S"], s["K"]), "f16"), ((s["N"], s["K"]), "f16"),
                                  ((s["N"],), "f16")),
        "swiglu": lambda s: (((s["M"], s["K"]), "bf16"), ((s["N"], s["K"]), "bf16"),
                             ((s["N"], s["K"]), "bf16"), ((s["K"], s["N"]), "bf16")),
        "gemm_softmax": lambda s: (((s["M"], s["K"]), "f16"), ((s["K"], s["N"]), "f16")),
        "attention": lambda s: tuple(((s["B"], s["S"], s["D"]), "f16") for _ in range(3)),
        "layer_norm_pos": lambda s: (((s["B"], s["S"], s["D"]), "f16"), ((s["S"], s["D"]), "f16"),
                                     ((s["D"],), "f16"), ((s["D"],), "f16")),
        "masked_softmax": lambda s: (((s["M"], s["N"]), "f16"), ((s["M"], s["N"]), "f16")),
        "column_sum_bcast": lambda s: (((s["B"], s["M"], s["N"]), "f32"), ((s["M"], 1), "f32")),
    }[kind](sizes)
    label = "x".join(str(v) for v in sizes.values())
    return Case(f"{kind}_{label}", kind, tuple(sizes.items()), shapes, tol, flops, scale)


def _gemm(m: int, n: int, k: int) -> float:
    return 2.0 * m * n * k


CASES: dict[str, Case] = {
    c.name: c
    for c in (
        _case("layer_norm", 2e-3, M=16384, N=4096),
        _case("layer_norm", 2e-3, M=1024, N=1024),
        _case("rms_norm", 1e-2, M=16384, N=4096),
        _case("rms_norm", 1e-2, M=1024, N=1024),
        _case("log_softmax", 1e-5, M=16384, N=4096),
        _case("log_softmax", 1e-5, M=1024, N=1000),
        _case("softmax_f32", 1e-5, M=4096, N=1000),
        _case("softmax_f16", 2e-3, M=4096, N=50257),
        _case("softmax_f16", 2e-3, M=64, N=50257),
        _case("column_sum", 1e-5, M=16384, N=16384),
        _case("column_sum", 1e-5, M=1024, N=1024),
        _case("full_sum", 1e-5, N=1 << 28),
        _case("full_sum", 1e-5, N=1 << 20),
        _case("transpose", 0.0, M=16384, N=16384),
        _case("transpose", 0.0, M=1024, N=1024),
        _case("mean_mid", 1e-5, B=64, M=4096, N=1024),
        _case("mean_mid", 1e-5, B=8, M=256, N=256),
        _case("bias_relu", 1e-6, B=32, M=2048, N=2048),
        _case("bias_relu", 1e-6, B=4, M=256, N=256),
        # An odd last dim with a row bias: one flat stream, the bias gathered.
        _case("bias_gelu", 1e-5, M=8192, N=7777),
        _case("bias_gelu", 1e-5, M=1000, N=777),
        # An even last dim: 2-D rows with the bias broadcast along them.
        _case("bias_gelu", 1e-5, M=16384, N=8192),
        _case("linear", 5e-3, flops=_gemm(4096, 4096, 4096), M=4096, K=4096, N=4096),
        # nn.Linear on (batch, sequence, features): a view of x into the GEMM.
        _case("linear_view", 5e-3, flops=_gemm(4096, 4096, 4096), B=8, S=512, K=4096, N=4096),
        _case("swiglu", 2e-2, flops=3 * _gemm(4096, 4096, 1024), scale=0.1, M=4096, K=1024,
              N=4096),
        _case("gemm_softmax", 5e-3, flops=_gemm(4096, 4096, 1024), M=4096, K=1024, N=4096),
        _case("attention", 5e-3, flops=4.0 * 32 * 1024 * 1024 * 64, B=32, S=1024, D=64),
        # The same kernels at small sizes (fast enough for compute-sanitizer's
        # racecheck, which took 9 minutes for one 4096^3 GEMM).
        _case("linear", 5e-3, flops=_gemm(256, 256, 256), M=256, K=256, N=256),
        _case("swiglu", 2e-2, flops=3 * _gemm(256, 512, 128), scale=0.1, M=256, K=128, N=512),
        _case("gemm_softmax", 5e-3, flops=_gemm(256, 512, 128), M=256, K=128, N=512),
        _case("attention", 5e-3, flops=4.0 * 4 * 256 * 256 * 64, B=4, S=256, D=64),
        # Broadcasts inside reductions (a positional table, a scalar-free mask
        # and scale on a softmax, a per-row bias in a column sum).
        _case("layer_norm_pos", 2e-3, B=32, S=2048, D=1024),
        _case("layer_norm_pos", 2e-3, B=4, S=256, D=1024),
        _case("masked_softmax", 2e-3, M=16384, N=4096),
        _case("masked_softmax", 2e-3, M=1024, N=1024),
        _case("column_sum_bcast", 1e-5, B=64, M=2048, N=1024),
        _case("column_sum_bcast", 1e-5, B=8, M=256, N=256),
    )
}


# ------------------------------------------------------------- CPU side --
def build(directory: Path, names: list[str]) -> None:
    from tcc.compiler.compile import compile as tcc_compile

    directory.mkdir(parents=True, exist_ok=True)
    programs = _programs()
    manifest = []
    for name in names or list(CASES):
        case = CASES[name]
        start = time.perf_counter()
        program = tcc_compile(programs[case.kind], "sm_90", cache=False, **dict(case.sizes))
        seconds = time.perf_counter() - start
        program.artifact.save(directory / f"{name}.tccprog")
        kernels = [{"name": k.name, "grid": list(k.launch.grid), "block": list(k.launch.block)}
                   for k in program.kernels]
        manifest.append({"name": name, "compile_s": seconds, "kernels": kernels})
        print(f"built {name:36s} {seconds * 1e3:7.0f} ms  "
              + "  ".join(f"{k['name']} grid={k['grid'][0]} block={k['block'][0]}"
                          for k in kernels), flush=True)
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


# ------------------------------------------------------------- GPU side --
def _kernel_times(call: Callable[[], object], iters: int = 20) -> list[tuple[str, float]]:
    """Each GPU kernel ``call`` runs, with its mean time in us (torch.profiler,
    which sees tcc's driver-API launches too), in launch order."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            call()
        torch.cuda.synchronize()
    totals: dict[str, list[float]] = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals.setdefault(event.name, []).append(event.time_range.elapsed_us())
    return [(name[:60], sum(t) / iters) for name, t in totals.items()]


def check(program: object, fn: Callable, inputs: list,
          ref: object = None) -> tuple[float, object]:
    """Run ``program`` on ``inputs`` into a NaN-poisoned output and return
    its relative error against ``fn`` on float64 inputs (NaN when any
    output element was left unwritten), and the output. ``ref``: that
    float64 result when already computed."""
    import torch

    spec = program.artifact.outputs[0]  # type: ignore[attr-defined]
    if ref is None:
        ref = fn(*[x.double() for x in inputs]).double()
    # Shaped like the reference: a dynamic program's output spec has symbols.
    poisoned = torch.full(tuple(ref.shape), float("nan"), device="cuda",  # type: ignore[attr-defined]
                          dtype=getattr(torch, F[spec.dtype]))
    program(*inputs, out=poisoned)  # type: ignore[operator]
    torch.cuda.synchronize()
    got = poisoned.double()
    if got.isnan().any():
        return float("nan"), poisoned
    return float((got - ref).norm() / ref.norm().clamp_min(1e-30)), poisoned


def bench(call: Callable[[], object]) -> float:
    """Median ms of ``call`` (CUDA events after warm-up: triton's do_bench)."""
    import triton.testing

    return triton.testing.do_bench(call, warmup=50, rep=300, return_mode="median")


def run(directory: Path, out: Path, profile_kernels: bool = False,
        check_only: bool = False, baseline: Path | None = None,
        compile_mode: str | None = None) -> int:
    import torch

    import tcc.runtime

    torch.manual_seed(0)
    manifest = json.loads((directory / "manifest.json").read_text())
    rows = []
    for entry in manifest:
        name = entry["name"]
        case = CASES[name]
        program = tcc.runtime.load(str(directory / f"{name}.tccprog"))
        fn = _torch(case.kind)
        inputs = [(torch.randn(shape, device="cuda") * case.scale).to(getattr(torch, F[dt]))
                  for shape, dt in case.inputs]
        before = baseline / f"{name}.tccprog" if baseline else None
        compare = before is not None and before.exists()
        ref = fn(*[x.double() for x in inputs]).double() if compare else None
        err, poisoned = check(program, fn, inputs, ref)
        ok = err <= max(case.tol, 1e-12)
        if check_only:  # correctness only (e.g. under compute-sanitizer)
            print(f"{'ok  ' if ok else 'FAIL'} {name:34s} err={err:.1e}", flush=True)
            rows.append({"name": name, "ok": ok, "rel_err": err})
            del inputs, poisoned, ref
            torch.cuda.empty_cache()  # several suites share the GPU under sanitize.py
            continue
        out_buf = torch.empty_like(poisoned)
        torch._dynamo.reset()
        compiled = torch.compile(fn, mode=compile_mode)
        compiled(*inputs)
        args = tuple(inputs)
        times = {
            "tcc": bench(lambda p=program, a=args, o=out_buf: p(*a, out=o)),
            "eager": bench(lambda f=fn, a=args: f(*a)),
            "compile": bench(lambda f=compiled, a=args: f(*a)),
        }
        if compare:
            old = tcc.runtime.load(str(before))
            old_err, _ = check(old, fn, inputs, ref)
            if not old_err <= max(case.tol, 1e-12):
                print(f"{name}: the baseline artifact is wrong (err={old_err:.1e})")
            times["baseline"] = bench(lambda p=old, a=args, o=out_buf: p(*a, out=o))
        nbytes = sum(x.numel() * x.element_size() for x in inputs) + poisoned.numel() * \
            poisoned.element_size()
        if case.flops:
            rate = {k: case.flops / (v * 1e-3) / 1e12 for k, v in times.items()}
            unit = "TFLOP/s"
        else:
            rate = {k: nbytes / (v * 1e-3) / 1e9 for k, v in times.items()}
            unit = "GB/s"
        rows.append({"name": name, "ok": ok, "rel_err": err, "ms": times, "rate": rate,
                     "unit": unit, "bytes": nbytes, "kernels": len(entry["kernels"])})
        if profile_kernels:
            for who, call in (("tcc", lambda p=program, a=args, o=out_buf: p(*a, out=o)),
                              ("compile", lambda f=compiled, a=args: f(*a))):
                rows[-1][f"kernels_{who}"] = _kernel_times(call)
                for kname, us in rows[-1][f"kernels_{who}"]:
                    print(f"    {who:8s} {us:9.1f} us  {kname}", flush=True)
        vs_before = (f" baseline {rate['baseline']:7.0f} vs baseline "
                     f"{rate['tcc'] / rate['baseline']:.3f}" if "baseline" in rate else "")
        print(f"{name:34s} {'ok ' if ok else 'BAD'} err={err:.1e} k={len(entry['kernels'])} "
              f"tcc {rate['tcc']:7.0f} eager {rate['eager']:7.0f} compile {rate['compile']:7.0f} "
              f"{unit}  vs eager {rate['tcc'] / rate['eager']:.2f} vs compile "
              f"{rate['tcc'] / rate['compile']:.2f}{vs_before}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "programs.json").write_text(json.dumps(rows, indent=1))
    if check_only:
        print(f"{sum(r['ok'] for r in rows)}/{len(rows)} programs correct")
        return 0 if all(r["ok"] for r in rows) else 1
    with_baseline = any("baseline" in r["rate"] for r in rows)
    extra = (" baseline | tcc/baseline |", "---|---|") if with_baseline else ("", "")
    lines = ["| program | kernels | correct (rel err) | tcc | torch eager | torch.compile | "
             "unit | tcc/eager | tcc/compile |" + extra[0],
             "|---|---|---|---|---|---|---|---|---|" + extra[1]]
    for r in rows:
        tail = ""
        if with_baseline:
            b = r["rate"].get("baseline")
            tail = f" {b:.0f} | {r['rate']['tcc'] / b:.3f} |" if b else " | |"
        lines.append(
            f"| {r['name']} | {r['kernels']} | {'yes' if r['ok'] else 'NO'} ({r['rel_err']:.1e}) "
            f"| {r['rate']['tcc']:.0f} | {r['rate']['eager']:.0f} | {r['rate']['compile']:.0f} "
            f"| {r['unit']} | {r['rate']['tcc'] / r['rate']['eager']:.2f} "
            f"| {r['rate']['tcc'] / r['rate']['compile']:.2f} |" + tail)
    (out / "programs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        from plot_results import plot_programs  # beside this script

        print(f"plot: {plot_programs(rows, out / 'programs.png')}")
    except ImportError:
        print("(no plot: matplotlib is not installed; pip install matplotlib, or the test extra)")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        flags = sys.argv[4:]
        base = [f.split("=", 1)[1] for f in flags if f.startswith("--baseline=")]
        mode = [f.split("=", 1)[1] for f in flags if f.startswith("--compile-mode=")]
        unknown = [f for f in flags if f not in ("--profile", "--check-only")
                   and not f.startswith(("--baseline=", "--compile-mode="))]
        if unknown:
            sys.exit(f"unknown option(s) {unknown}\n{__doc__}")
        sys.exit(run(Path(sys.argv[2]), Path(sys.argv[3]), "--profile" in flags,
                     "--check-only" in flags, Path(base[0]) if base else None,
                     mode[0] if mode else None))
    else:
        sys.exit(__doc__)
