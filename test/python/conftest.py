"""Shared fixtures for tcc's Python tests."""

import pytest
from mlir import ir

import tcc  # noqa: F401  (registers the dialects)


@pytest.fixture
def ctx():
    with ir.Context() as context, ir.Location.unknown():
        yield context
