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

import copy
import csv
import functools
import io
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, Union

import numpy as np
import numpy.typing as npt
import yaml

from costmetrics import _convert, _core
from costmetrics import time as cm_time
from costmetrics._files import write_text_atomic
from costmetrics._record import Record, record
from costmetrics._tables import SIZE_COLUMNS, TILE_COLUMNS
from costmetrics.presets import Gpu, Stencil, data_dir, normalize_name, resolve_gpu, resolve_stencil

__all__ = [
    "CSV_COLUMNS",
    "KERNELS",
    "PARAM_NAMES",
    "BestEnergyTiles",
    "Breakdown",
    "Candidates",
    "Combination",
    "Design",
    "EnergyBatch",
    "Estimate",
    "ExpectedInterval",
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
    "candidates",
    "compare_optima",
    "custom_kernel",
    "design",
    "design_matrix",
    "energy",
    "energy_batch",
    "energy_per_operation",
    "fit",
    "flop_heavy_kernel",
    "identifiability",
    "kernel",
    "load_runs",
    "optimization_error",
    "parameters",
    "synthetic_candidates",
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
    *SIZE_COLUMNS,
    *TILE_COLUMNS,
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
    return copy.deepcopy(_table_b2_shared())


def _table_b2_shared() -> dict[str, Any]:
    """Table B.2 parsed once per version of the file (not to be modified: it is shared).

    ``parameters`` reads it on every call with a model name, hundreds of times in one
    reproduction; parsing the YAML each time was 8 of the energy reproduction's 22 s.
    """
    path = data_dir() / "energy" / _TABLE_B2_FILE
    stat = path.stat()
    return _parse_table_b2(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4)
def _parse_table_b2(path: str, mtime_ns: int, size_bytes: int) -> dict[str, Any]:
    # mtime_ns and size_bytes are part of the cache key: an edited file is read again.
    del mtime_ns, size_bytes
    with open(path, encoding="utf-8") as handle:
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
    values = dict(_table_b2_shared()["models"][key])
    values.pop("label", None)
    return Params(**{name: float(values[name]) for name in PARAM_NAMES})


def _params(params: ParamsLike) -> Params:
    if isinstance(params, Params):
        return params
    if isinstance(params, str):
        try:
            return parameters(params)
        except ValueError:
            # parameters() names its own argument, `model`; here the caller's is `params`.
            raise ValueError(
                f"params: unknown parameter set {params!r}; use 'model_a' or 'model_b'"
            ) from None
    if isinstance(params, Mapping):
        fields = list(Params._fields)
        missing = [f for f in fields if f not in params]
        unknown = sorted(str(k) for k in params if k not in fields)
        if missing or unknown:
            raise ValueError(
                f"params: expected the keys {fields}; missing {missing}, unknown {unknown}"
            )
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


def _stencil(k: Any, stencil: Stencil | str) -> Stencil:
    """Resolve and check a time-model stencil for kernel ``k``.

    Also called with a measured talg_s, so that a bad ``stencil`` is refused, not ignored.
    """
    if not isinstance(stencil, (str, Stencil)):
        raise TypeError(
            f"stencil: expected a Stencil or a preset name, got {type(stencil).__name__}"
        )
    s = resolve_stencil(stencil, "stencil")
    if s.n_space_dims != k.n_space_dims:
        raise ValueError(
            f"stencil {s.name!r} has {s.n_space_dims} space dimensions, kernel {k.name!r} has "
            f"{k.n_space_dims}"
        )
    return s


def _time_model(
    k: Any, gpu: Gpu | str, stencil: Stencil | str | None
) -> tuple[Any, Any, Stencil, Gpu]:
    if not isinstance(gpu, (str, Gpu)):
        raise TypeError(f"gpu: expected a Gpu or a preset name, got {type(gpu).__name__}")
    g = resolve_gpu(gpu, "gpu")
    if stencil is None:
        if k.kind != "jacobi2d":
            raise ValueError(
                f"stencil: kernel {k.name!r} has no time-model preset; pass stencil= (a "
                "time-model Stencil) or a measured talg_s"
            )
        stencil = "jacobi2d"
    s = _stencil(k, stencil)
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
    if stencil is not None:
        _stencil(k, stencil)  # unused with a measured time, but never silently wrong
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
    # Text, bools and ints past 64 bits refused by the shared converter.
    array = _convert.number_array(value, name, real=dtype is not np.int64)
    if dtype is np.int64 and array.dtype.kind == "f":
        raise TypeError(f"{name}: expected integers, got dtype {array.dtype}")
    if array.ndim == 0:
        array = np.full(n, array.item())
    if array.shape != (n,):
        raise ValueError(f"{name}: expected a scalar or {n} values, got shape {array.shape}")
    if dtype is np.int64 and array.dtype.kind == "u" and array.size > 0:
        top = int(array.max())
        if top > np.iinfo(np.int64).max:
            # astype would wrap it to a negative number the caller never passed.
            raise OverflowError(f"{name}: {top} does not fit a signed 64-bit integer")
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
        # Unused with measured times, checked as with a time model (the bindings' parser).
        _convert.variant(variant)
        if stencil is not None:
            _stencil(k, stencil)
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

    Raises
    ------
    TypeError
        If an argument is not a real number (``bool``, ``str`` and ``None`` are not).
    ValueError
        If an argument is out of range or the static energy exceeds ``e_alg_j``.
    OverflowError
        If the result is not finite.
    """
    return float(
        _core_energy.energy_per_operation_j(
            _convert.real(e_alg_j, "e_alg_j"),
            _convert.real(p_stat_w, "p_stat_w"),
            _convert.real(talg_s, "talg_s"),
            _convert.real(op_count, "op_count"),
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
        The file's leading ``#`` lines (metadata), without the ``#``; the kernel
        definition lines are in ``kernels`` instead.
    source : str
        Where the table was read from.
    kernels : dict of str to Kernel
        The custom kernels (:func:`custom_kernel`) the rows name, by name; built-in
        kernels are not listed.
    """

    kernel: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    tiles: npt.NDArray[np.int64]
    subtile: npt.NDArray[np.int64]
    time_s: npt.NDArray[np.float64]
    energy_j: npt.NDArray[np.float64]
    comments: tuple[str, ...] = ()
    source: str = ""
    kernels: dict[str, Kernel] = field(default_factory=dict)

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
            _kernels_used(self.kernels, (self.kernel[i] for i in idx)),
        )

    @property
    def synthetic(self) -> bool:
        """Whether the table's metadata labels it synthetic."""
        return any("synthetic" in c.lower() for c in self.comments)


#: Comment lines that define a custom kernel start with this key (then JSON).
KERNEL_LINE = "kernel:"
_EXPRESSIONS = ("m_io_words", "sr_words", "v_tile", "n_tiles")
_OPS = ("fadd", "fmul", "iadd", "imax")


def _kernels_used(kernels: Mapping[str, Kernel], names: Iterable[str]) -> dict[str, Kernel]:
    """Return the custom kernels among ``names`` (the definitions a selection still needs)."""
    used = set(names)
    return {k: v for k, v in kernels.items() if k in used}


def _kernel_definition(k: Kernel) -> dict[str, Any]:
    """Return the JSON object of a ``# kernel:`` line (what :func:`custom_kernel` takes)."""
    ops = {op: float(getattr(k.ops, op)) for op in _OPS if getattr(k.ops, op)}
    return {"name": k.name, "n_space_dims": int(k.n_space_dims), "ops": ops,
            **{e: k.expressions[e] for e in _EXPRESSIONS}}  # fmt: skip


def _kernel_from_definition(text: str, where: str) -> Kernel:
    """Rebuild a custom kernel from the JSON of a ``# kernel:`` line (errors name ``where``)."""
    try:
        d = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}: kernel definition is not valid JSON ({err})") from None
    if not isinstance(d, dict):
        raise ValueError(f"{where}: kernel definition must be a JSON object, got {text!r}")
    want = {"name", "n_space_dims", "ops", *_EXPRESSIONS}
    missing, extra = sorted(want - set(d)), sorted(set(d) - want)
    if missing or extra:
        raise ValueError(
            f"{where}: kernel definition: missing keys {missing}, unknown keys {extra} "
            f"(expected {sorted(want)})"
        )
    name = d["name"]
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: kernel definition: name must be a non-empty string")
    if normalize_name(name) in _KERNEL_KEYS:
        raise ValueError(f"{where}: kernel definition {name!r} reuses a built-in kernel's name")
    if isinstance(d["n_space_dims"], bool) or not isinstance(d["n_space_dims"], int):
        raise ValueError(f"{where}: kernel {name!r}: n_space_dims must be an integer")
    ops = d["ops"]
    if not isinstance(ops, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in ops.values()
    ):
        raise ValueError(f"{where}: kernel {name!r}: ops must map operation names to numbers")
    try:
        return custom_kernel(name, d["n_space_dims"], ops, *(d[e] for e in _EXPRESSIONS))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: kernel {name!r}: {err}") from None


