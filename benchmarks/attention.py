"""tcc's fused attention (form = attention) on a GPU, in its two schedules:
sm_90's (wgmma fed by TMA, warp-specialized, persistent: "tcc") and
FlashAttention-2's on mma.sync (the sm_80 kernel, which the H100/H200 run too:
"tcc mma.sync"). Correctness against float64 (fresh inputs, the output
poisoned with NaN first) and TFLOP/s next to torch's
scaled_dot_product_attention (flash backend) and an autotuned Triton
FlashAttention-2 kernel (benchmarks/triton_attention.py), in one run.

The program is written as a PyTorch user writes it,
``((q @ k.transpose(-1, -2)) * scale).softmax(-1) @ v`` on [B·H, S, D].

    # here (CPU, MLIR): compile the cases into DIR
    python benchmarks/attention.py build DIR [--only=NAME,...]
    # on the GPU machine (tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/attention.py run DIR OUT [--check-only]
"""

# No `from __future__ import annotations`: the program's annotations are
# evaluated where it is defined (tcc.frontend reads them).
import json
import math
import sys
import time
from pathlib import Path

# (B·H, S, D, dtype, causal): the two shapes with and without the
# causal mask, then S = 512 ... 16k at 32k tokens (D = 64, f16), and a tail.
CASES = [(32, 1024, 64, "f16", False), (16, 4096, 128, "bf16", False),
         (32, 1024, 64, "f16", True), (16, 4096, 128, "bf16", True)] + [
    (max(1, 32768 // s), s, 64, "f16", False) for s in (512, 2048, 4096, 8192, 16384)] + [
    (32, 1000, 64, "f16", False)]
TOLERANCE = {"f16": 3e-3, "bf16": 2e-2}
# The Hopper schedule, and the mma.sync one beside it (artifact suffixes).
TARGETS = {"": "sm_90", ".sm80": "sm_80"}


def case_name(bh: int, s: int, d: int, dtype: str, causal: bool) -> str:
    return f"attn_{'causal_' if causal else ''}{dtype}_{bh}x{s}x{d}"


def attention_program(dtype: str, scale: float, causal: bool):  # noqa: ANN201
    """((q @ k.transpose(-1, -2)) * scale).softmax(-1) @ v on [BH, S, D]; causal:
    the scores where(arange(S)[:, None] >= arange(S)[None, :], s, -inf)."""
    import tcc.frontend as tf
    from tcc.frontend import Tensor, program, syms

    BH, S, D = syms("BH S D")  # noqa: N806
    elt = getattr(tf, dtype)

    @program
    def attention(q: Tensor[BH, S, D, elt], k: Tensor[BH, S, D, elt],  # type: ignore[valid-type]
                  v: Tensor[BH, S, D, elt]):  # type: ignore[valid-type]
        s = (q @ k.transpose(-1, -2)) * scale
        if causal:
            keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
            s = tf.where(keep, s, float("-inf"))
        return s.softmax(-1) @ v

    return attention


def build(directory: Path, only: set[str] | None = None) -> None:
    import tcc

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for bh, s, d, dtype, causal in CASES:
        name = case_name(bh, s, d, dtype, causal)
        if only and name not in only:
            continue
        scale = 1.0 / math.sqrt(d)
        start = time.perf_counter()
        for suffix, target in TARGETS.items():
            kernel = tcc.compile(attention_program(dtype, scale, causal), target, BH=bh, S=s,
                                 D=d)
            kernel.artifact.save(directory / f"{name}{suffix}.tcck")
        manifest.append({"name": name, "bh": bh, "s": s, "d": d, "dtype": dtype,
                         "scale": scale, "causal": causal, "kernels": len(kernel.kernels),
                         "compile_s": time.perf_counter() - start})
        print(f"built {name}: {len(kernel.kernels)} kernel(s) in "
              f"{manifest[-1]['compile_s']:.1f} s")
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def reference(q, k, v, scale: float, causal: bool):  # noqa: ANN001, ANN201
    """float64 attention, one head at a time (S x S scores in float64)."""
    import torch

    out = torch.empty(q.shape, dtype=torch.float64, device=q.device)
    n = q.shape[1]
    keep = torch.ones((n, n), dtype=torch.bool, device=q.device).tril()
    for h in range(q.shape[0]):
        s = (q[h].double() @ k[h].double().T) * scale
        if causal:
            s = s.masked_fill(~keep, float("-inf"))
        out[h] = torch.softmax(s, -1) @ v[h].double()
    return out


def run(directory: Path, out: Path, check_only: bool = False) -> int:
    import torch
    import torch.nn.functional as F  # noqa: N812
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from checks import check_against_float64  # benchmarks/ is the script's directory
    from tcc.runtime import load
    from triton_attention import triton_attention

    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator(device="cuda").manual_seed(13)
    tri = triton_attention()
    rows, failures = [], 0
    for entry in json.loads((directory / "manifest.json").read_text()):
        bh, s, d, scale = entry["bh"], entry["s"], entry["d"], entry["scale"]
        causal = entry["causal"]
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[entry["dtype"]]
        q, k, v = (torch.randn((bh, s, d), generator=gen, device="cuda").to(dtype)
                   for _ in range(3))
        kernel = load(directory / f"{entry['name']}.tcck")
        fa2 = load(directory / f"{entry['name']}.sm80.tcck")
        ref = reference(q, k, v, scale, causal)
        result = torch.full((bh, s, d), float("nan"), device="cuda", dtype=dtype)
        fa2(q, k, v, out=result)
        unwritten_fa2, rel_fa2 = check_against_float64(result, ref)
        result = torch.full((bh, s, d), float("nan"), device="cuda", dtype=dtype)
        kernel(q, k, v, out=result)
        unwritten, rel = check_against_float64(result, ref)
        _, rel_sdpa = check_against_float64(F.scaled_dot_product_attention(
            q[None], k[None], v[None], scale=scale, is_causal=causal)[0], ref)
        _, rel_triton = check_against_float64(tri(q, k, v, scale, causal), ref)
        ok = (unwritten == 0 and rel <= TOLERANCE[entry["dtype"]] and unwritten_fa2 == 0
              and rel_fa2 <= TOLERANCE[entry["dtype"]])
        failures += not ok
        row = {"name": entry["name"], "rel_err": rel, "rel_err_mma_sync": rel_fa2,
               "rel_err_sdpa": rel_sdpa,
               "rel_err_triton": rel_triton, "unwritten": unwritten, "ok": ok,
               "kernels": entry["kernels"]}
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']:28s} rel.err {rel:.1e} "
              f"(mma.sync {rel_fa2:.1e}, SDPA {rel_sdpa:.1e}, Triton {rel_triton:.1e}; "
              f"{entry['kernels']} kernel(s))", flush=True)
        if check_only:
            continue
        # Causal: the half of the scores computed (SDPA's convention).
        flops = 4.0 * bh * s * s * d / (2 if causal else 1)

        def sdpa(q_=q, k_=k, v_=v, scale_=scale, causal_=causal) -> None:  # noqa: ANN001
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(q_[None], k_[None], v_[None], scale=scale_,
                                               is_causal=causal_)

        timed = {"tcc": lambda k_=kernel, r_=result, q_=q, kk=k, v_=v: k_(q_, kk, v_, out=r_),
                 "tcc mma.sync": lambda k_=fa2, r_=result, q_=q, kk=k, v_=v: k_(q_, kk, v_,
                                                                                out=r_),
                 "SDPA": sdpa,
                 "triton": lambda q_=q, kk=k, v_=v, s_=scale, c_=causal: tri(q_, kk, v_, s_, c_)}
        for label, fn in timed.items():
            ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
            row[label] = flops / (ms * 1e-3) / 1e12
        rows.append(row)
        print("    " + " ".join(f"{lab} {row[lab]:.0f}" for lab in timed) + " TFLOP/s",
              flush=True)
    if check_only:
        return 1 if failures else 0
    (out / "attention.json").write_text(json.dumps(rows, indent=1))
    lines = ["| case | rel. err (SDPA, Triton) | tcc TFLOP/s | tcc mma.sync | SDPA | Triton |"
             " tcc / SDPA | tcc / Triton |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['rel_err']:.1e} ({r['rel_err_sdpa']:.1e}, "
                     f"{r['rel_err_triton']:.1e}) | {r['tcc']:.0f} | {r['tcc mma.sync']:.0f} | "
                     f"{r['SDPA']:.0f} | {r['triton']:.0f} | {r['tcc'] / r['SDPA']:.2f} | "
                     f"{r['tcc'] / r['triton']:.2f} |")
    report = "\n".join(lines)
    (out / "attention.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    flags = [a for a in sys.argv[2:] if a.startswith("--")]
    paths = [a for a in sys.argv[2:] if not a.startswith("--")]
    only = next((set(f.split("=", 1)[1].split(",")) for f in flags
                 if f.startswith("--only=")), None)
    if verb == "build" and len(paths) == 1:
        build(Path(paths[0]), only)
    elif verb == "run" and len(paths) == 2:
        sys.exit(run(Path(paths[0]), Path(paths[1]), "--check-only" in flags))
    else:
        sys.exit(__doc__)
