"""Tensor-core GEMMs checked numerically without a GPU.

tcc.testing.simt runs the ``gpu`` stage on the CPU and executes its
warp-level ops by a warp rendezvous with the lane semantics of the ISA
documents: ``nvgpu.ldmatrix`` and ``nvvm.mma.sync`` m16n8k16 (sm_80, 32
lanes; sm_90 plans wgmma fed by TMA: test_hopper_emulation.py),
``rocdl.mfma.f32.16x16x16f16`` / ``bf16.1k`` and
``rocdl.mfma.f32.32x32x8f16`` / ``bf16.1k`` (gfx942, 64 lanes) and
``gpu.shuffle xor``. A lane-mapping bug in convert-tile-to-gpu's tensor-core
lowering therefore shows as wrong numbers; the last tests break the
emulator's maps on purpose to check that it does. Tolerances as in
test_gemm / benchmarks/gemm.py: relative Frobenius error against float64 on
the rounded operands, f16 2e-3, bf16 1e-2.
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import gemm_program
from tcc.runtime.artifact import ArgSpec, LaunchSpec
from tcc.testing import simt
from tcc.testing.simt import run_gpu_stage

TOLERANCE = {"f16": 2e-3, "bf16": 1e-2}
WARP_OPS = {
    "sm_80": ("nvgpu.ldmatrix", "nvvm.mma.sync"),
    "gfx942": ("rocdl.mfma.f32.32x32x8",),  # the default (auto) for 64 x 64 per wave
    "gfx942/16": ("rocdl.mfma.f32.16x16x16",),
}
# gfx942 with v_mfma_f32_16x16x16 forced (mfma_shape="16").
MFMA16 = {"mfma_shape": "16"}


def split(target):
    """"gfx942/16" -> ("gfx942", {"mfma_shape": "16"})."""
    return (target.split("/")[0], MFMA16) if target.endswith("/16") else (target, {})


def to_bf16(x):
    """float -> bf16 bits (uint16), rounded to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def operands(m, n, k, dtype, seed, bias, batch):
    """Random operands as the kernel stores them (bf16: bits) and their
    values in float64."""
    rng = np.random.default_rng(seed)
    lead = (batch,) if batch else ()
    data = [rng.standard_normal((*lead, m, k)), rng.standard_normal((*lead, k, n))]
    stored = [to_bf16(x) if dtype == "bf16" else x.astype(np.float16) for x in data]
    values = [(from_bf16(s) if dtype == "bf16" else s).astype(np.float64) for s in stored]
    if bias:
        stored.append(rng.standard_normal(n).astype(np.float32))
        values.append(stored[-1].astype(np.float64))
    return stored, values


def reference(a, b, bias=None):
    ref = a @ b
    if bias is not None:
        s = ref + bias
        ref = 0.5 * s * (1 + np.tanh(np.sqrt(2 / np.pi) * (s + 0.044715 * s**3)))
    return ref


def gemm_error(target, m, n, k, dtype, *, bias=False, batch=None, seed=0, **schedule):
    """The kernel and the relative error of its result, run through the gpu
    stage, against float64."""
    kernel = tcc_compile(gemm_program(m, n, k, dtype, bias_gelu=bias, batch=batch), target,
                         cache=False, **schedule)
    stored, values = operands(m, n, k, dtype, seed, bias, batch)
    (out,) = run_gpu_stage(kernel, *stored)
    out = (from_bf16(out) if dtype == "bf16" else out).astype(np.float64)
    assert not np.isnan(out).any()
    ref = reference(*values)
    return kernel, float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


# One whole 128 x 128 block over 2 K steps; partial blocks in M and N (2 x 2
# programs) over 3 K steps. gfx942: MFMA 32x32x8 (the default) and 16x16x16.
@pytest.mark.parametrize("target", ["sm_80", "gfx942", "gfx942/16"])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize(("m", "n", "k"), [(128, 128, 64), (200, 136, 96)])
def test_gemm_numerics(target, dtype, m, n, k):
    arch, schedule = split(target)
    kernel, err = gemm_error(arch, m, n, k, dtype, **schedule)
    assert all(op in kernel.ir["gpu"] for op in WARP_OPS[target])
    assert err < TOLERANCE[dtype]


