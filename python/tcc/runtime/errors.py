"""Exceptions raised by tcc's runtime. MLIR-free."""

from __future__ import annotations


class RuntimeUnavailableError(RuntimeError):
    """A GPU driver, runtime library or Python binding needed to launch is missing."""


class LaunchError(RuntimeError):
    """The driver rejected a module load, allocation, copy or launch."""


class ArgumentError(ValueError):
    """A kernel argument does not match the artifact's argument layout."""
