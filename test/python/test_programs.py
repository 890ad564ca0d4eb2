"""Whole programs: kernel formation, the host program, its artifact and runtime.

Programs of several kernels compile for both targets, run on the CPU through
the gpu stage of every kernel (tcc.testing.simt) against float64, serialize
as one artifact, and launch in order through tcc.runtime (a fake device here).
"""

import ctypes
import dataclasses
import re

import numpy as np
import pytest

import tcc.runtime
from tcc.compiler.cache import KernelCache
from tcc.compiler.compile import compile as tcc_compile
from tcc.runtime.artifact import ArgSpec, ArtifactError, KernelArtifact, LaunchSpec
from tcc.runtime.program import HostValue, Launch, ProgramArtifact, plan_buffers
from tcc.runtime.runner import CompiledProgram
from tcc.testing.simt import run_gpu_stage

TARGETS = ["sm_80", "gfx942"]  # the emulator runs mma.sync, not wgmma

LAYER_NORM = """
func.func @layer_norm(%x: tensor<64x512xf32>, %w: tensor<512xf32>, %b: tensor<512xf32>)
    -> tensor<64x512xf32> {
  %mean = tcc.reduce_mean %x dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %mean dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %d = tcc.sub %x, %mb : tensor<64x512xf32>
  %sq = tcc.mul %d, %d : tensor<64x512xf32>
  %var = tcc.reduce_mean %sq dims = [1] : tensor<64x512xf32> -> tensor<64xf32>
  %eps = tcc.constant dense<1.0e-5> : tensor<64xf32>
  %ve = tcc.add %var, %eps : tensor<64xf32>
  %r = tcc.rsqrt %ve : tensor<64xf32>
  %rb = tcc.broadcast %r dims = [1] : tensor<64xf32> -> tensor<64x512xf32>
  %n = tcc.mul %d, %rb : tensor<64x512xf32>
  %wb = tcc.broadcast %w dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %bb = tcc.broadcast %b dims = [0] : tensor<512xf32> -> tensor<64x512xf32>
  %y0 = tcc.mul %n, %wb : tensor<64x512xf32>
  %y = tcc.add %y0, %bb : tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}
"""

# Returns an input, a reshape (keepdims) of a kernel result, and a result
# that a later kernel also reads.
CENTER = """
func.func @center(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x1xf32>, tensor<8x64xf32>) {
  %m = tcc.reduce_mean %x dims = [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  %m1 = tensor.collapse_shape %m [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
  %mb = tcc.broadcast %m1 dims = [1] : tensor<8xf32> -> tensor<8x64xf32>
  %d = tcc.sub %x, %mb : tensor<8x64xf32>
  return %d, %m, %x : tensor<8x64xf32>, tensor<8x1xf32>, tensor<8x64xf32>
}
"""


def _layer_norm_ref(x, w, b):
    xd = x.astype(np.float64)
    mean = xd.mean(1, keepdims=True)
    return (xd - mean) / np.sqrt(((xd - mean) ** 2).mean(1, keepdims=True) + 1e-5) * w + b


@pytest.mark.parametrize("target", TARGETS)
def test_layer_norm_is_one_row_program(target):
    k = tcc_compile(LAYER_NORM, target, cache=False)
    assert [part.name for part in k.kernels] == ["layer_norm"]
    tile = k.ir["tile"]
    assert tile.count("tile.reduce.return") == 2 and "scf.for" not in tile  # persistent rows
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 512)).astype(np.float32) * 3 + 1
    w, b = (rng.standard_normal(512).astype(np.float32) for _ in range(2))
    (y,) = run_gpu_stage(k, x, w, b)
    np.testing.assert_allclose(y, _layer_norm_ref(x, w, b), rtol=1e-5, atol=1e-5)


