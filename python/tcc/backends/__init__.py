"""tcc's GPU backends: one :class:`Target` interface, NVIDIA and AMD behind it."""

from __future__ import annotations

from tcc.backends.amd import AmdTarget
from tcc.backends.base import CompileError, Target
from tcc.backends.nvidia import NvidiaTarget

_TARGET_CLASSES: tuple[type[Target], ...] = (NvidiaTarget, AmdTarget)
SUPPORTED_TARGETS: tuple[str, ...] = tuple(a for cls in _TARGET_CLASSES for a in cls.archs)


def get_target(arch: str) -> Target:
    """The backend for ``arch`` (e.g. "sm_90", "gfx942")."""
    for cls in _TARGET_CLASSES:
        if arch in cls.archs:
            return cls(arch)
    raise ValueError(
        f"unsupported GPU target {arch!r}; supported targets: {', '.join(SUPPORTED_TARGETS)}"
    )


__all__ = ["SUPPORTED_TARGETS", "AmdTarget", "CompileError", "NvidiaTarget", "Target",
           "get_target"]
