"""One artifact for every size: dynamic kernels against their static twins.

    python benchmarks/dynamic_shapes.py build DIR [NAMES]  # here (MLIR): compile
    python benchmarks/dynamic_shapes.py run DIR OUT [--check-only]  # the GPU machine
    python benchmarks/dynamic_shapes.py compiles OUT    # here: 64 sizes, compiles and seconds

``build`` compiles each program once with M left unbound (sm_90), once per
tcc.jit shape class of the measured M (planned for the class) and once per
measured M with M bound (the static twin). ``run`` checks both against
float64 on fresh random inputs into NaN-poisoned outputs and times them with
CUDA events (triton.testing.do_bench medians), torch eager beside them, and
prints the dynamic / static ratio per size (OUT/dynamic_shapes.json).
``compiles`` counts what 64 values of M from 1 to 8192 cost: one compile of
the dynamic program against one per size. ``sweep-build DIR`` / ``sweep-run
DIR OUT`` time each GEMM program's dynamic artifact planned for several
``dynamic_extent`` values at many M (where tcc.jit's class bounds come from).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import programs as P  # noqa: E402
from tcc.compiler.jit import CLASSES, size_class  # noqa: E402

# (program, bound sizes, the M measured)
CASES = {
    "layer_norm": ("layer_norm", {"N": 4096}, [2, 100, 1000, 4096, 16384]),
    "softmax_f16": ("softmax_f16", {"N": 4096}, [2, 100, 1000, 4096, 16384]),
    "bias_gelu": ("bias_gelu", {"N": 4096}, [2, 100, 1000, 4096, 16384]),
    "linear": ("linear", {"K": 4096, "N": 4096}, [1, 128, 256, 1000, 4096, 16384]),
    # Intermediates of M rows between kernels (buffers sized per call).
    "gemm_softmax": ("gemm_softmax", {"K": 1024, "N": 4096}, [16, 128, 1000, 4096]),
    "swiglu": ("swiglu", {"K": 1024, "N": 4096}, [16, 128, 1000, 4096]),
    # x (B, S, K) viewed as (B * S, K): B and S dynamic, the GEMM's rows B_S.
    "linear_view": ("linear_view", {"K": 4096, "N": 4096},
                    [{"B": 1, "S": 100}, {"B": 2, "S": 512}, {"B": 8, "S": 512},
                     {"B": 4, "S": 4096}]),
}


def _sizes(m: int | dict[str, int]) -> dict[str, int]:
    """The dynamic sizes of a measured point: M, or the program's own."""
    return {"M": m} if isinstance(m, int) else dict(m)


def _label(m: int | dict[str, int]) -> str:
    return str(m) if isinstance(m, int) else "x".join(f"{k}{v}" for k, v in m.items())


def _rows(m: int | dict[str, int]) -> int:
    return int(np.prod(list(_sizes(m).values())))
SIZES_64 = sorted({int(round(v)) for v in np.geomspace(1, 8192, 80)})[:64]


# --small (for racecheck): every program's dynamic artifact and all three
# class artifacts (each correct for every M), checked at these sizes only.
SMALL_M = (2, 16, 100, 128)


def build(directory: Path, small: bool = False, names: list[str] | None = None) -> None:
    import tcc

    directory.mkdir(parents=True, exist_ok=True)
    programs = P._programs()
    manifest = {}
    unknown = set(names or ()) - set(CASES)
    if unknown:
        raise SystemExit(f"unknown cases {sorted(unknown)}; known: {sorted(CASES)}")
    for name, (kind, bound, ms) in CASES.items():
        if names and name not in names:
            continue
        if small:
            ms = [m for m in SMALL_M if m >= min(ms)] if isinstance(ms[0], int) else ms[:2]
        # tcc.jit's classes are per leading size M (a view's B and S: none).
        classes = [] if not isinstance(ms[0], int) else \
            range(len(CLASSES)) if small else sorted({size_class(m) for m in ms})
        start = time.perf_counter()
        dyn = tcc.compile(programs[kind], "sm_90", cache=False, **bound)
        seconds = time.perf_counter() - start
        dyn.artifact.save(directory / f"{name}-dynamic.tccprog")
        entry = {"compile_s": seconds, "kernels": [list(k.launch.grid) for k in
                                                   dyn.artifact.kernels], "static": {},
                 "ms": ms}
        print(f"{name}: dynamic {seconds:.1f} s grid {entry['kernels']}", flush=True)
        for c in classes:
            # tcc.jit's shape class of these sizes: the program planned for it.
            art = tcc.compile(programs[kind], "sm_90", cache=False,
                              dynamic_extent=CLASSES[c][1], **bound).artifact
            art.save(directory / f"{name}-class{c}.tccprog")
        for m in ms:
            start = time.perf_counter()
            st = tcc.compile(programs[kind], "sm_90", cache=False, **_sizes(m), **bound)
            entry["static"][_label(m)] = time.perf_counter() - start
            st.artifact.save(directory / f"{name}-{_label(m)}.tccprog")
        manifest[name] = entry
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))


