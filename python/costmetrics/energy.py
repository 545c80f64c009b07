"""Energy of tiled loop codes on GPUs, energy-parameter regression, energy-optimal tiles.

Thesis 000, Appendix B. Every formula lives in the C++ core (``cpp/src/energy.cpp``): the
energy E_alg = P_stat T_alg + N_tiles E_tile with E_tile = e_gs M_io + E_sr + E_iter V_tile
(Eqs. B.2-B.6), the kernels Smith-Waterman, Jacobi 1D and Jacobi 2D, the regression's
design matrix, its rank analysis and least-squares solve, Table B.3's error measure and the
exhaustive tile search. This module resolves names and presets, reads measurement tables,
runs the L1 fit (SciPy's HiGHS) and lays out results.

Conventions
-----------
``sizes`` is ``(S, T)`` for the 1D kernels and ``(S1, S2, T)`` for Jacobi 2D; ``tiles`` is
``(tS, tT)`` or ``(tS1, tS2, tT)``; ``subtile`` is the subtile size sS of SW and J1D
(default: sS = tS, no subtiling along S). Energies are in joules, power in watts, times in
seconds, memory in 4-byte words. T_alg is either given (``talg_s``, a measured time) or
computed by the time model of Appendix A (``gpu=`` a GPU preset; ``stencil=`` its
time-model stencil, by default the preset of the same name as the kernel).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt
import yaml

from costmetrics import _convert, _core
from costmetrics import time as cm_time
from costmetrics._record import Record, record
from costmetrics.presets import Gpu, Stencil, data_dir, normalize_name
from costmetrics.presets import gpu as _gpu_preset
from costmetrics.presets import stencil as _stencil_preset

__all__ = [
    "CSV_COLUMNS",
    "KERNELS",
    "PARAM_NAMES",
    "BestEnergyTiles",
    "Breakdown",
    "Combination",
    "EnergyBatch",
    "FitResult",
    "Identifiability",
    "Kernel",
    "OpMix",
    "OptimaComparison",
    "OptimizationError",
    "Params",
    "Runs",
    "best_tiles",
    "breakdown",
    "compare_optima",
    "custom_kernel",
    "design_matrix",
    "energy",
    "energy_batch",
    "energy_per_operation",
    "fit",
    "identifiability",
    "kernel",
    "load_runs",
    "optimization_error",
    "parameters",
    "synthetic_runs",
    "table_b2",
    "write_runs",
]

_core_energy = _core.energy

#: Energy parameters of Table B.1/B.2 (a bound C++ record; every field finite and >= 0).
Params = _core_energy.Params
#: Operations per loop-body iteration (a bound C++ record).
OpMix = _core_energy.OpMix
#: Every term of the model for one run (a bound C++ record; see ``Breakdown._fields``).
Breakdown = _core_energy.Breakdown
#: A kernel (built in or described by expressions), as returned by :func:`kernel`.
Kernel = _core_energy.Kernel

#: Parameter names, in the order of the design-matrix columns.
PARAM_NAMES: tuple[str, ...] = tuple(_core_energy.PARAM_NAMES)
#: The kernels of Sec. B.3, by key.
KERNELS: tuple[str, ...] = ("smith_waterman", "jacobi1d", "jacobi2d")
_KERNEL_KEYS = {normalize_name(k): k for k in KERNELS}
_MODEL_ALIASES = {
    "modela": "model_a",
    "a": "model_a",
    "microbenchmarks": "model_a",
    "modelb": "model_b",
    "b": "model_b",
    "regression": "model_b",
}
#: Required columns of a measurement table (units are part of the names).
CSV_COLUMNS: tuple[str, ...] = (
    "kernel",
    "size_s1",
    "size_s2",
    "size_s3",
    "size_t",
    "tile_s1",
    "tile_s2",
    "tile_s3",
    "tile_t",
    "time_s",
    "energy_j",
)
#: Optional column read when present: the subtile size sS of SW and J1D.
SUBTILE_COLUMN = "subtile_s1"
_TABLE_B2_FILE = "k20c_table_b2.yaml"

KernelLike = Union[str, "_core.energy.Kernel"]
ParamsLike = Union[str, Mapping[str, float], "_core.energy.Params"]


# --------------------------------------------------------------------------------------
# Kernels, parameters, argument handling
# --------------------------------------------------------------------------------------


def kernel(name: KernelLike) -> Kernel:
    """Return a kernel by key (``"smith_waterman"``, ``"jacobi1d"``, ``"jacobi2d"``).

    Parameters
    ----------
    name : str or Kernel
        A key (case, spaces, dashes and underscores ignored, as for every preset name:
        :func:`costmetrics.presets.normalize_name`), or a :class:`Kernel`, returned
        unchanged.

    Returns
    -------
    Kernel
        The kernel with its op mix.

    Raises
    ------
    ValueError
        If the name is unknown.
    TypeError
        If ``name`` is neither a string nor a Kernel.
    """
    if isinstance(name, Kernel):
        return name
    if not isinstance(name, str):
        raise TypeError(f"kernel: expected a kernel name or Kernel, got {type(name).__name__}")
    key = _KERNEL_KEYS.get(normalize_name(name))
    if key is None:
        raise ValueError(f"kernel: unknown kernel {name!r}; known: {', '.join(KERNELS)}")
    return _core_energy.builtin_kernel(key)


_get_kernel = kernel  # for functions whose parameter is also called ``kernel``


def custom_kernel(
    name: str,
    n_space_dims: int,
    ops: Mapping[str, float],
    m_io_words: str,
    sr_words: str,
    v_tile: str,
    n_tiles: str,
) -> Kernel:
    """Describe another kernel by its op mix and the closed forms of its tile counts.

    The expressions use numbers, ``+ - * / ^``, parentheses, ``ceil floor min max`` and
    the variables ``S1 S2 S3 T tS1 tS2 tS3 tT sS1`` (aliases ``S tS sS``); they are
    compiled once in the core and evaluated there, also inside the tile search.

    Parameters
    ----------
    name : str
        Display name.
    n_space_dims : int
        1, 2 or 3.
    ops : Mapping[str, float]
        Operations per iteration; keys among ``fadd fmul iadd imax`` (missing keys are 0).
    m_io_words : str
        M_io, words moved global<->shared per tile.
    sr_words : str
        Words moved shared<->register per tile (E_sr = e_sr * sr_words).
    v_tile : str
        V_tile, iteration points per tile.
    n_tiles : str
        N_tiles, number of tiles.

    Returns
    -------
    Kernel
        Usable wherever a kernel name is.

    Raises
    ------
    ValueError
        On a syntax error (with its position), an unknown variable, a negative op count.

    Examples
    --------
    >>> import costmetrics as cm
    >>> k = cm.energy.custom_kernel("j1d_no_subtiles", 1, {"fadd": 2, "fmul": 1},
    ...     "2*(2*tT + tS)", "4*(2*tS + 4*tT)", "tS*tT", "S*T/(tS*tT)")
    >>> round(cm.energy.energy(k, None, (4096, 1024), (64, 16), talg_s=1e-9), 6)
    0.002289
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    dims = _convert.integer(n_space_dims, "n_space_dims")
    if not isinstance(ops, Mapping):
        raise TypeError(f"ops: expected a mapping of op counts, got {type(ops).__name__}")
    unknown = set(ops) - {"fadd", "fmul", "iadd", "imax"}
    if unknown:
        raise ValueError(f"ops: unknown operation types {sorted(unknown)}; use fadd fmul iadd imax")
    mix = OpMix(**{k: ops.get(k, 0.0) for k in ("fadd", "fmul", "iadd", "imax")})
    exprs = {"m_io_words": m_io_words, "sr_words": sr_words, "v_tile": v_tile, "n_tiles": n_tiles}
    for key, value in exprs.items():
        if not isinstance(value, str):
            raise TypeError(f"{key}: expected an expression string, got {type(value).__name__}")
    return _core_energy.custom_kernel(name, dims, mix, **exprs)


