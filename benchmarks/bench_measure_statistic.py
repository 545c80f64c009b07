"""Benchmark: which per-point statistic over the interleaved passes repeats best.

Reads measured tables (``costmetrics measure``, every pass kept) and prints, per thread
count and stencil, the noise floor (``costmetrics.validate.noise_floor``: the RMS relative
difference between the statistic of the even passes and that of the odd passes) for the
median and for the minimum over passes, the same split by the point's run time, and the
time course of the slowdown: the rows in 10-second bins of their wall-clock time, with the
median and 90th percentile of (run time / the point's median over passes). A bin whose
median departs from 1 is a period in which the whole machine ran slower, which no
per-point statistic of a single pass can see; interleaved passes spread such a period over
many points, and the minimum ignores it where any pass of the point missed it. Then where
the spread comes from, per thread count (:func:`spread`): the share of runs in the slow
mode, whether a run's slowdown carries over to the next run measured (slow stretches of
the host) or not (runs slowed one by one), the share of the variance between 10-second
bins and between passes, the noise floor by barriers per second, and at 1 thread the time
the thread was not running.

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
#: A run this many times its point's median is in the slow mode.
SLOW_RATIO = 1.3
#: Wall-clock bins of the slow periods and of the variance split (seconds).
BIN_S = 10.0
#: Quantile bins of the split by barriers per second of run time.
RATE_BINS = 4


def _corr(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; NaN for fewer than three pairs or a constant series."""
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _between_share(values: np.ndarray, groups: np.ndarray) -> float:
    """Share of the variance of ``values`` between the ``groups`` (1 - within / total)."""
    total = float(np.sum((values - values.mean()) ** 2))
    within = 0.0
    for g in np.unique(groups):
        x = values[groups == g]
        within += float(np.sum((x - x.mean()) ** 2))
    return 1.0 - within / total if total > 0 else float("nan")


def _point_of_rows(raw: mm.Table, med: mm.Table) -> np.ndarray:
    """Index in ``med`` (``raw.medians()``) of each row's point."""
    index = {med.key_of(i): i for i in range(len(med))}
    return np.asarray([index[raw.key_of(i)] for i in range(len(raw))], dtype=np.intp)


