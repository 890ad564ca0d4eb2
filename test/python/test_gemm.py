"""Tensor-core GEMMs: tcc.matmul to mma.sync PTX, with a fused epilogue."""

import re

import pytest

from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import gemm_program


def gemm(m, n, k, dtype, bias=False):
    return gemm_program(m, n, k, dtype, bias_gelu=bias)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("target", ["sm_80", "sm_89"])
def test_gemm_uses_mma_sync_ldmatrix_and_shared_memory(dtype, target):
    k = tcc_compile(gemm(512, 384, 256, dtype), target, cache=False)
    assert re.search(rf"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.{dtype}\.{dtype}\.f32", k.asm)
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in k.asm
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in k.asm
    assert ".shared" in k.asm and "bar.sync" in k.asm
    # Operands reach shared memory by 16-byte cp.async, 3 stages deep.
    assert re.search(r"cp\.async\.cg\.shared\.global \[%rd?\d+(\+\d+)?\], \[%rd\d+\], 16", k.asm)
    assert "cp.async.commit_group;" in k.asm
    assert re.search(r"cp\.async\.wait_group\s+1;", k.asm)
    # 128 x 128 blocks, 4 warps, grouped over a 4 x 3 grid of blocks.
    assert k.launch.block == (128, 1, 1) and k.launch.grid == (12, 1, 1)
    assert "tile.dot" in k.ir["tile"] and "#tile.shared" in k.ir["tile"]
    assert "!tile.shared_buffer<3x128x32x" in k.ir["tile"]


def test_gemm_bias_gelu_is_one_kernel():
    k = tcc_compile(gemm(256, 256, 128, "f16", bias=True), "sm_80", cache=False)
    assert k.asm.count(".entry") == 1
    assert "mma.sync" in k.asm
    assert "math.tanh" in k.ir["tile"]  # the epilogue runs on the accumulator


def test_odd_sizes_compile():
    k = tcc_compile(gemm(1000, 1000, 1000, "f16"), "sm_80", cache=False)
    assert k.launch.grid == (64, 1, 1)  # ceil(1000 / 128)^2


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
@pytest.mark.parametrize(("mfma_shape", "instr"), [("auto", "32x32x8"), ("32", "32x32x8"),
                                                   ("16", "16x16x16")])
def test_gemm_uses_mfma_and_lds_on_amd(dtype, target, mfma_shape, instr):
    k = tcc_compile(gemm(512, 384, 256, dtype, bias=True), target, cache=False,
                    mfma_shape=mfma_shape)
    # gfx90a spells v_mfma_f32_32x32x8f16 / ..bf16_1k (16x16x16 likewise),
    # gfx942 v_mfma_f32_32x32x8_f16 / .._bf16.
    spelling = {"gfx90a": {"f16": "f16", "bf16": "bf16_1k"},
                "gfx942": {"f16": "_f16", "bf16": "_bf16"}}[target][dtype]
    mnemonics = set(re.findall(r"v_mfma_\w+", k.asm))
    assert mnemonics == {f"v_mfma_f32_{instr}{spelling}"}
    assert "ds_read" in k.asm and "ds_write" in k.asm  # LDS staging
    assert "s_barrier" in k.asm
    assert k.launch.block == (256, 1, 1)  # 4 wave64 waves
    m = instr.split("x")[0]
    assert f"#tile.amd_mfma<{{version = 3, warpsPerCTA = [2, 2], instrShape = [{m}, {m}]" \
        in k.ir["tile"]
    assert not re.search(r"__(ocml|ockl)_", k.asm)


def test_mfma_32x32_halves_the_mfma_issues():
    # The same 64 x 64 wave tiles: 2 x 2 x 4 v_mfma_f32_32x32x8 per K step of
    # 32 instead of 4 x 4 x 2 v_mfma_f32_16x16x16, from as many LDS reads.
    counts = {}
    for shape in ("16", "32"):
        k = tcc_compile(gemm(256, 256, 128, "f16"), "gfx942", cache=False, mfma_shape=shape)
        counts[shape] = (len(re.findall(r"v_mfma_f32", k.asm)), len(re.findall(r"ds_read", k.asm)))
    assert counts["32"][0] * 2 == counts["16"][0]
    assert counts["32"][1] == counts["16"][1]


