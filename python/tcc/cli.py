"""The `tcc` command line: `tcc demo`, `tcc opt`.

`tcc demo` is the built-in end-to-end example that README's install command
runs: it builds the bias+GELU program, verifies it and prints its IR.
"""

from __future__ import annotations

import argparse
import sys


def _demo(args: argparse.Namespace) -> int:
    from mlir import ir
    from mlir.passmanager import PassManager

    import tcc  # noqa: F401  (registers tcc's dialects)
    from tcc.examples import example_source

    source = example_source(args.example)
    with ir.Context():
        module = ir.Module.parse(source)
        module.operation.verify()
        PassManager.parse("builtin.module(canonicalize,cse)").run(module.operation)
        print(f"// tcc demo: {args.example} (tensor dialect, verified and canonicalized)")
        print(module)
    return 0


def _opt(args: argparse.Namespace) -> int:
    from mlir import ir
    from mlir.passmanager import PassManager

    import tcc  # noqa: F401

    text = sys.stdin.read() if args.file == "-" else open(args.file).read()
    with ir.Context():
        try:
            module = ir.Module.parse(text)
            if args.pipeline:
                PassManager.parse(f"builtin.module({args.pipeline})").run(module.operation)
        except ir.MLIRError as err:
            print(f"tcc opt: {err}", file=sys.stderr)
            return 1
        print(module)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tcc", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="build and print the built-in example program")
    demo.add_argument("--example", default="bias_gelu")
    demo.set_defaults(run=_demo)
    opt = sub.add_parser("opt", help="parse IR (file or -), run a pass pipeline, print it")
    opt.add_argument("file")
    opt.add_argument("-p", "--pipeline", default="", help="e.g. 'canonicalize,cse'")
    opt.set_defaults(run=_opt)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
