"""Sweep tcc's schedule knobs (warps per program, block size) for the
bandwidth benchmarks and time every variant on the GPU.

    python benchmarks/tune_schedule.py build DIR          # here (MLIR)
    PYTHONPATH=python python3 benchmarks/tune_schedule.py run DIR OUT   # GPU
    python benchmarks/tune_schedule.py plot OUT/tune.json OUT.png       # the tuning curves

``plot`` draws one panel per benchmark: GB/s against elements per program,
one curve per warp count, the copy ceiling as a line (matplotlib: the
``plot`` or ``test`` extra).
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gpu_suite import _torch_inputs, program_text  # noqa: E402

CASES = (
    ("bias_gelu", "f32", (16384, 8192)),
    ("bias_gelu", "bf16", (16384, 8192)),
    ("row_sum", "f32", (32768, 4096)),
)
WARPS = (4, 8)
ELEMENTS = (2048, 4096, 8192, 16384)


def build(directory: Path) -> None:
    from tcc.compiler.compile import compile as tcc_compile

    directory.mkdir(parents=True, exist_ok=True)
    variants = list(itertools.product(CASES, WARPS, ELEMENTS))
    manifest = []
    try:
        from tqdm import tqdm
    except ImportError:  # progress bar is optional

        def tqdm(x, **_):  # noqa: ANN001, ANN202
            return x

    for (op, dtype, (m, n)), warps, elements in tqdm(variants, desc="compiling variants"):
        name = f"{op}_{dtype}_{m}x{n}_w{warps}_e{elements}"
        kernel = tcc_compile(
            program_text(op, dtype, m, n),
            "sm_90",
            num_warps=warps,
            elements_per_program=elements,
            cache=False,
        )
        kernel.artifact.save(directory / f"{name}.tcck")
        manifest.append(
            {
                "name": name,
                "op": op,
                "dtype": dtype,
                "shape": [m, n],
                "num_warps": warps,
                "elements_per_program": elements,
            }
        )
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


def run(directory: Path, out: Path) -> None:
    import torch
    import triton.testing

    from tcc.runtime import load

    out.mkdir(parents=True, exist_ok=True)
    dtypes = {"f32": torch.float32, "bf16": torch.bfloat16}
    gen = torch.Generator(device="cuda").manual_seed(7)
    rows = []
    for entry in json.loads((directory / "manifest.json").read_text()):
        m, n = entry["shape"]
        inputs = _torch_inputs(entry["op"], dtypes[entry["dtype"]], m, n, gen)
        kernel = load(directory / f"{entry['name']}.tcck")
        result = kernel(*inputs)
        nbytes = sum(t.numel() * t.element_size() for t in (*inputs, result))
        ms = triton.testing.do_bench(
            lambda k=kernel, i=inputs, o=result: k(*i, out=o),
            warmup=50,
            rep=300,
            return_mode="median",
        )
        rows.append({**entry, "gbps": nbytes / (ms * 1e-3) / 1e9})
        print(f"{entry['name']:45s} {rows[-1]['gbps']:7.0f} GB/s")
    (out / "tune.json").write_text(json.dumps(rows, indent=1))


def plot(results: Path, png: Path, ceiling_gbps: float = 4246.0) -> Path:
    """The sweep's tuning curves as a PNG (``results``: what ``run`` wrote)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = json.loads(results.read_text())
    benches = sorted({(r["op"], r["dtype"], tuple(r["shape"])) for r in rows})
    fig, axes = plt.subplots(1, len(benches), figsize=(4.2 * len(benches), 3.4), squeeze=False)
    for ax, (op, dtype, shape) in zip(axes[0], benches, strict=True):
        mine = [r for r in rows if (r["op"], r["dtype"], tuple(r["shape"])) == (op, dtype, shape)]
        for warps in sorted({r["num_warps"] for r in mine}):
            curve = sorted((r["elements_per_program"], r["gbps"]) for r in mine
                           if r["num_warps"] == warps)
            ax.plot([c[0] for c in curve], [c[1] for c in curve], marker="o",
                    label=f"{warps} warps")
        best = max(mine, key=lambda r: r["gbps"])
        ax.scatter([best["elements_per_program"]], [best["gbps"]], s=120, facecolors="none",
                   edgecolors="green", linewidths=2, zorder=3, label="fastest")
        ax.axhline(ceiling_gbps, color="gray", linestyle="--", label="copy ceiling")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements per program")
        ax.set_ylabel("GB/s")
        ax.set_title(f"{op} {dtype} {shape[0]}x{shape[1]}")
        ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


if __name__ == "__main__":
    if sys.argv[1:2] == ["build"]:
        build(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["run"]:
        run(Path(sys.argv[2]), Path(sys.argv[3]))
    elif sys.argv[1:2] == ["plot"]:
        print(plot(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        print(__doc__)
