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
- :func:`validate`: all of it; :func:`plot_predicted_vs_measured`: Fig. A.4.

See ``docs/validation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure

from costmetrics import _convert
from costmetrics import time as cm_time
from costmetrics.measure import Calibration, Table, load_calibration, read_table

__all__ = [
    "VARIANTS",
    "DegenerateRow",
    "FitResult",
    "Score",
    "SelectionRow",
    "ValidationReport",
    "degenerate",
    "fit",
    "plot_predicted_vs_measured",
    "plot_selection",
    "predict",
    "relative_rmse",
    "score",
    "selection",
    "selection_summary",
    "top_mask",
    "validate",
]

VARIANTS: tuple[cm_time.Variant, ...] = ("paper", "exact")
_Problem = tuple[str, tuple[int, ...]]


def _table(table: Table | str | Path) -> Table:
    if isinstance(table, Table):
        return table
    if isinstance(table, (str, Path)):
        return read_table(table)
    raise TypeError(f"table: expected a Table or a path, got {type(table).__name__}")


def _calibration(cal: Calibration | str | Path) -> Calibration:
    if isinstance(cal, Calibration):
        return cal
    if isinstance(cal, (str, Path)):
        return load_calibration(cal)
    raise TypeError(f"calibration: expected a Calibration or a path, got {type(cal).__name__}")


def _groups(table: Table) -> dict[_Problem, npt.NDArray[np.intp]]:
    groups: dict[_Problem, list[int]] = {}
    for i in range(len(table)):
        groups.setdefault((table.stencil[i], table.sizes_of(i)), []).append(i)
    return {k: np.asarray(v, dtype=np.intp) for k, v in groups.items()}


