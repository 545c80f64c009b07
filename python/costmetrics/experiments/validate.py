"""Validation of the execution-time model on measured CPU runs (thesis 000, A.5-A.6).

Reads the shipped protocol sweep ``data/measurements/quiet_run_2026-11-28/sweep.csv``
(9 shuffled passes, 1 and 2 threads, harness version 5, a 2-core machine in a quiet
period of its host: run 0 of ``benchmarks/bench_validate_run.py``, 2026-11-28
00:36-00:38 UTC) and its fresh micro-benchmark calibrations ``calibration_1t/`` and
``calibration_2t/`` in the same folder (one per thread count; all produced by
``costmetrics calibrate`` and ``costmetrics measure``, see ``docs/validate.md``). The
older tables of ``data/measurements/`` (harness 3 and 4, and the unsound sequential
``cpu_sweep.csv``) are not used here. Writes:

- Fig. A.4 on the CPU: predicted vs measured time, every variant;
- Fig. A.7 on the CPU: the tile-selection strategies per problem;
- the RMSE per stencil and thread count beside the noise floor, and the tuner's curve;
- tables of the scores (every variant and fitted variant, per stencil, memory level and
  thread count, with bootstrap intervals and noise floors), tile selection and the
  degenerate tiles;
- the same scores with each point's minimum over its passes in place of its median
  (``statistic="min"``), beside the median's, with both noise floors
  (``validation_statistics.csv`` and ``.png``; ``docs/validate-log.md``, "Per-point statistic").

The notebook ``notebooks/02_validate.ipynb`` calls these same functions.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from costmetrics import validate as cv
from costmetrics._files import atomic_output
from costmetrics.measure import STATISTICS, Calibration, Table, load_calibration, read_table
from costmetrics.presets import data_dir
from costmetrics.report import ExperimentResult, ReproducedValue

SOURCE = "000 App. A"


def shipped_paths() -> tuple[Path, tuple[Path, ...]]:
    """Return the shipped protocol sweep and its calibration folders (1 and 2 threads)."""
    root = data_dir() / "measurements" / "quiet_run_2026-11-28"
    return (
        root / "sweep.csv",
        (root / "calibration_1t", root / "calibration_2t"),
    )


def shipped_report() -> cv.ValidationReport:
    """Validate the time model on the shipped protocol sweep (micro-benchmark calibrations)."""
    table, cals = shipped_paths()
    return cv.validate(table, cals)


#: Columns of :func:`statistic_rows`.
STATISTIC_COLUMNS = [
    "statistic", "variant", "threads", "rmse_all", "rmse_top", "noise_floor",
    "optimum_vs_best_mean", "optimum_vs_best_worst", "tune_k5_worst",
]  # fmt: skip


def statistic_reports(
    table: Table | Path, calibrations: list[Calibration]
) -> dict[str, cv.ValidationReport]:
    """Validate one table once per per-point statistic (median, then minimum over passes)."""
    return {s: cv.validate(table, calibrations, statistic=s) for s in STATISTICS}


StatisticRow = tuple[str, str, int, float, float, float, float, float, float]


def statistic_rows(reports: dict[str, cv.ValidationReport]) -> list[StatisticRow]:
    """Per statistic, variant and thread count: RMSE, noise floor, optimum and tuner.

    Parameters
    ----------
    reports : dict of str to ValidationReport
        From :func:`statistic_reports`.

    Returns
    -------
    list of tuple
        Rows in the order of :data:`STATISTIC_COLUMNS`; the optimum columns are the
        distance of the predicted optimum (the tuner's k = 1) to the measured best, mean
        and worst over problems, and ``tune_k5_worst`` the worst of k = 5.
    """
    rows: list[StatisticRow] = []
    for stat, report in reports.items():
        scores = {**report.scores, **{f"fitted-{v}": f.test_score
                                      for v, f in report.fitted.items()}}  # fmt: skip
        for v in ("exact", "machine", "fitted-exact", "fitted-machine"):
            if v not in scores:
                continue
            curve = report.tuner.get(v)
            opt = (np.nan, np.nan, np.nan)
            if curve is not None and curve.problems and 1 in curve.ks and 5 in curve.ks:
                d1, d5 = curve.distance[:, curve.ks.index(1)], curve.distance[:, curve.ks.index(5)]
                opt = (float(d1.mean()), float(d1.max()), float(d5.max()))
            for n in sorted({int(x) for x in report.threads}):
                g = scores[v].group(threads=n)
                rows.append((stat, v, n, g.rmse_all, g.rmse_top, g.noise_floor, *opt))
    return rows


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with atomic_output(path, newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return path


def run(out_dir: Path) -> ExperimentResult:
    """Produce the validation figures and tables into ``out_dir``."""
    result = ExperimentResult(name="validate")
    table_path, cal_paths = shipped_paths()
    table = read_table(table_path)
    cal = [load_calibration(p) for p in cal_paths]
    report = cv.validate(table, cal)
    cpu = str(table.machine.get("cpu_model", "CPU")) if table.machine else "CPU"
    where = (
        f"{cpu}, {report.n_passes} shuffled passes, "
        f"load average {report.loadavg_1m[0]:.1f}-{report.loadavg_1m[2]:.1f}"
    )

    fig = plot_predicted_vs_measured(report, f"Fig. A.4 on the CPU: {where}")
    path = out_dir / "validation_pred_vs_measured.png"
    result.save_figure(fig, path)
    fig = plot_selection(report, f"Tile selection (Fig. A.7 on the CPU): {where}")
    path = out_dir / "validation_selection.png"
    result.save_figure(fig, path)
    for variant in ("exact", "machine"):
        if variant in report.scores:
            fig = plot_noise(
                report, variant=variant, title=f"{variant}: RMSE and noise floor ({where})"
            )
            path = out_dir / f"validation_noise_{variant}.png"
            result.save_figure(fig, path)
    fig = plot_tuner_curve(report, f"Measured tuner: best of the top k ({where})")
    path = out_dir / "validation_tuner_curve.png"
    result.save_figure(fig, path)

    score_rows: list[list[object]] = []
    for s in [*report.scores.values(), *(f.test_score for f in report.fitted.values())]:
        for g in s.groups:
            score_rows.append(
                [
                    g.stencil,
                    s.variant,
                    g.memory_level,
                    g.threads or "all",
                    g.n_all,
                    g.rmse_all,
                    *g.rmse_all_ci,
                    g.n_top,
                    g.rmse_top,
                    *g.rmse_top_ci,
                    g.noise_floor,
                ]
            )
    result.files.append(
        _write_csv(
            out_dir / "validation_scores.csv",
            [
                "stencil",
                "variant",
                "memory_level",
                "threads",
                "n_all",
                "rmse_all",
                "rmse_all_ci_low",
                "rmse_all_ci_high",
                "n_top",
                "rmse_top",
                "rmse_top_ci_low",
                "rmse_top_ci_high",
                "noise_floor",
            ],
            score_rows,
        )
    )
    sel_rows = [list(r.to_dict().values()) for rows in report.selection.values() for r in rows]
    header = list(next(iter(report.selection.values()))[0].to_dict()) if sel_rows else []
    result.files.append(_write_csv(out_dir / "validation_selection.csv", header, sel_rows))
    deg = [list(d.to_dict().values()) for d in report.degenerate]
    result.files.append(
        _write_csv(
            out_dir / "validation_degenerate.csv",
            ["stencil", "sizes", "tiles", "measured_s", "paper_s", "exact_s", "ideal_s"],
            deg,
        )
    )

    by_stat = {"median": report, "min": cv.validate(table, cal, statistic="min")}
    stat_rows = statistic_rows(by_stat)
    result.files.append(
        _write_csv(
            out_dir / "validation_statistics.csv", STATISTIC_COLUMNS, [list(r) for r in stat_rows]
        )
    )
    result.save_figure(
        plot_statistics(by_stat, f"Median or minimum over passes ({where})"),
        out_dir / "validation_statistics.png",
    )
    for stat, v, n, r_all, r_top, floor, *_ in stat_rows:
        if stat == "min" and v in ("exact", "fitted-machine"):
            result.values.append(
                ReproducedValue(
                    "validate", f"RMSE all / top 20% at {n} thread(s), {v}, minimum over "
                    "passes (%)", "(no seed value)", None,
                    f"{100 * r_all:.1f} / {100 * r_top:.1f}",
                    f"noise floor of the minimum {100 * floor:.1f}%; {where}",
                )
            )  # fmt: skip

    cpu_report = cv.validate(table, cal, time="cpu")
    fig = plot_predicted_vs_measured(
        cpu_report, f"Fig. A.4 on the CPU, worker-thread CPU time (load-robust proxy): {where}"
    )
    path = out_dir / "validation_pred_vs_measured_cpu_time.png"
    result.save_figure(fig, path)
    fig = plot_selection(cpu_report, f"Tile selection, thread CPU time: {where}")
    path = out_dir / "validation_selection_cpu_time.png"
    result.save_figure(fig, path)

    note = f"CPU, micro-benchmark calibrations at 1 and 2 threads ({where}); seed: GPUs"
    if report.n_passes < 2:
        note += "; one sequential sweep (no noise floor: re-measure with passes)"
    for v in cv.VARIANTS:
        c = cpu_report.scores[v]
        result.values.append(
            ReproducedValue(
                "validate", f"RMSE all / top 20% against thread CPU time, {v} (%)",
                "(no seed value)", None, f"{100 * c.rmse_all:.1f} / {100 * c.rmse_top:.1f}",
                "load-robust proxy of the wall time; " + note,
            )
        )  # fmt: skip
        s = report.scores[v]
        result.values += [
            ReproducedValue(
                "validate", f"RMSE over all points, {v} variant (%)", f"{SOURCE}.5.2",
                "45-200", round(100 * s.rmse_all, 1), f"{s.n_all} points; {note}",
            ),
            ReproducedValue(
                "validate", f"RMSE within 20% of the best, {v} variant (%)", f"{SOURCE}.5.2",
                "< 10", round(100 * s.rmse_top, 1), f"{s.n_top} points; {note}",
            ),
        ]  # fmt: skip
        if v in report.fitted:
            f = report.fitted[v].test_score
            result.values.append(
                ReproducedValue(
                    "validate", f"RMSE all / top 20%, fitted-{v}, leave-one-problem-out (%)",
                    "(no seed value)", None,
                    f"{100 * f.rmse_all:.1f} / {100 * f.rmse_top:.1f}", note,
                )
            )  # fmt: skip
        for score in (s, *([report.fitted[v].test_score] if v in report.fitted else [])):
            for n in sorted({int(x) for x in report.threads}):
                g = score.group(threads=n)
                result.values.append(
                    ReproducedValue(
                        "validate", f"RMSE all / top 20% at {n} thread(s), {score.variant} (%)",
                        "(no seed value)", None,
                        f"{100 * g.rmse_all:.1f} / {100 * g.rmse_top:.1f}",
                        f"noise floor {100 * g.noise_floor:.1f}%; {note}",
                    )
                )  # fmt: skip
        summary = report.selection_summary[v]
        if summary.get("n_problems"):
            result.values += [
                ReproducedValue(
                    "validate", f"gain of best within 10% of T_alg_min over baseline, {v} (%)",
                    f"{SOURCE}.6.4 (Fig. A.7)", "9 (GPU)",
                    round(100 * summary["mean_gain_near_over_baseline"], 1),
                    f"mean over {summary['n_problems']} problems; {note}",
                ),
                ReproducedValue(
                    "validate", f"T_exec(T_alg_min tile) / best measured - 1, {v} (%)",
                    f"{SOURCE}.6.2", None, round(100 * summary["mean_opt_slowdown"], 1),
                    f"mean over problems; Err_max = {summary['err_max_s']:.3g} s; {note}",
                ),
            ]  # fmt: skip
    return result


# ------------------------------------------------------------------ figures
# Every figure of the family is drawn here, in the experiment layer (docs/api-conventions.md,
# "Figures"); the library module computes the numbers.


def plot_predicted_vs_measured(report: cv.ValidationReport, title: str = "") -> Figure:
    """Predicted vs measured time per variant, top points highlighted (Fig. A.4).

    Parameters
    ----------
    report : ValidationReport
        From :func:`~costmetrics.validate.validate`.
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One log-log panel per variant with the line y = x.
    """
    fig = Figure(figsize=(10, 4.4), layout="constrained")
    axes = fig.subplots(1, len(cv.VARIANTS), sharex=True, sharey=True)
    names = np.asarray(report.stencil)
    markers = dict(zip(sorted(set(report.stencil)), "osD^v<>", strict=False))
    for ax, v in zip(np.atleast_1d(axes), cv.VARIANTS, strict=False):
        pred = report.predicted_s[v]
        ok = np.isfinite(pred)
        for name, marker in markers.items():
            sel = ok & (names == name)
            ax.scatter(
                report.measured_s[sel & ~report.top], pred[sel & ~report.top], s=8,
                marker=marker, alpha=0.25, color="0.5",
            )  # fmt: skip
            ax.scatter(
                report.measured_s[sel & report.top], pred[sel & report.top], s=14,
                marker=marker, label=name,
            )  # fmt: skip
        lo = float(np.nanmin([report.measured_s[ok].min(), pred[ok].min()]))
        hi = float(np.nanmax([report.measured_s[ok].max(), pred[ok].max()]))
        ax.plot([lo, hi], [lo, hi], "k--", lw=1)
        ax.set_xscale("log")
        ax.set_yscale("log")
        s = report.scores[v]
        ax.set_title(
            f"{v}: RMSE all {100 * s.rmse_all:.0f}% (n={s.n_all}), "
            f"top 20% {100 * s.rmse_top:.0f}% (n={s.n_top})",
            fontsize=9,
        )
        ax.set_xlabel("measured time [s]" if report.time == "wall" else "measured CPU time [s]")
        ax.set_ylabel("predicted T_alg [s]")
    np.atleast_1d(axes)[0].legend(fontsize=7, title="top 20% (colour); others grey")
    if title:
        fig.suptitle(title)
    return fig


def plot_selection(report: cv.ValidationReport, title: str = "") -> Figure:
    """Measured time of each tile-selection strategy per problem, relative to the best.

    Strategies (Fig. A.7 of the seed, on the CPU): the "largest tile that fits" baseline,
    each variant's predicted optimum (T_alg_min) and the best measured point within 10% of
    it; 1.0 is the best measured point of the problem.

    Parameters
    ----------
    report : ValidationReport
        From :func:`~costmetrics.validate.validate`.
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        Grouped bars, one group per (stencil, size).
    """
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax = fig.add_subplot()
    base_rows = report.selection.get("exact") or report.selection.get("paper") or []
    labels = [f"{r.stencil}\n{'x'.join(map(str, r.sizes))}" for r in base_rows]
    x = np.arange(len(labels))
    series: list[tuple[str, list[float]]] = [
        ("baseline (largest fitting tile)", [r.t_baseline_s / r.t_best_s for r in base_rows])
    ]
    for v in cv.VARIANTS:
        rows = report.selection.get(v, [])
        if len(rows) == len(base_rows):
            series.append((f"{v}: T_alg_min tile", [r.t_opt_s / r.t_best_s for r in rows]))
            series.append((f"{v}: best within 10%", [r.t_best_near_s / r.t_best_s for r in rows]))
    width = 0.8 / max(1, len(series))
    for k, (label, values) in enumerate(series):
        ax.bar(x + (k - (len(series) - 1) / 2) * width, values, width, label=label)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("measured time / best measured")
    ax.legend(fontsize=7, ncol=3)
    if title:
        ax.set_title(title)
    return fig


def plot_noise(report: cv.ValidationReport, *, variant: str = "exact", title: str = "") -> Figure:
    """RMSE with its bootstrap interval beside the noise floor, per stencil and threads.

    Parameters
    ----------
    report : ValidationReport
        From :func:`~costmetrics.validate.validate`.
    variant : str
        The variant (its fitted twin is drawn beside it when it was fitted).
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per (stencil, threads) group and series with its 95% interval; the noise
        floor of the group as a black tick (absent with a single pass).
    """
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    ax = fig.add_subplot()
    series = [report.scores[variant]]
    if variant in report.fitted:
        series.append(report.fitted[variant].test_score)
    keys = [(g.stencil, g.threads) for g in series[0].groups if g.memory_level == "all"]
    x = np.arange(len(keys))
    width = 0.8 / len(series)
    for j, s in enumerate(series):
        values, lo, hi, floor = [], [], [], []
        for stencil, threads in keys:
            g = _find_group(s, stencil, threads)
            values.append(100 * g.rmse_all if g else np.nan)
            lo.append(100 * (g.rmse_all - g.rmse_all_ci[0]) if g else 0.0)
            hi.append(100 * (g.rmse_all_ci[1] - g.rmse_all) if g else 0.0)
            floor.append(100 * g.noise_floor if g else np.nan)
        pos = x + (j - (len(series) - 1) / 2) * width
        ax.bar(pos, values, width, yerr=[np.maximum(lo, 0), np.maximum(hi, 0)], capsize=2,
               label=f"{s.variant}: RMSE all points (95% bootstrap)")  # fmt: skip
        if j == 0:
            ax.scatter(x, floor, marker="_", s=400, color="k", zorder=3, label="noise floor")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{s}\n{t or 'all'} thr." for s, t in keys], fontsize=7)
    ax.set_ylabel("relative RMSE [%]")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return fig


def plot_statistics(reports: dict[str, cv.ValidationReport], title: str = "") -> Figure:
    """Noise floor and fitted-machine RMSE per thread count, for each per-point statistic.

    Parameters
    ----------
    reports : dict of str to ValidationReport
        From :func:`statistic_reports` (or any reports keyed by their statistic).
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        Per thread count, bars of the noise floor and of the best fitted variant's RMSE
        (all points and top 20%) under each statistic.
    """
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.add_subplot()
    rows = statistic_rows(reports)
    threads = sorted({r[2] for r in rows})
    bars = [("noise floor", 5, None), ("fitted-machine RMSE all", 3, "fitted-machine"),
            ("fitted-machine RMSE top 20%", 4, "fitted-machine")]  # fmt: skip
    labels = [f"{n} thread{'s' if n > 1 else ''}" for n in threads]
    x = np.arange(len(threads))
    series = [(stat, name, col, v) for stat in reports for name, col, v in bars]
    width = 0.8 / len(series)
    for k, (stat, name, col, v) in enumerate(series):
        values = []
        for n in threads:
            match = [r for r in rows if r[0] == stat and r[2] == n
                     and (v is None or r[1] == v)]  # fmt: skip
            values.append(100 * float(match[0][col]) if match else np.nan)
        ax.bar(x + (k - (len(series) - 1) / 2) * width, values, width, label=f"{name} ({stat})",
               color=f"C{k % len(bars)}", hatch="//" if stat != "median" else None,
               edgecolor="white")  # fmt: skip
    ax.set_xticks(x)
    ax.set_xticklabels(labels)
    ax.set_ylabel("[%]")
    ax.set_ylim(0, 1.45 * ax.get_ylim()[1])  # room for the legend above the bars
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def _find_group(score: cv.Score, stencil: str, threads: int) -> cv.GroupScore | None:
    for g in score.groups:
        if (g.stencil, g.memory_level, g.threads) == (stencil, "all", threads):
            return g
    return None


def plot_tuner_curve(report: cv.ValidationReport, title: str = "") -> Figure:
    """Mean and largest distance to the measured best against k, per variant.

    Parameters
    ----------
    report : ValidationReport
        From :func:`~costmetrics.validate.validate` (its ``tuner`` curves).
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One line per variant (mean) with the largest distance dashed, over the grey band
        of the report's ``selection_floor`` (worst problem; its mean dotted) when it has one.
    """
    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.add_subplot()
    for v, c in report.tuner.items():
        if not c.problems:
            continue
        line = ax.plot(c.ks, 100 * c.distance.mean(axis=0), "o-", label=f"{v}: mean")[0]
        ax.plot(c.ks, 100 * c.distance.max(axis=0), "--", color=line.get_color(),
                label=f"{v}: worst problem")  # fmt: skip
    floor = report.selection_floor
    if floor is not None and floor.problems:
        # Noise alone: the grid ranked by half of its passes, scored on the other half.
        ax.fill_between(floor.ks, 0, 100 * floor.distance.max(axis=0), color="0.85",
                        label="noise floor (half the passes ranking the other), worst")  # fmt: skip
        ax.plot(floor.ks, 100 * floor.distance.mean(axis=0), ":", color="0.4",
                label="noise floor, mean")  # fmt: skip
    ax.set_xlabel("k (measured candidates, in predicted order)")
    ax.set_ylabel("best of top k / best measured - 1 [%]")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return fig
