"""The Hopper GEMM (sm_90: wgmma fed by TMA, warp-specialized, persistent)
checked without a GPU: what the PTX holds, what ptxas makes of it (HGMMA, no
spills), the tensor maps the runtime passes, the whole programs that use it.
Its numerics: test_hopper_emulation.py on the CPU emulator, and
benchmarks/hopper_gemm.py on an H100/H200."""

import ctypes
import re

import pytest

import tcc
from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import gemm_program
from tcc.runtime.artifact import KernelArtifact, TensorMapSpec
from tcc.runtime.launcher import pack_args
from tcc.testing.cuda_tools import assemble


def compile_gemm(m, n, k, dtype="f16", **kw):
    return tcc_compile(gemm_program(m, n, k, dtype, **kw), "sm_90", cache=False)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize(("layout", "trans_a", "trans_b"),
                         [("nn", 0, 1), ("nt", 0, 0), ("tn", 1, 1)])
def test_sm90_gemm_is_wgmma_fed_by_tma(dtype, layout, trans_a, trans_b):
    k = compile_gemm(2048, 2048, 256, dtype, layout=layout)
    assert len(k.kernels) == 1  # no transpose kernel: TMA and wgmma read the layout
    ptx = k.asm
    assert ".target sm_90a" in ptx and "mma.sync" not in ptx
    # 128 x 256 blocks (128 of them, one program each): m64n256k16 on two
    # consumer warpgroups, four k steps of 16 per 64-deep slot.
    mma = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.{dtype}\.{dtype}"
                     r" \{[^}]*\}, %rd\d+, %rd\d+, p, 1,\s*1, (\d),\s*(\d);", ptx)
    assert mma and set(mma) == {(str(trans_a), str(trans_b))}
    assert re.search(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile"
                     r"\.mbarrier::complete_tx::bytes", ptx)
    assert "mbarrier.try_wait.parity.shared.b64" in ptx
    # The producer announces each step's bytes; consumers free slots, in
    # both programs of the 2 x 1 cluster (the strategy's default here: B's
    # boxes multicast to the two programs along M).
    assert "mbarrier.arrive.expect_tx.shared.b64" in ptx
    assert "mbarrier.arrive.shared::cluster.b64" in ptx
    assert ".reqnctapercluster 2, 1, 1" in ptx and "multicast::cluster" in ptx
    # The producer's leader fetches the three tensor maps first.
    assert ptx.count("prefetch.param.tensormap") == 3
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    # One block per SM at most (setmaxnreg's register cap) and the three
    # tensor maps (A, B, C) as 128-byte by-value parameters.
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx
    assert len(re.findall(r"\.param \.align 64 \.b8 \w+\[128\]", ptx)) == 3
    # C leaves through shared memory: two rounds of two 64-column chunks
    # (TMA stores from shared::cta, bulk groups), the consumers meeting on
    # named barrier 1 (256 threads; the producer never reaches it).
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group") == 4
    assert "fence.proxy.async.shared::cta;" in ptx and "bar.sync \t1, 256;" in ptx
    assert "cp.async.bulk.wait_group.read \t0;" in ptx
    assert k.launch.block == (384, 1, 1) and k.launch.grid == (128, 1, 1)
    maps = k.artifact.kernels[0].tensor_maps
    a_box = (64, 64) if layout == "tn" else (128, 64)
    b_box = (128, 64) if layout == "nt" else (64, 64)  # B [N, K]: half the rows each
    assert maps == (TensorMapSpec(0, a_box, 128), TensorMapSpec(1, b_box, 128),
                    TensorMapSpec(2, (128, 64), 128))


