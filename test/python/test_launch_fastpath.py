"""The launch fast path (tcc.runtime.fastpath): one plan per call signature.

There is no torch and no GPU here: a stand-in ``torch`` module hands out
host-memory tensors, and a fake device records every launch (function, grid,
block, shared bytes, stream and the pointer and scalar parameters it was
given). The fast path must launch exactly what the general path launches,
skip the full validation on later calls, and still refuse every bad call
with the general path's message.
"""

import ctypes
import sys
import types

import numpy as np
import pytest

import tcc
from tcc.frontend import Tensor, f32, program
from tcc.runtime import ArgSpec, ArgumentError, CompiledKernel, KernelArtifact, LaunchSpec
from tcc.runtime import launcher as launcher_mod
from tcc.runtime import runner as runner_mod
from tcc.runtime.artifact import TensorMapSpec
from tcc.runtime.runner import CompiledProgram

_NP = {"float32": np.float32, "float16": np.float16, "uint8": np.uint8, "int64": np.int64}


class _DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


class FakeTensor:
    """Host memory posing as a CUDA torch tensor (what tcc.runtime reads)."""

    is_cuda = True

    def __init__(self, array, dtype=None):
        self.a = array
        self._dtype = dtype or _FAKE_TORCH.dtypes[array.dtype.name]

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return tuple(self.a.shape)

    def data_ptr(self):
        return self.a.ctypes.data

    def is_contiguous(self):
        return self.a.flags.c_contiguous

    def get_device(self):
        return 0

    @property
    def device(self):
        return "cuda:0"

    def view(self, shape):
        return FakeTensor(self.a.reshape(shape), self._dtype)

    reshape = view


def _fake_torch():
    mod = types.ModuleType("torch")
    mod.dtypes = {name: _DType(name) for name in _NP}
    for name, dt in mod.dtypes.items():
        setattr(mod, name, dt)
    mod.allocations = 0

    def empty(shape, dtype, device=None):
        mod.allocations += 1
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        # 64-byte aligned host memory
        raw = np.empty(int(np.prod(shape)) * np.dtype(_NP[dtype.name]).itemsize + 64, np.uint8)
        start = -raw.ctypes.data % 64
        arr = raw[start:start + raw.size - 64].view(_NP[dtype.name]).reshape(shape)
        return FakeTensor(arr, dtype)

    def empty_like(t):
        mod.like_allocations += 1
        return empty(t.shape, t.dtype)

    mod.empty = empty
    mod.empty_like = empty_like
    mod.like_allocations = 0
    mod.device = lambda kind, index=0: f"{kind}:{index}"
    mod._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: 0x5EED)
    return mod


_FAKE_TORCH = _fake_torch()


@pytest.fixture(autouse=True)
def fake_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _FAKE_TORCH)
    _FAKE_TORCH.allocations = 0
    _FAKE_TORCH.like_allocations = 0
    return _FAKE_TORCH


def tensor(array):
    t = _FAKE_TORCH.empty(array.shape, _FAKE_TORCH.dtypes[array.dtype.name])
    t.a[...] = array
    return t


class _Function(str):
    """A kernel handle: its name, and (int()) an address as a driver's."""

    def __int__(self):
        return 0x1000 + sum(map(ord, self))


