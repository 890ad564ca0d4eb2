"""The GPU architectures tcc compiles for, read from the project's one arch table.

The table is ``KnownTargets.def`` (dialects/include/tcc/Dialect/Tile/IR/,
installed beside this module): C++ builds each arch's ``#tile.target`` from it
(``tcc-set-target``), and this module parses the same file as text, so it
needs no MLIR (a cache hit in ``tcc.compile`` imports no MLIR).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

_DEF_NAME = "KnownTargets.def"
# The installed copy; the source tree's when running from a checkout.
_DEF_PATHS = (
    Path(__file__).with_name(_DEF_NAME),
    Path(__file__).resolve().parents[2] / "dialects/include/tcc/Dialect/Tile/IR" / _DEF_NAME,
)
_ENTRY = re.compile(r"^TCC_TARGET\((.*)\)\s*$")
_FIELD = re.compile(r'\s*("[^"]*"|[^,]+?)\s*(?:,|$)')


@dataclass(frozen=True)
class TargetInfo:
    """One row of KnownTargets.def (the fields of ``#tile.target`` and the
    backend's ISA feature string)."""

    arch: str
    vendor: str  # "nvidia" | "amd"
    warp_size: int
    max_shared_bytes: int
    banks: str  # bank model: "nvidia" | "amd"
    mma: tuple[str, ...]  # tensor-core instructions, preferred first
    async_copy: bool
    math: str  # "libdevice" | "expanded"
    isa_features: str  # e.g. "+ptx80" (NVIDIA); "" on AMD

    def attr(self) -> str:
        """The ``#tile.target<...>`` text tcc-set-target writes for this arch."""
        return (
            f'#tile.target<arch = "{self.arch}", vendor = {self.vendor}, '
            f"warp_size = {self.warp_size}, max_shared_bytes = {self.max_shared_bytes}, "
            f"banks = {self.banks}, mma = [{', '.join(self.mma)}], "
            f"async_copy = {str(self.async_copy).lower()}, math = {self.math}>"
        )


def _value(text: str) -> str | int | bool:
    if text.startswith('"'):
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"\d+(\s*\*\s*\d+)*", text):
        return math.prod(int(f) for f in text.split("*"))
    return text  # an enum case name


def parse_known_targets(text: str) -> dict[str, TargetInfo]:
    """The entries of a KnownTargets.def text, by arch, in table order."""
    targets: dict[str, TargetInfo] = {}
    for line in text.splitlines():
        match = _ENTRY.match(line.strip())
        if not match:
            continue
        fields = [_value(f) for f in _FIELD.findall(match.group(1))]
        if len(fields) != 9:
            raise ValueError(f"{_DEF_NAME}: expected 9 fields, got {len(fields)}: {line!r}")
        arch, vendor, warp, shared, banks, mma, async_copy, math_lib, features = fields
        targets[str(arch)] = TargetInfo(
            arch=str(arch), vendor=str(vendor), warp_size=int(warp),
            max_shared_bytes=int(shared), banks=str(banks), mma=tuple(str(mma).split()),
            async_copy=bool(async_copy), math=str(math_lib), isa_features=str(features))
    return targets


def _load() -> dict[str, TargetInfo]:
    for path in _DEF_PATHS:
        if path.is_file():
            return parse_known_targets(path.read_text())
    raise FileNotFoundError(f"tcc: {_DEF_NAME} not found (looked in "
                            f"{', '.join(str(p) for p in _DEF_PATHS)})")


KNOWN_TARGETS: dict[str, TargetInfo] = _load()


def get_target_info(arch: str) -> TargetInfo:
    """The table's entry for ``arch``; ValueError naming the known ones."""
    try:
        return KNOWN_TARGETS[arch]
    except KeyError:
        raise ValueError(
            f"unknown target {arch!r}; tcc compiles for {', '.join(KNOWN_TARGETS)}"
        ) from None


def archs_of(vendor: str) -> tuple[str, ...]:
    """The known archs of ``vendor`` ("nvidia" or "amd"), in table order."""
    return tuple(a for a, t in KNOWN_TARGETS.items() if t.vendor == vendor)


__all__ = ["KNOWN_TARGETS", "TargetInfo", "archs_of", "get_target_info", "parse_known_targets"]
