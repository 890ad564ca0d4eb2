"""The kernel cache: keys, memory/disk hits, corruption, atomic writes."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcc.compiler.cache import KernelCache, cache_key, canonical_source
from tcc.compiler.driver import compile_gpu_module
from tcc.runtime.artifact import ArgSpec, ArtifactError, KernelArtifact, LaunchSpec
from test_backends_kernels import VADD

BASE = dict(target="sm_90", shapes=[[4096]], dtypes=["f32"], schedule={"tile": 128})


def _artifact(asm="// ptx", binary=None):
    return KernelArtifact(
        target="sm_90", vendor="nvidia", kernel_name="k", asm=asm, binary=binary,
        launch=LaunchSpec(block=(128, 1, 1), grid=("cdiv(N, 128)", 1, 1),
                          constants={"BLOCK": 128}),
        args=(ArgSpec("a", "pointer", "f32", ("N",)), ArgSpec("n", "scalar", "i32"),
              ArgSpec("c", "pointer", "f32", ("N",), "output")),
        compiler_version="test",
    )


@pytest.mark.parametrize(
    "change",
    [
        {"target": "sm_80"},
        {"shapes": [[2048]]},
        {"dtypes": ["f16"]},
        {"schedule": {"tile": 256}},
        {"compiler_version": "other"},
    ],
)
def test_key_depends_on_each_component(change):
    assert cache_key("ir", **BASE) != cache_key("ir", **{**BASE, **change})
    assert cache_key("ir", **BASE) != cache_key("ir2", **BASE)


def test_key_ignores_formatting_noise():
    assert cache_key("a\r\n  b  \n\n", **BASE) == cache_key("a\n  b", **BASE)
    assert canonical_source("x \n\n y") == "x\n y"


def test_artifact_round_trip_and_corruption(tmp_path):
    art = _artifact(binary=b"\x7fELF\0\1")
    data = art.to_bytes()
    assert KernelArtifact.from_bytes(data) == art
    with pytest.raises(ArtifactError, match="hash"):
        KernelArtifact.from_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    # Truncation: the content hash (checked before the header is parsed).
    with pytest.raises(ArtifactError, match="hash mismatch"):
        KernelArtifact.from_bytes(data[:-3])
    with pytest.raises(ArtifactError, match="magic"):
        KernelArtifact.from_bytes(b"garbage" * 10)
    path = tmp_path / "k.tccbin"
    art.save(path)
    assert KernelArtifact.load(path) == art


def test_memory_and_disk_hits(tmp_path):
    cache = KernelCache(tmp_path)
    key = cache_key("ir", **BASE)
    assert cache.get(key) is None
    cache.put(key, _artifact())
    assert cache.path_for(key).exists()
    assert cache.get(key) == _artifact()
    fresh = KernelCache(tmp_path)  # new process-equivalent: disk only
    assert fresh.get(key) == _artifact()
    assert fresh.stats["disk_hits"] == 1


def test_corrupt_entry_is_deleted_and_rebuilt(tmp_path):
    cache = KernelCache(tmp_path)
    key = cache_key("ir", **BASE)
    cache.put(key, _artifact())
    path = cache.path_for(key)
    path.write_bytes(path.read_bytes()[:-5])  # truncated
    fresh = KernelCache(tmp_path)
    assert fresh.get(key) is None and not path.exists()
    assert fresh.stats["corrupt"] == 1
    builds = []
    got = fresh.get_or_build(key, lambda: builds.append(1) or _artifact("// rebuilt"))
    assert got.asm == "// rebuilt" and builds == [1] and path.exists()


def test_write_is_atomic(tmp_path, monkeypatch):
    cache = KernelCache(tmp_path)
    key = cache_key("ir", **BASE)
    cache.put(key, _artifact("// old"))

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    # A failed write is reported (once) and the artifact stays in memory.
    with pytest.warns(RuntimeWarning, match="disk full"):
        cache.put(key, _artifact("// new"))
    monkeypatch.undo()
    assert cache.get(key).asm == "// new"
    # The old entry is intact and no temporary file is left behind.
    assert KernelCache(tmp_path).get(key).asm == "// old"
    assert [p.name for p in cache.path_for(key).parent.iterdir()] == [f"{key}.tccbin"]


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TCC_CACHE_DIR", str(tmp_path / "c"))
    assert KernelCache().directory == tmp_path / "c"
    monkeypatch.delenv("TCC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert KernelCache().directory == tmp_path / "xdg" / "tcc"


def test_hit_times(tmp_path):
    cache = KernelCache(tmp_path)
    art = compile_gpu_module(VADD, "sm_90", outputs=[2], cache=cache)
    n = 1000
    t = time.perf_counter()
    for _ in range(n):
        assert compile_gpu_module(VADD, "sm_90", outputs=[2], cache=cache) is art
    memory_hit = (time.perf_counter() - t) / n
    assert memory_hit < 1e-3, f"memory hit took {memory_hit * 1e6:.1f} us"
    t = time.perf_counter()
    for _ in range(100):
        KernelCache(tmp_path).get(next(iter(cache._memory)))
    disk_hit = (time.perf_counter() - t) / 100
    print(f"\ncache hit: memory {memory_hit * 1e6:.1f} us (incl. key hash), "
          f"disk {disk_hit * 1e6:.1f} us")
    assert disk_hit < 0.05


def test_hit_never_imports_mlir(tmp_path):
    cache = KernelCache(tmp_path)
    compile_gpu_module(VADD, "sm_90", outputs=[2], cache=cache)
    code = f"""
import sys
from tcc.compiler.cache import KernelCache
from tcc.compiler.driver import compile_kernel
kernel = compile_kernel({VADD!r}, "sm_90", outputs=[2], cache=KernelCache({str(tmp_path)!r}))
assert kernel.artifact.kernel_name == "vadd", kernel.artifact
print(sorted(m for m in sys.modules if m == "mlir" or m.startswith("mlir.")))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.check_output([sys.executable, "-c", code], text=True, env=env)
    assert out.strip() == "[]"


def test_default_dir_layout(tmp_path):
    key = cache_key("ir", **BASE)
    path = KernelCache(tmp_path).path_for(key)
    assert path == Path(tmp_path) / "kernels" / key[:2] / f"{key}.tccbin"
