"""Launch a :class:`KernelArtifact`: validate, pack, compute the grid, launch.

MLIR-free. Arguments may be numpy arrays (copied to the device and back),
objects exposing ``__cuda_array_interface__`` (cupy, torch CUDA tensors) or
torch tensors (``data_ptr()``, which also covers ROCm builds of torch), and
Python/numpy scalars for scalar parameters.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tcc.runtime import dlpack
from tcc.runtime.artifact import DTYPES, ArgSpec, KernelArtifact, eval_grid_expr
from tcc.runtime.errors import ArgumentError
from tcc.runtime.program import derive_sizes

_SCALAR_CTYPES: dict[str, type] = {
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "index": ctypes.c_int64,
    "f16": ctypes.c_uint16,  # raw bits, converted through numpy
    "bf16": ctypes.c_uint16,
}
# tcc element type -> torch dtype name (tcc.torch and the tuner use it too).
TORCH_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "index": "int64",
}


# Dynamic shared memory past this needs the kernel's explicit opt-in (CUDA).
_STATIC_SHARED_LIMIT = 48 * 1024


class Device(Protocol):
    """What the launcher needs from a driver backend (see cuda.py / hip.py)."""

    vendor: str

    def load_kernel(self, asm: str, binary: bytes | None) -> Any: ...
    def get_function(self, module: Any, name: str) -> Any: ...
    def allow_dynamic_shared(self, function: Any, nbytes: int) -> None: ...
    def launch(
        self, function: Any, grid: tuple[int, int, int], block: tuple[int, int, int],
        shared_mem_bytes: int, stream: int, params_address: int,
    ) -> None: ...
    def tensor_map(self, ptr: int, dtype: str, shape: Sequence[int], box: Sequence[int],
                   swizzle: int) -> bytes: ...
    def alloc(self, nbytes: int) -> int: ...
    def free(self, ptr: int) -> None: ...
    def copy_htod(self, dst: int, src_address: int, nbytes: int) -> None: ...
    def copy_dtoh(self, dst_address: int, src: int, nbytes: int) -> None: ...
    def synchronize(self, stream: int = 0) -> None: ...


_DEVICES: dict[tuple[str, str, int], Device] = {}


def get_device(vendor: str, arch: str, index: int = 0) -> Device:
    """The (cached) driver backend for ``vendor`` on GPU ``index``; raises
    RuntimeUnavailableError."""
    key = (vendor, arch, index)
    if key not in _DEVICES:
        if vendor == "nvidia":
            from tcc.runtime.cuda import CudaDevice

            _DEVICES[key] = CudaDevice(arch, index)
        elif vendor == "amd":
            from tcc.runtime.hip import HipDevice

            _DEVICES[key] = HipDevice(arch, index)
        else:
            raise ValueError(f"unknown GPU vendor {vendor!r}")
    return _DEVICES[key]


def activate(device: Device) -> None:
    """Make ``device`` current where the backend has several (its context
    for the launches, allocations and module loads that follow)."""
    make_current = getattr(device, "activate", None)
    if make_current is not None:
        make_current()


@dataclass
class TensorInfo:
    """What the launcher needs to know about one array argument."""

    ptr: int
    shape: tuple[int, ...]
    typestr: str
    contiguous: bool
    on_device: bool
    obj: Any
    device: int = 0  # the GPU ordinal of a device array


def _c_contiguous(shape: Sequence[int], strides: Sequence[int] | None, itemsize: int) -> bool:
    if strides is None:
        return True
    expected = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides), strict=True):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


def describe(value: Any) -> TensorInfo | None:
    """Describe an array-like argument, or None if ``value`` is not one."""
    if isinstance(value, np.ndarray):
        return TensorInfo(
            value.ctypes.data, tuple(value.shape), value.dtype.str,
            value.flags.c_contiguous, False, value,
        )
    if getattr(value, "is_cuda", False) and hasattr(value, "data_ptr"):
        # torch on the GPU: its own accessors cost a fraction of building
        # __cuda_array_interface__ (which dominated the launch time).
        return TensorInfo(
            int(value.data_ptr()), tuple(value.shape), _torch_typestr(value),
            bool(value.is_contiguous()), True, value, int(value.get_device()),
        )
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(cai["shape"])
        itemsize = int(cai["typestr"][2:])
        return TensorInfo(
            int(cai["data"][0]), shape, cai["typestr"],
            _c_contiguous(shape, cai.get("strides"), itemsize), True, value,
            int(getattr(getattr(value, "device", None), "id", 0)),  # cupy's ordinal
        )
    if hasattr(value, "data_ptr") and hasattr(value, "is_contiguous"):  # torch without CAI
        if not getattr(value, "is_cuda", False):
            if str(value.dtype) == "torch.bfloat16":
                # numpy has no bfloat16: the tensor's memory as 2-byte records.
                import torch

                return describe(value.view(torch.int16).numpy().view("V2"))
            return describe(value.numpy())
        typestr = _torch_typestr(value)
        return TensorInfo(
            int(value.data_ptr()), tuple(value.shape), typestr,
            bool(value.is_contiguous()), True, value, int(value.get_device()),
        )
    if hasattr(value, "__dlpack_device__"):
        kind, ordinal = value.__dlpack_device__()[:2]
        if kind == dlpack.KDL_CPU:
            return describe(np.from_dlpack(value))
        if kind in (dlpack.KDL_CUDA, dlpack.KDL_CUDA_MANAGED, dlpack.KDL_ROCM):
            # A GPU array offering DLPack only: its capsule's fields.
            view = dlpack.read_capsule(value.__dlpack__())
            return TensorInfo(view.ptr, view.shape, view.typestr,
                              # DLPack strides count elements: itemsize 1.
                              _c_contiguous(view.shape, view.strides, 1), True, value,
                              int(ordinal))
    return None


def device_of(where: str, specs: Sequence[ArgSpec],
              infos: Sequence[TensorInfo | None]) -> int | None:
    """The GPU ordinal the device arrays of a call sit on (None: host arrays
    only); arguments on different GPUs are an ArgumentError naming them."""
    first: tuple[str, int] | None = None
    for spec, info in zip(specs, infos, strict=True):
        if info is None or not info.on_device:
            continue
        if first is None:
            first = (spec.name, info.device)
        elif info.device != first[1]:
            raise ArgumentError(
                f"{where}: argument {spec.name!r} is on GPU {info.device} but "
                f"{first[0]!r} on GPU {first[1]}: every array of a call must sit on one GPU")
    return None if first is None else first[1]


_TORCH_TYPESTRS: dict[Any, str] = {}


def _torch_typestr(t: Any) -> str:
    cached = _TORCH_TYPESTRS.get(t.dtype)
    if cached is not None:
        return cached
    name = str(t.dtype).removeprefix("torch.")
    typestr = next((DTYPES[ours][0] for ours, torch_name in TORCH_DTYPES.items()
                    if torch_name == name), f"<torch.{name}>")
    _TORCH_TYPESTRS[t.dtype] = typestr
    return typestr


def _typestr_matches(got: str, dtype: str) -> bool:
    want = DTYPES[dtype][0]
    # Byte order markers differ between producers ("<", "=", "|"): compare the
    # rest; big-endian data (">") is not what the kernel reads.
    if got.startswith(">") and DTYPES[dtype][1] > 1:
        return False
    return got[1:] == want[1:] or (dtype == "bf16" and got == "<torch.bfloat16>")


# Kernels move 16-byte vectors (and TMA needs 16-byte aligned tensors).
_POINTER_ALIGN = 16


def _check_buffers(where: str, specs: Sequence[ArgSpec],
                   infos: Sequence[TensorInfo | None]) -> None:
    """Device pointers non-null and 16-byte aligned, outputs writable and
    disjoint from the inputs."""
    spans: list[tuple[int, int, ArgSpec]] = []
    for spec, info in zip(specs, infos, strict=True):
        if info is None:
            continue
        if info.on_device and info.ptr == 0:
            raise ArgumentError(f"{where}: argument {spec.name!r} is a null device pointer")
        if info.on_device and info.ptr % _POINTER_ALIGN:
            raise ArgumentError(
                f"{where}: argument {spec.name!r} at {info.ptr:#x} is not {_POINTER_ALIGN}-byte "
                "aligned (kernels access memory in 16-byte vectors): pass a contiguous copy")
        if (spec.role != "input" and isinstance(info.obj, np.ndarray)
                and not info.obj.flags.writeable):
            raise ArgumentError(f"{where}: output {spec.name!r} is a read-only array")
        nbytes = math.prod(info.shape) * DTYPES[spec.dtype][1]
        spans.append((info.ptr, info.ptr + nbytes, spec))
    for start, end, spec in spans:
        if spec.role == "input" or start == end:
            continue
        for other_start, other_end, other in spans:
            if other is not spec and other_start < end and start < other_end:
                raise ArgumentError(
                    f"{where}: output {spec.name!r} overlaps argument {other.name!r} "
                    "(outputs must not alias other arguments)")


def dtype_name_of(typestr: str) -> str:
    for name, (ts, size) in DTYPES.items():
        if ts[1:] == typestr[1:] and name != "index":
            return f"big-endian {name} ({typestr})" if typestr[0] == ">" and size > 1 else name
    return typestr


def describe_args(artifact: KernelArtifact, values: Sequence[Any]) -> list[TensorInfo | None]:
    """``describe`` of each array argument (None for scalars and absent values)."""
    return [
        describe(v) if spec.kind == "pointer" and v is not None else None
        for spec, v in zip(artifact.args, values, strict=True)
    ]


def bind_shapes(
    artifact: KernelArtifact, values: Sequence[Any],
    infos: Sequence[TensorInfo | None] | None = None,
) -> dict[str, int]:
    """Validate ``values`` against the artifact's argument layout.

    Returns the bindings of symbolic dimensions. Raises ArgumentError naming
    the argument, with expected vs got, before anything touches a device.
    ``infos``: the values' ``describe_args``, when the caller has them.
    """
    if len(values) != len(artifact.args):
        raise ArgumentError(
            f"{artifact.kernel_name}: expected {len(artifact.args)} arguments "
            f"({', '.join(a.name for a in artifact.args)}), got {len(values)}"
        )
    if infos is None:
        infos = describe_args(artifact, values)
    symbols: dict[str, int] = {}
    # Inputs bind the sizes, the sizes the program derives follow, then the
    # outputs are checked against them.
    order = sorted(range(len(artifact.args)), key=lambda i: artifact.args[i].role != "input")
    relations = getattr(artifact, "sizes", ())
    derived = not relations
    for i in order:
        spec, value, info = artifact.args[i], values[i], infos[i]
        if not derived and spec.role != "input":
            derive_sizes(artifact.kernel_name, relations, symbols)
            derived = True
        where = f"{artifact.kernel_name}: argument {spec.name!r}"
        if spec.kind == "scalar":
            _check_scalar(where, spec, value)
            continue
        if info is None:
            raise ArgumentError(
                f"{where}: expected an array of {spec.dtype} with shape {list(spec.shape)}, "
                f"got {type(value).__name__}"
            )
        if not _typestr_matches(info.typestr, spec.dtype):
            raise ArgumentError(
                f"{where}: expected dtype {spec.dtype}, got {dtype_name_of(info.typestr)}"
            )
        if len(info.shape) != spec.rank:
            raise ArgumentError(
                f"{where}: expected rank {spec.rank} shape {list(spec.shape)}, "
                f"got shape {list(info.shape)}"
            )
        for axis, (want, got) in enumerate(zip(spec.shape, info.shape, strict=True)):
            # A symbol binds at its first occurrence; later ones must agree.
            ok = want == got if isinstance(want, int) else symbols.setdefault(want, got) == got
            if not ok:
                expected = [symbols.get(d, d) if isinstance(d, str) else d for d in spec.shape]
                raise ArgumentError(
                    f"{where}: expected shape {expected} (dim {axis}), got {list(info.shape)}"
                )
        if not info.contiguous:
            raise ArgumentError(f"{where}: expected a C-contiguous array, got strided")
    if not derived:
        derive_sizes(artifact.kernel_name, relations, symbols)
    _check_buffers(artifact.kernel_name, artifact.args, infos)
    return symbols


def _check_scalar(where: str, spec: ArgSpec, value: Any) -> None:
    is_int = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if spec.dtype.startswith("f") or spec.dtype == "bf16":
        if not (is_int or isinstance(value, float | np.floating)):
            raise ArgumentError(f"{where}: expected a {spec.dtype} scalar, got {value!r}")
    elif spec.dtype == "i1":
        if not isinstance(value, bool | np.bool_ | int):
            raise ArgumentError(f"{where}: expected a bool scalar, got {value!r}")
    elif not is_int:
        raise ArgumentError(f"{where}: expected an {spec.dtype} scalar, got {value!r}")
    elif spec.dtype in ("i8", "i16", "i32"):
        bits = int(spec.dtype[1:])
        if not -(2 ** (bits - 1)) <= int(value) < 2 ** (bits - 1):
            raise ArgumentError(f"{where}: {value} does not fit in {spec.dtype}")


def compute_grid(
    artifact: KernelArtifact, values: Sequence[Any], symbols: dict[str, int],
    infos: Sequence[TensorInfo | None] | None = None,
) -> tuple[int, int, int]:
    """Evaluate the artifact's grid rule for these (validated) arguments."""
    if infos is None:
        infos = describe_args(artifact, values)
    shapes: list[tuple[int, ...]] = []
    names: dict[str, int] = dict(artifact.launch.constants)
    names.update(symbols)
    for spec, value, info in zip(artifact.args, values, infos, strict=True):
        if spec.kind == "scalar":
            shapes.append(())
            names[spec.name] = int(value)
        else:
            assert info is not None
            shapes.append(info.shape)
    grid = tuple(eval_grid_expr(e, shapes, names) for e in artifact.launch.grid)
    if any(g <= 0 for g in grid):
        raise ArgumentError(f"{artifact.kernel_name}: grid {grid} is empty for these shapes")
    return grid  # type: ignore[return-value]


