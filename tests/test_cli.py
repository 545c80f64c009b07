"""The costmetrics command line: subcommands, --json, --version, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

import costmetrics
from costmetrics.cli import SUBCOMMANDS, main
from costmetrics.report import ExperimentResult, ReproducedValue

reproduce_module = sys.modules["costmetrics.reproduce"]


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"costmetrics {costmetrics.__version__}"


def test_installed_entry_point_prints_version() -> None:
    script = Path(sys.executable).parent / "costmetrics"
    if not script.exists():
        pytest.skip("the costmetrics entry point is not installed beside this Python")
    done = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == f"costmetrics {costmetrics.__version__}"


def test_subcommands_are_registered() -> None:
    names = [name for name, _ in SUBCOMMANDS]
    assert {"reproduce", "presets"} <= set(names)
    assert len(names) == len(set(names))


def test_missing_or_unknown_subcommand_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in ([], ["no-such-command"]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert len(captured.err.strip().splitlines()) == 1  # one line, no usage dump


def test_presets_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "GTX 980" in out and "Titan X" in out
    assert "Laplacian3D" in out and "1.36e-07" in out


def test_presets_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["key"] for g in data["gpus"]] == costmetrics.gpus()
    assert [s["key"] for s in data["stencils"]] == costmetrics.stencils()
    gtx980 = data["gpus"][0]
    assert gtx980["n_sm"] == 16 and gtx980["l_s_per_gb"] == 7.36e-3
    heat2d = next(s for s in data["stencils"] if s["key"] == "heat2d")
    assert heat2d["c_iter_s"] == {"gtx980": 3.68e-8, "titanx": 4.23e-8}


@pytest.fixture
def fake_experiment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``reproduce`` run one stand-in experiment instead of the real ones."""
    module = types.ModuleType("costmetrics.experiments.fake")

    def run(out_dir: Path) -> ExperimentResult:
        return ExperimentResult("fake", [ReproducedValue("fake", "x [s]", "here", 1.0, 1.1)])

    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "costmetrics.experiments.fake", module)
    monkeypatch.setattr(reproduce_module, "EXPERIMENTS", ("fake",))


@pytest.mark.usefixtures("fake_experiment")
def test_reproduce_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--out", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["report_md"] == str(tmp_path / "report.md")
    assert data["experiments"] == [{"name": "fake", "n_values": 1, "files": []}]
    assert (tmp_path / "report.md").is_file()


@pytest.mark.usefixtures("fake_experiment")
def test_reproduce_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "--out", str(tmp_path), "--only", "fake"]) == 0
    out = capsys.readouterr().out
    assert "fake: 1 reproduced values" in out
    assert str(tmp_path / "report.md") in out


@pytest.mark.usefixtures("fake_experiment")
def test_bad_input_is_one_line_on_stderr_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reproduce", "--out", str(tmp_path), "--only", "nope"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("costmetrics reproduce: error: only: unknown experiment")


def test_errors_via_subprocess_have_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", "reproduce", "--out", str(tmp_path),
         "--only", "nope"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "error: only: unknown experiment" in done.stderr


def test_lazy_model_submodules() -> None:
    assert {"time", "chain"} <= set(dir(costmetrics))
    with pytest.raises(AttributeError, match=r"no attribute 'no_such_model'"):
        _ = costmetrics.no_such_model


def test_unwritable_output_fails_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from costmetrics import measure

    def must_not_run(**kwargs: object) -> None:
        raise AssertionError("calibrate ran before the output folder was checked")

    monkeypatch.setattr(measure, "calibrate", must_not_run)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    for out in (blocker, blocker / "sub"):
        assert main(["calibrate", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("costmetrics calibrate: error: --out:") and str(blocker) in err
    assert main(["measure", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--out: " in err and "is a folder" in err


def test_internal_errors_are_not_reported_as_bad_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from costmetrics import time as cm_time

    def broken(*args: object, **kwargs: object) -> object:
        return None + 1  # type: ignore[operator]  # a bug, not bad input

    monkeypatch.setattr(cm_time, "breakdown", broken)
    argv = ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,64"]
    with pytest.raises(TypeError, match="unsupported operand"):
        main([*argv, "--tiles", "8,64,8"])
    # Our own validation errors still are one line and status 2.
    monkeypatch.undo()
    assert main([*argv, "--tiles", "8,64"]) == 2
    assert "error: tiles: " in capsys.readouterr().err
