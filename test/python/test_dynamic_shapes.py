"""Programs with sizes left unbound: one artifact per program whose kernels
take their dynamic sizes as arguments, grids computed on the host from the
arrays, tails masked. Each is compiled once and run on the CPU emulator at
several sizes against float64 numpy."""

import math

import numpy as np
import pytest

import tcc
import tcc.frontend as tf
from tcc.compiler.compile import CompilationError
from tcc.frontend import Tensor, f16, f32, program, syms
from tcc.runtime.artifact import eval_grid_expr
from tcc.runtime.errors import ArgumentError
from tcc.runtime.launcher import ParamBlock, bind_shapes
from tcc.testing.simt import run_gpu_stage

M, N, K, B = syms("M N K B")
TARGETS = ["sm_80", "gfx942"]


@program
def bias_gelu(x: Tensor[M, N, f32], b: Tensor[N, f32]):
    return tf.gelu(x + b)


@program
def layer_norm(x: Tensor[M, N, f16], w: Tensor[N, f16], b: Tensor[N, f16]):
    xf = x.float()
    mu = xf.mean(-1, keepdim=True)
    var = xf.var(-1, unbiased=False, keepdim=True)
    return ((xf - mu) * (var + 1e-5).rsqrt() * w.float() + b.float()).to(f16)


@program
def softmax(x: Tensor[M, N, f32]):
    return x.softmax(-1)


@program
def row_sum(x: Tensor[M, N, f32]):
    return x.sum(-1)


@program
def bias_relu(x: Tensor[B, M, N, f32], b: Tensor[N, f32]):
    return (x + b).relu()


@program
def linear(x: Tensor[M, K, f16], w: Tensor[N, K, f16], b: Tensor[N, f16]):
    return x @ w.T + b


@program
def gemm_softmax(a: Tensor[M, K, f16], b: Tensor[K, N, f16]):
    return (a @ b).softmax(-1)


@program
def swiglu(x: Tensor[M, K, f16], w1: Tensor[N, K, f16], w3: Tensor[N, K, f16],
           w2: Tensor[K, N, f16]):
    return (tf.silu(x @ w1.T) * (x @ w3.T)) @ w2.T


@program
def column_sum(x: Tensor[M, N, f32]):
    return x.sum(0)


# Column reductions of dynamic rows (and batch): the row walk counted at run
# time, a mean's divisor read off the operand's size. Rows over few column
# programs are planned short (dynamic_extent): planned long they are refused
# (a static twin splits them), test_tall_dynamic_column_sums_are_refused.
@program
def column_mean(x: Tensor[B, M, N, f16]):
    return x.float().mean(1)


@program
def column_argmax(x: Tensor[M, N, f32]):
    return x.argmax(0)


@program
def row_argmax(x: Tensor[M, N, f32]):
    return x.argmax(-1)


@program
def column_center(x: Tensor[M, N, f32]):
    return x - x.mean(0, keepdim=True)


S, D = syms("S D")


# Views of dynamic size: x (B, S, D) seen as (B * S, D).
@program
def view_gemm(x: Tensor[B, S, D, f16], w: Tensor[N, D, f16]):
    return x.view(B * S, D) @ w.T


@program
def view_sum(x: Tensor[B, S, D, f32]):
    return tf.gelu(x.reshape(B * S, D)).sum(-1)


@program
def view_back(x: Tensor[B, S, D, f16], w: Tensor[N, D, f16]):
    return (x.view(B * S, D) @ w.T).view(B, S, N).float().softmax(-1)


# Batched GEMMs of dynamic batch and M (and on sm_80 / gfx942 the transpose
# kernels the transposed operands take, of dynamic batch or rows).
@program
def bmm(a: Tensor[B, M, K, f16], b: Tensor[B, K, N, f16]):
    return a @ b


@program
def bmm_nt(a: Tensor[B, M, K, f16], b: Tensor[B, N, K, f16]):
    return a @ b.transpose(-1, -2)


