"""NVIDIA's command-line tools (ptxas, cuobjdump, nvdisasm) from their PyPI
wheels (``nvidia-cuda-nvcc``, ``nvidia-cuda-cuobjdump``,
``nvidia-cuda-nvdisasm``: the ``test`` extra) or the PATH, to assemble PTX
and read SASS on a machine without a GPU."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from tcc.backends.ptxas import find_tool

__all__ = ["assemble", "find_tool", "ptxas_report"]


def ptxas_report(ptx: str, arch: str, cubin: Path | None = None) -> str:
    """``ptxas -v`` of ``ptx`` for ``arch``: its resource report (registers,
    spills, stack, shared memory), the cubin written to ``cubin`` when given.
    Raises FileNotFoundError without ptxas and RuntimeError when it fails."""
    ptxas = find_tool("ptxas")
    if ptxas is None:
        raise FileNotFoundError("ptxas not found: install nvidia-cuda-nvcc (the test extra)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "k.ptx"
        src.write_text(ptx)
        out = cubin if cubin is not None else Path(tmp) / "k.cubin"
        report = subprocess.run([str(ptxas), f"-arch={arch}", "-v", "-o", str(out), str(src)],
                                capture_output=True, text=True, check=False)
    if report.returncode:
        raise RuntimeError(f"ptxas failed:\n{report.stderr}")
    return report.stderr + report.stdout


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
