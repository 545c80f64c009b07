"""Diagnostic: is Heat 3D's DRAM miss a power-of-two row pitch? (issue 21)

The levels sweep's Heat 3D problems are cubes of ``2^k - 2`` points, so with the halo
every row of the arrays is ``2^k`` floats and every plane a power of two bytes: 254^3 has
1 KiB rows and 256 KiB planes, and the lines of a tile then fall on few cache sets. In DRAM
the fitted ``machine`` variant predicts the tiles of ``tT = 2`` at 0.6-0.8x their measured
times (docs/validate.md, "Open"). This measures 254^3 x 4 beside 254 x 254 x 251 x 4 and
254 x 254 x 257 x 4 (row pitches of 253 and 259 floats: no power of two, the same bytes
within 1.2%) and 190^3 x 4 (768-byte rows), with ten tiles from ``(16, 16, 32, 2)`` to
``(24, 3, 256, 18)``, at 1 and 2 threads, in shuffled passes
(:func:`costmetrics.measure.measure`, resumable). Then it scores the table with the fitted
``machine`` variant of a levels run folder (fitted on all of that folder's problems, 254^3
and 190^3 among them) and prints, per tile and thread count, predicted / measured and the
measured time per point update for each problem.

Found with it on 2026-12-01 (docs/validate-log.md, "Heat 3D in DRAM: not the power-of-two
pitch"): the pitches of 253 and 259 floats are as slow per update as 254^3's 256, or
slower, and as far under-predicted; the pitch is not the cause.

Run: ``python benchmarks/bench_validate_heat3d_pitch.py --out TABLE --fit FOLDER
[--passes 9]``; ``--quick`` scores the shipped table with the shipped levels folder,
measuring nothing.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from costmetrics.presets import data_dir

# The diagnostics share their command line (this folder on sys.path: found from anywhere).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate_heat3d_rows import diagnostic_main, heat3d_predictions, measure_heat3d

SHIPPED = data_dir() / "measurements" / "diagnostic_2026-12-01_xeon_heat3d_pitch"
SHIPPED_FIT = data_dir() / "measurements" / "quiet_run_2026-12-01_xeon_levels_fresh9"
#: (S1, S2, S3, T): a power-of-two pitch (S3 + 2 = 256), two that are not, and 190^3.
PROBLEMS = ((254, 254, 254, 4), (254, 254, 251, 4), (254, 254, 257, 4), (190, 190, 190, 4))
#: (tS1, tS2, tS3, tT): shallow tiles with short lines, and the deep ones the model ranks first.
TILES = (
    (16, 16, 32, 2), (1, 16, 32, 2), (4, 16, 32, 8), (16, 16, 128, 2), (16, 16, 128, 8),
    (4, 16, 128, 8), (30, 4, 96, 8), (31, 8, 256, 2), (24, 3, 256, 18), (28, 3, 256, 10),
)  # fmt: skip


def measure_table(out: Path, passes: int, progress: bool) -> None:
    """Measure every (problem, tile) at 1 and 2 threads into ``out`` (resumable)."""
    measure_heat3d(
        out, PROBLEMS, TILES, passes, progress, "python benchmarks/bench_validate_heat3d_pitch.py"
    )  # fmt: skip


def report(table: Path, folder: Path) -> list[str]:
    """Per tile and thread count: predicted / measured and ns per update, per problem."""
    cells: dict[tuple[tuple[int, ...], int], dict[tuple[int, ...], tuple[float, float]]]
    cells = defaultdict(dict)
    for sizes, n, tile, predicted_s, measured_s in heat3d_predictions(table, folder):
        updates = float(np.prod(sizes))
        cells[(tile, n)][sizes] = (predicted_s / measured_s, 1e9 * measured_s / updates)
    problems = sorted({s for cell in cells.values() for s in cell}, key=PROBLEMS.index)
    head = "  ".join(f"{'x'.join(map(str, s)):>17}" for s in problems)
    lines = ["predicted / measured, ns per update (median over passes)",
             f"{'tile':<18} threads  {head}"]  # fmt: skip
    for tile, n in sorted(cells, key=lambda k: (k[1], k[0])):
        row = "  ".join(
            f"{cells[(tile, n)][s][0]:7.3f} {cells[(tile, n)][s][1]:6.2f} ns"
            if s in cells[(tile, n)] else f"{'-':>17}"
            for s in problems
        )  # fmt: skip
        lines.append(f"{tile!s:<18} {n:>7}  {row}")
    for n in sorted({k[1] for k in cells}):
        ratio = [
            np.median([c[s][0] for (_, m), c in cells.items() if m == n and s in c])
            for s in problems
        ]  # fmt: skip
        lines.append(f"median, {n} thread(s): " + "  ".join(f"{r:.3f}" for r in ratio))
    return lines


def main(argv: list[str] | None = None) -> int:
    return diagnostic_main(
        argv, __doc__.splitlines()[0], (SHIPPED / "sweep.csv", SHIPPED_FIT), measure_table,
        report, 9,
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
