"""Compile a gpu-dialect module to a cached :class:`KernelArtifact`.

The cache is consulted before anything imports MLIR, so a hit costs a hash
of the inputs plus a dict lookup (or one file read on a cold process).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tcc.compiler.cache import KernelCache, cache_key, compiler_fingerprint, default_cache
from tcc.runtime.artifact import KernelArtifact
from tcc.runtime.launcher import CompiledKernel


def compile_gpu_module(
    source: str,
    target: str,
    *,
    kernel: str | None = None,
    grid: Sequence[int | str] = (1, 1, 1),
    block: Sequence[int] | None = None,
    outputs: Sequence[str | int] = (),
    arg_names: Sequence[str] | None = None,
    arg_shapes: Mapping[str, Sequence[int | str]] | None = None,
    constants: Mapping[str, int] | None = None,
    shared_mem_bytes: int = 0,
    schedule: Mapping[str, Any] | None = None,
    cache: KernelCache | Literal[False] | None = None,
) -> KernelArtifact:
    """gpu-dialect IR text -> artifact for ``target``, through the cache.

    ``schedule`` is any extra configuration that produced ``source`` (tile
    sizes, ...): it is part of the key. ``cache=False`` disables caching.
    """
    launch = {
        "kernel": kernel, "grid": list(grid), "block": list(block or ()),
        "outputs": list(outputs), "arg_names": list(arg_names or ()),
        "arg_shapes": {k: list(v) for k, v in (arg_shapes or {}).items()},
        "constants": dict(constants or {}), "shared_mem_bytes": shared_mem_bytes,
    }
    key = cache_key(
        source, target=target,
        shapes=[list(v) for v in (arg_shapes or {}).values()],
        schedule={"launch": launch, **dict(schedule or {})},
    )

    def build() -> KernelArtifact:
        from tcc.backends import get_target  # MLIR is imported only on a miss

        return get_target(target).compile(
            source, kernel=kernel, grid=grid, block=block, outputs=outputs,
            arg_names=arg_names, arg_shapes=arg_shapes, constants=constants,
            shared_mem_bytes=shared_mem_bytes, compiler_version=compiler_fingerprint(),
        )

    if cache is False:
        return build()
    return (cache or default_cache()).get_or_build(key, build)


def compile_kernel(source: str, target: str, **kwargs: Any) -> CompiledKernel:
    """Like :func:`compile_gpu_module`, returning a callable kernel."""
    return CompiledKernel(compile_gpu_module(source, target, **kwargs))
