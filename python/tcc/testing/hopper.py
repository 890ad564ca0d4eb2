"""sm_90's warp-specialized GEMM on the CPU emulator (tcc.testing.simt):
``wgmma.mma_async`` with shared-memory matrix descriptors, TMA tensor copies
(``cp.async.bulk.tensor``, 128-byte swizzle, zero fill / clipping at the
tensor's edges), mbarriers (arrive, expect-tx, complete-tx, phase parity) and
named barriers (``bar.sync id, count``), and thread-block clusters (``mapa``,
multicast TMA loads, arrivals on a peer program's mbarriers, the cluster
barrier).

Each op of the ``gpu`` stage becomes a call of a host function; the host
functions call back into Python (``ExecutionEngine.register_runtime``), where
:class:`HopperState` keeps the program's mbarriers, named barriers and tensor
maps. The semantics are written from the PTX ISA, not from tcc's lowering:

- matrix descriptors ("Matrix Descriptor Format"): start address bits 0-13,
  leading byte offset 16-29 and stride byte offset 32-45 (all >> 4), swizzle
  mode 62-63 (1 = 128-byte); the canonical 128-byte-swizzled layouts of
  16-bit elements (CUTLASS's ``Layout_K_SW128_Atom`` / ``Layout_MN_SW128_Atom``):
  K-major element (mn, k) at ``(mn % 8) * 128 + (mn / 8) * SBO + 2 k``,
  MN-major at ``2 (mn % 64) + (mn / 64) * LBO + (k % 8) * 128 + (k / 8) * SBO``,
  then address bits 4-6 XOR bits 7-9;
- the m64nNk16 accumulator fragment ("wgmma .m64nNk16 register fragment
  layout for matrix D"): thread t of the warpgroup, warp w = t / 32, lane l,
  register i < N / 2 holds D[16 w + l / 4 + 8 ((i / 2) % 2)][8 (i / 4) +
  2 (l % 4) + i % 2];
- A from registers (the fragment for matrix A, wgmma .m64nNk16 with .f16 /
  .bf16): four .b32 of two elements each, element e < 8 at A[16 w + l / 4 +
  8 ((e / 2) % 2)][2 (l % 4) + e % 2 + 8 (e / 4)] (mma.sync's m16k16 A
  fragment on each warp's 16 rows), the low half first;
- TMA boxes land in shared memory densely, row after row, each 16-byte chunk
  of a 128-byte row moved by the same swizzle; elements outside the tensor
  read as zero and are not written; a load completes ``box bytes`` of its
  mbarrier's transaction count;
- an mbarrier's phase completes when its pending arrivals and transaction
  bytes both reach zero; ``try_wait.parity p`` returns once the phase of
  parity ``p`` has completed (at once on a fresh barrier for p = 1);
- a cluster's programs run at once, each with its own shared memory;
  ``mapa a, r`` is the address at ``a``'s offset in the shared memory of the
  cluster's program of rank ``r``; a TMA load with ``.multicast::cluster``
  writes its box at the destination's offset in every program of its mask
  and completes the transaction bytes of the mbarrier at the barrier's
  offset in each of them; ``barrier.cluster.wait`` returns once every thread
  of the cluster has passed ``barrier.cluster.arrive``.

Copies and MMAs run synchronously when issued (commit / wait-group ops are
dropped), so a read of a slot before its barrier completes would go
unnoticed; a wait that never completes is reported as an error naming the
barrier. Products of the f16 / bf16 elements are summed in f32.
"""

from __future__ import annotations