# cuLaunchKernel's (and hipModuleLaunchKernel's) C signature.
_LAUNCH_T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class RecordingDevice:
    """Records launches; ``run`` (if given) executes a launch on host memory.

    ``native``: the device also has a launch entry point (a C function that
    records the launch the same way), so the C dispatcher launches through
    it; ``launch_status`` is what that entry point returns (0: success)."""

    vendor = "nvidia"
    native = False

    def __init__(self, run=None, pointers=None):
        self.launches, self.loads, self.run = [], 0, run
        self.capturing, self.buffers = None, []
        self.pointers = pointers or {"vadd": 3}  # pointer parameters per kernel
        self.native_launches, self.launch_status = 0, 0
        self._functions = {}
        self._entry = _LAUNCH_T(self._entry_point)

    def _entry_point(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.native_launches += 1
        self.launch(self._functions[function], (gx, gy, gz), (bx, by, bz), shared,
                    stream or 0, params)
        return self.launch_status

    def launch_entry_point(self):
        if not self.native:
            return None

        def raise_error(err):
            raise tcc.runtime.LaunchError(f"cuLaunchKernel failed: {err}")

        return ctypes.cast(self._entry, ctypes.c_void_p).value, raise_error

    def alloc(self, nbytes):
        self.buffers.append(_FAKE_TORCH.empty(nbytes, _FAKE_TORCH.uint8))
        return self.buffers[-1].data_ptr()

    def free(self, ptr):
        pass

    def synchronize(self, stream=0):
        pass

    def copy_htod(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    copy_dtoh = copy_htod

    def load_kernel(self, asm, binary):
        self.loads += 1
        return "module"

    def get_function(self, module, name):
        function = _Function(name)
        self._functions[int(function)] = function
        return function

    def allow_dynamic_shared(self, function, nbytes):
        pass

    def tensor_map(self, ptr, dtype, shape, box, swizzle):
        return bytes(128)

    def launch(self, function, grid, block, shmem, stream, params_address):
        record = (function, tuple(grid), tuple(block), shmem, stream, params_address)
        (self.capturing if self.capturing is not None else self.launches).append(
            (record, self._decode(params_address, self.pointers[function])))
        if self.run is not None and self.capturing is None:
            self.run(function, params_address)

    @staticmethod
    def _decode(params_address, n):
        params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
        return [ctypes.cast(params[i], ctypes.POINTER(ctypes.c_uint64))[0] for i in range(n)]

    def capture_graph(self, launches):
        self.capturing = []
        launches(0xCAFE)
        graph, self.capturing = self.capturing, None
        return graph

    def replay_graph(self, graph, stream):
        self.launches.append(("replay", len(graph), stream))


@pytest.fixture(params=["python", "native"])
def launch_path(request, monkeypatch):
    """Each test it is given runs twice: with every call in Python
    (TCC_NATIVE_LAUNCH=0), and with later calls run by the C dispatcher
    (tcc.runtime._fastcall, built with the package) through a device that
    has a launch entry point."""
    if request.param == "native":
        from tcc.runtime import fastpath

        assert fastpath._fastcall is not None, "tcc.runtime._fastcall is not built"
        monkeypatch.setattr(RecordingDevice, "native", True)
        monkeypatch.delenv("TCC_NATIVE_LAUNCH", raising=False)
    else:
        monkeypatch.setenv("TCC_NATIVE_LAUNCH", "0")
    return request.param


def _check_path(launcher, dev, path, native_calls):
    """The calls ran where ``path`` says: ``native_calls`` of them from C."""
    stats = launcher.native_stats()
    if path == "python":
        assert stats is None and dev.native_launches == 0
    else:
        assert stats["hits"] == native_calls and dev.native_launches >= native_calls


def _vadd():
    return KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="vadd", asm="// ptx", binary=None,
        launch=LaunchSpec(block=(128, 1, 1), grid=("cdiv(N, BLOCK * 4)", 1, 1),
                          constants={"BLOCK": 128}),
        args=(ArgSpec("a", "pointer", "f32", ("N",)), ArgSpec("b", "pointer", "f32", ("N",)),
              ArgSpec("c", "pointer", "f32", ("N",), "output"), ArgSpec("alpha", "scalar", "f32")),
    )


def _run_vadd(function, params_address):
    params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
    ptrs = [ctypes.cast(params[i], ctypes.POINTER(ctypes.c_void_p))[0] for i in range(3)]
    alpha = ctypes.cast(params[3], ctypes.POINTER(ctypes.c_float))[0]
    n = 1000
    a, b, c = (np.frombuffer((ctypes.c_float * n).from_address(p), np.float32) for p in ptrs)
    c[:] = a + alpha * b


def _count_validations(monkeypatch):
    calls = []
    real = launcher_mod.bind_shapes

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(launcher_mod, "bind_shapes", counting)
    monkeypatch.setattr(runner_mod, "bind_shapes", counting)
    return calls


def test_kernel_fast_path_launches_and_skips_revalidation(monkeypatch, launch_path):
    dev = RecordingDevice(run=_run_vadd)
    kernel = CompiledKernel(_vadd(), device=dev)
    validations = _count_validations(monkeypatch)
    rng = np.random.default_rng(0)
    for alpha in (0.5, 2.0, -1.0):
        a = tensor(rng.standard_normal(1000, dtype=np.float32))
        b = tensor(rng.standard_normal(1000, dtype=np.float32))
        c = kernel(a, b, alpha)
        np.testing.assert_allclose(c.a, a.a + alpha * b.a, rtol=1e-6)
    assert len(validations) == 1  # the first call of the signature only
    assert dev.loads == 1
    (_, grid, block, _, stream, _), _ = dev.launches[-1]
    assert grid == (2, 1, 1) and block == (128, 1, 1)
    assert stream == 0x5EED  # torch's current raw stream
    # A new size is a new signature: validated once more.
    kernel(tensor(np.ones(1000, np.float32)), tensor(np.ones(1000, np.float32)), 1.0)
    assert len(validations) == 1
    kernel(tensor(np.ones(999, np.float32)), tensor(np.ones(999, np.float32)), 1.0,
           stream=7)
    assert len(validations) == 2
    (_, grid, _, _, stream, _), _ = dev.launches[-1]
    assert grid == (2, 1, 1) and stream == 7
    _check_path(kernel._fast, dev, launch_path, 3)  # alpha 2.0, -1.0; the second N=1000


def test_fast_path_allocates_outputs_like_an_input_of_their_shape(fake_torch, launch_path):
    """An output of an input's shape and dtype is torch.empty_like(input)
    (cheaper on the host than torch.empty): fresh memory, never the input's."""
    dev = RecordingDevice(run=_run_vadd)
    kernel = CompiledKernel(_vadd(), device=dev)
    a, b = tensor(np.full(1000, 2, np.float32)), tensor(np.ones(1000, np.float32))
    kernel(a, b, 1.0)  # builds the plan
    before = fake_torch.like_allocations
    c = kernel(a, b, 1.0)
    assert fake_torch.like_allocations == before + 1
    assert c.data_ptr() not in (a.data_ptr(), b.data_ptr())
    np.testing.assert_array_equal(c.a, np.full(1000, 3, np.float32))
    np.testing.assert_array_equal(a.a, np.full(1000, 2, np.float32))
    _check_path(kernel._fast, dev, launch_path, 1)


def test_fast_path_refuses_what_the_general_path_refuses(launch_path):
    kernel = CompiledKernel(_vadd(), device=RecordingDevice(run=_run_vadd))
    a, b = tensor(np.ones(1000, np.float32)), tensor(np.ones(1000, np.float32))
    kernel(a, b, 1.0)  # builds the plan
    with pytest.raises(ArgumentError, match=r"'alpha': expected a f32 scalar"):
        kernel(a, b, "x")
    with pytest.raises(ArgumentError, match="'b': expected shape"):
        kernel(a, tensor(np.ones(999, np.float32)), 1.0)
    with pytest.raises(ArgumentError, match="expected dtype f32, got f16"):
        kernel(a, tensor(np.ones(1000, np.float16)), 1.0)
    big = tensor(np.ones(1004, np.float32))
    shifted = FakeTensor(big.a[1:1001])  # same signature, 4 bytes off 16
    with pytest.raises(ArgumentError, match="'b' at .* is not 16-byte aligned"):
        kernel(a, shifted, 1.0)
    strided = FakeTensor(tensor(np.ones(2000, np.float32)).a[::2])
    with pytest.raises(ArgumentError, match="'a': expected a C-contiguous array"):
        kernel(strided, b, 1.0)
    with pytest.raises(ArgumentError, match="output 'c' overlaps argument 'a'"):
        kernel(a, b, 1.0, out=a)
    c = tensor(np.zeros(1000, np.float32))
    kernel(a, b, 1.0, out=c)  # builds the out= plan
    with pytest.raises(ArgumentError, match="output 'c' overlaps argument 'a'"):
        kernel(a, b, 1.0, out=a)
    with pytest.raises(ArgumentError, match="'alpha': expected a f32 scalar"):
        kernel(a, b, None)
    if launch_path == "native":
        # the aligned/contiguous/overlap refusals were the dispatcher's
        assert kernel._fast.native_stats()["refusals"] >= 3


def _two_kernel_program():
    @program
    def f(x: Tensor[512, 64, f32], b: Tensor[64, f32]):
        return (x + b).sum(), x.reshape(64, 512)

    return tcc.compile(f, "sm_90", cache=False)


def test_program_fast_path_launches_what_the_general_path_launches(monkeypatch, launch_path):
    compiled = _two_kernel_program()
    # the sum's partial and final reductions, and the copy of x's reshape
    assert len(compiled.kernels) == 3 and compiled.artifact.buffers
    dev = RecordingDevice(pointers={k.kernel_name: len(k.args) for k in compiled.artifact.kernels})
    prog = CompiledProgram(compiled.artifact, device=dev)
    x = tensor(np.ones((512, 64), np.float32))
    b = tensor(np.ones(64, np.float32))
    out = tensor(np.zeros((), np.float32))
    flat = tensor(np.zeros((64, 512), np.float32))  # the reshape's copy
    prog._general((x, b, out, flat), None, None)
    general = dev.launches[:]
    dev.launches.clear()
    validations = _count_validations(monkeypatch)
    for _ in range(3):
        total, view = prog(x, b, out, flat)
    assert len(validations) == 1
    assert view is flat and total is out  # a result that reshapes an input is copied
    fast = dev.launches[-3:]
    assert [r[:4] for r, _ in fast] == [r[:4] for r, _ in general]
    assert {r[4] for r, _ in fast} == {0x5EED}  # torch's current stream
    # Pointer parameters: the arguments' where the general path passed them,
    # one intermediate buffer shared by the producer and the consumer.
    args = {x.data_ptr(), b.data_ptr(), out.data_ptr(), flat.data_ptr()}
    for (_, gparams), (_, fparams) in zip(general, fast, strict=True):
        for g, f in zip(gparams, fparams, strict=True):
            assert (g in args) == (f in args) and (g == f or g not in args)
    scratch = [p for _, params in fast for p in params if p not in args]
    assert len(set(scratch)) == 1
    # Intermediates are allocated once per stream, outputs per call.
    allocations = _FAKE_TORCH.allocations
    prog(x, b)
    prog(x, b)
    # Two outputs per call, and the intermediate once (a call without the
    # outputs is a signature of its own, with its own buffers).
    assert _FAKE_TORCH.allocations - allocations == 2 * 2 + 1
    _check_path(prog._fast, dev, launch_path, 3)


def test_graph_capture_records_every_launch_once():
    compiled = _two_kernel_program()
    dev = RecordingDevice(pointers={k.kernel_name: len(k.args) for k in compiled.artifact.kernels})
    prog = CompiledProgram(compiled.artifact, device=dev)
    x = tensor(np.ones((512, 64), np.float32))
    b = tensor(np.ones(64, np.float32))
    graph = prog.capture(x, b)
    assert dev.launches == []
    total, view = graph.replay()
    graph.replay(stream=3)
    assert dev.launches == [("replay", 3, 0x5EED), ("replay", 3, 3)]
    assert view.shape == (64, 512) and view.data_ptr() != x.data_ptr() and total.shape == ()
    with pytest.raises(ArgumentError, match="expected shape"):
        prog.capture(tensor(np.ones((512, 63), np.float32)), b)


def test_numpy_arguments_keep_the_general_path():
    dev = RecordingDevice(run=_run_vadd)
    kernel = CompiledKernel(_vadd(), device=dev)
    c = kernel(np.ones(1000, np.float32), np.full(1000, 2, np.float32), 3.0)
    np.testing.assert_array_equal(c, np.full(1000, 7, np.float32))
    assert kernel._fast._plans == {}  # no plan for host arrays


# ------------------------------------------------- the C dispatcher only --
def _scalars_kernel():
    """Two arrays and a scalar of each kind the C dispatcher writes; the grid
    reads the scalar ``n``."""
    return KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="scalars", asm="// ptx", binary=None,
        launch=LaunchSpec(block=(64, 1, 1), grid=("cdiv(n, 64)", 1, 1)),
        args=(ArgSpec("y", "pointer", "f32", (16,)),
              ArgSpec("x", "pointer", "f32", (16,), "output"),
              ArgSpec("n", "scalar", "i32"), ArgSpec("big", "scalar", "i64"),
              ArgSpec("s", "scalar", "f32"),
              ArgSpec("d", "scalar", "f64"), ArgSpec("h", "scalar", "f16"),
              ArgSpec("g", "scalar", "bf16"), ArgSpec("flag", "scalar", "i1"),
              ArgSpec("k", "scalar", "i8")),
    )