def test_sass_has_hgmma_and_no_spills():
    ptx = compile_gemm(4096, 4096, 4096).asm
    report, sass = assemble(ptx, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report, report
    assert re.search(r"HGMMA\.64x256x16\.F32", sass)
    assert "HMMA" not in sass and "STL" not in sass
    assert "C7508" not in report  # setmaxnreg honoured (no "ignored" warning)


@pytest.mark.parametrize("layout", ["nn", "tn"])
def test_rows_tma_cannot_box_are_copied_with_cp_async(layout):
    # 3000 x 1500 x 776: B [776, 1500] (3000-byte rows) has no tensor map;
    # the producer warpgroup copies its boxes with 8-byte cp.async runs and
    # cp.async.mbarrier.arrive.noinc, keeping 104 registers (the consumers
    # 200); A still comes by TMA (in TN too: [776, 3000], 6000-byte rows).
    k = compile_gemm(3000, 1500, 776, "f16", layout=layout)
    assert len(k.kernels) == 1
    ptx = k.asm
    assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx
    assert re.search(r"cp\.async\.ca\.shared\.global \[%rd\d+(\+\d+)?\], "
                     r"\[%rd\d+(\+\d+)?\], 8;", ptx)
    assert "cp.async.mbarrier.arrive.noinc.shared.b64" in ptx
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+104;", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+200;", ptx)
    assert "fence.proxy.async.shared::cta;" in ptx
    # One tensor map (A's); the 3000-byte rows of C leave by per-thread stores.
    assert [m.operand for m in k.artifact.kernels[0].tensor_maps] == [0]
    report, sass = assemble(ptx, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report, report
    assert re.search(r"HGMMA\.64x128x16\.F32", sass) and "LDGSTS" in sass


@pytest.mark.parametrize(("m", "n", "k", "layout"), [
    # N = 4095 f16: 8190-byte rows are neither a TMA box nor whole 4-byte
    # cp.async runs; the mma.sync plan reads them (measured faster than
    # copying them through registers for wgmma, docs/hopper-gemm.md).
    (4097, 4095, 4096, "nn"),
    # K = 778 in x @ w.T: 1556-byte rows copied along K would need 4-byte
    # runs, whose row addresses spilled the producer's registers.
    (3000, 1500, 778, "nt"),
])
def test_rows_wgmma_cannot_copy_take_mma_sync(m, n, k, layout):
    kernel = compile_gemm(m, n, k, "f16", layout=layout)
    assert "mma.sync" in kernel.asm and "wgmma" not in kernel.asm


@pytest.mark.parametrize(("m", "n", "k", "layout", "block", "regs"), [
    # B copied along N with a bias + GELU epilogue: 128 x 256, 104 / 200.
    (4096, 4094, 1024, "nn", "128, 256", ("104", "200")),
    # Both operands copied along K: 128 x 128 at most, 120 / 192.
    (4096, 4096, 1500, "nt", "128, 128", ("120", "192")),
])
def test_copying_producers_fit_their_registers(m, n, k, layout, block, regs):
    kernel = tcc_compile(gemm_program(m, n, k, "bf16", layout=layout, bias_gelu=True),
                         "sm_90", cache=False)
    assert f"block = [{block}, 64]" in kernel.ir["tile"]
    ptx = kernel.asm
    assert tuple(re.findall(r"setmaxnreg\.\w+\.sync\.aligned\.u32\s+(\d+);", ptx)) == regs
    report, _ = assemble(ptx, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report, report


def test_swiglu_is_a_dual_gemm_in_registers():
    # silu(x @ w1.T) * (x @ w3.T): one kernel streams A once and both
    # weights (three tensor maps in, one out), two wgmma groups per k step
    # into two accumulators of 128 x 128 (64 + 64 floats per consumer
    # thread: 128 x 256 would not fit), the epilogue on both; then @ w2.T.
    from tcc.frontend import Tensor, bf16, program, silu

    @program
    def swiglu(x: Tensor[4096, 1024, bf16], w1: Tensor[4096, 1024, bf16],
               w3: Tensor[4096, 1024, bf16], w2: Tensor[1024, 4096, bf16]):
        return (silu(x @ w1.T) * (x @ w3.T)) @ w2.T

    k = tcc.compile(swiglu, "sm_90", cache=False)
    assert len(k.kernels) == 2
    plans = re.findall(r"block = \[(\d+), (\d+), 64\], num_warps = (\d+), num_stages = (\d+)",
                       k.ir["tile"])
    assert sorted(plans) == [("128", "128", "12", "4"), ("128", "256", "12", "4")]
    dual = k.artifact.kernels[0]
    assert [m.operand for m in dual.tensor_maps] == [0, 1, 2, 3]  # x, w1, w3, out
    assert dual.tensor_maps[1].box == dual.tensor_maps[2].box == (128, 64)
    dual_tile = k.kernels[0].ir["tile"]
    assert dual_tile.count("tile.warpgroup_dot") == 2
    assert dual_tile.count("pending = 2") == 2  # both groups of a step in flight
    assert "math.exp" in dual_tile or "exp" in dual_tile  # silu on the accumulator
    # 8 wgmma per k step of 64 (4 k16 x 2 products), no spills.
    assert k.kernels[0].asm.count("wgmma.mma_async") == 8
    for kernel in k.kernels:
        report, _ = assemble(kernel.asm, "sm_90a")
        assert "0 bytes spill stores, 0 bytes spill loads" in report, (kernel.name, report)


def test_dual_gemm_needs_one_a_and_wgmma():
    # Two GEMMs of different A (x @ w1.T, y @ w3.T) stay two kernels, and
    # SwiGLU's gate on sm_80 one product per kernel (mma.sync).
    from tcc.frontend import Tensor, f16, program, silu

    @program
    def two_inputs(x: Tensor[256, 256, f16], y: Tensor[256, 256, f16],
                   w1: Tensor[512, 256, f16], w3: Tensor[512, 256, f16]):
        return silu(x @ w1.T) * (y @ w3.T)

    @program
    def gate(x: Tensor[256, 256, f16], w1: Tensor[512, 256, f16],
             w3: Tensor[512, 256, f16]):
        return silu(x @ w1.T) * (x @ w3.T)

    assert len(tcc.compile(two_inputs, "sm_90", cache=False).kernels) == 2
    assert len(tcc.compile(gate, "sm_90", cache=False).kernels) == 1
    # sm_80: one mma.sync GEMM per product, each reading its w as stored
    # (no transpose kernels).
    k80 = tcc.compile(gate, "sm_80", cache=False)
    assert len(k80.kernels) == 2 and "mma.sync" in k80.asm


def test_batched_gemm_uses_3d_boxes_and_bias_epilogue():
    k = compile_gemm(256, 256, 128, "bf16", batch=3, bias_gelu=True, layout="nt")
    assert len(k.kernels) == 1
    assert "cp.async.bulk.tensor.3d" in k.asm
    # 64 x 128 blocks in 2 x 1 clusters (24 for 3 batches): 3-D boxes
    # [1, rows, 64], B's 128 rows loaded half by each program of a cluster.
    assert k.artifact.kernels[0].tensor_maps == (TensorMapSpec(0, (1, 64, 64), 128),
                                                 TensorMapSpec(1, (1, 64, 64), 128),
                                                 TensorMapSpec(3, (1, 64, 64), 128))
    assert "cp.async.bulk.tensor.3d.global.shared::cta" in k.asm
    assert "math.tanh" in k.ir["tile"] and "tile.warpgroup_dot" in k.ir["tile"]


def test_f32_results_store_from_registers():
    # A 32-bit result has no staging block: per-thread stores, two maps.
    text = gemm_program(512, 512, 256, "f16").replace(
        "  %r = tcc.cast %p : tensor<512x512xf32> to tensor<512x512xf16>\n", "").replace(
        "return %r : tensor<512x512xf16>", "return %p : tensor<512x512xf32>").replace(
        "-> tensor<512x512xf16> {", "-> tensor<512x512xf32> {")
    k = tcc_compile(text, "sm_90", cache=False)
    assert "wgmma.mma_async" in k.asm and "global.shared::cta" not in k.asm
    assert len(k.artifact.kernels[0].tensor_maps) == 2


def test_rows_tma_cannot_box_take_mma_sync():
    # B [4096, 4095] f16: 8190-byte rows are no tensor-map stride (16-byte
    # multiples): the sm_80-style mma.sync plan, still one kernel.
    k = compile_gemm(256, 4095, 256)
    assert "mma.sync" in k.asm and "wgmma" not in k.asm
    assert k.artifact.kernels[0].tensor_maps == ()


def test_small_problems_get_smaller_blocks():
    # 1000^3: 128 blocks of 64 x 128 on one consumer warpgroup in 2 x 1
    # clusters (H200: 224 TFLOP/s, against 186 for 64 blocks of 128 x 128,
    # which leave half the SMs idle, and 172 for 64 x 128 unclustered).
    k = compile_gemm(1000, 1000, 1000)
    assert "block = [64, 128, 64], num_warps = 8" in k.ir["tile"]
    assert "cluster = [2, 1]" in k.ir["tile"]
    assert k.launch.block == (256, 1, 1) and k.launch.grid == (128, 1, 1)
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in k.asm
    # B's rows copied by the producer (2008 bytes: no tensor map) take no
    # cluster, and then 128 x 128 (64 x 128 for more than 64 rows only in
    # clusters).
    k = compile_gemm(1000, 1004, 1000)
    assert "block = [128, 128, 64], num_warps = 12" in k.ir["tile"]
    assert "cluster" not in k.ir["tile"] and ".reqnctapercluster" not in k.asm
    # 64 rows: one consumer warpgroup (8 warps).
    k = compile_gemm(64, 1024, 512)
    assert "block = [64, 128, 64], num_warps = 8" in k.ir["tile"]
    assert k.launch.block == (256, 1, 1)


def test_whole_programs_take_the_hopper_gemm():
    import tcc.frontend as tf
    from tcc.frontend import Tensor, f16, program, syms

    S, D, H = syms("S D H")  # noqa: N806

    @program
    def swiglu(x: Tensor[S, D, f16], w1: Tensor[H, D, f16], w3: Tensor[H, D, f16],
               w2: Tensor[D, H, f16]) -> Tensor[S, D, f16]:
        return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T

    k = tcc.compile(swiglu, "sm_90", S=256, D=256, H=512, cache=False)
    # x @ w1.T and x @ w3.T as one dual GEMM with silu(a) * b as its
    # epilogue, then @ w2.T: the weights read as stored, no transposes.
    assert len(k.kernels) == 2
    assert all("wgmma.mma_async" in part.asm for part in k.kernels)


def test_rank3_linear_is_one_gemm_kernel_on_a_2d_view():
    # nn.Linear on a rank-3 input: the host program views x as [B*S, K] and
    # the result back as [B, S, N]; the kernel is one 2-D GEMM + bias that
    # reads w as stored and stores its result with TMA (three maps).
    from tcc.frontend import Tensor, f16, program, syms

    B, S, K, N = syms("B S K N")  # noqa: N806

    @program
    def linear(x: Tensor[B, S, K, f16], w: Tensor[N, K, f16], b: Tensor[N, f16]):
        return x @ w.T + b

    k = tcc.compile(linear, "sm_90", B=2, S=256, K=512, N=256, cache=False)
    assert len(k.kernels) == 1 and "wgmma.mma_async" in k.asm
    assert "memref<512x512xf16>" in k.ir["tile"]  # [B*S, K]
    maps = k.artifact.kernels[0].tensor_maps
    assert [m.operand for m in maps] == [0, 1, 3] and "global.shared::cta" in k.asm


def test_tensor_maps_are_packed_by_value_after_the_arguments():
    art = compile_gemm(256, 512, 128).artifact.kernels[0]
    calls = []

    class FakeDevice:
        def tensor_map(self, ptr, dtype, shape, box, swizzle):
            calls.append((ptr, dtype, tuple(shape), tuple(box), swizzle))
            return bytes([len(calls)] * 128)

    packed = pack_args(art, [0x1000, 0x2000, 0x3000], [None] * 3, None, FakeDevice())
    assert len(packed) == 6  # three pointers, three tensor maps
    # (64 x 128 blocks in 2 x 1 clusters: 64-row boxes of A and C.)
    assert calls == [(0x1000, "f16", (256, 128), (64, 64), 128),
                     (0x2000, "f16", (128, 512), (64, 64), 128),
                     (0x3000, "f16", (256, 512), (64, 64), 128)]
    params = ctypes.cast(packed.array, ctypes.POINTER(ctypes.c_void_p))
    first_map = ctypes.string_at(params[3], 128)
    assert first_map == bytes([1] * 128)
    with pytest.raises(Exception, match="TMA tensor maps need the device"):
        pack_args(art, [0x1000, 0x2000, 0x3000], [None] * 3)
    # The artifact keeps its maps through bytes.
    again = KernelArtifact.from_bytes(art.to_bytes())
    assert again.tensor_maps == art.tensor_maps


def test_dual_gemm_with_a_tile_operand_keeps_to_the_registers():
    # silu(a) * b + r: r is read onto the accumulators' layout beside both
    # products (128 + 64 registers at 128 x 128), so the plan takes the
    # 64 x 64 block of one consumer warpgroup; no spills.
    from tcc.frontend import Tensor, bf16, program, silu

    @program
    def gate_res(x: Tensor[1024, 256, bf16], w1: Tensor[1024, 256, bf16],
                 w3: Tensor[1024, 256, bf16], r: Tensor[1024, 1024, bf16]):
        return silu(x @ w1.T) * (x @ w3.T) + r

    k = tcc.compile(gate_res, "sm_90", cache=False)
    assert len(k.kernels) == 1
    assert "block = [64, 64, 64], num_warps = 8" in k.ir["tile"]
    assert k.ir["tile"].count("tile.warpgroup_dot") == 2
    report, _ = assemble(k.asm, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report


def test_pingpong_plan_is_two_consumers_on_their_own_blocks():
    # consumers = pingpong: m64n128k16 on 4 warps per block, the TMA store's
    # named barrier per warpgroup (1 + tid / 128, 128 threads), no spills.
    plan = ("#tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, "
            "num_stages = 5, mma = wgmma_m64nNk16, consumers = pingpong>")
    k = tcc_compile(gemm_program(1024, 1024, 512, "f16", layout="nt"), "sm_90", cache=False,
                    plans={"gemm": plan})
    assert k.launch.block == (384, 1, 1) and k.launch.grid == (64, 1, 1)
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in k.asm
    assert re.search(r"bar\.sync \t%r\d+, 128;", k.asm) and "bar.sync \t1, 256;" not in k.asm
    assert "tcc.consumer_groups = 2" in k.ir["gpu"]
    report, _ = assemble(k.asm, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report
    # Cooperative 128 x 128 for comparison: one block on both warpgroups.
    coop = tcc_compile(gemm_program(1024, 1024, 512, "f16", layout="nt"), "sm_90", cache=False,
                       plans={"gemm": plan.replace(", consumers = pingpong", "")})
    assert "wgmma.mma_async.sync.aligned.m64n128k16" in coop.asm
    assert "bar.sync \t1, 256;" in coop.asm


CLUSTER_PLAN = ("#tile.lowering_config<form = matmul, block = [{block}], num_warps = 12, "
                "num_stages = {stages}, mma = wgmma_m64nNk16, cluster = [{cluster}]>")


@pytest.mark.parametrize(("layout", "block", "stages", "cluster", "multicasts"), [
    ("nn", "128, 256, 64", 4, "2, 1", 4),   # B's chunks split between rm 0 and 1
    ("nt", "128, 256, 64", 4, "1, 2", 2),   # A's one chunk split by rows
    ("tn", "128, 128, 64", 6, "2, 1", 2),
])
def test_cluster_plan_multicasts_and_frees_slots_remotely(layout, block, stages, cluster,
                                                          multicasts):
    plan = CLUSTER_PLAN.format(block=block, stages=stages, cluster=cluster)
    k = tcc_compile(gemm_program(1024, 1024, 512, "bf16", layout=layout), "sm_90", cache=False,
                    plans={"gemm": plan})
    ptx = k.asm
    assert ".reqnctapercluster 2, 1, 1" in ptx
    # (LLVM may unswitch the k loop on the program's part: at least these.)
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.[\w:.]*\.multicast::cluster",
                          ptx)) >= multicasts
    assert ptx.count("mapa.shared::cluster") >= 2
    assert ptx.count("barrier.cluster.arrive") == 2 and ptx.count("barrier.cluster.wait") == 2
    # The remote arrivals keep .release.cta semantics: .release.cluster put two
    # MEMBAR.ALL.GPU per arrival in the k loop (4096^3: 442 TFLOP/s, not 693).
    assert "mbarrier.arrive.shared::cluster.b64" in ptx and ".release.cluster.shared" not in ptx
    report, sass = assemble(ptx, "sm_90a")
    assert "0 bytes spill stores, 0 bytes spill loads" in report
    assert sass.count("MEMBAR.ALL.GPU") <= 2  # the cluster barriers' only
    assert k.launch.grid[0] % 2 == 0


def test_cluster_plan_refusals():
    plan = CLUSTER_PLAN.format(block="128, 128, 64", stages=6, cluster="2, 1")
    # Rows TMA cannot box (copied by the producer) take no cluster.
    with pytest.raises(Exception, match="takes no cluster"):
        tcc_compile(gemm_program(3000, 1500, 776, "f16", layout="nn"), "sm_90", cache=False,
                    plans={"gemm": plan})
    with pytest.raises(Exception, match="cluster must be"):
        tcc_compile(gemm_program(1024, 1024, 512, "f16"), "sm_90", cache=False,
                    plans={"gemm": plan.replace("[2, 1]", "[4, 1]")})
