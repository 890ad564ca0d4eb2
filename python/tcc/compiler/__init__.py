"""Compiler driver glue: cache, and gpu-module -> artifact compilation.

Importing this package does not import MLIR; only a cache miss does.
"""
