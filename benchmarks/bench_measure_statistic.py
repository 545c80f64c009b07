"""Benchmark: which per-point statistic over the interleaved passes repeats best.

Reads measured tables (``costmetrics measure``, every pass kept) and prints, per thread
count and stencil, the noise floor (``costmetrics.validate.noise_floor``: the RMS relative
difference between the statistic of the even passes and that of the odd passes) for the
median and for the minimum over passes, the same split by the point's run time, and the
time course of the slowdown: the rows in 10-second bins of their wall-clock time, with the
median and 90th percentile of (run time / the point's median over passes). A bin whose
median departs from 1 is a period in which the whole machine ran slower, which no
per-point statistic of a single pass can see; interleaved passes spread such a period over
many points, and the minimum ignores it where any pass of the point missed it.

Nothing is measured: run it on the tables of a quiet-machine run, e.g.
``python benchmarks/bench_measure_statistic.py data/measurements/quiet_run_2026-11-25_h4/sweep.csv``
(``--json`` for a machine-readable record). The figures in ``docs/validate.md``
("Per-point statistic") come from this script.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

#: The table of the shipped harness-4 quiet run (notebook 02's).
SHIPPED = data_dir() / "measurements" / "quiet_run_2026-11-25_h4" / "sweep.csv"
#: Run-time bins of the split by duration (seconds).
DURATION_EDGES_S = (0.0, 1e-3, 3e-3, 1e-2, 3e-2, np.inf)


def floors(path: Path) -> dict[str, Any]:
    """Noise floors per statistic, thread count, stencil and run time; slow periods."""
    raw = mm.read_table(path)
    med = raw.medians()
    passes = med.pass_times_s
    if passes is None or passes.shape[1] < 2:
        raise ValueError(f"table: {path} has fewer than 2 passes")
    stencils = np.asarray(med.stencil)
    out: dict[str, Any] = {"table": str(path), "passes": int(passes.shape[1]), "threads": {}}
    for n in sorted({int(v) for v in med.threads}):
        rows = med.threads == n
        entry: dict[str, Any] = {}
        for stat in mm.STATISTICS:
            by_stencil = {
                s: cv.noise_floor(passes[rows & (stencils == s)], stat)
                for s in sorted(set(med.stencil))
            }
            by_time = {}
            for lo, hi in itertools.pairwise(DURATION_EDGES_S):
                m = rows & (med.time_s >= lo) & (med.time_s < hi)
                if m.any():
                    by_time[f"{lo:g}-{hi:g} s ({int(m.sum())} points)"] = cv.noise_floor(
                        passes[m], stat
                    )
            entry[stat] = {
                "all": cv.noise_floor(passes[rows], stat),
                "stencils": by_stencil,
                "run_time": by_time,
            }
        out["threads"][str(n)] = entry
    # Slow periods: each run against its point's median, binned by wall-clock time.
    clock = raw.columns.get("unix_time_s")
    if clock is not None and np.isfinite(clock).all():
        index = {med.key_of(i): i for i in range(len(med))}
        ratio = np.asarray(
            [raw.time_s[i] / med.time_s[index[raw.key_of(i)]] for i in range(len(raw))]
        )
        start = float(clock.min())
        bins = ((clock - start) // 10).astype(int)
        periods: dict[str, list[dict[str, float]]] = {}
        for n in sorted({int(v) for v in raw.threads}):
            series = []
            for b in np.unique(bins[raw.threads == n]):
                m = (raw.threads == n) & (bins == b)
                series.append(
                    {
                        "start_s": float(10 * b),
                        "median_ratio": float(np.median(ratio[m])),
                        "p90_ratio": float(np.quantile(ratio[m], 0.9)),
                    }
                )
            periods[str(n)] = series
        out["periods"] = periods
    return out


def _print(rec: dict[str, Any]) -> None:
    print(f"{rec['table']}: {rec['passes']} passes")
    for n, entry in rec["threads"].items():
        for stat, e in entry.items():
            per = ", ".join(f"{s} {100 * v:.1f}" for s, v in e["stencils"].items())
            print(f"  {n} thread(s), {stat:6s}: noise floor {100 * e['all']:.1f}% ({per})")
            times = ", ".join(f"{k}: {100 * v:.1f}" for k, v in e["run_time"].items())
            print(f"      by run time: {times}")
    for n, series in rec.get("periods", {}).items():
        text = " ".join(
            f"{int(p['start_s'])}s:{p['median_ratio']:.2f}/{p['p90_ratio']:.2f}" for p in series
        )
        print(f"  slowdown by 10 s of wall clock, {n} thread(s) (median/p90 of run/median):")
        print(f"      {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "tables", type=Path, nargs="*", help="measured tables (default: the shipped harness-4 run)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.add_argument("--quick", action="store_true", help="the shipped table (seconds)")
    args = parser.parse_args(argv)
    tables = args.tables or [SHIPPED]
    try:
        records = [floors(p) for p in tables]
    except (OSError, ValueError) as exc:
        print(f"bench_measure_statistic: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(records, indent=1))
    else:
        for rec in records:
            _print(rec)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