def _fields(params_address):
    """The scalars kernel's parameter values, read back by their C types."""
    params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
    kinds = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_float,
             ctypes.c_double, ctypes.c_uint16, ctypes.c_uint16, ctypes.c_bool, ctypes.c_int8)
    return [ctypes.cast(params[i], ctypes.POINTER(kind))[0] for i, kind in enumerate(kinds)]


def test_native_dispatcher_writes_each_scalar_kind_and_evaluates_scalar_grids(monkeypatch):
    monkeypatch.setattr(RecordingDevice, "native", True)
    seen = []
    dev = RecordingDevice(pointers={"scalars": 2}, run=lambda f, p: seen.append(_fields(p)))
    kernel = CompiledKernel(_scalars_kernel(), device=dev)
    y = tensor(np.ones(16, np.float32))
    calls = [(100, -(2**40), 1.5, -2.25, 0.5, 3.0, True, -7),
             (1000, 2**40, -0.0, 1e300, -2.0, 0.1, False, 127),
             (64, 7, 3, 4, 1, 2, 1, 0)]  # ints where floats go: the general path's rule
    for values in calls:
        kernel(y, *values)
    assert kernel._fast.native_stats()["hits"] == 1  # the third call's ints: a new signature
    import ml_dtypes  # bf16 bits, rounded to nearest even

    for (n, big, s_, d, h, g, flag, k), got in zip(calls, seen, strict=True):
        bf16 = int(np.array(g, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
        f16 = int(np.float16(h).view(np.uint16))
        assert got[0] == y.data_ptr()
        assert got[2:] == [n, big, np.float32(s_), d, f16, bf16, bool(flag), k]
    grids = [record[1] for record, _ in dev.launches]
    assert grids == [(2, 1, 1), (16, 1, 1), (1, 1, 1)]
    kernel(y, 100, -(2**40), 1.5, -2.25, 0.5, 3.0, True, -7)  # the first signature again
    assert kernel._fast.native_stats()["hits"] == 2
    with pytest.raises(ArgumentError, match="does not fit in i32"):
        kernel(y, 2**31, 0, 1.5, -2.25, 0.5, 3.0, True, -7)
    with pytest.raises(ArgumentError, match="does not fit in i8"):
        kernel(y, 100, 0, 1.5, -2.25, 0.5, 3.0, True, 128)
    assert kernel._fast.native_stats()["refusals"] == 2


def test_native_launch_errors_raise_and_nothing_is_returned(monkeypatch):
    monkeypatch.setattr(RecordingDevice, "native", True)
    dev = RecordingDevice(run=_run_vadd)
    kernel = CompiledKernel(_vadd(), device=dev)
    a, b = tensor(np.ones(1000, np.float32)), tensor(np.ones(1000, np.float32))
    kernel(a, b, 1.0)
    dev.launch_status = 719  # CUDA_ERROR_LAUNCH_FAILED
    with pytest.raises(tcc.runtime.LaunchError, match="cuLaunchKernel failed: 719"):
        kernel(a, b, 1.0)
    dev.launch_status = 0
    np.testing.assert_array_equal(kernel(a, b, 2.0).a, np.full(1000, 3, np.float32))


def test_native_dispatcher_cycle_is_collected(monkeypatch):
    """The dispatcher calls back into its FastLauncher, which holds it: the
    cycle (and the plans' parameter blocks) goes with the last reference."""
    import gc
    import weakref

    monkeypatch.setattr(RecordingDevice, "native", True)
    kernel = CompiledKernel(_vadd(), device=RecordingDevice(run=_run_vadd))
    a, b = tensor(np.ones(1000, np.float32)), tensor(np.ones(1000, np.float32))
    for _ in range(2):
        kernel(a, b, 1.0)
    launcher = weakref.ref(kernel._fast)
    assert kernel._fast.native_stats()["plans"] == 1
    del kernel
    gc.collect()
    assert launcher() is None


def _tma_kernel():
    return KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="tma", asm="// ptx", binary=None,
        launch=LaunchSpec(block=(128, 1, 1), grid=(1, 1, 1)),
        args=(ArgSpec("a", "pointer", "f16", (64, 64)),
              ArgSpec("c", "pointer", "f16", (64, 64), "output")),
        tensor_maps=(TensorMapSpec(0, (64, 64), 128),),
    )


def test_native_tensor_maps_follow_their_operand(monkeypatch, fake_torch):
    """A tensor map is rebuilt when its operand's pointer changes, and
    rewritten from the dispatcher's copy when another writer (the Python
    path) left a different map in the shared parameter block."""
    monkeypatch.setattr(RecordingDevice, "native", True)
    maps = []

    def read_map(function, params_address):
        params = ctypes.cast(params_address, ctypes.POINTER(ctypes.c_void_p))
        maps.append(ctypes.cast(params[2], ctypes.POINTER(ctypes.c_uint64))[0])

    dev = RecordingDevice(pointers={"tma": 2}, run=read_map)
    built = []

    def tensor_map(ptr, dtype, shape, box, swizzle):
        built.append(ptr)
        return ptr.to_bytes(8, "little") + bytes(120)

    dev.tensor_map = tensor_map
    kernel = CompiledKernel(_tma_kernel(), device=dev)
    a1, a2 = (tensor(np.ones((64, 64), np.float16)) for _ in range(2))
    kernel(a1)  # Python: builds the plan
    kernel(a1)  # C: its first map of a1
    kernel(a1)  # C: a1's map still in the block
    kernel(a2)  # C: a2's
    assert maps == [a1.data_ptr(), a1.data_ptr(), a1.data_ptr(), a2.data_ptr()]
    assert built == [a1.data_ptr(), a1.data_ptr(), a2.data_ptr()]
    plan = next(iter(kernel._fast._plans.values()))
    full = plan.bind((a1,), None)
    plan.launch(plan.pointers(full, False), full, 0)  # Python writes a1's map
    kernel(a2)  # C: a2's map again, from its copy
    assert maps[-2:] == [a1.data_ptr(), a2.data_ptr()] and built[-1] == a1.data_ptr()
    assert kernel._fast.native_stats()["hits"] == 4


# ---------------------------------------------------------------- tcc.jit --
M, N, K = __import__("tcc.frontend", fromlist=["syms"]).syms("M N K")


def _bias_add(x: Tensor[M, N, f32], b: Tensor[N, f32]):
    return x + b


def _count_compiles(monkeypatch, keys=None):
    """Records the keyword arguments (those in ``keys``, or all) of every
    tcc.compile call that tcc.jit makes; returns the list it appends to."""
    import tcc.compiler.compile as compile_mod

    compiles = []
    real = compile_mod.compile

    def counting(*args, **kwargs):
        compiles.append(kwargs if keys is None else
                        {k: v for k, v in kwargs.items() if k in keys})
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_mod, "compile", counting)
    return compiles


