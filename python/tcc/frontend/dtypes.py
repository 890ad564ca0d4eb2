"""Element types of tensors: a small, closed set mirroring tcc's."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tcc.frontend.errors import DTypeError


@dataclass(frozen=True)
class DType:
    """An element type, e.g. ``f32``; ``str(dtype)`` is its MLIR spelling."""

    name: str
    is_float: bool
    bits: int

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    def to_mlir(self) -> ir.Type:
        """The MLIR type, in the current context."""
        if self.is_float:
            return {
                "f16": ir.F16Type.get,
                "bf16": ir.BF16Type.get,
                "f32": ir.F32Type.get,
                "f64": ir.F64Type.get,
            }[self.name]()
        return ir.IntegerType.get_signless(self.bits)


f16 = DType("f16", True, 16)
bf16 = DType("bf16", True, 16)
f32 = DType("f32", True, 32)
f64 = DType("f64", True, 64)
i1 = DType("i1", False, 1)
i8 = DType("i8", False, 8)
i16 = DType("i16", False, 16)
i32 = DType("i32", False, 32)
i64 = DType("i64", False, 64)

DTYPES: dict[str, DType] = {d.name: d for d in (f16, bf16, f32, f64, i1, i8, i16, i32, i64)}


def dtype(value: DType | str) -> DType:
    """``value`` as a DType; raises DTypeError for anything unknown."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in DTYPES:
        return DTYPES[value]
    raise DTypeError(f"unknown dtype {value!r}; expected one of {', '.join(DTYPES)}")
