"""Pinned outputs of ``costmetrics reproduce``: every experiment against tests/reference/.

For each experiment in ``costmetrics.experiments.EXPERIMENTS`` this runs
``reproduce(out, only=[name])`` and compares what it writes with the pinned copy in
``tests/reference/<name>/``: the experiment's rows of ``report.json`` and every CSV file.
Numbers compare with a relative tolerance of 1e-6 (also numbers inside text, such as
"8,392,058 at 1,093,000,000 ops"); everything else exactly. Figures (PNG) are not pinned, nor
rows marked ``measured`` (wall-clock times of this run).

A change to a model, a seed value or an experiment that moves any reproduced number makes
this test fail. When the change is intended, regenerate the pinned files and review the
diff before committing it::

    COSTMETRICS_REGEN_REFERENCE=1 pytest tests/test_reproduce_pinned.py
    # or: pytest tests/test_reproduce_pinned.py --regen-reference
    git diff tests/reference/

A new experiment pins its outputs the same way (the test then passes for it).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from costmetrics import reproduce
from costmetrics.experiments import EXPERIMENTS

REFERENCE = Path(__file__).parent / "reference"
REL_TOL = 1e-6
ABS_TOL = 1e-12
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _regenerate(config: pytest.Config) -> bool:
    option = bool(config.getoption("--regen-reference", default=False))
    return option or os.environ.get("COSTMETRICS_REGEN_REFERENCE", "") not in ("", "0")


def _numbers_and_text(text: str) -> tuple[list[float], list[str]]:
    """Split text into its numbers and the text between them."""
    numbers: list[float] = []
    parts: list[str] = []
    last = 0
    for m in _NUMBER.finditer(text):
        token = m.group().replace(",", "")
        try:
            value = float(token)
        except ValueError:
            continue
        parts.append(text[last : m.start()])
        numbers.append(value)
        last = m.end()
    parts.append(text[last:])
    return numbers, parts


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _same(actual: Any, expected: Any, where: str, problems: list[str]) -> None:
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None:
        if actual != expected:
            problems.append(f"{where}: {actual!r} != pinned {expected!r}")
        return
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if not _close(float(actual), float(expected)):
            problems.append(f"{where}: {actual!r} != pinned {expected!r}")
        return
    if isinstance(expected, str) and isinstance(actual, str):
        na, ta = _numbers_and_text(actual)
        ne, te = _numbers_and_text(expected)
        if ta != te or len(na) != len(ne) or not all(map(_close, na, ne)):
            problems.append(f"{where}: {actual!r} != pinned {expected!r}")
        return
    if actual != expected:
        problems.append(f"{where}: {actual!r} != pinned {expected!r}")


def _report_rows(report: Path, name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))
    return [r for r in rows if r["experiment"] == name]


def _csv_cells(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [list(row) for row in csv.reader(fh)]


def _compare(out: Path, name: str) -> list[str]:
    problems: list[str] = []
    pinned = REFERENCE / name
    actual_rows = _report_rows(out / "report.json", name)
    expected_rows: list[dict[str, Any]] = json.loads(
        (pinned / "report.json").read_text(encoding="utf-8")
    )
    if len(actual_rows) != len(expected_rows):
        problems.append(f"report.json: {len(actual_rows)} rows, pinned {len(expected_rows)}")
    for a, e in zip(actual_rows, expected_rows, strict=False):
        where = f"report.json [{e['quantity']}]"
        if e.get("measured", False):
            # A measurement of this run (e.g. a sweep's wall time): only its identity is pinned.
            _same(a.get("quantity"), e["quantity"], f"{where}.quantity", problems)
            continue
        for key in e:
            _same(a.get(key), e[key], f"{where}.{key}", problems)
    produced = sorted(p.name for p in (out / name).glob("*.csv"))
    expected_files = sorted(p.name for p in pinned.glob("*.csv"))
    if produced != expected_files:
        problems.append(f"CSV files {produced} != pinned {expected_files}")
    for file_name in sorted(set(produced) & set(expected_files)):
        a_cells = _csv_cells(out / name / file_name)
        e_cells = _csv_cells(pinned / file_name)
        if len(a_cells) != len(e_cells):
            problems.append(f"{file_name}: {len(a_cells)} rows, pinned {len(e_cells)}")
        for r, (a_row, e_row) in enumerate(zip(a_cells, e_cells, strict=False)):
            if len(a_row) != len(e_row):
                problems.append(f"{file_name} row {r}: {len(a_row)} cells, pinned {len(e_row)}")
                continue
            for c, (a_cell, e_cell) in enumerate(zip(a_row, e_row, strict=False)):
                _same(a_cell, e_cell, f"{file_name} row {r} col {c}", problems)
    return problems


def _pin(out: Path, name: str) -> None:
    pinned = REFERENCE / name
    if pinned.exists():
        shutil.rmtree(pinned)
    pinned.mkdir(parents=True)
    rows = _report_rows(out / "report.json", name)
    (pinned / "report.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    for path in sorted((out / name).glob("*.csv")):
        shutil.copyfile(path, pinned / path.name)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_reproduce_matches_pinned_outputs(
    name: str, tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    reproduce(tmp_path, only=[name])
    if _regenerate(pytestconfig):
        _pin(tmp_path, name)
        return
    if not (REFERENCE / name / "report.json").is_file():
        pytest.fail(
            f"no pinned outputs for experiment {name!r}: run "
            "COSTMETRICS_REGEN_REFERENCE=1 pytest tests/test_reproduce_pinned.py "
            "and commit tests/reference/"
        )
    problems = _compare(tmp_path, name)
    assert not problems, f"{len(problems)} differences from tests/reference/{name}:\n" + "\n".join(
        problems[:40]
    )


def test_comparison_detects_a_changed_number(tmp_path: Path) -> None:
    # The comparison itself can fail: a number moved by 1e-5 (relative) is caught, one moved
    # by 1e-9 is not, in a bare cell and inside text alike.
    problems: list[str] = []
    _same("1.00001", "1.0", "cell", problems)
    _same("at 8,392,058.5 words", "at 8,392,058.4 words", "text", problems)
    assert len(problems) == 1 and problems[0].startswith("cell")
    problems.clear()
    _same("1.000000001", "1.0", "cell", problems)
    _same("ratio 0.9999999999 x", "ratio 1.0 x", "text", problems)
    _same("tiles (8, 64, 8)", "tiles (8, 64, 16)", "tiles", problems)
    assert problems == ["tiles: 'tiles (8, 64, 8)' != pinned 'tiles (8, 64, 16)'"]
