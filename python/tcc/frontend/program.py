"""``@program``: trace a Python function over symbolic tensors into a func.func."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from mlir import ir
from mlir.dialects import func

from tcc.frontend._builder import Builder, building, tensor_type
from tcc.frontend.errors import DTypeError, FrontendError, ShapeError
from tcc.frontend.shapes import Sym
from tcc.frontend.tensor import Tensor, TensorSpec


class Program:
    """A tensor program: builds ``func.func @name`` from its traced body."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        bindings: dict[str, int] | None = None,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.bindings = dict(bindings or {})
        self.params, self.results = _signature(fn, self.name)

    @property
    def symbols(self) -> tuple[Sym, ...]:
        """The symbols of the argument shapes not fixed by ``specialize``, in order."""
        seen: dict[Sym, None] = {}
        for spec in self.params.values():
            for d in spec.shape:
                if isinstance(d, Sym) and d.name not in self.bindings:
                    seen[d] = None
        return tuple(seen)

    def specialize(self, **sizes: int) -> Program:
        """The same program with some symbols fixed to static sizes."""
        known = {s.name for s in self.symbols}
        for key, size in sizes.items():
            if key not in known:
                raise ShapeError(
                    f"{self.name}: specialize: unknown symbol {key!r}; the "
                    f"program's free symbols are {sorted(known)}"
                )
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                raise ShapeError(
                    f"{self.name}: specialize: {key} must be a non-negative int, got {size!r}"
                )
        return Program(self.fn, self.name, {**self.bindings, **sizes})

    def to_module(self, context: ir.Context | None = None) -> ir.Module:
        """A verified module holding the program (in ``context``, the current
        context, or a fresh one)."""
        if context is None:
            try:
                context = ir.Context.current
            except ValueError:
                context = None
        if context is None:
            context = ir.Context()
        with context, ir.Location.unknown():
            module = ir.Module.create()
            with ir.InsertionPoint(module.body):
                self.emit()
            module.operation.verify()
        return module

    def emit(self) -> func.FuncOp:
        """Build ``func.func @name`` at the current insertion point (inside
        ``with ir.Context(), ir.Location.unknown(), ir.InsertionPoint(...)``;
        :meth:`to_module` makes all three)."""
        try:
            ir.InsertionPoint.current  # noqa: B018  (raises without one)
        except ValueError:
            raise FrontendError(
                f"{self.name}: Program.emit() builds at the current MLIR insertion point and "
                "there is none; call it inside `with ir.Context(), ir.Location.unknown(), "
                "ir.InsertionPoint(module.body):`, or use to_module()") from None
        builder = Builder(self.bindings)
        specs = [TensorSpec(builder.resolve_shape(s.shape), s.dtype) for s in self.params.values()]
        arg_types = [tensor_type(s.shape, s.dtype) for s in specs]
        fop = func.FuncOp(self.name, (arg_types, []), loc=_definition_location(self.fn))
        block = fop.add_entry_block()
        with ir.InsertionPoint(block), building(builder):
            args = []
            for value, spec in zip(block.arguments, specs, strict=True):
                builder.add_carrier(value, spec.shape)
                args.append(Tensor(value, spec.shape, spec.dtype, builder))
            outs = self._results(builder, self.fn(*args))
            func.ReturnOp([t.value for t in outs])
            builder.erase_unused_bypassed()
        fop.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [t.type for t in outs])
        )
        return fop

    def _results(self, builder: Builder, ret: object) -> list[Tensor]:
        outs = list(ret) if isinstance(ret, tuple | list) else [] if ret is None else [ret]
        for i, t in enumerate(outs):
            if not isinstance(t, Tensor) or t.builder is not builder:
                raise FrontendError(
                    f"{self.name}: result {i} must be a Tensor of this program, got {t!r}"
                )
        if self.results is None:
            return outs
        if len(self.results) != len(outs):
            raise FrontendError(
                f"{self.name}: returns {len(outs)} value(s) but is annotated "
                f"with {len(self.results)}"
            )
        for i, (t, spec) in enumerate(zip(outs, self.results, strict=True)):
            want = TensorSpec(builder.resolve_shape(spec.shape), spec.dtype)
            if t.spec == want:
                continue
            err = DTypeError if t.shape == want.shape else ShapeError
            raise err(f"{self.name}: result {i} is {t!r} but the annotation says {want}")
        return outs

    def arg_symbols(self) -> list[list[str | None]]:
        """Each argument's dims: the name of a size left unbound, else None."""
        return [[d.name if isinstance(d, Sym) and d.name not in self.bindings else None
                 for d in s.shape] for s in self.params.values()]

    @property
    def ir(self) -> str:
        """The module as text."""
        return str(self.to_module())

    def __call__(self, *args: Tensor) -> Any:
        """Inside another program, inline this one's body."""
        if not all(isinstance(a, Tensor) for a in args):
            raise FrontendError(
                f"{self.name}: call it from inside a @program with tensors, "
                "or use .to_module() / .ir"
            )
        return self.fn(*args)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}: {v}" for k, v in self.params.items())
        fixed = "".join(f" {k}={v}" for k, v in self.bindings.items())
        return f"<program {self.name}({params}){fixed}>"


def _signature(
    fn: Callable[..., Any], name: str
) -> tuple[dict[str, TensorSpec], list[TensorSpec] | None]:
    """Parameter specs and result specs (None when not annotated)."""
    try:
        hints = inspect.get_annotations(fn, eval_str=True)
    except NameError as err:
        # String annotations (`from __future__ import annotations`) are
        # evaluated in the function's module globals only.
        raise FrontendError(
            f"{name}: cannot evaluate its annotations ({err}); with `from __future__ import "
            "annotations`, Tensor, dtypes and size symbols must be module-level names"
        ) from err
    params: dict[str, TensorSpec] = {}
    for pname, p in inspect.signature(fn).parameters.items():
        spec = hints.get(pname)
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise FrontendError(f"{name}: parameter {pname} must be positional")
        if not isinstance(spec, TensorSpec):
            raise FrontendError(
                f"{name}: parameter {pname} needs a Tensor[..., dtype] annotation, got {spec!r}"
            )
        params[pname] = spec
    if "return" not in hints or hints["return"] is None:
        return params, None
    ret = hints["return"]
    specs = typing.get_args(ret) if typing.get_origin(ret) is tuple else (ret,)
    if not all(isinstance(s, TensorSpec) for s in specs):
        raise FrontendError(
            f"{name}: the return annotation must be Tensor[...] or a tuple of them, got {ret!r}"
        )
    return params, list(specs)


@typing.overload
def program(fn: Callable[..., Any], *, name: str | None = None) -> Program: ...
@typing.overload
def program(
    fn: None = None, *, name: str | None = None
) -> Callable[[Callable[..., Any]], Program]: ...
def program(
    fn: Callable[..., Any] | None = None, *, name: str | None = None
) -> Program | Callable[[Callable[..., Any]], Program]:
    """Decorator: ``@program`` or ``@program(name="f")`` turns a function into a Program."""
    if fn is None:
        return lambda f: Program(f, name)
    return Program(fn, name)


def _definition_location(fn: Any) -> ir.Location:
    """Where ``fn`` is defined (its ``def`` line), for the program's func.func."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return ir.Location.unknown()
    return ir.Location.file(code.co_filename, code.co_firstlineno, 1)
