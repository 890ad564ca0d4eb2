"""A compiled tcc program as a torch operator.

    import tcc, tcc.torch
    compiled = tcc.compile(bias_gelu, "sm_90")
    op = tcc.torch.custom_op(compiled, "bias_gelu")   # torch.ops.tcc.bias_gelu
    y = op(x, b)                                      # CUDA tensors: tcc's kernels
    torch.compile(lambda x, b: op(x, b) * 2, fullgraph=True)(x, b)   # no graph break

``custom_op`` registers the program with ``torch.library.custom_op``: its
schema from the program's inputs and outputs, a fake implementation from
their shapes and dtypes (so FakeTensor tracing, ``torch.compile`` and
``torch.library.opcheck`` see the op without running it), the CUDA
implementation launching the artifact through :mod:`tcc.runtime`, and
optionally a backward program for autograd. With ``cpu=True`` the op also
runs on CPU tensors through the CPU emulator (:mod:`tcc.testing.simt`, for
tests; slow).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _torch_dtype(torch: Any, name: str) -> Any:
    from tcc.runtime.launcher import TORCH_DTYPES

    if name not in TORCH_DTYPES:
        raise TypeError(f"tcc.torch: element type {name} has no torch dtype")
    return getattr(torch, TORCH_DTYPES[name])


def _arg_name(spec: Any, i: int) -> str:
    name = spec.name
    return name if name.isidentifier() and not keyword.iskeyword(name) else f"arg{i}"


def _schema(inputs: Sequence[Any], outputs: Sequence[Any]) -> str:
    args = ", ".join(f"Tensor {_arg_name(s, i)}" for i, s in enumerate(inputs))
    rets = "Tensor" if len(outputs) == 1 else "(" + ", ".join("Tensor" for _ in outputs) + ")"
    return f"({args}) -> {rets}"


def _check_inputs(where: str, inputs: Sequence[Any], tensors: Sequence[Any]) -> None:
    import torch

    if len(tensors) != len(inputs):
        raise TypeError(f"{where}: expected {len(inputs)} inputs, got {len(tensors)}")
    for i, (spec, t) in enumerate(zip(inputs, tensors, strict=True)):
        name = _arg_name(spec, i)
        if t.dtype != _torch_dtype(torch, spec.dtype):
            raise TypeError(f"{where}: input {name!r} has dtype {t.dtype}, the program takes "
                            f"{spec.dtype}")
        shape = tuple(t.shape)
        concrete = all(isinstance(d, int) for d in shape)
        if concrete and shape != tuple(spec.shape):
            raise ValueError(f"{where}: input {name!r} has shape {list(shape)}, the program "
                             f"takes {list(spec.shape)}")


def custom_op(compiled: Any, name: str | None = None, *, namespace: str = "tcc",
              backward: Any = None, cpu: bool = False) -> Callable[..., Any]:
    """Register ``compiled`` (a ``tcc.compile`` result) as the torch operator
    ``torch.ops.<namespace>.<name>`` (name: the program's) and return it.

    ``backward``: a compiled program taking the inputs followed by the
    gradients of the outputs and returning one gradient per input (same
    shapes and dtypes): registered with ``torch.library.register_autograd``.
    ``cpu``: also run on CPU tensors through the CPU emulator (tests)."""
    import torch

    artifact = compiled.artifact
    inputs, outputs = artifact.inputs, artifact.outputs
    name = name or artifact.name
    qualname = f"{namespace}::{name}"
    where = f"torch.ops.{namespace}.{name}"
    runtime: dict[str, Any] = {}

    def run_cuda(*tensors: Any) -> Any:
        from tcc.runtime.runner import CompiledProgram

        if "program" not in runtime:
            runtime["program"] = CompiledProgram(artifact)
        outs = [torch.empty(tuple(s.shape), dtype=_torch_dtype(torch, s.dtype),
                            device=tensors[0].device) for s in outputs]
        runtime["program"](*[t.contiguous() for t in tensors], out=tuple(outs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def run_cpu(*tensors: Any) -> Any:
        from tcc.testing.simt import run_gpu_stage

        results = run_gpu_stage(compiled, *[_to_numpy(t) for t in tensors])
        outs = [_from_numpy(torch, r, s.dtype) for r, s in zip(results, outputs, strict=True)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def impl(*tensors: Any) -> Any:
        _check_inputs(where, inputs, tensors)
        if tensors and tensors[0].device.type == "cpu":
            if not cpu:
                raise RuntimeError(f"{where}: runs on CUDA tensors (custom_op(..., cpu=True) "
                                   "runs CPU tensors through the emulator)")
            return run_cpu(*tensors)
        return run_cuda(*tensors)

    op = torch.library.custom_op(qualname, impl, mutates_args=(),
                                 schema=_schema(inputs, outputs))

    @op.register_fake
    def _(*tensors: Any) -> Any:
        _check_inputs(where, inputs, tensors)
        device = tensors[0].device if tensors else torch.device("cpu")
        outs = [torch.empty(tuple(s.shape), dtype=_torch_dtype(torch, s.dtype), device=device)
                for s in outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    if backward is not None:
        grad_op = custom_op(backward, f"{name}_backward", namespace=namespace, cpu=cpu)
        n_in = len(inputs)

        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            ctx.save_for_backward(*inputs)

        def grad(ctx: Any, *grads: Any) -> Any:
            result = grad_op(*ctx.saved_tensors, *grads)
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != n_in:
                raise ValueError(f"{where}: the backward program returns {len(result)} "
                                 f"gradients for {n_in} inputs")
            return result

        op.register_autograd(grad, setup_context=setup_context)
    return op


def _to_numpy(t: Any) -> np.ndarray:
    import torch

    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # the emulator's bf16: uint16 bits
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def _from_numpy(torch: Any, array: np.ndarray, dtype: str) -> Any:
    if dtype == "bf16":
        return torch.from_numpy(np.ascontiguousarray(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array))