@program
def gemm_tn(a: Tensor[K, M, f16], b: Tensor[K, N, f16]):
    return a.T @ b


@program
def transpose(x: Tensor[B, M, D, f32]):
    return x.transpose(-1, -2).exp()


def _gelu_tanh(s):
    return 0.5 * s * (1 + np.tanh(np.sqrt(2 / np.pi) * (s + 0.044715 * s**3)))


def _gelu(s):
    return 0.5 * s * (1 + np.vectorize(math.erf)(s / math.sqrt(2)))


def _layer_norm(x, w, b):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# (program, bound sizes, the dynamic sizes of each run, inputs, float64 reference, tolerance)
CASES = {
    "bias_gelu": (bias_gelu, {"N": 777}, [{"M": 1}, {"M": 9}],
                  lambda r, s: [r.standard_normal((s["M"], 777)).astype(np.float32),
                                r.standard_normal(777).astype(np.float32)],
                  lambda x, b: _gelu(x + b), 1e-5),
    "layer_norm": (layer_norm, {"N": 1024}, [{"M": 1}, {"M": 3}, {"M": 37}],
                   lambda r, s: [r.standard_normal((s["M"], 1024)).astype(np.float16),
                                 r.standard_normal(1024).astype(np.float16),
                                 r.standard_normal(1024).astype(np.float16)],
                   _layer_norm, 2e-3),
    "softmax": (softmax, {"N": 1000}, [{"M": 1}, {"M": 7}],
                lambda r, s: [r.standard_normal((s["M"], 1000)).astype(np.float32)],
                _softmax, 1e-5),
    "row_sum": (row_sum, {"N": 512}, [{"M": 2}, {"M": 11}],
                lambda r, s: [r.standard_normal((s["M"], 512)).astype(np.float32)],
                lambda x: x.sum(-1), 1e-5),
    "bias_relu": (bias_relu, {"N": 256}, [{"B": 1, "M": 5}, {"B": 3, "M": 2}],
                  lambda r, s: [r.standard_normal((s["B"], s["M"], 256)).astype(np.float32),
                                r.standard_normal(256).astype(np.float32)],
                  lambda x, b: np.maximum(x + b, 0), 1e-6),
    # Two kernels (w's transpose, then the GEMM with its bias): M dynamic,
    # the intermediate static.
    "linear": (linear, {"K": 64, "N": 128}, [{"M": 1}, {"M": 70}, {"M": 130}],
               lambda r, s: [r.standard_normal((s["M"], 64)).astype(np.float16),
                             r.standard_normal((128, 64)).astype(np.float16),
                             r.standard_normal(128).astype(np.float16)],
               lambda x, w, b: x @ w.T + b, 5e-3),
    # Intermediates of M rows between kernels: buffers sized per call
    # ("M * 256" bytes), the GEMM's f16 result, then the softmax.
    "gemm_softmax": (gemm_softmax, {"K": 64, "N": 128}, [{"M": 1}, {"M": 70}],
                     lambda r, s: [r.standard_normal((s["M"], 64)).astype(np.float16),
                                   (0.3 * r.standard_normal((64, 128))).astype(np.float16)],
                     lambda a, b: _softmax(a @ b), 5e-3),
    "swiglu": (swiglu, {"K": 64, "N": 128}, [{"M": 3}, {"M": 33}],
               lambda r, s: [r.standard_normal((s["M"], 64)).astype(np.float16),
                             *[(0.2 * r.standard_normal(shape)).astype(np.float16)
                               for shape in ((128, 64), (128, 64), (64, 128))]],
               lambda x, w1, w3, w2: ((x @ w1.T) / (1 + np.exp(-(x @ w1.T))) * (x @ w3.T))
               @ w2.T, 2e-2),
    # The GEMM reads the view (B * S rows, B_S on the host) and sizes its
    # result off it; the view back to (B, S, N) feeds a rank-3 softmax.
    "view_gemm": (view_gemm, {"D": 64, "N": 128}, [{"B": 2, "S": 3}, {"B": 1, "S": 70}],
                  lambda r, s: [r.standard_normal((s["B"], s["S"], 64)).astype(np.float16),
                                (0.2 * r.standard_normal((128, 64))).astype(np.float16)],
                  lambda x, w: x.reshape(-1, 64) @ w.T, 5e-3),
    "bmm": (bmm, {"K": 64, "N": 128}, [{"B": 2, "M": 3}, {"B": 3, "M": 130}],
            lambda r, s: [r.standard_normal((s["B"], s["M"], 64)).astype(np.float16),
                          r.standard_normal((s["B"], 64, 128)).astype(np.float16)],
            lambda a, b: a @ b, 5e-3),
    "bmm_nt": (bmm_nt, {"K": 64, "N": 128}, [{"B": 1, "M": 70}, {"B": 3, "M": 5}],
               lambda r, s: [r.standard_normal((s["B"], s["M"], 64)).astype(np.float16),
                             r.standard_normal((s["B"], 128, 64)).astype(np.float16)],
               lambda a, b: a @ np.swapaxes(b, -1, -2), 5e-3),
    "gemm_tn": (gemm_tn, {"K": 64, "N": 128}, [{"M": 1}, {"M": 100}],
                lambda r, s: [r.standard_normal((64, s["M"])).astype(np.float16),
                              r.standard_normal((64, 128)).astype(np.float16)],
                lambda a, b: a.T @ b, 5e-3),
    "transpose": (transpose, {"D": 96}, [{"B": 2, "M": 3}, {"B": 1, "M": 130}],
                  lambda r, s: [r.standard_normal((s["B"], s["M"], 96)).astype(np.float32)],
                  lambda x: np.exp(np.swapaxes(x, -1, -2)), 1e-5),
    "column_sum": (column_sum, {"N": 64, "dynamic_extent": 64}, [{"M": 1}, {"M": 130}],
                   lambda r, s: [r.standard_normal((s["M"], 64)).astype(np.float32)],
                   lambda x: x.sum(0), 1e-6),
    "column_mean": (column_mean, {"N": 96}, [{"B": 2, "M": 37}, {"B": 1, "M": 1}],
                    lambda r, s: [r.standard_normal((s["B"], s["M"], 96)).astype(np.float16)],
                    lambda x: x.mean(1), 1e-6),
    "column_argmax": (column_argmax, {"N": 80, "dynamic_extent": 64}, [{"M": 3}, {"M": 100}],
                      lambda r, s: [r.standard_normal((s["M"], 80)).astype(np.float32)],
                      lambda x: x.argmax(0), 0.0),
    "row_argmax": (row_argmax, {"N": 300}, [{"M": 1}, {"M": 9}],
                   lambda r, s: [r.standard_normal((s["M"], 300)).astype(np.float32)],
                   lambda x: x.argmax(-1), 0.0),
    # Two kernels: the mean (its divisor M), then x - mean.
    "column_center": (column_center, {"N": 128, "dynamic_extent": 64}, [{"M": 5}, {"M": 70}],
                      lambda r, s: [r.standard_normal((s["M"], 128)).astype(np.float32)],
                      lambda x: x - x.mean(0, keepdims=True), 1e-5),
    "view_sum": (view_sum, {"D": 96}, [{"B": 3, "S": 5}, {"B": 1, "S": 1}],
                 lambda r, s: [r.standard_normal((s["B"], s["S"], 96)).astype(np.float32)],
                 lambda x: _gelu(x.reshape(-1, 96)).sum(-1), 1e-5),
    "view_back": (view_back, {"D": 64, "N": 128}, [{"B": 2, "S": 5}, {"B": 3, "S": 1}],
                  lambda r, s: [r.standard_normal((s["B"], s["S"], 64)).astype(np.float16),
                                (0.2 * r.standard_normal((128, 64))).astype(np.float16)],
                  lambda x, w: _softmax(x @ w.T), 5e-3),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_one_artifact_runs_at_every_size(name, target):
    prog, bound, runs, make, ref, tol = CASES[name]
    compiled = tcc.compile(prog, target, **bound)
    dynamic = {d for spec in compiled.artifact.args for d in spec.shape if isinstance(d, str)}
    derived = {lhs for lhs, _ in getattr(compiled.artifact, "sizes", ())}
    assert dynamic - derived == set(runs[0]), compiled.artifact.args
    rng = np.random.default_rng(7)
    for sizes in runs:
        inputs = make(rng, sizes)
        (got,) = run_gpu_stage(compiled, *inputs)
        want = ref(*[a.astype(np.float64) for a in inputs])
        assert got.shape == want.shape
        got = got.astype(np.float64)
        assert not np.isnan(got).any(), f"{name} {sizes}: unwritten elements"
        if tol == 0.0:  # indices
            np.testing.assert_array_equal(got, want, err_msg=f"{name} at {sizes} on {target}")
            continue
        err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
        assert err < tol, f"{name} at {sizes} on {target}: relative error {err}"


def test_grid_is_an_expression_of_the_program_symbols():
    compiled = tcc.compile(layer_norm, "sm_90", N=4096)
    (kernel,) = compiled.artifact.kernels
    assert [a.shape for a in compiled.artifact.args] == [("M", 4096), (4096,), (4096,),
                                                         ("M", 4096)]
    grid = kernel.launch.grid[0]
    assert isinstance(grid, str) and "M" in grid
    assert eval_grid_expr(grid, [], {"M": 1}) >= 1
    assert eval_grid_expr(grid, [], {"M": 1 << 20}) >= eval_grid_expr(grid, [], {"M": 1000})


def test_mlir_with_question_marks_compiles():
    text = """
func.func @bias_gelu(%x: tensor<?x4096xf32>, %b: tensor<4096xf32>) -> tensor<?x4096xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4096xf32>
  %bb = tcc.broadcast %b dims = [0] sizes(%m) : tensor<4096xf32> -> tensor<?x4096xf32>
  %s = tcc.add %x, %bb : tensor<?x4096xf32>
  %y = tcc.gelu %s approximate = tanh : tensor<?x4096xf32>
  return %y : tensor<?x4096xf32>
}"""
    compiled = tcc.compile(text, "sm_80")
    assert compiled.artifact.args[0].shape == ("s0", 4096)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4096)).astype(np.float32)
    b = rng.standard_normal(4096).astype(np.float32)
    (y,) = run_gpu_stage(compiled, x, b)
    np.testing.assert_allclose(y, _gelu_tanh(x.astype(np.float64) + b), rtol=1e-5, atol=1e-6)


