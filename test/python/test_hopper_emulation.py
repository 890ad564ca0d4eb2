"""The Hopper GEMM's numerics without a GPU: sm_90 kernels (wgmma fed by TMA
through mbarriers, warp-specialized, persistent) run on the CPU emulator
(tcc.testing.simt with tcc.testing.hopper), against float64 numpy. The
emulator decodes the matrix descriptors, the 128-byte swizzle, the
accumulator fragments and the TMA boxes from the PTX ISA, so a wrong
descriptor, transpose flag, box coordinate or barrier count in the lowering
shows up as wrong numbers or a failed wait."""

import math
import re

import numpy as np
import pytest

import tcc.testing.hopper as hopper
from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import gemm_program
from tcc.runtime.errors import ArgumentError
from tcc.runtime.launcher import CompiledKernel
from tcc.testing.simt import run_gpu_stage


def _inputs(shapes, dtype, seed=0):
    """(storage arrays, their float64 values): f16 as float16, bf16 as bits."""
    rng = np.random.default_rng(seed)
    store, exact = [], []
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        if dtype == "bf16":
            bits = (x.view(np.uint32) >> 16).astype(np.uint16)
            store.append(bits)
            exact.append((bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
        else:
            h = x.astype(np.float16)
            store.append(h)
            exact.append(h.astype(np.float64))
    return store, exact


def _values(out, dtype):
    if dtype == "bf16":
        return (out.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return out.astype(np.float64)


def _check(out, ref, dtype, roundings=1):
    got = _values(out, dtype)
    assert not np.isnan(got).any(), "elements left unwritten"
    # Roundings to the output type (8 / 11 significant bits) plus f32 sums.
    rel = roundings * 2.0 ** (-8 if dtype == "bf16" else -11)
    np.testing.assert_allclose(got, ref, rtol=rel, atol=rel * np.abs(ref).max())


def _gemm(m, n, k, dtype, layout, **kw):
    kernel = tcc_compile(gemm_program(m, n, k, dtype, layout=layout, **kw), "sm_90",
                         cache=False)
    assert "wgmma.mma_async" in kernel.asm and "cp.async.bulk.tensor" in kernel.asm
    return kernel


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["nn", "nt", "tn"])
def test_ragged_gemm_matches_float64(layout, dtype):
    # M, N, K all ragged against the 128 x 128 x 64 block: the TMA unit's
    # zero fill along K and the clipped TMA stores of the last blocks.
    m, n, k = 192, 136, 80
    kernel = _gemm(m, n, k, dtype, layout)
    shapes = [(k, m) if layout == "tn" else (m, k), (n, k) if layout == "nt" else (k, n)]
    store, (a, b) = _inputs(shapes, dtype)
    out = run_gpu_stage(kernel, *store)[0]
    lhs = a.T if layout == "tn" else a
    rhs = b.T if layout == "nt" else b
    _check(out, lhs @ rhs, dtype)


@pytest.mark.parametrize(("layout", "m", "n", "k", "dtype", "batch", "copies"), [
    # B [80, 134]: rows of 268 bytes, no TMA box: 4-byte cp.async runs.
    ("nn", 192, 134, 80, "f16", None, 4),
    ("nn", 192, 134, 80, "bf16", None, 4),
    # A [84, 132] (264 bytes, 8-byte runs) copied M-major, B by TMA.
    ("tn", 132, 136, 84, "f16", None, 4),
    # A [130, 84] and B [136, 84]: both copied along K, no TMA load at all.
    ("nt", 130, 136, 84, "bf16", None, 8),
    # One of a batch (rank-3 boxes go through registers).
    ("nn", 128, 100, 72, "f16", 2, 4),
])
def test_operands_tma_cannot_read_are_copied(layout, m, n, k, dtype, batch, copies):
    # The producer warpgroup copies those boxes into the swizzled slots
    # (tile.box_copy), each thread's part an arrival on the slot's barrier;
    # wrong rows, swizzle or arrival counts give wrong numbers or a failed
    # wait.
    kernel = tcc_compile(gemm_program(m, n, k, dtype, layout=layout, batch=batch), "sm_90",
                         cache=False)
    assert "wgmma.mma_async" in kernel.asm
    assert kernel.ir["tile"].count("tile.box_copy") == copies
    if batch is None:
        assert "cp.async.mbarrier.arrive.noinc.shared.b64" in kernel.asm
    lead = (batch,) if batch else ()
    shapes = [lead + ((k, m) if layout == "tn" else (m, k)),
              lead + ((n, k) if layout == "nt" else (k, n))]
    store, (a, b) = _inputs(shapes, dtype, seed=11)
    out = run_gpu_stage(kernel, *store)[0]
    lhs = np.swapaxes(a, -1, -2) if layout == "tn" else a
    rhs = np.swapaxes(b, -1, -2) if layout == "nt" else b
    _check(out, lhs @ rhs, dtype)


def test_one_consumer_warpgroup():
    # 64 rows: a [64, 128] block on one consumer warpgroup (8 warps).
    kernel = _gemm(64, 256, 128, "bf16", "nt")
    assert "num_warps = 8" in kernel.ir["tile"] and kernel.launch.block == (256, 1, 1)
    store, (a, b) = _inputs([(64, 128), (256, 128)], "bf16", seed=7)
    _check(run_gpu_stage(kernel, *store)[0], a @ b.T, "bf16")


def test_dual_gemm_with_a_tile_operand():
    # silu(a) * b + r on [64, 64] blocks of one consumer warpgroup: two
    # accumulators per thread and r read onto their layout.
    from tcc.frontend import Tensor, f16, program, silu

    @program
    def gate_res(x: Tensor[128, 128, f16], w1: Tensor[128, 128, f16],
                 w3: Tensor[128, 128, f16], r: Tensor[128, 128, f16]):
        return silu(x @ w1.T) * (x @ w3.T) + r

    import tcc

    k = tcc.compile(gate_res, "sm_90", cache=False)
    assert k.ir["tile"].count("tile.warpgroup_dot") == 2
    store, (x, w1, w3, r) = _inputs([(128, 128)] * 4, "f16", seed=8)
    scaled = [s * np.float16(0.25) for s in store[:3]] + [store[3]]
    out = run_gpu_stage(k, *scaled)[0]
    x, w1, w3 = (v * 0.25 for v in (x, w1, w3))
    g = x @ w1.T
    _check(out, g / (1 + np.exp(-g)) * (x @ w3.T) + r, "f16", roundings=2)


def test_persistent_walk_covers_more_tiles_than_programs():
    # 2 x 3 tiles of 128 x 128 with the grid cut to 2 programs: each walks
    # 3 tiles (grouped order) through one running k-step counter, so the
    # slots and phases wrap across tiles (5 k steps a tile, 4 slots).
    from dataclasses import replace

    kernel = _gemm(256, 384, 320, "f16", "nt")
    store, (a, b) = _inputs([(256, 320), (384, 320)], "f16", seed=1)
    _check(run_gpu_stage(kernel, *store)[0], a @ b.T, "f16")
    art = kernel.artifact.kernels[0]
    cut = replace(art, launch=replace(art.launch, grid=(2, 1, 1)))
    object.__setattr__(kernel, "artifact", replace(kernel.artifact, kernels=(cut,)))
    _check(run_gpu_stage(kernel, *store)[0], a @ b.T, "f16")


def test_batched_bias_gelu_epilogue():
    kernel = _gemm(128, 192, 64, "bf16", "nt", batch=2, bias_gelu=True)
    store, (a, b) = _inputs([(2, 128, 64), (2, 192, 64)], "bf16", seed=2)
    bias = np.random.default_rng(3).standard_normal(192).astype(np.float32)
    out = run_gpu_stage(kernel, *store, bias)[0]
    s = a @ b.transpose(0, 2, 1) + bias
    gelu = 0.5 * s * (1 + np.tanh(math.sqrt(2 / math.pi) * (s + 0.044715 * s ** 3)))
    _check(out, gelu, "bf16")


def test_f32_result_stored_from_registers():
    text = gemm_program(128, 256, 128, "f16").replace(
        "  %r = tcc.cast %p : tensor<128x256xf32> to tensor<128x256xf16>\n", "").replace(
        "return %r : tensor<128x256xf16>", "return %p : tensor<128x256xf32>").replace(
        "-> tensor<128x256xf16> {", "-> tensor<128x256xf32> {")
    kernel = tcc_compile(text, "sm_90", cache=False)
    assert "wgmma.mma_async" in kernel.asm and "global.shared::cta" not in kernel.asm
    store, (a, b) = _inputs([(128, 128), (128, 256)], "f16", seed=4)
    out = run_gpu_stage(kernel, *store)[0]
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-4)


def test_swiglu_dual_gemm_program():
    import tcc
    import tcc.frontend as tf
    from tcc.frontend import Tensor, f16, program

    @program
    def swiglu(x: Tensor[128, 128, f16], w1: Tensor[128, 128, f16],
               w3: Tensor[128, 128, f16], w2: Tensor[128, 128, f16]) -> Tensor[128, 128, f16]:
        return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T

    k = tcc.compile(swiglu, "sm_90", cache=False)
    assert len(k.kernels) == 2 and all("wgmma" in part.asm for part in k.kernels)
    store, (x, w1, w3, w2) = _inputs([(128, 128)] * 4, "f16", seed=5)
    out = run_gpu_stage(k, *[s * np.float16(0.25) for s in store])[0]
    x, w1, w3, w2 = (v * 0.25 for v in (x, w1, w3, w2))
    g = x @ w1.T
    # The hidden activation is rounded to f16 between the two kernels.
    h = ((g / (1 + np.exp(-g))) * (x @ w3.T)).astype(np.float16).astype(np.float64)
    # (an element of h one f16 ulp off moves its sums by that much).
    _check(out, h @ w2.T, "f16", roundings=4)


def test_a_wrong_transpose_flag_gives_wrong_numbers():
    # B read as N-major where it is K-major: the emulator reads the slot as
    # the ISA says, so the numbers break (they would on the GPU).
    kernel = _gemm(128, 128, 64, "f16", "nt")
    store, (a, b) = _inputs([(128, 64), (128, 64)], "f16", seed=6)
    assert "B[<f16>, <one>, <col>]" in kernel.ir["gpu"]
    kernel.ir["gpu"] = kernel.ir["gpu"].replace("B[<f16>, <one>, <col>]", "B[<f16>, <one>, <row>]")
    out = _values(run_gpu_stage(kernel, *store)[0], "f16")
    assert not np.allclose(out, a @ b.T, rtol=1e-2, atol=1e-1)


def test_a_missing_arrival_is_a_failed_wait(monkeypatch):
    # Without the consumers' arrivals the producer waits for a free slot
    # forever: the launch fails naming the barrier (no hang).
    monkeypatch.setattr(hopper, "WAIT_S", 5.0)
    kernel = _gemm(128, 128, 512, "f16", "nn")
    lines = kernel.ir["gpu"].splitlines()
    kernel.ir["gpu"] = "\n".join(line for line in lines
                                 if not line.strip().startswith("nvvm.mbarrier.arrive %"))
    store, _ = _inputs([(128, 512), (512, 128)], "f16")
    # (A 2 x 1 cluster of 64 x 128 blocks: the first wait to time out may be
    # a finished program's at the cluster barrier.)
    with pytest.raises(RuntimeError, match="never completed|threads arrived"):
        run_gpu_stage(kernel, *store)


PINGPONG = ("#tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, "
            "num_stages = 4, mma = wgmma_m64nNk16, consumers = pingpong>")


def _cut_grid(kernel, programs):
    """The same kernel launched on fewer programs (each walks more tiles)."""
    from dataclasses import replace

    art = kernel.artifact.kernels[0]
    cut = replace(art, launch=replace(art.launch, grid=(programs, 1, 1)))
    object.__setattr__(kernel, "artifact", replace(kernel.artifact, kernels=(cut,)))


@pytest.mark.parametrize(("layout", "dtype"), [("nt", "f16"), ("tn", "bf16")])
def test_pingpong_consumers_take_tiles_in_turn(layout, dtype):
    # consumers = pingpong: each warpgroup a whole 128 x 128 block. 2 x 3
    # tiles (ragged N and K) on 2 programs: warpgroup 0 of program 0 runs
    # tiles 0 and 4, warpgroup 1 tile 2, each staging its TMA stores in its
    # own slot and skipping the other's k steps.
    m, n, k = 256, 328, 200
    kernel = tcc_compile(gemm_program(m, n, k, dtype, layout=layout), "sm_90", cache=False,
                         plans={"gemm": PINGPONG})
    assert "consumers = pingpong" in kernel.ir["tile"]
    assert "tcc.consumer_groups = 2" in kernel.ir["gpu"]
    _cut_grid(kernel, 2)
    shapes = [(k, m) if layout == "tn" else (m, k), (n, k) if layout == "nt" else (k, n)]
    store, (a, b) = _inputs(shapes, dtype, seed=9)
    lhs = a.T if layout == "tn" else a
    rhs = b.T if layout == "nt" else b
    _check(run_gpu_stage(kernel, *store)[0], lhs @ rhs, dtype)


def test_pingpong_bias_gelu_epilogue():
    kernel = tcc_compile(gemm_program(384, 256, 128, "bf16", layout="nt", bias_gelu=True),
                         "sm_90", cache=False, plans={"gemm": PINGPONG})
    _cut_grid(kernel, 1)  # one program, both warpgroups, 6 tiles
    store, (a, b) = _inputs([(384, 128), (256, 128)], "bf16", seed=10)
    bias = np.random.default_rng(11).standard_normal(256).astype(np.float32)
    s = a @ b.T + bias
    gelu = 0.5 * s * (1 + np.tanh(math.sqrt(2 / math.pi) * (s + 0.044715 * s ** 3)))
    _check(run_gpu_stage(kernel, *store, bias)[0], gelu, "bf16")


CLUSTER = ("#tile.lowering_config<form = matmul, block = [{block}], num_warps = 12, "
           "num_stages = {stages}, mma = wgmma_m64nNk16, cluster = [{cluster}]>")


@pytest.mark.parametrize(("layout", "dtype", "block", "stages", "cluster", "mnk", "programs"), [
    # B's two 128-column chunks multicast, one by each program of the pair.
    ("nn", "f16", "128, 256, 64", 4, "2, 1", (256, 512, 128), None),
    # A's one chunk split by rows (64 each, `{row = 64}` boxes); ragged N, K.
    ("nt", "bf16", "128, 256, 64", 4, "1, 2", (256, 392, 136), None),
    # One cluster walking 2 x 2 blocks of tiles (ragged M): slots and
    # phases, local and remote, wrap across its cluster blocks.
    ("tn", "f16", "128, 128, 64", 4, "2, 1", (448, 256, 200), 2),
])
def test_cluster_gemms_match_float64(layout, dtype, block, stages, cluster, mnk, programs):
    # A cluster's programs run at once on the emulator, each with its own
    # shared memory: multicast TMA loads, empty-slot arrivals on the peers'
    # barriers (mapa), the cluster barriers.
    m, n, k = mnk
    plan = CLUSTER.format(block=block, stages=stages, cluster=cluster)
    kernel = tcc_compile(gemm_program(m, n, k, dtype, layout=layout), "sm_90", cache=False,
                         plans={"gemm": plan})
    gpu = kernel.ir["gpu"]
    assert "multicast_mask" in gpu and "nvvm.mapa" in gpu and "nvvm.cluster.wait" in gpu
    if programs:
        _cut_grid(kernel, programs)
    shapes = [(k, m) if layout == "tn" else (m, k), (n, k) if layout == "nt" else (k, n)]
    store, (a, b) = _inputs(shapes, dtype, seed=12)
    lhs = a.T if layout == "tn" else a
    rhs = b.T if layout == "nt" else b
    _check(run_gpu_stage(kernel, *store)[0], lhs @ rhs, dtype)


CLUSTER_FAILED = r"cluster of programs 0-1: .*(never completed|threads arrived)"


def _cluster_kernel():
    plan = CLUSTER.format(block="128, 128, 64", stages=4, cluster="2, 1")
    return tcc_compile(gemm_program(256, 256, 320, "f16"), "sm_90", cache=False,
                       plans={"gemm": plan})


def test_a_multicast_to_one_program_is_a_failed_wait(monkeypatch):
    # B's box multicast only to its issuer: the peer's slot never receives
    # its bytes and its consumers wait forever (the launch fails, no hang:
    # the first wait to time out may be the issuer's at the cluster barrier).
    monkeypatch.setattr(hopper, "WAIT_S", 5.0)
    kernel = _cluster_kernel()
    gpu = kernel.ir["gpu"]
    assert "%c3_i16 = arith.constant 3 : i16" in gpu
    kernel.ir["gpu"] = gpu.replace("%c3_i16 = arith.constant 3 : i16",
                                   "%c3_i16 = arith.constant 1 : i16")
    store, _ = _inputs([(256, 320), (320, 256)], "f16")
    with pytest.raises(RuntimeError, match=CLUSTER_FAILED):
        run_gpu_stage(kernel, *store)


def test_local_only_slot_release_is_a_failed_wait(monkeypatch):
    # Empty-slot arrivals only on the program's own barrier (mapa to rank 0
    # for both): a slot waits for the peer's consumers forever.
    monkeypatch.setattr(hopper, "WAIT_S", 5.0)
    kernel = _cluster_kernel()
    gpu = kernel.ir["gpu"]
    assert re.search(r"nvvm\.mapa %\w+, %c1_i32", gpu)
    kernel.ir["gpu"] = re.sub(r"(nvvm\.mapa %\w+), %c1_i32", r"\1, %c0_i32", gpu)
    store, _ = _inputs([(256, 320), (320, 256)], "f16")
    with pytest.raises(RuntimeError, match=CLUSTER_FAILED):
        run_gpu_stage(kernel, *store)


SPLIT_K = ("#tile.lowering_config<form = matmul, block = [128, {bn}, 64], num_warps = 12, "
           "num_stages = 4, mma = wgmma_m64nNk16{cluster}, split_k = {splits}>")


@pytest.mark.parametrize(("layout", "dtype", "mnk", "splits", "bn", "cluster", "programs"), [
    # 4 tiles x 2 splits of 7 k steps (3 + 4), one item per program.
    ("nt", "f16", (192, 136, 400), 2, 128, "", None),
    # 6 tiles x 3 splits on 3 programs: each walks 6 items, the splits of
    # one tile on different programs; ragged M, N, K.
    ("nn", "bf16", (200, 264, 520), 3, 128, "", 3),
    # A pair of programs (multicast B) per cluster tile, each its own
    # counter; 9 k steps in 4 uneven splits.
    ("tn", "f16", (256, 384, 544), 4, 128, ", cluster = [2, 1]", None),
])
def test_split_k_gemms_match_float64(layout, dtype, mnk, splits, bn, cluster, programs):
    # split_k: each program's f32 partial into the workspace, the tile's
    # counter (atomic add), and the last arrival (bar.red.or) summing the
    # partials and storing the tile; the counters start at zero.
    m, n, k = mnk
    plan = SPLIT_K.format(bn=bn, cluster=cluster, splits=splits)
    kernel = tcc_compile(gemm_program(m, n, k, dtype, layout=layout), "sm_90", cache=False,
                         plans={"gemm": plan})
    assert "tcc.workspace = array<i32: 0, 1>" in kernel.ir["gpu"]
    assert "bar.red.or.pred" in kernel.asm and "atom.global.add.u32" in kernel.asm
    art = kernel.artifact
    assert [a.role for a in art.kernels[0].args][-2:] == ["workspace", "workspace"]
    assert len(art.zeroed) == 1 and art.buffers[art.zeroed[0]] % 4 == 0
    # Launched on its own, the kernel would find no zeroed counters.
    with pytest.raises(ArgumentError, match="workspace"):
        CompiledKernel(art.kernels[0]).bind([])
    if programs:
        _cut_grid(kernel, programs)
    shapes = [(k, m) if layout == "tn" else (m, k), (n, k) if layout == "nt" else (k, n)]
    store, (a, b) = _inputs(shapes, dtype, seed=21)
    lhs = a.T if layout == "tn" else a
    rhs = b.T if layout == "nt" else b
    _check(run_gpu_stage(kernel, *store)[0], lhs @ rhs, dtype)


def test_split_k_bias_gelu_epilogue_runs_once_per_tile():
    # The epilogue (bias, GELU, the cast) on the summed accumulator only:
    # applied per split it would add the bias S times.
    plan = SPLIT_K.format(bn=128, cluster="", splits=2)
    kernel = tcc_compile(gemm_program(256, 256, 384, "bf16", layout="nt", bias_gelu=True),
                         "sm_90", cache=False, plans={"gemm": plan})
    store, (a, b) = _inputs([(256, 384), (256, 384)], "bf16", seed=22)
    bias = np.random.default_rng(23).standard_normal(256).astype(np.float32)
    s = a @ b.T + bias
    gelu = 0.5 * s * (1 + np.tanh(math.sqrt(2 / math.pi) * (s + 0.044715 * s ** 3)))
    _check(run_gpu_stage(kernel, *store, bias)[0], gelu, "bf16")


def test_split_k_without_the_last_arrival_stores_nothing(monkeypatch):
    # Only the program the barrier's OR names last runs the epilogue: with
    # the reduction broken (no thread told), no tile is stored at all.
    original = hopper.HopperState.bar_red_or
    monkeypatch.setattr(hopper.HopperState, "bar_red_or",
                        lambda self, ident, count, p: original(self, ident, count, 0))
    plan = SPLIT_K.format(bn=128, cluster="", splits=2)
    kernel = tcc_compile(gemm_program(128, 128, 256, "f16", layout="nn"), "sm_90", cache=False,
                         plans={"gemm": plan})
    store, _ = _inputs([(128, 256), (256, 128)], "f16", seed=24)
    assert np.isnan(run_gpu_stage(kernel, *store)[0].astype(np.float32)).all()


def test_split_k_kernel_in_a_whole_program():
    # A split-K GEMM as one kernel of a program (its softmax the next): the
    # host plan gives the launch its workspace after the result, in slots of
    # its own (the counters zero-filled), and tcc.launch's check leaves the
    # workspace out of the kernel's operands.
    src = """func.func @mlp(%a: tensor<128x256xf16>, %b: tensor<256x128xf16>)
    -> tensor<128x128xf32> {
  %p = tcc.matmul %a, %b acc(f32) : tensor<128x256xf16>, tensor<256x128xf16> -> tensor<128x128xf32>
  %s = tcc.softmax %p dim = 1 : tensor<128x128xf32>
  return %s : tensor<128x128xf32>
}"""
    plan = SPLIT_K.format(bn=128, cluster="", splits=2)
    kernel = tcc_compile(src, "sm_90", cache=False, plans={"mlp_k0": plan})
    art = kernel.artifact
    assert len(art.kernels) == 2 and len(art.steps[0].args) == 5
    assert art.buffers == (128 * 128 * 4, 2 * 128 * 128 * 4, 4) and art.zeroed == (2,)
    store, (a, b) = _inputs([(128, 256), (256, 128)], "f16", seed=25)
    p = a @ b
    e = np.exp(p - p.max(1, keepdims=True))
    np.testing.assert_allclose(run_gpu_stage(kernel, *store)[0], e / e.sum(1, keepdims=True),
                               rtol=1e-3, atol=1e-5)
