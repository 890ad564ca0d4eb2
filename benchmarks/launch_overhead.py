"""Host cost of one launch: tcc's fast path, its general path and CUDA-graph
replay, next to torch.add and a Triton JIT kernel, in one run on a GPU.

Each program is tiny (a few microseconds of GPU work), so a loop of
back-to-back calls is bound by the host: the wall time of the loop divided by
the calls is what a caller pays per call. Every callable is first checked
against torch on the same inputs. The contenders are timed interleaved: ROUNDS
rounds, each timing every contender once in a rotated order, and each row is
the median over the rounds (the hosts are shared and drift).

tcc's calls run through the C dispatcher (tcc.runtime._fastcall) where it is
built; the "Python plan" rows are the same programs loaded with
TCC_NATIVE_LAUNCH=0. In a source tree (PYTHONPATH=python on the GPU machine)
``run`` compiles the extension for that machine's python3 first.

    # here (CPU, MLIR): compile the programs into DIR
    PYTHONPATH=build/dev/python_packages python benchmarks/launch_overhead.py build DIR
    # on the GPU machine (tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/launch_overhead.py run DIR [OUT] [--check-only]
"""

# (no `from __future__ import annotations`: the frontend programs below are
# defined in a function and their annotations must evaluate there)

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

N = 4096  # elements of the vector add
ROWS, COLS = 256, 1024  # the LayerNorm (one kernel) and the column sum (two)
GM, GN, GK = 2048, 1024, 512  # a small f16 GEMM (wgmma, two TMA tensor maps)
PROGRAMS = ("vadd", "layer_norm", "column_sum", "gemm")
CALLS = 3000
ROUNDS = 7


def build(directory: Path) -> None:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.frontend import Tensor, f32, program

    @program
    def vadd(x: Tensor[N, f32], y: Tensor[N, f32]):
        return x + y

    @program
    def layer_norm(x: Tensor[ROWS, COLS, f32], w: Tensor[COLS, f32], b: Tensor[COLS, f32]):
        mu = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=False, keepdim=True)
        return (x - mu) * (var + 1e-5).rsqrt() * w + b

    @program
    def column_sum(x: Tensor[ROWS * 64, 64, f32]):
        return x.sum(0)

    from tcc.examples.programs import gemm_program

    directory.mkdir(parents=True, exist_ok=True)
    for name, prog in (("vadd", vadd), ("layer_norm", layer_norm), ("column_sum", column_sum),
                       ("gemm", gemm_program(GM, GN, GK, "f16"))):
        compiled = tcc_compile(prog, "sm_90", cache=False)
        compiled.artifact.save(directory / f"{name}.tccp")
        print(f"built {name}: {len(compiled.kernels)} kernel(s)")


def _host_us_once(fn: Callable[[], object], calls: int = CALLS) -> float:
    """The host time per call of ``calls`` back-to-back calls, after 100
    warm-up calls (the GPU synchronized before and after the loop)."""
    import torch

    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def _interleaved(contenders: list[tuple[str, int, Callable[[], object]]]
                 ) -> list[tuple[str, int, float, float]]:
    """(name, kernels, median host us per call, spread) per contender, timed
    in ROUNDS rotated rounds; the spread is (max - min) / median."""
    samples: dict[str, list[float]] = {name: [] for name, _, _ in contenders}
    for r in range(ROUNDS):
        order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
        for name, _, fn in order:
            samples[name].append(_host_us_once(fn))
    rows = []
    for name, kernels, _ in contenders:
        med = statistics.median(samples[name])
        rows.append((name, kernels, med, (max(samples[name]) - min(samples[name])) / med))
    return rows


def _ensure_native() -> str:
    """tcc.runtime._fastcall for this python: a pip install builds it with
    CMake; in a source tree it is compiled here with the C++ compiler.
    Returns how it was found."""
    from tcc.runtime import fastpath

    if fastpath._fastcall is not None:
        return "built with the package"
    import importlib
    import subprocess
    import sysconfig

    import tcc.runtime

    src = Path(__file__).resolve().parents[1] / "python" / "bindings" / "FastCall.cpp"
    dst = Path(tcc.runtime.__file__).parent / f"_fastcall{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run(["c++", "-O2", "-std=c++17", "-shared", "-fPIC",
                    f"-I{sysconfig.get_paths()['include']}", str(src), "-o", str(dst)],
                   check=True)
    fastpath._fastcall = importlib.import_module("tcc.runtime._fastcall")
    return f"compiled here ({dst.name})"


def _triton_add() -> Callable[..., object] | None:
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs,
                                                                               mask=mask),
                 mask=mask)

    def add(x, y, out):  # noqa: ANN001, ANN202
        n = x.numel()
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out

    return add


