"""Programs written as a PyTorch user writes them trace and compute torch's results.

Each program is traced with tcc.frontend, specialized to small sizes, run through
its `linalg` stage on the CPU (tcc.testing.cpu) and compared with float64 numpy.
"""

import math

import numpy as np
import pytest
from mlir import ir
from mlir.passmanager import PassManager

import tcc
import tcc.frontend as tf
from tcc.frontend import (
    DTypeError,
    MaxMin,
    ShapeError,
    Tensor,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
    program,
    syms,
)
from tcc.testing.cpu import run_on_cpu

M, N, K, B, S, H, D = syms("M N K B S H D")
RNG = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def run(prog, *inputs, **sizes):
    """The program's results on the CPU (specialized to ``sizes``)."""
    return run_on_cpu((prog.specialize(**sizes) if sizes else prog).ir, *inputs)


def f64_(*arrays):
    return [a.astype(np.float64) for a in arrays]


def close(actual, expected, rtol=2e-5, atol=2e-6):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


_erf = np.vectorize(math.erf)


# --- whole programs ---------------------------------------------------------------------------


@program
def layer_norm(x: Tensor[M, N, f32], w: Tensor[N, f32], b: Tensor[N, f32]) -> Tensor[M, N, f32]:
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mu) / (var + 1e-5).sqrt() * w + b


def test_layer_norm():
    x, w, b = randn(5, 33), randn(33), randn(33)
    (y,) = run(layer_norm, x, w, b, M=5, N=33)
    xd, wd, bd = f64_(x, w, b)
    ref = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
    close(y, ref * wd + bd)


def test_layer_norm_ir_broadcasts_without_reshapes():
    # keepdim results feed broadcasts directly: no tcc.reshape between the
    # reductions and their elementwise consumers.
    text = layer_norm.specialize(M=4, N=8).ir
    assert "tcc.reshape" not in text and "keepdims" not in text
    assert text.count("tcc.broadcast") == 5  # mean, rstd, twice mean (var), w, b


