"""tcc.compile runs its stages in a warm worker process: an abort inside
MLIR (upstream assertions on some invalid input) becomes a CompilationError
naming the stage, with a reproducer file, and the caller's process lives on."""

import os
import re
import warnings
from pathlib import Path

import pytest

import tcc
from tcc.compiler import worker as worker_mod
from tcc.compiler.compile import CompilationError, CompilerRemark

GOOD = """
func.func @add(%a: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<256xf32> {
  %c = tcc.add %a, %b : tensor<256xf32>
  return %c : tensor<256xf32>
}
"""

# Each aborts in an upstream assertion (parser or verifier) in this MLIR build.
CRASHES = {
    "expand_shape [[-1]]": """
func.func @f(%r: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.expand_shape %r [[-1]] output_shape [8] : tensor<8xf32> into tensor<8xf32>
  return %e : tensor<8xf32>
}
""",
    "expand_shape [[]]": """
func.func @f(%r: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.expand_shape %r [[]] output_shape [8] : tensor<8xf32> into tensor<8xf32>
  return %e : tensor<8xf32>
}
""",
}


# Found by `python -m tcc.testing.fuzz opt` (upstream parser aborts; mlir-opt
# aborts on them too): test/fuzz-findings/.
FINDINGS = Path(__file__).resolve().parents[1] / "fuzz-findings"
for _path in sorted(FINDINGS.glob("*.mlir")):
    CRASHES[f"fuzz finding {_path.name}"] = _path.read_text()


@pytest.fixture
def reproducers(tmp_path, monkeypatch):
    monkeypatch.delenv("TCC_COMPILE_IN_PROCESS", raising=False)
    monkeypatch.setenv("TCC_REPRODUCER_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("name", sorted(CRASHES))
def test_an_abort_in_mlir_is_a_compilation_error_with_a_reproducer(reproducers, name):
    text = CRASHES[name]
    with pytest.raises(CompilationError) as info:
        tcc.compile(text, "sm_90", cache=False)
    message = str(info.value)
    assert re.search(r"stage 'source' crashed inside MLIR/LLVM \(signal SIGABRT\)", message)
    path = Path(re.search(r"saved in (\S+)$", message).group(1))
    assert path.parent == reproducers and path.is_file()
    saved = path.read_text()
    assert saved.startswith("// tcc reproducer: stage 'source' crashed (signal SIGABRT)")
    assert text in saved
    # The caller lives on and the next compile gets a fresh worker.
    assert tcc.compile(GOOD, "sm_90", cache=False).kernels


def test_the_stage_that_crashed_is_named_with_its_pipeline(reproducers, monkeypatch):
    # A stage past parsing: make the worker die inside the tile stage's
    # pipeline (os.abort from a hook the worker calls before each stage).
    monkeypatch.setenv("TCC_TEST_ABORT_AT_STAGE", "tile")
    with pytest.raises(CompilationError, match=r"stage 'tile' crashed .*signal SIGABRT") as info:
        tcc.compile(GOOD, "gfx942", cache=False)
    path = Path(re.search(r"saved in (\S+)$", str(info.value)).group(1))
    saved = path.read_text()
    assert "rerun: tcc-opt " in saved and "tcc-linalg-to-tile{target=gfx942" in saved
    assert "linalg.generic" in saved  # the tile stage's input: the linalg stage's output


def test_a_stage_past_the_timeout_is_stopped(reproducers, monkeypatch):
    tcc.compile(GOOD, "sm_90", cache=False)  # a warm worker
    monkeypatch.setenv("TCC_COMPILE_TIMEOUT", "1")
    monkeypatch.setenv("TCC_TEST_SLEEP_AT_STAGE", "linalg")
    monkeypatch.setenv("TCC_TEST_SLEEP_SECONDS", "20")
    with pytest.raises(CompilationError, match=r"stage 'linalg' did not finish in 1 s"):
        tcc.compile(GOOD, "sm_90", cache=False)
    monkeypatch.delenv("TCC_COMPILE_TIMEOUT")
    monkeypatch.delenv("TCC_TEST_SLEEP_AT_STAGE")
    monkeypatch.delenv("TCC_TEST_SLEEP_SECONDS")
    assert tcc.compile(GOOD, "sm_90", cache=False).kernels


def test_errors_and_remarks_cross_the_worker(reproducers):
    with pytest.raises(CompilationError, match=r"source: cannot parse the program"):
        tcc.compile("func.func @f(", "sm_90", cache=False)
    f32_matmul = """
func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %c = tcc.matmul %a, %b : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tcc.compile(f32_matmul, "sm_90", cache=False)
    assert any(issubclass(w.category, CompilerRemark) and "FMA fallback" in str(w.message)
               for w in caught)


def test_in_process_mode_skips_the_worker(monkeypatch):
    monkeypatch.setenv("TCC_COMPILE_IN_PROCESS", "1")
    calls = []
    monkeypatch.setattr(worker_mod.CompileWorker, "run_stages",
                        lambda *a, **k: calls.append(a))
    assert tcc.compile(GOOD, "sm_90", cache=False).kernels
    assert calls == [] and os.environ["TCC_COMPILE_IN_PROCESS"] == "1"
