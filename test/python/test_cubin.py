"""NVIDIA artifacts carry a cubin assembled by ptxas (nvidia-cuda-nvcc)
beside their PTX; the CUDA backend loads it on a GPU of its architecture and
the PTX elsewhere (CPU-only: a fake driver stands in for the GPU)."""

import subprocess
from pathlib import Path

import pytest

import tcc
from tcc.backends.ptxas import assemble_cubin, find_tool, ptx_arch
from tcc.runtime.errors import LaunchError
from tcc.runtime.program import ProgramArtifact

SRC = """
func.func @scale(%x: tensor<1000x777xf32>) -> tensor<1000x777xf32> {
  %c = arith.constant dense<2.0> : tensor<1000x777xf32>
  %y = tcc.mul %x, %c : tensor<1000x777xf32>
  return %y : tensor<1000x777xf32>
}"""

pytestmark = pytest.mark.skipif(find_tool("ptxas") is None, reason="ptxas not installed")


def sass_arch(cubin: bytes, tmp_path: Path) -> str:
    cuobjdump = find_tool("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump not installed")
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    out = subprocess.run([str(cuobjdump), "-elf", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return out


@pytest.mark.parametrize(("target", "arch"), [("sm_90", "sm_90a"), ("sm_80", "sm_80")])
def test_nvidia_artifacts_carry_a_cubin_of_their_ptx_target(target, arch, tmp_path):
    k = tcc.compile(SRC, target, cache=False)
    (kernel,) = k.kernels
    assert ptx_arch(kernel.asm) == arch
    assert kernel.binary is not None and kernel.binary[:4] == b"\x7fELF"
    elf = sass_arch(kernel.binary, tmp_path)
    assert arch in elf and "scale" in elf
    # Saved and loaded with the program (no MLIR needed to read it back).
    k.artifact.save(tmp_path / "p.tccprog")
    back = ProgramArtifact.load(tmp_path / "p.tccprog")
    assert back.kernels[0].binary == kernel.binary and back.kernels[0].asm == kernel.asm


def test_tcc_cubin_0_keeps_artifacts_ptx_only_and_is_part_of_the_key(monkeypatch):
    monkeypatch.setenv("TCC_CUBIN", "0")
    k = tcc.compile(SRC, "sm_90", cache=False)
    assert k.kernels[0].binary is None
    from tcc.compiler.compile import Schedule
    assert Schedule(cubin=False).as_dict()["cubin"] == 0 and "cubin" not in Schedule().as_dict()


def test_amd_artifacts_keep_their_hsaco():
    k = tcc.compile(SRC, "gfx942", cache=False)
    binary = k.kernels[0].binary
    assert binary is None or binary[:4] == b"\x7fELF"  # an hsaco where ld.lld exists


def test_ptxas_rejecting_ptx_is_a_compile_error():
    with pytest.raises(RuntimeError, match="ptxas rejected the PTX"):
        assemble_cubin(".version 8.0\n.target sm_90a\n.address_size 64\nnot ptx;\n")
    with pytest.raises(ValueError, match=".target"):
        ptx_arch(".version 8.0\n")


class FakeDriver:
    """CudaDevice.load_kernel's choices without a GPU."""

    def __init__(self, capability, refuse_cubin=False):
        from tcc.runtime.cuda import CudaDevice

        self.device = CudaDevice.__new__(CudaDevice)
        self.device.arch = "sm_90"
        self.device._capability = capability
        self.device.loaded = ""
        self.images = []

        def load_module(image):
            if refuse_cubin and image.startswith(b"\x7fELF"):
                raise LaunchError("cuModuleLoadData failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
            self.images.append(image)
            return "module"

        self.device.load_module = load_module


@pytest.mark.parametrize(("capability", "refuse", "loaded"), [
    ((9, 0), False, "cubin"),   # the cubin's own GPU: no JIT
    ((10, 0), False, "ptx"),    # another architecture: the PTX
    ((9, 0), True, "ptx"),      # a cubin the driver refuses: the PTX
])
def test_the_cuda_backend_loads_the_cubin_on_its_architecture_only(capability, refuse, loaded):
    fake = FakeDriver(capability, refuse)
    assert fake.device.load_kernel("// ptx", b"\x7fELF....") == "module"
    assert fake.device.loaded.startswith(loaded)
    assert fake.images[-1] == (b"\x7fELF...." if loaded == "cubin" else b"// ptx")


def test_cli_writes_the_cubin_beside_the_ptx(tmp_path):
    from tcc.cli import main as cli_main

    src = tmp_path / "scale.mlir"
    src.write_text(SRC)
    out = tmp_path / "k.ptx"
    assert cli_main(["compile", str(src), "--target", "sm_90", "-o", str(out),
                     "--no-cache"]) == 0
    assert ".target sm_90a" in out.read_text()
    assert (tmp_path / "k.cubin").read_bytes()[:4] == b"\x7fELF"
    assert not (tmp_path / "k.hsaco").exists()
