"""Run a tcc program's ``linalg`` stage on the CPU (MLIR ExecutionEngine).

This checks the math of the front half of the compiler (tcc -> linalg,
fusion) numerically on machines without a GPU: the same fused linalg IR that
the GPU schedule starts from is bufferized, lowered to loops and JIT-run.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

_CPU_PIPELINE = ",".join(
    [
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}",
        "buffer-results-to-out-params{modify-public-functions=1}",
        "convert-linalg-to-loops",
        "expand-strided-metadata",
        "lower-affine",
        "convert-scf-to-cf",
        "convert-math-to-libm",
        "convert-math-to-llvm",
        "finalize-memref-to-llvm",
        "convert-arith-to-llvm",
        "convert-func-to-llvm",
        "convert-cf-to-llvm",
        "reconcile-unrealized-casts",
    ]
)

def run_on_cpu(source: str, *inputs: np.ndarray) -> list[np.ndarray]:
    """Compile ``source`` (one static-shaped function) to its linalg stage and
    run it on the CPU with ``inputs``; returns the results as numpy arrays."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager
    from mlir.runtime import get_ranked_memref_descriptor

    import tcc  # noqa: F401

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(source)
        PassManager.parse("builtin.module(tcc-tensor-to-linalg)").run(module.operation)
        func = next(op for op in module.body.operations if op.operation.name == "func.func")
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        name = ir.StringAttr(func.attributes["sym_name"]).value
        results = [_empty_like_type(t) for t in ftype.results]
        func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        PassManager.parse(f"builtin.module({_CPU_PIPELINE})").run(module.operation)
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[])
        # The descriptors point into these arrays: keep them referenced until
        # the call returns (results are written in place:
        # buffer-results-to-out-params).
        buffers = [np.ascontiguousarray(a) for a in inputs] + results
        args: list[Any] = [
            ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(b))) for b in buffers
        ]
        engine.invoke(name, *args)
    return results


def _empty_like_type(t: Any) -> np.ndarray:
    from mlir import ir

    from tcc.runtime.artifact import DTYPES

    rt = ir.RankedTensorType(t)
    name = str(rt.element_type)
    if name not in DTYPES or name == "bf16":  # numpy has no bfloat16
        raise TypeError(f"no numpy dtype for {name} on the CPU path")
    dtype = np.dtype(DTYPES[name][0])
    fill = np.nan if dtype.kind == "f" else 0
    return np.full(tuple(rt.shape), fill, dtype=dtype)
