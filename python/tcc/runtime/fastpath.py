"""The launch fast path: one prebuilt launch plan per argument signature. MLIR-free.

A call's *signature* is, per argument, what fixes everything the launcher
validates and computes: for a torch CUDA tensor its shape, dtype and device;
for a scalar its Python type. The first call with a signature goes through
the full checks (:func:`~tcc.runtime.launcher.bind_shapes`: dtypes, shapes,
symbols) and builds a :class:`LaunchPlan`: per kernel launch the function,
the grid (evaluated once), block, dynamic shared bytes and a
:class:`~tcc.runtime.launcher.ParamBlock` whose pointer fields are the only
thing written per call; the outputs' shapes and dtypes; the intermediate
buffers. A later call with the same signature checks only what the signature
does not fix (contiguity, pointer alignment, scalar ranges, aliasing of
outputs passed in) and launches. Anything else (numpy or cupy arrays, CPU
tensors) takes the general path.

Intermediate buffers of a plan are allocated once per stream and kept with
the plan: kernels on one stream run in order, so the next call on that
stream may reuse them.

:class:`CapturedProgram` records a plan's launches for fixed arguments as
one CUDA graph and replays them with one driver call.

With the C extension ``tcc.runtime._fastcall`` (built with the package), a
plan also runs without the interpreter: :meth:`LaunchPlan.native` describes it
as plain tuples (per call value its type, shape, dtype and device; the
parameter fields' addresses; the driver's launch entry point), and the
callable's dispatcher matches later calls against those plans and launches
from C. A call it cannot match comes back here; a call a plan refuses goes to
the general path. ``TCC_NATIVE_LAUNCH=0`` keeps every call in Python.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from tcc.runtime.artifact import ArgSpec, KernelArtifact
from tcc.runtime.errors import ArgumentError
from tcc.runtime.launcher import (
    _POINTER_ALIGN,
    DTYPES,
    TORCH_DTYPES,
    Device,
    ParamBlock,
    TensorInfo,
    _check_scalar,
    _half_bits,
    compute_grid,
)

try:
    from tcc.runtime import _fastcall
except ImportError:  # a source tree without the build: plans run in Python
    _fastcall = None

# Scalar field codes of the C dispatcher (FastCall.cpp's ScalarCode).
_SCALAR_CODES = {"i1": 0, "i8": 1, "i16": 2, "i32": 3, "i64": 4, "index": 4, "f32": 5, "f64": 6,
                 "f16": 7, "bf16": 7}


def native_available() -> bool:
    """Whether calls can run from C (the extension is built and
    ``TCC_NATIVE_LAUNCH`` is not ``0``)."""
    return _fastcall is not None and os.environ.get("TCC_NATIVE_LAUNCH", "1") != "0"


# Per argument type: True when it is a torch tensor (duck-typed as the
# launcher's describe() does), cached so a call classifies by one lookup.
_TORCH_TYPES: dict[type, bool] = {}
_SCALAR_TYPES = (int, float, bool)


def _is_torch_type(t: type) -> bool:
    known = _TORCH_TYPES.get(t)
    if known is None:
        known = all(hasattr(t, a) for a in ("data_ptr", "is_contiguous", "get_device", "dtype"))
        _TORCH_TYPES[t] = known
    return known


def signature(values: Sequence[Any]) -> tuple[Any, ...] | None:
    """The fast-path key of ``values``, or None when some value takes the
    general path (not a CUDA torch tensor nor a Python scalar)."""
    key = []
    append = key.append
    for v in values:
        t = type(v)
        known = _TORCH_TYPES.get(t)
        if known is None:
            known = _is_torch_type(t)
        if known:
            device = v.get_device()
            if device < 0:
                return None
            append((v.shape, v.dtype, device))
        elif t in _SCALAR_TYPES:
            append(t)
        else:
            return None
    return tuple(key)


def _raw_stream_getter() -> Callable[[int], int] | None:
    try:
        import torch
    except ImportError:  # torch-like tensors without torch: the null stream
        return None
    getter = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if getter is not None:
        return getter
    return lambda index: int(torch.cuda.current_stream(index).cuda_stream)


class _Step:
    """One kernel launch of a plan: its parameter block, and where each of its
    pointer and scalar fields reads its value (an index into the plan's
    pointer list, or the argument index of a scalar)."""

    __slots__ = ("address", "artifact", "function", "grid", "launch_block", "params",
                 "pointers", "scalars", "shapes", "shared", "tmaps")

    def __init__(self, function: Any, artifact: KernelArtifact,
                 shapes: Sequence[tuple[int, ...] | None], sources: Sequence[int]) -> None:
        self.artifact = artifact
        self.function = function
        self.shapes = shapes
        self.launch_block = artifact.launch.block
        self.shared = artifact.launch.shared_mem_bytes
        self.params = ParamBlock(artifact, shapes)
        self.address = self.params.address
        self.pointers = [(field, sources[i]) for field, i in self.params.pointers]
        self.tmaps = [(field, sources[i], dtype, shape, box, swizzle)
                      for field, i, dtype, shape, box, swizzle in self.params.tensor_maps]
        self.scalars = [(field, sources[i], dtype) for field, i, dtype in self.params.scalars]
        # A grid rule that reads a scalar argument is evaluated per call.
        names = {artifact.args[i].name for _, i, _ in self.params.scalars}
        reads_scalars = any(re.search(rf"\b{re.escape(n)}\b", str(e))
                            for e in artifact.launch.grid for n in names)
        self.grid: tuple[int, int, int] | None = None if reads_scalars else self.grid_for(())

    def grid_for(self, values: Sequence[Any]) -> tuple[int, int, int]:
        infos = [TensorInfo(0, s, "", True, True, None) if s is not None else None
                 for s in self.shapes]
        scalars = [values[src] if values else 0 for _, src, _ in self.scalars]
        it = iter(scalars)
        vals = [None if s is not None else next(it) for s in self.shapes]
        return compute_grid(self.artifact, vals, _symbols(self.artifact, self.shapes), infos)


class LaunchPlan:
    """Everything a call with one signature needs, computed once.

    ``specs``: the callable's arguments (the artifact's ``args``);
    ``steps``: per launch (kernel artifact, its loaded function, the value
    index of each kernel argument, the kernel arguments' shapes), where
    values ``0..len(specs)-1`` are the arguments and higher ones the
    intermediate buffer slots of ``buffers`` bytes; ``results``: per result,
    the argument index and the shape it is returned with (a view when it
    differs); ``torch_device``: the CUDA device index of the tensors.
    """

    def __init__(self, name: str, device: Device, specs: Sequence[ArgSpec],
                 shapes: Sequence[tuple[int, ...] | None],
                 steps: Sequence[tuple[KernelArtifact, Any, Sequence[int],
                                       Sequence[tuple[int, ...] | None]]],
                 buffers: Sequence[int], results: Sequence[tuple[int, tuple[int, ...]]],
                 torch_device: int, zeroed: Sequence[int] = ()) -> None:
        import torch

        self.name = name
        self.device = device
        self.specs = tuple(specs)
        self.n_args = len(specs)
        self.outputs = [i for i, s in enumerate(specs) if s.role == "output"]
        self.inputs = [i for i, s in enumerate(specs) if s.role != "output"]
        self.array_inputs = [i for i in self.inputs if specs[i].kind == "pointer"]
        self.scalar_inputs = [i for i in self.inputs if specs[i].kind == "scalar"]
        self.buffers = tuple(buffers)
        self.zeroed = frozenset(zeroed)
        self.results = tuple(results)
        self.shapes = tuple(shapes)
        self.torch_device = torch_device
        self._torch = torch
        self._device_obj = torch.device("cuda", torch_device)
        # Per output: its shape and dtype, and an array input of the same
        # shape and dtype if there is one (torch.empty_like of it is about
        # half the host cost of torch.empty's argument parsing; the inputs
        # the fast path takes are contiguous, so the output is too).
        self._out_alloc = [
            (i, tuple(shapes[i] or ()), getattr(torch, TORCH_DTYPES[specs[i].dtype]),
             next((j for j in self.array_inputs if shapes[j] == shapes[i]
                   and specs[j].dtype == specs[i].dtype), None))
            for i in self.outputs]
        self._arrays = self.array_inputs + self.outputs
        self._nbytes = {i: math.prod(shapes[i] or ()) * DTYPES[specs[i].dtype][1]
                        for i in self.array_inputs + self.outputs}
        self._stream_of = _raw_stream_getter()
        self._scratch: dict[int, tuple[list[Any], list[int]]] = {}
        self.steps = [_Step(function, artifact, kshapes, sources)
                      for artifact, function, sources, kshapes in steps]
        raw = getattr(device, "raw_launcher", None)
        if raw is not None:
            self._launch = raw()
        else:  # a device with only the protocol's launch()
            def launch(function: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
                       shared: int, stream: int, params: int) -> None:
                device.launch(function, (gx, gy, gz), (bx, by, bz), shared, stream, params)

            self._launch = launch
        self._tensor_map = getattr(device, "tensor_map", None)
        self._activate = getattr(device, "activate", None)

    def native(self, given: int, out_none: bool, values: Sequence[Any]) -> tuple[Any, ...] | None:
        """This plan as the C dispatcher's spec for calls whose values (the
        ``given`` positional arguments, then the outputs passed in ``out``)
        have the types of ``values``; None when it needs what only Python
        does (a device without a launch entry point, a function handle that
        is not an address)."""
        entry = getattr(self.device, "launch_entry_point", None)
        point = entry() if entry is not None else None
        if point is None:
            return None
        address, check = point
        try:
            functions = [int(step.function) for step in self.steps]
        except (TypeError, ValueError):
            return None
        n_args = self.n_args
        full_of = (list(range(n_args)) if given == n_args
                   else [*self.inputs[:given], *self.outputs])
        slots = []
        for k, v in enumerate(values):
            i = full_of[k]
            if self.specs[i].kind == "pointer":
                slots.append((type(v), i, True, v.dtype, int(v.get_device()), tuple(v.shape)))
            else:
                slots.append((type(v), i, False, None, -1, None))
        nbytes = tuple(self._nbytes.get(i, 0) for i in range(n_args))
        scalars = tuple((i, _SCALAR_CODES[self.specs[i].dtype]) for i in self.scalar_inputs)
        allocs: tuple[tuple[int, int, Any], ...] = ()
        if out_none and given < n_args:
            torch = self._torch
            allocs = tuple(
                (i, like, torch.empty_like) if like is not None
                else (i, -1, functools.partial(torch.empty, shape, dtype=dtype,
                                               device=self._device_obj))
                for i, shape, dtype, like in self._out_alloc)
        steps = []
        for step, function in zip(self.steps, functions, strict=True):
            fields = tuple(
                (ctypes.addressof(field), src, _SCALAR_CODES[dtype],
                 functools.partial(_half_bits, dtype) if dtype in ("f16", "bf16") else None)
                for field, src, dtype in step.scalars)
            maps = tuple(
                (ctypes.addressof(field), src,
                 functools.partial(_map_at, self._tensor_map, dtype, shape, box, swizzle))
                for field, src, dtype, shape, box, swizzle in step.tmaps)
            steps.append((function, step.grid or (1, 1, 1),
                          None if step.grid is not None else step.grid_for,
                          tuple(step.launch_block), step.shared, step.address,
                          tuple((ctypes.addressof(field), src) for field, src in step.pointers),
                          fields, maps))
        results = tuple((i, None if self.shapes[i] == shape else shape)
                        for i, shape in self.results)
        caller_outputs = not out_none or given == n_args
        return (given, out_none, n_args, caller_outputs, tuple(slots),
                tuple(self.array_inputs), tuple(self.outputs), nbytes, scalars, allocs,
                len(self.buffers), self.scratch, self._stream_of, self.torch_device,
                self._activate, address, check, tuple(steps), results, self)

    # -- per call ----------------------------------------------------------
    def scratch(self, stream: int) -> list[int]:
        """The intermediate buffers' pointers for launches on ``stream``."""
        cached = self._scratch.get(stream)
        if cached is None:
            bufs = self.new_buffers()
            cached = (bufs, [int(b.data_ptr()) for b in bufs])
            self._scratch[stream] = cached
        return cached[1]

    def new_buffers(self) -> list[Any]:
        """Fresh intermediate buffers; the zero-filled slots (kernels'
        workspace counters) zeroed, once: the kernels leave them so."""
        torch = self._torch
        return [(torch.zeros if i in self.zeroed else torch.empty)(
                    max(n, 1), dtype=torch.uint8, device=self._device_obj)
                for i, n in enumerate(self.buffers)]

    def bind(self, args: Sequence[Any], out: Any) -> list[Any]:
        """The full argument list: ``args`` (the inputs, or every argument)
        with the outputs taken from ``out=`` or allocated."""
        if len(args) == self.n_args:
            return list(args)
        full: list[Any] = [None] * self.n_args
        for i, v in zip(self.inputs, args, strict=True):
            full[i] = v
        if out is None:
            empty, empty_like = self._torch.empty, self._torch.empty_like
            for i, shape, dtype, like in self._out_alloc:
                full[i] = (empty_like(full[like]) if like is not None
                           else empty(shape, dtype=dtype, device=self._device_obj))
        else:
            given = out if isinstance(out, tuple | list) else (out,)
            for i, v in zip(self.outputs, given, strict=True):
                full[i] = v
        return full

    def pointers(self, full: Sequence[Any], caller_outputs: bool) -> list[int]:
        """Each argument's device pointer, checked for what the signature does
        not fix: contiguity, null, 16-byte alignment, scalar ranges; outputs
        the caller passed (``caller_outputs``) also for overlaps. Raises
        _Refused for the general path to name the problem."""
        ptrs = [0] * self.n_args
        for i in self.array_inputs:
            v = full[i]
            p = v.data_ptr()
            if not p or p % _POINTER_ALIGN or not v.is_contiguous():
                raise _Refused
            ptrs[i] = p
        for i in self.scalar_inputs:
            _check_scalar(f"{self.name}: argument {self.specs[i].name!r}", self.specs[i], full[i])
        for i in self.outputs:
            v = full[i]
            p = v.data_ptr()
            if caller_outputs and (not p or p % _POINTER_ALIGN or not v.is_contiguous()):
                raise _Refused
            ptrs[i] = p
        if caller_outputs:
            nbytes = self._nbytes
            for i in self.outputs:
                start = ptrs[i]
                end = start + nbytes[i]
                if start == end:
                    continue
                for j in self._arrays:
                    if j != i and ptrs[j] < end and start < ptrs[j] + nbytes[j]:
                        raise _Refused
        return ptrs

    def stream(self, stream: int | None) -> int:
        if stream is not None:
            return stream
        getter = self._stream_of
        return getter(self.torch_device) if getter is not None else 0

    def launch(self, ptrs: Sequence[int], values: Sequence[Any], stream: int) -> None:
        """Queue every launch on ``stream``. ``ptrs``: the arguments' pointers,
        then the intermediate buffers'; ``values``: the arguments."""
        launch = self._launch
        if self._activate is not None:
            self._activate()
        for step in self.steps:
            for field, src in step.pointers:
                field.value = ptrs[src]
            for field, src, dtype in step.scalars:
                field.value = _half_bits(dtype, values[src]) if dtype in (
                    "f16", "bf16") else values[src]
            grid = step.grid
            if grid is None:
                grid = step.grid_for(values)
            for field, src, dtype, shape, box, swizzle in step.tmaps:
                raw = self._tensor_map(ptrs[src], dtype, shape, box, swizzle)  # type: ignore[misc]
                ctypes.memmove(field, raw, 128)
            bx, by, bz = step.launch_block
            launch(step.function, grid[0], grid[1], grid[2], bx, by, bz, step.shared, stream,
                   step.address)

    def call(self, args: Sequence[Any], out: Any, stream: int | None) -> Any:
        full = self.bind(args, out)
        ptrs = self.pointers(full, caller_outputs=out is not None or len(args) == self.n_args)
        s = self.stream(stream)
        if self.buffers:
            ptrs = ptrs + self.scratch(s)
        self.launch(ptrs, full, s)
        return self.returned(full)

    def returned(self, full: Sequence[Any]) -> Any:
        results = []
        for i, shape in self.results:
            v = full[i]
            results.append(v if tuple(v.shape) == shape else v.view(shape))
        return results[0] if len(results) == 1 else tuple(results)