def test_sizes_the_program_needs_equal_are_checked():
    compiled = tcc.compile(bias_relu, "sm_80", N=256)
    (kernel,) = compiled.artifact.kernels
    x = np.zeros((2, 3, 256), np.float32)
    b = np.zeros(256, np.float32)
    assert bind_shapes(kernel, [x, b, np.zeros((2, 3, 256), np.float32)]) == {"B": 2, "M": 3}
    with pytest.raises(ArgumentError, match=r"expected shape \[2, 3, 256\]"):
        bind_shapes(kernel, [x, b, np.zeros((2, 4, 256), np.float32)])
    with pytest.raises(ArgumentError, match="256"):
        bind_shapes(kernel, [x, np.zeros(255, np.float32), np.zeros((2, 3, 256), np.float32)])


def test_param_block_passes_dynamic_sizes_after_the_pointer():
    compiled = tcc.compile(bias_relu, "sm_80", N=256)
    (kernel,) = compiled.artifact.kernels
    shapes = [(2, 3, 256), (256,), (2, 3, 256)]
    block = ParamBlock(kernel, shapes).fill([0x1000, 0x2000, 0x3000], [None] * 3)
    # x: pointer, B, M; b: pointer; out: pointer, B, M (the gpu.func's order).
    values = [s.value for s in block.storage]
    assert values == [0x1000, 2, 3, 0x2000, 0x3000, 2, 3]


