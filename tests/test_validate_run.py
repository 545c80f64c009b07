"""Smoke test of benchmarks/bench_validate_run.py (issue 21's one-command quiet-machine run).

``--quick`` measures a handful of tiny points: its numbers mean nothing and are not
checked; what is checked is that every step runs, the targets are all judged, a rerun
after a cut resumes without losing or repeating measurements, and bad arguments exit 2
before anything is measured.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_validate_run.py"


def _bench_module(name: str) -> Any:
    """Load ``benchmarks/<name>.py`` as a module (the scripts are not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, SCRIPT.with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip


def test_quick_run_judges_every_target_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "vr"
    done = _run("--quick", "--runs", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    targets = json.loads((out / "targets.json").read_text(encoding="utf-8"))["targets"]
    names = {t["target"] for t in targets}
    assert any(n.startswith("1 thread: RMSE top 20%") for n in names)
    assert any(n.startswith("tuner k = 5") for n in names)
    assert any(n.startswith("machine variant batch cost") for n in names)
    assert all(isinstance(t["met"], bool) for t in targets)
    assert "| run | target | variant |" in done.stdout
    assert "targets met on every run" in done.stdout
    assert {t["run"] for t in targets} == {"0", "all"}  # every target on the run; agreement once
    # One run: no second grid to rank by; the selection targets' floor is the grid ranked
    # by half of its passes, scored on the other half (validate.split_selection_floor).
    grid = mm.read_table(out / "run0" / "sweep.csv").per_point("median")
    split = cv.split_selection_floor(grid, ks=(1, 5)).summary()
    tuner_rows = [t for t in targets
                  if t["goal"].startswith("tuner k") and t["statistic"] == "median"]  # fmt: skip
    assert tuner_rows
    assert all(t["noise_floor"] == pytest.approx(split["5"]["max"]) for t in tuner_rows)
    opt = [t for t in targets if t["goal"] == "predicted optimum (tile, threads) vs best: mean"
           and t["statistic"] == "median"]  # fmt: skip
    assert opt and all(t["noise_floor"] == pytest.approx(split["1"]["mean"]) for t in opt)
    # The selection re-measured: every kept run and the grid's fastest in confirm.csv, the
    # selection targets judged on it, the grid's own best re-measured as their floor.
    again_rows = [t for t in targets if t["goal"].startswith("re-measured: ")]
    assert {t["goal"] for t in again_rows} == {
        "re-measured: predicted optimum vs best: mean",
        "re-measured: predicted optimum vs best: worst problem",
        "re-measured: tuner k = 5: worst problem vs best",
    }
    assert all(t["value"] >= 0 and np.isfinite(t["noise_floor"]) for t in again_rows)
    confirm = mm.read_table(out / "run0" / "confirm.csv")
    assert set(confirm.tags) == {("confirm",)} and confirm.n_passes == 2
    report = cv.validate(out / "run0" / "sweep.csv", cv.run_folder_calibrations(out / "run0"),
                         n_boot=40)  # fmt: skip
    fm = cv.confirmed_curve(report.tuner["fitted-machine"], confirm.per_point("median"))
    key = ("0", "re-measured: tuner k = 5: worst problem vs best", "fitted-machine", "median")
    assert {(t["run"], t["goal"], t["variant"], t["statistic"]): t["value"]
            for t in again_rows}[key] == pytest.approx(fm.summary()["5"]["max"])  # fmt: skip
    # And against the grid's best run, both timed in confirm.csv.
    grid = mm.read_table(out / "run0" / "sweep.csv").per_point("median")
    best = cv.tuner_curve_of(grid, grid.time_s, label="the grid's best", ks=(1,))
    vs = cv.confirmed_curve(report.tuner["fitted-machine"], confirm.per_point("median"),
                            reference=best).summary()  # fmt: skip
    by_goal = {t["goal"]: t for t in targets
               if t["variant"] == "fitted-machine" and t["statistic"] == "median"
               and t["goal"].startswith("re-measured vs the grid's best: ")}  # fmt: skip
    assert by_goal["re-measured vs the grid's best: tuner k = 5: worst problem"][
        "value"] == pytest.approx(vs["5"]["max"])  # fmt: skip
    assert by_goal["re-measured vs the grid's best: predicted optimum: mean"][
        "value"] == pytest.approx(vs["1"]["mean"])  # fmt: skip
    assert len(by_goal) == 3 and all(np.isfinite(t["noise_floor"]) for t in by_goal.values())
    sweep = out / "run0" / "sweep.csv"
    before = mm.read_table(sweep)
    # Cut the table inside its last row (a kill while writing) and rerun: the row is set
    # aside and measured again, nothing else is measured twice.
    data = sweep.read_bytes()
    sweep.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 10])
    (out / "targets.json").unlink()
    again = _run("--quick", "--runs", "1", "--out", str(out))
    assert again.returncode == 0, again.stderr
    after = mm.read_table(sweep)

    def runs(t: mm.Table) -> list[str]:
        return sorted(f"{t.key_of(i)} {int(t.pass_index[i])}" for i in range(len(t)))

    assert len(after) == len(before) and runs(after) == runs(before)
    assert (out / "targets.json").exists()
    assert (out / "run0" / "cal_1t" / "calibration.json").exists()


