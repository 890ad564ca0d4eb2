"""Run a kernel's ``gpu`` stage on the CPU: one OS thread per GPU thread.

The ``gpu`` stage (after ``tcc-tile-to-gpu``) is target-neutral MLIR:
per-thread vector code, ``gpu.thread_id`` / ``gpu.block_id``, workgroup
buffers and ``gpu.barrier``. Here its ``gpu.func`` becomes a host function
that takes the thread id, the block id and a barrier; each program (block)
runs as ``threads`` OS threads that share the program's workgroup buffers and
meet at a ``pthread_barrier_t``, one program after another. That executes
convert-tile-to-gpu's output as written (layouts, shared-memory staging and
its barriers, masked tails, the dot code), so its numerics can be checked
without a GPU. Asynchronous copies (``nvgpu.device_async_copy``, cp.async)
run synchronously when issued, zero-filling past the source size as cp.async
does, and their commit/wait ops are dropped (the barrier after a wait stays):
a read of a slot before its wait would go unnoticed. Not covered: the
NVVM/ROCDL back half, timing, and warp-level ops (``gpu.shuffle``,
``nvgpu.ldmatrix``: reductions across lanes, tensor-core fragments).
"""

from __future__ import annotations

import ctypes
import re
import threading
from typing import Any

import numpy as np

# Ids become function arguments; barriers become pthread_barrier_wait calls.
_ID_OPS = {
    "thread_id": "%__tid",
    "block_id": "%__bid",
}
_PIPELINE = ",".join(
    [
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "convert-math-to-libm",
        "convert-to-llvm",
        "reconcile-unrealized-casts",
    ]
)
_BARRIER_BYTES = 128  # pthread_barrier_t is 32 bytes on x86-64 glibc
_TIMEOUT_S = 120.0


def host_module(gpu_stage: str) -> tuple[str, str]:
    """The ``gpu.func`` of a ``gpu``-stage module as a host ``func.func``
    (kernel arguments, then workgroup buffers, then ``%__tid``, ``%__bid``
    and the barrier); returns (module text, function name)."""
    lines = gpu_stage.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("gpu.func @"))
    header = lines[start]
    indent = header[: len(header) - len(header.lstrip())]
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == indent + "}")
    match = re.match(
        r"\s*gpu\.func @(\w+)\((.*?)\)(?: workgroup\((.*?)\))? kernel attributes ", header
    )
    if not match:
        raise ValueError(f"unexpected gpu.func header: {header[:200]}")
    name, args, workgroup = match.group(1), match.group(2), match.group(3)
    params = [p for p in (args, workgroup) if p]
    params.append("%__tid: index, %__bid: index, %__bar: !llvm.ptr")
    body, barriers, copies, helpers = [], 0, 0, {}
    for line in lines[start + 1 : end]:
        if line.strip().startswith(("nvvm.cp.async.commit.group", "nvvm.cp.async.wait.group")):
            continue
        if "nvgpu.device_async_copy" in line:
            body.append(_sync_copy(line, helpers, copies))
            copies += 1
            continue
        op = re.match(r"(\s*)(%[\w#:]+) = gpu\.(\w+)\s+(\w)\s*$", line)
        if op and op.group(3) in _ID_OPS:
            pad, result, kind, dim = op.groups()
            value = (f"arith.maxui {_ID_OPS[kind]}, {_ID_OPS[kind]} : index" if dim == "x"
                     else "arith.constant 0 : index")
            line = f"{pad}{result} = {value}"
        elif line.strip() == "gpu.barrier":
            line = (f"{line[: len(line) - len(line.lstrip())]}%__barrier{barriers} = "
                    "func.call @pthread_barrier_wait(%__bar) : (!llvm.ptr) -> i32")
            barriers += 1
        elif line.strip() == "gpu.return":
            line = line.replace("gpu.return", "func.return")
        elif re.search(r"\b(gpu\.(?!address_space)|nvgpu\.|nvvm\.|rocdl\.)", line):
            raise NotImplementedError(f"cannot emulate on the CPU: {line.strip()}")
        body.append(line)
    text = "\n".join(
        [
            "module {",
            "  func.func private @pthread_barrier_wait(!llvm.ptr) -> i32",
            *helpers.values(),
            f"  func.func @{name}({', '.join(params)}) attributes {{llvm.emit_c_interface}} {{",
            *body,
            "  }",
            "}",
        ]
    )
    return text.replace(", #gpu.address_space<workgroup>", ""), name


