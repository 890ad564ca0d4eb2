"""A/B on the H200: the same benchmarks/programs.py cases from two artifact
directories (e.g. a change and the commit before it), alternated, 7 rounds
of CUDA-event medians each, on the same inputs; prints new / base time.
With BASE_DIR ``compile`` the other side is torch.compile of the program's
torch twin (dynamo reset per program): the tcc / torch.compile ratio of a
program whose single runs differ by less than their spread.

    PYTHONPATH=build/dev/python_packages python benchmarks/programs.py build DIR NAME ...
    PYTHONPATH=python python3 benchmarks/ab.py NEW_DIR BASE_DIR NAME,NAME,...   # on the GPU
    PYTHONPATH=python python3 benchmarks/ab.py NEW_DIR compile NAME,NAME,...
"""

import statistics
import sys
from pathlib import Path


def main(new: str, base: str, names: list[str]) -> None:
    import torch
    import triton.testing

    import tcc.runtime

    sys.path.insert(0, str(Path(__file__).parent))
    import programs as p

    for name in names:
        case = p.CASES[name]
        a = tcc.runtime.load(f"{new}/{name}.tccprog")
        xs = [(torch.randn(s, device="cuda") * case.scale).to(getattr(torch, p.F[d]))
              for s, d in case.inputs]
        out = a(*xs)
        if base == "compile":
            torch._dynamo.reset()
            fn = torch.compile(p._torch(case.kind))
            ref = fn(*xs)

            def run_b(x: list = xs) -> object:
                return fn(*x)  # noqa: B023
        else:
            b = tcc.runtime.load(f"{base}/{name}.tccprog")
            ref = b(*xs)

            def run_b(x: list = xs) -> object:
                return b(*x, out=out)  # noqa: B023
        torch.cuda.synchronize()
        same = torch.allclose(out.double(), ref.double(), rtol=1e-3, atol=1e-5)
        ta, tb = [], []
        for _ in range(7):
            ta.append(triton.testing.do_bench(lambda a=a, o=out, x=xs: a(*x, out=o), warmup=25,
                                              rep=100, return_mode="median"))
            tb.append(triton.testing.do_bench(run_b, warmup=25, rep=100, return_mode="median"))
        ma, mb = statistics.median(ta) * 1e3, statistics.median(tb) * 1e3
        print(f"{name:30s} same={same} new {ma:8.2f} us  base {mb:8.2f} us  "
              f"new/base time {ma / mb:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3].split(","))
