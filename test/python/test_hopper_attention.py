"""Fused attention on sm_90 (issue 13 step 6): the Hopper schedule, checked
without a GPU. ``((q @ k.transpose(-1, -2)) * s).softmax(-1) @ v`` with head
dims that are multiples of 64 compiles to one persistent, warp-specialized
kernel: a TMA producer warpgroup (Q once per block, K and V into a ring of
slots on mbarriers), consumer warpgroups issuing wgmma for S = Q Kᵀ from
shared memory and for P V with P from registers. What the PTX and SASS hold,
and the kernel's numerics on the CPU emulator (tcc.testing.hopper) against
float64; the shapes of test_attention.py run there too."""

import re
from dataclasses import replace

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.frontend import Tensor, bf16, f16, program, syms
from tcc.runtime.artifact import TensorMapSpec
from tcc.testing.cpu import _from_bf16_bits as from_bf16
from tcc.testing.cuda_tools import assemble
from tcc.testing.simt import run_gpu_stage
from test_attention import attention_program, inputs, rel_err, softmax_attention

B, S, D = syms("B S D")


@program
def causal(q: Tensor[B, S, D, f16], k: Tensor[B, S, D, f16], v: Tensor[B, S, D, f16]):
    s = (q @ k.transpose(-1, -2)) * 0.125
    keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
    return tf.where(keep, s, float("-inf")).softmax(-1) @ v


def compile_attention(b, s, d, dtype="f16", dv=None):  # noqa: ANN001, ANN201
    elt = {"f16": f16, "bf16": bf16}[dtype]
    return tcc.compile(attention_program(elt, 1.0 / np.sqrt(d)), "sm_90", B=b, S=s, D=d,
                       DV=dv or d)


def cut_grid(kernel, programs):  # noqa: ANN001, ANN201
    """The same kernel launched on fewer programs (each walks more blocks)."""
    art = kernel.artifact.kernels[0]
    cut = replace(art, launch=replace(art.launch, grid=(programs, 1, 1)))
    object.__setattr__(kernel, "artifact", replace(kernel.artifact, kernels=(cut,)))


@pytest.mark.parametrize(("d", "dtype"), [(64, "f16"), (128, "bf16")])
def test_sm90_attention_is_wgmma_fed_by_tma(d, dtype):
    kernel = compile_attention(16, 1024, d, dtype)
    assert len(kernel.kernels) == 1
    tile_ir = kernel.ir["tile"]
    assert "mma = wgmma_m64nNk16" in tile_ir and "1024x1024" not in tile_ir
    ptx = kernel.asm
    assert ".target sm_90a" in ptx and "mma.sync" not in ptx
    # S = Q Kᵀ: m64n128k16 from two descriptors (Q and K both K-major), 4 k
    # steps per 64 of the head dim; P V: A from four registers, V MN-major.
    # The key loop is software-pipelined: S in its prologue and its loop,
    # P V in its loop and its epilogue (1024 keys: no partial block).
    ss = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.{dtype}\.{dtype}"
                    r" \{[^}]*\}, %rd\d+, %rd\d+, p, 1,\s*1, (\d),\s*(\d);", ptx)
    assert len(ss) == 2 * (d // 16) and set(ss) == {("0", "0")}
    rs = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{d}k16\.f32\.{dtype}\.{dtype}"
                    r" \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, 1, 1, 1, (\d);", ptx)
    assert rs == ["1"] * 16  # 128 keys: 8 k steps, twice
    # The loop waits for S alone while P V is in flight, then for P V.
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") == 3
    # Q once per block, K and V per step: 3-D boxes [1, rows, 64].
    assert re.search(r"cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile"
                     r"\.mbarrier::complete_tx::bytes", ptx)
    assert "mbarrier.try_wait.parity.shared.b64" in ptx
    assert ptx.count("prefetch.param.tensormap") == 3
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)
    assert "ex2.approx.ftz.f32" in ptx
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx
    # 16 x 8 query blocks of 128 rows on a persistent grid of 128 programs.
    assert kernel.launch.block == (384, 1, 1) and kernel.launch.grid == (128, 1, 1)
    maps = kernel.artifact.kernels[0].tensor_maps
    assert maps == (TensorMapSpec(0, (1, 128, 64), 128), TensorMapSpec(1, (1, 128, 64), 128),
                    TensorMapSpec(2, (1, 128, 64), 128))