def table_b2() -> dict[str, Any]:
    """Return Table B.2 (and the Table B.3 values) as shipped in ``data/energy/``.

    Returns
    -------
    dict
        The parsed YAML: ``models`` (``model_a``, ``model_b``), ``rmse_pct``,
        ``rmse_pct_text``, ``n_instances``, ``table_b3`` and ``source``.
    """
    path = data_dir() / "energy" / _TABLE_B2_FILE
    with path.open(encoding="utf-8") as handle:
        loaded: dict[str, Any] = yaml.safe_load(handle)
    return loaded


def parameters(model: str = "model_a") -> Params:
    """Return the K20c energy parameters of Table B.2.

    Parameters
    ----------
    model : str
        ``"model_a"`` (micro-benchmarks; aliases ``"a"``, ``"micro-benchmarks"``) or
        ``"model_b"`` (regression; aliases ``"b"``, ``"regression"``).

    Returns
    -------
    Params
        Static power in W and energies per operation in J.

    Examples
    --------
    >>> import costmetrics as cm
    >>> cm.energy.parameters("model_a").p_stat_w
    48.0
    """
    if not isinstance(model, str):
        raise TypeError(f"model: expected a str, got {type(model).__name__}")
    key = _MODEL_ALIASES.get(normalize_name(model))
    if key is None:
        raise ValueError(f"model: unknown parameter set {model!r}; use 'model_a' or 'model_b'")
    values = dict(table_b2()["models"][key])
    values.pop("label", None)
    return Params(**{name: float(values[name]) for name in PARAM_NAMES})


def _params(params: ParamsLike) -> Params:
    if isinstance(params, Params):
        return params
    if isinstance(params, str):
        return parameters(params)
    if isinstance(params, Mapping):
        return Params(**params)
    raise TypeError(
        f"params: expected Params, a mapping or 'model_a'/'model_b', got {type(params).__name__}"
    )


def _size_and_tiles(k: Any, sizes: object, tiles: object) -> tuple[Any, Any]:
    n = int(k.n_space_dims)
    s = _convert.extents(sizes, "sizes", n, tile=False)
    t = _convert.extents(tiles, "tiles", n, tile=True)
    pad = [0] * (3 - n)  # the core's records hold three space entries, unused ones 0
    return (
        _core.time.ProblemSize(space=[*s[:-1], *pad], time_steps=s[-1]),
        _core.time.TileSizes(space=[*t[:-1], *pad], time=t[-1]),
    )


def _subtile(subtile: object) -> int:
    return 0 if subtile is None else _convert.integer(subtile, "subtile")


def _time_model(
    k: Any, gpu: Gpu | str, stencil: Stencil | str | None
) -> tuple[Any, Any, Stencil, Gpu]:
    if not isinstance(gpu, (str, Gpu)):
        raise TypeError(f"gpu: expected a Gpu or a preset name, got {type(gpu).__name__}")
    g = _gpu_preset(gpu)
    if stencil is None:
        if k.kind != "jacobi2d":
            raise ValueError(
                f"kernel {k.name!r} has no time-model preset; pass stencil= (a time-model "
                "Stencil) or a measured talg_s"
            )
        stencil = "jacobi2d"
    if not isinstance(stencil, (str, Stencil)):
        raise TypeError(
            f"stencil: expected a Stencil or a preset name, got {type(stencil).__name__}"
        )
    s = _stencil_preset(stencil)
    if s.n_space_dims != k.n_space_dims:
        raise ValueError(
            f"stencil {s.name!r} has {s.n_space_dims} space dimensions, kernel {k.name!r} has "
            f"{k.n_space_dims}"
        )
    core_gpu = g._core_params()
    core_stencil = _core.time.StencilParams(n_space_dims=s.n_space_dims, c_iter_s=s.c_iter_on(g))
    return core_gpu, core_stencil, s, g


def _time_args(
    k: Any,
    talg_s: float | None,
    gpu: Gpu | str | None,
    stencil: Stencil | str | None,
) -> dict[str, Any]:
    if (talg_s is None) == (gpu is None):
        raise ValueError("give exactly one of talg_s (a measured time) and gpu (time model)")
    if gpu is not None:
        core_gpu, core_stencil, _, _ = _time_model(k, gpu, stencil)
        return {"gpu": core_gpu, "stencil": core_stencil}
    return {"talg_s": _convert.real(talg_s, "talg_s")}


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------


def breakdown(
    kernel: KernelLike,
    gpu: Gpu | str | None,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    params: ParamsLike = "model_a",
    talg_s: float | None = None,
    subtile: int | None = None,
    stencil: Stencil | str | None = None,
    variant: cm_time.Variant = "exact",
) -> Breakdown:
    """Evaluate the energy model for one run and return every term (Eqs. B.2-B.6).

    Parameters
    ----------
    kernel : str or Kernel
        ``"smith_waterman"``, ``"jacobi1d"``, ``"jacobi2d"`` or a :func:`custom_kernel`.
    gpu : Gpu, str or None
        GPU preset for the time model of Appendix A, which then gives T_alg and checks
        the tiles against Eq. A.32; ``None`` with a measured ``talg_s``.
    sizes : sequence of int
        ``(S, T)`` or ``(S1, S2, T)``.
    tiles : sequence of int
        ``(tS, tT)`` or ``(tS1, tS2, tT)``.
    params : Params, mapping or str
        Energy parameters; ``"model_a"`` / ``"model_b"`` are Table B.2's K20c values.
    talg_s : float, optional
        Execution time in seconds (e.g. measured), when ``gpu`` is None. Exactly one of
        ``talg_s`` and ``gpu``.
    subtile : int, optional
        Subtile size sS of SW and J1D (default sS = tS).
    stencil : Stencil or str, optional
        Time-model stencil when ``gpu`` is given (default: the preset named like the
        kernel; only ``jacobi2d`` has one).
    variant : {"paper", "exact", "machine"}
        Time-model variant (``"machine"`` adds the preset's machine terms; none on GPUs).

    Returns
    -------
    Breakdown
        ``e_alg_j``, ``e_static_j``, ``e_dynamic_j``, ``e_gs_j``, ``e_sr_j``, ``e_ar_j``
        (the last three summed over all tiles), ``e_tile_j``, ``e_iter_j``, ``talg_s``,
        ``n_tiles``, ``v_tile``, ``m_io_words``, ``sr_words``.

    Raises
    ------
    ValueError
        On bad sizes, tiles, parameters or time (the message names the entry).
    """
    k = _get_kernel(kernel)
    size, tile = _size_and_tiles(k, sizes, tiles)
    time_args = _time_args(k, talg_s, gpu, stencil)
    return _core_energy.evaluate(
        k, size, tile, _subtile(subtile), _params(params), variant=variant, **time_args
    )


