"""Hook tcc's dialects and passes into the upstream MLIR bindings, once."""

from mlir._mlir_libs import get_dialect_registry

from tcc import _tcc_ext

_registered = False


def register() -> None:
    """Add tcc's dialects to the bindings' global registry and its passes to
    the pass registry. Idempotent; contexts created afterwards see them."""
    global _registered
    if _registered:
        return
    _tcc_ext.register_dialects(get_dialect_registry())
    _tcc_ext.register_passes()
    _registered = True
