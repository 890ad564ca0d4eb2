"""Whole programs on a GPU: correctness against float64 and GB/s or TFLOP/s
next to torch eager and torch.compile, in one run.

Two halves, because the GPU machine has no MLIR:

    # here (CPU, MLIR): compile every program into DIR (artifacts + manifest)
    PYTHONPATH=build/dev/python_packages python benchmarks/programs.py build DIR [NAME ...]
    # on the GPU machine (tcc.runtime, torch):
    PYTHONPATH=python python3 benchmarks/programs.py run DIR OUT

`run` checks each program on fresh random inputs against a float64 torch
reference with NaN-poisoned outputs, then times it with CUDA events (median
after warm-up) beside torch eager and torch.compile on the same inputs, and
prints a table: time, GB/s (the fewest bytes the program must move: each
input read once, each output written once) or TFLOP/s, and the ratios.
"""

from __future__ import annotations

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
    text: str
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    tol: float
    flops: float = 0.0  # > 0: a compute-bound program, reported in TFLOP/s


def _t(shape: tuple[int, ...], dtype: str) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + dtype + ">"


def layer_norm(m: int, n: int, dt: str) -> Case:
    x, v, r, x32, v32 = _t((m, n), dt), _t((n,), dt), _t((m,), "f32"), _t((m, n), "f32"), \
        _t((n,), "f32")
    text = f"""
func.func @layer_norm(%x: {x}, %w: {v}, %b: {v}) -> {x} {{
  %xf = tcc.cast %x : {x} to {x32}
  %mean = tcc.reduce_mean %xf dims = [1] : {x32} -> {r}
  %mb = tcc.broadcast %mean dims = [1] : {r} -> {x32}
  %d = tcc.sub %xf, %mb : {x32}
  %sq = tcc.mul %d, %d : {x32}
  %var = tcc.reduce_mean %sq dims = [1] : {x32} -> {r}
  %eps = tcc.constant dense<1.0e-5> : {r}
  %ve = tcc.add %var, %eps : {r}
  %rs = tcc.rsqrt %ve : {r}
  %rb = tcc.broadcast %rs dims = [1] : {r} -> {x32}
  %nrm = tcc.mul %d, %rb : {x32}
  %wf = tcc.cast %w : {v} to {v32}
  %bf = tcc.cast %b : {v} to {v32}
  %wb = tcc.broadcast %wf dims = [0] : {v32} -> {x32}
  %bb = tcc.broadcast %bf dims = [0] : {v32} -> {x32}
  %y0 = tcc.mul %nrm, %wb : {x32}
  %y1 = tcc.add %y0, %bb : {x32}
  %y = tcc.cast %y1 : {x32} to {x}
  return %y : {x}
}}"""
    return Case(f"layer_norm_{dt}_{m}x{n}", text, (((m, n), dt), ((n,), dt), ((n,), dt)),
                2e-3 if dt == "f16" else 1e-2)


def rms_norm(m: int, n: int, dt: str) -> Case:
    x, v, r, x32, v32 = _t((m, n), dt), _t((n,), dt), _t((m,), "f32"), _t((m, n), "f32"), \
        _t((n,), "f32")
    text = f"""
func.func @rms_norm(%x: {x}, %w: {v}) -> {x} {{
  %xf = tcc.cast %x : {x} to {x32}
  %sq = tcc.mul %xf, %xf : {x32}
  %ms = tcc.reduce_mean %sq dims = [1] : {x32} -> {r}
  %eps = tcc.constant dense<1.0e-6> : {r}
  %me = tcc.add %ms, %eps : {r}
  %rs = tcc.rsqrt %me : {r}
  %rb = tcc.broadcast %rs dims = [1] : {r} -> {x32}
  %nrm = tcc.mul %xf, %rb : {x32}
  %wf = tcc.cast %w : {v} to {v32}
  %wb = tcc.broadcast %wf dims = [0] : {v32} -> {x32}
  %y0 = tcc.mul %nrm, %wb : {x32}
  %y = tcc.cast %y0 : {x32} to {x}
  return %y : {x}
}}"""
    return Case(f"rms_norm_{dt}_{m}x{n}", text, (((m, n), dt), ((n,), dt)),
                2e-3 if dt == "f16" else 1e-2)


