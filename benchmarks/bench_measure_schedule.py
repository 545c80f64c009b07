"""Benchmark: the harness's two schedules of a wavefront's tiles, round-robin against block.

Round-robin deals tile i of a wavefront to thread i mod threads, so in 1D
neighbouring tiles, which share cache lines at their common boundary, run on different
cores; block gives each thread a contiguous run of tiles. Both are checked bitwise against
the naive stencil on every run. This script measures both with the protocol of
``costmetrics measure`` (shuffled passes, the two schedules of a point interleaved in the
same passes, every core), then prints per stencil the median over points of
block / round-robin (the per-point medians over passes) with a 95% bootstrap interval over
points, and the noise floor of each schedule. Block became the 1D default after this
comparison on a quiet machine (Jacobi 1D block / round-robin 0.842 [0.757, 0.908]; 2D no
difference): ``costmetrics.measure.DEFAULT_SCHEDULES``, ``docs/validate.md``. Rerun it
where another machine might disagree.

Run (quiet machine; about 1-3 minutes on 2 cores, estimated from the shipped sweep's
times):
``python benchmarks/bench_measure_schedule.py --out schedule.csv``; ``--quick`` is a smoke run
(seconds, numbers meaningless). Resumable: rerun the same command after an interruption.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv

#: Narrow and wide tiles on problems in L2 and past it (tiles of the shipped grid).
PROBLEMS: dict[str, tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]] = {
    "jacobi1d": (
        ((32768, 256), (262144, 32)),
        ((1, 4), (4, 4), (16, 4), (64, 4), (16, 16), (64, 32), (256, 64)),
    ),
    "jacobi2d": (
        ((512, 512, 128),),
        ((1, 32, 4), (4, 32, 4), (4, 128, 8), (16, 64, 8), (16, 256, 16)),
    ),
    "heat2d": (((512, 512, 128),), ((1, 32, 4), (4, 128, 8), (16, 256, 16))),
    "gradient2d": (((512, 512, 64),), ((1, 32, 4), (4, 128, 8), (23, 32, 4))),
    "heat3d": (((62, 62, 62, 16),), ((4, 4, 32, 2), (14, 4, 96, 6), (8, 16, 32, 2))),
}
QUICK: dict[str, tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]] = {
    "jacobi1d": (((4096, 16),), ((4, 4), (16, 4))),
    "heat2d": (((64, 64, 8),), ((4, 32, 4),)),
}


def points(quick: bool) -> list[mm.Point]:
    """The points of the comparison (each is measured with both schedules)."""
    table = QUICK if quick else PROBLEMS
    return [
        mm.Point(name, sizes, tiles, ("schedule",))
        for name, (size_list, tile_list) in table.items()
        for sizes in size_list
        for tiles in tile_list
    ]


def compare(path: Path, n_boot: int = 1000) -> list[dict[str, object]]:
    """Per stencil and thread count: median ratio block / round-robin and its interval."""
    med = mm.read_table(path).medians()
    index = {med.key_of(i): i for i in range(len(med))}
    out: list[dict[str, object]] = []
    rng = np.random.default_rng(0)
    for stencil in sorted(set(med.stencil)):
        for threads in sorted({int(n) for n in med.threads}):
            ratios, rr_rows, bl_rows = [], [], []
            for key, i in index.items():
                if key[0] != stencil or key[3] != threads or key[4] != "round-robin":
                    continue
                j = index.get((*key[:4], "block"))
                if j is None:
                    continue
                ratios.append(med.time_s[j] / med.time_s[i])
                rr_rows.append(i)
                bl_rows.append(j)
            if not ratios:
                continue
            r = np.asarray(ratios)
            boot = np.median(r[rng.integers(0, r.size, (n_boot, r.size))], axis=1)
            assert med.pass_times_s is not None
            out.append(
                {
                    "stencil": stencil,
                    "threads": threads,
                    "points": int(r.size),
                    "block_over_round_robin": float(np.median(r)),
                    "ci95": [float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))],
                    "min": float(r.min()),
                    "max": float(r.max()),
                    "noise_floor_round_robin": cv.noise_floor(med.pass_times_s[rr_rows]),
                    "noise_floor_block": cv.noise_floor(med.pass_times_s[bl_rows]),
                }
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("schedule.csv"), help="the table")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="default: every CPU")
    parser.add_argument("--quick", action="store_true", help="smoke run (meaningless numbers)")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    threads = args.threads if args.threads is not None else mm.default_threads()
    try:  # measure() checks the table, the passes and the threads before it runs a point
        mm.measure(
            points(args.quick),
            args.out,
            threads=threads,
            passes=2 if args.quick else args.passes,
            schedule=("round-robin", "block"),
            command="python benchmarks/bench_measure_schedule.py",
            progress=True,
        )
    except (OSError, ValueError, TypeError) as exc:
        print(f"bench_measure_schedule: {exc}", file=sys.stderr)
        return 2
    print(f"{'stencil':12s} {'threads':>7s} {'n':>3s} {'block/rr':>9s} {'95% CI':>16s} "
          f"{'min-max':>12s} {'floor rr':>9s} {'floor bl':>9s}")  # fmt: skip
    for row in compare(args.out):
        lo, hi = row["ci95"]  # type: ignore[misc]
        print(
            f"{row['stencil']:12s} {row['threads']:7d} {row['points']:3d} "
            f"{row['block_over_round_robin']:9.3f} {f'[{lo:.3f}, {hi:.3f}]':>16s} "
            f"{row['min']:5.2f}-{row['max']:<6.2f} {100 * row['noise_floor_round_robin']:8.1f}% "  # type: ignore[operator]
            f"{100 * row['noise_floor_block']:8.1f}%"  # type: ignore[operator]
        )
    print("block/rr < 1: block faster. Keep round-robin unless the whole interval is below 1.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
