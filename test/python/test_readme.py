"""README's Python example runs as written (the launch is skipped without a GPU)."""

import re
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no Python example"
    # The example compiles a 16384 x 4096 kernel; run it as is.
    exec(compile(blocks[0], str(README), "exec"), {})  # noqa: S102
    out = capsys.readouterr().out
    assert "tcc.gelu" in out and ".entry bias_gelu" in out and "tile.func" in out
