"""Frontend programs carry the user's file:line into the IR: stage errors
and remarks name the line that traced the op (issue 11)."""

from __future__ import annotations

import re
import warnings

import pytest

import tcc
from tcc.compiler.compile import CompilationError, CompilerRemark
from tcc.frontend import Tensor, f32, program


def _line_of(fn, text: str) -> int:
    """The line of this file holding ``text`` inside ``fn``'s source."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@program
def fma_matmul(x: Tensor[64, 32, f32], w: Tensor[32, 16, f32]):
    y = x * 2.0
    return y @ w


@program
def column_sums(x: Tensor[64, 32, f32]):
    return x.exp().sum(0)


def test_traced_ops_carry_the_users_line():
    compiled = tcc.compile(fma_matmul, "sm_90", cache=False)
    source = compiled.ir["source"]
    mul, mm = _line_of(fma_matmul.fn, "x * 2.0"), _line_of(fma_matmul.fn, "y @ w")
    assert re.search(rf'loc\("{re.escape(__file__)}":{mul}:9\)', source)
    assert re.search(rf'loc\("{re.escape(__file__)}":{mm}:12\)', source)
    # the program's func.func: its def line
    assert f'"{__file__}":{fma_matmul.fn.__code__.co_firstlineno}:1' in source


def test_remarks_are_warnings_at_the_users_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tcc.compile(fma_matmul, "sm_90", cache=False)
    remarks = [w for w in caught if issubclass(w.category, CompilerRemark)]
    assert remarks and "FMA fallback" in str(remarks[0].message)
    assert remarks[0].filename == __file__
    assert remarks[0].lineno == _line_of(fma_matmul.fn, "y @ w")


def test_stage_errors_name_the_program_and_leave_out_the_ir(monkeypatch):
    plan = "#tile.lowering_config<form = softmax, block = [1, 64], num_warps = 1>"
    with pytest.raises(CompilationError) as err:
        tcc.compile(column_sums, "sm_90", cache=False, plans={"column_sums": plan})
    text = str(err.value)
    assert f'error: "{__file__}":{column_sums.fn.__code__.co_firstlineno}:1:' in text
    assert "names form 'softmax'" in text
    assert "see current operation" not in text and "TCC_VERBOSE_ERRORS=1" in text
    monkeypatch.setenv("TCC_VERBOSE_ERRORS", "1")
    with pytest.raises(CompilationError, match="see current operation"):
        tcc.compile(column_sums, "sm_90", cache=False, plans={"column_sums": plan})
