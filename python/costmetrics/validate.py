"""Validate the execution-time model against measured tiled stencils (thesis 000, A.5-A.6).

Predictions come from the time model's C++ core (:func:`costmetrics.time.talg_batch`)
with the machine parameters of a :class:`costmetrics.measure.Calibration`; this module
groups rows, scores and plots:

- :func:`score`: relative RMSE over all points and over the points within 20% of the best
  per (stencil, size) (Sec. A.5.2), for the ``paper`` and ``exact`` variants;
- :func:`fit`: a separately labelled "fitted" variant that fits L, tau_sync, T_sync and
  C_iter (per stencil) by least squares on a training split, scored only on the held-out
  rows;
- :func:`selection`: tile selection as A.6.2-A.6.4 (error of the predicted optimum against
  the best measured point; gain of the best point within 10% over the "largest tile that
  fits" baseline);
- :func:`degenerate`: the tiles tS1 = 1, tT = 2 where the ``paper`` variant predicts about
  half the ideal time;
- :func:`validate`: all of it (its figures, Fig. A.4 among them, are drawn by
  :mod:`costmetrics.experiments.validate`).

See ``docs/validate.md``.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from costmetrics import _convert, _core
from costmetrics import time as cm_time
from costmetrics._record import Record, record
from costmetrics.measure import (
    MEMORY_LEVELS,
    PREFETCH_AHEAD_WORDS,
    Calibration,
    DramShareCurve,
    Point,
    Table,
    _check_resumable,
    _header_value,
    _l3_in_effect,
    _pass_times_array,
    _refuse_failed_runs,
    _segment_words_of,
    _statistic_name,
    check_current_harness,
    check_same_machine,
    default_schedule,
    dram_share_curve,
    harness_tiles,
    load_calibration,
    point_statistic,
    read_table,
)

__all__ = [
    "PREFETCH_AHEAD_WORDS",
    "VARIANTS",
    "DegenerateRow",
    "DramSplit",
    "FitResult",
    "GroupScore",
    "Score",
    "SelectionRow",
    "TunerCurve",
    "ValidationReport",
    "bootstrap_rmse",
    "check_confirm_output",
    "confirm_passes_of",
    "confirm_selection",
    "confirmation_points",
    "confirmed_curve",
    "degenerate",
    "dram_split",
    "fit",
    "noise_floor",
    "predict",
    "relative_rmse",
    "run_folder_calibrations",
    "score",
    "selection",
    "selection_floor",
    "selection_summary",
    "split_selection_floor",
    "top_mask",
    "tuner_curve",
    "tuner_curve_of",
    "validate",
    "variants",
]


def variants() -> tuple[str, ...]:
    """Return the time-model variants the core exposes (``costmetrics.time.Variant``).

    Validation, the fitted variants and the tuner iterate over these, so a variant added
    to the time model is validated without changes here.

    Returns
    -------
    tuple of str
        E.g. ``("paper", "exact")``.
    """
    names = getattr(cm_time, "VARIANTS", None)
    if names is None:
        names = typing.get_args(cm_time.Variant)
    return tuple(str(n) for n in names)


VARIANTS: tuple[str, ...] = variants()
_Problem = tuple[str, tuple[int, ...]]
#: A run as the harness ran it: tiles (clipped as :func:`harness_tiles` runs them),
#: threads, schedule.
_Run = tuple[tuple[int, ...], int, str]


def _check_variant(variant: object) -> Any:
    """Return the variant's name as the core parses it (TypeError, ValueError otherwise)."""
    from costmetrics import _core

    return str(_core.time.check_variant(variant))


def _table(table: Table | str | Path, name: str = "table") -> Table:
    """Return the table of one row per point (:meth:`Table.per_point`) of a table or path.

    ``name`` is the argument's name in the error of a wrong type. A table that holds a run
    whose correctness check failed is refused (:func:`_refuse_failed_runs`), by every
    scoring function as by :func:`validate`: its time is not the stencil's.
    """
    if isinstance(table, Table):
        _refuse_failed_runs(table, name, f"the {name}")
        return table.per_point()
    if isinstance(table, (str, Path)):
        raw = read_table(table)
        _refuse_failed_runs(raw, name, str(table))
        return raw.per_point()
    raise TypeError(f"{name}: expected a Table or a path, got {type(table).__name__}")


def _one_calibration(cal: object) -> Calibration:
    if isinstance(cal, Calibration):
        return cal
    if isinstance(cal, (str, Path)):
        return load_calibration(cal)
    raise TypeError(f"calibration: expected a Calibration or a path, got {type(cal).__name__}")


def run_folder_calibrations(folder: str | Path) -> list[Path]:
    """Return a validation run folder's calibrations at 1 and 2 threads.

    ``benchmarks/bench_validate_run.py`` writes them as ``cal_1t/`` and ``cal_2t/`` beside
    ``sweep.csv``; the shipped tables in ``data/measurements`` name them ``calibration_1t/``
    and ``calibration_2t/``. Either layout is found.

    Parameters
    ----------
    folder : str or Path
        The run folder.

    Returns
    -------
    list of Path
        The 1-thread and the 2-thread calibration folders, for :func:`fit` and
        :func:`predict`.

    Raises
    ------
    TypeError
        If ``folder`` is not a path.
    ValueError
        If the folder holds neither layout's two calibrations.
    """
    if not isinstance(folder, (str, Path)):
        raise TypeError(f"folder: expected a str or pathlib.Path, got {type(folder).__name__}")
    root = Path(folder)
    for stem in ("cal", "calibration"):
        found = [root / f"{stem}_{n}t" for n in (1, 2)]
        if all(p.is_dir() for p in found):
            return found
    raise ValueError(f"folder: {root} holds neither cal_1t/ nor calibration_1t/ (and 2t)")


def _calibrations(cal: object) -> dict[int, Calibration]:
    """Calibrations keyed by the thread count (n_sm) they were measured with."""
    if isinstance(cal, (Calibration, str, Path)):
        items = [_one_calibration(cal)]
    elif isinstance(cal, (bytes, bytearray)):  # a Sequence of ints, not of calibrations
        raise TypeError(
            f"calibration: expected a Calibration, a path, or several, got {type(cal).__name__}"
        )
    elif isinstance(cal, Mapping):
        items = [_one_calibration(c) for c in cal.values()]
    elif isinstance(cal, Sequence):
        items = [_one_calibration(c) for c in cal]
    else:
        raise TypeError(
            f"calibration: expected a Calibration, a path, or several, got {type(cal).__name__}"
        )
    if not items:
        raise ValueError("calibration: no calibration given")
    out: dict[int, Calibration] = {}
    for c in items:
        n = int(c.gpu.n_sm)
        if n in out:
            raise ValueError(f"calibration: two calibrations for {n} thread(s)")
        out[n] = c
    first = next(iter(out.values()))
    for c in out.values():
        check_same_machine(c.machine, "calibration", first.machine)
    return out


def _check_calibrations_fit_table(raw: Table, cals: Mapping[int, Calibration]) -> None:
    """Raise unless every calibration of ``cals`` can score the table ``raw``.

    :func:`validate`'s checks, before any work (``benchmarks/bench_validate_rescore.py``
    makes them on each folder before it scores any): each calibration comes from the
    machine that measured the table (where the table records one) and from the table's
    harness version (where it records one), and has a C_iter for each of its stencils.

    Raises
    ------
    ValueError
        Naming ``calibration`` and what differs or lacks.
    """
    machine = raw.machine
    if machine:  # a calibration must come from the machine that measured the table
        for c in cals.values():
            check_same_machine(c.machine, "calibration", machine, current_name="the table")
    version = _header_value(raw.comments, "harness")
    if version is not None:  # and from the table's harness version (issue 21, bad input)
        for c in cals.values():
            check_current_harness(c.machine.get("harness_version"), "calibration", version)
    in_table = sorted({str(n) for n in raw.stencil})
    for n, c in sorted(cals.items()):
        # A stencil without a C_iter was skipped: its points predicted NaN, and every
        # score came out NaN ("n 0 -" at the CLI) with no word of why.
        lacking = [name for name in in_table if name not in c.stencils]
        if lacking:
            raise ValueError(
                f"calibration: the {n}-thread calibration has no C_iter for the table's "
                f"stencil(s) {lacking} (it has {sorted(c.stencils)})"
            )


def _nearest_threads(cals: Mapping[int, Calibration], threads: int) -> Calibration:
    """Return the calibration (or fitted frame) of ``threads`` threads, else the nearest.

    The nearest is the closest thread count, the fewer on a tie, returned unchanged.
    """
    return cals[min(cals, key=lambda n: (abs(n - threads), n))]


def _for_threads(cals: dict[int, Calibration], threads: int) -> Calibration:
    """Return the calibration measured with ``threads`` threads, or a stand-in.

    The stand-in is the calibration measured with the closest count, with n_sm set to
    ``threads`` (its L, T_sync, C_iter were measured with another number of cores
    streaming at once; :func:`validate` reports it).
    """
    if threads in cals:
        return cals[threads]
    c = _nearest_threads(cals, threads)
    return replace(c, gpu=replace(c.gpu, n_sm=threads))


def _groups(table: Table, by_threads: bool = True) -> dict[Any, npt.NDArray[np.intp]]:
    groups: dict[Any, list[int]] = {}
    for i in range(len(table)):
        key: Any = (table.stencil[i], table.sizes_of(i))
        if by_threads:
            key = (*key, int(table.threads[i]))
        groups.setdefault(key, []).append(i)
    # In the problems' own order (stencil, sizes, threads), not the order of their first
    # rows: the selection rows and tuner curves of a table then do not depend on the
    # order its rows were measured in.
    return {k: np.asarray(groups[k], dtype=np.intp) for k in sorted(groups)}