def _tile_rows(table: Table, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
    return np.asarray([table.tiles_of(int(i)) for i in rows], dtype=np.int64)


# --------------------------------------------------------------------------------------
# Predictions and scores
# --------------------------------------------------------------------------------------


def predict(
    table: Table | str | Path,
    calibration: Calibration | str | Path,
    *,
    variant: cm_time.Variant = "exact",
) -> npt.NDArray[np.float64]:
    """Predicted T_alg for every row of a measurement table (NaN where infeasible).

    Parameters
    ----------
    table : Table or path
        Measurements (:func:`costmetrics.measure.read_table`).
    calibration : Calibration or path
        Machine preset and C_iter per stencil.
    variant : {"paper", "exact"}
        Time-model variant.

    Returns
    -------
    numpy.ndarray
        Seconds per row; NaN where the tile violates Eq. A.32 on the calibrated machine
        (e.g. M_tile above the buffer budget) or the stencil has no C_iter.
    """
    t, cal, v = _table(table), _calibration(calibration), _convert.variant(variant)
    out = np.full(len(t), np.nan)
    for (name, sizes), rows in _groups(t).items():
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

    Examples
    --------
    >>> relative_rmse([1.0, 2.0], [1.1, 1.8])  # errors +10% and -10%
    0.1
    """
    m = np.asarray(measured, dtype=np.float64)
    p = np.asarray(predicted, dtype=np.float64)
    if m.shape != p.shape:
        raise ValueError(f"measured, predicted: shapes differ: {m.shape} vs {p.shape}")
    if m.size == 0:
        return float("nan")
    if not (np.all(np.isfinite(m)) and np.all(m > 0)):
        raise ValueError("measured: values must be positive and finite")
    if not np.all(np.isfinite(p)):
        raise ValueError("predicted: values must be finite")
    return float(round(np.sqrt(np.mean(((p - m) / m) ** 2)), 15))


def top_mask(table: Table | str | Path, within: float = 0.20) -> npt.NDArray[np.bool_]:
    """Rows within ``within`` of the best performance of their (stencil, size) (Sec. A.5.2).

    The seed keeps "the data points that are within 20% of the top performing one" in
    GFLOPS; a row is kept when its performance is at least ``1 - within`` times the best,
    i.e. ``time_s <= best_time / (1 - within)``.

    Parameters
    ----------
    table : Table or path
        Measurements.
    within : float
        Fraction in [0, 1).

    Returns
    -------
    numpy.ndarray
        bool per row.
    """
    t = _table(table)
    if not (isinstance(within, (int, float)) and 0 <= within < 1):
        raise ValueError(f"within: must be in [0, 1), got {within!r}")
    mask = np.zeros(len(t), dtype=bool)
    for rows in _groups(t).values():
        best = t.time_s[rows].min()
        mask[rows] = t.time_s[rows] <= best / (1 - within) * (1 + 1e-12)
    return mask


@dataclass(frozen=True)
class Score:
    """Relative RMSE of one variant over a set of rows.

    Attributes
    ----------
    variant : str
        ``paper``, ``exact``, or ``fitted-paper`` / ``fitted-exact``.
    n_all, n_top : int
        Rows scored (feasible), and those within 20% of their problem's best.
    rmse_all, rmse_top : float
        Relative RMSE (fraction) over them.
    median_ratio_all : float
        Median of predicted / measured over all scored rows (below 1: optimistic).
    per_stencil : dict
        ``{stencil: {"n_all", "rmse_all", "n_top", "rmse_top", "median_ratio_all"}}``.
    """

    variant: str
    n_all: int
    rmse_all: float
    n_top: int
    rmse_top: float
    median_ratio_all: float
    per_stencil: dict[str, dict[str, float]] = field(repr=False)

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
        }


def _score(
    name: str,
    table: Table,
    predicted: npt.NDArray[np.float64],
    top: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.bool_],
) -> Score:
    use = rows & np.isfinite(predicted)

    def block(mask: npt.NDArray[np.bool_]) -> dict[str, float]:
        m_all, m_top = use & mask, use & mask & top
        ratio = predicted[m_all] / table.time_s[m_all]
        return {
            "n_all": int(m_all.sum()),
            "rmse_all": relative_rmse(table.time_s[m_all], predicted[m_all]),
            "n_top": int(m_top.sum()),
            "rmse_top": relative_rmse(table.time_s[m_top], predicted[m_top]),
            "median_ratio_all": float(np.median(ratio)) if ratio.size else float("nan"),
        }

    everything = block(np.ones(len(table), dtype=bool))
    names = np.asarray(table.stencil)
    per = {s: block(names == s) for s in sorted(set(table.stencil))}
    return Score(
        name,
        int(everything["n_all"]),
        everything["rmse_all"],
        int(everything["n_top"]),
        everything["rmse_top"],
        everything["median_ratio_all"],
        per,
    )


def score(
    table: Table | str | Path,
    calibration: Calibration | str | Path,
    *,
    variant: cm_time.Variant = "exact",
    within: float = 0.20,
) -> Score:
    """Relative RMSE of a variant over all rows and over the top rows (Sec. A.5.2).

    Parameters
    ----------
    table : Table or path
        Measurements.
    calibration : Calibration or path
        Micro-benchmark calibration (never fitted on ``table``).
    variant : {"paper", "exact"}
        Time-model variant.
    within : float
        The "top" set: within this fraction of the best per (stencil, size).

    Returns
    -------
    Score
        RMSE over all feasible rows and over the top rows, overall and per stencil.
    """
    t, cal, v = _table(table), _calibration(calibration), _convert.variant(variant)
    return _score(
        v, t, predict(t, cal, variant=v), top_mask(t, within), np.ones(len(t), dtype=bool)
    )


# --------------------------------------------------------------------------------------
# The fitted variant
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitResult:
    """Parameters fitted by least squares on a training split, scored on the rest.

    Attributes
    ----------
    variant : str
        The time-model variant whose parameters were fitted.
    calibration : Calibration
        The fitted parameters in a calibration (machine and mapping unchanged).
    parameters : dict of str to float
        ``l_s_per_word``, ``tau_sync_s``, ``t_sync_s``, ``c_iter_s[<stencil>]``.
    train_rows, test_rows : numpy.ndarray
        Row indices of the split.
    test_score : Score
        RMSE of the fitted parameters on the held-out rows only.
    """

    variant: str
    calibration: Calibration = field(repr=False)
    parameters: dict[str, float]
    train_rows: npt.NDArray[np.intp] = field(repr=False)
    test_rows: npt.NDArray[np.intp] = field(repr=False)
    test_score: Score


def _parameter_vector(cal: Calibration, names: Sequence[str]) -> npt.NDArray[np.float64]:
    g = cal.gpu
    return np.asarray(
        [g.l_s_per_word, g.tau_sync_s, g.t_sync_s, *(cal.c_iter_s(n) for n in names)],
        dtype=np.float64,
    )


def _with_vector(
    cal: Calibration, names: Sequence[str], theta: npt.NDArray[np.float64]
) -> Calibration:
    return cal.with_parameters(
        float(theta[0]),
        float(theta[1]),
        float(theta[2]),
        {n: float(theta[3 + i]) for i, n in enumerate(names)},
    )


def fit(
    table: Table | str | Path,
    calibration: Calibration | str | Path,
    *,
    variant: cm_time.Variant = "exact",
    train_fraction: float = 0.5,
    seed: int = 0,
    within: float = 0.20,
) -> FitResult:
    """Fit L, tau_sync, T_sync and C_iter per stencil to a training split; score the rest.

    With one tile per core (MTB_SM = 1, so k = 1) T_alg is linear in these parameters
    (Eqs. A.7-A.18: N_w T_sync + N_w ceil(ceil(w/k)/nSM) (m' + c) N_sub with m' linear in
    L and tau_sync and c in C_iter and tau_sync). The columns of that linear map are
    obtained from the C++ model itself (one evaluation per parameter, doubling it), and
    the fit minimizes the relative error (weights 1 / measured) with SciPy's bounded
    linear least squares (parameters >= 1e-15, as presets must be positive).

    Parameters
    ----------
    table : Table or path
        Measurements.
    calibration : Calibration or path
        Starting point (the micro-benchmark calibration) and machine mapping.
    variant : {"paper", "exact"}
        Variant whose parameters are fitted.
    train_fraction : float
        Share of rows fitted on (random, seeded); the rest are held out and scored. The
        same keyword as :func:`costmetrics.energy.fit`.
    seed : int
        Seed of the split.
    within : float
        The top set for the test score.

    Returns
    -------
    FitResult
        Fitted parameters and their held-out score.

    Raises
    ------
    ValueError
        If the split leaves no training or test rows, or the model is not linear in the
        parameters on these rows (it must be when k = 1).
    """
    from scipy.optimize import lsq_linear

    t, cal, v = _table(table), _calibration(calibration), _convert.variant(variant)
    fraction = _convert.real(train_fraction, "train_fraction")
    if not 0 < fraction < 1:
        raise ValueError(f"train_fraction: must be in (0, 1), got {train_fraction!r}")
    names = sorted(n for n in set(t.stencil) if n in cal.stencils)
    base = predict(t, cal, variant=v)
    usable = np.flatnonzero(np.isfinite(base))
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(usable)
    n_test = round((1.0 - fraction) * usable.size)
    test_rows, train_rows = np.sort(shuffled[:n_test]), np.sort(shuffled[n_test:])
    if train_rows.size == 0 or test_rows.size == 0:
        raise ValueError("train_fraction: the split leaves no training or no test rows")
    theta0 = _parameter_vector(cal, names)
    columns = np.empty((len(t), theta0.size))
    for j in range(theta0.size):
        bumped = theta0.copy()
        bumped[j] *= 2.0
        columns[:, j] = (predict(t, _with_vector(cal, names, bumped), variant=v) - base) / theta0[j]
    # Linearity check: A theta0 must reproduce the prediction.
    recon = columns[usable] @ theta0
    if not np.allclose(recon, base[usable], rtol=1e-6, atol=0):
        raise ValueError("fit: T_alg is not linear in the parameters on these rows (k > 1?)")
    weights = 1.0 / t.time_s[train_rows]
    a = columns[train_rows] * weights[:, None]
    b = t.time_s[train_rows] * weights
    scale = theta0  # solve for theta / theta0, which is O(1)
    res = lsq_linear(a * scale, b, bounds=(1e-15 / scale, np.inf), method="bvls")
    theta = np.asarray(res.x) * scale
    fitted_cal = _with_vector(cal, names, theta)
    predicted = predict(t, fitted_cal, variant=v)
    test_mask = np.zeros(len(t), dtype=bool)
    test_mask[test_rows] = True
    test_score = _score(f"fitted-{v}", t, predicted, top_mask(t, within), test_mask)
    params = {"l_s_per_word": theta[0], "tau_sync_s": theta[1], "t_sync_s": theta[2]}
    params.update({f"c_iter_s[{n}]": theta[3 + i] for i, n in enumerate(names)})
    return FitResult(
        v, fitted_cal, {k: float(x) for k, x in params.items()}, train_rows, test_rows, test_score
    )


# --------------------------------------------------------------------------------------
# Tile selection (A.6.2-A.6.4) and the degenerate tiles
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SelectionRow:
    """Tile selection of one variant on one problem (Sec. A.6.2-A.6.4).

    Attributes
    ----------
    stencil, sizes, variant
        The problem and the time-model variant.
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


def selection(
    table: Table | str | Path, *, variant: cm_time.Variant = "exact"
) -> list[SelectionRow]:
    """Tile selection results per problem, from the tags of a measured sweep.

    Uses the rows tagged ``<variant>_opt`` (the predicted optimum), ``<variant>_near``
    (points within 10% of it) and ``baseline`` by :func:`costmetrics.measure.measure`.
    Problems without these tags are skipped.

    Parameters
    ----------
    table : Table or path
        Measurements with model choices (a sweep planned with a calibration).
    variant : {"paper", "exact"}
        Time-model variant.

    Returns
    -------
    list of SelectionRow
        One per problem.
    """
    t, v = _table(table), _convert.variant(variant)
    opt, near, base = t.has_tag(f"{v}_opt"), t.has_tag(f"{v}_near"), t.has_tag("baseline")
    out = []
    for (name, sizes), rows in _groups(t).items():
        o, n, b = rows[opt[rows]], rows[(opt | near)[rows]], rows[base[rows]]
        if o.size == 0 or b.size == 0:
            continue
        i_opt, i_base = int(o[0]), int(b[0])
        i_near = int(n[np.argmin(t.time_s[n])])
        i_best = int(rows[np.argmin(t.time_s[rows])])
        out.append(
            SelectionRow(
                name, sizes, v,
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
    """
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


@dataclass(frozen=True)
class DegenerateRow:
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


def degenerate(
    table: Table | str | Path, calibration: Calibration | str | Path
) -> list[DegenerateRow]:
    """Return the measured tiles with tS1 = 1 and tT = 2 and both variants' predictions.

    Parameters
    ----------
    table : Table or path
        Measurements.
    calibration : Calibration or path
        Micro-benchmark calibration.

    Returns
    -------
    list of DegenerateRow
        One per measured degenerate tile.
    """
    t, cal = _table(table), _calibration(calibration)
    paper, exact = predict(t, cal, variant="paper"), predict(t, cal, variant="exact")
    out = []
    for i in range(len(t)):
        tiles = t.tiles_of(i)
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


@dataclass(frozen=True)
class ValidationReport:
    """Everything :func:`validate` computes.

    Attributes
    ----------
    scores : dict of str to Score
        Micro-benchmark calibration, per variant (``paper``, ``exact``).
    fitted : dict of str to FitResult
        The fitted variant per time-model variant (scored on held-out rows only).
    selection : dict of str to list of SelectionRow
        Tile selection per variant.
    selection_summary : dict of str to dict
        :func:`selection_summary` per variant.
    degenerate : list of DegenerateRow
        The tS1 = 1, tT = 2 tiles.
    measured_s : numpy.ndarray
        Measured time per row.
    predicted_s : dict of str to numpy.ndarray
        Predicted time per row and variant.
    top : numpy.ndarray
        The top mask (within 20% of the best per problem).
    stencil : tuple of str
        Stencil per row.
    n_rows, n_correct : int
        Rows, and rows that matched the naive stencil.
    time : str
        Which time was scored: ``"wall"`` or ``"cpu"``.
    loadavg_1m : tuple of float
        Minimum, median and maximum 1-minute load average over the rows.
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
    n_rows: int = 0
    n_correct: int = 0
    loadavg_1m: tuple[float, float, float] = (float("nan"),) * 3
    time: str = "wall"

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready dictionaries (no per-row arrays)."""
        return {
            "time": self.time,
            "n_rows": self.n_rows,
            "n_correct": self.n_correct,
            "loadavg_1m_min_median_max": list(self.loadavg_1m),
            "scores": {k: s.to_dict() for k, s in self.scores.items()},
            "fitted": {
                k: {
                    "parameters": f.parameters,
                    "n_train": int(f.train_rows.size),
                    "n_test": int(f.test_rows.size),
                    "test_score": f.test_score.to_dict(),
                }
                for k, f in self.fitted.items()
            },
            "selection_summary": self.selection_summary,
            "selection": {k: [r.to_dict() for r in rows] for k, rows in self.selection.items()},
            "degenerate": [d.to_dict() for d in self.degenerate],
        }


def validate(
    table: Table | str | Path,
    calibration: Calibration | str | Path,
    *,
    within: float = 0.20,
    train_fraction: float = 0.5,
    seed: int = 0,
    time: str = "wall",
) -> ValidationReport:
    """Score both variants, fit the "fitted" variant, and evaluate tile selection.

    Parameters
    ----------
    table : Table or path
        Measurements.
    calibration : Calibration or path
        Micro-benchmark calibration (the fitted variant starts from it).
    within : float
        Top set of Sec. A.5.2.
    train_fraction, seed
        Split of the fitted variant (as in :func:`fit`).
    time : {"wall", "cpu"}
        Score the measured wall time (the default, as the seed does) or the worker
        threads' CPU time (``Table.with_time``), a proxy that excludes descheduled time
        on a loaded machine.

    Returns
    -------
    ValidationReport
        Scores, fits, selection, degenerate tiles and the per-row arrays for plots.
    """
    t, cal = _table(table).with_time(time), _calibration(calibration)
    top = top_mask(t, within)
    predicted: dict[str, npt.NDArray[np.float64]] = {}
    scores: dict[str, Score] = {}
    fitted: dict[str, FitResult] = {}
    sel: dict[str, list[SelectionRow]] = {}
    for v in VARIANTS:
        predicted[v] = predict(t, cal, variant=v)
        scores[v] = _score(v, t, predicted[v], top, np.ones(len(t), dtype=bool))
        fitted[v] = fit(t, cal, variant=v, train_fraction=train_fraction, seed=seed, within=within)
        sel[v] = selection(t, variant=v)
    load = t.loadavg_1m[np.isfinite(t.loadavg_1m)]
    loadavg = (
        (float(load.min()), float(np.median(load)), float(load.max()))
        if load.size
        else (float("nan"),) * 3
    )
    return ValidationReport(
        scores=scores,
        fitted=fitted,
        selection=sel,
        selection_summary={v: selection_summary(rows) for v, rows in sel.items()},
        degenerate=degenerate(t, cal),
        measured_s=t.time_s,
        predicted_s=predicted,
        top=top,
        stencil=t.stencil,
        n_rows=len(t),
        n_correct=int(t.correct.sum()),
        loadavg_1m=loadavg,
        time=time,
    )


def plot_predicted_vs_measured(report: ValidationReport, title: str = "") -> Figure:
    """Predicted vs measured time per variant, top points highlighted (Fig. A.4).

    Parameters
    ----------
    report : ValidationReport
        From :func:`validate`.
    title : str
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        One log-log panel per variant with the line y = x.
    """
    fig = Figure(figsize=(10, 4.4), layout="constrained")
    axes = fig.subplots(1, len(VARIANTS), sharex=True, sharey=True)
    names = np.asarray(report.stencil)
    markers = dict(zip(sorted(set(report.stencil)), "osD^v<>"))
    for ax, v in zip(np.atleast_1d(axes), VARIANTS):
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


def plot_selection(report: ValidationReport, title: str = "") -> Figure:
    """Measured time of each tile-selection strategy per problem, relative to the best.

    Strategies (Fig. A.7 of the seed, on the CPU): the "largest tile that fits" baseline,
    each variant's predicted optimum (T_alg_min) and the best measured point within 10% of
    it; 1.0 is the best measured point of the problem.

    Parameters
    ----------
    report : ValidationReport
        From :func:`validate`.
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
    for v in VARIANTS:
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
