"""Programs written as a PyTorch user writes them, compiled whole (several
kernels each) for sm_80 and gfx942 and run on the CPU through the gpu stage
of every kernel, against float64 numpy. (sm_90 compiles their GEMMs to wgmma
fed by TMA: test_hopper_emulation.py runs those kernels, test_hopper_gemm.py
checks what the programs compile to.)"""

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.compiler.compile import CompilationError
from tcc.frontend import Tensor, f16, f32, i1, program, syms
from tcc.testing.simt import run_gpu_stage

M, N, K, B, S, H, D = syms("M N K B S H D")
TARGETS = ["sm_80", "gfx942"]  # the emulator runs mma.sync, not wgmma


def randn(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def rel_err(got, ref):
    got = np.asarray(got, dtype=np.float64)
    assert not np.isnan(got).any(), "unwritten (NaN-poisoned) elements"
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


@program
def linear(x: Tensor[B, S, K, f16], w: Tensor[N, K, f16], b: Tensor[N, f16]):
    return x @ w.T + b


@program
def swiglu(x: Tensor[S, D, f16], w1: Tensor[H, D, f16], w3: Tensor[H, D, f16],
           w2: Tensor[D, H, f16]) -> Tensor[S, D, f16]:
    return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T


@program
def attention(q: Tensor[B, S, H, D, f32], k: Tensor[B, S, H, D, f32],
              v: Tensor[B, S, H, D, f32]) -> Tensor[B, S, H, D, f32]:
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    p = (qh @ kh.transpose(-2, -1) * 0.5).softmax(-1)
    return (p @ vh).permute(0, 2, 1, 3)


@program
def softmaxes(x: Tensor[M, N, f32], y: Tensor[B, M, N, f32]):
    return x.softmax(0), y.softmax(1), y.log_softmax(-1)


@program
def reductions(x: Tensor[B, M, N, f32]):
    return x.sum(0), x.mean(1), x.amax(-1), x.sum()


def softmax_ref(a, axis):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


@pytest.mark.parametrize("target", TARGETS)
def test_linear_layer_rank3_f16(target):
    rng = np.random.default_rng(10)
    x, w, b = randn(rng, 2, 24, 32, dtype=np.float16), randn(rng, 40, 32, dtype=np.float16), \
        randn(rng, 40, dtype=np.float16)
    k = tcc.compile(linear, target, B=2, S=24, K=32, N=40)
    # gfx942: the weight's transpose, then the GEMM + bias; sm_80: the GEMM
    # reads the weight as stored.
    assert len(k.kernels) == (1 if target == "sm_80" else 2)
    (y,) = run_gpu_stage(k, x, w, b)
    assert y.shape == (2, 24, 40)
    xd, wd, bd = (a.astype(np.float64) for a in (x, w, b))
    assert rel_err(y, xd @ wd.T + bd) < 2e-3


@program
def scaled_operand(x: Tensor[M, K, f16], w: Tensor[K, N, f16], b: Tensor[N, f16]):
    return (x / 4.0) @ w + b


@pytest.mark.parametrize("target", TARGETS)
def test_a_constant_scale_of_an_operand_moves_to_the_epilogue(target):
    # (x / c) @ w = (x @ w) / c: no kernel of its own for the scale.
    rng = np.random.default_rng(12)
    x, w, b = randn(rng, 96, 64, dtype=np.float16), randn(rng, 64, 80, dtype=np.float16), \
        randn(rng, 80, dtype=np.float16)
    k = tcc.compile(scaled_operand, target, M=96, K=64, N=80)
    assert len(k.kernels) == 1
    (y,) = run_gpu_stage(k, x, w, b)
    xd, wd, bd = (a.astype(np.float64) for a in (x, w, b))
    assert rel_err(y, xd / 4.0 @ wd + bd) < 2e-3


@pytest.mark.parametrize("target", TARGETS)
def test_swiglu_mlp_f16(target):
    rng = np.random.default_rng(11)
    x = randn(rng, 32, 32, dtype=np.float16)
    w1, w3 = (randn(rng, 48, 32, dtype=np.float16) * 0.2 for _ in range(2))
    w2 = randn(rng, 32, 48, dtype=np.float16) * 0.2
    k = tcc.compile(swiglu, target, S=32, D=32, H=48)
    # Three GEMMs (on gfx942 each after its weight's transpose); silu(a) * b
    # is the second GEMM's epilogue.
    assert len(k.kernels) == (3 if target == "sm_80" else 6)
    (y,) = run_gpu_stage(k, x, w1, w3, w2)
    xd, w1d, w3d, w2d = (a.astype(np.float64) for a in (x, w1, w3, w2))
    g = xd @ w1d.T
    ref = (g / (1 + np.exp(-g)) * (xd @ w3d.T)) @ w2d.T
    assert rel_err(y, ref) < 1e-2


@pytest.mark.parametrize("target", TARGETS)
def test_unfused_attention(target):
    rng = np.random.default_rng(12)
    q, k_, v = (randn(rng, 2, 16, 2, 8) for _ in range(3))
    k = tcc.compile(attention, target, B=2, S=16, H=2, D=8)
    (y,) = run_gpu_stage(k, q, k_, v)
    qd, kd, vd = (a.astype(np.float64).transpose(0, 2, 1, 3) for a in (q, k_, v))
    p = softmax_ref(qd @ kd.transpose(0, 1, 3, 2) * 0.5, -1)
    assert rel_err(y, (p @ vd).transpose(0, 2, 1, 3)) < 1e-5


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_over_any_dim(target):
    rng = np.random.default_rng(13)
    x, y = randn(rng, 20, 33) * 2, randn(rng, 3, 20, 33) * 2
    k = tcc.compile(softmaxes, target, M=20, N=33, B=3)
    a, b, c = run_gpu_stage(k, x, y)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    assert rel_err(a, softmax_ref(xd, 0)) < 1e-5
    assert rel_err(b, softmax_ref(yd, 1)) < 1e-5
    m = yd.max(-1, keepdims=True)
    assert rel_err(c, yd - m - np.log(np.exp(yd - m).sum(-1, keepdims=True))) < 1e-5


@pytest.mark.parametrize("target", TARGETS)
def test_reductions_over_each_dim_and_all(target):
    rng = np.random.default_rng(14)
    x = randn(rng, 3, 20, 33)
    k = tcc.compile(reductions, target, B=3, M=20, N=33)
    s0, m1, mx, total = run_gpu_stage(k, x)
    xd = x.astype(np.float64)
    assert rel_err(s0, xd.sum(0)) < 1e-5
    assert rel_err(m1, xd.mean(1)) < 1e-5
    assert rel_err(mx, xd.max(-1)) < 1e-7
    assert abs(float(total) - xd.sum()) < 1e-3 * abs(xd).sum()


def test_whole_program_artifact_lists_every_kernel():
    k = tcc.compile(attention, "sm_90", B=2, S=16, H=2, D=8)
    assert len(k.kernels) >= 5
    assert k.ir["tile"].count("tile.func @") == len(k.kernels)
    assert all(f".entry {part.name}" in part.asm for part in k.kernels)
    assert [a.role for a in k.args] == ["input"] * 3 + ["output"]


def test_cli_emits_every_kernel_and_the_host_program(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "center.mlir"
    src.write_text("""
func.func @center(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %y = tcc.softmax %x dim = 1 : tensor<8x64xf32>
  %s = tcc.reduce_sum %y dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
  return %y, %s : tensor<8x64xf32>, tensor<8xf32>
}
""")
    run = [sys.executable, "-m", "tcc.cli", "compile", str(src), "--target", "sm_90",
           "--no-cache"]
    tile = subprocess.run([*run, "--emit", "tile"], capture_output=True, text=True, check=True)
    assert tile.stdout.count("tile.func @center_k") == 2
    assert "tcc.launch @center_k0" in tile.stdout and "tcc.host" in tile.stdout
    asm = subprocess.run([*run, "--emit", "asm"], capture_output=True, text=True, check=True)
    assert ".entry center_k0" in asm.stdout and ".entry center_k1" in asm.stdout


@program
def bool_mask(m: Tensor[M, N, i1], x: Tensor[M, N, f32]):
    return tf.where(m, x, 0.0)


@pytest.mark.parametrize("target", TARGETS)
def test_a_bool_kernel_argument_is_refused_with_a_diagnostic(target):
    # It was an assertion inside MemRefToLLVM (i1 has no byte in memory).
    with pytest.raises(CompilationError, match=r"argument #0 has type 'tensor<64x32xi1>'; "
                       r"kernels do not read or write i1 \(bool\) tensors: pass a mask as i8"):
        tcc.compile(bool_mask, target, M=64, N=32)