def _resolve_kernel(name: str, custom: Mapping[str, Kernel]) -> Kernel:
    """Return a built-in kernel by key, else a custom kernel of the table by exact name."""
    if name in custom:
        return custom[name]
    key = _KERNEL_KEYS.get(normalize_name(name))
    if key is None:
        known = ", ".join([*KERNELS, *sorted(custom)])
        raise ValueError(
            f"unknown kernel {name!r}; known: {known} (define other kernels in "
            f"'# {KERNEL_LINE} {{...}}' lines, see docs/energy.md)"
        )
    return _core_energy.builtin_kernel(key)


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
    """Read a table of runs (the energy CSV format of ``docs/energy.md``).

    The one reader of the format (``costmetrics.measure`` writes it through
    :func:`write_runs`). UTF-8; optional leading ``#`` comment lines, among them ``#
    kernel: {...}`` lines that define custom kernels (JSON: ``name``, ``n_space_dims``,
    ``ops`` and the four expressions of :func:`custom_kernel`); a header with the columns
    of :data:`CSV_COLUMNS` (extra columns are ignored, except the optional
    ``subtile_s1``); entries for dimensions a kernel lacks are empty.

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
        rows, a kernel is neither built in nor defined in the file, a kernel definition
        is malformed, or an entry is invalid; the message names the file, line and
        column. Also if the file cannot be read (missing, a folder) or is not UTF-8.
    """
    return _read_runs(path, "path")


def _read_runs(path: object, name: str) -> Runs:
    """Read and parse a runs CSV; a path that cannot be read is a ``ValueError`` naming ``name``."""
    p, text = _convert.text_file(path, name)
    return _parse_runs(text, str(p))


def _parse_runs(text: str, source: str) -> Runs:
    # Lines end at \n (or \r\n), as in CSV; str.splitlines would also break at form
    # feeds and other separators that a comment may hold.
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    if lines and not lines[-1]:
        lines.pop()
    comments = []
    custom: dict[str, Kernel] = {}
    start = 0
    while start < len(lines) and (lines[start].startswith("#") or not lines[start].strip()):
        if lines[start].startswith("#"):
            body = lines[start][1:].strip()
            if body.startswith(KERNEL_LINE):
                k = _kernel_from_definition(
                    body[len(KERNEL_LINE) :].strip(), f"{source}, line {start + 1}"
                )
                if k.name in custom:
                    raise ValueError(
                        f"{source}, line {start + 1}: kernel {k.name!r} is defined twice"
                    )
                custom[k.name] = k
            else:
                comments.append(body)
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
    if len(set(header)) != len(header):
        twice = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"{source}: column(s) {twice} appear more than once in the header")
    col = {name: header.index(name) for name in header}
    kinds: list[str] = []
    sizes: list[list[int]] = []
    tiles: list[list[int]] = []
    subtiles: list[int] = []
    times: list[float] = []
    energies: list[float] = []
    for offset, row in enumerate(reader):
        line = start + 2 + offset
        where = f"{source}, line {line}"
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) < len(header):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(header)}")
        try:
            k = _resolve_kernel(row[col["kernel"]].strip(), custom)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        n = int(k.n_space_dims)
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
        kinds.append(k.name if k.kind == "custom" else k.kind)
    if not kinds:
        raise ValueError(f"{source}: the table has no data rows")
    used = set(kinds)
    return Runs(
        tuple(kinds),
        np.asarray(sizes, dtype=np.int64),
        np.asarray(tiles, dtype=np.int64),
        np.asarray(subtiles, dtype=np.int64),
        np.asarray(times, dtype=np.float64),
        np.asarray(energies, dtype=np.float64),
        tuple(comments),
        source,
        {name: k for name, k in custom.items() if name in used},
    )


def _check_table(runs: Runs) -> None:
    """Check what every table must satisfy (read, written or fitted); name the row."""
    if not isinstance(runs, Runs):
        raise TypeError(f"runs: expected Runs, got {type(runs).__name__}")
    n = len(runs)
    shapes = {
        "sizes": (runs.sizes.shape, (n, 4)),
        "tiles": (runs.tiles.shape, (n, 4)),
        "subtile": (runs.subtile.shape, (n,)),
        "time_s": (runs.time_s.shape, (n,)),
        "energy_j": (runs.energy_j.shape, (n,)),
    }
    for name, (got, want) in shapes.items():
        if got != want:
            raise ValueError(f"runs.{name}: expected shape {want}, got {got}")
    for name, k in runs.kernels.items():
        if not isinstance(k, Kernel) or k.name != name or k.kind != "custom":
            raise ValueError(f"runs.kernels[{name!r}]: expected the custom Kernel named so")
        if normalize_name(name) in _KERNEL_KEYS:
            raise ValueError(f"runs.kernels: custom kernel {name!r} reuses a built-in name")
    for name in sorted(set(runs.kernel)):
        try:
            _resolve_kernel(name, runs.kernels)
        except ValueError as err:
            raise ValueError(f"runs: {err}") from None
    for name, values in (("time_s", runs.time_s), ("energy_j", runs.energy_j)):
        bad = np.flatnonzero(~(np.isfinite(values) & (values > 0)))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"runs row {i}: {name} must be finite and > 0, got {values[i]!r} "
                f"({bad.size} such row(s))"
            )


def write_runs(runs: Runs, path: str | Path, comments: Iterable[str] = ()) -> Path:
    """Write runs in the CSV format :func:`load_runs` reads (the one writer of the format).

    Custom kernels are written as ``# kernel: {...}`` definition lines, so that the file
    reads back on its own. The column ``subtile_s1`` is written when a row has a subtile.
    The file is written to a temporary name and renamed: it is either complete or absent.

    Parameters
    ----------
    runs : Runs
        The table (times and energies finite and > 0).
    path : str or Path
        Destination (its folder must exist).
    comments : iterable of str
        Metadata lines written first, each prefixed with ``#`` and a space.

    Returns
    -------
    Path
        The written file.

    Raises
    ------
    ValueError
        If the table is invalid (a kernel neither built in nor in ``runs.kernels``, a
        non-finite or non-positive time or energy, inconsistent shapes), a comment line
        holds a line break, the folder does not exist, ``path`` is a folder, or the file
        cannot be written.
    """
    _check_table(runs)
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path: expected a str or Path, got {type(path).__name__}")
    p = Path(path)
    if not p.parent.is_dir():
        raise ValueError(f"path: folder {p.parent} does not exist")
    if p.is_dir():
        raise ValueError(f"path: {p} is a folder, expected a file")
    lines = [str(c) for c in comments]
    for line in lines:
        if "\n" in line or "\r" in line:
            raise ValueError(f"comments: a line holds a line break: {line!r}")
        if line.strip().startswith(KERNEL_LINE):
            raise ValueError(f"comments: {KERNEL_LINE!r} lines are kernel definitions: {line!r}")
    out = io.StringIO()
    for line in lines:
        out.write(f"# {line}\n")
    kernels = {name: _resolve_kernel(name, runs.kernels) for name in dict.fromkeys(runs.kernel)}
    for k in kernels.values():
        if k.kind == "custom":
            out.write(f"# {KERNEL_LINE} {json.dumps(_kernel_definition(k))}\n")
    with_subtile = bool(np.any(runs.subtile != 0))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, SUBTILE_COLUMN] if with_subtile else list(CSV_COLUMNS))
    for i, name in enumerate(runs.kernel):
        n = int(kernels[name].n_space_dims)
        s = [str(int(v)) if d < n else "" for d, v in enumerate(runs.sizes[i, :3])]
        t = [str(int(v)) if d < n else "" for d, v in enumerate(runs.tiles[i, :3])]
        sub = int(runs.subtile[i])
        row = [name, *s, int(runs.sizes[i, 3]), *t, int(runs.tiles[i, 3]),
               repr(float(runs.time_s[i])), repr(float(runs.energy_j[i]))]  # fmt: skip
        writer.writerow([*row, str(sub) if sub else ""] if with_subtile else row)
    try:
        write_text_atomic(p, out.getvalue())
    except OSError as exc:
        raise ValueError(f"path: cannot write {p}: {exc.strerror}") from None
    return p


def _kernel_order(runs: Runs) -> list[str]:
    """Return a table's kernels: built-in ones in the seed's order, then custom ones by name."""
    present = set(runs.kernel)
    return [k for k in KERNELS if k in present] + sorted(present - set(KERNELS))


