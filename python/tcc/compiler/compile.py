"""``tcc.compile``: a tensor program to a launchable kernel for one GPU target.

Stages (each a named pipeline in tcc-opt, so ``tcc-opt`` and Python agree):

==========  ===========================================================
``source``  the program as given: tcc dialect or linalg on tensors
``linalg``  ``tcc-tensor-to-linalg``: linalg on tensors, fused
``tile``    ``tcc-linalg-to-tile``: one scheduled tile-dialect kernel
``gpu``     ``tcc-tile-to-gpu``: gpu.module / gpu.func, per-thread code
``llvm``    the target's NVVM or ROCDL LLVM dialect
==========  ===========================================================

then PTX (NVIDIA, in process) or AMDGCN + hsaco (AMD's LLVM). The artifact
is cached (key: source text, target, schedule, compiler version; the shapes
and dtypes are in the source, which must be static by then). Builder
programs and modules are keyed by their MLIR-printed (canonical) text; MLIR
text is keyed as given, so that a cache hit for it runs no MLIR at all.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tcc.compiler.cache import KernelCache, cache_key, compiler_fingerprint, default_cache
from tcc.runtime.artifact import ArgSpec, KernelArtifact, LaunchSpec
from tcc.runtime.program import (
    HostValue,
    Launch,
    ProgramArtifact,
    plan_buffers,
    single_kernel_program,
)
from tcc.targets import KNOWN_TARGETS

if TYPE_CHECKING:
    from mlir import ir

STAGES = ("source", "linalg", "tile", "gpu", "llvm")

# Targets tcc compiles for: tcc.targets reads KnownTargets.def without MLIR,
# so a cache hit does not import the backends.
_WARP_SIZE = {arch: info.warp_size for arch, info in KNOWN_TARGETS.items()}


class CompilationError(RuntimeError):
    """A program tcc cannot compile; the message names the stage and the cause."""


_PY_LOCATION = re.compile(r'^loc\((?:fused\[|callsite\()?"([^"]+\.py)":(\d+):(\d+)')


_OP_DUMP = re.compile(r"^(\s*)note: .*see current operation:\s*$")


def _without_op_dumps(message: str) -> str:
    """An MLIR error without the "see current operation" notes (the failing
    op in generic form, often the whole module) unless TCC_VERBOSE_ERRORS=1."""
    if os.environ.get("TCC_VERBOSE_ERRORS", "") not in ("", "0"):
        return message
    out: list[str] = []
    dump_indent: int | None = None
    dropped = False
    for line in message.splitlines():
        indent = len(line) - len(line.lstrip())
        if dump_indent is not None and line.strip() and indent > dump_indent:
            continue
        dump_indent = None
        found = _OP_DUMP.match(line)
        if found:
            dump_indent, dropped = len(found.group(1)), True
            continue
        out.append(line)
    if dropped:
        out.append("(the failing op's IR: set TCC_VERBOSE_ERRORS=1)")
    return "\n".join(out)


def _warn_remark(stage: str, note: str) -> None:
    """A pass's remark as a CompilerRemark warning, attributed to the user's
    Python line when the op came from a frontend program (its location), else
    to the caller of tcc.compile."""
    location, _, message = note.partition(": ")
    found = _PY_LOCATION.match(location)
    if found:
        warnings.warn_explicit(f"stage {stage!r}: {message}", CompilerRemark,
                               found.group(1), int(found.group(2)))
    else:
        warnings.warn(f"stage {stage!r}: {note}", CompilerRemark, stacklevel=4)


class CompilerRemark(UserWarning):
    """A remark or warning from a pass (e.g. "no tensor-core MMA for f32 x f32:
    FMA fallback"), re-issued through :mod:`warnings` with the op's location."""



@dataclass(frozen=True)
class Schedule:
    """Knobs of the schedule (part of the cache key)."""

    num_warps: int = 4
    elements_per_program: int = 2048
    swizzle: bool = True  # XOR-swizzle shared-memory tiles (off only to measure)
    num_stages: int = 3  # slots of pipelined shared operand buffers (1: synchronous)
    mfma_shape: str = "auto"  # AMD GEMM instruction: "auto", "16" or "32"
    # Kernels' plans chosen elsewhere (tcc.tune, tcc.compile(plans=...)):
    # (kernel name, #tile.lowering_config text), sorted by name.
    plans: tuple[tuple[str, str], ...] = ()
    # The size a dynamic extent is planned for (a shape class's bound).
    dynamic_extent: int = 16384
    # NVIDIA artifacts carry a cubin beside their PTX (TCC_CUBIN=0: PTX only).
    cubin: bool = True

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "num_warps": self.num_warps,
            "elements_per_program": self.elements_per_program,
            "swizzle": int(self.swizzle),
            "num_stages": self.num_stages,
            "mfma_shape": self.mfma_shape,
        }
        if self.plans:
            d["plans"] = [list(p) for p in self.plans]
        if self.dynamic_extent != 16384:
            d["dynamic_extent"] = self.dynamic_extent
        if not self.cubin:
            d["cubin"] = 0
        return d

    def plans_option(self) -> str:
        """The plans as tcc-select-strategy's `plans` option value."""
        return ";".join(f"{name}={config}" for name, config in self.plans)


