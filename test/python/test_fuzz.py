"""The fuzzing harness's fixed-seed CI slice (the long campaign is
`python -m tcc.testing.fuzz`, docs/reliability.md): no crash, hang or
numerical mismatch; and the harness itself classifies and minimizes."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tcc.testing.fuzz import opt as fuzz_opt
from tcc.testing.fuzz import programs as fuzz_programs

ROOT = Path(__file__).resolve().parents[1]  # test/


def test_tcc_opt_mutations_fixed_seed_slice(tmp_path, tcc_opt):
    report = fuzz_opt.campaign(tcc_opt, ROOT, seed=1, runs=150, out=tmp_path)
    assert report.runs == 150
    assert report.crashes == {} and report.hangs == [], (report.crashes, report.hangs)
    assert report.internal == {}, report.internal
    assert report.outcomes["diagnostic"] > 0 and report.outcomes["ok"] > 0


def test_random_programs_fixed_seed_slice():
    report = fuzz_programs.campaign(seed=1, count=8)
    assert report.failures == [], report.failures
    assert report.outcomes["ok"] >= 8  # most of them compile and match


def test_the_harness_sees_a_crash_and_minimizes_it(tmp_path):
    # A stand-in tcc-opt that aborts on a marker line, after an assertion
    # message like LLVM's.
    fake = tmp_path / "fake-opt"
    fake.write_text(f"#!{sys.executable}\n"
                    "import os, sys\n"
                    "text = open(sys.argv[1]).read()\n"
                    "if 'BOOM' in text:\n"
                    "    sys.stderr.write(\"x: Assertion `n > 0' failed.\\n\")\n"
                    "    sys.stderr.flush()\n"
                    "    os.abort()\n"
                    "sys.exit(1 if 'bad' in text else 0)\n")
    fake.chmod(0o755)
    text = "line one\nBOOM here\nline three\nbad line\n"
    out = fuzz_opt.run_opt(str(fake), text, (), timeout=20)
    assert out.kind == "crash" and out.signature == "Assertion `n > N' failed"
    small = fuzz_opt.minimize(str(fake), text, (), out.signature, timeout=20)
    assert small == "BOOM here"
    assert fuzz_opt.run_opt(str(fake), "bad\n", (), timeout=20).kind == "diagnostic"
    assert fuzz_opt.run_opt(str(fake), "fine\n", (), timeout=20).kind == "ok"


def test_a_signal_crash_is_signed_by_the_frame_it_hit():
    # LLVM's stack dump: the first frame past the signal handlers names the
    # crash site, so two bugs that both segfault are two signatures.
    dump = (" #0 0x00007f0d7d77df3b llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) "
            "(/x/libLLVM.so+0x97df3b)\n"
            " #1 0x00007f0d7d77adbf SignalHandler(int, siginfo_t*, void*) Signals.cpp:0:0\n"
            " #2 0x00007f0d7cc5a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)\n"
            " #3 0x0000563a7fb3d36f (anonymous namespace)::DimClasses::element(mlir::Value, "
            "unsigned int) BindShapeSymbols.cpp:0:0\n")
    assert fuzz_opt._crash_frame(dump) == "DimClasses::element"
    assert fuzz_opt._crash_frame("no dump") == "an unknown frame"


FINDINGS = ROOT / "fuzz-findings"


@pytest.mark.parametrize("path", sorted(FINDINGS.glob("*.mlir")), ids=lambda p: p.name)
def test_tcc_opt_stops_on_upstream_assertions_with_a_message(path, tmp_path, tcc_opt):
    """The fuzzer's findings (upstream MLIR asserting on malformed input;
    mlir-opt aborts on each): tcc-opt exits 1 with a message naming the
    input and the assertion, no signal, no stack trace."""
    rerun = next(line for line in path.read_text().splitlines() if line.startswith("// rerun:"))
    args = [a for a in shlex.split(rerun.split("(", 1)[0])[3:] if a.startswith("--")]
    output = tmp_path / "out.mlir"
    proc = subprocess.run([tcc_opt, str(path), *args, "-o", str(output)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert not output.exists()  # no partial output left behind
    assert f"{path}: error: tcc-opt stopped on an internal error of MLIR/LLVM: " in proc.stderr
    assert "PLEASE submit a bug report" not in proc.stderr and "Stack dump" not in proc.stderr
    outcome = fuzz_opt.run_opt(tcc_opt, path.read_text(), tuple(args), timeout=60)
    assert outcome.kind == "internal", outcome
    # The signature the finding was saved under names the same failure.
    first = path.read_text().splitlines()[0]
    key = re.search(r"`(.*)' failed|LLVM ERROR: (.*)", first)
    assert key is not None and (key.group(1) or key.group(2)) in outcome.signature


def test_f16_branch_flip_is_not_a_mismatch():
    """An f16 comparison whose operands round across each other picks
    another branch than float64: the oracle accepts a result that matches
    the program evaluated in f16 (and only that)."""
    import numpy as np

    def reference(x):
        return np.where(x + 0.0001 > 1.0, 1.0, 0.0)

    x = [np.array([1.0], dtype=np.float16)]  # 1 + 0.0001 is 1 in f16, not in float64
    assert fuzz_programs._matches_native(reference, x, np.array([0.0]), 2e-2, 1.0)
    assert not fuzz_programs._matches_native(reference, x, np.array([0.5]), 2e-2, 1.0)


def test_f32_branch_flip_is_not_a_mismatch():
    """Seed 61's finding: `(x1 - x0) + x0 > x1` is false in float64 and can
    be true in f32; tcc's f32 result equals numpy's f32 evaluation."""
    import numpy as np

    gen = fuzz_programs.Generated(
        "", "def reference(x0, x1):\n    m = np.maximum((x1 - x0) + x0, x1)\n"
            "    return np.where(m > x1, m, x1 * 2.0)\n", [(64,), (64,)], "f32")
    rng = np.random.default_rng(5)
    x0, x1 = (rng.standard_normal(64).astype(np.float32) for _ in range(2))
    m = np.maximum((x1 - x0) + x0, x1)
    in_f32 = np.where(m > x1, m, x1 * 2.0)
    assert (in_f32 != x1 * 2.0).any()  # some elements flip in f32
    assert fuzz_programs.compare(gen, [x0, x1], in_f32).kind == "ok"
    assert fuzz_programs.compare(gen, [x0, x1], in_f32 + 1.0).kind == "mismatch"


def test_reductions_with_broadcast_prologues_compile():
    """Seed 11's first programs (4 minutes of it refused about 1 in 4 with
    "needs 1 kernels" before tcc-materialize-broadcasts) now compile and match."""
    report = fuzz_programs.campaign(seed=11, count=12, targets=("sm_80",))
    assert report.failures == [], report.failures
    assert report.outcomes["refused"] == 0, report.refusals


def test_real_sizes_stay_in_bounds():
    import random

    import numpy as np

    rng = random.Random(3)
    for _ in range(200):
        gen = fuzz_programs.generate(rng, fuzz_programs.REAL)
        first = int(np.prod(gen.inputs[0]))
        assert fuzz_programs.REAL.min_elements <= first <= fuzz_programs.REAL.max_elements
        assert all(int(np.prod(s)) <= max(first, 65536 * 1000) for s in gen.inputs)


def test_gpu_campaign_builds_artifacts_and_a_manifest(tmp_path):
    import json

    from tcc.runtime.program import ProgramArtifact
    from tcc.testing.fuzz import gpu as fuzz_gpu

    outcomes = fuzz_gpu.build(tmp_path, seed=51, count=4, progress=False)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["seed"] == 51 and manifest["target"] == "sm_90"
    assert len(manifest["programs"]) == 4 and sum(outcomes.values()) == 4
    for entry in manifest["programs"]:
        if entry["outcome"] == "compiled":
            art = ProgramArtifact.load(str(tmp_path / f"{entry['name']}.tccprog"))
            # every output is written by a launch (no result left in an input)
            written = {v for s in art.steps for v in s.args if art.values[v].kind == "output"}
            assert written == {i for i, v in enumerate(art.values) if v.kind == "output"}
    assert outcomes["crash"] == 0


def test_gpu_oracle_catches_an_unwritten_output():
    import numpy as np

    gen = fuzz_programs.Generated("", "def reference(x0):\n    return x0\n", [(4, 4)], "f32")
    x = np.ones((4, 4), np.float32)
    assert fuzz_programs.compare(gen, [x], x).kind == "ok"
    poisoned = np.full((4, 4), np.nan, np.float32)
    assert fuzz_programs.compare(gen, [x], poisoned).kind == "mismatch"
