"""docs/user-guide.md runs as written: its Python blocks, in order, in one
namespace. A block whose first line is `# needs: gpu` runs only where a CUDA
GPU is present, `# needs: torch` only where torch is installed."""

import importlib.util
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).parents[2] / "docs" / "user-guide.md"


def _has_gpu() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def test_user_guide_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), flags=re.S)
    assert len(blocks) >= 8, "the guide lost its examples"
    namespace: dict[str, object] = {"__name__": "user_guide"}
    ran = []
    for i, block in enumerate(blocks):
        needs = re.match(r"# needs: (\w+)", block)
        if needs and needs.group(1) == "gpu" and not _has_gpu():
            continue
        if needs and needs.group(1) == "torch" and importlib.util.find_spec("torch") is None:
            continue
        exec(compile(block, f"{GUIDE}#block{i}", "exec"), namespace)  # noqa: S102
        ran.append(i)
    out = capsys.readouterr().out
    # The frontend error starts at the guide's own line and names the op.
    assert re.search(r"user-guide\.md#block1:\d+:\d+: mul: lhs shape", out)
    # Kernels of the two programs, the plan, a report, numerics on the CPU.
    assert "['layer_norm']" in out and "tile.lowering_config" in out
    errors = [float(v) for v in re.findall(r"max error ([0-9.e+-]+)", out)]
    assert errors and max(errors) < 1e-4
    assert "3 (3, 256)" in out and "40 (40, 256)" in out
    if importlib.util.find_spec("torch") is None:
        pytest.skip(f"ran blocks {ran}; torch not installed for the torch section")