def test_jit_compiles_once_per_binding_and_then_hits_the_plan(monkeypatch, launch_path):
    compiles = _count_compiles(monkeypatch)
    dev = RecordingDevice(pointers={"_bias_add": 3})
    f = tcc.jit(_bias_add, target="sm_90", device=dev, cache=False, shapes="static")
    x, b = tensor(np.ones((8, 16), np.float32)), tensor(np.ones(16, np.float32))
    for _ in range(3):
        f(x, b)
    assert [(c["M"], c["N"]) for c in compiles] == [(8, 16)]
    assert len(dev.launches) == 3
    validations = _count_validations(monkeypatch)
    f(x, b)
    assert validations == []  # a hit goes straight to the launch plan
    if launch_path == "native":  # the second to fourth calls, from C
        assert f._native.stats()["hits"] == 3 and dev.native_launches == 3
    else:
        assert f._native is None
    f(tensor(np.ones((4, 16), np.float32)), b)
    assert [(c["M"], c["N"]) for c in compiles] == [(8, 16), (4, 16)]
    assert len(f.compiled) == 2
    kernel = f.compile_for(x, b)
    assert kernel.artifact.args[0].shape == (8, 16) and kernel.target == "sm_90"


def test_jit_compiles_once_per_shape_class(monkeypatch):
    """shapes="classes" (the default): M (a leading dim only) is dynamic,
    one compile per class of M; N (a last dim) is bound."""
    compiles = _count_compiles(monkeypatch, ("M", "N", "dynamic_extent"))
    dev = RecordingDevice(pointers={"_bias_add": 3})
    f = tcc.jit(_bias_add, target="sm_90", device=dev, cache=False)
    b = tensor(np.ones(16, np.float32))
    sizes = (8, 4, 100, 8, 1, 1, 257, 4096, 256, 2048, 8192)
    for m in sizes:
        f(tensor(np.ones((m, 16), np.float32)), b)
    # Three classes of M: up to 256 (planned for 64), to 2048 (for 1024), above.
    assert compiles == [{"N": 16, "dynamic_extent": 64}, {"N": 16, "dynamic_extent": 1024},
                        {"N": 16}]
    assert len(dev.launches) == len(sizes)
    assert f.compile_for(tensor(np.ones((3, 16), np.float32)), b).artifact.args[0].shape == \
        ("M", 16)
    f(tensor(np.ones((8, 32), np.float32)), tensor(np.ones(32, np.float32)))
    assert compiles[-1] == {"N": 32, "dynamic_extent": 64}


