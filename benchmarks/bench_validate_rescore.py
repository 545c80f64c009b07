"""Score shipped validation runs again with this version's model, measuring nothing.

Each folder given is one run of ``bench_validate_run.py`` as shipped in
``data/measurements/`` (``sweep.csv`` and its calibrations at 1 and 2 threads,
``costmetrics.validate.run_folder_calibrations``), with further runs of the same command in
``run1/``, ``run2/``, ... beside them; or a folder as that script writes it (``run0/``,
``run1/``, ...). For every run the sweep is validated again
(``costmetrics.validate.validate``, the per-point statistic of ``--statistic``) and every
issue-21 target is judged as ``bench_validate_run.py`` judges it (its ``_judge``: the
runs of a folder together, so their agreement and the selection floor too; the selection
re-measured where the run has its ``confirm.csv``). The machine variant's batch cost is
not timed: it is a measurement, and this script measures nothing.

``--calibrations current`` (the default) derives each calibration again from its stored
micro-benchmark passes by this version's rules (``Calibration.derived_again``) with the
tile-buffer budget ``costmetrics calibrate`` now sets, one core's L2 (2026-11-29,
docs/validate.md, "The selection targets re-measured"); ``saved`` uses the presets as
they were saved.

What it says is the state of the model and its calibration rules against every table,
one command: a regression check of the model across the project's measurements, not a
validation of anything chosen on those tables (data/measurements/README.md says which
table chose what).

Run: ``python benchmarks/bench_validate_rescore.py FOLDER [FOLDER ...] [--out DIR]
[--variant fitted-machine] [--statistic median] [--calibrations current|saved]
[--quiet-floor F] [--json]``; ``--quick`` (CI's smoke run, about 10 s) scores the shipped
``quiet_run_2026-11-28`` alone.
``--out`` writes ``summary.md``, ``summary.json`` and each folder's ``targets.md`` /
``targets.json`` under ``DIR/<folder name>/``. After the table of runs, one of targets: the
runs that meet each, and its median value, over every run and over the runs of this
version's harness whose noise floor is at most ``--quiet-floor`` (default 5%) at every
thread count. Last, the runs' agreement across folders: every run measured on the same
machine (CPU model, core count, L2 and L3 sizes), with the same harness and the same
problems, one group; per group, each run's overall held-out RMSE of the variant (all
points, top 20%), how many pairs of runs lie within the target's 2 points of each other,
and the largest difference, beside the largest overall noise floor (a folder's own runs
are judged together already; this judges runs measured by separate commands, hours or
sessions apart). Folders without a
sweep and its calibrations (diagnostics) are listed and skipped.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics._files import check_output_file, write_text_atomic
from costmetrics.cli import to_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_validate_run as bvr  # the same judgement as a fresh run's

#: ``--quick``'s folder: the current shipped table, two runs of the default sizes.
QUICK_FOLDER = (
    Path(__file__).resolve().parents[1] / "data" / "measurements" / "quiet_run_2026-11-28"
)

#: The columns of the summary: (short label, target name without its thread count).
COLUMNS = (
    ("2t top", "threads: RMSE top 20%"),
    ("2t all", "threads: RMSE all points"),
    ("worst top", "threads: worst stencil top 20%"),
    ("worst all", "threads: worst stencil all points"),
    ("1t top", "1 thread: RMSE top 20%"),
    ("1t all", "1 thread: RMSE all points"),
    ("opt mean", "predicted optimum (tile, threads) vs best: mean"),
    ("opt worst", "predicted optimum (tile, threads) vs best: worst problem"),
    ("vs base", "baseline (mean, < 0 is faster)"),
    ("tune k=5", "tuner k = 5: worst problem vs grid's best"),
)

#: The selection targets of :data:`COLUMNS`, whose noise floor the summary gives.
SELECTION = ("opt mean", "opt worst", "tune k=5")

#: The machine header's entries that two runs must share for their agreement to be judged:
#: the fields that tell one machine from another everywhere else (``MACHINE_IDENTITY``, the
#: L1d among them, which alone tells the Zen 4 and the Zen 5 "AMD EPYC" guests apart:
#: docs/validate-log.md, "A third machine: the Zen 5 guest"), and the CPUs a run had.
MACHINE_KEYS = (*mm.MACHINE_IDENTITY, "logical_cpus")


def _has_calibrations(run: Path) -> bool:
    try:
        cv.run_folder_calibrations(run)
    except ValueError:
        return False
    return True


def _runs_of(folder: Path) -> list[Path]:
    """The folder's runs, each with a sweep and its calibrations.

    Shipped: the folder is run 0, its run1/, run2/, ... the others; as
    ``bench_validate_run.py --out`` writes them: run0/, run1/, ...
    """
    runs = [folder]
    i = 0 if (folder / "run0").is_dir() else 1
    while (folder / f"run{i}").is_dir():
        runs.append(folder / f"run{i}")
        i += 1
    return [r for r in runs if (r / "sweep.csv").is_file() and _has_calibrations(r)]


def _calibrations(run: Path, which: str) -> list[Any]:
    cals = [mm.load_calibration(d) for d in cv.run_folder_calibrations(run)]
    if which == "current":
        cals = [c.derived_again(buffer_budget_bytes=int(c.machine["l2_bytes"])) for c in cals]
    return cals


@dataclass
class _Run:
    """One run of a folder, read: its sweep, its calibrations, its confirm.csv if any."""

    path: Path
    calibrations: list[Any]
    sweep: mm.Table
    confirm: mm.Table | None


def _load_folder(folder: Path, which: str) -> list[_Run]:
    """Every run of the folder read (before any scoring: a bad folder stops nothing midway).

    Each run's calibrations are checked against its sweep as ``validate`` checks them
    (same machine and harness version, a C_iter per stencil): calibrations copied from
    another run or machine raised only while scoring, with a traceback.
    """
    out = []
    for run in _runs_of(folder):
        try:
            conf = run / "confirm.csv"
            loaded = _Run(run, _calibrations(run, which), mm.read_table(run / "sweep.csv"),
                          mm.read_table(conf) if conf.is_file() else None)  # fmt: skip
            cv._check_calibrations_fit_table(loaded.sweep, cv._calibrations(loaded.calibrations))
        except ValueError as exc:
            if run == folder:
                raise
            raise ValueError(f"{run.name}: {exc}") from None
        out.append(loaded)
    return out


def _json(doc: Any) -> str:
    """``doc`` as JSON: NaN as null, infinities as "inf"/"-inf" (the package CLI's rule)."""
    return json.dumps(to_json(doc), indent=1, default=str, allow_nan=False) + "\n"


def _rescore_folder(
    folder: Path, runs: list[_Run], variant: str, statistic: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every target of the folder's runs (``_judge``'s rows) and the summary of ``variant``."""
    reports = [cv.validate(r.sweep, r.calibrations, seed=i, statistic=statistic)
               for i, r in enumerate(runs)]  # fmt: skip
    tables = [r.sweep.per_point(statistic) for r in runs]
    confirmations = [r.confirm.per_point(statistic) if r.confirm is not None else None
                     for r in runs]  # fmt: skip
    note = ""
    try:
        rows = bvr._judge(reports, tables, None, confirmations)
    except ValueError as exc:
        # The runs this model keeps are not all in confirm.csv (measured for the picks of
        # the code of that day): the selection is judged on the grid alone.
        rows = bvr._judge(reports, tables, None, None)
        note = f"not judged re-measured ({exc})"
    raw = runs[0].sweep
    levels = sorted(set(raw.memory_level), key=mm.MEMORY_LEVELS.index)  # read_table checks them
    per_run = []
    for i, report in enumerate(reports):
        mine = [r for r in rows if r["run"] == str(i) and r["variant"] == variant
                and not r["goal"].startswith("re-measured")]  # fmt: skip
        values = {}
        floors: dict[str, float] = {}
        for label, name in COLUMNS:
            hit = [r for r in mine if r["goal"].endswith(name)]
            if hit:
                floors[label] = hit[0]["noise_floor"]
            values[label] = {"value": hit[0]["value"], "met": hit[0]["met"],
                             "stencil": hit[0]["target"][len(hit[0]["goal"]):].strip(" ()")
                             } if hit else None  # fmt: skip
        again = {r["goal"]: r for r in rows if r["run"] == str(i) and r["variant"] == variant
                 and r["goal"].startswith("re-measured")}  # fmt: skip
        score = bvr._scores(report).get(variant)
        per_run.append({
            "run": i,
            "points": len(tables[i]),
            # The noise floor of the per-point statistic at 1 thread and at all cores, as
            # the targets' rows print it.
            "noise_floor": {
                "1": next((r["noise_floor"] for r in mine if r["goal"] == "1 thread: RMSE all "
                           "points"), math.nan),
                str(max(report.threads)): next((r["noise_floor"] for r in mine if r["goal"]
                                                .endswith("threads: RMSE all points")), math.nan),
            },
            # The selection targets' noise floor (bench_validate_run._judge: the next run's
            # grid ranking this one's, or with one run its halves of passes ranking each other).
            "selection_floor": {label: floors[label] for label in SELECTION if label in floors},
            "met": sum(1 for r in mine if r["met"]),
            "judged": len(mine),
            "missed": [r["target"] for r in mine if not r["met"]],
            "values": values,
            "re_measured": {k: v["value"] for k, v in again.items()},
            # Every point's held-out RMSE, for the runs' agreement across folders.
            "overall": None if score is None else {
                "rmse_all": score.rmse_all, "rmse_top": score.rmse_top,
                "noise_floor": score.overall.noise_floor,
            },
        })  # fmt: skip
    agree = [r for r in rows if r["run"] == "all" and r["variant"] == variant]
    # The harness version the sweep was measured with (its "# harness:" line).
    harness = mm._header_value(raw.comments, "harness") or "?"
    summary = {
        "folder": folder.name,
        "cpu_model": raw.machine.get("cpu_model"),
        "harness": harness,
        "levels": levels,
        "runs": per_run,
        "runs_agree": agree[0]["value"] if agree else None,
        "loadavg_1m": list(reports[0].loadavg_1m),
        "note": note,
        # What makes two runs comparable: the machine and the problems measured.
        "machine": {k: raw.machine.get(k) for k in MACHINE_KEYS},
        "problems": _problems(tables[0]),
    }
    return rows, summary


def _problems(table: mm.Table) -> list[str]:
    """The table's problems (``validate``'s (stencil, sizes) groups), each as
    ``"stencil s1xs2x...xT"``, in the groups' sorted order."""
    groups = cv._groups(table, by_threads=False)
    return [f"{stencil} {'x'.join(map(str, sizes))}" for stencil, sizes in groups]