# MFMA 32x32x8 with a bias + GELU epilogue on its 16-register accumulator,
# partial blocks in M and N, and 8 waves (4 along N: 32 columns each).
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("num_warps", [4, 8])
def test_mfma32_bias_gelu_numerics(dtype, num_warps):
    kernel, err = gemm_error("gfx942", 200, 136, 96, dtype, bias=True, seed=3,
                             num_warps=num_warps)
    assert "instrShape = [32, 32]" in kernel.ir["tile"]
    assert "rocdl.mfma.f32.32x32x8" in kernel.ir["gpu"]
    assert err < TOLERANCE[dtype]


def test_mfma_auto_keeps_16x16_for_narrow_wave_tiles():
    # 16 waves over a 128-wide block: 16 columns per wave, no 32x32 tile.
    kernel, err = gemm_error("gfx942", 64, 72, 48, "f16", num_warps=16)
    assert "instrShape = [16, 16]" in kernel.ir["tile"]
    assert "rocdl.mfma.f32.32x32x8" not in kernel.ir["gpu"]
    assert err < TOLERANCE["f16"]


# 1 stage: plain shared staging; 3: cp.async copies (sm_80) or register-staged
# prefetch (gfx942). K = 80 ends in a masked K tail; 33 x 17 x 5 is one
# partial block with K below one step.
@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
@pytest.mark.parametrize(("stages", "m", "n", "k"), [(1, 136, 72, 80), (3, 136, 72, 80),
                                                     (3, 33, 17, 5)])
def test_gemm_numerics_stages_and_tails(target, stages, m, n, k):
    _, err = gemm_error(target, m, n, k, "f16", seed=stages, num_stages=stages)
    assert err < TOLERANCE["f16"]


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_gemm_bias_gelu_numerics(target, dtype):
    kernel, err = gemm_error(target, 130, 72, 48, dtype, bias=True, seed=7)
    assert "math.tanh" in kernel.ir["tile"]  # the epilogue runs on the accumulator
    assert err < TOLERANCE[dtype]


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_batched_gemm_numerics(target):
    # batch x blocks programs on 2-D batch slices, a bias shared by the batch.
    kernel, err = gemm_error(target, 72, 136, 40, "bf16", bias=True, batch=2, seed=1)
    assert kernel.launch.grid == (4, 1, 1)
    assert err < TOLERANCE["bf16"]


# x @ w.T on sm_80: B read as stored [N, K] through column-major shared
# tiles and ldmatrix without .trans, in one kernel: whole and partial blocks,
# a K tail and K below one step, 1 and 3 stages, bf16, 16 warps (x2 reads),
# batched, and a bias + GELU epilogue.
@pytest.mark.parametrize(("m", "n", "k", "dtype", "batch", "bias", "schedule"), [
    (128, 128, 64, "f16", None, False, {}),
    (200, 136, 96, "bf16", None, False, {}),
    (136, 72, 80, "f16", None, False, {"num_stages": 1}),
    (33, 17, 8, "f16", None, False, {}),
    (64, 40, 48, "f16", None, False, {"num_warps": 16}),
    (72, 136, 40, "bf16", 2, True, {}),
])
def test_nt_gemm_reads_b_as_stored(m, n, k, dtype, batch, bias, schedule):
    kernel = tcc_compile(gemm_program(m, n, k, dtype, bias_gelu=bias, batch=batch, layout="nt"),
                         "sm_80", cache=False, **schedule)
    assert len(kernel.kernels) == 1  # no transpose kernel
    assert "order = [0, 1]}>" in kernel.ir["tile"]  # the column-major shared B
    assert "transpose = true" not in kernel.ir["gpu"]  # ldmatrix without .trans
    stored, values = operands(m, n, k, dtype, 11, bias, batch)
    # B as nn.Linear stores it: [batch?, N, K].
    stored[1] = np.ascontiguousarray(np.swapaxes(stored[1], -1, -2))
    (out,) = run_gpu_stage(kernel, *stored)
    out = (from_bf16(out) if dtype == "bf16" else out).astype(np.float64)
    ref = reference(*values)
    assert float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) < TOLERANCE[dtype]


