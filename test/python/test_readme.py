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


def test_readme_whole_program_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    example = next(b for b in blocks if "def layer_norm" in b)
    exec(compile(example, str(README), "exec"), {})  # noqa: S102
    out = capsys.readouterr().out
    assert "['layer_norm'] ['linear_k0', 'linear_k1']" in out
    assert "tcc.launch @linear_k1" in out
    error = float(out.split("layer_norm max error")[1].split()[0])
    assert error < 1e-4
