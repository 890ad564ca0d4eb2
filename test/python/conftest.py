"""Shared fixtures for tcc's Python tests."""

import os
import shutil
import sys
from pathlib import Path

import pytest
from mlir import ir

import tcc  # noqa: F401  (registers the dialects)


@pytest.fixture
def ctx():
    with ir.Context() as context, ir.Location.unknown():
        yield context


@pytest.fixture
def tcc_opt() -> str:
    """tcc-opt as lit finds it: $TCC_BUILD_DIR/bin, beside this Python, PATH."""
    dirs = [Path(os.environ["TCC_BUILD_DIR"]) / "bin"] if os.environ.get("TCC_BUILD_DIR") else []
    dirs.append(Path(sys.executable).parent)
    found = shutil.which("tcc-opt", path=os.pathsep.join(map(str, dirs))) or shutil.which(
        "tcc-opt")
    if not found:
        pytest.skip("no tcc-opt built")
    return found
