"""The costmetrics command line: subcommands, --json, --version, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics
import costmetrics as cm
from _support import EXAMPLES
from costmetrics.cli import SUBCOMMANDS, main
from costmetrics.report import ExperimentResult, ReproducedValue

reproduce_module = sys.modules["costmetrics.reproduce"]


def command(argv: list[str]) -> str:
    """The subcommand an error names: energy's actions with theirs (``energy fit``)."""
    return " ".join(argv[:2]) if argv[0] == "energy" else argv[0]


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
    assert lines[0].startswith("costmetrics reproduce: error: --only: unknown experiment")


def test_errors_via_subprocess_have_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", "reproduce", "--out", str(tmp_path),
         "--only", "nope"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "error: --only: unknown experiment" in done.stderr


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
    assert "error: --tiles: " in capsys.readouterr().err


# ------------------------------------------------------------------ boundary cases (issue 6)
# Defect examples of issue 6, each pinned: it now raises a clear error or answers right.


@pytest.mark.parametrize(
    "argv",
    [
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "-5,64,64", "--tiles",
         "8,64,8"],
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes=-5,64,64", "--tiles",
         "8,64,8"],
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,x", "--tiles",
         "8,64,8"],
        ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,64",
         "--within", "a lot"],
        ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,64",
         "--within", "nan"],
        ["chain", "--dims", "1000,2000", "--M", "100", "--pareto"],
        ["chain", "--dims", ",".join(["1000"] * 81), "--M", "65536", "--pareto"],
        ["chain", "--dims", "3,4,5", "--pareto"],
        ["talg", "--stencil", "heat2d"],
        ["no-such-command"],
        [],
    ],
)  # fmt: skip
def test_cli_bad_input_is_one_line_and_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], captured.err


