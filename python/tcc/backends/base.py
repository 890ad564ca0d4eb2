"""The target interface shared by tcc's GPU backends.

A :class:`Target` takes a builtin module holding ``gpu.module``s (kernels as
``gpu.func ... kernel``) down to NVVM/ROCDL LLVM dialect
(:meth:`Target.lower_to_llvm`) and then to assembly and, where the toolchain
allows, a loadable binary (:meth:`Target.emit`). Vendor specifics live in
nvidia.py and amd.py; everything here is shared.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from mlir import ir
from mlir.dialects import arith
from mlir.passmanager import PassManager

from tcc.runtime.artifact import ArgSpec, CallConv, KernelArtifact, LaunchSpec, TensorMapSpec
from tcc.targets import TargetInfo, get_target_info

# Device-library functions that no tcc artifact may call: nothing links them
# at load time (no ROCm device libs / libdevice next to the driver).
UNRESOLVED_PREFIXES = ("__ocml_", "__ockl_", "__nv_")

# Shared pre-lowering on each gpu.module: structured control flow, affine
# index math and vector transfers to forms the vendor conversions accept.
_COMMON_PREP = (
    "lower-affine",
    "convert-vector-to-scf",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "lower-affine",
)


class CompileError(RuntimeError):
    """The backend could not produce a usable artifact."""


@dataclass(frozen=True)
class KernelSignature:
    """A kernel's ABI as read from its gpu.func before lowering."""

    name: str
    args: tuple[ArgSpec, ...]
    block: tuple[int, int, int] | None
    bare_ptr_ok: bool
    dynamic_shared_bytes: int = 0  # tcc.dynamic_shared_bytes (buffers over 48 KiB)
    tensor_maps: tuple[TensorMapSpec, ...] = ()  # trailing TMA tensor-map parameters