@program
def rms_norm(x: Tensor[M, N, f16], w: Tensor[N, f16]) -> Tensor[M, N, f16]:
    xf = x.float()
    rms = (xf.pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt()
    return (xf * rms).to(x.dtype) * w


def test_rms_norm_f16():
    x, w = randn(6, 40, dtype=np.float16), randn(40, dtype=np.float16)
    (y,) = run(rms_norm, x, w, M=6, N=40)
    assert y.dtype == np.float16
    xd, wd = f64_(x, w)
    ref = xd / np.sqrt((xd**2).mean(-1, keepdims=True) + 1e-6) * wd
    close(y, ref, rtol=5e-3, atol=5e-3)


@program
def linear(x: Tensor[B, S, K, f32], w: Tensor[N, K, f32], b: Tensor[N, f32]):
    return x @ w.T + b


def test_linear_rank3():
    x, w, b = randn(2, 3, 8), randn(5, 8), randn(5)
    (y,) = run(linear, x, w, b, B=2, S=3, K=8, N=5)
    xd, wd, bd = f64_(x, w, b)
    assert y.shape == (2, 3, 5)
    close(y, xd @ wd.T + bd)


def test_linear_ir_keeps_the_epilogue_next_to_the_matmul(ctx):
    # The batch dims fold into M (one 2-D matmul, as nn.Linear); the bias add
    # runs on the 2-D result and one reshape restores (B, S, N).
    assert_ir(
        linear.specialize(B=2, S=3, K=8, N=5),
        """
        func.func @linear(%x: tensor<2x3x8xf32>, %w: tensor<5x8xf32>, %b: tensor<5xf32>)
            -> tensor<2x3x5xf32> {
          %0 = tcc.transpose %w permutation = [1, 0] : tensor<5x8xf32> -> tensor<8x5xf32>
          %1 = tcc.reshape %x : tensor<2x3x8xf32> -> tensor<6x8xf32>
          %2 = tcc.matmul %1, %0 : tensor<6x8xf32>, tensor<8x5xf32> -> tensor<6x5xf32>
          %3 = tcc.broadcast %b dims = [0] : tensor<5xf32> -> tensor<6x5xf32>
          %4 = tcc.add %2, %3 : tensor<6x5xf32>
          %5 = tcc.reshape %4 : tensor<6x5xf32> -> tensor<2x3x5xf32>
          return %5 : tensor<2x3x5xf32>
        }
        """,
    )


@program
def column_sum(x: Tensor[M, N, f32]) -> Tensor[N, f32]:
    return x.sum(0)


def test_column_sum():
    x = randn(37, 11)
    (y,) = run(column_sum, x, M=37, N=11)
    close(y, x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


@program
def log_softmax(x: Tensor[M, N, f32]):
    return x.log_softmax(-1), tf.log_softmax(x, dim=0)


def test_log_softmax_both_dims():
    x = randn(6, 9) * 3
    rows, cols = run(log_softmax, x, M=6, N=9)
    xd = x.astype(np.float64)

    def ref(a, axis):
        m = a.max(axis, keepdims=True)
        return a - m - np.log(np.exp(a - m).sum(axis, keepdims=True))

    close(rows, ref(xd, -1))
    close(cols, ref(xd, 0))


@program
def softmax_dim0(x: Tensor[M, N, f32], y: Tensor[B, M, N, f32]):
    return x.softmax(0), y.softmax(1), tf.softmax(y, dim=-1)


def test_softmax_over_any_dim():
    x, y = randn(7, 5), randn(2, 7, 5)
    a, b, c = run(softmax_dim0, x, y, M=7, N=5, B=2)

    def ref(v, axis):
        e = np.exp(v - v.max(axis, keepdims=True))
        return e / e.sum(axis, keepdims=True)

    close(a, ref(x.astype(np.float64), 0))
    close(b, ref(y.astype(np.float64), 1))
    close(c, ref(y.astype(np.float64), -1))


@program
def silu_mul(a: Tensor[M, N, f32], b: Tensor[M, N, f32]) -> Tensor[M, N, f32]:
    return tf.silu(a) * b


@program
def swiglu_mlp(
    x: Tensor[B, S, D, f32], w1: Tensor[H, D, f32], w3: Tensor[H, D, f32], w2: Tensor[D, H, f32]
) -> Tensor[B, S, D, f32]:
    return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T


def test_silu_mul_and_swiglu():
    a, b = randn(4, 9), randn(4, 9)
    (y,) = run(silu_mul, a, b, M=4, N=9)
    ad, bd = f64_(a, b)
    close(y, ad / (1 + np.exp(-ad)) * bd)

    x, w1, w3, w2 = randn(2, 3, 8), randn(6, 8), randn(6, 8), randn(8, 6)
    (y,) = run(swiglu_mlp, x, w1, w3, w2, B=2, S=3, D=8, H=6)
    xd, w1d, w3d, w2d = f64_(x, w1, w3, w2)
    g = xd @ w1d.T
    close(y, (g / (1 + np.exp(-g)) * (xd @ w3d.T)) @ w2d.T, rtol=1e-4, atol=1e-4)


def test_swiglu_ir_is_two_dimensional_between_reshapes():
    text = swiglu_mlp.specialize(B=2, S=3, D=8, H=6).ir
    # x is flattened once; the elementwise ops run on the 2-D matmul results.
    assert text.count("tcc.reshape") == 2
    assert "tcc.mul %" in text and "tensor<6x6xf32>" in text


@program
def gemm_bias_gelu(a: Tensor[M, K, f16], b: Tensor[K, N, f16], bias: Tensor[N, f16]):
    return (a @ b + bias).gelu()


def test_gemm_bias_gelu_f16_accumulates_in_f32():
    a, b, bias = randn(8, 64, dtype=np.float16), randn(64, 16, dtype=np.float16), randn(16)
    bias = bias.astype(np.float16)
    (y,) = run(gemm_bias_gelu, a, b, bias, M=8, K=64, N=16)
    assert y.dtype == np.float16
    ad, bd, biasd = f64_(a, b, bias)
    s = (ad @ bd).astype(np.float16).astype(np.float64) + biasd
    close(y, 0.5 * s * (1 + _erf(s / math.sqrt(2))), rtol=1e-2, atol=1e-2)
    assert "acc(f32)" in gemm_bias_gelu.ir


@program
def attention(
    q: Tensor[B, S, H, D, f32], k: Tensor[B, S, H, D, f32], v: Tensor[B, S, H, D, f32]
) -> Tensor[B, S, H, D, f32]:
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    p = (qh @ kh.transpose(-2, -1) * 0.5).softmax(-1)
    return (p @ vh).permute(0, 2, 1, 3)


def test_unfused_attention_with_permutes():
    q, k, v = randn(2, 5, 3, 4), randn(2, 5, 3, 4), randn(2, 5, 3, 4)
    (y,) = run(attention.specialize(B=2, S=5, H=3, D=4), q, k, v)
    qd, kd, vd = (a.astype(np.float64).transpose(0, 2, 1, 3) for a in (q, k, v))
    s = qd @ kd.transpose(0, 1, 3, 2) * 0.5
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    close(y, (p @ vd).transpose(0, 2, 1, 3), rtol=1e-5, atol=1e-5)


# --- features one by one ----------------------------------------------------------------------


def test_implicit_broadcasting():
    @program
    def progs(x: Tensor[2, 3, 4, f32], row: Tensor[4, f32], col: Tensor[3, 1, f32]):
        return (
            x - x.mean(-1, keepdim=True),
            x * row,
            x + col,
            col * row,
            x / x.amax((0, 2)).unsqueeze(-1),
            x.sum((0, 2), keepdim=True) - x,
        )

    x, row, col = randn(2, 3, 4), randn(4), randn(3, 1)
    outs = run(progs, x, row, col)
    xd, rd, cd = f64_(x, row, col)
    refs = [
        xd - xd.mean(-1, keepdims=True),
        xd * rd,
        xd + cd,
        cd * rd,
        xd / xd.max((0, 2))[:, None],
        xd.sum((0, 2), keepdims=True) - xd,
    ]
    for out, ref in zip(outs, refs, strict=True):
        assert out.shape == ref.shape
        close(out, ref)


def test_dims_positional_negative_tuple_and_keepdims():
    @program
    def reds(x: Tensor[3, 4, 5, f32]):
        return (
            x.sum(-1),
            x.mean((0, 2)),
            x.sum(dim=1, keepdim=True),
            x.mean(-2, keepdims=True),
            x.amax(),
            x.amin((-1, 0), keepdim=True),
            tf.sum(x),
            tf.mean(x, 1),
        )

    x = randn(3, 4, 5)
    xd = x.astype(np.float64)
    refs = [
        xd.sum(-1),
        xd.mean((0, 2)),
        xd.sum(1, keepdims=True),
        xd.mean(-2, keepdims=True),
        xd.max(),
        xd.min((-1, 0), keepdims=True),
        xd.sum(),
        xd.mean(1),
    ]
    for out, ref in zip(run(reds, x), refs, strict=True):
        assert out.shape == ref.shape
        close(out, ref, rtol=1e-5, atol=1e-5)


def test_var_and_std_corrections():
    @program
    def variances(x: Tensor[4, 6, f32]):
        return (
            x.var(),
            x.var(-1),
            x.var(0, keepdim=True),
            x.var(1, unbiased=False),
            x.var((0, 1), correction=0),
            x.var(1, correction=2),
            tf.var(x, False),
            x.std(1),
        )

    x = randn(4, 6)
    xd = x.astype(np.float64)
    refs = [
        xd.var(ddof=1),
        xd.var(-1, ddof=1),
        xd.var(0, ddof=1, keepdims=True),
        xd.var(1),
        xd.var(),
        xd.var(1, ddof=2),
        xd.var(),
        xd.std(1, ddof=1),
    ]
    for out, ref in zip(run(variances, x), refs, strict=True):
        assert out.shape == ref.shape
        close(out, ref, rtol=1e-5, atol=1e-6)


def test_var_f16_is_computed_in_f32():
    @program
    def v(x: Tensor[3, 300, f16]):
        return x.var(-1)

    x = (randn(3, 300) * 4 + 100).astype(np.float16)
    (y,) = run(v, x)
    assert y.dtype == np.float16
    close(y, x.astype(np.float64).var(-1, ddof=1), rtol=2e-3)


def test_max_min_with_indices():
    @program
    def extrema(x: Tensor[6, 7, f32], i: Tensor[6, 7, i32]):
        v, idx = x.max(-1)
        mn = x.min(0, keepdim=True)
        assert isinstance(mn, MaxMin)
        iv, ii = tf.max(i, 1)
        return v, idx, mn.values, mn.indices, iv, ii, x.argmax(0), x.argmin(), x.max(), x.max(x.T.T)

    # Small integers so that ties occur: torch returns the first index.
    x = RNG.integers(0, 4, (6, 7)).astype(np.float32)
    x[2, 3] = np.nan  # NaN is the maximum (and the minimum), as in torch
    i = RNG.integers(-5, 5, (6, 7)).astype(np.int32)
    v, idx, mv, mi, iv, ii, am, an, mx, mm = run(extrema, x, i)
    assert idx.dtype == np.int64 and mi.dtype == np.int64 and mi.shape == (1, 7)
    nan_first = np.where(np.isnan(x), np.inf, x)
    np.testing.assert_array_equal(idx, np.argmax(nan_first, -1))
    np.testing.assert_array_equal(v, np.max(x, -1))
    nan_low = np.where(np.isnan(x), -np.inf, x)
    np.testing.assert_array_equal(mi[0], np.argmin(nan_low, 0))
    np.testing.assert_array_equal(mv[0], np.min(x, 0))
    np.testing.assert_array_equal(iv, i.max(1))
    np.testing.assert_array_equal(ii, i.argmax(1))
    np.testing.assert_array_equal(am, np.argmax(nan_first, 0))
    assert an.shape == () and an == np.argmin(nan_low)
    assert np.isnan(mx)
    np.testing.assert_array_equal(mm, x)


def test_compare_and_where():
    @program
    def masks(x: Tensor[5, 6, f32], y: Tensor[6, f32]):
        return (
            tf.where(x > 0, x, 0.1 * x),
            x.where(x <= y, y),
            tf.where(x >= 0.5, 1.0, 0.0),
            (x < y).to(i8),
            (x == y).to(i32),
            (x != x).to(f32),
            ((x > 0) & (y > 0)).to(i8),
            ((x > 0) | (y > 0)).to(i8),
            (~(x > 0)).to(i8),
            x.masked_fill(x < 0, -1.0),
        )

    x, y = randn(5, 6), randn(6)
    x[0, 0] = np.nan
    y[1] = x[1, 1]
    outs = run(masks, x, y)
    with np.errstate(invalid="ignore"):
        refs = [
            np.where(x > 0, x, 0.1 * x),
            np.where(x <= y, x, y),
            np.where(x >= 0.5, 1.0, 0.0),
            x < y,
            x == y,
            x != x,
            (x > 0) & (y > 0),
            (x > 0) | (y > 0),
            ~(x > 0),
            np.where(x < 0, -1.0, x),
        ]
    for out, ref in zip(outs, refs, strict=True):
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=1e-6)


def test_comparisons_are_i1_and_where_selects(ctx):
    @program
    def cmp(x: Tensor[4, 3, f16], y: Tensor[3, f32]):
        masks = (x < y, x <= 1, x > y, x >= 0.5, x == y, x != 2)
        assert all(m.dtype == i1 and m.shape == (4, 3) for m in masks)
        assert x != None  # noqa: E711  (not a tensor: Python's identity comparison)
        return tf.where(masks[0], x, y)

    assert_ir(
        cmp,
        """
        func.func @cmp(%x: tensor<4x3xf16>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
          %0 = tcc.cast %x : tensor<4x3xf16> to tensor<4x3xf32>
          %1 = tcc.broadcast %y dims = [0] : tensor<3xf32> -> tensor<4x3xf32>
          %2 = tcc.cmp lt, %0, %1 : tensor<4x3xf32> -> tensor<4x3xi1>
          %3 = tcc.constant dense<1.0> : tensor<4x3xf16>
          %4 = tcc.cmp le, %x, %3 : tensor<4x3xf16> -> tensor<4x3xi1>
          %5 = tcc.cmp gt, %0, %1 : tensor<4x3xf32> -> tensor<4x3xi1>
          %6 = tcc.constant dense<0.5> : tensor<4x3xf16>
          %7 = tcc.cmp ge, %x, %6 : tensor<4x3xf16> -> tensor<4x3xi1>
          %8 = tcc.cmp eq, %0, %1 : tensor<4x3xf32> -> tensor<4x3xi1>
          %9 = tcc.constant dense<2.0> : tensor<4x3xf16>
          %10 = tcc.cmp ne, %x, %9 : tensor<4x3xf16> -> tensor<4x3xi1>
          %11 = tcc.select %2, %0, %1 : tensor<4x3xi1>, tensor<4x3xf32>
          return %11 : tensor<4x3xf32>
        }
        """,
    )


def test_erf_exp_and_integer_promotion_of_unary_ops():
    @program
    def unary(x: Tensor[9, f32], i: Tensor[4, i32]):
        return x.erf(), tf.erf(x.to(f16)), x.exp(), i.exp(), i.sqrt(), tf.clamp(x, -0.5, 0.5)

    x, i = randn(9), np.arange(4, dtype=np.int32)
    e, eh, ex, ie, isq, cl = run(unary, x, i)
    xd = x.astype(np.float64)
    close(e, _erf(xd), rtol=1e-6, atol=1e-6)
    assert eh.dtype == np.float16
    close(eh, _erf(x.astype(np.float16).astype(np.float64)), rtol=2e-3, atol=2e-3)
    close(ex, np.exp(xd), rtol=1e-6)
    assert ie.dtype == np.float32 and isq.dtype == np.float32
    close(ie, np.exp(i.astype(np.float64)), rtol=1e-6)
    close(isq, np.sqrt(i.astype(np.float64)), rtol=1e-6)
    close(cl, np.clip(xd, -0.5, 0.5))


def test_pow_by_small_scalars_is_exact_for_negative_bases(ctx):
    @program
    def powers(x: Tensor[8, f32]):
        return x**2, x**3, x**-1, x.pow(-2), x.abs() ** 0.5, x.abs() ** -0.5, x**1, x**2.5

    text = powers.ir
    assert text.count("tcc.pow") == 1  # only x ** 2.5
    assert "tcc.sqrt" in text and "tcc.rsqrt" in text
    x = randn(8)
    xd = x.astype(np.float64)
    refs = [xd**2, xd**3, 1 / xd, xd**-2.0, np.sqrt(np.abs(xd)), 1 / np.sqrt(np.abs(xd)), xd]
    outs = run(powers, x)
    for out, ref in zip(outs, refs, strict=False):
        close(out, ref, rtol=1e-5)
    assert np.isnan(outs[-1][x < 0]).all()


def test_type_promotion():
    @program
    def promote(a: Tensor[4, f16], b: Tensor[4, f32], c: Tensor[4, bf16], i: Tensor[4, i32]):
        return (
            a + b,  # f16 + f32 -> f32
            a * 2.0,  # f16 * Python float -> f16
            c + a,  # bf16 + f16 -> f32
            i + 0.5,  # int + Python float -> f32
            i / i,  # true division -> f32
            (i > 2) + 1,  # bool + Python int -> i64
            i.sum(),  # integer sums are i64
            c * 3,  # bf16 * Python int -> bf16
            i * 3,  # i32 * Python int -> i32
            a + b.sum(),  # a 0-d f32 tensor does not lift a dimensioned f16 one
        )

    a, b, c = randn(4, dtype=np.float16), randn(4), randn(4)
    i = np.arange(1, 5, dtype=np.int32)
    outs = run(promote, a, b, c, i)
    ad, bd, id_ = f64_(a, b, i)
    c_bf16 = run_on_cpu(  # c as bf16 (rounded), read back as f32
        "func.func @f(%c: tensor<4xbf16>) -> tensor<4xbf16> { return %c : tensor<4xbf16> }", c
    )[0].astype(np.float64)
    expected = [
        (np.float32, ad + bd),
        (np.float16, ad * 2),
        (np.float32, c_bf16 + ad),
        (np.float32, id_ + 0.5),
        (np.float32, id_ / id_),
        (np.int64, (id_ > 2) + 1),
        (np.int64, id_.sum()),
        (np.float32, c_bf16 * 3),  # bf16 comes back as f32 arrays
        (np.int32, id_ * 3),
        (np.float16, ad + bd.sum()),
    ]
    for k, (out, (dt, ref)) in enumerate(zip(outs, expected, strict=True)):
        assert out.dtype == dt, k
        close(out.astype(np.float64), ref, rtol=2e-2, atol=2e-2)
    assert (
        "-> (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, "
        "tensor<4xi64>, tensor<i64>, tensor<4xbf16>, tensor<4xi32>, tensor<4xf16>)"
    ) in promote.ir


def test_promotion_table():
    rt = tf.result_type
    assert tf.promote_types(f16, bf16) == f32
    assert tf.promote_types(i8, f16) == f16
    assert tf.promote_types(i1, i32) == i32
    assert rt([f16], [], [2.0]) == f16
    assert rt([i32], [], [0.5]) == f32
    assert rt([i1], [], [1]) == i64
    assert rt([i8], [], [1]) == i8
    assert rt([f16], [f64], []) == f16
    assert rt([i32], [f16], []) == f16
    assert rt([], [], [1, 2.0]) == f32
    assert tf.dtype("float16") == f16 and tf.dtype("torch.bfloat16") == bf16
    assert tf.dtype("long") == i64 and tf.dtype("bool") == i1


def test_matmul_forms():
    @program
    def mms(
        a: Tensor[2, 1, 3, 4, f32],
        b: Tensor[5, 4, 6, f32],
        v: Tensor[4, f32],
        m: Tensor[4, 6, f32],
        h: Tensor[3, 4, bf16],
        hb: Tensor[4, 2, bf16],
    ):
        return a @ b, v @ m, m.T @ v, v @ v, tf.matmul(a, m), (h @ hb).to(f32)

    a, b, v, m = randn(2, 1, 3, 4), randn(5, 4, 6), randn(4), randn(4, 6)
    h, hb = randn(3, 4), randn(4, 2)
    bat, vm, mv, dot, am, hh = run(mms, a, b, v, m, h, hb)
    ad, bd, vd, md = f64_(a, b, v, m)
    for out, ref in [(bat, ad @ bd), (vm, vd @ md), (mv, md.T @ vd), (dot, vd @ vd), (am, ad @ md)]:
        assert out.shape == ref.shape
        close(out, ref, rtol=1e-5, atol=1e-5)
    bf = run_on_cpu(  # the bf16-rounded operands
        "func.func @f(%h: tensor<3x4xbf16>, %b: tensor<4x2xbf16>) -> (tensor<3x4xbf16>, "
        "tensor<4x2xbf16>) { return %h, %b : tensor<3x4xbf16>, tensor<4x2xbf16> }",
        h,
        hb,
    )
    close(hh, bf[0].astype(np.float64) @ bf[1].astype(np.float64), rtol=1e-2, atol=1e-2)
    text = mms.ir
    assert "acc(f32) : tensor<3x4xbf16>, tensor<4x2xbf16> -> tensor<3x2xbf16>" in text


def test_shape_ops():
    @program
    def shapes(x: Tensor[2, 3, 4, f32]):
        return (
            x.reshape(6, 4),
            x.view(-1),
            x.view(2, -1, 2),
            x.unsqueeze(1),
            x.unsqueeze(-1).squeeze(),
            x.flatten(1),
            x.permute(2, 0, 1),
            x.transpose(0, 2),
            x.mT,
            x.expand(5, 2, 3, 4),
            x.sum(1, keepdim=True).expand(-1, 3, -1),
        )

    x = randn(2, 3, 4)
    refs = [
        x.reshape(6, 4),
        x.reshape(-1),
        x.reshape(2, -1, 2),
        x[:, None],
        x,
        x.reshape(2, 12),
        x.transpose(2, 0, 1),
        x.transpose(2, 1, 0),
        x.transpose(0, 2, 1),
        np.broadcast_to(x, (5, 2, 3, 4)),
        np.broadcast_to(x.astype(np.float64).sum(1, keepdims=True), (2, 3, 4)),
    ]
    for out, ref in zip(run(shapes, x), refs, strict=True):
        assert out.shape == ref.shape
        close(out, ref)


def test_tuple_return_annotation():
    @program
    def two(x: Tensor[M, N, f32]) -> tuple[Tensor[M, N, f32], Tensor[M, f32]]:
        return x.softmax(-1), x.amax(-1)

    s, m = run(two, randn(3, 5) + 1, M=3, N=5)
    assert s.shape == (3, 5) and m.shape == (3,)
    assert "-> (tensor<?x?xf32>, tensor<?xf32>)" in two.ir


# --- symbolic sizes --------------------------------------------------------------------------


def lower_to_linalg(prog):
    with ir.Context():
        module = ir.Module.parse(prog.ir)
        PassManager.parse("builtin.module(tcc-tensor-to-linalg)").run(module.operation)
        assert module.operation.verify()
        return str(module)


@pytest.mark.parametrize(
    "prog", [layer_norm, rms_norm, linear, log_softmax, swiglu_mlp, attention], ids=lambda p: p.name
)
def test_symbolic_programs_trace_and_lower(prog):
    text = lower_to_linalg(prog)
    assert "tcc." not in text


def test_symbolic_reshape_sizes_come_from_the_arguments(ctx):
    @program
    def flat(x: Tensor[M, 8, f32]):
        return x.view(-1), x.view(-1, 2, 4), x.reshape(M, 2, 4).flatten(0, 1)

    assert_ir(
        flat,
        """
        func.func @flat(%x: tensor<?x8xf32>)
            -> (tensor<?xf32>, tensor<?x2x4xf32>, tensor<?x4xf32>) {
          %c8 = arith.constant 8 : index
          %c0 = arith.constant 0 : index
          %m = tensor.dim %x, %c0 : tensor<?x8xf32>
          %n = arith.muli %c8, %m : index
          %0 = tcc.reshape %x sizes(%n) : tensor<?x8xf32> -> tensor<?xf32>
          %1 = tcc.reshape %x sizes(%m) : tensor<?x8xf32> -> tensor<?x2x4xf32>
          %c2 = arith.constant 2 : index
          %2 = arith.muli %c2, %m : index
          %3 = tcc.reshape %x sizes(%2) : tensor<?x8xf32> -> tensor<?x4xf32>
          return %0, %1, %3 : tensor<?xf32>, tensor<?x2x4xf32>, tensor<?x4xf32>
        }
        """,
    )


def test_symbolic_reshapes_to_shapes_of_one_type_stay_apart(ctx):
    @program
    def two_views(x: Tensor[M, N, f32]):
        flat = x.view(-1)
        return flat.view(M, N), flat.view(N, M)

    text = two_views.ir
    # (M, N) is x itself; (N, M) is a reshape of x with sizes N, M (the
    # flat view and its size M*N are gone).
    assert text.count("tcc.reshape") == 1 and "arith.muli" not in text
    assert "return %arg0, %" in text


def test_size_arithmetic_on_x_shape():
    # torch-style size arithmetic on x.shape: products of symbols are sizes,
    # a quotient only where it is whole for every binding; with the sizes
    # bound, x.shape is ints and any arithmetic works.
    assert str(B * S) == "B*S" and str(4 * B * S) == "4*B*S"
    assert (B * S * 8) // 4 == 2 * B * S and (B * S) // S == B
    with pytest.raises(ShapeError, match=r"D // 4 is not a whole size .* D=\.\.\."):
        D // 4
    with pytest.raises(ShapeError, match=r"B \* 1.5: sizes combine with non-negative ints"):
        B * 1.5

    @program
    def heads(x: Tensor[B, S, D, f32]):
        b, s, d = x.shape
        return x.view(b, s, 4, d // 4).transpose(1, 2).reshape(b * 4, s, d // 4)

    with pytest.raises(ShapeError, match="D // 4"):
        heads.ir  # noqa: B018  (traced symbolically: D unbound)
    x = randn(2, 3, 8)
    (y,) = run(heads, x, B=2, S=3, D=8)
    close(y, x.reshape(2, 3, 4, 2).transpose(0, 2, 1, 3).reshape(8, 3, 2))

    @program
    def rows(x: Tensor[B, S, D, f32]):
        b, s, d = x.shape
        return x.view(b * s, d).sum(-1)

    assert "tensor<?x?xf32>" in rows.ir  # traced with B * S symbolic
    (y,) = run(rows, x, B=2, S=3, D=8)
    close(y, x.reshape(6, 8).astype(np.float64).sum(-1))


def test_symbolic_var_counts_elements_at_run_time():
    @program
    def var_sym(x: Tensor[M, N, f32]):
        return x.var(-1)

    # N - 1 is not known: N is a sum of ones over the reduced dim.
    assert var_sym.ir.count("tcc.reduce_sum") == 2
    assert "tcc." not in lower_to_linalg(var_sym)


# --- whole programs through the gpu stage (tcc.compile + tcc.testing.simt) ------------------


@pytest.mark.parametrize("target", ["sm_80", "gfx942"])
def test_torch_style_programs_on_the_gpu_stage(target):
    from tcc.testing.simt import run_gpu_stage

    x, w, b = randn(8, 64), randn(64), randn(64)
    (y,) = run_gpu_stage(tcc.compile(layer_norm, target, M=8, N=64), x, w, b)
    xd, wd, bd = f64_(x, w, b)
    ref = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
    close(y, ref * wd + bd, rtol=1e-4, atol=1e-4)

    xh, wh = randn(8, 64, dtype=np.float16), randn(64, dtype=np.float16)
    (y,) = run_gpu_stage(tcc.compile(rms_norm, target, M=8, N=64), xh, wh)
    xd, wd = f64_(xh, wh)
    close(y, xd / np.sqrt((xd**2).mean(-1, keepdims=True) + 1e-6) * wd, rtol=5e-3, atol=5e-3)

    @program
    def leaky_var(x: Tensor[M, N, f32]):
        return tf.where(x > 0, x, 0.1 * x), x.var(-1)

    leaky, var = run_gpu_stage(tcc.compile(leaky_var, target, M=8, N=64), x)
    close(leaky, np.where(x > 0, x, 0.1 * x))
    close(var, x.astype(np.float64).var(-1, ddof=1), rtol=1e-4, atol=1e-5)

    a, bm = randn(32, 32, dtype=np.float16), randn(32, 32, dtype=np.float16)
    bias = randn(32, dtype=np.float16)
    (y,) = run_gpu_stage(tcc.compile(gemm_bias_gelu, target, M=32, K=32, N=32), a, bm, bias)
    s = (a.astype(np.float64) @ bm.astype(np.float64)).astype(np.float16).astype(np.float64)
    s += bias.astype(np.float64)
    close(y, 0.5 * s * (1 + _erf(s / math.sqrt(2))), rtol=2e-2, atol=2e-2)


# --- single kernels still compile ------------------------------------------------------------


@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_torch_style_single_kernels_compile(target):
    @program
    def bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32]) -> Tensor[M, N, f32]:
        return (x + b).gelu(approximate="tanh")

    @program
    def row_max(x: Tensor[M, N, f32]) -> Tensor[M, f32]:
        return x.amax(-1)

    @program
    def mm_bias_relu(a: Tensor[M, K, f16], w: Tensor[K, N, f16], b: Tensor[N, f16]):
        return (a @ w + b).relu()

    for prog, sizes in [
        (bias_gelu, {"M": 64, "N": 96}),
        (row_max, {"M": 64, "N": 128}),
        (mm_bias_relu, {"M": 128, "K": 64, "N": 128}),
    ]:
        kernel = tcc.compile(prog, target, **sizes)
        assert kernel.asm