class ParamBlock:
    """A kernel's ``void**`` parameter block, in ABI order, as ctypes storage
    built once for fixed argument shapes; a launch rewrites only its pointer,
    scalar and tensor-map fields (:meth:`fill`), so a launch plan reuses one
    block call after call (the driver copies the parameters at launch).

    ``bare``: one pointer per memref. ``sized``: the pointer, then one i64
    per dimension of symbolic size (a kernel of dynamic sizes). ``descriptor``: the MLIR memref
    descriptor flattened (allocated ptr, aligned ptr, offset, sizes, strides).
    The artifact's TMA tensor maps follow, 128 bytes each by value (built by
    the device over their operands' pointers and shapes).
    """

    def __init__(self, artifact: KernelArtifact,
                 shapes: Sequence[tuple[int, ...] | None]) -> None:
        self.artifact = artifact
        self.storage: list[Any] = []
        self.pointers: list[tuple[Any, int]] = []  # (field, argument index)
        self.scalars: list[tuple[Any, int, str]] = []  # (field, argument index, dtype)
        # (field, operand index, dtype, shape, box, swizzle)
        self.tensor_maps: list[tuple[Any, int, str, tuple[int, ...], tuple[int, ...], int]] = []
        for i, spec in enumerate(artifact.args):
            if spec.kind == "scalar":
                field = _SCALAR_CTYPES[spec.dtype]()
                self.scalars.append((field, i, spec.dtype))
                self.storage.append(field)
                continue
            field = ctypes.c_void_p()
            self.pointers.append((field, i))
            self.storage.append(field)
            if artifact.call_conv == "sized":
                shape = shapes[i]
                assert shape is not None
                self.storage.extend(ctypes.c_int64(d) for d, want in
                                    zip(shape, spec.shape, strict=True) if isinstance(want, str))
            elif artifact.call_conv == "descriptor":
                shape = shapes[i]
                assert shape is not None
                aligned = ctypes.c_void_p()
                self.pointers.append((aligned, i))
                self.storage.append(aligned)
                self.storage.append(ctypes.c_int64(0))
                self.storage.extend(ctypes.c_int64(d) for d in shape)
                strides, stride = [], 1
                for d in reversed(shape):
                    strides.append(stride)
                    stride *= d
                self.storage.extend(ctypes.c_int64(s) for s in reversed(strides))
        for tmap in artifact.tensor_maps:
            spec = artifact.args[tmap.operand]
            shape = spec.shape if all(isinstance(d, int) for d in spec.shape) else \
                shapes[tmap.operand]
            assert shape is not None
            field = (ctypes.c_uint8 * 128)()
            self.tensor_maps.append((field, tmap.operand, spec.dtype, tuple(shape),  # type: ignore[arg-type]
                                     tuple(tmap.box), tmap.swizzle))
            self.storage.append(field)
        self.array = (ctypes.c_void_p * max(len(self.storage), 1))(
            *[ctypes.addressof(s) for s in self.storage])
        self.address = ctypes.addressof(self.array)

    def fill(self, pointers: Sequence[int | None], values: Sequence[Any],
             device: Device | None = None) -> ParamBlock:
        """Write this launch's pointers (array arguments), scalar values and
        tensor maps (built by ``device``); returns self."""
        for field, i in self.pointers:
            field.value = pointers[i]
        for field, i, dtype in self.scalars:
            value = values[i]
            field.value = _half_bits(dtype, value) if dtype in ("f16", "bf16") else value
        if self.tensor_maps and device is None:
            raise ArgumentError(f"{self.artifact.kernel_name}: TMA tensor maps need the device")
        for field, i, dtype, shape, box, swizzle in self.tensor_maps:
            raw = device.tensor_map(pointers[i], dtype, shape, box, swizzle)  # type: ignore[union-attr,arg-type]
            ctypes.memmove(field, raw, 128)
        return self

    def __len__(self) -> int:
        return len(self.storage)