@dataclass
class KernelPart:
    """One kernel of a compiled program: its artifact and the IR of each
    stage that is its own (``tile``, ``gpu``, ``llvm``; ``source`` and
    ``linalg`` are the whole program's)."""

    artifact: KernelArtifact
    _program: Kernel = field(repr=False)

    @property
    def name(self) -> str:
        return self.artifact.kernel_name

    @property
    def asm(self) -> str:
        return self.artifact.asm

    @property
    def binary(self) -> bytes | None:
        return self.artifact.binary

    @property
    def launch(self) -> LaunchSpec:
        return self.artifact.launch

    @property
    def args(self) -> tuple[ArgSpec, ...]:
        return self.artifact.args

    @property
    def ir(self) -> dict[str, str]:
        return self._program.kernel_ir(self.name)


@dataclass
class Kernel:
    """A compiled program: callable on the GPU, inspectable everywhere.

    A program compiles to one or more kernels and a host launch sequence
    (``tcc-form-kernels``): ``kernels`` lists them in launch order (each with
    its name, asm, per-stage IR and launch spec); ``args`` describes the
    program's inputs and outputs; ``ir`` maps each stage name to the IR text
    of the whole program (every kernel, and the host program). ``asm``,
    ``binary`` and ``launch`` are the kernel's when there is one; ``asm``
    joins every kernel's assembly otherwise.
    """

    artifact: ProgramArtifact
    source: str
    schedule: Schedule
    _ir: dict[str, str] | None = field(default=None, repr=False)
    _kernel_ir: dict[str, dict[str, str]] | None = field(default=None, repr=False)
    _callable: Any = field(default=None, repr=False)

    @property
    def target(self) -> str:
        return self.artifact.target

    @property
    def name(self) -> str:
        return self.artifact.name

    @property
    def kernels(self) -> list[KernelPart]:
        return [KernelPart(k, self) for k in self.artifact.kernels]

    @property
    def report(self) -> Any:
        """Per kernel: registers, spills, shared memory, occupancy, plan,
        bytes and flops per launch (:mod:`tcc.compiler.report`)."""
        from tcc.compiler.report import report

        return report(self)

    @property
    def asm(self) -> str:
        if len(self.artifact.kernels) == 1:
            return self.artifact.kernels[0].asm
        return "\n".join(f"// ----- kernel {k.kernel_name}\n{k.asm}" for k in self.artifact.kernels)

    @property
    def binary(self) -> bytes | None:
        """The loadable code object of a one-kernel program (see ``kernels``)."""
        return self.artifact.kernels[0].binary if len(self.artifact.kernels) == 1 else None

    @property
    def launch(self) -> LaunchSpec:
        if len(self.artifact.kernels) != 1:
            raise AttributeError(
                f"{self.name} has {len(self.artifact.kernels)} kernels "
                f"({', '.join(k.kernel_name for k in self.artifact.kernels)}); "
                "read .kernels[i].launch"
            )
        return self.artifact.kernels[0].launch

    @property
    def args(self) -> tuple[ArgSpec, ...]:
        return self.artifact.args

    @property
    def ir(self) -> dict[str, str]:
        """IR of every stage (recomputed on demand after a cache hit)."""
        if self._ir is None:
            self._ir, self._kernel_ir, _ = compile_stages(self.source, self.target,
                                                          self.schedule)
        return self._ir

    def kernel_ir(self, name: str) -> dict[str, str]:
        """The per-stage IR of kernel ``name``."""
        if self._kernel_ir is None:
            self._ir, self._kernel_ir, _ = compile_stages(self.source, self.target,
                                                          self.schedule)
        return self._kernel_ir[name]

    def __call__(self, *args: Any, out: Any = None, stream: int | None = None,
                 **inputs: Any) -> Any:
        """Launch on the GPU: inputs in order or by name (``x=...``); outputs
        allocated unless ``out=``."""
        if self._callable is None:
            from tcc.runtime.runner import CompiledProgram

            self._callable = CompiledProgram(self.artifact)
        return self._callable(*args, out=out, stream=stream, **inputs)


# The compiled-program object under its descriptive name.
Program = Kernel


