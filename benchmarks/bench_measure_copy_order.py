"""Which copy curve does a streaming stencil follow: segments drawn at random, or in order?

The fitted ``machine`` variant reads the share of a problem's words that streams from DRAM
off a copy curve: the copy cost per word at working sets from the L3 to past it, turned
into shares from 0 (the smallest L3 point) to 1 (the dearest point) by
``costmetrics.measure.dram_share_curve``. The calibration measures the copy in two orders
(``bench_copy``'s ``sequential``): 64-word segments drawn at random from the array, and
the same segments swept in order, as a stencil's wavefronts stream their arrays.

This script measures, at each thread count and array size, both copies and a stencil
whose time per point is all streaming: Jacobi 1D with tiles ``(1024, 8)`` and ``T = 4``
(two wavefronts, each one sweep of both arrays), its two arrays together the copy's
working set. Each becomes a share curve by the same rule, and the script prints the three
side by side and the RMS distance of each copy's shares from the stencil's
(``docs/validate-log.md``, "The DRAM share of a copy that streams").

Protocol: ``--passes`` passes over all points in a shuffled order, one timed run per point
and pass (the stencil after one warm-up run, the copy after its own warm-up sweep), the
median per point, and the largest spread between a pass and the median. Nothing is
written but standard output (``--json``: one JSON object).

Run: ``python benchmarks/bench_measure_copy_order.py`` (about 30 s on 2 cores, quiet
machine); ``--quick`` is a smoke run of small arrays whose numbers mean nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from costmetrics import _core
from costmetrics import measure as mm

#: Array sizes (MiB, both time levels together): from the L2 of two cores to past a 32 MiB L3.
SIZES_MIB = (2, 4, 8, 16, 32, 64, 128)
QUICK_SIZES_MIB = (0.25, 1)
#: The stencil point: wide tiles, two wavefronts (T <= tT), so each wavefront is a sweep.
TILE = (1024, 8)
STEPS = 4
SEGMENT_WORDS = 64
BYTES_PER_WORD = 4  # float32
KINDS = ("random", "sequential", "stencil")


def _words(mib: float) -> int:
    return round(mib * 2**20 / BYTES_PER_WORD)


def _stencil_s(mib: float) -> int:
    """Jacobi 1D size S whose two arrays (S + 2 floats each) take ``mib`` MiB."""
    return _words(mib) // 2 - 2


def _one(kind: str, mib: float, threads: int) -> float:
    """One timed run: seconds per word copied, or per point update of the stencil."""
    if kind == "stencil":
        s = _stencil_s(mib)
        r = mm.run("jacobi1d", (s, STEPS), TILE, threads=threads, repeats=1, warmup=1,
                   check=False)  # fmt: skip
        return float(r.time_min_s) / (s * STEPS)
    res = _core.measure.bench_copy(threads, _words(mib), SEGMENT_WORDS, 1, True,
                                   kind == "sequential")  # fmt: skip
    return float(res.value_s)


def _shares(costs: list[float]) -> list[float] | None:
    curve = mm._share_curve([float(k) for k in range(len(costs))], costs)
    return list(curve.dram_share) if curve is not None else None


def measure(sizes: tuple[float, ...], threads: tuple[int, ...], passes: int,
            seed: int) -> dict[str, Any]:  # fmt: skip
    """Measure every (kind, size, threads) point in ``passes`` shuffled passes."""
    points = [(k, b, n) for n in threads for b in sizes for k in KINDS]
    times: dict[tuple[str, float, int], list[float]] = {p: [] for p in points}
    rng = np.random.default_rng(seed)
    for _ in range(passes):
        for i in rng.permutation(len(points)):
            p = points[int(i)]
            times[p].append(_one(*p))
    out: dict[str, Any] = {"sizes_mib": list(sizes), "passes": passes, "tile": list(TILE),
                           "steps": STEPS, "threads": {}}  # fmt: skip
    for n in threads:
        per: dict[str, Any] = {}
        for k in KINDS:
            med = [float(np.median(times[(k, b, n)])) for b in sizes]
            spread = max(float(np.max(np.abs(np.asarray(times[(k, b, n)]) / m - 1.0)))
                         for b, m in zip(sizes, med, strict=True))  # fmt: skip
            per[k] = {"median_s": med, "shares": _shares(med), "largest_pass_spread": spread}
        ref = per["stencil"]["shares"]
        for k in ("random", "sequential"):
            got = per[k]["shares"]
            per[k]["rms_from_stencil"] = (
                float(np.sqrt(np.mean((np.asarray(got) - np.asarray(ref)) ** 2)))
                if got is not None and ref is not None else None
            )  # fmt: skip
        out["threads"][str(n)] = per
    return out


def report(res: dict[str, Any]) -> str:
    """The three share curves per thread count, and each copy's distance from the stencil."""
    lines = [
        f"median of {res['passes']} shuffled passes; stencil: jacobi1d, tiles "
        f"{tuple(res['tile'])}, T = {res['steps']}; copies: {SEGMENT_WORDS}-word segments",
    ]
    for n, per in res["threads"].items():
        lines.append(f"{n} thread(s): MiB | cost (ns per word or point) random / sequential / "
                     "stencil | DRAM share random / sequential / stencil")  # fmt: skip
        for j, b in enumerate(res["sizes_mib"]):
            cost = " / ".join(f"{1e9 * per[k]['median_s'][j]:.4f}" for k in KINDS)
            share = " / ".join(
                f"{per[k]['shares'][j]:.2f}" if per[k]["shares"] is not None else "-"
                for k in KINDS
            )  # fmt: skip
            lines.append(f"  {b:g} | {cost} | {share}")
        for k in ("random", "sequential"):
            d = per[k]["rms_from_stencil"]
            gap = f"{d:.3f}" if d is not None else "- (a curve that does not rise)"
            lines.append(f"  {k} shares, RMS from the stencil's: {gap}")
        spreads = ", ".join(f"{k} {100 * per[k]['largest_pass_spread']:.0f}%" for k in KINDS)
        lines.append(f"  largest pass spread from the median: {spreads}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sizes-mib", type=float, nargs="+", default=list(SIZES_MIB),
                        help="array sizes, MiB (both arrays of the stencil together)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="smoke run, small arrays")
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error(f"--passes must be >= 1, got {args.passes}")
    usable = mm.default_threads()
    for n in args.threads:
        if not 1 <= n <= usable:
            parser.error(f"--threads must be in [1, {usable}] (the CPUs allowed), got {n}")
    sizes = tuple(QUICK_SIZES_MIB) if args.quick else tuple(args.sizes_mib)
    for b in sizes:
        # At least 4 segments per thread (bench_copy's rule), at most the harness limit.
        if not (4 * SEGMENT_WORDS * max(args.threads) <= _words(b) <= 2**25):
            parser.error(f"--sizes-mib: {b:g} MiB is outside what the copy can measure")
    try:
        res = measure(sizes, (1,) if args.quick else tuple(args.threads),
                      1 if args.quick else args.passes, args.seed)  # fmt: skip
    except (OSError, ValueError) as exc:
        print(f"bench_measure_copy_order: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(res, indent=1) if args.json else report(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
