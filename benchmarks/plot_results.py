"""Plots of benchmarks/programs.py results: how close each program comes to
its floor, for tcc, torch eager and torch.compile side by side.

    python benchmarks/plot_results.py RESULTS.json OUT.png [--copy-gbs=4246] [--peak-tflops=989]

RESULTS.json is what `programs.py run` writes (programs.json; `run` also
calls this itself when matplotlib is installed: the `plot` extra). A
program's floor is the time its bytes take at the copy ceiling (each input
read once, each output written once) or, for programs with GEMMs, its flops
at the tensor-core peak, whichever is longer; the bars are floor / measured
time (1.0: at the roof). Defaults: the H200's measured copy ceiling and its
dense f16/bf16 tensor-core peak. Programs that only read (a full sum) can
pass 1.0: the ceiling is a copy's, reads and writes together.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

WHO = (("tcc", "tcc"), ("eager", "torch eager"), ("compile", "torch.compile"))


def floor_ms(row: dict[str, Any], copy_gbs: float, peak_tflops: float) -> float:
    """The program's floor in ms: its bytes at the copy ceiling, or its flops
    at the tensor-core peak when that is longer."""
    memory = row["bytes"] / (copy_gbs * 1e9) * 1e3
    if row["unit"] != "TFLOP/s":
        return memory
    # rate = flops / (ms * 1e-3) / 1e12, so flops = rate * ms * 1e9.
    flops = row["rate"]["tcc"] * row["ms"]["tcc"] * 1e9
    return max(memory, flops / (peak_tflops * 1e12) * 1e3)


def plot_programs(rows: list[dict[str, Any]], out: Path, copy_gbs: float = 4246.0,
                  peak_tflops: float = 989.0) -> Path:
    """Write a bar chart of floor / time per program (tcc, eager, compile) to
    ``out`` (PNG) and return it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = [r for r in rows if "ms" in r]
    if not timed:
        raise ValueError("no timed programs in the results (a --check-only run?)")
    names = [r["name"] for r in timed]
    fig, ax = plt.subplots(figsize=(max(8.0, 0.38 * len(names)), 5.0))
    width = 0.27
    for i, (key, label) in enumerate(WHO):
        fractions = [floor_ms(r, copy_gbs, peak_tflops) / r["ms"][key] for r in timed]
        ax.bar([x + (i - 1) * width for x in range(len(names))], fractions, width, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.9, color="gray", linewidth=0.6, linestyle="--")
    ax.set_xticks(range(len(names)), names, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("floor / measured time")
    ax.set_ylim(0, 1.1)
    ax.set_title(f"Whole programs against their floor (copy {copy_gbs:.0f} GB/s, "
                 f"tensor cores {peak_tflops:.0f} TFLOP/s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def main(argv: list[str]) -> int:
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    options = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    unknown = set(options) - {"copy-gbs", "peak-tflops"}
    if unknown:
        print(f"unknown option(s) {sorted(unknown)}\n{__doc__}", file=sys.stderr)
        return 2
    rows = json.loads(Path(paths[0]).read_text())
    out = plot_programs(rows, Path(paths[1]), float(options.get("copy-gbs", 4246)),
                        float(options.get("peak-tflops", 989)))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
