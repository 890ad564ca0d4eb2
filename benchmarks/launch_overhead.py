"""Host time of one tcc.runtime launch, next to torch.matmul, on a GPU.

A small kernel (f16 GEMM 1000^3, about 24 us on an H200) is launched many
times without synchronizing: when the host cannot issue launches faster than
the GPU runs them, the host time per launch is what a caller pays.

    # here (CPU, MLIR): compile the kernel into DIR
    python benchmarks/launch_overhead.py build DIR
    # on the GPU machine (tcc.runtime, torch):
    PYTHONPATH=python python3 benchmarks/launch_overhead.py run DIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

SIZE = 1000
LAUNCHES = 2000


def build(directory: Path) -> None:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.examples.programs import gemm_program

    directory.mkdir(parents=True, exist_ok=True)
    kernel = tcc_compile(gemm_program(SIZE, SIZE, SIZE, "f16"), "sm_90", cache=False)
    kernel.artifact.save(directory / "gemm_1000.tcck")
    print(f"built {directory / 'gemm_1000.tcck'}")


def run(directory: Path) -> None:
    import torch

    from tcc.runtime import load

    kernel = load(directory / "gemm_1000.tcck")
    a = torch.randn(SIZE, SIZE, device="cuda").half()
    b = torch.randn(SIZE, SIZE, device="cuda").half()
    out = torch.empty(SIZE, SIZE, device="cuda").half()

    def host_us(fn) -> float:  # noqa: ANN001
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(LAUNCHES):
            fn()
        host = (time.perf_counter() - start) / LAUNCHES
        torch.cuda.synchronize()
        return host * 1e6

    tcc_us = host_us(lambda: kernel(a, b, out=out))  # also loads the module
    torch_us = host_us(lambda: torch.matmul(a, b))
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    for _ in range(200):
        kernel(a, b, out=out)
    end.record()
    end.synchronize()
    print("| call | host us per launch |\n|---|---|")
    print(f"| tcc kernel(a, b, out=out) | {tcc_us:.1f} |")
    print(f"| torch.matmul(a, b) | {torch_us:.1f} |")
    print(f"\n200 back-to-back tcc launches: {begin.elapsed_time(end) / 200 * 1e3:.1f} us each")


if __name__ == "__main__":
    verb = sys.argv[1] if len(sys.argv) > 1 else ""
    if verb == "build":
        build(Path(sys.argv[2]))
    elif verb == "run":
        run(Path(sys.argv[2]))
    else:
        print(__doc__)