CHAIN = """
#blkA = #tile.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [8, 4],
                        warpsPerCTA = [4, 1], order = [1, 0]}}>
#blkB = #tile.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8],
                        warpsPerCTA = [4, 1], order = [1, 0]}}>
#mma = #tile.nvidia_mma<{{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}}>
#sh = #tile.shared<{{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#opA = #tile.dot_operand<{{opIdx = 0, parent = #mma, kWidth = 2}}>
#opB = #tile.dot_operand<{{opIdx = 1, parent = #mma, kWidth = 2}}>
tile.func @pv(%q: memref<{m}x32x{t}>, %kt: memref<32x64x{t}>, %v: memref<64x32x{t}>,
              %o: memref<{m}x32xf32>) attributes {{grid_rank = 1 : i32,
    tcc.grid = array<i64: 1, 1, 1>, tcc.num_inputs = 3 : i32, tcc.num_warps = 4 : i32}} {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = tile.memref_load %q[%c0, %c0] : memref<{m}x32x{t}> -> tensor<{m}x32x{t}, #blkA>
  %as = tile.convert_layout %a : tensor<{m}x32x{t}, #blkA> -> tensor<{m}x32x{t}, #sh>
  %ao = tile.convert_layout %as : tensor<{m}x32x{t}, #sh> -> tensor<{m}x32x{t}, #opA>
  %b = tile.memref_load %kt[%c0, %c0] : memref<32x64x{t}> -> tensor<32x64x{t}, #blkB>
  %bs = tile.convert_layout %b : tensor<32x64x{t}, #blkB> -> tensor<32x64x{t}, #sh>
  %bo = tile.convert_layout %bs : tensor<32x64x{t}, #sh> -> tensor<32x64x{t}, #opB>
  %acc = tile.splat %zero : f32 -> tensor<{m}x64xf32, #mma>
  %s = tile.dot %ao, %bo, %acc : tensor<{m}x32x{t}, #opA>, tensor<32x64x{t}, #opB>
      -> tensor<{m}x64xf32, #mma>
  %p = arith.truncf %s : tensor<{m}x64xf32, #mma> to tensor<{m}x64x{t}, #mma>
  %pa = tile.convert_layout %p : tensor<{m}x64x{t}, #mma> -> tensor<{m}x64x{t}, #opA>
  %vv = tile.memref_load %v[%c0, %c0] : memref<64x32x{t}> -> tensor<64x32x{t}, #blkA>
  %vs = tile.convert_layout %vv : tensor<64x32x{t}, #blkA> -> tensor<64x32x{t}, #sh>
  %vo = tile.convert_layout %vs : tensor<64x32x{t}, #sh> -> tensor<64x32x{t}, #opB>
  %acc2 = tile.splat %zero : f32 -> tensor<{m}x32xf32, #mma>
  %out = tile.dot %pa, %vo, %acc2 : tensor<{m}x64x{t}, #opA>, tensor<64x32x{t}, #opB>
      -> tensor<{m}x32xf32, #mma>
  tile.memref_store %o[%c0, %c0], %out : memref<{m}x32xf32>, tensor<{m}x32xf32, #mma>
  tile.return
}}
"""