def _symbols(artifact: KernelArtifact, shapes: Sequence[tuple[int, ...] | None]) -> dict[str, int]:
    symbols: dict[str, int] = {}
    for spec, shape in zip(artifact.args, shapes, strict=True):
        if shape is not None:
            for want, got in zip(spec.shape, shape, strict=True):
                if isinstance(want, str):
                    symbols.setdefault(want, got)
    return symbols


def _map_at(tensor_map: Callable[..., bytes], dtype: str, shape: tuple[int, ...],
            box: tuple[int, ...], swizzle: int, ptr: int) -> bytes:
    return tensor_map(ptr, dtype, shape, box, swizzle)


class _Refused(Exception):
    """A per-call check failed: the general path names the problem."""


_MAX_PLANS = 256
_MISSING: Any = object()


class NativeDispatch:
    """A C dispatcher (tcc.runtime._fastcall) and the plans handed to it.
    ``miss(args, out, stream)`` runs a call no held plan matches;
    ``general(args, out, stream)`` one a plan refuses (its validation names
    the problem)."""

    def __init__(self, miss: Callable[[Sequence[Any], Any, int | None], Any],
                 general: Callable[[Sequence[Any], Any, int | None], Any]) -> None:
        assert _fastcall is not None
        self.dispatcher = _fastcall.Dispatcher(miss, general)
        self.dispatch = self.dispatcher.dispatch
        self._keys: set[Any] = set()  # (plan key, value types) held or not expressible

    def hold(self, plan: LaunchPlan, key: Any, given: int, out_none: bool,
             values: Sequence[Any]) -> None:
        """Hand ``plan`` (found by ``key``) to the dispatcher for calls with
        the types of ``values``, once."""
        native_key = (key, tuple(type(v) for v in values))
        if native_key not in self._keys:
            self._keys.add(native_key)
            spec = plan.native(given, out_none, values)
            if spec is not None:
                self.dispatcher.add(spec)

    def clear(self) -> None:
        self._keys.clear()
        self.dispatcher.clear()

    def stats(self) -> dict[str, int]:
        return self.dispatcher.stats()


