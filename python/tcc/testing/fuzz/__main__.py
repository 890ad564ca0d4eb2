"""``python -m tcc.testing.fuzz opt|programs``: seeded, time-boxed fuzzing.

    # tcc-opt mutation fuzzing over the lit inputs, one hour:
    python -m tcc.testing.fuzz opt --tcc-opt build/dev/bin/tcc-opt --tests test \
        --seed 7 --seconds 3600
    # random programs, compiled and checked on the CPU emulator against float64:
    python -m tcc.testing.fuzz programs --seed 7 --seconds 3600
    # random programs at real sizes, compiled here, checked on a GPU (no MLIR there):
    python -m tcc.testing.fuzz gpu-build DIR --seed 51 --runs 500
    python -m tcc.testing.fuzz gpu-run DIR OUT

Prints a summary (outcome counts; crash and internal-error signatures with
their saved, minimized reproducers; mismatching programs) and exits 1 when
anything crashed, stopped on an internal error, hung or mismatched. A progress
line is written every 10 runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tcc.testing.fuzz")
    sub = parser.add_subparsers(dest="what", required=True)
    opt = sub.add_parser("opt", help="mutate lit inputs, run tcc-opt")
    opt.add_argument("--tcc-opt", default="tcc-opt")
    opt.add_argument("--tests", default="test", help="the lit tests' folder")
    opt.add_argument("--out", default=None, help="where crash reproducers go")
    opt.add_argument("--timeout", type=float, default=20.0, help="seconds before a hang")
    progs = sub.add_parser("programs", help="random programs against float64 numpy")
    progs.add_argument("--targets", default="sm_80,gfx942")
    gbuild = sub.add_parser("gpu-build", help="compile random programs at real sizes into DIR")
    gbuild.add_argument("directory")
    gbuild.add_argument("--target", default="sm_90")
    grun = sub.add_parser("gpu-run", help="run DIR's programs on the GPU against float64")
    grun.add_argument("directory")
    grun.add_argument("out")
    for p in (opt, progs, gbuild):
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--runs", type=int, default=None, help="how many (opt: mutations, "
                                                              "programs: programs)")
        p.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args(argv)
    if args.what == "gpu-run":
        from tcc.testing.fuzz.gpu import run

        report = run(Path(args.directory), Path(args.out))
        print(f"random programs at real sizes on {report['device']}, seed {report['seed']}: "
              f"{report['programs']} programs, {report['outcomes']}")
        for failure in report["failures"]:
            print(f"  {failure['kind']}: {failure['detail']}\n{failure['program']}")
        return 1 if any(f["kind"] != "refused" for f in report["failures"]) else 0
    if args.runs is None and args.seconds is None:
        args.runs = 100
    if args.what == "gpu-build":
        from tcc.testing.fuzz.gpu import build

        outcomes = build(Path(args.directory), args.seed, args.runs, args.target)
        print(f"built {args.runs} programs (seed {args.seed}) for {args.target}: "
              f"{dict(outcomes)}")
        return 1 if outcomes["crash"] else 0

    def progress(report: object) -> None:
        done = getattr(report, "runs", None) or getattr(report, "programs", 0)
        if done % 10 == 0:
            counts = ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items()))  # type: ignore[attr-defined]
            print(f"  {done}: {counts}", file=sys.stderr, flush=True)

    if args.what == "opt":
        from tcc.testing.fuzz.opt import campaign

        report = campaign(args.tcc_opt, Path(args.tests), args.seed, runs=args.runs,
                          seconds=args.seconds, timeout=args.timeout,
                          out=Path(args.out) if args.out else None, progress=progress)
        print(f"tcc-opt fuzzing, seed {args.seed}: {report.runs} runs, "
              f"{dict(sorted(report.outcomes.items()))}")
        for signature, path in report.crashes.items():
            print(f"  crash: {signature}\n    reproducer: {path}")
        for signature, path in report.internal.items():
            print(f"  internal error (no abort): {signature}\n    reproducer: {path}")
        for hang in report.hangs:
            print(f"  hang: {hang}")
        return 1 if report.crashes or report.internal or report.hangs else 0
    from tcc.testing.fuzz.programs import campaign as programs_campaign

    preport = programs_campaign(args.seed, count=args.runs, seconds=args.seconds,
                                targets=tuple(args.targets.split(",")), progress=progress)
    print(f"random programs, seed {args.seed}: {preport.programs} programs x "
          f"{args.targets}, {dict(sorted(preport.outcomes.items()))}")
    for reason, n in preport.refusals.most_common(10):
        print(f"  refused x{n}: {reason}")
    for kind, target, source, detail in preport.failures:
        print(f"  {kind} on {target}: {detail}\n{source}")
    return 1 if preport.failures else 0


if __name__ == "__main__":
    sys.exit(main())