def _breakdown(vadd, x, y, out) -> list[tuple[str, float]]:  # noqa: ANN001
    """Where the host time of one fast-path call goes (each piece timed
    alone, many times)."""
    import timeit

    from tcc.runtime.fastpath import signature

    kernel = vadd._kernels[0] if vadd._direct else vadd
    args = (x, y, out)
    plan = kernel._fast_launcher().plan(args, None)
    full = plan.bind(args, None)
    ptrs = plan.pointers(full, True)
    stream = plan.stream(None)
    step = plan.steps[0]
    device = plan.device
    fn = int(step.function)
    raw = device.raw_launcher()
    ctypes_launch = device._ctypes_launch
    if ctypes_launch is None:
        from tcc.runtime.cuda import _ctypes_entry_points

        ctypes_launch = _ctypes_entry_points()[0]
    drv = device._drv
    pieces: dict[str, Callable[[], object]] = {
        "x.data_ptr()": x.data_ptr,
        "x.is_contiguous()": x.is_contiguous,
        "x.get_device()": x.get_device,
        "x.shape": lambda: x.shape,
        "x.dtype": lambda: x.dtype,
        "signature((x, y, out))": lambda: signature(args),
        "plan.bind": lambda: plan.bind(args, None),
        "plan.pointers (checks, overlaps)": lambda: plan.pointers(full, True),
        "plan.stream(None)": lambda: plan.stream(None),
        "plan.launch (fill + launch)": lambda: plan.launch(ptrs, full, stream),
        "tcc raw launcher alone": lambda: raw(step.function, *step.grid, *step.launch_block, 0,
                                              stream, step.address),
        "ctypes cuLaunchKernel alone": lambda: ctypes_launch(
            fn, *step.grid, *step.launch_block, 0, stream, step.address, None),
        "cuda-bindings cuLaunchKernel alone": lambda: drv.cuLaunchKernel(
            step.function, *step.grid, *step.launch_block, 0, stream, step.address, 0),
        "whole call vadd(x, y, out)": lambda: vadd(x, y, out),
    }
    import torch

    result = []
    for name, piece in pieces.items():
        # Launching pieces queue kernels: 500 at a time stays under the
        # driver's queue depth (so the host, not the GPU, is measured).
        n = 500 if ("aunch" in name or "call" in name) else 20000
        samples = []
        for _ in range(7):
            torch.cuda.synchronize()
            samples.append(timeit.timeit(piece, number=n) / n * 1e6)
        result.append((name, min(samples)))
    torch.cuda.synchronize()
    return result


def _load_python_plans(path: Path):  # noqa: ANN202
    """The program at ``path`` with every call's plan run in Python."""
    import os

    from tcc.runtime import load

    os.environ["TCC_NATIVE_LAUNCH"] = "0"
    try:
        return load(path)
    finally:
        del os.environ["TCC_NATIVE_LAUNCH"]


