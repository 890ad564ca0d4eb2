"""tcc: an MLIR-based multi-level GPU kernel compiler.

Importing tcc registers the ``tcc`` (tensor) and ``tile`` dialects and tcc's
passes with the upstream ``mlir`` Python bindings, so every
``mlir.ir.Context()`` created afterwards knows them.
"""

from tcc._registration import register

__version__ = "0.1.0"

register()

__all__ = ["__version__", "register"]
