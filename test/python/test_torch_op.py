"""tcc.torch.custom_op: a compiled program as a torch operator (issue 11):
schema, fake implementation, torch.compile(fullgraph=True) and opcheck, and
a backward program for autograd. CPU tensors run through the CPU emulator
(cpu=True); the CUDA implementation launches through tcc.runtime (H200)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tcc  # noqa: E402
import tcc.torch as tt  # noqa: E402
from tcc.frontend import Tensor, f32, program  # noqa: E402


@program
def bias_gelu(x: Tensor[16, 33, f32], b: Tensor[33, f32]):
    return (x + b).gelu()


@program
def bias_add(x: Tensor[8, 16, f32], b: Tensor[16, f32]):
    return x + b


@program
def bias_add_backward(x: Tensor[8, 16, f32], b: Tensor[16, f32], g: Tensor[8, 16, f32]):
    return g + 0.0, g.sum(0)


@program
def two_results(x: Tensor[4, 8, f32]):
    return x.exp(), x.sum(-1)


def _compile(prog, target="sm_80"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tcc.compile(prog, target, cache=False)


@pytest.fixture(scope="module")
def ops():
    return {
        "gelu": tt.custom_op(_compile(bias_gelu), "t_bias_gelu", cpu=True),
        "add": tt.custom_op(_compile(bias_add), "t_bias_add", cpu=True,
                            backward=_compile(bias_add_backward)),
        "two": tt.custom_op(_compile(two_results), "t_two", cpu=True),
    }


def test_schema_and_eager_cpu(ops):
    assert str(torch.ops.tcc.t_bias_gelu.default._schema) == (
        "tcc::t_bias_gelu(Tensor x, Tensor b) -> Tensor")
    x, b = torch.randn(16, 33), torch.randn(33)
    torch.testing.assert_close(ops["gelu"](x, b), torch.nn.functional.gelu(x + b),
                               rtol=1e-5, atol=1e-6)
    e, s = ops["two"](torch.ones(4, 8))
    torch.testing.assert_close(e, torch.full((4, 8), float(np.e)))
    torch.testing.assert_close(s, torch.full((4,), 8.0))


def test_fake_tensors_and_torch_compile_fullgraph(ops):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        y = ops["gelu"](torch.empty(16, 33), torch.empty(33))
        assert y.shape == (16, 33) and y.dtype == torch.float32

    def model(x, b):
        return ops["gelu"](x * 2.0, b) + 1.0

    x, b = torch.randn(16, 33), torch.randn(33)
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x, b), model(x, b))
    explained = torch._dynamo.explain(model)(x, b)
    assert explained.graph_break_count == 0


def test_opcheck(ops):
    x, b = torch.randn(16, 33), torch.randn(33)
    torch.library.opcheck(ops["gelu"], (x, b),
                          test_utils=("test_schema", "test_faketensor",
                                      "test_autograd_registration"))


def test_backward_program(ops):
    x = torch.randn(8, 16, requires_grad=True)
    b = torch.randn(16, requires_grad=True)
    y = ops["add"](x, b)
    (y * torch.arange(16.0)).sum().backward()
    g = torch.arange(16.0).expand(8, 16)
    torch.testing.assert_close(x.grad, g)
    torch.testing.assert_close(b.grad, g.sum(0))


def test_bad_inputs_name_the_argument(ops):
    with pytest.raises(ValueError, match=r"input 'b' has shape \[32\], the program takes \[33\]"):
        ops["gelu"](torch.randn(16, 33), torch.randn(32))
    with pytest.raises(TypeError, match=r"input 'x' has dtype torch.float16"):
        ops["gelu"](torch.randn(16, 33).half(), torch.randn(33))


def test_cpu_tensors_need_the_emulator():
    op = tt.custom_op(_compile(bias_add), "t_bias_add_gpu_only")
    with pytest.raises(RuntimeError, match="runs on CUDA tensors"):
        op(torch.randn(8, 16), torch.randn(16))
