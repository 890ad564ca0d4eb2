"""Bank conflicts of a kernel's shared-memory accesses, read off its tile IR.

Each ``tile.async_copy`` into a ``!tile.shared_buffer`` (a cooperative store
in its ``#tile.blocked`` layout: cp.async on NVIDIA, an LDS store on AMD) and
each ``tile.shared_load`` out of one (``ldmatrix`` fragments of mma.sync
operands, MFMA operand reads, or a thread reading back its own runs for a
``#tile.blocked`` result) is modelled with :mod:`tcc.analysis.bank_conflicts`
over one slot of its buffer: every request the kernel's warps make to cover
the slot, and the extra wavefronts they cost. TMA copies and wgmma's
descriptor reads are the hardware's (its 128-byte swizzle) and relayouts
through scratch memory are not modelled; they are listed as such.

Pure Python on the IR's text: it runs on artifacts' kept stages without MLIR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tcc.analysis.bank_conflicts import (
    Access,
    BankModel,
    SharedLayout,
    ldmatrix_x4_a,
    ldmatrix_x4_b,
    ldmatrix_x4_b_trans,
    mfma_lds_read,
    pattern_conflicts,
)

_ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i32": 4, "i64": 8}
_ALIAS = re.compile(r"^#(\w+) = (#tile\.\w+<\{.*\}>)\s*$", re.MULTILINE)
_ATTR = r"#tile\.{kind}<\{{([^{{}}]*(?:\{{[^{{}}]*\}}[^{{}}]*)*)\}}>"
_SHARED = _ATTR.format(kind="shared")
_BUFFER = r"!tile\.shared_buffer<((?:\d+x)+)(\w+), " + _SHARED + ">"
# The copy's layout prints as <{...}> inside its op, #tile.blocked<{...}> elsewhere.
_COPY = re.compile(r"tile\.async_copy [^\n]* layout (?:#tile\.blocked)?<\{([^{}]*)\}> : "
                   r"[^\n]*-> " + _BUFFER)
_LOAD = re.compile(r"tile\.shared_load [^\n]*: " + _BUFFER +
                   r" -> tensor<[^,>]*, #tile\.(\w+)<\{(.*)\}>>\s*$", re.MULTILINE)
_RELAYOUT = re.compile(r"tile\.convert_layout [^\n]*: tensor<[^,>]*, "
                       + _ATTR.format(kind="blocked") + r"> -> tensor<[^,>]*, "
                       + _ATTR.format(kind="blocked") + ">")
_PARENT = re.compile(r"parent = #tile\.(\w+)<\{([^{}]*)\}>")


def _expand_aliases(text: str) -> str:
    """``text`` with every ``#alias`` of a tile attribute written out (the
    module-level stage prints aliases, a kernel's own stage inline forms)."""
    aliases = dict(_ALIAS.findall(text))

    def expand(value: str) -> str:
        return re.sub(r"#(\w+)\b", lambda m: aliases.get(m.group(1), m.group(0)), value)

    for _ in range(3):  # a dot_operand's parent is an alias too
        aliases = {name: expand(value) for name, value in aliases.items()}
    return expand(_ALIAS.sub("", text))


@dataclass(frozen=True)
class SharedAccess:
    """One shared-memory access op of a kernel and what it costs per slot."""

    what: str  # "store (copy)", "ldmatrix A", "MFMA B read", ...
    shape: tuple[int, int]  # the slot's tile
    requests: int  # warp-wide requests covering one slot
    extra_wavefronts: int  # their bank conflicts (0: conflict-free)

    @property
    def per_request(self) -> float:
        return self.extra_wavefronts / self.requests if self.requests else 0.0


