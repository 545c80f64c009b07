"""Tests of costmetrics.validate: RMSE, top set, fitted variant, tile selection.

Seed: thesis 000, Sec. A.5.2 (RMSE over all points and over those within 20% of the best)
and Sec. A.6.2-A.6.4 (opt_er, Err_max, Err_sign; the model's choices against a baseline).
Tables marked "synthetic" are built by the tests to check arithmetic; they are never
presented as measurements. The shipped measured dataset is only checked for consistency.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm
from _support import campaign
from costmetrics import measure as mm
from costmetrics import time as cm_time
from costmetrics import validate as cv
from costmetrics.experiments import validate as exp_validate
from costmetrics.presets import data_dir

SHIPPED = data_dir() / "measurements"
SWEEP = SHIPPED / "cpu_sweep.csv"
CALIBRATION = SHIPPED / "cpu_calibration"


def _write(path: Path, rows: list[list[object]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        f.write("# synthetic table for a test (not a measurement)\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(mm.CSV_COLUMNS)
        w.writerows(rows)
    return path


def _row(stencil: str, sizes: tuple[int, ...], tiles: tuple[int, ...], time_s: float,
         tags: str = "grid") -> list[object]:  # fmt: skip
    s2, ts2 = (sizes[1], tiles[1]) if len(sizes) >= 3 else ("", "")
    s3, ts3 = (sizes[2], tiles[2]) if len(sizes) == 4 else ("", "")
    return [
        stencil, sizes[0], s2, s3, sizes[-1], tiles[0], ts2, ts3, tiles[-1], tags, 2,
        "round-robin",
        0, 0, time_s, time_s, "", "true", 0.0, 1, 1, 1, 1, 1, 1024, "L1", 0, 0.5, 0.0,
    ]  # fmt: skip


# --------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------


def test_relative_rmse_hand_computed() -> None:
    # errors +10% and -10%: sqrt((0.01 + 0.01) / 2) = 0.1
    assert cv.relative_rmse([1.0, 2.0], [1.1, 1.8]) == pytest.approx(0.1, rel=1e-12)
    # errors 0 and +100%: sqrt((0 + 1) / 2) = 0.7071...
    assert cv.relative_rmse([1.0, 1.0], [1.0, 2.0]) == pytest.approx(math.sqrt(0.5))
    assert math.isnan(cv.relative_rmse([], []))


@pytest.mark.parametrize(
    ("m", "p"),
    [([1.0], [1.0, 2.0]), ([0.0], [1.0]), ([-1.0], [1.0]), ([1.0], [np.nan]), ([np.inf], [1.0])],
)
def test_relative_rmse_bad_input(m: list[float], p: list[float]) -> None:
    with pytest.raises(ValueError):
        cv.relative_rmse(m, p)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=20),
    st.floats(0.1, 10.0),
)
def test_property_rmse_of_uniform_scaling(measured: list[float], factor: float) -> None:
    # predicted = factor * measured for every point: the RMSE is |factor - 1| exactly.
    m = np.asarray(measured)
    assert cv.relative_rmse(m, factor * m) == pytest.approx(abs(factor - 1), rel=1e-9, abs=1e-12)


def test_top_mask_hand_computed(tmp_path: Path) -> None:
    # One problem with times 1.0, 1.2, 1.3, 2.0 (synthetic). Within 20% of the best in
    # performance: time <= 1.0 / 0.8 = 1.25 -> the first two. A second problem's best is
    # judged on its own: 3.0 and 3.7 (3.7 <= 3.75) are in, 4.0 is out.
    table = mm.read_table(
        _write(
            tmp_path / "t.csv",
            [
                _row("jacobi1d", (64, 8), (1, 2), 1.0),
                _row("jacobi1d", (64, 8), (2, 2), 1.2),
                _row("jacobi1d", (64, 8), (4, 2), 1.3),
                _row("jacobi1d", (64, 8), (8, 2), 2.0),
                _row("jacobi1d", (128, 8), (1, 2), 3.0),
                _row("jacobi1d", (128, 8), (2, 2), 3.7),
                _row("jacobi1d", (128, 8), (4, 2), 4.0),
            ],
        )
    )
    assert cv.top_mask(table).tolist() == [True, True, False, False, True, True, False]
    assert cv.top_mask(table, within=0.0).tolist() == [
        True,
        False,
        False,
        False,
        True,
        False,
        False,
    ]
    with pytest.raises(ValueError, match="within"):
        cv.top_mask(table, within=1.0)


def test_selection_hand_computed(tmp_path: Path) -> None:
    # Synthetic problem: baseline 2.0 s, model optimum 1.5 s, a near-optimal point 1.2 s,
    # the best grid point 1.0 s. opt_er = 1.5 - 1.0 = 0.5 s; best within 10% = 1.2 s;
    # gain of the near set over the baseline = 2.0/1.2 - 1 = 0.6667; of the optimum
    # 2.0/1.5 - 1 = 0.3333; baseline slowdown = 2.0/1.0 - 1 = 1.
    table = mm.read_table(
        _write(
            tmp_path / "t.csv",
            [
                _row("heat2d", (64, 64, 8), (1, 32, 2), 1.0),
                _row("heat2d", (64, 64, 8), (2, 32, 2), 2.0, "baseline"),
                _row("heat2d", (64, 64, 8), (4, 32, 2), 1.5, "grid+exact_opt"),
                _row("heat2d", (64, 64, 8), (8, 32, 2), 1.2, "exact_near"),
            ],
        )
    )
    rows = cv.selection(table, variant="exact")
    assert len(rows) == 1
    r = rows[0]
    assert r.opt_tiles == (4, 32, 2) and r.best_near_tiles == (8, 32, 2)
    assert r.best_tiles == (1, 32, 2) and r.baseline_tiles == (2, 32, 2)
    assert r.opt_error_s == pytest.approx(0.5)
    s = cv.selection_summary(rows)
    assert s["err_max_s"] == pytest.approx(0.5) and s["err_sign_s"] == pytest.approx(0.5)
    assert s["mean_opt_slowdown"] == pytest.approx(0.5)
    assert s["mean_near_slowdown"] == pytest.approx(0.2)
    assert s["mean_gain_near_over_baseline"] == pytest.approx(2.0 / 1.2 - 1)
    assert s["mean_gain_opt_over_baseline"] == pytest.approx(2.0 / 1.5 - 1)
    assert s["mean_baseline_slowdown"] == pytest.approx(1.0)
    assert cv.selection(table, variant="paper") == []  # no paper_opt tag
    assert cv.selection_summary([]) == {"n_problems": 0}


# --------------------------------------------------------------------------------------
# Predictions come from the C++ time model
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def calibration() -> mm.Calibration:
    return mm.load_calibration(CALIBRATION)


def test_predict_matches_time_model_and_marks_infeasible(
    tmp_path: Path, calibration: mm.Calibration
) -> None:
    table = mm.read_table(
        _write(
            tmp_path / "t.csv",
            [
                _row("heat2d", (64, 64, 8), (4, 32, 2), 1.0),
                _row("heat2d", (64, 64, 8), (4, 33, 2), 1.0),  # tS2 % 32 != 0 (Eq. A.32)
                _row("jacobi1d", (256, 8), (4, 2), 1.0),
            ],
        )
    )
    variants: tuple[cm_time.Variant, ...] = ("paper", "exact")
    for variant in variants:
        p = cv.predict(table, calibration, variant=variant)
        want = cm_time.talg(
            calibration.stencils["heat2d"],
            calibration.gpu,
            (64, 64, 8),
            (4, 32, 2),
            variant=variant,
        )
        assert p[0] == want
        assert np.isnan(p[1])
        assert p[2] == cm_time.talg(
            calibration.stencils["jacobi1d"], calibration.gpu, (256, 8), (4, 2), variant=variant
        )
    with pytest.raises(ValueError, match="variant"):
        cv.predict(table, calibration, variant="fast")
    with pytest.raises(TypeError):
        cv.predict(3, calibration, variant="paper")  # type: ignore[arg-type]


def test_fit_recovers_known_parameters_on_synthetic_times(
    tmp_path: Path, calibration: mm.Calibration
) -> None:
    # Synthetic: times generated by the model itself with known parameters; the fit
    # starts from other values (the shipped calibration) and must recover them, with a
    # held-out RMSE of ~0.
    truth = calibration.with_parameters(
        2e-10, 5e-9, 3e-7, {"jacobi1d": 1e-9, "heat2d": 2e-9, "gradient2d": 1e-8}
    )
    rows = []
    for size1 in ((4096, 64), (2048, 32)):
        for s1, tt in [(1, 2), (4, 2), (16, 4), (64, 8), (256, 16), (32, 32), (8, 64), (2, 6)]:
            rows.append(_row("jacobi1d", size1, (s1, tt), 1.0))
    for s1, s2, tt in [(1, 32, 2), (4, 64, 4), (8, 128, 8), (16, 32, 16), (2, 256, 2),
                       (32, 64, 4), (1, 96, 6), (8, 32, 12)]:  # fmt: skip
        for size2 in ((128, 128, 32), (96, 160, 16)):
            rows.append(_row("heat2d", size2, (s1, s2, tt), 1.0))
            rows.append(_row("gradient2d", size2, (s1, s2, tt), 1.0))
    path = _write(tmp_path / "t.csv", rows)
    times = cv.predict(mm.read_table(path), truth, variant="exact")
    for row, t in zip(rows, times, strict=False):
        row[mm.CSV_COLUMNS.index("time_s")] = repr(float(t))
    table = mm.read_table(_write(tmp_path / "t.csv", rows))
    result = cv.fit(table, calibration, variant="exact", n_boot=20)
    # Every problem is predicted by parameters fitted on the other problems only.
    assert result.n_problems == 6
    assert result.test_score.rmse_all < 1e-6
    assert np.isfinite(result.predicted_s).all()
    assert result.parameters["c_iter_s[heat2d]"] == pytest.approx(2e-9, rel=1e-4)
    assert result.parameters["c_iter_s[gradient2d]"] == pytest.approx(1e-8, rel=1e-4)
    assert result.parameters["t_sync_s"] == pytest.approx(3e-7, rel=1e-3)
    # With one problem there is nothing to hold out.
    one = mm.read_table(_write(tmp_path / "one.csv", rows[:8]))
    with pytest.raises(ValueError, match="two problems"):
        cv.fit(one, calibration, variant="exact")


def test_leave_problem_out_is_out_of_sample(tmp_path: Path, calibration: mm.Calibration) -> None:
    # Synthetic: one problem's times are 3x the model's, the other's 1x. Fitted on the
    # other problem alone, each is predicted at the other's scale: the out-of-sample
    # error is large, where a fit on all rows would hide it.
    rows = []
    for size in ((4096, 64), (2048, 32)):
        for s1, tt in [(1, 2), (4, 2), (16, 4), (64, 8), (256, 16), (32, 32)]:
            rows.append(_row("jacobi1d", size, (s1, tt), 1.0))
    path = _write(tmp_path / "t.csv", rows)
    base = cv.predict(mm.read_table(path), calibration, variant="exact")
    for i, (row, t) in enumerate(zip(rows, base, strict=False)):
        row[mm.CSV_COLUMNS.index("time_s")] = repr(float(t) * (1.0 if i < 6 else 3.0))
    table = mm.read_table(_write(tmp_path / "t.csv", rows))
    result = cv.fit(table, calibration, variant="exact", n_boot=20)
    pred, meas = result.predicted_s, table.time_s
    # Fitted on the 3x problem, the 1x problem is predicted 3x (error +200%), and vice versa.
    assert np.allclose(pred[:6] / meas[:6], 3.0, rtol=1e-6)
    assert np.allclose(pred[6:] / meas[6:], 1 / 3, rtol=1e-6)


def test_fit_machine_recovers_known_parameters_on_synthetic_times(
    tmp_path: Path, calibration: mm.Calibration
) -> None:
    # SYNTHETIC: times generated by the machine variant (every machine term set) with known
    # L, tau_sync, T_sync and C_iter; the fit starts from the same machine terms and the
    # shipped values of the four, and must recover them leave-problem-out.
    gpu = dataclasses.replace(
        calibration.gpu, threads_ref=2, l_seg_s=4e-9, tau_line_s=3e-9,
        t_barrier_per_thread_s=1e-8, t_share_line_s=2e-8,
        l_shared_s_per_word=(0.0, 0.0, 0.0, 5e-11),
    )  # fmt: skip
    start = dataclasses.replace(calibration, gpu=gpu)
    truth = start.with_parameters(
        2e-10, 5e-9, 3e-7, {"jacobi1d": 1e-9, "heat2d": 2e-9, "gradient2d": 1e-8}
    )
    assert truth.gpu.l_seg_s == 4e-9  # with_parameters keeps the machine terms
    rows = []
    for size1 in ((4096, 64), (2048, 32)):
        for s1, tt in [(1, 2), (4, 2), (16, 4), (64, 8), (256, 16), (32, 32), (8, 64), (2, 6)]:
            rows.append(_row("jacobi1d", size1, (s1, tt), 1.0))
    for s1, s2, tt in [(1, 32, 2), (4, 64, 4), (8, 128, 8), (16, 32, 16), (2, 256, 2),
                       (32, 64, 4), (1, 96, 6), (8, 32, 12)]:  # fmt: skip
        for size2 in ((128, 128, 32), (96, 160, 16)):
            rows.append(_row("heat2d", size2, (s1, s2, tt), 1.0))
            rows.append(_row("gradient2d", size2, (s1, s2, tt), 1.0))
    path = _write(tmp_path / "t.csv", rows)
    times = cv.predict(mm.read_table(path), truth, variant="machine")
    exact = cv.predict(mm.read_table(path), truth, variant="exact")
    assert np.isfinite(times).all() and (times > exact).all()  # the terms cost something
    for row, t in zip(rows, times, strict=False):
        row[mm.CSV_COLUMNS.index("time_s")] = repr(float(t))
    table = mm.read_table(_write(tmp_path / "t.csv", rows))
    result = cv.fit(table, start, variant="machine", n_boot=20)
    assert result.variant == "machine" and result.test_score.rmse_all < 1e-6
    assert result.parameters["c_iter_s[heat2d]"] == pytest.approx(2e-9, rel=1e-4)
    assert result.parameters["t_sync_s"] == pytest.approx(3e-7, rel=1e-3)
    assert result.calibration.gpu.t_share_line_s == 2e-8  # kept as calibrated


# --------------------------------------------------------------------------------------
# The shipped measured dataset
# --------------------------------------------------------------------------------------


def test_shipped_dataset_is_a_real_checked_measurement() -> None:
    table = mm.read_table(SWEEP)
    assert len(table) > 500
    assert table.correct.all()  # every run matched the naive stencil bitwise
    assert table.header_value(
        "command",
    ).startswith("costmetrics measure")  # type: ignore[union-attr]
    machine = json.loads(table.header_value("machine") or "{}")
    assert machine["threads"] >= 1 and "cpu_model" in machine and "loadavg" in machine
    assert (table.header_value("energy") or "").startswith(("no energy counters", "RAPL"))
    assert np.isfinite(table.loadavg_1m).all()
    # Heat 3D joined the harness (version 3) after the shipped dataset was measured; every
    # other harness stencil is in it.
    assert set(table.stencil) == set(mm.STENCILS) - {"heat3d"}
    for tag in ("grid", "baseline", "paper_opt", "exact_opt"):
        assert table.has_tag(tag).any()
    assert SWEEP.stat().st_size < 5_000_000


def test_validate_on_shipped_data(calibration: mm.Calibration) -> None:
    report = cv.validate(SWEEP, calibration)
    assert report.n_rows == report.n_correct
    for v in cv.VARIANTS:
        s = report.scores[v]
        assert 0 < s.n_top <= s.n_all <= report.n_rows
        assert math.isfinite(s.rmse_all) and math.isfinite(s.rmse_top)
        assert report.fitted[v].test_score.n_all == s.n_all  # every point, out of sample
        assert report.fitted[v].n_problems == 10
        g = s.overall
        assert g.rmse_all_ci[0] <= g.rmse_all <= g.rmse_all_ci[1]
        assert math.isnan(g.noise_floor)  # the shipped table has a single pass
        if v in ("paper", "exact"):  # the shipped sweep measured these variants' choices
            assert report.selection_summary[v]["n_problems"] == 10
    assert report.degenerate  # the grid holds tS1 = 1, tT = 2 for every problem
    json.dumps(report.to_dict())
    fig = exp_validate.plot_predicted_vs_measured(report, "test")
    assert len(fig.axes) == len(cv.VARIANTS)


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", *args],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_cli_validate_json() -> None:
    done = _cli("validate", str(SWEEP), "--calibration", str(CALIBRATION), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out["scores"]) == set(cv.VARIANTS)


def test_cli_measure_and_calibrate_quick(tmp_path: Path) -> None:
    out = tmp_path / "m.csv"
    done = _cli("measure", "--out", str(out), "--stencils", "jacobi1d", "--limit", "2",
                "--passes", "2", "--threads", "1", "--warmup", "0", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rows"] == 4
    done = _cli("calibrate", "--out", str(tmp_path / "cal"), "--repeats", "1", "--configs", "2",
                "--working-set-words", "65536", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["gpu"]["max_blocks_per_sm"] == 1


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "missing.csv", "--calibration", "missing"],
        ["measure", "--out", "x.csv", "--stencils", "nope"],
        ["measure", "--out", "x.csv", "--limit", "0"],
        ["measure", "--out", "x.csv", "--threads", "999"],
        ["measure", "--out", "x.csv", "--passes", "0"],
        ["measure", "--out", "x.csv", "--schedule", "zigzag"],
        ["tune", "nope", "10", "2", "--calibration", "missing"],
        ["calibrate", "--out", "x", "--configs", "0"],
    ],
)
def test_cli_bad_input_one_line_exit_2(args: list[str], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", *args],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""


# ------------------------------------------------------------------ Hypothesis campaign
# Generated arguments against the contract of _support.py (run long: HYPOTHESIS_PROFILE=long
# pytest -m campaign).


@campaign
@given(
    st.lists(st.lists(st.one_of(st.floats(1e-6, 10.0), st.just(math.nan)), min_size=6,
                      max_size=6), min_size=1, max_size=4),
    st.integers(0, 3), st.integers(0, 5), st.sampled_from([0.0, -0.0, -1.0, -1e-300, math.inf]),
)  # fmt: skip
def test_noise_floor_refuses_non_positive_times(
    rows: list[list[float]], row: int, col: int, bad: float
) -> None:
    p = np.asarray(rows, dtype=float)
    row %= p.shape[0]
    p[row, col] = bad
    with pytest.raises(ValueError, match=rf"^pass_times_s\[{row}, {col}\]: .* > 0"):
        cm.validate.noise_floor(p)


@campaign
@given(
    st.lists(st.lists(st.one_of(st.floats(1e-6, 10.0), st.just(math.nan)), min_size=1,
                      max_size=6).map(lambda r: r + [1.0] * (6 - len(r))), min_size=0, max_size=8)
)  # fmt: skip
def test_noise_floor_contract(rows: list[list[float]]) -> None:
    p = np.asarray(rows, dtype=float).reshape(len(rows), 6)
    floor = cm.validate.noise_floor(p)
    assert math.isnan(floor) or (math.isfinite(floor) and floor >= 0)
