"""Diagnostic: what a cache line written by two threads at a 1D tile boundary costs (issue 21).

Measures Jacobi 1D at 1 and 2 threads with both schedules, in shuffled passes
(:func:`costmetrics.measure.measure`, resumable), on problems whose arrays lie in L1
(4096 x 4096), in L2 (16384 x 1024) and past the L2 (262144 x 64), with tiles from 64 to
8192 points wide. It then predicts every point with the fitted ``machine`` variant of a
levels run folder (fitted on all of that folder's problems, none of which is one of these)
and prints, per 2-thread point, the measured time, the prediction and the per-line cost
that the residual implies:

- round-robin: residual / (the lines the model charges there, from its own count:
  ``(T_alg at t_share = 1 ns - T_alg at 0) / 1 ns``);
- block: residual / 2T, the rows of the lines at the block ends before 2026-11-29 (one
  line per row at the one block end of each wavefront of two tiles or more; the hexagonal
  tiling's two colours put every time step in two wavefronts). Only points with at least
  two tiles per wavefront are given a cost.

Found with it on 2026-11-29 (docs/time.md, "Lines at the block ends"; the shipped table,
17:52 UTC): block ends cost -1.0 ns per line by least squares on the L1 problem (8192
lines a run, -16 to +11 ns per point; the calibrated 55 ns would be 15-35% of these
times), against the calibration's micro-benchmark (threads writing one line strictly in
turn); round-robin's lines cost 6.9, 10.4 and 12.1 ns each (L1, L2, past the L2). So the
block schedule charges none. The L2 problem has a quarter of the lines and the problem past
the L2 128, too few to weigh them against the rest of the model's error.

Run: ``python benchmarks/bench_validate_share_lines.py --out TABLE --fit FOLDER
[--passes 15]``; ``--quick`` scores the shipped table with the shipped levels folder,
measuring nothing.
"""

from __future__ import annotations

import csv
import dataclasses
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

# The diagnostics share their command line (this folder on sys.path: found from anywhere).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate_heat3d_rows import diagnostic_main

SHIPPED = data_dir() / "measurements" / "diagnostic_2026-11-29_xeon_share_lines"
SHIPPED_FIT = data_dir() / "measurements" / "quiet_run_2026-11-29_xeon_blockends_levels"
#: (S, T): arrays in L1, in L2 and past the L2 of a 2 MiB-L2 core.
PROBLEMS = ((4096, 4096), (16384, 1024), (262144, 64))
#: (tS, tT): narrow to wide; the widest leave one or two tiles per wavefront.
TILES = {
    (4096, 4096): ((64, 8), (256, 8), (1024, 8), (1536, 8), (2048, 8),
                   (64, 32), (256, 32), (1024, 32), (1536, 32), (2048, 32)),
    (16384, 1024): ((64, 8), (256, 8), (1024, 8), (4096, 8), (6144, 8), (8192, 8),
                    (64, 32), (256, 32), (1024, 32), (4096, 32), (6144, 32), (8192, 32)),
    (262144, 64): ((64, 8), (256, 8), (1024, 8), (64, 32), (256, 32), (1024, 32)),
}  # fmt: skip
#: The probe cost per line for the model's round-robin count, s.
_PROBE_S = 1e-9


def measure_table(out: Path, passes: int, progress: bool) -> None:
    """Measure every (problem, tile) at 1 and 2 threads, both schedules (resumable)."""
    points = [mm.Point("jacobi1d", p, t, ("grid",)) for p in PROBLEMS for t in TILES[p]]
    mm.measure(
        points, out, threads=[1, 2], passes=passes, schedule=list(mm.SCHEDULES),
        progress=progress, command="python benchmarks/bench_validate_share_lines.py",
    )  # fmt: skip


def report(table: Path, folder: Path) -> list[str]:
    """Per 2-thread point: measured, predicted and the per-line cost the residual implies."""
    cals = cv.run_folder_calibrations(folder)
    fitted = cv.fit(mm.read_table(folder / "sweep.csv"), cals, variant="machine", n_boot=40)
    cal = fitted.calibration

    def with_share(cost_s: float) -> dict[int, mm.Calibration]:
        """The fitted calibrations (one per thread count) with another shared-line cost."""
        return {
            n: dataclasses.replace(c, gpu=dataclasses.replace(c.gpu, t_share_line_s=cost_s))
            for n, c in fitted.calibrations.items()
        }  # fmt: skip

    points = mm.read_table(table).per_point("median")
    base = cv.predict(points, with_share(0.0), variant="machine")
    with_probe = cv.predict(points, with_share(_PROBE_S), variant="machine")
    # The harness' own counts (the table's n_tiles and n_wavefronts columns).
    tiles_per_wave: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
    with open(table, newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            key = (
                (int(row["size_s1"]), int(row["size_t"])),
                (int(row["tile_s1"]), int(row["tile_t"])),
            )  # fmt: skip
            tiles_per_wave[key] = int(row["n_tiles"]) / int(row["n_wavefronts"])
    calibrated_s = max(mm.load_calibration(c).gpu.t_share_line_s for c in cals)
    lines = [
        f"fitted on {folder.name}: t_share_line_s {cal.gpu.t_share_line_s:.3g} s; calibrated "
        f"{calibrated_s:.3g} s (lines x calibrated: cal%, of the measured time)",
        "schedule     problem        tile        tiles/wf  measured_ms  predicted_ms  "
        "lines   cal%  ns_per_line",
    ]
    implied: dict[tuple[str, tuple[int, ...]], list[tuple[float, float]]] = {}
    order = sorted(
        (i for i in range(len(points)) if int(points.threads[i]) == 2),
        key=lambda i: (points.schedule[i], points.sizes_of(i), points.tiles_of(i)[::-1]),
    )  # fmt: skip
    for i in order:
        sched, sizes, tiles = str(points.schedule[i]), points.sizes_of(i), points.tiles_of(i)
        per_wave = tiles_per_wave[(sizes, tiles)]
        residual = float(points.time_s[i] - base[i])
        if sched == "block":
            n_lines = 2.0 * sizes[-1] if per_wave >= 2 else 0.0
        else:
            n_lines = float(with_probe[i] - base[i]) / _PROBE_S
        cost = f"{1e9 * residual / n_lines:11.1f}" if n_lines >= 1 else f"{'-':>11}"
        if n_lines >= 1:
            implied.setdefault((sched, sizes), []).append((residual, n_lines))
        cal_share = 100 * n_lines * calibrated_s / float(points.time_s[i])
        lines.append(
            f"{sched:<12} {sizes!s:<14} {tiles!s:<11} {per_wave:8.2f} "
            f"{1e3 * float(points.time_s[i]):12.3f} {1e3 * float(base[i]):13.3f} "
            f"{n_lines:6.0f} {cal_share:6.1f} {cost}"
        )
    lines.append("least squares per schedule and problem (ns per line):")
    for (sched, sizes), pairs in sorted(implied.items()):
        r, n = np.asarray(pairs).T
        lines.append(f"  {sched:<12} {sizes!s:<14} {1e9 * float(r @ n / (n @ n)):7.1f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    return diagnostic_main(
        argv, __doc__.splitlines()[0], (SHIPPED / "sweep.csv", SHIPPED_FIT), measure_table,
        report, 15,
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
