"""Time one kernel under several plans (#tile.lowering_config written on its
root op, which tcc-select-strategy keeps) next to torch eager and
torch.compile, to check or retune a form's heuristics on a GPU.

    # here (CPU, MLIR): compile every plan of every case into DIR
    PYTHONPATH=build/dev/python_packages python benchmarks/plan_sweep.py build DIR [CASE ...]
    # on the GPU machine (tcc.runtime, torch):
    PYTHONPATH=python python3 benchmarks/plan_sweep.py run DIR OUT

`build` prints each plan the strategy would choose ("auto") beside the ones
swept. `run` checks every variant on fresh random inputs against float64
(NaN-poisoned outputs) and prints a table of GB/s per plan with the ratios
to torch eager and torch.compile (medians of CUDA-event timings).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from programs import F, bench, check  # noqa: E402  (beside this script)


@dataclass(frozen=True)
class SweepCase:
    name: str
    text: str  # linalg on tensors; {config} is the root op's attribute dict
    torch: str  # a lambda over the inputs, evaluated on the GPU machine
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    plans: tuple[str, ...]
    tol: float
    scale: float = 1.0  # inputs are randn * scale


def _softmax_text(m: int, n: int, dtype: str) -> str:
    t = f"tensor<{m}x{n}x{dtype}>"
    return (f"func.func @softmax(%x: {t}) -> {t} {{\n"
            f"  %e = tensor.empty() : {t}\n"
            f"  %0 = \"linalg.softmax\"(%x, %e) <{{dimension = 1 : i64}}> {{config}}"
            f" : ({t}, {t}) -> {t}\n"
            f"  return %0 : {t}\n}}\n")


def _scaled_softmax_text(m: int, n: int, dtype: str) -> str:
    """(x * 0.5).softmax(-1): an elementwise producer, so the softmax is
    decomposed into a row program."""
    t = f"tensor<{m}x{n}x{dtype}>"
    return (f"#id = affine_map<(d0, d1) -> (d0, d1)>\n"
            f"func.func @softmax(%x: {t}) -> {t} {{\n"
            f"  %c = arith.constant 0.5 : {dtype}\n"
            f"  %e0 = tensor.empty() : {t}\n"
            f"  %s = linalg.generic {{indexing_maps = [#id, #id], iterator_types = "
            f"[\"parallel\", \"parallel\"]}} ins(%x : {t}) outs(%e0 : {t}) {{config}} {{\n"
            f"  ^bb0(%a: {dtype}, %o: {dtype}):\n"
            f"    %y = arith.mulf %a, %c : {dtype}\n"
            f"    linalg.yield %y : {dtype}\n"
            f"  }} -> {t}\n"
            f"  %e = tensor.empty() : {t}\n"
            f"  %0 = linalg.softmax dimension(1) ins(%s : {t}) outs(%e : {t}) -> {t}\n"
            f"  return %0 : {t}\n}}\n")


def _softmax_plans(rows: tuple[int, ...], warps: tuple[int, ...], n: int) -> tuple[str, ...]:
    block_n = 1 << (n - 1).bit_length()
    return tuple(f"#tile.lowering_config<form = softmax, block = [{bm}, {block_n}], "
                 f"num_warps = {w}>" for bm in rows for w in warps)


def _vocab_plans() -> tuple[str, ...]:
    return tuple(f"#tile.lowering_config<form = softmax, block = [1, {bn}], "
                 f"num_warps = {w}, walk = {walk}>"
                 for walk in ("staged", "looped")
                 for bn, w in ((1024, 4), (2048, 4), (2048, 8), (4096, 8), (4096, 16),
                               (8192, 16), (16384, 16)))


CASES = {
    c.name: c
    for c in (
        SweepCase("softmax_f32_4096x1000", _softmax_text(4096, 1000, "f32"),
                  "lambda x: torch.softmax(x, -1)", (((4096, 1000), "f32"),),
                  _softmax_plans((1, 2, 4, 8), (1, 2, 4, 8), 1000), 1e-5),
        SweepCase("softmax_f32_16384x1000", _softmax_text(16384, 1000, "f32"),
                  "lambda x: torch.softmax(x, -1)", (((16384, 1000), "f32"),),
                  _softmax_plans((1, 2, 4), (1, 2, 4, 8), 1000), 1e-5),
        SweepCase("softmax_f32_8192x512", _softmax_text(8192, 512, "f32"),
                  "lambda x: torch.softmax(x, -1)", (((8192, 512), "f32"),),
                  _softmax_plans((1, 2, 4, 8), (1, 4), 512), 1e-5),
        SweepCase("softmax_f32_16384x256", _softmax_text(16384, 256, "f32"),
                  "lambda x: torch.softmax(x, -1)", (((16384, 256), "f32"),),
                  _softmax_plans((1, 4, 8), (1, 4), 256), 1e-5),
        # A vocabulary-sized row: the online softmax's chunk, warps and walk
        # (staged: the row copied once into shared memory; looped: both
        # walks over global memory).
        SweepCase("softmax_f16_4096x50257", _softmax_text(4096, 50257, "f16"),
                  "lambda x: torch.softmax(x, -1)", (((4096, 50257), "f16"),),
                  _vocab_plans(), 2e-3),
        SweepCase("softmax_f16_64x50257", _softmax_text(64, 50257, "f16"),
                  "lambda x: torch.softmax(x, -1)", (((64, 50257), "f16"),),
                  _vocab_plans(), 2e-3),
        SweepCase("softmax_f32_4096x50257", _softmax_text(4096, 50257, "f32"),
                  "lambda x: torch.softmax(x, -1)", (((4096, 50257), "f32"),),
                  _vocab_plans(), 1e-5),
        # The softmax form against the row program it becomes with a
        # producer, on small and on GEMM-sized (std 32) logits.
        SweepCase("softmax_f16_4096x4096", _softmax_text(4096, 4096, "f16"),
                  "lambda x: torch.softmax(x, -1)", (((4096, 4096), "f16"),), (), 2e-3),
        SweepCase("softmax_f16_4096x4096_std32", _softmax_text(4096, 4096, "f16"),
                  "lambda x: torch.softmax(x, -1)", (((4096, 4096), "f16"),), (), 2e-3,
                  scale=32.0),
        SweepCase("rows_softmax_f16_4096x4096", _scaled_softmax_text(4096, 4096, "f16"),
                  "lambda x: torch.softmax(x * 0.5, -1)", (((4096, 4096), "f16"),), (),
                  2e-3),
        SweepCase("rows_softmax_f16_4096x4096_std32", _scaled_softmax_text(4096, 4096, "f16"),
                  "lambda x: torch.softmax(x * 0.5, -1)", (((4096, 4096), "f16"),), (),
                  2e-3, scale=32.0),
    )
}


def _with_config(text: str, plan: str | None) -> str:
    attrs = f"{{tile.lowering_config = {plan}}}" if plan else ""
    return text.replace("{config}", attrs)


# ------------------------------------------------------------- CPU side --
def build(directory: Path, names: list[str]) -> None:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.tune.space import plan_in

    directory.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name in names or list(CASES):
        case = CASES[name]
        for i, plan in enumerate((None, *case.plans)):
            try:
                program = tcc_compile(_with_config(case.text, plan), "sm_90", cache=False)
            except Exception as exc:  # noqa: BLE001  (a plan the builder refuses)
                print(f"{name} plan {plan}: refused: {str(exc).splitlines()[-1][:160]}")
                continue
            chosen = plan_in(program.kernels[0].ir["tile"])
            label = "auto: " + chosen if plan is None and chosen else (plan or "auto")
            path = f"{name}.{i}.tccprog"
            program.artifact.save(directory / path)
            manifest.append({"case": name, "plan": label, "path": path})
            print(f"built {name} {label}", flush=True)
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


# ------------------------------------------------------------- GPU side --
def run(directory: Path, out: Path) -> None:
    import torch

    import tcc.runtime

    torch.manual_seed(0)
    manifest = json.loads((directory / "manifest.json").read_text())
    rows, peers = [], {}
    for entry in manifest:
        case = CASES[entry["case"]]
        fn = eval(case.torch, {"torch": torch})  # noqa: S307  (our own table above)
        inputs = [(torch.randn(shape, device="cuda") * case.scale).to(getattr(torch, F[dt]))
                  for shape, dt in case.inputs]
        program = tcc.runtime.load(str(directory / entry["path"]))
        err, poisoned = check(program, fn, inputs)
        nbytes = sum(x.numel() * x.element_size() for x in inputs) + \
            poisoned.numel() * poisoned.element_size()
        if case.name not in peers:
            compiled = torch.compile(fn)
            compiled(*inputs)
            peers[case.name] = (bench(lambda a=inputs, f=fn: f(*a)),
                                bench(lambda a=inputs, c=compiled: c(*a)))
        eager, comp = peers[case.name]
        ms = bench(lambda p=program, a=inputs, o=poisoned: p(*a, out=o))
        gbs = nbytes / (ms * 1e-3) / 1e9
        row = {"case": case.name, "plan": entry["plan"], "ok": err <= case.tol, "rel_err": err,
               "gbs": gbs, "eager_gbs": nbytes / (eager * 1e-3) / 1e9,
               "compile_gbs": nbytes / (comp * 1e-3) / 1e9}
        rows.append(row)
        print(f"{case.name:26s} {'ok ' if row['ok'] else 'BAD'} {gbs:7.0f} GB/s  "
              f"x{gbs / row['eager_gbs']:.2f} eager  x{gbs / row['compile_gbs']:.2f} compile  "
              f"{entry['plan']}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan_sweep.json").write_text(json.dumps(rows, indent=1))
    lines = ["| case | plan | correct | tcc GB/s | eager GB/s | compile GB/s | tcc/compile |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['case']} | `{r['plan']}` | {'yes' if r['ok'] else 'NO'} | "
                     f"{r['gbs']:.0f} | {r['eager_gbs']:.0f} | {r['compile_gbs']:.0f} | "
                     f"{r['gbs'] / r['compile_gbs']:.2f} |")
    (out / "plan_sweep.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