def test_forms_without_dynamic_sizes_say_so():
    @program
    def column_sum_of_dynamic_columns(x: Tensor[64, N, f32]):
        return x.sum(0)

    with pytest.raises(CompilationError, match="no kernel form takes"):
        tcc.compile(column_sum_of_dynamic_columns, "sm_80")
    @program
    def columns(x: Tensor[64, N, f32]):
        return x.exp()

    with pytest.raises(CompilationError, match=r"dynamic size \"N\"|dynamic size \"s0\""):
        tcc.compile(columns, "sm_80")


def test_tall_dynamic_column_sums_are_refused():
    with pytest.raises(CompilationError, match=r"reduces dynamic rows planned as 16384 "
                                               r"\(dynamic-extent\) on 1 column programs"):
        tcc.compile(column_sum, "sm_80", N=64)
    # A dynamic batch gives the programs: planned long, it is taken.
    assert tcc.compile(column_mean, "sm_80", N=96).artifact.kernels[0].launch.grid[0] == "B"


def test_binding_sizes_still_specializes():
    static = tcc.compile(layer_norm, "sm_80", M=64, N=1024)
    assert all(isinstance(g, int) for g in static.artifact.kernels[0].launch.grid)
    assert static.artifact.args[0].shape == (64, 1024)


def test_dynamic_program_artifact_round_trips(tmp_path):
    from tcc.runtime.program import ProgramArtifact

    art = tcc.compile(linear, "sm_80", K=64, N=128).artifact
    art.save(tmp_path / "p.tccprog")
    back = ProgramArtifact.load(tmp_path / "p.tccprog")
    assert back.args == art.args and back.values == art.values
    assert [k.launch.grid for k in back.kernels] == [k.launch.grid for k in art.kernels]
    assert [k.call_conv for k in back.kernels] == [k.call_conv for k in art.kernels]


