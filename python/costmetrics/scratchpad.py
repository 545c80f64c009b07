"""Scratchpad data movement: local arrays, movement cost and the tile-size search.

Seed 004: M. M. Baskaran, U. Bondhugula, S. Krishnamoorthy, J. Ramanujam, A. Rountev and
P. Sadayappan, *Automatic Data Movement and Computation Mapping for Multi-level Parallel
Architectures with Explicitly Managed Memories*, PPoPP 2008 (Sections 3 and 4.3).

A program block is a list of statements, each with constant loop bounds and affine array
references written as text (``"A[i+j][j+1]"``). :func:`local_arrays` derives the
local-memory arrays (bounding boxes, Algorithm 2) and their move-in/move-out volumes;
:func:`integer_optimum` solves the tile-size problem of Section 4.3 exactly over the
integers (C++ enumeration with pruning) and :func:`relaxed_optimum` solves the relaxed
problem with SciPy's SLSQP and rounds it to the nearest integers, as the paper does;
:func:`compare` sets the two side by side. Every formula is evaluated by the C++ core
(``costmetrics._core.scratchpad``).

Examples
--------
>>> import costmetrics as cm
>>> [la.extents for la in cm.scratchpad.local_arrays(cm.scratchpad.figure1_block())]
[[19, 10], [19, 24]]
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml

from costmetrics import _convert, _core
from costmetrics._convert import integer as _as_int
from costmetrics._convert import real as _as_real
from costmetrics._core.scratchpad import (
    LocalArray,
    Reference,
    Statement,
    TileArray,
    TileEvaluation,
    TileProblem,
    TileSearchResult,
)
from costmetrics._record import Record, record
from costmetrics.presets import seed_values

__all__ = [
    "LocalArray",
    "Reading",
    "Reference",
    "RelaxedOptimum",
    "Statement",
    "TileArray",
    "TileComparison",
    "TileEvaluation",
    "TileProblem",
    "TileSearchResult",
    "compare",
    "evaluate_tiles",
    "figure1_block",
    "integer_optimum",
    "jacobi1d_problem",
    "load",
    "local_arrays",
    "me_problem",
    "movement_cost",
    "parse_reference",
    "powers_of_two",
    "relaxed_optimum",
    "statement",
    "tile_arrays",
    "tile_problem",
]


#: How local arrays are formed: one per array (Fig. 1) or one per overlapping partition
#: (Algorithm 2 read literally).
Reading = Literal["per_array", "per_partition"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_REF = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*((?:\[[^\[\]]*\]\s*)+)$")


def _as_str(value: object, name: str) -> str:
    return _convert.string(value, name)


def _loop_names(loops: object, what: str) -> list[str]:
    """Return ``loops`` as a list of distinct index names; a bare ``str`` is refused."""
    # "ij" would otherwise be split into ["i", "j"] silently.
    if isinstance(loops, (str, bytes)) or not isinstance(loops, Sequence):
        raise TypeError(
            f"{what}: expected a sequence of loop index names, got {_convert._describe(loops)}"
        )
    names = [_convert.string(v, f"{what}[{i}]") for i, v in enumerate(loops)]
    for i, name in enumerate(names):
        if not _NAME.fullmatch(name):
            raise ValueError(f"{what}[{i}]: {name!r} is not a loop index name")
        if name in names[:i]:
            raise ValueError(f"{what}[{i}]: duplicate loop index {name!r}")
    return names


def _affine(expr: str, loops: Sequence[str], what: str) -> tuple[list[int], int]:
    """Parse ``"2*i - j + 3"`` into coefficients over ``loops`` and a constant."""
    text = expr.replace(" ", "")
    if not text:
        raise ValueError(f"{what}: empty subscript")
    if text[0] not in "+-":
        text = "+" + text
    terms = re.findall(r"[+-][^+-]+", text)
    if "".join(terms) != text:
        raise ValueError(f"{what}: cannot parse subscript {expr!r}")
    coeffs = [0] * len(loops)
    const = 0
    for term in terms:
        sign = -1 if term[0] == "-" else 1
        body = term[1:]
        factors = body.split("*")
        if len(factors) > 2 or any(not f for f in factors):
            raise ValueError(f"{what}: cannot parse term {term!r} of {expr!r}")
        number = 1
        name: str | None = None
        for f in factors:
            # ASCII digits only: str.isdigit() also takes '²' (int() then fails) and
            # Arabic-Indic digits (int() reads them as numbers: 'A[٣*i]' was A[3*i]).
            if f.isascii() and f.isdigit():
                number *= int(f)
            elif _NAME.fullmatch(f):
                if name is not None:
                    raise ValueError(f"{what}: {expr!r} is not affine (product of indices)")
                name = f
            else:
                raise ValueError(f"{what}: cannot parse factor {f!r} of {expr!r}")
        if name is None:
            const += sign * number
        elif name in loops:
            coeffs[loops.index(name)] += sign * number
        else:
            raise ValueError(f"{what}: {name!r} is not a loop index (loops: {', '.join(loops)})")
    return coeffs, const


def parse_reference(text: str, loops: Sequence[str], *, write: bool = False) -> Reference:
    """Parse an affine array reference such as ``"A[i+j][j+1]"``.

    Parameters
    ----------
    text : str
        The reference: an array name followed by one ``[subscript]`` per dimension; each
        subscript is a sum of integer multiples of loop indices and integer constants.
    loops : sequence of str
        The loop indices, outermost first.
    write : bool
        Whether the reference writes the array.

    Returns
    -------
    Reference
        Coefficients (one row per dimension, one column per loop) and offsets.

    Raises
    ------
    ValueError
        For text that is not an affine reference over ``loops``, or ``loops`` holding a
        name twice or a string that is not an index name.
    TypeError
        If ``text`` is not a string, ``write`` not a bool, or ``loops`` not a sequence of
        strings (a bare ``str`` such as ``"ij"`` is not).
    """
    text = _as_str(text, "reference")
    names = _loop_names(loops, "loops")
    write = _convert.boolean(write, "write")
    m = _REF.match(text)
    if m is None:
        raise ValueError(f"reference {text!r}: expected NAME[subscript][subscript]...")
    subs = re.findall(r"\[([^\[\]]*)\]", m.group(2))
    rows, offsets = [], []
    for d, sub in enumerate(subs):
        c, k = _affine(sub, names, f"reference {text!r}, subscript {d}")
        rows.append(c)
        offsets.append(k)
    return Reference(array=m.group(1), write=write, coeffs=rows, offsets=offsets)


#: How the core's checks name a loop: by its position in a statement ("statement: loop 0
#: is empty ...") or in a tile problem's extents ("extents[0]: must be positive ...").
_CORE_LOOP = re.compile(r"statement: loop (\d+) ")
_CORE_EXTENT = re.compile(r"extents\[(\d+)\]")


def _loops(loops: object, what: str) -> dict[str, Any]:
    if not isinstance(loops, Mapping) or not loops:
        raise TypeError(f"{what}: expected a non-empty mapping of loop index names")
    for name in loops:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"{what}: {name!r} is not a loop index name")
    return dict(loops)


def _refs(
    loops: Sequence[str], writes: Sequence[str], reads: Sequence[str], what: str
) -> list[Reference]:
    refs: list[Reference] = []
    for kind, items in (("writes", writes), ("reads", reads)):
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise TypeError(f"{what}.{kind}: expected a list of references")
        refs += [parse_reference(r, loops, write=kind == "writes") for r in items]
    if not refs:
        raise ValueError(f"{what}: no array reference")
    return refs


def statement(
    loops: Mapping[str, tuple[int, int]],
    *,
    writes: Sequence[str] = (),
    reads: Sequence[str] = (),
) -> Statement:
    """Build a statement from its loops' inclusive bounds and its references.

    Parameters
    ----------
    loops : mapping of str to (int, int)
        Loop index name to ``(lower, upper)``, inclusive, outermost first.
    writes, reads : sequence of str
        Written and read references, e.g. ``["A[i][j+1]"]``.

    Returns
    -------
    Statement
        The statement (writes listed before reads).
    """
    lp = _loops(loops, "loops")
    lower, upper = [], []
    for name, bounds in lp.items():
        if not isinstance(bounds, Sequence) or len(bounds) != 2:
            raise TypeError(f"loops[{name!r}]: expected (lower, upper)")
        lower.append(_as_int(bounds[0], f"loops[{name!r}][0]"))
        upper.append(_as_int(bounds[1], f"loops[{name!r}][1]"))
    refs = _refs(list(lp), writes, reads, "statement")
    try:
        return Statement(lower=lower, upper=upper, refs=refs)
    except ValueError as exc:
        # The core checks the bounds but knows a loop only by its position ("statement:
        # loop 0 is empty ..."); the caller named it, so the message names it too.
        m = _CORE_LOOP.match(str(exc))
        if m is None:
            raise
        i = int(m.group(1))
        raise ValueError(
            f"loops[{list(lp)[i]!r}] = ({lower[i]}, {upper[i]}): the loop {str(exc)[m.end() :]}"
        ) from None


def local_arrays(
    statements: Sequence[Statement], *, reading: Reading = "per_array", max_points: int = 1 << 24
) -> list[LocalArray]:
    """Local-memory arrays of a program block (Section 3, Algorithm 2).

    Parameters
    ----------
    statements : sequence of Statement
        The block, e.g. :func:`figure1_block`.
    reading : {"per_array", "per_partition"}
        ``"per_array"``: one local array per original array, the bounding box of all its
        data spaces (reproduces Fig. 1). ``"per_partition"``: one per maximal set of
        overlapping data spaces (Algorithm 2 read literally).
    max_points : int
        Bound on the (statement instance, reference) pairs enumerated to decide overlaps
        and count distinct elements, in 1..``_core.scratchpad.MAX_ENUMERATION_POINTS``
        (2^24, the default: each distinct element is kept, about 150 bytes, so the cap
        keeps a call near 2.5 GB); above it ``ValueError``.

    Returns
    -------
    list of LocalArray
        Bounds, extents, size and move-in/move-out volumes (bounds of Sec. 3.1.3 and exact
        distinct-element counts).
    """
    statements = _convert.instances(statements, "statements", Statement)
    if reading not in ("per_array", "per_partition"):
        raise ValueError(f"reading must be 'per_array' or 'per_partition', got {reading!r}")
    return list(
        _core.scratchpad.local_arrays(list(statements), reading, _as_int(max_points, "max_points"))
    )


def movement_cost(
    occurrences: float,
    processes: float,
    sync_cost: float,
    volume_words: float,
    cost_per_word: float,
) -> float:
    """Return the data movement cost of Section 4.3: C = N ((P S) + V L / P).

    Parameters
    ----------
    occurrences : float
        N, the number of occurrences of the movement.
    processes : float
        P, inner-level processes (> 0).
    sync_cost : float
        S, synchronization cost per process per occurrence.
    volume_words : float
        V, words moved each time.
    cost_per_word : float
        L, cost of transferring one word.

    Returns
    -------
    float
        The cost, in the units of S and L.
    """
    return float(
        _core.scratchpad.movement_cost(
            _as_real(occurrences, "occurrences"),
            _as_real(processes, "processes"),
            _as_real(sync_cost, "sync_cost"),
            _as_real(volume_words, "volume_words"),
            _as_real(cost_per_word, "cost_per_word"),
        )
    )


def tile_problem(
    loops: Mapping[str, int],
    *,
    writes: Sequence[str] = (),
    reads: Sequence[str] = (),
    processes: float,
    sync_cost: float,
    cost_per_word: float,
    memory_limit_words: float,
    ceil_occurrences: bool = False,
) -> TileProblem:
    """Build the tile-size problem of Section 4.3.

    Parameters
    ----------
    loops : mapping of str to int
        Tiled loop index name to its index range N_l, outermost first. Within a tile the
        index runs over ``0 .. t_l - 1``; references are affine in these tile-local indices.
    writes, reads : sequence of str
        References of the tile's statements, e.g. ``"cur[i+k][j+l]"``.
    processes : float
        P, inner-level processes; also the lower bound on the product of the tile sizes.
    sync_cost : float
        S, synchronization cost per process per movement.
    cost_per_word : float
        L, cost per word moved.
    memory_limit_words : float
        M_up, local memory available to the tile (words).
    ceil_occurrences : bool
        Count ``ceil(N_l / t_l)`` movements instead of the paper's ``N_l / t_l``.

    Returns
    -------
    TileProblem
        The validated problem.
    """
    lp = _loops(loops, "loops")
    extents = [_as_int(v, f"loops[{k!r}]") for k, v in lp.items()]
    if not isinstance(ceil_occurrences, bool):
        raise TypeError("ceil_occurrences: expected a bool")
    refs = _refs(list(lp), writes, reads, "tile_problem")
    try:
        return TileProblem(
            extents=extents,
            refs=refs,
            processes=_as_real(processes, "processes"),
            sync_cost=_as_real(sync_cost, "sync_cost"),
            cost_per_word=_as_real(cost_per_word, "cost_per_word"),
            memory_limit_words=_as_real(memory_limit_words, "memory_limit_words"),
            ceil_occurrences=ceil_occurrences,
        )
    except ValueError as exc:
        # The core names a loop's range by position ("extents[0]: must be positive");
        # the caller gave it as loops[name].
        m = _CORE_EXTENT.match(str(exc))
        if m is None:
            raise
        raise ValueError(f"loops[{list(lp)[int(m.group(1))]!r}]{str(exc)[m.end() :]}") from None


def _tiles(problem: TileProblem, tiles: Sequence[float]) -> list[float]:
    if not isinstance(problem, TileProblem):
        raise TypeError(f"problem: expected a TileProblem, got {type(problem).__name__}")
    if isinstance(tiles, (str, bytes)) or not isinstance(tiles, (Sequence, np.ndarray)):
        raise TypeError("tiles: expected a sequence of numbers")
    return [_as_real(t, f"tiles[{i}]") for i, t in enumerate(tiles)]


def evaluate_tiles(problem: TileProblem, tiles: Sequence[float]) -> TileEvaluation:
    """Objective and constraints of Section 4.3 at given (integer or real) tile sizes.

    Parameters
    ----------
    problem : TileProblem
        The problem.
    tiles : sequence of float
        One tile size per loop, each >= 1.

    Returns
    -------
    TileEvaluation
        Cost, local memory, product and the constraint flags.
    """
    return _core.scratchpad.evaluate_tiles(problem, _tiles(problem, tiles))


def tile_arrays(problem: TileProblem, tiles: Sequence[float]) -> list[TileArray]:
    """Per-array terms of the objective at given tile sizes (arguments: :func:`evaluate_tiles`).

    Returns
    -------
    list of TileArray
        Placement r_j, occurrences, size M_j, volumes V_j and cost of each local array.
    """
    return list(_core.scratchpad.tile_arrays(problem, _tiles(problem, tiles)))


def powers_of_two(problem: TileProblem) -> list[list[int]]:
    """Candidate tile sizes 1, 2, 4, ... up to each loop's index range.

    Parameters
    ----------
    problem : TileProblem
        The problem.

    Returns
    -------
    list of list of int
        One list per loop, for :func:`integer_optimum`'s ``candidates``.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`TileProblem`.
    """
    if not isinstance(problem, TileProblem):
        raise TypeError(f"problem: expected a TileProblem, got {_convert._describe(problem)}")
    return [[2**e for e in range(int(math.log2(n)) + 1)] for n in problem.extents]


def integer_optimum(
    problem: TileProblem,
    *,
    candidates: Sequence[Sequence[int]] | None = None,
    max_points: int = 50_000_000,
    threads: int = 0,
) -> TileSearchResult:
    """Exact integer optimum of the tile-size problem (enumeration with pruning, C++).

    Parameters
    ----------
    problem : TileProblem
        The problem.
    candidates : sequence of sequence of int, optional
        Restrict each loop to these strictly increasing values (e.g.
        :func:`powers_of_two`), one list per loop; None (the default) means every integer
        1..N_l.
    max_points : int
        Refuse (OverflowError) to evaluate more tile vectors than this; in
        1..``_core.scratchpad.MAX_TILE_VECTORS`` (2^32, about 20 min on one core).
    threads : int
        Worker threads in [0, 1024] (0: all cores).

    Returns
    -------
    TileSearchResult
        The optimum (ties to the lexicographically smallest tiles) and search statistics.

    Raises
    ------
    TypeError
        If ``problem`` is not a :class:`TileProblem`, or an argument is not an integer or
        a sequence of them.
    ValueError
        If ``candidates`` does not have one non-empty, strictly increasing list per loop
        within 1..N_l, ``threads`` is outside [0, 1024] or ``max_points`` is outside
        1..2^32.
    OverflowError
        If the search would evaluate more than ``max_points`` tile vectors.
    """
    if not isinstance(problem, TileProblem):
        raise TypeError(f"problem: expected a TileProblem, got {type(problem).__name__}")
    cand: list[list[int]] = []
    if candidates is not None:
        if isinstance(candidates, (str, bytes)) or not isinstance(candidates, Sequence):
            raise TypeError("candidates: expected a sequence of sequences of integers")
        # The core reads an empty list as "no restriction"; only None means that here.
        if len(candidates) != len(problem.extents):
            raise ValueError(
                f"candidates: {len(candidates)} lists for {len(problem.extents)} loops"
            )
        for i, row in enumerate(candidates):
            if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
                raise TypeError(f"candidates[{i}]: expected a sequence of integers")
            cand.append(
                _convert.int_sequence(
                    row, f"candidates[{i}]", max_len=_core.scratchpad.MAX_CANDIDATES_PER_LOOP
                )
            )
    # Negative counts would mean "all cores" to the core; refuse them as simulate_sweep does.
    n_threads = _as_int(threads, "threads", lo=0, hi=1024)
    return _core.scratchpad.integer_optimum(
        problem, _as_int(max_points, "max_points"), n_threads, cand
    )


@record
class RelaxedOptimum(Record):
    """Solution of the relaxed (real-valued) problem and its rounding.

    Attributes
    ----------
    tiles : tuple of float
        The SLSQP solution.
    cost : float
        Its cost.
    rounded : tuple of int
        Each tile size rounded to the nearest integer (halves up), clipped to [1, N_l].
    rounded_evaluation : TileEvaluation
        Cost and constraints at the rounded tiles.
    converged : bool
        Whether SLSQP reported success at a feasible point.
    """

    tiles: tuple[float, ...]
    cost: float
    rounded: tuple[int, ...]
    rounded_evaluation: Any
    converged: bool


def relaxed_optimum(problem: TileProblem, *, starts: int = 4) -> RelaxedOptimum:
    """Solve the relaxed tile-size problem with SLSQP and round, as Section 4.3 does.

    The constraints are t_l in [1, N_l], the local-memory limit and prod t_l >= P
    (imposed on logarithms). SLSQP runs from ``starts`` points on the diagonal between
    (1, ..., 1) and (N_1, ..., N_m); the best feasible solution is kept, replaced by the
    point of the 1/8 grid next to it when that is feasible and costs no more (on a flat
    optimum, where SLSQP stops depends on the machine; this keeps the result reproducible).

    Parameters
    ----------
    problem : TileProblem
        The problem.
    starts : int
        Number of starting points (>= 1).

    Returns
    -------
    RelaxedOptimum
        The real solution and its rounding.

    Raises
    ------
    ValueError
        When no start converges to a feasible point.
    """
    from scipy.optimize import minimize

    if not isinstance(problem, TileProblem):
        raise TypeError(f"problem: expected a TileProblem, got {type(problem).__name__}")
    n_starts = _as_int(starts, "starts")
    if not 1 <= n_starts <= 64:
        raise ValueError(f"starts must be in [1, 64], got {n_starts}")
    upper = np.array(problem.extents, dtype=float)
    core = _core.scratchpad

    def ev(x: np.ndarray) -> Any:
        return core.evaluate_tiles(problem, [float(v) for v in np.clip(x, 1.0, upper)])

    m_up = problem.memory_limit_words
    log_p = math.log(problem.processes)
    constraints = [
        {"type": "ineq", "fun": lambda x: (m_up - ev(x).memory_words) / m_up},
        {"type": "ineq", "fun": lambda x: float(np.sum(np.log(np.clip(x, 1.0, upper)))) - log_p},
    ]
    best: tuple[float, np.ndarray] | None = None
    for s in range(n_starts):
        frac = (s + 1) / (n_starts + 1) * 0.5
        x0 = np.exp(np.log(upper) * frac)
        scale = max(ev(x0).cost, 1e-300)
        res = minimize(
            lambda x, scale=scale: ev(x).cost / scale,
            x0,
            method="SLSQP",
            bounds=[(1.0, float(u)) for u in upper],
            constraints=constraints,
            options={"maxiter": 500, "ftol": 1e-12},
        )
        x = np.clip(res.x, 1.0, upper)
        e = ev(x)
        ok = e.memory_words <= m_up * (1 + 1e-7) and e.product >= problem.processes * (1 - 1e-7)
        if ok and (best is None or e.cost < best[0]):
            best = (e.cost, x)
    if best is None:
        raise ValueError("relaxed_optimum: SLSQP found no feasible point from any start")
    cost, x = best
    # Where the relaxed optimum is flat (Jacobi-1D in place: every point of t1 + t2 = 511 costs
    # the same), where SLSQP stops depends on the machine's floating-point libraries: one
    # machine gave (255.501, 255.499), another (255.4999, 255.5001), which round differently.
    # A point on the 1/8 grid next to the solution that is feasible and costs no more is
    # taken instead, so that the reported optimum and its rounding are the same everywhere.
    snapped = np.clip(np.round(x * 8.0) / 8.0, 1.0, upper)
    e = ev(snapped)
    if (
        e.memory_words <= m_up * (1 + 1e-7)
        and e.product >= problem.processes * (1 - 1e-7)
        and e.cost <= cost * (1 + 1e-9)
    ):
        cost, x = e.cost, snapped
    rounded = tuple(
        int(min(max(math.floor(v + 0.5), 1), u)) for v, u in zip(x, problem.extents, strict=False)
    )
    return RelaxedOptimum(
        tiles=tuple(float(v) for v in x),
        cost=float(cost),
        rounded=rounded,
        rounded_evaluation=core.evaluate_tiles(problem, [float(v) for v in rounded]),
        converged=True,
    )


@record
class TileComparison(Record):
    """The paper's relaxed-and-rounded tiles beside the exact integer optimum.

    Attributes
    ----------
    relaxed : RelaxedOptimum
        SLSQP solution and its rounding.
    integer : TileSearchResult
        Exact integer optimum.
    rounded_feasible : bool
        Whether the rounded tiles satisfy every constraint.
    rounded_violates_memory : bool
        Whether rounding broke the local-memory limit.
    cost_gap : float
        Rounded cost / integer-optimal cost - 1 (negative when rounding is infeasible and
        cheaper than any feasible point).
    distance_linf : int
        Largest per-loop difference between the rounded and the optimal tiles.
    """

    relaxed: RelaxedOptimum
    integer: Any
    rounded_feasible: bool
    rounded_violates_memory: bool
    cost_gap: float
    distance_linf: int


def compare(problem: TileProblem, **search: Any) -> TileComparison:
    """Relaxed-and-rounded (Section 4.3) vs exact integer optimum of one problem.

    Parameters
    ----------
    problem : TileProblem
        The problem.
    **search : Any
        Passed to :func:`integer_optimum` (``max_points``, ``threads``).

    Returns
    -------
    TileComparison
        Both solutions and the rounding error.
    """
    relaxed = relaxed_optimum(problem)
    exact = integer_optimum(problem, **search)
    if not exact.found:
        raise ValueError("compare: no integer tile vector satisfies the constraints")
    rev = relaxed.rounded_evaluation
    return TileComparison(
        relaxed=relaxed,
        integer=exact,
        rounded_feasible=bool(rev.feasible),
        rounded_violates_memory=not rev.fits_memory,
        cost_gap=float(rev.cost / exact.cost - 1.0),
        distance_linf=max(abs(a - b) for a, b in zip(relaxed.rounded, exact.tiles, strict=False)),
    )


# --------------------------------------------------------------------------------------
# The seed's examples
# --------------------------------------------------------------------------------------


def figure1_block() -> list[Statement]:
    """Return the program block of Fig. 1 (two statements over arrays A and B).

    Returns
    -------
    list of Statement
        ``A[i][j+1] = A[i+j][j+1]*3`` over i, j in 10..14 and
        ``B[i][j+k] = A[i][k] + B[i+j][k]`` with k in 11..20.
    """
    ij = {"i": (10, 14), "j": (10, 14)}
    return [
        statement(ij, writes=["A[i][j+1]"], reads=["A[i+j][j+1]"]),
        statement({**ij, "k": (11, 20)}, writes=["B[i][j+k]"], reads=["A[i][k]", "B[i+j][k]"]),
    ]


#: What seed 004 prints for its experiments (``data/scratchpad/seed_values.yaml``).
_SEED = seed_values("scratchpad")


def me_problem(
    *,
    n_i: int = 64,
    n_j: int = 64,
    window: int = _SEED["me_window"],
    processes: float = _SEED["me_threads"],
    sync_cost: float = 1.0,
    cost_per_word: float = 1.0,
    memory_limit_words: float = 2048,
) -> TileProblem:
    """Return a reading of the Mpeg4 motion-estimation kernel of Figs. 2-3.

    The statement is not printed; this reads it as
    ``sad[i][j] += |cur[i+k][j+l] - ref[k][l]|`` over i < n_i, j < n_j, k, l < window.
    The defaults are one natural choice of the quantities the paper does not print
    (problem size, S, L; 2048 words = 16 KB shared by two 4-byte-word blocks per
    multiprocessor); P = 256 threads as in Section 6.

    Parameters
    ----------
    n_i, n_j : int
        Index ranges of the space loops i and j.
    window : int
        Index range of the k and l loops (16 in the paper).
    processes, sync_cost, cost_per_word, memory_limit_words : float
        P, S, L and M_up.

    Returns
    -------
    TileProblem
        Loops (i, j, k, l).
    """
    return tile_problem(
        {"i": n_i, "j": n_j, "k": window, "l": window},
        writes=["sad[i][j]"],
        reads=["sad[i][j]", "cur[i+k][j+l]", "ref[k][l]"],
        processes=processes,
        sync_cost=sync_cost,
        cost_per_word=cost_per_word,
        memory_limit_words=memory_limit_words,
    )


def jacobi1d_problem(
    *,
    time_steps: int = _SEED["jacobi_time_steps"],
    space: int = 8192,
    processes: float = _SEED["jacobi_threads"],
    sync_cost: float = 1.0,
    cost_per_word: float = 1.0,
    memory_limit_words: float = _SEED["jacobi_memory_words"],
) -> TileProblem:
    """Return a reading of the tiled Jacobi-1D kernel of Section 6 (code not printed).

    Two statements per time step, ``B[i] = f(A[i-1], A[i], A[i+1])`` and
    ``A[i] = f(B[i-1], B[i], B[i+1])``, skewed by 2 (S1 at i' = 2t + i, S2 at
    i' = 2t + i + 1) so that rectangular (t, i') tiles are legal. M_up = 512 words (2^11
    bytes) and 64 threads are the paper's; the space range per block (the problem size
    divided over 128 blocks), S and L are not printed.

    Parameters
    ----------
    time_steps : int
        Index range of the time loop t (4096 in the paper).
    space : int
        Index range of the skewed space loop per thread block.
    processes, sync_cost, cost_per_word, memory_limit_words : float
        P, S, L and M_up.

    Returns
    -------
    TileProblem
        Loops (t, i).
    """
    return tile_problem(
        {"t": time_steps, "i": space},
        writes=["B[i-2*t]", "A[i-2*t-1]"],
        reads=["A[i-2*t-1]", "A[i-2*t]", "A[i-2*t+1]", "B[i-2*t-2]", "B[i-2*t-1]", "B[i-2*t]"],
        processes=processes,
        sync_cost=sync_cost,
        cost_per_word=cost_per_word,
        memory_limit_words=memory_limit_words,
    )


def _nodes(text: str) -> yaml.Node | None:
    """Return the file's YAML node tree, for line numbers (None where it does not compose)."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:  # a JSON file YAML does not read: no line numbers
        return None