SWEEP_EXTENTS = [64, 256, 1024, 4096, 16384]
SWEEP_M = [16, 128, 256, 512, 1000, 2048, 4096, 16384]
SWEEP = ("linear", "gemm_softmax", "swiglu")


def sweep_build(directory: Path) -> None:
    import tcc

    directory.mkdir(parents=True, exist_ok=True)
    programs = P._programs()
    for name in SWEEP:
        kind, bound, _ = CASES[name]
        for extent in SWEEP_EXTENTS:
            art = tcc.compile(programs[kind], "sm_90", cache=False, dynamic_extent=extent,
                              **bound).artifact
            art.save(directory / f"{name}-e{extent}.tccprog")
            print(f"{name} extent {extent}: grids {[k.launch.grid[0] for k in art.kernels]}",
                  flush=True)


def sweep_run(directory: Path, out: Path) -> None:
    import torch

    import tcc.runtime

    torch.manual_seed(0)
    rows = []
    for name in SWEEP:
        kind, bound, _ = CASES[name]
        progs = {e: tcc.runtime.load(directory / f"{name}-e{e}.tccprog") for e in SWEEP_EXTENTS}
        for m in SWEEP_M:
            case = P._case(kind, 0.0, M=m, **bound)
            inputs = [torch.randn(shape, device="cuda").to(getattr(torch, P.F[dt])) * 0.1
                      for shape, dt in case.inputs]
            ref = P._torch(kind)(*[x.double() for x in inputs])
            times = {}
            for e, prog in progs.items():
                got = prog(*inputs).double()
                err = float((got - ref).norm() / ref.norm())
                assert err < 2e-2, (name, m, e, err)
                times[e] = P.bench(lambda: prog(*inputs))  # noqa: B023
            best = min(times, key=times.get)  # type: ignore[arg-type]
            rows.append({"program": name, "M": m, "us": {e: t * 1e3 for e, t in times.items()}})
            print(f"{name:12s} M={m:6d} " + "  ".join(f"e{e}:{t * 1e3:7.1f}" for e, t in
                                                     times.items()) + f"  best e{best}",
                  flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "dynamic_extent_sweep.json").write_text(json.dumps(rows, indent=1))