class Target(ABC):
    """One GPU architecture. Subclasses set ``vendor`` and ``archs`` (their
    vendor's rows of KnownTargets.def); the arch's facts come from that table."""

    vendor: ClassVar[Literal["nvidia", "amd"]]
    archs: ClassVar[tuple[str, ...]]

    def __init__(self, arch: str) -> None:
        if arch not in self.archs:
            raise ValueError(f"{type(self).__name__} does not support {arch!r}")
        self.arch = arch
        self.info: TargetInfo = get_target_info(arch)

    @property
    def warp_size(self) -> int:
        """Threads per warp (32 NVIDIA, 64 AMD CDNA)."""
        return self.info.warp_size

    @property
    def max_shared_bytes(self) -> int:
        """Workgroup memory one kernel may use on this architecture."""
        return self.info.max_shared_bytes

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.arch!r})"

    # -- vendor hooks -----------------------------------------------------
    @abstractmethod
    def gpu_target_attr(self) -> str:
        """The ``#nvvm.target``/``#rocdl.target`` attribute text for gpu.module."""

    @abstractmethod
    def _vendor_pipeline(self, bare_ptr: bool) -> Sequence[str]:
        """Passes nested on gpu.module that produce NVVM/ROCDL LLVM dialect."""

    def _post_lowering(self, module: ir.Module) -> None:  # noqa: B027 (optional hook)
        """Vendor fix-ups on the lowered LLVM dialect (default: none)."""

    @abstractmethod
    def emit(self, module: ir.Module) -> tuple[str, bytes | None]:
        """Lowered module -> (assembly text, loadable binary or None)."""

    # -- shared lowering ---------------------------------------------------
    def lower_to_llvm(self, module: ir.Module, *, bare_ptr: bool | None = None) -> CallConv:
        """Lower every gpu.module in ``module`` (in place) to LLVM dialect.

        Returns the memref calling convention used: ``bare`` (one pointer per
        memref; needs static shapes and identity layouts) when every kernel
        allows it, else ``descriptor``.
        """
        with module.context:
            gpu_modules = _gpu_modules(module)
            if not gpu_modules:
                raise CompileError("no gpu.module in the input module")
            if bare_ptr is None:
                bare_ptr = all(sig.bare_ptr_ok for sig in kernel_signatures(module))
            target = ir.Attribute.parse(f"[{self.gpu_target_attr()}]")
            for gm in gpu_modules:
                gm.attributes["targets"] = target
            fold_known_block_dims(module)
            passes = ",".join([*_COMMON_PREP, *self._vendor_pipeline(bare_ptr), "canonicalize",
                               "cse"])
            pipeline = f"builtin.module(gpu.module({passes}),reconcile-unrealized-casts)"
            try:
                PassManager.parse(pipeline).run(module.operation)
            except ir.MLIRError as exc:
                raise CompileError(f"lowering to {self.arch} failed:\n{exc}") from exc
            self._post_lowering(module)
        return "bare" if bare_ptr else "descriptor"

    def compile(
        self,
        source: str | ir.Module,
        *,
        kernel: str | None = None,
        grid: Sequence[int | str] = (1, 1, 1),
        block: Sequence[int] | None = None,
        outputs: Sequence[str | int] = (),
        arg_names: Sequence[str] | None = None,
        arg_shapes: Mapping[str, Sequence[int | str]] | None = None,
        constants: Mapping[str, int] | None = None,
        shared_mem_bytes: int = 0,
        compiler_version: str = "",
        stages: dict[str, str] | None = None,
    ) -> KernelArtifact:
        """gpu-dialect module -> :class:`KernelArtifact` for one kernel.

        ``outputs`` names (or indexes) the memref arguments the kernel writes;
        ``arg_shapes`` gives symbolic names to dynamic dimensions;
        ``block`` defaults to the kernel's ``known_block_size`` and
        ``shared_mem_bytes`` to its ``tcc.dynamic_shared_bytes``; ``stages``,
        when given, receives the lowered module's text under ``"llvm"``.
        """
        ctx = ir.Context() if isinstance(source, str) else source.context
        with ctx, ir.Location.unknown():
            module = ir.Module.parse(source) if isinstance(source, str) else source
            sigs = {s.name: s for s in kernel_signatures(module)}
            if not sigs:
                raise CompileError("no gpu.func kernel in the input module")
            if kernel is None:
                if len(sigs) != 1:
                    raise CompileError(f"several kernels ({', '.join(sigs)}): pass kernel=")
                kernel = next(iter(sigs))
            if kernel not in sigs:
                raise CompileError(f"no kernel {kernel!r}; kernels: {', '.join(sigs)}")
            sig = sigs[kernel]
            args = _finalize_args(sig.args, outputs, arg_names, arg_shapes)
            launch_block = tuple(block) if block is not None else sig.block
            if launch_block is None:
                raise CompileError(f"kernel {kernel}: no known_block_size attribute; pass block=")
            launch_block = (tuple(launch_block) + (1, 1))[:3]
            call_conv = self.lower_to_llvm(module)
            if stages is not None:
                stages["llvm"] = str(module)
            asm, binary = self.emit(module)
        return KernelArtifact(
            target=self.arch,
            vendor=self.vendor,
            kernel_name=kernel,
            asm=asm,
            binary=binary,
            launch=LaunchSpec(
                block=launch_block,  # type: ignore[arg-type]
                grid=(tuple(grid) + (1, 1))[:3],  # type: ignore[arg-type]
                shared_mem_bytes=shared_mem_bytes or sig.dynamic_shared_bytes,
                constants=dict(constants or {}),
            ),
            args=args,
            call_conv=call_conv,
            compiler_version=compiler_version,
            tensor_maps=sig.tensor_maps,
        )


# -- helpers shared by both vendors ------------------------------------------
def _gpu_modules(module: ir.Module) -> list[ir.Operation]:
    return [op.operation for op in module.body.operations if op.operation.name == "gpu.module"]


def _kernels(module: ir.Module) -> list[ir.Operation]:
    found = []
    for gm in _gpu_modules(module):
        for op in gm.regions[0].blocks[0].operations:
            if op.operation.name == "gpu.func" and "gpu.kernel" in op.operation.attributes:
                found.append(op.operation)
    return found


def _dtype(t: ir.Type) -> str:
    return str(t)  # f32, f16, bf16, i32, index, ...: already tcc's dtype names


def kernel_signatures(module: ir.Module) -> list[KernelSignature]:
    """Read each kernel's argument layout and known block size."""
    sigs = []
    for fn in _kernels(module):
        fty = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        args, bare_ok = [], True
        maps = tensor_maps_of(fn)
        inputs = list(fty.inputs)[: len(fty.inputs) - len(maps)]
        for i, t in enumerate(inputs):
            if isinstance(t, ir.MemRefType):
                mt = ir.MemRefType(t)
                shape = tuple(
                    f"arg{i}_d{d}" if mt.is_dynamic_dim(d) else mt.shape[d]
                    for d in range(mt.rank)
                )
                strides, offset = mt.get_strides_and_offset()
                static_layout = not any(
                    mt.is_dynamic_stride_or_offset(v) for v in (*strides, offset)
                )
                bare_ok &= mt.has_static_shape and static_layout
                args.append(ArgSpec(f"arg{i}", "pointer", _dtype(mt.element_type), shape, "input"))
            else:
                args.append(ArgSpec(f"arg{i}", "scalar", _dtype(t)))
        block = None
        if "known_block_size" in fn.attributes:
            block = tuple(int(v) for v in ir.DenseI32ArrayAttr(fn.attributes["known_block_size"]))
        name = ir.StringAttr(fn.attributes["sym_name"]).value
        dynamic = 0
        if "tcc.dynamic_shared_bytes" in fn.attributes:
            dynamic = ir.IntegerAttr(fn.attributes["tcc.dynamic_shared_bytes"]).value
        sigs.append(KernelSignature(name, tuple(args), block, bare_ok, dynamic,  # type: ignore[arg-type]
                                    maps))
    return sigs


