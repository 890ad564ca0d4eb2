"""convert-tile-to-gpu's math expansion (targets with math = expanded, e.g.
gfx942), run on the CPU: the math functions it
writes out (instead of libdevice/OCML calls) are JIT-compiled and compared
with numpy in float64 over wide ranges and special values."""

import ctypes
import math
import re

import numpy as np
import pytest
from mlir import execution_engine, ir
from mlir.passmanager import PassManager
from mlir.runtime import get_ranked_memref_descriptor


def expanded(op, ty):
    """The gpu.func that convert-tile-to-gpu makes of `store(math.op(x))`,
    as a plain func.func (its body has no GPU ops)."""
    src = f"""
    tile.func @k(%x: {ty}, %p: !tile.ptr<{ty}>) attributes {{grid_rank = 1 : i32}} {{
      %r = math.{op} %x : {ty}
      tile.store %p, %r : !tile.ptr<{ty}>
      tile.return
    }}"""
    module = ir.Module.parse(src)
    PassManager.parse(
        "builtin.module(tcc-set-target{arch=gfx942},convert-tile-to-gpu)"
    ).run(module.operation)
    text = str(module).replace("!llvm.ptr<1>", "!llvm.ptr")
    match = re.search(
        r"gpu\.func @k\((.*?)\) kernel attributes \{[^}]*\} \{(.*?)gpu\.return", text, re.S
    )
    args, body = match.group(1), match.group(2)
    assert "math." not in body, body
    return f"func.func private @f({args}) {{\n{body} return\n}}"


def run(op, ty, xs):
    prog = (
        expanded(op, ty)
        + f"""
    func.func @run(%in: memref<?x{ty}>, %out: memref<?x{ty}>)
        attributes {{llvm.emit_c_interface}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = memref.dim %in, %c0 : memref<?x{ty}>
      %base = memref.extract_aligned_pointer_as_index %out : memref<?x{ty}> -> index
      %bi = arith.index_cast %base : index to i64
      %bp = llvm.inttoptr %bi : i64 to !llvm.ptr
      scf.for %i = %c0 to %n step %c1 {{
        %x = memref.load %in[%i] : memref<?x{ty}>
        %i64 = arith.index_cast %i : index to i64
        %p = llvm.getelementptr %bp[%i64] : (!llvm.ptr, i64) -> !llvm.ptr, {ty}
        func.call @f(%x, %p) : ({ty}, !llvm.ptr) -> ()
      }}
      return
    }}"""
    )
    module = ir.Module.parse(prog)
    PassManager.parse(
        "builtin.module(convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)"
    ).run(module.operation)
    engine = execution_engine.ExecutionEngine(module, opt_level=2)
    out = np.zeros_like(xs)
    engine.invoke(
        "run",
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(xs))),
        ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(out))),
    )
    return out


SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, 88.7, 88.8, -103.0, -110.0, 3.4e38]
REFERENCE = {
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "tanh": np.tanh,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "erf": np.vectorize(math.erf),
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "floor": np.floor,
    "ceil": np.ceil,
    "absf": np.abs,
}
# Worst error allowed, in units of float32's 2^-23 relative precision.
ULPS = {"erf": 6, "floor": 0, "ceil": 0, "absf": 0}


def inputs(op):
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.uniform(-100, 100, 5000),
            rng.uniform(-5, 5, 5000),
            rng.uniform(-1e-3, 1e-3, 500),
            SPECIAL,
        ]
    )
    if op in ("log", "log2", "log10", "sqrt", "rsqrt"):
        x = np.concatenate([np.abs(x), 10.0 ** rng.uniform(-44, 38, 5000), [-1.0]])
    if op == "log1p":
        x = np.concatenate([x[x > -1], [-1.0, -1.5]])
    return x.astype(np.float32)


@pytest.mark.parametrize("op", sorted(REFERENCE))
def test_f32(ctx, op):
    xs = inputs(op)
    with np.errstate(all="ignore"):
        got = run(op, "f32", xs).astype(np.float64)
        want = REFERENCE[op](xs.astype(np.float64))
        want32 = want.astype(np.float32).astype(np.float64)
    finite = np.isfinite(want32)
    # Non-finite results (inf, nan) exactly.
    assert np.array_equal(got[~finite], want32[~finite], equal_nan=True), xs[~finite]
    normal = finite & (np.abs(want32) >= 1.2e-38)
    with np.errstate(all="ignore"):
        err = np.abs(got - want)
    ulps = err[normal] / np.abs(want[normal]) / 2.0**-23
    assert ulps.max() <= ULPS.get(op, 3), (op, xs[normal][np.argmax(ulps)], ulps.max())
    assert np.all(err[finite & ~normal] < 1.2e-38)


@pytest.mark.parametrize("op", ["exp", "tanh", "erf", "sqrt", "log", "sinh"])
def test_f16_is_rounded_from_f32(ctx, op):
    xs = np.linspace(-11, 11, 2001).astype(np.float16)
    if op in ("sqrt", "log"):
        xs = np.abs(xs)
    with np.errstate(all="ignore"):
        want = REFERENCE[op](xs.astype(np.float64)).astype(np.float16)
    assert np.array_equal(run(op, "f16", xs), want, equal_nan=True)