def _tile_rows(table: Table, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
    return np.asarray([table.tiles_of(int(i)) for i in rows], dtype=np.int64)


# --------------------------------------------------------------------------------------
# Predictions, noise and scores
# --------------------------------------------------------------------------------------


def predict(
    table: Table | str | Path, calibration: Any, *, variant: str = "exact"
) -> npt.NDArray[np.float64]:
    """Predicted T_alg for every point of a measurement table (NaN where infeasible).

    Parameters
    ----------
    table : Table or path
        Measurements (:func:`costmetrics.measure.read_table`); predictions are per point
        (the rows of :meth:`costmetrics.measure.Table.medians`).
    calibration : Calibration, path, or several
        Machine preset and C_iter per stencil; with several (one per thread count), a
        row is predicted with the calibration measured at its thread count (else the
        nearest, with n_sm set to the row's threads).
    variant : str
        A time-model variant (:func:`variants`).

    Returns
    -------
    numpy.ndarray
        Seconds per point; NaN where the tile violates Eq. A.32 on the calibrated machine
        (e.g. M_tile above the buffer budget) or the stencil has no C_iter.
    """
    t, cals, v = _table(table), _calibrations(calibration), _check_variant(variant)
    return _predict(t, cals, v)


def _schedule_groups(table: Table) -> dict[Any, npt.NDArray[np.intp]]:
    """Rows per (stencil, sizes, threads, schedule): the unit of one model evaluation."""
    groups: dict[Any, list[int]] = {}
    for i in range(len(table)):
        key = (table.stencil[i], table.sizes_of(i), int(table.threads[i]), table.schedule[i])
        groups.setdefault(key, []).append(i)
    return {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}


def _without_machine_terms(cal: Calibration) -> Calibration:
    """Return the calibration whose preset has no ``machine``-variant terms."""
    return replace(cal, gpu=cal.gpu.without_machine_terms())


def _with_schedule(cal: Calibration, schedule: str) -> Calibration:
    """Return the calibration whose preset describes the schedule the rows ran with.

    The ``machine`` variant's false-sharing term depends on how the harness dealt the
    tiles (``tile_schedule``); every row says which schedule ran it (its ``schedule``
    column), so the model is evaluated with that one, never the preset's default.
    """
    if cal.gpu.tile_schedule == schedule:
        return cal
    return replace(cal, gpu=replace(cal.gpu, tile_schedule=schedule))


def _predict(t: Table, cals: dict[int, Calibration], v: Any) -> npt.NDArray[np.float64]:
    out = np.full(len(t), np.nan)
    for (name, sizes, threads, schedule), rows in _schedule_groups(t).items():
        cal = _with_schedule(_for_threads(cals, threads), schedule)
        if name not in cal.stencils:
            continue
        batch = cm_time.talg_batch(
            cal.stencils[name], cal.gpu, sizes, _tile_rows(t, rows), variant=v
        )
        out[rows] = batch.talg_s
    return out


def relative_rmse(measured: npt.ArrayLike, predicted: npt.ArrayLike) -> float:
    """Relative root-mean-square error ``sqrt(mean(((predicted - measured) / measured)^2))``.

    Parameters
    ----------
    measured, predicted : array_like
        Same shape; measured values positive.

    Returns
    -------
    float
        The RMSE as a fraction (0.1 = 10%); NaN for empty input.

    Raises
    ------
    TypeError
        If an argument holds anything but real numbers (text, bools, complex numbers).
    ValueError
        If the shapes differ, a measured value is not positive and finite, or a
        predicted one is not finite.
    OverflowError
        If a relative error does not fit a double (a measured value so small against
        its prediction, e.g. the subnormal 1e-320, that the ratio overflows).

    Examples
    --------
    >>> relative_rmse([1.0, 2.0], [1.5, 1.0])  # errors +50% and -50%
    0.5
    >>> relative_rmse([1.0], [1.0 + 2**-52])  # one part in 2^52, not rounded away
    2.220446049250313e-16
    """
    m = _convert.real_array(measured, "measured")
    p = _convert.real_array(predicted, "predicted")
    if m.shape != p.shape:
        raise ValueError(f"measured, predicted: shapes differ: {m.shape} vs {p.shape}")
    if m.size == 0:
        return float("nan")
    if not (np.all(np.isfinite(m)) and np.all(m > 0)):
        raise ValueError("measured: values must be positive and finite")
    if not np.all(np.isfinite(p)):
        raise ValueError("predicted: values must be finite")
    with np.errstate(over="ignore"):
        squared = ((p - m) / m) ** 2
    if not np.all(np.isfinite(squared)):
        i = np.unravel_index(int(np.argmax(~np.isfinite(squared))), m.shape)
        raise OverflowError(
            f"measured: the relative error of predicted {float(p[i])!r} against measured "
            f"{float(m[i])!r} does not fit a double"
        )
    # The sum is exact before its one rounding (math.fsum): a relative error of 3e-16 is
    # reported as such, not rounded to 0 (the result was rounded to 15 decimals).
    terms = squared.ravel().tolist()
    try:
        mean = math.fsum(terms) / len(terms)
    except OverflowError:
        # Each square fits a double but their sum does not; the root does once scaled.
        top = max(terms)
        mean = math.fsum(t / top for t in terms) / len(terms) * top
    return math.sqrt(mean)


def _pass_times(pass_times_s: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Pass times as a (points, passes) array: each finite and > 0, or NaN (not measured)."""
    p = _pass_times_array(pass_times_s)
    if p.ndim != 2:
        raise ValueError(f"pass_times_s: expected a 2-D array, got shape {p.shape}")
    return p


def noise_floor(pass_times_s: npt.ArrayLike, statistic: str = "median") -> float:
    """RMS relative difference between the statistics of two disjoint halves of the passes.

    For each point (row) with at least one pass in each half, the passes with even
    index form one half and the odd ones the other (both halves spread over the whole
    sweep); ``d = (stat_even - stat_odd) / stat_all`` with ``stat`` the median (or the
    minimum, :func:`costmetrics.measure.point_statistic`); the floor is
    ``sqrt(mean(d^2))`` over those points. It is what two independent runs of half the
    protocol disagree by: an RMSE of a model against the full medians at or below it
    cannot be told apart from measurement noise (a perfect model would score about half
    of it, the noise of a median of all passes).

    Parameters
    ----------
    pass_times_s : array_like
        Shape (points, passes): each pass's time, NaN where a pass lacks the point.
    statistic : {"median", "min"}
        The per-point statistic the scores use.

    Returns
    -------
    float
        The floor as a fraction; NaN when no point has two passes.
    """
    p = _pass_times(pass_times_s)
    _statistic_name(statistic)
    if p.shape[1] < 2 or p.shape[0] == 0:
        return float("nan")
    even = point_statistic(p[:, 0::2], statistic, axis=1)
    odd = point_statistic(p[:, 1::2], statistic, axis=1)
    everything = point_statistic(p, statistic, axis=1)
    ok = np.isfinite(even) & np.isfinite(odd) & (everything > 0)
    if not ok.any():
        return float("nan")
    d = (even[ok] - odd[ok]) / everything[ok]
    return float(np.sqrt(np.mean(d**2)))


def _check_n_boot(n_boot: object, level: float = 0.95) -> int:
    """Return ``n_boot`` if it gives a ``level`` percentile interval (:func:`bootstrap_rmse`)."""
    n = _convert.integer(n_boot, "n_boot", lo=1, hi=100000)
    n_min = math.ceil(2 / (1 - float(level)) - 1e-9)
    if n < n_min:
        raise ValueError(
            f"n_boot: at least {n_min} replicates for a {100 * float(level):g}% interval "
            f"(one beyond each bound), got {n}"
        )
    return n


def bootstrap_rmse(
    pass_times_s: npt.ArrayLike,
    predicted: npt.ArrayLike,
    n_boot: int = 200,
    seed: int = 0,
    level: float = 0.95,
    resample: str = "points",
    statistic: str = "median",
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of a relative RMSE against pass medians.

    ``resample="points"`` (the default, used by :func:`validate`): each replicate draws
    the points with replacement (each with its median over passes) and recomputes the
    RMSE of the fixed predictions: the uncertainty from which problems and tiles were
    measured. ``"points+passes"`` also redraws each drawn point's passes with
    replacement before taking its median; that adds the measurement noise but biases
    the RMSE upward (a median of redrawn passes is noisier than the median of the
    passes), so its interval can lie above the estimate; the noise is reported
    unbiased by :func:`noise_floor` instead.

    Parameters
    ----------
    pass_times_s : array_like
        Shape (points, passes), NaN where a pass lacks the point.
    predicted : array_like
        Shape (points,), finite.
    n_boot : int
        Replicates: at least ``2 / (1 - level)`` (40 at 95%), so that one replicate lies
        beyond each bound; with fewer the percentile interval is the replicates' range
        and excluded the estimate (all 108 intervals of a shipped run at ``n_boot=1``).
    seed : int
        Seed of the resampling, in ``[0, 2**63 - 1]`` (as a sweep's,
        :func:`costmetrics.measure.measure`).
    level : float
        Confidence level in (0, 1).
    resample : {"points", "points+passes"}
        What each replicate redraws.
    statistic : {"median", "min"}
        The per-point statistic in place of the median
        (:func:`costmetrics.measure.point_statistic`).

    Returns
    -------
    tuple of float
        (low, high) fractions; (NaN, NaN) for no points. Points without any pass are
        left out.

    Raises
    ------
    ValueError
        Mismatched shapes, a prediction that is not finite, a bad ``level``,
        ``resample``, ``n_boot``, ``seed`` or ``statistic``.
    OverflowError
        If a relative error overflows a double.
    """
    p = _pass_times(pass_times_s)
    pred = _convert.real_array(predicted, "predicted")
    if pred.shape != (p.shape[0],):
        raise ValueError(f"pass_times_s, predicted: shapes {p.shape} and {pred.shape} differ")
    if not 0 < _convert.real(level, "level") < 1:
        raise ValueError(f"level: must be in (0, 1), got {level!r}")
    if resample not in ("points", "points+passes"):
        raise ValueError(f"resample: must be 'points' or 'points+passes', got {resample!r}")
    n_boot = _check_n_boot(n_boot, level)
    seed = _convert.integer(seed, "seed", lo=0, hi=2**63 - 1)
    _statistic_name(statistic)
    if not np.all(np.isfinite(pred)):
        bad = int(np.argmax(~np.isfinite(pred)))
        raise ValueError(f"predicted[{bad}]: must be finite, got {pred[bad]!r}")
    # A point without any pass has no statistic: it would make every replicate NaN
    # (noise_floor skips such points too).
    measured = np.any(np.isfinite(p), axis=1)
    p, pred = p[measured], pred[measured]
    n, k = p.shape
    if n == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    pts = rng.integers(0, n, size=(n_boot, n))
    if resample == "points":
        med = point_statistic(p, statistic, axis=1)[pts]
    else:
        # Compact each point's finite passes to the left so that draws hit real ones, and
        # draw as many passes as the point has (its first count draws; the rest NaN): k
        # draws from a point of fewer passes would narrow its spread, and the interval
        # would depend on the array's NaN padding.
        count = np.sum(np.isfinite(p), axis=1)
        order = np.argsort(~np.isfinite(p), axis=1, kind="stable")
        packed = np.take_along_axis(p, order, axis=1)
        drawn_count = count[pts][:, :, None]
        draws = (rng.random((n_boot, n, k)) * drawn_count).astype(np.intp)
        values = packed[pts[:, :, None], draws]
        values[np.arange(k)[None, None, :] >= drawn_count] = np.nan
        med = point_statistic(values, statistic, axis=2)
    with np.errstate(over="ignore", invalid="ignore"):
        err = (pred[pts] - med) / med
        rmse = np.sqrt(np.mean(err**2, axis=1))
    if not np.all(np.isfinite(rmse)):
        # As relative_rmse: a relative error past the double range is refused, not NaN.
        raise OverflowError(
            "pass_times_s, predicted: a relative error overflows a double (times near 0 "
            "against large predictions)"
        )
    lo, hi = np.quantile(rmse, [(1 - level) / 2, (1 + level) / 2])
    return (float(lo), float(hi))


def top_mask(table: Table | str | Path, *, within: float = 0.20) -> npt.NDArray[np.bool_]:
    """Points within ``within`` of the best of their (stencil, size, threads) (Sec. A.5.2).

    The seed keeps "the data points that are within 20% of the top performing one" in
    GFLOPS; a point is kept when its performance is at least ``1 - within`` times the
    best, i.e. ``time_s <= best_time / (1 - within)`` (median times, per thread count).

    Parameters
    ----------
    table : Table or path
        Measurements.
    within : float
        Fraction in [0, 1).

    Returns
    -------
    numpy.ndarray
        bool per point (row of :meth:`costmetrics.measure.Table.medians`).
    """
    t = _table(table)
    # Through the converter: a NumPy float (np.float32(0.2)) was refused as out of range.
    within = _convert.real(within, "within")
    if not 0 <= within < 1:
        raise ValueError(f"within: must be in [0, 1), got {within!r}")
    mask = np.zeros(len(t), dtype=bool)
    for rows in _groups(t).values():
        best = t.time_s[rows].min()
        mask[rows] = t.time_s[rows] <= best / (1 - within) * (1 + 1e-12)
    return mask


@record
class GroupScore(Record):
    """A variant's error over one group of points, with its noise floor.

    Attributes
    ----------
    variant : str
        The variant (``fitted-<variant>``: scored out of sample, leave-problem-out).
    stencil, memory_level : str
        The group (``"all"``: every one).
    threads : int
        Thread count of the group (0: every one).
    n_all, n_top : int
        Points scored, and those within 20% of their problem's best.
    rmse_all, rmse_top : float
        Relative RMSE against the per-point median over passes (fraction).
    rmse_all_ci, rmse_top_ci : tuple of float
        95% percentile bootstrap intervals, points resampled (:func:`bootstrap_rmse`).
    median_ratio_all : float
        Median of predicted / measured (below 1: optimistic).
    noise_floor : float
        :func:`noise_floor` of the group's points (NaN with one pass).
    within_noise_all, within_noise_top : bool
        The RMSE is at or below the noise floor.
    """

    variant: str
    stencil: str
    memory_level: str
    threads: int
    n_all: int
    rmse_all: float
    rmse_all_ci: tuple[float, float]
    n_top: int
    rmse_top: float
    rmse_top_ci: tuple[float, float]
    median_ratio_all: float
    noise_floor: float
    within_noise_all: bool
    within_noise_top: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the score as a plain dictionary."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@record
class Score(Record):
    """Relative RMSE of one variant over a table, overall and per group.

    Attributes
    ----------
    variant : str
        A variant of :func:`variants`, or ``fitted-<variant>``.
    n_all, n_top : int
        Points scored (feasible), and those within 20% of their problem's best.
    rmse_all, rmse_top : float
        Relative RMSE (fraction) over them.
    median_ratio_all : float
        Median of predicted / measured over all scored points (below 1: optimistic).
    per_stencil : dict
        ``{stencil: {"n_all", "rmse_all", "n_top", "rmse_top", "median_ratio_all"}}``.
    groups : tuple of GroupScore
        Overall (``stencil = memory_level = "all"``, ``threads = 0``), per stencil, per
        thread count, per memory level, and per (stencil, memory level, threads), each
        with its bootstrap intervals and noise floor.
    """

    variant: str
    n_all: int
    rmse_all: float
    n_top: int
    rmse_top: float
    median_ratio_all: float
    per_stencil: dict[str, dict[str, float]] = field(repr=False)
    groups: tuple[GroupScore, ...] = field(default=(), repr=False)

    @property
    def overall(self) -> GroupScore:
        """The group of every point."""
        return self.groups[0]

    def group(
        self, stencil: str = "all", memory_level: str = "all", threads: int = 0
    ) -> GroupScore:
        """Return the score of one group (KeyError if the table has no such group)."""
        for g in self.groups:
            if (g.stencil, g.memory_level, g.threads) == (stencil, memory_level, threads):
                return g
        raise KeyError((stencil, memory_level, threads))

    def to_dict(self) -> dict[str, Any]:
        """Return the score as a plain dictionary."""
        return {
            "variant": self.variant,
            "n_all": self.n_all,
            "rmse_all": self.rmse_all,
            "n_top": self.n_top,
            "rmse_top": self.rmse_top,
            "median_ratio_all": self.median_ratio_all,
            "per_stencil": self.per_stencil,
            "groups": [g.to_dict() for g in self.groups],
        }


def _score(
    name: str,
    table: Table,
    predicted: npt.NDArray[np.float64],
    top: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.bool_],
    n_boot: int = 200,
    seed: int = 0,
) -> Score:
    use = rows & np.isfinite(predicted)
    passes = table.pass_times_s if table.pass_times_s is not None else table.time_s[:, None]
    # The bootstrap draws points by position: in the points' own order (stencil, sizes,
    # tiles, threads, schedule), so that a seeded interval does not depend on the order
    # of the table's rows (per_point keeps the order of each point's first row, which a
    # shuffled pass sets).
    canonical = np.asarray(sorted(range(len(table)), key=table.key_of), dtype=np.intp)

    def boot(m: npt.NDArray[np.bool_]) -> tuple[float, float]:
        idx = canonical[m[canonical]]
        return bootstrap_rmse(passes[idx], predicted[idx], n_boot, seed, statistic=table.statistic)

    def group(stencil: str, level: str, threads: int, mask: npt.NDArray[np.bool_]) -> GroupScore:
        m_all, m_top = use & mask, use & mask & top
        ratio = predicted[m_all] / table.time_s[m_all]
        floor = noise_floor(passes[mask], table.statistic)
        r_all = relative_rmse(table.time_s[m_all], predicted[m_all])
        r_top = relative_rmse(table.time_s[m_top], predicted[m_top])
        return GroupScore(
            name, stencil, level, threads,
            int(m_all.sum()), r_all, boot(m_all), int(m_top.sum()), r_top, boot(m_top),
            float(np.median(ratio)) if ratio.size else float("nan"), floor,
            bool(r_all <= floor), bool(r_top <= floor),
        )  # fmt: skip

    names = np.asarray(table.stencil)
    levels = np.asarray(table.memory_level)
    every = np.ones(len(table), dtype=bool)
    groups = [group("all", "all", 0, every)]
    groups += [group(s, "all", 0, names == s) for s in sorted(set(table.stencil))]
    groups += [group("all", "all", int(n), table.threads == n) for n in sorted(set(table.threads))]
    groups += [group("all", lv, 0, levels == lv) for lv in MEMORY_LEVELS if (levels == lv).any()]
    if len(set(table.threads)) > 1:
        for s in sorted(set(table.stencil)):
            for n in sorted(set(table.threads)):
                mask = (names == s) & (table.threads == n)
                if mask.any():
                    groups.append(group(s, "all", int(n), mask))
    for s in sorted(set(table.stencil)):
        for lv in MEMORY_LEVELS:
            for n in sorted(set(table.threads)):
                mask = (names == s) & (levels == lv) & (table.threads == n)
                if mask.any():
                    groups.append(group(s, lv, int(n), mask))
    overall = groups[0]
    per = {
        g.stencil: {
            "n_all": g.n_all, "rmse_all": g.rmse_all, "n_top": g.n_top, "rmse_top": g.rmse_top,
            "median_ratio_all": g.median_ratio_all,
        }
        for g in groups[1 : 1 + len(set(table.stencil))]
    }  # fmt: skip
    return Score(
        name, overall.n_all, overall.rmse_all, overall.n_top, overall.rmse_top,
        overall.median_ratio_all, per, tuple(groups),
    )  # fmt: skip


def score(
    table: Table | str | Path,
    calibration: Any,
    *,
    variant: str = "exact",
    within: float = 0.20,
    n_boot: int = 200,
    seed: int = 0,
) -> Score:
    """Relative RMSE of a variant over all points and over the top points (Sec. A.5.2).

    Parameters
    ----------
    table : Table or path
        Measurements (scored per point, against the median over passes).
    calibration : Calibration, path, or several
        Micro-benchmark calibration (never fitted on ``table``); see :func:`predict`.
    variant : str
        A time-model variant (:func:`variants`).
    within : float
        The "top" set: within this fraction of the best per (stencil, size, threads).
    n_boot, seed : int
        Bootstrap replicates of the confidence intervals and their seed.

    Returns
    -------
    Score
        RMSE over all feasible points and over the top points, overall and per group,
        with confidence intervals and noise floors.
    """
    _check_n_boot(n_boot)  # before any work
    t, cals, v = _table(table), _calibrations(calibration), _check_variant(variant)
    rows = np.ones(len(t), dtype=bool)
    return _score(v, t, _predict(t, cals, v), top_mask(t, within=within), rows, n_boot, seed)


# --------------------------------------------------------------------------------------
# The fitted variants, scored leave-problem-out
# --------------------------------------------------------------------------------------


@record
class FitResult(Record):
    """A fitted variant: calibrated parameters scaled by least squares, scored out of sample.

    The score is leave-one-problem-out: the points of each problem (stencil and sizes,
    every tile and thread count) are predicted with parameters fitted on the other
    problems only, never on a random share of the same problems' points.

    Attributes
    ----------
    variant : str
        The time-model variant whose parameters were fitted.
    calibration : Calibration
        Parameters fitted on every problem (for use on new problems), at the thread count
        of the first calibration. For the ``machine`` variant its L3/DRAM split is the
        calibration's copy curve (``gpu.dram_curve_bytes`` and ``gpu.dram_curve_share``,
        :func:`costmetrics.measure.dram_share_curve`) where that rises, else ``1 - C / B``
        at ``gpu.cache_l3_bytes`` (on a machine whose copy points stay inside sysfs's L3,
        the capacity fitted to the copy climb; ``docs/validate-log.md``, "The DRAM share from
        the copy curve").
    parameters : dict of str to float
        The fitted values there: ``l_s_per_word``, ``tau_sync_s``, ``t_sync_s``,
        ``c_iter_s[<stencil>]``.
    factors : dict of str to float
        The fitted multiples of the calibrated values (the same for every thread count).
    n_problems : int
        Problems (folds) of the leave-problem-out score.
    test_score : Score
        The out-of-sample score.
    predicted_s : numpy.ndarray
        The out-of-sample prediction per point.
    calibrations : dict of int to Calibration
        The fitted parameters at each calibrated thread count, for :func:`predict` (the
        same parameters; for the ``machine`` variant each count keeps its own
        calibration's DRAM-share curve where that has a point strictly between 0 and 1,
        ``docs/validate-log.md``, "Each thread count's own DRAM-share curve").
    """

    variant: str
    calibration: Calibration = field(repr=False)
    parameters: dict[str, float]
    factors: dict[str, float]
    n_problems: int
    test_score: Score
    predicted_s: npt.NDArray[np.float64] = field(repr=False)
    calibrations: dict[int, Calibration] = field(repr=False)


_BASE_PARAMETERS = ("l_s_per_word", "tau_sync_s", "t_sync_s")


@record
class DramSplit(Record):
    """How a fitted variant splits the arrays' words between L3 and DRAM (:func:`dram_split`).

    Attributes
    ----------
    rule : str
        ``"streaming copy curve"`` (the share read off the calibration's copy that sweeps
        its segments in order), ``"copy curve"`` (off its random-order copy: calibrations
        before 2026-12-04 08:50 UTC), ``"1 - C / B"`` (at the capacity ``cache_l3_bytes``)
        or ``"none"`` (``paper``, ``exact``: no split).
    array_bytes, dram_share : tuple of float
        The curve's working sets in bytes and their shares (empty without a curve).
    cache_l3_bytes : int
        The capacity of ``"1 - C / B"`` (0 otherwise).
    """

    rule: str
    array_bytes: tuple[float, ...]
    dram_share: tuple[float, ...]
    cache_l3_bytes: int


def dram_split(fit: FitResult) -> DramSplit:
    """Describe how a fitted variant splits the arrays' words between L3 and DRAM.

    Parameters
    ----------
    fit : FitResult
        A fitted variant (:func:`fit`).

    Returns
    -------
    DramSplit
        The rule and its data (``docs/validate-log.md``, "The DRAM share from the copy curve").

    Raises
    ------
    TypeError
        If ``fit`` is not a :class:`FitResult`.
    """
    if not isinstance(fit, FitResult):
        raise TypeError(f"fit: expected a FitResult (validate.fit), got {type(fit).__name__}")
    if fit.variant != "machine":
        return DramSplit("none", (), (), 0)
    cal = fit.calibration
    g = cal.gpu
    if g.dram_curve_bytes:
        streaming = dram_share_curve(cal.micro, threads=int(g.n_sm), order="sequential",
                                     segment_words=_segment_words_of(cal.settings))  # fmt: skip
        rule = "streaming copy curve" if streaming is not None else "copy curve"
        return DramSplit(rule, g.dram_curve_bytes, g.dram_curve_share, 0)
    return DramSplit("1 - C / B", (), (), int(g.cache_l3_bytes))


def _scaled(
    cal: Calibration, names: Sequence[str], factors: npt.NDArray[np.float64]
) -> Calibration:
    g = cal.gpu
    return cal.with_parameters(
        g.l_s_per_word * float(factors[0]),
        g.tau_sync_s * float(factors[1]),
        g.t_sync_s * float(factors[2]),
        {n: cal.c_iter_s(n) * float(factors[3 + i]) for i, n in enumerate(names)},
    )


def _solve(
    columns: npt.NDArray[np.float64], measured: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Solve bounded least squares of the relative error for the factors (>= 1e-6).

    Columns that no training point depends on keep factor 1.
    """
    from scipy.optimize import lsq_linear

    free = np.linalg.norm(columns, axis=0) > 0
    out = np.ones(columns.shape[1])
    if not free.any():
        return out
    fixed = columns[:, ~free] @ out[~free]
    w = 1.0 / measured
    res = lsq_linear(
        columns[:, free] * w[:, None], (measured - fixed) * w, bounds=(1e-6, np.inf),
        method="bvls",
    )  # fmt: skip
    out[free] = np.asarray(res.x)
    return out


#: Parameters of the fitted ``machine`` variant (:func:`fit`), in the order of its
#: columns: the copy cost per word at each memory level (``L + dL[level]``), tau_sync,
#: T_sync, C_iter per stencil (appended), then the per-segment cost, the shared
#: bandwidth per level, the per-line overhead, the barrier per thread, the cost of a
#: cache line written by two threads and the cost per word copied within the tile buffer
#: (``docs/time.md``, "Machine variant"); last, the share of the fewest threads' calibrated
#: C_iter that each thread beyond them adds to every stencil's C_iter
#: (:data:`C_ITER_SHARE_PER_EXTRA_THREAD`).
_MACHINE_FIT_HEAD = (
    *(f"l_s_per_word[{lv}]" for lv in MEMORY_LEVELS), "tau_sync_s", "t_sync_s",
)  # fmt: skip
_MACHINE_FIT_TAIL = (
    "l_seg_s", *(f"l_shared_s_per_word[{lv}]" for lv in MEMORY_LEVELS), "tau_line_s",
    "t_barrier_per_thread_s", "t_share_line_s", "l_buffer_s_per_word", "tau_line_3d_s",
    "t_cross_row_s", "tau_line_3d_dram_s", "l_prefetch_s_per_word", "c_buffer_dram_s",
    "c_iter_share_per_extra_thread",
)  # fmt: skip
#: Name of the fitted ``machine`` variant's compute slow-down with every core busy: its
#: C_iter at ``n`` threads is ``C_iter + (n - n_ref) * share * C_iter_cal``, with
#: ``C_iter_cal`` the fewest threads' calibrated value of the stencil and ``share`` one
#: dimensionless parameter for every stencil. The calibrated variant measures C_iter at
#: each thread count; the fitted one, in the fewest threads' frame, had one C_iter for
#: all of them. On the quiet Intel Xeon guest's tables the share fits at 1.1-2.8%; on an
#: AMD EPYC guest whose host ran the two virtual CPUs slower when both were busy, at
#: 7-27%, and without it the fit charged that slow-down to the words
#: (docs/validate-log.md, "A compute share per extra busy thread").
C_ITER_SHARE_PER_EXTRA_THREAD = "c_iter_share_per_extra_thread"
#: The fitted tail's parameters that are each one scalar field of the preset (``Gpu``) and
#: one column of :func:`costmetrics.time.design_rows`, under the same name: the fit reads
#: and writes them by that name, never by position.
_MACHINE_FIT_SCALARS = tuple(
    name for name in _MACHINE_FIT_TAIL if "[" not in name and name != C_ITER_SHARE_PER_EXTRA_THREAD
)
#: The thread terms, which start at the largest calibrated value (a calibration at one
#: thread measures none of them).
_MACHINE_THREAD_TERMS = ("t_barrier_per_thread_s", "t_share_line_s", "t_cross_row_s")
#: Scale the solver gives a fitted parameter whose calibrated value is 0: seconds for the
#: costs, a share for :data:`C_ITER_SHARE_PER_EXTRA_THREAD`.
_ZERO_SCALE_S = 1e-9
_ZERO_SCALE_SHARE = 1e-2
#: Largest C_iter share per extra thread the fit may take (see :func:`_machine_bounds`).
_C_ITER_SHARE_MAX = 1.0
#: Lower bound of L_seg in the fit: with L_seg > 0 the machine variant charges the copy's
#: fixed cost per segment instead of the transfer's 2 tau_sync (docs/time-model.md), so a
#: fit must stay on that side to stay linear (1e-13 s per segment is negligible).
_L_SEG_FLOOR_S = 1e-13
#: Lower bound of tau_sync, T_sync and C_iter in the fit (the presets require them > 0).
_POSITIVE_FLOOR_S = 1e-15


def _machine_frame(cals: dict[int, Calibration]) -> Calibration:
    """Return the calibration a fitted ``machine`` variant is expressed in (fewest threads).

    Its ``threads_ref`` is its own thread count (1 when a 1-thread calibration is given),
    so the thread terms (shared bandwidth, barrier per thread, shared cache lines) are
    increments over that count and one parameter set predicts every thread count. Its
    L3/DRAM split is the calibration's copy curve (``measure.dram_share_curve``) where that
    rises, else ``1 - C / B`` with the capacity of :func:`_fitted_l3_bytes`. The words a
    prefetcher streams past a run are the calibration's, or :data:`PREFETCH_AHEAD_WORDS`.
    """
    cal = cals[min(cals)]
    g = cal.gpu
    curve = _stencil_dram_curve(cal)
    g = replace(
        g, threads_ref=g.threads_ref or g.n_sm, l_seg_s=max(g.l_seg_s, _L_SEG_FLOOR_S),
        cache_l3_bytes=_fitted_l3_bytes(cal),
        dram_curve_bytes=curve.array_bytes if curve else (),
        dram_curve_share=curve.dram_share if curve else (),
        prefetch_ahead_words=g.prefetch_ahead_words or PREFETCH_AHEAD_WORDS,
    )  # fmt: skip
    return replace(cal, gpu=g)


def _machine_frames(cals: dict[int, Calibration]) -> dict[int, Calibration]:
    """Return the fitted ``machine`` variant's frame at each calibrated thread count.

    Each is :func:`_machine_frame` (the fewest threads' parameters) at that thread count,
    with that count's own DRAM-share curve where the frame splits by a copy curve and the
    count's curve has a point strictly between 0 and 1: with more threads streaming, the
    copy benchmark's arrays stay in L3 up to a larger size (on the Intel Xeon guest 0 at
    8 MiB and 0.50-0.53 at 32 MiB with 2 threads, against 0.26 and 0.62 with one), and the
    stencils' words follow the curve of their own thread count (``docs/validate-log.md``, "Each
    thread count's own DRAM-share curve"). A curve that jumps from 0 to 1 (the older
    calibrations' two copy points) tells nothing between them; the frame's is kept there.
    """
    frame = _machine_frame(cals)
    out: dict[int, Calibration] = {}
    for n, cal in cals.items():
        g = frame.gpu.with_threads(n)
        curve = _stencil_dram_curve(cal)
        if frame.gpu.dram_curve_bytes and curve and any(0 < x < 1 for x in curve.dram_share):
            g = replace(g, dram_curve_bytes=curve.array_bytes, dram_curve_share=curve.dram_share)
        out[n] = replace(frame, gpu=g)
    return out


def _stencil_dram_curve(cal: Calibration) -> DramShareCurve | None:
    """Return the DRAM-share curve the fitted ``machine`` variant reads at ``cal``'s threads.

    The copy that streams (``order="sequential"``) where the calibration measured it and it
    rises, else the random-order copy curve: the stencils stream their arrays, and on the
    Zen 5 guest a random copy's cost per word climbs from 8 MiB, where a streaming
    stencil's time per point does not (``docs/validate-log.md``, "The DRAM share of a copy
    that streams"). Calibrations before 2026-12-04 08:50 UTC have only the random order.
    """
    seg = _segment_words_of(cal.settings)
    n = int(cal.gpu.n_sm)
    stream = dram_share_curve(cal.micro, threads=n, segment_words=seg, order="sequential")
    return stream or dram_share_curve(cal.micro, threads=n, segment_words=seg)


def _fitted_l3_bytes(cal: Calibration) -> int:
    """L3 capacity in effect for the fitted ``machine`` variant's split of L3 and DRAM.

    The calibration's own (``effective_l3_bytes``), except where its copy points stay
    inside sysfs's L3 (no DRAM-level point: a large L3 and the copy curve's climb): there
    the largest copy array stands for DRAM, and the capacity is fitted to the climb. The
    fit then learns the L3 and DRAM costs per word from the stencils, so arrays of
    different sizes inside a large L3 get different costs; the calibrated variant keeps
    sysfs's size, since the copy benchmark's cost at the top of the climb is not what the
    stencils pay (``docs/validate-log.md``, "A second machine" and "The L3 in effect of the
    fitted variant").
    """
    g = cal.gpu
    sysfs = cal.machine.get("l3_bytes", g.cache_l3_bytes)
    sysfs = int(sysfs) if isinstance(sysfs, (int, float)) and sysfs > 0 else int(g.cache_l3_bytes)
    climb = _l3_in_effect(cal.micro, cal.settings, sysfs, threads=int(g.n_sm),
                          climb_top_as_dram=True)  # fmt: skip
    return min(int(g.cache_l3_bytes), climb)


def _machine_start(cals: dict[int, Calibration], frame: Calibration, names: Sequence[str]) -> Any:
    """Calibrated values of the fitted parameters (the frame's; thread terms: the largest).

    The C_iter share per extra thread starts at the calibrations' own
    (:func:`_calibrated_c_iter_share`).
    """
    g = frame.gpu
    head = [g.l_s_per_word + d for d in g.l_level_s_per_word] + [g.tau_sync_s, g.t_sync_s]
    c_iter = [frame.c_iter_s(n) for n in names]
    gs = [c.gpu for c in cals.values()]
    at: dict[str, float] = {n: float(getattr(g, n)) for n in _MACHINE_FIT_SCALARS}
    at.update({n: max(float(getattr(x, n)) for x in gs) for n in _MACHINE_THREAD_TERMS})
    for k, lv in enumerate(MEMORY_LEVELS):
        at[f"l_shared_s_per_word[{lv}]"] = max(x.l_shared_s_per_word[k] for x in gs)
    at[C_ITER_SHARE_PER_EXTRA_THREAD] = _calibrated_c_iter_share(cals, names)
    tail = [at[n] for n in _MACHINE_FIT_TAIL]
    return np.asarray(head + c_iter + tail, dtype=np.float64)


def _calibrated_c_iter_share(cals: Mapping[int, Calibration], names: Sequence[str]) -> float:
    """Return the calibrations' own C_iter share per extra thread (0 with one calibration).

    The median over ``names`` of ``(C_iter(n) / C_iter(n_min) - 1) / (n - n_min)`` between
    the most and the fewest threads' calibrations, in [0, 1]: the start of
    :data:`C_ITER_SHARE_PER_EXTRA_THREAD` in the fit, and its value where no point
    informs it.
    """
    lo, hi = min(cals), max(cals)
    if hi == lo or not names:
        return 0.0
    ratios = [cals[hi].c_iter_s(n) / cals[lo].c_iter_s(n) - 1.0 for n in names]
    return min(_C_ITER_SHARE_MAX, max(0.0, float(np.median(ratios)) / (hi - lo)))


def _machine_design(
    t: Table, frames: Mapping[int, Calibration], names: Sequence[str]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Columns of T_alg in the fitted parameters, per point, from the C++ design rows.

    Each point is evaluated at its own thread count (``Gpu.with_threads``) and schedule
    (its ``schedule`` column), in ``frames``' frame of that count (:func:`_machine_frames`,
    the nearest count's where it has none); the copy-cost column goes to the column of
    the point's memory level (split between L3 and DRAM by the arrays' DRAM share,
    :func:`costmetrics.time.dram_share`) and C_iter to the column of its stencil; the
    C_iter column times the frame's threads beyond the fewest and the fewest threads'
    calibrated C_iter of the stencil is the column of
    :data:`C_ITER_SHARE_PER_EXTRA_THREAD`.
    """
    n_lv = len(MEMORY_LEVELS)
    cols = np.zeros((len(t), len(_MACHINE_FIT_HEAD) + len(names) + len(_MACHINE_FIT_TAIL)))
    ok = np.zeros(len(t), dtype=bool)
    index = {n: i for i, n in enumerate(names)}
    fewest = frames[min(frames)]
    share = _tail_index(len(names), C_ITER_SHARE_PER_EXTRA_THREAD)
    # Each fitted column and the design rows' column it reads, by name (head: L + dL per
    # level, tau_sync, T_sync; tail: the shared bandwidth per level and the scalars).
    design = {n: j for j, n in enumerate(cm_time.DESIGN_PARAMETERS)}
    pairs = [(k, design[f"l_level_s_per_word[{lv}]"]) for k, lv in enumerate(MEMORY_LEVELS)]
    pairs += [(n_lv, design["tau_sync_s"]), (n_lv + 1, design["t_sync_s"])]
    pairs += [
        (
            _tail_index(len(names), f"l_shared_s_per_word[{lv}]"),
            design[f"l_shared_s_per_word[{lv}]"],
        )
        for lv in MEMORY_LEVELS
    ]
    pairs += [(_tail_index(len(names), n), design[n]) for n in _MACHINE_FIT_SCALARS]
    fitted, read = np.array(pairs, dtype=np.intp).T
    c_iter = design["c_iter_s"]
    for (name, sizes, threads, schedule), rows in _schedule_groups(t).items():
        if name not in index:
            continue
        here = _nearest_threads(frames, threads)
        gpu = replace(here.gpu.with_threads(threads), tile_schedule=schedule)
        stencil = here.stencils[name]
        d = cm_time.design_rows(stencil, gpu, sizes, _tile_rows(t, rows), variant="machine")
        r = d.rows
        block = np.zeros((rows.size, cols.shape[1]))
        # Each fitted column from the design column of its name; for the head's L + dL[level]
        # that is the dL column: the coefficient of L split over the levels the arrays
        # stream from (one level, or L3 and DRAM by cm_time.dram_share).
        block[:, fitted] = r[:, read]
        block[:, n_lv + 2 + index[name]] = r[:, c_iter]  # C_iter of this stencil
        # The C_iter of the frame's thread count: that of the fewest threads plus the
        # share per extra thread of their calibrated C_iter (_machine_calibration).
        block[:, share] = r[:, c_iter] * _extra_threads(here) * fewest.c_iter_s(name)
        cols[rows] = block
        ok[rows] = d.reasons == 0
    return cols, ok


def _machine_calibration(
    frame: Calibration, names: Sequence[str], theta: npt.NDArray[np.float64]
) -> Calibration:
    """Return the fitted parameters as a calibration (a preset the C++ model validates).

    ``frame`` is one of :func:`_machine_frames`' frames, whose C_iter are still the fewest
    threads' calibrated values: each stencil's C_iter is its fitted value plus the
    frame's threads beyond the fewest times :data:`C_ITER_SHARE_PER_EXTRA_THREAD` times
    that calibrated value.
    """
    n_lv = len(MEMORY_LEVELS)
    g = frame.gpu
    l_ref = g.l_s_per_word
    at = {n: float(theta[_tail_index(len(names), n)]) for n in _MACHINE_FIT_TAIL}
    scalars: dict[str, Any] = {n: at[n] for n in _MACHINE_FIT_SCALARS}
    # T_sync with the barrier per thread, in one step: the preset refuses a barrier per
    # thread past T_sync / (threads_ref - 1), and the frame's calibrated T_sync with a
    # fitted barrier above it was refused (2026-12-02: a CI smoke sweep on a loaded host).
    gpu = replace(
        g,
        l_level_s_per_word=tuple(float(theta[k]) - l_ref for k in range(n_lv)),
        l_shared_s_per_word=tuple(at[f"l_shared_s_per_word[{lv}]"] for lv in MEMORY_LEVELS),
        t_sync_s=float(theta[n_lv + 1]),
        **scalars,
    )
    cal = replace(frame, gpu=gpu)
    share = at[C_ITER_SHARE_PER_EXTRA_THREAD]
    extra = _extra_threads(frame) * share
    return cal.with_parameters(
        l_ref, float(theta[n_lv]), float(theta[n_lv + 1]),
        {n: float(theta[n_lv + 2 + i]) + extra * frame.c_iter_s(n) for i, n in enumerate(names)},
    )  # fmt: skip


def _tail_index(n_names: int, name: str) -> int:
    """Return the index of a :data:`_MACHINE_FIT_TAIL` parameter among the fitted ones.

    The tail follows the head and the C_iter of ``n_names`` stencils.
    """
    return len(_MACHINE_FIT_HEAD) + n_names + _MACHINE_FIT_TAIL.index(name)


def _extra_threads(frame: Calibration) -> int:
    """Threads of a :func:`_machine_frames` frame beyond the fewest (its ``threads_ref``)."""
    g = frame.gpu
    return int(g.n_sm) - int(g.threads_ref or g.n_sm)


def _leave_problem_out(
    t: Table,
    columns: npt.NDArray[np.float64],
    usable: npt.NDArray[np.bool_],
    solve: Callable[..., npt.NDArray[np.float64]],
    *,
    with_rows: bool = False,
) -> tuple[npt.NDArray[np.float64], int]:
    """Predict each problem (stencil, sizes) from a fit on the usable rows of all the others.

    ``solve(columns, measured)`` returns the fitted parameters (``with_rows``: also given
    the boolean mask of the training rows, ``solve(columns, measured, rows)``); the
    prediction is ``columns @ parameters``. Returns the out-of-sample predictions (NaN
    outside ``usable`` and for a problem with nothing else to train on) and the number of
    problems.

    Raises
    ------
    ValueError
        With fewer than two problems.
    """
    problems = _groups(t, by_threads=False)
    if len(problems) < 2:
        raise ValueError("table: leave-problem-out needs at least two problems (stencil, sizes)")
    out_of_sample = np.full(len(t), np.nan)
    for rows in problems.values():
        train = usable.copy()
        train[rows] = False
        if not train.any():
            continue
        args = (
            (columns[train], t.time_s[train], train)
            if with_rows
            else (columns[train], t.time_s[train])
        )
        out_of_sample[rows] = columns[rows] @ solve(*args)
    out_of_sample[~usable] = np.nan
    return out_of_sample, len(problems)


def _solve_bounded(
    columns: npt.NDArray[np.float64],
    measured: npt.NDArray[np.float64],
    start: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64] | None = None,
    zero_scale: npt.NDArray[np.float64] | None = None,
) -> npt.NDArray[np.float64]:
    """Bounded least squares of the relative error for absolute parameter values.

    Columns are scaled by the calibrated values (``start``, or ``zero_scale`` where that
    is 0, by default 1e-9: seconds) so that the solver sees numbers of order 1; a column
    no training point depends on keeps its calibrated value, and so does one whose bounds
    leave no room (``upper <= lower``). ``upper`` defaults to no upper bound.
    """
    from scipy.optimize import lsq_linear

    if upper is None:
        upper = np.full(start.size, np.inf)
    if zero_scale is None:
        zero_scale = np.full(start.size, _ZERO_SCALE_S)
    scale = np.where(start > 0, start, zero_scale)
    free = (np.linalg.norm(columns, axis=0) > 0) & (upper > lower)
    out = np.where(upper > lower, start, np.clip(start, lower, upper))
    if not free.any():
        return out
    fixed = columns[:, ~free] @ out[~free]
    w = 1.0 / measured
    a = columns[:, free] * scale[free] * w[:, None]
    res = lsq_linear(
        a, (measured - fixed) * w, bounds=(lower[free] / scale[free], upper[free] / scale[free]),
        method="bvls",
    )  # fmt: skip
    # BVLS keeps the bounds up to rounding (a value of -1e-24 was seen for a bound of 0);
    # the presets refuse any negative time, so the result is clamped to the bounds.
    out[free] = np.clip(np.asarray(res.x) * scale[free], lower[free], upper[free])
    return out


def _machine_bounds(
    start: npt.NDArray[np.float64], names: Sequence[str]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Physical bounds of the fitted ``machine`` parameters (order of :func:`_machine_start`).

    Every cost is >= 0; tau_sync, T_sync and C_iter > 0 (the presets require it); L_seg
    stays above its floor (see ``_L_SEG_FLOOR_S``). The cost of a cache line written by two
    threads is at most its calibrated value where one was measured (the calibrations at
    more than one thread): the micro-benchmark has the threads write the
    line strictly in turn, with nothing to overlap, the worst case of a line shared at a
    tile boundary. Without this bound the fit traded it against the per-wavefront barrier
    (both counted once per wavefront in 1D, when the block schedule still charged the
    lines at its block ends, docs/time.md) and took it to 27x the measured cost when the
    one Jacobi 1D problem with many rows per wavefront was held out (docs/validate-log.md,
    "The shared-line bound"). The cost of a row another thread stored (``t_cross_row_s``)
    has the same bound: its row starts with one such line moved from the other core and
    the prefetcher streams the rest (docs/time.md, "Rows another thread stored"). The 42
    fits stored with the quiet Xeon runs have it at 0.63-1.03x; on a noisy host, with Heat
    3D 30^3 held out, the other problems took it to 3.2-5.8x and 30^3, where it is a fifth
    to a third of the 2-thread time, was over-predicted 1.13-1.30x (docs/validate-log.md,
    "The cross-row bound"). The C_iter share per extra thread is at most 1: each busy
    thread takes at most one core's compute from the others (fitted at 0-0.27 so far,
    docs/validate-log.md, "A compute share per extra busy thread").
    """
    n_lv = len(MEMORY_LEVELS)
    lower = np.zeros(start.size)
    lower[n_lv : n_lv + 2 + len(names)] = _POSITIVE_FLOOR_S
    lower[_tail_index(len(names), "l_seg_s")] = _L_SEG_FLOOR_S
    upper = np.full(start.size, np.inf)
    for name in ("t_share_line_s", "t_cross_row_s"):
        j = _tail_index(len(names), name)
        if start[j] > 0:  # measured (a calibration at one thread has no shared line)
            upper[j] = start[j]
    # Each busy thread takes at most one core's compute from the others (two threads
    # time-sliced on one core run at half speed: a share of 1).
    upper[_tail_index(len(names), C_ITER_SHARE_PER_EXTRA_THREAD)] = _C_ITER_SHARE_MAX
    return lower, upper


#: Smallest share of a point's words streamed from a memory level for that point to
#: inform the level's per-word and shared-bandwidth costs (see :func:`_with_levels_held`).
_LEVEL_WORD_SHARE_MIN = 0.01


def _with_levels_held(
    columns: npt.NDArray[np.float64],
    start: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
    n_names: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return bounds that hold the costs of the memory levels the points barely stream from.

    A level's per-word and shared-bandwidth costs keep their calibrated values when no
    point of ``columns`` streams at least ``_LEVEL_WORD_SHARE_MIN`` of its words from it.
    A problem whose arrays lie just past the L3 in effect streams a tiny share of its words
    from DRAM (``dram_share``); fitted on such points alone, the DRAM cost per word is
    unconstrained (it went to 1e5x its measured value when the arrays' DRAM shares were
    all 0.0002, ``bench_validate_terms.py --l3-bytes 16777216``) and a held-out problem
    in DRAM inherits it. Held, the level keeps the copy benchmark's cost.
    """
    n_lv = len(MEMORY_LEVELS)
    words = columns[:, :n_lv].sum(axis=1)
    share = np.divide(
        columns[:, :n_lv], words[:, None], out=np.zeros((columns.shape[0], n_lv)),
        where=words[:, None] > 0,
    )  # fmt: skip
    weak = share.max(axis=0, initial=0.0) < _LEVEL_WORD_SHARE_MIN
    held = np.zeros(start.size, dtype=bool)
    held[:n_lv] = weak
    shared = [_tail_index(n_names, f"l_shared_s_per_word[{lv}]") for lv in MEMORY_LEVELS]
    held[shared] = weak  # l_shared_s_per_word of the same levels
    return np.where(held, start, lower), np.where(held, start, upper)


#: Fewest problems (stencil, sizes) with arrays in DRAM for a fit to learn a term that only
#: those problems have (:data:`_DRAM_ONLY_TERMS`, see :func:`_with_dram_terms_held`).
_DRAM_TERM_PROBLEMS_MIN = 2
#: The fitted ``machine`` parameters whose column is nonzero only where a problem's arrays
#: stream from DRAM: the 3D lines' DRAM cost, the tile buffer evicted by DRAM streams and
#: the words a prefetcher streams into a 1D wavefront's gaps.
_DRAM_ONLY_TERMS = ("tau_line_3d_dram_s", "c_buffer_dram_s", "l_prefetch_s_per_word")


def _with_dram_terms_held(
    columns: npt.NDArray[np.float64],
    problem: npt.NDArray[np.intp],
    start: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
    n_names: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return bounds that hold each DRAM-only term unless two problems inform it.

    ``tau_line_3d_dram_s`` is a column only where a 3D problem's arrays stream from DRAM,
    ``c_buffer_dram_s`` only where a 2D/3D problem's do, ``l_prefetch_s_per_word`` only
    where a 1D problem's do. With one such problem in the training set a term is a factor
    on that problem alone: it absorbed that problem's misfit and moved the shared
    parameters with it (the AMD guest's levels tables, where 254^3 is the one Heat 3D
    problem in DRAM: Heat 3D 126^3 went from 1.03x to 1.13x held out by the first; its
    predicted optimum from 2.4% to 18.4% off the best by the second). The prefetch term,
    learned from Jacobi 1D 2097152 alone (DRAM share 0.14 by a calibration whose copy
    points past the L2 warm up first), came out at 3.1x its value fitted on both Jacobi 1D
    problems, and 8388606 held out was predicted at 1.56x (1 thread) and 1.42x (2 threads)
    (``docs/validate-log.md``, "The prefetch term learned from one problem").
    Held, a term keeps its calibrated value: 0 for the two terms no micro-benchmark
    measures, and for ``l_prefetch_s_per_word`` the interleaved copy's (``measure._fit_gap``;
    0 in calibrations before 2026-12-04 21:45 UTC).
    """
    terms = [_tail_index(n_names, name) for name in _DRAM_ONLY_TERMS]
    return _held_unless_informed(columns[:, terms], problem, start, (lower, upper), terms)


_Bounds = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _held_unless_informed(
    term_columns: npt.NDArray[np.float64],
    problem: npt.NDArray[np.intp],
    start: npt.NDArray[np.float64],
    bounds: _Bounds,
    terms: Sequence[int],
) -> _Bounds:
    """Return copies of the bounds that hold each of ``terms`` unless enough problems inform it.

    ``terms`` are the terms' indices in the parameters, ``term_columns`` their columns in
    that order (one per row of ``problem``); a term is held at ``start`` where fewer than
    ``_DRAM_TERM_PROBLEMS_MIN`` problems have its column nonzero.
    """
    lower, upper = bounds[0].copy(), bounds[1].copy()
    for k, j in enumerate(terms):
        informed = np.unique(problem[term_columns[:, k] > 0]).size
        if informed < _DRAM_TERM_PROBLEMS_MIN:
            lower[j] = upper[j] = start[j]
    return lower, upper


def _held_bounds(
    columns: npt.NDArray[np.float64],
    problem: npt.NDArray[np.intp],
    start: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    upper: npt.NDArray[np.float64],
    n_names: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return the fitted ``machine`` variant's bounds on the training ``columns``.

    ``problem`` is each row's problem index (:func:`_problem_index`). The levels and the
    DRAM-only terms that the rows cannot inform are held (:func:`_with_levels_held`,
    :func:`_with_dram_terms_held`).
    """
    lower, upper = _with_levels_held(columns, start, lower, upper, n_names)
    return _with_dram_terms_held(columns, problem, start, lower, upper, n_names)


def _problem_index(t: Table) -> npt.NDArray[np.intp]:
    """Return each row's problem (stencil, sizes) as an index, in :func:`_groups`' order."""
    problem = np.zeros(len(t), dtype=np.intp)
    for q, rows in enumerate(_groups(t, by_threads=False).values()):
        problem[rows] = q
    return problem


def _fit_machine(
    t: Table, cals: dict[int, Calibration], within: float, n_boot: int, seed: int
) -> FitResult:
    """Fit every parameter of the ``machine`` variant (see :func:`fit`)."""
    frames = _machine_frames(cals)
    frame = frames[min(frames)]
    names = sorted({n for n in set(t.stencil) if n in frame.stencils})
    start = _machine_start(cals, frame, names)
    columns, usable = _machine_design(t, frames, names)
    # Linearity check: the columns reproduce the C++ model at the calibrated values.
    check = {
        n: _with_threads(_machine_calibration(_nearest_threads(frames, n), names, start), n)
        for n in sorted(set(t.threads))
    }  # fmt: skip
    base = _predict(t, check, "machine")
    ok = usable & np.isfinite(base)
    if not np.allclose(columns[ok] @ start, base[ok], rtol=1e-9, atol=0):
        raise ValueError("variant: T_alg of 'machine' is not linear in its parameters (k > 1?)")
    # Solved for the barrier of one thread instead of T_sync (see _one_thread_barrier).
    ref = int(frame.gpu.threads_ref or frame.gpu.n_sm)
    columns, phi_start = _one_thread_barrier(columns, start, names, ref)
    lower, upper = _machine_bounds(phi_start, names)

    problem = _problem_index(t)

    zero_scale = _machine_zero_scale(len(names))

    def solve(
        a: npt.NDArray[np.float64], measured: npt.NDArray[np.float64], rows: npt.NDArray[np.bool_]
    ) -> Any:
        bounds = _held_bounds(a, problem[rows], phi_start, lower, upper, len(names))
        return _solve_bounded(a, measured, phi_start, *bounds, zero_scale)

    out_of_sample, n_problems = _leave_problem_out(t, columns, ok, solve, with_rows=True)
    theta = _t_sync_of(solve(columns[ok], t.time_s[ok], ok), names, ref)
    fitted_cals = {n: _machine_calibration(f, names, theta) for n, f in frames.items()}
    fitted_cal = fitted_cals[min(fitted_cals)]
    keys = [*_MACHINE_FIT_HEAD, *(f"c_iter_s[{n}]" for n in names), *_MACHINE_FIT_TAIL]
    params = {k: float(x) for k, x in zip(keys, theta, strict=True)}
    factors = {
        k: float(x / s) for k, x, s in zip(keys, theta, start, strict=True) if s > 0
    }  # fmt: skip
    test = _score(
        "fitted-machine", t, out_of_sample, top_mask(t, within=within),
        np.ones(len(t), dtype=bool), n_boot, seed,
    )  # fmt: skip
    return FitResult(
        "machine", fitted_cal, params, factors, n_problems, test, out_of_sample, fitted_cals
    )  # fmt: skip


def _barrier_indices(names: Sequence[str]) -> tuple[int, int]:
    """Return the indices of T_sync and of the barrier per thread in the fitted parameters."""
    return len(MEMORY_LEVELS) + 1, _tail_index(len(names), "t_barrier_per_thread_s")


def _one_thread_barrier(
    columns: npt.NDArray[np.float64],
    start: npt.NDArray[np.float64],
    names: Sequence[str],
    ref: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return the columns and start with T_sync replaced by the barrier of one thread.

    In a frame measured at ``ref`` threads the barrier of one thread is ``T_sync -
    (ref - 1) t_barrier`` and must not be negative (the presets refuse it). As a bound
    on T_sync alone that is a constraint between two parameters, which bounded least
    squares cannot take; solved for the one-thread barrier ``T_1`` and ``t_barrier``,
    ``T_sync = T_1 + (ref - 1) t_barrier`` and both bounds are boxes: the T_sync column
    adds ``ref - 1`` times itself to the barrier's. With ``ref = 1`` (a 1-thread
    calibration given) nothing changes. Fitted on 2-thread rows with only the 2-thread
    calibration, T_sync came out below its ``t_barrier`` and the fit raised.
    """
    ts, tb = _barrier_indices(names)
    columns, start = columns.copy(), start.copy()
    columns[:, tb] += (ref - 1) * columns[:, ts]
    start[ts] = max(_POSITIVE_FLOOR_S, start[ts] - (ref - 1) * start[tb])
    return columns, start


def _t_sync_of(
    phi: npt.NDArray[np.float64], names: Sequence[str], ref: int
) -> npt.NDArray[np.float64]:
    """Return the parameters with T_sync from the one-thread barrier (see above)."""
    ts, tb = _barrier_indices(names)
    theta = phi.copy()
    theta[ts] = phi[ts] + (ref - 1) * phi[tb]
    return theta


def _machine_zero_scale(n_names: int) -> npt.NDArray[np.float64]:
    """Return the solver's scale of each fitted ``machine`` parameter calibrated at 0.

    ``n_names`` is the number of stencils whose C_iter are fitted.
    """
    scale = np.full(len(_MACHINE_FIT_HEAD) + n_names + len(_MACHINE_FIT_TAIL), _ZERO_SCALE_S)
    scale[_tail_index(n_names, C_ITER_SHARE_PER_EXTRA_THREAD)] = _ZERO_SCALE_SHARE
    return scale


def _with_threads(cal: Calibration, threads: int) -> Calibration:
    """Return the calibration modeled at ``threads`` threads (thread terms vs its ref)."""
    return replace(cal, gpu=cal.gpu.with_threads(threads))


def fit(
    table: Table | str | Path,
    calibration: Any,
    *,
    variant: str = "exact",
    within: float = 0.20,
    n_boot: int = 200,
    seed: int = 0,
) -> FitResult:
    """Fit L, tau_sync, T_sync and C_iter per stencil; score them leave-problem-out.

    With one tile per core (MTB_SM = 1, so k = 1) T_alg is linear in these parameters
    (Eqs. A.7-A.18: N_w T_sync + N_w ceil(ceil(w/k)/nSM) (m' + c) N_sub with m' linear in
    L and tau_sync and c in C_iter and tau_sync). The fit solves for one factor per
    parameter that multiplies the calibrated value (at every thread count alike); the
    columns of that linear map come from the C++ model itself (one evaluation per
    parameter, doubling it), and SciPy's bounded linear least squares minimizes the
    relative error (weights 1 / measured median). A C_iter whose stencil has no training
    point keeps its calibrated value. For ``variant="machine"`` every parameter of the
    variant is fitted as an absolute value within physical bounds (every cost >= 0, the
    cost of a line written by two threads, and of a row another thread stored, at most
    their calibrated worst case), and each stencil's C_iter at more threads than the
    fewest grows by one fitted share of its calibrated value per extra thread
    (parameter ``c_iter_share_per_extra_thread``, in [0, 1]).

    Parameters
    ----------
    table : Table or path
        Measurements (per-point medians over passes).
    calibration : Calibration, path, or several
        Starting point and machine mapping (:func:`predict`).
    variant : str
        Variant whose parameters are fitted (:func:`variants`).
    within : float
        The top set for the score.
    n_boot, seed : int
        Bootstrap of the score's intervals.

    Returns
    -------
    FitResult
        Fitted parameters and their leave-problem-out score.

    Raises
    ------
    ValueError
        With fewer than two problems, or if the model is not linear in the parameters
        on these points (it must be when k = 1).
    """
    _check_n_boot(n_boot)  # before any work
    t, cals, v = _table(table), _calibrations(calibration), _check_variant(variant)
    if v == "machine":
        return _fit_machine(t, cals, within, n_boot, seed)
    # paper and exact read no machine term: drop them, so that scaling L cannot push a
    # calibrated per-level term (relative to L) out of its range and refuse the fit.
    cals = {n: _without_machine_terms(c) for n, c in cals.items()}
    names = sorted({n for n in set(t.stencil) if all(n in c.stencils for c in cals.values())})
    base = _predict(t, cals, v)
    usable = np.isfinite(base)
    n_par = 3 + len(names)
    columns = np.zeros((len(t), n_par))
    for j in range(n_par):
        bumped = np.ones(n_par)
        bumped[j] = 2.0
        scaled = {n: _scaled(c, names, bumped) for n, c in cals.items()}
        columns[:, j] = _predict(t, scaled, v) - base
    # Linearity check: the columns must reproduce the prediction at factor 1.
    recon = columns[usable].sum(axis=1)
    if not np.allclose(recon, base[usable], rtol=1e-6, atol=0):
        raise ValueError(f"variant: T_alg of {v!r} is not linear in the parameters here (k > 1?)")
    out_of_sample, n_problems = _leave_problem_out(t, columns, usable, _solve)
    factors = _solve(columns[usable], t.time_s[usable])
    first = cals[min(cals)]
    fitted_cal = _scaled(first, names, factors)
    g = fitted_cal.gpu
    params = {"l_s_per_word": g.l_s_per_word, "tau_sync_s": g.tau_sync_s, "t_sync_s": g.t_sync_s}
    params.update({f"c_iter_s[{n}]": fitted_cal.c_iter_s(n) for n in names})
    factor_names = [*_BASE_PARAMETERS, *(f"c_iter_s[{n}]" for n in names)]
    test = _score(
        f"fitted-{v}", t, out_of_sample, top_mask(t, within=within), np.ones(len(t), dtype=bool),
        n_boot, seed,
    )  # fmt: skip
    return FitResult(
        v, fitted_cal, {k: float(x) for k, x in params.items()},
        {k: float(x) for k, x in zip(factor_names, factors, strict=False)}, n_problems, test,
        out_of_sample, {n: _scaled(c, names, factors) for n, c in cals.items()},
    )  # fmt: skip


# --------------------------------------------------------------------------------------
# Tile selection (A.6.2-A.6.4) and the degenerate tiles
# --------------------------------------------------------------------------------------


@record
class SelectionRow(Record):
    """Tile selection of one variant on one problem (Sec. A.6.2-A.6.4).

    Attributes
    ----------
    stencil, sizes, variant
        The problem and the time-model variant.
    threads : int
        The thread count of the measured points.
    opt_tiles : tuple of int
        The model's predicted optimum (T_alg_min).
    t_opt_s : float
        Its measured time.
    best_near_tiles : tuple of int
        The fastest measured point among the optimum and its near-optimal set (within
        10% of T_alg_min).
    t_best_near_s : float
        Its measured time.
    best_tiles : tuple of int
        The fastest measured point of the whole problem (the broad sweep and every
        model choice): the "best known" of A.6.2.
    t_best_s : float
        Its time.
    baseline_tiles : tuple of int
        The "largest tile that fits" (A.5.1).
    t_baseline_s : float
        Its measured time.
    """

    stencil: str
    sizes: tuple[int, ...]
    variant: str
    threads: int
    opt_tiles: tuple[int, ...]
    t_opt_s: float
    best_near_tiles: tuple[int, ...]
    t_best_near_s: float
    best_tiles: tuple[int, ...]
    t_best_s: float
    baseline_tiles: tuple[int, ...]
    t_baseline_s: float

    @property
    def opt_error_s(self) -> float:
        """opt_er = T_exec(opt) - T_exec(best) (A.6.2), seconds."""
        return self.t_opt_s - self.t_best_s

    def to_dict(self) -> dict[str, Any]:
        """Return the row as a plain dictionary (tiles as lists)."""
        return {
            "stencil": self.stencil,
            "sizes": list(self.sizes),
            "variant": self.variant,
            "threads": self.threads,
            "opt_tiles": list(self.opt_tiles),
            "t_opt_s": self.t_opt_s,
            "best_near_tiles": list(self.best_near_tiles),
            "t_best_near_s": self.t_best_near_s,
            "best_tiles": list(self.best_tiles),
            "t_best_s": self.t_best_s,
            "baseline_tiles": list(self.baseline_tiles),
            "t_baseline_s": self.t_baseline_s,
            "opt_error_s": self.opt_error_s,
        }


def selection(table: Table | str | Path, *, variant: str = "exact") -> list[SelectionRow]:
    """Tile selection results per problem and thread count, from a measured sweep's tags.

    Uses the rows tagged ``<variant>_opt`` (the predicted optimum), ``<variant>_near``
    (points within 10% of it) and ``baseline`` by :func:`costmetrics.measure.measure`.
    Problems without these tags are skipped. A problem measured with several harness
    schedules (``measure --schedule round-robin,block``, whose tags both schedules carry)
    is judged on the rows of its stencil's default schedule
    (:func:`costmetrics.measure.default_schedule`), as the confirmation measures it: taking
    the first tagged row instead made the result depend on the order of the table's rows.

    Parameters
    ----------
    table : Table or path
        Measurements with model choices (a sweep planned with a calibration).
    variant : str
        Time-model variant.

    Returns
    -------
    list of SelectionRow
        One per problem and thread count (times: medians over passes).
    """
    t, v = _table(table), _check_variant(variant)
    opt, near, base = t.has_tag(f"{v}_opt"), t.has_tag(f"{v}_near"), t.has_tag("baseline")
    out = []
    schedules = np.asarray(t.schedule)
    for (name, sizes, threads), rows in _groups(t).items():
        if len(set(schedules[rows])) > 1:
            rows = rows[schedules[rows] == default_schedule(name)]
        o, n, b = rows[opt[rows]], rows[(opt | near)[rows]], rows[base[rows]]
        if o.size == 0 or b.size == 0:
            continue
        i_opt, i_base = int(o[0]), int(b[0])
        i_near = int(n[np.argmin(t.time_s[n])])
        i_best = int(rows[np.argmin(t.time_s[rows])])
        out.append(
            SelectionRow(
                name, sizes, v, threads,
                t.tiles_of(i_opt), float(t.time_s[i_opt]),
                t.tiles_of(i_near), float(t.time_s[i_near]),
                t.tiles_of(i_best), float(t.time_s[i_best]),
                t.tiles_of(i_base), float(t.time_s[i_base]),
            )
        )  # fmt: skip
    return out


def selection_summary(rows: Sequence[SelectionRow]) -> dict[str, float]:
    """Totals of A.6.2 and the average gains of A.6.4 over selection rows.

    Parameters
    ----------
    rows : sequence of SelectionRow
        From :func:`selection`.

    Returns
    -------
    dict
        ``n_problems``; ``err_max_s`` = sum max(0, opt_er); ``err_sign_s`` = sum opt_er;
        ``mean_opt_slowdown`` = mean T(opt)/T(best) - 1; ``mean_near_slowdown`` = mean
        T(best within 10%)/T(best) - 1; ``mean_gain_near_over_baseline`` = mean
        T(baseline)/T(best within 10%) - 1; ``mean_gain_opt_over_baseline``; and
        ``mean_baseline_slowdown`` = mean T(baseline)/T(best) - 1.

    Raises
    ------
    TypeError
        If ``rows`` is not a sequence of :class:`SelectionRow`.
    """
    rows = _convert.instances(rows, "rows", SelectionRow)
    if not rows:
        return {"n_problems": 0}
    opt = np.asarray([r.t_opt_s for r in rows])
    near = np.asarray([r.t_best_near_s for r in rows])
    best = np.asarray([r.t_best_s for r in rows])
    base = np.asarray([r.t_baseline_s for r in rows])
    return {
        "n_problems": len(rows),
        "err_max_s": float(np.sum(np.maximum(0.0, opt - best))),
        "err_sign_s": float(np.sum(opt - best)),
        "mean_opt_slowdown": float(np.mean(opt / best - 1)),
        "mean_near_slowdown": float(np.mean(near / best - 1)),
        "mean_gain_near_over_baseline": float(np.mean(base / near - 1)),
        "mean_gain_opt_over_baseline": float(np.mean(base / opt - 1)),
        "mean_baseline_slowdown": float(np.mean(base / best - 1)),
    }


@record
class DegenerateRow(Record):
    """A measured degenerate tile (tS1 = 1, tT = 2) against both variants.

    Attributes
    ----------
    stencil, sizes, tiles
        The point.
    measured_s : float
        Measured time.
    paper_s, exact_s : float
        Predicted T_alg (NaN if infeasible).
    ideal_s : float
        T_ideal (Eq. 8.3) on the calibrated machine.
    """

    stencil: str
    sizes: tuple[int, ...]
    tiles: tuple[int, ...]
    measured_s: float
    paper_s: float
    exact_s: float
    ideal_s: float

    def to_dict(self) -> dict[str, Any]:
        """Return the row as a plain dictionary."""
        return {
            "stencil": self.stencil,
            "sizes": list(self.sizes),
            "tiles": list(self.tiles),
            "measured_s": self.measured_s,
            "paper_s": self.paper_s,
            "exact_s": self.exact_s,
            "ideal_s": self.ideal_s,
        }


def degenerate(table: Table | str | Path, calibration: Any) -> list[DegenerateRow]:
    """Return the measured tiles with tS1 = 1 and tT = 2 and both variants' predictions.

    Parameters
    ----------
    table : Table or path
        Measurements.
    calibration : Calibration, path, or several
        Micro-benchmark calibration (:func:`predict`).

    Returns
    -------
    list of DegenerateRow
        One per measured degenerate tile (and thread count).
    """
    t, cals = _table(table), _calibrations(calibration)
    paper, exact = _predict(t, cals, "paper"), _predict(t, cals, "exact")
    out = []
    for i in range(len(t)):
        tiles = t.tiles_of(i)
        cal = _for_threads(cals, int(t.threads[i]))
        if tiles[0] != 1 or tiles[-1] != 2 or t.stencil[i] not in cal.stencils:
            continue
        sizes = t.sizes_of(i)
        ideal = cm_time.t_ideal(cal.stencils[t.stencil[i]], cal.gpu, sizes)
        out.append(
            DegenerateRow(
                t.stencil[i], sizes, tiles, float(t.time_s[i]), float(paper[i]),
                float(exact[i]), float(ideal),
            )
        )  # fmt: skip
    return out


# --------------------------------------------------------------------------------------
# Everything at once, and Fig. A.4
# --------------------------------------------------------------------------------------


@record
class TunerCurve(Record):
    """How close the measured best of a variant's top-k predicted points comes to the best.

    For each problem (stencil, sizes) the measured runs (tile as the harness runs it,
    threads) are ranked by the variant's prediction; with k runs measured, the tuner would
    keep the fastest of the first k. ``distance[p, j]`` is its time over the problem's
    best measured run's, minus 1 (0: the tuner finds the best run of the measured grid).
    Rows that measured one run under several names (tiles wider than ``S + tT``,
    :func:`costmetrics.measure.harness_tiles`; tables of harness 5 on) are one run, timed
    by the median of their rows: counted apart, they filled a top k with one run and
    gave the grid's best the least of several samples of it (``docs/validate-log.md``, "One
    run under several names").

    Attributes
    ----------
    variant : str
        The variant that ranks.
    ks : tuple of int
        The k values.
    problems : tuple of tuple
        ``(stencil, sizes)`` per problem.
    distance : numpy.ndarray
        Shape (problems, len(ks)).
    n_points : numpy.ndarray
        Ranked runs per problem.
    picks : tuple of tuple
        Per problem and k, the run the tuner keeps: ``(tiles, threads, schedule)``, the
        tiles as the harness ran them (what :func:`confirmation_points` measures again).
    """

    variant: str
    ks: tuple[int, ...]
    problems: tuple[_Problem, ...]
    distance: npt.NDArray[np.float64] = field(repr=False)
    n_points: npt.NDArray[np.int64] = field(repr=False)
    picks: tuple[tuple[_Run, ...], ...] = field(default=(), repr=False)

    def summary(self) -> dict[str, dict[str, float]]:
        """Mean and largest distance per k: ``{str(k): {"mean": .., "max": ..}}``."""
        return {
            str(k): {
                "mean": float(np.mean(self.distance[:, j])) if self.problems else float("nan"),
                "max": float(np.max(self.distance[:, j])) if self.problems else float("nan"),
            }
            for j, k in enumerate(self.ks)
        }

    def to_dict(self) -> dict[str, Any]:
        """Return the curve as a plain dictionary."""
        return {
            "variant": self.variant,
            "ks": list(self.ks),
            "summary": self.summary(),
            "problems": [
                {"stencil": p[0], "sizes": list(p[1]), "n_points": int(n),
                 "distance": [float(d) for d in row],
                 "picks": [{"tiles": list(r[0]), "threads": r[1], "schedule": r[2]}
                           for r in (self.picks[i] if i < len(self.picks) else ())]}
                for i, (p, n, row) in enumerate(
                    zip(self.problems, self.n_points, self.distance, strict=False))
            ],
        }  # fmt: skip


def _clips_wide_sub_tiles(t: Table) -> bool:
    """Return whether the table's harness ran sub-tiles wider than ``S + tT`` as ``S + tT``.

    Harness 5 and later (``docs/validate-log.md``, "Harness 5"); a table without a harness
    line is taken as this build's harness.
    """
    version = _header_value(t.comments, "harness")
    if version is None:
        return True
    try:
        return int(version) >= 5
    except ValueError:
        return False


def _run_key(t: Table, i: int, clipped: bool) -> _Run:
    """Return the run row ``i`` measured: tiles as the harness ran them, threads, schedule."""
    tiles = t.tiles_of(i)
    if clipped:
        try:
            tiles = harness_tiles(t.stencil[i], t.sizes_of(i), tiles)
        except ValueError:
            pass  # a row this build's harness would refuse: its own name
    return (tuple(int(x) for x in tiles), int(t.threads[i]), str(t.schedule[i]))


def _ks(ks: object) -> tuple[int, ...]:
    """Return the k values of a tuner curve: a non-empty sequence of integers >= 1."""
    # A tuner's k counts points of a search: never more than a search may have.
    k_list = tuple(_convert.int_sequence(ks, "ks", max_len=_core.time.MAX_SEARCH_POINTS))
    if not k_list or any(k < 1 for k in k_list):
        raise ValueError(f"ks: must be positive integers, got {list(k_list)!r}")
    return k_list


def tuner_curve(
    table: Table | str | Path,
    calibration: Any,
    *,
    variant: str = "exact",
    ks: Sequence[int] = (1, 3, 5, 10),
) -> TunerCurve:
    """Distance of a measured top-k tuner to the best of an exhaustive measured grid.

    Parameters
    ----------
    table : Table or path
        A measured grid (e.g. the default sweep at 1 thread and all cores): every
        (tile, threads) point of a problem is a candidate.
    calibration : Calibration, path, or several
        As in :func:`predict`.
    variant : str
        The ranking variant.
    ks : sequence of int
        Numbers of measured candidates, each an integer >= 1.

    Returns
    -------
    TunerCurve
        Per problem and k (see :class:`TunerCurve`).
    """
    t, cals, v = _table(table), _calibrations(calibration), _check_variant(variant)
    k_list = _ks(ks)  # before the predictions
    return tuner_curve_of(t, _predict(t, cals, v), label=v, ks=k_list)


def tuner_curve_of(
    table: Table | str | Path,
    predicted_s: npt.ArrayLike,
    *,
    label: str,
    ks: Sequence[int] = (1, 3, 5, 10),
) -> TunerCurve:
    """:func:`tuner_curve` from given predictions (e.g. a fitted variant's, out of sample).

    Parameters
    ----------
    table : Table or path
        A measured grid (per point, the rows of :meth:`costmetrics.measure.Table.medians`).
    predicted_s : array_like
        Predicted time per point in s, >= 0 (NaN or inf: not ranked).
    label : str
        What ranked the points (e.g. ``"fitted-machine"``): the curve's ``variant``.
    ks : sequence of int
        Numbers of measured candidates, each an integer >= 1.

    Returns
    -------
    TunerCurve
        Per problem and k.

    Raises
    ------
    TypeError
        If ``predicted_s`` holds anything but real numbers, or ``label`` is not a
        non-empty string.
    ValueError
        If ``predicted_s`` has not one entry per point of ``table`` or a negative entry,
        or ``ks`` is not positive integers.
    """
    t = _table(table)
    pred = _convert.real_array(predicted_s, "predicted_s")  # bools, complex, text refused
    if pred.shape != (len(t),):
        raise ValueError(f"predicted_s: expected shape ({len(t)},), got {pred.shape}")
    negative = np.flatnonzero(pred < 0)  # NaN compares false: not ranked, not refused
    if negative.size:
        i = int(negative[0])
        raise ValueError(
            f"predicted_s[{i}]: a predicted time must be >= 0 (NaN or inf: not ranked), "
            f"got {float(pred[i])!r}"
        )
    if not isinstance(label, str) or not label:
        raise TypeError(f"label: expected a non-empty string, got {label!r}")
    v = label
    k_list = _ks(ks)
    clipped = _clips_wide_sub_tiles(t)
    problems: list[_Problem] = []
    rows_out: list[list[float]] = []
    counts: list[int] = []
    picks: list[tuple[_Run, ...]] = []
    for key, rows in _groups(t, by_threads=False).items():
        runs: dict[_Run, list[int]] = {}
        for i in rows:
            runs.setdefault(_run_key(t, int(i), clipped), []).append(int(i))
        members = list(runs.values())
        run_keys = list(runs)
        # A run measured under several names: the median of its rows' times, and its
        # best-ranked name's prediction (they agree where the model clips as the harness).
        time_of = np.asarray([float(np.median(t.time_s[m])) for m in members])
        pred_of = np.asarray([
            float(np.min(pred[m][np.isfinite(pred[m])])) if np.isfinite(pred[m]).any()
            else np.nan
            for m in members
        ])  # fmt: skip
        ok = np.flatnonzero(np.isfinite(pred_of))
        if ok.size == 0:
            continue
        first = np.asarray([min(m) for m in members])
        ranked = ok[np.lexsort((first[ok], pred_of[ok]))]
        best = float(time_of.min())
        # The run kept after k measured: the first of the fastest among the first k.
        kept = [int(ranked[np.argmin(time_of[ranked[: min(k, ranked.size)]])]) for k in k_list]
        rows_out.append([float(time_of[j] / best - 1) for j in kept])
        picks.append(tuple(run_keys[j] for j in kept))
        problems.append(key)
        counts.append(int(ranked.size))
    return TunerCurve(
        v, k_list, tuple(problems), np.asarray(rows_out, dtype=np.float64).reshape(-1, len(k_list)),
        np.asarray(counts, dtype=np.int64), tuple(picks),
    )  # fmt: skip


def selection_floor(
    table: Table | str | Path,
    other: Table | str | Path,
    *,
    ks: Sequence[int] = (1, 3, 5, 10),
) -> TunerCurve:
    """Return the tuner curve of a ranking by another run's times: the selection floor.

    Ranks each problem's runs of ``table`` by their times in ``other`` (a second run of
    the same grid, e.g. the next levels run) and scores that ranking as
    :func:`tuner_curve_of` does a model's. ``k = 1`` is how far the best run of one
    exhaustive measured grid lands from the best of another, and ``k`` the best of its
    top k: what any ranking, an exhaustive measurement included, can be expected to
    reach against a single run's grid. The predicted optimum and ``tune``'s distances
    are read against it (``docs/validate-log.md``, "The selection targets against a second
    run"). Only the runs both tables measured are ranked and scored; a run measured
    under several names is one run, timed by the median of its rows, in both tables.

    Parameters
    ----------
    table : Table or path
        The grid that is scored (one row per point:
        :meth:`costmetrics.measure.Table.per_point`).
    other : Table or path
        The grid whose times rank it.
    ks : sequence of int
        Numbers of measured candidates, each an integer >= 1.

    Returns
    -------
    TunerCurve
        Per problem and k, ``variant`` "another run".

    Raises
    ------
    ValueError
        If the two tables share no run, or ``other`` was measured on another machine or
        with another harness version than ``table`` (its times would rank the runs as
        that machine or harness runs them: not this grid's floor).
    """
    t, o = _table(table), _table(other, "other")
    k_list = _ks(ks)
    if t.machine and o.machine:
        check_same_machine(o.machine, "other", t.machine, current_name="the table")
    version = _header_value(t.comments, "harness")
    if version is not None:
        check_current_harness(_header_value(o.comments, "harness"), "other", version)
    clipped_t = _clips_wide_sub_tiles(t)
    other_s = _run_times(o)
    ranking = np.asarray([
        other_s.get((t.stencil[i], t.sizes_of(i), *_run_key(t, i, clipped_t)), np.nan)
        for i in range(len(t))
    ])  # fmt: skip
    shared = np.isfinite(ranking)
    if not shared.any():
        raise ValueError(
            "other: shares no run (stencil, sizes, tiles, threads, schedule) with table"
        )
    return tuner_curve_of(t.select(shared), ranking[shared], label="another run", ks=k_list)


def split_selection_floor(
    table: Table | str | Path,
    *,
    ks: Sequence[int] = (1, 3, 5, 10),
) -> TunerCurve:
    """Return the selection floor of one run: each half of its passes ranking the other.

    :func:`selection_floor` needs a second run of the grid. One run's passes give two
    disjoint halves, the even and the odd passes (as :func:`noise_floor` splits them, both
    spread over the whole sweep): the grid timed by one half's statistic (median or
    minimum, the table's) is ranked by the other half's and scored as
    :func:`tuner_curve_of` scores a model, in both directions; the distance per problem
    and k is the mean of the two. Like :func:`noise_floor`, it is what two independent
    runs of half the protocol reach: each half is noisier than all the passes, so it
    tends to overstate the floor of a ranking scored on the full grid (on eight quiet
    runs with a second run its k = 1 mean was a median 1.25x the two-run floor's; a
    worst problem's floor is noisy either way, ``docs/validate-log.md``, "A levels run
    after the compute share, and one run's selection floor"). A distance of a model's
    tuner at or below it cannot be told from noise.

    Parameters
    ----------
    table : Table or path
        A measured grid with two passes or more (a table of runs, or one row per point
        with ``pass_times_s``, :meth:`costmetrics.measure.Table.per_point`).
    ks : sequence of int
        Numbers of measured candidates, each an integer >= 1.

    Returns
    -------
    TunerCurve
        Per problem and k, ``variant`` "half of the passes", no picks (the two
        directions keep different runs).

    Raises
    ------
    ValueError
        If the table has fewer than two passes, or no point was measured in both halves;
        or ``ks`` is not positive integers.
    """
    t = _table(table)
    k_list = _ks(ks)
    if t.pass_times_s is None:
        t = t.per_point()  # a table of runs: its passes by point
    passes = _pass_times(typing.cast("npt.NDArray[np.float64]", t.pass_times_s))
    if passes.shape[1] < 2:
        raise ValueError(
            f"table: a selection floor from one run needs two passes or more, got {passes.shape[1]}"
        )
    even = point_statistic(passes[:, 0::2], t.statistic, axis=1)
    odd = point_statistic(passes[:, 1::2], t.statistic, axis=1)
    both = np.isfinite(even) & np.isfinite(odd)
    if not both.any():
        raise ValueError("table: no point was measured in both halves of the passes")
    label = "half of the passes"
    one = tuner_curve_of(replace(t, time_s=even).select(both), odd[both], label=label, ks=k_list)
    two = tuner_curve_of(replace(t, time_s=odd).select(both), even[both], label=label, ks=k_list)
    # The same problems in the same order: one table, one mask, every prediction finite.
    return replace(one, distance=(one.distance + two.distance) / 2, picks=())


def _run_rows(t: Table) -> dict[tuple[Any, ...], list[int]]:
    """Return the rows of ``t`` that measured each run.

    Keys are ``(stencil, sizes, tiles, threads, schedule)``; one run under several names
    is one run.
    """
    clipped = _clips_wide_sub_tiles(t)
    rows: dict[tuple[Any, ...], list[int]] = {}
    for i in range(len(t)):
        rows.setdefault((t.stencil[i], t.sizes_of(i), *_run_key(t, i, clipped)), []).append(i)
    return rows


def _run_times(t: Table) -> dict[tuple[Any, ...], float]:
    """Return each run's time: the median of the rows that measured it.

    Keys as :func:`_run_rows`.
    """
    return {k: float(np.median(t.time_s[rows])) for k, rows in _run_rows(t).items()}


def _check_records_picks(c: TunerCurve, name: str) -> None:
    """Refuse a curve with no k, or that records no run per problem (``name`` names it)."""
    if not c.ks:
        raise ValueError(f"{name}: {c.variant!r} has no k (ks is empty)")
    if len(c.picks) != len(c.problems) or any(len(row) != len(c.ks) for row in c.picks):
        raise ValueError(
            f"{name}: {c.variant!r} records no run per problem (picks); "
            "a curve of tuner_curve_of or selection_floor does"
        )


def _curves(curves: object) -> list[TunerCurve]:
    """Return ``curves`` as a list of tuner curves that record their picks."""
    out = _convert.instances(curves, "curves", TunerCurve)
    for i, c in enumerate(out):
        _check_records_picks(c, f"curves[{i}]")
    return out


def confirmation_points(
    table: Table | str | Path,
    curves: Sequence[TunerCurve],
    *,
    grid_top: int = 3,
) -> list[Point]:
    """Return the runs to measure again so that tuner curves are scored on fresh passes.

    A tuner curve scores the run it keeps against the least of one grid's medians, the
    same measurement that chose both: the grid's best is the minimum of many noisy
    medians and lands below the run's time (the winner's curse), by more the more runs
    are within the noise of it (``docs/validate.md``, "The selection targets re-measured").
    The points returned, measured in fresh interleaved passes
    (:func:`costmetrics.measure.measure`) and given to :func:`confirmed_curve`, time each
    kept run and the grid's best runs in the same passes, apart from the data that chose
    them.

    Parameters
    ----------
    table : Table or path
        The measured grid the curves were scored on.
    curves : sequence of TunerCurve
        Curves whose kept runs (``picks``) are measured again, e.g. a
        report's ``tuner`` values and a :func:`selection_floor`.
    grid_top : int
        The grid's fastest runs per problem (by the grid's own times) measured again as
        well: the reference of :func:`confirmed_curve` is the fastest of what is measured
        again, so that a lucky minimum of the grid is not the bar.

    Returns
    -------
    list of Point
        One point per run (tiles as the harness ran them, the run's thread count), tag
        ``confirm``, ordered by problem. Only runs with each stencil's default schedule
        are accepted (:func:`costmetrics.measure.measure` measures that one).

    Raises
    ------
    ValueError
        If a run to measure was measured with another schedule, or ``grid_top`` is
        negative.
    """
    t = _table(table)
    curve_list = _curves(curves)
    top = _convert.integer(grid_top, "grid_top", lo=0)
    times = {k: v for k, v in _run_times(t).items() if np.isfinite(v)}
    by_problem: dict[_Problem, list[tuple[float, tuple[Any, ...]]]] = {}
    for key, s in times.items():
        by_problem.setdefault((key[0], key[1]), []).append((s, key))
    wanted: dict[tuple[Any, ...], None] = {}
    for runs in by_problem.values():
        runs.sort(key=lambda r: r[0])  # stable: ties keep the table's order
        wanted.update((key, None) for _, key in runs[:top])
    for c in curve_list:
        for (stencil, sizes), kept in zip(c.problems, c.picks, strict=True):
            wanted.update(((stencil, sizes, *run), None) for run in kept)
    points: list[Point] = []
    for stencil, sizes, tiles, threads, schedule in sorted(
        wanted, key=lambda k: (k[0], k[1], k[3], k[2])
    ):
        if schedule != default_schedule(stencil):
            raise ValueError(
                f"table: {stencil} {list(sizes)} tiles {list(tiles)} ran with schedule "
                f"{schedule!r}; confirmation measures the default {default_schedule(stencil)!r}"
            )
        points.append(Point(stencil, tuple(sizes), tuple(tiles), ("confirm",), int(threads)))
    return points


def confirmed_curve(
    curve: TunerCurve,
    confirmation: Table | str | Path,
    *,
    reference: TunerCurve | None = None,
) -> TunerCurve:
    """Return a tuner curve scored on a second measurement of its kept runs.

    Each problem's distance at each k is the kept run's time in ``confirmation`` over the
    fastest run of that problem ``confirmation`` measured, minus 1: the runs were chosen on
    the grid's times and are timed here in the same fresh passes
    (:func:`confirmation_points`). The distance is 0 where the kept run is the fastest
    measured again and never negative.

    With ``reference`` (e.g. the grid ranked by its own times, whose k = 1 keeps the
    grid's best run: ``tuner_curve_of(table, table.time_s, ks=(1,))``), the distance is
    instead taken against the run ``reference`` keeps at its first k on the same problem,
    also timed in ``confirmation``: the issue-21 reading "within 2% of the exhaustive
    grid's best" with both runs timed apart from the grid that chose them. It is
    negative where the kept run ran faster than the reference's. Against the fastest run
    measured again, the bar is the least of several noisy medians, which noise pulls
    down; here both runs carry the same noise (docs/validate-log.md, "Fresh runs on a quiet
    Xeon host").

    Parameters
    ----------
    curve : TunerCurve
        A curve that records its picks.
    confirmation : Table or path
        The second measurement (one row per point,
        :meth:`costmetrics.measure.Table.per_point`: the median).
    reference : TunerCurve or None
        A curve that records its picks on every problem of ``curve``; None: the
        distance is to the fastest run measured again.

    Returns
    -------
    TunerCurve
        Same problems, ks, counts and picks; ``variant`` is the curve's plus
        ``", re-measured"`` (with ``reference``: ``", re-measured against <its
        variant>"``).

    Raises
    ------
    ValueError
        If ``confirmation`` lacks a kept run (the reference's included), or has no finite,
        positive time for it, or ``reference`` lacks a problem of ``curve``.
    """
    if not isinstance(curve, TunerCurve):
        raise TypeError(f"curve: expected a TunerCurve, got {type(curve).__name__}")
    if reference is not None and not isinstance(reference, TunerCurve):
        raise TypeError(f"reference: expected a TunerCurve or None, got {type(reference).__name__}")
    (c,) = _curves([curve])
    times = {k: v for k, v in _run_times(_table(confirmation, "confirmation")).items()
             if np.isfinite(v) and v > 0}  # fmt: skip

    def time_of(who: TunerCurve, p: int, j: int) -> float:
        stencil, sizes = who.problems[p]
        run = who.picks[p][j]
        s = times.get((stencil, sizes, *run))
        if s is None:  # not measured again, or no finite time
            raise ValueError(
                f"confirmation: lacks the run {who.variant!r} keeps at k = {who.ks[j]} on "
                f"{stencil} {list(sizes)}: tiles {list(run[0])}, {run[1]} threads, {run[2]}"
            )
        return s

    ref_index: dict[tuple[str, tuple[int, ...]], int] = {}
    if reference is not None:
        _check_records_picks(reference, "reference")
        ref_index = {prob: i for i, prob in enumerate(reference.problems)}
    rows: list[list[float]] = []
    for p, (stencil, sizes) in enumerate(c.problems):
        if reference is None:
            bar = min(s for k, s in times.items() if k[0] == stencil and k[1] == sizes)
        else:
            if (stencil, sizes) not in ref_index:
                raise ValueError(
                    f"reference: {reference.variant!r} has no problem {stencil} {list(sizes)} "
                    f"(of {c.variant!r})"
                )
            bar = time_of(reference, ref_index[(stencil, sizes)], 0)
        rows.append([time_of(c, p, j) / bar - 1 for j in range(len(c.ks))])
    label = ", re-measured" if reference is None else f", re-measured against {reference.variant}"
    return TunerCurve(
        f"{c.variant}{label}", c.ks, c.problems,
        np.asarray(rows, dtype=np.float64).reshape(-1, len(c.ks)), c.n_points, c.picks,
    )  # fmt: skip


#: The protocol confirm_selection measures with (seed of the shuffled orders, warm-up runs,
#: pinning); check_confirm_output checks a table to resume against the same values.
_CONFIRM_SEED = 100
_CONFIRM_WARMUP = 1
_CONFIRM_PIN = True


def _check_this_machines_table(table: Table, name: str) -> None:
    """Refuse a table another machine, or another harness version, measured.

    Its runs are to be measured again here (:func:`confirm_selection`) or ranked for this
    machine (``tune --fit``); ``name`` names the table in the message.
    """
    if table.machine:
        check_same_machine(table.machine, name)
    check_current_harness(_header_value(table.comments, "harness"), name)


def _confirm_passes(passes: object, name: str = "passes") -> int:
    """Return the fresh passes of :func:`confirm_selection` (at least 2, a noise floor's)."""
    return _convert.integer(passes, name, lo=2, hi=1000)


def confirm_passes_of(table: Table | str | Path) -> int:
    """Return the fresh passes :func:`confirm_selection` takes by default for ``table``.

    As many as the table's most-measured point has (``Table.n_passes``), at least 2
    (a noise floor's) and at most 1000. A re-measurement in fewer passes than the grid
    ranks its runs with a wider noise than the grid's own: on the quiet Xeon runs of
    2026-12-01 with 21-pass sweeps, re-measured in 9 passes the grid's own best landed
    3.8-10.0% from the fastest run, in 21 passes 2.7-3.1% (docs/validate.md, "Fresh runs
    on a quiet Xeon host").

    Parameters
    ----------
    table : Table or path
        The measured grid whose runs are to be measured again.

    Returns
    -------
    int
        The passes, in ``[2, 1000]``.
    """
    return min(max(_table(table).n_passes, 2), 1000)


def check_confirm_output(out: str | Path, name: str = "out", *, seed: int = _CONFIRM_SEED) -> None:
    """Check, before any long work, that :func:`confirm_selection` can measure into ``out``.

    The checks :func:`costmetrics.measure.measure` makes on its table before measuring,
    for the protocol :func:`confirm_selection` uses: ``out`` must be a regular file or
    missing (its folder is created), writable, and if it holds a table, one of the same
    protocol (``seed``, warm-up, pinning), harness version and machine, with no run that
    failed its correctness check, and no other process measuring into it (the table's
    lock). ``costmetrics validate --confirm`` calls it before the validation, which takes
    minutes.

    Parameters
    ----------
    out : str or Path
        The table :func:`confirm_selection` is to write or resume.
    name : str
        The argument or option that named it, for the messages (e.g. ``"--confirm"``).
    seed : int
        The ``seed`` :func:`confirm_selection` is to be called with.

    Raises
    ------
    TypeError
        If ``out`` is not a str or Path, ``name`` not a non-empty str or ``seed`` not an
        integer.
    ValueError
        If :func:`confirm_selection` would refuse ``out`` (the message names ``name``),
        or ``seed`` is outside [0, 2^63).
    """
    label = _convert.string(name, "name", nonempty=True)
    if not isinstance(out, (str, Path)):
        raise TypeError(f"{label}: expected a file path, got {type(out).__name__} {out!r}")
    protocol = {
        "seed": _convert.integer(seed, "seed", lo=0, hi=2**63 - 1),  # as measure bounds it
        "warmup": _CONFIRM_WARMUP,
        "pin": _CONFIRM_PIN,
    }
    _check_resumable(Path(out), label, protocol)


def confirm_selection(
    table: Table | str | Path,
    curves: Sequence[TunerCurve],
    out: str | Path,
    *,
    passes: int | None = None,
    grid_top: int = 3,
    seed: int = _CONFIRM_SEED,
    progress: bool = False,
    command: str = "",
) -> list[TunerCurve]:
    """Measure the runs the curves keep again and score each curve on them.

    :func:`confirmation_points` (each curve's kept runs and the grid's ``grid_top``
    fastest per problem), measured into ``out`` with the protocol of
    :func:`costmetrics.measure.measure` (``passes`` fresh shuffled passes, crash-safe and
    resumable: a complete ``out`` is read, not measured again), then
    :func:`confirmed_curve` per curve.

    Parameters
    ----------
    table : Table or path
        The measured grid the curves were scored on.
    curves : sequence of TunerCurve
        Curves that record their picks (e.g. the ``tuner`` values of a :class:`ValidationReport`).
    out : str or Path
        The table of the second measurement.
    passes : int or None
        Shuffled passes (at least 2); None (the default): as many as ``table``'s
        most-measured point has (:func:`confirm_passes_of`).
    grid_top : int
        The grid's fastest runs per problem measured again too (at least 1: the grid's
        best is then among the runs the distances are taken against).
    seed : int
        Seed of the shuffled orders (another than the grid's, so the orders differ).
    progress : bool
        Show a progress bar on standard error.
    command : str
        The command line recorded in the table's header.

    Returns
    -------
    list of TunerCurve
        Each curve re-measured (``"<variant>, re-measured"``), in the order given.

    Raises
    ------
    ValueError
        If ``table`` was measured on another machine, or as :func:`confirmation_points`
        and :func:`costmetrics.measure.measure` raise (checked before anything runs).
    """
    from costmetrics.measure import measure

    t = _table(table)
    _check_this_machines_table(t, "table")  # the runs are measured again here
    curve_list = _curves(curves)
    top = _convert.integer(grid_top, "grid_top", lo=1)
    n_passes = confirm_passes_of(t) if passes is None else _confirm_passes(passes)
    points = confirmation_points(t, curve_list, grid_top=top)
    path = measure(
        points, out, passes=n_passes, warmup=_CONFIRM_WARMUP, seed=seed, pin=_CONFIRM_PIN,
        progress=progress, command=command,
    )  # fmt: skip
    again = read_table(path)  # read once for every curve
    _refuse_failed_runs(again, "confirmation", str(path))  # as a path given would be
    return [confirmed_curve(c, again) for c in curve_list]


@record
class ValidationReport(Record):
    """Everything :func:`validate` computes.

    Attributes
    ----------
    scores : dict of str to Score
        Micro-benchmark calibration, per variant (:func:`variants`).
    fitted : dict of str to FitResult
        The fitted variant per time-model variant (scored leave-problem-out).
    fit_errors : dict of str to str
        Variants that could not be fitted, with the reason.
    selection : dict of str to list of SelectionRow
        Tile selection per variant.
    selection_summary : dict of str to dict
        :func:`selection_summary` per variant.
    tuner : dict of str to TunerCurve
        :func:`tuner_curve` per variant.
    degenerate : list of DegenerateRow
        The tS1 = 1, tT = 2 tiles.
    measured_s : numpy.ndarray
        Measured time per point (median over passes).
    predicted_s : dict of str to numpy.ndarray
        Predicted time per point and variant (``fitted-<variant>``: out of sample).
    top : numpy.ndarray
        The top mask (within 20% of the best per problem and thread count).
    stencil : tuple of str
        Stencil per point.
    threads : numpy.ndarray
        Thread count per point.
    memory_level : tuple of str
        Memory level per point.
    spread : numpy.ndarray
        Interquartile range over the median per point (NaN with fewer than 2 passes).
    n_rows, n_points, n_passes, n_correct : int
        Rows (runs), points, passes, and points whose every run matched the naive stencil.
    time : str
        Which time was scored: ``"wall"`` or ``"cpu"``.
    loadavg_1m : tuple of float
        Minimum, median and maximum 1-minute load average over the rows.
    calibration_threads : dict of int to int
        Per thread count of the table, the thread count its calibration was measured
        with (they differ when no calibration was given for it).
    statistic : str
        A point's time over its passes: ``"median"`` or ``"min"``
        (:func:`costmetrics.measure.point_statistic`).
    selection_floor : TunerCurve or None
        :func:`split_selection_floor` of the table: the grid ranked by half of its
        passes, scored on the other half, the noise floor of ``tuner``'s distances (None
        with fewer than two passes).
    """

    scores: dict[str, Score]
    fitted: dict[str, FitResult]
    selection: dict[str, list[SelectionRow]]
    selection_summary: dict[str, dict[str, float]]
    degenerate: list[DegenerateRow]
    measured_s: npt.NDArray[np.float64] = field(repr=False)
    predicted_s: dict[str, npt.NDArray[np.float64]] = field(repr=False)
    top: npt.NDArray[np.bool_] = field(repr=False)
    stencil: tuple[str, ...] = field(repr=False)
    threads: npt.NDArray[np.int64] = field(
        repr=False, default_factory=lambda: np.zeros(0, np.int64)
    )
    memory_level: tuple[str, ...] = field(repr=False, default=())
    spread: npt.NDArray[np.float64] = field(repr=False, default_factory=lambda: np.zeros(0))
    n_rows: int = 0
    n_points: int = 0
    n_passes: int = 0
    n_correct: int = 0
    loadavg_1m: tuple[float, float, float] = (float("nan"),) * 3
    time: str = "wall"
    fit_errors: dict[str, str] = field(default_factory=dict)
    tuner: dict[str, TunerCurve] = field(default_factory=dict, repr=False)
    calibration_threads: dict[int, int] = field(default_factory=dict)
    statistic: str = "median"
    selection_floor: TunerCurve | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready dictionaries (no per-point arrays)."""
        return {
            "time": self.time,
            "statistic": self.statistic,
            "n_rows": self.n_rows,
            "n_points": self.n_points,
            "n_passes": self.n_passes,
            "n_correct": self.n_correct,
            "loadavg_1m_min_median_max": list(self.loadavg_1m),
            "calibration_threads": {str(k): v for k, v in self.calibration_threads.items()},
            "scores": {k: s.to_dict() for k, s in self.scores.items()},
            "fitted": {
                k: {
                    "parameters": f.parameters,
                    "factors": f.factors,
                    "holdout": "leave-one-problem-out",
                    "n_problems": f.n_problems,
                    "test_score": f.test_score.to_dict(),
                }
                for k, f in self.fitted.items()
            },
            "fit_errors": self.fit_errors,
            "selection_summary": self.selection_summary,
            "selection": {k: [r.to_dict() for r in rows] for k, rows in self.selection.items()},
            "tuner": {k: c.to_dict() for k, c in self.tuner.items()},
            "selection_floor": (
                None if self.selection_floor is None else self.selection_floor.to_dict()
            ),
            "degenerate": [d.to_dict() for d in self.degenerate],
        }


def validate(
    table: Table | str | Path,
    calibration: Any,
    *,
    within: float = 0.20,
    seed: int = 0,
    time: str = "wall",
    n_boot: int = 200,
    statistic: str = "median",
) -> ValidationReport:
    """Score every variant, fit the "fitted" variants, evaluate tile selection and tuning.

    Parameters
    ----------
    table : Table or path
        Measurements (every pass; points are scored against their median over passes).
    calibration : Calibration, path, or several
        Micro-benchmark calibration(s), one per thread count ideally (:func:`predict`);
        the fitted variants start from it.
    within : float
        Top set of Sec. A.5.2.
    seed : int
        Seed of the bootstrap.
    time : {"wall", "cpu"}
        Score the measured wall time (the default, as the seed does) or the worker
        threads' CPU time (``Table.with_time``), a proxy that excludes descheduled time
        on a loaded machine.
    n_boot : int
        Bootstrap replicates of every confidence interval.
    statistic : {"median", "min"}
        A point's time over its passes (:func:`costmetrics.measure.point_statistic`);
        the noise floors and intervals use the same, and the calibrations are derived
        again with it (:meth:`costmetrics.measure.Calibration.with_statistic`) so that
        the micro-benchmarks and the table are summarized alike.

    Returns
    -------
    ValidationReport
        Scores, fits, selection, tuner curves, degenerate tiles and per-point arrays.

    Raises
    ------
    ValueError
        If the table holds a run that failed its correctness check (``correct`` false):
        its time is not the stencil's, and it is not scored; or if a calibration has no
        C_iter for a stencil of the table.
    """
    raw = table if isinstance(table, Table) else read_table(_path(table))
    # A run that failed its correctness check timed something else than the stencil.
    _refuse_failed_runs(raw, "table", "the table" if isinstance(table, Table) else str(table))
    _statistic_name(statistic)  # before any work
    _check_n_boot(n_boot)
    cals = {n: c.with_statistic(statistic) for n, c in _calibrations(calibration).items()}
    _check_calibrations_fit_table(raw, cals)
    t = raw.per_point(statistic).with_time(time)
    top = top_mask(t, within=within)
    predicted = {v: _predict(t, cals, v) for v in VARIANTS}
    every = np.ones(len(t), dtype=bool)
    scores = {v: _score(v, t, predicted[v], top, every, n_boot, seed) for v in VARIANTS}
    fitted: dict[str, FitResult] = {}
    errors: dict[str, str] = {}
    for v in VARIANTS:
        try:
            fitted[v] = fit(t, cals, variant=v, within=within, n_boot=n_boot, seed=seed)
            predicted[f"fitted-{v}"] = fitted[v].predicted_s
        except ValueError as exc:
            errors[v] = str(exc)
    sel = {v: selection(t, variant=v) for v in VARIANTS}
    load = raw.loadavg_1m[np.isfinite(raw.loadavg_1m)]
    loadavg = (
        (float(load.min()), float(np.median(load)), float(load.max()))
        if load.size
        else (float("nan"),) * 3
    )
    thread_counts = sorted({int(n) for n in t.threads})
    return ValidationReport(
        scores=scores,
        fitted=fitted,
        selection=sel,
        selection_summary={v: selection_summary(rows) for v, rows in sel.items()},
        degenerate=degenerate(t, cals),
        measured_s=t.time_s,
        predicted_s=predicted,
        top=top,
        stencil=t.stencil,
        threads=t.threads,
        memory_level=t.memory_level,
        spread=t.columns.get("time_iqr_rel", np.full(len(t), np.nan)),
        n_rows=len(raw),
        n_points=len(t),
        n_passes=raw.n_passes,
        n_correct=int(t.correct.sum()),
        loadavg_1m=loadavg,
        time=time,
        fit_errors=errors,
        tuner={
            **{v: tuner_curve(t, cals, variant=v) for v in VARIANTS},
            **{
                f"fitted-{v}": tuner_curve_of(t, f.predicted_s, label=f"fitted-{v}")
                for v, f in fitted.items()
            },
        },
        calibration_threads={n: int(_for_threads_source(cals, n)) for n in thread_counts},
        statistic=statistic,
        selection_floor=_split_floor_or_none(t),
    )


def _split_floor_or_none(t: Table, ks: Sequence[int] = (1, 3, 5, 10)) -> TunerCurve | None:
    """:func:`split_selection_floor` of a table of one row per point, None without passes."""
    passes = t.pass_times_s
    if passes is None or passes.shape[1] < 2:
        return None  # one pass, or CPU times (Table.with_time keeps no passes)
    halves = np.isfinite(passes[:, 0::2]).any(axis=1) & np.isfinite(passes[:, 1::2]).any(axis=1)
    if not halves.any():
        return None
    return split_selection_floor(t, ks=ks)


def _path(table: object) -> str | Path:
    if isinstance(table, (str, Path)):
        return table
    raise TypeError(f"table: expected a Table or a path, got {type(table).__name__}")


def _for_threads_source(cals: dict[int, Calibration], threads: int) -> int:
    return threads if threads in cals else min(cals, key=lambda n: (abs(n - threads), n))