def arg_shapes(artifact: KernelArtifact,
               infos: Sequence[TensorInfo | None] | None) -> list[tuple[int, ...] | None]:
    """Each argument's shape: the artifact's when static, else the value's."""
    shapes: list[tuple[int, ...] | None] = []
    for i, spec in enumerate(artifact.args):
        if spec.kind == "scalar":
            shapes.append(None)
        elif all(isinstance(d, int) for d in spec.shape):
            shapes.append(tuple(spec.shape))  # type: ignore[arg-type]
        else:
            info = infos[i] if infos is not None else None
            shapes.append(info.shape if info is not None else None)
    return shapes


def pack_args(
    artifact: KernelArtifact, pointers: Sequence[int | None], values: Sequence[Any],
    infos: Sequence[TensorInfo | None] | None = None, device: Device | None = None,
) -> ParamBlock:
    """Pack device pointers (array args) and scalar values in ABI order (a
    :class:`ParamBlock` for one launch)."""
    if infos is None and any(isinstance(d, str) for spec in artifact.args for d in spec.shape):
        infos = describe_args(artifact, values)
    return ParamBlock(artifact, arg_shapes(artifact, infos)).fill(pointers, values, device)


def _half_bits(dtype: str, value: Any) -> int:
    """The f16 or bf16 bits of a scalar, rounded to nearest even (as numpy
    and torch round)."""
    if dtype == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    if bits & 0x7FFFFFFF > 0x7F800000:  # NaN: keep it a (quiet) NaN
        return (bits >> 16) | 0x40
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def _allocate_like(spec: ArgSpec, shape: tuple[int, ...], like: Any) -> Any:
    module = type(like).__module__.split(".")[0] if like is not None else "numpy"
    if module == "torch":
        import torch

        dtype = getattr(torch, TORCH_DTYPES[spec.dtype])
        return torch.empty(shape, dtype=dtype, device=like.device)
    if module == "cupy":
        import cupy

        return cupy.empty(shape, dtype=np.dtype(DTYPES[spec.dtype][0]))
    if (spec.dtype == "bf16" and isinstance(like, np.ndarray)
            and like.dtype.name == "bfloat16"):
        return np.empty(shape, dtype=like.dtype)  # ml_dtypes' bfloat16 in, out
    return np.empty(shape, dtype=np.dtype(DTYPES[spec.dtype][0]))


