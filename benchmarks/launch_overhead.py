"""Host cost of one launch: tcc's fast path, its general path and CUDA-graph
replay, next to torch.add and a Triton JIT kernel, in one run on a GPU.

Each program is tiny (a few microseconds of GPU work), so a loop of
back-to-back calls is bound by the host: the wall time of the loop divided by
the calls is what a caller pays per call. Every callable is first checked
against torch on the same inputs.

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
CALLS = 3000
REPEATS = 5


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

    directory.mkdir(parents=True, exist_ok=True)
    for name, prog in (("vadd", vadd), ("layer_norm", layer_norm), ("column_sum", column_sum)):
        compiled = tcc_compile(prog, "sm_90", cache=False)
        compiled.artifact.save(directory / f"{name}.tccp")
        print(f"built {name}: {len(compiled.kernels)} kernel(s)")


def _host_us(fn: Callable[[], object], calls: int = CALLS) -> float:
    """Median over REPEATS of the host time per call of ``calls``
    back-to-back calls (the GPU synchronized before and after each loop)."""
    import torch

    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(samples)


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


def run(directory: Path, out_dir: Path | None, check_only: bool = False) -> int:
    import torch

    from tcc.runtime import load

    progs = {name: load(directory / f"{name}.tccp")
             for name in ("vadd", "layer_norm", "column_sum")}
    x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
    out = torch.empty(N, device="cuda")
    xl = torch.randn(ROWS, COLS, device="cuda")
    wl, bl = torch.randn(COLS, device="cuda"), torch.randn(COLS, device="cuda")
    xc = torch.randn(ROWS * 64, 64, device="cuda")

    def ln_ref():  # noqa: ANN202
        return torch.nn.functional.layer_norm(xl, (COLS,), wl, bl, 1e-5)

    # Correctness of every path first (fast, general, graph).
    vadd, ln, cs = progs["vadd"], progs["layer_norm"], progs["column_sum"]
    general = vadd._kernels[0]._general if vadd._direct else vadd._general
    checks = {
        "vadd fast": (vadd(x, y), x + y),
        "vadd general": (general((x, y), None, None), x + y),
        "layer_norm fast": (ln(xl, wl, bl), ln_ref()),
        "column_sum fast": (cs(xc), xc.sum(0)),
    }
    graphs = {"vadd": vadd.capture(x, y), "layer_norm": ln.capture(xl, wl, bl),
              "column_sum": cs.capture(xc)}
    for name, g in graphs.items():
        got = g.replay()
        ref = {"vadd": x + y, "layer_norm": ln_ref(), "column_sum": xc.sum(0)}[name]
        checks[f"{name} graph"] = (got, ref)
    torch.cuda.synchronize()
    ok = {k: bool(torch.allclose(a.float(), b.float(), rtol=1e-4, atol=1e-4))
          for k, (a, b) in checks.items()}
    if check_only:  # e.g. under compute-sanitizer: no timing loops
        for k, good in ok.items():
            print(f"{'ok  ' if good else 'FAIL'} {k}")
        return 0 if all(ok.values()) else 1

    rows: list[tuple[str, int, float]] = []  # (call, kernels, host us per call)
    rows.append(("torch.add(x, y)", 1, _host_us(lambda: torch.add(x, y))))
    rows.append(("torch.add(x, y, out=out)", 1, _host_us(lambda: torch.add(x, y, out=out))))
    triton_add = _triton_add()
    if triton_add is not None:
        rows.append(("triton add_kernel[grid](...)", 1, _host_us(lambda: triton_add(x, y, out))))
    rows.append(("tcc vadd(x, y)", 1, _host_us(lambda: vadd(x, y))))
    rows.append(("tcc vadd(x, y, out)", 1, _host_us(lambda: vadd(x, y, out))))
    rows.append(("tcc vadd general path", 1, _host_us(lambda: general((x, y, out), None, None))))
    device = vadd.device  # the ctypes launch, then cuda-bindings' launch
    device.set_launch_mode("ctypes")  # plans made from here on launch through ctypes
    vadd_ctypes = load(directory / "vadd.tccp")
    rows.append(("tcc vadd(x, y, out), ctypes launch", 1,
                 _host_us(lambda: vadd_ctypes(x, y, out))))
    device.set_launch_mode("bindings")
    rows.append(("tcc vadd graph replay", 1, _host_us(graphs["vadd"].replay)))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        torch.add(x, y, out=out)
    rows.append(("torch CUDAGraph replay of torch.add", 1, _host_us(g.replay)))
    rows.append(("tcc layer_norm(x, w, b)", len(ln.artifact.steps),
                 _host_us(lambda: ln(xl, wl, bl))))
    rows.append(("torch layer_norm eager", 1, _host_us(ln_ref)))
    rows.append(("tcc layer_norm graph replay", len(ln.artifact.steps),
                 _host_us(graphs["layer_norm"].replay)))
    rows.append(("tcc column_sum(x)", len(cs.artifact.steps), _host_us(lambda: cs(xc))))
    rows.append(("tcc column_sum graph replay", len(cs.artifact.steps),
                 _host_us(graphs["column_sum"].replay)))
    rows.append(("torch x.sum(0)", 1, _host_us(lambda: xc.sum(0))))

    breakdown = _breakdown(vadd, x, y, out)

    torch_add = rows[0][2]
    lines = [f"correct: {ok}", "",
             "| call | kernels | host us per call | us per kernel | vs torch.add |",
             "|---|---|---|---|---|"]
    for name, kernels, us in rows:
        lines.append(f"| {name} | {kernels} | {us:.2f} | {us / kernels:.2f} | "
                     f"{us / torch_add:.2f} |")
    lines += ["", "| piece of a tcc vadd(x, y, out) call | us |", "|---|---|"]
    lines += [f"| {name} | {us:.2f} |" for name, us in breakdown]
    text = "\n".join(lines)
    print(text)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "launch_overhead.md").write_text(text + "\n")
        (out_dir / "launch_overhead.json").write_text(json.dumps(
            {"correct": ok, "rows": rows, "calls": CALLS, "repeats": REPEATS}, indent=1))
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
