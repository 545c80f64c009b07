"""Execution time of tiled stencils on GPUs, and optimal tile sizes (thesis 000, App. A).

Every formula lives in the C++ core (``cpp/src/time.cpp``, ``cpp/src/time_exact.cpp``);
this module resolves presets, checks shapes and converts arguments and results.

Conventions
-----------
``sizes`` is ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)`` and ``tiles`` is
``(tS, tT)``, ``(tS1, tS2, tT)`` or ``(tS1, tS2, tS3, tT)``: the time entry is always last,
and the number of space entries must match the stencil's. Times are in seconds, memory in
4-byte words. ``variant="exact"`` (the default of every family) uses exact point and tile
counts for a gap-free hexagonal tiling; ``variant="paper"`` uses the published formulas,
for reproduction, and can predict T_alg below T_ideal for small tiles (a known artefact of
the paper's geometry: :attr:`Breakdown.below_ideal` and :attr:`BestTiles.below_ideal` say
so; ``docs/time.md``). Positional arguments are ``(stencil, gpu, sizes, tiles)``;
everything else is a keyword (``docs/api-conventions.md``).
``variant="machine"`` is ``exact`` plus the machine-faithful terms of the preset
(per-segment copy cost, memory level, bandwidth shared by the cores, per-line overhead,
thread terms; all 0 on the GPU presets, where it equals ``exact`` bit for bit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import field
from functools import cached_property
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from costmetrics import _convert, _core
from costmetrics import presets as _presets
from costmetrics._record import Record, record
from costmetrics.presets import Gpu, Stencil

__all__ = [
    "DESIGN_PARAMETERS",
    "INFEASIBLE_REASONS",
    "MEMORY_LEVELS",
    "BatchResult",
    "BestTiles",
    "Breakdown",
    "DesignRows",
    "SearchSpace",
    "Variant",
    "best_tiles",
    "breakdown",
    "default_search_space",
    "describe_infeasibility",
    "design_rows",
    "dram_share",
    "landscape",
    "max_hexagonal_face_tiles",
    "memory_level",
    "t_ideal",
    "t_overhead",
    "t_overhead_closed_form",
    "talg",
    "talg_batch",
]

Variant = Literal["paper", "exact", "machine"]
#: Memory levels of the ``machine`` variant, in the order of :func:`memory_level`.
MEMORY_LEVELS: tuple[str, ...] = tuple(_core.time.MEMORY_LEVELS)
#: Names of the calibrated parameters, in the order of :func:`design_rows` columns.
DESIGN_PARAMETERS: tuple[str, ...] = tuple(_core.time.design_parameter_names())
_core_time = _core.time

#: Every term of the model for one tile choice: the core's record, bound once in C++
#: (``cpp/include/costmetrics/time.hpp``), with ``_fields``, ``_asdict()``, ``==``, pickling
#: and the property ``t_overhead_s`` (T_alg - T_ideal, Eq. 8.4).
Breakdown = _core_time.Breakdown

#: Bit masks of the reasons a tile is infeasible (Eq. A.32), as returned by talg_batch.
INFEASIBLE_REASONS: dict[str, int] = {
    "non_positive_tile": int(_core_time.NON_POSITIVE_TILE),
    "odd_time_tile": int(_core_time.ODD_TIME_TILE),
    "innermost_not_warp_multiple": int(_core_time.INNERMOST_NOT_WARP_MULTIPLE),
    "exceeds_block_shared_memory": int(_core_time.EXCEEDS_BLOCK_SHARED_MEMORY),
    "exceeds_sm_shared_memory": int(_core_time.EXCEEDS_SM_SHARED_MEMORY),
}


# --------------------------------------------------------------------------------------
# Argument handling: types are converted here, values are checked by the core.
# --------------------------------------------------------------------------------------


def _resolve(stencil: Stencil | str, gpu: Gpu | str) -> tuple[Stencil, Gpu]:
    return _presets.resolve_stencil(stencil, "stencil"), _presets.resolve_gpu(gpu, "gpu")


def _core_gpu(g: Gpu) -> _core_time.GpuParams:
    return g._core_params()


def _core_stencil(s: Stencil, g: Gpu) -> _core_time.StencilParams:
    return _core_time.StencilParams(n_space_dims=s.n_space_dims, c_iter_s=s.c_iter_on(g))


def _padded(values: list[int]) -> list[int]:
    return values + [0] * (3 - len(values))


def _core_size(s: Stencil, sizes: Sequence[int]) -> _core_time.ProblemSize:
    values = _convert.extents(sizes, "sizes", s.n_space_dims, tile=False)
    return _core_time.ProblemSize(space=_padded(values[:-1]), time_steps=values[-1])


def _core_tiles(s: Stencil, tiles: Sequence[int]) -> _core_time.TileSizes:
    values = _convert.extents(tiles, "tiles", s.n_space_dims, tile=True)
    return _core_time.TileSizes(space=_padded(values[:-1]), time=values[-1])


def _threads(threads: object) -> int:
    return _convert.integer(threads, "threads")


def _prepare(
    stencil: Stencil | str, gpu: Gpu | str, sizes: Sequence[int]
) -> tuple[Stencil, Gpu, _core_time.GpuParams, _core_time.StencilParams, _core_time.ProblemSize]:
    s, g = _resolve(stencil, gpu)
    core_gpu, core_stencil, core_size = _core_gpu(g), _core_stencil(s, g), _core_size(s, sizes)
    _core_time.validate_inputs(core_gpu, core_stencil, core_size)
    return s, g, core_gpu, core_stencil, core_size


# --------------------------------------------------------------------------------------
# Single-point evaluation
# --------------------------------------------------------------------------------------


def breakdown(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    variant: Variant = "exact",
) -> Breakdown:
    """Evaluate the model for one tile choice and return every term.

    Parameters
    ----------
    stencil : Stencil or str
        Stencil preset or its name, e.g. ``"heat2d"``.
    gpu : Gpu or str
        GPU preset or its name, e.g. ``"GTX 980"``.
    sizes : sequence of int
        Problem sizes ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)``.
    tiles : sequence of int
        Tile sizes ``(tS, tT)``, ``(tS1, tS2, tT)`` or ``(tS1, tS2, tS3, tT)``.
    variant : {"paper", "exact", "machine"}
        Published formulas, or exact point counts (see module docstring).

    Returns
    -------
    Breakdown
        All terms of the model.

    Raises
    ------
    TypeError
        On arguments of the wrong type.
    ValueError
        On bad sizes or tiles, or infeasible tiles (the message names the violated
        constraint of Eq. A.32).
    OverflowError
        On sizes beyond what the model computes exactly (``docs/time.md``, "Limits").
    """
    s, _, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    return _core_time.evaluate(core_gpu, core_stencil, core_size, _core_tiles(s, tiles), variant)


def talg(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    variant: Variant = "exact",
) -> float:
    """Predicted execution time T_alg in seconds (Eqs. A.7, A.18, A.31).

    Parameters are those of :func:`breakdown`.

    Returns
    -------
    float
        T_alg in seconds.

    Examples
    --------
    >>> import costmetrics as cm
    >>> t = cm.time.talg("heat2d", "gtx980", (8192, 8192, 8192), (8, 64, 8))
    >>> t > cm.time.t_ideal("heat2d", "gtx980", (8192, 8192, 8192)) * 0.5
    True
    """
    return breakdown(stencil, gpu, sizes, tiles, variant=variant).talg_s


def t_ideal(stencil: Stencil | str, gpu: Gpu | str, sizes: Sequence[int]) -> float:
    """Ideal time S1 * ... * T * C_iter / (nSM * nV) in seconds (Eq. 8.3).

    Parameters
    ----------
    stencil, gpu, sizes
        As in :func:`breakdown`.

    Returns
    -------
    float
        T_ideal in seconds.
    """
    _, _, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    return float(_core_time.t_ideal_s(core_gpu, core_stencil, core_size))


def t_overhead(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    variant: Variant = "exact",
) -> float:
    """Overhead T_alg - T_ideal in seconds (Eq. 8.4), from the full model.

    Parameters are those of :func:`breakdown`.

    Returns
    -------
    float
        T_overhead in seconds (negative in the ``paper`` variant for small tiles, where its
        geometry leaves gaps between hexagons; see ``docs/time.md``).
    """
    return breakdown(stencil, gpu, sizes, tiles, variant=variant).t_overhead_s


def t_overhead_closed_form(
    stencil: Stencil | str, gpu: Gpu | str, sizes: Sequence[int], tiles: Sequence[int]
) -> float:
    """Closed-form overhead T_ideal / (tS1 + tT/2) in seconds (Eq. 8.5, as read in docs).

    Parameters are those of :func:`breakdown`.

    Returns
    -------
    float
        The first-order overhead term; it depends on the tiles only through the hexagonal
        face tS1 + tT/2, so minimizing it means maximizing that face.
    """
    s, _, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    return float(
        _core_time.t_overhead_closed_form_s(
            core_gpu, core_stencil, core_size, _core_tiles(s, tiles)
        )
    )


def describe_infeasibility(reasons: int) -> str:
    """Text for a reason mask returned by :func:`talg_batch` (``"feasible"`` for 0).

    Parameters
    ----------
    reasons : int
        Bit mask, an OR of :data:`INFEASIBLE_REASONS` values.

    Returns
    -------
    str
        The violated constraints, separated by ``"; "``.

    Raises
    ------
    ValueError
        If the mask has a bit that is not one of :data:`INFEASIBLE_REASONS`.
    """
    return str(_core_time.describe_infeasibility(_convert.integer(reasons, "reasons")))


# --------------------------------------------------------------------------------------
# Vectorized evaluation
# --------------------------------------------------------------------------------------


class _BatchInputs(NamedTuple):
    """The arguments of one ``evaluate_batch`` call, kept to compute the terms later."""

    gpu: _core_time.GpuParams
    stencil: _core_time.StencilParams
    size: _core_time.ProblemSize
    tiles: npt.NDArray[np.integer[Any]]
    variant: str
    n_threads: int


@record
class BatchResult(Record):
    """T_alg and its terms for an array of tile choices.

    Attributes
    ----------
    talg_s : numpy.ndarray
        T_alg per row, NaN where infeasible.
    reasons : numpy.ndarray
        uint32 bit mask per row (0 when feasible; see :data:`INFEASIBLE_REASONS`).
    """

    talg_s: npt.NDArray[np.float64]
    reasons: npt.NDArray[np.uint32]
    # What the terms are computed from, on first access (None: not kept, terms=False).
    # (Typed Any: the private record stays out of the documented signature.)
    _inputs: Any = field(repr=False, compare=False)

    @cached_property
    def terms(self) -> dict[str, npt.NDArray[np.float64]]:
        """The model's terms per row, computed on first access (NaN where infeasible).

        ``m_prime_s``, ``c_s``, ``t_tile_s``, ``k``, ``m_tile_words``, ``n_wavefronts``,
        ``tiles_per_wavefront``, ``n_subtiles``.
        """
        i: _BatchInputs | None = self._inputs
        if i is None:
            raise ValueError(
                "terms: not kept for this batch; call talg_batch(..., terms=True) to have them"
            )
        out = _core_time.evaluate_batch(
            i.gpu, i.stencil, i.size, i.tiles, i.variant, i.n_threads, with_terms=True
        )
        return {name: np.asarray(out[name]) for name in out if name not in ("talg_s", "reasons")}

    @property
    def feasible(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of the feasible rows."""
        return np.asarray(self.reasons == 0)

    def reason_text(self, index: int) -> str:
        """Text of the infeasibility reasons of one row."""
        return describe_infeasibility(int(self.reasons[index]))


