"""Diagnostic: would a line cost of its own for 3D stencils fit Heat 3D? (issue 21)

The fitted ``machine`` variant shares one per-line cost (``tau_line_s``) between the 2D
stencils' lines of ``s2`` and Heat 3D's lines of ``s3``. The 3D harness does more per
line (``tile_3d`` in ``cpp/src/measure.cpp``: per line and sub-slab, the two face copies,
two short ``memcpy`` loads and a face kept for the next sub-slab), and Heat 3D is the one
stencil whose top-20% error stays above 10% on the quiet runs. This script refits the
fitted machine variant leave-one-problem-out, as ``costmetrics validate`` does, once as
shipped and once with the line column of the Heat 3D points moved to a parameter of its
own, and prints the RMSE (all points, top 20%) per thread count, overall and for Heat 3D.

It uses the validate module's internal design matrix (``_machine_design``): it tests a
candidate model term on the columns the model already has, without changing the model.
A term chosen this way on a table is not validated by that table; it needs a run measured
after it. Run: ``python benchmarks/bench_validate_line3d.py [FOLDER ...] [--statistic
min]`` on folders holding ``sweep.csv`` and ``calibration_1t/``, ``calibration_2t/``
(default: the shipped ``quiet_run_2026-11-25_h4_stat``); ``--quick`` is the same.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

SHIPPED = data_dir() / "measurements" / "quiet_run_2026-11-25_h4_stat"


def _solve(
    a: np.ndarray, measured: np.ndarray, *, start: np.ndarray, lower: np.ndarray
) -> np.ndarray:
    return cv._solve_bounded(a, measured, start, lower)


def scores(folder: Path, statistic: str) -> dict[str, dict[int, tuple[float, ...]]]:
    """RMSE (all, top 20%, Heat 3D all, Heat 3D top 20%) per thread count, both fits."""
    cals = {
        n: c.with_statistic(statistic)
        for n, c in cv._calibrations([folder / "calibration_1t", folder / "calibration_2t"]).items()
    }
    t = mm.read_table(folder / "sweep.csv").per_point(statistic)
    frame = cv._machine_frame(cals)
    names = sorted({n for n in set(t.stencil) if n in frame.stencils})
    start = cv._machine_start(cals, frame, names)
    cols, ok = cv._machine_design(t, frame, names)
    n_lv = len(mm.MEMORY_LEVELS)
    lower = np.zeros(start.size)  # the bounds of validate's own fit
    lower[n_lv : n_lv + 2 + len(names)] = cv._POSITIVE_FLOOR_S
    lower[len(cv._MACHINE_FIT_HEAD) + len(names)] = cv._L_SEG_FLOOR_S
    keys = [*cv._MACHINE_FIT_HEAD, *(f"c[{n}]" for n in names), *cv._MACHINE_FIT_TAIL]
    j = keys.index("tau_line_s")
    is3 = np.asarray([s == "heat3d" for s in t.stencil])
    split = np.column_stack([cols, np.where(is3, cols[:, j], 0.0)])
    split[is3, j] = 0.0
    top = cv.top_mask(t)
    out: dict[str, dict[int, tuple[float, ...]]] = {}
    for label, c, s, lo in (
        ("shared line cost (as shipped)", cols, start, lower),
        ("3D line cost of its own", split, np.append(start, start[j]), np.append(lower, 0.0)),
    ):
        oos, _ = cv._leave_problem_out(t, c, ok, functools.partial(_solve, start=s, lower=lo))
        per: dict[int, tuple[float, ...]] = {}
        for n in sorted({int(x) for x in t.threads}):
            m = (t.threads == n) & np.isfinite(oos)
            h = m & is3
            per[n] = tuple(cv.relative_rmse(t.time_s[q], oos[q]) for q in (m, m & top, h, h & top))
        out[label] = per
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="run folders (default: shipped)")
    parser.add_argument("--statistic", choices=list(mm.STATISTICS), default="median")
    parser.add_argument("--quick", action="store_true", help="the shipped folder (seconds)")
    args = parser.parse_args(argv)
    for folder in args.folders or [SHIPPED]:
        try:
            result = scores(folder, args.statistic)
        except (OSError, ValueError) as exc:
            print(f"bench_validate_line3d: {exc}", file=sys.stderr)
            return 2
        print(f"{folder} ({args.statistic} over passes), fitted-machine, leave-one-problem-out:")
        for label, per in result.items():
            text = " | ".join(
                f"{n} thr: all {100 * a:.1f} top {100 * b:.1f}, heat3d all {100 * c:.1f} "
                f"top {100 * d:.1f}"
                for n, (a, b, c, d) in per.items()
            )
            print(f"  {label:30s} {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
