"""Run a :class:`ProgramArtifact`: its launches in order on one stream. MLIR-free.

Inputs are validated once for the whole program; intermediate buffers are
allocated per call from the framework of the arguments (torch's caching
allocator, cupy's pool) or from the driver for numpy arguments, one
allocation per buffer slot of the plan (slots are reused by values whose
lifetimes do not overlap). numpy inputs are copied to the device once and
outputs back once, whatever the number of kernels.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from tcc.runtime.errors import ArgumentError
from tcc.runtime.fastpath import CapturedProgram, FastLauncher, LaunchPlan
from tcc.runtime.launcher import (
    CompiledKernel,
    Device,
    TensorInfo,
    _current_stream,
    activate,
    bind_arguments,
    bind_shapes,
    compute_grid,
    describe_args,
    device_of,
    merge_keywords,
    pack_args,
)
from tcc.runtime.program import HostValue, ProgramArtifact, bound_shape, buffer_sizes


def _is_direct(program: ProgramArtifact) -> bool:
    """Whether the program is one kernel launched on the program's own
    arguments, in their order (then the kernel's launcher is the program's)."""
    if len(program.steps) != 1:
        return False
    args = [program.values[a] for a in program.steps[0].args]
    kinds = [(v.kind, v.index) for v in args]
    n_in = len(program.inputs)
    expected = [("input", i) for i in range(n_in)]
    expected += [("output", i) for i in range(len(program.args) - n_in)]
    return kinds == expected and list(program.results) == list(
        range(n_in, len(program.args)))


def _reshape(obj: Any, shape: tuple[int, ...]) -> Any:
    if tuple(getattr(obj, "shape", ())) == shape:
        return obj
    if hasattr(obj, "view") and type(obj).__module__.split(".")[0] == "torch":
        return obj.view(shape)
    return obj.reshape(shape)


def _scratch_like(nbytes: int, like: Any, zero: bool = False) -> tuple[Any, int] | None:
    """A device buffer of ``nbytes`` (zero-filled with ``zero``) from the
    framework of ``like``."""
    module = type(like).__module__.split(".")[0] if like is not None else ""
    if module == "torch" and getattr(like, "is_cuda", False):
        import torch

        buf = (torch.zeros if zero else torch.empty)(max(nbytes, 1), dtype=torch.uint8,
                                                     device=like.device)
        return buf, int(buf.data_ptr())
    if module == "cupy":
        import cupy

        buf = (cupy.zeros if zero else cupy.empty)(max(nbytes, 1), dtype=cupy.uint8)
        return buf, int(buf.data.ptr)
    return None


class CompiledProgram:
    """A callable program: ``program(*inputs, out=None, stream=None)``.

    Like :class:`CompiledKernel`, with the program's inputs and outputs:
    pass the inputs (or inputs and outputs) positionally; outputs are
    allocated unless given through ``out=``. Returns the outputs (one value,
    or a tuple). A result that is an input, or a reshape of one, is returned
    as that input (a view of it).
    """

    def __init__(self, artifact: ProgramArtifact, device: Device | None = None) -> None:
        self.artifact = artifact
        self._device = device
        self._kernels = [CompiledKernel(k, device) for k in artifact.kernels]
        self._direct = _is_direct(artifact)
        self._fast = (self._kernels[0]._fast_launcher() if self._direct
                      else FastLauncher(self._plan, self._general))

    @property
    def device(self) -> Device:
        return self.device_for(0)

    def device_for(self, index: int | None) -> Device:
        """The backend of GPU ``index`` (None: host arrays only, GPU 0)."""
        return self._device if self._device is not None else self._kernels[0].device_for(index)

    def __call__(self, *args: Any, out: Any = None, stream: int | None = None,
                 **inputs: Any) -> Any:
        """Run the program: inputs positionally or by name (``x=...``);
        outputs allocated unless ``out=``."""
        if inputs:
            args = merge_keywords(self.artifact, args, inputs)
        return self._fast.dispatch(args, out, stream)

    def capture(self, *args: Any, out: Any = None) -> CapturedProgram:
        """Record the program's launches on these arguments (CUDA torch
        tensors) as one CUDA graph; ``.replay()`` runs them again with one
        driver call, on the same memory."""
        fast = self._fast
        return CapturedProgram(fast.plan(args, out), args, out)

    def plan_for(self, args: Sequence[Any], out: Any = None) -> LaunchPlan | None:
        """The fast-path plan of a call like this one (None: it takes the
        general path), built and validated if it is new."""
        fast = self._fast
        try:
            return fast.plan(args, out)
        except ArgumentError:
            return None

    def _plan(self, args: Sequence[Any], out: Any) -> LaunchPlan | None:
        """The launch plan of a call (fast path), after validating it fully."""
        prog = self.artifact
        full = bind_arguments(prog, args, out)
        infos = describe_args(prog, full)  # type: ignore[arg-type]
        symbols = bind_shapes(prog, full, infos)  # type: ignore[arg-type]
        n_args, n_in = len(prog.args), len(prog.inputs)

        def source(value: int) -> int:
            while prog.values[value].kind == "view":
                value = prog.values[value].index
            v = prog.values[value]
            return {"input": v.index, "output": n_in + v.index,
                    "temp": n_args + v.index}[v.kind]

        results = []
        for r in prog.results:
            src = source(r)
            if src >= n_args:  # a result in an intermediate: the general path says so
                return None
            results.append((src, bound_shape(prog.values[r].shape, symbols)))
        device_index = device_of(prog.name, prog.args, infos)  # type: ignore[arg-type]
        if device_index is None:
            return None
        steps = []
        for step in prog.steps:
            kernel = self._kernels[step.kernel]
            steps.append((kernel.artifact, kernel._load(device_index),
                          [source(a) for a in step.args],
                          [bound_shape(prog.values[a].shape, symbols) for a in step.args]))
        shapes = [info.shape if info is not None else None for info in infos]
        return LaunchPlan(prog.name, self.device_for(device_index), prog.args, shapes, steps,
                          buffer_sizes(prog.buffers, symbols),
                          results, device_index, prog.zeroed)

    def _general(self, args: Sequence[Any], out: Any = None, stream: int | None = None) -> Any:
        """Every kind of argument (numpy arrays copied in and out), validated
        on each call."""
        prog = self.artifact
        full = bind_arguments(prog, args, out)
        infos = describe_args(prog, full)  # type: ignore[arg-type]
        symbols = bind_shapes(prog, full, infos)  # type: ignore[arg-type]
        index = device_of(prog.name, prog.args, infos)  # type: ignore[arg-type]
        device = self.device_for(index)
        activate(device)
        stream = _current_stream(full) if stream is None else stream
        n_in = len(prog.inputs)
        like = next((v for v, i in zip(full, infos, strict=True) if i is not None and i.on_device),
                    None)
        owned: list[int] = []  # driver allocations freed at the end
        keep: list[Any] = []  # framework buffers alive until the launches are queued
        staged: list[tuple[int, TensorInfo]] = []  # numpy outputs copied back
        try:
            arg_ptrs: list[int] = []
            for spec, info in zip(prog.args, infos, strict=True):
                assert info is not None
                if info.on_device:
                    arg_ptrs.append(info.ptr)
                    continue
                nbytes = int(info.obj.nbytes)
                dptr = device.alloc(max(nbytes, 1))
                owned.append(dptr)
                if spec.role == "input":
                    device.copy_htod(dptr, info.ptr, nbytes)
                else:
                    staged.append((dptr, info))
                arg_ptrs.append(dptr)
            slot_ptrs: list[int] = []
            for slot, nbytes in enumerate(buffer_sizes(prog.buffers, symbols)):
                zero = slot in prog.zeroed
                scratch = _scratch_like(nbytes, like, zero)
                if scratch is None:
                    ptr = device.alloc(max(nbytes, 1))
                    owned.append(ptr)
                    if zero:  # a kernel's workspace counters start at zero
                        zeros = (ctypes.c_char * max(nbytes, 1))()
                        device.copy_htod(ptr, ctypes.addressof(zeros), max(nbytes, 1))
                else:
                    keep.append(scratch[0])
                    ptr = scratch[1]
                slot_ptrs.append(ptr)
            ptrs = self._value_pointers(arg_ptrs, slot_ptrs, n_in)
            for step in prog.steps:
                kernel = self._kernels[step.kernel]
                art = kernel.artifact
                values = [prog.values[a] for a in step.args]
                step_infos: list[TensorInfo | None] = [
                    TensorInfo(ptrs[a], bound_shape(v.shape, symbols), "", True, True, None)
                    for a, v in zip(step.args, values, strict=True)
                ]
                grid = compute_grid(art, [None] * len(values), symbols, step_infos)
                packed = pack_args(art, [ptrs[a] for a in step.args], [None] * len(values),
                                   step_infos, device)
                device.launch(kernel._load(index), grid, art.launch.block,
                              art.launch.shared_mem_bytes, stream, packed.address)
            if staged or owned:
                device.synchronize(stream)
            for dptr, info in staged:
                device.copy_dtoh(info.ptr, dptr, int(info.obj.nbytes))
        finally:
            for ptr in owned:
                device.free(ptr)
            del keep
        results = [self._result(full, symbols, r, n_in) for r in prog.results]
        return results[0] if len(results) == 1 else tuple(results)

    def _value_pointers(self, arg_ptrs: Sequence[int], slot_ptrs: Sequence[int],
                        n_in: int) -> list[int]:
        ptrs: list[int] = []
        for value in self.artifact.values:
            if value.kind == "input":
                ptrs.append(arg_ptrs[value.index])
            elif value.kind == "output":
                ptrs.append(arg_ptrs[n_in + value.index])
            elif value.kind == "temp":
                ptrs.append(slot_ptrs[value.index])
            else:
                ptrs.append(ptrs[value.index])
        return ptrs

    def _result(self, full: Sequence[Any], symbols: dict[str, int], value_id: int,
                n_in: int) -> Any:
        value: HostValue = self.artifact.values[value_id]
        shape = bound_shape(value.shape, symbols)
        while value.kind == "view":
            value = self.artifact.values[value.index]
        if value.kind == "input":
            return _reshape(full[value.index], shape)
        if value.kind == "output":
            return _reshape(full[n_in + value.index], shape)
        raise ArgumentError(f"{self.artifact.name}: result {value_id} lives in an "
                            "intermediate buffer")