import ctypes
import mmap
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Ops that carry no semantics on the CPU (fences, register hints, the
# commit / wait of operations that already ran).
DROPPED = (
    "nvvm.setmaxregister",
    "nvvm.prefetch tensormap",
    "nvvm.fence.mbarrier.init",
    "nvvm.wgmma.fence.aligned",
    "nvvm.wgmma.commit.group",
    "nvvm.fence.proxy",
    "nvvm.cp.async.bulk.commit.group",
    "nvvm.cp.async.bulk.wait_group",
    "nvvm.memory.barrier",  # membar: the emulator's memory is coherent
)
# The shared window's alignment: descriptors hold 18 bits of the address.
_WINDOW = 1 << 18
WAIT_S = 120.0  # how long a wait may block before the launch fails
_MAP_32BIT = 0x40  # Linux x86-64 mmap flag: the mapping lies below 2 GiB

# --- text: gpu-stage lines -> host calls ------------------------------------

DECLS = """  func.func private @__mbar_init(!llvm.ptr, i32) attributes {llvm.emit_c_interface}
  func.func private @__mbar_arrive(!llvm.ptr, i32) attributes {llvm.emit_c_interface}
  func.func private @__mbar_wait(!llvm.ptr, i32) attributes {llvm.emit_c_interface}
  func.func private @__bar_sync(i32, i32) attributes {llvm.emit_c_interface}
  func.func private @__bar_red_or(i32, i32, i32) -> i32 attributes {llvm.emit_c_interface}
  func.func private @__wgmma(i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
  func.func private @__wgmma_rs(i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
  func.func private @__tma_load(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32)
      attributes {llvm.emit_c_interface}
  func.func private @__tma_store(!llvm.ptr, !llvm.ptr, i32, i32, i32)
      attributes {llvm.emit_c_interface}
  func.func private @__tma_load_mc(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32,
      i16)
      attributes {llvm.emit_c_interface}
  func.func private @__mapa(!llvm.ptr, i32) -> !llvm.ptr attributes {llvm.emit_c_interface}
  func.func private @__cluster_arrive() attributes {llvm.emit_c_interface}
  func.func private @__cluster_wait() attributes {llvm.emit_c_interface}"""

_V = r"(%[\w#]+)"
_MMA = re.compile(
    rf"(\s*){_V} = nvvm\.wgmma\.mma_async {_V}, {_V}, {_V}, <m = 64, n = (\d+), k = 16>, "
    r"D\[<f32>, <(one|zero)>\], A\[<(f16|bf16)>, <one>, <(row|col)>\], "
    r"B\[<(?:f16|bf16)>, <one>, <(row|col)>\] : (!llvm\.struct<.*>) -> (!llvm\.struct<.*>)$")
_WAIT = re.compile(
    rf'(\s*){_V} = llvm\.inline_asm has_side_effects asm_dialect = att '
    r'"wgmma\.wait_group\.sync\.aligned \d+;", "[^"]*" (.*) : \((.*)\) -> (!llvm\.struct<.*>)$')
# wgmma with A from registers (inline PTX: d, {a0..a3}, b-desc, scale-d,
# imm-scale-a, imm-scale-b, imm-trans-b).
_MMA_RS = re.compile(
    rf'(\s*){_V} = llvm\.inline_asm has_side_effects asm_dialect = att '
    r'"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(f16|bf16)\.(?:f16|bf16) '
    r'[^"]*, 1, 1, 1, ([01]);", "[^"]*" (.*) : \((.*)\) -> (!llvm\.struct<.*>)$')
# bar.red.or.pred on a named barrier (split-K's last-arrival broadcast).
_BAR_RED_OR = re.compile(
    rf'(\s*){_V} = llvm\.inline_asm has_side_effects asm_dialect = att '
    r'"[^"]*bar\.red\.or\.pred [^"]*", "=r,r,r,r" '
    rf'{_V}, {_V}, {_V} : \(i32, i32, i32\) -> i32$')
_TMA_LOAD = re.compile(
    rf"(\s*)nvvm\.cp\.async\.bulk\.tensor\.shared\.cluster\.global {_V}, {_V}, {_V}, "
    rf"box\[([^\]]*)\](?: multicast_mask = {_V})? : !llvm\.ptr<7>, !llvm\.ptr$")
_TMA_STORE = re.compile(
    rf"(\s*)nvvm\.cp\.async\.bulk\.tensor\.global\.shared\.cta {_V}, {_V}, "
    r"box\[([^\]]*)\] : !llvm\.ptr, <3>$")


class HopperText:
    """Rewrites the Hopper ops of a gpu.func body into host calls (and the
    private helpers some of them need, each generated once)."""

    def __init__(self) -> None:
        self.helpers: dict[str, str] = {}
        self.fresh = 0

    def _name(self) -> str:
        self.fresh += 1
        return f"%__h{self.fresh}"

    def _i32_zero(self, pad: str, out: list[str]) -> str:
        zero = self._name()
        out.append(f"{pad}{zero} = arith.constant 0 : i32")
        return zero

    def _coords(self, pad: str, coords: str, out: list[str], max_rank: int = 5) -> str:
        values = [c.strip() for c in coords.split(",")]
        if not 2 <= len(values) <= max_rank:
            raise NotImplementedError(f"TMA boxes of rank {len(values)} are not emulated")
        while len(values) < max_rank:
            values.append(self._i32_zero(pad, out))
        return ", ".join(values)

    def rewrite(self, line: str) -> list[str] | None:
        """The host lines for one gpu-stage line, or None if it is not a
        Hopper op (its `ptr<3>` / `ptr<7>` types are the caller's)."""
        stripped = line.strip()
        pad = line[: len(line) - len(line.lstrip())]
        if stripped.startswith(DROPPED):
            return []
        out: list[str] = []
        cast = re.match(rf"{_V} = llvm\.addrspacecast {_V} : !llvm\.ptr<3> to !llvm\.ptr<7>$",
                        stripped)
        if cast:
            return [f"{pad}{cast.group(1)} = llvm.getelementptr {cast.group(2)}[0] : "
                    "(!llvm.ptr) -> !llvm.ptr, i8"]
        m = re.match(rf"nvvm\.mbarrier\.init {_V}, {_V} : !llvm\.ptr<3>, i32$", stripped)
        if m:
            return [f"{pad}func.call @__mbar_init({m[1]}, {m[2]}) : (!llvm.ptr, i32) -> ()"]
        m = re.match(rf"nvvm\.mbarrier\.arrive\.expect_tx {_V}, {_V} : !llvm\.ptr<3>, i32$",
                     stripped)
        if m:
            return [f"{pad}func.call @__mbar_arrive({m[1]}, {m[2]}) : (!llvm.ptr, i32) -> ()"]
        # A plain arrival, or cp.async's (noinc: it counts against the
        # expected count), which is an arrival now: cp.async runs when issued.
        # (On a peer's barrier, through mapa: `!llvm.ptr<7>`.)
        m = re.match(rf"nvvm\.(?:cp\.async\.)?mbarrier\.arrive {_V}"
                     r"(?: \{noinc = true\})? : !llvm\.ptr<[37]>$", stripped)
        if m and ("cp.async" not in stripped or "noinc" in stripped):
            zero = self._i32_zero(pad, out)
            return [*out, f"{pad}func.call @__mbar_arrive({m[1]}, {zero}) : "
                          "(!llvm.ptr, i32) -> ()"]
        m = re.match(rf"nvvm\.mbarrier\.try_wait\.parity {_V}, {_V}, {_V} : "
                     r"!llvm\.ptr<3>, i32, i32$", stripped)
        if m:
            return [f"{pad}func.call @__mbar_wait({m[1]}, {m[2]}) : (!llvm.ptr, i32) -> ()"]
        m = re.match(rf"{_V} = nvvm\.mapa {_V}, {_V} : !llvm\.ptr<3> -> !llvm\.ptr<7>$",
                     stripped)
        if m:
            return [f"{pad}{m[1]} = func.call @__mapa({m[2]}, {m[3]}) : "
                    "(!llvm.ptr, i32) -> !llvm.ptr"]
        m = re.match(r"nvvm\.cluster\.(arrive|wait)(?: \{aligned\})?$", stripped)
        if m:
            return [f"{pad}func.call @__cluster_{m[1]}() : () -> ()"]
        m = re.match(rf"nvvm\.barrier id = {_V} number_of_threads = {_V}$", stripped)
        if m:
            return [f"{pad}func.call @__bar_sync({m[1]}, {m[2]}) : (i32, i32) -> ()"]
        m = _BAR_RED_OR.match(line)
        if m:
            return [f"{pad}{m[2]} = func.call @__bar_red_or({m[3]}, {m[4]}, {m[5]}) : "
                    "(i32, i32, i32) -> i32"]
        m = _TMA_LOAD.match(line)
        if m:
            coords = self._coords(pad, m[5], out)
            if m[6]:
                return [*out, f"{pad}func.call @__tma_load_mc({m[2]}, {m[3]}, {m[4]}, {coords}, "
                              f"{m[6]}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, "
                              "i32, i16) -> ()"]
            return [*out, f"{pad}func.call @__tma_load({m[2]}, {m[3]}, {m[4]}, {coords}) : "
                          "(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> ()"]
        m = _TMA_STORE.match(line)
        if m:
            coords = self._coords(pad, m[4], out, max_rank=3)
            return [*out, f"{pad}func.call @__tma_store({m[2]}, {m[3]}, {coords}) : "
                          "(!llvm.ptr, !llvm.ptr, i32, i32, i32) -> ()"]
        m = _MMA.match(line)
        if m:
            return [self._mma(m)]
        m = _WAIT.match(line)
        if m:
            return [self._wait(m)]
        m = _MMA_RS.match(line)
        if m:
            return [self._mma_rs(m)]
        return None

    def _mma_rs(self, m: re.Match[str]) -> str:
        pad, result, n, dtype, trans_b, operands, types, struct = m.groups()
        n = int(n)
        count = n // 2
        code = n | (dtype == "bf16") << 16 | (trans_b == "1") << 18 | 1 << 19
        name = f"__wgmma_rs_{code}"
        if name not in self.helpers:
            params = [f"%v{i}: f32" for i in range(count)]
            params += [f"%a{r}: i32" for r in range(4)] + ["%b: i64", "%tid: index"]
            body = [f"  func.func private @{name}({', '.join(params)}) -> {struct} {{",
                    f"    %buf = memref.alloca() : memref<{count}xf32>",
                    "    %abuf = memref.alloca() : memref<4xi32>"]
            for i in range(count):
                body += [f"    %i{i} = arith.constant {i} : index",
                         f"    memref.store %v{i}, %buf[%i{i}] : memref<{count}xf32>"]
            for r in range(4):
                body += [f"    %r{r} = arith.constant {r} : index",
                         f"    memref.store %a{r}, %abuf[%r{r}] : memref<4xi32>"]
            body += ["    %p = memref.extract_aligned_pointer_as_index %buf : "
                     f"memref<{count}xf32> -> index",
                     "    %pi = arith.index_cast %p : index to i64",
                     "    %q = memref.extract_aligned_pointer_as_index %abuf : "
                     "memref<4xi32> -> index",
                     "    %qi = arith.index_cast %q : index to i64",
                     "    %ti = arith.index_cast %tid : index to i64",
                     f"    %code = arith.constant {code} : i64",
                     "    func.call @__wgmma_rs(%qi, %b, %pi, %ti, %code) : "
                     "(i64, i64, i64, i64, i64) -> ()",
                     f"    %s0 = llvm.mlir.undef : {struct}"]
            for i in range(count):
                body += [f"    %w{i} = memref.load %buf[%i{i}] : memref<{count}xf32>",
                         f"    %s{i + 1} = llvm.insertvalue %w{i}, %s{i}[{i}] : {struct}"]
            body += [f"    return %s{count} : {struct}", "  }"]
            self.helpers[name] = "\n".join(body)
        return (f"{pad}{result} = func.call @{name}({operands}, %__tid) : "
                f"({types}, index) -> {struct}")

    def _mma(self, m: re.Match[str]) -> str:
        pad, result, desc_a, desc_b, acc, n, scale, dtype, layout_a, layout_b, struct, _ = (
            m.groups())
        n = int(n)
        # A K-major is `row`, B K-major is `col` (PTX's tnspA / tnspB = 0).
        code = (n | (dtype == "bf16") << 16 | (layout_a == "col") << 17
                | (layout_b == "row") << 18 | (scale == "one") << 19)
        name = f"__wgmma_{code}"
        count = n // 2
        if name not in self.helpers:
            body = [f"  func.func private @{name}(%a: i64, %b: i64, %c: {struct}, %tid: index)"
                    f" -> {struct} {{",
                    f"    %buf = memref.alloca() : memref<{count}xf32>"]
            for i in range(count):
                body += [f"    %i{i} = arith.constant {i} : index",
                         f"    %v{i} = llvm.extractvalue %c[{i}] : {struct}",
                         f"    memref.store %v{i}, %buf[%i{i}] : memref<{count}xf32>"]
            body += ["    %p = memref.extract_aligned_pointer_as_index %buf : "
                     f"memref<{count}xf32> -> index",
                     "    %pi = arith.index_cast %p : index to i64",
                     "    %ti = arith.index_cast %tid : index to i64",
                     f"    %code = arith.constant {code} : i64",
                     "    func.call @__wgmma(%a, %b, %pi, %ti, %code) : "
                     "(i64, i64, i64, i64, i64) -> ()",
                     f"    %s0 = llvm.mlir.undef : {struct}"]
            for i in range(count):
                body += [f"    %w{i} = memref.load %buf[%i{i}] : memref<{count}xf32>",
                         f"    %s{i + 1} = llvm.insertvalue %w{i}, %s{i}[{i}] : {struct}"]
            body += [f"    return %s{count} : {struct}", "  }"]
            self.helpers[name] = "\n".join(body)
        return (f"{pad}{result} = func.call @{name}({desc_a}, {desc_b}, {acc}, %__tid) : "
                f"(i64, i64, {struct}, index) -> {struct}")

    def _wait(self, m: re.Match[str]) -> str:
        # wgmma.wait_group: the MMAs already ran; its results are its first
        # operands (the accumulator's; kept A registers follow as i32).
        pad, result, operands, types, struct = m.groups()
        kinds = [t.strip() for t in types.split(",")]
        count = struct.count("f32")
        name = f"__wgmma_wait_{count}_{len(kinds) - count}"
        if name not in self.helpers:
            params = ", ".join(f"%v{i}: {t}" for i, t in enumerate(kinds))
            body = [f"  func.func private @{name}({params}) -> {struct} {{",
                    f"    %s0 = llvm.mlir.undef : {struct}"]
            body += [f"    %s{i + 1} = llvm.insertvalue %v{i}, %s{i}[{i}] : {struct}"
                     for i in range(count)]
            body += [f"    return %s{count} : {struct}", "  }"]
            self.helpers[name] = "\n".join(body)
        return f"{pad}{result} = func.call @{name}({operands}) : ({types}) -> {struct}"


# --- run time ----------------------------------------------------------------


def low_buffer(nbytes: int) -> np.ndarray:
    """A zeroed byte buffer below 4 GiB (the kernel keeps shared addresses in
    32 bits), aligned to the 256 KiB window the descriptors address (the
    array keeps its mapping alive)."""
    region = mmap.mmap(-1, nbytes + _WINDOW,
                       flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_32BIT)
    raw = np.frombuffer(region, np.uint8)
    offset = (-raw.ctypes.data) % _WINDOW
    if raw.ctypes.data + offset + nbytes >= 1 << 32:
        raise OSError("no shared-memory window below 4 GiB for the sm_90 emulation")
    return raw[offset : offset + nbytes]


@dataclass
class _MBarrier:
    count: int
    pending: int
    tx: int = 0
    phase: int = 0


@dataclass
class _Group:
    """A warpgroup's wgmma rendezvous: its barrier, each thread's operands
    and call count, and the last two products (double-buffered: a thread
    still reading product n never sees product n + 1 written over it)."""

    barrier: threading.Barrier
    issued: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    fragments: dict[int, np.ndarray] = field(default_factory=dict)  # A from registers
    calls: dict[int, int] = field(default_factory=dict)
    products: list[Any] = field(default_factory=lambda: [None, None])


@dataclass
class TensorMap:
    array: np.ndarray  # the tensor (outermost dim first)
    box: tuple[int, ...]  # outermost first
    swizzle: int


def _swizzle(addresses: np.ndarray) -> np.ndarray:
    """The 128-byte swizzle: address bits 4-6 XOR bits 7-9."""
    return addresses ^ (((addresses >> 7) & 7) << 4)


@dataclass
class _ClusterBarrier:
    """barrier.cluster.arrive / wait: the threads of a cluster, per phase."""

    parties: int
    arrived: dict[int, int] = field(default_factory=dict)


@dataclass
class HopperState:
    """One launch's mbarriers, named barriers and tensor maps, and the host
    callbacks the JIT-compiled kernel calls. ``shared`` holds the dynamic
    shared buffer of each program of a cluster (one without clusters); a
    thread says which is its own with :meth:`enter`."""

    shared: list[np.ndarray]  # per program of a cluster (each in the low window)
    maps: list[TensorMap]
    cluster_threads: int = 0  # threads of a cluster (its programs' threads)
    errors: list[str] = field(default_factory=list)
    _barriers: dict[int, _MBarrier] = field(default_factory=dict)
    _named: dict[tuple[int, int], threading.Barrier] = field(default_factory=dict)
    # bar.red.or's barriers, with their phase's OR and the last result.
    _reductions: dict[tuple[int, int], tuple[threading.Barrier, list[int]]] = field(
        default_factory=dict)
    _groups: dict[tuple[int, int], _Group] = field(default_factory=dict)
    _cluster: _ClusterBarrier | None = None
    _lock: threading.Condition = field(default_factory=threading.Condition)
    _local: threading.local = field(default_factory=threading.local)
    _keep: list[Any] = field(default_factory=list)

    def enter(self, rank: int) -> None:
        """The calling thread runs the cluster's program of rank ``rank``."""
        self._local.rank = rank
        self._local.cluster_phase = 0

    def new_cluster(self) -> None:
        """The next cluster's programs start (its barrier at phase 0)."""
        self._cluster = _ClusterBarrier(self.cluster_threads)

    @property
    def _rank(self) -> int:
        return getattr(self._local, "rank", 0)

    @property
    def _own(self) -> np.ndarray:
        return self.shared[self._rank]

    # -- addresses -----------------------------------------------------------
    def _offset(self, address: int, nbytes: int = 1, rank: int | None = None) -> int:
        buffer = self.shared[self._rank if rank is None else rank]
        offset = (address & 0xFFFFFFFF) - (buffer.ctypes.data & 0xFFFFFFFF)
        if not 0 <= offset <= buffer.size - nbytes:
            raise IndexError(f"shared address {address:#x} is outside the program's "
                             f"{buffer.size} bytes")
        return offset

    def mapa(self, address: int, rank: int) -> int:
        """The address at ``address``'s offset in the program of rank ``rank``."""
        if not 0 <= rank < len(self.shared):
            raise IndexError(f"mapa to rank {rank} in a cluster of {len(self.shared)}")
        return self.shared[rank].ctypes.data + self._offset(address)

    # -- mbarriers -------------------------------------------------------------
    def mbar_init(self, bar: int, count: int) -> None:
        with self._lock:
            self._barriers[bar] = _MBarrier(count, count)

    def _complete(self, bar: int, arrivals: int, tx: int) -> None:
        state = self._barriers.get(bar)
        if state is None:
            self.fail(f"mbarrier at {bar:#x} used before mbarrier.init")
            return
        state.pending -= arrivals
        state.tx += tx
        if state.pending < 0:
            self.fail(f"mbarrier at {bar:#x}: more arrivals than its count "
                      f"{state.count} in phase {state.phase}")
        if state.pending <= 0 and state.tx == 0:
            state.phase += 1
            state.pending = state.count
            self._lock.notify_all()

    def fail(self, message: str) -> None:
        with self._lock:
            self.errors.append(message)
            self._lock.notify_all()
        for barrier in [*self._named.values(), *(g.barrier for g in self._groups.values())]:
            barrier.abort()

    def mbar_arrive(self, bar: int, expect_tx: int) -> None:
        with self._lock:
            self._complete(bar, 1, expect_tx)

    def mbar_wait(self, bar: int, parity: int) -> None:
        with self._lock:
            if self.errors:  # the launch has failed: let every thread finish
                return
            state = self._barriers.get(bar)
            if state is None:
                self.fail(f"mbarrier at {bar:#x} waited on before mbarrier.init")
                return
            # The phase of parity p has completed once the current one's is not p.
            if not self._lock.wait_for(lambda: state.phase % 2 != parity % 2 or self.errors,
                                       WAIT_S):
                self.fail(
                    f"mbarrier at shared offset {self._offset(bar)}: the phase of parity "
                    f"{parity} never completed ({state.pending} arrivals and {state.tx} "
                    "transaction bytes pending)")

    # -- named barriers ------------------------------------------------------
    def bar_sync(self, ident: int, count: int) -> None:
        with self._lock:
            if self.errors:
                return
            key = (self._rank, ident)
            barrier = self._named.get(key)
            if barrier is None:
                barrier = self._named[key] = threading.Barrier(count)
            elif barrier.parties != count:
                self.fail(f"named barrier {ident} used with {count} threads and "
                          f"{barrier.parties}")
                return
        try:
            barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            if not self.errors:
                self.fail(f"named barrier {ident} ({count} threads) timed out")

    def bar_red_or(self, ident: int, count: int, predicate: int) -> int:
        """bar.red.or.pred: the named barrier, returning 1 to every thread
        when any of them passed a nonzero predicate."""
        with self._lock:
            if self.errors:
                return 0
            key = (self._rank, ident)
            entry = self._reductions.get(key)
            if entry is None:
                state = [0, 0]  # this phase's OR, the last phase's

                def publish() -> None:  # the barrier's action: once per phase
                    state[1], state[0] = state[0], 0

                entry = self._reductions[key] = (threading.Barrier(count, publish), state)
            barrier, state = entry
            if barrier.parties != count:
                self.fail(f"named barrier {ident} reduced over {count} threads and "
                          f"{barrier.parties}")
                return 0
            state[0] |= predicate != 0
        try:
            barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            if not self.errors:
                self.fail(f"named barrier {ident} (bar.red.or, {count} threads) timed out")
            return 0
        return state[1]

    # -- the cluster barrier ---------------------------------------------------
    def cluster_arrive(self) -> None:
        cluster = self._cluster
        if cluster is None:
            self.fail("barrier.cluster.arrive in a launch without clusters")
            return
        phase = self._local.cluster_phase
        with self._lock:
            cluster.arrived[phase] = cluster.arrived.get(phase, 0) + 1
            if cluster.arrived[phase] > cluster.parties:
                self.fail(f"barrier.cluster.arrive: more than {cluster.parties} arrivals")
            self._lock.notify_all()

    def cluster_wait(self) -> None:
        cluster = self._cluster
        if cluster is None:
            self.fail("barrier.cluster.wait in a launch without clusters")
            return
        phase = self._local.cluster_phase
        self._local.cluster_phase = phase + 1
        with self._lock:
            if self.errors:
                return
            if not self._lock.wait_for(
                    lambda: cluster.arrived.get(phase, 0) >= cluster.parties or self.errors,
                    WAIT_S):
                self.fail(f"barrier.cluster.wait: {cluster.arrived.get(phase, 0)} of the "
                          f"cluster's {cluster.parties} threads arrived")

    # -- TMA -----------------------------------------------------------------
    def _box(self, handle: int, coords: tuple[int, ...]) -> tuple[TensorMap, list[slice],
                                                                  list[slice]]:
        tmap = self.maps[handle]
        rank = tmap.array.ndim
        if tmap.swizzle != 128 or tmap.box[-1] * tmap.array.itemsize != 128:
            raise NotImplementedError("only 128-byte rows with the 128-byte swizzle are emulated")
        origin = list(reversed(coords[:rank]))  # innermost-first -> outermost-first
        inside, window = [], []
        for d in range(rank):
            lo = max(0, origin[d])
            hi = min(tmap.array.shape[d], origin[d] + tmap.box[d])
            inside.append(slice(lo, max(lo, hi)))
            window.append(slice(lo - origin[d], max(lo, hi) - origin[d]))
        return tmap, inside, window

    @staticmethod
    def _chunks(buffer: np.ndarray, offset: int, nbytes: int) -> np.ndarray:
        """Offsets in ``buffer`` of the box's bytes, in the box's row-major order."""
        first = buffer.ctypes.data + offset
        linear = np.arange(nbytes, dtype=np.int64) + (first & 0xFFFFFFFF)
        return _swizzle(linear) - (buffer.ctypes.data & 0xFFFFFFFF)

    def tma_load(self, dst: int, handle: int, bar: int, coords: tuple[int, ...],
                 mask: int | None = None) -> None:
        """A box into the program's shared memory, or with ``mask`` into that
        of each program of the cluster whose rank's bit is set."""
        tmap, inside, window = self._box(handle, coords)
        block = np.zeros(tmap.box, tmap.array.dtype)
        block[tuple(window)] = tmap.array[tuple(inside)]
        raw = block.reshape(-1).view(np.uint8)
        offset, bar_offset = self._offset(dst, raw.size), self._offset(bar, 8)
        if mask is None:
            ranks = [self._rank]
        else:
            ranks = [r for r in range(16) if mask >> r & 1]
            if not ranks or ranks[-1] >= len(self.shared):
                raise IndexError(f"multicast mask {mask:#x} names programs outside the "
                                 f"cluster of {len(self.shared)}")
        for r in ranks:
            target = self.shared[r]
            target[self._chunks(target, offset, raw.size)] = raw
            with self._lock:
                self._complete(target.ctypes.data + bar_offset, 0, -raw.size)

    def tma_store(self, handle: int, src: int, coords: tuple[int, ...]) -> None:
        tmap, inside, window = self._box(handle, coords)
        nbytes = int(np.prod(tmap.box)) * tmap.array.itemsize
        own = self._own
        offsets = self._chunks(own, self._offset(src, nbytes), nbytes)
        block = own[offsets].view(tmap.array.dtype).reshape(tmap.box)
        tmap.array[tuple(inside)] = block[tuple(window)]

    # -- wgmma ---------------------------------------------------------------
    def _product(self, desc_a: int, desc_b: int, code: int) -> np.ndarray:
        """The [64, N] f32 product of a wgmma's operands."""
        n = code & 0xFFFF
        dtype = "bf16" if code >> 16 & 1 else "f16"
        a = self._operand(desc_a, 64, bool(code >> 17 & 1), dtype)  # [64, 16]
        b = self._operand(desc_b, n, bool(code >> 18 & 1), dtype)  # [N, 16]
        return a @ b.T

    def _operand(self, desc: int, rows: int, mn_major: bool, dtype: str) -> np.ndarray:
        """The [rows (M or N), 16 (K)] operand a descriptor describes."""
        if desc >> 62 != 1 or (desc >> 49) & 7:
            raise NotImplementedError(f"matrix descriptor {desc:#x}: only the 128-byte "
                                      "swizzle with base offset 0 is emulated")
        start = (desc & 0x3FFF) << 4
        lbo = ((desc >> 16) & 0x3FFF) << 4
        sbo = ((desc >> 32) & 0x3FFF) << 4
        mn = np.arange(rows)[:, None]
        k = np.arange(16)[None, :]
        if mn_major:
            rel = 2 * (mn % 64) + (mn // 64) * lbo + (k % 8) * 128 + (k // 8) * sbo
        else:
            rel = (mn % 8) * 128 + (mn // 8) * sbo + 2 * k
        own = self._own
        base = own.ctypes.data
        window = base & ~(_WINDOW - 1) & 0xFFFFFFFF
        absolute = _swizzle(window + start + rel) - (base & 0xFFFFFFFF)
        if absolute.min() < 0 or absolute.max() + 2 > own.size:
            raise IndexError(f"matrix descriptor {desc:#x} reads outside shared memory")
        lo = own[absolute].astype(np.uint16)
        hi = own[absolute + 1].astype(np.uint16)
        bits = lo | (hi << 8)
        if dtype == "bf16":
            return (bits.astype(np.uint32) << 16).view(np.float32)
        return bits.view(np.float16).astype(np.float32)

    def _rendezvous(self, group: int) -> _Group:
        key = (self._rank, group)
        with self._lock:
            if key not in self._groups:
                self._groups[key] = _Group(threading.Barrier(128))
            return self._groups[key]

    def wgmma(self, desc_a: int, desc_b: int, acc: int, tid: int, code: int) -> None:
        """One thread's part of a warpgroup's wgmma: the 128 threads meet
        (the op is .sync.aligned: a warpgroup issues it together, so no
        thread runs ahead of its warpgroup's MMAs), one computes the
        product from the descriptors all of them gave, each adds its
        fragment."""
        group = self._rendezvous(tid // 128)
        calls = group.calls.get(tid, 0)
        group.calls[tid] = calls + 1
        group.issued[tid] = (desc_a, desc_b, code)
        try:
            if group.barrier.wait(WAIT_S) == 0:
                issued = set(group.issued.values())
                if len(issued) != 1:
                    raise ValueError(f"the threads of warpgroup {tid // 128} issued "
                                     f"different wgmma operands: {sorted(issued)[:2]}")
                group.products[(calls + 1) % 2] = self._product(desc_a, desc_b, code)
            group.barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            if not self.errors:
                self.fail(f"warpgroup {tid // 128} did not meet at a wgmma")
            return
        self._accumulate(group.products[(calls + 1) % 2], code & 0xFFFF, tid, acc,
                         bool(code >> 19 & 1))

    def _register_a(self, group: _Group, dtype: str) -> np.ndarray:
        """The [64, 16] A of a warpgroup's register fragments."""
        a = np.zeros((64, 16), np.float32)
        e = np.arange(8)
        for t, words in group.fragments.items():
            warp, lane = divmod(t, 32)
            halves = words.view(np.uint16)  # low half first (little-endian)
            if dtype == "bf16":
                values = (halves.astype(np.uint32) << 16).view(np.float32)
            else:
                values = halves.view(np.float16).astype(np.float32)
            rows = 16 * warp + lane // 4 + 8 * ((e // 2) % 2)
            cols = 2 * (lane % 4) + e % 2 + 8 * (e // 4)
            a[rows, cols] = values
        return a

    def wgmma_rs(self, a_ptr: int, desc_b: int, acc: int, tid: int, code: int) -> None:
        """wgmma with A from registers: the warpgroup's 128 threads meet, each
        giving its A fragment; one assembles A and computes the product with
        the B its descriptor reads; each adds its accumulator fragment."""
        group = self._rendezvous(tid // 128)
        calls = group.calls.get(tid, 0)
        group.calls[tid] = calls + 1
        group.issued[tid] = (0, desc_b, code)
        group.fragments[tid % 128] = np.frombuffer(
            (ctypes.c_uint32 * 4).from_address(a_ptr), np.uint32).copy()
        n = code & 0xFFFF
        dtype = "bf16" if code >> 16 & 1 else "f16"
        try:
            if group.barrier.wait(WAIT_S) == 0:
                issued = set(group.issued.values())
                if len(issued) != 1:
                    raise ValueError(f"the threads of warpgroup {tid // 128} issued "
                                     f"different wgmma operands: {sorted(issued)[:2]}")
                b = self._operand(desc_b, n, bool(code >> 18 & 1), dtype)  # [N, 16]
                group.products[(calls + 1) % 2] = self._register_a(group, dtype) @ b.T
            group.barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            if not self.errors:
                self.fail(f"warpgroup {tid // 128} did not meet at a wgmma")
            return
        self._accumulate(group.products[(calls + 1) % 2], n, tid, acc, True)

    def _accumulate(self, product: np.ndarray, n: int, tid: int, acc: int,
                    add: bool) -> None:
        """Thread `tid`'s accumulator fragment of `product` into (or, not
        `add`, over) its registers at `acc`."""
        t = tid % 128
        warp, lane = divmod(t, 32)
        i = np.arange(n // 2)
        rows = 16 * warp + lane // 4 + 8 * ((i // 2) % 2)
        cols = 8 * (i // 4) + 2 * (lane % 4) + i % 2
        out = np.frombuffer((ctypes.c_float * (n // 2)).from_address(acc), np.float32)
        if add:
            out += product[rows, cols]
        else:
            out[...] = product[rows, cols]

    # -- registration ----------------------------------------------------------
    def register(self, engine: Any) -> None:
        def guarded(name: str, fn: Any) -> Any:
            def call(*args: Any) -> Any:
                try:
                    return fn(*args)
                except Exception as error:  # noqa: BLE001 (reported after the launch)
                    self.fail(f"{name}: {error}")
                    return 0
            return call

        ptr, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
        table = {
            "__mbar_init": (ctypes.CFUNCTYPE(None, ptr, i32), self.mbar_init),
            "__mbar_arrive": (ctypes.CFUNCTYPE(None, ptr, i32), self.mbar_arrive),
            "__mbar_wait": (ctypes.CFUNCTYPE(None, ptr, i32), self.mbar_wait),
            "__bar_sync": (ctypes.CFUNCTYPE(None, i32, i32), self.bar_sync),
            "__bar_red_or": (ctypes.CFUNCTYPE(i32, i32, i32, i32), self.bar_red_or),
            "__wgmma": (ctypes.CFUNCTYPE(None, i64, i64, i64, i64, i64),
                        lambda a, b, acc, t, code: self.wgmma(a & (2**64 - 1), b & (2**64 - 1),
                                                              acc, t, code)),
            "__wgmma_rs": (ctypes.CFUNCTYPE(None, i64, i64, i64, i64, i64),
                           lambda a, b, acc, t, code: self.wgmma_rs(a, b & (2**64 - 1),
                                                                    acc, t, code)),
            "__tma_load": (ctypes.CFUNCTYPE(None, ptr, ptr, ptr, *[i32] * 5),
                           lambda dst, m, bar, *c: self.tma_load(dst, m or 0, bar, c)),
            "__tma_load_mc": (ctypes.CFUNCTYPE(None, ptr, ptr, ptr, *[i32] * 5, ctypes.c_int16),
                              lambda dst, m, bar, c0, c1, c2, c3, c4, mask: self.tma_load(
                                  dst, m or 0, bar, (c0, c1, c2, c3, c4), mask & 0xFFFF)),
            "__mapa": (ctypes.CFUNCTYPE(ptr, ptr, i32), self.mapa),
            "__cluster_arrive": (ctypes.CFUNCTYPE(None), self.cluster_arrive),
            "__cluster_wait": (ctypes.CFUNCTYPE(None), self.cluster_wait),
            "__tma_store": (ctypes.CFUNCTYPE(None, ptr, ptr, i32, i32, i32),
                            lambda m, src, c0, c1, c2: self.tma_store(m or 0, src,
                                                                      (c0, c1, c2))),
        }
        for name, (kind, fn) in table.items():
            callback = kind(guarded(name, fn))
            self._keep.append(callback)
            engine.register_runtime(name, callback)