def run(directory: Path, out_dir: Path | None, check_only: bool = False) -> int:
    import torch

    native = _ensure_native()
    from tcc.runtime import load

    progs = {name: load(directory / f"{name}.tccp") for name in PROGRAMS}
    py = {name: _load_python_plans(directory / f"{name}.tccp") for name in PROGRAMS}
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty(N, device="cuda")
    xl = torch.randn(ROWS, COLS, device="cuda")
    wl, bl = torch.randn(COLS, device="cuda"), torch.randn(COLS, device="cuda")
    xc = torch.randn(ROWS * 64, 64, device="cuda")
    ga = torch.randn(GM, GK, device="cuda", dtype=torch.float16)
    gb = torch.randn(GK, GN, device="cuda", dtype=torch.float16)
    gref = (ga.double() @ gb.double()).float()

    def ln_ref():  # noqa: ANN202
        return torch.nn.functional.layer_norm(xl, (COLS,), wl, bl, 1e-5)

    # Correctness of every path first (C plan, Python plan, general, graph),
    # each on outputs poisoned with NaN where it writes into given ones.
    vadd, ln, cs, gemm = (progs[n] for n in PROGRAMS)
    general = vadd._kernels[0]._general if vadd._direct else vadd._general

    def poisoned(fn, *args):  # noqa: ANN001, ANN202
        o = torch.full_like(x, float("nan"))
        fn(*args, o)
        return o

    checks = {}
    for _ in range(3):  # the first call builds the plan, later ones run it
        checks["vadd C plan"] = (vadd(x, y), x + y)
        checks["vadd C plan, out="] = (poisoned(vadd, x, y), x + y)
        checks["vadd Python plan"] = (py["vadd"](x, y), x + y)
        checks["vadd Python plan, out="] = (poisoned(py["vadd"], x, y), x + y)
        checks["layer_norm C plan"] = (ln(xl, wl, bl), ln_ref())
        checks["layer_norm Python plan"] = (py["layer_norm"](xl, wl, bl), ln_ref())
        checks["column_sum C plan"] = (cs(xc), xc.sum(0))
        checks["column_sum Python plan"] = (py["column_sum"](xc), xc.sum(0))
        checks["gemm C plan"] = (gemm(ga, gb), gref)
        checks["gemm Python plan"] = (py["gemm"](ga, gb), gref)
    checks["vadd general"] = (general((x, y), None, None), x + y)
    graphs = {"vadd": vadd.capture(x, y), "layer_norm": ln.capture(xl, wl, bl),
              "column_sum": cs.capture(xc)}
    for name, g in graphs.items():
        got = g.replay()
        ref = {"vadd": x + y, "layer_norm": ln_ref(), "column_sum": xc.sum(0)}[name]
        checks[f"{name} graph"] = (got, ref)
    torch.cuda.synchronize()
    ok = {k: bool(torch.allclose(a.float(), b.float(), rtol=2e-3 if "gemm" in k else 1e-4,
                                 atol=5e-2 if "gemm" in k else 1e-4))
          for k, (a, b) in checks.items()}
    stats = {name: p._fast.native_stats() for name, p in progs.items()}
    ran_native = all(s is not None and s["hits"] > 0 for s in stats.values())
    ok["C dispatcher ran the calls"] = ran_native
    if check_only:  # e.g. under compute-sanitizer: no timing loops
        for k, good in ok.items():
            print(f"{'ok  ' if good else 'FAIL'} {k}")
        return 0 if all(ok.values()) else 1

    contenders: list[tuple[str, int, Callable[[], object]]] = [
        ("torch.add(x, y)", 1, lambda: torch.add(x, y)),
        ("torch.add(x, y, out=out)", 1, lambda: torch.add(x, y, out=out)),
    ]
    triton_add = _triton_add()
    if triton_add is not None:
        contenders.append(("triton add_kernel[grid](...)", 1, lambda: triton_add(x, y, out)))
    contenders += [
        ("tcc vadd(x, y)", 1, lambda: vadd(x, y)),
        ("tcc vadd(x, y, out)", 1, lambda: vadd(x, y, out)),
        ("tcc vadd(x, y), Python plan", 1, lambda: py["vadd"](x, y)),
        ("tcc vadd(x, y, out), Python plan", 1, lambda: py["vadd"](x, y, out)),
        ("tcc vadd general path", 1, lambda: general((x, y, out), None, None)),
        ("tcc vadd graph replay", 1, graphs["vadd"].replay),
    ]
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        torch.add(x, y, out=out)
    nl, nc = len(ln.artifact.steps), len(cs.artifact.steps)
    contenders += [
        ("torch CUDAGraph replay of torch.add", 1, g.replay),
        ("tcc layer_norm(x, w, b)", nl, lambda: ln(xl, wl, bl)),
        ("tcc layer_norm(x, w, b), Python plan", nl, lambda: py["layer_norm"](xl, wl, bl)),
        ("torch layer_norm eager", 1, ln_ref),
        ("tcc layer_norm graph replay", nl, graphs["layer_norm"].replay),
        ("tcc column_sum(x)", nc, lambda: cs(xc)),
        ("tcc column_sum(x), Python plan", nc, lambda: py["column_sum"](xc)),
        ("tcc column_sum graph replay", nc, graphs["column_sum"].replay),
        ("torch x.sum(0)", 1, lambda: xc.sum(0)),
        (f"tcc gemm {GM}x{GN}x{GK} f16", 1, lambda: gemm(ga, gb)),
        (f"tcc gemm {GM}x{GN}x{GK} f16, Python plan", 1, lambda: py["gemm"](ga, gb)),
        (f"torch.matmul {GM}x{GN}x{GK} f16", 1, lambda: torch.matmul(ga, gb)),
    ]
    rows = _interleaved(contenders)
    breakdown = _breakdown(py["vadd"], x, y, out)

    torch_add = rows[0][2]
    lines = [f"correct: {ok}", f"C dispatcher: {native}; its counts: {stats}", "",
             "| call | kernels | host us per call | us per kernel | vs torch.add | spread |",
             "|---|---|---|---|---|---|"]
    for name, kernels, us, spread in rows:
        lines.append(f"| {name} | {kernels} | {us:.2f} | {us / kernels:.2f} | "
                     f"{us / torch_add:.2f} | {spread:.0%} |")
    lines += ["", "| piece of a tcc vadd(x, y, out) call (Python plan) | us |", "|---|---|"]
    lines += [f"| {name} | {us:.2f} |" for name, us in breakdown]
    text = "\n".join(lines)
    print(text)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "launch_overhead.md").write_text(text + "\n")
        (out_dir / "launch_overhead.json").write_text(json.dumps(
            {"correct": ok, "native": native, "stats": stats, "rows": rows, "calls": CALLS,
             "rounds": ROUNDS}, indent=1))
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb == "build":
        build(Path(sys.argv[2]))
    elif verb == "run":
        rest = [a for a in sys.argv[3:] if a != "--check-only"]
        sys.exit(run(Path(sys.argv[2]), Path(rest[0]) if rest else None,
                     "--check-only" in sys.argv[3:]))
    else:
        print(__doc__)
