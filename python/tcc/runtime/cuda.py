"""CUDA driver-API launcher backend (cuda-python's ``cuda.bindings.driver``).

Imported lazily by the launcher; importing this module does not touch the
driver. An artifact's cubin is loaded on a GPU of its architecture; its PTX
is JIT-compiled by the driver (``cuModuleLoadData``) on any other, where it
has no cubin, or where the driver refuses the cubin.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Sequence
from typing import Any

from tcc.runtime.errors import ArgumentError, LaunchError, RuntimeUnavailableError

_TMA_DTYPES = {"f16": ("FLOAT16", 2), "bf16": ("BFLOAT16", 2), "f32": ("FLOAT32", 4)}


def _import_driver(arch: str) -> Any:
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        raise RuntimeUnavailableError(
            f"cuda-python is not installed: tcc needs it to launch {arch} kernels "
            "(pip install 'tcc[cuda]', which pins cuda-bindings)"
        ) from exc
    return driver


def _ctypes_entry_points() -> tuple[Any, Any]:
    """``cuLaunchKernel`` and ``cuGraphLaunch`` called through ctypes on the
    driver library cuda-bindings loaded (``TCC_LAUNCH=ctypes``), or Nones
    when ctypes cannot open it. On the H200 machine a ctypes launch cost
    5.3 us against 4.1 us for cuda-bindings' (benchmarks/launch_overhead.py),
    so cuda-bindings' is the default."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None, None
    u = ctypes.c_uint
    launch = lib.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p, u, u, u, u, u, u, u, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p]
    launch.restype = ctypes.c_int
    graph_launch = lib.cuGraphLaunch
    graph_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    graph_launch.restype = ctypes.c_int
    return launch, graph_launch


class _Graph:
    """An instantiated CUDA graph; destroyed with its last reference."""

    def __init__(self, device: CudaDevice, graph: Any, exec_: Any) -> None:
        self._device, self.graph, self.exec = device, graph, exec_
        self.handle = int(exec_)

    def __del__(self) -> None:
        try:
            self._device._drv.cuGraphExecDestroy(self.exec)
            self._device._drv.cuGraphDestroy(self.graph)
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


# Every CudaDevice of the process: with more than one, each makes its context
# current before it launches, allocates or loads (activate()).
_OPENED: list[CudaDevice] = []


