"""docs/reference/ is what the ODS declares: regenerated with the wheels'
mlir-tblgen and compared (issue 11: the dialects' op reference from ODS)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "gen_reference_docs.py"


def test_reference_pages_match_the_td_files():
    import mlir

    if not (Path(next(iter(mlir.__path__))) / "bin" / "mlir-tblgen").exists():
        pytest.skip("no mlir-tblgen in the MLIR wheels")
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    tile = (ROOT / "docs/reference/tile-dialect.md").read_text()
    assert "### `tile.shared_load`" in tile and "### LoweringConfigAttr" in tile
    passes = (ROOT / "docs/reference/passes.md").read_text()
    assert "### `-tcc-accelerate-matmul`" in passes and "### `-tcc-select-strategy`" in passes