def _at(p: Path, root: yaml.Node | None, *keys: str | int) -> str:
    """Return ``"<file>, line <n>"`` for the node at ``keys``, else ``"<file>"``.

    ``keys`` are mapping keys and list indexes from the root; the file alone where the tree
    or the node is missing.
    """
    node = root
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            node = node.value[key] if 0 <= key < len(node.value) else None
        else:
            node = None
    return str(p) if node is None or not keys else f"{p}, line {node.start_mark.line + 1}"


#: What building a block or problem from a file's values raises for a bad file.
_FILE_ERRORS = (KeyError, ValueError, OverflowError, TypeError, AttributeError)


def _in_file(exc: Exception, where: str) -> Exception:
    """``exc`` with ``where`` (the file, line, statement) before its message.

    Bad values keep their kind (``ValueError``, ``OverflowError``); a missing key and a
    value of the wrong type (``TypeError``, ``AttributeError`` of a list given for a
    mapping) are a malformed file, ``ValueError``.
    """
    if isinstance(exc, KeyError):
        return ValueError(f"{where}: missing key {exc}")
    if isinstance(exc, OverflowError):
        return OverflowError(f"{where}: {exc}")
    return ValueError(f"{where}: {exc}")


def load(path: str | Path) -> list[Statement] | TileProblem:
    """Load a program block or a tile problem from a YAML or JSON file.

    A block is ``{"statements": [{"loops": {"i": [10, 14], ...}, "writes": [...],
    "reads": [...]}, ...]}``; a tile problem is ``{"loops": {"t": 4096, ...}, "writes":
    [...], "reads": [...], "processes": 64, "sync_cost": 1, "cost_per_word": 1,
    "memory_limit_words": 512}``.

    Parameters
    ----------
    path : str or Path
        A ``.json`` file, or a YAML file (any other suffix).

    Returns
    -------
    list of Statement or TileProblem
        What the file describes.

    Raises
    ------
    TypeError
        If ``path`` is not a str or Path.
    ValueError
        For a file that cannot be read (missing, a folder), is not UTF-8, or is malformed.
    """
    p, text = _convert.text_file(path, "path")
    try:
        data = json.loads(text) if p.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"{p}: not valid {'JSON' if p.suffix == '.json' else 'YAML'}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{p}: expected a mapping at the top level")
    nodes = _nodes(text)
    if "statements" in data:
        stmts = data["statements"]
        if not isinstance(stmts, list):
            raise ValueError(f"{_at(p, nodes, 'statements')}: 'statements' must be a list")
        block = []
        for k, s in enumerate(stmts):
            try:
                if not isinstance(s, dict):
                    raise TypeError("expected a mapping with loops, writes and reads")
                block.append(
                    statement(s["loops"], writes=s.get("writes", []), reads=s.get("reads", []))
                )
            except _FILE_ERRORS as exc:
                raise _in_file(exc, f"{_at(p, nodes, 'statements', k)}: statements[{k}]") from None
        return block
    try:
        known = {
            "loops",
            "writes",
            "reads",
            "processes",
            "sync_cost",
            "cost_per_word",
            "memory_limit_words",
            "ceil_occurrences",
        }
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"{p}: unknown keys {sorted(unknown)}")
        return tile_problem(
            data["loops"],
            writes=data.get("writes", []),
            reads=data.get("reads", []),
            processes=data["processes"],
            sync_cost=data["sync_cost"],
            cost_per_word=data["cost_per_word"],
            memory_limit_words=data["memory_limit_words"],
            ceil_occurrences=data.get("ceil_occurrences", False),
        )
    except _FILE_ERRORS as exc:
        # The line of the key the message starts with ("loops['t']: ...", "processes: ...").
        m = re.match(r"(\w+)(?:\['([^']*)'\])?", str(exc))
        keys = [] if m is None else [k for k in m.groups() if k is not None]
        raise _in_file(exc, _at(p, nodes, *keys)) from None
