"""tcc: an MLIR-based multi-level GPU kernel compiler.

Importing tcc registers the ``tcc`` (tensor) and ``tile`` dialects and tcc's
passes with the upstream ``mlir`` Python bindings, so every
``mlir.ir.Context()`` created afterwards knows them. ``tcc.frontend`` (loaded
lazily) builds tensor programs from decorated Python functions.
"""

from tcc._registration import register

__version__ = "0.1.0"

register()

__all__ = ["__version__", "frontend", "register"]


def __getattr__(name: str) -> object:
    # `tcc.frontend` (the Python program builder) loads on first use, keeping
    # `import tcc` fast.
    if name == "frontend":
        import importlib

        return importlib.import_module("tcc.frontend")
    raise AttributeError(f"module 'tcc' has no attribute {name!r}")