def test_hopper_gemm_takes_a_dynamic_m():
    """sm_90: x @ w.T + b with M free is one wgmma kernel fed by TMA (its
    tensor maps built per launch), a persistent grid of min(tiles, SMs)."""
    compiled = tcc.compile(linear, "sm_90", K=256, N=512)
    (kernel,) = compiled.artifact.kernels
    assert kernel.call_conv == "sized" and kernel.tensor_maps
    assert kernel.launch.grid[0].startswith("min(cdiv(M, ")
    assert "wgmma.mma_async" in kernel.asm
    # One row of tiles at M = 1 (the block spans 256 of the 512 columns).
    assert eval_grid_expr(kernel.launch.grid[0], [], {"M": 1}) == 2
    assert eval_grid_expr(kernel.launch.grid[0], [], {"M": 1 << 20}) == 132


@pytest.mark.parametrize("prog, bound, sizes", [
    (bmm, {"K": 64, "N": 128}, [{"B": 2, "M": 3}, {"B": 3, "M": 130}]),
    (bmm_nt, {"K": 64, "N": 128}, [{"B": 2, "M": 70}]),
    (bmm, {"K": 64, "N": 128, "M": 64}, [{"B": 3}]),
], ids=["nn", "nt", "batch-only"])
def test_hopper_gemm_takes_a_dynamic_batch(prog, bound, sizes):
    """sm_90: a batched GEMM of dynamic batch (and M) is one wgmma kernel;
    its walk counts batch x row blocks x column blocks at run time (the CPU
    emulator runs it against float64 at each size)."""
    compiled = tcc.compile(prog, "sm_90", **bound)
    (kernel,) = compiled.artifact.kernels
    assert "wgmma.mma_async" in kernel.asm and kernel.tensor_maps
    grid = kernel.launch.grid[0]
    assert grid.startswith("min(B") and grid.endswith(", 132)"), grid
    rng = np.random.default_rng(5)
    nt = prog is bmm_nt
    for s in sizes:
        m = s.get("M", bound.get("M"))
        a = rng.standard_normal((s["B"], m, 64)).astype(np.float16)
        b = rng.standard_normal((s["B"], 128, 64) if nt else (s["B"], 64, 128)).astype(np.float16)
        (got,) = run_gpu_stage(compiled, a, b)
        want = a.astype(np.float64) @ (np.swapaxes(b, -1, -2) if nt else b).astype(np.float64)
        err = float(np.linalg.norm(got.astype(np.float64) - want) / np.linalg.norm(want))
        assert err < 5e-3, f"{s}: relative error {err}"


