"""Run a tcc program's ``linalg`` stage on the CPU (MLIR ExecutionEngine).

This checks the math of the front half of the compiler (tcc -> linalg,
fusion) numerically on machines without a GPU: the same fused linalg IR that
the GPU schedule starts from is bufferized, lowered to loops and JIT-run
(``linalg.softmax`` is first decomposed into generics, its own definition).
numpy has no bfloat16: bf16 arguments take float32 arrays (rounded to
nearest even) and bf16 results come back as float32 arrays. i1 tensors may
not cross a buffer (an argument, a result, or an intermediate that fusion
leaves): MLIR's memref-to-llvm lowering asserts on i1 loads and stores, so
cast masks (``(x > 0).to(i8)``) before returning them.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

# LLVM's x86 backend truncates f32 to bf16 (and legalizes bf16 arithmetic)
# through the libcall __truncsfbf2, which libgcc has only from GCC 13 on
# (Debian 12's 12.2 lacks it): the JIT-compiled module defines it itself,
# round to nearest even, NaNs kept quiet.
_TRUNCSFBF2 = """llvm.func @__truncsfbf2(%x: f32) -> bf16 {
  %i = llvm.bitcast %x : f32 to i32
  %c16 = llvm.mlir.constant(16 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %bias = llvm.mlir.constant(32767 : i32) : i32
  %quiet = llvm.mlir.constant(4194304 : i32) : i32
  %hi = llvm.lshr %i, %c16 : i32
  %lsb = llvm.and %hi, %c1 : i32
  %inc = llvm.add %bias, %lsb : i32
  %rounded = llvm.add %i, %inc : i32
  %nan = llvm.fcmp "uno" %x, %x : f32
  %q = llvm.or %i, %quiet : i32
  %bits = llvm.select %nan, %q, %rounded : i1, i32
  %top = llvm.lshr %bits, %c16 : i32
  %h = llvm.trunc %top : i32 to i16
  %r = llvm.bitcast %h : i16 to bf16
  llvm.return %r : bf16
}"""


def define_bf16_truncation(module: Any) -> None:
    """Adds ``__truncsfbf2`` to an LLVM-dialect module about to be JIT-compiled
    (in its context), unless it has one."""
    from mlir import ir

    if any(ir.StringAttr(op.operation.attributes["sym_name"]).value == "__truncsfbf2"
           for op in module.body.operations if "sym_name" in op.operation.attributes):
        return
    helper = ir.Module.parse(_TRUNCSFBF2, module.context)
    for op in list(helper.body.operations):
        module.body.append(op.detach_from_parent())


_CPU_PIPELINE = ",".join(
    [
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map}",
        "buffer-results-to-out-params{modify-public-functions=1}",
        "convert-linalg-to-loops",
        "expand-strided-metadata",
        "lower-affine",
        "convert-scf-to-cf",
        "math-expand-ops{ops=rsqrt}",  # libm has no rsqrtf
        "convert-math-to-libm",
        "convert-math-to-llvm",
        "finalize-memref-to-llvm",
        "convert-arith-to-llvm",
        "convert-func-to-llvm",
        "convert-cf-to-llvm",
        "reconcile-unrealized-casts",
    ]
)

# Decomposes linalg.softmax (max, exp, sum, div generics): convert-linalg-to-loops
# does not lower it.
_DECOMPOSE_SOFTMAX = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.decompose_interface %s : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def _to_bf16_bits(a: np.ndarray) -> np.ndarray:
    """float32 values as bfloat16 bit patterns (uint16), rounded to nearest even."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def _from_bf16_bits(a: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint32) << 16).view(np.float32)


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
        if "linalg.softmax" in str(module):
            _decompose_softmax(module)
        func = next(op for op in module.body.operations if op.operation.name == "func.func")
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        name = ir.StringAttr(func.attributes["sym_name"]).value
        results = [_empty_like_type(t) for t in ftype.results]
        bf16_results = [str(ir.RankedTensorType(t).element_type) == "bf16" for t in ftype.results]
        inputs = tuple(
            _to_bf16_bits(a) if str(ir.RankedTensorType(t).element_type) == "bf16" else a
            for a, t in zip(inputs, ftype.inputs, strict=True)
        )
        func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        PassManager.parse(f"builtin.module({_CPU_PIPELINE})").run(module.operation)
        define_bf16_truncation(module)
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[])
        # The descriptors point into these arrays: keep them referenced until
        # the call returns (results are written in place:
        # buffer-results-to-out-params).
        buffers = [np.ascontiguousarray(a) for a in inputs] + results
        args: list[Any] = [
            ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(b))) for b in buffers
        ]
        engine.invoke(name, *args)
    return [_from_bf16_bits(r) if b else r for r, b in zip(results, bf16_results, strict=True)]


def _decompose_softmax(module: Any) -> None:
    from mlir import ir
    from mlir.passmanager import PassManager

    module.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
    library = ir.Module.parse(_DECOMPOSE_SOFTMAX)
    sequence = library.body.operations[0]
    module.body.append(sequence)
    PassManager.parse("builtin.module(transform-interpreter)").run(module.operation)
    sequence.erase()
    del module.operation.attributes["transform.with_named_sequence"]


def _empty_like_type(t: Any) -> np.ndarray:
    from mlir import ir

    from tcc.runtime.artifact import DTYPES

    rt = ir.RankedTensorType(t)
    name = str(rt.element_type)
    if name == "bf16":  # numpy has no bfloat16: raw bits, converted after the call
        return np.zeros(tuple(rt.shape), dtype=np.uint16)
    if name not in DTYPES:
        raise TypeError(f"no numpy dtype for {name} on the CPU path")
    dtype = np.dtype(DTYPES[name][0])
    fill = np.nan if dtype.kind == "f" else 0
    return np.full(tuple(rt.shape), fill, dtype=dtype)
