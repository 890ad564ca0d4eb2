"""`import tcc` makes tcc's dialects and passes available to upstream MLIR."""

import subprocess
import sys

import pytest
from mlir import ir
from mlir.passmanager import PassManager


def test_dialects_parse_and_print(ctx):
    module = ir.Module.parse(
        """
        func.func @f(%a: tensor<4x?xf32>) -> tensor<4x?xf32> {
          %0 = tcc.add %a, %a : tensor<4x?xf32>
          %1 = tile.program_id 0 : i32
          return %0 : tensor<4x?xf32>
        }
        """
    )
    assert module.operation.verify()
    text = str(module)
    assert "tcc.add" in text
    assert "tile.program_id 0 : i32" in text


def test_dialects_are_loadable_by_name(ctx):
    assert ctx.dialects["tcc"] is not None
    assert ctx.dialects["tile"] is not None
    assert ctx.is_registered_operation("tcc.add")
    assert ctx.is_registered_operation("tile.program_id")


def test_upstream_passes_still_work(ctx):
    module = ir.Module.parse(
        """
        func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
          %0 = tcc.add %a, %a : tensor<4xf32>
          %1 = tcc.add %a, %a : tensor<4xf32>
          %2 = tcc.add %0, %1 : tensor<4xf32>
          return %2 : tensor<4xf32>
        }
        """
    )
    PassManager.parse("builtin.module(cse)").run(module.operation)
    assert str(module).count("tcc.add") == 2


def test_unknown_op_is_a_diagnostic_not_a_crash(ctx):
    with pytest.raises(ir.MLIRError, match="tcc.no_such_op"):
        ir.Module.parse('%0 = "tcc.no_such_op"() : () -> tensor<4xf32>')


def test_import_is_fast():
    # Import time measured in a fresh interpreter (the budget is generous so
    # a loaded CI machine does not flake; typical is ~0.2 s).
    code = "import time; t = time.perf_counter(); import tcc; print(time.perf_counter() - t)"
    seconds = float(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert seconds < 2.0
