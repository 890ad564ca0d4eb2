"""Reductions and matmul epilogues whose fused prologue reads an operand
through a broadcast no kernel form reads directly (a [1] scalar, a size-1
dim, an operand lacking a leading batch dim): tcc-materialize-broadcasts
broadcasts such an operand into a view the form reads, so the program
compiles for every target, and each kernel runs on the CPU through its gpu
stage (tcc.testing.simt) against float64 numpy. Most of these were found by
the random-program fuzzer (tcc.testing.fuzz), refused with "needs 1
kernels" before."""

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.frontend import Tensor, f16, f32, program
from tcc.testing.simt import run_gpu_stage

TARGETS = ["sm_80", "sm_90", "gfx942"]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@program
def layer_norm_pos(x: Tensor[4, 8, 64, f32], pos: Tensor[8, 64, f32], g: Tensor[64, f32]):
    h = x + pos
    m = h.mean(-1, keepdim=True)
    v = ((h - m) * (h - m)).mean(-1, keepdim=True)
    return (h - m) / (v + 1e-5).sqrt() * g


def layer_norm_pos_ref(x, pos, g):
    h = x + pos
    m = h.mean(-1, keepdims=True)
    v = ((h - m) ** 2).mean(-1, keepdims=True)
    return (h - m) / np.sqrt(v + 1e-5) * g


@program
def matmul_scale(x: Tensor[32, 16, f16], w: Tensor[16, 40, f16], s: Tensor[1, f16]):
    return (x @ w) * s


@program
def sum_scalar_prologue(x: Tensor[5, 16, f32], s: Tensor[1, f32]):
    return tf.minimum((x.abs() + 1.0).sqrt(), s).mean(1, keepdim=True)


@program
def softmax_temperature(x: Tensor[32, 48, f32], t: Tensor[1, f32]):
    return (x * t).softmax(-1)


@program
def column_sum_batch_broadcast(x: Tensor[3, 16, 5, 8, f32], y: Tensor[16, 5, 1, f32]):
    return (x + y).sum(-4, keepdim=False)


@program
def row_max_batch_broadcast(x: Tensor[3, 33, 2, 3, f32], y: Tensor[33, 2, 3, f32]):
    return tf.maximum(y, x).amax(-1, keepdim=False)


@program
def column_sum_unit_dims(x: Tensor[1, 17, 3, 1, f16], y: Tensor[17, 3, 1, f16]):
    return (x * y).sum(1, keepdim=True)


@program
def full_sum_scalar(x: Tensor[16, f16], s: Tensor[1, f16]):
    return (s - x.tanh().exp()).sum(0, keepdim=False)


@program
def full_max_scalar(x: Tensor[17, 5, f32], s: Tensor[1, f32]):
    return tf.maximum(s, tf.minimum(x, x)).amax(0, keepdim=False)


@program
def rms_norm_per_batch_scale(x: Tensor[2, 8, 64, f32], s: Tensor[2, 1, 1, f32]):
    y = x * s
    return y / (y * y).mean(-1, keepdim=True).sqrt()


@program
def row_sum_transposed(x: Tensor[5, 16, f32], y: Tensor[16, 5, f32]):
    return (x + y.T).sum(-1)


@program
def batched_shared_a(a: Tensor[32, 16, f16], b: Tensor[4, 16, 24, f16]):
    return a @ b


@program
def mean_middle_broadcast(x: Tensor[7, 3, 2, f32], y: Tensor[1, 3, 1, f32]):
    return tf.where(y > x, y, x * 2.0).mean(1, keepdim=False)


