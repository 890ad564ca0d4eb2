"""End-to-end launches on a real NVIDIA GPU; skipped where no CUDA driver loads.

The lent GPU machine has no MLIR wheels, so this file is also a script:
``python test_runtime_gpu.py make DIR`` compiles the artifacts (needs MLIR),
``python test_runtime_gpu.py run DIR`` launches them (needs only the runtime).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

KERNELS = ("vadd", "act", "scale")


def make(directory: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from tcc.backends import get_target
    from test_backends_kernels import ACT, SCALE_DYN, VADD

    directory.mkdir(parents=True, exist_ok=True)
    t = get_target("sm_90")
    t.compile(VADD, outputs=[2], grid=("cdiv(numel(0), 512)",),
              arg_names=["a", "b", "c"]).save(directory / "vadd.tccbin")
    t.compile(ACT, outputs=[1], grid=(4,), arg_names=["x", "y"]).save(directory / "act.tccbin")
    t.compile(SCALE_DYN, outputs=[1], grid=("cdiv(N, 64)",), arg_names=["a", "c", "s", "n"],
              arg_shapes={"a": ["N"], "c": ["N"]}).save(directory / "scale.tccbin")


def run(directory: Path) -> None:
    import tcc.runtime as rt

    rng = np.random.default_rng(0)
    a, b = (rng.random(4096, dtype=np.float32) for _ in range(2))
    np.testing.assert_array_equal(rt.load(directory / "vadd.tccbin")(a, b), a + b)
    x = np.linspace(-3, 3, 1024, dtype=np.float32)
    np.testing.assert_allclose(rt.load(directory / "act.tccbin")(x), np.exp(np.tanh(x)),
                               rtol=1e-5)
    z = rng.random(1000, dtype=np.float32)
    np.testing.assert_array_equal(rt.load(directory / "scale.tccbin")(z, 3.0, 1000),
                                  z * np.float32(3.0))
    try:
        import torch
    except ImportError:
        return
    # torch CUDA tensors take the launch fast path: a plan per signature, the
    # scalars and pointers rewritten per call; graphs replay it.
    scale = rt.load(directory / "scale.tccbin")
    for n, s in ((1000, 3.0), (1000, -0.5), (777, 2.0)):
        t = torch.rand(n, device="cuda")
        torch.testing.assert_close(scale(t, s, n), t * s)
    vadd = rt.load(directory / "vadd.tccbin")
    ta, tb = torch.rand(4096, device="cuda"), torch.rand(4096, device="cuda")
    graph = vadd.capture(ta, tb)
    ta.copy_(torch.rand(4096, device="cuda"))
    torch.testing.assert_close(graph.replay(), ta + tb)


def test_launch_on_gpu(tmp_path):
    from tcc.runtime import RuntimeUnavailableError, get_device

    try:
        get_device("nvidia", "sm_90")
    except RuntimeUnavailableError as exc:
        pytest.skip(str(exc))
    make(tmp_path)
    run(tmp_path)


if __name__ == "__main__":
    {"make": make, "run": run}[sys.argv[1]](Path(sys.argv[2]))
    print("ok")
