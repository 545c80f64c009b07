"""``tune --confidence`` replayed on shipped sweeps: passes where the pick is unclear (issue 21).

``costmetrics tune --confidence C`` measures pairs of passes more over its k candidates
until the measured best is the fastest in at least C of the bootstrap resamples of the
passes (``measure.fastest_shares``). This script replays that rule on tables already
measured, and measures nothing. It asks two questions: how close does it come to the best
candidate, and how many passes does it spend?

For every problem (stencil, sizes, threads, schedule) of each sweep with at least 9
passes, the five fastest runs of the grid (by their median over every pass) stand for the
k = 5 candidates. This is a hard set, because they lie close together.

- **Decisions** use passes 0-5 only. Passes 6-8 are held out, and their median is the
  candidate's true time.
- **Policies:**
  - 2 passes;
  - 6 passes;
  - ``--confidence C``: 2 passes, then pairs of passes while the best's share is under C,
    at most 6; it also counts the problems where the best reached C (told apart).
- **Outputs, per policy:** the pick's true time over the best true time of the five (the
  regret), its median and worst over the problems, the share of problems within 2%, and the
  mean number of passes spent.

Run: ``python benchmarks/bench_measure_tune_confidence.py FOLDER... [--confidence C]
[--json]``. Each FOLDER is a run folder with ``sweep.csv``, or a table. ``--quick`` replays
one shipped run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from costmetrics import measure as mm

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "measurements"
QUICK = SHIPPED / "quiet_run_2026-11-29_xeon_cliprows_levels"
K = 5
DECISION_PASSES = 6
TRUTH_PASSES = (6, 9)


def _table_path(path: Path) -> Path:
    table = path / "sweep.csv" if path.is_dir() else path
    if not table.is_file():
        raise FileNotFoundError(f"run: {path} holds no sweep.csv")
    return table


def _median(times: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a candidate without passes: NaN
        return np.asarray(np.nanmedian(times, axis=1), dtype=np.float64)


def replay(path: Path, confidence: float) -> dict[str, Any]:
    """Return each policy's regrets and passes over the problems of one sweep."""
    med = mm.read_table(_table_path(path)).per_point("median")
    times = med.pass_times_s
    if times is None or times.shape[1] < TRUTH_PASSES[1]:
        return {"run": str(path), "problems": 0, "skipped": "fewer than 9 passes"}
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i in range(len(med)):
        stencil, sizes, _, threads, schedule = med.key_of(i)
        groups.setdefault((stencil, sizes, threads, schedule), []).append(i)
    regrets: dict[str, list[float]] = {"2 passes": [], "6 passes": [], "confidence": []}
    spent: list[int] = []
    decided: list[bool] = []
    for rows in groups.values():
        if len(rows) < K:
            continue
        full = _median(times[rows])
        cands = [rows[j] for j in np.argsort(full, kind="stable")[:K]]
        t = times[cands]
        truth = _median(t[:, TRUTH_PASSES[0] : TRUTH_PASSES[1]])
        if not np.isfinite(truth).all() or not np.isfinite(t[:, :2]).any(axis=1).all():
            continue

        def regret(n: int, t: np.ndarray = t, truth: np.ndarray = truth) -> float:
            pick = int(np.nanargmin(_median(t[:, :n])))
            return float(truth[pick] / truth.min() - 1.0)

        n = 2
        while True:
            shares = mm.fastest_shares(t[:, :n], "median", seed=0)
            told_apart = shares[int(np.nanargmin(_median(t[:, :n])))] >= confidence
            if told_apart or n + 2 > DECISION_PASSES:
                break
            n += 2
        decided.append(bool(told_apart))
        regrets["2 passes"].append(regret(2))
        regrets["6 passes"].append(regret(DECISION_PASSES))
        regrets["confidence"].append(regret(n))
        spent.append(n)
    out: dict[str, Any] = {
        "run": str(path),
        "problems": len(spent),
        "told_apart": sum(decided) / len(decided) if decided else None,
    }
    for policy, values in regrets.items():
        if values:
            out[policy] = {
                "median_regret": statistics.median(values),
                "worst_regret": max(values),
                "within_2pct": sum(v <= 0.02 for v in values) / len(values),
                "mean_passes": (
                    statistics.mean(spent) if policy == "confidence" else int(policy.split()[0])
                ),
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="run folders or sweep tables")
    parser.add_argument("--confidence", type=float, default=0.9, help="the share (default 0.9)")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--quick", action="store_true", help="one shipped run")
    args = parser.parse_args(argv)
    if not 0.0 < args.confidence < 1.0:
        print(f"bench_measure_tune_confidence: --confidence: must be in (0, 1), "
              f"got {args.confidence}", file=sys.stderr)  # fmt: skip
        return 2
    folders = [QUICK] if args.quick else args.folders
    if not folders:
        print("bench_measure_tune_confidence: give run folders (or --quick)", file=sys.stderr)
        return 2
    try:
        runs = [replay(f, args.confidence) for f in folders]
    except (FileNotFoundError, ValueError) as exc:
        print(f"bench_measure_tune_confidence: {exc}", file=sys.stderr)
        return 2
    pooled: dict[str, list[float]] = {}
    for r in runs:
        for policy in ("2 passes", "6 passes", "confidence"):
            if policy in r:
                pooled.setdefault(policy, []).append(r[policy]["worst_regret"])
    summary = {
        policy: {
            "runs": len(v),
            "median_of_worst_regret": statistics.median(v),
            "runs_worst_within_2pct": sum(x <= 0.02 for x in v),
        }
        for policy, v in pooled.items()
    }
    if args.json:
        print(json.dumps({"confidence": args.confidence, "runs": runs, "summary": summary},
                         indent=1, allow_nan=False))  # fmt: skip
        return 0
    print("| run | problems | policy | median regret | worst | within 2% | mean passes |")
    print("|---|---|---|---|---|---|---|")
    for r in runs:
        for policy in ("2 passes", "6 passes", "confidence"):
            if policy in r:
                s = r[policy]
                print(
                    f"| {Path(r['run']).name} | {r['problems']} | {policy} | "
                    f"{100 * s['median_regret']:.2f}% | {100 * s['worst_regret']:.2f}% | "
                    f"{100 * s['within_2pct']:.0f}% | {s['mean_passes']:.2f} |"
                )
    apart = [r["told_apart"] for r in runs if r.get("told_apart") is not None]
    if apart:
        print(f"told apart at {args.confidence:g}: median share of problems over the runs "
              f"{100 * statistics.median(apart):.0f}%")  # fmt: skip
    for policy, s in summary.items():
        print(
            f"{policy}: worst regret per run, median over {s['runs']} runs "
            f"{100 * s['median_of_worst_regret']:.2f}%; runs whose worst is within 2%: "
            f"{s['runs_worst_within_2pct']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
