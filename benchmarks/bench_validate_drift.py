"""Diagnostic: do the problems' times move between runs with the copy cost? (issue 21)

The fitted ``machine`` variant's error on the problems whose arrays are past the L2 (L3
and DRAM) changes from one levels run to the next on the Intel Xeon guest: Heat 3D
254^3 x 4 at 1 thread was predicted at 0.94 of its time on one run and at 0.82 on
another (docs/validate.md, "The DRAM-share curve from twice the L2: not kept"). This
script asks whether the host moved under the runs. Per problem, each run's time relative
to the first run's (the median over the tiles every run measured of time / first time)
is set against the run's calibrated copy cost per word at its largest working set (the
dearest point of the L3 curve): their correlation ``r`` in logs, and the slope of log
time on log copy cost (how much of a change in the copy cost the problem's time
follows). The problems whose arrays lie within twice the working cores' L2 are the
control: they do not stream from the L3.

Found with it on 2026-12-01 over the 30 quiet Xeon levels runs (docs/validate.md): the
128 MiB copy cost ranged 0.67-1.23 ns per word, and every problem's time followed it,
the control too (1 thread: r 0.67-0.85 and slope 0.15-0.29 within twice the L2, r
0.78-0.89 and slope 0.18-0.65 past it). Measures nothing.

Run: ``python benchmarks/bench_validate_drift.py FOLDER [FOLDER ...] [--threads 1]
[--statistic median]``; each folder's runs as ``bench_validate_rescore.py`` reads them.
``--quick`` reads the two shipped levels pairs of 2026-12-01 (seconds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_validate_rescore as rescore  # a folder's runs, as the rescoring reads them

QUICK = tuple(
    data_dir() / "measurements" / f"quiet_run_2026-12-01_xeon_levels_{name}"
    for name in ("default", "l2start")
)  # fmt: skip

#: (stencil, sizes, arrays past twice the working cores' L2)
Problem = tuple[str, tuple[int, ...], bool]
#: A run's times of one problem: tiles -> seconds.
Times = dict[tuple[int, ...], float]


def _name(problem: Problem) -> str:
    """``stencil:S1xS2x...xT``."""
    return f"{problem[0]}:{'x'.join(map(str, problem[1]))}"


def _label(run: Path) -> str:
    """A run's folder name, with its ``runN`` where it is one."""
    return f"{run.parent.name}/{run.name}" if run.name.startswith("run") else run.name


def run_record(run: Path, threads: int, statistic: str) -> tuple[float, dict[Problem, Times]]:
    """(the copy cost at the largest working set, s per word; per problem: {tiles: time in
    s}) of one run at ``threads``."""
    cal_path = cv.run_folder_calibrations(run)[0 if threads == 1 else 1]
    cal = mm.load_calibration(cal_path)
    copy = sorted(mm._l3_copy_points(cal.micro, threads, mm._segment_words_of(cal.settings)))
    if not copy:
        raise ValueError(f"{cal_path}: no copy point past the L2 at {threads} thread(s)")
    table = mm.read_table(run / "sweep.csv")
    start = 2 * threads * int(table.machine.get("l2_bytes", 0))
    points = table.per_point(statistic)
    times: dict[Problem, Times] = {}
    for i in range(len(points)):
        if int(points.threads[i]) != threads:
            continue
        past = int(points.columns["working_set_bytes"][i]) > start
        key = (points.stencil[i], points.sizes_of(i), past)
        times.setdefault(key, {})[points.tiles_of(i)] = float(points.time_s[i])
    return copy[-1][1], times


def report(folders: list[Path], threads: int, statistic: str) -> list[str]:
    """Lines: per run its copy cost and per problem its relative time; then r and slope."""
    runs = [run for folder in folders for run in rescore._runs_of(folder)]
    if len(runs) < 3:
        raise ValueError(f"folders: {len(runs)} run(s) with a sweep; give at least 3")
    records = [run_record(r, threads, statistic) for r in runs]
    problems = sorted(set.intersection(*(set(t) for _, t in records)))
    if not problems:
        raise ValueError("folders: no problem is in every run")
    copy = np.log([c for c, _ in records])
    lines = [f"{threads} thread(s), {statistic} over passes; time relative to {_label(runs[0])}"]
    header = "run copy_ns_per_word " + " ".join(_name(p) for p in problems)
    lines.append(header)
    rel = np.zeros((len(runs), len(problems)))
    for j, key in enumerate(problems):
        tiles = sorted(set.intersection(*(set(t[key]) for _, t in records)))
        first = np.array([records[0][1][key][k] for k in tiles])
        for i, (_, t) in enumerate(records):
            rel[i, j] = np.exp(np.median(np.log(np.array([t[key][k] for k in tiles]) / first)))
    for i, run in enumerate(runs):
        cells = " ".join(f"{x:.3f}" for x in rel[i])
        lines.append(f"{_label(run)} {1e9 * records[i][0]:.3f} {cells}")
    for j, key in enumerate(problems):
        y = np.log(rel[:, j])
        r = float(np.corrcoef(copy, y)[0, 1])
        slope = float(np.polyfit(copy, y, 1)[0])
        where = "past twice the L2" if key[2] else "within twice the L2"
        lines.append(
            f"{_name(key)} ({where}): r {r:.2f}, slope {slope:.2f}, time "
            f"{rel[:, j].min():.2f}-{rel[:, j].max():.2f} of the first run's over {len(runs)} runs"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="run folders")
    parser.add_argument("--threads", type=int, choices=(1, 2), default=1)
    parser.add_argument("--statistic", choices=list(mm.STATISTICS), default="median")
    parser.add_argument("--quick", action="store_true", help="the shipped pairs (seconds)")
    args = parser.parse_args(argv)
    folders = list(QUICK) if args.quick else args.folders
    if not folders:
        parser.error("give run folders (or --quick)")
    try:
        lines = report(folders, args.threads, args.statistic)
    except (OSError, ValueError, TypeError) as exc:
        print(f"bench_validate_drift: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