def _sync_copy(line: str, helpers: dict[str, str], serial: int) -> str:
    """``%t = nvgpu.device_async_copy %src[..], %dst[..], N[, %n] : S to D`` as
    a call of a helper that copies ``n`` (default N) elements along the last
    dim and zero-fills the rest of the N, as cp.async does."""
    match = re.match(
        r"(\s*)(%[\w#:]+) = nvgpu\.device_async_copy (%\w+)\[(.*?)\], (%\w+)\[(.*?)\], "
        r"(\d+)(?:, (%\w+))?(?: \{bypassL1\})? : (memref<.*>) to (memref<.*>)\s*$",
        line,
    )
    if not match:
        raise NotImplementedError(f"cannot emulate on the CPU: {line.strip()}")
    pad, _, src, src_idx, dst, dst_idx, count, size, src_t, dst_t = match.groups()
    src_idx, dst_idx = src_idx.split(", "), dst_idx.split(", ")
    key = f"{src_t} to {dst_t} x{count}"
    if key not in helpers:
        helpers[key] = _copy_helper(f"__copy{len(helpers)}", src_t, len(src_idx), dst_t,
                                    len(dst_idx), int(count))
    name = helpers[key].split("@", 1)[1].split("(", 1)[0]
    # Without a source size the whole run is copied.
    n = size or f"%__count{serial}"
    args = [src, *src_idx, dst, *dst_idx]
    types = [src_t, *["index"] * len(src_idx), dst_t, *["index"] * len(dst_idx)]
    call = f"func.call @{name}({', '.join([*args, n])}) : ({', '.join([*types, 'index'])}) -> ()"
    if size:
        return f"{pad}{call}"
    return f"{pad}{n} = arith.constant {count} : index\n{pad}{call}"


def _copy_helper(name: str, src_t: str, src_rank: int, dst_t: str, dst_rank: int,
                 count: int) -> str:
    elem = re.match(r"memref<(?:[\d?]+x)*(\w+)", src_t).group(1)
    zero = "0.0" if elem.startswith(("f", "bf")) else "0"
    s = [f"%s{i}" for i in range(src_rank)]
    d = [f"%d{i}" for i in range(dst_rank)]
    params = [f"%src: {src_t}", *(f"{v}: index" for v in s), f"%dst: {dst_t}",
              *(f"{v}: index" for v in d), "%n: index"]
    src_at = ", ".join([*s[:-1], "%j"])
    dst_at = ", ".join([*d[:-1], "%i"])
    return f"""  func.func private @{name}({", ".join(params)}) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %count = arith.constant {count} : index
    %zero = arith.constant {zero} : {elem}
    scf.for %t = %c0 to %count step %c1 {{
      %inside = arith.cmpi ult, %t, %n : index
      %v = scf.if %inside -> ({elem}) {{
        %j = arith.addi {s[-1]}, %t : index
        %x = memref.load %src[{src_at}] : {src_t}
        scf.yield %x : {elem}
      }} else {{
        scf.yield %zero : {elem}
      }}
      %i = arith.addi {d[-1]}, %t : index
      memref.store %v, %dst[{dst_at}] : {dst_t}
    }}
    return
  }}"""


