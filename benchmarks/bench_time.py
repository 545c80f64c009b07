"""Benchmark: one full tile-size search of the execution-time model (thesis 000, App. A).

Reports, for a 2D problem (Heat2D, GTX 980, S1 = S2 = T = 8192) and a 3D one:

- the wall time of one exhaustive search over the default space (>= the paper's ~18,000
  points), for the ``paper`` and ``exact`` variants, single-threaded and on all cores;
- the throughput in model evaluations per second per core;
- the ratio against the alternative a user would otherwise write, as the seed's "script
  for tile size selection" (Sec. A.6.3) did: a plain-Python loop over the same space that
  calls the package's scalar API (``costmetrics.time.talg``, one point at a time); both
  must find the same minimum.

Run: ``python benchmarks/bench_time.py [--repeat N] [--quick]`` (``--quick``: one repeat
of the 2D case, as CI runs it).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import time

from costmetrics import time as cm_time


def python_loop_search(
    stencil: str, gpu: str, sizes: tuple[int, ...], variant: str
) -> tuple[float, tuple[int, ...], int]:
    """Exhaustive search in plain Python: one ``costmetrics.time.talg`` call per point."""
    space = cm_time.default_search_space(len(sizes) - 1)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="one repeat, the 2D case only")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    cores = os.cpu_count() or 1
    print(f"cores: {cores}")

    cases = [("heat2d", (8192, 8192, 8192)), ("heat3d", (512, 512, 512, 512))]
    for stencil, sizes in cases[:1] if args.quick else cases:
        for variant in ("paper",) if args.quick else ("paper", "exact"):
            result = cm_time.best_tiles(stencil, "gtx980", sizes, variant=variant)
            for threads in (1, 0):
                seconds = timed(
                    lambda s=stencil, z=sizes, v=variant, n=threads: cm_time.best_tiles(
                        s, "gtx980", z, variant=v, threads=n
                    ),
                    args.repeat,
                )
                used = 1 if threads == 1 else cores
                # Infeasible points are rejected before evaluation; count the evaluations.
                rate = result.n_feasible / seconds / used
                print(
                    f"{stencil:7} {variant:5} threads={used}: search of {result.n_points} points "
                    f"({result.n_feasible} feasible) in {1e3 * seconds:7.2f} ms, "
                    f"{rate / 1e6:6.2f} M model evaluations/s/core"
                )

    sizes_2d = (8192, 8192, 8192)
    start = time.perf_counter()
    py_best, py_tiles, n_eval = python_loop_search("heat2d", "gtx980", sizes_2d, "paper")
    py_seconds = time.perf_counter() - start
    core = cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper")
    assert n_eval == core.n_feasible, (n_eval, core.n_feasible)
    assert py_best == core.talg_s and py_tiles == core.tiles, (py_best, py_tiles, core)
    core_seconds = timed(
        lambda: cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper"), args.repeat
    )
    print(
        f"plain-Python loop over costmetrics.time.talg ({n_eval} feasible points): "
        f"{1e3 * py_seconds:.1f} ms; best_tiles: {1e3 * core_seconds:.2f} ms; "
        f"ratio {py_seconds / core_seconds:.0f}x (same argmin {core.tiles})"
    )


if __name__ == "__main__":
    main()
