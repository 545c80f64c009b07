"""The selection targets against a second run: how far another run's best lands (issue 21).

The selection targets (the predicted optimum within 3% of the grid's best on average and
10% on every problem; ``tune`` k = 5 within 2% on every problem) compare a ranking with
the least of one run's medians. This script ranks each run's grid by a second run's
measured times instead of a model (:func:`costmetrics.validate.selection_floor`): k = 1 is
where an exhaustive measurement from that other run would land, and k its top k. Beside
it, it prints the model's own distances from each run's ``validate.json`` (the fitted
``machine`` variant's tuner curve, held out, as ``bench_validate_run.py`` wrote them).

Found with it on 2026-11-29 (docs/validate-log.md, "The selection targets against a second
run"; the three pairs of Xeon levels runs of 17:30-20:45 UTC): ranked by the other run of
its pair, a run's k = 1 lands 2.0-3.6% from its best on average and 7.5-10.6% on the worst
problem, and k = 5 1.7-6.8% on the worst problem, 2% or more on five of the six runs. The
fitted variant's own figures on the same runs, as each run's validate.json holds them
(the code of its day): 1.5-3.7%, 7.3-12.2% and 1.3-6.8%.

Each run is also ranked by half of its own passes and scored on the other half
(:func:`costmetrics.validate.split_selection_floor`, the floor ``bench_validate_run.py``
prints with one run); with a single run, that is all it prints. On the eight quiet Xeon
levels runs of 2026-12-01 that have a second run (``quiet_run_2026-12-01_xeon_levels``,
``_levels_default``, ``_levels_l2start``, ``_levels_nt21``), the split floor's k = 1
mean was 1.3-3.0% against 1.3-2.5% ranked by the other run, the larger on seven of the
eight (docs/validate-log.md, "A levels run after the compute share, and one run's
selection floor").

Run: ``python benchmarks/bench_validate_selection_floor.py RUN_A [RUN_B] [--json]`` (run
folders with ``sweep.csv``, or tables); ``--quick`` runs the shipped 19:58 / 20:21 pair.
Reads tables only; measures nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from costmetrics import measure as mm
from costmetrics import validate as cv

SHIPPED = (
    Path(__file__).resolve().parent.parent / "data" / "measurements",
    ("quiet_run_2026-11-29_xeon_cliprows_levels", "quiet_run_2026-11-29_xeon_cliprows_levels_b"),
)
KS = (1, 3, 5, 10)


def _table_path(path: Path) -> Path:
    """The sweep table of a run folder, or the path itself if it is a file."""
    if path.is_dir():
        table = path / "sweep.csv"
        if not table.is_file():
            raise FileNotFoundError(f"run: {path} holds no sweep.csv")
        return table
    if not path.is_file():
        raise FileNotFoundError(f"run: {path} does not exist")
    return path


def _model_summary(path: Path, variant: str) -> dict[str, Any] | None:
    """The variant's tuner summary in the run folder's validate.json, if there is one."""
    report = (path if path.is_dir() else path.parent) / "validate.json"
    if not report.is_file():
        return None
    tuner = json.loads(report.read_text(encoding="utf-8")).get("tuner", {})
    entry = tuner.get(variant)
    return None if entry is None else dict(entry["summary"])


def _row(name: str, summary: dict[str, Any]) -> str:
    cells = [
        f"{100 * summary[str(k)]['mean']:.2f} / {100 * summary[str(k)]['max']:.1f}" for k in KS
    ]
    return f"| {name} | " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="*", help="one or two run folders or tables")
    parser.add_argument("--statistic", choices=list(mm.STATISTICS), default="median")
    parser.add_argument("--quick", action="store_true", help="the shipped pair (seconds)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args(argv)
    if args.quick:
        runs = [SHIPPED[0] / name for name in SHIPPED[1]]
    elif len(args.runs) in (1, 2):
        runs = list(args.runs)
    else:
        print(f"error: runs: give one or two run folders (or --quick), got {len(args.runs)}",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        tables = [mm.read_table(_table_path(r)).per_point(args.statistic) for r in runs]
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    variant = "fitted-machine"
    out: dict[str, Any] = {"statistic": args.statistic, "ks": list(KS), "runs": []}
    pairs = [(0, 1), (1, 0)] if len(runs) == 2 else [(0, None)]
    for scored, ranking in pairs:
        # None for a table of one pass: no halves to rank each other.
        halves = cv._split_floor_or_none(tables[scored], ks=KS)
        split = None if halves is None else halves.to_dict()
        floor = None
        if ranking is not None:
            floor = cv.selection_floor(tables[scored], tables[ranking], ks=KS).to_dict()
        out["runs"].append({
            "run": str(runs[scored]),
            "ranked_by": None if ranking is None else str(runs[ranking]),
            "floor": floor,
            "split": split,
            "model": _model_summary(runs[scored], variant) if args.statistic == "median" else None,
        })  # fmt: skip
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"Distance to the grid's best, mean / worst problem (%), statistic {args.statistic}:")
    print()
    print("| ranking | " + " | ".join(f"k = {k}" for k in KS) + " |")
    print("|---" * (len(KS) + 1) + "|")
    for entry in out["runs"]:
        name = Path(entry["run"]).name
        if entry["floor"] is not None:
            print(_row(f"{name}: by {Path(entry['ranked_by']).name}", entry["floor"]["summary"]))
        if entry["split"] is not None:
            print(_row(f"{name}: by half of its passes", entry["split"]["summary"]))
        if entry["model"] is not None:
            print(_row(f"{name}: {variant} (validate.json)", entry["model"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