def talg_batch(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tiles: npt.ArrayLike,
    *,
    variant: Variant = "exact",
    threads: int = 0,
    terms: bool = True,
) -> BatchResult:
    """Evaluate T_alg for many tile choices at once, without a Python loop.

    Parameters
    ----------
    stencil, gpu, sizes, variant
        As in :func:`breakdown`.
    tiles : array_like of int, shape (n, d + 1)
        One tile choice per row, ``(tS1, [tS2, [tS3,]] tT)``.
    threads : int
        Worker threads (0: all cores).
    terms : bool
        Keep what :attr:`BatchResult.terms` needs to compute the terms on first access (a
        copy of ``tiles`` when it is an array the caller could still change). ``False``
        skips that copy, for sweeps that need T_alg only.

    Returns
    -------
    BatchResult
        T_alg and infeasibility masks per row; the terms follow on first access to
        :attr:`BatchResult.terms`.
    """
    s, _, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    array = _convert.rows(tiles, "tiles", s.n_space_dims)
    keep_terms = _convert.boolean(terms, "terms")
    variant_name, n_threads = variant, _threads(threads)
    out = _core_time.evaluate_batch(
        core_gpu, core_stencil, core_size, array, variant_name, n_threads, False
    )
    inputs = None
    if keep_terms:
        if isinstance(tiles, np.ndarray) and np.may_share_memory(array, tiles):
            array = array.copy()  # the terms, computed later, must not see the caller's edits
        array.flags.writeable = False
        inputs = _BatchInputs(core_gpu, core_stencil, core_size, array, variant_name, n_threads)
    return BatchResult(np.asarray(out["talg_s"]), np.asarray(out["reasons"]), inputs)


