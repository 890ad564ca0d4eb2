"""README's examples run as written: the Python ones (the launch is skipped
without a GPU), the shell block of "A first look" and the `tcc compile`
commands."""

import os
import re
import subprocess
import sys
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


def test_readme_first_look_and_cli_commands_run_as_written(tmp_path, tcc_opt):
    """The shell block of "A first look" (with this checkout's tcc-opt for
    `.venv/bin/tcc-opt` and a temporary directory for /tmp), then README's
    `tcc compile` commands on the program it writes."""
    text = README.read_text()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", text, flags=re.S)
                 if "tcc-opt /tmp/bias_gelu.mlir" in b)
    # /tmp first: the tool's own path may be under /tmp (a clone there).
    script = block.replace("/tmp/", f"{tmp_path}/").replace(".venv/bin/tcc-opt", tcc_opt)
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "func.func @bias_gelu" in proc.stdout and "--tcc-select-strategy" in proc.stdout
    program = tmp_path / "bias_gelu.mlir"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

    def tcc(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tcc", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=300)

    # `tcc compile prog.mlir --target sm_90 -o k.ptx` (k.cubin beside it where
    # ptxas is installed), `--target gfx942 -o k.s`, `--emit tile`.
    assert "tcc compile prog.mlir --target sm_90 -o k.ptx" in text
    assert tcc("compile", str(program), "--target", "sm_90", "-o", "k.ptx").returncode == 0
    assert (tmp_path / "k.ptx").read_text().lstrip().startswith("//")
    assert tcc("compile", str(program), "--target", "gfx942", "-o", "k.s").returncode == 0
    assert ".amdgcn_target" in (tmp_path / "k.s").read_text()
    tile = tcc("compile", str(program), "--emit", "tile")
    assert tile.returncode == 0 and "tile.func @bias_gelu" in tile.stdout
    # `tcc compile model.py:layer_norm --size M=4096 --size N=1024`.
    assert "tcc compile model.py:layer_norm --size M=4096" in text
    (tmp_path / "model.py").write_text(
        "from tcc.frontend import Tensor, f32, program, syms\n"
        "M, N = syms('M N')\n\n\n"
        "@program\n"
        "def layer_norm(x: Tensor[M, N, f32]):\n"
        "    mu = x.mean(-1, keepdim=True)\n"
        "    return (x - mu) * (x.var(-1, unbiased=False, keepdim=True) + 1e-5).rsqrt()\n")
    frontend = tcc("compile", "model.py:layer_norm", "--size", "M=4096", "--size", "N=1024",
                   "--emit", "tile")
    assert frontend.returncode == 0, frontend.stderr
    assert "tile.func @layer_norm" in frontend.stdout
