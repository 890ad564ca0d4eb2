"""tcc's launch runtime: load compiled kernels and run them. MLIR-free.

Everything here imports without MLIR, so a process that only launches cached
kernels never loads the compiler.
"""

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


def load(path: str) -> CompiledKernel:
    """Load a saved artifact file as a callable kernel."""
    return CompiledKernel(KernelArtifact.load(path))