def memory_level(stencil: Stencil | str, gpu: Gpu | str, sizes: Sequence[int]) -> str:
    """Memory level where the problem's arrays live, as the ``machine`` variant takes it.

    The two time levels with a one-point halo (``8 prod(S_d + 2)`` bytes), per core against
    the preset's L1 and L2 sizes, in all against its L3 size (``docs/time.md``).

    Parameters
    ----------
    stencil, gpu, sizes
        As in :func:`breakdown`.

    Returns
    -------
    str
        One of :data:`MEMORY_LEVELS` (``"DRAM"`` when the preset has no cache sizes).
    """
    s, _, core_gpu, _, core_size = _prepare(stencil, gpu, sizes)
    return MEMORY_LEVELS[int(_core_time.memory_level(core_gpu, s.n_space_dims, core_size))]


def dram_share(stencil: Stencil | str, gpu: Gpu | str, sizes: Sequence[int]) -> float:
    """Share of the problem's arrays that the ``machine`` variant streams from DRAM.

    0 below the DRAM level; at it ``1 - cache_l3_bytes / B`` (``B`` the arrays' bytes, as
    in :func:`memory_level`) when the preset has an L3: the part of a cyclically swept
    array that fits stays in L3 between sweeps, the rest comes from DRAM, and the word
    cost blends the two levels' terms by it (``docs/time.md``, "Arrays partly in L3"); 1
    without an L3 (every GPU preset). Where the preset has a measured DRAM-share curve
    (``Gpu.dram_curve_bytes``), the curve at ``B`` instead, linear in ``log B`` between
    its points, and the level past L2 is DRAM where that share is above 0 (``docs/time.md``,
    "The DRAM share from the copy curve").

    Parameters
    ----------
    stencil, gpu, sizes
        As in :func:`breakdown`.

    Returns
    -------
    float
        In [0, 1].
    """
    s, _, core_gpu, _, core_size = _prepare(stencil, gpu, sizes)
    return float(_core_time.dram_share(core_gpu, s.n_space_dims, core_size))


