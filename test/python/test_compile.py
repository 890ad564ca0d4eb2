"""tcc.compile: the same program to PTX and AMDGCN, stages, errors, cache."""

import re
import subprocess
import sys

import pytest

from tcc.backends.amd import find_ld_lld
from tcc.compiler.cache import KernelCache
from tcc.compiler.compile import STAGES, CompilationError
from tcc.compiler.compile import compile as tcc_compile

BIAS_GELU = """
func.func @bias_gelu(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %bb = tcc.broadcast %b dims = [0] : tensor<1024xf32> -> tensor<64x1024xf32>
  %s = tcc.add %x, %bb : tensor<64x1024xf32>
  %y = tcc.gelu %s approximate = tanh : tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
"""

SOFTMAX_TAIL = """
func.func @softmax(%x: tensor<100x777xf16>) -> tensor<100x777xf16> {
  %y = tcc.softmax %x dim = 1 : tensor<100x777xf16>
  return %y : tensor<100x777xf16>
}
"""

ROW_SUM = """
func.func @row_sum(%x: tensor<1000x777xbf16>) -> tensor<1000xbf16> {
  %y = tcc.reduce_sum %x dims = [1] : tensor<1000x777xbf16> -> tensor<1000xbf16>
  return %y : tensor<1000xbf16>
}
"""

NVIDIA = ("sm_80", "sm_90")
AMD = ("gfx90a", "gfx942")
HAVE_LLD = find_ld_lld() is not None


@pytest.mark.parametrize("target", NVIDIA)
def test_bias_gelu_ptx(target):
    k = tcc_compile(BIAS_GELU, target, cache=False)
    assert ".visible .entry bias_gelu(" in k.asm
    assert f".target {target}" in k.asm
    # 16-byte vector loads and stores of the 1024-wide rows.
    assert re.search(r"ld\.global\.v4\.(b32|f32)", k.asm)
    assert re.search(r"st\.global\.v4\.(b32|f32)", k.asm)
    assert ".extern" not in k.asm  # libdevice linked, nothing left unresolved
    assert k.launch.block == (128, 1, 1)
    assert k.launch.grid == (64, 1, 1)  # 64 x 1024 in 1 x 1024 blocks (a broadcast bias)
    assert [(a.dtype, a.shape, a.role) for a in k.args] == [
        ("f32", (64, 1024), "input"),
        ("f32", (1024,), "input"),
        ("f32", (64, 1024), "output"),
    ]


@pytest.mark.parametrize("target", AMD)
def test_bias_gelu_amdgcn(target):
    k = tcc_compile(BIAS_GELU, target, cache=False)
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{target}"' in k.asm
    assert ".amdhsa_kernel bias_gelu" in k.asm
    assert "global_load_dwordx4" in k.asm
    assert not re.search(r"__(ocml|ockl|nv)_", k.asm)
    assert k.launch.block == (256, 1, 1)  # 4 wave64 warps
    if HAVE_LLD:
        assert k.binary is not None and k.binary[:4] == b"\x7fELF"


@pytest.mark.parametrize("source", [SOFTMAX_TAIL, ROW_SUM], ids=["softmax", "row_sum"])
@pytest.mark.parametrize("target", ["sm_90", "gfx942"])
def test_reductions_use_warp_shuffles(source, target):
    k = tcc_compile(source, target, cache=False)
    if target == "sm_90":
        assert "shfl.sync.bfly" in k.asm
    else:
        assert re.search(r"ds_swizzle|ds_bpermute|dpp|v_permlane", k.asm)
    assert "gpu.shuffle" in k.ir["gpu"]


def test_every_stage_is_recorded():
    k = tcc_compile(BIAS_GELU, "sm_90", cache=False)
    assert tuple(k.ir) == STAGES
    assert "tcc.gelu" in k.ir["source"]
    assert "linalg.generic" in k.ir["linalg"] and "tcc." not in k.ir["linalg"]
    assert "tile.func @bias_gelu" in k.ir["tile"]
    assert "gpu.func @bias_gelu" in k.ir["gpu"]
    assert "llvm.func @bias_gelu" in k.ir["llvm"]


def test_same_source_two_targets_one_process():
    nv = tcc_compile(BIAS_GELU, "sm_90", cache=False)
    amd = tcc_compile(BIAS_GELU, "gfx942", cache=False)
    assert nv.name == amd.name == "bias_gelu"
    assert nv.launch.grid == (64, 1, 1)
    assert amd.launch.grid == (64, 1, 1)


def test_frontend_program_with_sizes():
    from tcc.frontend import Tensor, f32, program, sym

    m, n = sym("M"), sym("N")

    @program
    def scale_relu(x: Tensor[m, n, f32]) -> Tensor[m, n, f32]:
        return (x * 2.0).relu()

    k = tcc_compile(scale_relu, "sm_90", cache=False, M=1000, N=777)
    assert k.args[0].shape == (1000, 777)
    assert ".entry scale_relu" in k.asm