# Attention's P: one dot's accumulator, cast to f16 / bf16, as the next dot's
# A operand in registers (warps [4, 1]; 1 and 2 m tiles per warp).
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("m", [64, 128])
def test_accumulator_feeds_the_next_dot_in_registers(dtype, m):
    kernel = tcc_compile(CHAIN.format(m=m, t=dtype), "sm_80", cache=False)
    gpu = kernel.ir["gpu"]
    # Shared tiles for q, k and v only: P takes none, nor scratch.
    assert gpu.count("#gpu.address_space<workgroup>> {llvm.align") == 3
    rng = np.random.default_rng(m)
    data = [rng.standard_normal(s) * 0.3 for s in ((m, 32), (32, 64), (64, 32))]
    stored = [to_bf16(x) if dtype == "bf16" else x.astype(np.float16) for x in data]
    q, k, v = ((from_bf16(x) if dtype == "bf16" else x).astype(np.float64) for x in stored)
    (out,) = run_gpu_stage(kernel, *stored)
    p = q @ k  # rounded to the operand type, as the kernel's truncf does
    p = from_bf16(to_bf16(p)) if dtype == "bf16" else p.astype(np.float16)
    ref = p.astype(np.float64) @ v
    assert float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) < 1e-5


def test_gemm_numerics_16_warps():
    # 16 warps on a 64-wide block: one 8-column n tile per warp, read by
    # ldmatrix .x2.trans.
    kernel, err = gemm_error("sm_80", 64, 40, 48, "f16", num_warps=16)
    assert "numTiles = 2 : i32, transpose = true" in kernel.ir["gpu"]
    assert err < TOLERANCE["f16"]


LDMATRIX_STAGE = """module attributes {{gpu.container_module}} {{
  gpu.module @ld_module {{
    gpu.func @ld(%arg0: memref<32x8xf16>, %arg1: memref<32x{regs}xf16>) workgroup(%arg2 : \
memref<32x8xf16, #gpu.address_space<workgroup>>) kernel attributes {{tcc.threads = 32 : i32}} {{
      %c0 = arith.constant 0 : index
      %thread_id_x = gpu.thread_id  x
      %0 = vector.load %arg0[%thread_id_x, %c0] : memref<32x8xf16>, vector<8xf16>
      vector.store %0, %arg2[%thread_id_x, %c0] : \
memref<32x8xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      gpu.barrier
      %1 = nvgpu.ldmatrix %arg2[%thread_id_x, %c0] {{numTiles = {tiles} : i32, \
transpose = {trans}}} : memref<32x8xf16, #gpu.address_space<workgroup>> -> vector<{tiles}x2xf16>
{stores}
      gpu.return
    }}
  }}
}}
"""


