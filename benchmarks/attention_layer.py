"""A causal self-attention layer as nanoGPT writes it, compiled whole by tcc
(three projections, the heads as ``.view(...).transpose(1, 2)``,
``tf.scaled_dot_product_attention(is_causal=True)``, the output projection:
5 kernels, the attention kernel reading the projections' results through
views), against the same layer in torch eager (cuBLAS + SDPA flash, with the
transposes' copies where torch makes them) and torch.compile, in one run.
Correctness against float64 on fresh inputs (tcc's output poisoned with NaN).

    # here (CPU, MLIR): compile the cases into DIR
    python benchmarks/attention_layer.py build DIR
    # on the GPU machine (tcc.runtime, torch):
    PYTHONPATH=python python3 benchmarks/attention_layer.py run DIR OUT
"""

# No `from __future__ import annotations`: the program's annotations are
# evaluated where it is defined (tcc.frontend reads them).
import json
import sys
import time
from pathlib import Path

# (B, T, C, heads, dtype)
CASES = [(8, 1024, 1024, 16, "f16"), (4, 2048, 2048, 16, "bf16")]
TOLERANCE = {"f16": 3e-3, "bf16": 2e-2}


def case_name(b: int, t: int, c: int, h: int, dtype: str) -> str:
    return f"layer_{dtype}_{b}x{t}x{c}_h{h}"


def layer_program(dtype: str, heads: int):  # noqa: ANN201
    import tcc.frontend as tf
    from tcc.frontend import Tensor, program, syms

    B, T, C = syms("B T C")  # noqa: N806
    elt = getattr(tf, dtype)

    @program
    def layer(x: Tensor[B, T, C, elt], wq: Tensor[C, C, elt], wk: Tensor[C, C, elt],  # type: ignore[valid-type]
              wv: Tensor[C, C, elt], wo: Tensor[C, C, elt]):  # type: ignore[valid-type]
        b, t, c = x.shape
        q, k, v = ((x @ w.T).view(b, t, heads, c // heads).transpose(1, 2)
                   for w in (wq, wk, wv))
        y = tf.scaled_dot_product_attention(q, k, v, is_causal=True)
        return y.transpose(1, 2).reshape(b, t, c) @ wo.T

    return layer


def build(directory: Path) -> None:
    import tcc

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for b, t, c, h, dtype in CASES:
        name = case_name(b, t, c, h, dtype)
        start = time.perf_counter()
        kernel = tcc.compile(layer_program(dtype, h), "sm_90", B=b, T=t, C=c)
        kernel.artifact.save(directory / f"{name}.tcck")
        manifest.append({"name": name, "b": b, "t": t, "c": c, "h": h, "dtype": dtype,
                         "kernels": len(kernel.kernels),
                         "compile_s": time.perf_counter() - start})
        print(f"built {name}: {len(kernel.kernels)} kernels in {manifest[-1]['compile_s']:.1f} s")
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def torch_layer(x, wq, wk, wv, wo, heads: int):  # noqa: ANN001, ANN201
    import torch.nn.functional as F  # noqa: N812

    b, t, c = x.shape
    q, k, v = (F.linear(x, w).view(b, t, heads, c // heads).transpose(1, 2)
               for w in (wq, wk, wv))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return F.linear(y.transpose(1, 2).contiguous().view(b, t, c), wo)


def run(directory: Path, out: Path) -> int:
    import torch
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from checks import check_against_float64
    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator(device="cuda").manual_seed(7)
    rows, failures = [], 0
    for entry in json.loads((directory / "manifest.json").read_text()):
        b, t, c, h = entry["b"], entry["t"], entry["c"], entry["h"]
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[entry["dtype"]]
        x = torch.randn((b, t, c), generator=gen, device="cuda").to(dtype)
        ws = [(torch.randn((c, c), generator=gen, device="cuda") / c ** 0.5).to(dtype)
              for _ in range(4)]
        with torch.no_grad():
            ref = torch_layer(x.double(), *(w.double() for w in ws), heads=h)
        kernel = load(directory / f"{entry['name']}.tcck")
        result = torch.full((b, t, c), float("nan"), device="cuda", dtype=dtype)
        kernel(x, *ws, out=result)
        unwritten, rel = check_against_float64(result, ref)
        _, rel_eager = check_against_float64(torch_layer(x, *ws, heads=h), ref)
        compiled = torch.compile(torch_layer, mode="max-autotune-no-cudagraphs")
        _, rel_compiled = check_against_float64(compiled(x, *ws, heads=h), ref)
        ok = unwritten == 0 and rel <= TOLERANCE[entry["dtype"]]
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']} rel.err {rel:.1e} (eager "
              f"{rel_eager:.1e}, compiled {rel_compiled:.1e}; {entry['kernels']} kernels)",
              flush=True)
        # 4 GEMMs of 2 T C² each per batch, causal attention's half of 4 T² C.
        flops = b * (4 * 2 * t * c * c + 4 * t * t * c / 2)

        def eager(x_=x, ws_=ws, h_=h) -> None:  # noqa: ANN001
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                torch_layer(x_, *ws_, heads=h_)

        timed = {"tcc": lambda k_=kernel, x_=x, ws_=ws, r_=result: k_(x_, *ws_, out=r_),
                 "torch eager": eager,
                 "torch.compile": lambda f_=compiled, x_=x, ws_=ws, h_=h: f_(x_, *ws_, heads=h_)}
        row = {"name": entry["name"], "rel_err": rel, "rel_err_eager": rel_eager,
               "rel_err_compiled": rel_compiled, "ok": ok, "kernels": entry["kernels"]}
        for label, fn in timed.items():
            ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
            row[label] = ms * 1e3  # µs
            row[label + " TFLOP/s"] = flops / (ms * 1e-3) / 1e12
        rows.append(row)
        print("    " + " ".join(f"{lab} {row[lab]:.0f} µs ({row[lab + ' TFLOP/s']:.0f} TFLOP/s)"
                                for lab in timed), flush=True)
    (out / "attention_layer.json").write_text(json.dumps(rows, indent=1))
    lines = ["| case | kernels | rel. err | tcc µs | eager µs | compile µs | eager / tcc |"
             " compile / tcc |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['kernels']} | {r['rel_err']:.1e} | {r['tcc']:.0f} | "
                     f"{r['torch eager']:.0f} | {r['torch.compile']:.0f} | "
                     f"{r['torch eager'] / r['tcc']:.2f} | {r['torch.compile'] / r['tcc']:.2f} |")
    report = "\n".join(lines)
    (out / "attention_layer.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    paths = [a for a in sys.argv[2:] if not a.startswith("--")]
    if verb == "build" and len(paths) == 1:
        build(Path(paths[0]))
    elif verb == "run" and len(paths) == 2:
        sys.exit(run(Path(paths[0]), Path(paths[1])))
    else:
        sys.exit(__doc__)
