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

_NUMPY_OF = {
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "i32": np.int32,
    "i64": np.int64,
    "i8": np.int8,
    "i16": np.int16,
    "i1": np.bool_,
}


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
        args: list[Any] = []
        for array in (*inputs, *results):
            desc = get_ranked_memref_descriptor(np.ascontiguousarray(array))
            args.append(ctypes.pointer(ctypes.pointer(desc)))
        # Keep the arrays the descriptors point into alive (results are
        # written in place: buffer-results-to-out-params).
        engine.invoke(name, *args)
    return results


def _empty_like_type(t: Any) -> np.ndarray:
    from mlir import ir

    rt = ir.RankedTensorType(t)
    dtype = _NUMPY_OF.get(str(rt.element_type))
    if dtype is None:
        raise TypeError(f"no numpy dtype for {rt.element_type} on the CPU path")
    return np.full(
        tuple(rt.shape), np.nan if dtype in (np.float16, np.float32, np.float64) else 0, dtype=dtype
    )
