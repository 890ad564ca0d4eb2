"""Arg reductions (``x.max(dim)`` / ``x.min(dim)`` with their indices,
``x.argmax`` / ``x.argmin``) compiled to kernels and run on the CPU through
the gpu stage of every kernel (tcc.testing.simt), against numpy with
torch's semantics: the first index of the extremum on ties, and a NaN is
the extremum (its first index returned). numpy's argmax / argmin agree with
torch on both.

Along the last dim they are row reductions (or row programs: rank 3, or
with pointwise ops around them), along an outer dim column reductions;
reductions with too few outputs are split by tcc-split-reduction into a
partial and a final kernel, the final choosing among (value, index)
partials."""

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.frontend import Tensor, f16, f32, i32, program
from tcc.testing.simt import run_gpu_stage

TARGETS = ["sm_80", "sm_90", "gfx942"]
DTYPES = {"f32": (f32, np.float32), "f16": (f16, np.float16)}


def _inputs(shape, dtype, seed):
    """Small integers (many ties) with a few NaNs (one slice with two)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(dtype)
    flat = x.reshape(-1)
    for i in rng.choice(flat.size, size=max(1, flat.size // 97), replace=False):
        flat[i] = np.nan
    flat[1] = np.nan
    flat[2] = np.nan
    return x


def _check(compiled, x, refs):
    outs = run_gpu_stage(compiled, x)
    assert len(outs) == len(refs)
    for got, ref in zip(outs, refs, strict=True):
        ref = np.asarray(ref)
        assert got.shape == ref.shape
        if ref.dtype.kind == "i":
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, ref)
        else:
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got, ref.astype(x.dtype))  # NaNs match NaNs
    return outs


def _extrema(dim, shape, dt):
    T, _ = DTYPES[dt]

    @program
    def extrema(x: Tensor[(*shape, T)]):
        mx = x.max(dim)
        mn = x.min(dim)
        return mx.values, mx.indices, mn.values, mn.indices, x.argmax(dim), x.argmin(dim)

    return extrema


def _refs(x, dim):
    return (np.max(x, dim), np.argmax(x, dim), np.min(x, dim), np.argmin(x, dim),
            np.argmax(x, dim), np.argmin(x, dim))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_last_dim(target, dt):
    shape = (7, 1000)
    x = _inputs(shape, DTYPES[dt][1], 0)
    k = tcc.compile(_extrema(-1, shape, dt), target, cache=False)
    assert "tile.reduce" in k.ir["tile"]
    _check(k, x, _refs(x, -1))


@pytest.mark.parametrize("target", TARGETS)
def test_last_dim_of_long_rows(target):
    # Rows longer than one chunk (a loop over BN-wide chunks, a masked tail);
    # the maximum of the first row sits in its last, partial chunk.
    shape = (3, 5000)
    x = _inputs(shape, np.float32, 1)
    x[0] = np.arange(5000, dtype=np.float32)
    _check(tcc.compile(_extrema(-1, shape, "f32"), target, cache=False), x, _refs(x, -1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_dim0_of_2d(target, dt):
    shape = (300, 77)
    x = _inputs(shape, DTYPES[dt][1], 2)
    k = tcc.compile(_extrema(0, shape, dt), target, cache=False)
    assert "axis = 0" in k.ir["tile"]
    _check(k, x, _refs(x, 0))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_middle_dim_of_rank3(target, dt):
    shape = (5, 3, 33)
    x = _inputs(shape, DTYPES[dt][1], 3)
    _check(tcc.compile(_extrema(1, shape, dt), target, cache=False), x, _refs(x, 1))


@pytest.mark.parametrize("target", TARGETS)
def test_last_dim_of_rank3(target):
    # A row program over [5 * 3] rows.
    shape = (5, 3, 33)
    x = _inputs(shape, np.float32, 4)
    _check(tcc.compile(_extrema(-1, shape, "f32"), target, cache=False), x, _refs(x, -1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_full_argmax(target, dt):
    T, npt = DTYPES[dt]
    shape = (7, 1000)

    @program
    def full(x: Tensor[(*shape, T)]):
        return x.argmax(), x.argmin()

    x = _inputs(shape, npt, 5)
    outs = _check(tcc.compile(full, target, cache=False), x, (np.argmax(x), np.argmin(x)))
    assert outs[0].shape == ()
    # Without NaNs: the first of the tied maxima and minima.
    x = np.nan_to_num(x, nan=0.0)
    _check(tcc.compile(full, target, cache=False), x, (np.argmax(x), np.argmin(x)))


@pytest.mark.parametrize("target", TARGETS)
def test_split_full_argmax(target):
    # 65536 elements: each reduction split into 4 partial rows of 16384,
    # then a final choice among the 4 (value, index) pairs.
    shape = (65536,)

    @program
    def full(x: Tensor[(*shape, f32)]):
        m = x.max(0)
        return m.values, m.indices, x.argmin()

    k = tcc.compile(full, target, cache=False)
    assert len(k.kernels) == 4  # a partial and a final kernel per reduction
    rng = np.random.default_rng(6)
    x = rng.integers(-1000, 1000, shape).astype(np.float32)
    x[[100, 30000, 65535]] = 5000.0  # ties across partials: the first wins
    x[[200, 40000]] = -5000.0
    _check(k, x, (np.max(x), np.argmax(x), np.argmin(x)))
    x[[50000, 20000]] = np.nan  # a NaN in a later partial still wins, its first index
    _check(k, x, (np.max(x), np.argmax(x), np.argmin(x)))


@pytest.mark.parametrize("target", TARGETS)
def test_split_column_argmax(target):
    # A tall column reduction (8 outputs): split along the rows.
    shape = (4096, 8)

    @program
    def col(x: Tensor[(*shape, f32)]):
        m = x.max(0)
        return m.values, m.indices

    k = tcc.compile(col, target, cache=False)
    assert len(k.kernels) == 2
    x = _inputs(shape, np.float32, 7)
    x[3000:, 5] = 10.0  # the max of column 5 first at row 3000 (a later partial)
    x[:, 6] = 1.0  # all tied: index 0
    _check(k, x, (np.max(x, 0), np.argmax(x, 0)))


@pytest.mark.parametrize("target", TARGETS)
def test_row_program_with_pointwise_ops(target):
    # Pointwise ops before the reduction (fused into its element) and over
    # the row with its values (x - max): one row program.
    shape = (7, 100)

    @program
    def centered(x: Tensor[(*shape, f32)]):
        m = (x * 2.0 + 1.0).max(-1, keepdim=True)
        return x - m.values, m.indices

    k = tcc.compile(centered, target, cache=False)
    assert len(k.kernels) == 1
    assert "row_program" in k.ir["tile"]
    x = _inputs(shape, np.float32, 8)
    y = x * 2.0 + 1.0
    outs = run_gpu_stage(k, x)
    np.testing.assert_array_equal(outs[0], x - np.max(y, -1, keepdims=True))
    np.testing.assert_array_equal(outs[1], np.argmax(y, -1)[:, None])


@pytest.mark.parametrize("target", TARGETS)
def test_row_program_with_ops_on_the_results(target):
    # Pointwise ops on the values and on the indices (per row), in the
    # reduction's kernel.
    shape = (5, 3, 33)

    @program
    def after(x: Tensor[(*shape, f32)]):
        m = x.min(-1)
        return m.values * 3.0, m.indices + 1

    k = tcc.compile(after, target, cache=False)
    assert len(k.kernels) == 1
    x = _inputs(shape, np.float32, 9)
    outs = run_gpu_stage(k, x)
    np.testing.assert_array_equal(outs[0], np.min(x, -1) * 3.0)
    np.testing.assert_array_equal(outs[1], np.argmin(x, -1) + 1)


@pytest.mark.parametrize("target", TARGETS)
def test_torch_semantics_program_on_the_gpu_stage(target):
    # test_torch_semantics.py::test_max_min_with_indices's program (checked
    # there at the linalg stage), through the kernels: f32 with ties and a
    # NaN, an i32 input, keepdim, a full argmin, and the plain max.
    @program
    def extrema(x: Tensor[6, 7, f32], i: Tensor[6, 7, i32]):
        v, idx = x.max(-1)
        mn = x.min(0, keepdim=True)
        iv, ii = tf.max(i, 1)
        return v, idx, mn.values, mn.indices, iv, ii, x.argmax(0), x.argmin(), x.max()

    rng = np.random.default_rng(10)
    x = rng.integers(0, 4, (6, 7)).astype(np.float32)
    x[2, 3] = np.nan
    i = rng.integers(-5, 5, (6, 7)).astype(np.int32)
    v, idx, mv, mi, iv, ii, am, an, mx = run_gpu_stage(
        tcc.compile(extrema, target, cache=False), x, i)
    np.testing.assert_array_equal(v, np.max(x, -1))
    np.testing.assert_array_equal(idx, np.argmax(x, -1))
    assert mi.shape == (1, 7) and mi.dtype == np.int64
    np.testing.assert_array_equal(mv[0], np.min(x, 0))
    np.testing.assert_array_equal(mi[0], np.argmin(x, 0))
    assert iv.dtype == np.int32
    np.testing.assert_array_equal(iv, i.max(1))
    np.testing.assert_array_equal(ii, i.argmax(1))
    np.testing.assert_array_equal(am, np.argmax(x, 0))
    assert an.shape == () and an == np.argmin(x)
    assert np.isnan(mx)
