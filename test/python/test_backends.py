"""gpu dialect -> PTX / AMDGCN through tcc's backends (no GPU needed)."""

import re

import pytest

from tcc.backends import SUPPORTED_TARGETS, CompileError, get_target
from tcc.backends.amd import find_ld_lld
from test_backends_kernels import ACT, ERF, SCALE_DYN, VADD

NVIDIA = ["sm_80", "sm_90"]
AMD = ["gfx90a", "gfx942"]


@pytest.mark.parametrize("arch", NVIDIA)
def test_ptx_vector_add(arch):
    art = get_target(arch).compile(VADD, grid=("cdiv(numel(0), 512)",), outputs=["arg2"])
    assert ".visible .entry vadd(" in art.asm
    assert f".target {arch}" in art.asm
    # LLVM 22's NVPTX prints untyped b32 moves for vector loads/stores.
    assert re.search(r"ld\.global\.v4\.(f32|b32)", art.asm)
    assert re.search(r"st\.global\.v4\.(f32|b32)", art.asm)
    assert ".maxntid 128, 1, 1" in art.asm
    # The cubin ptxas assembled beside the PTX (test_cubin.py has the rest).
    assert art.binary is not None and art.binary[:4] == b"\x7fELF"
    assert art.vendor == "nvidia" and art.call_conv == "bare"
    assert [a.role for a in art.args] == ["input", "input", "output"]
    assert art.launch.block == (128, 1, 1)


@pytest.mark.parametrize("arch", NVIDIA)
def test_ptx_math_has_no_libdevice_calls(arch):
    art = get_target(arch).compile(ACT, outputs=[1], grid=(4,))
    assert "__nv_" not in art.asm and "call" not in art.asm
    assert "ex2.approx" in art.asm  # exp lowered in line


@pytest.mark.parametrize("arch", AMD)
def test_amdgcn_vector_add(arch):
    art = get_target(arch).compile(VADD, grid=("cdiv(numel(0), 512)",), outputs=[2])
    assert f'.amdgcn_target "amdgcn-amd-amdhsa--{arch}"' in art.asm
    assert ".amdhsa_kernel vadd" in art.asm
    assert "global_load_dwordx4" in art.asm and "global_store_dwordx4" in art.asm
    assert "__ockl_" not in art.asm  # gpu.block_dim folded from known_block_size
    assert art.vendor == "amd"
    if find_ld_lld():
        assert art.binary is not None and art.binary[:4] == b"\x7fELF"
        assert art.binary[16] == 3  # e_type ET_DYN: a linked code object


@pytest.mark.parametrize("arch", AMD)
def test_amdgcn_math_has_no_device_library_calls(arch):
    art = get_target(arch).compile(ACT, outputs=[1], grid=(4,))
    assert "__ocml_" not in art.asm and "__ockl_" not in art.asm
    assert "v_exp_f32" in art.asm


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_dynamic_shapes_use_descriptors(arch):
    art = get_target(arch).compile(
        SCALE_DYN, outputs=[1], grid=("cdiv(N, 64)",), arg_names=["a", "c", "s", "n"],
        arg_shapes={"a": ["N"], "c": ["N"]},
    )
    assert art.call_conv == "descriptor"
    assert [a.shape for a in art.args] == [("N",), ("N",), (), ()]
    assert [a.kind for a in art.args] == ["pointer", "pointer", "scalar", "scalar"]


def test_unresolved_device_library_call_is_an_error():
    with pytest.raises(CompileError, match="__ocml_erf_f32"):
        get_target("gfx942").compile(ERF, outputs=[1], grid=(4,))


def test_unknown_target_lists_supported():
    with pytest.raises(ValueError, match=r"unsupported GPU target 'sm_12'.*sm_90.*gfx942"):
        get_target("sm_12")


def test_target_properties():
    nv, amd = get_target("sm_90"), get_target("gfx942")
    assert (nv.vendor, nv.warp_size) == ("nvidia", 32)
    assert (amd.vendor, amd.warp_size) == ("amd", 64)
    # sm_90's wgmma exists in sm_90a PTX only: the arch-specific target.
    assert nv.gpu_target_attr().startswith("#nvvm.target<") and '"sm_90a"' in nv.gpu_target_attr()
    assert '"sm_80"' in get_target("sm_80").gpu_target_attr()
    assert amd.gpu_target_attr().startswith("#rocdl.target<")
    assert {"sm_80", "sm_90", "gfx90a", "gfx942"} <= set(SUPPORTED_TARGETS)


def test_lower_to_llvm_only(ctx):
    from mlir import ir

    module = ir.Module.parse(VADD)
    assert get_target("sm_90").lower_to_llvm(module) == "bare"
    text = str(module)
    assert "llvm.func @vadd" in text and "gpu.block_dim" not in text


def test_missing_kernel_and_block_size_errors():
    with pytest.raises(CompileError, match="no kernel 'nope'"):
        get_target("sm_90").compile(VADD, kernel="nope")
    no_block = VADD.replace("attributes {known_block_size = array<i32: 128, 1, 1>}", "")
    with pytest.raises(CompileError, match="known_block_size"):
        get_target("sm_90").compile(no_block)


def test_amd_without_lld_gives_no_binary_and_a_clear_warning(monkeypatch):
    monkeypatch.setenv("TCC_LD_LLD", "/nonexistent/ld.lld")
    with pytest.warns(RuntimeWarning, match="lld 19-22"):
        art = get_target("gfx942").compile(VADD, outputs=[2])
    assert art.binary is None and ".amdhsa_kernel" in art.asm
