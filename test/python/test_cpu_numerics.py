"""Numerics of tcc -> linalg (+ fusion) checked on the CPU against float64."""

import math

import numpy as np
import pytest

from tcc.testing.cpu import run_on_cpu

RNG = np.random.default_rng(0)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def _gelu_erf(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


@pytest.mark.parametrize("approx", ["tanh", "none"])
def test_bias_gelu(approx):
    m, n = 37, 53
    x = RNG.standard_normal((m, n)).astype(np.float32)
    b = RNG.standard_normal(n).astype(np.float32)
    attr = " approximate = tanh" if approx == "tanh" else ""
    src = f"""
    func.func @f(%x: tensor<{m}x{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{m}x{n}xf32> {{
      %bb = tcc.broadcast %b dims = [0] : tensor<{n}xf32> -> tensor<{m}x{n}xf32>
      %s = tcc.add %x, %bb : tensor<{m}x{n}xf32>
      %y = tcc.gelu %s{attr} : tensor<{m}x{n}xf32>
      return %y : tensor<{m}x{n}xf32>
    }}"""
    (y,) = run_on_cpu(src, x, b)
    ref = (_gelu_tanh if approx == "tanh" else _gelu_erf)(x.astype(np.float64) + b)
    np.testing.assert_allclose(y, ref, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("relu", lambda x: np.maximum(x, 0)),
        ("exp", np.exp),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("tanh", np.tanh),
        ("neg", lambda x: -x),
        ("abs", np.abs),
    ],
)
def test_unary(op, ref):
    x = RNG.standard_normal((5, 33)).astype(np.float32)
    src = f"""
    func.func @f(%x: tensor<5x33xf32>) -> tensor<5x33xf32> {{
      %y = tcc.{op} %x : tensor<5x33xf32>
      return %y : tensor<5x33xf32>
    }}"""
    (y,) = run_on_cpu(src, x)
    np.testing.assert_allclose(y, ref(x.astype(np.float64)), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("op", "ref"),
    [
        ("reduce_sum", np.sum),
        ("reduce_max", np.max),
        ("reduce_min", np.min),
        ("reduce_mean", np.mean),
    ],
)
def test_row_reductions_keepdims(op, ref):
    x = RNG.standard_normal((7, 777)).astype(np.float32)
    src = f"""
    func.func @f(%x: tensor<7x777xf32>) -> tensor<7x1xf32> {{
      %y = tcc.{op} %x dims = [1] keepdims : tensor<7x777xf32> -> tensor<7x1xf32>
      return %y : tensor<7x1xf32>
    }}"""
    (y,) = run_on_cpu(src, x)
    np.testing.assert_allclose(
        y, ref(x.astype(np.float64), axis=1, keepdims=True), rtol=1e-5, atol=1e-5
    )


def test_f16_sum_accumulates_in_f32():
    # 4096 ones + one large value: an f16 accumulator would stall at 2048.
    x = np.ones((2, 4096), dtype=np.float16)
    src = """
    func.func @f(%x: tensor<2x4096xf16>) -> tensor<2xf32> {
      %s = tcc.reduce_sum %x dims = [1] : tensor<2x4096xf16> -> tensor<2x4096xf16>
      return %s : tensor<2xf32>
    }""".replace("-> tensor<2x4096xf16>", "-> tensor<2xf16>").replace(
        "return %s : tensor<2xf32>",
        "%c = tcc.cast %s : tensor<2xf16> to tensor<2xf32>\n      return %c : tensor<2xf32>",
    )
    (y,) = run_on_cpu(src, x)
    np.testing.assert_array_equal(y, [4096.0, 4096.0])


def test_matmul_with_f32_accumulator():
    a = RNG.standard_normal((16, 64)).astype(np.float16)
    b = RNG.standard_normal((64, 8)).astype(np.float16)
    src = """
    func.func @f(%a: tensor<16x64xf16>, %b: tensor<64x8xf16>) -> tensor<16x8xf32> {
      %c = tcc.matmul %a, %b acc(f32) : tensor<16x64xf16>, tensor<64x8xf16> -> tensor<16x8xf32>
      return %c : tensor<16x8xf32>
    }"""
    (c,) = run_on_cpu(src, a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_casts_round_trip():
    x = (RNG.standard_normal(64) * 100).astype(np.float32)
    src = """
    func.func @f(%x: tensor<64xf32>) -> (tensor<64xi32>, tensor<64xf16>) {
      %i = tcc.cast %x : tensor<64xf32> to tensor<64xi32>
      %h = tcc.cast %x : tensor<64xf32> to tensor<64xf16>
      return %i, %h : tensor<64xi32>, tensor<64xf16>
    }"""
    i, h = run_on_cpu(src, x)
    np.testing.assert_array_equal(i, np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(h, x.astype(np.float16))