# A GEMM whose consumer is not pointwise ends its kernel: GEMM -> softmax
# (written out) is a tensor-core kernel, then a row program over its value.
GEMM_SOFTMAX = """
func.func @gemm_softmax(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>) -> tensor<64x128xf32> {
  %c = tcc.matmul %a, %b acc(f32) : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
  %m = tcc.reduce_max %c dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %mb = tcc.broadcast %m dims = [1] : tensor<64xf32> -> tensor<64x128xf32>
  %d = tcc.sub %c, %mb : tensor<64x128xf32>
  %e = tcc.exp %d : tensor<64x128xf32>
  %s = tcc.reduce_sum %e dims = [1] : tensor<64x128xf32> -> tensor<64xf32>
  %sb = tcc.broadcast %s dims = [1] : tensor<64xf32> -> tensor<64x128xf32>
  %y = tcc.div %e, %sb : tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_gemm_then_softmax_is_two_kernels(target):
    k = tcc_compile(GEMM_SOFTMAX, target, cache=False)
    assert [part.name for part in k.kernels] == ["gemm_softmax_k0", "gemm_softmax_k1"]
    assert "tcc.host" in k.ir["tile"] and k.ir["gpu"].count("gpu.module @") == 2
    mma = "nvvm.mma.sync" if target.startswith("sm") else "rocdl.mfma"
    assert mma in k.kernels[0].ir["gpu"]
    assert "tile.reduce" in k.kernels[1].ir["tile"]
    for part in k.kernels:
        assert part.ir["tile"].startswith(f"tile.func @{part.name}")
        assert f"gpu.module @{part.name}_module" in part.ir["gpu"]
    # The f32 product lives in one intermediate buffer between the launches.
    assert k.artifact.buffers == (64 * 128 * 4,)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 128)).astype(np.float16)
    (y,) = run_gpu_stage(k, a, b)
    c = a.astype(np.float64) @ b.astype(np.float64)
    e = np.exp(c - c.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=2e-4, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_results_that_are_inputs_views_and_shared_values(target):
    k = tcc_compile(CENTER, target, cache=False)
    assert len(k.kernels) == 2  # the row program, and the copy of the returned input
    x = np.random.default_rng(2).standard_normal((8, 64)).astype(np.float32)
    d, m, same = run_gpu_stage(k, x)
    mean = x.astype(np.float64).mean(1, keepdims=True)
    np.testing.assert_allclose(m, mean, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(d, x - mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(same, x)
    kinds = [k.artifact.values[r].kind for r in k.artifact.results]
    assert kinds == ["output", "view", "output"]


def test_program_artifact_round_trips_through_bytes_and_the_cache(tmp_path):
    cache = KernelCache(tmp_path)
    first = tcc_compile(GEMM_SOFTMAX, "sm_90", cache=cache)
    data = first.artifact.to_bytes()
    assert ProgramArtifact.from_bytes(data) == first.artifact
    cache.clear_memory()
    again = tcc_compile(GEMM_SOFTMAX, "sm_90", cache=cache)
    assert again.artifact == first.artifact and cache.stats["disk_hits"] == 1
    assert [p.name for p in again.kernels] == [p.name for p in first.kernels]
    assert "tile.func @gemm_softmax_k1" in again.kernels[1].ir["tile"]  # recomputed on demand
    path = tmp_path / "ln.tccprog"
    first.artifact.save(path)
    assert isinstance(tcc.runtime.load(str(path)), CompiledProgram)
    with pytest.raises(ArtifactError, match="hash"):
        ProgramArtifact.from_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    with pytest.raises(ArtifactError, match="bad magic"):
        ProgramArtifact.from_bytes(b"TCCKART1" + data[8:])


def test_buffer_plan_reuses_a_dead_buffer_of_the_same_size():
    f32 = "f32"
    values = [
        HostValue("input", 0, (16,), f32),
        HostValue("temp", -1, (16,), f32),  # 1: written by step 0, last read by step 1
        HostValue("temp", -1, (16,), f32),  # 2: written by step 1, read by step 2
        HostValue("temp", -1, (16,), f32),  # 3: written by step 2 -> reuses 1's slot
        HostValue("view", 3, (4, 4), f32),  # 4: a view of 3, read by step 3
        HostValue("temp", -1, (8,), f32),  # 5: another size: its own slot
        HostValue("output", 0, (16,), f32),
    ]
    steps = [Launch(0, (0, 1)), Launch(0, (1, 2)), Launch(0, (2, 3)), Launch(0, (4, 5)),
             Launch(0, (5, 6))]
    planned, slots, zeroed = plan_buffers(values, steps)
    assert [v.index for v in planned if v.kind == "temp"] == [0, 1, 0, 2]
    assert slots == (64, 64, 32) and zeroed == ()


def test_workspace_gets_its_own_zero_filled_slot():
    # A split-K kernel's workspace (partials, counters) is never shared: a
    # later temp of the counters' size takes a fresh slot, and the counters'
    # slot is zero-filled (the kernel leaves it so for its next launch).
    f32 = "f32"
    values = [
        HostValue("input", 0, (16,), f32),
        HostValue("temp", -1, (16,), f32),  # 1: step 0's result
        HostValue("workspace", 0, (64,), f32),  # 2: step 0's partials
        HostValue("workspace", 1, (4,), "i32"),  # 3: step 0's counters (16 bytes)
        HostValue("temp", -1, (4,), f32),  # 4: 16 bytes, after 3's last use
        HostValue("output", 0, (4,), f32),
    ]
    steps = [Launch(0, (0, 1, 2, 3)), Launch(1, (1, 4)), Launch(1, (4, 5))]
    planned, slots, zeroed = plan_buffers(values, steps)
    assert [v.kind for v in planned] == ["input", "temp", "temp", "temp", "temp", "output"]
    assert [v.index for v in planned[1:5]] == [0, 1, 2, 3]
    assert slots == (64, 256, 16, 16) and zeroed == (2,)
    kernels = (_kernel("split", 1, 3, 16), _kernel("step", 1, 1, 16))
    prog = ProgramArtifact(name="p", target="sm_90", vendor="nvidia", kernels=kernels,
                           args=(ArgSpec("x", "pointer", f32, (16,)),
                                 ArgSpec("y", "pointer", f32, (4,), "output")),
                           values=planned, steps=tuple(steps), results=(5,), buffers=slots,
                           zeroed=zeroed)
    assert ProgramArtifact.from_bytes(prog.to_bytes()).zeroed == (2,)
    with pytest.raises(ArtifactError, match="zero-filled slots"):
        dataclasses.replace(prog, zeroed=(7,))


def _kernel(name, n_in, n_out, n):
    args = tuple(ArgSpec(f"a{i}", "pointer", "f32", (n,), "input" if i < n_in else "output")
                 for i in range(n_in + n_out))
    return KernelArtifact("sm_90", "nvidia", name, f"// {name}", None,
                          LaunchSpec(block=(32, 1, 1), grid=(1, 1, 1)), args)


class NumpyDevice:
    """Host memory as a device; runs each kernel by name with numpy."""

    vendor = "nvidia"
    OPS = {"double": lambda a: 2 * a, "inc": lambda a: a + 1, "add": lambda a, b: a + b}

    def __init__(self):
        self.buffers, self.launches, self.freed = {}, [], []

    def load_kernel(self, asm, binary):
        return binary if binary is not None else asm.encode()

    def get_function(self, module, name):
        return name

    def allow_dynamic_shared(self, function, nbytes):
        pass

    def alloc(self, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.buffers[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)

    def free(self, ptr):
        self.freed.append(ptr)

    def copy_htod(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def copy_dtoh(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def synchronize(self, stream=0):
        pass

    def launch(self, function, grid, block, shmem, stream, params_address):
        op = self.OPS[function]
        n_args = op.__code__.co_argcount + 1
        params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
        ptrs = [ctypes.cast(params[i], ctypes.POINTER(ctypes.c_void_p))[0] for i in range(n_args)]
        self.launches.append((function, ptrs))
        arrays = [np.frombuffer((ctypes.c_float * 16).from_address(p), np.float32) for p in ptrs]
        arrays[-1][:] = op(*arrays[:-1])


def test_runtime_launches_the_steps_in_order_on_planned_buffers():
    # y = double(x); z = inc(y); w = add(z, x): y's buffer is reused by nothing
    # of another size; z is the output, w too.
    kernels = (_kernel("double", 1, 1, 16), _kernel("inc", 1, 1, 16), _kernel("add", 2, 1, 16))
    values = (HostValue("input", 0, (16,), "f32"), HostValue("temp", -1, (16,), "f32"),
              HostValue("output", 0, (16,), "f32"), HostValue("output", 1, (16,), "f32"),
              HostValue("view", 3, (4, 4), "f32"))
    steps = (Launch(0, (0, 1)), Launch(1, (1, 2)), Launch(2, (2, 0, 3)))
    planned, buffers, _ = plan_buffers(values, steps)
    prog = ProgramArtifact(
        name="p", target="sm_90", vendor="nvidia", kernels=kernels,
        args=(ArgSpec("x", "pointer", "f32", (16,)),
              ArgSpec("z", "pointer", "f32", (16,), "output"),
              ArgSpec("w", "pointer", "f32", (4, 4), "output")),
        values=planned, steps=steps, results=(2, 4), buffers=buffers,
    )
    dev = NumpyDevice()
    run = CompiledProgram(prog, device=dev)
    x = np.arange(16, dtype=np.float32)
    z, w = run(x)
    np.testing.assert_array_equal(z, 2 * x + 1)
    np.testing.assert_array_equal(w, (3 * x + 1).reshape(4, 4))
    assert [name for name, _ in dev.launches] == ["double", "inc", "add"]
    y_ptr = dev.launches[0][1][1]
    assert dev.launches[1][1][0] == y_ptr  # inc reads what double wrote
    assert len(dev.freed) == len(dev.buffers)  # every driver allocation freed
    with pytest.raises(tcc.runtime.ArgumentError, match="expected dtype f32"):
        run(x.astype(np.float64))


def test_program_artifact_rejects_inconsistent_steps():
    k = _kernel("double", 1, 1, 16)
    with pytest.raises(ArtifactError, match="passes 1 arguments"):
        ProgramArtifact(name="p", target="sm_90", vendor="nvidia", kernels=(k,),
                        args=(ArgSpec("x", "pointer", "f32", (16,)),),
                        values=(HostValue("input", 0, (16,), "f32"),),
                        steps=(Launch(0, (0,)),), results=(0,))


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_over_a_vocabulary_is_a_chunked_row_program(target):
    # 50257 columns: longer than a row kept in registers (max-softmax-columns).
    src = """
    func.func @vocab(%x: tensor<9x50257xf16>) -> tensor<9x50257xf16> {
      %y = tcc.softmax %x dim = 1 : tensor<9x50257xf16>
      return %y : tensor<9x50257xf16>
    }"""
    # 9 rows: their starts fall on each of the 8 offsets from a 16-byte
    # boundary (the staged copy starts at the one before).
    k = tcc_compile(src, target, cache=False)
    # Without cp.async (AMD) the online softmax: two walks over global
    # memory. With it (NVIDIA) the row is copied once into shared memory (a
    # copy loop, 13 slots of 4096, one commit group each), and three walks
    # read it: the max unrolled over the slots, each read once its group has
    # landed; the sum and the quotients each a loop over their whole chunks
    # and one over their tail.
    tile_ir = k.ir["tile"]
    staged = target != "gfx942"
    assert len(k.kernels) == 1 and tile_ir.count("scf.for") == (5 if staged else 2)
    if staged:
        waits = re.findall(r"tile.async_wait \{pending = (\d+)", tile_ir)
        assert waits == [str(12 - i) for i in range(13)]
        # Every exp is approximate (summed, or a quotient rounded to f16).
        assert tile_ir.count("math.exp2") == tile_ir.count("fastmath<afn>") == 6
    assert ("walk = staged" in tile_ir) == staged
    assert ("!tile.shared_buffer<13x1x4096xf16" in tile_ir) == staged
    x = (np.random.default_rng(5).standard_normal((9, 50257)) * 4).astype(np.float16)
    (y,) = run_gpu_stage(k, x)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=2e-3, atol=1e-7)
    # Online: one exp per element in the first walk (the rescale and the
    # term share it), one in the merge of the positions, one per element in
    # the second. Staged: one per element in the sum walk and in the last,
    # each written for its first chunk, its whole chunks and its tail (the
    # last walk's exp2 has log2 of the sum folded into its exponent).
    assert k.ir["tile"].count("math.exp") == (6 if staged else 3)
    if staged:
        # The staged max walk stays in f16: packed maxima, no conversions.
        assert "max.NaN.f16x2" in k.kernels[0].asm


@pytest.mark.parametrize("target", TARGETS)
def test_chunked_softmax_rows_with_nan_ties_and_a_late_max(target):
    src = """
    func.func @vocab(%x: tensor<4x20001xf32>) -> tensor<4x20001xf32> {
      %y = tcc.softmax %x dim = 1 : tensor<4x20001xf32>
      return %y : tensor<4x20001xf32>
    }"""
    k = tcc_compile(src, target, cache=False)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 20001)).astype(np.float32)
    x[0, 12345] = np.nan                 # NaN anywhere: the whole row is NaN (torch)
    x[1] = 0.5                           # every element ties with the running max
    x[2, -1] = 40.0                      # the max comes last: every sum is rescaled
    x[3, ::2] = -1e30                    # far below the max: terms vanish
    (y,) = run_gpu_stage(k, x)
    assert np.isnan(y[0]).all()
    e = np.exp(x[1:].astype(np.float64) - x[1:].max(1, keepdims=True))
    np.testing.assert_allclose(y[1:], e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-12)


def staged_softmax(rows, n, dtype, target):
    """A rows x n softmax compiled with the staged walk over 2048-wide chunks."""
    src = f"""
    func.func @softmax(%x: tensor<{rows}x{n}x{dtype}>) -> tensor<{rows}x{n}x{dtype}> {{
      %y = tcc.softmax %x dim = 1 : tensor<{rows}x{n}x{dtype}>
      return %y : tensor<{rows}x{n}x{dtype}>
    }}"""
    plan = "#tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 4, walk = staged>"
    return tcc_compile(src, target, cache=False, plans={"softmax": plan})


@pytest.mark.parametrize(("n", "dtype", "target"), [
    (6141, "f16", "sm_80"), (6145, "f16", "sm_80"), (4097, "f32", "sm_80"),
    (6142, "f32", "sm_80"), (6144, "f32", "sm_80"),
    (6141, "f16", "gfx942")])  # a plan can stage on AMD too (copies through registers)
def test_staged_softmax_rows_of_any_length(n, dtype, target):
    # walk = staged (sm_80: cp.async; gfx942: loads and LDS stores) over
    # 2048-wide chunks: the first chunk and the row's tail masked, the whole
    # chunks between not. Rows whose tail chunk lies one chunk earlier for
    # aligned starts than for shifted ones (6141 f16: 3 chunks from an
    # aligned start, 4 from a shifted one) and rows of whole chunks; 9 rows
    # start at every offset from 16 bytes.
    k = staged_softmax(9, n, dtype, target)
    assert "tile.shared_load" in k.ir["tile"]
    x = (np.random.default_rng(n).standard_normal((9, n)) * 4).astype(
        np.float16 if dtype == "f16" else np.float32)
    x[3, -1] = 30.0   # the max in the tail chunk
    x[4, 0] = 30.0    # the max in the first chunk
    x[1, :3] = 30.0   # right after row 0 (aligned): its tail must mask them
    (y,) = run_gpu_stage(k, x)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    rtol = 2e-3 if dtype == "f16" else 1e-5
    np.testing.assert_allclose(y.astype(np.float64), e / e.sum(1, keepdims=True), rtol=rtol,
                               atol=1e-7 if dtype == "f16" else 1e-12)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_staged_softmax_is_accurate_far_from_zero(dtype):
    # The staged walks take exp2(x * log2 e - c), c = M * log2 e rounded once
    # per row: for rows near +-30000 (f16) or +-3e5 (f32) c's rounding is
    # far above an ulp of the quotients, and must cancel between the sum and
    # the quotients. Errors stay at the output type's rounding.
    n = 6141
    k = staged_softmax(4, n, dtype, "sm_80")
    big = 30000.0 if dtype == "f16" else 3e5
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, n)) * 3 + np.array([[big], [-big], [big / 7], [0.0]])
    x = x.astype(np.float16 if dtype == "f16" else np.float32)
    (y,) = run_gpu_stage(k, x)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    # f16: within 1.5 ulps of each quotient (and its subnormals' spacing);
    # f32: 1e-5 relative.
    if dtype == "f16":
        ulp = np.spacing(ref.astype(np.float16)).astype(np.float64)
        assert (np.abs(y.astype(np.float64) - ref) <= 1.5 * ulp).all()
    else:
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("target", TARGETS)
def test_rank3_bias_relu_and_flat_odd_streams(target):
    # [B, S, D] + bias[D] with an odd D (77) runs as one flat stream with the
    # bias gathered (view = flat_gather); an all-identity op on an odd last
    # dim runs as one flat, vectorized stream.
    src = """
    func.func @f(%x: tensor<3x5x77xf32>, %b: tensor<77xf32>, %y: tensor<3x5x77xf32>)
        -> (tensor<3x5x77xf32>, tensor<3x5x77xf32>) {
      %bb = tcc.broadcast %b dims = [0, 1] : tensor<77xf32> -> tensor<3x5x77xf32>
      %s = tcc.add %x, %bb : tensor<3x5x77xf32>
      %r = tcc.relu %s : tensor<3x5x77xf32>
      %t = tcc.mul %x, %y : tensor<3x5x77xf32>
      return %r, %t : tensor<3x5x77xf32>, tensor<3x5x77xf32>
    }"""
    k = tcc_compile(src, target, cache=False)
    assert len(k.kernels) == 2
    assert "view = flat_gather" in k.kernels[0].ir["tile"]
    assert "tile.memref_gather" in k.kernels[0].ir["tile"]
    assert "memref<1155xf32>" in k.kernels[1].ir["tile"]
    rng = np.random.default_rng(6)
    x, y = (rng.standard_normal((3, 5, 77)).astype(np.float32) for _ in range(2))
    b = rng.standard_normal(77).astype(np.float32)
    r, t = run_gpu_stage(k, x, b, y)
    np.testing.assert_array_equal(r, np.maximum(x + b, 0))
    np.testing.assert_array_equal(t, x * y)


LINEAR = """
func.func @linear(%x: tensor<64x32xf16>, %w: tensor<48x32xf16>, %b: tensor<48xf16>)
    -> tensor<64x48xf16> {
  %wt = tcc.transpose %w permutation = [1, 0] : tensor<48x32xf16> -> tensor<32x48xf16>
  %y = tcc.matmul %x, %wt acc(f32) : tensor<64x32xf16>, tensor<32x48xf16> -> tensor<64x48xf16>
  %bb = tcc.broadcast %b dims = [0] : tensor<48xf16> -> tensor<64x48xf16>
  %z = tcc.add %y, %bb : tensor<64x48xf16>
  return %z : tensor<64x48xf16>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_linear_layer_x_at_w_transposed(target):
    # nn.Linear: on sm_80 one kernel, the mma.sync GEMM reading the weight
    # [out, in] as stored (column-major shared B, ldmatrix without .trans)
    # with the bias epilogue; on gfx942 the weight is transposed by a kernel
    # of its own first.
    k = tcc_compile(LINEAR, target, cache=False)
    if target == "sm_80":
        assert [p.name for p in k.kernels] == ["linear"]
        assert "memref.transpose" in k.kernels[0].ir["tile"]
        assert "transpose = true" not in k.kernels[0].ir["gpu"]
    else:
        assert [p.name for p in k.kernels] == ["linear_k0", "linear_k1"]
        assert "memref.transpose" in k.kernels[0].ir["tile"]
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 32)).astype(np.float16)
    w = rng.standard_normal((48, 32)).astype(np.float16)
    b = rng.standard_normal(48).astype(np.float16)
    (y,) = run_gpu_stage(k, x, w, b)
    ref = x.astype(np.float64) @ w.astype(np.float64).T + b
    assert np.abs(y - ref).max() / np.abs(ref).max() < 2e-3


