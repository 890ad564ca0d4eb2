"""Autotuning (tcc.tune, `tcc tune build|run|apply`) and plans given to
tcc.compile: candidates per form, the parallel build of a program's
variants, the tuning database and its use by tcc.compile. The GPU half
(`tcc tune run`) is exercised on the H200 (docs/tuning.md); here a run's
results are written by hand."""

import json
import re

import pytest

import tcc
from tcc.compiler.compile import CompilationError
from tcc.tune import TuningDB, build, candidates
from tcc.tune.run import apply
from tcc.tune.space import parse

SOFTMAX = """
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<64x1000xf32>)
      outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}
"""
PLAN = re.compile(r"#tile\.lowering_config<[^>]*>")


@pytest.fixture(autouse=True)
def _private_db(tmp_path, monkeypatch):
    monkeypatch.setenv("TCC_TUNING_DB", str(tmp_path / "tuning.json"))


def _plan_of(compiled, i=0):
    return PLAN.search(compiled.kernels[i].ir["tile"]).group(0)


@pytest.mark.parametrize("config", [
    "#tile.lowering_config<form = softmax, block = [2, 1024], num_warps = 4>",
    "#tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, walk = looped>",
    "#tile.lowering_config<form = elementwise, block = [8, 256], num_warps = 4>",
    "#tile.lowering_config<form = column_reduction, block = [32, 128], num_warps = 8>",
    "#tile.lowering_config<form = matmul, block = [128, 128, 32], num_warps = 4, "
    "num_stages = 3, mma = mma_sync_m16n8k16>",
])
def test_candidates_are_other_configs_of_the_same_form(config):
    found = candidates(config)
    assert found and config not in found and len(set(found)) == len(found)
    for c in found:
        fields = parse(c)
        assert fields["form"] == parse(config)["form"]
        assert set(fields) == set(parse(config))  # mma, walk, stages kept


def test_hopper_gemms_try_pingpong_consumers():
    config = ("#tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, "
              "num_stages = 4, mma = wgmma_m64nNk16>")
    found = candidates(config)
    assert ("#tile.lowering_config<form = matmul, block = [128, 128, 64], num_warps = 12, "
            "num_stages = 5, mma = wgmma_m64nNk16, consumers = pingpong>") in found
    # a ping-pong plan's neighbours keep it (no second consumers field)
    pingpong = [c for c in found if "pingpong" in c][0]
    assert all(c.count("consumers") == 1 for c in candidates(pingpong) if "consumers" in c)


def test_hopper_gemms_try_other_clusters():
    base = ("#tile.lowering_config<form = matmul, block = [128, 256, 64], num_warps = 12, "
            "num_stages = 4, mma = wgmma_m64nNk16")
    found = candidates(base + ", cluster = [2, 1]>")
    assert base + ">" in found and base + ", cluster = [1, 2]>" in found
    assert base + ", cluster = [2, 1]>" not in found
    # block and stage neighbours keep the cluster; ping-pong plans take none
    assert any("block = [128, 128, 64]" in c and "cluster = [2, 1]" in c for c in found)
    assert all("cluster" not in c for c in found if "pingpong" in c)
    assert base + ", cluster = [2, 1]>" in candidates(base + ">")


@pytest.mark.parametrize(("walk", "other"), [("looped", "staged"), ("staged", "looped")])
def test_long_softmax_rows_try_the_other_walk(walk, other):
    config = ("#tile.lowering_config<form = softmax, block = [1, 2048], num_warps = 8, "
              f"walk = {walk}>")
    assert config.replace(walk, other) in candidates(config)


def test_compile_takes_plans_by_kernel_name():
    plan = "#tile.lowering_config<form = softmax, block = [4, 1024], num_warps = 8>"
    compiled = tcc.compile(SOFTMAX, "sm_80", cache=False, plans={"softmax": plan})
    assert _plan_of(compiled) == plan
    assert compiled.kernels[0].launch.block[0] == 8 * 32
    assert compiled.kernels[0].launch.grid[0] == 16  # 64 rows, 4 per program


@pytest.mark.parametrize(("plans", "message"), [
    ({"nope": "#tile.lowering_config<form = softmax, block = [4, 1024], num_warps = 8>"},
     "names no kernel of this module (kernels: softmax)"),
    ({"softmax": "#tile.lowering_config<form = matmul, block = [64, 64, 32], num_warps = 4, "
                 "mma = mma_sync_m16n8k16>"},
     "names form 'matmul', which does not build this kernel"),
])
def test_compile_refuses_plans_for_no_kernel_or_another_form(plans, message):
    with pytest.raises(CompilationError, match=re.escape(message)):
        tcc.compile(SOFTMAX, "sm_80", cache=False, plans=plans)


@pytest.mark.parametrize("plans", [{"softmax": "block = [4, 1024]"},
                                   {"1x": "#tile.lowering_config<>"},
                                   {"softmax": '#tile.lowering_config<form = "x">'}])
def test_compile_refuses_malformed_plans(plans):
    with pytest.raises(ValueError, match="plans"):
        tcc.compile(SOFTMAX, "sm_80", cache=False, plans=plans)


