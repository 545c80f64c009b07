"""Diagnostic: where in one problem's tiles does the time model miss? (issue 21)

For one problem of a validation run folder (``sweep.csv`` with ``cal_1t/`` and ``cal_2t/``,
or the older tables' ``calibration_1t/`` and ``calibration_2t/``), prints per thread count
and tile: the measured time (the statistic over passes), the harness' counters (tiles,
words loaded), the hexagon's pitch along ``s1`` (``2 tS1 + tT - 2`` points: the distance
between two tiles of one wavefront, so that a wavefront touches runs of about half the
pitch with gaps of the other half), and the ratio predicted / measured of the ``machine``
variant, calibrated and fitted (leave-one-problem-out, as ``costmetrics validate``: this
problem's points predicted by a fit on the others). Closing lines give the median ratio
per pitch class and, per thread count, the median ratio and the RMSE of the whole problem.

Found with it on 2026-11-28 (docs/validate-log.md, "A DRAM problem for every stencil, and
Jacobi 1D's tile pitch"): on Jacobi 1D 8388606 x 4 (64 MiB, in DRAM) the fit predicts the
tiles of pitch 64-1023 at 0.45-0.58x of their measured times (pitch < 64: 1.01-1.17x,
>= 1024: 0.81-0.95x; three runs); on 2097152 x 8 (16 MiB, in L3) the classes are 0.85-1.07x.

Run: ``python benchmarks/bench_validate_tiles.py FOLDER STENCIL S1 [S2 S3] T
[--statistic min]``; ``--quick`` runs it on the shipped folder of that finding.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

SHIPPED = data_dir() / "measurements" / "quiet_run_2026-11-28_levels_dram"
#: Pitch classes of the closing line (points along s1): upper bounds.
PITCH_CLASSES = (64, 1024, 1 << 62)


def report(folder: Path, stencil: str, sizes: tuple[int, ...], statistic: str) -> list[str]:
    """Lines of the report for one problem of a run folder."""
    cals = cv.run_folder_calibrations(folder)
    table = mm.read_table(folder / "sweep.csv")
    points = table.per_point(statistic)
    rows = [
        i for i in range(len(points))
        if points.stencil[i] == stencil and points.sizes_of(i) == sizes
    ]  # fmt: skip
    if not rows:
        known = sorted({(points.stencil[i], points.sizes_of(i)) for i in range(len(points))})
        raise ValueError(f"problem: {stencil} {sizes} is not in {folder} (has {known})")
    calibrated = cv.predict(points, cals, variant="machine")
    fitted = cv.fit(table, cals, variant="machine", n_boot=40).predicted_s
    measured = np.asarray(points.time_s)
    lines = ["threads tile pitch measured_ms tiles words_loaded calibrated/meas fitted/meas"]
    classes: dict[tuple[int, int], list[float]] = {}
    for i in sorted(rows, key=lambda i: (int(points.threads[i]), points.tiles_of(i))):
        tile = points.tiles_of(i)
        pitch = 2 * tile[0] + tile[-1] - 2
        n = int(points.threads[i])
        lines.append(
            f"{n} {'x'.join(map(str, tile))} {pitch} {1e3 * measured[i]:.2f} "
            f"{int(points.columns['n_tiles'][i])} {int(points.columns['words_loaded'][i])} "
            f"{calibrated[i] / measured[i]:.2f} {fitted[i] / measured[i]:.2f}"
        )
        k = next(j for j, bound in enumerate(PITCH_CLASSES) if pitch < bound)
        if np.isfinite(fitted[i]):  # NaN: a tile the model does not score
            classes.setdefault((n, k), []).append(float(fitted[i] / measured[i]))
    lows = (0, *PITCH_CLASSES[:-1])
    for (n, k), ratios in sorted(classes.items()):
        upper = "" if k == len(PITCH_CLASSES) - 1 else f" < {PITCH_CLASSES[k]}"
        lines.append(
            f"{n} thread(s), pitch >= {lows[k]}{upper}: fitted/measured median "
            f"{np.median(ratios):.2f} over {len(ratios)} tiles"
        )
    scored = np.zeros(len(points), dtype=bool)
    scored[rows] = True
    scored &= np.isfinite(fitted)
    for n in sorted({int(points.threads[i]) for i in rows}):
        m = scored & (points.threads == n)
        lines.append(
            f"{n} thread(s), the whole problem: fitted/measured median "
            f"{np.median(fitted[m] / measured[m]):.2f}, RMSE "
            f"{100 * cv.relative_rmse(measured[m], fitted[m]):.1f}% over {int(m.sum())} tiles"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="?", help="run folder (default: shipped)")
    parser.add_argument("stencil", nargs="?", default="jacobi1d")
    parser.add_argument("sizes", type=int, nargs="*", help="S1 [S2 S3] T")
    parser.add_argument("--statistic", choices=list(mm.STATISTICS), default="median")
    parser.add_argument("--quick", action="store_true", help="the shipped folder (seconds)")
    args = parser.parse_args(argv)
    folder = SHIPPED if args.quick or args.folder is None else args.folder
    sizes = tuple(args.sizes) if args.sizes else (8388606, 4)
    try:
        lines = report(folder, args.stencil, sizes, args.statistic)
    except (OSError, ValueError) as exc:
        print(f"bench_validate_tiles: {exc}", file=sys.stderr)
        return 2
    print(f"{folder}: {args.stencil} {'x'.join(map(str, sizes))} ({args.statistic} over passes)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
