"""Benchmark OP-opcount (Algorithm 10) against NumPy's multi_dot ordering routine.

Times ``costmetrics.chain.optimal_order`` and NumPy's private
``_multi_dot_matrix_chain_order`` (``numpy.linalg._linalg`` in NumPy >= 2,
``numpy.linalg.linalg`` before) on the same random chains, checks that both find the same
minimum op count, and prints the speed ratio. NumPy's routine is pure Python, so it is only
run up to ``--max-numpy-n``; longer chains are timed for costmetrics alone.

Usage: ``python benchmarks/bench_chain.py [--lengths 10,50,100,200,1000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from costmetrics import _core
from costmetrics import chain as cm_chain


def numpy_order_routine() -> Callable[..., Any]:
    for name in ("numpy.linalg._linalg", "numpy.linalg.linalg"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        fn = getattr(module, "_multi_dot_matrix_chain_order", None)
        if fn is not None:
            return fn  # type: ignore[no-any-return]
    raise RuntimeError("this NumPy has no _multi_dot_matrix_chain_order")


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="10,25,50,100,200,500,1000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-numpy-n", type=int, default=200)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="two lengths, one repeat (CI)")
    args = parser.parse_args()
    if args.quick:
        args.lengths, args.repeat, args.max_numpy_n = "10,100", 1, 100
    numpy_order = numpy_order_routine()
    rng = np.random.default_rng(args.seed)

    print(f"numpy {np.__version__}; best of {args.repeat}; times in ms")
    header = f"{'n':>6} {'numpy':>10} {'costmetrics':>12} {'_core':>10} {'ratio':>8}"
    print(header)
    for n in (int(v) for v in args.lengths.split(",")):
        dims = [int(v) for v in rng.integers(1, 1000, size=n + 1)]
        ours = best_time(
            lambda d=dims: cm_chain.optimal_order(d, threads=args.threads), args.repeat
        )
        raw = best_time(lambda d=dims: _core.chain.optimal_order(d, args.threads), args.repeat)
        if n <= args.max_numpy_n:
            # NumPy reads only .shape: zero-memory arrays of the right shapes suffice.
            arrays = [np.broadcast_to(np.empty(()), (dims[t], dims[t + 1])) for t in range(n)]
            reps = max(1, min(args.repeat, 3 if n > 100 else args.repeat))
            theirs = best_time(lambda a=arrays: numpy_order(a, return_costs=True), reps)
            _, costs = numpy_order(arrays, return_costs=True)
            same = int(costs[0, n - 1]) == cm_chain.optimal_order(dims).cost
            ratio = f"{theirs / ours:7.0f}x" + ("" if same else " COST MISMATCH")
            numpy_ms = f"{1e3 * theirs:10.2f}"
        else:
            numpy_ms, ratio = f"{'-':>10}", f"{'-':>8}"
        print(f"{n:6d} {numpy_ms} {1e3 * ours:12.3f} {1e3 * raw:10.3f} {ratio}")


if __name__ == "__main__":
    main()
