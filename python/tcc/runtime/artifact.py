"""The compiled-kernel artifact and its single-file format. MLIR-free.

File layout (all integers little-endian)::

    b"TCCKART1"            8-byte magic (format version in the last byte)
    sha256(payload)        32 bytes, detects truncation and bit rot
    payload:
      u32 header_len, header (UTF-8 JSON), asm (UTF-8), binary

The JSON header records the sizes of the asm and binary blobs, so a payload
whose length disagrees with its header is rejected before the hash even runs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

MAGIC = b"TCCKART1"
FORMAT_VERSION = 1

ArgKind = Literal["pointer", "scalar"]
# "workspace": scratch the kernel keeps for itself (split-K partials and
# counters); a program's host plan gives it, never the caller.
ArgRole = Literal["input", "output", "inout", "workspace"]
# "bare": one pointer per array argument; "sized": a pointer, then one i64
# per dimension of symbolic size (convert-tile-to-gpu's dynamic memrefs);
# "descriptor": MLIR's memref descriptors.
CallConv = Literal["bare", "sized", "descriptor"]

# dtype name -> (numpy-compatible typestr, size in bytes). Shared by the
# launcher's validation and packing; kept here so the format defines it.
DTYPES: dict[str, tuple[str, int]] = {
    "f16": ("<f2", 2),
    "bf16": ("<V2", 2),  # numpy has no bfloat16; raw 2-byte records
    "f32": ("<f4", 4),
    "f64": ("<f8", 8),
    "i1": ("|b1", 1),
    "i8": ("|i1", 1),
    "i16": ("<i2", 2),
    "i32": ("<i4", 4),
    "i64": ("<i8", 8),
    "index": ("<i8", 8),  # tcc lowers index to 64 bits
}


class ArtifactError(ValueError):
    """A corrupt, truncated or incompatible artifact."""


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument as the caller sees it.

    ``shape`` items are ints (static) or symbol names (bound from the actual
    arguments; equal names must agree). Scalars have ``shape == ()``.
    """

    name: str
    kind: ArgKind
    dtype: str
    shape: tuple[int | str, ...] = ()
    role: ArgRole = "input"

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class LaunchSpec:
    """How to launch: fixed block, grid as expressions, shared memory.

    Each grid entry is an int or an expression string over: integer
    literals, ``+ - * //``, ``cdiv(a, b)``, ``min``, ``max``,
    ``shape(i, d)``, ``numel(i)`` (``i`` an argument index), names of scalar
    arguments, shape symbols and ``constants`` (tile sizes).
    """

    block: tuple[int, int, int]
    grid: tuple[int | str, int | str, int | str]
    shared_mem_bytes: int = 0
    constants: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for expr in self.grid:
            if isinstance(expr, str):
                _check_expr(expr)


@dataclass(frozen=True)
class TensorMapSpec:
    """A TMA tensor map the kernel takes after its arguments (a 128-byte
    CUtensorMap passed by value), built by the runtime over array argument
    ``operand``: boxes of ``box`` elements (outermost first, as the array's
    dims) with a ``swizzle``-byte swizzle; elements outside read as zero."""

    operand: int
    box: tuple[int, ...]
    swizzle: int = 128