@pytest.mark.parametrize(
    ("argv", "prog", "extra"),
    [
        (["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "1,1,2", "--tiles",
          "8,64,8", "--within", "0.1"], "costmetrics talg", "--within 0.1"),
        (["presets", "--bogus"], "costmetrics presets", "--bogus"),
        (["chain", "--dims", "3,4,5", "--M", "100", "7"], "costmetrics chain", "7"),
        (["energy", "fit", "--table", "x.csv", "--within", "0.1"], "costmetrics energy fit",
         "--within 0.1"),
    ],
)  # fmt: skip
def test_unrecognized_arguments_name_the_subcommand(
    argv: list[str], prog: str, extra: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (adversarial tester) An option of another subcommand lost the subcommand's name:
    # "costmetrics: error: unrecognized arguments: --within 0.1 (see costmetrics -h)".
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"{prog}: error: unrecognized arguments: {extra} (see {prog} -h)\n"


def test_energy_errors_name_the_action(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse's errors said "costmetrics energy fit: error: ...", the handler's
    # "costmetrics energy: error: ...": both name the action now.
    assert main(["energy", "fit", "--table", "/nonexistent/x.csv"]) == 2
    assert capsys.readouterr().err == (
        "costmetrics energy fit: error: --table: no file /nonexistent/x.csv\n"
    )


TALG = ["talg", "--stencil", "heat2d", "--gpu", "gtx980"]
BEST = ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes"]
EVAL = ["energy", "eval", "--kernel", "jacobi1d", "--sizes", "1000,100", "--tiles", "10,8"]
EBEST = ["energy", "best-tiles", "--kernel", "jacobi1d", "--sizes", "1000,100", "--talg-s", "1"]
FIT = ["energy", "fit", "--table", str(cm.presets.data_dir() / "energy/synthetic_model_a_runs.csv")]
DESIGN = ["energy", "design", "--budget", "5"]

#: (adversarial tester) Errors from an option's value named the Python parameter
#: (``tiles[2]:``, ``talg_s:``, ``n (N):``) or nothing (``train_fraction must be ...``):
#: each names the option as typed, an entry of a list option by its index (``--tiles[2]``).
OPTION_ERRORS = [
    # talg, best-tiles
    ([*TALG, "--sizes", "4096,4096,64", "--tiles", "8,64,9223372036854775808"],
     "--tiles[2]: 9223372036854775808 does not fit a signed 64-bit integer"),
    ([*TALG, "--sizes", "4096,4096,64", "--tiles", "-8,64,8"], "--tiles: infeasible: "),
    ([*TALG, "--sizes", "4096,4096,64", "--tiles", "8,64"], "--tiles: must have 3 entries"),
    ([*TALG, "--sizes", "-4096,4096,64", "--tiles", "8,64,8"],
     "--sizes[0]: must be positive, got -4096"),
    ([*TALG, "--sizes", "4096,4096,0", "--tiles", "8,64,8"], "--sizes[2]: must be positive, got 0"),
    ([*TALG, "--sizes", "9007199254740993,1,1", "--tiles", "8,64,8"],
     "--sizes: iteration-space size S1*...*T = 9007199254740993 exceeds 2^53 points"),
    ([*TALG, "--sizes", "4096,4096", "--tiles", "8,64,8"], "--sizes: must have 3 entries"),
    (["talg", "--stencil", "x", "--gpu", "gtx980", "--sizes", "1,1,2", "--tiles", "8,64,8"],
     "--stencil: unknown stencil 'x'"),
    (["talg", "--stencil", "heat2d", "--gpu", "x", "--sizes", "1,1,2", "--tiles", "8,64,8"],
     "--gpu: unknown GPU 'x'"),
    ([*BEST, "64,64,8", "--within", "nan"], "--within: must be in [0, 1e+06], got nan"),
    ([*BEST, "-64,64,8"], "--sizes[0]: must be positive, got -64"),
    # energy eval, best-tiles
    ([*EVAL, "--talg-s", "0"], "--talg-s: must be finite and > 0, got 0"),
    ([*EVAL, "--talg-s", "1e308"], "--talg-s: E_alg is not finite: "),
    ([*EVAL, "--talg-s", "1", "--gpu", "gtx980"], "--talg-s/--gpu: give exactly one of "),
    ([*EVAL, "--talg-s", "1", "--subtile", "11"],
     "--subtile: subtile sS = 11 exceeds the tile size tS1 = 10"),
    ([*EVAL, "--talg-s", "1", "--subtile", "-1"], "--subtile: must be >= 0 (0: sS = tS), got -1"),
    ([*EVAL, "--talg-s", "1", "--params", "model_c"],
     "--params: unknown parameter set 'model_c'"),
    ([*EVAL, "--gpu", "gtx980"], "--stencil: kernel 'jacobi1d' has no time-model preset"),
    ([*EVAL, "--gpu", "gtx980", "--stencil", "heat2d"],
     "--stencil: stencil 'Heat2D' has 2 space dimensions"),
    ([*EVAL[:3], "nope", *EVAL[4:], "--talg-s", "1"], "--kernel: unknown kernel 'nope'"),
    ([*EVAL[:7], "10,-8", "--talg-s", "1"], "--tiles[1]: must be positive, got -8"),
    ([*EVAL[:5], "1000,0", *EVAL[6:], "--talg-s", "1"], "--sizes[1]: must be positive, got 0"),
    ([*EBEST, "--within", "-1"], "--within: must be in [0, 1e+06], got -1"),
    # The time model's variant with a measured T_alg: it was accepted and ignored.
    ([*EVAL, "--talg-s", "1", "--variant", "paper"],
     "--variant: only with --gpu (--talg-s is a measured T_alg)"),
    ([*EBEST, "--variant", "exact"], "--variant: only with --gpu (--talg-s is a measured T_alg)"),
    # The search found no feasible tile because of the sub-tile: it named nothing.
    ([*EBEST, "--subtile", "100000"],
     "--subtile: no tile of the search space is feasible with sS = 100000 (each needs sS <= tS)"),
    # energy fit, design, table-b3
    ([*FIT, "--train-fraction", "0"], "--train-fraction: must be in (0, 1], got 0.0"),
    ([*FIT, "--n-boot", "100000000"], "--n-boot: must be in [0, 100000], got 100000000"),
    ([*FIT, "--level", "1"], "--level: must be in (0, 1), got 1.0"),
    ([*FIT, "--seed", "-1"], "--seed: must be in [0, inf], got -1"),
    ([*FIT, "--max-rel-halfwidth", "-1"], "--max-rel-halfwidth: must be > 0, got -1.0"),
    ([*FIT, "--prior", "nope"], "--prior: unknown parameter set 'nope'"),
    ([*FIT, "--prior-weight", "nan"], "--prior-weight: must be finite and >= 0, got nan"),
    ([*DESIGN, "--noise", "0"], "--noise: must be in [1e-06, 1), got 0.0"),
    (["energy", "design", "--budget", "100000000"],
     "--budget: 100000000 exceeds the candidate set (1782 runs)"),
    (["energy", "design", "--budget", "0"], "--budget: must be >= 1, got 0"),
    ([*DESIGN, "--level", "1"], "--level: must be in [1e-09, 1 - 1e-09], got 1.0"),
    ([*DESIGN, "--precision", "0"], "--precision: must be finite and >= 1e-6, got 0.0"),
    ([*DESIGN, "--random", "-1"], "--random: must be in [0, 10000], got -1"),
    ([*DESIGN, "--flop-heavy", "-1"], "--flop-heavy: must be >= 0 (0: none), got -1"),
    ([*DESIGN, "--flop-heavy", "10000000"], "--flop-heavy: must be in [1, 1000000], got 10000000"),
    (["energy", "table-b3", *FIT[2:4], "--params", "nope"], "--params: unknown parameter set"),
    # chain
    (["chain", "--dims", "2"], "--dims: need at least two sizes (one matrix), got 1"),
    (["chain", "--dims", "2,0,2"], "--dims[1]: must be positive, got 0"),
    (["chain", "--dims", "2,3,4", "--M", "9223372036854775808"],
     "--M: 9223372036854775808 does not fit a signed 64-bit integer"),
    (["chain", "--dims", "2,3,4", "--M", "-5"], "--M: must be positive, got -5"),
    (["chain", "--dims", "3,4,5", "--pareto"], "--pareto: needs --M"),
    # exasat
    (["exasat", "--kernel", "nope"], "--kernel: unknown preset 'nope'"),
    (["exasat", "--kernel", "/nonexistent/k.yaml"], "--kernel: cannot read preset file"),
    (["exasat", "--kernel", "stencil7", "--machine", "nope"], "--machine: unknown preset 'nope'"),
    (["exasat", "--kernel", "stencil7", "--box", "0"], "--box: must be positive, got 0"),
    (["exasat", "--kernel", "stencil7", "--box", "8,0,8"], "--box[1]: must be positive, got 0"),
    (["exasat", "--kernel", "stencil7", "--block", "0"], "--block: must be positive, got 0"),
    (["exasat", "--kernel", "stencil7", "--cache-bytes", "0"],
     "--cache-bytes: must be positive, got 0"),
    (["exasat", "--kernel", "stencil7", "--simulate", "--box", "4096"],
     "--box: the LRU simulation would make "),
    # spu
    (["spu", "--n", "0"], "--n: must be positive, got 0"),
    (["spu", "--n", "64", "--tile", "0"], "--tile: must be positive, got 0"),
    (["spu", "--n", "64", "--tile", "65"], "--tile: tile (b) = 65 exceeds n (N) = 64"),
    (["spu", "--n", "64", "--grid", "0"], "--grid: must be positive, got 0"),
    (["spu", "--n", "64", "--k", "0"], "--k: must be positive, got 0"),
    (["spu", "--n", "64", "--subtile", "3"], "--grid/--tile: Eq. 3.8 needs p b <= N"),
    (["spu", "--n", "64", "--grid", "1", "--subtile", "64"],
     "--subtile: subtile = 64 must divide tile (b) = 32"),
    (["spu", "--n", "2147483648"], "--n: 3 N^2 K: 4611686018427387904 x 2147483648 overflows"),
    # scratchpad
    (["scratchpad", "--example", "figure1", "--max-points", "0"],
     "--max-points: must be in [1, 16777216] pairs"),
    (["scratchpad", "--example", "me", "--max-points", "0"],
     "--max-points: must be in [1, 4294967296] tile vectors"),
    (["scratchpad", "--example", "jacobi1d", "--max-points", "1"],
     "--max-points: the search would evaluate more than 1 tile vectors; raise max_points"),
    # area
    (["area", "--n-sm", "0", "--n-v", "128", "--smem-kb", "96"], "--n-sm: must be in [1, 2^24]"),
    (["area", "--n-sm", "16"], "--n-v/--smem-kb: required without --gpu (give --gpu or "),
    (["exasat", "--box", "8"], "--kernel: required (or --list)"),
    (["area", "--n-sm", "16", "--n-v", "-128", "--smem-kb", "96"], "--n-v: must be in [1, 2^24]"),
    (["area", "--n-sm", "16", "--n-v", "128", "--smem-kb", "nan"],
     "--smem-kb: must be finite, got nan"),
    (["area", "--gpu", "gtx980", "--regs-kb-per-vu", "-1"],
     "--regs-kb-per-vu: must be finite and >= 0, got -1"),
    (["area", "--gpu", "gtx980", "--l1-kb-per-pair", "inf"], "--l1-kb-per-pair: must be finite"),
    # codesign
    (["codesign", "--area-min", "nan"], "--area-min: must be finite and >= 0, got nan"),
    (["codesign", "--area-max", "inf"], "--area-max: must be finite and >= 0, got inf"),
    (["codesign", "--area-min", "600", "--area-max", "200"],
     "--area-min/--area-max: area_min_mm2 = 6e+02 exceeds area_max_mm2 = 2e+02"),
    (["codesign", "--workload", "3d", "--area-min", "1e6", "--area-max", "2e6"],
     "--area-min/--area-max: area range [1e+06, 2e+06] mm^2 holds no design"),
    (["codesign", "--max-threads-per-block", "0"], "--max-threads-per-block: must be in [32, "),
    (["codesign", "--max-threads-per-sm", "0"], "--max-threads-per-sm: must be in [32, "),
    (["codesign", "--registers-per-sm", "0"], "--registers-per-sm: must be in [32 * "),
    (["codesign", "--registers-per-thread", "0"], "--registers-per-thread: must be in [1, "),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), OPTION_ERRORS)
def test_errors_name_the_option_as_typed(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2, argv
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1, captured.err
    assert lines[0].startswith(f"costmetrics {command(argv)}: error: {message}"), lines[0]


def test_measure_and_tune_errors_name_the_option_as_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # measure --stencils nope said "stencil: unknown harness stencil"; tune's positional
    # sizes "S1: must be positive" (its usage names them sizes). The shipped calibration
    # with this machine's record: on another machine the shipped one itself is refused
    # first (it was measured on the AMD guest).
    shipped = cm.measure.load_calibration(
        cm.presets.data_dir() / "measurements" / "cpu_calibration"
    )
    here = cm.measure.Calibration(
        shipped.gpu, shipped.stencils, cm.measure.machine_record(), shipped.micro, shipped.settings
    )
    cm.measure.save_calibration(here, tmp_path / "cal")
    cal = str(tmp_path / "cal")
    out = str(tmp_path / "t" / "t.csv")
    for argv, message in (
        (["measure", "--out", out, "--stencils", "nope", "--limit", "1"],
         "--stencils: unknown harness stencil 'nope'"),
        (["tune", "jacobi1d", "-512", "8", "--calibration", cal],
         "sizes[0]: must be positive, got -512"),
        (["tune", "--stencil", "jacobi1d", "--sizes", "512,-8", "--calibration", cal],
         "--sizes[1]: must be positive, got -8"),
        (["tune", "--stencil", "jacobi1d", "--sizes", "512", "--calibration", cal],
         "--sizes: expected 2 entries, got 1"),
    ):  # fmt: skip
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert lines[0].startswith(f"costmetrics {argv[0]}: error: {message}"), lines[0]
    assert not (tmp_path / "t").exists()


def test_cli_negative_sizes_reach_the_model_in_both_spellings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--sizes", "-5,64,64"], ["--sizes=-5,64,64"]):
        main(["talg", "--stencil", "heat2d", "--gpu", "gtx980", *argv, "--tiles", "8,64,8"])
        assert "--sizes[0]: must be positive, got -5" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "option", "value"),
    [
        (["chain", "--dims", "3,,5"], "--dims", "3,,5"),
        (["chain", "--dims", "3,4,5,"], "--dims", "3,4,5,"),
        (["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "512,,512,64",
          "--tiles", "8,64,8"], "--sizes", "512,,512,64"),
        (["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "512,512,64",
          "--tiles", ",8,64,8"], "--tiles", ",8,64,8"),
        (["energy", "eval", "--kernel", "jacobi1d", "--sizes", "4096,,1024", "--tiles",
          "64,16", "--talg-s", "1"], "--sizes", "4096,,1024"),
        (["exasat", "stencil7", "hopper", "--box", "64,,64"], "--box", "64,,64"),
        # (second campaign: int() took these)
        (["chain", "--dims", "３,4,5"], "--dims", "３,4,5"),
        (["chain", "--dims", "3,4_0,5"], "--dims", "3,4_0,5"),
        # (single numbers took them too: int("８0") is 80, float("٣") is 3.0)
        (["chain", "--dims", "100,100,100", "--M", "８0"], "--M", "８0"),
        (["spu", "--n", "١٢٨"], "--n", "١٢٨"),
        (["spu", "--n", "1_28"], "--n", "1_28"),
        (["area", "--smem-kb", "٣"], "--smem-kb", "٣"),
        (["area", "--smem-kb", "1_0"], "--smem-kb", "1_0"),
        (["scratchpad", "--example", "me", "--max-points", "８"], "--max-points", "８"),
    ],
)  # fmt: skip
def test_cli_empty_list_fields_are_refused(
    argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # "3,,5" used to drop the empty field and run with (3, 5).
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f"argument {option}: " in lines[0] and repr(value) in lines[0]


@pytest.mark.parametrize("value", ["١", "1,٢", "８", "1_0", "1,,2"])
def test_cli_threads_take_ascii_integers_only(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester) --threads of measure and tune took non-ASCII digits and 1_0
    # (int() alone), which every other integer option refuses (_ASCII_INT).
    from costmetrics import measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("measuring started")

    monkeypatch.setattr(measure, "measure", must_not_run)
    monkeypatch.setattr(measure, "tune", must_not_run)
    for argv in (
        ["measure", "--out", str(tmp_path / "t.csv"), "--stencils", "jacobi1d", "--limit", "1"],
        ["tune", "jacobi1d", "512", "8", "--calibration", str(tmp_path)],
    ):
        assert main([*argv, "--threads", value]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert (
            len(lines) == 1
            and f"--threads: expected integers or 'all', got {value!r}" in (lines[0])
        ), lines


def test_cli_tune_takes_stencil_and_sizes_as_talg_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # tune alone took its problem positionally (tune heat2d 512 512 128) where talg and
    # best-tiles take --stencil heat2d --sizes 512,512,128; both forms now reach the same
    # call, and a mix or a half is refused before anything is measured.
    from costmetrics import measure

    calls: list[tuple[object, ...]] = []

    class StopBeforeMeasuringError(Exception):
        pass

    def record_call(stencil: object, calibration: object, sizes: object, **kw: object) -> None:
        calls.append((stencil, sizes))
        raise StopBeforeMeasuringError  # nothing is measured

    monkeypatch.setattr(measure, "tune", record_call)
    cal = cm.presets.data_dir() / "measurements" / "cpu_calibration"
    named = ["--stencil", "heat2d", "--sizes", "512,512,128"]
    for problem in (["heat2d", "512", "512", "128"], named):
        with pytest.raises(StopBeforeMeasuringError):
            main(["tune", *problem, "--calibration", str(cal)])
    assert calls == [("heat2d", (512, 512, 128))] * 2
    for problem, message in (
        ([], "--stencil: required"),
        (["heat2d"], "--sizes: required"),
        (["--stencil", "heat2d"], "--sizes: required with --stencil"),
        (["--sizes", "512,512,128"], "--stencil: required with --sizes"),
        (["heat2d", "--sizes", "512,512,128"], "stencil: given both positionally ('heat2d')"),
        (["--stencil", "heat2d", "512", "512", "128"], "stencil: given both positionally"),
    ):
        assert main(["tune", *problem, "--calibration", str(cal)]) == 2, problem
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert lines[0].startswith(f"costmetrics tune: error: {message}"), lines[0]
    assert len(calls) == 2


def test_cli_validate_takes_the_table_as_energy_fit_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # validate took its table positionally only; energy fit and table-b3 take --table.
    # Both spellings reach the same scoring with the same table.
    from costmetrics import measure
    from costmetrics import validate as cm_validate

    class StopBeforeScoringError(Exception):
        pass

    read: list[str] = []

    def stop(table: object, calibration: object, **kw: object) -> None:
        raise StopBeforeScoringError

    original = measure.read_table

    def read_table(path: object, *args: object, **kw: object) -> object:
        read.append(str(path))
        return original(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(measure, "read_table", read_table)
    monkeypatch.setattr(cm_validate, "validate", stop)
    table = str(cm.presets.data_dir() / "measurements" / "cpu_sweep_protocol.csv")
    cal = str(cm.presets.data_dir() / "measurements" / "cpu_calibration")
    for form in ([table], ["--table", table]):
        with pytest.raises(StopBeforeScoringError):
            main(["validate", *form, "--calibration", cal])
    assert read == [table, table]


def test_cli_scratchpad_max_points_reaches_both_searches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The search's and the enumeration's limits were the API's defaults only; a bound too
    # big for them said "raise max_points", which the CLI had no option for.
    for example, what in (("me", "tile vectors"), ("figure1", "(instance, reference) pairs")):
        assert main(["scratchpad", "--example", example, "--max-points", "1"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
        assert f"more than 1 {what}; raise max_points" in captured.err
    assert main(["scratchpad", "--example", "me", "--max-points", "1000000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["integer_optimum"]["points_visited"] <= 1_000_000


def test_cli_input_and_output_paths_name_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing.csv")
    for argv, message in (
        (["energy", "fit", "--table", str(tmp_path)], f"--table: {tmp_path} is a folder"),
        (["energy", "fit", "--table", missing], f"--table: no file {missing}"),
        (["energy", "table-b3", "--table", str(tmp_path)], "--table: "),
        (["energy", "design", "--budget", "3", "--table", str(tmp_path)], "--table: "),
        (["energy", "design", "--budget", "3", "--out", str(tmp_path)], f"--out: {tmp_path} is"),
        (["scratchpad", "--file", str(tmp_path)], f"--file: {tmp_path} is a folder"),
    ):
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert f"costmetrics {command(argv)}: error: {message}" in lines[0], lines[0]
        assert "Errno" not in lines[0]


def test_cli_messages_name_what_was_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a) A bad loop bound in a --file program named neither the file, its line, nor the
    # loop ("statement: loop 0 is empty (upper -5 < lower 0)", "extents[0]: must be
    # positive"); (b) area --gpu named the parameter `name`; (c) --file /dev/zero said
    # "no file" though it exists.
    two = "statements:\n  - loops: {i: [0, 10]}\n    writes: ['A[i]']\n"
    files = {
        "empty.yaml": two + "  - loops: {i: [0, -5]}\n    writes: ['A[i]']\n",
        "far.yaml": two + "  - loops:\n      i: [0, 2000000000000]\n    writes: ['A[i]']\n",
        "huge.json": '{"statements": [{"loops": {"i": [0, 1e20]}, "writes": ["A[i]"]}]}',
        "int.json": '{"statements": [{"loops": {"i": [0, 100000000000000000000]}, '
        '"writes": ["A[i]"]}]}',
        "tile.yaml": "processes: 1\nsync_cost: 1\ncost_per_word: 1\nmemory_limit_words: 9\n"
        "writes: ['A[t][i]']\nloops: {t: 4, i: -5}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t = tmp_path
    cases = [
        (f"{t / 'empty.yaml'}", f"{t / 'empty.yaml'}, line 4: statements[1]: loops['i'] = "
         "(0, -5): the loop is empty (upper -5 < lower 0)"),
        (f"{t / 'far.yaml'}", f"{t / 'far.yaml'}, line 4: statements[1]: loops['i'] = "
         "(0, 2000000000000): the loop bounds are outside [-2^40, 2^40]"),
        (f"{t / 'huge.json'}", f"{t / 'huge.json'}, line 1: statements[0]: loops['i'][1]: "
         "expected an integer, got float 1e+20"),
        (f"{t / 'int.json'}", f"{t / 'int.json'}, line 1: statements[0]: loops['i'][1]: "
         "100000000000000000000 does not fit a signed 64-bit integer"),
        (f"{t / 'tile.yaml'}", f"{t / 'tile.yaml'}, line 6: loops['i']: must be positive, got -5"),
        ("/dev/zero", "--file: /dev/zero is a character device, not a regular file"),
        (str(fifo), f"--file: {fifo} is a FIFO (named pipe), not a regular file"),
    ]  # fmt: skip
    argvs = [(["scratchpad", "--file", path], message) for path, message in cases]
    argvs.append((["area", "--gpu", "nope"], "--gpu: no reference GPU 'nope'; known: "))
    for argv, message in argvs:
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert lines[0].startswith(f"costmetrics {argv[0]}: error: {message}"), lines[0]


def test_cli_talg_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "4096,4096,1024"]
    assert main([*argv, "--tiles", "8,64,8"]) == 0
    out = capsys.readouterr().out
    b = cm.time.breakdown("heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8))  # both default
    rows = dict(line.split() for line in out.strip().splitlines())
    assert list(rows) == [*b._fields, "below_ideal"]
    assert float(rows["talg_s"]) == pytest.approx(b.talg_s, rel=1e-5)  # printed with 6 digits
    assert rows["k"] == "9"  # floor(24576 / 2482) = 9 (Eq. A.12)
    assert rows["below_ideal"] == "False"


def test_cli_talg_and_best_tiles_carry_below_ideal(capsys: pytest.CaptureFixture[str]) -> None:
    # The paper variant's known artefact (docs/api-conventions.md, "Defaults"): the CLI
    # printed T_alg = 0.173 s under T_ideal = 0.309 s with no flag, in text and JSON.
    argv = ["--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "4096,4096,1024"]
    paper = [*argv, "--variant", "paper"]
    assert main(["talg", *paper, "--tiles", "1,256,2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["below_ideal"] is True
    assert main(["talg", *argv, "--tiles", "1,256,2", "--json"]) == 0  # exact: never
    assert json.loads(capsys.readouterr().out)["below_ideal"] is False
    assert main(["best-tiles", *paper, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["below_ideal"] is True
    assert main(["best-tiles", *paper]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("note: T_alg < T_ideal (below_ideal)")
    assert main(["talg", *paper, "--tiles", "1,256,2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("note: T_alg < T_ideal")


def test_cli_best_tiles_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "512,512,512"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    best = cm.time.best_tiles("heat2d", "gtx980", (512, 512, 512))  # both default
    assert out[0].startswith(f"best tiles {best.tiles}: T_alg = ")
    assert f"{best.n_feasible} feasible of {best.n_points} points" in out[0]
    assert out[1] == f"{len(best.near_optimal)} points within 10% of the minimum:"
    assert out[2].split() == ["tS1", "tS2", "tT", "talg_s"]


def test_cli_chain_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    dims = "936,1008,552,368,1016,616,544"  # 000 App. D.7
    assert main(["chain", "--dims", dims, "--M", "65536", "--pareto"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "min op count 1,092,977,664: ((A1(A2A3))((A4A5)A6))"
    assert out[1] == "S(1,n) = 10,190,344.0 words (OP-DM, Eq. D.18)"
    assert out[2].startswith("F(1,n) + P0Pn = 8,392,058.")
    assert out[2].endswith("(17.65% less): ({A1(A2A3)}{(A4A5)A6})")
    assert out[3].split()[:4] == ["node", "i", "j", "hp"]
    assert any(line.startswith("Pareto front") for line in out)


def test_cli_json_of_records(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "4096,4096,1024"]
    assert main([*argv, "--tiles", "8,64,8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 9 and data["n_wavefronts"] == 2 * 128 + 1  # Eq. A.3: 2 ceil(1024/8)+1


def test_cli_json_is_strict_json_without_nan(capsys: pytest.CaptureFixture[str]) -> None:
    # validate --json printed bare NaN tokens (e.g. the noise floor of a one-pass table),
    # which strict parsers (jq, JSON.parse) refuse. Every --json output goes through
    # print_json.
    import math

    import numpy as np

    from costmetrics.cli import print_json

    def refuse(token: str) -> None:
        raise AssertionError(f"not strict JSON: {token}")

    record = types.SimpleNamespace(_asdict=lambda: {"floor": float("nan")})
    print_json({"a": math.nan, "b": np.float64("nan"), "c": [np.inf, -math.inf, 1.5],
                "d": (np.array([np.nan, 2.0]),), "e": record, "f": 3})  # fmt: skip
    data = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert data == {"a": None, "b": None, "c": ["inf", "-inf", 1.5], "d": [[None, 2.0]],
                    "e": {"floor": None}, "f": 3}  # fmt: skip


# ------------------------------------------------------------------ Hypothesis campaign
# Generated arguments against the contract of _support.py (run long: HYPOTHESIS_PROFILE=long
# pytest -m campaign).


TOKENS = st.sampled_from(
    ["talg", "best-tiles", "chain", "presets", "--stencil", "heat2d", "heat3d", "--gpu",
     "gtx980", "--sizes", "512,512,512", "-5,4,4", "1,2", "--tiles", "8,64,8", "--variant",
     "exact", "--json", "--dims", "3,4,5", "1000,2000,3000", "--M", "65536", "-1", "--pareto",
     "--beta", "derived", "--within", "0.5", "nan", "x", "--", "--version", "energy", "design",
     "--budget", "7", "100000", "--noise", "--precision"]
)  # fmt: skip


@pytest.mark.campaign
@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(TOKENS, max_size=10))
def test_cli_contract(argv: list[str]) -> None:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status in (0, 2), (argv, status, err.getvalue())
    if status == 2:
        assert out.getvalue() == ""
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    elif "--json" in argv and "--version" not in argv and out.getvalue():
        json.loads(out.getvalue())  # --json prints only JSON


def test_python_m_costmetrics_runs_the_command_line() -> None:
    # There was no __main__.py: "No module named costmetrics.__main__".
    out = subprocess.run(
        [sys.executable, "-m", "costmetrics", "--version"], capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0 and costmetrics.__version__ in out.stdout


def test_flags_that_were_silently_ignored_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Adversarial campaign (2026-11-30): the quiet-host flags without --quiet-host were
    # ignored and measuring started; --passes with --repeats took the repeats.
    from costmetrics import measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("measuring started")

    monkeypatch.setattr(measure, "calibrate", must_not_run)
    monkeypatch.setattr(measure, "measure", must_not_run)
    out = tmp_path / "t.csv"
    for flag in ("--quiet-wait", "--quiet-every", "--quiet-probe"):
        assert main(["measure", "--out", str(out), flag, "5", "--limit", "1"]) == 2
        err = capsys.readouterr().err
        assert f"{flag}: only with --quiet-host" in err and err.count("\n") == 1
    assert not out.exists()
    assert main(["calibrate", "--out", str(tmp_path / "cal"), "--passes", "3",
                 "--repeats", "4"]) == 2  # fmt: skip
    assert "--repeats" in capsys.readouterr().err


def test_cli_output_files_refuse_fifos_and_devices_without_opening_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A FIFO hung --save and measure --out (opened for append before the kind was checked);
    # a device node or FIFO given to --save or energy design --out was replaced by a
    # regular file. The work is replaced by a failure, so that nothing is ever written to
    # /dev/null here (it is stat-ed, not opened) and a regression fails instead of writing.
    import os
    import stat

    from costmetrics import codesign, energy, measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work ran before the output file was checked")

    for module, name in ((codesign, "sweep"), (energy, "design"), (measure, "measure")):
        monkeypatch.setattr(module, name, must_not_run)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # opening it no longer blocks
    missing = tmp_path / "no" / "x.npz"
    try:
        for target, message in (
            (fifo, f"{fifo} is not a regular file"),
            (Path("/dev/null"), "/dev/null is not a regular file"),
            (missing, f"folder {missing.parent} does not exist"),
        ):
            for argv, option in (
                (["codesign", "--area-min", "425", "--area-max", "426", "--no-progress",
                  "--save"], "--save"),
                (["energy", "design", "--budget", "3", "--out"], "--out"),
                (["measure", "--stencils", "jacobi1d", "--limit", "1", "--passes", "1",
                  "--out"], "--out"),
            ):  # fmt: skip
                if argv[0] == "measure" and target == missing:
                    continue  # measure creates its table's folder (documented)
                assert main([*argv, str(target)]) == 2, argv
                captured = capsys.readouterr()
                lines = captured.err.strip().splitlines()
                assert captured.out == "" and len(lines) == 1, captured.err
                assert lines[0] == f"costmetrics {command(argv)}: error: {option}: {message}", lines
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not missing.parent.exists()


def test_cli_measure_out_path_with_a_line_break_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command line (with --out) is the header's "command:" line: a newline in the path
    # split it, and the table (every row measured) read as "lacks columns".
    from costmetrics import measure

    out = tmp_path / "nl\nx\r.csv"
    argv = ["measure", "--stencils", "jacobi1d", "--grid", "coarse", "--limit", "1",
            "--passes", "1", "--threads", "1", "--no-probe-cpus", "--json",
            "--out", str(out)]  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["costmetrics", *argv])
    assert main(argv) == 0, capsys.readouterr().err
    table = measure.read_table(out)
    assert len(table) == 1
    command = table.header_value("command")
    assert command is not None and "nl\\nx\\r.csv" in command


def test_empty_path_options_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Second adversarial campaign (2026-11-30): `reproduce --out ''` wrote report.md,
    # report.json and the experiments' folders into the working directory (Path("") is
    # "."). Every path option refuses an empty string, before any work.
    monkeypatch.chdir(tmp_path)
    for argv in (
        ["reproduce", "--only", "chain", "--out", ""],
        ["calibrate", "--out", ""],
        ["measure", "--stencils", "jacobi1d", "--out", ""],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "argument --out: expected a path, got an empty string" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_output_folders_refuse_files_fifos_and_devices_by_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) calibrate --out afile (or /dev/null) and reproduce
    # --out FIFO said "--out: cannot write to afile: File exists" (mkdir's error).
    from costmetrics import measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work ran before the output folder was checked")

    monkeypatch.setattr(measure, "calibrate", must_not_run)
    monkeypatch.setattr(reproduce_module, "reproduce", must_not_run)
    afile = tmp_path / "afile"
    afile.write_text("x")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for argv, message in (
        (["calibrate", "--out", str(afile)], f"--out: {afile} is a file, expected a folder"),
        (["calibrate", "--out", "/dev/null"],
         "--out: /dev/null is a character device, expected a folder"),
        (["reproduce", "--only", "area", "--out", str(fifo)],
         f"--out: {fifo} is a FIFO (named pipe), expected a folder"),
    ):  # fmt: skip
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert lines[0] == f"costmetrics {argv[0]}: error: {message}", lines[0]
    assert afile.read_text() == "x" and os.path.exists("/dev/null")


def test_refused_options_leave_no_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) calibrate --out newcal/deep --passes 0 left an empty
    # newcal/deep/, reproduce --only bogus --out rnew1 an empty rnew1/: the folder was
    # created before the other options were checked.
    monkeypatch.chdir(tmp_path)
    for argv in (
        ["calibrate", "--out", "newcal/deep", "--passes", "0"],
        ["reproduce", "--only", "bogus", "--out", "rnew1"],
    ):
        assert main(argv) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "error: " in lines[0], lines
    assert list(tmp_path.iterdir()) == []
    # A folder that could not be created is still refused before any work.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["calibrate", "--out", str(blocker / "a" / "b")]) == 2
    assert f"error: --out: cannot write to {blocker / 'a' / 'b'}: " in capsys.readouterr().err
    assert main(["reproduce", "--only", "area", "--out", str(blocker / "a")]) == 2
    err = capsys.readouterr().err
    assert f"error: --out: cannot write to {blocker / 'a'}: {blocker} is not a folder" in err


MEASUREMENTS = cm.presets.data_dir() / "measurements"


def test_errors_name_the_option_not_the_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) calibrate --configs 0 said "n_configs: ...",
    # --budget-bytes 0 "buffer_budget_bytes: ...", validate --calibration /nonexistent
    # "path: cannot read /nonexistent/calibration.json", and --statistic min on a
    # calibration saved without its passes "statistic: this calibration cannot be derived
    # again (... TypeError("'int' object is not iterable"))".
    from costmetrics import measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the work ran before the options were checked")

    monkeypatch.setattr(measure, "_run_point", must_not_run)  # calibrate's measurements
    monkeypatch.setattr(measure, "tune", must_not_run)
    out = str(tmp_path / "cal")
    sweep = str(MEASUREMENTS / "cpu_sweep.csv")
    cases = [
        (["calibrate", "--out", out, "--configs", "0"], "--configs: must be in [1, 1000], got 0"),
        (["calibrate", "--out", out, "--budget-bytes", "0"], "--budget-bytes: must be in [1024, "),
        (["calibrate", "--out", out, "--threads", "0"], "--threads: must be in [1, "),
        (["calibrate", "--out", out, "--working-set-words", "0"], "--working-set-words: must be"),
        (["calibrate", "--out", out, "--repeats", "0"], "--repeats: must be in [1, 1000], got 0"),
        (["reproduce", "--only", "bogus", "--out", out], "--only: unknown experiment(s) ['bogus']"),
        (["validate", str(tmp_path / "x.csv"), "--calibration", "/nonexistent"],
         f"table: no file {tmp_path / 'x.csv'}"),
        (["validate", sweep, "--calibration", "/nonexistent"],
         "--calibration: no folder /nonexistent"),
        (["validate", "--table", str(tmp_path / "x.csv"), "--calibration", "/nonexistent"],
         f"--table: no file {tmp_path / 'x.csv'}"),
        (["validate", "--calibration", "/nonexistent"], "--table: required"),
        (["validate", "--table", str(MEASUREMENTS / "README.md"), "--calibration",
          str(MEASUREMENTS / "cpu_calibration")], "--table: "),
        (["validate", sweep, "--table", sweep, "--calibration", "/nonexistent"],
         f"table: given both positionally ({sweep!r}) and with --table"),
        (["validate", sweep, "--calibration", str(tmp_path)],
         f"--calibration: {tmp_path} has no calibration.json"),
        (["validate", sweep, "--calibration", sweep],
         f"--calibration: {sweep} is a file, expected a folder"),
        (["measure", "--out", str(tmp_path / "t.csv"), "--calibration", "/nonexistent"],
         "--calibration: no folder /nonexistent"),
        (["tune", "jacobi1d", "512", "8", "--calibration", "/nonexistent"],
         "--calibration: no folder /nonexistent"),
        (["validate", sweep, "--calibration", str(MEASUREMENTS / "cpu_calibration"),
          "--statistic", "min"],
         "--statistic: the 2-thread calibration 'cpuamdepyc2t' lacks the stored passes of its "
         "micro-benchmarks that the statistic 'min' needs"),
    ]  # fmt: skip
    for argv, message in cases:
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert captured.out == "" and len(lines) == 1, captured.err
        assert lines[0].startswith(f"costmetrics {argv[0]}: error: {message}"), lines[0]
    assert list(tmp_path.iterdir()) == []


def test_calibrate_threads_take_all_and_confirm_passes_needs_confirm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) calibrate --threads all was refused ("expected
    # comma-separated integers") while measure and tune take it; validate --confirm-passes
    # without --confirm was silently ignored.
    from costmetrics import measure
    from costmetrics import validate as cm_validate

    seen: list[object] = []

    class StopError(Exception):
        pass

    def record(**kwargs: object) -> None:
        seen.append(kwargs["threads"])
        raise StopError

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the validation ran")

    monkeypatch.setattr(measure, "calibrate", record)
    monkeypatch.setattr(cm_validate, "validate", must_not_run)
    for value in ("all", "1,all"):
        with pytest.raises(StopError):
            main(["calibrate", "--out", str(tmp_path / "cal"), "--threads", value])
    n = measure.default_threads()
    assert seen == [[n], [1, n]]
    assert main(["calibrate", "--out", str(tmp_path / "cal"), "--threads", "few"]) == 2
    assert "error: --threads: expected integers or 'all', got 'few'" in capsys.readouterr().err
    sweep = str(MEASUREMENTS / "cpu_sweep.csv")
    cal = str(MEASUREMENTS / "cpu_calibration")
    assert main(["validate", sweep, "--calibration", cal, "--confirm-passes", "1"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == ["costmetrics validate: error: --confirm-passes: only with --confirm"]
    assert list(tmp_path.iterdir()) == []


def test_validate_prints_warnings_as_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (adversarial tester, 2026-11-30) validate on a table whose last line is unterminated
    # printed read_table's UserWarning in Python's form: "/path/cli.py:931: UserWarning:
    # ..." and the source line, unlike tune and measure.
    lines = (MEASUREMENTS / "cpu_sweep.csv").read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in lines if not ln.startswith(("gradient2d", "heat2d", "jacobi2d",
                                                     "laplacian2d"))]  # fmt: skip
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join(kept), encoding="utf-8")  # no newline after the last row
    argv = ["validate", str(cut), "--calibration", str(MEASUREMENTS / "cpu_calibration")]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    err = captured.err.strip().splitlines()
    assert err == [
        f"costmetrics validate: warning: {cut}: ignoring an unterminated last line of "
        f"{len(kept[-1])} bytes (a sweep cut while writing; measure() sets it aside and "
        "measures that point again)"
    ], err


def test_confirm_refuses_another_machines_table_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) validate SWEEP --confirm DIR/c.csv with a table of
    # another machine refused only after the whole validation (16 s), in
    # confirm_selection, and left DIR/ and DIR/.c.csv.lock behind. The shipped Xeon run is
    # another machine's wherever these tests run on another CPU.
    from costmetrics import measure
    from costmetrics import validate as cm_validate

    run = MEASUREMENTS / "quiet_run_2026-11-29_xeon_runs"
    table = measure.read_table(run / "sweep.csv")
    here = measure.machine_record()
    differs = [k for k in measure.MACHINE_IDENTITY
               if k in table.machine and k in here and table.machine[k] != here[k]]  # fmt: skip
    if not differs:
        pytest.skip("this machine is the one that measured the shipped Xeon run")

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("the validation ran before --confirm's table was checked")

    monkeypatch.setattr(cm_validate, "validate", must_not_run)
    out = tmp_path / "DIR" / "c.csv"
    argv = ["validate", str(run / "sweep.csv"), "--calibration", str(run / "calibration_1t"),
            "--calibration", str(run / "calibration_2t"), "--confirm", str(out)]  # fmt: skip
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        f"costmetrics validate: error: --confirm: {run / 'sweep.csv'}: measured on another "
        f"machine or harness build ({differs[0]} "
    ), lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_refused_command_leaves_no_output_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # measure --out DIR/t.csv created DIR when checking --out, before --threads and
    # --calibration were checked; validate --confirm DIR/c.csv created DIR in its check and
    # left it when the scoring then failed. The check now creates nothing.
    from costmetrics import measure
    from costmetrics import validate as cm_validate

    for extra in (["--threads", "999"], ["--calibration", str(tmp_path / "missing")]):
        out = tmp_path / "new" / "t.csv"
        argv = ["measure", "--out", str(out), "--stencils", "jacobi1d", "--limit", "1",
                "--passes", "1", "--no-probe-cpus", *extra]  # fmt: skip
        assert main(argv) == 2, extra
        assert "error: --" in capsys.readouterr().err
        assert list(tmp_path.iterdir()) == [], extra
    table = tmp_path / "m.csv"
    measure.measure([measure.Point("jacobi1d", (64, 8), (4, 2))], table, threads=1, passes=1,
                    warmup=0, cpu_probe=False)  # fmt: skip

    def refuse(*args: object, **kwargs: object) -> None:
        raise ValueError("calibration: refused by this test")

    monkeypatch.setattr(cm_validate, "validate", refuse)
    out = tmp_path / "DIR" / "c.csv"
    argv = ["validate", str(table), "--calibration", str(MEASUREMENTS / "cpu_calibration"),
            "--confirm", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert "--calibration: refused by this test" in capsys.readouterr().err
    assert not (tmp_path / "DIR").exists()  # (m.csv has its lock file beside it)


def test_tune_checks_out_before_the_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (adversarial tester, 2026-11-30) tune ... --fit TABLE --out DIR, DIR a folder, fitted
    # first (10 s), then failed with "out: DIR is a folder, expected a file".
    from costmetrics import measure

    def must_not_run(*args: object, **kwargs: object) -> None:
        raise AssertionError("tune ran before --out was checked")

    monkeypatch.setattr(measure, "tune", must_not_run)
    cal = str(MEASUREMENTS / "cpu_calibration")
    sweep = str(MEASUREMENTS / "cpu_sweep.csv")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out, message in (
        (tmp_path, f"--out: {tmp_path} is a folder, expected a file"),
        (Path("/dev/null"), "--out: /dev/null is not a regular file"),
        (blocker / "t.csv", f"--out: {blocker} is a file, expected a folder"),
    ):
        argv = ["tune", "jacobi1d", "512", "8", "--calibration", cal, "--fit", sweep,
                "--out", str(out)]  # fmt: skip
        assert main(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"costmetrics tune: error: {message}"), lines
    # A missing folder is not created by the check (measure creates it).
    argv = ["tune", "jacobi1d", "512", "8", "--calibration", cal, "-k", "0",
            "--out", str(tmp_path / "new" / "t.csv")]  # fmt: skip
    monkeypatch.undo()
    assert main(argv) == 2
    assert "error: -k: must be in [1, 10000], got 0" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_sigterm_ends_a_command_as_an_interrupt(tmp_path: Path) -> None:
    # (kill campaign, 2026-11-30) SIGTERM ended the process at once: a write under way left
    # its hidden temporary file. It is now raised where the command runs, as SIGINT is:
    # the clean-up runs, one line says so, and the status is 143.
    import signal
    import subprocess
    import sys
    import time

    with subprocess.Popen(
        [sys.executable, "-m", "costmetrics.cli", "probe", "--seconds", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:  # fmt: skip
        assert proc.stderr is not None
        seen = ""
        deadline = time.monotonic() + 120
        while "host speed" not in seen and time.monotonic() < deadline:
            seen += proc.stderr.read(1)  # the progress bar: the command runs
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, seen + err
    assert err.strip().splitlines()[-1].endswith("costmetrics probe: terminated")


def test_a_second_sigterm_ends_a_command_whose_first_was_swallowed() -> None:
    # The interrupt a SIGTERM raises can be caught by a library's bare except (once in the
    # campaign of 2026-11-30 a measure ran to its end after one); a second SIGTERM then
    # ends the process at once, as without the handler.
    import subprocess
    import sys

    code = (
        "import os, signal, time\n"
        "from costmetrics._interrupt import terminate_as_interrupt\n"
        "with terminate_as_interrupt():\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n"
        "    except BaseException:\n"
        "        print('swallowed', flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n"
        "    print('survived', flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == -15 and done.stdout == "swallowed\n", done


def test_a_lost_sigterm_stops_a_measurement_at_its_next_run(tmp_path: Path) -> None:
    # The interrupt a SIGTERM raises can be lost (a library's bare except, or raised in a
    # __del__, where Python only prints "Exception ignored"): a measurement then ran to its
    # end. The request is remembered, and measure and calibrate check it before each run.
    import os
    import signal
    import time

    from costmetrics import measure as mm
    from costmetrics._interrupt import Terminated, raise_if_terminated, terminate_as_interrupt

    out = tmp_path / "t.csv"
    points = [mm.Point("jacobi1d", (64, 8), (4, 2)), mm.Point("jacobi1d", (64, 8), (8, 2))]
    mm.measure(points, out, threads=1, passes=1, warmup=0)
    kept = out.read_text(encoding="utf-8")
    with terminate_as_interrupt():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        except KeyboardInterrupt:
            pass  # lost
        with pytest.raises(Terminated):
            mm.measure(points, out, threads=1, passes=3, warmup=0)  # resumes: passes 1 and 2
        with pytest.raises(Terminated):
            mm.calibrate(threads=[1], passes=1, working_set_words=4096)
    raise_if_terminated()  # outside the command: nothing pending
    after = out.read_text(encoding="utf-8")
    assert after.startswith(kept)  # every row measured before is still there
    table = mm.read_table(out)
    assert len(table) == 2 and set(table.pass_index) == {0}  # no run of pass 1 or 2
