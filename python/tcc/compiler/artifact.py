"""Re-export of the artifact format, which lives MLIR-free in tcc.runtime."""

from tcc.runtime.artifact import ArgSpec, ArtifactError, KernelArtifact, LaunchSpec

__all__ = ["ArgSpec", "ArtifactError", "KernelArtifact", "LaunchSpec"]