# --- helpers ---------------------------------------------------------------------------------


def assert_ir(prog, text):
    expected = ir.Module.parse(text)
    assert expected.operation.verify()
    module = prog.to_module()
    assert module.operation.verify()
    assert str(module) == str(expected)


def test_dtype_error_names_operands():
    @program
    def mixed(a: Tensor[4, 4, f16], b: Tensor[4, 4, f32]):
        return a @ b

    # The message starts at the user's line (FILE:LINE:COL), then names the op.
    line = mixed.fn.__code__.co_firstlineno + 2
    with pytest.raises(DTypeError, match=r"^\S+test_torch_semantics\.py:\d+:\d+: matmul: lhs "
                       "dtype f16 does not match rhs dtype f32") as info:
        mixed.to_module()
    assert f"test_torch_semantics.py:{line}:16: " in str(info.value)


def test_one_row_keepdim_chain_traces():
    """M = 1: the keepdim statistics are [1, 1]; their elementwise chain
    drops the unit dims once (it used to go [1, 1] -> [] -> [1, 1] without
    end, a RecursionError)."""
    from tcc.testing.simt import run_gpu_stage

    compiled = tcc.compile(layer_norm, "sm_80", M=1, N=256)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 256)).astype(np.float32)
    w = rng.standard_normal(256).astype(np.float32)
    b = rng.standard_normal(256).astype(np.float32)
    (y,) = run_gpu_stage(compiled, x, w, b)
    xd = x.astype(np.float64)
    ref = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