def compile(  # noqa: A001  (tcc.compile is the public name)
    source: Any,
    target: str = "sm_90",
    *,
    num_warps: int = 4,
    elements_per_program: int = 2048,
    swizzle: bool = True,
    num_stages: int = 3,
    mfma_shape: str = "auto",
    plans: Mapping[str, str] | None = None,
    tuned: bool = True,
    dynamic_extent: int = 16384,
    cache: KernelCache | Literal[False] | None = None,
    **sizes: int,
) -> Kernel:
    """Compile ``source`` (a whole program) for ``target`` ("sm_80", "sm_90", "gfx90a", "gfx942").

    ``source`` is a ``tcc.frontend`` program (symbolic sizes bound by
    ``sizes``, e.g. ``M=1024``), MLIR text, or an ``mlir.ir.Module``, in the
    tcc dialect or linalg on tensors, with one function of static shapes; or
    a tile-dialect kernel (one ``tile.func`` with its layouts and the
    ``tcc.grid`` / ``tcc.num_inputs`` launch attributes), whose shared-memory
    staging is then swizzled and pipelined.
    ``num_warps`` and ``elements_per_program`` are the schedule (warps per
    program, block size one program covers); ``swizzle=False`` leaves
    shared-memory tiles unswizzled (to measure bank conflicts). ``num_stages``
    is how many slots each pipelined shared-memory operand buffer has (a GEMM's
    copies run ``num_stages - 1`` K steps ahead; 1 stages synchronously).
    ``mfma_shape`` picks an AMD GEMM's instruction: ``"32"``
    (v_mfma_f32_32x32x8), ``"16"`` (v_mfma_f32_16x16x16) or ``"auto"`` (32
    where each wave's share of the block is a multiple of 32 in both dims).
    ``plans`` gives kernels their plans by kernel name (``{"p_k1":
    "#tile.lowering_config<form = softmax, block = [2, 1024], num_warps =
    4>"}``; the names are ``.kernels[i].name``), replacing the heuristics'
    choice for those kernels; with ``tuned`` (the default) and no ``plans``,
    the plans ``tcc tune`` recorded for this program, target and compiler
    are used (tcc.tune.TuningDB). ``dynamic_extent``: the size the plans
    are made for where a size is left unbound (docs/dynamic-shapes.md; the
    kernel is correct for every size). ``cache=False`` bypasses the
    artifact cache.
    """
    if target not in _WARP_SIZE:
        raise ValueError(
            f"unknown target {target!r}; tcc compiles for {', '.join(sorted(_WARP_SIZE))}"
        )
    if num_warps not in (1, 2, 4, 8, 16):
        raise ValueError(f"num_warps must be a power of two from 1 to 16, got {num_warps}")
    if not 64 <= elements_per_program <= 1 << 20 or elements_per_program & (
            elements_per_program - 1):
        raise ValueError("elements_per_program must be a power of two from 64 to 1048576, "
                         f"got {elements_per_program}")
    if not 1 <= num_stages <= 8:
        raise ValueError(f"num_stages must be from 1 to 8, got {num_stages}")
    if not isinstance(dynamic_extent, int) or not 1 <= dynamic_extent <= 1 << 30:
        raise ValueError(f"dynamic_extent must be an int from 1 to 2**30, got {dynamic_extent!r}")
    if mfma_shape not in ("auto", "16", "32"):
        raise ValueError(f"mfma_shape must be 'auto', '16' or '32', got {mfma_shape!r}")
    text = _source_text(source, sizes)
    if plans is None and tuned:
        from tcc.tune.db import TuningDB

        plans = TuningDB.default().lookup(text, target)
    schedule = Schedule(
        num_warps=num_warps,
        elements_per_program=elements_per_program,
        swizzle=swizzle,
        num_stages=num_stages,
        mfma_shape=mfma_shape,
        plans=_check_plans(plans),
        dynamic_extent=dynamic_extent,
        cubin=os.environ.get("TCC_CUBIN", "1") != "0",
    )
    key = cache_key(
        text, target=target, schedule=schedule.as_dict(), compiler_version=compiler_fingerprint()
    )
    built: list[tuple[dict[str, str], dict[str, dict[str, str]]]] = []

    def build() -> ProgramArtifact:
        stages, kernel_ir, artifact = compile_stages(text, target, schedule, emit=True)
        built.append((stages, kernel_ir))
        assert artifact is not None
        return artifact

    artifact = build() if cache is False else (cache or default_cache()).get_or_build(key, build)
    if isinstance(artifact, KernelArtifact):  # a kernel cached under this key by hand
        artifact = single_kernel_program(artifact)
    artifact = _named_inputs(artifact, source)
    stages, kernel_ir = built[0] if built else (None, None)
    return Kernel(artifact, text, schedule, stages, kernel_ir)


def _named_inputs(artifact: ProgramArtifact, source: Any) -> ProgramArtifact:
    """The artifact with its arguments named for keywords and error messages:
    a frontend program's inputs as the Python function's parameters (``x``,
    ``b``; the MLIR text, and so the cache key, does not carry them), the
    outputs ``out`` (one) or ``out0``, ``out1``, ... (what ``out=`` takes),
    unless an input has that name already."""
    params = getattr(source, "params", None)
    args = list(artifact.args)
    inputs = [i for i, a in enumerate(args) if a.role == "input"]
    if isinstance(params, dict) and len(inputs) == len(params):
        for i, name in zip(inputs, params, strict=True):
            args[i] = dataclasses.replace(args[i], name=name)
    outputs = [i for i, a in enumerate(args) if a.role == "output"]
    names = ["out"] if len(outputs) == 1 else [f"out{j}" for j in range(len(outputs))]
    if not {args[i].name for i in inputs} & set(names):
        for i, name in zip(outputs, names, strict=True):
            args[i] = dataclasses.replace(args[i], name=name)
    named = dataclasses.replace(artifact, args=tuple(args))
    from tcc.runtime.runner import _is_direct

    if _is_direct(named) and len(named.kernels[0].args) == len(args):
        # One kernel on the program's own arguments validates the call
        # itself: it names them the same.
        kernel = named.kernels[0]
        kernel = dataclasses.replace(kernel, args=tuple(
            dataclasses.replace(k, name=a.name) for k, a in zip(kernel.args, args, strict=True)))
        named = dataclasses.replace(named, kernels=(kernel, *named.kernels[1:]))
    return named