def _aligned_empty(shape: tuple[int, ...], dtype: np.dtype, align: int = 64) -> np.ndarray:
    dtype = np.dtype(dtype)
    count = int(np.prod(shape)) if shape else 1
    raw = np.zeros(count * dtype.itemsize + align, dtype=np.uint8)
    offset = (-raw.ctypes.data) % align
    return raw[offset : offset + count * dtype.itemsize].view(dtype).reshape(shape)


def _aligned_copy(array: np.ndarray) -> np.ndarray:
    out = _aligned_empty(array.shape, array.dtype)
    out[...] = array
    return out


def run_gpu_stage(kernel: Any, *inputs: np.ndarray) -> list[np.ndarray]:
    """Run ``kernel`` (a ``tcc.compile`` result) on the CPU through its
    ``gpu`` stage with numpy ``inputs``; returns its outputs (NaN-filled
    first, so unwritten elements show)."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager
    from mlir.runtime import get_ranked_memref_descriptor

    import tcc  # noqa: F401
    from tcc.runtime.artifact import DTYPES

    grid = kernel.launch.grid
    if not all(isinstance(g, int) for g in grid):
        raise NotImplementedError(f"grid {grid} is not static")
    threads = kernel.launch.block[0]
    specs = kernel.args
    if len(inputs) != sum(spec.role == "input" for spec in specs):
        raise TypeError(f"{kernel.name} takes {len(specs)} arguments with its outputs")
    arrays = [_aligned_copy(np.ascontiguousarray(a)) for a in inputs]
    outputs = []
    for spec in specs:
        if spec.role != "input":
            out = _aligned_empty(tuple(spec.shape), np.dtype(DTYPES[spec.dtype][0]))
            out[...] = np.nan
            outputs.append(out)
    text, name = host_module(kernel.ir["gpu"])
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        func = next(
            op.operation
            for op in module.body.operations
            if ir.StringAttr(op.operation.attributes["sym_name"]).value == name
        )
        inputs_types = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs
        workgroup = [ir.MemRefType(t) for t in inputs_types[len(specs) : -3]]
        shared = [
            _aligned_empty(tuple(t.shape), np.dtype(DTYPES[str(t.element_type)][0]))
            for t in workgroup
        ]
        PassManager.parse(f"builtin.module({_PIPELINE})").run(module.operation)
        engine = ExecutionEngine(module, opt_level=2)
    entry = engine.lookup(name)
    descriptors = [get_ranked_memref_descriptor(a) for a in [*arrays, *outputs, *shared]]
    libc = ctypes.CDLL(None)
    barrier = ctypes.create_string_buffer(_BARRIER_BYTES)
    if libc.pthread_barrier_init(barrier, None, ctypes.c_uint(threads)) != 0:
        raise OSError("pthread_barrier_init failed")
    try:
        for bid in range(grid[0] * grid[1] * grid[2]):
            _run_program(entry, descriptors, bid, threads, barrier)
    finally:
        libc.pthread_barrier_destroy(barrier)
    return outputs


def _run_program(entry: Any, descriptors: list[Any], bid: int, threads: int,
                 barrier: Any) -> None:
    """One program: `threads` OS threads through the JIT-compiled kernel
    (ctypes releases the GIL for the call)."""
    memrefs = [ctypes.pointer(ctypes.pointer(d)) for d in descriptors]
    bar = ctypes.c_void_p(ctypes.addressof(barrier))
    keep = []

    def packed(tid: int) -> Any:
        scalars = [ctypes.c_int64(tid), ctypes.c_int64(bid), bar]
        args = [*memrefs, *(ctypes.pointer(s) for s in scalars)]
        array = (ctypes.c_void_p * len(args))(*(ctypes.cast(a, ctypes.c_void_p) for a in args))
        keep.append((scalars, args, array))
        return array

    workers = [
        threading.Thread(target=entry, args=(packed(tid),), daemon=True) for tid in range(threads)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(_TIMEOUT_S)
        if w.is_alive():
            raise RuntimeError(f"program {bid} did not finish (a thread waits at a barrier?)")