@dataclass(frozen=True)
class KernelArtifact:
    """A kernel compiled for one target, ready for the runtime to load."""

    target: str  # e.g. "sm_90", "gfx942"
    vendor: Literal["nvidia", "amd"]
    kernel_name: str
    asm: str  # PTX or AMDGCN assembly
    binary: bytes | None  # cubin / hsaco, None when not produced
    launch: LaunchSpec
    args: tuple[ArgSpec, ...]
    call_conv: CallConv = "bare"
    compiler_version: str = ""
    tensor_maps: tuple[TensorMapSpec, ...] = ()

    def arg(self, name: str) -> ArgSpec:
        for spec in self.args:
            if spec.name == name:
                return spec
        raise KeyError(f"kernel {self.kernel_name} has no argument {name!r}")

    # -- serialization --------------------------------------------------
    def to_bytes(self) -> bytes:
        asm = self.asm.encode()
        binary = self.binary or b""
        header = {
            "format_version": FORMAT_VERSION,
            "target": self.target,
            "vendor": self.vendor,
            "kernel_name": self.kernel_name,
            "launch": {
                "block": list(self.launch.block),
                "grid": list(self.launch.grid),
                "shared_mem_bytes": self.launch.shared_mem_bytes,
                "constants": dict(self.launch.constants),
            },
            "args": [asdict(a) | {"shape": list(a.shape)} for a in self.args],
            "call_conv": self.call_conv,
            "compiler_version": self.compiler_version,
            "tensor_maps": [asdict(t) | {"box": list(t.box)} for t in self.tensor_maps],
            "asm_size": len(asm),
            "binary_size": len(binary) if self.binary is not None else None,
        }
        head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
        payload = struct.pack("<I", len(head)) + head + asm + binary
        return MAGIC + hashlib.sha256(payload).digest() + payload

    @classmethod
    def from_bytes(cls, data: bytes) -> KernelArtifact:
        if len(data) < len(MAGIC) + 36 or not data.startswith(MAGIC[:7]):
            raise ArtifactError("not a tcc kernel artifact (bad magic or too short)")
        if data[: len(MAGIC)] != MAGIC:
            raise ArtifactError(f"unsupported artifact format {data[:8]!r}, expected {MAGIC!r}")
        digest, payload = data[8:40], data[40:]
        (head_len,) = struct.unpack_from("<I", payload)
        if hashlib.sha256(payload).digest() != digest:
            raise ArtifactError("corrupt artifact: content hash mismatch")
        try:
            header = json.loads(payload[4 : 4 + head_len])
            asm_end = 4 + head_len + header["asm_size"]
            bin_size = header["binary_size"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError) as exc:
            raise ArtifactError(f"corrupt artifact header: {exc!r}") from exc
        if len(payload) != asm_end + (bin_size or 0):
            raise ArtifactError("truncated artifact: payload size disagrees with its header")
        try:
            return cls._from_header(header, payload, head_len, asm_end, bin_size)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ArtifactError(f"corrupt artifact header: {exc!r}") from exc

    @classmethod
    def _from_header(cls, header: Any, payload: bytes, head_len: int, asm_end: int,
                     bin_size: int | None) -> KernelArtifact:
        launch = header["launch"]
        return cls(
            target=header["target"],
            vendor=header["vendor"],
            kernel_name=header["kernel_name"],
            asm=payload[4 + head_len : asm_end].decode(),
            binary=None if bin_size is None else bytes(payload[asm_end:]),
            launch=LaunchSpec(
                block=tuple(launch["block"]),
                grid=tuple(launch["grid"]),
                shared_mem_bytes=launch["shared_mem_bytes"],
                constants=launch["constants"],
            ),
            args=tuple(
                ArgSpec(a["name"], a["kind"], a["dtype"], tuple(a["shape"]), a["role"])
                for a in header["args"]
            ),
            call_conv=header["call_conv"],
            compiler_version=header["compiler_version"],
            tensor_maps=tuple(
                TensorMapSpec(t["operand"], tuple(t["box"]), t["swizzle"])
                for t in header.get("tensor_maps", [])
            ),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> KernelArtifact:
        return cls.from_bytes(Path(path).read_bytes())


# -- grid expressions -----------------------------------------------------
_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
}
_FUNCS = {"cdiv", "min", "max", "shape", "numel"}


def _check_expr(expr: str) -> ast.expr:
    """Parse ``expr`` and reject anything outside the grid-expression grammar."""
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"bad grid expression {expr!r}: {exc.msg}") from exc
    for node in ast.walk(tree):
        ok = isinstance(node, ast.Name | ast.Load | ast.Constant | ast.BinOp | ast.Call)
        ok = ok or type(node) in _BINOPS
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            ok = False
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in _FUNCS and not node.keywords
        ):
            ok = False
        if not ok:
            raise ValueError(f"bad grid expression {expr!r}: {type(node).__name__} not allowed")
    return tree


def eval_grid_expr(
    expr: int | str,
    shapes: Sequence[tuple[int, ...]],
    names: Mapping[str, int],
) -> int:
    """Evaluate one grid entry given argument shapes and named integers."""
    if isinstance(expr, int):
        return expr

    def ev(node: ast.expr) -> int:
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ValueError(f"grid expression {expr!r}: unknown name {node.id!r}")
            return int(names[node.id])
        if isinstance(node, ast.BinOp):
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        vals = [ev(a) for a in node.args]
        fn = node.func.id
        if fn == "cdiv":
            return -(-vals[0] // vals[1])
        if fn == "min":
            return min(vals)
        if fn == "max":
            return max(vals)
        if fn == "shape":
            return shapes[vals[0]][vals[1]]
        numel = 1
        for d in shapes[vals[0]]:
            numel *= d
        return numel

    return ev(_check_expr(expr))