def test_build_compiles_every_candidate(tmp_path):
    out = build(SOFTMAX, "sm_80", tmp_path / "tune", jobs=2, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["target"] == "sm_80" and manifest["text"] == SOFTMAX
    default_plan = manifest["default"]["plans"]["softmax"]
    assert (out / "default.tccprog").is_file()
    variants = manifest["variants"]
    assert len(variants) == len(candidates(default_plan))
    built = [v for v in variants if not v["error"]]
    assert len(built) >= len(variants) // 2
    for v in built:
        program = tcc.runtime.load(str(out / v["path"]))
        assert program.artifact.kernels[0].kernel_name == "softmax"
    # a refused candidate says why
    assert all(v["error"] or (out / v["path"]).is_file() for v in variants)


def _fake_run(out, best_plan, ms=0.5):
    (out / "results.json").write_text(json.dumps({
        "target": "sm_80", "default_ms": 1.0, "variants": [],
        "best": {"softmax": {"plan": best_plan, "ms": ms}}, "device": "test"}))


def test_apply_records_and_compile_uses_the_tuned_plan(tmp_path):
    out = build(SOFTMAX, "sm_80", tmp_path / "tune", jobs=2, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    best = next(v["plan"] for v in manifest["variants"] if not v["error"])
    _fake_run(out, best)
    assert apply(out) == {"softmax": best}
    assert TuningDB.default().lookup(SOFTMAX, "sm_80") == {"softmax": best}
    assert _plan_of(tcc.compile(SOFTMAX, "sm_80", cache=False)) == best
    assert _plan_of(tcc.compile(SOFTMAX, "sm_80", cache=False, tuned=False)) != best
    # other targets and other programs are not affected
    assert TuningDB.default().lookup(SOFTMAX, "gfx942") is None
    assert TuningDB.default().lookup(SOFTMAX.replace("1000", "999"), "sm_80") is None


def test_autotune_builds_runs_applies_and_compiles_the_winner(tmp_path, monkeypatch):
    # The GPU half is replaced by a run that picks the first built variant.
    import tcc.tune.run as tune_run

    picked = {}

    def fake_run(directory, **kwargs):
        out = tmp_path / "kept"
        manifest = json.loads((out / "manifest.json").read_text())
        picked["plan"] = next(v["plan"] for v in manifest["variants"] if not v["error"])
        _fake_run(out, picked["plan"])
        assert kwargs == {"warmup": 3, "reps": 4, "progress": False}

    monkeypatch.setattr(tune_run, "run", fake_run)
    tuned = tcc.autotune(SOFTMAX, "sm_80", directory=tmp_path / "kept", jobs=2, warmup=3,
                         reps=4, progress=False)
    assert _plan_of(tuned) == picked["plan"]
    assert TuningDB.default().lookup(SOFTMAX, "sm_80") == {"softmax": picked["plan"]}
    # later compiles take the recorded plan without tuning again
    assert _plan_of(tcc.compile(SOFTMAX, "sm_80", cache=False)) == picked["plan"]


def test_apply_refuses_a_build_of_another_compiler(tmp_path):
    out = build(SOFTMAX, "sm_80", tmp_path / "tune", jobs=1, progress=False)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["compiler"] = "tcc-0.0.0+other"
    (out / "manifest.json").write_text(json.dumps(manifest))
    _fake_run(out, manifest["default"]["plans"]["softmax"])
    with pytest.raises(ValueError, match="built by compiler tcc-0.0.0"):
        apply(out)


def test_an_unreadable_database_is_empty(tmp_path):
    path = tmp_path / "tuning.json"
    path.write_text("{not json")
    assert TuningDB(path).lookup(SOFTMAX, "sm_80") is None
    TuningDB(path).record(SOFTMAX, "sm_80", {"softmax": "#tile.lowering_config<x>"})
    assert TuningDB(path).lookup(SOFTMAX, "sm_80") == {"softmax": "#tile.lowering_config<x>"}


def test_cli_tune_errors(tmp_path, capsys):
    from tcc.cli import main

    assert main(["tune", "build", str(tmp_path / "missing.mlir"), "--out", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
    src = tmp_path / "p.mlir"
    src.write_text(SOFTMAX)
    assert main(["tune", "build", str(src)]) == 2
    assert "needs --out" in capsys.readouterr().err
    assert main(["tune", "run", str(tmp_path)]) == 2
    assert "is not a `tcc tune build` directory" in capsys.readouterr().err


def test_tune_plot_draws_each_kernels_candidates(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from tcc.cli import main

    out = tmp_path / "tune"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    assert main(["tune", "plot", str(out)]) == 2
    assert "no results.json" in capsys.readouterr().err
    plan = "#tile.lowering_config<form = softmax, block = [1, 1024], num_warps = 4>"
    variants = [{"kernel": "softmax", "plan": plan, "ok": True, "ms": 0.4},
                {"kernel": "softmax", "plan": plan.replace("4>", "8>"), "ok": True, "ms": 0.6},
                {"kernel": "softmax", "plan": plan.replace("1024", "4096"), "ok": False,
                 "error": "refused"},
                {"kernel": "other", "plan": plan, "ok": True, "ms": 0.1}]
    (out / "results.json").write_text(json.dumps({
        "target": "sm_90", "default_ms": 0.5, "variants": variants,
        "best": {"softmax": {"plan": plan, "ms": 0.4}}, "device": "test"}))
    assert main(["tune", "plot", str(out)]) == 0
    assert (out / "tuning.png").read_bytes()[:4] == b"\x89PNG"
    assert main(["tune", "plot", str(out), "--out", str(tmp_path / "t.png")]) == 0
    assert (tmp_path / "t.png").is_file() and "wrote" in capsys.readouterr().out
