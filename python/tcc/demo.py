"""`tcc demo`: compile a built-in program for NVIDIA and AMD, launch it if a GPU is here."""

import time

import numpy as np

# Module level: @program resolves the annotations in this module's globals.
from tcc.frontend import Tensor, f32, program, sym


def bias_gelu_program() -> object:
    """y = gelu_tanh(x + b[None, :]) over symbolic M x N (the README example)."""
    m, n = sym("M"), sym("N")

    @program
    def bias_gelu(x: Tensor[m, n, f32], b: Tensor[n, f32]) -> Tensor[m, n, f32]:
        return (x + b.broadcast_to(x, dims=[0])).gelu(approximate="tanh")

    return bias_gelu


DEMOS = {"bias_gelu": (bias_gelu_program, {"M": 1000, "N": 777})}


def run_demo(example: str = "bias_gelu", *, launch: bool = True) -> int:
    from tcc.compiler.compile import compile as tcc_compile
    from tcc.runtime.errors import RuntimeUnavailableError

    if example not in DEMOS:
        raise SystemExit(f"tcc demo: no demo {example!r}; try: {', '.join(DEMOS)}")
    make_program, sizes = DEMOS[example]
    program = make_program()
    print(f"// tcc demo: {example}, symbolic program (tensor dialect):")
    print(program.ir)  # type: ignore[attr-defined]
    print(f"// compiled for {sizes}")
    kernels = {}
    for target in ("sm_90", "gfx942"):
        start = time.perf_counter()
        kernel = tcc_compile(program, target, cache=False, **sizes)
        took = time.perf_counter() - start
        kernels[target] = kernel
        lines = kernel.asm.count("\n")
        binary = f"{len(kernel.binary)}-byte code object" if kernel.binary else "no binary"
        print(
            f"{target}: kernel {kernel.name}, grid {kernel.launch.grid}, block "
            f"{kernel.launch.block}, {lines} lines of assembly, {binary}, {took * 1e3:.0f} ms"
        )
    print("\n".join(kernels["sm_90"].asm.splitlines()[:12]))
    if not launch:
        return 0
    m, n = sizes["M"], sizes["N"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, n), dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    try:
        y = kernels["sm_90"](x, b)
    except RuntimeUnavailableError as err:
        print(f"not launched: {err}")
        return 0
    xb = x.astype(np.float64) + b
    ref = 0.5 * xb * (1 + np.tanh(0.7978845608028654 * (xb + 0.044715 * xb**3)))
    err = float(np.max(np.abs(y - ref)))
    print(f"launched on the GPU: max |error| vs float64 = {err:.2e}")
    return 0 if err < 1e-4 else 1