def native_dispatch(miss: Callable[[Sequence[Any], Any, int | None], Any],
                    general: Callable[[Sequence[Any], Any, int | None], Any],
                    native: bool | None = None) -> NativeDispatch | None:
    """A :class:`NativeDispatch`, or None where calls run in Python
    (``native`` False, or None and not :func:`native_available`)."""
    if native is None:
        native = native_available()
    return NativeDispatch(miss, general) if native and _fastcall is not None else None


class FastLauncher:
    """The plans of one callable, by call signature. ``build(args, out)``
    validates a first call fully and returns its plan (None: this call
    shape always takes the general path); ``general(args, out, stream)`` is
    the general path. ``dispatch(args, out, stream)`` runs a call: from C
    when the call matches a plan the C dispatcher holds (``native``: whether
    there is one; default :func:`native_available`), else through
    :meth:`__call__`, which also hands the plan it ran to the dispatcher."""

    def __init__(self, build: Callable[[Sequence[Any], Any], LaunchPlan | None],
                 general: Callable[[Sequence[Any], Any, int | None], Any],
                 native: bool | None = None) -> None:
        self._build = build
        self._general = general
        self._plans: dict[Any, LaunchPlan | None] = {}
        self._native = native_dispatch(self.__call__, general, native)
        self.dispatch: Callable[[Sequence[Any], Any, int | None], Any] = (
            self._native.dispatch if self._native is not None else self.__call__)

    def native_stats(self) -> dict[str, int] | None:
        """The C dispatcher's counts (calls it ran, passed back, refused;
        plans held), or None when calls run in Python."""
        return self._native.stats() if self._native is not None else None

    def __call__(self, args: Sequence[Any], out: Any, stream: int | None) -> Any:
        values = args if out is None else (
            *args, *(out if isinstance(out, tuple | list) else (out,)))
        key = signature(values)
        if key is None:
            return self._general(args, out, stream)
        key = (len(args), out is None, key)
        plans = self._plans
        plan = plans.get(key, _MISSING)
        if plan is _MISSING:
            try:
                plan = self._build(args, out)  # raises ArgumentError for a bad call
            except ImportError:  # torch-like arrays without torch: the general path
                plan = None
            if len(plans) >= _MAX_PLANS:
                plans.clear()
                if self._native is not None:
                    self._native.clear()
            plans[key] = plan
        if plan is None:
            return self._general(args, out, stream)
        try:
            result = plan.call(args, out, stream)
        except _Refused:
            return self._general(args, out, stream)
        if self._native is not None:
            self._native.hold(plan, key, len(args), out is None, values)
        return result

    def plan(self, args: Sequence[Any], out: Any) -> LaunchPlan:
        """The plan for this call (built and validated if new); raises
        ArgumentError when the call cannot take the fast path (host arrays,
        CPU tensors) or is invalid."""
        values = args if out is None else (
            *args, *(out if isinstance(out, tuple | list) else (out,)))
        key = signature(values)
        plan = None
        if key is not None:
            key = (len(args), out is None, key)
            if key not in self._plans:
                self._plans[key] = self._build(args, out)
            plan = self._plans[key]
        if plan is None:
            raise ArgumentError("this call takes the general path: a launch plan (and graph "
                                "capture) needs CUDA torch tensors as arguments")
        return plan


