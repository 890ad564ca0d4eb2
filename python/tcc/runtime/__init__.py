"""tcc's launch runtime: load compiled kernels and run them. MLIR-free.

Everything here imports without MLIR, so a process that only launches cached
kernels never loads the compiler.
"""

from typing import Any

from tcc.runtime.artifact import ArgSpec, ArtifactError, KernelArtifact, LaunchSpec
from tcc.runtime.errors import ArgumentError, LaunchError, RuntimeUnavailableError
from tcc.runtime.launcher import CompiledKernel, get_device

__all__ = [
    "ArgSpec",
    "ArgumentError",
    "ArtifactError",
    "CompiledKernel",
    "KernelArtifact",
    "LaunchError",
    "LaunchSpec",
    "RuntimeUnavailableError",
    "get_device",
    "load",
]


def load(path: str) -> Any:
    """Load a saved artifact file (a kernel, or a whole program) as a callable."""
    from pathlib import Path

    from tcc.runtime.program import ProgramArtifact, load_artifact
    from tcc.runtime.runner import CompiledProgram

    artifact = load_artifact(Path(path).read_bytes())
    if isinstance(artifact, ProgramArtifact):
        return CompiledProgram(artifact)
    return CompiledKernel(artifact)
