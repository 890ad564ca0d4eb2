"""Mutation fuzzing of ``tcc-opt`` over the lit inputs.

Each run takes one ``// -----`` case of a lit test, applies one random
mutation (an integer, a dim, an element type or a pass option changed, a
line dropped or duplicated, two operands swapped) and runs ``tcc-opt`` with
that file's own pipeline (its first ``tcc-opt`` RUN line) under a time
limit. Outcomes: ``ok`` (exit 0), ``diagnostic`` (exit 1 with an error
message), ``internal`` (exit 1 with tcc-opt's report of an assertion or
fatal error inside MLIR/LLVM: contained, but a bug), ``crash`` (a signal, an
assertion, LLVM's crash banner) and ``hang`` (past the time limit). A new
crash or internal-error signature is minimized (line deletion while the
signature stays) and saved with its command.

    python -m tcc.testing.fuzz opt --tcc-opt build/dev/bin/tcc-opt --seed 1 --seconds 60
"""

from __future__ import annotations

import random
import re
import shlex
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

_RUN = re.compile(r"^//\s*RUN:\s*(?:not\s+)?tcc-opt\s+%s\s+(.*?)(?:\s*\|.*)?$", re.M)
_INT = re.compile(r"(?<![\w.#%@])-?\d+(?![\w.])")
_DIMS = re.compile(r"(tensor|memref|vector)<((?:\d+x)+)")
_ELEMENT = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i32|i64)\b")
_OPTION = re.compile(r"(=)(\d+)")
_INTERESTING = (0, 1, -1, 2, 3, 7, 31, 33, 64, 127, 4096, 65536, 2**31, -(2**31), 10**20)
_ELEMENTS = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index")


@dataclass(frozen=True)
class Case:
    """One split-input case of a lit file and the tcc-opt arguments of its
    first RUN line (``-split-input-file`` and ``-verify-diagnostics``
    dropped: each case runs alone and a diagnostic is an outcome)."""

    source: Path
    index: int
    text: str
    args: tuple[str, ...]