def _current_stream(values: Sequence[Any]) -> int:
    """The framework's current stream when device tensors come from one."""
    for value in values:
        module = type(value).__module__.split(".")[0]
        if module == "torch" and getattr(value, "is_cuda", False):
            import torch

            return int(torch.cuda.current_stream(value.device).cuda_stream)
        if module == "cupy":
            import cupy

            return int(cupy.cuda.get_current_stream().ptr)
    return 0


class CompiledKernel:
    """A callable kernel: ``kernel(*inputs, out=None, stream=None)``.

    Pass every argument positionally, or only the non-output ones and let
    outputs be allocated (or given through ``out=``). Returns the outputs
    (one value, or a tuple when there are several).
    """

    def __init__(self, artifact: KernelArtifact, device: Device | None = None) -> None:
        self.artifact = artifact
        self._device = device  # given: every call runs there (tests' fakes)
        self._devices: dict[int, Device] = {}
        self._functions: dict[int, Any] = {}
        self._fast: Any = None

    @property
    def device(self) -> Device:
        return self.device_for(0)

    def device_for(self, index: int | None) -> Device:
        """The backend of GPU ``index`` (the arrays' GPU; None: host arrays
        only, GPU 0)."""
        if self._device is not None:
            return self._device
        index = index or 0
        device = self._devices.get(index)
        if device is None:
            device = get_device(self.artifact.vendor, self.artifact.target, index)
            self._devices[index] = device
        return device

    def _load(self, index: int | None = 0) -> Any:
        """The kernel's function on GPU ``index`` (its module loaded there once)."""
        index = index or 0
        function = self._functions.get(index)
        if function is None:
            art = self.artifact
            if art.vendor == "amd" and art.binary is None:
                raise ArgumentError(
                    f"artifact for {art.kernel_name} ({art.target}) has no hsaco code object: "
                    "recompile with ld.lld available (ROCm's /opt/rocm/llvm/bin/ld.lld or "
                    "an lld 19-22: Debian 12's lld-19 package, Ubuntu's lld-20 or newer; "
                    "or set TCC_LD_LLD)"
                )
            device = self.device_for(index)
            activate(device)
            module = device.load_kernel(art.asm, art.binary)
            function = device.get_function(module, art.kernel_name)
            if art.launch.shared_mem_bytes > _STATIC_SHARED_LIMIT:
                device.allow_dynamic_shared(function, art.launch.shared_mem_bytes)
            self._functions[index] = function
        return function

    def bind(self, args: Sequence[Any], out: Any = None) -> list[Any]:
        """Full argument list in kernel order (outputs allocated if needed)."""
        workspace = [a.name for a in self.artifact.args if a.role == "workspace"]
        if workspace:  # (a program's launches pass its host plan's buffers)
            raise ArgumentError(
                f"{self.artifact.kernel_name}: arguments {', '.join(workspace)} are the "
                "kernel's workspace (split-K partials and counters, which must start at "
                "zero); launch it through its program (tcc.compile), whose host plan "
                "provides them")
        return bind_arguments(self.artifact, args, out)

    def __call__(self, *args: Any, out: Any = None, stream: int | None = None,
                 **inputs: Any) -> Any:
        if inputs:
            args = merge_keywords(self.artifact, args, inputs)
        fast = self._fast
        if fast is None:
            fast = self._fast_launcher()
        return fast.dispatch(args, out, stream)

    def _fast_launcher(self) -> Any:
        if self._fast is None:
            from tcc.runtime.fastpath import FastLauncher

            self._fast = FastLauncher(self._plan, self._general)
        return self._fast

    def capture(self, *args: Any, out: Any = None) -> Any:
        """Record this kernel's launch on these arguments (CUDA torch tensors)
        as a CUDA graph (a :class:`~tcc.runtime.fastpath.CapturedProgram`)."""
        from tcc.runtime.fastpath import CapturedProgram

        return CapturedProgram(self._fast_launcher().plan(args, out), args, out)

    def _plan(self, args: Sequence[Any], out: Any) -> Any:
        """The launch plan of a call (fast path), after validating it fully."""
        from tcc.runtime.fastpath import LaunchPlan

        art = self.artifact
        full = self.bind(args, out)
        infos = describe_args(art, full)
        bind_shapes(art, full, infos)
        shapes = arg_shapes(art, infos)
        device_index = device_of(art.kernel_name, art.args, infos)
        if device_index is None:
            return None
        results = [(i, shapes[i]) for i, s in enumerate(art.args) if s.role != "input"]
        return LaunchPlan(art.kernel_name, self.device_for(device_index), art.args, shapes,
                          [(art, self._load(device_index), range(len(art.args)), shapes)], (),
                          results, device_index)  # type: ignore[arg-type]

    def _general(self, args: Sequence[Any], out: Any = None, stream: int | None = None) -> Any:
        """Every kind of argument (numpy arrays copied in and out), validated
        on each call."""
        art = self.artifact
        full = self.bind(args, out)
        infos = describe_args(art, full)  # once per launch: it is the costly part
        symbols = bind_shapes(art, full, infos)  # validates everything before any launch
        index = device_of(art.kernel_name, art.args, infos)
        grid = compute_grid(art, full, symbols, infos)
        function = self._load(index)
        device = self.device_for(index)
        activate(device)
        stream = _current_stream(full) if stream is None else stream

        pointers: list[int | None] = []
        staged: list[tuple[int, TensorInfo, ArgSpec]] = []  # host arrays copied in/out
        try:
            for spec, info in zip(art.args, infos, strict=True):
                if info is None:
                    pointers.append(None)
                elif info.on_device:
                    pointers.append(info.ptr)
                else:
                    nbytes = int(info.obj.nbytes)
                    dptr = device.alloc(nbytes)
                    staged.append((dptr, info, spec))
                    if spec.role != "output":
                        device.copy_htod(dptr, info.ptr, nbytes)
                    pointers.append(dptr)
            packed = pack_args(art, pointers, full, infos, device)
            device.launch(
                function, grid, art.launch.block, art.launch.shared_mem_bytes, stream,
                packed.address,
            )
            if staged:
                device.synchronize(stream)
                for dptr, info, spec in staged:
                    if spec.role != "input":
                        device.copy_dtoh(info.ptr, dptr, int(info.obj.nbytes))
        finally:
            for dptr, _, _ in staged:
                device.free(dptr)
        results = [full[i] for i, s in enumerate(art.args) if s.role != "input"]
        return results[0] if len(results) == 1 else tuple(results)


