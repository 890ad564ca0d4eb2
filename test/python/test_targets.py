"""The one arch table (KnownTargets.def): Python's reading of it agrees with
C++'s (tcc-set-target), the backends and tcc.compile take their facts from it,
and reading it needs no MLIR."""

import subprocess
import sys

import pytest
from mlir import ir
from mlir.passmanager import PassManager

from tcc.backends import SUPPORTED_TARGETS, get_target
from tcc.compiler import compile as compile_module
from tcc.targets import KNOWN_TARGETS, get_target_info, parse_known_targets

ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "gfx90a", "gfx942", "gfx950")


def test_table_lists_every_target_in_order():
    assert tuple(KNOWN_TARGETS) == ARCHS
    assert SUPPORTED_TARGETS == ARCHS


def test_table_facts():
    sm90, sm80, gfx942 = (get_target_info(a) for a in ("sm_90", "sm_80", "gfx942"))
    assert (sm90.vendor, sm90.warp_size, sm90.max_shared_bytes) == ("nvidia", 32, 227 * 1024)
    assert sm80.max_shared_bytes == 163 * 1024 and sm80.isa_features == "+ptx70"
    assert sm90.mma == ("wgmma_m64nNk16", "mma_sync_m16n8k16") and sm90.async_copy
    assert sm90.math == "libdevice" and sm80.mma == ("mma_sync_m16n8k16",)
    assert (gfx942.vendor, gfx942.warp_size, gfx942.max_shared_bytes) == ("amd", 64, 64 * 1024)
    assert gfx942.mma == ("mfma_32x32x8", "mfma_16x16x16")
    assert not gfx942.async_copy and gfx942.math == "expanded" and gfx942.banks == "amd"


@pytest.mark.parametrize("arch", ARCHS)
def test_python_and_cpp_read_the_same_table(arch):
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("module {}")
        PassManager.parse(f"builtin.module(tcc-set-target{{arch={arch}}})").run(module.operation)
        assert str(module.operation.attributes["tile.target"]) == get_target_info(arch).attr()


@pytest.mark.parametrize("arch", ARCHS)
def test_backends_read_the_table(arch):
    backend, info = get_target(arch), get_target_info(arch)
    assert (backend.vendor, backend.warp_size, backend.max_shared_bytes) == (
        info.vendor, info.warp_size, info.max_shared_bytes)
    assert compile_module._WARP_SIZE[arch] == info.warp_size
    if info.vendor == "nvidia":
        assert f'features = "{info.isa_features}"' in backend.gpu_target_attr()


def test_unknown_arch():
    with pytest.raises(ValueError, match="unknown target 'sm_70'; tcc compiles for sm_80, sm_86"):
        get_target_info("sm_70")


def test_parse_entries():
    text = ('// TCC_TARGET(not, an, entry)\n'
            'TCC_TARGET("x1", nvidia, 32, 48 * 1024, nvidia, "", false, expanded, "+ptx80")\n')
    (info,) = parse_known_targets(text).values()
    assert info.max_shared_bytes == 49152 and info.mma == () and not info.async_copy
    assert info.attr() == ('#tile.target<arch = "x1", vendor = nvidia, warp_size = 32, '
                           'max_shared_bytes = 49152, banks = nvidia, mma = [], '
                           'async_copy = false, math = expanded>')
    with pytest.raises(ValueError, match="expected 9 fields"):
        parse_known_targets('TCC_TARGET("x", nvidia, 32)\n')


def test_reading_the_table_needs_no_mlir():
    code = ("import sys; import tcc.targets, tcc.compiler.compile; "
            "print(sorted(m for m in sys.modules if m == 'mlir' or m.startswith('mlir.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("arch", ARCHS)
def test_bank_model_of_each_target(arch):
    from tcc.analysis.bank_conflicts import BankModel

    model, info = BankModel.for_target(arch), get_target_info(arch)
    assert (model.name, model.warp_size) == (info.banks, info.warp_size)