def compiles(out: Path) -> None:
    """64 sizes of M: one dynamic compile against 64 static ones per program."""
    import tcc

    programs = P._programs()
    rows = {}
    for name in ("bias_gelu", "layer_norm", "linear"):
        kind, bound, _ = CASES[name]
        start = time.perf_counter()
        tcc.compile(programs[kind], "sm_90", cache=False, **bound)
        dynamic_s = time.perf_counter() - start
        start = time.perf_counter()
        for m in SIZES_64:
            tcc.compile(programs[kind], "sm_90", cache=False, M=m, **bound)
        static_s = time.perf_counter() - start
        rows[name] = {"sizes": len(SIZES_64), "dynamic_compiles": 1, "dynamic_s": dynamic_s,
                      "static_compiles": len(SIZES_64), "static_s": static_s}
        print(f"{name:12s} 64 sizes: dynamic 1 compile {dynamic_s:6.1f} s | static 64 "
              f"compiles {static_s:6.1f} s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "compiles.json").write_text(json.dumps(rows, indent=1))


def run(directory: Path, out: Path, check_only: bool = False) -> int:
    import torch

    import tcc.runtime

    torch.manual_seed(0)
    manifest = json.loads((directory / "manifest.json").read_text())
    rows = []
    failures = 0
    for name, entry in manifest.items():
        kind, bound, ms = CASES[name]
        ms = entry.get("ms", ms)
        dyn = tcc.runtime.load(directory / f"{name}-dynamic.tccprog")
        fn = P._torch(kind)
        for m in ms:
            static = tcc.runtime.load(directory / f"{name}-{_label(m)}.tccprog")
            case = P._case(kind, 0.0, **_sizes(m), **bound)
            scale = 0.1 if kind in ("linear", "linear_view", "swiglu", "gemm_softmax") else 1.0
            inputs = [torch.randn(shape, device="cuda").to(getattr(torch, P.F[dt])) * scale
                      for shape, dt in case.inputs]
            ref = fn(*[x.double() for x in inputs]).double()
            errs = {label: P.check(prog, fn, inputs, ref)[0]
                    for label, prog in (("dynamic", dyn), ("static", static))}
            small_path = directory / f"{name}-class{size_class(_rows(m))}.tccprog"
            if check_only:  # every class artifact built, each correct for every M
                for c in range(len(CLASSES)):
                    path = directory / f"{name}-class{c}.tccprog"
                    if path.exists():
                        errs[f"class{c}"] = P.check(tcc.runtime.load(path), fn, inputs, ref)[0]
                tol = next(c.tol for c in P.CASES.values() if c.kind == kind)
                bad = [k for k, e in errs.items() if not e <= tol]  # NaN: unwritten
                failures += bool(bad)
                print(f"{'FAIL' if bad else 'ok  '} {name:12s} M={_label(m):>6s} " + " ".join(
                    f"{k} {e:.1e}" for k, e in errs.items()), flush=True)
                del inputs, ref
                torch.cuda.empty_cache()
                continue
            t_dyn = P.bench(lambda: dyn(*inputs))  # noqa: B023
            t_static = P.bench(lambda: static(*inputs))  # noqa: B023
            t_eager = P.bench(lambda: fn(*inputs))  # noqa: B023
            row = {"program": name, "M": _label(m), "dynamic_ms": t_dyn, "static_ms": t_static,
                   "eager_ms": t_eager, "dynamic_over_static": t_static / t_dyn,
                   "err_dynamic": errs["dynamic"], "err_static": errs["static"]}
            if small_path.exists():
                small = tcc.runtime.load(small_path)
                row["err_class"] = P.check(small, fn, inputs, ref)[0]
                row["class_ms"] = P.bench(lambda: small(*inputs))  # noqa: B023
                row["class"] = size_class(_rows(m))
                print(f"{name:12s} M={_label(m):>6s} jit class {size_class(_rows(m))} "
                      f"{row['class_ms'] * 1e3:9.1f} us  "
                      f"static/class {t_static / row['class_ms']:5.2f}x  "
                      f"err {row['err_class']:.1e}", flush=True)
            rows.append(row)
            print(f"{name:12s} M={_label(m):>6s} dynamic {t_dyn * 1e3:9.1f} us  static "
                  f"{t_static * 1e3:9.1f} us  eager {t_eager * 1e3:9.1f} us  "
                  f"static/dynamic {t_static / t_dyn:5.2f}x  err {errs['dynamic']:.1e} / "
                  f"{errs['static']:.1e}", flush=True)
    if check_only:
        return 1 if failures else 0
    out.mkdir(parents=True, exist_ok=True)
    (out / "dynamic_shapes.json").write_text(json.dumps(rows, indent=1))
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("directory", type=Path)
    b.add_argument("--small", action="store_true",
                   help=f"M in {SMALL_M} and every class artifact (racecheck)")
    b.add_argument("names", nargs="*", help="only these cases (default: all)")
    r = sub.add_parser("run")
    r.add_argument("directory", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--check-only", action="store_true",
                   help="check every artifact at every M, no timing (compute-sanitizer)")
    c = sub.add_parser("compiles")
    c.add_argument("out", type=Path)
    sb = sub.add_parser("sweep-build")
    sb.add_argument("directory", type=Path)
    sr = sub.add_parser("sweep-run")
    sr.add_argument("directory", type=Path)
    sr.add_argument("out", type=Path)
    args = parser.parse_args()
    if args.cmd == "build":
        build(args.directory, args.small, args.names)
    elif args.cmd == "run":
        sys.exit(run(args.directory, args.out, args.check_only))
    elif args.cmd == "sweep-build":
        sweep_build(args.directory)
    elif args.cmd == "sweep-run":
        sweep_run(args.directory, args.out)
    else:
        compiles(args.out)


if __name__ == "__main__":
    main()
