"""Tests of the measurement protocol (issue 21): shuffled passes, crash-safe tables, the
noise floor and bootstrap intervals, leave-problem-out scoring, threads and schedules, and
the measured tuner.

Every sweep here is a smoke run of tiny problems (microseconds per run): its times are not
measurements of anything and no test asserts on them, only on the table's structure.
Tables built by hand are labelled synthetic.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _support import ANY_INT, SPECIAL_FLOATS, WRONG, campaign, contract
from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.experiments import validate as exp_validate
from costmetrics.presets import data_dir

CALIBRATION = data_dir() / "measurements" / "cpu_calibration"
A = mm.Point("jacobi1d", (64, 8), (4, 2))
B = mm.Point("heat2d", (16, 16, 6), (2, 32, 4), ("grid", "baseline"))


def _quiet_measure(*args: object, **kwargs: object) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        return mm.measure(*args, **kwargs)  # type: ignore[arg-type]


def _keys(table: mm.Table) -> list[tuple[object, ...]]:
    return sorted((table.key_of(i), int(table.pass_index[i])) for i in range(len(table)))


def _read(path: Path) -> mm.Table:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return mm.read_table(path)


# --------------------------------------------------------------------------------------
# Passes, order and columns
# --------------------------------------------------------------------------------------


def test_passes_are_shuffled_seeded_and_recorded(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    pts = [A, B, mm.Point("jacobi1d", (64, 8), (8, 4))]
    _quiet_measure(pts, out, threads=1, passes=3, warmup=1, seed=7)
    t = mm.read_table(out)
    assert len(t) == 9 and t.n_passes == 3
    protocol = json.loads(t.header_value("protocol") or "{}")
    assert protocol["seed"] == 7 and protocol["passes"] == 3 and protocol["warmup"] == 1
    # Rows of each pass are written in the order of pass_order(seed, pass).
    # The default schedule is each stencil's (block in 1D).
    units = [(p.stencil, p.sizes, p.tiles, 1, mm.default_schedule(p.stencil)) for p in pts]
    for k in range(3):
        rows = np.flatnonzero(t.pass_index == k)
        want = [units[int(i)] for i in mm.pass_order(3, 7, k)]
        assert [t.key_of(int(i)) for i in rows] == want
        assert t.columns["order"][rows].tolist() == [0.0, 1.0, 2.0]
    assert mm.pass_order(50, 7, 0).tolist() != mm.pass_order(50, 7, 1).tolist()
    assert sorted(mm.pass_order(50, 7, 0).tolist()) == list(range(50))
    assert set(t.memory_level) <= set(mm.MEMORY_LEVELS)
    assert np.all(t.columns["working_set_bytes"][t.stencil.index("jacobi1d")] == 2 * 66 * 4)
    assert np.isfinite(t.loadavg_1m).all()


def test_threads_are_a_column_and_checked(tmp_path: Path) -> None:
    cpus = mm.default_threads()
    out = tmp_path / "t.csv"
    _quiet_measure([A], out, threads=None, passes=1, warmup=0)
    t = mm.read_table(out)
    assert sorted(set(t.threads.tolist())) == sorted({1, cpus})
    with pytest.raises(ValueError, match="threads"):
        mm.measure([A], tmp_path / "x.csv", threads=cpus + 1)
    with pytest.raises(ValueError, match="threads"):
        mm.measure([replace(A, threads=cpus + 1)], tmp_path / "x.csv", threads=1)
    with pytest.raises(TypeError, match="threads"):
        mm.measure([A], tmp_path / "x.csv", threads="2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="schedule"):
        mm.measure([A], tmp_path / "x.csv", threads=1, schedule="zigzag")
    with pytest.raises(ValueError, match="passes"):
        mm.measure([A], tmp_path / "x.csv", threads=1, passes=0)
    with pytest.raises(ValueError, match="tile_t"):
        mm.measure([mm.Point("jacobi1d", (64, 8), (4, 3))], tmp_path / "x.csv", threads=1)
    with pytest.raises(ValueError, match="harness limit"):
        mm.measure([mm.Point("jacobi1d", (2**26, 8), (4, 2))], tmp_path / "x.csv", threads=1)
    assert not (tmp_path / "x.csv").exists()  # nothing written for bad input
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ValueError, match="out"):
        mm.measure([A], tmp_path / "dir.csv", threads=1)


def test_both_schedules_are_points_and_bitwise_correct(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    _quiet_measure([A, B], out, threads=1, passes=1, warmup=0, schedule=("round-robin", "block"))
    t = mm.read_table(out)
    assert sorted(t.schedule) == ["block", "block", "round-robin", "round-robin"]
    assert t.correct.all()


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
@pytest.mark.parametrize(
    ("stencil", "sizes", "tiles"),
    [
        ("jacobi1d", (300, 20), (5, 4)),
        ("jacobi1d", (97, 33), (1, 2)),
        ("heat2d", (40, 45, 12), (3, 8, 4)),
        ("gradient2d", (33, 70, 9), (2, 5, 6)),
        ("laplacian2d", (20, 20, 5), (7, 3, 2)),
    ],
)
def test_block_schedule_equals_naive_bitwise(
    stencil: str, sizes: tuple[int, ...], tiles: tuple[int, ...], threads: int
) -> None:
    want = mm.naive(stencil, sizes)
    for schedule in mm.SCHEDULES:
        got = mm.tiled(stencil, sizes, tiles, threads=threads, schedule=schedule)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), schedule


@settings(max_examples=25, deadline=None)
@given(
    ts=st.integers(1, 12),
    tt=st.integers(1, 6).map(lambda h: 2 * h),
    s=st.integers(1, 200),
    t=st.integers(1, 30),
    threads=st.integers(1, 4),
)
def test_property_block_schedule_equals_naive(
    ts: int, tt: int, s: int, t: int, threads: int
) -> None:
    got = mm.tiled("jacobi1d", (s, t), (ts, tt), threads=threads, schedule="block")
    want = mm.naive("jacobi1d", (s, t))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_memory_level_from_cache_sizes() -> None:
    machine = {"l1d_bytes": 32 * 1024, "l2_bytes": 1024 * 1024, "l3_bytes": 32 * 1024**2}
    # Working set: 2 arrays x (S + 2) floats (1D), 2 x (S1 + 2)(S2 + 2) floats (2D).
    assert mm.memory_level("jacobi1d", machine, (4094, 8)) == "L1"  # exactly 32 KiB
    assert mm.memory_level("jacobi1d", machine, (4095, 8)) == "L2"
    assert mm.memory_level("heat2d", machine, (254, 254, 8)) == "L2"  # 504 KiB
    assert mm.memory_level("heat2d", machine, (1022, 1022, 8)) == "L3"  # 8 MiB
    assert mm.memory_level("heat2d", machine, (4094, 4094, 8)) == "DRAM"  # 128 MiB
    assert mm.memory_level("heat2d", {}, (16, 16, 8)) == "DRAM"  # caches unknown
    # 3D: 2 x (S1 + 2)(S2 + 2)(S3 + 2) floats.
    assert mm.memory_level("heat3d", machine, (30, 30, 30, 8)) == "L2"  # 256 KiB
    assert mm.memory_level("heat3d", machine, (62, 62, 62, 8)) == "L3"  # 2 MiB
    assert mm.memory_level("heat3d", machine, (254, 254, 254, 4)) == "DRAM"  # 128 MiB
    with pytest.raises(ValueError, match="sizes"):
        mm.memory_level("heat3d", machine, (16, 16, 8))
    with pytest.raises(ValueError, match="stencil"):
        mm.memory_level("heat4d", machine, (16, 16, 16, 8))


def test_level_sizes_span_l2_to_past_l2() -> None:
    machine = {"l1d_bytes": 32 * 1024, "l2_bytes": 1024 * 1024, "l3_bytes": 32 * 1024**2}
    for name, sizes in mm.LEVEL_SIZES.items():
        levels = [mm.memory_level(name, machine, s) for s in sizes]
        assert levels[0] == "L2" and levels[-1] == "DRAM", (name, levels)
        ws = [2 * 4 * np.prod([v + 2 for v in s[:-1]]) for s in sizes]
        assert ws[-1] >= 4 * 2 * 1024 * 1024  # at least 4x a 2 MiB L2


def test_memory_level_refuses_bad_sizes_and_machine() -> None:
    machine = {"l1d_bytes": 32 * 1024, "l2_bytes": 1024 * 1024, "l3_bytes": 32 * 1024**2}
    # Negative or zero sizes have no working set: they are refused, not placed in L1.
    for sizes in [(-5, -5, -5), (0, 0, 0), (64, 0, 16), (64, 64, 0)]:
        with pytest.raises(ValueError, match="sizes"):
            mm.memory_level("jacobi2d", None, sizes)
        with pytest.raises(ValueError, match="sizes"):
            mm.memory_level("jacobi2d", machine, sizes)
    with pytest.raises(ValueError, match="sizes"):
        mm.memory_level("jacobi1d", machine, (-1, 8))
    for bad in ["x", 1, [machine]]:
        with pytest.raises(TypeError, match="machine"):
            mm.memory_level("jacobi2d", bad, (64, 64, 16))  # type: ignore[arg-type]
    assert mm.memory_level("jacobi1d", machine, (1, 1)) == "L1"  # the smallest problem


def test_pass_order_refuses_bad_arguments() -> None:
    assert mm.pass_order(0, 7, 0).tolist() == []  # no units: an empty pass
    with pytest.raises(ValueError, match="n_units"):
        mm.pass_order(-1, 0, 1)
    with pytest.raises(ValueError, match="seed"):
        mm.pass_order(3, -1, 0)
    with pytest.raises(ValueError, match="pass_index"):
        mm.pass_order(3, 0, -1)
    for bad in [True, [[7]], 2.0, "3", None]:
        with pytest.raises(TypeError, match="n_units"):
            mm.pass_order(bad, 0, 1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="seed"):
            mm.pass_order(3, bad, 1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="pass_index"):
            mm.pass_order(3, 0, bad)  # type: ignore[arg-type]
    numpy_ints: list[Any] = [np.int64(5), np.uint64(7), np.int32(1)]
    assert mm.pass_order(*numpy_ints).tolist() == mm.pass_order(5, 7, 1).tolist()


def test_load_is_high_refuses_bad_arguments() -> None:
    assert not mm.load_is_high(0.0, 1)
    with pytest.raises(ValueError, match="loadavg_1m"):
        mm.load_is_high(-1.0, 2)
    with pytest.raises(ValueError, match="loadavg_1m"):
        mm.load_is_high(math.inf, 2)
    with pytest.raises(ValueError, match="cpus"):
        mm.load_is_high(1.0, 0)
    with pytest.raises(TypeError, match="loadavg_1m"):
        mm.load_is_high(True, 2)
    with pytest.raises(TypeError, match="loadavg_1m"):
        mm.load_is_high("1.0", 2)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cpus"):
        mm.load_is_high(1.0, 2.0)  # type: ignore[arg-type]


def test_check_same_machine_refuses_bad_arguments() -> None:
    here = {"cpu_model": "synthetic", "l1d_bytes": 32768}
    mm.check_same_machine(dict(here), "calibration", here)  # same machine: no error
    mm.check_same_machine({}, "calibration", here)  # nothing recorded: nothing to compare
    with pytest.raises(ValueError, match=r"calibration: .*l1d_bytes"):
        mm.check_same_machine({"l1d_bytes": 49152}, "calibration", here)
    for bad in [None, "x", 1, [here]]:
        with pytest.raises(TypeError, match="recorded"):
            mm.check_same_machine(bad, "calibration", here)  # type: ignore[arg-type]
    for wrong in ["x", 1, [here]]:
        with pytest.raises(TypeError, match="current"):
            mm.check_same_machine(here, "calibration", wrong)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name"):
        mm.check_same_machine(here, 1, here)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name"):
        mm.check_same_machine(here, " ", here)


def test_load_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert mm.load_is_high(1.1, 2) and not mm.load_is_high(1.0, 2)
    assert not mm.load_is_high(float("nan"), 2)
    monkeypatch.setattr(mm, "_loadavg", lambda: (99.0, 99.0, 99.0))
    with pytest.warns(mm.LoadWarning, match="load average 99"):
        mm.measure([A], tmp_path / "t.csv", threads=1, passes=1, warmup=0)
    t = mm.read_table(tmp_path / "t.csv")
    assert any(c.startswith("warning: load average 99") for c in t.comments)
    assert t.loadavg_1m.tolist() == [99.0]


# --------------------------------------------------------------------------------------
# Crash safety: cut at every byte
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def complete_table(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("complete") / "t.csv"
    _quiet_measure([A, B], out, threads=1, passes=2, warmup=0)
    return out.read_bytes()


def test_cut_in_last_row_read_and_resume(tmp_path: Path, complete_table: bytes) -> None:
    data = complete_table
    start = data.rstrip(b"\n").rfind(b"\n") + 1  # first byte of the last row
    full = mm.read_table(_write_bytes(tmp_path / "full.csv", data))
    assert len(full) == 4
    for cut in range(start, len(data) + 1):
        path = _write_bytes(tmp_path / "cut.csv", data[:cut])
        table = _read(path)
        n_want = 4 if cut == len(data) else 3
        assert len(table) == n_want, cut
        # The rows read are exactly the complete rows of the full table, values included.
        assert set(_key_list(table)) <= set(_key_list(full))
        for i in range(len(table)):
            j = next(
                j
                for j in range(len(full))
                if full.key_of(j) == table.key_of(i) and full.pass_index[j] == table.pass_index[i]
            )
            assert table.time_s[i] == full.time_s[j]
        _quiet_measure([A, B], path, threads=1, passes=2, warmup=0)
        resumed = mm.read_table(path)  # no warning: the file ends with a newline
        assert _keys(resumed) == _keys(full), cut  # every (point, pass) once
        kept = [
            resumed.time_s[i]
            for i in range(len(resumed))
            if (resumed.key_of(i), int(resumed.pass_index[i])) in set(_key_list(table))
        ]
        assert sorted(kept) == sorted(table.time_s.tolist())  # nothing measured is lost
        set_aside = [c for c in resumed.comments if c.startswith("set aside:")]
        assert len(set_aside) == (0 if cut in (start, len(data)) else 1), cut
        if set_aside:
            assert json.dumps(data[start:cut].decode()) in set_aside[0]


def _key_list(table: mm.Table) -> list[tuple[object, int]]:
    return [(table.key_of(i), int(table.pass_index[i])) for i in range(len(table))]


def test_cut_in_header_read_and_resume(tmp_path: Path, complete_table: bytes) -> None:
    data = complete_table
    header_end = data.index(b"\nstencil,") + 1
    header_end = data.index(b"\n", header_end) + 1  # end of the column line
    for cut in range(0, header_end + 1):
        path = _write_bytes(tmp_path / "cut.csv", data[:cut])
        with pytest.raises(ValueError, match=r"no header row|no data rows|lacks columns"):
            _read(path)
        _quiet_measure([A], path, threads=1, passes=1, warmup=0)
        table = mm.read_table(path)
        assert len(table) == 1 and table.comments[0] == "costmetrics measurement table, schema 3"


def test_a_table_with_a_byte_order_mark_is_resumed(tmp_path: Path, complete_table: bytes) -> None:
    # (adversarial tester) read_table reads such a table; resume refused it, quoting its
    # second header line as the first ("is not a table of this protocol").
    bom = b"\xef\xbb\xbf"
    last = complete_table.rstrip(b"\n").rfind(b"\n") + 1  # the last row, measured again
    header_end = complete_table.index(b"\n", complete_table.index(b"\nstencil,") + 1) + 1
    for cut in (last, header_end, last + 5):  # a row lacking; no row; a row cut short
        path = _write_bytes(tmp_path / "bom.csv", bom + complete_table[:cut])
        _quiet_measure([A, B], path, threads=1, passes=2, warmup=0)
        data = path.read_bytes()
        assert data.count(bom) == (0 if cut == header_end else 1), cut  # no second mark
        resumed = mm.read_table(path)
        assert _keys(resumed) == _keys(_read(_write_bytes(tmp_path / "f.csv", complete_table)))


def test_a_second_sweep_on_a_table_being_measured_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (adversarial tester) Two sweeps on one table at once both appended every (point,
    # pass): neither finished, and no reader or resume accepted the table again. Here the
    # second (the API, and the CLI) starts while the first is inside its first run.
    from costmetrics.cli import main

    out = tmp_path / "t.csv"
    real_run = mm.run
    tried: list[bool] = []
    refused: list[str] = []

    def run_with_a_second_sweep(*args: object, **kwargs: object) -> Any:
        if not tried:
            tried.append(True)  # once (an unlocked second sweep came back here)
            before = out.read_bytes()
            with pytest.raises(ValueError, match="^out: .* is being measured by another "
                               rf"process \(pid {os.getpid()}\); wait for it") as err:  # fmt: skip
                _quiet_measure([A, B], out, threads=1, passes=2, warmup=0)
            cli = ["measure", "--out", str(out), "--stencils", "jacobi1d", "--threads", "1",
                   "--passes", "2", "--limit", "1", "--no-probe-cpus", "--json"]  # fmt: skip
            assert main(cli) == 2
            lines = capsys.readouterr().err.strip().splitlines()
            assert len(lines) == 1 and "is being measured by another process" in lines[0]
            assert lines[0].startswith("costmetrics measure: error: --out: "), lines[0]
            assert out.read_bytes() == before  # the second wrote nothing
            refused.append(str(err.value))
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mm, "run", run_with_a_second_sweep)
    _quiet_measure([A, B], out, threads=1, passes=2, warmup=0)
    assert refused
    assert len(_keys(mm.read_table(out))) == 4  # the first finished a table that reads
    monkeypatch.setattr(mm, "run", real_run)
    _quiet_measure([A, B], out, threads=1, passes=3, warmup=0)  # the lock was released
    assert len(mm.read_table(out)) == 6


def test_the_table_lock_dies_with_its_process(tmp_path: Path) -> None:
    # A sweep killed by SIGKILL runs no handler; the kernel releases its flock, so the
    # table is resumed as before (a lock file left behind must not block it).
    out = tmp_path / "t.csv"
    code = (
        "import sys; from pathlib import Path; from costmetrics import measure as mm\n"
        "with mm._table_lock(Path(sys.argv[1]), 'out'):\n"
        "    print('locked', flush=True); sys.stdin.readline()"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    ) as holder:  # fmt: skip
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
            with pytest.raises(ValueError, match=rf"another process \(pid {holder.pid}\)"):
                _quiet_measure([A], out, threads=1, passes=1, warmup=0)
            assert not out.exists()
        finally:
            holder.kill()  # SIGKILL
    _quiet_measure([A], out, threads=1, passes=1, warmup=0)
    assert len(mm.read_table(out)) == 1


def test_the_confirmation_check_refuses_a_table_being_measured(tmp_path: Path) -> None:
    # validate --confirm checks its table before minutes of scoring; measure() would
    # refuse it only after them.
    out = tmp_path / "confirm.csv"
    with mm._table_lock(out, "out"):
        with pytest.raises(ValueError, match=r"^--confirm: .* is being measured by another"):
            cv.check_confirm_output(out, "--confirm")
    cv.check_confirm_output(out, "--confirm")  # released


def test_a_refused_confirmation_check_leaves_no_lock_file(
    tmp_path: Path, complete_table: bytes
) -> None:
    # (adversarial tester, 2026-11-30) check_confirm_output took the table's lock to check
    # it, creating .<name>.lock: a refused --confirm into an existing table (here, one of
    # another seed) left it behind, and so did a fresh path.
    out = _write_bytes(tmp_path / "c.csv", complete_table)
    with pytest.raises(ValueError, match=r"^--confirm: "):
        cv.check_confirm_output(out, "--confirm")
    cv.check_confirm_output(tmp_path / "new.csv", "--confirm")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv"]
    assert out.read_bytes() == complete_table
    # A lock file a writer made is still taken for the check (the test above).
    with mm._table_lock(out, "out"):
        pass
    with pytest.raises(ValueError, match=r"^--confirm: .*seed"):
        cv.check_confirm_output(out, "--confirm")


def _write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_foreign_tables_are_refused_untouched(tmp_path: Path, complete_table: bytes) -> None:
    text = complete_table.decode()
    cases = {
        "harness version": text.replace(f"# harness: {mm.HARNESS_VERSION}\n", "# harness: 0\n"),
        "another machine": text.replace('"cpu_model": "', '"cpu_model": "Other CPU '),
        "schema 1": text.replace("schema 3", "schema 1"),
        "schema 2": text.replace("schema 3", "schema 2"),
        "seed": text,
        # (second campaign: a protocol line that is not JSON resumed with no seed, warmup
        # or pin check)
        "protocol line that is not a JSON object": re.sub(
            r"(?m)^# protocol: .*$", "# protocol: {not json", text, count=1
        ),
    }
    for match, body in cases.items():
        path = tmp_path / "foreign.csv"
        # A partial last row too: it must not be cut off a table that is refused.
        path.write_bytes(body.encode() + b"jacobi1d,64,,8,4")
        before = path.read_bytes()
        seed = 5 if match == "seed" else 0
        with pytest.raises(ValueError, match="protocol" if match.startswith("schema") else match):
            _quiet_measure([A, B], path, threads=1, passes=2, warmup=0, seed=seed)
        assert path.read_bytes() == before, match


def test_schema_1_tables_read_as_one_pass() -> None:
    t = mm.read_table(data_dir() / "measurements" / "cpu_sweep.csv")
    assert t.schema == 1 and t.n_passes == 1
    assert set(t.schedule) == {"round-robin"} and set(t.pass_index.tolist()) == {0}
    assert set(t.memory_level) <= {"L1", "L2", "L3", "DRAM"}
    m = t.medians()
    assert len(m) == len(t) and np.array_equal(m.time_s, t.time_s)


def test_duplicate_point_in_a_pass_is_an_error(tmp_path: Path, complete_table: bytes) -> None:
    lines = complete_table.decode().splitlines(keepends=True)
    path = tmp_path / "dup.csv"
    path.write_text("".join(lines) + lines[-1], encoding="utf-8")
    with pytest.raises(ValueError, match="already measured in pass"):
        mm.read_table(path)


def _header_at(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if line.startswith("stencil,"))


def test_a_column_named_twice_is_refused(tmp_path: Path, complete_table: bytes) -> None:
    # (adversarial tester) The second time_s column's values were read, silently.
    lines = complete_table.decode().splitlines(keepends=True)
    at = _header_at(lines)
    n_fields = lines[at].count(",") + 1
    twice = [*lines[:at], lines[at].rstrip("\n") + ", time_s \n"]
    twice += [line.rstrip("\n") + ",0.5\n" for line in lines[at + 1 :]]
    path = tmp_path / "twice.csv"
    path.write_text("".join(twice), encoding="utf-8")
    match = (
        rf"^{re.escape(str(path))}, line {at + 1}: column 'time_s' appears twice in the "
        rf"header \(fields {mm.CSV_COLUMNS.index('time_s') + 1} and {n_fields + 1}\)"
    )
    with pytest.raises(ValueError, match=match):
        mm.read_table(path)


def test_column_names_are_stripped_as_values_are(tmp_path: Path, complete_table: bytes) -> None:
    # (adversarial tester) "unix_time_s " was reported missing ("lacks columns
    # ['unix_time_s']") although values with spaces around them are read.
    lines = complete_table.decode().splitlines(keepends=True)
    at = _header_at(lines)
    spaced = ",".join(f" {c} " for c in lines[at].rstrip("\n").split(",")) + "\n"
    path = _write_bytes(
        tmp_path / "spaced.csv", "".join([*lines[:at], spaced, *lines[at + 1 :]]).encode()
    )
    a, b = mm.read_table(_write_bytes(tmp_path / "plain.csv", complete_table)), mm.read_table(path)
    assert _key_list(a) == _key_list(b)
    assert np.array_equal(a.time_s, b.time_s) and a.columns.keys() == b.columns.keys()


# --------------------------------------------------------------------------------------
# Passes until the noise floor is low (noise_target)
# --------------------------------------------------------------------------------------


class _FakeRuns:
    """SYNTHETIC run times (no harness): A (jacobi1d) takes 1 ms on every run; B (heat2d)
    takes ``b_times[pass]``, the pass read from how often B was run. ``stop_after`` raises
    after that many runs (a sweep killed between two rows)."""

    def __init__(self, b_times: list[float], stop_after: int | None = None) -> None:
        self.b_times, self.stop_after = b_times, stop_after
        self.calls = 0
        self.b_calls = 0

    def __call__(self, stencil: str, *args: object, **kwargs: object) -> SimpleNamespace:
        if self.stop_after is not None and self.calls >= self.stop_after:
            raise KeyboardInterrupt
        self.calls += 1
        if stencil == "heat2d":
            t = self.b_times[min(self.b_calls, len(self.b_times) - 1)]
            self.b_calls += 1
        else:
            t = 1e-3
        return SimpleNamespace(
            time_min_s=t, cpu_time_s=t, energy_j=math.nan, correct=True, max_abs_error=0.0,
            n_wavefronts=1, n_tiles=1, n_subtiles=1, words_loaded=1, words_stored=1,
            pinned_threads=1,
        )  # fmt: skip


def _passes_of(table: mm.Table, stencil: str) -> list[int]:
    rows = [i for i in range(len(table)) if table.stencil[i] == stencil]
    return sorted(int(table.pass_index[i]) for i in rows)


def test_noise_target_adds_pairs_of_passes_to_noisy_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # B alternates 1 and 2 ms (even / odd passes): its floor |1 - 2| / 1.5 never falls, so
    # pairs are added up to max_passes = 8: passes 3-4 and 5-6 (7-8 would pass 8).
    monkeypatch.setattr(mm, "run", _FakeRuns([1e-3, 2e-3] * 10))
    out = tmp_path / "t.csv"
    _quiet_measure([A, B], out, threads=1, passes=3, noise_target=0.05, max_passes=8)
    t = mm.read_table(out)
    assert _passes_of(t, "jacobi1d") == [0, 1, 2]  # constant: floor 0, no extra pass
    assert _passes_of(t, "heat2d") == list(range(7))
    assert any(c.startswith("adaptive:") for c in t.comments)
    assert json.loads(t.header_value("protocol") or "{}")["noise_target"] == 0.05
    # B settles after its first two passes. Floors by hand: passes 0-2 (1, 2, 1.5 ms):
    # even median 1.25, odd 2, all 1.5 -> 0.5; with 3-4 (1.5, 1.5): even 1.5, odd 1.75,
    # all 1.5 -> 0.167; with 5-6: even 1.5, odd 1.5 -> 0: stop before max_passes.
    monkeypatch.setattr(mm, "run", _FakeRuns([1e-3, 2e-3] + [1.5e-3] * 20))
    out2 = tmp_path / "t2.csv"
    _quiet_measure([A, B], out2, threads=1, passes=3, noise_target=0.05, max_passes=20)
    assert _passes_of(mm.read_table(out2), "heat2d") == list(range(7))
    # Above the target 0.2 only the first pair is needed (0.167 <= 0.2).
    monkeypatch.setattr(mm, "run", _FakeRuns([1e-3, 2e-3] + [1.5e-3] * 20))
    out3 = tmp_path / "t3.csv"
    _quiet_measure([A, B], out3, threads=1, passes=3, noise_target=0.2, max_passes=20)
    assert _passes_of(mm.read_table(out3), "heat2d") == list(range(5))
    # Without a target: the passes asked for, nothing more.
    monkeypatch.setattr(mm, "run", _FakeRuns([1e-3, 2e-3] * 10))
    out4 = tmp_path / "t4.csv"
    _quiet_measure([A, B], out4, threads=1, passes=3)
    assert _passes_of(mm.read_table(out4), "heat2d") == [0, 1, 2]


@pytest.mark.parametrize("stop_after", [4, 6, 7, 8, 9])
def test_noise_target_sweep_killed_and_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_after: int
) -> None:
    # 2 points x 3 passes = 6 runs, then B's pairs (3, 4) and (5, 6): killed after
    # `stop_after` runs, resumed: the same (point, pass) rows as a sweep never killed.
    times = [1e-3, 2e-3] * 10
    whole = tmp_path / "whole.csv"
    monkeypatch.setattr(mm, "run", _FakeRuns(times))
    _quiet_measure([A, B], whole, threads=1, passes=3, noise_target=0.05, max_passes=8)
    cut = tmp_path / "cut.csv"
    monkeypatch.setattr(mm, "run", _FakeRuns(times, stop_after=stop_after))
    with pytest.raises(KeyboardInterrupt):
        _quiet_measure([A, B], cut, threads=1, passes=3, noise_target=0.05, max_passes=8)
    done = mm.read_table(cut)
    assert len(done) == stop_after
    # The resumed runs of B continue its alternation where the killed sweep stopped.
    b_done = sum(1 for s in done.stencil if s == "heat2d")
    monkeypatch.setattr(mm, "run", _FakeRuns(times[b_done:]))
    _quiet_measure([A, B], cut, threads=1, passes=3, noise_target=0.05, max_passes=8)
    resumed, full = mm.read_table(cut), mm.read_table(whole)
    assert _keys(resumed) == _keys(full)
    assert sorted(resumed.time_s.tolist()) == sorted(full.time_s.tolist())


@campaign
@given(
    target=st.one_of(SPECIAL_FLOATS, WRONG, st.floats(-1, 2)),
    max_passes=st.one_of(st.none(), ANY_INT, st.integers(1, 12)),
    passes=st.integers(1, 4),
)
def test_noise_target_contract(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    target: object,
    max_passes: object,
    passes: int,
) -> None:
    """Any noise_target / max_passes: a table with whole pairs of extra passes up to
    max_passes, or a clear error before anything is written (SYNTHETIC run times)."""
    monkeypatch.setattr(mm, "run", _FakeRuns([1e-3, 2e-3] * 1000))
    out = tmp_path_factory.mktemp("contract") / "t.csv"
    done = contract(
        lambda: _quiet_measure(
            [A, B], out, threads=1, passes=passes, noise_target=target, max_passes=max_passes
        )
    )
    if done is None:
        assert not out.exists()
        return
    t = mm.read_table(out)
    n_b = len(_passes_of(t, "heat2d"))
    # A's constant times settle as soon as it has two passes (one pass: no floor yet).
    n_a = len(_passes_of(t, "jacobi1d"))
    assert n_a == passes or (passes == 1 and n_a == 3)
    assert n_b >= passes and (n_b - passes) % 2 == 0
    given_max = isinstance(max_passes, (int, np.integer)) and not isinstance(max_passes, bool)
    limit = int(max_passes) if given_max else 4 * passes  # type: ignore[call-overload]
    assert n_b <= max(passes, limit)


def test_noise_target_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    for bad in (0.0, 1.0, -0.1, math.nan, math.inf):
        with pytest.raises(ValueError, match="noise_target"):
            mm.measure([A], out, threads=1, noise_target=bad)
    with pytest.raises(TypeError, match="noise_target"):
        mm.measure([A], out, threads=1, noise_target="5%")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_passes"):
        mm.measure([A], out, threads=1, max_passes=10)
    with pytest.raises(ValueError, match="max_passes"):
        mm.measure([A], out, threads=1, passes=5, noise_target=0.05, max_passes=4)
    with pytest.raises(ValueError, match="max_passes"):
        mm.measure([A], out, threads=1, noise_target=0.05, max_passes=1001)
    assert not out.exists()  # refused before anything was written


# --------------------------------------------------------------------------------------
# Noise floor, bootstrap, scores per group
# --------------------------------------------------------------------------------------


def test_noise_floor_hand_computed() -> None:
    # Point 1: even passes (0, 2) = 1.0, 1.2 -> median 1.1; odd (1, 3) = 1.0, 1.0 -> 1.0;
    # all four -> median 1.0; d = 0.1. Point 2: even 2.0, 2.0; odd 2.2, 2.2; all -> 2.1;
    # d = -0.2 / 2.1. Floor = sqrt((0.01 + (0.2/2.1)^2) / 2).
    p = np.array([[1.0, 1.0, 1.2, 1.0], [2.0, 2.2, 2.0, 2.2]])
    want = math.sqrt((0.1**2 + (0.2 / 2.1) ** 2) / 2)
    assert cv.noise_floor(p) == pytest.approx(want, rel=1e-12)
    assert math.isnan(cv.noise_floor(p[:, :1]))  # one pass: no floor
    assert cv.noise_floor(np.ones((3, 5))) == 0.0
    with pytest.raises(ValueError, match="2-D"):
        cv.noise_floor(np.ones(3))


def test_bootstrap_interval() -> None:
    p = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]])
    # Predictions +10% everywhere: every resample gives exactly 10%.
    lo, hi = cv.bootstrap_rmse(p, 1.1 * np.median(p, axis=1), n_boot=50)
    assert lo == pytest.approx(0.1) and hi == pytest.approx(0.1)
    rng = np.random.default_rng(0)
    noisy = 1.0 + 0.2 * rng.random((40, 6))
    pred = np.full(40, 1.1)
    lo, hi = cv.bootstrap_rmse(noisy, pred, n_boot=300)
    rmse = cv.relative_rmse(np.median(noisy, axis=1), pred)
    assert lo < rmse < hi
    # Redrawing passes too widens the interval and shifts it up (documented bias).
    lo2, hi2 = cv.bootstrap_rmse(noisy, pred, n_boot=300, resample="points+passes")
    assert hi2 > hi and lo2 <= hi2
    with pytest.raises(ValueError, match="resample"):
        cv.bootstrap_rmse(p, np.ones(3), resample="passes")
    with pytest.raises(ValueError, match="level"):
        cv.bootstrap_rmse(p, np.ones(3), level=1.5)
    with pytest.raises(ValueError, match="shapes"):
        cv.bootstrap_rmse(p, np.ones(2))


def test_bootstrap_redraws_as_many_passes_as_a_point_has() -> None:
    # One point of passes 1, 2, 3 against a prediction of 2: a replicate's median of 3
    # redrawn passes is 1 (RMSE 1) with probability 7/27, 2 (RMSE 0) with 13/27 and 3
    # (RMSE 1/3) with 7/27, so the 20% quantile is 0 and the 80% quantile 1. Padding the
    # array with NaN passes (tables of uneven pass counts) must not change that: drawing
    # the array's width (21) from 3 passes made the median nearly always 2 (both 0).
    for width in (3, 21):
        p = np.full((1, width), np.nan)
        p[0, :3] = [1.0, 2.0, 3.0]
        lo, hi = cv.bootstrap_rmse(p, [2.0], n_boot=20000, resample="points+passes", level=0.6)
        assert lo == 0.0 and hi == pytest.approx(1.0), width


def test_bootstrap_rmse_refuses_bad_seed() -> None:
    p = np.array([[1.0, 1.1], [2.0, 2.1], [4.0, 3.9]])
    pred = np.array([1.1, 2.0, 4.2])
    same = cv.bootstrap_rmse(p, pred, n_boot=40, seed=np.int64(3))  # type: ignore[arg-type]
    assert same == cv.bootstrap_rmse(p, pred, n_boot=40, seed=3)  # reproducible
    for bad in [None, True, [[1]], 1.0, "1"]:
        with pytest.raises(TypeError, match="seed"):
            cv.bootstrap_rmse(p, pred, seed=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        cv.bootstrap_rmse(p, pred, seed=-1)
    with pytest.raises(OverflowError, match="seed"):
        cv.bootstrap_rmse(p, pred, seed=2**64)
    with pytest.raises(TypeError, match="n_boot"):
        cv.bootstrap_rmse(p, pred, n_boot=True)
    with pytest.raises(TypeError, match="level"):
        cv.bootstrap_rmse(p, pred, level=None)  # type: ignore[arg-type]


def test_point_statistic_refuses_what_noise_floor_refuses() -> None:
    assert float(mm.point_statistic([1.0, 3.0, 2.0])) == 2.0
    assert float(mm.point_statistic([1.0, np.nan, 2.0], "min")) == 1.0
    assert math.isnan(float(mm.point_statistic([np.nan, np.nan])))  # not measured
    assert mm.point_statistic(np.ones((0, 3)), axis=1).shape == (0,)  # no points
    assert mm.point_statistic(np.ones((0, 0)), axis=1).shape == (0,)
    # Times are positive (as validate.noise_floor and bootstrap_rmse require).
    negative: list[Any] = [[-1.0, -2.0], [1.0, 0.0], [[1.0, math.inf]], [-0.0]]
    for bad in negative:
        with pytest.raises(ValueError, match=r"pass_times_s\["):
            mm.point_statistic(bad)
        with pytest.raises(ValueError, match=r"pass_times_s\["):
            cv.noise_floor(np.atleast_2d(bad))
    # Points without any pass have no statistic: refused rather than NaN.
    with pytest.raises(ValueError, match="pass_times_s: no passes"):
        mm.point_statistic([])
    with pytest.raises(ValueError, match="pass_times_s: no passes"):
        mm.point_statistic(np.ones((2, 0)), axis=1)
    with pytest.raises(ValueError, match="pass_times_s"):
        mm.point_statistic(1.0)
    with pytest.raises(ValueError, match="pass_times_s"):
        mm.point_statistic([[1.0], [1.0, 2.0]])
    for wrong in [None, "1.0", [True], ["1.0"], [object()]]:
        with pytest.raises(TypeError, match="pass_times_s"):
            mm.point_statistic(wrong)  # type: ignore[arg-type]
    # One pass per point gives no noise floor: NaN, as noise_floor documents (and the
    # noise target of measure() counts as "noisy").
    assert math.isnan(cv.noise_floor([[1.0]]))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.5, 2.0), min_size=2, max_size=12),
    st.integers(2, 7),
    st.floats(0.0, 0.3),
)
def test_property_noise_floor_scales(base: list[float], passes: int, jitter: float) -> None:
    rng = np.random.default_rng(len(base) + passes)
    p = np.asarray(base)[:, None] * (1 + jitter * rng.random((len(base), passes)))
    floor = cv.noise_floor(p)
    assert 0 <= floor <= jitter + 1e-12
    assert cv.noise_floor(3.0 * p) == pytest.approx(floor, abs=1e-12)  # scale-free


def test_validate_groups_threads_and_noise_on_a_smoke_sweep(tmp_path: Path) -> None:
    # Smoke sweep (tiny problems, loaded machine): structure only, no claim on the values.
    out = tmp_path / "t.csv"
    pts = [
        mm.Point("jacobi1d", (256, 8), (4, 2)), mm.Point("jacobi1d", (256, 8), (16, 4)),
        mm.Point("jacobi1d", (512, 8), (4, 2)), mm.Point("jacobi1d", (512, 8), (16, 4)),
    ]  # fmt: skip
    _quiet_measure(pts, out, threads=mm.default_threads(), passes=3, warmup=0)
    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    report = cv.validate(out, cal, n_boot=40)
    assert report.n_rows == 12 and report.n_points == 4 and report.n_passes == 3
    for v in cv.VARIANTS:
        s = report.scores[v]
        g = s.overall
        assert math.isfinite(g.noise_floor) and g.noise_floor >= 0
        assert g.rmse_all_ci[0] <= g.rmse_all_ci[1]
        assert g.within_noise_all == (g.rmse_all <= g.noise_floor)
        levels = {x.memory_level for x in s.groups}
        assert "all" in levels
        assert report.tuner[v].ks == (1, 3, 5, 10)
        assert report.fitted[v].n_problems == 2
    json.dumps(report.to_dict())
    assert len(exp_validate.plot_noise(report).axes) == 1
    assert len(exp_validate.plot_tuner_curve(report).axes) == 1


def test_calibration_from_another_machine_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    _quiet_measure([A], out, threads=1, passes=1, warmup=0)
    cal = mm.load_calibration(CALIBRATION)
    other = mm.Calibration(
        cal.gpu, cal.stencils, {**mm.machine_record(), "cpu_model": "Other CPU"}, cal.micro,
        cal.settings,
    )  # fmt: skip
    # Against the table, the message says whose the other value is (it said "here" for
    # the table's machine, 2026-11-30 campaign).
    with pytest.raises(
        ValueError,
        match=r"calibration: measured on another machine or harness build than the table "
        r"\(cpu_model 'Other CPU', the table's '",
    ):
        cv.validate(out, other)
    with pytest.raises(ValueError, match=r"calibration: .* \(cpu_model 'Other CPU', here '"):
        mm.tune("jacobi1d", other, (256, 8), k=1, threads=1, passes=1)


# --------------------------------------------------------------------------------------
# Tuner
# --------------------------------------------------------------------------------------


def _synthetic_grid(
    tmp_path: Path, times: dict[tuple[int, int], float], schedule: str = "round-robin"
) -> Path:
    """A synthetic schema-3 table: one jacobi1d problem, given times per tile."""
    lines = ["# synthetic table for a test (not a measurement)", ",".join(mm.CSV_COLUMNS)]
    for (ts, tt), t in times.items():
        lines.append(
            f"jacobi1d,4096,,,64,{ts},,,{tt},grid,2,{schedule},0,0,{t!r},,,true,0.0,"
            "1,1,1,1,1,,L1,0,0.5,0.0"
        )
    path = tmp_path / "grid.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_tuner_curve_hand_computed(tmp_path: Path) -> None:
    cal = mm.load_calibration(CALIBRATION)
    tiles = [(1, 2), (4, 2), (16, 4), (64, 8), (256, 16)]
    probe = mm.read_table(_synthetic_grid(tmp_path, dict.fromkeys(tiles, 1.0)))
    pred = cv.predict(probe, cal, variant="exact")
    order = np.argsort(pred)
    # Measured = predicted, except the predicted-best is 2x slower than predicted and
    # the third is the measured best by 0.5x.
    times = {tiles[i]: float(pred[i]) for i in range(5)}
    times[tiles[order[0]]] = 2 * float(pred[order[0]])
    times[tiles[order[2]]] = 0.5 * float(pred[order[2]])
    curve = cv.tuner_curve(_synthetic_grid(tmp_path, times), cal, variant="exact", ks=(1, 2, 3, 10))
    best = min(times.values())
    first_two = min(times[tiles[order[0]]], times[tiles[order[1]]])
    assert curve.distance[0].tolist() == pytest.approx(
        [times[tiles[order[0]]] / best - 1, first_two / best - 1, 0.0, 0.0]
    )
    assert curve.n_points.tolist() == [5]
    assert curve.summary()["3"] == {"mean": 0.0, "max": 0.0}
    with pytest.raises(ValueError, match="ks"):
        cv.tuner_curve(probe, cal, variant="exact", ks=(0,))


def _grid_2d(tmp_path: Path, rows: dict[tuple[int, int, int], float], harness: str = "") -> Path:
    """A synthetic schema-3 table: Laplacian 2D 256^2 x 128 at 2 threads, given times."""
    lines = ["# synthetic table for a test (not a measurement)"]
    lines += [f"# harness: {harness}"] if harness else []
    lines.append(",".join(mm.CSV_COLUMNS))
    for (ts1, ts2, tt), t in rows.items():
        lines.append(
            f"laplacian2d,256,256,,128,{ts1},{ts2},,{tt},grid,2,block,0,0,{t!r},,,true,0.0,"
            "1,1,1,1,1,,L2,0,0.5,0.0"
        )
    path = tmp_path / f"grid2d{harness}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_tuner_curve_one_run_under_several_names(tmp_path: Path) -> None:
    # (58, 480, 18) and (58, 288, 18) are one run (S2 + tT = 274, harness 5): its two rows
    # are timed by their median, 1.10 ms; the best run is (58, 200, 18) at 1.05 ms.
    rows = {(58, 480, 18): 1.20e-3, (58, 288, 18): 1.00e-3, (58, 200, 18): 1.05e-3,
            (16, 128, 8): 1.30e-3}  # fmt: skip
    pred = np.asarray([1.0e-3, 1.0e-3, 1.01e-3, 1.5e-3])  # the two names tie
    table = mm.read_table(_grid_2d(tmp_path, rows)).medians()
    curve = cv.tuner_curve_of(table, pred, label="synthetic", ks=(1, 2, 3))
    assert curve.n_points.tolist() == [3]
    assert curve.distance[0].tolist() == pytest.approx([1.10 / 1.05 - 1, 0.0, 0.0])
    # Counted apart, as before: k = 1 ranks (58, 480, 18) against the least of the run's
    # two samples, and k = 2 spends its second measurement on the same run.
    old = mm.read_table(_grid_2d(tmp_path, rows, harness="4")).medians()
    apart = cv.tuner_curve_of(old, pred, label="synthetic", ks=(1, 2, 3))
    assert apart.n_points.tolist() == [4]
    assert apart.distance[0].tolist() == pytest.approx([0.20, 0.0, 0.0])


def test_selection_floor_ranks_by_the_other_run(tmp_path: Path) -> None:
    # Run a's best tile is (16, 4); in run b it is 10% slower than b's best, (4, 2), and
    # a's second, (64, 8), is 4% slower: k = 1 lands 10% off, k = 2 4%, k = 3 on the best.
    a_times = {(1, 2): 5.0, (4, 2): 1.3, (16, 4): 1.0, (64, 8): 1.1, (256, 16): 2.0}
    b_times = {(1, 2): 4.0, (4, 2): 1.0, (16, 4): 1.1, (64, 8): 1.04, (256, 16): 3.0}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _synthetic_grid(tmp_path / "a", a_times)
    b = _synthetic_grid(tmp_path / "b", b_times)
    floor = cv.selection_floor(b, a, ks=(1, 2, 3))
    assert floor.variant == "another run"
    assert floor.n_points.tolist() == [5]
    assert floor.distance[0].tolist() == pytest.approx([0.10, 0.04, 0.0])
    # Ranked by itself, a grid finds its own best at k = 1.
    assert cv.selection_floor(a, a, ks=(1,)).distance.tolist() == [[0.0]]
    # Only the runs both grids measured are ranked and scored: without (4, 2) in a, b's
    # best among the shared runs is (64, 8), and a's ranking finds it second.
    (tmp_path / "c").mkdir()
    c = _synthetic_grid(tmp_path / "c", {k: v for k, v in a_times.items() if k != (4, 2)})
    partial = cv.selection_floor(b, c, ks=(1, 2))
    assert partial.n_points.tolist() == [4]
    assert partial.distance[0].tolist() == pytest.approx([1.1 / 1.04 - 1, 0.0])
    (tmp_path / "d").mkdir()
    d = _synthetic_grid(tmp_path / "d", {(8, 2): 1.0})
    with pytest.raises(ValueError, match="other: shares no run"):
        cv.selection_floor(a, d)
    with pytest.raises(ValueError, match="ks"):
        cv.selection_floor(a, b, ks=(0,))
    with pytest.raises(TypeError, match="table"):
        cv.selection_floor(1.0, b)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="other"):
        cv.selection_floor(a, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot read"):
        cv.selection_floor(a, tmp_path / "missing.csv")


def test_selection_floor_refuses_another_machine_or_harness(tmp_path: Path) -> None:
    # (adversarial pass, 2026-12-02) a Zen 4 levels grid ranked by a Xeon run's times
    # gave a "floor" of another machine's order; the floor is a second run of this grid.
    times = {(1, 2): 5.0, (4, 2): 1.3, (16, 4): 1.0}

    def grid(folder: str, machine: dict[str, object], harness: str) -> Path:
        (tmp_path / folder).mkdir()
        path = _synthetic_grid(tmp_path / folder, times)
        lines = path.read_text(encoding="utf-8").splitlines()
        head = [f"# harness: {harness}", f"# machine: {json.dumps(machine)}"]
        path.write_text("\n".join([lines[0], *head, *lines[1:]]) + "\n", encoding="utf-8")
        return path

    here = {"cpu_model": "CPU A", "logical_cpus": 2}
    a = grid("a", here, "5")
    assert cv.selection_floor(a, grid("b", here, "5"), ks=(1,)).distance.tolist() == [[0.0]]
    with pytest.raises(ValueError, match=r"other: measured on another machine .*'CPU B'"):
        cv.selection_floor(a, grid("c", {**here, "cpu_model": "CPU B"}, "5"))
    with pytest.raises(ValueError, match=r"other: .*harness"):
        cv.selection_floor(a, grid("d", here, "4"))


def test_selection_floor_one_run_under_several_names(tmp_path: Path) -> None:
    # (58, 480, 18) and (58, 288, 18) are one run (harness 5): the other grid times it by
    # the median of its two rows (1.10 ms), which ranks it after (58, 200, 18) (1.05 ms).
    other_rows = {(58, 480, 18): 1.20e-3, (58, 288, 18): 1.00e-3, (58, 200, 18): 1.05e-3}
    rows = {(58, 480, 18): 0.90e-3, (58, 200, 18): 1.00e-3}
    (tmp_path / "o").mkdir()
    other = _grid_2d(tmp_path / "o", other_rows)
    floor = cv.selection_floor(_grid_2d(tmp_path, rows), other, ks=(1, 2))
    assert floor.n_points.tolist() == [2]
    assert floor.distance[0].tolist() == pytest.approx([1.0 / 0.9 - 1, 0.0])


def test_confirm_passes_follow_the_grid(tmp_path: Path) -> None:
    # The re-measurement takes as many passes as the grid's most-measured point (in 9
    # passes it ranked a 21-pass grid's runs with a wider noise than the grid's own,
    # docs/validate.md 2026-12-01), never fewer than 2 (a noise floor's) nor over 1000.
    one_pass = _synthetic_grid(tmp_path, {(16, 4): 1.0, (64, 8): 1.1})
    assert cv.confirm_passes_of(one_pass) == 2
    lines = one_pass.read_text(encoding="utf-8").splitlines()
    rows = []
    for line in lines[2:]:  # (16, 4) in passes 0-20, (64, 8) in passes 0-8
        fields = line.split(",")
        for k in range(21 if fields[5] == "16" else 9):
            rows.append(",".join([*fields[:12], str(k), *fields[13:]]))
    many = tmp_path / "many.csv"
    many.write_text("\n".join(lines[:2] + rows) + "\n", encoding="utf-8")
    assert cv.confirm_passes_of(many) == 21
    assert cv.confirm_passes_of(mm.read_table(many).per_point("median")) == 21
    with pytest.raises(ValueError, match="cannot read"):
        cv.confirm_passes_of(tmp_path / "missing.csv")


def test_confirmed_curve_hand_computed(tmp_path: Path) -> None:
    # The grid's least median is (16, 4) at 1.00; the model ranks (64, 8) first (1.04 in the
    # grid), (4, 2) second, (16, 4) third: kept (64, 8) at k = 1 and 2, (16, 4) at k = 3.
    grid = {(1, 2): 5.0, (4, 2): 1.3, (16, 4): 1.0, (64, 8): 1.04, (256, 16): 2.0}
    path = _synthetic_grid(tmp_path, grid, schedule="block")
    pred = np.asarray([5.0, 2.0, 3.0, 1.0, 4.0])
    curve = cv.tuner_curve_of(path, pred, label="synthetic", ks=(1, 2, 3))
    assert curve.distance[0].tolist() == pytest.approx([0.04, 0.04, 0.0])
    assert curve.picks == ((((64, 8), 2, "block"), ((64, 8), 2, "block"),
                            ((16, 4), 2, "block")),)  # fmt: skip
    assert curve.to_dict()["problems"][0]["picks"][2] == {
        "tiles": [16, 4], "threads": 2, "schedule": "block"}  # fmt: skip
    # Measured again: the kept runs and the grid's two (three) fastest.
    pts = cv.confirmation_points(path, [curve], grid_top=2)
    assert [(p.stencil, p.sizes, p.tiles, p.tags, p.threads) for p in pts] == [
        ("jacobi1d", (4096, 64), (16, 4), ("confirm",), 2),
        ("jacobi1d", (4096, 64), (64, 8), ("confirm",), 2),
    ]
    assert {p.tiles for p in cv.confirmation_points(path, [curve], grid_top=3)} == {
        (16, 4), (64, 8), (4, 2)}  # fmt: skip
    assert {p.tiles for p in cv.confirmation_points(path, [curve], grid_top=0)} == {
        (16, 4), (64, 8)}  # fmt: skip
    # In the fresh passes (64, 8) is the fastest, (16, 4) 5% slower: k = 1 and 2 land on
    # the best, k = 3 keeps (16, 4) (the grid's times chose it) and lands 5% off.
    (tmp_path / "c").mkdir()
    again = _synthetic_grid(tmp_path / "c", {(16, 4): 1.05, (64, 8): 1.0, (4, 2): 1.2},
                            schedule="block")  # fmt: skip
    confirmed = cv.confirmed_curve(curve, again)
    assert confirmed.variant == "synthetic, re-measured"
    assert confirmed.distance[0].tolist() == pytest.approx([0.0, 0.0, 0.05])
    assert confirmed.n_points.tolist() == [5] and confirmed.picks == curve.picks
    # Against the grid's best run, (16, 4), also timed again (1.05): the kept (64, 8) ran
    # 1.00, 1.0 / 1.05 - 1 below it; k = 3 keeps (16, 4) itself.
    best = cv.tuner_curve_of(path, np.asarray(list(grid.values())), label="the grid's best",
                             ks=(1,))  # fmt: skip
    assert best.picks == ((((16, 4), 2, "block"),),)
    vs_best = cv.confirmed_curve(curve, again, reference=best)
    assert vs_best.variant == "synthetic, re-measured against the grid's best"
    assert vs_best.distance[0].tolist() == pytest.approx([1.0 / 1.05 - 1, 1.0 / 1.05 - 1, 0.0])
    assert vs_best.picks == curve.picks and vs_best.ks == curve.ks
    with pytest.raises(TypeError, match="reference"):
        cv.confirmed_curve(curve, again, reference="grid")  # type: ignore[arg-type]
    bare_ref = cv.TunerCurve("bare", best.ks, best.problems, best.distance, best.n_points)
    with pytest.raises(ValueError, match=r"^reference: 'bare' records no run"):
        cv.confirmed_curve(curve, again, reference=bare_ref)
    # A curve with no k: an IndexError (as reference) and a reshape error (as curve) before.
    no_k = cv.TunerCurve("no k", (), best.problems, np.zeros((1, 0)), best.n_points, ((),))
    with pytest.raises(ValueError, match=r"^reference: 'no k' has no k"):
        cv.confirmed_curve(curve, again, reference=no_k)
    with pytest.raises(ValueError, match=r"^curves\[0\]: 'no k' has no k"):
        cv.confirmed_curve(no_k, again)
    other_problem = cv.TunerCurve("other", best.ks, (("jacobi1d", (8192, 64)),),
                                  best.distance, best.n_points, best.picks)  # fmt: skip
    no_problem = r"^reference: 'other' has no problem jacobi1d \[4096, 64\]"
    with pytest.raises(ValueError, match=no_problem):
        cv.confirmed_curve(curve, again, reference=other_problem)
    (tmp_path / "e").mkdir()
    without_best = _synthetic_grid(tmp_path / "e", {(64, 8): 1.0, (4, 2): 1.2}, schedule="block")
    with pytest.raises(ValueError, match=r"confirmation: lacks the run \"the grid's best\" keeps"):
        cv.confirmed_curve(curve, without_best, reference=best)
    # A kept run not measured again, a curve without picks, a run of another schedule.
    (tmp_path / "d").mkdir()
    short = _synthetic_grid(tmp_path / "d", {(16, 4): 1.0}, schedule="block")
    with pytest.raises(ValueError, match=r"confirmation: lacks the run 'synthetic' keeps at k = 1"):
        cv.confirmed_curve(curve, short)
    bare = cv.TunerCurve("bare", curve.ks, curve.problems, curve.distance, curve.n_points)
    with pytest.raises(ValueError, match=r"curves\[1\]: 'bare' records no run"):
        cv.confirmation_points(path, [curve, bare])
    with pytest.raises(ValueError, match="curves"):
        cv.confirmed_curve(bare, again)
    (tmp_path / "r").mkdir()
    rr = _synthetic_grid(tmp_path / "r", grid)
    with pytest.raises(ValueError, match=r"table: jacobi1d .* schedule 'round-robin'"):
        cv.confirmation_points(rr, [cv.tuner_curve_of(rr, pred, label="x")])
    # Bad arguments.
    with pytest.raises(ValueError, match="grid_top"):
        cv.confirmation_points(path, [curve], grid_top=-1)
    for bad_top in (1.5, True, "3"):
        with pytest.raises(TypeError, match="grid_top"):
            cv.confirmation_points(path, [curve], grid_top=bad_top)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="curves"):
        cv.confirmation_points(path, curve)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"curves\[0\]"):
        cv.confirmation_points(path, [1.0])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="curve"):
        cv.confirmed_curve("curve", again)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="confirmation"):
        cv.confirmed_curve(curve, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot read"):
        cv.confirmed_curve(curve, tmp_path / "missing.csv")
    # A grid measured on another machine is not measured again here; nothing is written.
    (tmp_path / "m").mkdir()
    other = tmp_path / "m" / "grid.csv"
    text = path.read_text(encoding="utf-8")
    other.write_text('# machine: {"cpu_model": "An imaginary CPU"}\n' + text, encoding="utf-8")
    with pytest.raises(ValueError, match="table: measured on another machine"):
        cv.confirm_selection(other, [curve], tmp_path / "m" / "again.csv")
    with pytest.raises(ValueError, match="passes"):
        cv.confirm_selection(path, [curve], tmp_path / "m" / "again.csv", passes=1)
    with pytest.raises(ValueError, match="grid_top"):
        cv.confirm_selection(path, [curve], tmp_path / "m" / "again.csv", grid_top=0)
    assert not (tmp_path / "m" / "again.csv").exists()


def test_tuner_curve_refuses_non_integer_ks(tmp_path: Path) -> None:
    cal = mm.load_calibration(CALIBRATION)
    table = mm.read_table(_synthetic_grid(tmp_path, {(1, 2): 1.0, (4, 2): 2.0, (16, 4): 3.0}))
    pred = np.asarray([1.0, 2.0, 3.0])
    assert cv.tuner_curve_of(table, pred, label="synthetic", ks=range(1, 3)).ks == (1, 2)
    for bad in [[1.5, 2.9], [True], (1, 2.0), "12", 3, None]:
        with pytest.raises(TypeError, match="ks"):
            cv.tuner_curve(table, cal, ks=bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="ks"):
            cv.tuner_curve_of(table, pred, label="synthetic", ks=bad)  # type: ignore[arg-type]
    for bad_value in [[], [0], [1, -3]]:
        with pytest.raises(ValueError, match="ks"):
            cv.tuner_curve_of(table, pred, label="synthetic", ks=bad_value)


def test_default_points_one_point_per_run() -> None:
    # The model's near-optimal tiles on Laplacian 2D 256^2 x 128 include two names of one
    # run ((55, 288, 26) and (55, 320, 26): S2 + tT = 282): the sweep measures it once and
    # takes the next distinct tile into the near set instead.
    cal = mm.load_calibration(CALIBRATION)
    sz = (256, 256, 128)
    from costmetrics import time as cm_time

    best = cm_time.best_tiles(cal.stencils["laplacian2d"], cal.gpu, sz, within=0.1,
                              variant="exact")  # fmt: skip
    near = [tuple(int(v) for v in r) for r in best.near_optimal[:7]]
    runs = [mm.harness_tiles("laplacian2d", sz, t) for t in near]
    assert len(set(runs)) < len(runs)  # the case this test is about
    pts = mm.default_points(("laplacian2d",), cal, sizes={"laplacian2d": [sz]})
    keys = [mm.harness_tiles("laplacian2d", sz, p.tiles) for p in pts]
    assert len(set(keys)) == len(keys)
    for v in ("exact", "machine"):
        tagged = [p for p in pts if f"{v}_opt" in p.tags or f"{v}_near" in p.tags]
        assert len(tagged) == 1 + 6  # the optimum and max_near distinct runs
        assert len({mm.harness_tiles("laplacian2d", sz, p.tiles) for p in tagged}) == 7


def test_tune_measures_each_run_once(tmp_path: Path) -> None:
    # On Laplacian 2D 128^2 x 64 the machine variant clips tS2 at S2 + tT as the harness
    # does, so the widths past it tie: the model's top 8 are all names of (49, 192, 64).
    cal = mm.load_calibration(
        data_dir() / "measurements" / "quiet_run_2026-11-29_xeon_batch_d" / "calibration_1t"
    )
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    from costmetrics import time as cm_time

    grid = cm_time.default_search_space(2).grid()
    batch = cm_time.talg_batch(cal.stencils["laplacian2d"], cal.gpu.with_threads(1), (128, 128, 64),
                               grid, variant="machine")  # fmt: skip
    ok = np.flatnonzero(batch.feasible)
    order = ok[np.lexsort((grid[ok, 2], grid[ok, 1], grid[ok, 0], batch.talg_s[ok]))]
    raw = [mm.harness_tiles("laplacian2d", (128, 128, 64), tuple(int(x) for x in grid[i]))
           for i in order[:6]]  # fmt: skip
    assert len(set(raw)) < 6  # the case this test is about: ties of one run's names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        result = mm.tune("laplacian2d", cal, (128, 128, 64), variant="machine", k=6, threads=1,
                         passes=1, warmup=0, out=tmp_path / "tune.csv")  # fmt: skip
    assert len(result.candidates) == 6
    runs = {mm.harness_tiles("laplacian2d", (128, 128, 64), c.tiles) for c in result.candidates}
    assert len(runs) == 6
    # Each run under its first name in the ranking's order (narrowest tS2 first on ties).
    assert result.candidates[0].tiles == (49, 192, 64)
    assert len(mm.read_table(tmp_path / "tune.csv")) == 6


class _RankedError(Exception):
    """Raised by a stand-in for ``measure`` with the points ``tune`` would measure."""


@pytest.mark.parametrize(
    ("stencil", "sizes", "variant", "k"),
    [("jacobi1d", (4096, 64), "exact", 7), ("laplacian2d", (128, 128, 64), "machine", 9),
     ("heat3d", (30, 30, 30, 8), "machine", 5)],
)  # fmt: skip
def test_tune_ranks_the_first_k_runs_of_the_whole_order(
    monkeypatch: pytest.MonkeyPatch, stencil: str, sizes: tuple[int, ...], variant: str, k: int
) -> None:
    # tune walks its ranking lazily (it stops at the k-th distinct run); the reference here
    # ranks every feasible (tile, threads) pair with Python's sort on (prediction, threads,
    # tiles) and keeps the first name of each run (harness_tiles), as tune documents.
    import os

    from costmetrics import time as cm_time

    root = data_dir() / "measurements" / "quiet_run_2026-11-29_xeon_batch_d"
    counts = [1, 2] if len(os.sched_getaffinity(0)) >= 2 else [1]
    cals = []
    for n in counts:
        c = mm.load_calibration(root / f"calibration_{n}t")
        cals.append(mm.Calibration(c.gpu, c.stencils, mm.machine_record(), c.micro, c.settings))
    grid = cm_time.default_search_space(len(sizes) - 1).grid()
    ranked = []
    for n, cal in zip(counts, cals, strict=True):
        gpu = cal.gpu.with_threads(n)
        batch = cm_time.talg_batch(cal.stencils[stencil], gpu, sizes, grid, variant=variant)  # type: ignore[arg-type]
        for i in np.flatnonzero(batch.feasible & np.isfinite(batch.talg_s)):
            ranked.append((float(batch.talg_s[i]), n, tuple(int(x) for x in grid[i])))
    ranked.sort()
    expected: list[tuple[tuple[int, ...], int]] = []
    seen = set()
    for _, n, tiles in ranked:
        try:
            run = (n, mm.harness_tiles(stencil, sizes, tiles))
        except ValueError:
            continue
        if run not in seen:
            seen.add(run)
            expected.append((tiles, n))
        if len(expected) == k:
            break

    def ranked_points(points: list[mm.Point], *args: object, **kwargs: object) -> None:
        raise _RankedError([(p.tiles, p.threads) for p in points])

    monkeypatch.setattr(mm, "measure", ranked_points)
    with pytest.raises(_RankedError) as got:
        mm.tune(stencil, cals, sizes, variant=variant, k=k, threads=counts)
    assert got.value.args[0] == expected


def test_tune_default_table_folder_kept_only_with_rows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Without out=, tune measures into a folder of its own. A failure before any row is
    # written removes it (72 empty folders had piled up in /tmp from failed calls); rows
    # already written stay, and the error names their table.
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    real_measure = mm.measure

    def fails_at_once(points: list[mm.Point], out: Path, **kwargs: object) -> None:
        raise KeyboardInterrupt

    def fails_after_a_row(points: list[mm.Point], out: Path, **kwargs: object) -> None:
        Path(out).write_text("# partial\n")
        raise OSError("disk full")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(mm, "measure", fails_at_once)
    with pytest.raises(KeyboardInterrupt):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1)
    assert list(tmp_path.iterdir()) == []
    # measure itself failing once it holds the table's lock: its lock file is no result.
    with monkeypatch.context() as patch:
        patch.setattr(mm, "measure", real_measure)
        patch.setattr(mm, "_starts_fresh", interrupted)  # called under the lock only
        with pytest.raises(KeyboardInterrupt):
            mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(mm, "measure", fails_after_a_row)
    with pytest.raises(OSError, match="disk full") as err:
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1)
    (kept,) = tmp_path.iterdir()
    table = kept / "tune.csv"
    assert table.read_text() == "# partial\n"
    assert any(str(table) in note for note in getattr(err.value, "__notes__", []))
    # confidence's later pairs of passes failing: the same note (they had none, and the
    # table of the first passes was left in a folder no message named).
    for stale in tmp_path.iterdir():
        shutil.rmtree(stale)
    calls: list[int] = []

    def fails_on_the_extra_passes(points: list[mm.Point], out: Path, **kwargs: Any) -> None:
        calls.append(int(kwargs["passes"]))
        if len(calls) > 1:
            raise OSError("disk full")
        real_measure(points, out, **kwargs)

    monkeypatch.setattr(mm, "measure", fails_on_the_extra_passes)
    # Candidates never told apart, so confidence asks for more passes.
    monkeypatch.setattr(mm, "fastest_shares", lambda t, *a, **k: np.full(len(t), 1 / len(t)))
    with warnings.catch_warnings(), pytest.raises(OSError, match="disk full") as err:
        warnings.simplefilter("ignore", mm.LoadWarning)
        mm.tune("jacobi1d", cal, (512, 8), k=2, threads=1, passes=2, warmup=0, confidence=0.9)
    assert calls == [2, 4]
    (kept,) = tmp_path.iterdir()
    assert len(mm.read_table(kept / "tune.csv")) == 4  # the first passes, kept
    assert any(str(kept / "tune.csv") in note for note in getattr(err.value, "__notes__", []))


def test_tune_smoke(tmp_path: Path) -> None:
    # The shipped calibration with this machine's record: a stand-in for a calibration
    # of this machine (fast; the ranking is what is tested, not the times).
    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        result = mm.tune(
            "jacobi1d", cal, (512, 8), k=3, threads=1, passes=2, warmup=0,
            out=tmp_path / "tune.csv",
        )  # fmt: skip
    assert len(result.candidates) == 3
    preds = [c.predicted_s for c in result.candidates]
    assert preds == sorted(preds)
    assert result.time_s == min(c.time_s for c in result.candidates)
    assert len(result.runs) == 2 and set(result.runs.pass_index.tolist()) == {0, 1}
    # The shipped calibration was measured with 2 threads: a stand-in for 1 thread.
    assert result.calibration_threads == {1: cal.gpu.n_sm}
    table = mm.read_table(tmp_path / "tune.csv")
    assert len(table) == 6 and table.has_tag("tune").all()
    json.dumps(result._asdict())
    assert result.statistic == "median"
    shares = [c.fastest_share for c in result.candidates]
    assert all(0 <= x <= 1 for x in shares) and math.isclose(sum(shares), 1.0)
    # The same table judged by the minimum over passes (resumed: nothing is measured again).
    low = mm.tune("jacobi1d", cal, (512, 8), k=3, threads=1, passes=2, warmup=0,
                  out=tmp_path / "tune.csv", statistic="min")  # fmt: skip
    assert low.statistic == "min" and len(mm.read_table(tmp_path / "tune.csv")) == 6
    assert [c.time_s for c in low.candidates] == [c.time_min_s for c in result.candidates]
    with pytest.raises(ValueError, match="statistic"):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1, statistic="mean")
    with pytest.raises(ValueError, match="variant"):
        mm.tune("jacobi1d", cal, (512, 8), variant="fast", k=1, threads=1)
    with pytest.raises(ValueError, match="k"):
        mm.tune("jacobi1d", cal, (512, 8), k=0, threads=1)
    with pytest.raises(ValueError, match="stencil"):
        mm.tune("heat4d", cal, (512, 8), k=1, threads=1)
    with pytest.raises(ValueError, match="sizes"):
        mm.tune("heat3d", cal, (512, 8), k=1, threads=1)


def test_tune_confidence_measures_until_the_best_stands_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tune(confidence=) measures pairs of passes over every candidate until the measured
    # best is the fastest in that share of the bootstrap resamples, or max_passes. The
    # harness is replaced by scripted times (the real run's record, its time replaced):
    # the first run seen is 1.0 s but 1.2 s on its second call; every other is 1.05 s. Two
    # passes cannot tell them apart (medians 1.1 and 1.05); more passes can.
    from types import SimpleNamespace

    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    real_run = mm.run
    calls: dict[tuple[int, ...], int] = {}

    def scripted(stencil: str, sizes: object, tiles: Any, **kwargs: Any) -> Any:
        r = real_run(stencil, sizes, tiles, **kwargs)  # type: ignore[arg-type]
        key = tuple(int(x) for x in tiles)
        first = not calls or key == next(iter(calls))
        calls[key] = calls.get(key, 0) + 1
        time_s = (1.2 if calls[key] == 2 else 1.0) if first else 1.05
        fields = {a: getattr(r, a) for a in dir(r) if not a.startswith("_")}
        return SimpleNamespace(**{**fields, "time_min_s": time_s})

    monkeypatch.setattr(mm, "run", scripted)
    kw: dict[str, Any] = {"k": 2, "threads": 1, "passes": 2, "warmup": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        plain = mm.tune("jacobi1d", cal, (512, 8), out=tmp_path / "a.csv", **kw)
        assert plain.passes == 2 and plain.confidence is None and not plain.confident
        assert {c.time_s for c in plain.candidates} == {1.05, 1.1}
        calls.clear()
        sure = mm.tune("jacobi1d", cal, (512, 8), out=tmp_path / "b.csv", confidence=0.9,
                       max_passes=20, **kw)  # fmt: skip
    winner = next(iter(calls))
    assert sure.tiles == winner and sure.time_s == 1.0 and sure.confident
    assert sure.confidence == 0.9 and 4 <= sure.passes < 20 and sure.passes % 2 == 0
    best = next(c for c in sure.candidates if c.tiles == winner)
    assert best.fastest_share >= 0.9
    table = mm.read_table(tmp_path / "b.csv")
    assert len(table) == 2 * sure.passes  # every candidate got the extra passes
    # One pair of passes fewer did not decide it (the loop stops at the first that does).
    shorter = table.select(table.pass_index < sure.passes - 2).per_point("median")
    assert shorter.pass_times_s is not None
    order = [next(i for i in range(2) if shorter.key_of(i)[2] == c.tiles)
             for c in sure.candidates]  # fmt: skip
    earlier = mm.fastest_shares(shorter.pass_times_s[order], "median", seed=0)
    assert earlier[[c.tiles for c in sure.candidates].index(winner)] < 0.9

    # Candidates that never separate: measured up to max_passes, and said so.
    def even(*args: Any, **kwargs: Any) -> Any:
        r = real_run(*args, **kwargs)
        fields = {a: getattr(r, a) for a in dir(r) if not a.startswith("_")}
        return SimpleNamespace(**{**fields, "time_min_s": 1.0})

    monkeypatch.setattr(mm, "run", even)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        tie = mm.tune("jacobi1d", cal, (512, 8), out=tmp_path / "c.csv", confidence=0.9,
                      max_passes=7, **kw)  # fmt: skip
    assert tie.passes == 6 and not tie.confident  # pairs of passes: 2, 4, 6 (8 > 7)
    for bad, message in (
        ({"confidence": 1.0}, r"^confidence: must be in \(0, 1\)"),
        ({"confidence": 0.0}, r"^confidence: must be in \(0, 1\)"),
        ({"confidence": float("nan")}, r"^confidence: "),
        ({"max_passes": 9}, r"^max_passes: only with confidence"),
        ({"confidence": 0.9, "max_passes": 1}, r"^max_passes: "),
    ):
        with pytest.raises(ValueError, match=message):
            mm.tune("jacobi1d", cal, (512, 8), out=tmp_path / "d.csv", **kw, **bad)
    with pytest.raises(TypeError, match=r"^confidence: "):
        mm.tune("jacobi1d", cal, (512, 8), confidence="0.9", **kw)  # type: ignore[arg-type]
    assert not (tmp_path / "d.csv").exists()


def test_tune_ranks_with_the_variant_fitted_on_a_table(tmp_path: Path) -> None:
    # tune(fit=TABLE) fits the variant on this machine's table first and ranks with the
    # fitted parameters (the fitted machine variant is what ranks best on the shipped
    # quiet runs). A plumbing check on a tiny table, with exact (the machine variant's
    # fit needs a real sweep: on 8 tiny points it leaves the time model's range, refused).
    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    sweep = tmp_path / "sweep.csv"
    tiles = ((4, 2), (8, 2), (16, 4), (32, 4))
    points = [mm.Point("jacobi1d", (s, 8), t) for s in (512, 384) for t in tiles]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        mm.measure(points, sweep, threads=1, passes=2, warmup=0)
        result = mm.tune(
            "jacobi1d", cal, (512, 8), k=2, threads=1, passes=2, warmup=0,
            out=tmp_path / "tune.csv", fit=sweep,
        )  # fmt: skip
    assert result.variant == "fitted-exact"
    fitted = cv.fit(mm.read_table(sweep), cal, variant="exact")
    assert cv.predict(result.runs, fitted.calibrations, variant="exact")[0] == result.predicted_s
    assert cv.predict(result.runs, cal, variant="exact")[0] != result.predicted_s
    # A table that cannot be fitted, or from another machine, is refused before measuring.
    one = tmp_path / "one.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mm.LoadWarning)
        mm.measure(points[:4], one, threads=1, passes=1, warmup=0)
    with pytest.raises(
        ValueError,
        match=r"^fit: the exact variant could not be fitted on .*one.csv \(1 problem\(s\), "
        r"4 points\): .*; measure more problems",
    ):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1, fit=one)
    with pytest.raises(ValueError, match=r"^fit: "):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1, fit=tmp_path / "none.csv")
    # Another machine's table: this one's rows under another CPU model (a shipped table
    # will not do: the host running the tests may be the machine that measured it).
    other = tmp_path / "other.csv"
    other.write_text(one.read_text().replace('"cpu_model": "', '"cpu_model": "Other CPU '))
    with pytest.raises(ValueError, match=r"^fit: table: measured on another machine .*, here "):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1, fit=other)
    with pytest.raises(TypeError, match=r"^fit: path: expected a file path, got int"):
        mm.tune("jacobi1d", cal, (512, 8), k=1, threads=1, fit=3)  # type: ignore[arg-type]
    assert not (tmp_path / "none.csv").exists()


def test_cli_tune_text_output_notes_an_unfitted_ranking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from costmetrics.cli import main

    cal = mm.load_calibration(CALIBRATION)
    cal = mm.Calibration(cal.gpu, cal.stencils, mm.machine_record(), cal.micro, cal.settings)
    mm.save_calibration(cal, tmp_path / "cal")
    argv = ["tune", "jacobi1d", "512", "8", "--calibration", str(tmp_path / "cal"), "-k", "2",
            "--threads", "1", "--passes", "1", "--out", str(tmp_path / "tune.csv")]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3].startswith("best: tiles ") and out[-2].startswith("the best is the fastest")
    assert out[-1].startswith("note: ranked by the unfitted exact variant; ")
    # --confidence: more passes until the best stands out (at most --max-passes), in the
    # JSON as in tune(); its options are checked and named as typed.
    assert main([*argv, "--confidence", "0.5", "--max-passes", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["confidence"] == 0.5 and 1 <= result["passes"] <= 3
    assert result["confident"] == (max(c["fastest_share"] for c in result["candidates"]
                                       if c["time_s"] == result["time_s"]) >= 0.5)  # fmt: skip
    for extra, message in (
        (["--max-passes", "9"], "--max-passes: only with --confidence"),
        (["--confidence", "2"], "--confidence: must be in (0, 1) (a share of resamples), got 2.0"),
        (["--confidence", "0.9", "--max-passes", "0"], "--max-passes: "),
    ):
        assert main([*argv, *extra]) == 2, extra
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"costmetrics tune: error: {message}")


def test_cli_tune_json_and_bad_input(tmp_path: Path) -> None:
    # The CLI refuses the shipped calibration: it was measured on another machine (or
    # build) unless this is that machine; either way the exit status is 0 or 2, never a
    # crash, and the message is one line.
    done = subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", "tune", "jacobi1d", "512", "8",
         "--calibration", str(CALIBRATION), "-k", "2", "--threads", "1", "--passes", "1",
         "--out", str(tmp_path / "tune.csv"), "--json"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 2), done.stderr
    if done.returncode == 2:
        assert "calibration" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    else:
        assert json.loads(done.stdout)["k"] == 2
    # --fit names a table that must exist: checked before anything else, one line.
    missing = tmp_path / "missing.csv"
    done = subprocess.run(
        [sys.executable, "-m", "costmetrics.cli", "tune", "jacobi1d", "512", "8",
         "--calibration", str(CALIBRATION), "--fit", str(missing)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--fit" in done.stderr and str(missing) in done.stderr


def test_measure_heat3d_smoke_and_predict(tmp_path: Path) -> None:
    # A smoke run (tiny sizes): Heat 3D rows go through the table, medians and the model.
    out = tmp_path / "h3.csv"
    a = mm.Point("heat3d", (6, 5, 40, 4), (2, 2, 32, 2))
    b = mm.Point("heat3d", (6, 5, 40, 4), (1, 3, 32, 4))
    c = mm.Point("jacobi1d", (64, 8), (4, 2))
    mm.measure([a, b, c], out, threads=1, passes=2, warmup=0)
    t = mm.read_table(out)
    assert len(t) == 6 and t.correct.all() and t.schema == 3
    m = t.medians()
    keys = {m.key_of(i)[:3] for i in range(len(m))}
    assert ("heat3d", (6, 5, 40, 4), (2, 2, 32, 2)) in keys
    assert ("jacobi1d", (64, 8), (4, 2)) in keys
    i3 = [i for i in range(len(m)) if m.stencil[i] == "heat3d"]
    assert all(m.sizes[i].tolist() == [6, 5, 40, 4] for i in i3)
    # The model predicts Heat 3D rows from a calibration that has its C_iter (here the
    # shipped one with a stand-in heat3d preset, C_iter of heat2d: a plumbing check, not
    # a validation).
    cal = mm.load_calibration(CALIBRATION)
    h2 = cal.stencils["heat2d"]
    h3 = replace(h2, key="heat3d", name="Heat3D", n_space_dims=3)
    cal3 = replace(cal, stencils={**cal.stencils, "heat3d": h3})
    for variant in cv.variants():
        pred = cv.predict(m, cal3, variant=variant)
        assert np.all(np.isfinite(pred[i3]) & (pred[i3] > 0)), variant
    # Without a heat3d preset its rows are NaN (no C_iter), never a wrong number.
    pred = cv.predict(m, cal, variant="exact")
    assert np.all(np.isnan(pred[i3]))


def test_table_is_a_record() -> None:
    """Tables compare by value (arrays included), pickle, and keep a short repr."""
    import pickle

    path = data_dir() / "measurements" / "cpu_sweep_protocol.csv"
    a, b = mm.read_table(path), mm.read_table(path)
    assert a == b
    assert pickle.loads(pickle.dumps(a)) == a
    assert a != mm.read_table(data_dir() / "measurements" / "cpu_sweep.csv")
    assert "Table(" in repr(a) and len(repr(a)) < 5000
    assert a._asdict().keys() == set(a._fields)


def test_fastest_shares() -> None:
    clear = [[1.0, 1.1, 1.0, 1.05], [2.0, 2.1, 2.2, 2.0], [3.0, np.nan, 3.1, 3.0]]
    for stat in ("median", "min"):
        assert mm.fastest_shares(clear, stat).tolist() == [1.0, 0.0, 0.0]
    # Two candidates with one and the same pass: every resample ties, and is shared (the
    # earlier row took every tie, so equal candidates looked told apart: 1.0 / 0.0).
    assert mm.fastest_shares([[1.0, np.nan], [1.0, 1.0]]).tolist() == [0.5, 0.5]
    assert mm.fastest_shares([[2.0], [1.0], [1.0]]).tolist() == [0.0, 0.5, 0.5]
    # The same passes, resampled independently: the wins are split evenly (a third of the
    # resamples tie here, shared; the earlier row took them: 0.67 / 0.33).
    even = mm.fastest_shares([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], resamples=4000)
    assert 0.45 < even[1] < 0.55 and math.isclose(even.sum(), 1.0)
    # Two modes, interleaved: the wins are split, and the same seed gives the same split.
    rng = np.random.default_rng(5)
    modes = np.where(rng.random((2, 9)) < 0.5, 1.0, 1.6) * np.array([[1.0], [1.01]])
    split = mm.fastest_shares(modes, resamples=2000, seed=3)
    assert 0.05 < split[0] < 0.95 and math.isclose(split.sum(), 1.0)
    assert mm.fastest_shares(modes, resamples=2000, seed=3).tolist() == split.tolist()
    with pytest.raises(ValueError, match="pass_times_s"):
        mm.fastest_shares([1.0, 2.0])
    with pytest.raises(ValueError, match="pass_times_s"):
        mm.fastest_shares(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="candidate 1"):
        mm.fastest_shares([[1.0], [np.nan]])
    with pytest.raises(ValueError, match=r"pass_times_s\[0, 0\]: a time must be finite, > 0"):
        mm.fastest_shares([[-1.0], [1.0]])
    # (campaign, 2026-11-30) -inf was dropped like a missing pass ([1.0, 0.0]); strings,
    # complex numbers, bools and None were NumPy's errors or taken as times.
    with pytest.raises(ValueError, match=r"pass_times_s\[0, 0\]: .* got -inf"):
        mm.fastest_shares([[-np.inf, 1.0, 1.0], [1.1, 1.1, 1.1]])
    with pytest.raises(ValueError, match=r"pass_times_s\[1, 0\]: .* got 1e\+308"):
        mm.fastest_shares([[1.0], [1e308]])
    for bad in ([["a"], [1.0]], [[1j], [1.0]], [[True], [False]], [[None], [1.0]]):
        with pytest.raises(TypeError, match=r"^pass_times_s: expected real numbers"):
            mm.fastest_shares(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resamples"):
        mm.fastest_shares([[1.0]], resamples=0)
    with pytest.raises(ValueError, match="statistic"):
        mm.fastest_shares([[1.0]], "mean")
    with pytest.raises(TypeError, match="seed"):
        mm.fastest_shares([[1.0]], seed="1")  # type: ignore[arg-type]
