"""benchmarks/plot_results.py: each program's floor / time, as a PNG."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from plot_results import floor_ms, main, plot_programs  # noqa: E402


def _rows() -> list[dict]:
    # 1 GiB moved in 0.3 ms at a 4246 GB/s ceiling; a GEMM whose flops
    # dominate (137 GFLOP at 500 TFLOP/s).
    gemm_ms = 137.4e9 / 500e12 * 1e3
    return [
        {"name": "copy", "unit": "GB/s", "bytes": 2**30,
         "ms": {"tcc": 0.3, "eager": 0.6, "compile": 0.4},
         "rate": {"tcc": 2**30 / 0.3e-3 / 1e9}},
        {"name": "gemm", "unit": "TFLOP/s", "bytes": 100 * 2**20,
         "ms": {"tcc": gemm_ms, "eager": gemm_ms, "compile": gemm_ms * 1.1},
         "rate": {"tcc": 500.0}},
        {"name": "checked_only", "ok": True},
    ]


def test_floor_is_bytes_at_the_ceiling_or_flops_at_the_peak():
    copy, gemm, _ = _rows()
    assert floor_ms(copy, 4246.0, 989.0) == pytest.approx(2**30 / 4246e9 * 1e3)
    # The GEMM's flops at 989 TFLOP/s take longer than its bytes at 4246 GB/s.
    assert floor_ms(gemm, 4246.0, 989.0) == pytest.approx(137.4e9 / 989e12 * 1e3)


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = plot_programs(_rows(), tmp_path / "p.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_refuses_unknown_options_and_untimed_results(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    results = tmp_path / "r.json"
    results.write_text(json.dumps(_rows()))
    assert main([str(results), str(tmp_path / "o.png"), "--peak=1"]) == 2
    assert "unknown option" in capsys.readouterr().err
    assert main([str(results), str(tmp_path / "o.png"), "--copy-gbs=3000"]) == 0
    results.write_text(json.dumps([_rows()[2]]))
    with pytest.raises(ValueError, match="no timed programs"):
        main([str(results), str(tmp_path / "o.png")])


def test_the_schedule_sweep_draws_its_tuning_curves(tmp_path):
    """benchmarks/tune_schedule.py plot: the committed H200 sweep as a PNG
    (docs/performance.md shows it), one panel per benchmark."""
    pytest.importorskip("matplotlib")
    from tune_schedule import plot

    results = Path(__file__).parents[2] / "docs/results/h200-schedule-sweep-2026-11-29.json"
    png = plot(results, tmp_path / "sweep.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