def log_softmax(m: int, n: int, dt: str) -> Case:
    x, r = _t((m, n), dt), _t((m,), dt)
    text = f"""
func.func @log_softmax(%x: {x}) -> {x} {{
  %mx = tcc.reduce_max %x dims = [1] : {x} -> {r}
  %mb = tcc.broadcast %mx dims = [1] : {r} -> {x}
  %d = tcc.sub %x, %mb : {x}
  %e = tcc.exp %d : {x}
  %s = tcc.reduce_sum %e dims = [1] : {x} -> {r}
  %l = tcc.log %s : {r}
  %lb = tcc.broadcast %l dims = [1] : {r} -> {x}
  %y = tcc.sub %d, %lb : {x}
  return %y : {x}
}}"""
    return Case(f"log_softmax_{dt}_{m}x{n}", text, (((m, n), dt),), 1e-5)


def softmax(m: int, n: int, dt: str) -> Case:
    x = _t((m, n), dt)
    text = f"""
func.func @softmax(%x: {x}) -> {x} {{
  %y = tcc.softmax %x dim = 1 : {x}
  return %y : {x}
}}"""
    return Case(f"softmax_{dt}_{m}x{n}", text, (((m, n), dt),), 2e-3 if dt == "f16" else 1e-5)


def gemm_softmax(m: int, n: int, k: int, dt: str) -> Case:
    a, b, c, r = _t((m, k), dt), _t((k, n), dt), _t((m, n), "f32"), _t((m,), "f32")
    y = _t((m, n), dt)
    text = f"""
func.func @gemm_softmax(%a: {a}, %b: {b}) -> {y} {{
  %c = tcc.matmul %a, %b acc(f32) : {a}, {b} -> {c}
  %mx = tcc.reduce_max %c dims = [1] : {c} -> {r}
  %mb = tcc.broadcast %mx dims = [1] : {r} -> {c}
  %d = tcc.sub %c, %mb : {c}
  %e = tcc.exp %d : {c}
  %s = tcc.reduce_sum %e dims = [1] : {c} -> {r}
  %sb = tcc.broadcast %s dims = [1] : {r} -> {c}
  %q = tcc.div %e, %sb : {c}
  %o = tcc.cast %q : {c} to {y}
  return %o : {y}
}}"""
    return Case(f"gemm_softmax_{dt}_{m}x{n}x{k}", text, (((m, k), dt), ((k, n), dt)), 5e-3,
                flops=2.0 * m * n * k)


CASES: dict[str, Case] = {
    c.name: c
    for c in (
        layer_norm(16384, 4096, "f16"),
        layer_norm(1024, 1024, "f16"),
        rms_norm(16384, 4096, "bf16"),
        rms_norm(1024, 1024, "bf16"),
        log_softmax(16384, 4096, "f32"),
        log_softmax(1024, 1000, "f32"),
        softmax(4096, 1000, "f32"),
        softmax(2048, 50257, "f16"),
        softmax(64, 50257, "f16"),
        gemm_softmax(4096, 4096, 1024, "f16"),
    )
}


# ------------------------------------------------------------- CPU side --
def build(directory: Path, names: list[str]) -> None:
    from tcc.compiler.compile import compile as tcc_compile

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name in names or list(CASES):
        case = CASES[name]
        start = time.perf_counter()
        program = tcc_compile(case.text, "sm_90", cache=False)
        seconds = time.perf_counter() - start
        program.artifact.save(directory / f"{name}.tccprog")
        kernels = [{"name": k.name, "grid": list(k.launch.grid), "block": list(k.launch.block)}
                   for k in program.kernels]
        manifest.append({"name": name, "compile_s": seconds, "kernels": kernels})
        print(f"built {name:36s} {seconds * 1e3:7.0f} ms  "
              + "  ".join(f"{k['name']} grid={k['grid'][0]} block={k['block'][0]}"
                          for k in kernels))
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


