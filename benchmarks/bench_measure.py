"""Benchmark: the tiled-stencil harness against the naive untiled stencil it is checked with.

For each harness stencil and one problem, compares the wall time of the tiled code
(``costmetrics.measure.run``, all cores, a good tile from the shipped sweep, one warm-up
and one timed run) with that of the naive loop nest a user would otherwise write
(``costmetrics.measure.naive``, one thread, timed from Python, so it includes allocating
and initializing the arrays). Measured with the project's protocol: ``--passes`` passes,
each over every (stencil, tiled or naive) in a shuffled order, one timed run each; a
stencil's time is its median over passes, its speed-up the ratio of the medians, and the
spread is the range of the per-pass ratios. Back-to-back repeats of one run share the
machine's momentary state and are not independent (docs/validate.md, "The measurement
protocol"). Also the time of one ``costmetrics calibrate`` with the defaults. The CPU
model and the load average are printed first and last.

Run: ``python benchmarks/bench_measure.py [--passes N] [--seed S] [--quick]``
(``--quick``: two passes of the first problem, no calibration, as CI runs it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from costmetrics import measure as mm

PROBLEMS = {
    "jacobi1d": ((32768, 256), (256, 32)),
    "jacobi2d": ((512, 512, 128), (16, 128, 16)),
    "heat2d": ((512, 512, 128), (16, 128, 16)),
    "laplacian2d": ((512, 512, 128), (16, 128, 16)),
    "gradient2d": ((512, 512, 64), (16, 128, 16)),
    "heat3d": ((126, 126, 126, 16), (16, 16, 128, 16)),
}


def _time_one(name: str, kind: str) -> float:
    """Seconds of one timed run of ``name``: the tiled harness or the naive stencil."""
    sizes, tiles = PROBLEMS[name]
    if kind == "tiled":
        return float(mm.run(name, sizes, tiles, repeats=1).time_min_s)
    t0 = time.perf_counter()
    mm.naive(name, sizes)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--passes", type=int, default=9, help="shuffled passes (default 9)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the shuffled orders")
    parser.add_argument("--quick", action="store_true", help="one problem, two passes (CI)")
    args = parser.parse_args()
    if args.passes < 2:
        parser.error(f"--passes must be at least 2, got {args.passes}")
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, got {args.seed}")
    names = list(PROBLEMS)[:1] if args.quick else list(PROBLEMS)
    passes = 2 if args.quick else args.passes
    machine = mm.machine_record()
    print(f"{machine['cpu_model']}, {machine['threads']} threads, load {os.getloadavg()}")
    jobs = [(name, kind) for name in names for kind in ("tiled", "naive")]
    times: dict[tuple[str, str], list[float]] = {job: [] for job in jobs}
    for p in range(passes):
        order = np.random.default_rng([args.seed, p]).permutation(len(jobs))
        for i in order:
            times[jobs[i]].append(_time_one(*jobs[i]))
    header = ["stencil", "tiled [ms]", "naive [ms]", "speed-up", "per-pass range"]
    print(f"{header[0]:12s} " + " ".join(f"{h:>14s}" for h in header[1:]))
    for name in names:
        tiled, naive = times[(name, "tiled")], times[(name, "naive")]
        ratios = [n / t for n, t in zip(naive, tiled, strict=True)]
        speed_up = statistics.median(naive) / statistics.median(tiled)
        print(
            f"{name:12s} {1e3 * statistics.median(tiled):14.2f} "
            f"{1e3 * statistics.median(naive):14.2f} {speed_up:13.2f}x "
            f"{min(ratios):8.2f}-{max(ratios):.2f}x"
        )
    if not args.quick:
        t0 = time.perf_counter()
        mm.calibrate()
        print(f"costmetrics calibrate (defaults): {time.perf_counter() - t0:.1f} s")
    print(f"{passes} passes, median per stencil; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