@record
class DesignRows(Record):
    """Coefficients of T_alg in the calibrated parameters, one row per tile choice.

    ``T_alg = rows @ parameters`` on every feasible row (exactly linear where k = 1; the
    branch of each ``max()`` taken at ``parameters`` otherwise).

    Attributes
    ----------
    rows : numpy.ndarray, shape (n, len(DESIGN_PARAMETERS))
        Coefficients (units: the parameter's inverse unit times seconds); NaN rows where
        infeasible.
    reasons : numpy.ndarray
        uint32 infeasibility mask per row (0 when feasible).
    parameters : numpy.ndarray
        The preset's parameter values, in the order of :data:`DESIGN_PARAMETERS`.
    names : tuple of str
        :data:`DESIGN_PARAMETERS`.
    """

    rows: npt.NDArray[np.float64]
    reasons: npt.NDArray[np.uint32]
    parameters: npt.NDArray[np.float64]
    names: tuple[str, ...] = DESIGN_PARAMETERS

    @property
    def feasible(self) -> npt.NDArray[np.bool_]:
        """Boolean mask of the feasible rows."""
        return np.asarray(self.reasons == 0)

    @property
    def talg_s(self) -> npt.NDArray[np.float64]:
        """``rows @ parameters``: T_alg per row, s (NaN where infeasible)."""
        return np.asarray(self.rows @ self.parameters)


