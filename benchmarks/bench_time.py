"""Benchmark: one full tile-size search of the execution-time model (thesis 000, App. A).

Reports, for a 2D problem (Heat2D, GTX 980, S1 = S2 = T = 8192) and a 3D one:

- the wall time of one exhaustive search over the default space (>= the paper's ~18,000
  points), for the ``paper`` and ``exact`` variants, single-threaded and on all cores;
- the throughput in model evaluations per second per core;
- the ratio against the alternative a user would otherwise write: a plain-Python loop over
  the same space evaluating the published formulas (Eqs. A.3-A.18), as the seed's
  "script for tile size selection" (Sec. A.6.3) did. The baseline lives only here, as a
  reference to time against; its results are checked against the core's.

Run: ``python benchmarks/bench_time.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numpy as np

import costmetrics as cm
from costmetrics import time as cm_time


def python_baseline_search(sizes: tuple[int, int, int]) -> tuple[float, tuple[int, ...], int]:
    """Exhaustive search with the paper's 2D formulas in plain Python (Heat2D, GTX 980)."""
    g, s = cm.gpu("gtx980"), cm.stencil("heat2d")
    c_iter, n_sm, n_v = s.c_iter_on(g), g.n_sm, g.n_v
    smem_sm, smem_block, mtb = g.smem_per_sm_words, g.smem_per_block_words, g.max_blocks_per_sm
    L, tau, t_sync = g.l_s_per_word, g.tau_sync_s, g.t_sync_s
    S1, S2, T = sizes
    space = cm_time.default_search_space(2)
    best, best_tiles, n_eval = math.inf, (0, 0, 0), 0
    for tT in space.time:
        for tS1 in space.space[0]:
            for tS2 in space.space[1]:
                m_tile = 2 * (tS1 + tT + 1) * (tS2 + tT + 1)
                if m_tile > smem_block or tT % 2 or tS2 % 32:
                    continue
                n_eval += 1
                k = min(smem_sm // m_tile, mtb)
                r = T % tT
                nw = 2 * math.ceil(T / tT) + (0 if 0 < r <= tT / 2 else 1)
                w = math.ceil(S1 / (2 * tS1 + tT))
                m_prime = 2 * tS2 * (tS1 + 2 * tT) * L + 2 * tau
                steps = sum(math.ceil(x * tS2 / n_v) for x in range(tS1, tS1 + tT - 1, 2))
                c = 2 * c_iter * steps + tT * tau
                n_sub = math.ceil((S2 + tT) / tS2)
                if k == 1:
                    t_prism = (m_prime + c) * n_sub
                else:
                    t_prism = m_prime + k * max(m_prime, c) * n_sub
                talg = nw * t_sync + nw * t_prism * math.ceil(math.ceil(w / k) / n_sm)
                if talg < best:
                    best, best_tiles = talg, (tS1, tS2, tT)
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
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"cores: {cores}")

    cases = [("heat2d", (8192, 8192, 8192)), ("heat3d", (512, 512, 512, 512))]
    for stencil, sizes in cases:
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
                # Infeasible points are rejected before evaluation; count the evaluations.
                rate = result.n_feasible / seconds / used
                print(
                    f"{stencil:7} {variant:5} threads={used}: search of {result.n_points} points "
                    f"({result.n_feasible} feasible) in {1e3 * seconds:7.2f} ms, "
                    f"{rate / 1e6:6.2f} M model evaluations/s/core"
                )

    sizes_2d = (8192, 8192, 8192)
    start = time.perf_counter()
    py_best, py_tiles, n_eval = python_baseline_search(sizes_2d)
    py_seconds = time.perf_counter() - start
    core = cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper")
    assert py_tiles == core.tiles and np.isclose(py_best, core.talg_s, rtol=1e-12), (
        py_tiles,
        core.tiles,
    )
    core_seconds = timed(
        lambda: cm_time.best_tiles("heat2d", "gtx980", sizes_2d, variant="paper"), args.repeat
    )
    print(
        f"plain-Python search (paper formulas, feasible points only: {n_eval}): "
        f"{1e3 * py_seconds:.1f} ms; costmetrics: {1e3 * core_seconds:.2f} ms; "
        f"ratio {py_seconds / core_seconds:.0f}x (same argmin {core.tiles})"
    )


if __name__ == "__main__":
    main()
