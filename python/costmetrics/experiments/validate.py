"""Validation of the execution-time model on measured CPU runs (thesis 000, A.5-A.6).

Reads the shipped protocol sweep ``data/measurements/cpu_sweep_protocol.csv`` (5 shuffled
passes, 1 and 2 threads, a quiet 2-core machine) and its micro-benchmark calibrations
``data/measurements/cpu_calibration_1t/`` and ``cpu_calibration_2t/`` (one per thread
count; all produced by ``costmetrics calibrate`` and ``costmetrics measure``, see
``docs/validate.md``). The older ``cpu_sweep.csv`` is the unsound sequential sweep of a
loaded machine and is not used here. Writes:

- Fig. A.4 on the CPU: predicted vs measured time, every variant;
- Fig. A.7 on the CPU: the tile-selection strategies per problem;
- the RMSE per stencil and thread count beside the noise floor, and the tuner's curve;
- tables of the scores (every variant and fitted variant, per stencil, memory level and
  thread count, with bootstrap intervals and noise floors), tile selection and the
  degenerate tiles.

The notebook ``notebooks/02_validate.ipynb`` calls these same functions.
"""

from __future__ import annotations

import csv
from pathlib import Path

from costmetrics import validate as cv
from costmetrics.measure import load_calibration, read_table
from costmetrics.presets import data_dir
from costmetrics.report import ExperimentResult, ReproducedValue

SOURCE = "000 App. A"


def shipped_paths() -> tuple[Path, tuple[Path, ...]]:
    """Return the shipped protocol sweep and its calibration folders (1 and 2 threads)."""
    root = data_dir() / "measurements"
    return (
        root / "cpu_sweep_protocol.csv",
        (root / "cpu_calibration_1t", root / "cpu_calibration_2t"),
    )


def shipped_report() -> cv.ValidationReport:
    """Validate the time model on the shipped protocol sweep (micro-benchmark calibrations)."""
    table, cals = shipped_paths()
    return cv.validate(table, cals)


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
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

    fig = cv.plot_predicted_vs_measured(report, f"Fig. A.4 on the CPU: {where}")
    path = out_dir / "validation_pred_vs_measured.png"
    fig.savefig(path, dpi=120)
    result.files.append(path)
    fig = cv.plot_selection(report, f"Tile selection (Fig. A.7 on the CPU): {where}")
    path = out_dir / "validation_selection.png"
    fig.savefig(path, dpi=120)
    result.files.append(path)
    for variant in ("exact", "machine"):
        if variant in report.scores:
            fig = cv.plot_noise(
                report, variant=variant, title=f"{variant}: RMSE and noise floor ({where})"
            )
            path = out_dir / f"validation_noise_{variant}.png"
            fig.savefig(path, dpi=120)
            result.files.append(path)
    fig = cv.plot_tuner_curve(report, f"Measured tuner: best of the top k ({where})")
    path = out_dir / "validation_tuner_curve.png"
    fig.savefig(path, dpi=120)
    result.files.append(path)

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

    cpu_report = cv.validate(table, cal, time="cpu")
    fig = cv.plot_predicted_vs_measured(
        cpu_report, f"Fig. A.4 on the CPU, worker-thread CPU time (load-robust proxy): {where}"
    )
    path = out_dir / "validation_pred_vs_measured_cpu_time.png"
    fig.savefig(path, dpi=120)
    result.files.append(path)
    fig = cv.plot_selection(cpu_report, f"Tile selection, thread CPU time: {where}")
    path = out_dir / "validation_selection_cpu_time.png"
    fig.savefig(path, dpi=120)
    result.files.append(path)

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