def design_rows(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tiles: npt.ArrayLike,
    *,
    variant: Variant = "exact",
    threads: int = 0,
) -> DesignRows:
    """Return the design matrix of T_alg in the calibrated parameters, from the C++ model.

    ``rows @ parameters`` is T_alg of every feasible row, in each variant. ``paper`` and
    ``exact`` read no machine term: their rows are those of the preset without its
    machine terms (:meth:`~costmetrics.presets.Gpu.without_machine_terms`) and their
    ``parameters`` hold 0 for them; on such a preset ``exact`` and ``machine`` give the
    same rows. ``paper`` has nonzero entries only for L, tau_sync, T_sync and C_iter.

    Parameters
    ----------
    stencil, gpu, sizes, variant
        As in :func:`breakdown`.
    tiles : array_like of int, shape (n, d + 1)
        As in :func:`talg_batch`.
    threads : int
        Worker threads of the evaluation (0: all cores).

    Returns
    -------
    DesignRows
        Rows, infeasibility masks and the preset's parameter vector.
    """
    s, g, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    array = _convert.rows(tiles, "tiles", s.n_space_dims)
    out = _core_time.design_rows(
        core_gpu, core_stencil, core_size, array, variant, _threads(threads)
    )
    # The parameters the variant reads (until 2026-11-30 exact's were dotted with the
    # preset's machine terms, which talg(exact) ignores).
    read = core_gpu if variant == "machine" else _core_gpu(g.without_machine_terms())
    params = np.asarray(_core_time.design_parameters(read, s.c_iter_on(g)))
    return DesignRows(np.asarray(out["rows"]), np.asarray(out["reasons"]), params)


# --------------------------------------------------------------------------------------
# Tile-size search
# --------------------------------------------------------------------------------------


@record
class SearchSpace(Record):
    """Candidate tile sizes; the search space is their Cartesian product.

    Attributes
    ----------
    space : tuple of tuple of int
        Candidates per space dimension (tS1, [tS2, [tS3]]).
    time : tuple of int
        Candidates for tT.
    """

    space: tuple[tuple[int, ...], ...]
    time: tuple[int, ...]

    @property
    def n_points(self) -> int:
        """Number of points (feasible or not)."""
        n = len(self.time)
        for values in self.space:
            n *= len(values)
        return n

    def grid(self) -> npt.NDArray[np.int64]:
        """Return every point as rows ``(tS1, [tS2, [tS3,]] tT)``, for :func:`talg_batch`.

        Rows come in the core's search order (tT slowest, the last space size fastest).
        """
        axes = np.meshgrid(np.asarray(self.time), *map(np.asarray, self.space), indexing="ij")
        points = np.stack([a.ravel() for a in axes], axis=1)
        return np.roll(points, -1, axis=1).astype(np.int64)  # tT from first to last column

    def _to_core(self) -> _core_time.SearchSpace:
        return _core_time.SearchSpace(space=[list(v) for v in self.space], time=list(self.time))


def _search_space(space: object, n_dims: int) -> SearchSpace:
    """Return a SearchSpace from one, or from candidate lists ``(tS1, ..., tT)``."""
    if space is None:
        return default_search_space(n_dims)
    if isinstance(space, SearchSpace):
        # Its fields are checked as candidate lists are (a SearchSpace(space=None, ...) had
        # reached the core as "'NoneType' object is not iterable").
        inner = space.space
        if isinstance(inner, (str, bytes, Mapping, Set)) or not isinstance(inner, Sequence):
            raise TypeError(
                f"space.space: expected a sequence of {n_dims} candidate lists, "
                f"got {type(inner).__name__}"
            )
        if len(inner) != n_dims:
            raise ValueError(f"space.space: expected {n_dims} candidate lists, got {len(inner)}")
        lists = [_candidates(v, f"space.space[{i}]") for i, v in enumerate(inner)]
        return SearchSpace(tuple(lists), _candidates(space.time, "space.time", "tT candidates"))
    if isinstance(space, (str, bytes, Mapping, Set)) or not isinstance(space, Sequence):
        raise TypeError(
            "space: expected a SearchSpace or a sequence of candidate lists "
            f"{_convert.layout(n_dims, True)}, got {type(space).__name__}"
        )
    if len(space) != n_dims + 1:
        raise ValueError(
            f"space: expected {n_dims + 1} candidate lists {_convert.layout(n_dims, True)}, "
            f"got {len(space)}"
        )
    lists = [_candidates(v, f"space[{i}]") for i, v in enumerate(space)]
    return SearchSpace(tuple(lists[:-1]), lists[-1])


