"""Benchmark the exact tile-size search against what a user would otherwise write.

Times ``costmetrics.scratchpad.integer_optimum`` (C++ enumeration with memory pruning)
against a plain Python loop over every tile vector calling ``evaluate_tiles`` (the model is
still evaluated in C++, so the ratio measures the search, not the formula), and against
SciPy's SLSQP relaxation plus rounding (the paper's method, which is not exact). Checks that
both exact searches agree.

Usage: ``python benchmarks/bench_scratchpad.py [--n 24] [--memory 1024]``
"""

from __future__ import annotations

import argparse
import itertools
import time

from costmetrics import scratchpad as sp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=24, help="index range of the i and j loops")
    parser.add_argument("--memory", type=float, default=1024, help="M_up in words")
    parser.add_argument("--quick", action="store_true", help="--n 8 (CI)")
    args = parser.parse_args()
    if args.quick:
        args.n = 8
    p = sp.me_problem(n_i=args.n, n_j=args.n, memory_limit_words=args.memory)

    t0 = time.perf_counter()
    r = sp.integer_optimum(p)
    t_cpp = time.perf_counter() - t0

    t0 = time.perf_counter()
    best = None
    for t in itertools.product(*(range(1, n + 1) for n in p.extents)):
        e = sp.evaluate_tiles(p, t)
        if e.feasible and (best is None or e.cost < best[0]):
            best = (e.cost, t)
    t_py = time.perf_counter() - t0
    assert best is not None and tuple(r.tiles) == best[1], (r.tiles, best)

    t0 = time.perf_counter()
    relaxed = sp.relaxed_optimum(p)
    t_slsqp = time.perf_counter() - t0

    n_all = 1
    for n in p.extents:
        n_all *= n
    print(f"ME reading, extents {p.extents}, M_up = {args.memory:g} words")
    print(f"integer_optimum : {t_cpp * 1e3:9.2f} ms, {r.points_visited:,} of {n_all:,} vectors")
    print(f"Python loop     : {t_py * 1e3:9.2f} ms  (ratio {t_py / t_cpp:.0f}x)")
    print(f"SLSQP + rounding: {t_slsqp * 1e3:9.2f} ms  -> {relaxed.rounded} (not exact)")
    print(f"optimum {tuple(r.tiles)}, cost {r.cost:.6g}")


if __name__ == "__main__":
    main()
