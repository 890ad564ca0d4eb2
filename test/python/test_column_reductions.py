"""Reductions along outer dims and split reductions, as whole programs.

Column reductions (a non-innermost dim reduced, the innermost kept) are one
kernel with their prologue and epilogue; reductions with too few outputs
(a sum to a scalar, a column sum of a tall matrix, a row sum of a few long
rows) are split by tcc-split-reduction into a partial and a final kernel.
Each program compiles for both targets and runs on the CPU through the gpu
stage of every kernel (tcc.testing.simt) against float64 numpy.
"""

import ctypes

import numpy as np
import pytest

from tcc.compiler.compile import compile as tcc_compile
from tcc.examples.programs import reduction_benchmarks, reduction_program
from tcc.frontend import Tensor, f32, program
from tcc.runtime.runner import CompiledProgram
from tcc.testing.simt import run_gpu_stage

TARGETS = ["sm_90", "gfx942"]


def _reduce(name: str, op: str, shape: tuple[int, ...], dims: list[int],
            dtype: str = "f32") -> str:
    return reduction_program(name, op, shape, tuple(dims), dtype)


def _run(src: str, target: str, *inputs: np.ndarray):
    k = tcc_compile(src, target, cache=False)
    return k, run_gpu_stage(k, *inputs)


@pytest.mark.parametrize("target", TARGETS)
def test_column_sum_with_odd_sizes_is_one_kernel(target):
    # 300 rows: two whole chunks of rows and a masked tail; 77 columns: no
    # vectors (rows start unaligned), a column tail.
    k, (y,) = _run(_reduce("colsum", "reduce_sum", (300, 77), [0]), target,
                   x := np.random.default_rng(0).standard_normal((300, 77)).astype(np.float32))
    assert [p.name for p in k.kernels] == ["colsum"]
    tile = k.ir["tile"]
    assert "tile.reduce" in tile and "axis = 0" in tile and "scf.for" in tile
    np.testing.assert_allclose(y, x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_column_max_masks_the_row_tail_with_minus_infinity(target):
    # Every value is negative: a tail read as 0 would show.
    x = -np.random.default_rng(1).random((130, 64)).astype(np.float32) - 1
    k, (y,) = _run(_reduce("colmax", "reduce_max", (130, 64), [0]), target, x)
    assert len(k.kernels) == 1
    np.testing.assert_array_equal(y, x.max(0))


@pytest.mark.parametrize("target", TARGETS)
def test_mean_over_the_middle_dim_of_a_rank3_tensor(target):
    x = np.random.default_rng(2).standard_normal((3, 50, 40)).astype(np.float32)
    k, (y,) = _run(_reduce("mean1", "reduce_mean", (3, 50, 40), [1]), target, x)
    assert [p.name for p in k.kernels] == ["mean1"]
    assert k.kernels[0].launch.grid[0] == 3  # one program per batch index (40 columns)
    np.testing.assert_allclose(y, x.astype(np.float64).mean(1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_f16_column_sum_accumulates_in_f32(target):
    # 2000 rows of values near 1: an f16 accumulator would lose ~3 digits.
    x = (np.random.default_rng(3).random((2000, 24)) + 0.5).astype(np.float16)
    k, (y,) = _run(_reduce("colsum16", "reduce_sum", (2000, 24), [0], "f16"), target, x)
    assert y.dtype == np.float16
    ref = x.astype(np.float64).sum(0)
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=1e-3)
    assert "arith.extf" in k.ir["tile"]


@pytest.mark.parametrize("target", TARGETS)
def test_f16_mean_over_the_middle_dim(target):
    x = np.random.default_rng(4).standard_normal((2, 33, 128)).astype(np.float16)
    k, (y,) = _run(_reduce("mean16", "reduce_mean", (2, 33, 128), [1], "f16"), target, x)
    assert len(k.kernels) == 1
    np.testing.assert_allclose(y.astype(np.float64), x.astype(np.float64).mean(1),
                               rtol=2e-3, atol=2e-3)


# A prologue reading a per-column vector (fused into the reduction) and an
# epilogue reading another: sum((x - b)^2, 0) / 96 + c in one kernel.
CENTERED_SQUARES = """
func.func @centered(%x: tensor<96x48xf32>, %b: tensor<48xf32>, %c: tensor<48xf32>)
    -> tensor<48xf32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<48xf32> -> tensor<96x48xf32>
  %d = tcc.sub %x, %bb : tensor<96x48xf32>
  %sq = tcc.mul %d, %d : tensor<96x48xf32>
  %s = tcc.reduce_mean %sq dims = [0] : tensor<96x48xf32> -> tensor<48xf32>
  %y = tcc.add %s, %c : tensor<48xf32>
  return %y : tensor<48xf32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_column_reduction_with_prologue_and_epilogue_is_one_kernel(target):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((96, 48)).astype(np.float32)
    b, c = (rng.standard_normal(48).astype(np.float32) for _ in range(2))
    k, (y,) = _run(CENTERED_SQUARES, target, x, b, c)
    assert [p.name for p in k.kernels] == ["centered"]
    xd = x.astype(np.float64)
    np.testing.assert_allclose(y, ((xd - b) ** 2).mean(0) + c, rtol=1e-5, atol=1e-5)


# x - x.mean(0): the column mean is a kernel, the centring another.
CENTER_COLUMNS = """
func.func @center_columns(%x: tensor<64x40xf32>) -> (tensor<64x40xf32>, tensor<40xf32>) {
  %m = tcc.reduce_mean %x dims = [0] : tensor<64x40xf32> -> tensor<40xf32>
  %mb = tcc.broadcast %m dims = [0] : tensor<40xf32> -> tensor<64x40xf32>
  %d = tcc.sub %x, %mb : tensor<64x40xf32>
  return %d, %m : tensor<64x40xf32>, tensor<40xf32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_column_mean_then_centring_is_two_kernels(target):
    x = np.random.default_rng(6).standard_normal((64, 40)).astype(np.float32)
    k, (d, m) = _run(CENTER_COLUMNS, target, x)
    assert [p.name for p in k.kernels] == ["center_columns_k0", "center_columns_k1"]
    mean = x.astype(np.float64).mean(0)
    np.testing.assert_allclose(m, mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, x - mean, rtol=1e-5, atol=1e-5)


# A transpose fused into the reduction reads (d1, d0): in memory, a column sum.
TRANSPOSED = """
func.func @transposed(%x: tensor<300x40xf32>) -> tensor<40xf32> {
  %t = tcc.transpose %x permutation = [1, 0] : tensor<300x40xf32> -> tensor<40x300xf32>
  %e = tcc.exp %t : tensor<40x300xf32>
  %s = tcc.reduce_sum %e dims = [1] : tensor<40x300xf32> -> tensor<40xf32>
  return %s : tensor<40xf32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_row_sum_of_a_transpose_is_a_column_reduction(target):
    x = np.random.default_rng(7).standard_normal((300, 40)).astype(np.float32)
    k, (y,) = _run(TRANSPOSED, target, x)
    assert len(k.kernels) == 1 and "axis = 0" in k.ir["tile"]
    np.testing.assert_allclose(y, np.exp(x.astype(np.float64)).sum(0), rtol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_reduction_of_the_leading_dim_of_a_rank3_tensor(target):
    # [R, B, N] -> [B, N]: the kept dims are the (flattened) columns.
    x = np.random.default_rng(8).standard_normal((20, 3, 12)).astype(np.float32)
    k, (y,) = _run(_reduce("lead", "reduce_sum", (20, 3, 12), [0]), target, x)
    assert len(k.kernels) == 1
    np.testing.assert_allclose(y, x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_full_sum_to_a_scalar_is_split_into_two_kernels(target):
    # 65536 elements: 4 partial rows of 16384 (min-row-chunk), then their sum.
    x = np.random.default_rng(9).standard_normal((256, 256)).astype(np.float32)
    k, (y,) = _run(_reduce("total", "reduce_sum", (256, 256), [0, 1]), target, x)
    assert [p.name for p in k.kernels] == ["total_k0", "total_k1"]
    assert [p.launch.grid[0] for p in k.kernels] == [4, 1]
    assert k.args[-1].shape == () and y.shape == ()
    assert k.artifact.buffers == (4 * 4,)  # the partials
    np.testing.assert_allclose(y, x.astype(np.float64).sum(), rtol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_small_full_max_is_one_row(target):
    x = -np.random.default_rng(10).random((30, 7)).astype(np.float32) - 1
    k, (y,) = _run(_reduce("small", "reduce_max", (30, 7), [0, 1]), target, x)
    assert len(k.kernels) == 1 and y.shape == ()
    assert y == x.max()


@pytest.mark.parametrize("target", TARGETS)
def test_column_sum_of_a_tall_matrix_is_split(target):
    # 1024 x 8: 8 outputs; 4 partial programs of 256 rows each, then a
    # column sum of the [4, 8] partials.
    x = np.random.default_rng(11).standard_normal((1024, 8)).astype(np.float32)
    k, (y,) = _run(_reduce("tall", "reduce_sum", (1024, 8), [0]), target, x)
    assert [p.name for p in k.kernels] == ["tall_k0", "tall_k1"]
    assert [p.launch.grid[0] for p in k.kernels] == [4, 1]
    for part in k.kernels:
        assert "axis = 0" in part.ir["tile"]
    np.testing.assert_allclose(y, x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", TARGETS)
def test_mean_of_a_few_long_rows_is_split(target):
    # Two rows of 65536 f16: 4 chunks each (8 partial programs), then the
    # final sum, the divide and the cast back to f16 in the second kernel.
    x = np.random.default_rng(12).standard_normal((2, 65536)).astype(np.float16)
    k, (y,) = _run(_reduce("long_rows", "reduce_mean", (2, 65536), [1], "f16"), target, x)
    assert [p.name for p in k.kernels] == ["long_rows_k0", "long_rows_k1"]
    assert [p.launch.grid[0] for p in k.kernels] == [8, 1]
    np.testing.assert_allclose(y.astype(np.float64), x.astype(np.float64).mean(1),
                               rtol=1e-3, atol=1e-4)


def test_large_programs_compile_into_grids_that_fill_the_gpu():
    """The benchmark sizes compile (not run here) into grids of about a wave."""
    grids = {}
    for name, src in reduction_benchmarks().items():
        k = tcc_compile(src, "sm_90", cache=False)
        grids[name] = [(p.launch.grid[0], p.launch.block[0]) for p in k.kernels]
    # 16384^2: 128 blocks of 128 columns, too few: split 8 ways.
    assert grids["column_sum_f32"] == [(1024, 256), (128, 64)]
    assert grids["full_sum_f32"] == [(1024, 256), (1, 128)]  # 2^28 elements
    assert grids["mean_dim1_f32"] == [(512, 256)]  # 64 batches x 8 column blocks: no split
    assert grids["tall_column_sum_f32"][0] == (1024, 256)


class _RecordingDevice:
    """Host memory as a device: records the launches (runs nothing)."""

    vendor = "nvidia"

    def __init__(self):
        self.buffers, self.launches = {}, []

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
        pass

    def copy_htod(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def copy_dtoh(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def synchronize(self, stream=0):
        pass

    def launch(self, function, grid, block, shmem, stream, params_address):
        self.launches.append((function, grid, block))


def test_runtime_returns_a_rank0_result_of_a_split_sum():
    k = tcc_compile(_reduce("total", "reduce_sum", (256, 256), [0, 1]), "sm_90", cache=False)
    device = _RecordingDevice()
    y = CompiledProgram(k.artifact, device=device)(np.ones((256, 256), np.float32))
    assert isinstance(y, np.ndarray) and y.shape == ()
    assert [(f, g) for f, g, _ in device.launches] == [("total_k0", (4, 1, 1)),
                                                       ("total_k1", (1, 1, 1))]


@pytest.mark.parametrize("target", TARGETS)
def test_mean_over_the_two_trailing_dims_is_a_row_reduction(target):
    x = np.random.default_rng(13).standard_normal((4, 30, 50)).astype(np.float32)
    k, (y,) = _run(_reduce("hw", "reduce_mean", (4, 30, 50), [1, 2]), target, x)
    assert len(k.kernels) == 1
    np.testing.assert_allclose(y, x.astype(np.float64).mean((1, 2)), rtol=1e-5, atol=1e-6)


@program
def _torch_style(x: Tensor[6, 20, 12, f32]):
    return x.sum(0), x.mean(1), x.amax((0, 2)), x.sum((0, 2), keepdim=True), x.sum(), x.var(0)


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_written_as_in_torch(target):
    # Outer, middle, non-contiguous (two reductions: the innermost run of
    # reduced dims, then the rest) and full reductions, and a variance over
    # dim 0, in one program.
    x = np.random.default_rng(14).standard_normal((6, 20, 12)).astype(np.float32)
    k = tcc_compile(_torch_style, target, cache=False)
    outs = run_gpu_stage(k, x)
    xd = x.astype(np.float64)
    refs = [xd.sum(0), xd.mean(1), xd.max((0, 2)), xd.sum((0, 2), keepdims=True), xd.sum(),
            xd.var(0, ddof=1)]
    for out, ref in zip(outs, refs, strict=True):
        assert out.shape == ref.shape
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


WEIGHTED_SUM = """
func.func @weighted(%x: tensor<300x40xf32>, %b: tensor<40xf32>) -> tensor<f32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<40xf32> -> tensor<300x40xf32>
  %p = tcc.mul %x, %bb : tensor<300x40xf32>
  %s = tcc.reduce_sum %p dims = [0, 1] : tensor<300x40xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""


@pytest.mark.parametrize("target", TARGETS)
def test_full_sum_over_a_broadcast_operand_reduces_the_rows_first(target):
    rng = np.random.default_rng(15)
    x, b = rng.standard_normal((300, 40)).astype(np.float32), rng.random(40).astype(np.float32)
    k, (y,) = _run(WEIGHTED_SUM, target, x, b)
    assert len(k.kernels) == 2 and y.shape == ()
    np.testing.assert_allclose(y, (x.astype(np.float64) * b).sum(), rtol=1e-5)
