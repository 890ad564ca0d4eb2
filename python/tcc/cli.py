"""The `tcc` command line: `tcc compile`, `tcc demo`, `tcc opt`, `tcc cache`.

`tcc compile FILE.mlir --target sm_90 -o k.ptx` compiles a program (any
stage with `--emit`); `tcc demo` is the built-in end-to-end example that
README's install command runs: bias+GELU compiled for sm_90 and gfx942, and
launched when an NVIDIA GPU is present.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tcc.targets import KNOWN_TARGETS


class UsageError(Exception):
    """A user error the CLI reports in one line (exit status 2)."""


def _read_source(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path) as f:
            return f.read()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _load_source(spec: str, sizes: list[str]) -> tuple[object, dict[str, int]]:
    """``FILE.mlir`` (or -) as text, or ``FILE.py:NAME`` as the tcc.frontend
    program NAME defined there; ``--size M=1024`` bindings for the latter."""
    bound: dict[str, int] = {}
    for item in sizes:
        name, _, value = item.partition("=")
        if not name.isidentifier() or not value.lstrip("-").isdigit():
            raise UsageError(f"--size {item!r}: expected NAME=INTEGER, e.g. M=1024")
        bound[name] = int(value)
    path, sep, name = spec.rpartition(":")
    if not sep or not path.endswith(".py"):
        if bound:
            raise UsageError("--size binds a tcc.frontend program's sizes: give FILE.py:PROGRAM")
        return _read_source(spec), {}
    import runpy

    if not Path(path).is_file():
        raise UsageError(f"cannot read {path}: No such file or directory")
    try:
        scope = runpy.run_path(path, run_name="__tcc_compile__")
    except Exception as exc:  # noqa: BLE001  (the user's module failed to import)
        raise UsageError(f"{path}: {type(exc).__name__}: {exc}") from None
    program = scope.get(name)
    if program is None or not hasattr(program, "specialize"):
        found = sorted(k for k, v in scope.items() if hasattr(v, "specialize"))
        raise UsageError(f"{path} defines no tcc.frontend program {name!r} "
                         f"(programs there: {', '.join(found) or 'none'})")
    return program, bound


def _cache(args: argparse.Namespace) -> int:
    from tcc.compiler.cache import default_cache

    cache = default_cache()
    if args.action == "clear":
        print(f"removed {cache.clear()} entries from {cache.directory}")
        return 0
    info = cache.info()
    print(f"directory: {info['directory']}\nentries:   {info['entries']}\n"
          f"bytes:     {info['bytes']}\ncompiler:  {info['compiler']}")
    return 0


EMIT_CHOICES = ("source", "linalg", "tile", "gpu", "llvm", "asm")


def _compile(args: argparse.Namespace) -> int:
    from tcc.compiler.compile import CompilationError
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.frontend.errors import FrontendError

    source, sizes = _load_source(args.file, args.size)
    binary = _binary_output(args)
    if binary == "hsaco":
        import warnings

        # A missing ld.lld is this command's error (below), not a warning too.
        warnings.filterwarnings("ignore", message="no ld.lld found")
    if args.dump_dir or args.timing or args.print_ir_after_all:
        import os

        if args.dump_dir:
            os.environ["TCC_DUMP_DIR"] = args.dump_dir
        if args.timing:
            os.environ["TCC_TIMING"] = "1"
        if args.print_ir_after_all:
            os.environ["TCC_PRINT_IR_AFTER_ALL"] = "1"
    try:
        kernel = tcc_compile(
            source, args.target, num_warps=args.num_warps, num_stages=args.num_stages,
            mfma_shape=args.mfma_shape, cache=False if args.no_cache else None, **sizes,
        )
        output = kernel.asm if args.emit == "asm" else kernel.ir[args.emit]
        if args.report:
            output = f"{kernel.report}\n"

    except (CompilationError, FrontendError, ValueError, TypeError) as err:
        print(f"tcc compile: {err}", file=sys.stderr)
        return 1
    if binary is not None:
        return _write_binaries(kernel, args.output, binary)
    if args.output in (None, "-"):
        sys.stdout.write(output)
    else:
        with open(args.output, "w") as f:
            f.write(output)
        stem, dot, ext = args.output.rpartition(".")
        if args.emit == "asm" and dot and ext in ("s", "ptx"):
            # One code object per kernel beside the assembly: k.hsaco (AMD)
            # or k.cubin (NVIDIA), k.<kernel>.hsaco / .cubin when the program
            # is several kernels.
            parts = kernel.kernels
            kind = "cubin" if args.target.startswith("sm_") else "hsaco"
            for part in parts:
                if part.binary is None:
                    continue
                suffix = "" if len(parts) == 1 else f".{part.name}"
                with open(f"{stem}{suffix}.{kind}", "wb") as f:
                    f.write(part.binary)
    return 0


def _binary_output(args: argparse.Namespace) -> str | None:
    """"hsaco" / "cubin" when -o names a code object (written as such, not as
    the assembly text); a usage error when it cannot be one."""
    ext = (args.output or "").rpartition(".")[2]
    if ext not in ("hsaco", "cubin"):
        return None
    vendor = "NVIDIA" if args.target.startswith("sm_") else "AMD"
    if (ext == "cubin") != (vendor == "NVIDIA"):
        raise UsageError(f"-o {args.output}: a .{ext} is an "
                         f"{'NVIDIA' if ext == 'cubin' else 'AMD'} code object; target "
                         f"{args.target} makes {'cubins' if vendor == 'NVIDIA' else 'hsacos'}")
    if args.emit != "asm" or args.report:
        raise UsageError(f"-o {args.output} writes the code object: drop --emit / --report")
    return ext


def _write_binaries(kernel: object, output: str, kind: str) -> int:
    """One code object per kernel: FILE.hsaco, or FILE.<kernel>.hsaco for a
    program of several kernels; none written unless every kernel has one."""
    parts = kernel.kernels  # type: ignore[attr-defined]
    missing = [part.name for part in parts if part.binary is None]
    if missing:
        if kind == "hsaco":
            from tcc.backends.amd import LLD_MISSING

            why = LLD_MISSING
        else:
            why = ("ptxas is not installed (the nvidia-cuda-nvcc wheel) or TCC_CUBIN=0; "
                   "-o FILE.ptx writes the PTX, which the driver compiles at load")
        print(f"tcc compile: cannot write {output}: no {kind} for {', '.join(missing)}: {why}",
              file=sys.stderr)
        return 1
    stem = output[: -len(kind) - 1]
    for part in parts:
        suffix = "" if len(parts) == 1 else f".{part.name}"
        with open(f"{stem}{suffix}.{kind}", "wb") as f:
            f.write(part.binary)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from tcc.demo import run_demo

    return run_demo(args.example, launch=not args.no_launch)


def _opt(args: argparse.Namespace) -> int:
    from mlir import ir
    from mlir.passmanager import PassManager

    import tcc  # noqa: F401

    text = _read_source(args.file)
    with ir.Context():
        try:
            module = ir.Module.parse(text)
            if args.pipeline:
                PassManager.parse(f"builtin.module({args.pipeline})").run(module.operation)
        except (ir.MLIRError, ValueError) as err:
            print(f"tcc opt: {err}", file=sys.stderr)
            return 1
        print(module)
    return 0


def _tune(args: argparse.Namespace) -> int:
    import json

    if args.action == "build":
        from tcc.tune import build

        if not args.out:
            raise UsageError("build needs --out DIR")
        path = Path(args.path)
        if not path.is_file():
            raise UsageError(f"no such file: {path}")
        if args.target not in KNOWN_TARGETS:
            raise UsageError(f"unknown target {args.target!r} ({', '.join(KNOWN_TARGETS)})")
        out = build(path.read_text(), args.target, args.out, jobs=args.jobs)
        manifest = json.loads((out / "manifest.json").read_text())
        good = sum(not v["error"] for v in manifest["variants"])
        print(f"{out}: {good} variants of {len(manifest['default']['plans'])} kernels "
              f"({len(manifest['variants']) - good} refused); run `tcc tune run {out}` "
              "on the GPU machine")
        return 0
    directory = Path(args.path)
    if not (directory / "manifest.json").is_file():
        raise UsageError(f"{directory} is not a `tcc tune build` directory")
    if args.action == "run":
        from tcc.tune.run import run

        results = run(directory)
        print(f"default {results['default_ms'] * 1e3:.1f} us")
        for kernel, best in results["best"].items():
            print(f"  {kernel}: {best['ms'] * 1e3:.1f} us with {best['plan']}")
        if not results["best"]:
            print("  the heuristics' plans are the fastest")
        return 0
    if not (directory / "results.json").is_file():
        raise UsageError(f"{directory} has no results.json: run `tcc tune run` first")
    if args.action == "plot":
        from tcc.tune.plot import plot_run

        try:
            print(f"wrote {plot_run(directory, args.out)}")
        except ImportError as exc:
            raise UsageError("tcc tune plot needs matplotlib: pip install 'tcc[plot]'") from exc
        return 0
    from tcc.tune.run import apply

    plans = apply(directory)
    print(f"recorded {len(plans)} plans" if plans else "nothing to record: the heuristics won")
    return 0


def main(argv: list[str] | None = None) -> int:
    from tcc import __version__
    from tcc.compiler.cache import COMPILER_VERSION

    parser = argparse.ArgumentParser(prog="tcc", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version",
                        version=f"tcc {__version__} ({COMPILER_VERSION})")
    sub = parser.add_subparsers(dest="command", required=True)
    comp = sub.add_parser("compile", help="compile a program for a GPU target")
    comp.add_argument(
        "file", help="MLIR file (tcc dialect, linalg on tensors, or a tile.func), -, or "
                     "FILE.py:PROGRAM (a tcc.frontend program defined in FILE.py)"
    )
    comp.add_argument("--size", action="append", default=[], metavar="NAME=N",
                      help="bind a frontend program's symbolic size (repeatable)")
    comp.add_argument(
        "--target",
        default="sm_90",
        help=", ".join(KNOWN_TARGETS),
    )
    comp.add_argument(
        "--emit",
        choices=EMIT_CHOICES,
        default="asm",
        help="what to write: a stage's IR or the target assembly (default)",
    )
    comp.add_argument("-o", "--output", help="output file (default: stdout)")
    comp.add_argument("--num-warps", type=int, default=4)
    comp.add_argument("--num-stages", type=int, default=3,
                      help="slots of pipelined shared-memory operand buffers (GEMMs)")
    comp.add_argument("--mfma-shape", choices=("auto", "16", "32"), default="auto",
                      help="AMD GEMM instruction: v_mfma_f32_32x32x8 (32), _16x16x16 (16), "
                           "or auto (32 where every wave's tile is a multiple of 32)")
    comp.add_argument("--no-cache", action="store_true", help="bypass the artifact cache")
    comp.add_argument("--dump-dir", help="write each stage's IR and the IR after every pass "
                                         "there (as TCC_DUMP_DIR=DIR, which always "
                                         "compiles)")
    comp.add_argument("--report", action="store_true",
                      help="print a table per kernel (registers, spills, shared memory, "
                           "occupancy, plan, bytes and flops per launch) instead of --emit")
    comp.add_argument("--print-ir-after-all", action="store_true",
                      help="print the IR after every pass to stderr (as "
                           "TCC_PRINT_IR_AFTER_ALL=1; bypasses the cache)")
    comp.add_argument("--timing", action="store_true",
                      help="print each stage's pass timings to stderr (as TCC_TIMING=1; "
                           "bypasses the cache so that the passes run)")
    comp.set_defaults(run=_compile)
    demo = sub.add_parser("demo", help="build and print the built-in example program")
    demo.add_argument("--example", default="bias_gelu")
    demo.add_argument("--no-launch", action="store_true", help="compile only")
    demo.set_defaults(run=_demo)
    opt = sub.add_parser("opt", help="parse IR (file or -), run a pass pipeline, print it")
    opt.add_argument("file")
    opt.add_argument("-p", "--pipeline", default="", help="e.g. 'canonicalize,cse'")
    opt.set_defaults(run=_opt)
    cache = sub.add_parser("cache", help="the artifact cache: where it is and what it holds, "
                                         "or clear it")
    cache.add_argument("action", choices=("info", "clear"))
    cache.set_defaults(run=_cache)
    tune = sub.add_parser("tune", help="autotune a program's kernels: build the variants "
                                       "(here), run them (on the GPU), apply the winners, "
                                       "plot a run")
    tune.add_argument("action", choices=("build", "run", "apply", "plot"))
    tune.add_argument("path", help="build: the program's MLIR file; run, apply, plot: the "
                                   "build's directory")
    tune.add_argument("--target", default="sm_90", help=", ".join(KNOWN_TARGETS))
    tune.add_argument("--out", help="build: where the variants go; plot: the PNG "
                                    "(default DIR/tuning.png)")
    tune.add_argument("-j", "--jobs", type=int, default=None,
                      help="build: compiles in parallel (default: every CPU core)")
    tune.set_defaults(run=_tune)
    args = parser.parse_args(argv)
    import warnings

    def one_line(message: Warning | str, category: type[Warning], *_: object,
                 **__: object) -> None:
        # A warning is one line for the shell user, not Python's file:line
        # of the library that raised it.
        print(f"tcc {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():  # restores showwarning and filters on return
        warnings.showwarning = one_line  # type: ignore[assignment]
        try:
            return args.run(args)
        except UsageError as err:
            print(f"tcc {args.command}: {err}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
