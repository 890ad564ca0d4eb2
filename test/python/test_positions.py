"""Positions in elementwise kernels and GEMM epilogues (``tf.arange``,
``linalg.index`` in the body): each of the four elementwise schedules computes
a loop dim's position from its block (rows m0 + i, columns n0 + j, a program's
leading index, or a flat stream's index delinearized: (x / inner) % extent),
as i32; a GEMM epilogue from its block on the accumulator's layout. Run on the
CPU through the gpu stage (tcc.testing.simt) against numpy, on sm_80 and
gfx942 (the output poisoned with NaN first)."""

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.compiler.compile import CompilationError
from tcc.frontend import Tensor, f16, f32, i64, program, syms
from tcc.testing.simt import run_gpu_stage

B, K, M, N, S = syms("B K M N S")
TARGETS = ["sm_80", "gfx942"]


@program
def column_positions(x: Tensor[M, N, f32]):
    # A position embedding by column, in i64 (sign-extended from the i32 positions).
    return x + tf.arange(N, i64).to(f32).reshape(1, N) * 0.5


@program
def causal_fill(x: Tensor[B, S, S, f32]):
    # torch.tril over a batch of [S, S]: the rows' run is (b, s) collapsed, so
    # the query position is the row index modulo S.
    keep = tf.arange(S).reshape(S, 1) >= tf.arange(S).reshape(1, S)
    return tf.where(keep, x, 0.0)


@program
def flat_rows(x: Tensor[M, N, f32], b: Tensor[N, f32]):
    # A broadcast over N = 777 streams flat: the row position is i / N.
    return x + b + tf.arange(M).to(f32).reshape(M, 1)


@program
def batched_rows(x: Tensor[B, M, N, f32], y: Tensor[B, N, f32]):
    # y read at (b, n): three groups of dims, the batch one per program.
    rows = tf.arange(M).to(f32).reshape(1, M, 1)
    batch = tf.arange(B).to(f32).reshape(B, 1, 1)
    return x + y.reshape(B, 1, N) + rows * 100.0 + batch * 1000.0


@program
def permuted(x: Tensor[B, M, N, f32], z: Tensor[M, B, N, f32]):
    # z read transposed (the last dim kept): one leading index per program.
    batch = tf.arange(B).to(f32).reshape(B, 1, 1)
    cols = tf.arange(N).to(f32).reshape(1, 1, N)
    return x + z.transpose(0, 1) + batch * 1000.0 + cols


def check(kernel, inputs, ref) -> None:  # noqa: ANN001
    assert len(kernel.kernels) == 1
    (got,) = run_gpu_stage(kernel, *inputs)
    got = np.asarray(got, dtype=np.float64)
    assert not np.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


def randn(rng, *shape):  # noqa: ANN001, ANN201
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("target", TARGETS)
def test_column_positions(target):
    kernel = tcc.compile(column_positions, target, M=100, N=300, cache=False)
    x = randn(np.random.default_rng(0), 100, 300)
    check(kernel, (x,), x.astype(np.float64) + np.arange(300)[None, :] * 0.5)


@pytest.mark.parametrize("target", TARGETS)
def test_causal_fill_over_a_batch(target):
    kernel = tcc.compile(causal_fill, target, B=3, S=70, cache=False)
    x = randn(np.random.default_rng(1), 3, 70, 70)
    check(kernel, (x,), np.tril(x.astype(np.float64)))


@pytest.mark.parametrize("target", TARGETS)
def test_row_positions_on_a_flat_stream(target):
    kernel = tcc.compile(flat_rows, target, M=37, N=777, cache=False)
    assert "view = flat_gather" in kernel.ir["tile"]
    rng = np.random.default_rng(2)
    x, b = randn(rng, 37, 777), randn(rng, 777)
    check(kernel, (x, b), x.astype(np.float64) + b + np.arange(37)[:, None])


@pytest.mark.parametrize("target", TARGETS)
def test_positions_of_a_batched_elementwise_kernel(target):
    kernel = tcc.compile(batched_rows, target, B=3, M=20, N=64, cache=False)
    rng = np.random.default_rng(3)
    x, y = randn(rng, 3, 20, 64), randn(rng, 3, 64)
    ref = (x.astype(np.float64) + y[:, None, :] + np.arange(20)[None, :, None] * 100.0
           + np.arange(3)[:, None, None] * 1000.0)
    check(kernel, (x, y), ref)


@pytest.mark.parametrize("target", TARGETS)
def test_positions_of_a_permuted_elementwise_kernel(target):
    kernel = tcc.compile(permuted, target, B=3, M=20, N=64, cache=False)
    rng = np.random.default_rng(4)
    x, z = randn(rng, 3, 20, 64), randn(rng, 20, 3, 64)
    ref = (x.astype(np.float64) + z.transpose(1, 0, 2) + np.arange(3)[:, None, None] * 1000.0
           + np.arange(64)[None, None, :])
    check(kernel, (x, z), ref)


def test_positions_before_a_row_reduction():
    # The positions' product is an elementwise kernel of its own, then the sum.
    @program
    def weighted_sum(x: Tensor[M, N, f32]):
        return (x * tf.arange(N).to(f32).reshape(1, N)).sum(-1)
    kernel = tcc.compile(weighted_sum, "sm_80", M=8, N=64, cache=False)
    assert len(kernel.kernels) == 2
    x = randn(np.random.default_rng(5), 8, 64)
    (got,) = run_gpu_stage(kernel, x)
    ref = (x.astype(np.float64) * np.arange(64)).sum(-1)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), ref, rtol=1e-5, atol=1e-4)