def _candidates(values: object, name: str, what: str = "candidates") -> tuple[int, ...]:
    """One candidate list as a tuple of ints: not empty, no candidate twice."""
    # An empty list leaves nothing to search; a repeated candidate would be evaluated,
    # counted in n_points and listed among the near-optimal tiles once per repeat.
    # One axis never holds more candidates than the whole search may have points.
    out = tuple(_convert.int_sequence(values, name, max_len=_core_time.MAX_SEARCH_POINTS))
    if not out:
        raise ValueError(f"{name}: no {what}")
    seen: set[int] = set()
    for v in out:
        if v in seen:
            raise ValueError(f"{name}: candidate {v} appears twice")
        seen.add(v)
    return out


def default_search_space(n_space_dims: int) -> SearchSpace:
    """Return the documented default search space (``docs/time.md``).

    Parameters
    ----------
    n_space_dims : int
        1, 2 or 3.

    Returns
    -------
    SearchSpace
        At least the paper's ~18,000 points (Sec. A.6.3).
    """
    core = _core_time.default_search_space(_convert.integer(n_space_dims, "n_space_dims"))
    return SearchSpace(tuple(tuple(v) for v in core.space), tuple(core.time))


@record
class BestTiles(Record):
    """Result of the exhaustive tile search (Sec. A.6).

    Attributes
    ----------
    tiles : tuple of int
        The argmin, in the layout of ``tiles`` arguments.
    talg_s : float
        T_alg_min, seconds.
    breakdown : Breakdown
        Every term at the argmin.
    near_optimal : numpy.ndarray
        Every feasible point within ``within`` of the minimum, one per row, sorted by T_alg.
    near_optimal_talg_s : numpy.ndarray
        Their T_alg, ascending.
    n_points, n_feasible : int
        Size of the search space and number of feasible points in it.
    within : float
        The fraction used.
    """

    tiles: tuple[int, ...]
    talg_s: float
    breakdown: Breakdown
    near_optimal: npt.NDArray[np.int64]
    near_optimal_talg_s: npt.NDArray[np.float64]
    n_points: int
    n_feasible: int
    within: float

    @property
    def below_ideal(self) -> bool:
        """Whether T_alg_min is below T_ideal: an artefact of the ``paper`` variant."""
        return bool(self.breakdown.below_ideal)

    def table(self) -> list[dict[str, float | int]]:
        """Return the near-optimal set as a list of rows (tile sizes and ``talg_s``)."""
        return _near_optimal_rows(self.near_optimal, self.near_optimal_talg_s, "talg_s")


def _near_optimal_rows(
    tiles: npt.NDArray[np.int64], values: npt.NDArray[np.float64], value_name: str
) -> list[dict[str, float | int]]:
    """Rows of a search's near-optimal set: ``tS1``.. ``tT``, then ``value_name``.

    Parameters
    ----------
    tiles : numpy.ndarray
        One tile per row, time last.
    values : numpy.ndarray
        The objective of each row (``talg_s``, ``e_alg_j``).
    value_name : str
        The objective's key in the rows.

    Returns
    -------
    list of dict
        One dict per tile, for printing or JSON (the same shape in every family).
    """
    n_dims = tiles.shape[1] - 1
    names = [*["tS1", "tS2", "tS3"][:n_dims], "tT"]
    return [
        {**{n: int(v) for n, v in zip(names, row, strict=False)}, value_name: float(x)}
        for row, x in zip(tiles, values, strict=False)
    ]