def test_jit_specializes_what_no_form_takes_dynamic(monkeypatch):
    """A column sum whose columns span a leading dim (K of [M, K, N] summed
    over M) cannot take K dynamic: that class is specialized per binding,
    and the dynamic compile is not tried again."""
    def column_sum(x: Tensor[M, K, N, f32]):
        return x.sum(0)

    compiles = _count_compiles(monkeypatch, ("M", "K", "N"))
    f = tcc.jit(column_sum, target="sm_80", cache=False)
    for m in (8, 16):
        f.compile_for(np.ones((m, 4, 64), np.float32))
    assert compiles == [{"N": 64}, {"M": 8, "K": 4, "N": 64}, {"M": 16, "K": 4, "N": 64}]


def test_jit_keeps_short_column_sums_dynamic_and_specializes_tall_ones(monkeypatch):
    """x.sum(0) over few columns: the class of up to 256 rows (planned as 64)
    is one dynamic compile; taller rows, which a static kernel splits over
    many programs, are specialized."""
    def column_sum(x: Tensor[M, N, f32]):
        return x.sum(0)

    compiles = _count_compiles(monkeypatch, ("M", "N"))
    f = tcc.jit(column_sum, target="sm_80", cache=False)
    for m in (8, 200, 5000):
        f.compile_for(np.ones((m, 64), np.float32))
    assert compiles == [{"N": 64}, {"N": 64}, {"M": 5000, "N": 64}]


