"""Arrays tcc's runtime takes without a GPU in the loop: torch CPU bf16 and
ml_dtypes bfloat16 (numpy has no bf16), GPU arrays that offer DLPack only
(their capsule read through ctypes), and the GPU every array sits on."""

import ctypes

import numpy as np
import pytest

from tcc.runtime import dlpack
from tcc.runtime.artifact import ArgSpec
from tcc.runtime.errors import ArgumentError
from tcc.runtime.launcher import (
    TensorInfo,
    _allocate_like,
    _typestr_matches,
    describe,
    device_of,
)

torch = pytest.importorskip("torch")


def test_torch_cpu_bf16_is_its_memory_as_2_byte_records():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(torch.bfloat16)
    info = describe(t)
    assert info is not None and not info.on_device
    assert info.ptr == t.data_ptr() and info.shape == (2, 3)
    assert _typestr_matches(info.typestr, "bf16") and not _typestr_matches(info.typestr, "f16")
    # Writes through the view land in the tensor (outputs are copied back so).
    info.obj.view(np.uint16)[0, 0] = t[1, 2].view(torch.int16).item() & 0xFFFF
    assert t[0, 0].item() == 5.0


def test_ml_dtypes_bfloat16_in_and_out():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.ones((4, 8), dtype=ml_dtypes.bfloat16)
    info = describe(a)
    assert info is not None and _typestr_matches(info.typestr, "bf16")
    out = _allocate_like(ArgSpec("y", "pointer", "bf16", (4, 8), "output"), (4, 8), a)
    assert out.dtype == a.dtype and out.shape == (4, 8)
    # Without an ml_dtypes input, a bf16 output is raw 2-byte records.
    raw = _allocate_like(ArgSpec("y", "pointer", "bf16", (2,), "output"), (2,),
                         np.zeros(2, np.float32))
    assert raw.dtype == np.dtype("V2")


class FakeGpuArray:
    """A GPU array offering DLPack only (a DLManagedTensor built here)."""

    def __init__(self, ptr, shape, device_id, code=2, bits=16, strides=None):
        self.deleted = False
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        managed = dlpack._DLManagedTensor()
        t = managed.dl_tensor
        t.data, t.ndim, t.byte_offset = ptr, len(shape), 0
        t.device.device_type, t.device.device_id = dlpack.KDL_CUDA, device_id
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = self._shape
        t.strides = (ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
                     if self._strides else None)

        def deleter(_):
            self.deleted = True

        self._deleter = dlpack._DELETER(deleter)
        managed.deleter = self._deleter
        self._managed = managed
        self.device_id = device_id

    def __dlpack_device__(self):
        return (dlpack.KDL_CUDA, self.device_id)

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._managed), b"dltensor", None)


def test_a_dlpack_only_gpu_array_is_read_from_its_capsule():
    arr = FakeGpuArray(0x7F0000001000, (3, 5), device_id=0, code=4, bits=16)  # bf16
    info = describe(arr)
    assert info is not None and info.on_device and info.device == 0
    assert info.ptr == 0x7F0000001000 and info.shape == (3, 5) and info.contiguous
    assert _typestr_matches(info.typestr, "bf16")
    assert arr.deleted  # the capsule was consumed
    strided = describe(FakeGpuArray(0x7F0000002000, (3, 5), 0, code=2, bits=32,
                                    strides=(1, 3)))
    assert strided is not None and not strided.contiguous
    with pytest.raises(ValueError, match="dtype code 5"):
        describe(FakeGpuArray(0x1000, (2,), 0, code=5, bits=64))  # complex


def info_on(device):
    return TensorInfo(0x1000, (4,), "<f4", True, True, None, device)


SPECS = [ArgSpec("x", "pointer", "f32", (4,), "input"),
         ArgSpec("b", "pointer", "f32", (4,), "input"),
         ArgSpec("y", "pointer", "f32", (4,), "output")]


def test_the_gpu_of_a_call_comes_from_its_arrays():
    assert device_of("k", SPECS, [info_on(0), None, info_on(0)]) == 0
    host = TensorInfo(0x1000, (4,), "<f4", True, False, None)
    assert device_of("k", SPECS, [host, host, host]) is None
    with pytest.raises(ArgumentError, match=r"k: argument 'b' is on GPU 1 but 'x' on GPU 0"):
        device_of("k", SPECS, [info_on(0), info_on(1), info_on(0)])
    assert device_of("k", SPECS, [info_on(2), info_on(2), info_on(2)]) == 2


def test_a_kernel_loads_and_runs_on_its_arrays_gpu(monkeypatch):
    from tcc.runtime import launcher
    from tcc.runtime.artifact import KernelArtifact, LaunchSpec

    class Fake:
        vendor = "nvidia"

        def __init__(self, index):
            self.index, self.loads, self.activations = index, 0, 0

        def activate(self):
            self.activations += 1

        def load_kernel(self, asm, binary):
            self.loads += 1
            return f"module{self.index}"

        def get_function(self, module, name):
            return (module, name)

    fakes = {0: Fake(0), 1: Fake(1)}
    monkeypatch.setattr(launcher, "get_device", lambda vendor, arch, index=0: fakes[index])
    art = KernelArtifact(target="sm_90", vendor="nvidia", kernel_name="k", asm="// ptx",
                         binary=None, launch=LaunchSpec(block=(128, 1, 1), grid=(1, 1, 1)),
                         args=tuple(SPECS))
    kernel = launcher.CompiledKernel(art)
    assert kernel._load(1) == ("module1", "k") and kernel._load(1) == ("module1", "k")
    assert kernel._load(None) == ("module0", "k")  # host arrays only: GPU 0
    assert [f.loads for f in fakes.values()] == [1, 1]  # once per GPU
    assert fakes[1].activations == 1 and kernel.device_for(1) is fakes[1]