def test_mfma_32x32_operands_get_the_conflict_free_swizzle():
    # The pass's choice for the 32x32x8 reads: A [128, 32] f16 read as
    # kWidth-4 fragments gets vec 4, perPhase 2, maxPhase 8 (0 conflicts in
    # test_bank_conflicts.test_tcc_amd_gemm_operand_reads); B (N contiguous,
    # read along rows by 32 lanes) stays plain and is conflict-free as is.
    k = tcc_compile(gemm(256, 256, 128, "f16"), "gfx942", cache=False)
    assert "instrShape = [32, 32]" in k.ir["tile"]
    shared = set(re.findall(r"#tile\.shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+)",
                            k.ir["tile"]))
    assert shared == {("4", "2", "8"), ("8", "1", "1")}


def test_mfma_shape_is_checked():
    with pytest.raises(ValueError, match="mfma_shape must be"):
        tcc_compile(gemm(256, 256, 256, "f16"), "gfx942", cache=False, mfma_shape="8")
    # 16 waves on a 128-wide block: 16 columns per wave, no 32x32 tile.
    with pytest.raises(Exception, match="mfma-shape = 32: each wave's share of the 128 x 128 "
                                        r"block \(64 x 16\) is not a multiple of 32"):
        tcc_compile(gemm(256, 256, 256, "f16"), "gfx942", cache=False, mfma_shape="32",
                    num_warps=16)


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_four_stages_use_dynamic_shared_memory(target):
    # 4 slots of 128x32 and 32x128 f16 tiles: 64 KiB, over the 48 KiB static limit.
    k = tcc_compile(gemm(512, 384, 256, "f16"), target, cache=False, num_stages=4)
    assert k.launch.shared_mem_bytes == 64 * 1024
    assert "!tile.shared_buffer<4x128x32x" in k.ir["tile"]
    assert "gpu.dynamic_shared_memory" in k.ir["gpu"]


def test_stage_count_is_checked():
    with pytest.raises(ValueError, match="num_stages must be from 1 to 8, got 0"):
        tcc_compile(gemm(256, 256, 256, "f16"), "sm_80", cache=False, num_stages=0)
    # 5 slots of 128x32 + 32x128 f16 tiles: 80 KiB, over the 64 KiB of CDNA LDS.
    with pytest.raises(Exception, match="needs 81920 bytes of workgroup memory, more than "
                                        "the target's 65536"):
        tcc_compile(gemm(512, 384, 256, "f16"), "gfx942", cache=False, num_stages=5)


def test_batched_gemm_is_one_kernel_over_batch_slices():
    k = tcc_compile(gemm_program(200, 136, 256, "f16", bias_gelu=True, batch=3), "sm_80",
                    cache=False)
    assert k.launch.grid == (3 * 2 * 2, 1, 1)  # batch x ceil(200/128) x ceil(136/128)
    assert "memref.subview" in k.ir["tile"]
    assert re.search(r"mma\.sync\.aligned\.m16n8k16", k.asm)


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_tile_program_with_tile_dot_compiles_to_tensor_cores(target):
    # The synchronous tile program (layouts chosen, staging not pipelined) is
    # itself a valid source. It keeps its plan (tile.lowering_config with
    # num_stages = 1); without one, tcc.compile swizzles and pipelines it.
    sync = tcc_compile(gemm(512, 384, 256, "f16"), target, cache=False, num_stages=1)
    program = sync.ir["tile"]
    assert "tile.dot" in program and "tile.async_copy" not in program
    assert "num_stages = 1" in program
    kept = tcc_compile(program, target, cache=False, num_stages=3)
    assert "tile.async_copy" not in kept.ir["tile"]
    program = re.sub(r", tile\.lowering_config = #tile\.lowering_config<[^>]*>", "", program)
    k = tcc_compile(program, target, cache=False, num_stages=3)
    assert "tile.async_copy" in k.ir["tile"] and "linalg" not in k.ir
    assert (k.launch.grid, k.launch.block) == (sync.launch.grid, sync.launch.block)
    if target == "sm_80":
        assert "mma.sync.aligned.m16n8k16" in k.asm and "cp.async.cg.shared.global" in k.asm
    else:
        assert re.search(r"v_mfma_f32_32x32x8_?f16", k.asm) and "ds_read" in k.asm


def test_tile_program_needs_its_launch_contract():
    program = tcc_compile(gemm(256, 256, 128, "f16"), "sm_80", cache=False).ir["tile"]
    program = re.sub(r"tcc\.grid = array<i64: [0-9, ]+>, ", "", program)
    with pytest.raises(Exception, match="lacks its launch contract: add tcc.grid"):
        tcc_compile(program, "sm_80", cache=False)