def bind_shapes_partial(
    artifact: KernelArtifact, values: Sequence[Any],
    infos: Sequence[TensorInfo | None] | None = None,
) -> dict[str, int]:
    """Symbol bindings from the array arguments that are present (no validation)."""
    if infos is None:
        infos = describe_args(artifact, values)
    symbols: dict[str, int] = {}
    for spec, info in zip(artifact.args, infos, strict=True):
        if info is not None and len(info.shape) == spec.rank:
            for want, got in zip(spec.shape, info.shape, strict=True):
                if isinstance(want, str):
                    symbols.setdefault(want, got)
    return symbols


def merge_keywords(artifact: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Positional ``args`` followed by the inputs given by name in
    ``kwargs`` (the program's argument names: ``x``, ``b``), in the
    artifact's input order; an ArgumentError for an unknown name, a name
    given twice, or an input left out."""
    inputs = [s.name for s in artifact.args if s.role != "output"]
    if len(args) > len(inputs):
        raise ArgumentError(f"{artifact.kernel_name}: {len(args)} positional arguments and "
                            f"keywords {sorted(kwargs)}: give the outputs with out=")
    for name in kwargs:
        if name not in inputs:
            raise ArgumentError(f"{artifact.kernel_name}: no input named {name!r} "
                                f"(inputs: {', '.join(inputs)})")
        if inputs.index(name) < len(args):
            raise ArgumentError(f"{artifact.kernel_name}: input {name!r} given both "
                                "positionally and by name")
    missing = [n for n in inputs[len(args):] if n not in kwargs]
    if missing:
        raise ArgumentError(f"{artifact.kernel_name}: missing inputs {', '.join(missing)}")
    return (*args, *(kwargs[n] for n in inputs[len(args):]))


def bind_arguments(artifact: Any, args: Sequence[Any], out: Any = None) -> list[Any]:
    """``args`` (every argument, or the inputs only) completed to the full
    argument list of ``artifact`` (a kernel or program artifact: its
    ``args`` and ``kernel_name``); outputs taken from ``out=`` or allocated
    like the first array argument (numpy when there is none)."""
    specs = artifact.args
    outputs = [i for i, s in enumerate(specs) if s.role == "output"]
    if len(args) == len(specs):
        if out is not None:
            raise ArgumentError("outputs given both positionally and through out=")
        return list(args)
    if len(args) != len(specs) - len(outputs):
        raise ArgumentError(
            f"{artifact.kernel_name}: expected {len(specs) - len(outputs)} inputs "
            f"({', '.join(s.name for s in specs if s.role != 'output')}) or all "
            f"{len(specs)} arguments, got {len(args)}"
        )
    given = list(out) if isinstance(out, tuple | list) else [out] * (out is not None)
    if given and len(given) != len(outputs):
        raise ArgumentError(f"out=: expected {len(outputs)} outputs, got {len(given)}")
    it = iter(args)
    full: list[Any] = [None if i in outputs else next(it) for i in range(len(specs))]
    if given:
        for n, i in enumerate(outputs):
            full[i] = given[n]
        return full
    infos = describe_args(artifact, full)
    symbols = bind_shapes_partial(artifact, full, infos)
    like = next((v for v, info in zip(full, infos, strict=True) if info is not None), None)
    for i in outputs:
        spec = specs[i]
        shape = []
        for d in spec.shape:
            if isinstance(d, str) and d not in symbols:
                raise ArgumentError(
                    f"{artifact.kernel_name}: cannot allocate output {spec.name!r}: "
                    f"dimension {d!r} is not determined by the inputs; pass out="
                )
            shape.append(symbols[d] if isinstance(d, str) else d)
        full[i] = _allocate_like(spec, tuple(shape), like)
    return full
