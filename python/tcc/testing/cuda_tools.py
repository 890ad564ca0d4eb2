"""NVIDIA's command-line tools (ptxas, cuobjdump, nvdisasm) from their PyPI
wheels (``nvidia-cuda-nvcc``, ``nvidia-cuda-cuobjdump``,
``nvidia-cuda-nvdisasm``: the ``test`` extra) or the PATH, to assemble PTX
and read SASS on a machine without a GPU."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from tcc.backends.ptxas import find_tool, run_ptxas

__all__ = ["assemble", "find_tool", "ptxas_report"]


def ptxas_report(ptx: str, arch: str, cubin: Path | None = None) -> str:
    """``ptxas -v`` of ``ptx`` for ``arch``: its resource report (registers,
    spills, stack, shared memory), the cubin written to ``cubin`` when given.
    Raises FileNotFoundError without ptxas and RuntimeError when it fails."""
    binary, report = run_ptxas(ptx, arch, ("-v",))
    if cubin is not None:
        cubin.write_bytes(binary)
    return report


def assemble(ptx: str, arch: str) -> tuple[str, str]:
    """``ptxas -v`` of ``ptx`` for ``arch`` (e.g. sm_90a): (its resource
    report, the cubin's SASS from cuobjdump). Raises FileNotFoundError when
    a tool is missing and RuntimeError when one fails."""
    tools = {name: find_tool(name) for name in ("ptxas", "cuobjdump", "nvdisasm")}
    missing = [name for name, path in tools.items() if path is None]
    if missing:
        raise FileNotFoundError(
            f"{', '.join(missing)} not found: install the test extra (nvidia-cuda-nvcc, "
            "nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        report = ptxas_report(ptx, arch, cubin)
        # cuobjdump runs nvdisasm from the PATH.
        nvdisasm_dir = str(tools["nvdisasm"].parent)  # type: ignore[union-attr]
        env = {**os.environ, "PATH": f"{nvdisasm_dir}:{os.environ.get('PATH', '')}"}
        sass = subprocess.run([str(tools["cuobjdump"]), "-sass", str(cubin)], capture_output=True,
                              text=True, check=False, env=env)
        if sass.returncode:
            raise RuntimeError(f"cuobjdump failed:\n{sass.stderr}")
    return report, sass.stdout
