"""Bank-conflict counts of one warp's shared-memory accesses, and the swizzle.

Model (docs/shared-memory-swizzle.md has the long form):

* Shared memory (NVIDIA) / LDS (AMD CDNA) is ``banks`` banks of ``bank_bytes``
  (32 x 4 bytes on both: a 128-byte "bank line"). Byte address ``a`` lives in
  4-byte word ``a // 4``, bank ``(a // 4) % banks``.
* A warp's (wavefront's) request is served in *phases*, each a group of lanes
  whose accesses are looked at together: as many lanes as fit their bytes into
  one bank line (``line_bytes // access_bytes``, at most the warp). NVIDIA:
  4-byte accesses are one phase of 32 lanes, 8-byte two of 16, 16-byte
  (``ld.shared.v4``, and ``ldmatrix``: each 8x8 b16 matrix is 8 lanes' 16-byte
  row addresses) four of 8. AMD (64-lane wavefront): two phases of 32 for
  4-byte, four of 16 for ``ds_read_b64``, eight of 8 for ``ds_write_b128``
  (lanes 0-7, 8-15, ...) and, for ``ds_read_b128``, eight of 8 lanes in the
  non-contiguous groups of the CK-Tile LDS documentation (0-3 + 20-23, ...).
* A phase takes as many wavefronts as the most *distinct* words any one bank
  must deliver (lanes reading the same word share it: broadcast is free).
  ``count_conflicts`` returns the wavefronts beyond one per active phase,
  summed over phases: the extra wavefronts of the request, what Nsight
  Compute's ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum``
  and the CDNA ``SQ_LDS_BANK_CONFLICT`` counter measure (up to the hardware's
  extra merging rules, which this model leaves out).

``SharedLayout.offset`` is ``#tile.shared``'s address map (Triton's swizzle):
the contiguous index's ``vec``-element group is XORed with the phase
``(strided index // per_phase) % max_phase``. ``choose_swizzle`` is the formula
``tcc-swizzle-shared-memory`` uses (passes/lib/Transforms/SwizzleSharedMemory.cpp):
keep both in step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

Kind = Literal["load", "store"]

# ds_read_b128's lane groups on CDNA (gfx90a / gfx942), as the CK-Tile
# "Understanding AMD GPU LDS and Bank Conflicts" page gives them: the second
# half-wave repeats the first half's pattern shifted by 32 lanes.
_DS_READ_B128_GROUPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(range(base + a, base + a + 4)) + tuple(range(base + b, base + b + 4))
    for base in (0, 32)
    for a, b in ((0, 20), (4, 16), (8, 28), (12, 24))
)


@dataclass(frozen=True)
class BankModel:
    """Banks of one target and how a warp's request splits into phases."""

    name: Literal["nvidia", "amd"]
    warp_size: int
    banks: int = 32
    bank_bytes: int = 4

    @staticmethod
    def nvidia() -> BankModel:
        """Volta through Hopper shared memory: 32 banks x 4 bytes, warps of 32."""
        return BankModel("nvidia", warp_size=32)

    @staticmethod
    def amd_lds() -> BankModel:
        """CDNA2/CDNA3 (gfx90a, gfx942) LDS: 32 banks x 4 bytes, waves of 64."""
        return BankModel("amd", warp_size=64)

    @staticmethod
    def for_target(arch: str) -> BankModel:
        """The model of a known arch: its ``banks`` and warp size in
        KnownTargets.def (what tcc-swizzle-shared-memory reads)."""
        from tcc.targets import get_target_info

        info = get_target_info(arch)
        return BankModel.nvidia() if info.banks == "nvidia" else BankModel.amd_lds()

    @property
    def line_bytes(self) -> int:
        """Bytes the banks deliver in one wavefront (one of each bank)."""
        return self.banks * self.bank_bytes

    def phases(self, access_bytes: int, kind: Kind = "load") -> list[tuple[int, ...]]:
        """The lane groups whose accesses are served (and conflict) together."""
        if self.name == "amd" and access_bytes == 16 and kind == "load":
            return list(_DS_READ_B128_GROUPS)
        per_phase = min(self.warp_size, self.line_bytes // max(access_bytes, self.bank_bytes))
        if self.name == "nvidia" and access_bytes <= self.bank_bytes:
            per_phase = self.warp_size  # sub-word accesses: one phase too
        return [
            tuple(range(first, first + per_phase))
            for first in range(0, self.warp_size, per_phase)
        ]


class Swizzle(NamedTuple):
    """``#tile.shared`` parameters; ``max_phase == 1`` is unswizzled."""

    vec: int
    per_phase: int
    max_phase: int


@dataclass(frozen=True)
class SharedLayout:
    """A 2-D ``#tile.shared<{vec, perPhase, maxPhase, order}>`` tile.

    ``order[0]`` is the contiguous dimension (``(1, 0)``: row-major). Call the
    other dimension's index the *row*; rows are ``shape[order[0]]`` elements.
    """

    shape: tuple[int, int]
    elem_bytes: int
    vec: int = 1
    per_phase: int = 1
    max_phase: int = 1
    order: tuple[int, int] = (1, 0)

    @property
    def row_elems(self) -> int:
        return self.shape[self.order[0]]

    @property
    def row_bytes(self) -> int:
        return self.row_elems * self.elem_bytes

    def offset(self, i: int, j: int) -> int:
        """Element offset of logical element ``[i, j]``."""
        idx = (i, j)
        row, col = idx[self.order[1]], idx[self.order[0]]
        if not (0 <= i < self.shape[0] and 0 <= j < self.shape[1]):
            raise IndexError(f"[{i}, {j}] outside {self.shape}")
        phase = (row // self.per_phase) % self.max_phase
        col = ((col // self.vec) ^ phase) * self.vec + col % self.vec
        return row * self.row_elems + col

    def address(self, i: int, j: int) -> int:
        """Byte address of logical element ``[i, j]`` (tile at address 0)."""
        return self.offset(i, j) * self.elem_bytes

    def with_swizzle(self, swizzle: Swizzle) -> SharedLayout:
        return replace(self, vec=swizzle.vec, per_phase=swizzle.per_phase,
                       max_phase=swizzle.max_phase)


@dataclass(frozen=True)
class Access:
    """One warp-wide shared-memory instruction: a byte address per lane
    (``None``: lane inactive), each lane moving ``access_bytes``."""

    addresses: tuple[int | None, ...]
    access_bytes: int
    kind: Kind = "load"


def count_conflicts(model: BankModel, addresses_by_lane: Sequence[int | None],
                    access_bytes: int, kind: Kind = "load") -> int:
    """Extra wavefronts of one request: sum over phases of (the most distinct
    4-byte words one bank must deliver) - 1. Same word twice is free."""
    if len(addresses_by_lane) > model.warp_size:
        raise ValueError(f"{len(addresses_by_lane)} lanes; a {model.name} warp has "
                         f"{model.warp_size}")
    words_per_lane = max(1, access_bytes // model.bank_bytes)
    conflicts = 0
    for group in model.phases(access_bytes, kind):
        words_in_bank: dict[int, set[int]] = {}
        for lane in group:
            if lane >= len(addresses_by_lane) or addresses_by_lane[lane] is None:
                continue
            address = addresses_by_lane[lane]
            assert address is not None
            if access_bytes >= model.bank_bytes and address % access_bytes:
                raise ValueError(f"lane {lane}: address {address} is not "
                                 f"{access_bytes}-byte aligned")
            first = address // model.bank_bytes
            for word in range(first, first + words_per_lane):
                words_in_bank.setdefault(word % model.banks, set()).add(word)
        if words_in_bank:
            conflicts += max(len(words) for words in words_in_bank.values()) - 1
    return conflicts


def pattern_conflicts(model: BankModel, accesses: Sequence[Access]) -> int:
    """Total extra wavefronts of a sequence of warp-wide accesses."""
    return sum(count_conflicts(model, a.addresses, a.access_bytes, a.kind) for a in accesses)


# -- access patterns ---------------------------------------------------------

def ldmatrix_x4_a(layout: SharedLayout, row0: int, k0: int) -> list[Access]:
    """``ldmatrix.x4`` of a 16 x (2 x 16 bytes) A fragment of mma m16n8k16 at
    ``[row0, k0]`` of an M x K tile (what convert-tile-to-gpu emits): lane ``l``
    gives the row address of matrix ``l // 8``: row ``row0 + l % 8 + 8 * ((l //
    8) % 2)``, columns ``k0 + (l // 16) * (16 bytes)`` onward."""
    chunk = 16 // layout.elem_bytes
    addresses = tuple(
        layout.address(row0 + lane % 8 + 8 * ((lane // 8) % 2), k0 + (lane // 16) * chunk)
        for lane in range(32))
    return [Access(addresses, 16)]


def ldmatrix_x4_b_trans(layout: SharedLayout, k0: int, n0: int,
                        n_stride: int | None = None) -> list[Access]:
    """``ldmatrix.x4.trans`` of B stored K x N: lane ``l`` addresses k row
    ``k0 + l % 8 + 8 * ((l // 8) % 2)`` at column ``n0 + (l // 16) * n_stride``
    (the warp's next n tile: 8 * warps-along-N columns on in tcc's lowering;
    16 bytes by default)."""
    if n_stride is None:
        n_stride = 16 // layout.elem_bytes
    addresses = tuple(
        layout.address(k0 + lane % 8 + 8 * ((lane // 8) % 2), n0 + (lane // 16) * n_stride)
        for lane in range(32))
    return [Access(addresses, 16)]


def ldmatrix_x4_b(layout: SharedLayout, k0: int, n0: int,
                  n_stride: int | None = None) -> list[Access]:
    """``ldmatrix.x4`` (no .trans) of B in a column-major tile (stored N x K,
    order ``(0, 1)``): lane ``l`` addresses n row ``n0 + l % 8 + (l // 16) *
    n_stride`` at k ``k0 + (16 bytes) * ((l // 8) % 2)``."""
    chunk = 16 // layout.elem_bytes
    if n_stride is None:
        n_stride = chunk
    addresses = tuple(
        layout.address(k0 + chunk * ((lane // 8) % 2), n0 + lane % 8 + (lane // 16) * n_stride)
        for lane in range(32))
    return [Access(addresses, 16)]


def cooperative_store(layout: SharedLayout, model: BankModel, size_per_thread: int,
                      threads_per_warp: tuple[int, int], row0: int = 0,
                      col0: int = 0) -> list[Access]:
    """A row-major ``#tile.blocked`` warp storing into the tile: lane ``l`` owns
    ``size_per_thread`` contiguous elements at row ``row0 + l // tpw[1]``,
    column ``col0 + (l % tpw[1]) * size_per_thread``; one vector store of
    ``size_per_thread`` elements per lane (each run must stay inside one
    swizzle group: ``size_per_thread`` divides ``vec`` when swizzled)."""
    rows, cols = threads_per_warp
    if rows * cols != model.warp_size:
        raise ValueError(f"threads_per_warp {threads_per_warp} is not a {model.name} warp")
    if layout.max_phase > 1 and layout.vec % size_per_thread:
        raise ValueError("a thread's run crosses a swizzle group")
    addresses = tuple(
        layout.address(row0 + lane // cols, col0 + (lane % cols) * size_per_thread)
        for lane in range(model.warp_size))
    return [Access(addresses, size_per_thread * layout.elem_bytes, "store")]


def mfma_lds_read(layout: SharedLayout, op_idx: int, m_dim: int, kwidth: int,
                  s0: int = 0, k0: int = 0) -> list[Access]:
    """One wavefront's read of an MFMA operand fragment (``m_dim`` 32 or 16):
    lane ``l`` needs ``kwidth`` consecutive K elements at non-K index ``s0 + l %
    m_dim`` (A's row m / B's column n), K ``k0 + (l // m_dim) * kwidth``. With K
    the contiguous dimension that is one ``kwidth``-element read
    (``ds_read_b64`` / ``b128``); otherwise ``kwidth`` element-wide reads."""
    k_dim = 1 if op_idx == 0 else 0

    def index(s: int, k: int) -> tuple[int, int]:
        return (s, k) if op_idx == 0 else (k, s)

    lanes = range(64)
    if layout.order[0] == k_dim:
        addresses = tuple(
            layout.address(*index(s0 + lane % m_dim, k0 + (lane // m_dim) * kwidth))
            for lane in lanes)
        return [Access(addresses, kwidth * layout.elem_bytes)]
    return [
        Access(tuple(layout.address(*index(s0 + lane % m_dim, k0 + (lane // m_dim) * kwidth + e))
                     for lane in lanes), layout.elem_bytes)
        for e in range(kwidth)
    ]


# -- the swizzle choice ------------------------------------------------------

def choose_swizzle(model: BankModel, elem_bytes: int, shape: tuple[int, int],
                   order: tuple[int, int] = (1, 0), kwidth: int = 0,
                   k_contiguous: bool = True) -> Swizzle:
    """The ``#tile.shared`` parameters ``tcc-swizzle-shared-memory`` picks for a
    tile read as a dot operand (the same formula as the C++ pass).

    * vector: the bytes one lane reads per access. NVIDIA: 16 (an ``ldmatrix``
      row, for A and, with ``.trans``, for B). AMD: the MFMA operand's
      ``kwidth * elem_bytes`` clamped to [4, 16] (``ds_read_b32/b64/b128``);
      with K not the contiguous dimension the reads are element-wide and
      nothing is swizzled (``max_phase = 1``), as in Triton.
    * ``per_phase = max(1, line / row_bytes)``: rows sharing one 128-byte bank
      line share a phase.
    * ``max_phase = min((line / vector) / per_phase, row_bytes / vector)``: a
      phase of ``line / vector`` lanes reads that many rows at one column;
      the XOR must spread them over all vector slots of a bank line, and it
      cannot leave the row.

    For mma.sync this is Triton's choice (vec 8 halves, perPhase 128 B / row,
    maxPhase 8 / perPhase). ``max_phase == 1`` means: leave it unswizzled
    (e.g. rows shorter than one vector). Contiguous lengths must be powers of
    two (ValueError otherwise, as the pass rejects them).
    """
    row_elems = shape[order[0]]
    if row_elems <= 0 or row_elems & (row_elems - 1):
        raise ValueError(f"contiguous dimension of {row_elems} elements is not a power of two")
    if model.name == "amd":
        if not k_contiguous:
            return Swizzle(1, 1, 1)
        vector_bytes = min(16, max(4, kwidth * elem_bytes)) if kwidth else 16
    else:
        vector_bytes = 16
    vector_bytes = max(vector_bytes, elem_bytes)
    line = model.line_bytes
    row_bytes = row_elems * elem_bytes
    per_phase = max(1, line // row_bytes)
    max_phase = max(1, min((line // vector_bytes) // per_phase, row_bytes // vector_bytes))
    return Swizzle(vector_bytes // elem_bytes, per_phase, max_phase)
