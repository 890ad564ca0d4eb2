"""Element types of tensors (a small, closed set mirroring tcc's) and torch's
type promotion over them."""

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

# torch's names (``torch.float16``, ``"half"``, ...) for the same types.
TORCH_NAMES: dict[str, DType] = {
    "float16": f16,
    "half": f16,
    "bfloat16": bf16,
    "float32": f32,
    "float": f32,
    "float64": f64,
    "double": f64,
    "bool": i1,
    "int8": i8,
    "int16": i16,
    "short": i16,
    "int32": i32,
    "int": i32,
    "int64": i64,
    "long": i64,
}

# torch's defaults for Python scalars: float -> the default dtype, int -> int64.
DEFAULT_FLOAT = f32
DEFAULT_INT = i64


def dtype(value: object) -> DType:
    """``value`` as a DType: a DType, its name (``"f16"``), a torch name
    (``"float16"``, ``"half"``) or a torch dtype (``torch.float16``, matched by
    name; torch is not imported). Raises DTypeError for anything else."""
    if isinstance(value, DType):
        return value
    name = value if isinstance(value, str) else None
    if name is None and type(value).__module__ == "torch":
        name = str(value)
    if name is not None:
        name = name.removeprefix("torch.")
        found = DTYPES.get(name) or TORCH_NAMES.get(name)
        if found is not None:
            return found
    raise DTypeError(f"unknown dtype {value!r}; expected one of {', '.join(DTYPES)}")


def _category(d: DType) -> int:
    """bool < integer < float, as in torch's promotion."""
    return 2 if d.is_float else 0 if d == i1 else 1


def promote_types(a: DType, b: DType) -> DType:
    """torch.promote_types: the higher category wins; within floats the wider
    (f16 with bf16 gives f32), within integers the wider."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    if {a, b} == {f16, bf16}:
        return f32
    return a if a.bits > b.bits else b


def scalar_dtype(value: bool | int | float) -> DType:
    """The dtype torch gives a Python scalar in promotion."""
    if isinstance(value, bool):
        return i1
    return DEFAULT_INT if isinstance(value, int) else DEFAULT_FLOAT


def result_type(
    tensors: list[DType], zero_dim: list[DType], scalars: list[bool | int | float]
) -> DType:
    """torch.result_type: dimensioned tensors, then 0-d tensors, then Python
    scalars; a lower tier only counts when its category is higher (an f16
    tensor times 2.0 stays f16; an int tensor plus 0.5 is f32)."""

    def promote_all(ds: list[DType]) -> DType | None:
        out: DType | None = None
        for d in ds:
            out = d if out is None else promote_types(out, d)
        return out

    def combine(higher: DType | None, lower: DType | None) -> DType | None:
        if higher is None:
            return lower
        if lower is None or higher.is_float:
            return higher
        if higher == i1 or lower.is_float:
            return promote_types(higher, lower)
        return higher

    out = combine(
        promote_all(tensors),
        combine(promote_all(zero_dim), promote_all([scalar_dtype(v) for v in scalars])),
    )
    if out is None:
        raise DTypeError("result_type: no operands")
    return out
