"""Broadcasts over a last dim that is no multiple of the vector length run as
one flat stream (view = flat_gather): the operands read straight and the
result move in 16-byte vectors, the broadcast operands are gathered at their
offset of each flat index. Run on the CPU through the gpu stage
(tcc.testing.simt) for sm_90 and gfx942 against float64 numpy; the PTX of
the 1000x777 bias kernel shows the vector loads."""

import re

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.frontend import Tensor, f16, f32, program, syms
from tcc.testing.simt import run_gpu_stage

M, N, B = syms("M N B")
TARGETS = ["sm_90", "gfx942"]


@program
def row_bias(x: Tensor[M, N, f32], b: Tensor[N, f32]):
    return x + b


@program
def column_bias(x: Tensor[M, N, f32], b: Tensor[M, 1, f32]):
    return x * b


@program
def bias3d(x: Tensor[B, M, N, f32], b: Tensor[N, f32]):
    return x - b


@program
def batch_row_bias(x: Tensor[B, M, N, f32], b: Tensor[B, 1, N, f32]):
    return x + b


@program
def bias_gelu_f16(x: Tensor[M, N, f16], b: Tensor[N, f16]):
    return tf.gelu(x + b)


@program
def unit_dims(x: Tensor[M, 1, N, f32], b: Tensor[1, N, f32], c: Tensor[M, 1, 1, f32]):
    return (x + b) * c


@program
def scalar_like(x: Tensor[M, N, f32], s: Tensor[1, f32]):
    return x * s


def randn(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def f64(a):
    return np.asarray(a, dtype=np.float64)


def gelu_ref(v):
    from math import erf

    return 0.5 * v * (1.0 + np.vectorize(erf)(v / np.sqrt(2.0)))


def check(kernel, inputs, ref, tol):
    (got,) = run_gpu_stage(kernel, *inputs)
    got = f64(got)
    assert got.shape == ref.shape
    assert not np.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


def flat_gather_plans(kernel):
    """How many kernels of `kernel` run on the flat_gather view."""
    return kernel.ir["tile"].count("view = flat_gather")


@pytest.mark.parametrize("target", TARGETS)
def test_row_bias_1000x777(target):
    k = tcc.compile(row_bias, target, M=1000, N=777, cache=False)
    assert flat_gather_plans(k) == 1
    rng = np.random.default_rng(0)
    x, b = randn(rng, 1000, 777), randn(rng, 777)
    check(k, (x, b), f64(x) + f64(b), 1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_column_bias_7x13(target):
    # 91 elements: one block, a tail of the last 16-byte run.
    k = tcc.compile(column_bias, target, M=7, N=13, cache=False)
    assert flat_gather_plans(k) == 1
    rng = np.random.default_rng(1)
    x, b = randn(rng, 7, 13), randn(rng, 7, 1)
    check(k, (x, b), f64(x) * f64(b), 1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_rank3_row_bias(target):
    k = tcc.compile(bias3d, target, B=3, M=5, N=777, cache=False)
    assert flat_gather_plans(k) == 1
    rng = np.random.default_rng(2)
    x, b = randn(rng, 3, 5, 777), randn(rng, 777)
    check(k, (x, b), f64(x) - f64(b), 1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_rank3_per_batch_row_bias(target):
    # b's offset of flat index i: (i / (5 * 777)) * 777 + i % 777.
    k = tcc.compile(batch_row_bias, target, B=3, M=5, N=777, cache=False)
    assert flat_gather_plans(k) == 1
    rng = np.random.default_rng(3)
    x, b = randn(rng, 3, 5, 777), randn(rng, 3, 1, 777)
    check(k, (x, b), f64(x) + f64(b), 1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_f16_bias_gelu_37x777(target):
    # 28749 elements: an odd total, the last run element by element.
    k = tcc.compile(bias_gelu_f16, target, M=37, N=777, cache=False)
    assert flat_gather_plans(k) == 1
    rng = np.random.default_rng(4)
    x, b = randn(rng, 37, 777, dtype=np.float16), randn(rng, 777, dtype=np.float16)
    ref = gelu_ref(f64(x + b))  # the sum rounds to f16 as the kernel's does
    check(k, (x, b), ref, 2e-2)


@pytest.mark.parametrize("target", TARGETS)
def test_size_one_dims(target):
    k = tcc.compile(unit_dims, target, M=9, N=31, cache=False)
    rng = np.random.default_rng(5)
    x, b, c = randn(rng, 9, 1, 31), randn(rng, 1, 31), randn(rng, 9, 1, 1)
    check(k, (x, b, c), (f64(x) + f64(b)) * f64(c), 1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_scalar_like_operand(target):
    k = tcc.compile(scalar_like, target, M=37, N=777, cache=False)
    rng = np.random.default_rng(6)
    x, s = randn(rng, 37, 777), randn(rng, 1)
    check(k, (x, s), f64(x) * f64(s), 1e-6)


def test_even_last_dim_keeps_the_2d_plan():
    k = tcc.compile(row_bias, "sm_90", M=64, N=1024, cache=False)
    assert flat_gather_plans(k) == 0
    assert re.search(r"ld\.global(\.nc)?\.v4\.(f32|b32)", k.kernels[0].asm)


def test_odd_last_dim_bias_streams_16_byte_vectors_sm90():
    k = tcc.compile(row_bias, "sm_90", M=1000, N=777, cache=False)
    asm = k.kernels[0].asm
    # x in 16-byte vectors, the result too; the bias in scalar gathers.
    assert re.search(r"ld\.global(\.nc)?\.v4\.(f32|b32)", asm)
    assert re.search(r"st\.global\.v4\.(f32|b32)", asm)
    assert re.search(r"ld\.global(\.nc)?\.(f32|b32)\s", asm)


@pytest.mark.parametrize("target", TARGETS)
def test_row_bias_wider_than_the_block_wraps_once(target):
    # Rows of 1531 > the block's 1024 (and > gfx942's): the gather takes the
    # column (n0 % 1531) + j wrapped once (min(c, c - 1531)), promised in
    # bounds; blocks straddle row ends and the stream's tail.
    k = tcc.compile(row_bias, target, M=203, N=1531, cache=False)
    assert flat_gather_plans(k) == 1
    assert "arith.minui" in k.ir["tile"] and "{in_bounds}" in k.ir["tile"]
    rng = np.random.default_rng(7)
    x, b = randn(rng, 203, 1531), randn(rng, 1531)
    check(k, (x, b), f64(x) + f64(b), 1e-6)


def test_wrapped_row_bias_has_no_remainder_per_element_sm90():
    # One 32-bit remainder per thread (the block's start), none per element.
    k = tcc.compile(row_bias, "sm_90", M=8192, N=7777, cache=False)
    asm = k.kernels[0].asm
    assert asm.count("mul.hi.u32") == 1
    assert "min.u32" in asm
