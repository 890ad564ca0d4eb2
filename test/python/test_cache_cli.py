"""The cache follows the compiler (an edited or rebuilt tcc never serves its
predecessor's kernels), TCC_ALWAYS_COMPILE, and the CLI's cache, version and
user-error behaviour."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import tcc
from tcc.compiler import cache as cache_mod
from tcc.compiler.cache import KernelCache, cache_key, fingerprint_of

GOOD = """
func.func @add(%a: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<256xf32> {
  %c = tcc.add %a, %b : tensor<256xf32>
  return %c : tensor<256xf32>
}
"""


def test_the_fingerprint_follows_every_compiler_file(tmp_path):
    package = tmp_path / "tcc"
    (package / "compiler").mkdir(parents=True)
    source = package / "compiler" / "compile.py"
    source.write_text("x = 1\n")
    (package / "_tcc_ext.so").write_bytes(b"\0" * 64)
    first = fingerprint_of(package)
    assert first == fingerprint_of(package)  # stable
    time.sleep(0.01)
    source.write_text("x = 2\n")  # an edited source
    second = fingerprint_of(package)
    assert second != first
    os.utime(package / "_tcc_ext.so", ns=(1, 1))  # a rebuilt extension
    assert fingerprint_of(package) not in (first, second)
    (package / "notes.txt").write_text("ignored")
    assert fingerprint_of(package) == fingerprint_of(package)
    # The default key uses this process's compiler.
    assert cache_key("x", target="sm_90") != cache_key("x", target="sm_90",
                                                       compiler_version="other")


def test_always_compile_skips_the_cache(tmp_path, monkeypatch):
    cache = KernelCache(tmp_path)
    first = tcc.compile(GOOD, "sm_90", cache=cache)
    builds = []
    real = cache_mod.KernelCache.put

    def counting(self, key, artifact):
        builds.append(key)
        return real(self, key, artifact)

    monkeypatch.setattr(cache_mod.KernelCache, "put", counting)
    tcc.compile(GOOD, "sm_90", cache=cache)
    assert builds == []  # a hit
    monkeypatch.setenv("TCC_ALWAYS_COMPILE", "1")
    again = tcc.compile(GOOD, "sm_90", cache=cache)
    assert len(builds) == 1 and again.artifact.kernels[0].asm == first.artifact.kernels[0].asm


def _cli(*args, env=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tcc.cli", *args], capture_output=True,
                          text=True, env=env)


def test_cli_version_cache_and_user_errors(tmp_path):
    out = _cli("--version")
    assert out.returncode == 0 and out.stdout.startswith(f"tcc {tcc.__version__} (tcc-")
    # `python -m tcc` is the same command line.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    as_module = subprocess.run([sys.executable, "-m", "tcc", "--version"], capture_output=True,
                               text=True, env=env)
    assert as_module.returncode == 0 and as_module.stdout == out.stdout
    missing = _cli("compile", str(tmp_path / "nope.mlir"))
    assert missing.returncode == 2
    assert missing.stderr.strip() == (f"tcc compile: cannot read {tmp_path / 'nope.mlir'}: "
                                      "No such file or directory")
    src = tmp_path / "add.mlir"
    src.write_text(GOOD)
    env = {"TCC_CACHE_DIR": str(tmp_path / "cache")}
    assert _cli("compile", str(src), "-o", str(tmp_path / "k.ptx"), env=env).returncode == 0
    info = _cli("cache", "info", env=env)
    assert info.returncode == 0
    assert f"directory: {tmp_path / 'cache'}" in info.stdout and "entries:   1" in info.stdout
    cleared = _cli("cache", "clear", env=env)
    assert cleared.stdout.strip() == f"removed 1 entries from {tmp_path / 'cache'}"
    assert "entries:   0" in _cli("cache", "info", env=env).stdout
    bad = _cli("opt", str(src), "-p", "no-such-pass")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "'no-such-pass' does not refer to a registered pass" in bad.stderr
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
    assert Path(tmp_path / "k.ptx").read_text().startswith("//")


def test_dump_dir_writes_every_stage_and_the_ir_after_every_pass(tmp_path, monkeypatch):
    dump = tmp_path / "dump"
    monkeypatch.setenv("TCC_DUMP_DIR", str(dump))
    cache = KernelCache(tmp_path / "cache")
    tcc.compile(GOOD, "sm_90", cache=cache)
    tcc.compile(GOOD, "sm_90", cache=cache)  # a dump compiles again (no cache hit)
    names = sorted(p.name for p in dump.glob("*.mlir"))
    assert names == ["0-source.mlir", "1-linalg.mlir", "2-tile.mlir", "3-gpu.mlir"]
    assert "tile.func @add" in (dump / "2-tile.mlir").read_text()
    passes = [p for p in (dump / "passes" / "tile").rglob("*.mlir")]
    assert any("convert-linalg-to-tile" in p.name for p in passes), passes
    src = tmp_path / "add.mlir"
    src.write_text(GOOD)
    monkeypatch.delenv("TCC_DUMP_DIR")
    out = _cli("compile", str(src), "--dump-dir", str(tmp_path / "cli"), "-o",
               str(tmp_path / "k.s"))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "cli" / "3-gpu.mlir").is_file()


def test_timing_prints_each_stages_pass_timings(tmp_path):
    """TCC_TIMING=1 / `tcc compile --timing`: MLIR's execution time report
    for each stage on stderr (from the compile worker), and a compile even
    when the cache holds the program."""
    src = tmp_path / "add.mlir"
    src.write_text(GOOD)
    env = {"TCC_CACHE_DIR": str(tmp_path / "cache")}
    assert _cli("compile", str(src), "-o", str(tmp_path / "k.s"), env=env).returncode == 0
    out = _cli("compile", str(src), "--timing", "-o", str(tmp_path / "k.s"), env=env)
    assert out.returncode == 0, out.stderr
    for stage in ("linalg", "tile", "gpu"):
        assert f"tcc: stage '{stage}'" in out.stderr
    assert out.stderr.count("Execution time report") >= 3
    assert "ConvertLinalgToTile" in out.stderr and "TccFormKernels" in out.stderr
    quiet = _cli("compile", str(src), "-o", str(tmp_path / "k.s"), env=env)
    assert "Execution time report" not in quiet.stderr


def test_print_ir_after_all_prints_every_pass(tmp_path):
    """`tcc compile --print-ir-after-all` (TCC_PRINT_IR_AFTER_ALL=1): the IR
    after every pass of every stage on stderr, compiled even when cached."""
    src = tmp_path / "add.mlir"
    src.write_text(GOOD)
    env = {"TCC_CACHE_DIR": str(tmp_path / "cache")}
    assert _cli("compile", str(src), "-o", str(tmp_path / "k.s"), env=env).returncode == 0
    out = _cli("compile", str(src), "--print-ir-after-all", "-o", str(tmp_path / "k.s"),
               env=env)
    assert out.returncode == 0, out.stderr
    for stage in ("linalg", "tile", "gpu"):
        assert f"tcc: stage '{stage}'" in out.stderr
    assert "// -----// IR Dump After TccFormKernels" in out.stderr
    assert "// -----// IR Dump After ConvertLinalgToTile" in out.stderr
    quiet = _cli("compile", str(src), "-o", str(tmp_path / "k.s"), env=env)
    assert "IR Dump After" not in quiet.stderr


def test_package_is_typed():
    from pathlib import Path as P

    assert (P(tcc.__file__).parent / "py.typed").is_file()


def test_compile_a_frontend_program_from_a_python_file(tmp_path):
    """`tcc compile FILE.py:PROGRAM --size M=...`: a tcc.frontend program
    defined in a Python file, its symbolic sizes bound on the command line."""
    src = tmp_path / "prog.py"
    src.write_text(
        "from tcc.frontend import Tensor, f32, program, syms\n"
        "M, N = syms('M N')\n"
        "@program\n"
        "def row_sum(x: Tensor[M, N, f32]):\n"
        "    return x.sum(-1)\n")
    out = _cli("compile", f"{src}:row_sum", "--size", "M=64", "--size", "N=128",
               "--emit", "tile", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert "memref<64x128xf32>" in out.stdout
    unbound = _cli("compile", f"{src}:row_sum", "--size", "M=64", "--no-cache")
    assert unbound.returncode == 1 and "N" in unbound.stderr and "Traceback" not in unbound.stderr
    for args, message in (
            ([f"{src}:nope"], "defines no tcc.frontend program 'nope' (programs there: row_sum)"),
            ([f"{src}:row_sum", "--size", "M"], "--size 'M': expected NAME=INTEGER"),
            ([str(tmp_path / "none.py") + ":p"], "cannot read"),
            (["x.mlir", "--size", "M=1"], "--size binds a tcc.frontend program's sizes")):
        bad = _cli("compile", *args)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr


def test_cli_writes_code_objects_or_refuses(tmp_path):
    """-o FILE.cubin / FILE.hsaco writes the code object itself (not the
    assembly text under that name), or refuses in one line."""
    from tcc.backends.amd import find_ld_lld

    src = tmp_path / "add.mlir"
    src.write_text(GOOD)
    cubin = _cli("compile", str(src), "--target", "sm_90", "-o", str(tmp_path / "k.cubin"),
                 "--no-cache")
    assert cubin.returncode == 0, cubin.stderr
    assert (tmp_path / "k.cubin").read_bytes()[:4] == b"\x7fELF"
    wrong = _cli("compile", str(src), "--target", "sm_90", "-o", str(tmp_path / "k.hsaco"))
    assert wrong.returncode == 2 and not (tmp_path / "k.hsaco").exists()
    assert wrong.stderr.strip() == (f"tcc compile: -o {tmp_path / 'k.hsaco'}: a .hsaco is an "
                                    "AMD code object; target sm_90 makes cubins")
    emit = _cli("compile", str(src), "--target", "gfx942", "--emit", "tile", "-o",
                str(tmp_path / "k.hsaco"))
    assert emit.returncode == 2 and "drop --emit" in emit.stderr
    amd = _cli("compile", str(src), "--target", "gfx942", "-o", str(tmp_path / "k.hsaco"),
               "--no-cache")
    if find_ld_lld() is not None:
        assert amd.returncode == 0 and (tmp_path / "k.hsaco").read_bytes()[:4] == b"\x7fELF"
    else:
        assert amd.returncode == 1 and not (tmp_path / "k.hsaco").exists()
        lines = amd.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            f"tcc compile: cannot write {tmp_path / 'k.hsaco'}: no hsaco for ")
        assert "install ROCm" in lines[0] and "Traceback" not in amd.stderr
        # Assembly output still works, with the missing linker one warning line.
        asm = _cli("compile", str(src), "--target", "gfx942", "-o", str(tmp_path / "k.s"),
                   "--no-cache")
        assert asm.returncode == 0 and (tmp_path / "k.s").read_text().lstrip().startswith(".")
        assert asm.stderr.strip().startswith("tcc compile: warning: no ld.lld found")
        assert len(asm.stderr.strip().splitlines()) == 1
