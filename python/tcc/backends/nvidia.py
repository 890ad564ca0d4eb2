"""NVIDIA backend: gpu dialect -> NVVM -> PTX, all inside MLIR's own LLVM.

``gpu-module-to-binary{format=isa}`` runs LLVM's NVPTX backend in process and
links MLIR's embedded libdevice, so ``math`` ops that convert to ``__nv_*``
calls are resolved (and inlined) before PTX is printed. ptxas (the
``nvidia-cuda-nvcc`` wheel, tcc.backends.ptxas) then assembles the PTX into a
cubin for the artifact; the runtime loads the cubin on a GPU of the target's
architecture and JIT-compiles the PTX elsewhere (or where there is no cubin:
``TCC_CUBIN=0``, or no ptxas installed).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from tcc.backends.base import CompileError, Target, check_unresolved
from tcc.backends.ptxas import assemble_cubin, cubin_available
from tcc.targets import archs_of


class NvidiaTarget(Target):
    vendor = "nvidia"
    archs = archs_of("nvidia")
    cubin = True  # assemble a cubin when ptxas is installed (Schedule.cubin)

    def gpu_target_attr(self) -> str:
        # The lowest PTX ISA version that knows the architecture (the
        # table's ISA features).
        # wgmma and setmaxnreg exist in sm_90a PTX only (any H100/H200 runs
        # it); the arch-specific target is what a wgmma target compiles for.
        chip = self.arch
        if "wgmma_m64nNk16" in self.info.mma and not chip.endswith("a"):
            chip += "a"
        return (f'#nvvm.target<O = 3, chip = "{chip}", '
                f'features = "{self.info.isa_features}">')

    def _vendor_pipeline(self, bare_ptr: bool) -> Sequence[str]:
        # nvgpu (ldmatrix, mma.sync from tensor-core tiles) first: it lowers
        # to nvvm intrinsics on vectors that convert-gpu-to-nvvm then types.
        return (
            # exp2 the kernel builders marked fastmath<afn> (summed or
            # rounded to 16 bits): ex2.approx.ftz, before libdevice sees it.
            "convert-approx-math-to-nvvm",
            "convert-nvgpu-to-nvvm",
            f"convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv={int(bare_ptr)}}}",
            # NVVM ops without an LLVM intrinsic (wgmma.mma_async,
            # mbarrier.try_wait.parity, ...) become inline PTX.
            "convert-nvvm-to-llvm",
        )

    def _post_lowering(self, module: ir.Module) -> None:
        # Dynamic shared memory starts 1024-byte aligned: the offsets
        # convert-tile-to-gpu gives TMA / wgmma buffers (128-byte swizzle,
        # whose pattern repeats every 1024 bytes) are relative to it.
        # TMA tensor maps (the trailing parameters tcc.tensor_maps counts)
        # are 128-byte CUtensorMaps by value: byval grid constants, whose
        # param-space address cp.async.bulk.tensor takes.
        i64 = ir.IntegerType.get_signless(64)
        tensor_map = ir.DictAttr.get({
            "llvm.byval": ir.TypeAttr.get(ir.Type.parse("!llvm.array<128 x i8>")),
            "llvm.align": ir.IntegerAttr.get(i64, 64),
            "nvvm.grid_constant": ir.UnitAttr.get(),
        })
        for gm in module.body.operations:
            if gm.operation.name != "gpu.module":
                continue
            for op in gm.regions[0].blocks[0].operations:
                name = op.operation.name
                if (name == "llvm.mlir.global"
                        and ir.StringAttr(op.attributes["sym_name"]).value
                        .startswith("__dynamic_shmem")):
                    op.attributes["alignment"] = ir.IntegerAttr.get(i64, 1024)
                if name == "llvm.func" and "tcc.producer_warps" in op.attributes:
                    # setmaxnreg needs a register cap at entry: one block per
                    # SM (__launch_bounds__(threads, 1)).
                    op.attributes["nvvm.minctasm"] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(32), 1)
                if name == "llvm.func" and "tcc.cluster" in op.attributes:
                    # A thread-block cluster fixed at compile time
                    # (.reqnctapercluster): a plain cuLaunchKernel launches
                    # the grid in clusters of that shape.
                    op.attributes["nvvm.cluster_dim"] = op.attributes["tcc.cluster"]
                if name == "llvm.func" and "tcc.tensor_maps" in op.attributes:
                    maps = len(ir.ArrayAttr(op.attributes["tcc.tensor_maps"]))
                    count = len(op.regions[0].blocks[0].arguments)
                    old = (list(ir.ArrayAttr(op.attributes["arg_attrs"]))
                           if "arg_attrs" in op.attributes else
                           [ir.DictAttr.get({})] * count)
                    old[count - maps:] = [tensor_map] * maps
                    op.attributes["arg_attrs"] = ir.ArrayAttr.get(old)

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
        if not (self.cubin and cubin_available()):
            return ptx[0], None
        try:
            return ptx[0], assemble_cubin(ptx[0])
        except RuntimeError as exc:
            raise CompileError(f"cubin assembly for {self.arch} failed: {exc}") from exc
