"""A compiled program's report: per kernel, what the hardware will see.

``compiled.report`` (``tcc compile --report``, a table): per kernel its
grid and block, registers, spills and stack bytes (NVIDIA: ``ptxas -v`` of
its PTX, from the nvidia-cuda-nvcc wheel or the PATH; AMD: the hsaco's
``.amdhsa`` metadata: VGPRs, AGPRs, SGPRs, spills), shared memory (static
from the assembler, dynamic from the launch spec), the theoretical occupancy
on the target and what limits it, the bank conflicts of its shared-memory
accesses (tcc.analysis.kernel_conflicts: extra wavefronts per request of the
costly ones, 0 when conflict-free), the plan and its MMA instruction, and the
bytes one launch must move (every argument read or written once), with the
flops of a matmul plan and the arithmetic intensity against the target's
ridge point (memory- or compute-bound on its roofline).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from tcc.analysis.kernel_conflicts import kernel_conflicts
from tcc.backends.ptxas import ptx_arch
from tcc.runtime.artifact import DTYPES
from tcc.tune.space import parse, plan_in


@dataclass(frozen=True)
class SMLimits:
    """What one SM (CU) holds, for occupancy: 32-bit registers (VGPRs per
    SIMD lane on AMD), resident warps (waves per SIMD x SIMDs), resident
    programs, shared memory (LDS) bytes; the register allocation granule
    (per warp on NVIDIA: 256 registers; per lane on AMD: 8 VGPRs), and the
    peak dense f16/bf16 tensor FLOP/s and memory bytes/s of a typical part
    (the roofline's ridge)."""

    registers: int
    warps: int
    programs: int
    shared: int
    granule: int
    peak_flops: float
    peak_bytes: float


LIMITS = {
    "sm_80": SMLimits(65536, 64, 32, 167936, 256, 312e12, 2.0e12),  # A100
    "sm_86": SMLimits(65536, 48, 16, 102400, 256, 71e12, 0.94e12),  # RTX A6000
    "sm_89": SMLimits(65536, 48, 24, 102400, 256, 181e12, 0.96e12),  # L40S
    "sm_90": SMLimits(65536, 64, 32, 233472, 256, 989e12, 4.8e12),  # H200
    "sm_90a": SMLimits(65536, 64, 32, 233472, 256, 989e12, 4.8e12),
    # AMD: 512 VGPRs per lane of a SIMD (AGPRs included), 8 waves per SIMD x 4.
    "gfx90a": SMLimits(512, 32, 32, 65536, 8, 383e12, 3.2e12),  # MI250X GCD
    "gfx942": SMLimits(512, 32, 32, 65536, 8, 1307e12, 5.3e12),  # MI300X
    "gfx950": SMLimits(512, 32, 32, 163840, 8, 2300e12, 8.0e12),  # MI355X
}


@dataclass(frozen=True)
class KernelReport:
    name: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    registers: int | None
    spill_bytes: int | None  # stores + loads (NVIDIA), VGPR + SGPR spills (AMD)
    stack_bytes: int | None
    shared_static: int | None
    shared_dynamic: int
    occupancy: float | None  # resident warps / the SM's maximum
    limited_by: str
    plan: str | None
    mma: str | None
    bytes_moved: int
    flops: int | None
    # Extra wavefronts of its shared-memory accesses (tcc.analysis), as
    # KernelConflicts.summary() gives them; "?" when the tile IR is not kept.
    bank_conflicts: str = "?"

    @property
    def intensity(self) -> float | None:
        return self.flops / self.bytes_moved if self.flops and self.bytes_moved else None


@dataclass(frozen=True)
class ProgramReport:
    target: str
    kernels: tuple[KernelReport, ...]
    note: str = ""

    def table(self) -> str:
        limits = LIMITS.get(self.target)
        ridge = limits.peak_flops / limits.peak_bytes if limits else None
        rows = ["| kernel | grid | block | regs | spills | stack | smem static+dyn | occupancy "
                "| bank conflicts | plan | MB moved | GFLOP | flop/byte |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for k in self.kernels:
            def opt(v: object) -> str:
                return "-" if v is None else str(v)
            occ = "-" if k.occupancy is None else f"{k.occupancy:.0%} ({k.limited_by})"
            intensity = "-" if k.intensity is None else (
                f"{k.intensity:.1f}" + ("" if ridge is None else
                                        f" ({'compute' if k.intensity >= ridge else 'memory'}"
                                        f"-bound, ridge {ridge:.0f})"))
            plan = (k.plan or "-").replace("#tile.lowering_config<", "").rstrip(">")
            rows.append(
                f"| {k.name} | {'x'.join(map(str, k.grid))} | {'x'.join(map(str, k.block))} | "
                f"{opt(k.registers)} | {opt(k.spill_bytes)} | {opt(k.stack_bytes)} | "
                f"{opt(k.shared_static)}+{k.shared_dynamic} | {occ} | {k.bank_conflicts} | "
                f"{plan} | "
                f"{k.bytes_moved / 1e6:.2f} | {'-' if k.flops is None else f'{k.flops / 1e9:.2f}'}"
                f" | {intensity} |")
        text = "\n".join(rows)
        return f"{text}\n{self.note}" if self.note else text

    def __str__(self) -> str:
        return self.table()


def _nbytes(spec: Any) -> int:
    if spec.kind != "pointer":
        return 0
    return math.prod(spec.shape) * DTYPES[spec.dtype][1]


def _matmul_flops(plan: str | None, args: Any) -> int | None:
    """2 x batch x M x N x K of a matmul plan's kernel (its first two
    arguments are A [.., M, K] and B [.., K, N] or [.., N, K])."""
    if not plan or "form = matmul" not in plan and "form = fma_matmul" not in plan:
        return None
    pointers = [a for a in args if a.kind == "pointer"]
    out = next((a for a in pointers if a.role == "output"), None)
    if len(pointers) < 3 or out is None or len(out.shape) < 2:
        return None
    a = pointers[0]
    k = a.shape[-1] if a.shape[-2] == out.shape[-2] else a.shape[-2]
    return 2 * math.prod(out.shape) * k


def _nvidia_resources(ptx: str, arch: str) -> tuple[dict[str, int], str]:
    from tcc.testing.cuda_tools import ptxas_report

    try:
        text = ptxas_report(ptx, arch)
    except FileNotFoundError:
        return {}, "registers and spills: no ptxas (install nvidia-cuda-nvcc)"
    except RuntimeError as err:
        return {}, str(err).strip()[:200]
    found: dict[str, int] = {}
    for key, pattern in (("registers", r"Used (\d+) registers"),
                         ("smem", r"(\d+) bytes smem"),
                         ("stack", r"(\d+) bytes stack frame"),
                         ("spill_stores", r"(\d+) bytes spill stores"),
                         ("spill_loads", r"(\d+) bytes spill loads")):
        if m := re.search(pattern, text):
            found[key] = int(m.group(1))
    return found, ""


def _amd_resources(asm: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for key in ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count",
                "sgpr_spill_count", "group_segment_fixed_size", "private_segment_fixed_size"):
        if m := re.search(rf"\.{key}:\s*(\d+)", asm):
            found[key] = int(m.group(1))
    return found


def _occupancy(limits: SMLimits, vendor: str, threads: int, warp: int, registers: int | None,
               shared: int) -> tuple[float | None, str]:
    warps = -(-threads // warp)
    bounds = {"programs": limits.programs, "warps": limits.warps // max(warps, 1)}
    if shared:
        bounds["shared memory"] = limits.shared // shared
    if registers:
        if vendor == "nvidia":
            per_warp = -(-registers * warp // limits.granule) * limits.granule
            bounds["registers"] = limits.registers // (per_warp * warps)
        else:  # waves per SIMD from VGPRs, 4 SIMDs per CU
            per_lane = -(-registers // limits.granule) * limits.granule
            waves_per_simd = min(8, limits.registers // per_lane)
            bounds["registers"] = (waves_per_simd * 4) // max(warps, 1)
    programs = min(bounds.values())
    limiter = min(bounds, key=lambda k: bounds[k])
    return min(1.0, programs * warps / limits.warps), limiter


def report(compiled: Any) -> ProgramReport:
    """The report of a ``tcc.compile`` result (see the module's doc)."""
    target = compiled.target
    limits = LIMITS.get(target)
    notes: list[str] = []
    rows = []
    for part in compiled.kernels:
        art = part.artifact
        try:
            tile_ir = part.ir.get("tile", "")
            plan = plan_in(tile_ir)
        except Exception:  # noqa: BLE001  (IR not kept, e.g. a loaded artifact)
            tile_ir, plan = "", None
        conflicts = kernel_conflicts(tile_ir, art.vendor).summary() if tile_ir else "?"
        mma = parse(plan).get("mma") if plan else None
        registers = spills = stack = static = None
        if art.vendor == "nvidia":
            try:
                arch = ptx_arch(art.asm)
            except ValueError:
                arch = target
            res, note = _nvidia_resources(art.asm, arch)
            if note and note not in notes:
                notes.append(note)
            registers, static, stack = res.get("registers"), res.get("smem"), res.get("stack")
            if "spill_stores" in res:
                spills = res["spill_stores"] + res.get("spill_loads", 0)
        else:
            res = _amd_resources(art.asm)
            if "vgpr_count" in res:
                registers = res["vgpr_count"] + res.get("agpr_count", 0)
            if "vgpr_spill_count" in res:
                spills = res["vgpr_spill_count"] + res.get("sgpr_spill_count", 0)
            stack, static = res.get("private_segment_fixed_size"), res.get(
                "group_segment_fixed_size")
        threads = math.prod(art.launch.block)
        dynamic = art.launch.shared_mem_bytes
        shared = (static or 0) + dynamic
        occupancy, limiter = (None, "")
        if limits is not None:
            warp = 32 if art.vendor == "nvidia" else 64
            occupancy, limiter = _occupancy(limits, art.vendor, threads, warp, registers, shared)
        grid = tuple(g if isinstance(g, int) else 0 for g in art.launch.grid)
        rows.append(KernelReport(
            part.name, grid, tuple(art.launch.block), registers, spills, stack, static,
            dynamic, occupancy, limiter, plan, mma, sum(_nbytes(a) for a in art.args),
            _matmul_flops(plan, art.args), conflicts))
    return ProgramReport(target, tuple(rows), "\n".join(notes))