class CapturedProgram:
    """A compiled program's launches for fixed arguments, recorded once as a
    graph (``program.capture(*inputs)``) and replayed with one driver call.

    The arguments' memory is baked into the graph: ``replay()`` reads the
    same input tensors (write new values into them) and rewrites the same
    outputs, which it returns. The graph owns its intermediate buffers.
    """

    def __init__(self, plan: LaunchPlan, args: Sequence[Any], out: Any) -> None:
        self.plan = plan
        full = plan.bind(args, out)
        ptrs = plan.pointers(full, caller_outputs=True)
        self._args = full  # keeps the tensors alive as long as the graph
        self._scratch = plan.new_buffers()
        ptrs = ptrs + [int(b.data_ptr()) for b in self._scratch]
        device = plan.device
        capture = getattr(device, "capture_graph", None)
        if capture is None:
            raise ArgumentError(f"{plan.name}: the {device.vendor} runtime cannot capture graphs")
        self._graph = capture(lambda stream: plan.launch(ptrs, full, stream))
        self._replay = device.replay_graph  # type: ignore[attr-defined]
        self._result = plan.returned(full)

    def replay(self, stream: int | None = None) -> Any:
        """Run the recorded launches on ``stream`` (torch's current one by
        default); returns the outputs (one value, or a tuple)."""
        self._replay(self._graph, self.plan.stream(stream))
        return self._result
