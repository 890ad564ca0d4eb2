"""The launch runtime: MLIR-free import, validation, packing, grid, launch errors."""

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

from tcc.runtime import (
    ArgSpec,
    ArgumentError,
    CompiledKernel,
    KernelArtifact,
    LaunchSpec,
    RuntimeUnavailableError,
)
from tcc.runtime.artifact import eval_grid_expr
from tcc.runtime.launcher import bind_shapes, compute_grid, pack_args


def _run_isolated(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.check_output([sys.executable, "-c", code], text=True, env=env).strip()


def test_runtime_imports_without_mlir():
    out = _run_isolated(
        "import sys, tcc.runtime, tcc.runtime.cuda, tcc.runtime.hip, tcc.compiler.cache\n"
        "print(sorted(m for m in sys.modules if m == 'mlir' or m.startswith('mlir.')))"
    )
    assert out == "[]"


def test_import_tcc_then_mlir_still_registers_dialects():
    out = _run_isolated(
        "import tcc\nfrom mlir import ir\n"
        "with ir.Context() as c: print(c.is_registered_operation('tcc.add'))"
    )
    assert out == "True"


def _vadd(n="N", conv="bare", vendor="nvidia", target="sm_90", binary=None, shared=0):
    return KernelArtifact(
        target=target, vendor=vendor, kernel_name="vadd", asm="// ptx", binary=binary,
        launch=LaunchSpec(block=(128, 1, 1), grid=("cdiv(N, BLOCK * 4)", 1, 1),
                          shared_mem_bytes=shared, constants={"BLOCK": 128}),
        args=(ArgSpec("a", "pointer", "f32", (n,)), ArgSpec("b", "pointer", "f32", (n,)),
              ArgSpec("c", "pointer", "f32", (n,), "output"), ArgSpec("alpha", "scalar", "f32")),
        call_conv=conv,
    )


class FakeDevice:
    """Host memory pretending to be a device; runs c = a + alpha * b on launch."""

    vendor = "nvidia"

    def __init__(self):
        self.buffers, self.launches, self.freed, self.opt_ins = {}, [], [], []

    def load_kernel(self, asm, binary):
        self.image = binary if binary is not None else asm.encode()
        return "module"

    def get_function(self, module, name):
        return (module, name)

    def allow_dynamic_shared(self, function, nbytes):
        self.opt_ins.append((function, nbytes))

    def alloc(self, nbytes):
        buf = ctypes.create_string_buffer(nbytes)
        self.buffers[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)

    def free(self, ptr):
        self.freed.append(ptr)

    def copy_htod(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def copy_dtoh(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def synchronize(self, stream=0):
        pass

    def launch(self, function, grid, block, shmem, stream, params_address):
        self.launches.append((function, grid, block, shmem, stream))
        params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
        ptrs = [ctypes.cast(params[i], ctypes.POINTER(ctypes.c_void_p))[0] for i in range(3)]
        alpha = ctypes.cast(params[3], ctypes.POINTER(ctypes.c_float))[0]
        n = len(self.buffers[ptrs[0]]) // 4
        a, b, c = (np.frombuffer((ctypes.c_float * n).from_address(p), np.float32) for p in ptrs)
        c[:] = a + alpha * b


def test_launch_flow_with_numpy_copies_in_and_out():
    dev = FakeDevice()
    kernel = CompiledKernel(_vadd(), device=dev)
    a = np.arange(1000, dtype=np.float32)
    b = np.ones(1000, dtype=np.float32)
    c = kernel(a, b, 2.0)  # output allocated
    np.testing.assert_array_equal(c, a + 2.0)
    assert dev.launches[0][1:3] == ((2, 1, 1), (128, 1, 1))  # cdiv(1000, 512)
    assert len(dev.freed) == 3
    out = np.empty(1000, np.float32)
    assert kernel(a, b, out, 0.5) is out  # all arguments positionally
    np.testing.assert_array_equal(out, a + 0.5)
    assert kernel(a, b, 1.0, out=out) is out
    assert dev.image == b"// ptx"


def test_dynamic_shared_memory_over_48k_is_opted_into_once():
    a = np.ones(1000, dtype=np.float32)
    small, big = FakeDevice(), FakeDevice()
    CompiledKernel(_vadd(shared=48 * 1024), device=small)(a, a, 1.0)
    assert small.opt_ins == [] and small.launches[0][3] == 48 * 1024
    kernel = CompiledKernel(_vadd(shared=64 * 1024), device=big)
    kernel(a, a, 1.0)
    kernel(a, a, 1.0)
    assert big.opt_ins == [(("module", "vadd"), 64 * 1024)]
    assert [launch[3] for launch in big.launches] == [64 * 1024] * 2


def test_validation_errors_name_the_argument():
    kernel = CompiledKernel(_vadd(), device=FakeDevice())
    a = np.zeros(8, np.float32)
    with pytest.raises(ArgumentError, match=r"argument 'b': expected dtype f32, got f64"):
        kernel(a, np.zeros(8), 1.0)
    shape_msg = r"argument 'b': expected shape \[8\] \(dim 0\), got \[9\]"
    with pytest.raises(ArgumentError, match=shape_msg):
        kernel(a, np.zeros(9, np.float32), 1.0)
    with pytest.raises(ArgumentError, match=r"argument 'a': expected rank 1"):
        kernel(np.zeros((2, 4), np.float32), a, 1.0)
    with pytest.raises(ArgumentError, match=r"argument 'a': expected a C-contiguous"):
        kernel(np.zeros(16, np.float32)[::2], a, 1.0)
    with pytest.raises(ArgumentError, match=r"argument 'alpha': expected a f32 scalar"):
        kernel(a, a, "x")
    with pytest.raises(ArgumentError, match=r"argument 'b': expected an array"):
        kernel(a, [1.0] * 8, 1.0)
    with pytest.raises(ArgumentError, match=r"expected 3 inputs \(a, b, alpha\)"):
        kernel(a)


def test_static_shape_and_int_range_checks():
    art = KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="k", asm="", binary=None,
        launch=LaunchSpec(block=(32, 1, 1), grid=(1, 1, 1)),
        args=(ArgSpec("x", "pointer", "f16", (4, 8)), ArgSpec("n", "scalar", "i32")),
    )
    bind_shapes(art, [np.zeros((4, 8), np.float16), 3])
    shape_msg = r"'x': expected shape \[4, 8\] \(dim 1\), got \[4, 9\]"
    with pytest.raises(ArgumentError, match=shape_msg):
        bind_shapes(art, [np.zeros((4, 9), np.float16), 3])
    with pytest.raises(ArgumentError, match=r"'n': 4294967296 does not fit in i32"):
        bind_shapes(art, [np.zeros((4, 8), np.float16), 2**32])


def test_pack_bare_and_descriptor():
    art = _vadd()
    vals = [np.zeros(10, np.float32)] * 3 + [1.5]
    packed = pack_args(art, [0x1000, 0x2000, 0x3000, None], vals)
    assert len(packed) == 4
    params = ctypes.cast(packed.address, ctypes.POINTER(ctypes.c_void_p))
    assert ctypes.cast(params[1], ctypes.POINTER(ctypes.c_void_p))[0] == 0x2000
    assert ctypes.cast(params[3], ctypes.POINTER(ctypes.c_float))[0] == 1.5
    desc = pack_args(_vadd(conv="descriptor"), [0x1000, 0x2000, 0x3000, None], vals)
    # 3 memrefs x (allocated, aligned, offset, size, stride) + 1 scalar
    assert len(desc) == 16
    params = ctypes.cast(desc.address, ctypes.POINTER(ctypes.c_void_p))
    i64 = [ctypes.cast(params[i], ctypes.POINTER(ctypes.c_int64))[0] for i in (2, 3, 4)]
    assert i64 == [0, 10, 1]


def test_grid_rules():
    assert eval_grid_expr("cdiv(shape(0, 1), 64) * 2", [(3, 130)], {}) == 6
    assert eval_grid_expr("max(numel(0) // T, 1)", [(4, 4)], {"T": 32}) == 1
    assert eval_grid_expr(7, [], {}) == 7
    with pytest.raises(ValueError, match="not allowed"):
        eval_grid_expr("__import__('os')", [], {})
    with pytest.raises(ValueError, match="unknown name 'M'"):
        eval_grid_expr("cdiv(M, 4)", [], {})
    art = _vadd()
    vals = [np.zeros(4096, np.float32) for _ in range(3)] + [1.0]
    assert compute_grid(art, vals, bind_shapes(art, vals)) == (8, 1, 1)


def test_cuda_launch_without_driver_is_a_clear_error():
    # This machine has cuda-python but no NVIDIA driver.
    from tcc.runtime import launcher

    launcher._DEVICES.clear()
    kernel = CompiledKernel(_vadd())
    a = np.zeros(8, np.float32)
    missing = r"(libcuda\.so not found|cuda-python).*sm_90"
    with pytest.raises(RuntimeUnavailableError, match=missing):
        kernel(a, a, 1.0)


def test_cuda_python_missing_is_a_clear_error(monkeypatch):
    from tcc.runtime import cuda, launcher

    monkeypatch.setitem(sys.modules, "cuda.bindings", None)  # makes the import fail
    launcher._DEVICES.clear()
    with pytest.raises(RuntimeUnavailableError, match=r"cuda-python is not installed.*sm_90"):
        cuda.CudaDevice("sm_90")


def test_hip_launch_without_rocm_is_a_clear_error():
    from tcc.runtime import launcher

    launcher._DEVICES.clear()
    kernel = CompiledKernel(_vadd(vendor="amd", target="gfx942", binary=b"\x7fELF"))
    a = np.zeros(8, np.float32)
    with pytest.raises(RuntimeUnavailableError, match=r"(libamdhip64|hip-python).*gfx942"):
        kernel(a, a, 1.0)


def test_amd_artifact_without_hsaco_is_rejected_before_loading():
    kernel = CompiledKernel(_vadd(vendor="amd", target="gfx942"), device=FakeDevice())
    a = np.zeros(8, np.float32)
    with pytest.raises(ArgumentError, match="no hsaco code object.*lld 19-22"):
        kernel(a, a, 1.0)


def test_validation_happens_before_the_driver_is_touched():
    kernel = CompiledKernel(_vadd())  # no device: would raise RuntimeUnavailableError
    with pytest.raises(ArgumentError):
        kernel(np.zeros(8, np.float32), np.zeros(8, np.int32), 1.0)


class _FakeCudaTensor:
    """Just what tcc.runtime reads from a torch CUDA tensor."""

    is_cuda = True

    def __init__(self, shape, dtype="torch.float16", contiguous=True):
        self.shape, self.dtype, self._contiguous = shape, dtype, contiguous

    def data_ptr(self):
        return 0x7000

    def is_contiguous(self):
        return self._contiguous

    def get_device(self):
        return 0

    @property
    def __cuda_array_interface__(self):  # the slow path must not be taken
        raise AssertionError("describe() built __cuda_array_interface__")


def test_torch_cuda_tensors_are_described_without_the_array_interface():
    from tcc.runtime.launcher import describe

    info = describe(_FakeCudaTensor((4, 8)))
    assert (info.ptr, info.shape, info.typestr, info.contiguous, info.on_device) == (
        0x7000, (4, 8), "<f2", True, True)
    assert describe(_FakeCudaTensor((4, 8), "torch.bfloat16")).typestr == "<V2"  # raw 2 bytes
    assert not describe(_FakeCudaTensor((4, 8), contiguous=False)).contiguous


def test_inputs_by_name():
    """Inputs by the program's argument names, after any positional ones;
    unknown, doubled and missing names are errors naming them."""
    from tcc.runtime.errors import ArgumentError

    kernel = CompiledKernel(_vadd(), device=FakeDevice())
    a = np.arange(1000, dtype=np.float32)
    b = np.ones(1000, dtype=np.float32)
    np.testing.assert_array_equal(kernel(a, b, alpha=2.0), a + 2.0)
    np.testing.assert_array_equal(kernel(alpha=0.5, b=b, a=a), a + 0.5)
    out = np.empty(1000, np.float32)
    assert kernel(a, alpha=1.0, b=b, out=out) is out
    with pytest.raises(ArgumentError, match=r"vadd: no input named 'beta' \(inputs: a, b, alpha\)"):
        kernel(a, b, beta=1.0)
    with pytest.raises(ArgumentError, match="input 'a' given both positionally and by name"):
        kernel(a, b, a=a, alpha=1.0)
    with pytest.raises(ArgumentError, match="vadd: missing inputs b"):
        kernel(a, alpha=1.0)


def test_program_inputs_by_name():
    """A whole program's artifact orders keywords by its inputs' names too
    (CompiledProgram.__call__ merges them before binding)."""
    from tcc.runtime.launcher import merge_keywords
    from tcc.runtime.program import single_kernel_program

    kernel = _vadd(n=100)
    kernel = KernelArtifact(**{**kernel.__dict__, "args": kernel.args[:3]})
    program = single_kernel_program(kernel)
    assert merge_keywords(program, (), {"b": "B", "a": "A"}) == ("A", "B")
    assert merge_keywords(program, ("A",), {"b": "B"}) == ("A", "B")


def test_hip_devices_make_their_gpu_current_once_several_are_open(monkeypatch):
    """HIP arrays on GPU 1 run on GPU 1: each HipDevice of several calls
    hipSetDevice(its ordinal) when activated (a fake hip-python stands in)."""
    from types import SimpleNamespace

    from tcc.runtime import hip as hip_mod

    calls: list[int] = []
    ok = "success"
    fake = SimpleNamespace(
        hipError_t=SimpleNamespace(hipSuccess=ok),
        hipInit=lambda flags: (ok,),
        hipSetDevice=lambda ordinal: calls.append(ordinal) or (ok,),
    )
    monkeypatch.setattr(hip_mod, "_import_hip", lambda arch: fake)
    monkeypatch.setattr(hip_mod, "_OPENED", [])
    first = hip_mod.HipDevice("gfx942", 0)
    first.activate()  # the only one open: nothing to switch
    assert calls == [0]
    second = hip_mod.HipDevice("gfx942", 1)
    assert calls == [0, 1]
    first.activate()
    second.activate()
    assert calls == [0, 1, 0, 1]