def lit_cases(root: Path) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(root.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text()
        match = _RUN.search(text)
        if not match:
            continue
        args = tuple(a for a in shlex.split(match.group(1).replace("%s", ""))
                     if a not in ("-split-input-file", "-verify-diagnostics", "2>&1"))
        for i, part in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            body = "\n".join(line for line in part.splitlines()
                             if not line.lstrip().startswith("// CHECK")
                             and "expected-" not in line)
            if body.strip():
                cases.append(Case(path, i, body, args))
    return cases


def _sub_one(pattern: re.Pattern[str], text: str, rng: random.Random,
             replace: Callable[[re.Match[str]], str]) -> str | None:
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[: m.start()] + replace(m) + text[m.end():]


def mutate(case: Case, rng: random.Random) -> tuple[str, tuple[str, ...], str]:
    """One mutation of ``case``: (text, tcc-opt args, what was changed)."""
    text, args = case.text, list(case.args)
    for _ in range(8):  # retry mutations that do not apply to this case
        kind = rng.choice(("int", "dims", "element", "drop", "duplicate", "swap", "option"))
        new: str | None = None
        if kind == "int":
            new = _sub_one(_INT, text, rng, lambda m: str(rng.choice(_INTERESTING)))
        elif kind == "dims":
            new = _sub_one(_DIMS, text, rng, lambda m: m.group(1) + "<" + "".join(
                f"{rng.choice((0, 1, 3, 17, 64, 1000, 65536))}x"
                for _ in m.group(2).split("x")[:-1]))
        elif kind == "element":
            new = _sub_one(_ELEMENT, text, rng, lambda m: rng.choice(_ELEMENTS))
        elif kind in ("drop", "duplicate", "swap"):
            lines = text.splitlines()
            body = [i for i, line in enumerate(lines) if line.strip() and
                    not line.lstrip().startswith("//")]
            if len(body) < 2:
                continue
            i = rng.choice(body)
            if kind == "drop":
                del lines[i]
            elif kind == "duplicate":
                lines.insert(i, lines[i])
            else:
                j = rng.choice(body)
                lines[i], lines[j] = lines[j], lines[i]
            new = "\n".join(lines)
        elif kind == "option" and args:
            i = rng.randrange(len(args))
            mutated = _sub_one(_OPTION, args[i], rng,
                               lambda m: m.group(1) + str(rng.choice(_INTERESTING)))
            if mutated is not None:
                args[i] = mutated
                return text, tuple(args), f"option {args[i]}"
            continue
        if new is not None and new != text:
            return new, tuple(args), kind
    return text, tuple(args), "none"


@dataclass
class Outcome:
    kind: str  # ok | diagnostic | internal | crash | hang
    signature: str = ""
    stderr: str = ""


_ASSERT = re.compile(r"Assertion `.*' failed|LLVM ERROR: .*|UNREACHABLE executed.*")
# tcc-opt's own report of an assertion or fatal error inside MLIR/LLVM (an
# error message and exit status 1 instead of an abort; tools/tcc-opt).
_INTERNAL = re.compile(r"tcc-opt stopped on an internal error of MLIR/LLVM: (.*)")


# A frame of LLVM's stack dump: " #3 0x... (anonymous namespace)::F(args) File.cpp:0:0".
_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.+?)(?: \(/| [\w.]+:\d+:\d+$|$)", re.M)
_HANDLER_FRAMES = ("PrintStackTrace", "SignalHandler", "libc.so", "RunSignalHandlers")


def _crash_frame(stderr: str) -> str:
    """The function a signal hit in: the stack dump's first frame past the
    signal handlers, without its arguments (one signature per crash site,
    not one per signal)."""
    for frame in _FRAME.findall(stderr):
        if not any(h in frame for h in _HANDLER_FRAMES) and not frame.startswith("0x"):
            return re.sub(r"\(.*\)$", "", frame.split("(anonymous namespace)::")[-1])
    return "an unknown frame"


def run_opt(tcc_opt: str, text: str, args: tuple[str, ...], timeout: float) -> Outcome:
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([tcc_opt, path, *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome("hang", f"timeout {' '.join(args)}")
    finally:
        Path(path).unlink(missing_ok=True)
    err = proc.stderr
    internal = _INTERNAL.search(err)
    if proc.returncode == 1 and internal:
        # The assertion's text without its source line numbers, as a signature.
        sig = re.sub(r" \(\S+:\d+\)$", "", internal.group(1))
        return Outcome("internal", re.sub(r"0x[0-9a-f]+", "N", sig)[:200], err[-4000:])
    assertion = _ASSERT.search(err)
    if proc.returncode < 0 or assertion or "PLEASE submit a bug report" in err:
        sig = assertion.group(0) if assertion else (
            f"signal {-proc.returncode} in {_crash_frame(err)}")
        return Outcome("crash", re.sub(r"0x[0-9a-f]+|\d+", "N", sig)[:200], err[-4000:])
    if proc.returncode == 0:
        return Outcome("ok")
    return Outcome("diagnostic")


def minimize(tcc_opt: str, text: str, args: tuple[str, ...], signature: str,
             timeout: float, kind: str = "crash") -> str:
    """Drop lines (halves, then single lines) while the crash (or internal
    error) keeps its kind and signature."""
    lines = text.splitlines()
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(lines):
            trial = lines[:i] + lines[i + chunk:]
            out = run_opt(tcc_opt, "\n".join(trial), args, timeout)
            if out.kind == kind and out.signature == signature:
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return "\n".join(lines)


@dataclass
class Report:
    runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    crashes: dict[str, Path] = field(default_factory=dict)  # signature -> saved reproducer
    # Assertions / fatal errors inside MLIR that tcc-opt stopped on with a
    # message (no abort): findings all the same, saved like crashes.
    internal: dict[str, Path] = field(default_factory=dict)
    hangs: list[str] = field(default_factory=list)


def campaign(tcc_opt: str, root: Path, seed: int, *, runs: int | None = None,
             seconds: float | None = None, timeout: float = 20.0,
             out: Path | None = None, progress: Callable[[Report], None] | None = None,
             ) -> Report:
    """Run mutations (``runs`` of them, or for ``seconds``); crashes are
    minimized and saved under ``out``."""
    import time

    rng = random.Random(seed)
    cases = lit_cases(root)
    report = Report()
    start = time.monotonic()
    for n in _counter():
        if (runs is not None and n >= runs) or (
                seconds is not None and time.monotonic() - start > seconds):
            break
        case = rng.choice(cases)
        text, args, what = mutate(case, rng)
        outcome = run_opt(tcc_opt, text, args, timeout)
        report.runs += 1
        report.outcomes[outcome.kind] += 1
        if outcome.kind == "hang":
            report.hangs.append(f"{case.source}#{case.index} ({what})")
        found = {"crash": report.crashes, "internal": report.internal}.get(outcome.kind)
        if found is not None and outcome.signature not in found:
            small = minimize(tcc_opt, text, args, outcome.signature, timeout, outcome.kind)
            directory = out or Path(tempfile.gettempdir()) / "tcc-fuzz"
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / f"{outcome.kind}-{len(found)}-seed{seed}-run{n}.mlir"
            path.write_text(f"// {outcome.signature}\n// from {case.source} case {case.index}, "
                            f"mutation: {what}\n// rerun: tcc-opt {path} "
                            f"{' '.join(shlex.quote(a) for a in args)}\n{small}\n")
            found[outcome.signature] = path
        if progress is not None:
            progress(report)
    return report


def _counter() -> Iterator[int]:
    n = 0
    while True:
        yield n
        n += 1
