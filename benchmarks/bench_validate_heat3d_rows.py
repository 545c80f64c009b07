"""Diagnostic: does Heat 3D's error depend on the row length at fixed array bytes? (issue 21)

Measures Heat 3D on problems of equal array bytes and different innermost extents ``S3``
(a row of the arrays is ``4 (S3 + 2)`` bytes, so 2 to 16 rows share a 4 KiB page), with
tiles of ``tS3 = 32`` (many short lines), 1 and 2 threads, in shuffled passes
(:func:`costmetrics.measure.measure`, resumable). Then scores the table with the fitted
``machine`` variant of a levels run folder (fitted on all of that folder's problems; none
of these shapes is in it) and prints, per problem and thread count, the median and the
RMS of predicted / measured.

Found with it on 2026-11-29 (docs/validate-log.md, "Heat 3D in DRAM: the row length"): at
134 MB of arrays the median ratio is 0.87-0.88 for ``S3 = 510``, 0.93 for 254 and
1.04-1.05 for 126; at 16.8 MB it is 1.07-1.12 whatever ``S3``. The model's per-line DRAM
cost is the same for every row length.

Run: ``python benchmarks/bench_validate_heat3d_rows.py --out TABLE --fit FOLDER [--passes 7]``;
``--quick`` scores the shipped table with the shipped levels folder, measuring nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import time as cm_time
from costmetrics import validate as cv
from costmetrics.presets import data_dir

SHIPPED = data_dir() / "measurements" / "diagnostic_2026-11-29_xeon_heat3d_rows"
SHIPPED_FIT = data_dir() / "measurements" / "quiet_run_2026-11-29_xeon_gap_levels_b"
#: (S1, S2, S3, T): 16.8 MB and 134 MB of arrays, each with three row lengths.
PROBLEMS = (
    (126, 126, 126, 8), (62, 126, 254, 8), (254, 126, 62, 8),
    (254, 254, 254, 4), (126, 254, 510, 4), (510, 254, 126, 4),
)  # fmt: skip
#: (tS1, tS2, tS3, tT): lines of 32 points, deep and shallow in time.
TILES = (
    (16, 16, 32, 8), (30, 7, 32, 8), (4, 4, 32, 8), (16, 4, 32, 2), (1, 16, 32, 8),
    (4, 16, 32, 2),
)  # fmt: skip


def measure_heat3d(
    out: Path, problems: Sequence[tuple[int, ...]], tiles: Sequence[tuple[int, ...]],
    passes: int, progress: bool, command: str,
) -> None:  # fmt: skip
    """Measure Heat 3D on every (problem, tile) at 1 and 2 threads into ``out`` (resumable)."""
    points = [mm.Point("heat3d", p, t, ("grid",)) for p in problems for t in tiles]
    mm.measure(
        points, out, threads=[1, 2], passes=passes, progress=progress, command=command
    )  # fmt: skip


def heat3d_predictions(
    table: Path, folder: Path
) -> list[tuple[tuple[int, ...], int, tuple[int, ...], float, float]]:
    """``(sizes, threads, tile, predicted_s, measured_s)`` of every Heat 3D point of ``table``.

    The prediction is the fitted ``machine`` variant of the levels run ``folder``, fitted on
    all of its problems; the measured time is the median over passes.
    """
    cals = cv.run_folder_calibrations(folder)
    fitted = cv.fit(mm.read_table(folder / "sweep.csv"), cals, variant="machine", n_boot=40)
    points = mm.read_table(table).per_point("median")
    out = []
    for i in range(len(points)):
        sizes, n, tile = points.sizes_of(i), int(points.threads[i]), points.tiles_of(i)
        cal = fitted.calibrations.get(n, fitted.calibration)
        b = cm_time.breakdown(
            cal.stencils["heat3d"], cal.gpu.with_threads(n), sizes, tile, variant="machine"
        )  # fmt: skip
        out.append((sizes, n, tile, b.talg_s, float(points.time_s[i])))
    return out


def measure_table(out: Path, passes: int, progress: bool) -> None:
    """Measure every (problem, tile) at 1 and 2 threads into ``out`` (resumable)."""
    measure_heat3d(
        out, PROBLEMS, TILES, passes, progress, "python benchmarks/bench_validate_heat3d_rows.py"
    )  # fmt: skip


def report(table: Path, folder: Path) -> list[str]:
    """Per problem and thread count: median and RMS of predicted / measured."""
    ratios: dict[tuple[tuple[int, ...], int], list[float]] = defaultdict(list)
    for sizes, n, _, predicted_s, measured_s in heat3d_predictions(table, folder):
        ratios[(sizes, n)].append(predicted_s / measured_s)
    lines = ["problem (S1, S2, S3, T)   threads  row_bytes  median  rms%"]
    for sizes, n in sorted(ratios, key=lambda k: (k[1], k[0][3], k[0])):
        r = np.asarray(ratios[(sizes, n)])
        rms = 100 * float(np.sqrt(np.mean((r - 1) ** 2)))
        row = 4 * (sizes[2] + 2)
        lines.append(f"{sizes!s:<25} {n:>7} {row:>10} {np.median(r):7.3f} {rms:5.1f}")
    return lines


def diagnostic_main(
    argv: list[str] | None,
    description: str,
    shipped: tuple[Path, Path],
    measure: Callable[[Path, int, bool], None],
    score: Callable[[Path, Path], list[str]],
    default_passes: int,
) -> int:
    """The command line of a diagnostic that measures a table and scores it with a fit.

    ``--out TABLE --fit FOLDER [--passes N]`` measures ``TABLE`` (resumable) with
    ``measure(table, passes, progress)`` and prints ``score(table, folder)``; ``--quick``
    scores ``shipped`` (the shipped table and levels folder), measuring nothing. Arguments
    are checked before anything runs, and a table or folder that cannot be written or read
    is refused with one line (exit 2).
    """
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path, help="table to measure into (resumable)")
    ap.add_argument("--fit", type=Path, help="levels run folder whose fitted variant scores it")
    ap.add_argument("--passes", type=int, default=default_passes,
                    help=f"shuffled passes (default {default_passes})")  # fmt: skip
    ap.add_argument("--quick", action="store_true", help="score the shipped table only")
    args = ap.parse_args(argv)
    if args.quick:
        table, folder = shipped
    else:
        if args.out is None or args.fit is None:
            ap.error("--out and --fit are required without --quick")
        if not (args.fit / "sweep.csv").is_file():
            ap.error(f"--fit: {args.fit} has no sweep.csv")
        try:  # its calibrations too, before anything is measured
            cv.run_folder_calibrations(args.fit)
        except ValueError as exc:
            ap.error(f"--fit: {exc}")
        if not 1 <= args.passes <= 1000:
            ap.error(f"--passes: must be in [1, 1000], got {args.passes}")
        table, folder = args.out, args.fit
    try:  # a path measure() cannot write is refused before any point runs
        if not args.quick:
            measure(table, args.passes, sys.stderr.isatty())
        lines = score(table, folder)
    except (OSError, ValueError) as exc:
        print(f"{ap.prog}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


def main(argv: list[str] | None = None) -> int:
    return diagnostic_main(
        argv, __doc__.splitlines()[0], (SHIPPED / "sweep.csv", SHIPPED_FIT), measure_table,
        report, 7,
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
