"""8 processes compiling the same and different programs into one cache at
once: no caller sees an exception, and every entry left is whole (it loads,
its hash checks) and is what a fresh compile builds."""

import os
import subprocess
import sys
from pathlib import Path

from tcc.runtime.program import load_artifact

PROCESSES = 8

_CHILD = r"""
import sys
import tcc
from tcc.frontend import Tensor, f32, program
rank = int(sys.argv[1])

@program
def shared(x: Tensor[256, 128, f32], b: Tensor[128, f32]):
    return (x + b).relu()

@program
def own(x: Tensor[64, 32 + rank, f32]):
    return x.softmax(-1)

for _ in range(2):                 # the second round hits the cache
    a = tcc.compile(shared, "sm_90")
    o = tcc.compile(own, "gfx942")
print(a.artifact.kernels[0].kernel_name, o.artifact.kernels[0].kernel_name)
"""


def test_eight_processes_share_one_cache(tmp_path):
    cache = tmp_path / "cache"
    env = {**os.environ, "TCC_CACHE_DIR": str(cache), "TCC_COMPILE_IN_PROCESS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(rank)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(PROCESSES)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert out.split() == ["shared", "own"]
        assert "tcc cache:" not in err, err  # no entry was found unusable or unwritable
    entries = sorted(Path(cache).rglob("*.tccbin"))
    # One entry for the shared program, one per process for its own.
    assert len(entries) == 1 + PROCESSES
    for entry in entries:
        load_artifact(entry.read_bytes())  # whole: magic, hash and header check
    leftovers = [p for p in Path(cache).rglob("*") if p.is_file() and p.suffix != ".tccbin"]
    assert leftovers == []  # no temporary file left behind
