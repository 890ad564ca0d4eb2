"""A compiled program: its kernels and the host launch sequence. MLIR-free.

A program compiles to one or more kernels (``tcc-form-kernels`` splits it)
and a host program: launches in order over the program's inputs, its
outputs, intermediate buffers and views (reshapes) of them. The plan of the
intermediate buffers, with their lifetimes, is made at compile time
(:func:`plan_buffers`): a buffer whose last reader has run is reused by a
later value of the same byte size.

File layout (all integers little-endian)::

    b"TCCPROG1"            8-byte magic (format version in the last byte)
    sha256(payload)        32 bytes
    payload:
      u32 header_len, header (UTF-8 JSON), kernel artifacts (KernelArtifact
      files, back to back; their sizes are in the header)
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from tcc.runtime.artifact import DTYPES, ArgSpec, ArtifactError, KernelArtifact, eval_grid_expr
from tcc.runtime.errors import ArgumentError

MAGIC = b"TCCPROG1"
_MAX_HEADER = 1 << 24

# "workspace" (before plan_buffers only): a kernel's own scratch, index 1
# when it must read as zero at the first launch (split-K counters).
ValueKind = Literal["input", "output", "temp", "view", "workspace"]


@dataclass(frozen=True)
class HostValue:
    """One tensor of the host program and where its bytes live.

    ``input``/``output``: program argument ``index`` (of the inputs / of the
    outputs); ``temp``: intermediate buffer slot ``index``; ``view``: the
    bytes of value ``index`` seen with another shape (a reshape).
    """

    kind: ValueKind
    index: int
    shape: tuple[int | str, ...]  # a str: a size symbol (dynamic programs' inputs and outputs)
    dtype: str

    @property
    def nbytes(self) -> int | str:
        """The byte size: an int, or for a shape of size symbols an
        expression of them (``"M * 16384"``, the grid-expression grammar)."""
        count, symbols = 1, []
        for d in self.shape:
            if isinstance(d, str):
                symbols.append(d)
            else:
                count *= d
        count *= DTYPES[self.dtype][1]
        return " * ".join([*symbols, str(count)]) if symbols else count


def bound_shape(shape: Sequence[int | str], symbols: dict[str, int]) -> tuple[int, ...]:
    """``shape`` with its size symbols replaced by their values."""
    return tuple(symbols[d] if isinstance(d, str) else d for d in shape)


def derive_sizes(name: str, relations: Sequence[tuple[int | str, str]],
                 symbols: dict[str, int]) -> dict[str, int]:
    """Apply a program's size relations to the sizes bound from its inputs
    (in place; returns ``symbols``): a symbol not yet bound takes the value
    of its expression, a bound one or a static size must equal it."""
    for lhs, expr in relations:
        try:
            value = eval_grid_expr(expr, [], symbols)
        except (ValueError, ZeroDivisionError) as exc:
            raise ArgumentError(f"{name}: size {lhs} = {expr}: {exc}") from exc
        if isinstance(lhs, str) and lhs not in symbols:
            symbols[lhs] = value
            continue
        have = lhs if isinstance(lhs, int) else symbols[lhs]
        if have != value:
            bound = ", ".join(f"{k}={v}" for k, v in sorted(symbols.items()))
            raise ArgumentError(f"{name}: the program needs size {lhs} = {expr}, but "
                                f"{have} != {value} for these arguments ({bound})")
    return symbols


def buffer_sizes(buffers: Sequence[int | str], symbols: dict[str, int]) -> list[int]:
    """The slots' byte sizes for a call whose sizes are ``symbols``."""
    return [eval_grid_expr(b, [], symbols) for b in buffers]


@dataclass(frozen=True)
class Launch:
    """One step: kernel ``kernel`` on values ``args`` (its inputs, then its
    results, in the kernel's argument order)."""

    kernel: int
    args: tuple[int, ...]


