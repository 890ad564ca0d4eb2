"""tcc's fused attention (form = attention) on a GPU, in its two schedules:
sm_90's (wgmma fed by TMA, warp-specialized, persistent: "tcc") and
FlashAttention-2's on mma.sync (the sm_80 kernel, which the H100/H200 run too:
"tcc mma.sync"). Correctness against float64 (fresh inputs, the output
poisoned with NaN first) and TFLOP/s next to torch's
scaled_dot_product_attention (flash backend) and an autotuned Triton
FlashAttention-2 kernel (benchmarks/triton_attention.py), in one run.

The program is written as a PyTorch user writes it,
``((q @ k.transpose(-1, -2)) * scale).softmax(-1) @ v`` on [B·H, S, D], and as
nanoGPT writes it (the ``bshd_`` cases): q, k, v stored [B, S, H, D], read with
``.transpose(1, 2)``, the result transposed back and viewed [B, S, H * D]; SDPA
then takes the transposed (strided) views, as nanoGPT calls it, and Triton
contiguous copies made outside its timing. The ``padded_`` cases add BERT's
padding mask ([B, S], 0 or -10000, viewed [B, 1, 1, S] across heads and
queries); SDPA then takes the mask (its efficient backend: flash takes none),
and Triton's kernel, which takes no mask, is left out.

    # here (CPU, MLIR): compile the cases into DIR
    python benchmarks/attention.py build DIR [--only=NAME,...]
    # a variant of the sm_90 kernel beside them (another compiler build, or a
    # plan with num_stages = N), timed as "tcc SUFFIX" when DIR has it:
    python benchmarks/attention.py build DIR --variant=SUFFIX [--stages=N]
    # on the GPU machine (tcc.runtime, torch, triton):
    PYTHONPATH=python python3 benchmarks/attention.py run DIR OUT [--check-only]
"""

# No `from __future__ import annotations`: the program's annotations are
# evaluated where it is defined (tcc.frontend reads them).
import json
import math
import re
import sys
import time
from pathlib import Path