_KERNEL_NAME = re.compile(r"[A-Za-z_][\w$.]*")


def _check_plans(plans: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    """``plans`` as Schedule.plans, or a ValueError naming the bad entry."""
    if not plans:
        return ()
    if not isinstance(plans, Mapping):
        raise TypeError(f"plans must map kernel names to plans, got {type(plans).__name__}")
    for name, config in plans.items():
        if not isinstance(name, str) or not _KERNEL_NAME.fullmatch(name):
            raise ValueError(f"plans: {name!r} is not a kernel name")
        if (not isinstance(config, str) or not config.startswith("#tile.lowering_config<")
                or not config.endswith(">") or any(c in config for c in ';"{}')):
            raise ValueError(f"plans[{name!r}] must be a #tile.lowering_config<...> "
                             f"attribute, got {config!r}")
    return tuple(sorted(plans.items()))


def _source_text(source: Any, sizes: Mapping[str, int]) -> str:
    """The program as MLIR text (a frontend program is specialized first)."""
    if isinstance(source, str):
        if sizes:
            raise TypeError(
                f"sizes {sorted(sizes)} only apply to tcc.frontend programs; specialize "
                "the MLIR text's shapes instead"
            )
        return source
    if hasattr(source, "specialize") and hasattr(source, "to_module"):
        program = source.specialize(**sizes) if sizes else source
        module = program.to_module()
        _name_unbound_sizes(module, program)
        # With locations: each op's Python file:line, for the stages'
        # errors and remarks.
        return module.operation.get_asm(enable_debug_info=True)
    if type(source).__name__ == "Module" and hasattr(source, "operation"):
        return str(source)
    raise TypeError(
        f"cannot compile a {type(source).__name__}: pass a tcc.frontend program, "
        "MLIR text or an mlir.ir.Module"
    )


def _name_unbound_sizes(module: Any, program: Any) -> None:
    """Give the program function the names of the sizes left unbound
    (``tcc.arg_symbols``), which tcc-bind-shape-symbols takes for the
    kernels' dynamic sizes: grids, shapes and errors then say M, not s0."""
    from mlir import ir

    named = program.arg_symbols() if hasattr(program, "arg_symbols") else []
    if not any(n is not None for dims in named for n in dims):
        return
    fn = next(op.operation for op in module.body.operations
              if op.operation.name == "func.func")
    with module.context:
        i64 = ir.IntegerType.get_signless(64)
        fn.attributes["tcc.arg_symbols"] = ir.ArrayAttr.get([
            ir.ArrayAttr.get([ir.StringAttr.get(n) if n is not None
                              else ir.IntegerAttr.get(i64, 0) for n in dims])
            for dims in named])


def compile_stages(
    text: str, target: str, schedule: Schedule, *, emit: bool = False
) -> tuple[dict[str, str], dict[str, dict[str, str]], ProgramArtifact | None]:
    """:func:`run_stages` in the warm compile worker (tcc.compiler.worker:
    an abort inside MLIR becomes a CompilationError with a reproducer), or
    in this process with ``TCC_COMPILE_IN_PROCESS=1``."""
    from tcc.compiler import worker

    if worker.in_process():
        return run_stages(text, target, schedule, emit=emit)
    return worker.worker().run_stages(text, target, schedule, emit)


def run_stages(
    text: str, target: str, schedule: Schedule, *, emit: bool = False,
    progress: Callable[[str, str, str], None] | None = None,
) -> tuple[dict[str, str], dict[str, dict[str, str]], ProgramArtifact | None]:
    """Run every stage on ``text``: the IR of each stage (whole program), of
    each kernel (by name), and with ``emit`` the program's artifact.
    ``progress(stage, pipeline, input_ir)`` is called before each step."""
    from mlir import ir
    from mlir.passmanager import PassManager

    import tcc  # noqa: F401  (registers tcc's dialects and passes)
    from tcc.backends import get_target

    backend = get_target(target)
    if backend.vendor == "nvidia":
        backend.cubin = schedule.cubin  # type: ignore[attr-defined]
    # The tile stage records the target on the module (tcc-set-target, from
    # KnownTargets.def); the passes read warp size, bank model, MMA kinds,
    # cp.async, math lowering and shared memory from it.
    pipelines = {
        "linalg": "tcc-tensor-to-linalg",
        "tile": f"tcc-linalg-to-tile{{target={target} num-warps={schedule.num_warps} "
        f"elements-per-program={schedule.elements_per_program} "
        f"swizzle={int(schedule.swizzle)} "
        f"num-stages={schedule.num_stages} mfma-shape={schedule.mfma_shape}"
        + (f' plans="{schedule.plans_option()}"' if schedule.plans else "")
        + (f" dynamic-extent={schedule.dynamic_extent}"
           if schedule.dynamic_extent != 16384 else "") + "}",
        "gpu": "tcc-tile-to-gpu",
    }
    stages: dict[str, str] = {"source": text}
    notes: list[str] = []
    # TCC_DUMP_DIR=DIR: each stage's IR (DIR/<n>-<stage>.mlir) and the IR after
    # every pass (DIR/passes/<stage>/), as `tcc compile --dump-dir` writes.
    dump_dir = Path(os.environ["TCC_DUMP_DIR"]) if os.environ.get("TCC_DUMP_DIR") else None
    # TCC_TIMING=1: each stage's pass timings on stderr (`tcc compile --timing`).
    timing = os.environ.get("TCC_TIMING", "") not in ("", "0")
    # TCC_PRINT_IR_AFTER_ALL=1: the IR after every pass on stderr
    # (`tcc compile --print-ir-after-all`, as tcc-opt's --mlir-print-ir-after-all).
    print_ir = os.environ.get("TCC_PRINT_IR_AFTER_ALL", "") not in ("", "0")
    if dump_dir is not None:
        (dump_dir / "passes").mkdir(parents=True, exist_ok=True)
        (dump_dir / "0-source.mlir").write_text(text)

    def keep_remarks(diagnostic: Any) -> bool:
        # Remarks and warnings reach the user as CompilerRemark warnings;
        # errors stay with the MLIRError that fails the stage.
        if diagnostic.severity not in (ir.DiagnosticSeverity.REMARK,
                                       ir.DiagnosticSeverity.WARNING):
            return False
        notes.append(f"{diagnostic.location}: {diagnostic.message}")
        return True

    with ir.Context() as ctx, ir.Location.unknown():
        ctx.attach_diagnostic_handler(keep_remarks)
        if progress is not None:
            progress("source", "(parse)", text)
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as err:
            raise CompilationError(f"source: cannot parse the program:\n{err}") from err
        if _is_tile_program(module):
            # A tile-dialect kernel has no linalg stage; in the tile stage
            # convert-linalg-to-tile leaves it alone and the swizzle and
            # promotion passes act on its shared-memory staging.
            del pipelines["linalg"]
        else:
            _check_one_program(module)
        plan: HostPlan | None = None
        kernel_ir: dict[str, dict[str, str]] = {}
        for stage, pipeline in pipelines.items():
            if progress is not None:
                progress(stage, pipeline, str(module))
            pm = None
            try:
                pm = PassManager.parse(f"builtin.module({pipeline})")
                if dump_dir is not None:
                    # The IR after every pass of the stage, one file per pass.
                    pm.enable_ir_printing(print_after_all=True,
                                          tree_printing_dir_path=str(dump_dir / "passes" / stage))
                elif print_ir:
                    print(f"tcc: stage {stage!r} ({pipeline}):", file=sys.stderr, flush=True)
                    pm.enable_ir_printing(print_after_all=True)
                if timing:
                    # MLIR's execution time report, on stderr when the pass
                    # manager goes (below), one per stage.
                    pm.enable_timing()
                    print(f"tcc: stage {stage!r} ({pipeline}):", file=sys.stderr, flush=True)
                pm.run(module.operation)
            except ir.MLIRError as err:
                raise CompilationError(
                    f"stage {stage!r} ({pipeline}) failed:\n{_without_op_dumps(str(err))}"
                ) from err
            finally:
                pm = None  # (with timing: the report is printed now)
            for note in notes:
                _warn_remark(stage, note)
            notes.clear()
            stages[stage] = str(module)
            if dump_dir is not None:
                (dump_dir / f"{len(stages) - 1}-{stage}.mlir").write_text(stages[stage])
            if stage == "tile":
                plan = _read_host_program(module)
                for name, op in _ops_named(module, "tile.func").items():
                    kernel_ir[name] = {"source": stages["source"],
                                       "linalg": stages.get("linalg", ""), "tile": str(op)}
        assert plan is not None
        gpu_modules = _ops_named(module, "gpu.module")
        for kernel in plan.kernels:
            kernel_ir[kernel.name]["gpu"] = str(gpu_modules[f"{kernel.name}_module"])
        # One module per kernel (the host program stays behind): a kernel's
        # lowering and its artifact are its own.
        kernel_modules = {
            k.name: f"module attributes {{gpu.container_module}} {{\n{kernel_ir[k.name]['gpu']}\n}}"
            for k in plan.kernels
        }
        artifacts = []
        llvm_texts = []
        for k in plan.kernels:
            kstages: dict[str, str] = {}
            if progress is not None:
                progress("llvm", f"({backend.arch} backend: the kernel @{k.name} to LLVM and "
                         f"{'PTX' if backend.vendor == 'nvidia' else 'AMDGCN'})",
                         kernel_modules[k.name])
            with ir.Context(), ir.Location.unknown():
                kmodule = ir.Module.parse(kernel_modules[k.name])
                if not emit:
                    backend.lower_to_llvm(kmodule)
                    kstages["llvm"] = str(kmodule)
                else:
                    # A dynamic memref is a pointer and one index per
                    # dynamic size in the gpu.func (convert-tile-to-gpu).
                    first = [0]
                    for count in k.slots:
                        first.append(first[-1] + count)
                    artifacts.append(_workspace_roles(_regroup_dynamic_args(backend.compile(
                        kmodule, kernel=k.name, grid=k.grid,
                        outputs=[first[i] for i in range(k.num_inputs, k.num_args)],
                        compiler_version=compiler_fingerprint(), stages=kstages,
                    ), k), k))
            kernel_ir[k.name]["llvm"] = kstages["llvm"]
            llvm_texts.append(kstages["llvm"])
        stages["llvm"] = llvm_texts[0] if len(llvm_texts) == 1 else "\n".join(llvm_texts)
        if not emit:
            return stages, kernel_ir, None
    values, buffers, zeroed = plan_buffers(plan.values, plan.steps)
    program = ProgramArtifact(
        name=plan.name, target=backend.arch, vendor=backend.vendor, kernels=tuple(artifacts),
        args=plan.args, values=values, steps=plan.steps, results=plan.results,
        buffers=buffers, compiler_version=compiler_fingerprint(), sizes=plan.sizes,
        zeroed=zeroed,
    )
    return stages, kernel_ir, program


@dataclass(frozen=True)
class PlannedKernel:
    """A kernel of the host program, read off its tile.func."""

    name: str
    grid: tuple[int | str, int | str, int | str]
    num_inputs: int
    num_args: int  # the inputs and outputs (the workspace after them)
    # Each memref argument's dims: static sizes, or the program's symbols.
    shapes: tuple[tuple[int | str, ...], ...] = ()
    # The kernel's workspace buffers (split-K), after its outputs.
    workspace: int = 0

    @property
    def slots(self) -> list[int]:
        """The gpu.func parameters of each argument: the pointer, then one
        index per dynamic size."""
        return [1 + sum(isinstance(d, str) for d in shape) for shape in self.shapes] \
            + [1] * self.workspace if self.shapes else [1] * (self.num_args + self.workspace)


def _workspace_roles(artifact: KernelArtifact, k: PlannedKernel) -> KernelArtifact:
    """The artifact with its trailing workspace arguments marked so."""
    if not k.workspace:
        return artifact
    args = list(artifact.args)
    for i in range(len(args) - k.workspace, len(args)):
        args[i] = dataclasses.replace(args[i], role="workspace")
    return dataclasses.replace(artifact, args=tuple(args))


def _regroup_dynamic_args(artifact: KernelArtifact, k: PlannedKernel) -> KernelArtifact:
    """The artifact's arguments as the kernel's memrefs: a dynamic memref's
    pointer and size parameters become one array argument of symbolic shape
    (the runtime passes the sizes after the pointer)."""
    if all(n == 1 for n in k.slots):
        return artifact
    args, at = [], 0
    shapes = k.shapes + tuple(a.shape for a in artifact.args[len(artifact.args) - k.workspace:])
    for i, (count, shape) in enumerate(zip(k.slots, shapes, strict=True)):
        pointer = artifact.args[at]
        args.append(ArgSpec(f"arg{i}", "pointer", pointer.dtype, shape, pointer.role))
        at += count
    return dataclasses.replace(artifact, args=tuple(args), call_conv="sized")


@dataclass(frozen=True)
class HostPlan:
    """The host program read off the tile stage (buffers not yet planned)."""

    name: str
    kernels: tuple[PlannedKernel, ...]
    args: tuple[ArgSpec, ...]
    values: tuple[HostValue, ...]
    steps: tuple[Launch, ...]
    results: tuple[int, ...]
    # tcc-bind-shape-symbols' tcc.size_relations: sizes the host derives
    # from the arguments' (a view's product) or checks.
    sizes: tuple[tuple[int | str, str], ...] = ()


def _ops_named(module: ir.Module, op_name: str) -> dict[str, ir.Operation]:
    from mlir import ir

    return {
        ir.StringAttr(op.operation.attributes["sym_name"]).value: op.operation
        for op in module.body.operations
        if op.operation.name == op_name
    }


def _tensor_of(t: ir.Type) -> tuple[tuple[int, ...], str]:
    from mlir import ir

    shaped = ir.ShapedType(t)
    return tuple(shaped.shape), str(shaped.element_type)


def _read_host_program(module: ir.Module) -> HostPlan:
    """The kernels and the launch sequence of the tile stage: the ``tcc.host``
    function of ``tcc.launch`` steps that tcc-form-kernels made, or, for a
    program that is one kernel, that kernel launched on the program's
    arguments."""
    from mlir import ir

    tile_funcs = _ops_named(module, "tile.func")
    kernels = {name: _read_tile_kernel(op) for name, op in tile_funcs.items()}
    hosts = [op.operation for op in module.body.operations
             if op.operation.name == "func.func" and "tcc.host" in op.operation.attributes]
    if not hosts:
        if len(kernels) != 1:
            raise CompilationError(f"stage 'tile': expected one kernel, found {len(kernels)}")
        (name, k), = kernels.items()
        values, args = [], []
        for i, t in enumerate(k["arg_types"]):
            if not isinstance(t, ir.MemRefType):
                raise CompilationError(
                    f"stage 'tile': kernel @{name} argument #{i} has type {t}; tcc.compile "
                    "launches kernels over memrefs"
                )
            shape, dtype = _tensor_of(t)
            if any(d == ir.ShapedType.get_dynamic_size() for d in shape):
                if not k["shapes"]:
                    raise CompilationError(
                        f"stage 'tile': kernel @{name} argument #{i} has dynamic type {t} and "
                        "the kernel no tcc.shape_symbols naming its sizes (add "
                        "tcc.shape_symbols = [[\"M\", 64], ...], one entry per argument)")
                shape = k["shapes"][i]
            is_input = i < k["num_inputs"]
            kind = "input" if is_input else "output"
            index = i if is_input else i - k["num_inputs"]
            values.append(HostValue(kind, index, shape, dtype))
            args.append(ArgSpec(f"arg{i}", "pointer", dtype, shape,
                                "input" if is_input else "output"))
        planned = PlannedKernel(name, k["grid"], k["num_inputs"], len(k["arg_types"]),
                                k["shapes"][: len(k["arg_types"])], len(k["workspace"]))
        results = tuple(range(k["num_inputs"], len(values)))
        values += [HostValue("workspace", z, shape, dtype) for shape, dtype, z in k["workspace"]]
        return HostPlan(name, (planned,), tuple(args), tuple(values),
                        (Launch(0, tuple(range(len(values)))),), results)
    if len(hosts) != 1:
        raise CompilationError(f"stage 'tile': expected one host program, found {len(hosts)}")
    host = hosts[0]
    host_name = ir.StringAttr(host.attributes["sym_name"]).value
    dynamic = ir.ShapedType.get_dynamic_size()

    def symbols_of(op: Any) -> list[tuple[int | str, ...]]:
        # tcc-bind-shape-symbols' entries: each value's sizes or symbols.
        if "tcc.shape_symbols" not in op.attributes:
            return []
        return [tuple(_int_or_str(d) for d in ir.ArrayAttr(e))
                for e in ir.ArrayAttr(op.attributes["tcc.shape_symbols"])]

    host_symbols = symbols_of(host)

    def named(shape: tuple[int, ...], entry: list[tuple[int | str, ...]], i: int,
              what: str) -> tuple[int | str, ...]:
        if dynamic not in shape:
            return shape
        if i >= len(entry):
            raise CompilationError(f"stage 'tile': {what} of @{host_name} has a dynamic size "
                                   "and no tcc.shape_symbols names it")
        return entry[i]

    ids: dict[Any, int] = {}
    values: list[HostValue] = []
    args: list[ArgSpec] = []
    block = host.regions[0].blocks[0]
    for i, arg in enumerate(block.arguments):
        shape, dtype = _tensor_of(arg.type)
        shape = named(shape, host_symbols, i, f"argument #{i}")
        ids[arg] = len(values)
        values.append(HostValue("input", i, shape, dtype))
        args.append(ArgSpec(f"arg{i}", "pointer", dtype, shape, "input"))
    order: list[str] = []
    steps: list[Launch] = []
    returned: list[int] = []
    for op in block.operations:
        op = op.operation
        if op.name == "tcc.launch":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if callee not in kernels:
                raise CompilationError(f"stage 'tile': launch of @{callee}, which is no kernel")
            if callee not in order:
                order.append(callee)
            operands = [ids[v] for v in op.operands]
            for j, r in enumerate(op.results):
                shape, dtype = _tensor_of(r.type)
                shape = named(shape, symbols_of(op), j, f"result #{j} of a launch of @{callee}")
                ids[r] = len(values)
                values.append(HostValue("temp", -1, shape, dtype))
            # The kernel's own workspace, after its results.
            workspace = []
            for shape, dtype, z in kernels[callee]["workspace"]:
                workspace.append(len(values))
                values.append(HostValue("workspace", z, shape, dtype))
            steps.append(Launch(order.index(callee),
                                tuple(operands) + tuple(ids[r] for r in op.results)
                                + tuple(workspace)))
        elif op.name in ("tensor.expand_shape", "tensor.collapse_shape"):
            shape, dtype = _tensor_of(op.results[0].type)
            shape = named(shape, symbols_of(op), 0, f"the result of a host {op.name}")
            ids[op.results[0]] = len(values)
            values.append(HostValue("view", ids[op.operands[0]], shape, dtype))
        elif op.name == "func.return":
            returned = [ids[v] for v in op.operands]
        elif op.name in _HOST_SIZE_OPS:
            continue  # a view's sizes, which tcc.shape_symbols names
        else:
            raise CompilationError(
                f"stage 'tile': host program @{host_name} has {op.name}, which is no kernel "
                "launch or reshape"
            )
    n_in = len(args)
    results = []
    for j, r in enumerate(returned):
        shape, dtype = values[r].shape, values[r].dtype
        args.append(ArgSpec(f"arg{n_in + j}", "pointer", dtype, shape, "output"))
        root = r
        while values[root].kind == "view":
            root = values[root].index
        if values[root].kind == "temp":  # the kernel writes into the output
            values[root] = HostValue("output", j, values[root].shape, values[root].dtype)
        results.append(r)
    planned_kernels = tuple(
        PlannedKernel(name, kernels[name]["grid"], kernels[name]["num_inputs"],
                      len(kernels[name]["arg_types"]),
                      kernels[name]["shapes"][: len(kernels[name]["arg_types"])],
                      len(kernels[name]["workspace"]))
        for name in order
    )
    sizes: tuple[tuple[int | str, str], ...] = ()
    if "tcc.size_relations" in host.attributes:
        relations = [ir.ArrayAttr(e) for e in ir.ArrayAttr(host.attributes["tcc.size_relations"])]
        sizes = tuple((_int_or_str(e[0]), str(ir.StringAttr(e[1]).value)) for e in relations)
    return HostPlan(host_name, planned_kernels, tuple(args), tuple(values), tuple(steps),
                    tuple(results), sizes)


# Index computations a host program keeps for its views' sizes (a dynamic
# expand_shape's output_shape).
_HOST_SIZE_OPS = frozenset({"arith.constant", "tensor.dim", "affine.apply", "arith.muli"})


def _check_one_program(module: ir.Module) -> None:
    funcs = [op for op in module.body.operations if op.operation.name == "func.func"]
    if len(funcs) != 1:
        raise CompilationError(f"source: expected one func.func (the program), found {len(funcs)}")


def _is_tile_program(module: ir.Module) -> bool:
    """Whether the source is a tile-dialect kernel (one tile.func, no func.func)."""
    names = [op.operation.name for op in module.body.operations]
    return "func.func" not in names and names.count("tile.func") == 1


def _read_tile_kernel(k: ir.Operation) -> dict[str, Any]:
    """The launch contract on a tile.func: convert-linalg-to-tile writes it;
    a tile program given as source states it (``tcc.grid`` = programs along
    x, y, z; ``tcc.num_inputs`` = leading memref arguments read, the rest
    written)."""
    from mlir import ir

    missing = [a for a in ("tcc.grid", "tcc.num_inputs") if a not in k.attributes]
    if missing:
        raise CompilationError(
            f"tile.func {k.attributes['sym_name']} lacks its launch contract: add "
            + " and ".join(missing)
            + " (e.g. attributes {tcc.grid = array<i64: 64, 1, 1>, tcc.num_inputs = 2 : i32})"
        )
    ftype = ir.FunctionType(ir.TypeAttr(k.attributes["function_type"]).value)
    # Trailing TMA tensor maps are the runtime's to build, not the host's.
    maps = len(ir.ArrayAttr(k.attributes["tcc.tensor_maps"])) \
        if "tcc.tensor_maps" in k.attributes else 0
    # Before them, a split-K plan's workspace: the host plan's to provide
    # (per buffer, 1: zero-filled once).
    zeroed = [int(v) for v in ir.DenseI32ArrayAttr(k.attributes["tcc.workspace"])] \
        if "tcc.workspace" in k.attributes else []
    memrefs = list(ftype.inputs)[: len(ftype.inputs) - maps]
    arg_types = memrefs[: len(memrefs) - len(zeroed)]
    workspace = [(*_tensor_of(t), z)
                 for t, z in zip(memrefs[len(arg_types):], zeroed, strict=True)]
    grid_attr = k.attributes["tcc.grid"]
    if not isinstance(grid_attr, ir.ArrayAttr):
        grid: tuple[int | str, ...] = tuple(int(v) for v in ir.DenseI64ArrayAttr(grid_attr))
    else:  # a grid of dynamic sizes: expressions of the program's size symbols
        grid = tuple(_int_or_str(v) for v in ir.ArrayAttr(grid_attr))
    shapes: tuple[tuple[int | str, ...], ...] = ()
    if "tcc.shape_symbols" in k.attributes:
        shapes = tuple(tuple(_int_or_str(d) for d in ir.ArrayAttr(entry))
                       for entry in ir.ArrayAttr(k.attributes["tcc.shape_symbols"]))
    return {
        "arg_types": arg_types,
        "workspace": workspace,
        "grid": grid,
        "num_inputs": ir.IntegerAttr(k.attributes["tcc.num_inputs"]).value,
        "shapes": shapes,
    }


def _int_or_str(attr: Any) -> int | str:
    from mlir import ir

    if isinstance(attr, ir.IntegerAttr):
        return int(ir.IntegerAttr(attr).value)
    return str(ir.StringAttr(attr).value)