def plan_buffers(values: Sequence[HostValue], steps: Sequence[Launch]) -> tuple[
        tuple[HostValue, ...], tuple[int | str, ...], tuple[int, ...]]:
    """Assign intermediate values (kind ``temp``, index ignored) to buffer
    slots: a slot is free again after the last step that reads a value in it
    (through views too), and a new value takes a free slot of its byte size
    when there is one (for a value of dynamic size, the same expression of
    the size symbols). A kernel's workspace (kind ``workspace``) gets a slot
    of its own for the program's life, never shared: a kernel that leaves
    its counters at zero finds them so at its next launch. Returns the
    values with their slots (all ``temp``), the slots' byte sizes and the
    slots the runtime zero-fills when it allocates them."""
    root = list(range(len(values)))
    for i, v in enumerate(values):
        if v.kind == "view":
            root[i] = root[v.index]
    last_use: dict[int, int] = {}
    first_def: dict[int, int] = {}
    for s, step in enumerate(steps):
        for a in step.args:
            last_use[root[a]] = s
            first_def.setdefault(root[a], s)
    slots: list[int | str] = []
    zeroed: list[int] = []
    free: list[int] = []
    slot_of: dict[int, int] = {}
    releases: dict[int, list[int]] = {}
    for s in range(len(steps)):
        for value in releases.pop(s - 1, []):
            free.append(slot_of[value])
        for a in steps[s].args:
            r = root[a]
            if values[r].kind == "workspace" and r not in slot_of:
                slot_of[r] = len(slots)
                slots.append(values[r].nbytes)
                if values[r].index:
                    zeroed.append(slot_of[r])
                continue
            if values[r].kind != "temp" or r in slot_of or first_def[r] != s:
                continue
            size = values[r].nbytes
            slot = next((f for f in free if slots[f] == size), None)
            if slot is None:
                slot = len(slots)
                slots.append(size)
            else:
                free.remove(slot)
            slot_of[r] = slot
            releases.setdefault(last_use[r], []).append(r)
    planned = tuple(
        HostValue("temp", slot_of.get(i, -1), v.shape, v.dtype)
        if v.kind in ("temp", "workspace") else v
        for i, v in enumerate(values)
    )
    unused = [i for i, v in enumerate(planned) if v.kind == "temp" and v.index < 0]
    if unused:
        raise ArtifactError(f"host values {unused} are intermediates no kernel writes")
    return planned, tuple(slots), tuple(zeroed)