def test_two_runs_print_the_selection_floor(tmp_path: Path) -> None:
    # With two runs, the selection targets' noise floor is each grid ranked by the other
    # run's times (validate.selection_floor); one run has none to rank by.
    out = tmp_path / "vr2"
    done = _run("--quick", "--runs", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    targets = json.loads((out / "targets.json").read_text(encoding="utf-8"))["targets"]
    tables = [mm.read_table(out / f"run{i}" / "sweep.csv").per_point("median") for i in (0, 1)]
    floor = cv.selection_floor(tables[0], tables[1], ks=(1, 5)).summary()
    rows = {(t["run"], t["goal"], t["variant"], t["statistic"]): t for t in targets}
    for variant in ("exact", "fitted-machine"):
        key = ("0", "predicted optimum (tile, threads) vs best: worst problem", variant, "median")
        assert rows[key]["noise_floor"] == pytest.approx(floor["1"]["max"])
        key = ("0", "tuner k = 5: worst problem vs grid's best", variant, "median")
        assert rows[key]["noise_floor"] == pytest.approx(floor["5"]["max"])


def test_bad_arguments_exit_2_before_measuring(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    done = _run("--quick", "--out", str(blocker / "sub"))
    assert done.returncode == 2 and "--out" in done.stderr
    assert not (blocker.parent / "sub").exists()
    done = _run("--runs", "0", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "--runs" in done.stderr
    done = _run("--passes", "2", "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "--passes" in done.stderr
    assert not (tmp_path / "o" / "run0").exists()
    for args, name in [
        (("--noise-target", "-0.1"), "--noise-target"),
        (("--noise-target", "1.5"), "--noise-target"),
        (("--noise-target", "0", "--max-passes", "20"), "--max-passes"),  # 0: off
        (("--max-passes", "5"), "--max-passes"),  # fewer than --passes' 9
        (("--noise-target", "0.05", "--max-passes", "3"), "--max-passes"),
        (("--quiet-host", "1.5"), "--quiet-host"),
        (("--quiet-host", "-0.1"), "--quiet-host"),
        (("--quiet-wait", "-1"), "--quiet-wait"),
        (("--quiet-every", "0.5"), "--quiet-every"),
        (("--quiet-probe", "0"), "--quiet-probe"),
        (("--confirm-passes", "1"), "--confirm-passes"),
        (("--confirm-passes", "-2"), "--confirm-passes"),
    ]:
        done = _run(*args, "--out", str(tmp_path / "o"))
        assert done.returncode == 2 and name in done.stderr, (args, done.stderr)
    assert not (tmp_path / "o" / "run0").exists()


def test_adaptive_passes_by_default() -> None:
    # (2026-12-01) The runs that told the 1-thread model's miss from noise took pairs of
    # passes up to 21 where a group's noise floor was above 2%; 9 passes alone left it at
    # 3.5-4.0%. That is now the command's default; 0 turns it off, --quick keeps it off.
    import argparse

    bvr = _bench_module("bench_validate_run")

    def resolved(noise: float | None, max_passes: int | None, passes: int = 9,
                 quick: bool = False) -> tuple[float | None, int | None]:  # fmt: skip
        args = argparse.Namespace(noise_target=noise, max_passes=max_passes, passes=passes,
                                  quick=quick)  # fmt: skip
        bvr._adaptive_defaults(args)
        return args.noise_target, args.max_passes

    assert resolved(None, None) == (0.02, 21)
    assert resolved(None, None, passes=30) == (0.02, 30)
    assert resolved(None, 15) == (0.02, 15)
    assert resolved(0.05, None) == (0.05, None)  # given: measure's own limit, as before
    assert resolved(0.0, None) == (None, None)
    assert resolved(None, None, quick=True) == (None, None)


RESCORE = SCRIPT.with_name("bench_validate_rescore.py")
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "measurements"


def test_rescore_judges_shipped_runs_and_measures_nothing(tmp_path: Path) -> None:
    folder = SHIPPED / "quiet_run_2026-11-28"
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    done = subprocess.run(
        [sys.executable, str(RESCORE), str(folder),
         str(SHIPPED / "diagnostic_2026-11-29_xeon_share_lines"), "--calibrations", "saved",
         "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "diagnostic_2026-11-29_xeon_share_lines: no sweep with its calibrations" in done.stderr
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before
    summary = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    (table,) = summary["tables"]
    assert table["folder"] == folder.name and [r["run"] for r in table["runs"]] == [0, 1]
    # Run 1 scored directly, as a fresh run's validation scores it (seed = the run index).
    cals = [mm.load_calibration(p) for p in cv.run_folder_calibrations(folder / "run1")]
    report = cv.validate(folder / "run1" / "sweep.csv", cals, seed=1)
    fitted = report.fitted["machine"].test_score
    values = table["runs"][1]["values"]
    assert values["2t all"]["value"] == pytest.approx(fitted.group(threads=2).rmse_all)
    assert values["1t top"]["value"] == pytest.approx(fitted.group(threads=1).rmse_top)
    assert table["runs"][1]["points"] == len(mm.read_table(folder / "run1" / "sweep.csv").medians())
    rows = json.loads((tmp_path / "r" / folder.name / "targets.json").read_text("utf-8"))
    mine = [r for r in rows["targets"] if r["run"] == "0" and r["variant"] == "fitted-machine"]
    assert table["runs"][0]["met"] == sum(r["met"] for r in mine)
    assert table["runs"][0]["judged"] == len(mine) == 10
    assert not any(r["goal"].startswith("machine variant batch cost") for r in rows["targets"])
    assert f"| {folder.name} | 1 | AMD EPYC |" in done.stdout
    # The runs' agreement across folders groups the folder's two runs (same machine,
    # harness and problems) and finds the difference its own judgement found.
    (group,) = summary["agreement"]
    assert group["runs"] == [f"{folder.name} run 0", f"{folder.name} run 1"]
    assert group["pairs"] == 1 and group["problems"] == len(table["problems"]) > 1
    assert group["largest_difference"] == pytest.approx(table["runs_agree"], rel=1e-12)
    assert group["rmse_all"][1] == pytest.approx(fitted.rmse_all, rel=1e-12)
    assert group["met"] == (table["runs_agree"] < 0.02)
    assert "Runs' agreement across folders" in done.stdout

    def rescore(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(RESCORE), *args], capture_output=True,
                              text=True, timeout=120, check=False)  # fmt: skip

    bad = rescore(str(tmp_path / "nope"))
    assert bad.returncode == 2 and "nope: not a folder" in bad.stderr
    bad = rescore(str(folder), str(folder))
    assert bad.returncode == 2 and "a name given twice: quiet_run_2026-11-28" in bad.stderr
    bad = rescore(str(tmp_path))  # no run in it
    assert bad.returncode == 2 and "none holds a sweep with its calibrations" in bad.stderr
    # A folder that cannot be read stops everything before any scoring, with one line.
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("calibration_1t", "calibration_2t"):
        shutil.copytree(folder / name, cut / name)
    (cut / "sweep.csv").write_bytes((folder / "sweep.csv").read_bytes()[:3000] + b"x,y\n")
    bad = rescore(str(folder), str(cut), "--out", str(tmp_path / "r2"))
    assert bad.returncode == 2 and f"{cut}: " in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "r2" / folder.name).exists()


def _summary(folder: str, machine: dict[str, Any], problems: list[str],
             overall: list[tuple[float, float, float] | None]) -> dict[str, Any]:  # fmt: skip
    return {"folder": folder, "machine": machine, "harness": "5", "problems": problems,
            "runs": [{"run": i, "overall": None if o is None else
                      {"rmse_all": o[0], "rmse_top": o[1], "noise_floor": o[2]}}
                     for i, o in enumerate(overall)]}  # fmt: skip


def test_rescore_agreement_groups_comparable_runs_only() -> None:
    sys.path.insert(0, str(RESCORE.parent))
    import bench_validate_rescore as rs

    zen = {"cpu_model": "AMD EPYC", "logical_cpus": 2, "l1d_bytes": 32 << 10,
           "l2_bytes": 1 << 20, "l3_bytes": 32 << 20}  # fmt: skip
    other = {**zen, "l2_bytes": 1 << 19}  # another guest of the same name
    zen5 = {**zen, "l1d_bytes": 48 << 10}  # the same name, L2 and L3: only the L1d differs
    levels, default = ["heat2d 254x254x64", "jacobi1d 16384x128"], ["heat2d 254x254x64"]
    groups = rs._agreement([
        _summary("a", zen, levels, [(0.100, 0.060, 0.07)]),
        _summary("b", zen, levels, [(0.115, 0.070, 0.12), (0.110, 0.071, 0.08)]),
        _summary("c", other, levels, [(0.100, 0.060, 0.05)]),  # alone in its group
        _summary("e", zen5, levels, [(0.300, 0.200, 0.05)]),  # alone in its group too
        _summary("d", zen, default, [(0.2, 0.1, 0.1), None]),  # one scored run: no group
    ])  # fmt: skip
    (g,) = groups
    assert g["runs"] == ["a run 0", "b run 0", "b run 1"] and g["problems"] == 2
    # Pairs: a-b0 max(1.5, 1.0) = 1.5 points, a-b1 max(1.0, 1.1) = 1.1, b0-b1 max(0.5, 0.1).
    assert g["pairs"] == 3 and g["pairs_within"] == 3 and g["met"]
    assert g["largest_difference"] == pytest.approx(0.015)
    assert g["largest_pair"] == ["a run 0", "b run 0"] and g["noise_floor"] == 0.12
    (g,) = rs._agreement([
        _summary("a", zen, levels, [(0.100, 0.060, 0.07)]),
        _summary("b", zen, levels, [(0.115, 0.061, 0.07), (float("nan"), 0.06, 0.07)]),
    ])  # fmt: skip
    assert g["pairs"] == 3 and g["pairs_within"] == 1 and not g["met"]
    assert g["largest_pair"][1] == "b run 1" and not math.isfinite(g["largest_difference"])
    text = rs._agreement_markdown([g])
    assert "| AMD EPYC, 2 CPUs, L1d 32 KiB, L2 1 MiB, L3 32 MiB | 5 | 2 | 3 | 10.0-11.5 |" in text
    assert "| 1 of 3 | - |" in text and "| **no** |" in text
    assert rs._agreement_markdown([]) == ""


def _rescore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RESCORE), *args], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def _mixed_folder(root: Path, sweep_of: str, calibrations_of: str) -> Path:
    """A folder with one shipped run's sweep and another's calibrations."""
    folder = root / f"{sweep_of}+{calibrations_of}"
    folder.mkdir()
    shutil.copy(SHIPPED / sweep_of / "sweep.csv", folder / "sweep.csv")
    for name in ("calibration_1t", "calibration_2t"):
        shutil.copytree(SHIPPED / calibrations_of / name, folder / name)
    return folder


def test_rescore_refuses_calibrations_of_another_harness_or_machine(tmp_path: Path) -> None:
    # (adversarial tester) They raised while scoring, with a traceback (exit 1), though
    # a folder that cannot be scored is to stop the command before any scoring.
    good = SHIPPED / "quiet_run_2026-11-28"
    for sweep_of, cals_of, match in (
        ("quiet_run_2026-11-28", "quiet_run_2026-11-25_h4", "calibration: measured with "
         "harness version 4, the table's is 5"),
        ("quiet_run_2026-11-28_xeon", "quiet_run_2026-11-28", "calibration: measured on "
         "another machine or harness build than the table (cpu_model 'AMD EPYC'"),
    ):  # fmt: skip
        mixed = _mixed_folder(tmp_path, sweep_of, cals_of)
        done = _rescore(str(good), str(mixed), "--out", str(tmp_path / "r"))
        assert done.returncode == 2, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"bench_validate_rescore: {mixed}: {match}")
        assert not (tmp_path / "r" / good.name).exists()  # nothing scored


def test_rescore_checks_its_output_paths_before_scoring(tmp_path: Path) -> None:
    # (adversarial tester) A plain file where a folder's results go was found after all
    # the scoring (about 11 s), with a FileExistsError traceback.
    folder = SHIPPED / "quiet_run_2026-11-28"
    for blocker in (folder.name, "summary.json", f"{folder.name}/targets.md"):
        out = tmp_path / blocker.replace("/", "_")
        (out / blocker).parent.mkdir(parents=True, exist_ok=True)
        if blocker == folder.name:
            (out / blocker).write_text("a file\n", encoding="utf-8")
        else:
            (out / blocker).mkdir()
        done = _rescore(str(folder), "--out", str(out))
        assert done.returncode == 2 and done.stderr.startswith("bench_validate_rescore: --out: "), (
            done.stderr
        )
        assert done.stderr.count("\n") == 1 and str(out / blocker) in done.stderr
        assert not (out / "summary.md").exists()


def test_rescore_json_is_strict_json(tmp_path: Path) -> None:
    # (adversarial tester) A table of one pass has a noise floor of NaN, printed as a bare
    # NaN token, which is not JSON; the package's CLI rule: null (and "inf" / "-inf").
    src = SHIPPED / "quiet_run_2026-11-28"
    one = tmp_path / "one_pass"
    one.mkdir()
    for name in ("calibration_1t", "calibration_2t"):
        shutil.copytree(src / name, one / name)
    lines = (src / "sweep.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("stencil,"))
    column = lines[at].split(",").index("pass")
    rows = [line for line in lines[at + 1 :] if line.split(",")[column] == "0"]
    (one / "sweep.csv").write_text("".join(lines[: at + 1] + rows), encoding="utf-8")

    def strict(text: str) -> Any:
        def refuse(token: str) -> None:
            raise AssertionError(f"bare {token} in the JSON")

        return json.loads(text, parse_constant=refuse)

    done = _rescore(str(one), "--json", "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    doc = strict(done.stdout)
    assert doc["tables"][0]["runs"][0]["noise_floor"] == {"1": None, "2": None}
    assert strict((tmp_path / "r" / "summary.json").read_text(encoding="utf-8")) == doc
    strict((tmp_path / "r" / one.name / "targets.json").read_text(encoding="utf-8"))


def test_rescore_a_folder_failing_while_scored_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A check the reading does not make, raised while scoring: one line naming the
    # folder and exit 2, not a traceback.
    import importlib.util

    monkeypatch.setattr(sys, "path", list(sys.path))  # the script adds benchmarks/
    spec = importlib.util.spec_from_file_location("bench_validate_rescore", RESCORE)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclass looks itself up
    spec.loader.exec_module(bench)

    def fails(*args: object) -> None:
        raise ValueError("table: something only scoring finds")

    monkeypatch.setattr(bench, "_rescore_folder", fails)
    folder = SHIPPED / "quiet_run_2026-11-28"
    assert bench.main([str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == f"bench_validate_rescore: {folder}: table: something only scoring finds\n"


DIAGNOSTICS = ("bench_validate_heat3d_rows.py", "bench_validate_heat3d_pitch.py",
               "bench_validate_share_lines.py")  # fmt: skip


@pytest.mark.parametrize("script", DIAGNOSTICS)
def test_diagnostics_refuse_bad_paths_before_measuring(script: str, tmp_path: Path) -> None:
    """A fit folder without calibrations, or a table that cannot be written: exit 2, one
    line naming the argument, and nothing measured (the diagnostics' shared command line)."""
    path = SCRIPT.parent / script
    levels = data_dir() / "measurements" / "quiet_run_2026-12-01_xeon_levels_fresh9"
    no_cal = tmp_path / "no_cal"
    no_cal.mkdir()
    shutil.copy(levels / "sweep.csv", no_cal / "sweep.csv")
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    for args, name in (
        (["--out", str(tmp_path / "t.csv"), "--fit", str(no_cal)], "--fit"),
        (["--out", str(blocker / "t.csv"), "--fit", str(levels)], "out"),
        (["--out", str(tmp_path), "--fit", str(levels)], "out"),
        (["--out", str(tmp_path / "t.csv"), "--fit", str(levels), "--passes", "0"], "--passes"),
    ):
        done = subprocess.run(
            [sys.executable, str(path), *args], capture_output=True, text=True, timeout=600,
            check=False,
        )  # fmt: skip
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        last = done.stderr.strip().splitlines()[-1]
        assert name in last, last
    assert not (tmp_path / "t.csv").exists()


FLOOR_SCRIPT = SCRIPT.parent / "bench_validate_selection_floor.py"


def test_selection_floor_script_one_or_two_runs(tmp_path: Path) -> None:
    # Two runs: each ranked by the other and by half of its own passes; one run: the
    # latter alone (validate.split_selection_floor); three runs: exit 2, one line.
    folder = SHIPPED / "quiet_run_2026-11-28"

    def script(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(FLOOR_SCRIPT), *args], capture_output=True,
                              text=True, timeout=600, check=False)  # fmt: skip

    done = script(str(folder), str(folder / "run1"), "--json")
    assert done.returncode == 0, done.stderr
    two = json.loads(done.stdout)["runs"]
    table = mm.read_table(folder / "sweep.csv").per_point("median")
    split = cv.split_selection_floor(table, ks=(1, 3, 5, 10)).to_dict()
    assert two[0]["split"] == split and two[0]["floor"]["variant"] == "another run"
    done = script(str(folder), "--json")
    assert done.returncode == 0, done.stderr
    one = json.loads(done.stdout)["runs"]
    assert len(one) == 1 and one[0]["floor"] is None and one[0]["split"] == split
    done = script(str(folder), str(folder), str(folder))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "runs" in done.stderr


def test_spread_tells_slow_stretches_from_runs_slowed_one_by_one() -> None:
    """Synthetic times on a shipped table's points: the diagnosis must tell them apart."""
    from dataclasses import replace

    bms = _bench_module("bench_measure_statistic")
    path = data_dir() / "measurements" / "diagnostic_2026-11-29_xeon_heat3d_rows" / "sweep.csv"
    raw = mm.read_table(path)
    n = len(raw)
    base = 1e-3 * (1.0 + raw.tiles.sum(axis=1) % 7)
    clock = 1.8e9 + np.arange(n, dtype=float)  # one run a second, in row order
    rng = np.random.default_rng(0)
    # Slow stretches: each 20-second window 1.5x slower with probability 1/5 (a point's
    # passes fall in different windows, so most points' medians stay fast and a slow
    # run's residual is log 1.5).
    stretch = np.where(rng.random(n // 20 + 1) < 0.2, 1.5, 1.0)[np.arange(n) // 20]
    # Runs slowed one by one: each 1.5x slower with probability 1/5, independently.
    single = np.where(rng.random(n) < 0.2, 1.5, 1.0)
    for factor in (stretch, single):
        table = replace(raw, time_s=base * factor, columns={**raw.columns, "unix_time_s": clock})
        rec = bms.spread(table, table.medians())
        for n_threads in (1, 2):
            e = rec[str(n_threads)]
            assert e["runs"] == int(np.sum(raw.threads == n_threads))
            assert 0.0 < e["slow_share"] < 0.35  # a fifth of the runs, less the slow medians
            # Bounds that held for the first 40 seeds of the generator (this test uses 0):
            # stretches gave r and bin shares of 0.44-1.0, single runs |r| <= 0.16 and bin
            # shares <= 0.26 (about 50 bins of 5 runs each take 0.2 from pure noise).
            if factor is stretch:
                assert min(e["lag1_r"], e["prev_other_r"], e["bin_share"]) > 0.4, e
            else:  # 252 pairs: |r| of independent residuals under 0.2 is 3 sigma
                assert max(abs(e["lag1_r"]), abs(e["prev_other_r"])) < 0.2, e
                assert e["bin_share"] < 0.35, e
            points = int(np.sum(table.medians().threads == n_threads))
            assert sum(b["points"] for b in e["by_rate"]) == points  # each point in one bin
            assert e["by_rate"][0]["barriers_per_s"][0] <= e["by_rate"][-1]["barriers_per_s"][1]
    # One point alone: one bin of barriers per second, not four copies of it.
    alone = raw.select(np.asarray([raw.key_of(i) == raw.key_of(0) for i in range(n)]))
    rec = bms.spread(alone, alone.medians())
    assert [b["points"] for b in rec[str(int(raw.threads[0]))]["by_rate"]] == [1]
    # A table without a clock column gives no diagnosis rather than a wrong one.
    cols = {k: v for k, v in raw.columns.items() if k != "unix_time_s"}
    assert bms.spread(replace(raw, columns=cols), raw.medians()) == {}


def test_log_size_curve_runs_from_the_working_cores_l2_to_the_curves_end() -> None:
    bcs = _bench_module("bench_validate_curve_shape")
    mib = 1 << 20
    shipped = mm.DramShareCurve((2.0 * mib, 8.0 * mib, 16.0 * mib, 128.0 * mib), (0, 0.5, 0.7, 1))
    for threads in (1, 2):
        c = bcs.log_size_curve(shipped, threads, mib)
        lo = threads * mib
        assert c.array_bytes[0] == lo and c.array_bytes[-1] == 128 * mib
        assert c.dram_share[0] == 0.0 and c.dram_share[-1] == 1.0
        # linear in log bytes: 8 MiB lies 3 of 7 (1 thread) or 2 of 6 (2 threads) octaves up
        i8 = c.array_bytes.index(8.0 * mib)
        assert math.isclose(c.dram_share[i8], (3 / 7, 2 / 6)[threads - 1])
        assert all(np.diff(c.dram_share) > 0)
    # A curve ending at or below the working cores' L2 is left as it is.
    short = mm.DramShareCurve((0.5 * mib, 1.0 * mib), (0.0, 1.0))
    assert bcs.log_size_curve(short, 2, mib) is short


def test_curve_shape_candidates_replace_the_random_order_curve() -> None:
    # Every candidate of bench_validate_curve_shape replaces the random-order copy curve;
    # the streaming one, which the fitted variant reads first, is hidden inside the
    # context, and ``random`` is the random-order curve itself (the rule before the
    # streaming points); outside it the module reads the streaming curve again.
    bcs = _bench_module("bench_validate_curve_shape")
    folder = SCRIPT.parents[1] / "data" / "measurements" / "quiet_run_2026-12-04_amd_zen5_levels_e"
    cal = mm.load_calibration(folder / "calibration_1t")
    stream = mm.dram_share_curve(cal.micro, threads=1, order="sequential")
    shuffled = mm.dram_share_curve(cal.micro, threads=1)
    assert stream is not None and shuffled is not None and stream != shuffled
    assert cv._stencil_dram_curve(cal) == stream
    with bcs.curve_replaced("random", {}, 0.1, (1,), 1 << 20):
        assert cv._stencil_dram_curve(cal) == shuffled
    with bcs.curve_replaced("logsize", {}, 0.1, (1,), 1 << 20):
        assert cv._stencil_dram_curve(cal) == bcs.log_size_curve(shuffled, 1, 1 << 20)
    assert cv._stencil_dram_curve(cal) == stream
