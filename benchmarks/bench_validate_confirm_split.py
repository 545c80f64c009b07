"""Diagnostic: the selection targets re-measured, against a bar chosen on other passes (issue 21).

The re-measured selection targets (``bench_validate_run.py``, rows ``re-measured: ...``)
divide a kept run's median over the fresh passes of ``confirm.csv`` by the least median of
the 4-9 runs measured again for its problem. That bar is the least of several noisy
medians, chosen and timed on the same passes, so noise pulls it down (the winner's curse)
and every kept run but the luckiest looks slower than it is. Here the bar is cross-fitted
instead: the passes are split at random into two halves, the fastest run is chosen on one
half's medians and both runs are timed on the other half's, and the distance is the mean
over ``--splits`` such splits. The grid's own best run (k = 1 of the grid ranked by its
own medians) is scored the same way: a ranking that cannot be told from the grid's best
is where this measurement's resolution lies.

Found with it on 2026-12-01 (docs/validate.md, "The re-measured selection targets at
the measurement's resolution"): on the 13 quiet Xeon runs whose sweeps and re-measurement
took 21 passes, the cross-fitted bar lowers the worst problem's distance of ``tune`` k = 5
by 0.5-2.4 points (met on 7 of the 13 runs), and the grid's own best run lands past 2%
as often as ``tune`` does (22 and 17 of the 253 problems; 60 and 54 against the
fastest re-measured).

Run: ``python benchmarks/bench_validate_confirm_split.py FOLDER [FOLDER ...]`` (each
folder's runs as ``bench_validate_rescore.py`` reads them, those with a ``confirm.csv``);
``--confirm CSV`` scores a folder's run 0 on another re-measurement of its selection
(``costmetrics validate SWEEP --calibration ... --confirm CSV``); ``--quick`` reads the
shipped run of 2026-12-01 10:35 (seconds). Measures nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics.presets import data_dir

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_validate_rescore as rescore  # a folder's runs, as the rescoring reads them

QUICK = data_dir() / "measurements" / "quiet_run_2026-12-01_xeon_levels_fresh3"
TUNE_K, WITHIN = 5, 0.02

#: (stencil, sizes)
Problem = tuple[str, tuple[int, ...]]


def _pass_times(confirm: mm.Table) -> dict[tuple[Any, ...], npt.NDArray[np.float64]]:
    """Each run's time per pass of ``confirm`` (NaN where a pass lacks it).

    Keys as ``validate.confirmed_curve`` reads them: ``(stencil, sizes, tiles, threads,
    schedule)``; one run under several names is one run (per pass, the median of its rows).
    """
    points = confirm.per_point("median")
    if points.pass_times_s is None:
        raise ValueError("confirm: no pass times (a table of one row per point without them)")
    passes = points.pass_times_s
    return {k: np.nanmedian(passes[rows], axis=0) for k, rows in cv._run_rows(points).items()}


def distances(
    times: npt.NDArray[np.float64], kept: int, splits: int, rng: np.random.Generator
) -> tuple[float, float]:
    """(against the fastest of all passes' medians, cross-fitted) distances of run ``kept``.

    ``times`` is runs x passes. Cross-fitted: per random half split of the passes, the
    fastest run by one half's medians, both timed by the other half's; the mean over
    ``splits`` splits.
    """
    med = np.nanmedian(times, axis=1)
    against_fastest = float(med[kept] / np.min(med) - 1)
    n = times.shape[1]
    crossed = []
    for _ in range(splits):
        order = rng.permutation(n)
        choose, judge = order[: n // 2], order[n // 2 :]
        bar = int(np.argmin(np.nanmedian(times[:, choose], axis=1)))
        timed = np.nanmedian(times[:, judge], axis=1)
        crossed.append(timed[kept] / timed[bar] - 1)
    return against_fastest, float(np.mean(crossed))


def score_run(
    sweep: mm.Table, calibrations: list[Any], confirm: mm.Table, *, seed: int, variant: str,
    splits: int,
) -> dict[str, Any]:  # fmt: skip
    """Per problem, ``tune`` k = 5's, the predicted optimum's and the grid's best run's
    distances, against the fastest re-measured and cross-fitted."""
    report = cv.validate(sweep, calibrations, seed=seed, statistic="median")
    curve = report.tuner.get(variant)
    if curve is None or TUNE_K not in curve.ks:
        raise ValueError(f"variant: {variant!r} has no tuner curve with k = {TUNE_K}")
    grid = sweep.per_point("median")
    best = cv.tuner_curve_of(grid, grid.time_s, label="the grid's best", ks=(1,))
    best_of = {prob: best.picks[i][0] for i, prob in enumerate(best.problems)}
    per_run = _pass_times(confirm)
    rng = np.random.default_rng(seed)
    problems = []
    for p, (stencil, sizes) in enumerate(curve.problems):
        keys = [k for k in per_run if k[0] == stencil and k[1] == sizes]
        if not keys:
            raise ValueError(f"confirm: measured no run of {stencil} {list(sizes)} again "
                             "(the re-measurement of another run?)")  # fmt: skip
        times = np.vstack([per_run[k] for k in keys])
        entry: dict[str, Any] = {"problem": f"{stencil} {list(sizes)}", "runs": len(keys),
                                 "passes": int(times.shape[1])}  # fmt: skip
        for name, run in (("tune", curve.picks[p][curve.ks.index(TUNE_K)]),
                          ("optimum", curve.picks[p][curve.ks.index(1)]),
                          ("grid", best_of[(stencil, sizes)])):  # fmt: skip
            key = (stencil, sizes, *run)
            if key not in per_run:
                raise ValueError(f"confirm: lacks the run {name} keeps on {entry['problem']}: "
                                 f"{run}")  # fmt: skip
            fastest, crossed = distances(times, keys.index(key), splits, rng)
            entry[name] = {"vs_fastest": fastest, "cross_fitted": crossed}
        problems.append(entry)
    return {"variant": variant, "problems": problems}


def _worst(problems: list[dict[str, Any]], who: str, how: str) -> tuple[float, str, int]:
    """(worst distance, its problem, problems over WITHIN) of ``who`` read ``how``."""
    worst = max(problems, key=lambda e: e[who][how])
    over = sum(1 for e in problems if e[who][how] > WITHIN)
    return float(worst[who][how]), str(worst["problem"]), over


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="validation run folders")
    parser.add_argument(
        "--confirm", type=Path, default=None, metavar="CSV",
        help="score the (single) folder's run 0 on this re-measurement",
    )  # fmt: skip
    parser.add_argument("--variant", default="fitted-machine")
    parser.add_argument("--splits", type=int, default=200, help="random half splits (200)")
    parser.add_argument("--quick", action="store_true", help="the shipped 10:35 run (seconds)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    folders = [QUICK] if args.quick else list(args.folders)
    if args.quick:
        args.splits = min(args.splits, 20)
    if not folders:
        print("error: folders: give at least one run folder (or --quick)", file=sys.stderr)
        return 2
    if args.confirm is not None and len(folders) != 1:
        print("error: --confirm: only with a single folder", file=sys.stderr)
        return 2
    if not 1 <= args.splits <= 100_000:
        print(f"error: --splits: expected 1-100000, got {args.splits}", file=sys.stderr)
        return 2
    try:  # every table read before any scoring
        given = None
        if args.confirm is not None:
            try:
                given = mm.read_table(args.confirm)
            except (OSError, ValueError) as exc:
                raise ValueError(f"--confirm: {exc}") from None
        jobs = []
        for folder in folders:
            if not folder.is_dir():
                raise ValueError(f"folders: {folder} is not a folder")
            for i, run in enumerate(rescore._load_folder(folder, "saved")):
                confirm = given if given is not None and i == 0 else run.confirm
                if confirm is not None:
                    jobs.append((folder, i, run, confirm))
        out = []
        for folder, i, run, confirm in jobs:
            scored = score_run(run.sweep, run.calibrations, confirm, seed=i,
                               variant=args.variant, splits=args.splits)  # fmt: skip
            out.append({"folder": folder.name, "run": i, **scored})
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"Worst problem's distance (%) and problems over {100 * WITHIN:g}%, re-measured, "
        f"{args.variant}; cross-fitted over {args.splits} half splits of the passes:"
    )
    print()
    print(f"| run | passes | tune k = {TUNE_K} vs fastest | cross-fitted | the grid's best vs "
          "fastest | cross-fitted |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for entry in out:
        probs = entry["problems"]
        cells = []
        for who in ("tune", "grid"):
            for how in ("vs_fastest", "cross_fitted"):
                value, where, over = _worst(probs, who, how)
                cells.append(f"{100 * value:.1f} ({where}; {over} of {len(probs)})")
        passes = max(e["passes"] for e in probs)
        print(f"| {entry['folder']} run {entry['run']} | {passes} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
