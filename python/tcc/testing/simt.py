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
a read of a slot before its wait would go unnoticed. Buffers past 48 KiB
(``gpu.dynamic_shared_memory``, viewed by ``memref.view``) are one buffer of
the launch's dynamic shared bytes.

Warp-level ops run by a warp rendezvous: the threads of a warp (32 lanes on
NVIDIA, 64 on AMD CDNA) share an exchange area and a pthread barrier of
their own. Each lane deposits its operands (register elements, or the row
address it supplies), the warp meets at its barrier, each lane computes its
own result from all lanes' deposits, and a second meeting frees the area.
Covered: ``nvgpu.ldmatrix`` (.m8n8 b16, x1/x2/x4, with and without
``.trans``), ``nvvm.mma.sync`` m16n8k16 row.col f16/bf16 -> f32,
``rocdl.mfma.f32.16x16x16f16`` / ``.16x16x16bf16.1k`` and
``rocdl.mfma.f32.32x32x8f16`` / ``.32x32x8bf16.1k`` (no broadcast
modifiers) and ``gpu.shuffle xor`` of 32-bit values. The lane semantics are
written below from the vendor ISA documents (the PTX ISA's fragment tables,
AMD's CDNA3 ISA / matrix instruction calculator), not from tcc's lowering, so
a lane-mapping bug in the lowering shows up as wrong numbers. Products of
the f16/bf16 elements are exact in f32 and summed in f32 in k order after C
(the hardware's internal accumulation order and rounding are not modelled).
sm_90's warp-specialized GEMM (wgmma from shared-memory descriptors, TMA
copies, mbarriers, named barriers) runs through tcc.testing.hopper, whose
semantics come from the PTX ISA too. Not covered: the NVVM/ROCDL back half,
timing and other warp ops (refused with a NotImplementedError naming them).

bf16 arrays (inputs, outputs) are numpy ``uint16`` arrays of the bf16 bits.
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tcc.testing.cpu import define_bf16_truncation
from tcc.testing.hopper import DECLS as _HOPPER_DECLS
from tcc.testing.hopper import HopperState, HopperText, TensorMap, low_buffer

# sm_90's warp-specialized GEMM ops (wgmma, TMA copies, mbarriers):
# emulated through tcc.testing.hopper's callbacks.
_HOPPER_OPS = ("nvvm.wgmma.mma_async", "nvvm.cp.async.bulk.tensor", "nvvm.mbarrier")

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
        "math-expand-ops{ops=rsqrt}",  # no libm rsqrt; LLVM has no vector rsqrt
        "convert-math-to-libm",
        "convert-to-llvm",
        "reconcile-unrealized-casts",
    ]
)
_BARRIER_BYTES = 128  # pthread_barrier_t is 32 bytes on x86-64 glibc
_TIMEOUT_S = 120.0
_SLOTS = 16  # exchange-area words (i64) per lane: one per deposited element

# The host function's parameters after the kernel's arguments and workgroup
# buffers: thread id, block id, the program's barrier, then the lane id, the
# warp's barrier and the warp's exchange area (memref<lanes x _SLOTS x i64>).
_ENV = (f"%__tid: index, %__bid: index, %__bar: !llvm.ptr, %__lane: index, "
        f"%__wbar: !llvm.ptr, %__xchg: memref<?x{_SLOTS}xi64>")
_ENV_COUNT = 6
_WARP_ARGS = "%__lane, %__wbar, %__xchg"  # what a warp op's helper gets

# ---------------------------------------------------------------------------
# Lane semantics of the warp-level ops, from the ISA documents.

Element = tuple[int, int]  # (row, column) of a matrix
LaneMap = Callable[[int, int], Element]  # (lane, element index) -> (row, column)


# PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"
# (.f16 / .bf16 multiplicands, .f32 accumulators), with
# groupID = %laneid >> 2 and threadID_in_group = %laneid % 4.
def ptx_m16n8k16_a(lane: int, i: int) -> Element:
    """a_i, i < 8 (four .f16x2 registers, low half first): row groupID for
    a0, a1, a4, a5, groupID + 8 otherwise; column threadID_in_group * 2 +
    (i & 1), + 8 for i >= 4."""
    group, in_group = lane >> 2, lane % 4
    row = group if i < 2 or 4 <= i < 6 else group + 8
    return row, in_group * 2 + (i & 1) + (8 if i >= 4 else 0)


def ptx_m16n8k16_b(lane: int, i: int) -> Element:
    """b_i, i < 4 (two .f16x2 registers): row (k) threadID_in_group * 2 +
    (i & 1), + 8 for i >= 2; column groupID."""
    group, in_group = lane >> 2, lane % 4
    return in_group * 2 + (i & 1) + (8 if i >= 2 else 0), group


def ptx_m16n8k16_c(lane: int, i: int) -> Element:
    """c_i / d_i, i < 4: row groupID, + 8 for i >= 2; column
    threadID_in_group * 2 + (i & 1)."""
    group, in_group = lane >> 2, lane % 4
    return group + (8 if i >= 2 else 0), in_group * 2 + (i & 1)


