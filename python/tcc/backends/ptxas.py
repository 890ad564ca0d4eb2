"""ptxas from NVIDIA's PyPI wheel (``nvidia-cuda-nvcc``, pinned to the CUDA
13.0 the H200 machine's driver has) or the PATH: NVIDIA artifacts carry a
cubin beside their PTX, so the driver loads SASS instead of JIT-compiling
PTX, and a PTX ptxas rejects is a compile error here rather than a load
error on the GPU machine.

``TCC_CUBIN=0`` (tcc.compile's Schedule.cubin, part of the cache key) keeps
artifacts PTX-only, as they are where no ptxas is installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

_TARGET = re.compile(r"^\s*\.target\s+(sm_\w+)", re.MULTILINE)


def find_tool(name: str) -> Path | None:
    """The executable ``name`` from the nvidia wheels, else the PATH."""
    try:
        import nvidia  # the wheels' namespace package
    except ImportError:
        roots: list[str] = []
    else:
        roots = list(nvidia.__path__)
    for root in roots:
        for candidate in sorted(Path(root).glob(f"*/bin/{name}")):
            if candidate.is_file():
                return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def cubin_available() -> bool:
    """Whether ptxas is installed (NVIDIA artifacts then carry a cubin)."""
    return find_tool("ptxas") is not None


def ptx_arch(ptx: str) -> str:
    """The architecture a PTX module targets (its ``.target``, e.g. sm_90a)."""
    match = _TARGET.search(ptx)
    if match is None:
        raise ValueError("PTX has no .target directive")
    return match.group(1)


def run_ptxas(ptx: str, arch: str, flags: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """ptxas on ``ptx`` for ``arch`` with ``flags``: (the cubin, ptxas's
    output, e.g. its ``-v`` resource report). Raises FileNotFoundError without
    ptxas and RuntimeError with ptxas's message when it rejects the PTX."""
    ptxas = find_tool("ptxas")
    if ptxas is None:
        raise FileNotFoundError("ptxas not found: install nvidia-cuda-nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        done = subprocess.run([str(ptxas), f"-arch={arch}", *flags, "-o", str(out), str(src)],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"ptxas rejected the PTX:\n{done.stderr.strip()}")
        return out.read_bytes(), done.stderr + done.stdout


def assemble_cubin(ptx: str) -> bytes:
    """The cubin ptxas makes of ``ptx`` for the architecture it targets
    (raises as :func:`run_ptxas`)."""
    return run_ptxas(ptx, ptx_arch(ptx))[0]