def test_dynamic_shapes_compile_to_one_artifact():
    """A ? dim is a size symbol of the artifact (test_dynamic_shapes.py runs
    such kernels); the grid is an expression of it."""
    src = """
    func.func @relu(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
      %y = tcc.relu %x : tensor<?x1024xf32>
      return %y : tensor<?x1024xf32>
    }"""
    art = tcc_compile(src, "sm_90", cache=False).artifact
    assert [a.shape for a in art.args] == [("s0", 1024), ("s0", 1024)]
    assert isinstance(art.kernels[0].launch.grid[0], str)
    assert art.kernels[0].call_conv == "sized"


def test_unknown_target_lists_the_supported_ones():
    with pytest.raises(ValueError, match="unknown target 'sm_70'.*gfx942.*sm_90"):
        tcc_compile(BIAS_GELU, "sm_70", cache=False)


def test_bad_schedule():
    with pytest.raises(ValueError, match="num_warps"):
        tcc_compile(BIAS_GELU, "sm_90", num_warps=3, cache=False)


def test_program_of_two_kernels_compiles_to_both():
    src = """
    func.func @two(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
      %s = tcc.reduce_sum %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
      %m = tcc.reduce_max %x dims = [1] : tensor<8x64xf32> -> tensor<8xf32>
      return %s, %m : tensor<8xf32>, tensor<8xf32>
    }"""
    k = tcc_compile(src, "sm_90", cache=False)
    assert [part.name for part in k.kernels] == ["two_k0", "two_k1"]
    assert all(".entry " + part.name in part.asm for part in k.kernels)
    assert [a.role for a in k.args] == ["input", "output", "output"]
    with pytest.raises(AttributeError, match="2 kernels"):
        _ = k.launch


def test_parse_error_names_the_stage():
    with pytest.raises(CompilationError, match="source: cannot parse"):
        tcc_compile("func.func @f(", "sm_90", cache=False)


def test_cache_hit_returns_the_same_artifact(tmp_path):
    cache = KernelCache(tmp_path)
    first = tcc_compile(BIAS_GELU, "sm_90", cache=cache)
    second = tcc_compile(BIAS_GELU, "sm_90", cache=cache)
    assert second.artifact == first.artifact
    # The stage IR is recomputed on demand after a hit.
    assert "tile.func" in second.ir["tile"]
    other = tcc_compile(BIAS_GELU, "sm_90", num_warps=8, cache=cache)
    assert other.launch.block == (256, 1, 1)


def test_cli_compile_and_emit(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(BIAS_GELU)
    ptx = tmp_path / "k.ptx"
    run = [sys.executable, "-m", "tcc.cli", "compile", str(src)]
    subprocess.run([*run, "--target", "sm_90", "-o", str(ptx), "--no-cache"], check=True)
    assert ".entry bias_gelu" in ptx.read_text()
    tile = subprocess.run(
        [*run, "--emit", "tile", "--no-cache"], check=True, capture_output=True, text=True
    ).stdout
    assert "tile.memref_load" in tile
    bad = subprocess.run([*run, "--target", "sm_70"], capture_output=True, text=True)
    assert bad.returncode == 1 and "unknown target" in bad.stderr
    stages = subprocess.run([*run, "--num-stages", "0"], capture_output=True, text=True)
    assert stages.returncode == 1 and "num_stages must be from 1 to 8, got 0" in stages.stderr


def test_linalg_on_tensors_enters_directly():
    src = """
    #id = affine_map<(d0, d1) -> (d0, d1)>
    func.func @square(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
      %e = tensor.empty() : tensor<256x512xf32>
      %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
      ^bb0(%a: f32, %o: f32):
        %m = arith.mulf %a, %a : f32
        linalg.yield %m : f32
      } -> tensor<256x512xf32>
      return %y : tensor<256x512xf32>
    }"""
    for target in ("sm_90", "gfx942"):
        k = tcc_compile(src, target, cache=False)
        assert k.name == "square"
        assert "tile.func @square" in k.ir["tile"]


def test_outputs_are_named_out_in_args_and_errors():
    """A program's outputs are `out` (one) or `out0`, `out1`, ... (what out=
    takes), in `.args` and in the launcher's messages."""
    import numpy as np

    from tcc.frontend import Tensor, f32, program
    from tcc.runtime.errors import ArgumentError

    @program
    def add(x: Tensor[8, 4, f32], b: Tensor[4, f32]):
        return x + b

    @program
    def two(x: Tensor[8, 4, f32]):
        return x * 2.0, x.sum(-1)

    one = tcc_compile(add, "sm_90", cache=False)
    assert [a.name for a in one.args] == ["x", "b", "out"]
    with pytest.raises(ArgumentError, match=r"argument 'out': expected shape \[8, 4\]"):
        one(np.zeros((8, 4), np.float32), np.zeros(4, np.float32),
            out=np.zeros((8, 5), np.float32))
    assert [a.name for a in tcc_compile(two, "sm_90", cache=False).args] == [
        "x", "out0", "out1"]
