"""Benchmark: the energy-optimal tile search (thesis 000, App. B, Eq. B.7).

For Jacobi 2D on the GTX 980 preset (T_alg from the time model, ``exact`` variant,
S1 = S2 = T = 8192) over the default 2D space (65,536 points), reports the wall time of:

- ``costmetrics.energy.best_tiles`` (the generic C++ search of search.hpp with E_alg as the
  objective), on 1 thread and on all cores;
- what a user would otherwise write with the public vectorized calls: ``talg_batch`` for
  feasibility, ``energy_batch`` over the feasible points, ``numpy.argmin``;
- the L1 fit (HiGHS) and the bounded least-squares fit (SciPy) of the shipped synthetic
  table, without bootstrap (each bootstrap resample costs one more fit).

Both searches must agree on the argmin. Run: ``python benchmarks/bench_energy.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

from costmetrics import energy as en
from costmetrics import time as cm_time

SIZES = (8192, 8192, 8192)


def best_of(f: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def batch_search() -> tuple[int, ...]:
    grid = cm_time.default_search_space(2).grid()
    feasible = cm_time.talg_batch("jacobi2d", "gtx980", SIZES, grid, variant="exact").feasible
    batch = en.energy_batch("jacobi2d", "gtx980", SIZES, grid[feasible], variant="exact")
    return tuple(int(v) for v in grid[feasible][int(np.argmin(batch.e_alg_j))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    best = en.best_tiles("jacobi2d", "gtx980", SIZES, variant="exact")
    assert best.tiles == batch_search(), "the two searches disagree"
    print(f"Jacobi2D {SIZES}, GTX 980 time model: best {best.tiles}, {best.n_feasible} feasible")
    one = best_of(
        lambda: en.best_tiles("jacobi2d", "gtx980", SIZES, variant="exact", threads=1),
        args.repeat,
    )
    all_cores = best_of(
        lambda: en.best_tiles("jacobi2d", "gtx980", SIZES, variant="exact"), args.repeat
    )
    vectorized = best_of(batch_search, args.repeat)
    print(f"best_tiles, 1 thread:          {1e3 * one:8.1f} ms")
    print(f"best_tiles, {os.cpu_count()} cores:          {1e3 * all_cores:8.1f} ms")
    print(
        f"talg_batch + energy_batch + argmin: {1e3 * vectorized:8.1f} ms "
        f"({vectorized / all_cores:.1f}x the search)"
    )
    runs = en.load_runs(en.synthetic_table_path())
    for method in ("l1", "lsq"):
        t = best_of(lambda m=method: en.fit(runs, method=m, n_boot=0), args.repeat)
        print(f"fit {method:3s} ({len(runs)} runs, 10% train): {1e3 * t:8.1f} ms")


if __name__ == "__main__":
    main()