def _as_runs(table: Runs | str | Path, name: str = "table") -> Runs:
    if isinstance(table, Runs):
        return table
    if isinstance(table, (str, Path)):
        return _read_runs(table, name)
    raise TypeError(f"{name}: expected Runs or a CSV path, got {type(table).__name__}")


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

    Raises
    ------
    TypeError
        If ``runs`` is not a :class:`Runs`.
    OverflowError
        If a coefficient is not finite (e.g. a custom kernel's huge op count times
        N V): the message names the row and the column.
    """
    if not isinstance(runs, Runs):
        raise TypeError(f"runs: expected Runs, got {_convert._describe(runs)}")
    a = np.zeros((len(runs), len(PARAM_NAMES)))
    names = np.asarray(runs.kernel)
    for key in sorted(set(runs.kernel)):
        rows = np.flatnonzero(names == key)
        a[rows] = _core_energy.design_matrix(
            _resolve_kernel(key, runs.kernels), runs.sizes[rows], runs.tiles[rows],
            runs.subtile[rows], runs.time_s[rows],
        )  # fmt: skip
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
    return {name: float(c) for name, c in zip(PARAM_NAMES, row, strict=False) if c != 0}


@record
class Estimate(Record):
    """One fitted quantity (a parameter or an identifiable combination) with its interval.

    Attributes
    ----------
    name : str
        The parameter name (e.g. ``"e_sr_j"``) or the combination written out (e.g.
        ``"e_iadd_j + e_imax_j"``).
    coefficients : dict of str to float
        The quantity as a combination of parameters (one entry for a single parameter).
    estimate : float
        The point estimate (raw; see ``value`` for what may be reported).
    low, high : float
        The bootstrap percentile interval at ``FitResult.level``; NaN without bootstrap.
    rel_halfwidth : float
        ``max(estimate - low, high - estimate) / estimate``: the interval's half-width
        relative to the estimate (inf when the estimate is 0, NaN without bootstrap).
    determined : bool
        Whether the data determine the quantity: its interval lies within
        ``+-max_rel_halfwidth`` of the estimate (always True without bootstrap).
    """

    name: str
    coefficients: dict[str, float]
    estimate: float
    low: float
    high: float
    rel_halfwidth: float
    determined: bool

    @property
    def value(self) -> float | None:
        """The estimate when the data determine it, else None (never report it then)."""
        return self.estimate if self.determined else None


@record
class FitResult(Record):
    """Fitted energy parameters (Sec. B.7.1), their identifiability, intervals and errors.

    Attributes
    ----------
    method : str
        ``"l1"`` (linear program) or ``"lsq"`` (bounded least squares); both keep every
        parameter >= 0.
    parameters : dict of str to float or None
        Each parameter's estimate, or None when the data do not determine it: not
        identifiable on its own, or (with bootstrap) its interval is wider than
        ``+-max_rel_halfwidth``.
    combinations : list of Combination
        Every combination the data determine in principle (reduced row echelon form of the
        design matrix's row space); single-parameter ones repeat ``parameters``.
        ``Combination.value`` is the raw point estimate.
    estimates : dict of str to Estimate
        Every identifiable quantity (the combinations' names) with its bootstrap interval
        and whether it is determined; this is what tables and the CLI print.
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
    weighting : str
        ``"relative"`` or ``"absolute"``.
    prior : Params or None
        The prior the fit departs from (None: no prior), and ``prior_weight`` its weight.
    prior_weight : float
        Weight of the prior (see :func:`fit`).
    n_boot : int
        Bootstrap resamples (0: no intervals).
    level : float
        Confidence level of the intervals.
    max_rel_halfwidth : float
        A quantity whose interval is wider than ``+-max_rel_halfwidth`` of its estimate is
        not determined.
    boot_solutions : numpy.ndarray
        (n_boot, 7) parameter vectors of the bootstrap refits.
    """

    method: str
    parameters: dict[str, float | None]
    combinations: list[Combination]
    estimates: dict[str, Estimate]
    rank: int
    singular_values: npt.NDArray[np.float64]
    solution: npt.NDArray[np.float64]
    n_train: int
    n_test: int
    train_rmse_pct: float
    test_rmse_pct: float | None
    kernel_rmse_pct: dict[str, float]
    train_rows: npt.NDArray[np.int64] = field(repr=False)
    weighting: str = "relative"
    prior: Params | None = None
    prior_weight: float = 0.0
    n_boot: int = 0
    level: float = 0.95
    max_rel_halfwidth: float = 0.5
    boot_solutions: npt.NDArray[np.float64] = field(
        default_factory=lambda: np.zeros((0, len(PARAM_NAMES))), repr=False
    )

    def table(self) -> list[dict[str, Any]]:
        """Rows laid out like Table B.2: quantity, value (None if not determined), interval."""
        rows: list[dict[str, Any]] = [
            {
                "parameter": e.name,
                "value": e.value,
                "low": e.low,
                "high": e.high,
                "determined": e.determined,
            }
            for e in self.estimates.values()
        ]
        rows += [
            {"parameter": f"error {k} [RMSE %]", "value": v, "low": None, "high": None,
             "determined": True}
            for k, v in self.kernel_rmse_pct.items()
        ]  # fmt: skip
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


#: Range of a measured time (s) or energy (J) that the fit accepts.
_MIN_MEASURED, _MAX_MEASURED = 1e-30, 1e30


def _check_runs(runs: Runs) -> None:
    """Refuse a table that would give a garbage fit; name the row and the problem."""
    _check_table(runs)
    n = len(runs)
    for name, values in (("time_s", runs.time_s), ("energy_j", runs.energy_j)):
        # Far outside any measurable time or energy (and beyond what the scaled solvers
        # can square without overflow): a unit error, not a measurement.
        bad = np.flatnonzero((values < _MIN_MEASURED) | (values > _MAX_MEASURED))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"runs row {i}: {name} = {values[i]!r} is outside [{_MIN_MEASURED:g}, "
                f"{_MAX_MEASURED:g}] (a unit error?)"
            )
    # Exact copies (same run, same measurement) are not independent evidence: a bootstrap
    # would count them twice and narrow every interval. Repeats with different
    # measurements (replicates) are fine.
    keys: dict[tuple[Any, ...], int] = {}
    for i in range(n):
        key = (
            runs.kernel[i], *runs.sizes[i].tolist(), *runs.tiles[i].tolist(),
            int(runs.subtile[i]), float(runs.time_s[i]), float(runs.energy_j[i]),
        )  # fmt: skip
        if key in keys:
            raise ValueError(
                f"runs row {i} duplicates row {keys[key]} exactly (same run, time and "
                "energy); remove the copy (replicates must be separate measurements)"
            )
        keys[key] = i


def _solve_bounded(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    method: str,
    prior: npt.NDArray[np.float64] | None,
    prior_weight: float,
) -> npt.NDArray[np.float64]:
    """Min ||A x - b|| (L1 or L2) subject to x >= 0, optionally pulled towards ``prior``.

    Works in scaled units: columns of A to unit norm and b to order 1, so that the solver
    sees numbers near 1 (the raw columns span ~20 decades: watts times seconds and joules
    per word times 1e12 words). The prior adds one pseudo-equation per parameter,
    ``w m (x_k / prior_k - 1) = 0`` with m the median |b_i|: a 100% departure from the
    prior costs as much as a 100% error on ``w`` typical runs.
    """
    from scipy.optimize import lsq_linear

    col = np.linalg.norm(a, axis=0)
    col[col == 0] = 1.0
    b_scale = float(np.max(np.abs(b)))
    a_s = a / col
    b_s = b / b_scale
    if prior is not None and prior_weight > 0:
        m = float(np.median(np.abs(b_s)))
        use = prior > 0
        rows = np.zeros((int(use.sum()), a.shape[1]))
        rows[np.arange(rows.shape[0]), np.flatnonzero(use)] = (
            prior_weight * m / (prior[use] * col[use] / b_scale)
        )
        a_s = np.vstack([a_s, rows])
        b_s = np.concatenate([b_s, np.full(rows.shape[0], prior_weight * m)])
    if method == "lsq":
        res = lsq_linear(a_s, b_s, bounds=(0.0, np.inf), method="bvls")
        if res.status < 1:
            raise RuntimeError(f"bounded least squares failed: {res.message}")
        y = np.asarray(res.x, dtype=np.float64)
    else:
        y = _lad_nonnegative(a_s, b_s)
    out: npt.NDArray[np.float64] = np.maximum(y, 0.0) * b_scale / col
    return out


def _lad_nonnegative(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Min sum_i |a_i . y - b_i| subject to y >= 0 (the seed's L1 objective, Sec. B.7.1).

    Solved as the dual linear program, max b.d subject to A^T d <= 0, -1 <= d <= 1, which
    has 7 constraints instead of 2n (HiGHS, several times faster); y is the vector of the
    constraints' multipliers. The primal objective is checked against the dual one, and
    the primal LP is solved instead if they disagree.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    n, m = a.shape
    res = linprog(-b, A_ub=a.T, b_ub=np.zeros(m), bounds=(-1.0, 1.0), method="highs")
    if res.status == 0:
        y = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0)
        primal = float(np.abs(a @ y - b).sum())
        if primal <= -float(res.fun) + 1e-9 * max(1.0, abs(float(res.fun))):
            return y
    # min sum u  s.t.  A y - u <= b,  -A y - u <= -b,  y >= 0, u >= 0.
    cost = np.concatenate([np.zeros(m), np.ones(n)])
    eye = sparse.identity(n, format="csr")
    dense = sparse.csr_matrix(a)
    a_ub = sparse.bmat([[dense, -eye], [-dense, -eye]], format="csr")
    result = linprog(
        cost, A_ub=a_ub, b_ub=np.concatenate([b, -b]), bounds=(0, None), method="highs"
    )
    if result.status != 0:
        raise RuntimeError(f"L1 fit: the linear program failed: {result.message}")
    return np.asarray(result.x[:m], dtype=np.float64)


def _fit_l1(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """L1 fit with every parameter >= 0 (kept for callers of the former private name)."""
    return _solve_bounded(a, b, "l1", None, 0.0)


def _bootstrap_rows(
    groups: npt.NDArray[np.int64], rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Resample rows with replacement within each group (kernel), keeping group sizes."""
    out = []
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        out.append(rng.choice(rows, size=rows.size, replace=True))
    return np.concatenate(out)


def _estimates(
    combos: npt.NDArray[np.float64],
    x: npt.NDArray[np.float64],
    boot: npt.NDArray[np.float64],
    level: float,
    max_rel_halfwidth: float,
) -> dict[str, Estimate]:
    out: dict[str, Estimate] = {}
    for row in combos:
        coefficients = _coefficients(row)
        name = Combination(coefficients, 0.0).text
        estimate = float(row @ x)
        if boot.shape[0]:
            values = boot @ row
            alpha = 0.5 * (1.0 - level)
            low, high = (float(v) for v in np.quantile(values, [alpha, 1.0 - alpha]))
            spread = max(estimate - low, high - estimate, 0.0)
            rel = spread / estimate if estimate > 0 else (0.0 if spread == 0 else math.inf)
            determined = bool(rel <= max_rel_halfwidth) and estimate > 0
        else:
            low = high = rel = math.nan
            determined = True
        out[name] = Estimate(name, coefficients, estimate, low, high, rel, determined)
    return out


def fit(
    table: Runs | str | Path,
    *,
    kernel: str | Sequence[str] | None = None,
    method: Literal["l1", "lsq"] = "l1",
    train_fraction: float = 0.1,
    seed: int = 0,
    rel_tol: float = 1e-10,
    weighting: Literal["absolute", "relative"] = "relative",
    prior: ParamsLike | None = None,
    prior_weight: float = 1.0,
    n_boot: int = 200,
    level: float = 0.95,
    max_rel_halfwidth: float = 0.5,
) -> FitResult:
    """Fit the energy parameters to measured runs (Sec. B.7.1, Model B), with intervals.

    ``method="l1"`` minimizes ``sum_i |E_alg(X)_i - E_meas_i|`` (the seed's objective) as a
    linear program (SciPy's HiGHS); ``method="lsq"`` minimizes the sum of squares
    (``scipy.optimize.lsq_linear``). Both keep every parameter >= 0 (P_stat and every
    energy per operation are physical quantities) and work on the design matrix built by
    the core, scaled to unit columns. Parameters the data cannot separate are reported as
    combinations (e_iadd + e_imax); every identifiable quantity gets a bootstrap interval,
    and one whose interval is wider than ``+-max_rel_halfwidth`` is reported as not
    determined (None), never as a value.

    Bootstrap: ``n_boot`` resamples of the training runs, drawn with replacement within
    each kernel (so every resample has every kernel, and the rank of the fit), each refit
    with the same method, weighting and prior; the interval is the percentile interval at
    ``level``. Runs, not residuals, are resampled: it assumes only that runs are
    independent, not that the error model (weighting) is right or that errors have equal
    spread, and it carries the run-to-run variation in leverage. The generator is
    ``numpy.random.default_rng([seed, 1])``.

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
        Seed of the random split and of the bootstrap.
    rel_tol : float
        Rank tolerance (see :func:`identifiability`).
    weighting : {"relative", "absolute"}
        ``"relative"`` (default) fits errors relative to each run's energy, the right
        weighting for multiplicative noise (power meters err in percent): a first pass
        divides each equation by E_meas, a second by the first pass's predicted energy
        (dividing by the noisy measurement biases the fit low by ~1.5 sigma^2; bootstrap
        refits keep the second pass's weights). ``"absolute"`` fits E_alg - E_meas in
        joules, as the seed does; then the largest runs dominate.
    prior : Params, mapping or str, optional
        Parameters the fit departs from, e.g. ``"model_a"`` (the micro-benchmarks). Each
        parameter adds a pseudo-run ``prior_weight * (x_k / prior_k - 1) = 0`` in the
        units of a typical run's residual. None (default): no prior.
    prior_weight : float
        Weight of the prior, >= 0: a departure of 100% from the prior costs as much as a
        100% error on ``prior_weight`` typical runs (L1), or on ``prior_weight**2`` runs
        (least squares, squared residuals).
    n_boot : int
        Bootstrap resamples (0: no intervals; every identifiable quantity is reported).
    level : float
        Confidence level of the intervals, in (0, 1).
    max_rel_halfwidth : float
        Report a quantity as not determined when its interval reaches further than this
        fraction of its estimate from it (0.5: +-50%).

    Returns
    -------
    FitResult
        Parameters, estimates with intervals, identifiable combinations, rank, train/test
        and per-kernel RMSE.

    Raises
    ------
    ValueError
        On an empty selection, a bad fraction, method, weighting or level; a table with
        non-finite or non-positive times or energies, exact duplicate rows, or fewer
        training runs than the parameters its kernels involve.

    Warns
    -----
    UserWarning
        When the table holds one kernel only and ``kernel`` does not ask for it (the data
        then determine few combinations).
    """
    import warnings

    runs = _as_runs(table)
    if kernel is not None:
        wanted = [kernel] if isinstance(kernel, str) else list(kernel)
        keys = {k if isinstance(k, str) and k in runs.kernels else _get_kernel(k).name
                for k in wanted}  # fmt: skip
        runs = runs.select(np.asarray([k in keys for k in runs.kernel], dtype=bool))
        if len(runs) == 0:
            raise ValueError(f"kernel: no runs of {sorted(keys)} in the table")
    _convert.choice(method, "method", ("l1", "lsq"))
    _convert.choice(weighting, "weighting", ("absolute", "relative"))
    train_fraction = _convert.real(train_fraction, "train_fraction")
    if not 0 < train_fraction <= 1:
        raise ValueError(f"train_fraction: must be in (0, 1], got {train_fraction}")
    seed = _convert.integer(seed, "seed", lo=0)
    n_boot = _convert.integer(n_boot, "n_boot")
    if not 0 <= n_boot <= 100_000:
        raise ValueError(f"n_boot: must be in [0, 100000], got {n_boot}")
    level = _convert.real(level, "level")
    if not 0 < level < 1:
        raise ValueError(f"level: must be in (0, 1), got {level}")
    max_rel_halfwidth = _convert.real(max_rel_halfwidth, "max_rel_halfwidth")
    if not max_rel_halfwidth > 0:
        raise ValueError(f"max_rel_halfwidth: must be > 0, got {max_rel_halfwidth}")
    prior_weight = _convert.real(prior_weight, "prior_weight")
    if not (math.isfinite(prior_weight) and prior_weight >= 0):
        raise ValueError(f"prior_weight: must be finite and >= 0, got {prior_weight}")
    prior_params = None if prior is None else _params(prior)
    prior_x = (
        None
        if prior_params is None
        else np.asarray([getattr(prior_params, n) for n in PARAM_NAMES], dtype=np.float64)
    )
    _check_runs(runs)
    present = sorted(set(runs.kernel))
    if len(present) == 1 and kernel is None:  # kernel= chose one on purpose
        warnings.warn(
            f"the table holds one kernel only ({present[0]}): the data determine only the "
            "combinations that kernel involves (see FitResult.combinations)",
            UserWarning,
            stacklevel=2,
        )
    a = design_matrix(runs)
    train = _split(runs, float(train_fraction), seed)
    test = np.setdiff1d(np.arange(len(runs)), train)
    a_train, b_train = a[train], runs.energy_j[train]
    n_active = int(np.count_nonzero(np.any(a_train != 0, axis=0)))
    if train.size < n_active:
        raise ValueError(
            f"{train.size} training run(s) for {n_active} parameters: fewer runs than "
            "parameters cannot determine them (raise train_fraction or add runs)"
        )
    if weighting == "relative":
        # Two passes. Dividing by the measured energy, itself noisy, biases the fit: with
        # log-normal noise of sigma, least squares comes out ~1.5 sigma^2 low (0.14% at 3%,
        # about one standard error of P_stat on 688 runs). The second pass divides by the
        # first pass's predictions instead, which carry almost no noise.
        first = _solve_bounded(
            a_train / b_train[:, None], np.ones_like(b_train), method, prior_x, prior_weight
        )
        predicted_train = a_train @ first
        scale = np.where(predicted_train > 0, predicted_train, b_train)
        a_train, b_train = a_train / scale[:, None], b_train / scale
    ident = _core_energy.identifiability(a_train, float(rel_tol))
    x = _solve_bounded(a_train, b_train, method, prior_x, prior_weight)
    rank = int(ident["rank"])
    singular = np.asarray(ident["singular_values"], dtype=np.float64)
    combos = np.asarray(ident["combinations"], dtype=np.float64).reshape(-1, len(PARAM_NAMES))
    groups = np.unique(np.asarray(runs.kernel)[train], return_inverse=True)[1].ravel()
    rng = np.random.default_rng([seed, 1])
    boot = np.zeros((n_boot, len(PARAM_NAMES)))
    for i in range(n_boot):
        rows = _bootstrap_rows(groups, rng)
        boot[i] = _solve_bounded(a_train[rows], b_train[rows], method, prior_x, prior_weight)
    estimates = _estimates(combos, x, boot, level, max_rel_halfwidth)
    combinations = [Combination(_coefficients(r), float(r @ x)) for r in combos]
    single = {next(iter(e.coefficients)): e for e in estimates.values() if len(e.coefficients) == 1}
    parameters: dict[str, float | None] = {
        name: (single[name].value if name in single else None) for name in PARAM_NAMES
    }
    predicted = a @ x
    names = np.asarray(runs.kernel)
    eval_rows = test if test.size else train
    per_kernel = {}
    for key in _kernel_order(runs):
        rows_k = eval_rows[names[eval_rows] == key]
        if rows_k.size:
            per_kernel[key] = _relative_rmse_pct(predicted[rows_k], runs.energy_j[rows_k])
    return FitResult(
        method=method,
        parameters=parameters,
        combinations=combinations,
        estimates=estimates,
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
        weighting=weighting,
        prior=prior_params,
        prior_weight=prior_weight if prior_params is not None else 0.0,
        n_boot=n_boot,
        level=level,
        max_rel_halfwidth=max_rel_halfwidth,
        boot_solutions=boot,
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
        for key in _kernel_order(runs)
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
    for key in _kernel_order(runs):
        rows = np.flatnonzero(names == key)
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
    near_optimal_e_alg_j : numpy.ndarray
        Their E_alg, J (named as ``time.BestTiles.near_optimal_talg_s``).
    n_points, n_feasible : int
        Size of the search space and feasible points in it.
    within : float
        The fraction used.
    """

    tiles: tuple[int, ...]
    e_alg_j: float
    breakdown: Breakdown
    near_optimal: npt.NDArray[np.int64]
    near_optimal_e_alg_j: npt.NDArray[np.float64]
    n_points: int
    n_feasible: int
    within: float

    def table(self) -> list[dict[str, float | int]]:
        """Return the near-optimal set as rows (tile sizes and ``e_alg_j``), as time's does."""
        return cm_time._near_optimal_rows(self.near_optimal, self.near_optimal_e_alg_j, "e_alg_j")


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
    fraction = _convert.real(within, "within") + 0.0  # -0.0 is recorded as 0.0
    time_args = _time_args(k, talg_s, gpu, stencil)
    n_threads = _convert.integer(threads, "threads")
    sub = _subtile(subtile)
    core_params = _params(params)

    def search(sub_s: int) -> dict[str, Any]:
        return _core_energy.search(
            k, size, sub_s, core_params, core_space, fraction, variant=variant,
            threads=n_threads, **time_args,
        )  # fmt: skip

    try:
        r = search(sub)
    except ValueError as exc:
        # The core's search says only that no tile is feasible; where the sub-tile is why
        # (sS above every tile's tS of the space), name it.
        if sub == 0 or "no feasible tile" not in str(exc):
            raise
        try:
            search(0)
        except ValueError:
            raise exc from None
        raise ValueError(
            f"subtile: no tile of the search space is feasible with sS = {sub} (each needs "
            "sS <= tS); give a smaller sub-tile, or none (sS = tS)"
        ) from None
    return BestEnergyTiles(
        tiles=tuple(int(v) for v in r["best"]),
        e_alg_j=float(r["e_min_j"]),
        breakdown=r["best_breakdown"],
        near_optimal=np.asarray(r["near_optimal"]),
        near_optimal_e_alg_j=np.asarray(r["near_optimal_e_j"]),
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
    a grid of problem sizes, tiles and subtiles (``docs/energy.md``), as many per
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
        Runs per kernel (names as :func:`kernel` takes them), each >= 0, at least one > 0.

    Returns
    -------
    Runs
        The synthetic table, with comments saying so.

    Raises
    ------
    TypeError
        If ``counts`` is not a mapping, or a name or count is not a string or integer.
    ValueError
        If ``seed`` is negative, a kernel is unknown or named twice, a count is negative or
        exceeds the synthetic grid, or the counts ask for no run.
    """
    seed = _convert.integer(seed, "seed", lo=0)
    if isinstance(noise_sigma, bool) or not isinstance(noise_sigma, (int, float)):
        raise TypeError(f"noise_sigma: expected a number, got {type(noise_sigma).__name__}")
    if not (0 <= noise_sigma <= 1):
        raise ValueError(f"noise_sigma: must be in [0, 1], got {noise_sigma}")
    p = _params(params)
    if counts is None:
        counts = dict(_table_b2_shared()["n_instances"])
    if not isinstance(counts, Mapping):
        raise TypeError(
            f"counts: expected a mapping of kernel name to runs, got {_convert._describe(counts)}"
        )
    n_runs: dict[str, int] = {}
    for name, value in counts.items():
        if not isinstance(name, str):
            raise TypeError(f"counts: expected kernel names as keys, got {name!r}")
        key = _KERNEL_KEYS.get(normalize_name(name))
        if key is None:
            raise ValueError(f"counts: unknown kernel {name!r}; known: {', '.join(KERNELS)}")
        if key in n_runs:
            raise ValueError(f"counts: kernel {key!r} is named twice (as {name!r})")
        n_runs[key] = _convert.integer(value, f"counts[{name!r}]", lo=0)
    if not any(n_runs.values()):
        raise ValueError(f"counts: asks for no runs, got {_convert._describe(dict(counts))}")
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
        n = n_runs.get(key, 0)
        if n == 0:
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


# --------------------------------------------------------------------------------------
# Designed experiments: which runs determine the parameters
# --------------------------------------------------------------------------------------


@record
class Candidates(Record):
    """Runs that could be measured (not yet measured): the input of :func:`design`.

    Attributes
    ----------
    kernel : tuple of str
        Kernel name per row (built-in key or a custom kernel's name).
    sizes : numpy.ndarray
        (n, 4) int64: S1, S2, S3, T (0 where the kernel lacks the dimension).
    tiles : numpy.ndarray
        (n, 4) int64: tS1, tS2, tS3, tT.
    subtile : numpy.ndarray
        (n,) int64: sS (0: sS = tS).
    time_s : numpy.ndarray
        (n,) T_alg per run, s (from the time model or measured).
    design : numpy.ndarray
        (n, 7) rows of the regression's design matrix (Sec. B.7.1), built by the core:
        E_alg = design @ params.
    kernels : dict of str to Kernel
        The custom kernels the rows name, by name (as ``Runs.kernels``).
    """

    kernel: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    tiles: npt.NDArray[np.int64]
    subtile: npt.NDArray[np.int64]
    time_s: npt.NDArray[np.float64]
    design: npt.NDArray[np.float64]
    kernels: dict[str, Kernel] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.kernel)

    def __add__(self, other: Candidates) -> Candidates:
        if not isinstance(other, Candidates):
            return NotImplemented
        for name in set(self.kernels) & set(other.kernels):
            if self.kernels[name] != other.kernels[name]:
                raise ValueError(f"candidates: two different kernels are named {name!r}")
        clash = sorted((set(self.kernels) & set(other.kernel) - set(other.kernels))
                       | (set(other.kernels) & set(self.kernel) - set(self.kernels)))  # fmt: skip
        if clash:
            raise ValueError(f"candidates: a custom and a built-in kernel are named {clash}")
        return Candidates(
            self.kernel + other.kernel,
            np.concatenate([self.sizes, other.sizes]),
            np.concatenate([self.tiles, other.tiles]),
            np.concatenate([self.subtile, other.subtile]),
            np.concatenate([self.time_s, other.time_s]),
            np.concatenate([self.design, other.design]),
            {**self.kernels, **other.kernels},
        )

    def select(self, rows: npt.ArrayLike) -> Candidates:
        """Return the candidates at ``rows`` (indices or a boolean mask)."""
        idx = np.arange(len(self))[np.asarray(rows)]
        return Candidates(
            tuple(self.kernel[i] for i in idx),
            self.sizes[idx],
            self.tiles[idx],
            self.subtile[idx],
            self.time_s[idx],
            self.design[idx],
            _kernels_used(self.kernels, (self.kernel[i] for i in idx)),
        )

    def energy_j(self, *, params: ParamsLike = "model_a") -> npt.NDArray[np.float64]:
        """E_alg of every candidate under ``params``, J."""
        x = np.asarray([getattr(_params(params), n) for n in PARAM_NAMES])
        out: npt.NDArray[np.float64] = self.design @ x
        return out

    def simulate(
        self, noise_sigma: float = 0.03, seed: int = 0, *, params: ParamsLike = "model_a"
    ) -> Runs:
        """SYNTHETIC measurements of these runs: E_alg(params) * exp(noise_sigma * z).

        Custom kernels go with the table (``Runs.kernels``; :func:`write_runs` writes
        their definitions into the file).

        Parameters
        ----------
        params : Params, mapping or str
            Generating parameters.
        noise_sigma : float
            Standard deviation of the log-normal energy noise, in [0, 1].
        seed : int
            Seed of NumPy's ``default_rng``.

        Returns
        -------
        Runs
            Labelled synthetic in its comments.
        """
        sigma = _convert.real(noise_sigma, "noise_sigma")
        if not 0 <= sigma <= 1:
            raise ValueError(f"noise_sigma: must be in [0, 1], got {sigma}")
        rng = np.random.default_rng(_convert.integer(seed, "seed", lo=0))
        energy_j = self.energy_j(params=params) * np.exp(sigma * rng.standard_normal(len(self)))
        comments = (
            "synthetic: true -- generated from the energy model, NOT measured",
            f"generator: Candidates.simulate(noise_sigma={sigma}, seed={seed})",
        )
        return Runs(
            self.kernel, self.sizes, self.tiles, self.subtile, self.time_s.copy(),
            energy_j, comments, "synthetic", dict(self.kernels),
        )  # fmt: skip

    @classmethod
    def from_runs(cls, runs: Runs | str | Path) -> Candidates:
        """Return the runs of a table as candidates (their measured times; energies unused)."""
        r = _as_runs(runs, "runs")
        _check_table(r)
        return cls(
            r.kernel, r.sizes, r.tiles, r.subtile, r.time_s, design_matrix(r), dict(r.kernels)
        )


def candidates(
    kernel: KernelLike,
    gpu: Gpu | str,
    sizes: Sequence[Sequence[int]],
    *,
    space: cm_time.SearchSpace | None = None,
    subtile_divisors: Sequence[int] = (1,),
    stencil: Stencil | str | None = None,
    variant: cm_time.Variant = "exact",
    threads: int = 0,
) -> Candidates:
    """Every feasible run of ``kernel`` over problem sizes and a tile space, as candidates.

    T_alg comes from the time model of Appendix A (``gpu``, ``stencil``); tiles the time
    model calls infeasible (Eq. A.32) and subtiles that do not divide tS1 are left out.

    Parameters
    ----------
    kernel : str or Kernel
        A built-in kernel or a :func:`custom_kernel`.
    gpu : Gpu or str
        GPU preset of the time model.
    sizes : sequence of size tuples
        Problem sizes ``(S, T)`` or ``(S1, S2, T)``, one per entry.
    space : costmetrics.time.SearchSpace, optional
        Tile candidates; default :func:`costmetrics.time.default_search_space`.
    subtile_divisors : sequence of int
        For kernels with subtiles (SW, J1D): sS = tS1 / d for each d (1: no subtiling).
    stencil : Stencil or str, optional
        Time-model stencil (required for kernels without a preset of their name).
    variant : {"exact", "paper"}
        Time-model variant.
    threads : int
        Worker threads of the time model (0: all cores).

    Returns
    -------
    Candidates
        One row per feasible (size, tile, subtile).
    """
    k = _get_kernel(kernel)
    n_dims = int(k.n_space_dims)
    if space is None:
        space = cm_time.default_search_space(n_dims)
    if not isinstance(space, cm_time.SearchSpace):
        raise TypeError(
            f"space: expected a costmetrics.time.SearchSpace, got {type(space).__name__}"
        )
    divisors = _convert.int_sequence(
        subtile_divisors, "subtile_divisors", max_len=_core.time.MAX_SEARCH_POINTS
    )
    if not divisors or min(divisors) < 1:
        raise ValueError(f"subtile_divisors: expected positive integers, got {divisors}")
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (Sequence, np.ndarray)):
        raise TypeError(f"sizes: expected a sequence of size tuples, got {type(sizes).__name__}")
    _, _, s, g = _time_model(k, gpu, stencil)
    grid = space.grid()
    has_subtile = k.kind in ("smith_waterman", "jacobi1d") or (
        k.kind == "custom" and "sS" in " ".join(k.expressions.values())
    )
    parts = []
    for size in sizes:
        size_row = _convert.extents(size, "sizes[]", n_dims, tile=False)
        times = cm_time.talg_batch(
            s, g, size_row, grid, variant=variant, threads=_convert.integer(threads, "threads")
        )
        ok = times.feasible
        if k.kind == "jacobi2d":
            ok = ok & (grid[:, -1] % 2 == 0)  # B.4-B.5 assume an even tT
        tiles = grid[ok]
        talg = np.asarray(times.talg_s)[ok]
        subs = [0] if not has_subtile else divisors
        for d in subs:
            if d == 0:  # no subtiles in this kernel
                keep = np.ones(len(tiles), dtype=bool)
                sub = np.zeros(len(tiles), dtype=np.int64)
            else:
                keep = tiles[:, 0] % d == 0
                sub = tiles[:, 0] // d
            t = tiles[keep]
            n = len(t)
            if not n:
                continue
            size4 = _rows4(np.tile(np.asarray(size_row, dtype=np.int64), (n, 1)), n_dims)
            tile4 = _rows4(t, n_dims)
            sub = np.asarray(sub[keep], dtype=np.int64)
            a = np.asarray(
                _core_energy.design_matrix(k, size4, tile4, sub, talg[keep]), dtype=np.float64
            )
            custom = {k.name: k} if k.kind == "custom" else {}
            name = k.name if k.kind == "custom" else k.kind
            parts.append(Candidates((name,) * n, size4, tile4, sub, talg[keep].copy(), a, custom))
    if not parts:
        raise ValueError(f"candidates: no feasible run of {k.name!r} in the space")
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


#: Tile spaces of the shipped synthetic table (``_synthetic_grid``), per kernel.
def _synthetic_space(key: str) -> cm_time.SearchSpace:
    if key == "jacobi2d":
        return cm_time.SearchSpace(((2, 4, 8, 16, 32), (32, 64, 128, 256)), (2, 4, 8, 16))
    return cm_time.SearchSpace(((16, 32, 64, 128, 256),), (4, 8, 16, 32, 64))


def _synthetic_sizes(key: str) -> list[tuple[int, ...]]:
    if key == "jacobi2d":
        return [(s, s, t) for s in (2048, 4096) for t in (256, 512, 1024)]
    return [(s, t) for s in (4096, 8192, 16384) for t in (1024, 2048, 4096)]


def _synthetic_stencil_1d(
    c_iter_s: float = _SYNTHETIC_C_ITER_1D_S, name: str = "synthetic1d"
) -> Stencil:
    return Stencil(
        name=name, n_space_dims=1, c_iter_s={"gtx980": c_iter_s}, source="synthetic stand-in"
    )


def flop_heavy_kernel(op: Literal["fadd", "fmul"] = "fadd", ops_per_iteration: int = 32) -> Kernel:
    """Return a hypothetical flop-heavy 1D kernel: J1D's data movement, many flops per point.

    Built with :func:`custom_kernel` (J1D's M_io, shared<->register words, V_tile and
    N_tiles; sS = tS), with ``ops_per_iteration`` operations of type ``op`` per iteration
    instead of J1D's 2 fadd + 1 fmul. It stands for a micro-benchmark-like kernel that a
    user could write to separate e_fadd and e_fmul; it is not in the seed.

    Parameters
    ----------
    op : {"fadd", "fmul"}
        The operation it stresses.
    ops_per_iteration : int
        Operations per iteration, >= 1.

    Returns
    -------
    Kernel
        Named ``"flops_<op><n>"``.
    """
    op = _convert.choice(op, "op", ("fadd", "fmul"))  # type: ignore[assignment]
    n = _convert.integer(ops_per_iteration, "ops_per_iteration")
    if not 1 <= n <= 1_000_000:
        raise ValueError(f"ops_per_iteration: must be in [1, 1000000], got {n}")
    return custom_kernel(
        f"flops_{op}{n}", 1, {op: float(n)},
        "2*(2*tT + tS)", "4*(2*tS + 4*tT*tS/sS)", "tS*tT", "S*T/(tS*tT)",
    )  # fmt: skip


def synthetic_candidates(
    kernels: Sequence[str] = KERNELS, flop_heavy: Sequence[Kernel] = ()
) -> Candidates:
    """Return the candidate set of the SYNTHETIC table's world: every grid point and kernel.

    Every feasible tile of each kernel's synthetic tile space (SW and J1D: tS in {16,
    ..., 256}, tT in {4, ..., 64}, sS in {tS/4, tS/2, tS}; J2D: tS1 in {2, ..., 32}, tS2
    in {32, ..., 256}, tT in {2, ..., 16}) at the synthetic table's problem sizes, with the
    same stand-in times (GTX 980 time model) as :func:`synthetic_runs`: 1782 runs.

    Parameters
    ----------
    kernels : sequence of str
        Built-in kernels to include.
    flop_heavy : sequence of Kernel
        Extra 1D custom kernels (e.g. :func:`flop_heavy_kernel`), over J1D's sizes and
        tiles; their T_alg uses C_iter = 3.39e-8 s x (flops per iteration / 3), J1D's
        stand-in scaled by the work (an assumption of this synthetic world).

    Returns
    -------
    Candidates
        Not measurements: runs that could be measured.
    """
    out: Candidates | None = None
    for name in kernels:
        key = _get_kernel(name).kind
        if key not in KERNELS:
            raise ValueError(f"kernels: {name!r} is not a built-in kernel")
        part = candidates(
            key, "gtx980", _synthetic_sizes(key), space=_synthetic_space(key),
            subtile_divisors=(4, 2, 1),
            stencil="jacobi2d" if key == "jacobi2d" else _synthetic_stencil_1d(),
            variant="paper",  # as synthetic_runs
        )  # fmt: skip
        out = part if out is None else out + part
    for k in flop_heavy:
        if not isinstance(k, Kernel) or int(k.n_space_dims) != 1:
            raise ValueError("flop_heavy: expected 1D Kernel objects (see flop_heavy_kernel)")
        ops = k.ops
        n_flops = float(ops.fadd + ops.fmul + ops.iadd + ops.imax)
        c_iter = _SYNTHETIC_C_ITER_1D_S * max(1.0, n_flops / 3.0)
        part = candidates(
            k, "gtx980", _synthetic_sizes("jacobi1d"), space=_synthetic_space("jacobi1d"),
            stencil=_synthetic_stencil_1d(c_iter, f"synthetic_{k.name}"),
            variant="paper",
        )  # fmt: skip
        out = part if out is None else out + part
    if out is None:
        raise ValueError("synthetic_candidates: no kernels given")
    return out


@record
class ExpectedInterval(Record):
    """The interval a quantity is expected to get from a set of runs, before measuring.

    Attributes
    ----------
    name : str
        Parameter name or combination (as in :class:`Estimate`).
    rel_halfwidth : float
        Expected half-width of the ``level`` interval relative to the quantity's value
        (z * sigma * sqrt(c^T (S^T S)^-1 c), S the relative-sensitivity matrix); inf
        when these runs do not identify it.
    determined : bool
        ``rel_halfwidth <= max_rel_halfwidth``.
    budget_needed : float
        Runs needed to reach ``precision`` (the first prefix of the greedy order that does;
        beyond the candidate set extrapolated as 1/N, ``budget_extrapolated``); inf when the
        candidates never identify it.
    budget_extrapolated : bool
        Whether ``budget_needed`` is an extrapolation (more runs than the greedy path).
    random_rel_halfwidth : float
        Median expected half-width over random choices of the same size (NaN if not run).
    """

    name: str
    rel_halfwidth: float
    determined: bool
    budget_needed: float
    budget_extrapolated: bool
    random_rel_halfwidth: float


@record
class Design(Record):
    """A designed experiment: the chosen runs and what they are expected to determine.

    Attributes
    ----------
    runs : Candidates
        The chosen runs, in the order chosen.
    rows : numpy.ndarray
        Their indices in the candidate set.
    expected : dict of str to ExpectedInterval
        Per identifiable quantity (of the candidate set).
    targets : tuple of str
        Quantities the criterion optimized (identifiable and determinable with every
        candidate).
    budget : int
        Runs chosen.
    n_candidates : int
        Size of the candidate set.
    noise_sigma, level, precision, max_rel_halfwidth : float
        The assumptions: relative noise of one energy measurement, the confidence level,
        the precision for ``budget_needed`` and the "not determined" threshold.
    n_random : int
        Random choices compared.
    criterion : str
        What the selection maximized.
    """

    runs: Candidates
    rows: npt.NDArray[np.int64]
    expected: dict[str, ExpectedInterval]
    targets: tuple[str, ...]
    budget: int
    n_candidates: int
    noise_sigma: float
    level: float
    precision: float
    max_rel_halfwidth: float
    n_random: int
    criterion: str

    def table(self) -> list[dict[str, Any]]:
        """One row per quantity: expected +-%, determined, budget needed, random +-%."""
        return [
            {
                "quantity": e.name,
                "designed_pm_pct": 100 * e.rel_halfwidth,
                "random_pm_pct": 100 * e.random_rel_halfwidth,
                "determined": e.determined,
                "budget_needed": e.budget_needed,
                "extrapolated": e.budget_extrapolated,
            }
            for e in self.expected.values()
        ]


def _quantities(
    design_rows: npt.NDArray[np.float64], ref: npt.NDArray[np.float64], rel_tol: float = 1e-10
) -> tuple[list[str], npt.NDArray[np.float64]]:
    """Return the identifiable quantities of a design and their relative-unit rows."""
    ident = _core_energy.identifiability(design_rows, float(rel_tol))
    combos = np.asarray(ident["combinations"], dtype=np.float64).reshape(-1, len(PARAM_NAMES))
    names, rel = [], []
    for row in combos:
        value = float(row @ ref)
        if not value > 0:
            continue  # a combination that is 0 at the reference has no relative precision
        names.append(Combination(_coefficients(row), 0.0).text)
        rel.append(row * ref / value)  # d(quantity)/quantity per relative change of x_k
    return names, np.asarray(rel).reshape(-1, len(PARAM_NAMES))


def _relative_sensitivity(
    design_rows: npt.NDArray[np.float64], ref: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """S_ik = A_ik ref_k / E_i: the share of run i's energy that parameter k carries.

    With relative noise sigma on each energy, the covariance of the relative parameter
    errors is sigma^2 (S^T S)^-1 (Gauss-Newton / Fisher information of the relative fit).
    """
    e = design_rows @ ref
    out: npt.NDArray[np.float64] = design_rows * ref / e[:, None]
    return out


def _rel_halfwidths(
    s: npt.NDArray[np.float64], c: npt.NDArray[np.float64], z_sigma: float
) -> npt.NDArray[np.float64]:
    """Z sigma sqrt(c^T (S^T S)^+ c) per row of c; inf where c is not in S's row space."""
    m = s.T @ s
    u, sv, vt = np.linalg.svd(m)
    keep = sv > sv[0] * 1e-12 if sv.size and sv[0] > 0 else np.zeros(sv.shape, dtype=bool)
    pinv = (vt[keep].T / sv[keep]) @ u[:, keep].T
    var = np.einsum("ij,jk,ik->i", c, pinv, c)
    # c must lie in the row space of S: its part outside the kept right singular vectors.
    resid = c - (c @ vt[keep].T) @ vt[keep]
    out: npt.NDArray[np.float64] = z_sigma * np.sqrt(np.maximum(var, 0.0))
    out[np.linalg.norm(resid, axis=1) > 1e-6 * np.linalg.norm(c, axis=1)] = math.inf
    return out


def _greedy(
    s: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    n: int,
    floor2: float,
    ridge: float = 1e-8,
    bar: Any = None,
    replicates: bool = False,
) -> npt.NDArray[np.int64]:
    """Greedy choice of n rows of s minimizing sum_j log(c_j^T M^-1 c_j + floor2), M = S^T S.

    Returns the rows in the order chosen. Rank-one Sherman-Morrison updates of M^-1,
    starting from a small ridge (``ridge`` times the largest column norm squared) so that
    the first steps are defined; the ridge steers the first steps, hence the multi-start
    in :func:`design`. With ``replicates`` a row may be chosen again (one more measurement
    of the same run).
    """
    p = s.shape[1]
    m_inv = np.eye(p) / (ridge * max(float(np.max(np.sum(s * s, axis=0))), 1e-300))
    available = np.ones(len(s), dtype=bool)
    chosen = np.zeros(n, dtype=np.int64)
    for step in range(n):
        gains = _log_gains(s, m_inv, c, available, floor2)
        j = int(np.argmax(gains))
        chosen[step] = j
        available[j] = replicates
        v = m_inv @ s[j]
        m_inv -= np.outer(v, v) / (1.0 + s[j] @ v)
        if bar is not None:
            bar.update(1)
    return chosen


def _log_gains(
    s: npt.NDArray[np.float64],
    m_inv: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    available: npt.NDArray[np.bool_],
    floor2: float,
) -> npt.NDArray[np.float64]:
    """Decrease of sum_j log(var_j + floor2) from adding each row (exact rank-one update)."""
    u = s @ (m_inv @ c.T)  # (n, J): s_i^T M^-1 c_j
    q = np.einsum("ij,jk,ik->i", s, m_inv, s)
    var = np.einsum("ij,jk,ik->i", c, m_inv, c)
    after = np.maximum(var[None, :] - u * u / (1.0 + q)[:, None], 0.0)
    gains: npt.NDArray[np.float64] = (np.log(var + floor2)[None, :] - np.log(after + floor2)).sum(
        axis=1
    )
    gains[~available] = -np.inf
    return gains


def _exchange(
    s: npt.NDArray[np.float64], c: npt.NDArray[np.float64], rows: npt.NDArray[np.int64],
    floor2: float, max_passes: int = 5, replicates: bool = False,
) -> npt.NDArray[np.int64]:  # fmt: skip
    """Fedorov exchange: swap a chosen row for a candidate while the criterion improves.

    With ``replicates`` the candidate may be a row already chosen (one more measurement).
    """
    chosen = rows.copy()
    p = s.shape[1]
    ridge = 1e-10 * max(float(np.max(np.sum(s * s, axis=0))), 1e-300)
    m_inv = np.asarray(np.linalg.inv(ridge * np.eye(p) + s[chosen].T @ s[chosen]), dtype=np.float64)
    available = np.ones(len(s), dtype=bool)
    available[chosen] = replicates

    def criterion(mi: npt.NDArray[np.float64]) -> float:
        return float(np.log(np.einsum("ij,jk,ik->i", c, mi, c) + floor2).sum())

    for _ in range(max_passes):
        improved = False
        for pos in range(len(chosen)):
            j = int(chosen[pos])
            v = m_inv @ s[j]
            denom = 1.0 - s[j] @ v
            if denom <= 1e-12:
                continue  # removing j would lose identifiability
            without: npt.NDArray[np.float64] = m_inv + np.outer(v, v) / denom
            loss = criterion(without) - criterion(m_inv)
            available[j] = True
            gains = _log_gains(s, without, c, available, floor2)
            k = int(np.argmax(gains))
            if k != j and gains[k] > loss + 1e-9:
                chosen[pos] = k
                available[k] = replicates
                w = without @ s[k]
                m_inv = without - np.outer(w, w) / (1.0 + s[k] @ w)
                improved = True
            else:
                available[j] = replicates
        if not improved:
            break
    return chosen


#: Largest budget of a replicated design (runs to measure, each replicate counted).
_MAX_REPLICATED_BUDGET = 10_000
#: A design's confidence level lies in [_MIN_LEVEL, 1 - _MIN_LEVEL], its noise_sigma in
#: [_MIN_NOISE_SIGMA, 1) and good_enough in [0, _MAX_GOOD_ENOUGH]: within these bounds the
#: expected half-widths and the criterion's floor (good_enough / (z sigma))^2 are finite.
_MIN_LEVEL = 1e-9
_MIN_NOISE_SIGMA = 1e-6
_MAX_GOOD_ENOUGH = 1e6


def design(
    candidates: Candidates,
    budget: int,
    *,
    params: ParamsLike = "model_a",
    noise_sigma: float = 0.03,
    level: float = 0.95,
    precision: float | None = None,
    max_rel_halfwidth: float = 0.5,
    good_enough: float = 0.05,
    n_random: int = 20,
    seed: int = 0,
    progress: bool = False,
    replicates: bool = False,
) -> Design:
    """Choose the ``budget`` candidate runs that best determine the energy parameters.

    Before anything is measured, the expected precision of a set of runs follows from the
    design alone: with energies measured to a relative noise sigma, the relative errors of
    the parameters have covariance sigma^2 (S^T S)^-1, where S_ik = A_ik x_k / E_i is the
    share of run i's energy carried by parameter k (the relative-sensitivity matrix, at
    ``params``). The selection minimizes ``sum_j log(v_j + f^2)`` over the target
    quantities, v_j the expected relative variance of quantity j and f the standard
    deviation of a ``+-good_enough`` interval: every quantity counts by how much its
    interval shrinks, whatever its size, until it is good enough (a quantity already
    known to +-5% stops drawing runs from the others). Targets: the identifiable
    quantities that the whole candidate set determines within ``max_rel_halfwidth`` (so
    the choice is not spent on one no budget can determine). Greedy with rank-one
    updates, then a Fedorov exchange (swap a chosen run for another while that helps),
    from three starts; the best is kept.

    Parameters
    ----------
    candidates : Candidates
        Runs that could be measured (:func:`candidates`, :func:`synthetic_candidates`,
        :meth:`Candidates.from_runs`); each is chosen at most once, unless
        ``replicates``.
    budget : int
        Runs to choose, 1 <= budget <= len(candidates) (without ``replicates``; at most
        10^4 with).
    params : Params, mapping or str
        Where the sensitivities are evaluated (a guess of the parameters; Model A).
    noise_sigma : float
        Relative standard deviation of one energy measurement, in [1e-6, 1).
    level : float
        Confidence level of the expected intervals, in [1e-9, 1 - 1e-9].
    precision : float, optional
        Relative half-width for ``budget_needed`` (default ``max_rel_halfwidth``), >= 1e-6.
    max_rel_halfwidth : float
        Quantities expected wider than this are "not determined".
    good_enough : float
        Relative half-width below which a quantity no longer draws runs, in [0, 1e6] (0:
        every target counts at any precision).
    n_random : int
        Random choices of ``budget`` runs to compare with (0: none).
    seed : int
        Seed of the random choices.
    progress : bool
        Progress bar on standard error.
    replicates : bool
        Allow a run to be chosen more than once: each time is one more measurement of it,
        with its own noise. The best designs then concentrate on a few runs measured many
        times, as optimal designs do (docs/energy.md, "Replicated designs"); the random
        choices compared stay distinct runs. Default False: distinct runs.

    Returns
    -------
    Design
        Chosen runs, expected intervals designed vs random, budget each quantity needs.

    Raises
    ------
    ValueError
        If the budget exceeds the candidate set or is below 1, or an argument is out of
        range.
    """
    from statistics import NormalDist

    if not isinstance(candidates, Candidates):
        raise TypeError(f"candidates: expected Candidates, got {type(candidates).__name__}")
    n_cand = len(candidates)
    budget = _convert.integer(budget, "budget")
    if budget < 1:
        raise ValueError(f"budget: must be >= 1, got {budget}")
    replicates = _convert.boolean(replicates, "replicates")
    if not replicates and budget > n_cand:
        raise ValueError(
            f"budget: {budget} exceeds the candidate set ({n_cand} runs); each candidate "
            "is chosen at most once (replicates=True allows more)"
        )
    # With replicates the choice costs about 4 ms per run (a greedy path of 4 budget runs
    # and the exchange passes): 10^4 runs take under a minute.
    if replicates and budget > _MAX_REPLICATED_BUDGET:
        raise ValueError(
            f"budget: must be <= {_MAX_REPLICATED_BUDGET} with replicates, got {budget}"
        )
    sigma = _convert.real(noise_sigma, "noise_sigma")
    if not (math.isfinite(sigma) and _MIN_NOISE_SIGMA <= sigma < 1):
        raise ValueError(f"noise_sigma: must be in [{_MIN_NOISE_SIGMA:g}, 1), got {sigma!r}")
    level = _convert.real(level, "level")
    # Nearer 0 or 1 the normal quantile of 0.5 + level / 2 is 0 or undefined in doubles.
    if not _MIN_LEVEL <= level <= 1 - _MIN_LEVEL:
        raise ValueError(f"level: must be in [{_MIN_LEVEL:g}, 1 - {_MIN_LEVEL:g}], got {level!r}")
    max_rel_halfwidth = _convert.real(max_rel_halfwidth, "max_rel_halfwidth")
    if not (math.isfinite(max_rel_halfwidth) and max_rel_halfwidth >= 1e-6):
        raise ValueError(f"max_rel_halfwidth: must be finite and >= 1e-6, got {max_rel_halfwidth}")
    target_pm = max_rel_halfwidth if precision is None else _convert.real(precision, "precision")
    if not (math.isfinite(target_pm) and 1e-6 <= target_pm):
        raise ValueError(f"precision: must be finite and >= 1e-6, got {target_pm}")
    good_enough = _convert.real(good_enough, "good_enough")
    if not (math.isfinite(good_enough) and 0 <= good_enough <= _MAX_GOOD_ENOUGH):
        raise ValueError(f"good_enough: must be in [0, {_MAX_GOOD_ENOUGH:g}], got {good_enough!r}")
    n_random = _convert.integer(n_random, "n_random")
    if not 0 <= n_random <= 10_000:
        raise ValueError(f"n_random: must be in [0, 10000], got {n_random}")
    seed = _convert.integer(seed, "seed", lo=0)
    ref = np.asarray([getattr(_params(params), n) for n in PARAM_NAMES], dtype=np.float64)
    if not np.all(np.isfinite(candidates.design)):
        raise ValueError("candidates: the design matrix has non-finite entries")
    s = _relative_sensitivity(candidates.design, ref)
    names, c = _quantities(candidates.design, ref)
    if not names:
        raise ValueError("candidates: no parameter combination is identifiable")
    z_sigma = NormalDist().inv_cdf(0.5 + 0.5 * level) * sigma
    full = _rel_halfwidths(s, c, z_sigma)
    targets = [i for i, hw in enumerate(full) if hw <= max_rel_halfwidth]
    if not targets:
        targets = list(range(len(names)))
    ct = c[targets]
    floor2 = (good_enough / z_sigma) ** 2  # in the units of c^T (S^T S)^-1 c
    # The greedy path goes beyond the budget to find the budget each quantity needs.
    n_path = max(4 * budget, 1000) if replicates else min(n_cand, max(4 * budget, 1000))
    from tqdm import tqdm

    bar = tqdm(total=n_path, disable=not progress, unit="run", desc="design", file=sys.stderr)
    try:
        order = _greedy(s, ct, n_path, floor2, bar=bar, replicates=replicates)
    finally:
        bar.close()
    # Multi-start: greedy is myopic and its first steps depend on the ridge; keep the best
    # of a few starts after the exchange pass (criterion with the exact pseudo-inverse).
    best_value, chosen = math.inf, order[:budget]
    starts = (
        order[:budget],
        _greedy(s, ct, budget, floor2, 1e-6, replicates=replicates),
        _greedy(s, ct, budget, floor2, 1e-4, replicates=replicates),
    )
    for start in starts:
        rows = _exchange(s, ct, start, floor2, replicates=replicates)
        value = float(np.sum(np.log(_rel_halfwidths(s[rows], ct, 1.0) ** 2 + floor2)))
        if value < best_value:
            best_value, chosen = value, rows
    designed = _rel_halfwidths(s[chosen], c, z_sigma)
    # Budget needed: the shortest prefix of the greedy order that reaches the precision
    # (bisection: adding runs never widens an interval).
    cache: dict[int, npt.NDArray[np.float64]] = {}

    def prefix_hw(m: int) -> npt.NDArray[np.float64]:
        if m not in cache:
            cache[m] = _rel_halfwidths(s[order[:m]], c, z_sigma)
        return cache[m]

    def first_prefix(j: int) -> int:
        lo, hi = 1, n_path  # prefix_hw(hi)[j] <= target_pm holds
        while lo < hi:
            mid = (lo + hi) // 2
            if prefix_hw(mid)[j] <= target_pm:
                hi = mid
            else:
                lo = mid + 1
        return lo

    rng = np.random.default_rng([seed, 2])
    random_hw = np.full(len(names), math.nan)
    if n_random:
        draws = np.stack(
            [
                _rel_halfwidths(
                    s[rng.choice(n_cand, size=budget, replace=budget > n_cand)], c, z_sigma
                )
                for _ in range(n_random)
            ]
        )
        random_hw = np.median(draws, axis=0)
    n_params = int(np.count_nonzero(np.any(candidates.design != 0, axis=0)))
    expected = {}
    end_hw = prefix_hw(n_path)
    for j, name in enumerate(names):
        extrapolated = False
        if end_hw[j] <= target_pm:
            # A fit needs at least as many runs as parameters (fit() refuses fewer).
            needed = float(max(first_prefix(j), n_params))
        elif math.isfinite(end_hw[j]):
            needed = float(math.ceil(n_path * (end_hw[j] / target_pm) ** 2))
            extrapolated = True
        else:
            needed = math.inf
        expected[name] = ExpectedInterval(
            name, float(designed[j]), bool(designed[j] <= max_rel_halfwidth), needed,
            extrapolated, float(random_hw[j]),
        )  # fmt: skip
    return Design(
        runs=candidates.select(chosen),
        rows=np.asarray(chosen, dtype=np.int64),
        expected=expected,
        targets=tuple(names[i] for i in targets),
        budget=budget,
        n_candidates=n_cand,
        noise_sigma=sigma,
        level=level,
        precision=target_pm,
        max_rel_halfwidth=max_rel_halfwidth,
        n_random=n_random,
        criterion=(
            f"min sum log(expected relative variance + floor) of the targets (floor: "
            f"+-{100 * good_enough:g}%); greedy + exchange"
            + ("; runs may be replicated" if replicates else "")
        ),
    )