def best_tiles(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    *,
    within: float = 0.10,
    variant: Variant = "exact",
    space: SearchSpace | Sequence[Sequence[int]] | None = None,
    threads: int = 0,
) -> BestTiles:
    """Exhaustive multi-threaded search for the tiles minimizing T_alg (Eq. A.32).

    Parameters
    ----------
    stencil, gpu, sizes, variant
        As in :func:`breakdown`.
    within : float
        Also return every feasible point with T_alg <= (1 + within) * T_alg_min
        (Sec. A.6.3 uses 10%).
    space : SearchSpace or sequence of sequences of int, optional
        Candidates, as a :class:`SearchSpace` or as one list per entry of ``tiles``
        (``[[tS1...], ..., [tT...]]``); default :func:`default_search_space`.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    BestTiles
        The argmin, T_alg_min and the near-optimal set.
    """
    s, _, core_gpu, core_stencil, core_size = _prepare(stencil, gpu, sizes)
    core_space = _search_space(space, s.n_space_dims)._to_core()
    fraction = _convert.real(within, "within") + 0.0  # -0.0 is recorded as 0.0
    r = _core_time.search(
        core_gpu,
        core_stencil,
        core_size,
        core_space,
        fraction,
        variant,
        _threads(threads),
    )
    dims = s.n_space_dims
    return BestTiles(
        tiles=(*r.best.space[:dims], r.best.time),
        talg_s=float(r.talg_min_s),
        breakdown=r.best_breakdown,
        near_optimal=np.asarray(_core_time.tiles_to_array(r.near_optimal, dims)),
        near_optimal_talg_s=np.asarray(r.near_optimal_talg_s, dtype=np.float64),
        n_points=int(r.n_points),
        n_feasible=int(r.n_feasible),
        within=fraction,
    )


def max_hexagonal_face_tiles(
    stencil: Stencil | str,
    gpu: Gpu | str,
    *,
    space: SearchSpace | Sequence[Sequence[int]] | None = None,
) -> npt.NDArray[np.int64]:
    """Section 8.1.2 narrowing: feasible tiles that maximize the face tS1 + tT/2.

    Parameters
    ----------
    stencil, gpu
        As in :func:`breakdown`.
    space : SearchSpace, optional
        Candidates; default :func:`default_search_space`.

    Returns
    -------
    numpy.ndarray
        One row per kept tile, for every value of the inner tile sizes (tS2, tS3).
    """
    s, g = _resolve(stencil, gpu)
    core_space = _search_space(space, s.n_space_dims)._to_core()
    return np.asarray(_core_time.max_hexagonal_face_tiles(_core_gpu(g), s.n_space_dims, core_space))


def landscape(
    stencil: Stencil | str,
    gpu: Gpu | str,
    sizes: Sequence[int],
    tS1: int,
    tT_values: npt.ArrayLike,
    tS2_values: npt.ArrayLike,
    *,
    variant: Variant = "exact",
) -> npt.NDArray[np.float64]:
    """T_alg over a (tT, tS2) grid with tS1 fixed, for 2D stencils (Fig. A.5).

    Parameters
    ----------
    stencil, gpu, sizes, variant
        As in :func:`breakdown`; the stencil must have two space dimensions.
    tS1 : int
        The fixed first space tile size (Fig. A.5 uses 8).
    tT_values, tS2_values : array_like of int
        Grid axes.

    Returns
    -------
    numpy.ndarray, shape (len(tT_values), len(tS2_values))
        T_alg in seconds, NaN where infeasible.
    """
    s, _ = _resolve(stencil, gpu)
    if s.n_space_dims != 2:
        raise ValueError(f"stencil: landscape needs a 2D stencil, {s.name} has {s.n_space_dims}")
    ts1 = _convert.integer(tS1, "tS1")
    most = _core_time.MAX_SEARCH_POINTS  # a landscape is a (tT, tS2) search grid
    tt_axis = np.asarray(_convert.int_sequence(tT_values, "tT_values", max_len=most), np.int64)
    ts2_axis = np.asarray(_convert.int_sequence(tS2_values, "tS2_values", max_len=most), np.int64)
    tt, ts2 = np.meshgrid(tt_axis, ts2_axis, indexing="ij")
    grid = np.stack([np.full(tt.size, ts1), ts2.ravel(), tt.ravel()], axis=1).astype(np.int64)
    return talg_batch(stencil, gpu, sizes, grid, variant=variant).talg_s.reshape(tt.shape)