@dataclass(frozen=True)
class ProgramArtifact:
    """A whole compiled program for one target, ready for the runtime."""

    name: str
    target: str
    vendor: Literal["nvidia", "amd"]
    kernels: tuple[KernelArtifact, ...]
    args: tuple[ArgSpec, ...]  # the program's inputs, then its outputs (role "output")
    values: tuple[HostValue, ...]
    steps: tuple[Launch, ...]
    results: tuple[int, ...]  # the value of each output
    # Byte size of each intermediate buffer slot: an int, or an expression of
    # the size symbols (a dynamic program's intermediates).
    buffers: tuple[int | str, ...] = ()
    compiler_version: str = ""
    # Sizes derived from the arguments' (``("B_S", "B * S")``: the rows of a
    # (B, S, D) input viewed as (B * S, D)) or checked (``("M", "B * S")``,
    # ``(8, "s0 * 4")``), in order; see :func:`derive_sizes`.
    sizes: tuple[tuple[int | str, str], ...] = ()
    # Slots the runtime zero-fills when it allocates them (kernels'
    # workspace counters, which the kernels leave at zero).
    zeroed: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if any(not 0 <= z < len(self.buffers) for z in self.zeroed):
            raise ArtifactError(f"zero-filled slots {list(self.zeroed)} out of range of "
                                f"{len(self.buffers)} buffers")
        if any(v.kind == "workspace" for v in self.values):
            raise ArtifactError("a host value of kind 'workspace' has no slot (plan_buffers "
                                "assigns them)")
        inputs = [a for a in self.args if a.role == "input"]
        for i, v in enumerate(self.values):
            bound = {
                "input": len(inputs), "output": len(self.args) - len(inputs),
                "temp": len(self.buffers), "view": i,
            }[v.kind]
            if not 0 <= v.index < bound:
                raise ArtifactError(f"host value {i} ({v.kind} {v.index}) is out of range")
        for s, step in enumerate(self.steps):
            if not 0 <= step.kernel < len(self.kernels):
                raise ArtifactError(f"step {s} launches kernel {step.kernel} of "
                                    f"{len(self.kernels)}")
            if len(step.args) != len(self.kernels[step.kernel].args):
                raise ArtifactError(f"step {s} passes {len(step.args)} arguments to "
                                    f"{self.kernels[step.kernel].kernel_name}")
            if any(not 0 <= a < len(self.values) for a in step.args):
                raise ArtifactError(f"step {s} names a value out of range")
        if any(not 0 <= r < len(self.values) for r in self.results):
            raise ArtifactError("a program result names a value out of range")

    @property
    def kernel_name(self) -> str:
        return self.name

    @property
    def inputs(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.args if a.role == "input")

    @property
    def outputs(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.args if a.role == "output")

    # -- serialization --------------------------------------------------
    def to_bytes(self) -> bytes:
        blobs = [k.to_bytes() for k in self.kernels]
        header = {
            "name": self.name,
            "target": self.target,
            "vendor": self.vendor,
            "args": [asdict(a) | {"shape": list(a.shape)} for a in self.args],
            "values": [[v.kind, v.index, list(v.shape), v.dtype] for v in self.values],
            "steps": [[s.kernel, list(s.args)] for s in self.steps],
            "results": list(self.results),
            "buffers": list(self.buffers),
            "compiler_version": self.compiler_version,
            "kernel_sizes": [len(b) for b in blobs],
            "sizes": [list(r) for r in self.sizes],
            "zeroed": list(self.zeroed),
        }
        head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        payload = struct.pack("<I", len(head)) + head + b"".join(blobs)
        return MAGIC + hashlib.sha256(payload).digest() + payload

    @classmethod
    def from_bytes(cls, data: bytes) -> ProgramArtifact:
        if len(data) < len(MAGIC) + 36 or data[: len(MAGIC)] != MAGIC:
            raise ArtifactError("not a tcc program artifact (bad magic or too short)")
        digest, payload = data[8:40], data[40:]
        if hashlib.sha256(payload).digest() != digest:
            raise ArtifactError("corrupt program artifact: content hash mismatch")
        (head_len,) = struct.unpack_from("<I", payload)
        if head_len > min(_MAX_HEADER, len(payload) - 4):
            raise ArtifactError("corrupt program artifact: header size")
        try:
            h = json.loads(payload[4 : 4 + head_len])
            kernels, at = [], 4 + head_len
            for size in h["kernel_sizes"]:
                kernels.append(KernelArtifact.from_bytes(bytes(payload[at : at + int(size)])))
                at += int(size)
            if at != len(payload):
                raise ArtifactError("truncated program artifact: kernel sizes disagree")
            return cls(
                name=str(h["name"]),
                target=str(h["target"]),
                vendor=h["vendor"],
                kernels=tuple(kernels),
                args=tuple(ArgSpec(a["name"], a["kind"], a["dtype"], tuple(a["shape"]),
                                   a["role"]) for a in h["args"]),
                values=tuple(HostValue(k, int(i), tuple(str(d) if isinstance(d, str) else int(d)
                                                        for d in s), str(t))
                             for k, i, s, t in h["values"]),
                steps=tuple(Launch(int(k), tuple(int(a) for a in args))
                            for k, args in h["steps"]),
                results=tuple(int(r) for r in h["results"]),
                buffers=tuple(str(b) if isinstance(b, str) else int(b)
                              for b in h["buffers"]),
                compiler_version=str(h["compiler_version"]),
                sizes=tuple((lhs if isinstance(lhs, str) else int(lhs), str(expr))
                            for lhs, expr in h.get("sizes", [])),
                zeroed=tuple(int(z) for z in h.get("zeroed", [])),
            )
        except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError) as exc:
            if isinstance(exc, ArtifactError):
                raise
            raise ArtifactError(f"corrupt program artifact header: {exc}") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> ProgramArtifact:
        return cls.from_bytes(Path(path).read_bytes())


def single_kernel_program(kernel: KernelArtifact, name: str | None = None) -> ProgramArtifact:
    """The program of one kernel launched on the program's own arguments."""
    values = []
    n_in = n_out = 0
    for spec in kernel.args:
        if spec.kind != "pointer" or any(isinstance(d, str) for d in spec.shape):
            raise ArtifactError(f"{kernel.kernel_name}: argument {spec.name!r} is not a "
                                "static-shaped array; launch the kernel itself")
        if spec.role == "input":
            values.append(HostValue("input", n_in, tuple(spec.shape), spec.dtype))  # type: ignore[arg-type]
            n_in += 1
        else:
            values.append(HostValue("output", n_out, tuple(spec.shape), spec.dtype))  # type: ignore[arg-type]
            n_out += 1
    args = sorted(kernel.args, key=lambda a: a.role != "input")
    return ProgramArtifact(
        name=name or kernel.kernel_name, target=kernel.target, vendor=kernel.vendor,
        kernels=(kernel,), args=tuple(args), values=tuple(values),
        steps=(Launch(0, tuple(range(len(values)))),),
        results=tuple(i for i, v in enumerate(values) if v.kind == "output"),
        compiler_version=kernel.compiler_version,
    )


def load_artifact(data: bytes) -> KernelArtifact | ProgramArtifact:
    """A kernel or program artifact from its file bytes (by magic)."""
    if data[: len(MAGIC)] == MAGIC:
        return ProgramArtifact.from_bytes(data)
    return KernelArtifact.from_bytes(data)