def _agreement(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs' agreement across folders, one entry per group of comparable runs.

    A group is every run with the same machine (:data:`MACHINE_KEYS`), harness and
    problems; groups of one run are left out. The difference of two runs is
    :func:`bench_validate_run.runs_gap` of their overall scores, as
    ``bench_validate_run.py`` judges a folder's own runs; the group meets the target when
    every pair is within :data:`bench_validate_run.RUNS_AGREE` (a pair with a score that
    is not finite does not).
    """
    groups: dict[str, list[tuple[str, dict[str, float]]]] = {}
    for s in summaries:
        key = json.dumps([s["machine"], s["harness"], s["problems"]], sort_keys=True)
        for r in s["runs"]:
            if r.get("overall") is not None:
                groups.setdefault(key, []).append((f"{s['folder']} run {r['run']}", r["overall"]))
    out = []
    for key, runs in groups.items():
        if len(runs) < 2:
            continue
        machine, harness, problems = json.loads(key)
        pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]]
        gaps = [
            bvr.runs_gap((a["rmse_all"], a["rmse_top"]), (b["rmse_all"], b["rmse_top"]))
            for (_, a), (_, b) in pairs
        ]
        finite = [g for g in gaps if math.isfinite(g)]
        worst = max(
            range(len(pairs)), key=lambda j: gaps[j] if math.isfinite(gaps[j]) else math.inf
        )
        floors = [o["noise_floor"] for _, o in runs if math.isfinite(o["noise_floor"])]
        out.append({
            "machine": machine,
            "harness": harness,
            "problems": len(problems),
            "runs": [name for name, _ in runs],
            "rmse_all": [o["rmse_all"] for _, o in runs],
            "rmse_top": [o["rmse_top"] for _, o in runs],
            "pairs": len(pairs),
            "pairs_within": sum(1 for g in finite if g < bvr.RUNS_AGREE),
            "largest_difference": gaps[worst],
            "largest_pair": [pairs[worst][0][0], pairs[worst][1][0]],
            "noise_floor": max(floors) if floors else math.nan,
            "met": len(finite) == len(gaps) and max(gaps) < bvr.RUNS_AGREE,
        })  # fmt: skip
    return out


def _agreement_markdown(groups: list[dict[str, Any]]) -> str:
    """The runs' agreement across folders as a table (nothing when no group has two runs)."""
    if not groups:
        return ""
    lines = [
        "Runs' agreement across folders (every run of the same machine, harness and problems; "
        f"the overall held-out RMSE, all points / top 20%, in %; target: every pair within "
        f"{100 * bvr.RUNS_AGREE:g} points):",
        "",
        "| machine | harness | problems | runs | RMSE all | RMSE top 20% | pairs within "
        "| largest difference | between | noise floor | met |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in groups:
        m = g["machine"]
        machine = (f"{m.get('cpu_model')}, {m.get('logical_cpus')} CPUs, "
                   f"L1d {_kib(m.get('l1d_bytes'))}, "
                   f"L2 {_mib(m.get('l2_bytes'))}, L3 {_mib(m.get('l3_bytes'))}")  # fmt: skip
        lines.append(
            f"| {machine} | {g['harness']} | {g['problems']} | {len(g['runs'])} "
            f"| {_span(g['rmse_all'])} | {_span(g['rmse_top'])} "
            f"| {g['pairs_within']} of {g['pairs']} | {_pct(g['largest_difference'])} "
            f"| {' / '.join(g['largest_pair'])} | {_pct(g['noise_floor'])} "
            f"| {'yes' if g['met'] else '**no**'} |"
        )
    return "\n".join(lines) + "\n"


def _mib(n: Any) -> str:
    return f"{n / 2**20:g} MiB" if isinstance(n, (int, float)) else "?"


def _kib(n: Any) -> str:
    return f"{n / 2**10:g} KiB" if isinstance(n, (int, float)) else "?"


def _span(values: list[float]) -> str:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return "-"
    lo, hi = min(finite), max(finite)
    return _pct(lo) if lo == hi else f"{_pct(lo)}-{_pct(hi)}"


def _pct(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:.1f}"


def _markdown(summaries: list[dict[str, Any]], variant: str, statistic: str, which: str) -> str:
    lines = [
        f"Variant `{variant}`, the {statistic} over passes, calibrations {which}. Values in %; "
        "a value in bold misses its target (limits: 2 threads top 20% < 7, all < 15, worst "
        "stencil < 10 / < 25; 1 thread < 5 / < 10; optimum < 3 / < 10; vs the largest-tile "
        "baseline < 0; tune k = 5 < 2). Noise floor of the median, 1 / 2 threads; "
        "selection floor: of the optimum's mean and tune k = 5's worst problem (the next "
        "run's grid ranking this one's, or the run's halves of passes ranking each other).",
        "",
        "| table | run | CPU | harness | levels | points | noise floor | "
        + " | ".join(label for label, _ in COLUMNS)
        + " | selection floor | met |",
        "|---|---|---|---|---|---|---|" + "---|" * len(COLUMNS) + "---|---|",
    ]
    for s in summaries:
        cpu = (
            "AMD EPYC"
            if "AMD" in str(s["cpu_model"])
            else ("Xeon" if "Xeon" in str(s["cpu_model"]) else str(s["cpu_model"]))
        )
        levels = s["levels"][0] if len(s["levels"]) == 1 else f"{s['levels'][0]}-{s['levels'][-1]}"
        for r in s["runs"]:
            cells = []
            for label, _ in COLUMNS:
                v = r["values"][label]
                text = "-" if v is None else _pct(v["value"])
                cells.append(text if v is None or v["met"] else f"**{text}**")
            floor = " / ".join(_pct(r["noise_floor"][k]) for k in sorted(r["noise_floor"], key=int))
            sel = r.get("selection_floor", {})
            sel_floor = f"{_pct(sel.get('opt mean'))} / {_pct(sel.get('tune k=5'))}"
            lines.append(
                f"| {s['folder']} | {r['run']} | {cpu} | {s['harness']} | {levels} | {r['points']} "
                f"| {floor} | " + " | ".join(cells) + f" | {sel_floor} | {r['met']} of "
                f"{r['judged']} |"
            )
    notes = [f"- {s['folder']}: {s['note']}" for s in summaries if s.get("note")]
    return "\n".join(lines + (["", *notes] if notes else [])) + "\n"


def _quiet(run: dict[str, Any], floor: float) -> bool:
    """Whether the run's noise floor of the statistic is at most ``floor`` at every thread
    count (a run the targets can be judged on: the 1-thread top 20% limit is 5%)."""
    values = list(run["noise_floor"].values())
    return bool(values) and all(math.isfinite(v) and v <= floor for v in values)


def _per_target(summaries: list[dict[str, Any]], floor: float) -> str:
    """Per target: the runs that meet it and the median value, over every run and over the
    runs of this version's harness whose noise floor is at most ``floor``."""
    groups = {
        "every run": [r for s in summaries for r in s["runs"]],
        f"harness {mm.HARNESS_VERSION}, noise floor <= {100 * floor:g}%": [
            r for s in summaries for r in s["runs"]
            if s["harness"] == mm.HARNESS_VERSION and _quiet(r, floor)
        ],
    }  # fmt: skip
    lines = [
        "| target | " + " | ".join(f"{g}: met / runs, median" for g in groups) + " |",
        "|---|" + "---|" * len(groups),
    ]
    for label, _ in COLUMNS:
        cells = []
        for runs in groups.values():
            vals = [r["values"][label] for r in runs if r["values"][label] is not None]
            finite = [v["value"] for v in vals if math.isfinite(v["value"])]
            median = statistics.median(finite) if finite else math.nan
            cells.append(f"{sum(v['met'] for v in vals)} / {len(vals)}, {_pct(median)}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    every = [
        f"{sum(r['met'] == r['judged'] for r in runs)} of {len(runs)} ({g})"
        for g, runs in groups.items()
    ]
    return (
        "\n".join(lines)
        + "\n\nRuns meeting every target judged on them: "
        + ", ".join(every)
        + ".\n"
    )


def _write(path: Path, text: str) -> None:
    write_text_atomic(path, text)  # whole or not at all, even if killed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="shipped run folders")
    parser.add_argument("--out", type=Path, default=None, help="write the summary and targets")
    parser.add_argument("--variant", default="fitted-machine", choices=bvr.VARIANTS)
    parser.add_argument("--statistic", default="median", choices=list(mm.STATISTICS))
    parser.add_argument("--calibrations", default="current", choices=["current", "saved"])
    parser.add_argument(
        "--quiet-floor", type=float, default=0.05, metavar="FRACTION",
        help="the per-target table's second column: runs whose noise floor is at most this at "
        "every thread count (default 0.05)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--quick", action="store_true",
        help=f"smoke run: the shipped {QUICK_FOLDER.name} alone (no folder may be given)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.quick:
        if args.folders:
            print("bench_validate_rescore: --quick scores its own folder; give no folder",
                  file=sys.stderr)  # fmt: skip
            return 2
        args.folders = [QUICK_FOLDER]
    if not args.folders:
        print("bench_validate_rescore: folders: give at least one run folder", file=sys.stderr)
        return 2
    if not 0 < args.quiet_floor < 1:
        print(f"bench_validate_rescore: --quiet-floor: must be in (0, 1), got "
              f"{args.quiet_floor}", file=sys.stderr)  # fmt: skip
        return 2
    for f in args.folders:
        if not f.is_dir():
            print(f"bench_validate_rescore: {f}: not a folder", file=sys.stderr)
            return 2
    names = [f.resolve().name for f in args.folders]
    if len(set(names)) != len(names):
        # --out keeps each folder's targets under its name.
        twice = sorted({n for n in names if names.count(n) > 1})
        print(f"bench_validate_rescore: folders: a name given twice: {', '.join(twice)}",
              file=sys.stderr)  # fmt: skip
        return 2
    out = None
    if args.out is not None:
        try:
            out = mm.check_writable(args.out, "--out")
        except (TypeError, ValueError) as exc:
            print(f"bench_validate_rescore: {exc}", file=sys.stderr)
            return 2
    # Every folder read first: a folder that cannot be scored stops the command before
    # any scoring, with one line naming it.
    loaded: list[tuple[Path, list[_Run]]] = []
    for folder in args.folders:
        try:
            runs = _load_folder(folder, args.calibrations)
        except (TypeError, ValueError, OSError) as exc:
            print(f"bench_validate_rescore: {folder}: {exc}", file=sys.stderr)
            return 2
        if not runs:
            print(f"{folder.name}: no sweep with its calibrations, skipped", file=sys.stderr)
            continue
        loaded.append((folder, runs))
    if not loaded:
        print("bench_validate_rescore: folders: none holds a sweep with its calibrations",
              file=sys.stderr)  # fmt: skip
        return 2
    if out is not None:
        # So does an output path that cannot be written (a plain file where a folder's
        # results go was found after all the scoring, with a traceback); the folders are
        # created now. A folder's results go under its own name: "." or ".." put them
        # in DIR itself or beside it.
        try:
            for f, _ in loaded:
                d = mm.check_writable(out / f.resolve().name, "--out")
                for name in ("targets.json", "targets.md"):
                    check_output_file(d / name, "--out")
            for name in ("summary.md", "summary.json"):
                check_output_file(out / name, "--out")
        except (TypeError, ValueError) as exc:
            print(f"bench_validate_rescore: {exc}", file=sys.stderr)
            return 2
    summaries = []
    t0 = time.monotonic()
    for k, (folder, runs) in enumerate(loaded, 1):
        try:
            rows, summary = _rescore_folder(folder, runs, args.variant, args.statistic)
        except ValueError as exc:  # a check the reading did not make: one line, no traceback
            print(f"bench_validate_rescore: {folder}: {exc}", file=sys.stderr)
            return 2
        summaries.append(summary)
        print(f"[{k}/{len(loaded)}] {folder.name}: "
              + ", ".join(f"run {r['run']} {r['met']} of {r['judged']}" for r in summary["runs"])
              + f" ({time.monotonic() - t0:.0f} s)"
              + (f"; {summary['note']}" if summary["note"] else ""), file=sys.stderr)  # fmt: skip
        if out is not None:
            d = out / folder.resolve().name  # checked (and created) before any scoring
            _write(d / "targets.json", _json({"targets": rows}))
            _write(d / "targets.md", bvr._markdown(rows, runs[0].sweep.machine,
                                                   summary["loadavg_1m"]))  # fmt: skip
    agreement = _agreement(summaries)
    text = _markdown(summaries, args.variant, args.statistic, args.calibrations)
    text += "\n" + _per_target(summaries, args.quiet_floor)
    if agreement:
        text += "\n" + _agreement_markdown(agreement)
    doc = {"variant": args.variant, "statistic": args.statistic,
           "calibrations": args.calibrations, "tables": summaries,
           "agreement": agreement}  # fmt: skip
    if out is not None:
        _write(out / "summary.md", text)
        _write(out / "summary.json", _json(doc))
    print(_json(doc).rstrip("\n") if args.json else text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