def tensor_maps_of(fn: ir.Operation) -> tuple[TensorMapSpec, ...]:
    """The TMA tensor maps a kernel takes after its arguments (its
    ``tcc.tensor_maps`` attribute, written by convert-linalg-to-tile)."""
    if "tcc.tensor_maps" not in fn.attributes:
        return ()
    specs = []
    for entry in ir.ArrayAttr(fn.attributes["tcc.tensor_maps"]):
        d = ir.DictAttr(entry)
        specs.append(TensorMapSpec(
            ir.IntegerAttr(d["operand"]).value,
            tuple(int(v) for v in ir.DenseI64ArrayAttr(d["box"])),
            ir.IntegerAttr(d["swizzle"]).value,
        ))
    return tuple(specs)


def _finalize_args(
    args: Sequence[ArgSpec],
    outputs: Sequence[str | int],
    names: Sequence[str] | None,
    shapes: Mapping[str, Sequence[int | str]] | None,
) -> tuple[ArgSpec, ...]:
    if names is not None and len(names) != len(args):
        raise CompileError(f"arg_names has {len(names)} names for {len(args)} arguments")
    renamed = [
        ArgSpec(names[i] if names else a.name, a.kind, a.dtype, a.shape, a.role)
        for i, a in enumerate(args)
    ]
    out_idx = set()
    for o in outputs:
        idx = o if isinstance(o, int) else next(
            (i for i, a in enumerate(renamed) if a.name == o), None)
        if idx is None or renamed[idx].kind != "pointer":
            raise CompileError(f"output {o!r} is not a memref argument of the kernel")
        out_idx.add(idx)
    final = []
    for i, a in enumerate(renamed):
        shape = a.shape
        if shapes and a.name in shapes:
            shape = tuple(shapes[a.name])
            bad = [w for w, s in zip(a.shape, shape, strict=False)
                   if isinstance(w, int) and w != s]
            if len(shape) != len(a.shape) or bad:
                raise CompileError(f"arg_shapes[{a.name!r}]={list(shape)} contradicts "
                                   f"the kernel's memref shape {list(a.shape)}")
        final.append(ArgSpec(a.name, a.kind, a.dtype, shape, "output" if i in out_idx else
                             a.role))
    return tuple(final)


_DIMS = {"x": 0, "y": 1, "z": 2}


def fold_known_block_dims(module: ir.Module) -> None:
    """Replace ``gpu.block_dim`` by constants in kernels with known_block_size.

    Left alone, ROCDL lowers it to a call to ``__ockl_get_local_size`` (a ROCm
    device-library function), and constants also fold better on both vendors.
    """
    for fn in _kernels(module):
        if "known_block_size" not in fn.attributes:
            continue
        sizes = list(ir.DenseI32ArrayAttr(fn.attributes["known_block_size"]))
        found: list[ir.Operation] = []

        def visit(op: ir.Operation, found: list[ir.Operation] = found) -> ir.WalkResult:
            if op.name == "gpu.block_dim":
                found.append(op)
            return ir.WalkResult.ADVANCE

        fn.walk(visit)
        for op in found:
            dim = _DIMS[str(op.attributes["dimension"]).rstrip(">").split()[-1]]  # "#gpu<dim x>"
            with ir.InsertionPoint(op), op.location:
                const = arith.ConstantOp(ir.IndexType.get(), sizes[dim])
            op.results[0].replace_all_uses_with(const.result)
            op.erase()


def check_unresolved(text: str, what: str, pattern: str) -> None:
    """Raise CompileError if ``text`` still references device-library calls."""
    names = sorted(set(re.findall(pattern, text)))
    if names:
        raise CompileError(
            f"{what} still calls device-library functions {', '.join(names)}, which tcc "
            "does not link: expand the math first (math-expand-ops / polynomial "
            "approximation) or avoid the op (e.g. gpu.block_dim without known_block_size)"
        )
