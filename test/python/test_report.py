"""compiled.report / `tcc compile --report`: per kernel registers, spills,
shared memory, occupancy, plan, bytes and flops (issue 11)."""

from __future__ import annotations

import warnings

import pytest

import tcc
from tcc.cli import main as cli_main
from tcc.compiler.report import LIMITS, _occupancy
from tcc.testing.cuda_tools import find_tool

GEMM_BIAS = """
func.func @mm(%a: tensor<256x128xf16>, %b: tensor<128x256xf16>, %bias: tensor<256xf32>)
    -> tensor<256x256xf32> {
  %c = tcc.matmul %a, %b acc(f32) : tensor<256x128xf16>, tensor<128x256xf16> -> tensor<256x256xf32>
  %bb = tcc.broadcast %bias dims = [0] : tensor<256xf32> -> tensor<256x256xf32>
  %s = tcc.add %c, %bb : tensor<256x256xf32>
  return %s : tensor<256x256xf32>
}
"""


def _compile(target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tcc.compile(GEMM_BIAS, target, cache=False)


def test_amd_report_reads_the_hsaco_metadata():
    rep = _compile("gfx942").report
    (k,) = rep.kernels
    assert k.registers and k.registers > 0 and k.spill_bytes == 0 and k.stack_bytes == 0
    assert k.shared_static and k.shared_static > 0  # the staged operands in LDS
    assert k.mma == "mfma_32x32x8" and "form = matmul" in k.plan
    assert k.bytes_moved == 256 * 128 * 2 + 128 * 256 * 2 + 256 * 4 + 256 * 256 * 4
    assert k.flops == 2 * 256 * 256 * 128
    assert 0 < k.occupancy <= 1 and k.limited_by
    assert "| mm |" in rep.table() and "memory-bound" in rep.table()


@pytest.mark.skipif(find_tool("ptxas") is None, reason="no ptxas (nvidia-cuda-nvcc)")
@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_nvidia_report_reads_ptxas(target):
    (k,) = _compile(target).report.kernels
    assert k.registers and 16 <= k.registers <= 255 and k.spill_bytes == 0
    assert k.mma == ("wgmma_m64nNk16" if target == "sm_90" else "mma_sync_m16n8k16")
    assert 0 < k.occupancy <= 1


def test_occupancy_model():
    h200 = LIMITS["sm_90"]
    # 256 threads of 32 registers: 8 programs by warps (64 / 8), 32 by registers.
    assert _occupancy(h200, "nvidia", 256, 32, 32, 0) == (1.0, "warps")
    # 128 registers: 65536 / (128 * 32 * 8) = 2 programs of 8 warps: 25%.
    assert _occupancy(h200, "nvidia", 256, 32, 128, 0) == (0.25, "registers")
    # 100 KiB of shared memory: 2 programs.
    assert _occupancy(h200, "nvidia", 128, 32, 32, 100 * 1024) == (2 * 4 / 64, "shared memory")
    # MI300X: 4 waves of 128 VGPRs: 4 waves per SIMD, 16 per CU, 4 programs: 50%.
    assert _occupancy(LIMITS["gfx942"], "amd", 256, 64, 128, 0) == (0.5, "registers")


def test_cli_report(tmp_path, capsys):
    path = tmp_path / "mm.mlir"
    path.write_text(GEMM_BIAS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli_main(["compile", str(path), "--target", "gfx942", "--report",
                         "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| kernel | grid | block | regs |") and "| mm | " in out
    assert "mfma_32x32x8" in out