def spread(raw: mm.Table, med: mm.Table, point: np.ndarray | None = None) -> dict[str, Any]:
    """Where a table's spread over passes comes from, per thread count.

    Each run's residual is ``log(run time / its point's median)``. Per thread count:

    - ``slow_share``: the runs above :data:`SLOW_RATIO` times their point's median;
    - ``lag1_r``: the correlation of each run's residual with the next run's of the same
      thread count in wall-clock order (another point, measured a fraction of a second
      later): near 0 when runs are slowed one by one, near 1 in slow stretches of the host;
    - ``prev_other_r``: the same with the run of another thread count measured just
      before (a slow stretch of the host reaches both thread counts);
    - ``bin_share``: the share of the residuals' variance between :data:`BIN_S` bins of
      wall clock (how much a clock-time average removes), beside ``bin_share_null``, what
      the bins take on average from residuals independent of time;
    - ``pass_share``: the share between passes (a pass as a whole slower);
    - ``by_rate``: the noise floor of the median in quantile bins of barriers per second
      (wavefronts / the point's median time; a 2-thread run waits at every one for the
      slower CPU, a 1-thread run has no partner to wait for);
    - ``lost_share``: at 1 thread, the median and 90th percentile of
      ``1 - CPU time / wall time`` (time the thread was not running), and its correlation
      with the residual; not at 2 threads, where the table keeps the larger thread CPU
      time, which includes the wait at the barriers.

    ``point`` is :func:`_point_of_rows` where the caller has it already.
    """
    clock = raw.columns.get("unix_time_s")
    waves_raw = raw.columns.get("n_wavefronts")
    if clock is None or waves_raw is None or not np.isfinite(clock).all():
        return {}
    if point is None:
        point = _point_of_rows(raw, med)
    ok = (raw.time_s > 0) & (med.time_s[point] > 0)
    resid = np.full(len(raw), np.nan)
    resid[ok] = np.log(raw.time_s[ok] / med.time_s[point[ok]])
    passes = med.pass_times_s
    assert passes is not None
    waves = np.zeros(len(med))
    waves[point] = waves_raw
    rate = waves / np.where(med.time_s > 0, med.time_s, np.nan)
    out: dict[str, Any] = {}
    for n in sorted({int(v) for v in raw.threads}):
        rows = np.flatnonzero((raw.threads == n) & np.isfinite(resid))
        rows = rows[np.argsort(clock[rows], kind="stable")]
        r = resid[rows]
        bins = ((clock[rows] - clock.min()) // BIN_S).astype(int)
        entry: dict[str, Any] = {
            "runs": len(rows),
            "slow_share": float(np.mean(r > np.log(SLOW_RATIO))),
            "lag1_r": _corr(r[:-1], r[1:]),
            "bin_share": _between_share(r, bins),
            # What the bins take from residuals independent of time: (bins - 1) / (runs - 1).
            "bin_share_null": (len(np.unique(bins)) - 1) / max(len(rows) - 1, 1),
            "pass_share": _between_share(r, raw.pass_index[rows]),
        }
        pts = np.flatnonzero((med.threads == n) & np.isfinite(rate))
        # Quantile edges, each point in one bin (the last one closed); equal edges merged.
        edges = np.unique(np.quantile(rate[pts], np.linspace(0, 1, RATE_BINS + 1)))
        edges = edges if len(edges) > 1 else np.repeat(edges, 2)
        by_rate = []
        for b, (lo, hi) in enumerate(itertools.pairwise(edges)):
            last = b == len(edges) - 2
            m = pts[(rate[pts] >= lo) & ((rate[pts] <= hi) if last else (rate[pts] < hi))]
            in_bin = np.isin(point[rows], m)
            by_rate.append(
                {
                    "barriers_per_s": [float(lo), float(hi)],
                    "points": len(m),
                    "noise_floor": cv.noise_floor(passes[m], "median"),
                    "slow_share": float(np.mean(r[in_bin] > np.log(SLOW_RATIO))),
                }
            )
        entry["by_rate"] = by_rate
        if n == 1:
            cpu = raw.cpu_time_s[rows]
            good = np.isfinite(cpu) & (cpu > 0)
            lost = 1.0 - cpu[good] / raw.time_s[rows][good]
            if good.any():
                entry["lost_share"] = [float(np.median(lost)), float(np.quantile(lost, 0.9))]
                entry["lost_vs_resid_r"] = _corr(lost, r[good])
        # The run of another thread count measured just before: a slowdown of the host
        # reaches both; one of a thread count's own (a wait at the barriers) does not.
        others = np.flatnonzero((raw.threads != n) & np.isfinite(resid))
        others = others[np.argsort(clock[others], kind="stable")]
        if len(others):
            before = np.searchsorted(clock[others], clock[rows], side="right") - 1
            has = before >= 0
            entry["prev_other_r"] = _corr(r[has], resid[others[before[has]]])
        out[str(n)] = entry
    return out


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
    point = _point_of_rows(raw, med)
    if clock is not None and np.isfinite(clock).all():
        ratio = raw.time_s / med.time_s[point]
        start = float(clock.min())
        bins = ((clock - start) // BIN_S).astype(int)
        periods: dict[str, list[dict[str, float]]] = {}
        for n in sorted({int(v) for v in raw.threads}):
            series = []
            for b in np.unique(bins[raw.threads == n]):
                m = (raw.threads == n) & (bins == b)
                series.append(
                    {
                        "start_s": float(BIN_S * b),
                        "median_ratio": float(np.median(ratio[m])),
                        "p90_ratio": float(np.quantile(ratio[m], 0.9)),
                    }
                )
            periods[str(n)] = series
        out["periods"] = periods
    out["spread"] = spread(raw, med, point)
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
    for n, e in rec.get("spread", {}).items():
        print(
            f"  spread, {n} thread(s): {e['runs']} runs, {100 * e['slow_share']:.1f}% over"
            f" {SLOW_RATIO}x their median; r with the next run's residual {e['lag1_r']:.2f},"
            f" with the previous run of another thread count's {e.get('prev_other_r', np.nan):.2f};"
            f" variance between {BIN_S:g} s bins {100 * e['bin_share']:.1f}%"
            f" ({100 * e['bin_share_null']:.1f}% if independent of time), between"
            f" passes {100 * e['pass_share']:.1f}%"
        )
        rates = ", ".join(
            f"{b['barriers_per_s'][0]:.0f}-{b['barriers_per_s'][1]:.0f}/s:"
            f" {100 * b['noise_floor']:.1f}% ({100 * b['slow_share']:.0f}% slow)"
            for b in e["by_rate"]
        )
        print(f"      noise floor by barriers per second: {rates}")
        if "lost_share" in e:
            lo, hi = e["lost_share"]
            print(
                f"      not running (1 - CPU / wall): median {100 * lo:.2f}%, p90"
                f" {100 * hi:.2f}%; r with the residual {e['lost_vs_resid_r']:.2f}"
            )


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
