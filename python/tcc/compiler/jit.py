"""``tcc.jit``: call a tensor program directly on arrays; compile on first use.

```python
@tcc.jit
def layer_norm(x: Tensor[M, N, f32], w: Tensor[N, f32], b: Tensor[N, f32]):
    ...

y = layer_norm(x, w, b)        # torch CUDA tensors: target from x's device
```

The program's size symbols are bound from the arguments' shapes; the target
comes from the arrays' device (a CUDA compute capability X.Y is ``sm_XY``; a
ROCm device its ``gcnArch`` name) unless ``target=`` is given (required for
numpy arrays). Each distinct binding (sizes, dtypes, target) is compiled once
(``tcc.compile``, whose disk cache serves later processes) and kept; a call
that hits in memory goes straight to the compiled program's launch plan
(:mod:`tcc.runtime.fastpath`) without tracing or compiling again. Sizes are
compiled per *shape class* (``shapes="classes"``, the default): a size that
only ever leads (never the last dim of an argument: rows, batch, tokens) is
left dynamic, one compile serving a class of its values (:data:`CLASSES`: up
to 256, up to 2048, above; each planned for its own ``dynamic_extent``), so at
most three compiles for any number of sizes; sizes in a last dim are bound
(the kernels' blocks span them). A program whose
forms refuse those dynamic sizes (a column reduction whose columns span a
leading dim) is specialized
per binding instead, once that is known. ``shapes="static"`` specializes every
size (one compile per distinct shape). docs/dynamic-shapes.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tcc.runtime.errors import ArgumentError
from tcc.runtime.fastpath import LaunchPlan, _Refused, native_dispatch, signature
from tcc.runtime.launcher import describe
from tcc.runtime.runner import CompiledProgram

# tcc.jit's shape classes of a dynamic size: (largest member, the
# dynamic_extent its kernels are planned for). From the H200 sweep of GEMM
# programs (docs/dynamic-shapes.md, "Where the classes come from"): plans for
# 64 rows are fastest up to 256 rows, for 1024 from 512 to 2048, for large M
# above.
CLASSES: tuple[tuple[float, int], ...] = ((256, 64), (2048, 1024), (float("inf"), 16384))


def size_class(size: int) -> int:
    """The index in :data:`CLASSES` of ``size``'s class."""
    return next(i for i, (top, _) in enumerate(CLASSES) if size <= top)


def device_target(value: Any) -> str | None:
    """The tcc target of the device ``value`` lives on (a torch or cupy GPU
    array), or None for host arrays. Raises ArgumentError for a GPU tcc does
    not compile for."""
    from tcc.targets import KNOWN_TARGETS

    module = type(value).__module__.split(".")[0]
    arch: str | None = None
    if module == "torch" and getattr(value, "is_cuda", False):
        import torch

        index = value.get_device()
        if getattr(torch.version, "hip", None):
            arch = torch.cuda.get_device_properties(index).gcnArchName.split(":")[0]
        else:
            major, minor = torch.cuda.get_device_capability(index)
            arch = f"sm_{major}{minor}"
    elif module == "cupy":
        import cupy

        device = cupy.cuda.Device(value.device.id)
        if getattr(cupy.cuda.runtime, "is_hip", False):
            props = cupy.cuda.runtime.getDeviceProperties(device.id)
            arch = props["gcnArchName"].decode().split(":")[0]
        else:
            arch = f"sm_{device.compute_capability}"
    if arch is None:
        return None
    if arch not in KNOWN_TARGETS:
        raise ArgumentError(
            f"the arguments live on a {arch} device; tcc compiles for "
            f"{', '.join(KNOWN_TARGETS)} (pass target= to compile for one of them)")
    return arch