@pytest.mark.parametrize("target", TARGETS)
def test_transposes_2d_and_batched(target):
    src = """
    func.func @t(%x: tensor<100x130xf32>, %y: tensor<3x40x72xf16>)
        -> (tensor<130x100xf32>, tensor<3x72x40xf16>) {
      %a = tcc.transpose %x permutation = [1, 0] : tensor<100x130xf32> -> tensor<130x100xf32>
      %b = tcc.transpose %y permutation = [0, 2, 1] : tensor<3x40x72xf16> -> tensor<3x72x40xf16>
      return %a, %b : tensor<130x100xf32>, tensor<3x72x40xf16>
    }"""
    k = tcc_compile(src, target, cache=False)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((100, 130)).astype(np.float32)
    y = rng.standard_normal((3, 40, 72)).astype(np.float16)
    a, b = run_gpu_stage(k, x, y)
    np.testing.assert_array_equal(a, x.T)
    np.testing.assert_array_equal(b, y.transpose(0, 2, 1))


@pytest.mark.parametrize("target", TARGETS)
def test_full_reductions_with_a_prologue_and_scalar_epilogue(target):
    # Found by the random-program fuzzer: a full reduction with a fused
    # prologue (x * x) and its mean's division on the rank-0 value were
    # "rank-0 kernels are not supported"; they run over one row now.
    src = """
    func.func @f(%x: tensor<3xf32>) -> tensor<1xf32> {
      %m = tcc.mul %x, %x : tensor<3xf32>
      %r = tcc.reduce_mean %m dims = [0] keepdims : tensor<3xf32> -> tensor<1xf32>
      return %r : tensor<1xf32>
    }"""
    k = tcc_compile(src, target, cache=False)
    x = np.array([1.5, -2.0, 4.25], np.float32)
    (y,) = run_gpu_stage(k, x)
    np.testing.assert_allclose(y, [(x * x).mean()], rtol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_results_that_are_arguments_are_copied_into_their_outputs(target):
    # Found by the random-program fuzzer: first "needs 0 kernels", then (on
    # the H200, out= poisoned) outputs left unwritten: a result that is an
    # argument, a reshape of one, or a value returned twice is copied by a
    # pointwise kernel into its output.
    src = """
    func.func @f(%x: tensor<2x33xf32>, %y: tensor<33xf32>)
        -> (tensor<66xf32>, tensor<2x33xf32>, tensor<33xf32>, tensor<33xf32>) {
      %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x33xf32> into tensor<66xf32>
      %z = tcc.add %y, %y : tensor<33xf32>
      return %r, %x, %z, %z : tensor<66xf32>, tensor<2x33xf32>, tensor<33xf32>, tensor<33xf32>
    }"""
    k = tcc_compile(src, target, cache=False)
    art = k.artifact
    written = {v for step in art.steps for v in step.args if art.values[v].kind == "output"}
    assert written == {i for i, v in enumerate(art.values) if v.kind == "output"}
    assert len(written) == 4 and all(art.values[r].kind == "output" for r in art.results)
    x = np.arange(66, dtype=np.float32).reshape(2, 33)
    y = np.linspace(-1, 1, 33).astype(np.float32)
    flat, same, z, z2 = run_gpu_stage(k, x, y)
    np.testing.assert_array_equal(flat, x.reshape(66))
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(z, y + y)
    np.testing.assert_array_equal(z2, y + y)