# (B·H, S, D, dtype, causal): the two shapes with and without the
# causal mask, then S = 512 ... 16k at 32k tokens (D = 64, f16), and a tail.
CASES = [(32, 1024, 64, "f16", False), (16, 4096, 128, "bf16", False),
         (32, 1024, 64, "f16", True), (16, 4096, 128, "bf16", True)] + [
    (max(1, 32768 // s), s, 64, "f16", False) for s in (512, 2048, 4096, 8192, 16384)] + [
    (32, 1000, 64, "f16", False)]
# (B, H, S, D, dtype, causal) stored [B, S, H, D] (nanoGPT's layout).
BSHD_CASES = [(2, 16, 1024, 64, "f16", False), (1, 16, 4096, 128, "bf16", False),
              (2, 16, 1024, 64, "f16", True)]
# (B, H, S, D, dtype) with a [B, S] padding mask (BERT-base and -large heads).
PADDED_CASES = [(8, 12, 512, 64, "f16"), (4, 16, 1024, 64, "f16")]
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


def bshd_program(dtype: str, scale: float, causal: bool):  # noqa: ANN201
    """nanoGPT's attention on q, k, v stored [B, S, H, D]."""
    import tcc.frontend as tf
    from tcc.frontend import Tensor, program, syms

    B, H, S, D = syms("B H S D")  # noqa: N806
    elt = getattr(tf, dtype)

    @program
    def attention(q: Tensor[B, S, H, D, elt], k: Tensor[B, S, H, D, elt],  # type: ignore[valid-type]
                  v: Tensor[B, S, H, D, elt]):  # type: ignore[valid-type]
        qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
        s = (qh @ kh.transpose(-2, -1)) * scale
        if causal:
            keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
            s = tf.where(keep, s, float("-inf"))
        return (s.softmax(-1) @ vh).transpose(1, 2).reshape(B, S, H * D)

    return attention


def padded_program(dtype: str, scale: float):  # noqa: ANN201
    """BERT's attention: q, k, v [B, H, S, D] and an additive [B, S] mask."""
    import tcc.frontend as tf
    from tcc.frontend import Tensor, program, syms

    B, H, S, D = syms("B H S D")  # noqa: N806
    elt = getattr(tf, dtype)

    @program
    def attention(q: Tensor[B, H, S, D, elt], k: Tensor[B, H, S, D, elt],  # type: ignore[valid-type]
                  v: Tensor[B, H, S, D, elt], mask: Tensor[B, S, elt]):  # type: ignore[valid-type]
        s = (q @ k.transpose(-1, -2)) * scale + mask.reshape(B, 1, 1, S)
        return s.softmax(-1) @ v

    return attention


def build(directory: Path, only: set[str] | None = None, variant: str = "",
          stages: int | None = None) -> None:
    """Every case's sm_90 and sm_80 kernels and the manifest; with `variant`,
    only the sm_90 kernels, saved as NAME{variant}.tcck (`stages`: the
    default plan with that num_stages)."""
    import tcc

    directory.mkdir(parents=True, exist_ok=True)
    entries = [{"name": case_name(bh, s, d, dtype, causal), "bh": bh, "s": s, "d": d,
                "dtype": dtype, "causal": causal, "layout": "bhsd"}
               for bh, s, d, dtype, causal in CASES]
    entries += [{"name": "bshd_" + case_name(b * h, s, d, dtype, causal), "b": b, "h": h,
                 "bh": b * h, "s": s, "d": d, "dtype": dtype, "causal": causal,
                 "layout": "bshd"} for b, h, s, d, dtype, causal in BSHD_CASES]
    entries += [{"name": "padded_" + case_name(b * h, s, d, dtype, False), "b": b, "h": h,
                 "bh": b * h, "s": s, "d": d, "dtype": dtype, "causal": False,
                 "layout": "padded"} for b, h, s, d, dtype in PADDED_CASES]
    manifest = []
    for entry in entries:
        name, s, d, dtype, causal = (entry[key] for key in ("name", "s", "d", "dtype",
                                                             "causal"))
        if only and name not in only:
            continue
        entry["scale"] = scale = 1.0 / math.sqrt(d)
        if entry["layout"] in ("bshd", "padded"):
            make = bshd_program if entry["layout"] == "bshd" else (
                lambda dt, sc, _causal: padded_program(dt, sc))
            program, sizes = make(dtype, scale, causal), {
                "B": entry["b"], "H": entry["h"], "S": s, "D": d}
        else:
            program, sizes = attention_program(dtype, scale, causal), {
                "BH": entry["bh"], "S": s, "D": d}
        start = time.perf_counter()
        targets = {variant: "sm_90"} if variant else TARGETS
        for suffix, target in targets.items():
            kernel = tcc.compile(program, target, **sizes)
            if stages is not None:
                name0 = kernel.kernels[0].name
                found = re.search(r"#tile\.lowering_config<[^>]*>", kernel.ir["tile"])
                default = found.group(0) if found else ""
                plan = default.replace("num_stages = 2", f"num_stages = {stages}")
                if plan == default:
                    raise SystemExit(f"{name}: no num_stages = 2 in the plan {default!r}")
                kernel = tcc.compile(program, target, plans={name0: plan}, cache=False,
                                     **sizes)
            kernel.artifact.save(directory / f"{name}{suffix}.tcck")
        entry["kernels"] = len(kernel.kernels)
        entry["compile_s"] = time.perf_counter() - start
        manifest.append(entry)
        print(f"built {name}{variant}: {len(kernel.kernels)} kernel(s) in "
              f"{entry['compile_s']:.1f} s")
    if not variant:
        (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def reference(q, k, v, scale: float, causal: bool, bias=None):  # noqa: ANN001, ANN201
    """float64 attention, one head at a time (S x S scores in float64);
    `bias` [B·H, S] is added to every query's scores of its head."""
    import torch

    out = torch.empty(q.shape, dtype=torch.float64, device=q.device)
    n = q.shape[1]
    keep = torch.ones((n, n), dtype=torch.bool, device=q.device).tril()
    for h in range(q.shape[0]):
        s = (q[h].double() @ k[h].double().T) * scale
        if causal:
            s = s.masked_fill(~keep, float("-inf"))
        if bias is not None:
            s = s + bias[h].double()[None, :]
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
        bshd = entry.get("layout") == "bshd"
        mask = None
        if entry.get("layout") == "padded":
            # [B, H, S, D] heads; batch i keeps its first lengths[i] keys.
            b, h = entry["b"], entry["h"]
            q, k, v = (torch.randn((bh, s, d), generator=gen, device="cuda").to(dtype)
                       for _ in range(3))
            lengths = torch.randint(s // 4, s + 1, (b,), generator=gen, device="cuda")
            lengths[0] = s
            keys = torch.arange(s, device="cuda")[None, :]
            mask = torch.where(keys < lengths[:, None], 0.0, -10000.0).to(dtype)
            heads = [x.view(b, h, s, d) for x in (q, k, v)]
            stored, out_shape = [*heads, mask], (b, h, s, d)
        elif bshd:
            # Stored [B, S, H, D]; the heads [B, H, S, D] are strided views.
            b, h = entry["b"], entry["h"]
            stored = [torch.randn((b, s, h, d), generator=gen, device="cuda").to(dtype)
                      for _ in range(3)]
            heads = [x.transpose(1, 2) for x in stored]
            # Contiguous copies (reshape alone is a strided view when B = 1).
            q, k, v = (x.reshape(bh, s, d).contiguous() for x in heads)
            out_shape = (b, s, h * d)
        else:
            q, k, v = (torch.randn((bh, s, d), generator=gen, device="cuda").to(dtype)
                       for _ in range(3))
            stored, heads, out_shape = [q, k, v], [x[None] for x in (q, k, v)], (bh, s, d)
        ref = reference(q, k, v, scale, causal,
                        None if mask is None else mask.repeat_interleave(entry["h"], 0))
        kernels = {"tcc": load(directory / f"{entry['name']}.tcck"),
                   "tcc mma.sync": load(directory / f"{entry['name']}.sm80.tcck")}
        for path in sorted(directory.glob(f"{entry['name']}.*.tcck")):
            suffix = path.name[len(entry["name"]):-len(".tcck")]
            if suffix != ".sm80":
                kernels[f"tcc {suffix[1:]}"] = load(path)
        errors, ok = {}, True
        for label, kern in kernels.items():
            result = torch.full(out_shape, float("nan"), device="cuda", dtype=dtype)
            kern(*stored, out=result)
            if bshd:  # back to [B·H, S, D]
                result = result.view(b, s, h, d).transpose(1, 2).reshape(bh, s, d)
            elif mask is not None:
                result = result.view(bh, s, d)
            unwritten, errors[label] = check_against_float64(result, ref)
            ok = ok and unwritten == 0 and errors[label] <= TOLERANCE[entry["dtype"]]
        result = torch.empty(out_shape, device="cuda", dtype=dtype)
        rel = errors["tcc"]
        attn_mask = None if mask is None else mask[:, None, None, :]
        _, rel_sdpa = check_against_float64(F.scaled_dot_product_attention(
            *heads, attn_mask=attn_mask, scale=scale, is_causal=causal).reshape(bh, s, d), ref)
        # (Triton's kernel takes no mask.)
        rel_triton = (float("nan") if mask is not None
                      else check_against_float64(tri(q, k, v, scale, causal), ref)[1])
        failures += not ok
        row = {"name": entry["name"], "rel_err": rel, "rel_err_mma_sync": errors["tcc mma.sync"],
               "rel_err_sdpa": rel_sdpa, "rel_errs": errors,
               "rel_err_triton": rel_triton, "ok": ok, "kernels": entry["kernels"]}
        print(f"{'ok  ' if ok else 'FAIL'} {entry['name']:34s} rel.err "
              + ", ".join(f"{lab} {e:.1e}" for lab, e in errors.items())
              + f" (SDPA {rel_sdpa:.1e}, Triton {rel_triton:.1e}; "
              f"{entry['kernels']} kernel(s))", flush=True)
        if check_only:
            continue
        # Causal: the half of the scores computed (SDPA's convention).
        flops = 4.0 * bh * s * s * d / (2 if causal else 1)

        def sdpa(heads_=heads, scale_=scale, causal_=causal, mask_=attn_mask) -> None:  # noqa: ANN001
            # Flash for unmasked cases; with a mask, the efficient backend.
            backend = (SDPBackend.FLASH_ATTENTION if mask_ is None
                       else SDPBackend.EFFICIENT_ATTENTION)
            with sdpa_kernel(backend):
                F.scaled_dot_product_attention(*heads_, attn_mask=mask_, scale=scale_,
                                               is_causal=causal_)

        timed = {label: (lambda k_=kern, r_=result, x_=stored: k_(*x_, out=r_))
                 for label, kern in kernels.items()}
        timed["SDPA"] = sdpa
        if mask is None:
            timed["triton"] = lambda q_=q, kk=k, v_=v, s_=scale, c_=causal: tri(q_, kk, v_, s_, c_)
        for label, fn in timed.items():
            ms = triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")
            row[label] = flops / (ms * 1e-3) / 1e12
        rows.append(row)
        print("    " + " ".join(f"{lab} {row[lab]:.0f}" for lab in timed) + " TFLOP/s",
              flush=True)
    if check_only:
        return 1 if failures else 0
    (out / "attention.json").write_text(json.dumps(rows, indent=1))
    variants = sorted({lab for r in rows for lab in r["rel_errs"]} - {"tcc", "tcc mma.sync"})
    lines = ["| case | rel. err (SDPA, Triton) | tcc TFLOP/s | tcc mma.sync | "
             + "".join(f"{lab} | " for lab in variants)
             + "SDPA | Triton | tcc / SDPA | tcc / Triton |",
             "|---|---|---|---|" + "---|" * len(variants) + "---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['rel_err']:.1e} ({r['rel_err_sdpa']:.1e}, "
                     f"{r['rel_err_triton']:.1e}) | {r['tcc']:.0f} | {r['tcc mma.sync']:.0f} | "
                     + "".join(f"{r[lab]:.0f} | " if lab in r else "- | " for lab in variants)
                     + f"{r['SDPA']:.0f} | "
                     + (f"{r['triton']:.0f} | " if "triton" in r else "- | ")
                     + f"{r['tcc'] / r['SDPA']:.2f} | "
                     + (f"{r['tcc'] / r['triton']:.2f} |" if "triton" in r else "- |"))
    report = "\n".join(lines)
    (out / "attention.md").write_text(report + "\n")
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    flags = [a for a in sys.argv[2:] if a.startswith("--")]
    paths = [a for a in sys.argv[2:] if not a.startswith("--")]
    def flag(key: str) -> str | None:
        return next((f.split("=", 1)[1] for f in flags if f.startswith(f"--{key}=")), None)
    only = set(flag("only").split(",")) if flag("only") else None
    stages = flag("stages")
    if verb == "build" and len(paths) == 1:
        build(Path(paths[0]), only, flag("variant") or "",
              int(stages) if stages else None)
    elif verb == "run" and len(paths) == 2:
        sys.exit(run(Path(paths[0]), Path(paths[1]), "--check-only" in flags))
    else:
        sys.exit(__doc__)
