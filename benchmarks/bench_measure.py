"""Benchmark: the tiled-stencil harness against the naive untiled stencil it is checked with.

For each harness stencil and one problem, reports the minimum wall time of the tiled code
(``costmetrics.measure.run``, all cores, a good tile from the shipped sweep) and of the
naive loop nest a user would otherwise write (``costmetrics.measure.naive``, one thread,
timed from Python, so it includes allocating and initializing the arrays), and their
ratio. Also the time of one ``costmetrics calibrate`` with the defaults. The machine's
load average is printed first: on a shared machine the numbers are noisy.

Run: ``python benchmarks/bench_measure.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import time

from costmetrics import measure as mm

PROBLEMS = {
    "jacobi1d": ((32768, 256), (256, 32)),
    "jacobi2d": ((512, 512, 128), (16, 128, 16)),
    "heat2d": ((512, 512, 128), (16, 128, 16)),
    "laplacian2d": ((512, 512, 128), (16, 128, 16)),
    "gradient2d": ((512, 512, 64), (16, 128, 16)),
    "heat3d": ((126, 126, 126, 16), (16, 16, 128, 16)),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    header = ["stencil", "tiled [ms]", "cpu [ms]", "naive [ms]", "speed-up"]
    print(f"{header[0]:12s} " + " ".join(f"{h:>11s}" for h in header[1:]))
    for name, (sizes, tiles) in PROBLEMS.items():
        r = mm.run(name, sizes, tiles, repeats=args.repeat)
        naive_s = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            mm.naive(name, sizes)
            naive_s.append(time.perf_counter() - t0)
        best = min(naive_s)
        print(
            f"{name:12s} {1e3 * r.time_min_s:11.2f} {1e3 * r.cpu_time_s:11.2f} "
            f"{1e3 * best:11.2f} {best / r.time_min_s:10.2f}x"
        )
    t0 = time.perf_counter()
    mm.calibrate()
    print(f"costmetrics calibrate (defaults): {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