def energy(
    kernel: KernelLike,
    gpu: Gpu | str | None,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    params: ParamsLike = "model_a",
    talg_s: float | None = None,
    subtile: int | None = None,
    stencil: Stencil | str | None = None,
    variant: cm_time.Variant = "exact",
) -> float:
    """Total energy E_alg = P_stat T_alg + N_tiles E_tile in joules (Sec. B.6.1).

    Parameters are those of :func:`breakdown`.

    Returns
    -------
    float
        E_alg in joules.

    Examples
    --------
    >>> import costmetrics as cm
    >>> round(cm.energy.energy("jacobi2d", None, (1000, 1000, 100), (10, 32, 8), talg_s=0.5), 4)
    24.2708
    """
    b = breakdown(
        kernel,
        gpu,
        sizes,
        tiles,
        params=params,
        talg_s=talg_s,
        subtile=subtile,
        stencil=stencil,
        variant=variant,
    )
    return float(b.e_alg_j)


@record
class EnergyBatch(Record):
    """E_alg and its terms for an array of runs, like :class:`costmetrics.time.BatchResult`.

    Attributes
    ----------
    e_alg_j : numpy.ndarray
        E_alg per row, joules; NaN where the tile is infeasible for the time model.
    terms : dict of str to numpy.ndarray
        Every other :class:`Breakdown` field per row (NaN where infeasible).
    reasons : numpy.ndarray
        uint32 bit mask per row (0 when feasible; see
        :data:`costmetrics.time.INFEASIBLE_REASONS`); all 0 with measured times.
    """

    e_alg_j: npt.NDArray[np.float64]
    terms: dict[str, npt.NDArray[np.float64]]
    reasons: npt.NDArray[np.uint32]

    @property
    def feasible(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of the feasible rows."""
        return np.asarray(self.reasons == 0)

    def reason_text(self, index: int) -> str:
        """Text of the infeasibility reasons of one row."""
        return cm_time.describe_infeasibility(int(self.reasons[index]))


def _rows4(array: npt.NDArray[np.int64], n_dims: int) -> npt.NDArray[np.int64]:
    """(n, d + 1) rows with time last -> (n, 4) rows S1, S2, S3, T (zeros for missing)."""
    out = np.zeros((array.shape[0], 4), dtype=np.int64)
    out[:, :n_dims] = array[:, :n_dims]
    out[:, 3] = array[:, n_dims]
    return out


def _per_row(value: object, n: int, name: str, dtype: type) -> npt.NDArray[Any]:
    array = np.asarray(value)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected numbers, got dtype {array.dtype}")
    if dtype is np.int64 and array.dtype.kind == "f":
        raise TypeError(f"{name}: expected integers, got dtype {array.dtype}")
    if array.ndim == 0:
        array = np.full(n, array.item())
    if array.shape != (n,):
        raise ValueError(f"{name}: expected a scalar or {n} values, got shape {array.shape}")
    return array.astype(dtype)


def energy_batch(
    kernel: KernelLike,
    gpu: Gpu | str | None,
    sizes: Sequence[int],
    tiles: npt.ArrayLike,
    *,
    params: ParamsLike = "model_a",
    talg_s: npt.ArrayLike | None = None,
    subtile: npt.ArrayLike | None = None,
    stencil: Stencil | str | None = None,
    variant: cm_time.Variant = "exact",
    threads: int = 0,
) -> EnergyBatch:
    """Evaluate E_alg for many tile choices at once, like :func:`costmetrics.time.talg_batch`.

    Parameters
    ----------
    kernel, gpu, sizes, params, stencil, variant
        As in :func:`breakdown`.
    tiles : array_like of int, shape (n, d + 1)
        One tile choice per row, ``(tS1, [tS2,] tT)``.
    talg_s : float or array_like, optional
        One time for all rows or one per row (seconds), when ``gpu`` is None.
    subtile : int or array_like of int, optional
        sS for all rows or per row.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    EnergyBatch
        E_alg and every term per row, with the feasibility mask of the time model
        (infeasible rows are NaN, not an error, so that a whole search space can be
        evaluated).

    Raises
    ------
    ValueError
        If a row is invalid for the energy model (the message names the row).
    """
    k = _get_kernel(kernel)
    n_dims = int(k.n_space_dims)
    size_row = _convert.extents(sizes, "sizes", n_dims, tile=False)
    tile_rows = _convert.rows(tiles, "tiles", n_dims)
    n = tile_rows.shape[0]
    n_threads = _convert.integer(threads, "threads")
    if (talg_s is None) == (gpu is None):
        raise ValueError("give exactly one of talg_s (measured times) and gpu (time model)")
    if gpu is not None:
        _, _, s, g = _time_model(k, gpu, stencil)
        times = cm_time.talg_batch(
            s, g, size_row, tile_rows, variant=variant, threads=n_threads, terms=False
        )
        reasons = np.asarray(times.reasons, dtype=np.uint32)
        talg = times.talg_s
    else:
        reasons = np.zeros(n, dtype=np.uint32)
        talg = _per_row(talg_s, n, "talg_s", np.float64)
    subtiles = _per_row(0 if subtile is None else subtile, n, "subtile", np.int64)
    ok = np.flatnonzero(reasons == 0)
    size_rows = np.tile(np.asarray(size_row, dtype=np.int64), (ok.size, 1))
    out = _core_energy.evaluate_batch(
        k,
        _rows4(size_rows, n_dims),
        _rows4(tile_rows[ok], n_dims),
        subtiles[ok],
        np.ascontiguousarray(talg[ok]),
        _params(params),
        n_threads,
    )
    columns = {}
    for name in out:
        column = np.full(n, np.nan)
        column[ok] = np.asarray(out[name])
        columns[name] = column
    e_alg = columns.pop("e_alg_j")
    return EnergyBatch(e_alg, columns, reasons)


def energy_per_operation(e_alg_j: float, p_stat_w: float, talg_s: float, op_count: float) -> float:
    """Benchmarking form of Sec. B.7.1: e_j = (E_alg - P_stat T_alg) / op_j, joules.

    Parameters
    ----------
    e_alg_j : float
        Measured energy of a micro-benchmark, J.
    p_stat_w : float
        Static power, W.
    talg_s : float
        Its execution time, s.
    op_count : float
        Number of operations of the type the benchmark stresses.

    Returns
    -------
    float
        Energy per operation, J.
    """
    return float(
        _core_energy.energy_per_operation_j(
            float(e_alg_j), float(p_stat_w), float(talg_s), float(op_count)
        )
    )


# --------------------------------------------------------------------------------------
# Measurement tables
# --------------------------------------------------------------------------------------


@record
class Runs(Record):
    """A table of runs: kernel, problem and tile sizes, measured time and energy.

    Attributes
    ----------
    kernel : tuple of str
        Kernel key per row.
    sizes : numpy.ndarray
        (n, 4) int64: S1, S2, S3, T (0 where the kernel lacks the dimension).
    tiles : numpy.ndarray
        (n, 4) int64: tS1, tS2, tS3, tT.
    subtile : numpy.ndarray
        (n,) int64: sS (0: sS = tS).
    time_s : numpy.ndarray
        (n,) measured execution times, s.
    energy_j : numpy.ndarray
        (n,) measured energies, J.
    comments : tuple of str
        The file's leading ``#`` lines (metadata), without the ``#``.
    source : str
        Where the table was read from.
    """

    kernel: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    tiles: npt.NDArray[np.int64]
    subtile: npt.NDArray[np.int64]
    time_s: npt.NDArray[np.float64]
    energy_j: npt.NDArray[np.float64]
    comments: tuple[str, ...] = ()
    source: str = ""

    def __len__(self) -> int:
        return len(self.kernel)

    def select(self, rows: npt.ArrayLike) -> Runs:
        """Return the runs at ``rows`` (indices or a boolean mask)."""
        idx = np.arange(len(self))[np.asarray(rows)]
        return Runs(
            tuple(self.kernel[i] for i in idx),
            self.sizes[idx],
            self.tiles[idx],
            self.subtile[idx],
            self.time_s[idx],
            self.energy_j[idx],
            self.comments,
            self.source,
        )

    @property
    def synthetic(self) -> bool:
        """Whether the table's metadata labels it synthetic."""
        return any("synthetic" in c.lower() for c in self.comments)


def _parse_int(text: str, column: str, where: str, required: bool) -> int:
    text = text.strip()
    if not text:
        if required:
            raise ValueError(f"{where}: {column} is empty but the kernel needs it")
        return 0
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{where}: {column} must be an integer, got {text!r}") from None
    if required and value <= 0:
        raise ValueError(f"{where}: {column} must be positive, got {value}")
    if not _convert.INT64_MIN <= value <= _convert.INT64_MAX:
        raise OverflowError(f"{where}: {column} = {value} does not fit a signed 64-bit integer")
    return value if required else 0


def _parse_float(text: str, column: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {column} must be a number, got {text!r}") from None
    # Measured times and energies of real runs: zero or negative is an error, not "none".
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{where}: {column} must be finite and > 0, got {text!r}")
    return value


def load_runs(path: str | Path) -> Runs:
    """Read a measurement table (CSV format of ``docs/energy-model.md``).

    UTF-8; optional leading ``#`` comment lines; a header with the columns of
    :data:`CSV_COLUMNS` (extra columns are ignored, except the optional ``subtile_s1``);
    entries for dimensions a kernel lacks are empty.

    Parameters
    ----------
    path : str or Path
        The CSV file.

    Returns
    -------
    Runs
        The table.

    Raises
    ------
    ValueError
        If a required column is missing (or present without its unit), the table has no
        rows, or an entry is invalid; the message names the file, line and column.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    return _parse_runs(text, str(p))


def _parse_runs(text: str, source: str) -> Runs:
    lines = text.splitlines()
    comments = []
    start = 0
    while start < len(lines) and (lines[start].startswith("#") or not lines[start].strip()):
        if lines[start].startswith("#"):
            comments.append(lines[start][1:].strip())
        start += 1
    if start == len(lines):
        raise ValueError(f"{source}: no header row (columns {', '.join(CSV_COLUMNS)})")
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = [h.strip() for h in next(reader)]
    for column in CSV_COLUMNS:
        if column not in header:
            base = column.rsplit("_", 1)[0]
            hint = f" (found {base!r} without its unit)" if base in header else ""
            raise ValueError(f"{source}: missing column {column!r}{hint}")
    col = {name: header.index(name) for name in header}
    kinds: list[str] = []
    sizes: list[list[int]] = []
    tiles: list[list[int]] = []
    subtiles: list[int] = []
    times: list[float] = []
    energies: list[float] = []
    dims_of = {"smith_waterman": 1, "jacobi1d": 1, "jacobi2d": 2}
    for offset, row in enumerate(reader):
        line = start + 2 + offset
        where = f"{source}, line {line}"
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) < len(header):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(header)}")
        name = row[col["kernel"]].strip()
        key = _KERNEL_KEYS.get(normalize_name(name))
        if key is None:
            raise ValueError(f"{where}: unknown kernel {name!r}; known: {', '.join(KERNELS)}")
        n = dims_of[key]
        sizes.append(
            [_parse_int(row[col[f"size_s{d}"]], f"size_s{d}", where, d <= n) for d in (1, 2, 3)]
            + [_parse_int(row[col["size_t"]], "size_t", where, True)]
        )
        tiles.append(
            [_parse_int(row[col[f"tile_s{d}"]], f"tile_s{d}", where, d <= n) for d in (1, 2, 3)]
            + [_parse_int(row[col["tile_t"]], "tile_t", where, True)]
        )
        sub = row[col[SUBTILE_COLUMN]].strip() if SUBTILE_COLUMN in col else ""
        subtiles.append(_parse_int(sub, SUBTILE_COLUMN, where, True) if sub else 0)
        times.append(_parse_float(row[col["time_s"]], "time_s", where))
        energies.append(_parse_float(row[col["energy_j"]], "energy_j", where))
        kinds.append(key)
    if not kinds:
        raise ValueError(f"{source}: the table has no data rows")
    return Runs(
        tuple(kinds),
        np.asarray(sizes, dtype=np.int64),
        np.asarray(tiles, dtype=np.int64),
        np.asarray(subtiles, dtype=np.int64),
        np.asarray(times, dtype=np.float64),
        np.asarray(energies, dtype=np.float64),
        tuple(comments),
        source,
    )


def write_runs(runs: Runs, path: str | Path, comments: Iterable[str] = ()) -> Path:
    """Write runs in the CSV format :func:`load_runs` reads.

    Parameters
    ----------
    runs : Runs
        The table.
    path : str or Path
        Destination.
    comments : iterable of str
        Metadata lines written first, each prefixed with ``#`` and a space.

    Returns
    -------
    Path
        The written file.
    """
    p = Path(path)
    dims_of = {"smith_waterman": 1, "jacobi1d": 1, "jacobi2d": 2}
    with p.open("w", encoding="utf-8", newline="") as handle:
        for line in comments:
            handle.write(f"# {line}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([*CSV_COLUMNS, SUBTILE_COLUMN])
        for i, name in enumerate(runs.kernel):
            n = dims_of.get(name, 3)
            s = [str(int(v)) if d < n else "" for d, v in enumerate(runs.sizes[i, :3])]
            t = [str(int(v)) if d < n else "" for d, v in enumerate(runs.tiles[i, :3])]
            sub = int(runs.subtile[i])
            writer.writerow(
                [
                    name,
                    *s,
                    int(runs.sizes[i, 3]),
                    *t,
                    int(runs.tiles[i, 3]),
                    repr(float(runs.time_s[i])),
                    repr(float(runs.energy_j[i])),
                    str(sub) if sub else "",
                ]
            )
    return p


def _as_runs(table: Runs | str | Path) -> Runs:
    if isinstance(table, Runs):
        return table
    if isinstance(table, (str, Path)):
        return load_runs(table)
    raise TypeError(f"table: expected Runs or a CSV path, got {type(table).__name__}")


def design_matrix(runs: Runs) -> npt.NDArray[np.float64]:
    """Return the regression's design matrix (Sec. B.7.1), built by the C++ core.

    Row i holds the coefficients of :data:`PARAM_NAMES` in E_alg of run i, with its
    measured time: ``(T_alg, N M_io, N sr_words, N V op_fadd, N V op_fmul, N V op_iadd,
    N V op_imax)``, so that E_alg = row . params.

    Parameters
    ----------
    runs : Runs
        The runs.

    Returns
    -------
    numpy.ndarray
        Shape (n, 7).
    """
    a = np.zeros((len(runs), len(PARAM_NAMES)))
    names = np.asarray(runs.kernel)
    for key in sorted(set(runs.kernel)):
        rows = np.flatnonzero(names == key)
        a[rows] = _core_energy.design_matrix(
            kernel(key), runs.sizes[rows], runs.tiles[rows], runs.subtile[rows], runs.time_s[rows]
        )
    return a


# --------------------------------------------------------------------------------------
# Regression (Sec. B.7.1)
# --------------------------------------------------------------------------------------


@record
class Combination(Record):
    """A linear combination of parameters that the data determine.

    Attributes
    ----------
    coefficients : dict of str to float
        Non-zero coefficients by parameter name.
    value : float
        The fitted value of the combination.
    """

    coefficients: dict[str, float]
    value: float

    @property
    def text(self) -> str:
        """The combination written out, e.g. ``"e_iadd_j + e_imax_j"``."""
        parts = []
        for name, c in self.coefficients.items():
            mag = abs(c)
            coef = "" if math.isclose(mag, 1.0, rel_tol=1e-9) else f"{mag:.6g} "
            sign = "-" if c < 0 else "+"
            parts.append((sign, f"{coef}{name}"))
        out = ("-" if parts[0][0] == "-" else "") + parts[0][1]
        for sign, term in parts[1:]:
            out += f" {sign} {term}"
        return out

    @property
    def single(self) -> bool:
        """Whether this is one parameter on its own (individually identifiable)."""
        return len(self.coefficients) == 1


@record
class Identifiability(Record):
    """What a set of runs determines of the seven parameters (Sec. B.7.1).

    Attributes
    ----------
    rank : int
        Rank of the design matrix.
    combinations : list of dict of str to float
        A basis of the determined parameter combinations, each as its non-zero
        coefficients by parameter name.
    """

    rank: int
    combinations: list[dict[str, float]]


def identifiability(runs: Runs, rel_tol: float = 1e-10) -> Identifiability:
    """Rank of the design matrix and the parameter combinations it determines.

    Parameters
    ----------
    runs : Runs
        The runs (only kernels, sizes, tiles and times matter).
    rel_tol : float
        Singular values below ``rel_tol`` times the largest (of the column-scaled matrix)
        count as zero.

    Returns
    -------
    Identifiability
        The rank and the determined combinations.
    """
    out = _core_energy.identifiability(design_matrix(runs), _convert.real(rel_tol, "rel_tol"))
    return Identifiability(
        rank=int(out["rank"]),
        combinations=[_coefficients(row) for row in np.asarray(out["combinations"])],
    )


def _coefficients(row: npt.NDArray[np.float64]) -> dict[str, float]:
    return {name: float(c) for name, c in zip(PARAM_NAMES, row) if c != 0}


@record
class FitResult(Record):
    """Fitted energy parameters (Sec. B.7.1), their identifiability and errors.

    Attributes
    ----------
    method : str
        ``"l1"`` (linear program, non-negative parameters) or ``"lsq"`` (least squares).
    parameters : dict of str to float or None
        Each parameter's estimate, or None when the data do not determine it on its own.
    combinations : list of Combination
        Every combination the data determine (reduced row echelon form of the design
        matrix's row space); single-parameter ones repeat ``parameters``.
    rank : int
        Rank of the training design matrix (7 when every parameter is identifiable).
    singular_values : numpy.ndarray
        Of the column-scaled training design matrix, descending; a small non-zero value
        means a weakly determined direction (noise is amplified by s_max / s).
    solution : numpy.ndarray
        One parameter vector attaining the fit (used for predictions; its split along
        non-identifiable directions is not determined by the data).
    n_train, n_test : int
        Rows used for fitting and for testing.
    train_rmse_pct, test_rmse_pct : float or None
        Root mean square of the relative errors (E_model - E_meas) / E_meas, percent.
    kernel_rmse_pct : dict of str to float
        Per-kernel relative RMSE on the test rows (training rows when there is no test
        set), percent: Table B.2's "error" rows.
    train_rows : numpy.ndarray
        Indices of the training rows in the input table.
    """

    method: str
    parameters: dict[str, float | None]
    combinations: list[Combination]
    rank: int
    singular_values: npt.NDArray[np.float64]
    solution: npt.NDArray[np.float64]
    n_train: int
    n_test: int
    train_rmse_pct: float
    test_rmse_pct: float | None
    kernel_rmse_pct: dict[str, float]
    train_rows: npt.NDArray[np.int64] = field(repr=False)

    def table(self) -> list[dict[str, Any]]:
        """Rows laid out like Table B.2: parameter (or combination) and fitted value."""
        rows: list[dict[str, Any]] = [
            {"parameter": c.text, "value": c.value} for c in self.combinations
        ]
        rows += [
            {"parameter": f"error {k} [RMSE %]", "value": v}
            for k, v in self.kernel_rmse_pct.items()
        ]
        return rows


def _split(runs: Runs, train_fraction: float, seed: int) -> npt.NDArray[np.int64]:
    rng = np.random.default_rng(seed)
    names = np.asarray(runs.kernel)
    train: list[int] = []
    for key in sorted(set(runs.kernel)):
        rows = np.flatnonzero(names == key)
        n_train = max(1, math.ceil(train_fraction * rows.size))
        train += rng.permutation(rows)[:n_train].tolist()
    return np.sort(np.asarray(train, dtype=np.int64))


def _relative_rmse_pct(
    predicted: npt.NDArray[np.float64], measured: npt.NDArray[np.float64]
) -> float:
    return float(100.0 * np.sqrt(np.mean(((predicted - measured) / measured) ** 2)))


def _fit_l1(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    from scipy import sparse
    from scipy.optimize import linprog

    # Scale columns and energies to order 1: the raw coefficients span ~20 decades.
    col = np.linalg.norm(a, axis=0)
    col[col == 0] = 1.0
    b_scale = float(np.max(np.abs(b)))
    a_s = a / col
    b_s = b / b_scale
    n, m = a_s.shape
    # min sum u  s.t.  A y - u <= b,  -A y - u <= -b,  y >= 0, u >= 0.
    cost = np.concatenate([np.zeros(m), np.ones(n)])
    eye = sparse.identity(n, format="csr")
    dense = sparse.csr_matrix(a_s)
    a_ub = sparse.bmat([[dense, -eye], [-dense, -eye]], format="csr")  # O(n) memory
    b_ub = np.concatenate([b_s, -b_s])
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    if result.status != 0:
        raise RuntimeError(f"L1 fit: the linear program failed: {result.message}")
    y = np.asarray(result.x[:m], dtype=np.float64)
    out: npt.NDArray[np.float64] = y * b_scale / col
    return out


def fit(
    table: Runs | str | Path,
    *,
    kernel: str | Sequence[str] | None = None,
    method: Literal["l1", "lsq"] = "l1",
    train_fraction: float = 0.1,
    seed: int = 0,
    rel_tol: float = 1e-10,
    weighting: Literal["absolute", "relative"] = "absolute",
) -> FitResult:
    """Fit the energy parameters to measured runs (Sec. B.7.1, Model B).

    ``method="l1"`` minimizes ``sum_i |E_alg(X)_i - E_meas_i|`` subject to ``X >= 0`` as a linear
    program (SciPy's HiGHS), as the seed does; ``method="lsq"`` minimizes the sum of
    squares with the core's Eigen SVD (no sign constraint). Both use the design matrix
    built by the core. Parameters the data cannot separate are reported as combinations.

    Parameters
    ----------
    table : Runs, str or Path
        Runs, or a CSV file in the format of :func:`load_runs`.
    kernel : str or sequence of str, optional
        Fit only these kernels (default: all in the table).
    method : {"l1", "lsq"}
        Objective.
    train_fraction : float
        Fraction of each kernel's runs used for fitting, in (0, 1] (the seed: 0.1); the
        rest are the test set.
    seed : int
        Seed of the random split.
    rel_tol : float
        Rank tolerance (see :func:`identifiability`).
    weighting : {"absolute", "relative"}
        ``"absolute"`` fits E_alg - E_meas as the seed does; ``"relative"`` divides each
        run's equation by E_meas (errors relative to the measurement, the right weighting
        for multiplicative noise).

    Returns
    -------
    FitResult
        Parameters, identifiable combinations, rank, train/test and per-kernel RMSE.

    Raises
    ------
    ValueError
        On an empty selection, a bad fraction or method.
    """
    runs = _as_runs(table)
    if kernel is not None:
        wanted = [kernel] if isinstance(kernel, str) else list(kernel)
        keys = {_get_kernel(k).name for k in wanted}
        runs = runs.select(np.asarray([k in keys for k in runs.kernel], dtype=bool))
        if len(runs) == 0:
            raise ValueError(f"kernel: no runs of {sorted(keys)} in the table")
    if method not in ("l1", "lsq"):
        raise ValueError(f"method must be 'l1' or 'lsq', got {method!r}")
    if isinstance(train_fraction, bool) or not isinstance(train_fraction, (int, float)):
        raise TypeError(f"train_fraction: expected a number, got {type(train_fraction).__name__}")
    if not 0 < train_fraction <= 1:
        raise ValueError(f"train_fraction must be in (0, 1], got {train_fraction}")
    seed = _convert.integer(seed, "seed")
    a = design_matrix(runs)
    train = _split(runs, float(train_fraction), seed)
    test = np.setdiff1d(np.arange(len(runs)), train)
    if weighting not in ("absolute", "relative"):
        raise ValueError(f"weighting must be 'absolute' or 'relative', got {weighting!r}")
    a_train, b_train = a[train], runs.energy_j[train]
    if weighting == "relative":
        a_train, b_train = a_train / b_train[:, None], np.ones_like(b_train)
    if method == "lsq":
        out = _core_energy.fit_least_squares(a_train, b_train, float(rel_tol))
        x = np.asarray(out["x"], dtype=np.float64)
    else:
        out = _core_energy.identifiability(a_train, float(rel_tol))
        x = _fit_l1(a_train, b_train)
    rank = int(out["rank"])
    singular = np.asarray(out["singular_values"], dtype=np.float64)
    rows = np.asarray(out["combinations"])
    combinations = [Combination(_coefficients(r), float(r @ x)) for r in rows]
    ident = list(out["individually_identifiable"])
    parameters: dict[str, float | None] = {
        name: (float(x[i]) if ident[i] else None) for i, name in enumerate(PARAM_NAMES)
    }
    predicted = a @ x
    names = np.asarray(runs.kernel)
    eval_rows = test if test.size else train
    per_kernel = {}
    for key in KERNELS:
        rows_k = eval_rows[names[eval_rows] == key]
        if rows_k.size:
            per_kernel[key] = _relative_rmse_pct(predicted[rows_k], runs.energy_j[rows_k])
    return FitResult(
        method=method,
        parameters=parameters,
        combinations=combinations,
        rank=rank,
        singular_values=singular,
        solution=x,
        n_train=int(train.size),
        n_test=int(test.size),
        train_rmse_pct=_relative_rmse_pct(predicted[train], runs.energy_j[train]),
        test_rmse_pct=(
            _relative_rmse_pct(predicted[test], runs.energy_j[test]) if test.size else None
        ),
        kernel_rmse_pct=per_kernel,
        train_rows=train,
    )


def model_rmse_pct(table: Runs | str | Path, *, params: ParamsLike = "model_a") -> dict[str, float]:
    """Per-kernel relative RMSE of a parameter set against measured runs (Table B.2 rows).

    Parameters
    ----------
    table : Runs, str or Path
        Measured runs.
    params : Params, mapping or str
        Parameters, e.g. ``"model_a"``.

    Returns
    -------
    dict of str to float
        Kernel key -> RMSE of (E_model - E_meas) / E_meas, percent.
    """
    runs = _as_runs(table)
    x = np.asarray([getattr(_params(params), n) for n in PARAM_NAMES])
    predicted = design_matrix(runs) @ x
    names = np.asarray(runs.kernel)
    return {
        key: _relative_rmse_pct(predicted[names == key], runs.energy_j[names == key])
        for key in KERNELS
        if np.any(names == key)
    }


# --------------------------------------------------------------------------------------
# Table B.3: optimization error over measured tile grids
# --------------------------------------------------------------------------------------


@record
class OptimizationError(Record):
    """Table B.3 for one kernel.

    Attributes
    ----------
    n_experiments : int
        Program-parameter combinations (groups of runs with equal sizes).
    n_wrong : int
        Groups where the model's optimal tiles differ from the measured best.
    rmse_pct, max_pct : float
        RMSE and maximum of E_err = E_meas(model's optimum) - E_meas(measured optimum),
        relative to the latter, percent.
    """

    n_experiments: int
    n_wrong: int
    rmse_pct: float
    max_pct: float


def optimization_error(
    table: Runs | str | Path, *, params: ParamsLike = "model_a"
) -> dict[str, OptimizationError]:
    """Table B.3: how often, and how costly, the model's optimal tiles miss the measured best.

    Runs are grouped by kernel and problem sizes; within a group the model (with each
    run's measured time) ranks the tile choices and is compared with the measured
    energies.

    Parameters
    ----------
    table : Runs, str or Path
        Measured runs over tile grids.
    params : Params, mapping or str
        Model parameters (the seed uses Model A).

    Returns
    -------
    dict of str to OptimizationError
        Per kernel key.
    """
    runs = _as_runs(table)
    x = np.asarray([getattr(_params(params), n) for n in PARAM_NAMES])
    predicted = design_matrix(runs) @ x
    names = np.asarray(runs.kernel)
    out = {}
    for key in KERNELS:
        rows = np.flatnonzero(names == key)
        if not rows.size:
            continue
        _, group = np.unique(runs.sizes[rows], axis=0, return_inverse=True)
        r = _core_energy.optimization_error(
            np.asarray(group, dtype=np.int64).ravel(), predicted[rows], runs.energy_j[rows]
        )
        out[key] = OptimizationError(
            int(r["n_groups"]), int(r["n_wrong"]), float(r["rmse_pct"]), float(r["max_pct"])
        )
    return out


# --------------------------------------------------------------------------------------
# Energy-optimal tiles (Sec. B.8)
# --------------------------------------------------------------------------------------


@record
class BestEnergyTiles(Record):
    """Result of the exhaustive energy-optimal tile search (Eq. B.7).

    Attributes
    ----------
    tiles : tuple of int
        The argmin, in the layout of ``tiles`` arguments.
    e_alg_j : float
        E_alg at the argmin, J.
    breakdown : Breakdown
        Every term at the argmin.
    near_optimal : numpy.ndarray
        Every feasible point with E_alg <= (1 + within) E_min, one per row, ascending.
    near_optimal_e_j : numpy.ndarray
        Their E_alg, J.
    n_points, n_feasible : int
        Size of the search space and feasible points in it.
    within : float
        The fraction used.
    """

    tiles: tuple[int, ...]
    e_alg_j: float
    breakdown: Breakdown
    near_optimal: npt.NDArray[np.int64]
    near_optimal_e_j: npt.NDArray[np.float64]
    n_points: int
    n_feasible: int
    within: float


def best_tiles(
    kernel: KernelLike,
    gpu: Gpu | str | None,
    sizes: Sequence[int],
    *,
    params: ParamsLike = "model_a",
    talg_s: float | None = None,
    within: float = 0.10,
    space: cm_time.SearchSpace | Sequence[Sequence[int]] | None = None,
    subtile: int | None = None,
    stencil: Stencil | str | None = None,
    variant: cm_time.Variant = "exact",
    threads: int = 0,
) -> BestEnergyTiles:
    """Exhaustive multi-threaded search for the tiles minimizing E_alg (Eq. B.7).

    Mirrors :func:`costmetrics.time.best_tiles` and runs the same search routine with
    E_alg as the objective.

    Parameters
    ----------
    kernel, sizes, params, subtile, stencil, variant
        As in :func:`breakdown`.
    gpu : Gpu, str or None
        GPU preset: T_alg of every tile from the time model, and Eq. A.32's feasibility;
        ``None`` with a fixed ``talg_s``.
    talg_s : float, optional
        A fixed T_alg instead (then only the dynamic energy varies with the tiles).
    within : float
        Also return every feasible point with E_alg <= (1 + within) E_min.
    space : costmetrics.time.SearchSpace or sequence of sequences of int, optional
        Candidates, as in :func:`costmetrics.time.best_tiles`; default
        :func:`costmetrics.time.default_search_space`.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    BestEnergyTiles
        The argmin, E_min and the near-optimal set.
    """
    k = _get_kernel(kernel)
    size, _ = _size_and_tiles(k, sizes, [1] * (int(k.n_space_dims) + 1))
    core_space = cm_time._search_space(space, int(k.n_space_dims))._to_core()
    fraction = _convert.real(within, "within")
    time_args = _time_args(k, talg_s, gpu, stencil)
    r = _core_energy.search(
        k,
        size,
        _subtile(subtile),
        _params(params),
        core_space,
        fraction,
        variant=variant,
        threads=_convert.integer(threads, "threads"),
        **time_args,
    )
    return BestEnergyTiles(
        tiles=tuple(int(v) for v in r["best"]),
        e_alg_j=float(r["e_min_j"]),
        breakdown=r["best_breakdown"],
        near_optimal=np.asarray(r["near_optimal"]),
        near_optimal_e_j=np.asarray(r["near_optimal_e_j"]),
        n_points=int(r["n_points"]),
        n_feasible=int(r["n_feasible"]),
        within=fraction,
    )


@record
class OptimaComparison(Record):
    """Time-optimal versus energy-optimal tiles for one problem (Secs. 5.2, 8.3).

    Attributes
    ----------
    time_optimal_tiles, energy_optimal_tiles : tuple of int
        The two argmins.
    talg_at_time_opt_s, talg_at_energy_opt_s : float
        T_alg at each, s.
    e_at_time_opt_j, e_at_energy_opt_j : float
        E_alg at each, J.
    """

    time_optimal_tiles: tuple[int, ...]
    energy_optimal_tiles: tuple[int, ...]
    talg_at_time_opt_s: float
    talg_at_energy_opt_s: float
    e_at_time_opt_j: float
    e_at_energy_opt_j: float

    @property
    def same(self) -> bool:
        """Whether both objectives pick the same tiles."""
        return self.time_optimal_tiles == self.energy_optimal_tiles

    @property
    def energy_cost_of_time_opt_pct(self) -> float:
        """Extra energy of the time-optimal tiles over the energy-optimal ones, percent."""
        return 100.0 * (self.e_at_time_opt_j / self.e_at_energy_opt_j - 1.0)

    @property
    def time_cost_of_energy_opt_pct(self) -> float:
        """Extra time of the energy-optimal tiles over the time-optimal ones, percent."""
        return 100.0 * (self.talg_at_energy_opt_s / self.talg_at_time_opt_s - 1.0)


def compare_optima(
    kernel: KernelLike,
    gpu: Gpu | str,
    sizes: Sequence[int],
    *,
    params: ParamsLike = "model_a",
    stencil: Stencil | str | None = None,
    space: cm_time.SearchSpace | Sequence[Sequence[int]] | None = None,
    variant: cm_time.Variant = "exact",
    threads: int = 0,
) -> OptimaComparison:
    """Compare the time-optimal and energy-optimal tiles of one problem (the folklore).

    Both searches run over the same space with T_alg from the time model.

    Parameters
    ----------
    kernel, gpu, sizes, params, stencil, variant, space, threads
        As in :func:`best_tiles` (``gpu`` is required).

    Returns
    -------
    OptimaComparison
        Both optima with their times and energies.
    """
    k = _get_kernel(kernel)
    if gpu is None:
        raise TypeError("gpu: expected a Gpu or a preset name, got NoneType None")
    _, _, s, g = _time_model(k, gpu, stencil)
    search_space = cm_time._search_space(space, int(k.n_space_dims))
    t_best = cm_time.best_tiles(
        s, g, sizes, within=0.0, variant=variant, space=search_space, threads=threads
    )
    e_best = best_tiles(
        k,
        g,
        sizes,
        params=params,
        within=0.0,
        space=search_space,
        stencil=s,
        variant=variant,
        threads=threads,
    )
    e_at_t = energy(k, g, sizes, t_best.tiles, params=params, stencil=s, variant=variant)
    return OptimaComparison(
        time_optimal_tiles=t_best.tiles,
        energy_optimal_tiles=e_best.tiles,
        talg_at_time_opt_s=t_best.talg_s,
        talg_at_energy_opt_s=float(e_best.breakdown.talg_s),
        e_at_time_opt_j=e_at_t,
        e_at_energy_opt_j=e_best.e_alg_j,
    )


# --------------------------------------------------------------------------------------
# Synthetic data (Model A plus multiplicative noise)
# --------------------------------------------------------------------------------------

#: Seed and noise of the shipped synthetic table ``data/energy/synthetic_model_a_runs.csv``.
SYNTHETIC_SEED = 2015
SYNTHETIC_NOISE_SIGMA = 0.03
SYNTHETIC_FILE = "synthetic_model_a_runs.csv"
#: Stand-in C_iter (s) for the 1D kernels' synthetic times: Jacobi2D's on the GTX 980.
_SYNTHETIC_C_ITER_1D_S = 3.39e-8


def _synthetic_grid(key: str) -> list[tuple[list[int], list[int], int]]:
    grid = []
    if key in ("smith_waterman", "jacobi1d"):
        for s in (4096, 8192, 16384):
            for t in (1024, 2048, 4096):
                for ts in (16, 32, 64, 128, 256):
                    for tt in (4, 8, 16, 32, 64):
                        for ss in (ts // 4, ts // 2, ts):
                            grid.append(([s, 0, 0, t], [ts, 0, 0, tt], ss))
    else:
        for s in (2048, 4096):
            for t in (256, 512, 1024):
                for ts1 in (2, 4, 8, 16, 32):
                    for ts2 in (32, 64, 128, 256):
                        for tt in (2, 4, 8, 16):
                            grid.append(([s, s, 0, t], [ts1, ts2, 0, tt], 0))
    return grid


def synthetic_runs(
    *,
    seed: int = SYNTHETIC_SEED,
    noise_sigma: float = SYNTHETIC_NOISE_SIGMA,
    params: ParamsLike = "model_a",
    counts: Mapping[str, int] | None = None,
) -> Runs:
    """Generate a SYNTHETIC measurement table from the model plus multiplicative noise.

    There is no measured GPU energy in the project; this table stands in for one so that
    the regression can be exercised. It is never validation. Each run's energy is
    ``E_model * exp(noise_sigma * z)`` with z standard normal; its time is the time
    model's T_alg on the GTX 980 preset (Jacobi2D's preset for J2D, a 1D stencil with
    C_iter = 3.39e-8 s for SW and J1D), noise-free. Runs are drawn without replacement from
    a grid of problem sizes, tiles and subtiles (``docs/energy-model.md``), as many per
    kernel as the seed measured (298 SW, 265 J1D, 125 J2D) unless ``counts`` says otherwise.

    Parameters
    ----------
    seed : int
        Seed of NumPy's ``default_rng``.
    noise_sigma : float
        Standard deviation of the log-normal energy noise (0: noise-free).
    params : Params, mapping or str
        Parameters of the generating model (default Model A).
    counts : Mapping[str, int], optional
        Runs per kernel key.

    Returns
    -------
    Runs
        The synthetic table, with comments saying so.
    """
    seed = _convert.integer(seed, "seed")
    if isinstance(noise_sigma, bool) or not isinstance(noise_sigma, (int, float)):
        raise TypeError(f"noise_sigma: expected a number, got {type(noise_sigma).__name__}")
    if not (0 <= noise_sigma <= 1):
        raise ValueError(f"noise_sigma must be in [0, 1], got {noise_sigma}")
    p = _params(params)
    if counts is None:
        counts = dict(table_b2()["n_instances"])
    rng = np.random.default_rng(seed)
    stencil_1d = Stencil(
        name="synthetic1d",
        n_space_dims=1,
        c_iter_s={"gtx980": _SYNTHETIC_C_ITER_1D_S},
        source="synthetic stand-in",
    )
    kinds: list[str] = []
    sizes, tiles, subtiles, times, energies = [], [], [], [], []
    for key in KERNELS:
        n = int(counts.get(key, 0))
        if n <= 0:
            continue
        k = kernel(key)
        stencil = "jacobi2d" if key == "jacobi2d" else stencil_1d
        core_gpu, _, _, _ = _time_model(k, "gtx980", stencil)
        dims = int(k.n_space_dims)
        grid = [
            point
            for point in _synthetic_grid(key)
            if _core.time.feasibility(
                core_gpu,
                dims,
                _core.time.TileSizes(space=[*point[1][:dims], *[0] * (3 - dims)], time=point[1][3]),
            )
            == 0
        ]
        if n > len(grid):
            raise ValueError(f"counts[{key!r}] = {n} exceeds the synthetic grid ({len(grid)})")
        chosen = [grid[i] for i in sorted(rng.choice(len(grid), size=n, replace=False))]
        for size4, tile4, ss in chosen:
            size = [*size4[:dims], size4[3]]
            tile = [*tile4[:dims], tile4[3]]
            b = breakdown(
                k, "gtx980", size, tile, params=p, stencil=stencil, subtile=ss, variant="paper"
            )
            kinds.append(key)
            sizes.append(size4)
            tiles.append(tile4)
            subtiles.append(ss)
            times.append(float(b.talg_s))
            energies.append(float(b.e_alg_j))
    noise = np.exp(noise_sigma * rng.standard_normal(len(energies)))
    comments = (
        "synthetic: true -- generated from the energy model, NOT measured",
        f"generator: costmetrics.energy.synthetic_runs(seed={seed}, noise_sigma={noise_sigma})",
        "energy_j = E_alg(Model A, Table B.2) * exp(noise_sigma * N(0,1))",
        "time_s = time-model T_alg on the GTX 980 preset (noise-free stand-in for K20c times)",
    )
    return Runs(
        tuple(kinds),
        np.asarray(sizes, dtype=np.int64),
        np.asarray(tiles, dtype=np.int64),
        np.asarray(subtiles, dtype=np.int64),
        np.asarray(times, dtype=np.float64),
        np.asarray(energies, dtype=np.float64) * noise,
        comments,
        "synthetic",
    )


def synthetic_table_path() -> Path:
    """Return the path of the shipped synthetic table (``data/energy/``)."""
    return data_dir() / "energy" / SYNTHETIC_FILE