# ------------------------------------------------------------- GPU side --
def _reference(name: str) -> Callable:
    """The program in torch (used for eager, torch.compile and, on float64
    inputs, the reference)."""
    import torch
    import torch.nn.functional as tf

    kind = name.split("_f")[0].split("_bf")[0]
    if kind == "layer_norm":
        return lambda x, w, b: tf.layer_norm(x.float(), x.shape[-1:], w.float(), b.float(),
                                             1e-5).to(x.dtype)
    if kind == "rms_norm":
        def rms(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(
                x.dtype)
        return rms
    if kind == "log_softmax":
        return lambda x: torch.log_softmax(x, -1)
    if kind == "softmax":
        return lambda x: torch.softmax(x.float(), -1).to(x.dtype)
    if kind == "gemm_softmax":
        return lambda a, b: torch.softmax((a @ b).float(), -1).to(a.dtype)
    raise ValueError(name)


def run(directory: Path, out: Path) -> None:
    import torch
    import triton.testing

    import tcc.runtime

    torch.manual_seed(0)
    manifest = json.loads((directory / "manifest.json").read_text())
    rows = []
    for entry in manifest:
        name = entry["name"]
        case = CASES[name]
        program = tcc.runtime.load(str(directory / f"{name}.tccprog"))
        fn = _reference(name)
        inputs = [torch.randn(shape, device="cuda").to(getattr(torch, F[dt]))
                  for shape, dt in case.inputs]
        out_spec = program.artifact.outputs[0]
        poisoned = torch.full(tuple(out_spec.shape), float("nan"), device="cuda",
                              dtype=getattr(torch, F[out_spec.dtype]))
        program(*inputs, out=poisoned)
        torch.cuda.synchronize()
        ref = fn(*[x.double() for x in inputs]).double()
        got = poisoned.double()
        err = float((got - ref).norm() / ref.norm()) if not got.isnan().any() else float("nan")
        ok = err <= case.tol
        out_buf = torch.empty_like(poisoned)
        compiled = torch.compile(fn)
        compiled(*inputs)
        def bench(call: Callable[[], object]) -> float:
            return triton.testing.do_bench(call, warmup=50, rep=300, return_mode="median")

        args = tuple(inputs)
        times = {
            "tcc": bench(lambda p=program, a=args, o=out_buf: p(*a, out=o)),
            "eager": bench(lambda f=fn, a=args: f(*a)),
            "compile": bench(lambda f=compiled, a=args: f(*a)),
        }
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
        print(f"{name:34s} {'ok ' if ok else 'BAD'} err={err:.1e} k={len(entry['kernels'])} "
              f"tcc {rate['tcc']:7.0f} eager {rate['eager']:7.0f} compile {rate['compile']:7.0f} "
              f"{unit}  vs eager {rate['tcc'] / rate['eager']:.2f} vs compile "
              f"{rate['tcc'] / rate['compile']:.2f}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "programs.json").write_text(json.dumps(rows, indent=1))
    lines = ["| program | kernels | correct (rel err) | tcc | torch eager | torch.compile | "
             "unit | tcc/eager | tcc/compile |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['kernels']} | {'yes' if r['ok'] else 'NO'} ({r['rel_err']:.1e}) "
            f"| {r['rate']['tcc']:.0f} | {r['rate']['eager']:.0f} | {r['rate']['compile']:.0f} "
            f"| {r['unit']} | {r['rate']['tcc'] / r['rate']['eager']:.2f} "
            f"| {r['rate']['tcc'] / r['rate']['compile']:.2f} |")
    (out / "programs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