class CudaDevice:
    """The primary context of one CUDA device, and the calls tcc needs on it."""

    vendor = "nvidia"

    def __init__(self, arch: str, device: int = 0) -> None:
        self.arch = arch
        drv = _import_driver(arch)
        self._drv = drv
        try:
            (err,) = drv.cuInit(0)
        except Exception as exc:  # cuda-pathfinder raises its own DynamicLibNotFoundError
            raise RuntimeUnavailableError(
                f"CUDA driver library libcuda.so not found: tcc needs an NVIDIA driver "
                f"to launch {arch} kernels ({exc})"
            ) from exc
        if err == drv.CUresult.CUDA_ERROR_NO_DEVICE:
            raise RuntimeUnavailableError(f"no CUDA device found: cannot launch {arch} kernels")
        self._check(err, "cuInit")
        self._dev = self._call("cuDeviceGet", device)
        self._ctx = self._call("cuDevicePrimaryCtxRetain", self._dev)
        self._call("cuCtxSetCurrent", self._ctx)
        _OPENED.append(self)
        self._tensor_maps: dict[tuple[Any, ...], bytes] = {}
        self._capability: tuple[int, int] | None = None
        self.loaded = ""  # what the last load_kernel loaded (cubin or ptx)
        self.launch_mode = "bindings"
        self._ctypes_launch = self._ctypes_graph_launch = None
        self._entry_point: tuple[int, Callable[[int], None]] | None = None
        if os.environ.get("TCC_LAUNCH") == "ctypes":
            self.set_launch_mode("ctypes")

    # -- error handling --------------------------------------------------
    def _check(self, err: Any, what: str) -> None:
        if err != self._drv.CUresult.CUDA_SUCCESS:
            _, name = self._drv.cuGetErrorName(err)
            raise LaunchError(f"{what} failed: {name.decode() if name else err}")

    def _call(self, fn: str, *args: Any) -> Any:
        err, *values = getattr(self._drv, fn)(*args)
        self._check(err, fn)
        return values[0] if len(values) == 1 else tuple(values)

    # -- modules and launch ------------------------------------------------
    def load_module(self, image: bytes) -> Any:
        # PTX must be NUL-terminated for the driver's JIT.
        if not image.endswith(b"\0"):
            image += b"\0"
        return self._call("cuModuleLoadData", image)

    def activate(self) -> None:
        """Make this GPU's context current, where the process drives several
        (one GPU: its context stays current from the start)."""
        if len(_OPENED) > 1:
            self._call("cuCtxSetCurrent", self._ctx)

    @property
    def compute_capability(self) -> tuple[int, int]:
        if self._capability is None:
            attr = self._drv.CUdevice_attribute
            self._capability = (
                self._call("cuDeviceGetAttribute",
                           attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self._dev),
                self._call("cuDeviceGetAttribute",
                           attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self._dev))
        return self._capability

    def load_kernel(self, ptx: str, cubin: bytes | None) -> Any:
        """The module of one kernel: its cubin where this GPU is of the
        architecture it was assembled for (no JIT), else its PTX. A cubin
        the driver refuses (e.g. from a newer ptxas than the driver) falls
        back to the PTX; ``self.loaded`` records which was loaded."""
        major, minor = self.compute_capability
        if cubin is not None and self.arch == f"sm_{major}{minor}":
            try:
                module = self.load_module(cubin)
            except LaunchError as exc:
                self.loaded = f"ptx (the cubin was refused: {exc})"
            else:
                self.loaded = "cubin"
                return module
        else:
            self.loaded = "ptx"
        return self.load_module(ptx.encode())

    def get_function(self, module: Any, name: str) -> Any:
        return self._call("cuModuleGetFunction", module, name.encode())

    def allow_dynamic_shared(self, function: Any, nbytes: int) -> None:
        # Kernels opt in to more than 48 KiB of dynamic shared memory.
        attribute = self._drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._call("cuFuncSetAttribute", function, attribute, nbytes)

    def set_launch_mode(self, mode: str) -> None:
        """How launches reach the driver: "bindings" (cuda-bindings' calls, the
        default) or "ctypes" (the driver library's symbols through ctypes)."""
        if mode == "ctypes":
            self._ctypes_launch, self._ctypes_graph_launch = _ctypes_entry_points()
            if self._ctypes_launch is None:
                raise RuntimeUnavailableError("ctypes cannot open libcuda.so.1")
        elif mode != "bindings":
            raise ValueError(f"launch mode must be 'bindings' or 'ctypes', got {mode!r}")
        self.launch_mode = mode

    def raw_launcher(self) -> Any:
        """``launch(function, gx, gy, gz, bx, by, bz, shared_bytes, stream,
        params_address)`` with plain ints, checking the result: what launch
        plans call per launch."""
        ok = self._drv.CUresult.CUDA_SUCCESS
        check = self._check
        if self.launch_mode == "ctypes":
            raw = self._ctypes_launch
            result = self._drv.CUresult

            def launch_ctypes(function: Any, gx: int, gy: int, gz: int, bx: int, by: int,
                              bz: int, shared: int, stream: int, params: int) -> None:
                err = raw(int(function), gx, gy, gz, bx, by, bz, shared, stream, params, None)
                if err:
                    check(result(err), "cuLaunchKernel")

            return launch_ctypes
        cu_launch = self._drv.cuLaunchKernel

        def launch_bindings(function: Any, gx: int, gy: int, gz: int, bx: int, by: int,
                            bz: int, shared: int, stream: int, params: int) -> None:
            (err,) = cu_launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, 0)
            if err != ok:
                check(err, "cuLaunchKernel")

        return launch_bindings

    def launch_entry_point(self) -> tuple[int, Callable[[int], None]] | None:
        """The driver's ``cuLaunchKernel`` as a C function address and what
        raises its error code as a LaunchError: the C dispatcher of launch
        plans (tcc.runtime._fastcall) calls it directly. None when ctypes
        cannot open the driver library."""
        if self._entry_point is None:
            launch, _ = _ctypes_entry_points()
            if launch is None:
                return None
            result, check = self._drv.CUresult, self._check

            def raise_error(err: int) -> None:
                check(result(err), "cuLaunchKernel")

            self._entry_point = (int(ctypes.cast(launch, ctypes.c_void_p).value or 0),
                                 raise_error)
        return self._entry_point

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem_bytes: int,
        stream: int,
        params_address: int,
    ) -> None:
        self.raw_launcher()(function, *grid, *block, shared_mem_bytes, stream, params_address)

    # -- graphs --------------------------------------------------------------
    def capture_graph(self, launches: Any) -> Any:
        """``launches(stream)`` recorded on a private stream as one CUDA graph,
        instantiated; returns what :meth:`replay_graph` takes."""
        drv = self._drv
        stream = self._call("cuStreamCreate", drv.CUstream_flags.CU_STREAM_NON_BLOCKING.value)
        try:
            self._call("cuStreamBeginCapture", stream,
                       drv.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            try:
                launches(int(stream))
            finally:
                graph = self._call("cuStreamEndCapture", stream)
            exec_ = self._call("cuGraphInstantiate", graph, 0)
        finally:
            self._call("cuStreamDestroy", stream)
        return _Graph(self, graph, exec_)

    def replay_graph(self, graph: Any, stream: int) -> None:
        raw = self._ctypes_graph_launch
        if raw is not None:
            err = raw(graph.handle, stream)
            if err:
                self._check(self._drv.CUresult(err), "cuGraphLaunch")
            return
        (err,) = self._drv.cuGraphLaunch(graph.exec, stream)
        if err != self._drv.CUresult.CUDA_SUCCESS:
            self._check(err, "cuGraphLaunch")

    # -- TMA tensor maps -----------------------------------------------------
    def tensor_map(self, ptr: int, dtype: str, shape: Sequence[int], box: Sequence[int],
                   swizzle: int) -> bytes:
        """The 128-byte CUtensorMap of a C-contiguous ``shape`` array of
        ``dtype`` at ``ptr``, read in ``box`` boxes (outermost dim first) with a
        ``swizzle``-byte swizzle and zero fill outside; cached per argument."""
        key = (ptr, dtype, tuple(shape), tuple(box), swizzle)
        cached = self._tensor_maps.get(key)
        if cached is not None:
            return cached
        drv = self._drv
        if dtype not in _TMA_DTYPES:
            raise ArgumentError(f"TMA tensor map: dtype {dtype} is not f16, bf16 or f32")
        name, itemsize = _TMA_DTYPES[dtype]
        if ptr % 16:
            raise ArgumentError(
                f"TMA tensor map: the {dtype} array at {ptr:#x} is not 16-byte aligned "
                "(cuTensorMapEncodeTiled needs it)")
        dims = [int(d) for d in reversed(shape)]  # innermost first
        strides, step = [], itemsize
        for d in dims[:-1]:
            step *= d
            strides.append(step)
        swizzles = {128: "CU_TENSOR_MAP_SWIZZLE_128B", 64: "CU_TENSOR_MAP_SWIZZLE_64B",
                    32: "CU_TENSOR_MAP_SWIZZLE_32B", 0: "CU_TENSOR_MAP_SWIZZLE_NONE"}
        tmap = self._call(
            "cuTensorMapEncodeTiled",
            getattr(drv.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{name}"),
            len(dims), ptr,
            [drv.cuuint64_t(d) for d in dims],
            [drv.cuuint64_t(s) for s in strides],
            [drv.cuuint32_t(int(b)) for b in reversed(box)],
            [drv.cuuint32_t(1)] * len(dims),
            drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            getattr(drv.CUtensorMapSwizzle, swizzles[swizzle]),
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
        raw = ctypes.string_at(int(tmap.getPtr()), 128)
        self._tensor_maps[key] = raw
        return raw

    # -- memory ------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        return int(self._call("cuMemAlloc", max(nbytes, 1)))

    def free(self, ptr: int) -> None:
        self._call("cuMemFree", ptr)

    def copy_htod(self, dst: int, src_address: int, nbytes: int) -> None:
        self._call("cuMemcpyHtoD", dst, src_address, nbytes)

    def copy_dtoh(self, dst_address: int, src: int, nbytes: int) -> None:
        self._call("cuMemcpyDtoH", dst_address, src, nbytes)

    def synchronize(self, stream: int = 0) -> None:
        self._call("cuStreamSynchronize", self._drv.CUstream(stream))

    # -- timing ------------------------------------------------------------
    def time_ms(self, fn: Any, stream: int = 0) -> float:
        """Run ``fn()`` between two events on ``stream``; return elapsed ms."""
        start = self._call("cuEventCreate", 0)
        end = self._call("cuEventCreate", 0)
        try:
            self._call("cuEventRecord", start, self._drv.CUstream(stream))
            fn()
            self._call("cuEventRecord", end, self._drv.CUstream(stream))
            self._call("cuEventSynchronize", end)
            return float(self._call("cuEventElapsedTime", start, end))
        finally:
            self._call("cuEventDestroy", start)
            self._call("cuEventDestroy", end)
