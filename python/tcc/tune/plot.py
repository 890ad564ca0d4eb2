"""A tuning run as a picture: each kernel's candidate plans, fastest first,
against the heuristics' plan (``tcc tune plot DIR``; matplotlib, the ``plot``
extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def plot_run(directory: str | Path, out: str | Path | None = None) -> Path:
    """Draw ``DIR/results.json`` (``tcc tune run``'s) as one panel per kernel:
    the time of every correct candidate, sorted, with the heuristics' time
    as a line and the winner marked; wrong or refused candidates are counted
    in the title. Writes ``out`` (default ``DIR/tuning.png``) and returns it.
    Raises FileNotFoundError without results.json and ImportError without
    matplotlib."""
    directory = Path(directory)
    results: dict[str, Any] = json.loads((directory / "results.json").read_text())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = sorted({v["kernel"] for v in results["variants"]})
    fig, axes = plt.subplots(len(kernels), 1, figsize=(8.0, 2.6 * max(1, len(kernels))),
                             squeeze=False)
    default_us = results["default_ms"] * 1e3
    for ax, kernel in zip(axes[:, 0], kernels, strict=True):
        rows = [v for v in results["variants"] if v["kernel"] == kernel]
        good = sorted((v for v in rows if v.get("ok")), key=lambda v: v["ms"])
        times = [v["ms"] * 1e3 for v in good]
        best = results["best"].get(kernel)
        colors = ["tab:green" if best and v["plan"] == best["plan"] else "tab:blue"
                  for v in good]
        ax.bar(range(len(times)), times, color=colors)
        ax.axhline(default_us, color="black", linewidth=0.8,
                   label=f"heuristics' plans (whole program) {default_us:.1f} us")
        ax.set_ylabel("us")
        ax.set_xticks([])
        ax.set_title(f"{kernel}: {len(good)} correct candidates, fastest first "
                     f"({len(rows) - len(good)} wrong or refused)", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"tcc tune run on {results.get('device', '?')} ({results['target']})",
                 fontsize=10)
    fig.tight_layout()
    path = Path(out) if out is not None else directory / "tuning.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
