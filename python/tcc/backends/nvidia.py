"""NVIDIA backend: gpu dialect -> NVVM -> PTX, all inside MLIR's own LLVM.

``gpu-module-to-binary{format=isa}`` runs LLVM's NVPTX backend in process and
links MLIR's embedded libdevice, so ``math`` ops that convert to ``__nv_*``
calls are resolved (and inlined) before PTX is printed. No cubin is produced:
the CUDA driver JIT-compiles PTX (``cuModuleLoadData``), and format=bin would
need ptxas on this machine.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from tcc.backends.base import CompileError, Target, check_unresolved
from tcc.targets import archs_of


class NvidiaTarget(Target):
    vendor = "nvidia"
    archs = archs_of("nvidia")

    def gpu_target_attr(self) -> str:
        # The lowest PTX ISA version that knows the architecture (the
        # table's ISA features).
        return (f'#nvvm.target<O = 3, chip = "{self.arch}", '
                f'features = "{self.info.isa_features}">')

    def _vendor_pipeline(self, bare_ptr: bool) -> Sequence[str]:
        # nvgpu (ldmatrix, mma.sync from tensor-core tiles) first: it lowers
        # to nvvm intrinsics on vectors that convert-gpu-to-nvvm then types.
        return (
            "convert-nvgpu-to-nvvm",
            f"convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv={int(bare_ptr)}}}",
        )

    def emit(self, module: ir.Module) -> tuple[str, bytes | None]:
        with module.context:
            try:
                PassManager.parse("builtin.module(gpu-module-to-binary{format=isa})").run(
                    module.operation)
            except ir.MLIRError as exc:
                raise CompileError(f"PTX emission for {self.arch} failed:\n{exc}") from exc
            ptx = []
            for op in module.body.operations:
                if op.operation.name == "gpu.binary":
                    for obj in op.operation.attributes["objects"]:
                        ptx.append(gpu.ObjectAttr(obj).object.decode())
        if len(ptx) != 1:
            raise CompileError(f"expected one gpu.module, got {len(ptx)} PTX objects")
        # An unresolved callee appears as an .extern .func declaration in PTX.
        check_unresolved(ptx[0], f"PTX for {self.arch}", r"\.extern\s+\.func[^;]*?(__nv_\w+)")
        return ptx[0], None