@dataclass(frozen=True)
class KernelConflicts:
    accesses: tuple[SharedAccess, ...]
    # Not counted: TMA and wgmma (the hardware's swizzle), relayouts through
    # scratch memory (convert-tile-to-gpu's own padding).
    unmodelled: tuple[str, ...]

    @property
    def extra_wavefronts(self) -> int:
        return sum(a.extra_wavefronts for a in self.accesses)

    def summary(self) -> str:
        """``0`` when every modelled access is conflict-free, else the
        costly ones (extra wavefronts per request); ``-`` when there is no
        shared-memory access at all."""
        if not self.accesses and not self.unmodelled:
            return "-"
        costly = [f"{a.what} {a.per_request:.1f}/req" for a in self.accesses
                  if a.extra_wavefronts]
        text = ", ".join(costly) if costly else ("0" if self.accesses else "")
        hardware = [u for u in self.unmodelled if u != "relayout"]
        if hardware:
            text = "; ".join(t for t in (text, "+".join(hardware) + ": hw swizzle") if t)
        if "relayout" in self.unmodelled:
            text = "; ".join(t for t in (text, "relayout: not modelled") if t)
        return text


def _params(body: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in re.findall(r"(\w+) = (\[[^\]]*\]|#\w+|[\w.]+)", body):
        if value.startswith("["):
            out[key] = [int(v) for v in value[1:-1].split(",") if v.strip()]
        elif value.lstrip("-").isdigit():
            out[key] = int(value)
        else:
            out[key] = value
    return out


def _slot(dims: str, elem: str) -> tuple[tuple[int, int], int] | None:
    shape = [int(d) for d in dims.rstrip("x").split("x")]
    inner = shape[1:]  # the leading dim counts slots
    while len(inner) > 2 and inner[0] == 1:
        inner = inner[1:]
    if len(inner) != 2 or elem not in _ELEM_BYTES:
        return None
    return (inner[0], inner[1]), _ELEM_BYTES[elem]


def _layout(shape: tuple[int, int], elem_bytes: int,
            shared: dict[str, object]) -> SharedLayout:
    order = tuple(shared.get("order", [1, 0]))[-2:]  # type: ignore[arg-type]
    order = (1, 0) if order in ((2, 1), (1, 0)) else (0, 1)
    return SharedLayout(shape, elem_bytes, int(shared.get("vec", 1)),  # type: ignore[arg-type]
                        int(shared.get("perPhase", 1)),  # type: ignore[arg-type]
                        int(shared.get("maxPhase", 1)), order)  # type: ignore[arg-type]


def _runs(layout: SharedLayout, blocked: dict[str, object], model: BankModel,
          kind: str) -> list[Access]:
    """The requests of a ``#tile.blocked`` layout's threads, each a run of
    sizePerThread elements along its fastest dim (in pieces of one swizzle
    group where swizzled, as the lowering moves them), covering the slot
    (every warp of the program)."""
    spt = list(blocked["sizePerThread"])  # type: ignore[arg-type]
    tpw = list(blocked["threadsPerWarp"])  # type: ignore[arg-type]
    wpc = list(blocked["warpsPerCTA"])  # type: ignore[arg-type]
    fast, slow = list(blocked.get("order", [1, 0]))[:2]  # type: ignore[arg-type]
    run = spt[fast]
    piece = min(run, layout.vec) if layout.max_phase > 1 else run
    per_request = [0, 0]
    per_request[fast], per_request[slow] = tpw[fast] * run, tpw[slow] * spt[slow]
    accesses: list[Access] = []
    for warp in range(wpc[0] * wpc[1]):
        w = [0, 0]
        w[slow], w[fast] = divmod(warp, wpc[fast])
        for s0 in range(w[slow] * per_request[slow], layout.shape[slow],
                        wpc[slow] * per_request[slow]):
            for f0 in range(w[fast] * per_request[fast], layout.shape[fast],
                            wpc[fast] * per_request[fast]):
                for e in range(spt[slow]):
                    for p0 in range(0, run, piece):
                        addresses = []
                        for lane in range(model.warp_size):
                            at = [0, 0]
                            at[slow] = s0 + (lane // tpw[fast]) * spt[slow] + e
                            at[fast] = f0 + (lane % tpw[fast]) * run + p0
                            inside = at[0] < layout.shape[0] and at[1] < layout.shape[1]
                            addresses.append(layout.address(*at) if inside else None)
                        accesses.append(Access(tuple(addresses), piece * layout.elem_bytes,
                                               kind))  # type: ignore[arg-type]
    return accesses


def _operand_reads(layout: SharedLayout, operand: dict[str, object],
                   parent: tuple[str, dict[str, object]]) -> tuple[str, list[Access]] | None:
    op_idx = int(operand.get("opIdx", 0))  # type: ignore[arg-type]
    kind, mma = parent
    rows, cols = layout.shape
    if kind == "nvidia_mma" and mma.get("version") == 2:
        chunk = 16 // layout.elem_bytes
        if op_idx == 0:
            return "ldmatrix A", [a for r in range(0, rows, 16) for k in range(0, cols, 2 * chunk)
                                  for a in ldmatrix_x4_a(layout, r, k)]
        warps_n = list(mma.get("warpsPerCTA", [1, 1]))[1]  # type: ignore[arg-type]
        stride = chunk * warps_n
        # B stored K x N: .trans; in a column-major tile (N x K): without.
        read = ldmatrix_x4_b if layout.order == (0, 1) else ldmatrix_x4_b_trans
        return "ldmatrix B", [a for k in range(0, rows, 16) for n in range(0, cols, 2 * stride)
                              for j in range(0, stride, chunk)
                              for a in read(layout, k, n + j, stride)]
    if kind == "amd_mfma":
        m_dim = list(mma.get("instrShape", [32, 32]))[0]  # type: ignore[arg-type]
        kwidth = int(operand.get("kWidth", 4))  # type: ignore[arg-type]
        k_step = kwidth * 64 // m_dim
        s_extent, k_extent = (rows, cols) if op_idx == 0 else (cols, rows)
        name = "MFMA A read" if op_idx == 0 else "MFMA B read"
        return name, [a for s in range(0, s_extent, m_dim) for k in range(0, k_extent, k_step)
                      for a in mfma_lds_read(layout, op_idx, m_dim, kwidth, s, k)]
    return None


def kernel_conflicts(tile_ir: str, vendor: str) -> KernelConflicts:
    """The shared accesses of the kernel(s) in ``tile_ir`` (one kernel's
    tile stage, or the program's) on ``vendor``'s banks (nvidia: 32 lanes;
    amd: 64-lane LDS)."""
    model = BankModel.nvidia() if vendor == "nvidia" else BankModel.amd_lds()
    text = _expand_aliases(tile_ir)
    accesses: list[SharedAccess] = []
    seen: set[tuple[str, ...]] = set()
    unmodelled: list[str] = []
    if "tile.tma_load" in text:
        unmodelled.append("TMA")
    if "tile.warpgroup_dot" in text:
        unmodelled.append("wgmma")
    if any(src != dst for src, dst in _RELAYOUT.findall(text)):
        unmodelled.append("relayout")

    def add(what: str, shape: tuple[int, int], reqs: list[Access]) -> None:
        accesses.append(SharedAccess(what, shape, len(reqs), pattern_conflicts(model, reqs)))

    for match in _COPY.finditer(text):
        blocked, dims, elem, shared = match.groups()
        slot = _slot(dims, elem)
        if match.groups() in seen or slot is None:
            continue
        seen.add(match.groups())
        layout = _layout(slot[0], slot[1], _params(shared))
        add("store", slot[0], _runs(layout, _params(blocked), model, "store"))
    for match in _LOAD.finditer(text):
        dims, elem, shared, kind, result = match.groups()
        slot = _slot(dims, elem)
        if match.groups() in seen or slot is None:
            continue
        seen.add(match.groups())
        layout = _layout(slot[0], slot[1], _params(shared))
        if kind == "blocked":
            add("load", slot[0], _runs(layout, _params(result), model, "load"))
        elif kind == "dot_operand" and (parent := _PARENT.search(result)):
            operand = _params(_PARENT.sub("", result))
            reads = _operand_reads(layout, operand, (parent.group(1), _params(parent.group(2))))
            if reads is not None:
                add(reads[0], slot[0], reads[1])
    return KernelConflicts(tuple(accesses), tuple(unmodelled))