@pytest.mark.parametrize(("d", "dtype"), [(64, "f16"), (128, "bf16")])
def test_sm90_attention_sass_has_hgmma_and_no_spills(d, dtype):
    report, sass = assemble(compile_attention(16, 1024, d, dtype).asm, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report, report
    assert re.search(r"HGMMA\.64x128x16\.F32", sass)
    assert re.search(rf"HGMMA\.64x{d}x16\.F32", sass)
    assert "HMMA" not in sass and "STL" not in sass
    assert "C7508" not in report  # setmaxnreg honoured
    assert "serialized" not in report, report  # no wgmma serialization warning


@pytest.mark.parametrize(("b", "s", "d", "dv", "dtype"), [
    (1, 300, 64, 64, "f16"),    # 3 query blocks (the last partial), keys: 2 whole + a tail
    (2, 128, 128, 128, "bf16"),  # one block of each, D = 128
    (1, 200, 64, 128, "f16"),   # Dv != D
])
def test_hopper_attention_matches_float64(b, s, d, dv, dtype):
    kernel = compile_attention(b, s, d, dtype, dv)
    assert "mma = wgmma_m64nNk16" in kernel.ir["tile"]
    rng = np.random.default_rng(s + d)
    stored, (q, k, v) = inputs(rng, b, s, d, dv, dtype)
    (out,) = run_gpu_stage(kernel, *stored)
    if dtype == "bf16":
        out = from_bf16(np.asarray(out))
    tolerance = {"f16": 2e-3, "bf16": 1.5e-2}[dtype]
    assert rel_err(out, softmax_attention(q, k, v, 1.0 / np.sqrt(d))) < tolerance


def test_persistent_walk_covers_more_blocks_than_programs():
    # 2 x 3 query blocks on 2 programs: each walks 3 blocks through one
    # running key-step counter (3 steps a block, 2 slots), so slots, phases
    # and Q's barrier parity wrap across blocks.
    kernel = compile_attention(2, 300, 64)
    rng = np.random.default_rng(11)
    stored, (q, k, v) = inputs(rng, 2, 300, 64, 64, "f16")
    cut_grid(kernel, 2)
    (out,) = run_gpu_stage(kernel, *stored)
    assert rel_err(out, softmax_attention(q, k, v, 0.125)) < 2e-3


def test_hopper_causal_attention_walks_the_diagonal():
    # Causal: each block reads keys [0, m0 + 128) only (the producer walks
    # the same), the longest blocks first; on 1 program, blocks of 3 and 1
    # key steps alternate with 2 slots.
    kernel = tcc.compile(causal, "sm_90", B=2, S=300, D=64)
    assert len(kernel.kernels) == 1 and "mma = wgmma_m64nNk16" in kernel.ir["tile"]
    # Producer: the walk and its key loop; consumers: the walk, the keys
    # before the block (no mask) and its diagonal.
    assert kernel.ir["tile"].count("scf.for") == 5
    rng = np.random.default_rng(13)
    stored, (q, k, v) = inputs(rng, 2, 300, 64, 64, "f16")
    keep = np.tril(np.ones((300, 300), dtype=bool))
    ref = softmax_attention(q, k, v, 0.125, mask=keep)
    (out,) = run_gpu_stage(kernel, *stored)
    assert rel_err(out, ref) < 2e-3
    cut_grid(kernel, 1)
    (out,) = run_gpu_stage(kernel, *stored)
    assert rel_err(out, ref) < 2e-3


def test_a_wrong_transpose_flag_breaks_the_numbers(monkeypatch):
    # The emulator reads V through the flag the PTX gives: forcing the
    # K-major reading of an MN-major V must fail the comparison.
    import tcc.testing.hopper as hopper

    original = hopper.HopperState._operand

    def flipped(self, desc, rows, mn_major, dtype):  # noqa: ANN001, ANN202
        return original(self, desc, rows, False, dtype)

    kernel = compile_attention(1, 128, 64)
    rng = np.random.default_rng(3)
    stored, (q, k, v) = inputs(rng, 1, 128, 64, 64, "f16")
    monkeypatch.setattr(hopper.HopperState, "_operand", flipped)
    (out,) = run_gpu_stage(kernel, *stored)
    assert rel_err(out, softmax_attention(q, k, v, 0.125)) > 0.1
