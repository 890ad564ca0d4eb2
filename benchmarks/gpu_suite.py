"""tcc on a GPU: correctness of the elementwise/reduction kernels and GB/s
against torch eager, torch.compile and Triton, in one run.

Two halves, because the GPU machine has no MLIR:

    # here (CPU, MLIR): compile every kernel into DIR (artifacts + manifest)
    python benchmarks/gpu_suite.py build DIR
    # on the GPU machine (only tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/gpu_suite.py run DIR OUT [--check-only]

`run` checks each kernel on fresh random inputs against a float64 reference
with a NaN-poisoned output, then times the benchmark kernels with CUDA
events (median of many runs after warm-up) next to torch eager,
torch.compile and Triton, and prints a table with GB/s and ratios.
`--check-only` stops after the checks (e.g. under compute-sanitizer).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

OPS = ("add", "relu", "bias_gelu", "exp", "row_sum", "row_max", "softmax")
DTYPES = ("f32", "f16", "bf16")
SHAPES = ((1024, 1024), (1000, 777))
BENCH = (
    ("bias_gelu", "f32", (16384, 8192)),
    ("bias_gelu", "bf16", (16384, 8192)),
    ("softmax", "f16", (32768, 4096)),
    ("add", "f32", (16384, 8192)),
    ("row_sum", "f32", (32768, 4096)),
)
# Relative error (‖out - ref‖ / ‖ref‖ against float64) each dtype must meet.
TOLERANCE = {"f32": 1e-5, "f16": 2e-3, "bf16": 1e-2}


def program_text(op: str, dtype: str, m: int, n: int) -> str:
    """The tcc-dialect program for one (op, dtype, shape)."""
    t = f"tensor<{m}x{n}x{dtype}>"
    row = f"tensor<{m}x{dtype}>"
    vec = f"tensor<{n}x{dtype}>"
    if op == "add":
        sig, body, res = f"%x: {t}, %y: {t}", f"%r = tcc.add %x, %y : {t}", t
    elif op == "relu":
        sig, body, res = f"%x: {t}", f"%r = tcc.relu %x : {t}", t
    elif op == "exp":
        sig, body, res = f"%x: {t}", f"%r = tcc.exp %x : {t}", t
    elif op == "bias_gelu":
        sig = f"%x: {t}, %b: {vec}"
        body = (
            f"%bb = tcc.broadcast %b dims = [0] : {vec} -> {t}\n"
            f"  %s = tcc.add %x, %bb : {t}\n"
            f"  %r = tcc.gelu %s approximate = tanh : {t}"
        )
        res = t
    elif op in ("row_sum", "row_max"):
        kind = op.split("_")[1]
        sig, res = f"%x: {t}", row
        body = f"%r = tcc.reduce_{kind} %x dims = [1] : {t} -> {row}"
    elif op == "softmax":
        sig, body, res = f"%x: {t}", f"%r = tcc.softmax %x dim = 1 : {t}", t
    else:
        raise ValueError(op)
    return f"func.func @{op}({sig}) -> {res} {{\n  {body}\n  return %r : {res}\n}}\n"


def build(directory: Path) -> None:
    from tcc.compiler.cache import KernelCache
    from tcc.compiler.compile import compile as tcc_compile

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    cases = [(op, dt, shape, "check") for op in OPS for dt in DTYPES for shape in SHAPES]
    cases += [(op, dt, shape, "bench") for op, dt, shape in BENCH]
    for op, dtype, (m, n), purpose in cases:
        name = f"{op}_{dtype}_{m}x{n}"
        start = time.perf_counter()
        kernel = tcc_compile(program_text(op, dtype, m, n), "sm_90", cache=False)
        seconds = time.perf_counter() - start
        kernel.artifact.save(directory / f"{name}.tcck")
        manifest.append(
            {
                "name": name,
                "op": op,
                "dtype": dtype,
                "shape": [m, n],
                "purpose": purpose,
                "compile_s": seconds,
                "grid": list(kernel.launch.grid),
                "block": list(kernel.launch.block),
            }
        )
        print(f"built {name:28s} {seconds * 1e3:7.1f} ms grid={kernel.launch.grid}")
    # Cold compile (no cache) vs cache hits for bias+GELU.
    text = program_text("bias_gelu", "f32", 16384, 8192)
    cold = min(_timed(lambda: tcc_compile(text, "sm_90", cache=False)) for _ in range(3))
    cache = KernelCache(directory / "cache")
    tcc_compile(text, "sm_90", cache=cache)
    hit_mem = min(_timed(lambda: tcc_compile(text, "sm_90", cache=cache)) for _ in range(50))
    disk_cache = KernelCache(directory / "cache")
    hit_disk = _timed(lambda: tcc_compile(text, "sm_90", cache=disk_cache))
    timings = {"cold_compile_s": cold, "cache_hit_memory_s": hit_mem, "cache_hit_disk_s": hit_disk}
    (directory / "manifest.json").write_text(json.dumps({"kernels": manifest, **timings}, indent=1))
    print(
        f"bias+GELU cold compile {cold * 1e3:.1f} ms; cache hit {hit_mem * 1e6:.1f} us "
        f"(memory), {hit_disk * 1e6:.1f} us (disk)"
    )


def _timed(fn) -> float:  # noqa: ANN001
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# ---------------------------------------------------------------- GPU side --
def _torch_inputs(op: str, dtype, m: int, n: int, gen):  # noqa: ANN001
    import torch

    x = torch.randn((m, n), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
    if op == "add":
        return [x, torch.randn((m, n), generator=gen, device="cuda").to(dtype)]
    if op == "bias_gelu":
        return [x, torch.randn((n,), generator=gen, device="cuda").to(dtype)]
    return [x]


def _reference(op: str, inputs):  # noqa: ANN001
    import torch

    xs = [t.double() for t in inputs]
    x = xs[0]
    if op == "add":
        return x + xs[1]
    if op == "relu":
        return torch.relu(x)
    if op == "exp":
        return torch.exp(x)
    if op == "bias_gelu":
        return torch.nn.functional.gelu(x + xs[1], approximate="tanh")
    if op == "row_sum":
        return x.sum(dim=1)
    if op == "row_max":
        return x.max(dim=1).values
    if op == "softmax":
        return torch.softmax(x, dim=1)
    raise ValueError(op)


def _eager(op: str):  # noqa: ANN202
    import torch

    return {
        "add": lambda x, y: x + y,
        "relu": torch.relu,
        "exp": torch.exp,
        "bias_gelu": lambda x, b: torch.nn.functional.gelu(x + b, approximate="tanh"),
        "row_sum": lambda x: x.sum(dim=1),
        "row_max": lambda x: x.max(dim=1).values,
        "softmax": lambda x: torch.softmax(x, dim=1),
    }[op]


def _triton_kernels():  # noqa: ANN202
    import triton
    import triton.language as tl

    @triton.jit
    def bias_gelu_kernel(x_ptr, b_ptr, y_ptr, numel, n, BLOCK: tl.constexpr):  # noqa: N803
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < numel
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + offs % n, mask=mask).to(tl.float32)
        s = x + b
        inner = 0.7978845608028654 * (s + 0.044715 * s * s * s)
        t = 2 * tl.sigmoid(2 * inner) - 1  # tanh
        y = 0.5 * s * (1 + t)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_ptr + row * n + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * n + cols, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def add_kernel(x_ptr, y_ptr, z_ptr, numel, BLOCK: tl.constexpr):  # noqa: N803
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < numel
        tl.store(
            z_ptr + offs,
            tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
            mask=mask,
        )

    @triton.jit
    def row_sum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # noqa: N803
        row = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, n, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + row * n + cols, mask=cols < n, other=0).to(tl.float32)
        tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))

    def bias_gelu(x, b):  # noqa: ANN001, ANN202
        y = torch_empty_like(x)
        bias_gelu_kernel[(triton.cdiv(x.numel(), 2048),)](
            x, b, y, x.numel(), x.shape[1], BLOCK=2048, num_warps=8
        )
        return y

    def softmax(x):  # noqa: ANN001, ANN202
        y = torch_empty_like(x)
        block = triton.next_power_of_2(x.shape[1])
        softmax_kernel[(x.shape[0],)](
            x, y, x.shape[1], BLOCK=block, num_warps=8 if block >= 2048 else 4
        )
        return y

    def add(x, y):  # noqa: ANN001, ANN202
        z = torch_empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 2048),)](x, y, z, x.numel(), BLOCK=2048, num_warps=8)
        return z

    def row_sum(x):  # noqa: ANN001, ANN202
        import torch

        y = torch.empty((x.shape[0],), device=x.device, dtype=x.dtype)
        row_sum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024, num_warps=4)
        return y

    def torch_empty_like(x):  # noqa: ANN001, ANN202
        import torch

        return torch.empty_like(x)

    return {"bias_gelu": bias_gelu, "softmax": softmax, "add": add, "row_sum": row_sum}


def _check_array_interfaces(directory: Path) -> int:
    """The same kernel called with numpy (copied in/out), cupy (CUDA array
    interface) and torch (DLPack) arrays, and with a wrong-shape argument."""
    import numpy as np

    from tcc.runtime import ArgumentError, load

    kernel = load(directory / "bias_gelu_f32_1000x777.tcck")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1000, 777), dtype=np.float32)
    b = rng.standard_normal(777, dtype=np.float32)
    xb = x.astype(np.float64) + b
    ref = 0.5 * xb * (1 + np.tanh(0.7978845608028654 * (xb + 0.044715 * xb**3)))
    results = {"numpy": kernel(x, b)}
    try:
        import cupy

        results["cupy"] = cupy.asnumpy(kernel(cupy.asarray(x), cupy.asarray(b)))
    except ImportError:
        print("cupy not installed: skipped")
    failures = 0
    for name, y in results.items():
        err = float(np.max(np.abs(np.asarray(y, dtype=np.float64) - ref)))
        ok = err < 1e-4
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} bias_gelu via {name}: max abs err {err:.2e}")
    try:
        kernel(x[:, :776].copy(), b)
        print("FAIL wrong shape was accepted")
        failures += 1
    except ArgumentError as err:
        print(f"ok   wrong shape rejected before launch: {err}")
    return failures


def run(directory: Path, out: Path, check_only: bool = False) -> int:
    import torch
    import triton.testing

    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((directory / "manifest.json").read_text())
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    gen = torch.Generator(device="cuda").manual_seed(1234)
    failures = 0
    rows = []
    for entry in manifest["kernels"]:
        op, dtype = entry["op"], dtypes[entry["dtype"]]
        m, n = entry["shape"]
        kernel = load(directory / f"{entry['name']}.tcck")
        inputs = _torch_inputs(op, dtype, m, n, gen)
        ref = _reference(op, inputs)
        poisoned = torch.full(ref.shape, float("nan"), device="cuda", dtype=dtype)
        kernel(*inputs, out=poisoned)
        torch.cuda.synchronize()
        got = poisoned.double()
        unwritten = int(torch.isnan(got).sum())
        rel = float(torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref))
        ok = unwritten == 0 and rel <= TOLERANCE[entry["dtype"]]
        failures += not ok
        rows.append({"name": entry["name"], "rel_err": rel, "unwritten": unwritten, "ok": ok})
        print(
            f"{'ok  ' if ok else 'FAIL'} {entry['name']:28s} rel.err {rel:.2e} "
            f"unwritten {unwritten}"
        )
        del inputs, ref, poisoned, got
        torch.cuda.empty_cache()  # several suites share the GPU under sanitize.py
    (out / "correctness.json").write_text(json.dumps(rows, indent=1))
    failures += _check_array_interfaces(directory)
    if check_only:
        print(f"correctness: {len(rows) - failures}/{len(rows)} kernels ok")
        return 1 if failures else 0

    triton_fns = _triton_kernels()
    table = []
    for entry in manifest["kernels"]:
        if entry["purpose"] != "bench":
            continue
        op, dtype = entry["op"], dtypes[entry["dtype"]]
        m, n = entry["shape"]
        kernel = load(directory / f"{entry['name']}.tcck")
        inputs = _torch_inputs(op, dtype, m, n, gen)
        ref_out = _eager(op)(*inputs)
        nbytes = sum(t.numel() * t.element_size() for t in inputs)
        nbytes += ref_out.numel() * ref_out.element_size()
        tcc_out = torch.empty_like(ref_out)
        eager, compiled = _eager(op), torch.compile(_eager(op))
        candidates = {
            "tcc": lambda k=kernel, i=inputs, o=tcc_out: k(*i, out=o),
            "torch eager": lambda f=eager, i=inputs: f(*i),
            "torch.compile": lambda f=compiled, i=inputs: f(*i),
        }
        if op in triton_fns:
            candidates["triton"] = lambda f=triton_fns[op], i=inputs: f(*i)
        result = {"name": entry["name"], "bytes": nbytes}
        for label, fn in candidates.items():
            ms = triton.testing.do_bench(fn, warmup=50, rep=300, return_mode="median")
            result[label] = nbytes / (ms * 1e-3) / 1e9
        table.append(result)
    (out / "bench.json").write_text(json.dumps(table, indent=1))

    # Triton cold compile + first launch of a fresh bias+GELU kernel.
    import os
    import tempfile

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    x, b = _torch_inputs("bias_gelu", torch.float32, 1024, 1024, gen)
    start = time.perf_counter()
    _triton_kernels()["bias_gelu"](x, b)
    torch.cuda.synchronize()
    triton_cold = time.perf_counter() - start

    lines = [
        "| kernel | bytes | tcc GB/s | torch eager | torch.compile | triton | "
        "tcc / triton | tcc / eager |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        tri = r.get("triton", math.nan)
        lines.append(
            f"| {r['name']} | {r['bytes'] / 2**20:.0f} MiB | {r['tcc']:.0f} | "
            f"{r['torch eager']:.0f} | {r['torch.compile']:.0f} | {tri:.0f} | "
            f"{r['tcc'] / tri:.2f} | {r['tcc'] / r['torch eager']:.2f} |"
        )
    lines.append("")
    lines.append(
        f"tcc cold compile (bias+GELU, CPU build machine): "
        f"{manifest['cold_compile_s'] * 1e3:.0f} ms; Triton cold compile + first "
        f"launch here: {triton_cold * 1e3:.0f} ms"
    )
    lines.append(
        f"tcc cache hit: {manifest['cache_hit_memory_s'] * 1e6:.0f} us (memory), "
        f"{manifest['cache_hit_disk_s'] * 1e6:.0f} us (disk)"
    )
    lines.append(f"correctness: {len(rows) - failures}/{len(rows)} kernels ok")
    report = "\n".join(lines)
    (out / "report.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(Path(sys.argv[2]), Path(sys.argv[3]), "--check-only" in sys.argv[4:]))
    else:
        print(__doc__)
        sys.exit(2)
