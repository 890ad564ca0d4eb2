"""tcc: an MLIR-based multi-level GPU kernel compiler.

Importing tcc makes the ``tcc`` (tensor) and ``tile`` dialects and tcc's
passes known to the upstream ``mlir`` Python bindings, so every
``mlir.ir.Context()`` created afterwards knows them. ``tcc.frontend`` (loaded
lazily) builds tensor programs from decorated Python functions;
``tcc.compile`` compiles them for NVIDIA and AMD GPUs.

Registration is deferred until MLIR itself is imported: ``import tcc.runtime``
must stay MLIR-free (a cached kernel is launched without loading MLIR), and
``tcc/__init__.py`` runs before every ``tcc.*`` submodule.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

__version__ = "0.1.0"

# The module whose import means "MLIR is in this process": every Context
# class (and the global dialect registry) lives there.
_MLIR_LIBS = "mlir._mlir_libs"


def register() -> None:
    """Add tcc's dialects and passes to the MLIR bindings. Idempotent."""
    from tcc._registration import register as _register

    _register()


class _RegisteringLoader(importlib.abc.Loader):
    """Wraps the real loader of ``mlir._mlir_libs``; registers after it ran."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        register()

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


class _RegisterWhenMlirLoads(importlib.abc.MetaPathFinder):
    """One-shot import hook: registers tcc as soon as MLIR is imported."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _MLIR_LIBS:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


if _MLIR_LIBS in sys.modules:
    register()  # MLIR is already loaded: registering now costs nothing extra.
else:
    sys.meta_path.insert(0, _RegisterWhenMlirLoads())

__all__ = ["__version__", "autotune", "compile", "frontend", "jit", "register", "runtime"]


def __getattr__(name: str) -> object:
    # Submodules load on first use, keeping `import tcc` fast.
    import importlib

    if name in ("frontend", "runtime"):
        return importlib.import_module(f"tcc.{name}")
    if name == "compile":
        return importlib.import_module("tcc.compiler.compile").compile
    if name == "jit":
        return importlib.import_module("tcc.compiler.jit").jit
    if name == "autotune":
        return importlib.import_module("tcc.tune.autotune").autotune
    raise AttributeError(f"module 'tcc' has no attribute {name!r}")