@pytest.mark.parametrize("tiles", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_forms(tiles, trans):
    # Lane l supplies row l of the 32 x 8 input: matrix j is rows 8j..8j+7.
    # Each 8 x 8 matrix (transposed with .trans) reaches the lanes as 32 pairs
    # in row-major order, pair l in lane l.
    regs = 2 * tiles
    stores = "\n".join(
        f"      %r{j} = vector.extract %1[{j}] : vector<2xf16> from vector<{tiles}x2xf16>\n"
        f"      %o{j} = arith.constant {2 * j} : index\n"
        f"      vector.store %r{j}, %arg1[%thread_id_x, %o{j}] : memref<32x{regs}xf16>, "
        "vector<2xf16>" for j in range(tiles))
    stage = LDMATRIX_STAGE.format(tiles=tiles, regs=regs, trans=str(trans).lower(),
                                  stores=stores)
    kernel = SimpleNamespace(
        name="ld", target="sm_80", ir={"gpu": stage},
        launch=LaunchSpec(block=(32, 1, 1), grid=(1, 1, 1)),
        args=(ArgSpec("a", "pointer", "f16", (32, 8)),
              ArgSpec("out", "pointer", "f16", (32, regs), role="output")))
    a = np.arange(32 * 8, dtype=np.float16).reshape(32, 8)
    (out,) = run_gpu_stage(kernel, a)
    for j in range(tiles):
        matrix = a[8 * j : 8 * j + 8]
        pairs = (matrix.T if trans else matrix).reshape(32, 2)
        np.testing.assert_array_equal(out[:, 2 * j : 2 * j + 2], pairs)


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_softmax_shuffle_numerics(target):
    # Row reductions across lanes by gpu.shuffle xor (a warp per row).
    src = ("func.func @sm(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {\n"
           "  %y = tcc.softmax %x dim = 1 : tensor<64x256xf32>\n"
           "  return %y : tensor<64x256xf32>\n}\n")
    kernel = tcc_compile(src, target, cache=False)
    assert "gpu.shuffle  xor" in kernel.ir["gpu"]
    x = np.random.default_rng(3).standard_normal((64, 256)).astype(np.float32) * 4
    (out,) = run_gpu_stage(kernel, x)
    e = np.exp(x - x.max(axis=1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


# The emulator is an independent check: break one lane map of its ISA model
# (two lanes trade their elements) and the same GEMMs come out wrong.
def swap_lanes(lane_map, first=5, second=22):
    def swapped(lane, *rest):
        return lane_map({first: second, second: first}.get(lane, lane), *rest)

    return swapped


@pytest.mark.parametrize(("target", "op", "operand"), [
    ("sm_80", "mma_m16n8k16_f16", "a"),
    ("sm_80", "mma_m16n8k16_f16", "b"),
    ("sm_80", "mma_m16n8k16_f16", "c"),
    ("gfx942/16", "mfma_16x16x16_f16", "a"),
    ("gfx942/16", "mfma_16x16x16_f16", "b"),
    ("gfx942/16", "mfma_16x16x16_f16", "c"),
    ("gfx942", "mfma_32x32x8_f16", "a"),
    ("gfx942", "mfma_32x32x8_f16", "b"),
    ("gfx942", "mfma_32x32x8_f16", "c"),
])
def test_a_wrong_mma_lane_map_gives_wrong_numbers(monkeypatch, target, op, operand):
    mma = simt.WARP_MMAS[op]
    wrong = dataclasses.replace(mma, **{operand: swap_lanes(getattr(mma, operand))})
    monkeypatch.setitem(simt.WARP_MMAS, op, wrong)
    arch, schedule = split(target)
    kernel, err = gemm_error(arch, 64, 64, 32, "f16", **schedule)
    assert all(op in kernel.ir["gpu"] for op in WARP_OPS[target])
    assert err > 0.05


@pytest.mark.parametrize("trans", [False, True])
def test_a_wrong_ldmatrix_map_gives_wrong_numbers(monkeypatch, trans):
    # ldmatrix (A) / ldmatrix.trans (B) with two lanes' fragments traded.
    right = simt.ptx_ldmatrix

    def wrong(lane, matrix, i, transposed):
        if transposed == trans:
            lane = {5: 22, 22: 5}.get(lane, lane)
        return right(lane, matrix, i, transposed)

    monkeypatch.setattr(simt, "ptx_ldmatrix", wrong)
    _, err = gemm_error("sm_80", 64, 64, 32, "f16")
    assert err > 0.05


def test_gemm_epilogue_reads_a_per_row_vector():
    # A per-row operand of the epilogue ((x @ w) * r[:, None]) loads in the
    # accumulator's row slice, whose two rows per thread are 8 apart (g and
    # g + 8), not a contiguous pair: each is its own load.
    import tcc
    from tcc.frontend import Tensor, f16, program, syms

    M, N, K = syms("M N K")

    @program
    def row_scaled(x: Tensor[M, K, f16], w: Tensor[K, N, f16], r: Tensor[M, f16]):
        return (x @ w) * r.reshape(M, 1)

    kernel = tcc.compile(row_scaled, "sm_80", M=80, N=64, K=32)
    assert len(kernel.kernels) == 1
    rng = np.random.default_rng(21)
    x, w, r = (rng.standard_normal(s).astype(np.float16) for s in ((80, 32), (32, 64), (80,)))
    (out,) = run_gpu_stage(kernel, x, w, r)
    ref = (x.astype(np.float64) @ w.astype(np.float64)) * r.astype(np.float64)[:, None]
    assert float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) < 2e-3