class JitProgram:
    """A program called on arrays, compiled per binding on first use (see
    the module docstring). ``compiled`` holds every compiled binding."""

    def __init__(self, program: Any, target: str | None = None, device: Any = None,
                 shapes: str = "classes", **options: Any) -> None:
        from tcc.frontend.program import Program

        if not isinstance(program, Program):
            if not callable(program):
                raise TypeError(f"tcc.jit: expected a tcc.frontend program or a function, "
                                f"got {type(program).__name__}")
            program = Program(program)
        if shapes not in ("classes", "static"):
            raise ValueError(f"tcc.jit: shapes must be 'classes' or 'static', got {shapes!r}")
        self.program = program
        self.shapes = shapes
        # The symbols a shape class leaves dynamic: those of leading dims only.
        last = {str(s.shape[-1]) for s in program.params.values() if s.shape}
        self._leading = {str(d) for s in program.params.values() for d in s.shape
                         if not isinstance(d, int)} - last
        self._static_only: set[tuple[Any, ...]] = set()  # classes dynamic sizes failed for
        self.target = target
        self.options = options
        self._device = device
        self.compiled: dict[tuple[Any, ...], Any] = {}  # binding -> tcc.compile's Kernel
        self._callables: dict[tuple[Any, ...], CompiledProgram] = {}
        self._plans: dict[Any, LaunchPlan] = {}
        # Hits run from C where tcc.runtime._fastcall is built.
        self._native = native_dispatch(self._miss, self._general)
        self._dispatch = self._native.dispatch if self._native is not None else self._miss
        self.__name__ = program.name
        self.__doc__ = getattr(program.fn, "__doc__", None)

    # -- binding -----------------------------------------------------------
    def bind(self, args: Sequence[Any]) -> tuple[str, dict[str, int]]:
        """The target and the size of each free symbol for these arguments
        (the program's inputs, in order); ArgumentError naming the argument
        when a shape does not fit the annotations."""
        params = list(self.program.params.items())
        if len(args) != len(params):
            raise ArgumentError(
                f"{self.program.name}: expected {len(params)} inputs "
                f"({', '.join(n for n, _ in params)}), got {len(args)}")
        sizes: dict[str, int] = {}
        target = self.target
        fixed = self.program.bindings
        for (name, spec), value in zip(params, args, strict=True):
            info = describe(value)
            if info is None:
                raise ArgumentError(f"{self.program.name}: argument {name!r}: expected an "
                                    f"array, got {type(value).__name__}")
            want = [fixed.get(str(d), d) if not isinstance(d, int) else d for d in spec.shape]
            if len(info.shape) != len(want):
                raise ArgumentError(f"{self.program.name}: argument {name!r}: expected rank "
                                    f"{len(want)} {_show(want)}, got shape {list(info.shape)}")
            for axis, (dim, got) in enumerate(zip(want, info.shape, strict=True)):
                ok = dim == got if isinstance(dim, int) else sizes.setdefault(str(dim), got) == got
                if not ok:
                    shown = [sizes.get(str(d), d) if not isinstance(d, int) else d for d in want]
                    raise ArgumentError(
                        f"{self.program.name}: argument {name!r}: expected shape "
                        f"{_show(shown)} (dim {axis}), got {list(info.shape)}")
            if target is None:
                target = device_target(value)
        if target is None:
            raise ArgumentError(f"{self.program.name}: the arguments are host arrays: pass "
                                "target= to tcc.jit to say which GPU to compile for")
        return target, sizes

    def compile_for(self, *args: Any) -> Any:
        """The compiled program (``tcc.compile``'s result) for these inputs,
        compiled now if this binding is new."""
        return self._compiled(args)[0]

    def shape_class(self, sizes: dict[str, int]) -> tuple[dict[str, int], tuple[Any, ...]]:
        """The sizes a compile binds for this binding, and its class key (a
        dynamic size shows as ``"n"``)."""
        if self.shapes == "static":
            return sizes, tuple(sorted(sizes.items()))
        bound = {k: v for k, v in sizes.items() if k not in self._leading}
        key = tuple(sorted((k, bound.get(k, f"class{size_class(v)}"))
                           for k, v in sizes.items()))
        return bound, key

    def _compiled(self, args: Sequence[Any]) -> tuple[Any, CompiledProgram]:
        from tcc.compiler.compile import CompilationError
        from tcc.compiler.compile import compile as tcc_compile

        target, sizes = self.bind(args)
        dtypes = tuple(_dtype_key(a) for a in args)
        bound, shape_key = self.shape_class(sizes)
        key = (target, shape_key, dtypes)
        if key in self._static_only:  # dynamic sizes refused: per binding
            bound, key = sizes, (target, tuple(sorted(sizes.items())), dtypes)
        compiled = self.compiled.get(key)
        if compiled is None:
            options = dict(self.options)
            dynamic = [k for k in sizes if k not in bound]
            if dynamic:  # planned for the largest class among them
                extent = CLASSES[max(size_class(sizes[k]) for k in dynamic)][1]
                if extent != CLASSES[-1][1]:
                    options.setdefault("dynamic_extent", extent)
            try:
                compiled = tcc_compile(self.program, target, **options, **bound)
            except CompilationError:
                if bound == sizes:
                    raise
                # A form that needs these sizes static: specialize this class.
                self._static_only.add(key)
                return self._compiled(args)
            self.compiled[key] = compiled
            self._callables[key] = CompiledProgram(compiled.artifact, self._device)
        return compiled, self._callables[key]

    # -- calls -------------------------------------------------------------
    def __call__(self, *args: Any, out: Any = None, stream: int | None = None) -> Any:
        return self._dispatch(args, out, stream)

    def _miss(self, args: Sequence[Any], out: Any, stream: int | None) -> Any:
        """A call the C dispatcher (if any) holds no plan for."""
        values = args if out is None else (
            *args, *(out if isinstance(out, tuple | list) else (out,)))
        sig = signature(values)
        key = None
        if sig is not None:
            key = (len(args), out is None, sig)
            plan = self._plans.get(key)
            if plan is not None:
                try:
                    result = plan.call(args, out, stream)
                except _Refused:
                    return self._general(args, out, stream)
                if self._native is not None:
                    self._native.hold(plan, key, len(args), out is None, values)
                return result
        _, program = self._compiled(args[:len(self.program.params)])
        result = program(*args, out=out, stream=stream)
        if key is not None:
            plan = program.plan_for(args, out)
            if plan is not None:
                self._plans[key] = plan
                if self._native is not None:
                    self._native.hold(plan, key, len(args), out is None, values)
        return result

    def _general(self, args: Sequence[Any], out: Any, stream: int | None) -> Any:
        """The call through its shape class's program (compiled on first
        use), which validates it fully."""
        _, program = self._compiled(args[:len(self.program.params)])
        return program(*args, out=out, stream=stream)


def _dtype_key(value: Any) -> str:
    info = describe(value)
    return info.typestr if info is not None else type(value).__name__


def _show(shape: Sequence[Any]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def jit(program: Any = None, *, target: str | None = None, device: Any = None,
        shapes: str = "classes", **options: Any) -> Any:
    """``tcc.jit(program)`` or ``@tcc.jit`` / ``@tcc.jit(target=..., num_stages=4)``:
    a :class:`JitProgram` over a ``tcc.frontend`` program (or a function with
    ``Tensor`` annotations). ``shapes``: ``"classes"`` (one compile per shape
    class) or ``"static"`` (per shape). ``options`` are ``tcc.compile``'s."""
    def wrap(p: Any) -> JitProgram:
        return JitProgram(p, target=target, device=device, shapes=shapes, **options)

    if program is None:
        return wrap
    return wrap(program)


__all__ = ["JitProgram", "device_target", "jit"]
