"""HIP module-API launcher backend (hip-python's ``hip.hip``).

Imported lazily by the launcher. Loads an hsaco code object; AMDGCN assembly
alone is not loadable, so an artifact without a binary is rejected here.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from tcc.runtime.errors import ArgumentError, LaunchError, RuntimeUnavailableError


def _import_hip(arch: str) -> Any:
    try:
        from hip import hip
    except ImportError as exc:
        raise RuntimeUnavailableError(
            f"hip-python is not installed: tcc needs it to launch {arch} kernels "
            "(pip install 'tcc[rocm]')"
        ) from exc
    return hip


# Every HipDevice of the process: with more than one, each makes its device
# current (hipSetDevice) before it launches, allocates or loads (activate()).
_OPENED: list[HipDevice] = []


class HipDevice:
    """One HIP device and the calls tcc needs on it."""

    vendor = "amd"

    def __init__(self, arch: str, device: int = 0) -> None:
        self.arch = arch
        hip = _import_hip(arch)
        self._hip = hip
        try:
            (err,) = hip.hipInit(0)
        except Exception as exc:  # hip-python raises RuntimeError when dlopen fails
            raise RuntimeUnavailableError(
                f"HIP runtime library libamdhip64.so not found: tcc needs ROCm (HIP runtime) "
                f"and an AMD GPU driver to launch {arch} kernels ({exc})"
            ) from exc
        if err != hip.hipError_t.hipSuccess:
            raise RuntimeUnavailableError(f"hipInit failed ({err}): no usable AMD GPU for {arch}")
        self._device = device
        self._entry_point: tuple[int, Callable[[int], None]] | None = None
        self._call("hipSetDevice", device)
        _OPENED.append(self)

    def activate(self) -> None:
        """Make this GPU current, where the process drives several (one GPU:
        it stays current from the start)."""
        if len(_OPENED) > 1:
            self._call("hipSetDevice", self._device)

    def _call(self, fn: str, *args: Any) -> Any:
        err, *values = getattr(self._hip, fn)(*args)
        if err != self._hip.hipError_t.hipSuccess:
            raise LaunchError(f"{fn} failed: {err}")
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def load_module(self, image: bytes) -> Any:
        return self._call("hipModuleLoadData", image)

    def load_kernel(self, asm: str, binary: bytes | None) -> Any:
        """The module of one kernel: its hsaco (AMDGCN text is not loadable)."""
        if binary is None:
            raise ArgumentError("an AMD kernel needs its hsaco code object")
        return self.load_module(binary)

    def get_function(self, module: Any, name: str) -> Any:
        return self._call("hipModuleGetFunction", module, name.encode())

    def allow_dynamic_shared(self, function: Any, nbytes: int) -> None:
        # Module kernels may use dynamic LDS up to the CU's size (64 KiB on
        # CDNA2/3) without an opt-in; the compiler never asks for more.
        del function, nbytes

    def launch_entry_point(self) -> tuple[int, Callable[[int], None]] | None:
        """``hipModuleLaunchKernel`` (cuLaunchKernel's C signature) as a C
        function address and what raises its error code as a LaunchError,
        for the C dispatcher of launch plans; None when ctypes cannot open
        libamdhip64.so."""
        if self._entry_point is None:
            try:
                lib = ctypes.CDLL("libamdhip64.so")
            except OSError:
                return None
            hip = self._hip

            def raise_error(err: int) -> None:
                raise LaunchError(f"hipModuleLaunchKernel failed: {hip.hipError_t(err)}")

            self._entry_point = (
                int(ctypes.cast(lib.hipModuleLaunchKernel, ctypes.c_void_p).value or 0),
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
        self._call(
            "hipModuleLaunchKernel", function, *grid, *block, shared_mem_bytes,
            stream or None, params_address, None,
        )

    def alloc(self, nbytes: int) -> int:
        return int(self._call("hipMalloc", max(nbytes, 1)))

    def free(self, ptr: int) -> None:
        self._call("hipFree", ptr)

    def copy_htod(self, dst: int, src_address: int, nbytes: int) -> None:
        self._call("hipMemcpyHtoD", dst, src_address, nbytes)

    def copy_dtoh(self, dst_address: int, src: int, nbytes: int) -> None:
        self._call("hipMemcpyDtoH", dst_address, src, nbytes)

    def synchronize(self, stream: int = 0) -> None:
        self._call("hipStreamSynchronize", stream or None)

    def time_ms(self, fn: Any, stream: int = 0) -> float:
        start = self._call("hipEventCreate")
        end = self._call("hipEventCreate")
        try:
            self._call("hipEventRecord", start, stream or None)
            fn()
            self._call("hipEventRecord", end, stream or None)
            self._call("hipEventSynchronize", end)
            return float(self._call("hipEventElapsedTime", start, end))
        finally:
            self._call("hipEventDestroy", start)
            self._call("hipEventDestroy", end)