@program
def masked_softmax(x: Tensor[M, S, f32]):
    # Keys past 37 masked on their positions: one row program.
    return tf.where(tf.arange(S).reshape(1, S) < 37, x, float("-inf")).softmax(-1)


@program
def row_weighted(x: Tensor[M, S, f32]):
    # A row reduction of a product with positions, a division after it.
    w = tf.arange(S).to(f32).reshape(1, S)
    return (x * w).sum(-1, keepdim=True) / (x.sum(-1, keepdim=True) + 1000.0)


@program
def column_weighted(x: Tensor[M, N, f32]):
    return (x * tf.arange(M).to(f32).reshape(M, 1)).sum(0)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("variant", ["masked_softmax", "row_weighted", "column_weighted"])
def test_positions_in_reductions(target, variant):
    program_, sizes, shape = {
        "masked_softmax": (masked_softmax, {"M": 8, "S": 100}, (8, 100)),
        "row_weighted": (row_weighted, {"M": 8, "S": 3000}, (8, 3000)),
        "column_weighted": (column_weighted, {"M": 300, "N": 64}, (300, 64))}[variant]
    kernel = tcc.compile(program_, target, cache=False, **sizes)
    x = randn(np.random.default_rng(9), *shape)
    xd = x.astype(np.float64)
    if variant == "masked_softmax":
        s = np.where(np.arange(shape[1])[None, :] < 37, xd, -np.inf)
        e = np.exp(s - s.max(-1, keepdims=True))
        ref = e / e.sum(-1, keepdims=True)
    elif variant == "row_weighted":
        ref = ((xd * np.arange(shape[1])).sum(-1, keepdims=True)
               / (xd.sum(-1, keepdims=True) + 1000.0))
    else:
        ref = (xd * np.arange(shape[0])[:, None]).sum(0)
    (got,) = run_gpu_stage(kernel, x)
    got = np.asarray(got, dtype=np.float64)
    assert not np.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


@program
def gemm_plus_positions(a: Tensor[M, K, f16], b: Tensor[K, N, f16]):
    # A GEMM epilogue reading positions: computed on the accumulator's layout.
    rows = tf.arange(M).to(f16).reshape(M, 1)
    return (a @ b) + tf.arange(N).to(f16).reshape(1, N) * 0.25 + rows * 0.5


@program
def batched_gemm_plus_positions(a: Tensor[B, M, K, f16], b: Tensor[B, K, N, f16]):
    batch = tf.arange(B).to(f16).reshape(B, 1, 1)
    return (a @ b) + batch * 4.0 + tf.arange(N).to(f16).reshape(1, 1, N) * 0.25


@pytest.mark.parametrize("target, m, n", [
    ("sm_80", 72, 136), ("sm_90", 256, 256), ("sm_90", 72, 136), ("gfx942", 72, 136)])
def test_positions_in_a_matmul_epilogue(target, m, n):
    kernel = tcc.compile(gemm_plus_positions, target, M=m, N=n, K=64, cache=False)
    if (target, m) == ("sm_90", 256):
        assert "wgmma.mma_async" in kernel.kernels[0].asm
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((m, 64)) / 8).astype(np.float16)
    b = (rng.standard_normal((64, n)) / 8).astype(np.float16)
    ref = (a.astype(np.float64) @ b.astype(np.float64) + np.arange(n)[None, :] * 0.25
           + np.arange(m)[:, None] * 0.5)
    (got,) = run_gpu_stage(kernel, a, b)
    got = np.asarray(got, dtype=np.float64)
    assert len(kernel.kernels) == 1 and not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-2)  # the sum rounds to f16


def test_positions_in_a_batched_matmul_epilogue():
    kernel = tcc.compile(batched_gemm_plus_positions, "sm_80", B=3, M=40, N=72, K=32,
                         cache=False)
    rng = np.random.default_rng(8)
    a = (rng.standard_normal((3, 40, 32)) / 8).astype(np.float16)
    b = (rng.standard_normal((3, 32, 72)) / 8).astype(np.float16)
    ref = (a.astype(np.float64) @ b.astype(np.float64) + np.arange(3)[:, None, None] * 4.0
           + np.arange(72)[None, None, :] * 0.25)
    (got,) = run_gpu_stage(kernel, a, b)
    got = np.asarray(got, dtype=np.float64)
    assert len(kernel.kernels) == 1 and not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-2)


@program
def batch_rows(x: Tensor[B, M, 64, f32]):
    return x + tf.arange(M).to(f32).reshape(1, M, 1)


def test_positions_with_dynamic_sizes():
    # M dynamic: its positions are the block's rows (no remainder).
    kernel = tcc.compile(column_positions, "sm_80", N=300, cache=False)
    x = randn(np.random.default_rng(6), 7, 300)
    check(kernel, (x,), x.astype(np.float64) + np.arange(300)[None, :] * 0.5)
    # B and M dynamic, collapsed into the rows: M's position would be the row
    # index modulo a dynamic size, which is refused with a diagnostic.
    with pytest.raises(CompilationError, match="collapsed with a dim of dynamic size"):
        tcc.compile(batch_rows, "sm_80", cache=False)
