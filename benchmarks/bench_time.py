"""Benchmark: one full tile-size search of the execution-time model (thesis 000, App. A).

Reports, for a 2D problem (Heat2D, GTX 980, S1 = S2 = T = 8192) and a 3D one:

- the wall time of one exhaustive search over the default space (>= the paper's ~18,000
  points), for the ``paper`` and ``exact`` variants, single-threaded and on all cores, and
  the exact/paper ratio (issue 15 targets, 2D, one thread: paper < 1 ms, exact < 5 ms);
- the throughput in model evaluations per second per core;
- ``talg_batch`` (``terms=False``) over random feasible 2D tiles of the default space, ns
  per evaluation for ``paper``, ``exact`` and ``machine`` (the GTX 980 preset has no machine
  terms: the same numbers as ``exact``), one thread and all cores, with the ratios
  exact/paper and machine/exact (issue 15 targets: exact <= 50 ns, machine <= 2x exact);
  ``benchmarks/bench_time_machine.py`` times ``machine`` with every term set;
- the ratio against the alternative a user would otherwise write, as the seed's "script
  for tile size selection" (Sec. A.6.3) did: a plain-Python loop over the same space that
  calls the package's scalar API (``costmetrics.time.talg``, one point at a time); both
  must find the same minimum.

The codesign sweep (the third issue-15 target) is ``benchmarks/bench_codesign.py --exact``;
the core alone, without Python: ``benchmarks/bench_time_batch.cpp``.

Run: ``python benchmarks/bench_time.py [--repeat N] [--tiles N] [--quick]`` (``--quick``:
one repeat of the 2D case and 10^4 batch tiles, as CI runs it; its timings mean little).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import time

import numpy as np

from costmetrics import time as cm_time


def python_loop_search(
    stencil: str, gpu: str, sizes: tuple[int, ...], variant: str, space: cm_time.SearchSpace
) -> tuple[float, tuple[int, ...], int]:
    """Exhaustive search in plain Python: one ``costmetrics.time.talg`` call per point."""
    best, best_tiles, n_eval = math.inf, (), 0
    for t_t in space.time:
        for spatial in itertools.product(*space.space):
            tiles = (*spatial, t_t)
            try:
                talg_s = cm_time.talg(stencil, gpu, sizes, tiles, variant=variant)  # type: ignore[arg-type]
            except ValueError:  # infeasible tiles (Eq. A.32)
                continue
            n_eval += 1
            if talg_s < best:
                best, best_tiles = talg_s, tiles
    return best, best_tiles, n_eval


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Median wall time of ``repeat`` calls, seconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def batch_report(n_tiles: int, repeat: int) -> None:
    """ns per ``talg_batch`` evaluation, paper / exact / machine, with their ratios."""
    sizes = (8192, 8192, 8192)
    grid = cm_time.default_search_space(2).grid()
    feasible = grid[cm_time.talg_batch("heat2d", "gtx980", sizes, grid, variant="paper").feasible]
    tiles = feasible[np.random.default_rng(0).integers(0, len(feasible), n_tiles)]
    cores = os.cpu_count() or 1
    for threads in (1, 0):
        ns: dict[str, float] = {}
        for variant in ("paper", "exact", "machine"):
            seconds = timed(
                lambda v=variant, n=threads: cm_time.talg_batch(
                    "heat2d", "gtx980", sizes, tiles, variant=v, threads=n, terms=False
                ),
                repeat,
            )
            ns[variant] = 1e9 * seconds / n_tiles
        used = 1 if threads == 1 else cores
        print(
            f"talg_batch heat2d gtx980 8192^3, {n_tiles:,} random feasible tiles, "
            f"threads={used}: paper {ns['paper']:.1f} ns, exact {ns['exact']:.1f} ns, "
            f"machine {ns['machine']:.1f} ns per evaluation; exact/paper "
            f"{ns['exact'] / ns['paper']:.1f}x, machine/exact {ns['machine'] / ns['exact']:.2f}x "
            f"(targets: exact <= 50 ns, machine <= 2x exact)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tiles", type=int, default=1_000_000, help="tiles per batch")
    parser.add_argument("--quick", action="store_true", help="one repeat, the 2D case only")
    args = parser.parse_args()
    if args.repeat < 1 or args.tiles < 1:
        parser.error("--repeat and --tiles must be >= 1")
    if args.quick:
        args.repeat = 1
        args.tiles = min(args.tiles, 10_000)
    cores = os.cpu_count() or 1
    print(f"cores: {cores}, load average {os.getloadavg()[0]:.2f}")

    cases = [("heat2d", (8192, 8192, 8192)), ("heat3d", (512, 512, 512, 512))]
    for stencil, sizes in cases[:1] if args.quick else cases:
        one_thread: dict[str, float] = {}
        for variant in ("paper", "exact"):
            result = cm_time.best_tiles(stencil, "gtx980", sizes, variant=variant)
            for threads in (1, 0):
                seconds = timed(
                    lambda s=stencil, z=sizes, v=variant, n=threads: cm_time.best_tiles(
                        s, "gtx980", z, variant=v, threads=n
                    ),
                    args.repeat,
                )
                used = 1 if threads == 1 else cores
                if threads == 1:
                    one_thread[variant] = seconds
                # Infeasible points are rejected before evaluation; count the evaluations.
                rate = result.n_feasible / seconds / used
                print(
                    f"{stencil:7} {variant:5} threads={used}: search of {result.n_points} points "
                    f"({result.n_feasible} feasible) in {1e3 * seconds:7.3f} ms, "
                    f"{rate / 1e6:6.2f} M model evaluations/s/core"
                )
        print(
            f"{stencil:7} search, one thread: exact/paper "
            f"{one_thread['exact'] / one_thread['paper']:.2f}x"
            + (" (targets, 2D: paper < 1 ms, exact < 5 ms)" if stencil == "heat2d" else "")
        )

    batch_report(args.tiles, 1 if args.quick else min(args.repeat, 5))

    sizes_2d = (8192, 8192, 8192)
    space = cm_time.default_search_space(2)
    if args.quick:  # every 8th tT: the loop over the whole space is most of a quick run
        space = cm_time.SearchSpace(space=space.space, time=space.time[::8])
    start = time.perf_counter()
    py_best, py_tiles, n_eval = python_loop_search("heat2d", "gtx980", sizes_2d, "paper", space)
    py_seconds = time.perf_counter() - start
    core = cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper", space=space)
    assert n_eval == core.n_feasible, (n_eval, core.n_feasible)
    assert py_best == core.talg_s and py_tiles == core.tiles, (py_best, py_tiles, core)
    core_seconds = timed(
        lambda: cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper", space=space),
        args.repeat,
    )
    print(
        f"plain-Python loop over costmetrics.time.talg ({n_eval} feasible points): "
        f"{1e3 * py_seconds:.1f} ms; best_tiles: {1e3 * core_seconds:.2f} ms; "
        f"ratio {py_seconds / core_seconds:.0f}x (same argmin {core.tiles})"
    )


if __name__ == "__main__":
    main()
