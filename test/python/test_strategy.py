"""The plan as IR: tcc.compile's schedule options are the defaults
tcc-select-strategy starts from, and the tile stage shows each kernel's
#tile.lowering_config."""

import re

import pytest

from tcc import compile as tcc_compile
from tcc.examples.programs import gemm_program

T = "tensor<1000x777xf32>"
ADD = f"""func.func @add(%x: {T}, %y: {T}) -> {T} {{
  %r = tcc.add %x, %y : {T}
  return %r : {T}
}}
"""


def config(kernel):
    found = re.findall(r"tile\.lowering_config = (#tile\.lowering_config<[^>]*>)",
                       kernel.ir["tile"])
    assert len(found) == 1, kernel.ir["tile"]
    return found[0]


def test_elementwise_plan_follows_the_options():
    k = tcc_compile(ADD, "sm_90", cache=False, num_warps=8, elements_per_program=4096)
    # identity maps: the flattest view is one row, a flat stream whose block
    # takes elements-per-program along it
    assert config(k) == ("#tile.lowering_config<form = elementwise, block = [1, 4096], "
                         "num_warps = 8>")
    assert k.launch.block == (256, 1, 1)


@pytest.mark.parametrize(("target", "mma"), [("sm_80", "mma_sync_m16n8k16"),
                                             ("gfx942", "mfma_16x16x16")])
def test_gemm_plan_names_the_instruction(target, mma):
    k = tcc_compile(gemm_program(512, 384, 256, "f16"), target, cache=False, num_stages=2,
                    mfma_shape="16" if target == "gfx942" else "auto")
    assert config(k) == (f"#tile.lowering_config<form = matmul, block = [128, 128, 32], "
                         f"num_warps = 4, num_stages = 2, mma = {mma}>")
    assert "!tile.shared_buffer<2x128x32xf16" in k.ir["tile"]


def test_fma_plan():
    k = tcc_compile(gemm_program(256, 128, 64, "f32"), "gfx942", cache=False)
    assert config(k) == ("#tile.lowering_config<form = fma_matmul, block = [128, 64, 8], "
                         "num_warps = 4, num_stages = 3>")