def test_jit_errors_name_the_argument_and_the_symbol():
    f = tcc.jit(_bias_add, target="sm_90", cache=False)
    x = np.ones((8, 16), np.float32)
    with pytest.raises(ArgumentError, match=r"argument 'b': expected shape \[16\] \(dim 0\), "
                                            r"got \[15\]"):
        f.compile_for(x, np.ones(15, np.float32))
    with pytest.raises(ArgumentError, match=r"argument 'b': expected rank 1 \[N\], got shape"):
        f.compile_for(x, np.ones((1, 16), np.float32))
    with pytest.raises(ArgumentError, match=r"expected 2 inputs \(x, b\), got 1"):
        f.compile_for(x)
    with pytest.raises(ArgumentError, match="host arrays: pass target="):
        tcc.jit(_bias_add).compile_for(x, np.ones(16, np.float32))


def test_jit_takes_the_target_from_the_device(fake_torch, monkeypatch):
    from tcc.compiler.jit import device_target

    fake_torch.cuda = types.SimpleNamespace(get_device_capability=lambda i: (9, 0))
    fake_torch.version = types.SimpleNamespace(hip=None)
    x = tensor(np.ones(4, np.float32))
    monkeypatch.setattr(FakeTensor, "__module__", "torch")
    assert device_target(x) == "sm_90"
    fake_torch.cuda.get_device_capability = lambda i: (8, 0)
    assert device_target(x) == "sm_80"
    fake_torch.cuda.get_device_capability = lambda i: (12, 0)
    with pytest.raises(ArgumentError, match="on a sm_120 device; tcc compiles for sm_80"):
        device_target(x)
    fake_torch.version.hip = "6.4"
    fake_torch.cuda.get_device_properties = lambda i: types.SimpleNamespace(
        gcnArchName="gfx942:sramecc+:xnack-")
    assert device_target(x) == "gfx942"
    assert device_target(np.ones(3)) is None


def test_a_program_that_only_reshapes_copies_into_its_output():
    src = """
    func.func @f(%x: tensor<2x33xf32>) -> tensor<66xf32> {
      %r = tensor.collapse_shape %x [[0, 1]] : tensor<2x33xf32> into tensor<66xf32>
      return %r : tensor<66xf32>
    }"""
    compiled = tcc.compile(src, "sm_90", cache=False)
    dev = RecordingDevice(pointers={k.kernel_name: len(k.args) for k in compiled.artifact.kernels})
    prog = CompiledProgram(compiled.artifact, device=dev)
    x = tensor(np.arange(66, dtype=np.float32).reshape(2, 33))
    for _ in range(2):  # the general path, then the plan
        flat = prog(x)
        assert flat.shape == (66,) and flat.data_ptr() != x.data_ptr()
    assert len(compiled.kernels) == 1 and len(dev.launches) == 2
