"""The reproduction report and the reproduce driver, on a stand-in experiment."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from costmetrics.report import ExperimentResult, ReproducedValue, write_report

reproduce_module = sys.modules["costmetrics.reproduce"]


def _value(seed: float | int | str | None, reproduced: float | int | str) -> ReproducedValue:
    return ReproducedValue("demo", "T_alg [s]", "000 Table X", seed, reproduced, "a note")


@pytest.mark.parametrize(
    ("seed", "reproduced", "expected"),
    [
        (2.0, 2.2, 0.1),
        (-4.0, -3.0, 0.25),
        (10, 9, -0.1),
        (0.0, 1.0, None),
        (None, 1.0, None),
        ("n/a", 1.0, None),
        (1.0, "text", None),
    ],
)
def test_relative_difference(
    seed: float | int | str | None, reproduced: float | int | str, expected: float | None
) -> None:
    rd = _value(seed, reproduced).relative_difference
    assert rd == (None if expected is None else pytest.approx(expected))


def test_write_report_markdown_and_json(tmp_path: Path) -> None:
    figure = tmp_path / "demo" / "fig.png"
    results = [
        ExperimentResult("demo", [_value(2.0, 2.2), _value(None, 1234567)], [figure]),
        ExperimentResult("empty"),
    ]
    md_path, json_path = write_report(results, tmp_path)
    assert (md_path, json_path) == (tmp_path / "report.md", tmp_path / "report.json")
    md = md_path.read_text()
    assert "## demo" in md and "## empty" in md
    assert "| T_alg [s] | 000 Table X | 2 | 2.2 | +10.00% | a note |" in md
    assert "| - | 1,234,567 | - |" in md
    assert "`demo/fig.png`" in md
    records = json.loads(json_path.read_text())
    assert len(records) == 2
    assert records[0]["relative_difference"] == pytest.approx(0.1)
    assert records[1]["seed_value"] is None


@pytest.fixture
def fake_experiment(monkeypatch: pytest.MonkeyPatch) -> str:
    """Register a stand-in experiment module ``costmetrics.experiments.fake``."""
    module = types.ModuleType("costmetrics.experiments.fake")

    def run(out_dir: Path) -> ExperimentResult:
        table = out_dir / "table.csv"
        table.write_text("a,b\n1,2\n")
        return ExperimentResult("fake", [_value(1.0, 1.0)], [table])

    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "costmetrics.experiments.fake", module)
    monkeypatch.setattr(reproduce_module, "EXPERIMENTS", ("fake",))
    return "fake"


def test_reproduce_runs_experiments_and_writes_report(fake_experiment: str, tmp_path: Path) -> None:
    import costmetrics

    results = costmetrics.reproduce(tmp_path / "out", progress=True)
    assert [r.name for r in results] == [fake_experiment]
    assert (tmp_path / "out" / "fake" / "table.csv").is_file()
    assert "`fake/table.csv`" in (tmp_path / "out" / "report.md").read_text()
    assert len(json.loads((tmp_path / "out" / "report.json").read_text())) == 1


def test_reproduce_rejects_unknown_experiments(fake_experiment: str, tmp_path: Path) -> None:
    import costmetrics

    with pytest.raises(ValueError, match=r"only: unknown experiment\(s\) \['nope'\]; known"):
        costmetrics.reproduce(tmp_path, only=["nope"])


def test_bad_input_found_by_the_adversarial_campaign(tmp_path: Path) -> None:
    # D17: never a NaN or inf relative difference; report.json is strict JSON (null).
    assert _value(float("nan"), float("inf")).relative_difference is None
    assert _value(1e-320, 1e300).relative_difference is None
    assert _value(1.0, 10**400).relative_difference is None
    values = [_value(float("nan"), float("inf")), _value(2.0, float("-inf")), _value(2.0, 3.0)]
    _, json_path = write_report([ExperimentResult("demo", values)], str(tmp_path / "rep"))
    text = json_path.read_text()
    assert "NaN" not in text and "Infinity" not in text

    def strict(token: str) -> float:
        raise AssertionError(f"non-standard JSON constant {token}")

    records = json.loads(text, parse_constant=strict)
    assert [(r["seed_value"], r["reproduced_value"]) for r in records[:2]] == [
        (None, None),
        (2.0, None),
    ]
    assert records[2]["relative_difference"] == pytest.approx(0.5)
    # D5: a str folder works (above); a file in its place is a ValueError naming out_dir.
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(ValueError, match=r"^out_dir: .*file\.txt is a file, expected a folder"):
        write_report([], a_file)
    with pytest.raises(ValueError, match=r"^out_dir: cannot create .*file\.txt/sub"):
        write_report([], a_file / "sub")
    with pytest.raises(TypeError, match=r"^out_dir: expected a str or Path, got NoneType"):
        write_report([], None)  # type: ignore[arg-type]


def test_reproduce_checks_its_arguments_before_running(tmp_path: Path) -> None:
    # Adversarial campaign (2026-11-30): "time" was read letter by letter, [] ran nothing
    # and wrote an empty report, out_dir=None failed inside pathlib.
    from costmetrics.reproduce import reproduce

    with pytest.raises(TypeError, match="only: expected a sequence"):
        reproduce(tmp_path, only="time")
    with pytest.raises(ValueError, match="only: no experiment named"):
        reproduce(tmp_path, only=[])
    with pytest.raises(TypeError, match=r"only\[0\]"):
        reproduce(tmp_path, only=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="out_dir"):
        reproduce(None, only=["time"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="progress"):
        reproduce(tmp_path, only=["time"], progress="no")  # type: ignore[arg-type]
    # Adversarial campaign (2026-11-30, second): "" wrote the report into the working
    # directory, and a name given twice ran twice with every row twice in the report.
    with pytest.raises(ValueError, match="out_dir: expected a folder, got an empty path"):
        reproduce("", only=["time"])
    with pytest.raises(ValueError, match=r"only: experiment\(s\) named more than once: \['time'\]"):
        reproduce(tmp_path, only=["time", "chain", "time"])
    assert not (tmp_path / "report.md").exists()


def test_a_report_killed_between_its_files_is_never_a_pair_of_two_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (kill campaign, 2026-11-30) reproduce --only area spu, then --only area killed just
    # after report.md was renamed into place: report.md listed area, report.json area and
    # spu. Now the older report.json is gone before report.md is written.
    import costmetrics.report as report_module

    first = [ExperimentResult("area", [_value(1.0, 1.0)]), ExperimentResult("spu", [])]
    write_report(first, tmp_path)
    from costmetrics._files import write_text_atomic as real_write

    def killed_after_the_markdown(path: Path, text: str) -> None:
        if path.name == "report.json":
            raise KeyboardInterrupt  # stands for SIGKILL
        real_write(path, text)

    monkeypatch.setattr(report_module, "write_text_atomic", killed_after_the_markdown)
    with pytest.raises(KeyboardInterrupt):
        write_report([ExperimentResult("area", [_value(2.0, 2.0)])], tmp_path)
    monkeypatch.undo()
    assert "## spu" not in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert not (tmp_path / "report.json").exists()
    write_report([ExperimentResult("area", [_value(2.0, 2.0)])], tmp_path)  # the rerun
    assert [r["seed_value"] for r in json.loads((tmp_path / "report.json").read_text())] == [2.0]


def test_an_interrupted_experiment_leaves_no_empty_folder(
    fake_experiment: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (campaign, 2026-11-30) reproduce --only area stopped by SIGTERM in its first second
    # left an empty area/ folder, which looked like the experiment's output.
    import costmetrics

    module = sys.modules["costmetrics.experiments.fake"]

    def interrupted(out_dir: Path) -> ExperimentResult:
        raise KeyboardInterrupt  # stands for SIGINT or SIGTERM before anything is written

    monkeypatch.setattr(module, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        costmetrics.reproduce(tmp_path / "out")
    assert not (tmp_path / "out" / "fake").exists()
    (tmp_path / "out" / "fake").mkdir()  # a folder that was there before is kept
    with pytest.raises(KeyboardInterrupt):
        costmetrics.reproduce(tmp_path / "out")
    assert (tmp_path / "out" / "fake").is_dir()
