"""compute-sanitizer (memcheck, racecheck, synccheck) over every kernel of
every benchmark suite, in each suite's check-only mode, several runs at once.

    # here (CPU, MLIR): compile every suite into DIR/<suite>
    PYTHONPATH=build/dev/python_packages python benchmarks/sanitize.py build DIR
    # on the GPU machine: every (suite, tool) run, JOBS at a time, logs in OUT
    PYTHONPATH=python python3 benchmarks/sanitize.py run DIR OUT [--jobs=8] \\
        [--only=SUITE[:TOOL],...] \\
        [--timeout=SECONDS]   # per run

Each run is

    compute-sanitizer --tool TOOL --report-api-errors no --error-exitcode 99 \\
        python3 benchmarks/SCRIPT.py run DIR/SUITE OUT/... --check-only

(`--report-api-errors no`: torch's own cuGetProcAddress probes flood the log
otherwise). A run passes when it exits 0 and its log's summary reports no
error or hazard. GEMM kernels at the benchmark's sizes take racecheck most of
10 minutes each, so racecheck runs their small twins (the same plans at
smaller sizes: programs' small GEMM programs, `hopper_gemm.py --small`,
`gemm.py --small`); memcheck and synccheck run both.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOLS = ("memcheck", "racecheck", "synccheck")

# Extra flags per tool (none now). racecheck also checks torch's own
# kernels: it reports one hazard inside at::native::reduce_kernel, torch's
# float64 reference sum of reductions.py's long rows (2026-12-02), which
# `--kernel-name-exclude kns=at::native` did not filter out.
TOOL_FLAGS: dict[str, tuple[str, ...]] = {}

# The GEMM programs of benchmarks/programs.py at full size (racecheck runs
# their small twins, which the suite also holds).
BIG_GEMM_PROGRAMS = ("linear_4096x4096x4096", "swiglu_4096x1024x4096",
                     "gemm_softmax_4096x1024x4096", "attention_32x1024x64")

# suite -> (script, build arguments, run arguments after DIR OUT, tools)
SUITES: dict[str, tuple[str, list[str], list[str], tuple[str, ...]]] = {
    "programs": ("programs.py", [], ["--check-only"], ("memcheck", "synccheck")),
    # (memcheck and synccheck: the whole suite, above)
    "programs-race": ("programs.py", ["@race"], ["--check-only"], ("racecheck",)),
    "gpu_suite": ("gpu_suite.py", [], ["--check-only"], TOOLS),
    "hopper": ("hopper_gemm.py", [], ["--no-time"], ("memcheck", "synccheck")),
    "hopper-small": ("hopper_gemm.py", ["--small"], ["--no-time"], TOOLS),
    "gemm": ("gemm.py", [], ["--check-only"], ("memcheck", "synccheck")),
    "gemm-small": ("gemm.py", ["--small"], ["--check-only"], TOOLS),
    "reductions": ("reductions.py", [], ["--check-only"], TOOLS),
    "dynamic": ("dynamic_shapes.py", [], ["--check-only"], ("memcheck", "synccheck")),
    # The dynamic and class artifacts are one kernel for every M: racecheck
    # runs them at small M (the full-size run stopped at the 420-s limit).
    "dynamic-small": ("dynamic_shapes.py", ["--small"], ["--check-only"], TOOLS),
    "launch": ("launch_overhead.py", [], ["--check-only"], TOOLS),
}


def build(directory: Path, only: list[str] | None) -> None:
    sys.path.insert(0, str(HERE))
    import programs

    for suite, (script, args, _, _) in SUITES.items():
        if only and suite not in only:
            continue
        out = directory / suite
        if args == ["@race"]:
            args = [n for n in programs.CASES if n not in BIG_GEMM_PROGRAMS]
        command = [sys.executable, str(HERE / script), "build", str(out), *args]
        print(f"== {suite}: {' '.join(command[1:3])} ...", flush=True)
        subprocess.run(command, check=True)


_SUMMARY = re.compile(r"(ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: .*)")


def _one(directory: Path, out: Path, suite: str, tool: str,
         timeout: float) -> dict[str, object]:
    script, _, run_args, _ = SUITES[suite]
    log = out / f"{suite}-{tool}.log"
    command = ["python3", str(HERE / script), "run", str(directory / suite),
               str(out / f"{suite}-{tool}"), *run_args]
    start = time.perf_counter()
    with log.open("w") as f:
        try:
            rc: int | str = subprocess.run(
                ["compute-sanitizer", "--tool", tool, "--report-api-errors", "no",
                 "--error-exitcode", "99", *TOOL_FLAGS.get(tool, ()), *command],
                stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = f"timeout {timeout:.0f} s"
    text = log.read_text(errors="replace")
    summaries = _SUMMARY.findall(text)
    clean = bool(summaries) and all(
        s in ("ERROR SUMMARY: 0 errors",)
        or s.startswith("RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)")
        for s in summaries)
    checks = len(re.findall(r"^ok\b", text, re.M))
    fails = len(re.findall(r"^FAIL\b", text, re.M))
    return {"suite": suite, "tool": tool, "rc": rc, "summary": summaries[-1] if summaries
            else "no summary", "ok": rc == 0 and clean and fails == 0, "checks_ok": checks,
            "checks_failed": fails, "seconds": time.perf_counter() - start}


def run(directory: Path, out: Path, jobs: int, only: list[str] | None,
        timeout: float) -> int:
    out.mkdir(parents=True, exist_ok=True)
    # --only=SUITE (its tools) or SUITE:TOOL
    runs = [(suite, tool) for suite, (_, _, _, tools) in SUITES.items() for tool in tools
            if (not only or suite in only or f"{suite}:{tool}" in only)
            and (directory / suite).is_dir()]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(_one, directory, out, s, t, timeout): (s, t) for s, t in runs}
        for future in concurrent.futures.as_completed(futures):
            row = future.result()
            rows.append(row)
            with (out / "sanitize.jsonl").open("a") as f:  # kept if the caller is cut short
                f.write(json.dumps(row) + "\n")
            print(f"{'ok  ' if row['ok'] else 'FAIL'} {row['suite']:14s} {row['tool']:9s} "
                  f"rc={row['rc']} checks ok {row['checks_ok']} failed {row['checks_failed']} "
                  f"{row['seconds']:.0f} s  {row['summary']}", flush=True)
    rows.sort(key=lambda r: (str(r["suite"]), str(r["tool"])))
    lines = ["| suite | tool | checks passed | checks failed | exit | summary | s |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['suite']} | {r['tool']} | {r['checks_ok']} | {r['checks_failed']} | "
              f"{r['rc']} | {r['summary']} | {r['seconds']:.0f} |" for r in rows]
    report = "\n".join(lines)
    (out / "sanitize.md").write_text(report + "\n")
    print(report)
    return 0 if all(r["ok"] for r in rows) else 1


def main() -> None:
    flags = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in sys.argv if a.startswith("--")
             and "=" in a}
    only = flags["--only"].split(",") if "--only" in flags else None
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) == 2 and args[0] == "build":
        build(Path(args[1]), only)
    elif len(args) == 3 and args[0] == "run":
        sys.exit(run(Path(args[1]), Path(args[2]), int(flags.get("--jobs", "8")), only,
                     float(flags.get("--timeout", "3600"))))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