def test_clusters_need_a_static_batch():
    plan = ("#tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, "
            "num_stages = 4, mma = wgmma_m64nNk16, cluster = [2, 1]>")
    with pytest.raises(CompilationError, match="needs a static M and batch"):
        tcc.compile(bmm, "sm_90", K=64, N=128, M=256, plans={"bmm": plan})


def test_dynamic_extent_plans_for_a_bound():
    """dynamic_extent: the plans are made for that many rows (tcc.jit's small
    class): a Hopper GEMM for M up to 256 takes smaller blocks."""
    large = tcc.compile(linear, "sm_90", K=256, N=512).artifact.kernels[0]
    small = tcc.compile(linear, "sm_90", K=256, N=512, dynamic_extent=256).artifact.kernels[0]
    assert eval_grid_expr(small.launch.grid[0], [], {"M": 256}) > \
        eval_grid_expr(large.launch.grid[0], [], {"M": 256})
    with pytest.raises(ValueError, match="dynamic_extent"):
        tcc.compile(linear, "sm_90", K=256, N=512, dynamic_extent=0)


def test_a_view_of_dynamic_size_is_a_product_the_host_derives(tmp_path):
    """x.view(B * S, D) @ w.T: the result's rows are B_S, which the program
    defines as B * S; outputs are checked against it, and the relation
    survives the artifact file."""
    from tcc.runtime.program import ProgramArtifact

    compiled = tcc.compile(view_gemm, "sm_80", D=64, N=128)
    art = compiled.artifact
    assert [a.shape for a in art.args] == [("B", "S", 64), (128, 64), ("B_S", 128)]
    assert art.sizes == (("B_S", "B * S"),)
    gemm = next(k for k in art.kernels if k.call_conv == "sized")
    assert [a.shape for a in gemm.args][0] == ("B_S", 64)  # the view, not x
    x, w = np.zeros((2, 3, 64), np.float16), np.zeros((128, 64), np.float16)
    assert bind_shapes(art, [x, w, np.zeros((6, 128), np.float16)]) == \
        {"B": 2, "S": 3, "B_S": 6}
    with pytest.raises(ArgumentError, match=r"expected shape \[6, 128\]"):
        bind_shapes(art, [x, w, np.zeros((5, 128), np.float16)])
    art.save(tmp_path / "v.tccprog")
    assert ProgramArtifact.load(tmp_path / "v.tccprog").sizes == art.sizes


_ADD_VIEW = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_view(%x: tensor<?x?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
  %m = tensor.dim %y, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %y : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}"""


def test_a_product_equal_to_an_argument_size_is_checked():
    """y's rows (s2) must equal x's first two dims' product: the runtime
    checks it (MLIR: the frontend already refuses B*S against M)."""
    compiled = tcc.compile(_ADD_VIEW, "sm_80")
    assert compiled.artifact.sizes == (("s2", "s0 * s1"),)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 64)).astype(np.float32)
    y = rng.standard_normal((6, 64)).astype(np.float32)
    (got,) = run_gpu_stage(compiled, x, y)
    np.testing.assert_array_equal(got, x.reshape(6, 64) + y)
    with pytest.raises(ArgumentError, match=r"needs size s2 = s0 \* s1, but 5 != 6"):
        run_gpu_stage(compiled, x, y[:5])
    with pytest.raises(ArgumentError, match=r"needs size s2 = s0 \* s1"):
        bind_shapes(compiled.artifact, [x, y[:5], np.zeros((5, 64), np.float32)])