CASES = {
    "layer_norm_pos": (layer_norm_pos, layer_norm_pos_ref),
    "matmul_scale": (matmul_scale, lambda x, w, s: (x @ w) * s),
    "sum_scalar_prologue": (
        sum_scalar_prologue,
        lambda x, s: np.minimum(np.sqrt(np.abs(x) + 1.0), s).mean(1, keepdims=True)),
    "softmax_temperature": (softmax_temperature, lambda x, t: _softmax(x * t)),
    "column_sum_batch_broadcast": (column_sum_batch_broadcast, lambda x, y: (x + y).sum(0)),
    "row_max_batch_broadcast": (row_max_batch_broadcast,
                                lambda x, y: np.maximum(y, x).max(-1)),
    "column_sum_unit_dims": (column_sum_unit_dims,
                             lambda x, y: (x * y).sum(1, keepdims=True)),
    "full_sum_scalar": (full_sum_scalar, lambda x, s: (s - np.exp(np.tanh(x))).sum(0)),
    "full_max_scalar": (full_max_scalar, lambda x, s: np.maximum(s, x).max(0)),
    "rms_norm_per_batch_scale": (
        rms_norm_per_batch_scale,
        lambda x, s: (x * s) / np.sqrt(((x * s) ** 2).mean(-1, keepdims=True))),
    "batched_shared_a": (batched_shared_a, lambda a, b: np.matmul(a, b)),
    "row_sum_transposed": (row_sum_transposed, lambda x, y: (x + y.T).sum(-1)),
    "mean_middle_broadcast": (mean_middle_broadcast,
                              lambda x, y: np.where(y > x, y, x * 2.0).mean(1)),
}


_NP = {"f16": np.float16, "f32": np.float32}


def _inputs(compiled, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape).astype(_NP[a.dtype])
            for a in compiled.args if a.role == "input"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_broadcast_reduction_runs(name, target):
    prog, ref = CASES[name]
    compiled = tcc.compile(prog, target, cache=False)
    if name == "matmul_scale" and target == "sm_90":
        # The Hopper GEMM (wgmma, TMA) has no CPU model: it compiles, with
        # the scalar broadcast to a column vector its epilogue reads.
        assert len(compiled.kernels) == 2
        assert "memref<40xf16>" in compiled.kernels[1].ir["tile"]
        return
    if name == "batched_shared_a":
        # a, shared by the batch, is copied to [4, 32, 16]; then a batched GEMM.
        assert len(compiled.kernels) == 2
        assert "memref<4x32x16xf16>" in compiled.kernels[1].ir["tile"]
        if target == "sm_90":
            return
    inputs = _inputs(compiled, seed=len(name))
    (got,) = run_gpu_stage(compiled, *inputs)
    want = np.asarray(ref(*[x.astype(np.float64) for x in inputs]))
    assert got.shape == want.shape
    f16_inputs = any(x.dtype == np.float16 for x in inputs)
    tol = 2e-2 if f16_inputs else 1e-4
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol,
                               atol=tol * max(1.0, float(np.abs(want).max())))


def test_scalar_is_gathered_in_the_row_program():
    """A scalar read by a row reduction is gathered by the row program
    itself: one kernel (the sum and the mean's division)."""
    compiled = tcc.compile(sum_scalar_prologue, "sm_80", cache=False)
    assert len(compiled.kernels) == 1
    assert "tile.memref_gather" in compiled.kernels[0].ir["tile"]


def test_layer_norm_of_x_plus_a_positional_table_is_one_kernel():
    """pos ([S, D]) lacks x's batch dim: the LayerNorm's row program gathers
    it at (row % S) * D + column, no kernel writes x + pos."""
    compiled = tcc.compile(layer_norm_pos, "sm_90", cache=False)
    assert len(compiled.kernels) == 1
    assert "tile.memref_gather" in compiled.kernels[0].ir["tile"]


def test_batch_broadcast_column_sum_is_one_pass_over_x():
    """y lacks only the reduced dim of (x + y).sum(0): it is broadcast to the
    outputs ([16, 5, 8]), and x is read by the column reduction itself."""
    compiled = tcc.compile(column_sum_batch_broadcast, "sm_80", cache=False)
    assert len(compiled.kernels) == 2