# AMD CDNA3 ISA / AMD matrix instruction calculator, v_mfma_f32_16x16x16_f16
# and _bf16 (one block, wave64): A[i][k] is item k % 4 of lane i + 16 * (k / 4),
# B[k][j] item k % 4 of lane j + 16 * (k / 4), C/D[i][j] register i % 4 of
# lane j + 16 * (i / 4).
def cdna_16x16x16_a(lane: int, i: int) -> Element:
    """Item i < 4 of ``lane``'s A operand: A[lane % 16][4 * (lane / 16) + i]."""
    return lane % 16, 4 * (lane // 16) + i


def cdna_16x16x16_b(lane: int, i: int) -> Element:
    """Item i < 4 of ``lane``'s B operand: B[4 * (lane / 16) + i][lane % 16]."""
    return 4 * (lane // 16) + i, lane % 16


def cdna_16x16x16_cd(lane: int, i: int) -> Element:
    """Register i < 4 of ``lane``'s C/D: D[4 * (lane / 16) + i][lane % 16]."""
    return 4 * (lane // 16) + i, lane % 16


# AMD CDNA3 ISA / AMD matrix instruction calculator, v_mfma_f32_32x32x8_f16
# and _bf16 (one block, wave64; two lane groups of 32 along K): A[i][k] is
# item k % 4 of lane i + 32 * (k / 4), B[k][j] item k % 4 of lane j + 32 *
# (k / 4); C/D[i][j] is register 4 * (i / 8) + i % 4 of lane j + 32 * ((i /
# 4) % 2), i.e. lane l's 16 registers cover rows in 4 groups of 4.
def cdna_32x32x8_a(lane: int, i: int) -> Element:
    """Item i < 4 of ``lane``'s A operand: A[lane % 32][4 * (lane / 32) + i]."""
    return lane % 32, 4 * (lane // 32) + i


def cdna_32x32x8_b(lane: int, i: int) -> Element:
    """Item i < 4 of ``lane``'s B operand: B[4 * (lane / 32) + i][lane % 32]."""
    return 4 * (lane // 32) + i, lane % 32


def cdna_32x32x8_cd(lane: int, i: int) -> Element:
    """Register i < 16 of ``lane``'s C/D: D[8 * (i / 4) + 4 * (lane / 32) +
    i % 4][lane % 32]."""
    return 8 * (i // 4) + 4 * (lane // 32) + i % 4, lane % 32


def ptx_ldmatrix(lane: int, matrix: int, i: int, trans: bool) -> tuple[int, int]:
    """PTX ISA "ldmatrix" (.m8n8, .b16): the lane whose address is the source
    row, and the element within that 8-element row, of element ``i`` (0, 1)
    of ``lane``'s register for ``matrix``. Lanes 8j..8j+7 supply the
    addresses of rows 0..7 of matrix j; each lane receives row lane / 4,
    elements 2 * (lane % 4) + {0, 1} (``.trans``: of the transposed matrix,
    i.e. rows 2 * (lane % 4) + {0, 1}, element lane / 4)."""
    row, col = lane // 4, 2 * (lane % 4) + i
    if trans:
        row, col = col, row
    return 8 * matrix + row, col


@dataclass(frozen=True)
class WarpMma:
    """A warp-wide D = A x B + C ([m, k] x [k, n], f32 accumulator): how many
    elements of each operand a lane holds and where they sit (ISA lane maps)."""

    m: int
    n: int
    k: int
    warp_size: int
    a: LaneMap
    a_count: int
    b: LaneMap
    b_count: int
    c: LaneMap
    c_count: int
    dtype: str  # multiplicand elements: "f16" or "bf16"


# Keyed by the emulating helper's name (tests swap a map to break it).
WARP_MMAS: dict[str, WarpMma] = {
    **{f"mma_m16n8k16_{t}": WarpMma(16, 8, 16, 32, ptx_m16n8k16_a, 8, ptx_m16n8k16_b, 4,
                                    ptx_m16n8k16_c, 4, t) for t in ("f16", "bf16")},
    **{f"mfma_16x16x16_{t}": WarpMma(16, 16, 16, 64, cdna_16x16x16_a, 4, cdna_16x16x16_b, 4,
                                     cdna_16x16x16_cd, 4, t) for t in ("f16", "bf16")},
    **{f"mfma_32x32x8_{t}": WarpMma(32, 32, 8, 64, cdna_32x32x8_a, 4, cdna_32x32x8_b, 4,
                                    cdna_32x32x8_cd, 16, t) for t in ("f16", "bf16")},
}


def _operand_table(lane_map: LaneMap, count: int, rows: int, cols: int, warp_size: int,
                   first_slot: int) -> np.ndarray:
    """[rows, cols, 2]: the (lane, exchange slot) holding each element of an
    operand whose lanes deposit their ``count`` elements from ``first_slot``
    on; checks that the lane map covers every element exactly once."""
    table = np.full((rows, cols, 2), -1, np.int32)
    for lane in range(warp_size):
        for i in range(count):
            row, col = lane_map(lane, i)
            if table[row, col, 0] >= 0:
                raise ValueError(f"element ({row}, {col}) is held by two lanes")
            table[row, col] = lane, first_slot + i
    if (table < 0).any():
        raise ValueError("an operand element is held by no lane")
    return table


def _result_table(lane_map: LaneMap, count: int, rows: int, cols: int,
                  warp_size: int) -> np.ndarray:
    """[lanes, count, 2]: the (row, column) of each lane's result elements."""
    _operand_table(lane_map, count, rows, cols, warp_size, 0)  # each element once
    return np.array([[lane_map(lane, i) for i in range(count)] for lane in range(warp_size)],
                    np.int32)


def _global(name: str, table: np.ndarray) -> str:
    shape = "x".join(str(d) for d in table.shape)
    return (f'  memref.global "private" constant @{name} : memref<{shape}xi32> =\n'
            f"      dense<{table.tolist()}>")


# A warp's exchange area: one row of _SLOTS i64 words per lane.
_XCHG = f"memref<?x{_SLOTS}xi64>"
# The last parameters of every warp-op helper, and their types.
_HELPER_ENV = f"%lane: index, %bar: !llvm.ptr, %x: {_XCHG}"
_HELPER_ENV_TYPES = f"index, !llvm.ptr, {_XCHG}"
_TABLE = "memref<?x?x2xi32>"

# Declarations and small functions every host module gets.
_RUNTIME = f"""  func.func private @pthread_barrier_wait(!llvm.ptr) -> i32
  // Entry (i, j, f) of a [.., .., 2] table, as an index.
  func.func private @__table_at(%t: {_TABLE}, %i: index, %j: index, %f: index)
      -> index {{
    %v = memref.load %t[%i, %j, %f] : {_TABLE}
    %r = arith.index_cast %v : i32 to index
    return %r : index
  }}
  // The deposit of the (lane, slot) that table t names at (i, j).
  func.func private @__deposit_at(%x: {_XCHG}, %t: {_TABLE}, %i: index, %j: index) -> i64 {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lane = func.call @__table_at(%t, %i, %j, %c0) : ({_TABLE}, index, index, index) -> index
    %slot = func.call @__table_at(%t, %i, %j, %c1) : ({_TABLE}, index, index, index) -> index
    %w = memref.load %x[%lane, %slot] : {_XCHG}
    return %w : i64
  }}
  // Element col of the b16 row whose address lane src deposited (slot 0).
  func.func private @__row_element(%x: {_XCHG}, %src: index, %col: index) -> i16 {{
    %c0 = arith.constant 0 : index
    %addr = memref.load %x[%src, %c0] : {_XCHG}
    %row = llvm.inttoptr %addr : i64 to !llvm.ptr
    %col64 = arith.index_cast %col : index to i64
    %at = llvm.getelementptr %row[%col64] : (!llvm.ptr, i64) -> !llvm.ptr, i16
    %h = llvm.load %at : !llvm.ptr -> i16
    return %h : i16
  }}
  func.func private @__f16_bits_to_f32(%w: i64) -> f32 {{
    %h = arith.trunci %w : i64 to i16
    %f = arith.bitcast %h : i16 to f16
    %r = arith.extf %f : f16 to f32
    return %r : f32
  }}
  // bf16 is the high half of an f32.
  func.func private @__bf16_bits_to_f32(%w: i64) -> f32 {{
    %c16 = arith.constant 16 : i32
    %h = arith.trunci %w : i64 to i32
    %s = arith.shli %h, %c16 : i32
    %r = arith.bitcast %s : i32 to f32
    return %r : f32
  }}"""


def _unsupported(line: str) -> NotImplementedError:
    return NotImplementedError(f"cannot emulate on the CPU: {line.strip()}")


class _Helpers:
    """The private host functions (and tables) that emulate the gpu stage's
    warp-level ops and async copies, each generated once."""

    def __init__(self, warp_size: int) -> None:
        self.warp_size = warp_size
        self.text: dict[str, str] = {}  # helper name -> its text
        self.copy_names: dict[str, str] = {}  # copy kind -> helper name
        self.copies = 0

    def add(self, name: str, make: Callable[[], str]) -> str:
        if name not in self.text:
            self.text[name] = make()
        return name

    # -- matrix multiply-accumulate -----------------------------------------
    def mma(self, key: str) -> str:
        """``@__<key>(A elements, B elements, C, env) -> D`` for one lane, the
        elements as i16 bits in the ISA's per-lane order: deposit A and B,
        meet, compute this lane's D elements from every lane's deposits,
        meet again."""
        op = WARP_MMAS[key]
        if op.warp_size != self.warp_size:
            raise NotImplementedError(f"{key} needs {op.warp_size} lanes per warp, the "
                                      f"target has {self.warp_size}")

        def make() -> str:
            a = _operand_table(op.a, op.a_count, op.m, op.k, op.warp_size, 0)
            b = _operand_table(op.b, op.b_count, op.k, op.n, op.warp_size, op.a_count)
            d = _result_table(op.c, op.c_count, op.m, op.n, op.warp_size)
            va, vb, vc = (f"vector<{op.a_count}xi16>", f"vector<{op.b_count}xi16>",
                          f"vector<{op.c_count}xf32>")
            ta, tb, td = (f"memref<{op.m}x{op.k}x2xi32>", f"memref<{op.k}x{op.n}x2xi32>",
                          f"memref<{op.warp_size}x{op.c_count}x2xi32>")
            at = f"({_TABLE}, index, index, index) -> index"
            dep = f"({_XCHG}, {_TABLE}, index, index) -> i64"
            widen = f"@__{op.dtype}_bits_to_f32"
            return f"""{_global(f"__{key}_a", a)}
{_global(f"__{key}_b", b)}
{_global(f"__{key}_d", d)}
  func.func private @__{key}(%a: {va}, %b: {vb}, %c: {vc}, {_HELPER_ENV}) -> {vc} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %na = arith.constant {op.a_count} : index
    %nb = arith.constant {op.b_count} : index
    %nc = arith.constant {op.c_count} : index
    %k = arith.constant {op.k} : index
    // Deposit this lane's A elements (slots 0..) and B elements (slots na..).
    scf.for %i = %c0 to %na step %c1 {{
      %e = vector.extract %a[%i] : i16 from {va}
      %w = arith.extui %e : i16 to i64
      memref.store %w, %x[%lane, %i] : {_XCHG}
    }}
    scf.for %i = %c0 to %nb step %c1 {{
      %e = vector.extract %b[%i] : i16 from {vb}
      %w = arith.extui %e : i16 to i64
      %slot = arith.addi %na, %i : index
      memref.store %w, %x[%lane, %slot] : {_XCHG}
    }}
    %arrived = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32
    // This lane's D elements (row, col): C + sum over k of A[row][k] * B[k][col],
    // A and B gathered from the lanes and slots that hold them.
    %gta = memref.get_global @__{key}_a : {ta}
    %gtb = memref.get_global @__{key}_b : {tb}
    %gtd = memref.get_global @__{key}_d : {td}
    %ta = memref.cast %gta : {ta} to {_TABLE}
    %tb = memref.cast %gtb : {tb} to {_TABLE}
    %td = memref.cast %gtd : {td} to {_TABLE}
    %d = scf.for %i = %c0 to %nc step %c1 iter_args(%acc = %c) -> ({vc}) {{
      %row = func.call @__table_at(%td, %lane, %i, %c0) : {at}
      %col = func.call @__table_at(%td, %lane, %i, %c1) : {at}
      %init = vector.extract %c[%i] : f32 from {vc}
      %sum = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %init) -> (f32) {{
        %aw = func.call @__deposit_at(%x, %ta, %row, %kk) : {dep}
        %bw = func.call @__deposit_at(%x, %tb, %kk, %col) : {dep}
        %av = func.call {widen}(%aw) : (i64) -> f32
        %bv = func.call {widen}(%bw) : (i64) -> f32
        %p = arith.mulf %av, %bv : f32
        %s1 = arith.addf %s, %p : f32
        scf.yield %s1 : f32
      }}
      %acc1 = vector.insert %sum, %acc[%i] : f32 into {vc}
      scf.yield %acc1 : {vc}
    }}
    %left = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32
    return %d : {vc}
  }}"""

        return self.add(f"__{key}", make)

    def mma_sync(self, line: str) -> str:
        """``nvvm.mma.sync`` m16n8k16 row.col with f16 (vector<2xf16>
        registers) or bf16 (i32 registers: two packed bf16) multiplicands and
        an f32 accumulator -> a call."""
        match = re.match(
            r"(\s*)(%[\w#:]+) = nvvm\.mma\.sync A\[(.*?)\]\s+B\[(.*?)\]\s+C\[(.*?)\]\s+"
            r"\{(.*)\} : \((.*?), (.*?), f32\) -> (!llvm\.struct<\(f32, f32, f32, f32\)>)\s*$",
            line,
        )
        if not match:
            raise _unsupported(line)
        pad, result, a, b, c, attrs, a_t, b_t, d_t = match.groups()
        bf16 = "mma_type<bf16>" in attrs
        reg = "i32" if bf16 else "vector<2xf16>"
        expected = ("layoutA = #nvvm.mma_layout<row>", "layoutB = #nvvm.mma_layout<col>",
                    "shape = #nvvm.shape<m = 16, n = 8, k = 16>")
        if (a_t, b_t) != (reg, reg) or not all(s in attrs for s in expected):
            raise _unsupported(line)
        key = f"mma_m16n8k16_{'bf16' if bf16 else 'f16'}"
        core = self.mma(key)

        def elements(operand: str, regs: int) -> list[str]:
            """Registers %<operand>0.. -> i16 elements %<operand>e0.. (each
            register's low half first, as the PTX fragment tables count)."""
            lines = []
            for r in range(regs):
                v, lo, hi = f"%{operand}{r}", f"%{operand}e{2 * r}", f"%{operand}e{2 * r + 1}"
                if bf16:
                    lines += [f"    {lo} = arith.trunci {v} : i32 to i16",
                              f"    {v}h = arith.shrui {v}, %c16 : i32",
                              f"    {hi} = arith.trunci {v}h : i32 to i16"]
                else:
                    lines += [f"    {v}i = vector.bitcast {v} : vector<2xf16> to vector<2xi16>",
                              f"    {lo} = vector.extract {v}i[0] : i16 from vector<2xi16>",
                              f"    {hi} = vector.extract {v}i[1] : i16 from vector<2xi16>"]
            return lines

        def make() -> str:
            params = ", ".join([*(f"%a{r}: {reg}" for r in range(4)),
                                *(f"%b{r}: {reg}" for r in range(2)),
                                *(f"%c{r}: f32" for r in range(4))])
            a_elems = ", ".join(f"%ae{i}" for i in range(8))
            b_elems = ", ".join(f"%be{i}" for i in range(4))
            return "\n".join([
                f"  func.func private @__mma_sync_{key}({params},",
                f"      {_HELPER_ENV}) -> {d_t} {{",
                "    %c16 = arith.constant 16 : i32",
                *elements("a", 4),
                *elements("b", 2),
                f"    %a = vector.from_elements {a_elems} : vector<8xi16>",
                f"    %b = vector.from_elements {b_elems} : vector<4xi16>",
                "    %c = vector.from_elements %c0, %c1, %c2, %c3 : vector<4xf32>",
                f"    %d = func.call @{core}(%a, %b, %c, %lane, %bar, %x)",
                f"        : (vector<8xi16>, vector<4xi16>, vector<4xf32>, {_HELPER_ENV_TYPES})",
                "        -> vector<4xf32>",
                f"    %s0 = llvm.mlir.undef : {d_t}",
                *(f"    %d{i} = vector.extract %d[{i}] : f32 from vector<4xf32>\n"
                  f"    %s{i + 1} = llvm.insertvalue %d{i}, %s{i}[{i}] : {d_t}" for i in range(4)),
                f"    return %s4 : {d_t}",
                "  }",
            ])

        name = self.add(f"__mma_sync_{key}", make)
        types = ", ".join([reg] * 6 + ["f32"] * 4)
        return (f"{pad}{result} = func.call @{name}({a}, {b}, {c}, {_WARP_ARGS})\n"
                f"{pad}    : ({types}, {_HELPER_ENV_TYPES}) -> {d_t}")

    def mfma(self, line: str, zeros: set[str]) -> str:
        """``rocdl.mfma.f32.16x16x16f16`` / ``.32x32x8f16`` (vector<4xf16>
        operands) and ``.16x16x16bf16.1k`` / ``.32x32x8bf16.1k``
        (vector<4xi16>: bf16 bits), vector<4xf32> / vector<16xf32>
        accumulators, cbsz = abid = blgp = 0 (no broadcasts) -> a call."""
        match = re.match(
            r"(\s*)(%[\w#:]+) = rocdl\.mfma\.f32\.(16x16x16|32x32x8)(f16|bf16\.1k) (%\w+), "
            r"(%\w+), (%\w+), (%\w+), (%\w+), (%\w+) : \((vector<4x(?:f16|i16)>), \11, "
            r"(vector<(\d+)xf32>), i32, i32, i32\) -> \12\s*$",
            line,
        )
        if not match or not set(match.group(8, 9, 10)) <= zeros:
            raise _unsupported(line)
        pad, result, shape, kind, a, b, c, _, _, _, ab_t, c_t, c_count = match.groups()
        f16 = kind == "f16"
        key = f"mfma_{shape}_{'f16' if f16 else 'bf16'}"
        if (ab_t == "vector<4xf16>") != f16 or int(c_count) != WARP_MMAS[key].c_count:
            raise _unsupported(line)
        core = self.mma(key)

        def make() -> str:
            bits = ([f"    %ai = vector.bitcast %a : {ab_t} to vector<4xi16>",
                     f"    %bi = vector.bitcast %b : {ab_t} to vector<4xi16>"] if f16 else [])
            a_bits, b_bits = ("%ai", "%bi") if f16 else ("%a", "%b")
            return "\n".join([
                f"  func.func private @__{key}_op(%a: {ab_t}, %b: {ab_t}, %c: {c_t},",
                f"      {_HELPER_ENV}) -> {c_t} {{",
                *bits,
                f"    %d = func.call @{core}({a_bits}, {b_bits}, %c, %lane, %bar, %x)",
                f"        : (vector<4xi16>, vector<4xi16>, {c_t}, {_HELPER_ENV_TYPES}) -> {c_t}",
                f"    return %d : {c_t}",
                "  }",
            ])

        name = self.add(f"__{key}_op", make)
        return (f"{pad}{result} = func.call @{name}({a}, {b}, {c}, {_WARP_ARGS})\n"
                f"{pad}    : ({ab_t}, {ab_t}, {c_t}, {_HELPER_ENV_TYPES}) -> {c_t}")

    # -- ldmatrix -------------------------------------------------------------
    def ldmatrix(self, line: str) -> str:
        """``nvgpu.ldmatrix`` of b16 elements -> a call: each lane deposits the
        address of the row it supplies, and reads its elements from the rows
        that other lanes supplied."""
        match = re.match(
            r"(\s*)(%[\w#:]+) = nvgpu\.ldmatrix (%\w+)\[(.*?)\] \{numTiles = (\d) : i32, "
            r"transpose = (true|false)\} : "
            r"(memref<([\dx]+)x(f16|bf16)(?:, #gpu\.address_space<workgroup>)?>) -> "
            r"(vector<\d+x2x(?:f16|bf16)>)\s*$",
            line,
        )
        if not match:
            raise _unsupported(line)
        pad, result, src, indices, tiles, trans, src_t, shape, elem, vec_t = match.groups()
        count, transpose = int(tiles), trans == "true"
        if count not in (1, 2, 4) or vec_t != f"vector<{count}x2x{elem}>":
            raise _unsupported(line)
        dims = [int(d) for d in shape.split("x")]
        rank = len(dims)
        name = f"__ldmatrix_x{count}{'_trans' if transpose else ''}_{shape}x{elem}"

        def make() -> str:
            # [lanes, 2 * count, 2]: element i of matrix j -> (source lane, column).
            table = np.array([[ptx_ldmatrix(lane, j, i, transpose) for j in range(count)
                               for i in range(2)] for lane in range(self.warp_size)], np.int32)
            tt = f"memref<{self.warp_size}x{2 * count}x2xi32>"
            at = f"({_TABLE}, index, index, index) -> index"
            lines = [
                _global(f"{name}_t", table),
                f"  func.func private @{name}(%m: {src_t}, "
                + ", ".join(f"%i{d}: index" for d in range(rank)) + ",",
                f"      {_HELPER_ENV}) -> {vec_t} {{",
                "    %c0 = arith.constant 0 : index",
                "    %c1 = arith.constant 1 : index",
                "    // Deposit the address of the row this lane supplies: &m[%i0, ..].",
                f"    %base = memref.extract_aligned_pointer_as_index %m : {src_t} -> index",
                "    %o0 = arith.constant 0 : index",
            ]
            for d in range(rank):
                stride_bytes = 2 * int(np.prod(dims[d + 1:]))
                lines += [f"    %s{d} = arith.constant {stride_bytes} : index",
                          f"    %p{d} = arith.muli %i{d}, %s{d} : index",
                          f"    %o{d + 1} = arith.addi %o{d}, %p{d} : index"]
            lines += [
                f"    %addr = arith.addi %base, %o{rank} : index",
                "    %addr64 = arith.index_cast %addr : index to i64",
                f"    memref.store %addr64, %x[%lane, %c0] : {_XCHG}",
                "    %arrived = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32",
                "    // Element i of matrix j: element col of the row that lane src supplied.",
                f"    %gt = memref.get_global @{name}_t : {tt}",
                f"    %t = memref.cast %gt : {tt} to {_TABLE}",
                f"    %v0 = arith.constant dense<0.0> : {vec_t}",
            ]
            for j in range(count):
                for i in range(2):
                    e = 2 * j + i
                    lines += [
                        f"    %e{e} = arith.constant {e} : index",
                        f"    %src{e} = func.call @__table_at(%t, %lane, %e{e}, %c0) : {at}",
                        f"    %col{e} = func.call @__table_at(%t, %lane, %e{e}, %c1) : {at}",
                        f"    %h{e} = func.call @__row_element(%x, %src{e}, %col{e})",
                        f"        : ({_XCHG}, index, index) -> i16",
                        f"    %f{e} = arith.bitcast %h{e} : i16 to {elem}",
                        f"    %v{e + 1} = vector.insert %f{e}, %v{e}[{j}, {i}] : {elem} into "
                        f"{vec_t}",
                    ]
            lines += [
                "    %left = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32",
                f"    return %v{2 * count} : {vec_t}",
                "  }",
            ]
            return "\n".join(lines)

        self.add(name, make)
        types = ", ".join([src_t, *["index"] * rank, _HELPER_ENV_TYPES])
        return (f"{pad}{result} = func.call @{name}({src}, {indices}, {_WARP_ARGS})\n"
                f"{pad}    : ({types}) -> {vec_t}")

    # -- shuffle --------------------------------------------------------------
    def shuffle(self, line: str) -> str:
        """``gpu.shuffle xor`` of an f32 / i32 -> a call: lane k gets lane
        k ^ offset's value, valid iff k < width (the GPU dialect's
        definition); a source at or past width gives the lane's own value."""
        match = re.match(
            r"(\s*)(%[\w#:]+), (%[\w#:]+) = gpu\.shuffle\s+xor (%\w+), (%\w+), (%\w+) : "
            r"(f32|i32)\s*$",
            line,
        )
        if not match:
            raise _unsupported(line)
        pad, result, valid, value, offset, width, t = match.groups()
        name = f"__shuffle_xor_{t}"
        f32 = t == "f32"
        to_bits = "%bits = arith.bitcast %v : f32 to i32" if f32 else "// i32: its own bits"
        from_bits = "%r = arith.bitcast %got : i32 to f32" if f32 else "// i32: its own bits"
        bits, got = ("%bits", "%r") if f32 else ("%v", "%got")
        self.add(name, lambda: f"""  func.func private @{name}(%v: {t}, %offset: i32, %width: i32,
      {_HELPER_ENV}) -> ({t}, i1) {{
    %c0 = arith.constant 0 : index
    {to_bits}
    %w = arith.extui {bits} : i32 to i64
    memref.store %w, %x[%lane, %c0] : {_XCHG}
    %arrived = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32
    %me = arith.index_cast %lane : index to i32
    %from = arith.xori %me, %offset : i32
    %valid = arith.cmpi ult, %me, %width : i32
    %inside = arith.cmpi ult, %from, %width : i32
    %src32 = arith.select %inside, %from, %me : i32
    %src = arith.index_cast %src32 : i32 to index
    %got64 = memref.load %x[%src, %c0] : {_XCHG}
    %got = arith.trunci %got64 : i64 to i32
    {from_bits}
    %left = func.call @pthread_barrier_wait(%bar) : (!llvm.ptr) -> i32
    return {got}, %valid : {t}, i1
  }}""")
        return (f"{pad}{result}, {valid} = func.call @{name}({value}, {offset}, {width}, "
                f"{_WARP_ARGS})\n{pad}    : ({t}, i32, i32, {_HELPER_ENV_TYPES}) -> ({t}, i1)")

    # -- async copies ---------------------------------------------------------
    def sync_copy(self, line: str) -> str:
        """``%t = nvgpu.device_async_copy %src[..], %dst[..], N[, %n] : S to D``
        as a call of a helper that copies ``n`` (default N) elements along the
        last dim and zero-fills the rest of the N, as cp.async does."""
        match = re.match(
            r"(\s*)(%[\w#:]+) = nvgpu\.device_async_copy (%\w+)\[(.*?)\], (%\w+)\[(.*?)\], "
            r"(\d+)(?:, (%\w+))?(?: \{bypassL1\})? : (memref<.*>) to (memref<.*>)\s*$",
            line,
        )
        if not match:
            raise _unsupported(line)
        pad, _, src, src_idx, dst, dst_idx, count, size, src_t, dst_t = match.groups()
        src_idx, dst_idx = src_idx.split(", "), dst_idx.split(", ")
        key = f"{src_t} to {dst_t} x{count}"
        name = self.copy_names.setdefault(key, f"__copy{len(self.copy_names)}")
        self.add(name, lambda: _copy_helper(name, src_t, len(src_idx), dst_t, len(dst_idx),
                                            int(count)))
        # Without a source size the whole run is copied.
        n = size or f"%__count{self.copies}"
        self.copies += 1
        args = [src, *src_idx, dst, *dst_idx]
        types = [src_t, *["index"] * len(src_idx), dst_t, *["index"] * len(dst_idx)]
        call = (f"func.call @{name}({', '.join([*args, n])}) : "
                f"({', '.join([*types, 'index'])}) -> ()")
        if size:
            return f"{pad}{call}"
        return f"{pad}{n} = arith.constant {count} : index\n{pad}{call}"


def host_module(gpu_stage: str, warp_size: int = 32,
                grid: tuple[int, int, int] = (1, 1, 1)) -> tuple[str, str]:
    """The ``gpu.func`` of a ``gpu``-stage module as a host ``func.func``
    (kernel arguments, then workgroup buffers, then ``%__tid``, ``%__bid``,
    the program's barrier, ``%__lane``, the warp's barrier and the warp's
    exchange area); returns (module text, function name). sm_90's wgmma,
    TMA and mbarrier ops become calls of tcc.testing.hopper's callbacks;
    ``gpu.grid_dim`` is ``grid``."""
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
    params.append(_ENV)
    helpers = _Helpers(warp_size)
    # i32 zeros (the MFMA modifiers must be 0).
    zeros = set(re.findall(r"(%\w+) = arith\.constant 0 : i32\b", gpu_stage))
    # Ops that become helper calls, by the text that identifies them.
    calls: list[tuple[str, Callable[[str], str]]] = [
        ("nvgpu.device_async_copy", helpers.sync_copy),
        (" = nvgpu.ldmatrix ", helpers.ldmatrix),
        (" = nvvm.mma.sync ", helpers.mma_sync),
        (" = rocdl.mfma.", lambda line: helpers.mfma(line, zeros)),
        (" = gpu.shuffle ", helpers.shuffle),
    ]
    body, barriers = [], 0
    hopper = HopperText() if any(op in gpu_stage for op in _HOPPER_OPS) else None
    for line in lines[start + 1 : end]:
        if hopper:
            lowered = hopper.rewrite(line)
            if lowered is not None:
                body.extend(lowered)
                continue
            line = line.replace("!llvm.ptr<3>", "!llvm.ptr")
        stripped = line.strip()
        if stripped.startswith(("nvvm.cp.async.commit.group", "nvvm.cp.async.wait.group")):
            continue
        dynamic = re.match(r"(%\w+) = gpu\.dynamic_shared_memory : (memref<\?xi8, .*>)$", stripped)
        if dynamic:
            # Workgroup memory over the static limit: one more buffer, of the
            # launch's dynamic shared bytes (_run_kernel), that the kernel
            # views (memref.view) as its buffers.
            params.insert(-1, f"{dynamic.group(1)}: {dynamic.group(2)}")
            continue
        call = next((emulate for text, emulate in calls if text in line), None)
        if call:
            body.append(call(line))
            continue
        op = re.match(r"(\s*)(%[\w#:]+) = gpu\.(\w+)\s+(\w)\s*$", line)
        if op and op.group(3) == "grid_dim":
            pad, result, _, dim = op.groups()
            line = f"{pad}{result} = arith.constant {grid['xyz'.index(dim)]} : index"
        elif op and op.group(3) in _ID_OPS:
            pad, result, kind, dim = op.groups()
            value = (f"arith.maxui {_ID_OPS[kind]}, {_ID_OPS[kind]} : index" if dim == "x"
                     else "arith.constant 0 : index")
            line = f"{pad}{result} = {value}"
        elif stripped == "gpu.barrier":
            line = (f"{line[: len(line) - len(line.lstrip())]}%__barrier{barriers} = "
                    "func.call @pthread_barrier_wait(%__bar) : (!llvm.ptr) -> i32")
            barriers += 1
        elif stripped == "gpu.return":
            line = line.replace("gpu.return", "func.return")
        elif re.search(r"\b(gpu\.(?!address_space)|nvgpu\.|nvvm\.|rocdl\.)", line):
            raise _unsupported(line)
        body.append(line)
    text = "\n".join(
        [
            "module {",
            _RUNTIME,
            *((_HOPPER_DECLS, *hopper.helpers.values()) if hopper else ()),
            *helpers.text.values(),
            f"  func.func @{name}({', '.join(params)}) attributes {{llvm.emit_c_interface}} {{",
            *body,
            "  }",
            "}",
        ]
    )
    return text.replace(", #gpu.address_space<workgroup>", ""), name


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


def _numpy_dtype(dtype: str) -> np.dtype:
    """numpy storage of a tcc element type (bf16: its bits, uint16)."""
    from tcc.runtime.artifact import DTYPES

    return np.dtype(np.uint16) if dtype == "bf16" else np.dtype(DTYPES[dtype][0])


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


def _poisoned(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    out = _aligned_empty(shape, _numpy_dtype(dtype))
    out[...] = 0x7FC0 if dtype == "bf16" else (np.nan if dtype.startswith(("f", "b")) else 0)
    return out


def run_gpu_stage(compiled: Any, *inputs: np.ndarray) -> list[np.ndarray]:
    """Run ``compiled`` (a ``tcc.compile`` result: a whole program, one kernel
    or several) on the CPU through the ``gpu`` stage of each kernel, with
    numpy ``inputs``: the launches in order, intermediates in the program's
    own buffer plan. Returns the outputs (every output and intermediate is
    NaN-filled first, so an unwritten element shows)."""
    from tcc.backends import get_target

    warp_size = get_target(compiled.target).warp_size
    prog = getattr(compiled, "artifact", None)
    if not hasattr(prog, "steps"):  # one kernel's gpu stage, described by hand
        return _run_single(compiled, warp_size, inputs)
    if len(inputs) != len(prog.inputs):
        raise TypeError(f"{compiled.name} takes {len(prog.inputs)} inputs, got {len(inputs)}")
    arrays = []
    symbols: dict[str, int] = {}  # the sizes of a program of dynamic sizes
    for spec, a in zip(prog.inputs, inputs, strict=True):
        a = np.ascontiguousarray(a)
        if len(a.shape) != len(spec.shape) or any(
                (symbols.setdefault(want, got) if isinstance(want, str) else want) != got
                for want, got in zip(spec.shape, a.shape, strict=False)):
            raise TypeError(f"{compiled.name}: input {spec.name} has shape {list(a.shape)}, "
                            f"expected {list(spec.shape)}")
        arrays.append(_aligned_copy(a))

    from tcc.runtime.program import bound_shape, buffer_sizes, derive_sizes

    derive_sizes(compiled.name, prog.sizes, symbols)

    outputs = [_poisoned(bound_shape(spec.shape, symbols), spec.dtype) for spec in prog.outputs]
    slots = [_aligned_empty((nbytes,), np.dtype(np.uint8))
             for nbytes in buffer_sizes(prog.buffers, symbols)]
    for i, slot in enumerate(slots):
        # NaN in every float type; a kernel's workspace counters start at 0.
        slot[...] = 0 if i in prog.zeroed else 0xFF
    storage: list[np.ndarray] = []
    for v in prog.values:
        if v.kind == "input":
            base = arrays[v.index]
        elif v.kind == "output":
            base = outputs[v.index]
        elif v.kind == "temp":
            count = int(np.prod(bound_shape(v.shape, symbols))) if v.shape else 1
            base = slots[v.index].view(_numpy_dtype(v.dtype))[:count]
        else:
            base = storage[v.index]
        storage.append(base.reshape(bound_shape(v.shape, symbols)))
    # The program's gpu stage is its one kernel's (tests edit it to break it).
    gpu_ir = ({prog.kernels[0].kernel_name: compiled.ir["gpu"]} if len(prog.kernels) == 1
              else {part.name: part.ir["gpu"] for part in compiled.kernels})
    for step in prog.steps:
        art = prog.kernels[step.kernel]
        _run_kernel(gpu_ir[art.kernel_name], art.launch, warp_size,
                    [storage[a] for a in step.args],
                    art.args if art.call_conv == "sized" else (), art.tensor_maps)
    results = []
    for r in prog.results:
        results.append(storage[r].copy() if prog.values[r].kind != "output" else storage[r])
    return results


def _run_single(kernel: Any, warp_size: int, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    specs = kernel.args
    if len(inputs) != sum(spec.role == "input" for spec in specs):
        raise TypeError(f"{kernel.name} takes {len(specs)} arguments with its outputs")
    it = iter(_aligned_copy(np.ascontiguousarray(a)) for a in inputs)
    args = [next(it) if s.role == "input" else _poisoned(tuple(s.shape), s.dtype) for s in specs]
    art = getattr(kernel, "artifact", None)
    sized = getattr(art, "call_conv", "") == "sized"
    _run_kernel(kernel.ir["gpu"], kernel.launch, warp_size, args, specs if sized else (),
                getattr(art, "tensor_maps", ()))
    return [a for a, s in zip(args, specs, strict=True) if s.role != "input"]


def _run_kernel(gpu_ir: str, launch: Any, warp_size: int, args: list[np.ndarray],
                specs: Sequence[Any] = (), tensor_maps: Sequence[Any] = ()) -> None:
    """One kernel launch on the CPU: ``args`` (numpy, aligned, C-contiguous)
    in the kernel's argument order, written in place. ``specs`` (the
    artifact's ArgSpecs): an argument of symbolic shape is passed as the
    gpu.func takes it, a pointer (a flat view) then its dynamic sizes.
    ``tensor_maps`` (the artifact's TensorMapSpecs): the TMA maps the kernel
    takes after its arguments, over those arrays."""
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine
    from mlir.passmanager import PassManager

    import tcc  # noqa: F401

    hopper = any(op in gpu_ir for op in _HOPPER_OPS)
    cluster = _cluster_size(gpu_ir)
    from tcc.runtime.artifact import eval_grid_expr

    symbols: dict[str, int] = {}
    params: list[Any] = []  # per gpu.func parameter: an array, or an index value
    for i, a in enumerate(args):
        shape = specs[i].shape if i < len(specs) else a.shape
        dynamic = [got for want, got in zip(shape, a.shape, strict=True) if isinstance(want, str)]
        for want, got in zip(shape, a.shape, strict=True):
            if isinstance(want, str):
                symbols.setdefault(want, got)
        params.append(a.reshape(-1) if dynamic else a)
        params.extend(dynamic)
    names = {**dict(launch.constants), **symbols}
    grid = tuple(eval_grid_expr(g, [tuple(a.shape) for a in args], names) for g in launch.grid)
    threads = launch.block[0]
    if hopper and "tcc.tensor_maps" in gpu_ir and not tensor_maps:
        raise ValueError("an sm_90 kernel with TMA tensor maps runs with its artifact's "
                         "tensor_maps")
    maps = [TensorMap(args[m.operand], tuple(m.box), m.swizzle) for m in tensor_maps]
    params.extend(range(len(maps)))  # a map parameter: its index in `maps`
    text, name = host_module(gpu_ir, warp_size, grid)
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        func = next(
            op.operation
            for op in module.body.operations
            if ir.StringAttr(op.operation.attributes["sym_name"]).value == name
        )
        inputs_types = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs
        workgroup = [ir.MemRefType(t) for t in inputs_types[len(params) : -_ENV_COUNT]]
        shapes = [(tuple(launch.shared_mem_bytes if d == ir.ShapedType.get_dynamic_size()
                         else d for d in t.shape), _numpy_dtype(str(t.element_type)))
                  for t in workgroup]
        PassManager.parse(f"builtin.module({_PIPELINE})").run(module.operation)
        define_bf16_truncation(module)
        engine = ExecutionEngine(module, opt_level=2)
    nblocks = grid[0] * grid[1] * grid[2]
    if nblocks % cluster:
        raise ValueError(f"a grid of {nblocks} programs is no multiple of the kernel's "
                         f"clusters of {cluster}")
    # Each program of a cluster (they run at once): its shared buffers,
    # its barriers and its warps' exchange areas.
    programs = [_Program(shapes, hopper, threads, warp_size) for _ in range(cluster)]
    state = None
    if hopper:
        dynamic = [[a.view(np.uint8) for a in p.shared if a.itemsize == 1 and a.ndim == 1]
                   for p in programs]
        if any(len(d) != 1 for d in dynamic):
            raise NotImplementedError("an sm_90 kernel with other than one dynamic shared "
                                      "buffer is not emulated")
        state = HopperState([d[0] for d in dynamic], maps, cluster_threads=cluster * threads)
        state.register(engine)
    entry = engine.lookup(name)
    try:
        for first in range(0, nblocks, cluster):
            if state:
                state.new_cluster()
            _run_programs(entry, params, programs, first, threads, warp_size,
                          state.enter if state else None)
            if state and state.errors:
                where = f"program {first}" if cluster == 1 else (
                    f"the cluster of programs {first}-{first + cluster - 1}")
                raise RuntimeError(f"{where}: " + "; ".join(state.errors[:4]))
    finally:
        for program in programs:
            program.close()


def _cluster_size(gpu_ir: str) -> int:
    """The programs of the kernel's clusters (`tcc.cluster`), 1 without."""
    match = re.search(r"tcc\.cluster = array<i32: ([\d, ]+)>", gpu_ir)
    return int(np.prod([int(d) for d in match.group(1).split(",")])) if match else 1


class _Program:
    """One program's workgroup buffers (in the low window for sm_90: shared
    addresses in 32 bits, as on the GPU), barriers (0: its threads, 1 + w:
    warp w's lanes) and warps' exchange areas."""

    def __init__(self, shapes: list[tuple[tuple[int, ...], np.dtype]], low: bool,
                 threads: int, warp_size: int) -> None:
        from mlir.runtime import get_ranked_memref_descriptor

        if low:
            self.shared = [low_buffer(int(np.prod(shape)) * dtype.itemsize).view(dtype)
                           .reshape(shape) for shape, dtype in shapes]
        else:
            self.shared = [_aligned_empty(shape, dtype) for shape, dtype in shapes]
        self.descriptors = [get_ranked_memref_descriptor(a) for a in self.shared]
        warps = -(-threads // warp_size)
        self.areas = [np.zeros((warp_size, _SLOTS), np.int64) for _ in range(warps)]
        self.exchange = [get_ranked_memref_descriptor(area) for area in self.areas]
        self._libc = ctypes.CDLL(None)
        self.barriers = ctypes.create_string_buffer(_BARRIER_BYTES * (1 + warps))
        counts = [threads, *(min(warp_size, threads - w * warp_size) for w in range(warps))]
        self._at = []
        for i, count in enumerate(counts):
            barrier = ctypes.c_void_p(ctypes.addressof(self.barriers) + i * _BARRIER_BYTES)
            if self._libc.pthread_barrier_init(barrier, None, ctypes.c_uint(count)) != 0:
                self.close()
                raise OSError("pthread_barrier_init failed")
            self._at.append(barrier)

    def close(self) -> None:
        for barrier in self._at:
            self._libc.pthread_barrier_destroy(barrier)
        self._at = []


def _run_programs(entry: Any, params: list[Any], programs: list[_Program], first: int,
                  threads: int, warp_size: int,
                  enter: Callable[[int], None] | None) -> None:
    """Programs ``first, first + 1, ...`` (a cluster, or one program), at once:
    `threads` OS threads each through the JIT-compiled kernel (ctypes
    releases the GIL for the call); ``enter(rank)`` first on each thread."""
    from mlir.runtime import get_ranked_memref_descriptor

    # A memref: a pointer to its descriptor's pointer; an index: to its value.
    args = [ctypes.c_int64(a) if not isinstance(a, np.ndarray)
            else get_ranked_memref_descriptor(a) for a in params]
    keep: list[Any] = [args]

    def packed(rank: int, tid: int) -> Any:
        program = programs[rank]
        memrefs = [ctypes.pointer(d) if isinstance(d, ctypes.c_int64)
                   else ctypes.pointer(ctypes.pointer(d)) for d in [*args, *program.descriptors]]
        warp, lane = divmod(tid, warp_size)
        base = ctypes.addressof(program.barriers)
        scalars = [ctypes.c_int64(tid), ctypes.c_int64(first + rank), ctypes.c_void_p(base),
                   ctypes.c_int64(lane), ctypes.c_void_p(base + (1 + warp) * _BARRIER_BYTES)]
        xchg = ctypes.pointer(ctypes.pointer(program.exchange[warp]))
        call = [*memrefs, *(ctypes.pointer(s) for s in scalars), xchg]
        array = (ctypes.c_void_p * len(call))(*(ctypes.cast(a, ctypes.c_void_p) for a in call))
        keep.append((memrefs, scalars, xchg, call, array))
        return array

    def run(rank: int, array: Any) -> None:
        if enter:
            enter(rank)
        entry(array)

    workers = [threading.Thread(target=run, args=(rank, packed(rank, tid)), daemon=True)
               for rank in range(len(programs)) for tid in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(_TIMEOUT_S)
        if w.is_alive():
            raise RuntimeError(f"program {first} did not finish (a thread waits at a barrier?)")
