"""Figures and tables of the scratchpad data-movement model (Baskaran et al., PPoPP 2008).

- Fig. 1: local arrays LA[19][10] and LB[19][24] and the volumes of the printed
  move-in/move-out loops; Algorithm 2 read literally beside it.
- Section 4.3 / 6: the tile-size problem for readings of the Mpeg4 ME and Jacobi-1D kernels,
  exact integer optimum beside SLSQP-rounded tiles and the paper's (32, 16, 16, 16) and
  (256, 32); which readings reproduce them (none of ours does) and where rounding breaks
  the local-memory limit.

The notebook ``notebooks/09_scratchpad.ipynb`` calls these same functions. The kernels'
statements, problem sizes, S and L are not printed in the seed: every reading is listed
with its choices, none tuned to the paper's tiles.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from costmetrics import _convert, _core
from costmetrics import scratchpad as cm_sp
from costmetrics._files import atomic_output
from costmetrics.presets import seed_values
from costmetrics.report import ExperimentResult, ReproducedValue

EXPERIMENT = "scratchpad"
SOURCE = "004"
_SEED = seed_values("scratchpad")
PAPER_ME_TILES: tuple[int, ...] = tuple(_SEED["me_tiles"])
#: (time, space): the paper's "space tile 256, time tile 32".
PAPER_JACOBI_TILES: tuple[int, ...] = tuple(_SEED["jacobi_tiles"])
#: (S, L) pairs tried for each reading: the seed prints neither.
COST_PAIRS = ((1.0, 1.0), (10.0, 1.0), (1.0, 10.0))
#: M_up readings for ME (words): 16 KB of 4-byte words shared by 2 blocks (2048) or whole (4096).
ME_MEMORY = (2048, 4096)
#: Jacobi-1D statement readings: two 3-point stencils (PolyBench jacobi-1d) or a stencil
#: and a copy (PolyBench 3 jacobi-1d-imper), both skewed by 2; or one array updated in
#: place (A[i] = f(A[i-1], A[i], A[i+1])), skewed by 1.
JACOBI_VARIANTS: dict[str, tuple[list[str], list[str]]] = {
    "in place": (["A[i-t]"], ["A[i-t-1]", "A[i-t]", "A[i-t+1]"]),
    "two stencils": (
        ["B[i-2*t]", "A[i-2*t-1]"],
        ["A[i-2*t-1]", "A[i-2*t]", "A[i-2*t+1]", "B[i-2*t-2]", "B[i-2*t-1]", "B[i-2*t]"],
    ),
    "stencil + copy": (
        ["B[i-2*t]", "A[i-2*t-1]"],
        ["A[i-2*t-1]", "A[i-2*t]", "A[i-2*t+1]", "B[i-2*t-1]"],
    ),
}


@dataclass(frozen=True)
class ReadingRow:
    """One reading of a seed kernel and what the search gives for it."""

    kernel: str
    reading: str
    integer_tiles: tuple[int, ...]
    integer_memory_words: float
    pow2_tiles: tuple[int, ...]
    relaxed_tiles: tuple[float, ...]
    rounded_tiles: tuple[int, ...]
    rounded_memory_words: float
    memory_limit_words: float
    cost_gap: float
    reproduces_paper: bool
    matches: str


def _row(kernel: str, reading: str, problem: Any, paper: tuple[int, ...]) -> ReadingRow:
    c = cm_sp.compare(problem)
    pow2 = cm_sp.integer_optimum(problem, candidates=cm_sp.powers_of_two(problem))
    integer = tuple(int(t) for t in c.integer.tiles)
    p2 = tuple(int(t) for t in pow2.tiles)
    return ReadingRow(
        kernel=kernel,
        reading=reading,
        integer_tiles=integer,
        integer_memory_words=c.integer.memory_words,
        pow2_tiles=p2,
        relaxed_tiles=tuple(round(t, 3) for t in c.relaxed.tiles),
        rounded_tiles=c.relaxed.rounded,
        rounded_memory_words=c.relaxed.rounded_evaluation.memory_words,
        memory_limit_words=problem.memory_limit_words,
        cost_gap=c.cost_gap,
        reproduces_paper=paper in (integer, p2, c.relaxed.rounded),
        matches=", ".join(
            name
            for name, tiles in (
                ("integer optimum", integer),
                ("powers-of-two optimum", p2),
                ("SLSQP rounded", c.relaxed.rounded),
            )
            if tiles == paper
        ),
    )


def me_readings() -> list[ReadingRow]:
    """Run the ME reading (:func:`costmetrics.scratchpad.me_problem`) over M_up and (S, L)."""
    rows = []
    for m_up in ME_MEMORY:
        for s, lc in COST_PAIRS:
            p = cm_sp.me_problem(memory_limit_words=m_up, sync_cost=s, cost_per_word=lc)
            rows.append(_row("Mpeg4 ME", f"M_up={m_up} S={s:g} L={lc:g}", p, PAPER_ME_TILES))
    return rows


#: Index range of the time loop in the tile problem: all 4096 steps, or 32 when the time
#: tile of the outer level is already fixed at 32 (as for the small problems of Sec. 6).
JACOBI_TIME_RANGES = (int(_SEED["jacobi_time_steps"]), PAPER_JACOBI_TILES[0])


def jacobi_problem(
    variant: str,
    sync_cost: float,
    cost_per_word: float,
    time_range: int = _SEED["jacobi_time_steps"],
) -> Any:
    """Jacobi-1D tile problem for one statement reading (loops (t, i), M_up = 512 words)."""
    writes, reads = JACOBI_VARIANTS[variant]
    return cm_sp.tile_problem(
        {"t": time_range, "i": 8192},
        writes=writes,
        reads=reads,
        processes=_SEED["jacobi_threads"],
        sync_cost=sync_cost,
        cost_per_word=cost_per_word,
        memory_limit_words=_SEED["jacobi_memory_words"],
    )


def jacobi_readings() -> list[ReadingRow]:
    """Every Jacobi-1D statement reading and time range over (S, L)."""
    return [
        _row(
            "Jacobi-1D",
            f"{variant}, time range {tr}, S={s:g} L={lc:g}",
            jacobi_problem(variant, s, lc, tr),
            PAPER_JACOBI_TILES,
        )
        for variant in JACOBI_VARIANTS
        for tr in JACOBI_TIME_RANGES
        for s, lc in COST_PAIRS
    ]


def write_readings_csv(rows: list[ReadingRow], path: Path) -> Path:
    """Write reading rows as CSV."""
    fields = list(ReadingRow.__dataclass_fields__)
    with atomic_output(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(fields)
        for r in rows:
            w.writerow([getattr(r, f) for f in fields])
    return path


def figure1_values() -> list[ReproducedValue]:
    """Fig. 1's local arrays and data-move volumes beside what the figure prints."""
    la, lb = cm_sp.local_arrays(cm_sp.figure1_block())
    src = f"{SOURCE} Fig. 1"
    out = [
        ReproducedValue(
            EXPERIMENT,
            "local array of A",
            src,
            "LA[19][10]",
            f"LA[{la.extents[0]}][{la.extents[1]}]",
            "per-array reading",
        ),
        ReproducedValue(
            EXPERIMENT,
            "local array of B",
            src,
            "LB[19][24]",
            f"LB[{lb.extents[0]}][{lb.extents[1]}]",
            "per-array reading",
        ),
    ]
    for what, seed, ours in (
        ("A words moved in (printed move-in loops: 50 + 25)", 75, la.move_in_exact_words),
        ("A words moved out (printed loop 5 x 5)", 25, la.move_out_exact_words),
        ("B words moved in (printed loop 9 x 10)", 90, lb.move_in_exact_words),
        ("B words moved out (printed loop 5 x 14)", 70, lb.move_out_exact_words),
    ):
        out.append(ReproducedValue(EXPERIMENT, what, src, seed, ours, "distinct elements"))
    out.append(
        ReproducedValue(
            EXPERIMENT,
            "A move-in upper bound of Sec. 3.1.3 (words)",
            f"{SOURCE} Sec. 3.1.3",
            None,
            la.move_in_bound_words,
            "boxes of the two disjoint read spaces: 5x10 + 9x5",
        )
    )
    parts = cm_sp.local_arrays(cm_sp.figure1_block(), reading="per_partition")
    out.append(
        ReproducedValue(
            EXPERIMENT,
            "local arrays with Algorithm 2 read literally (one per partition)",
            f"{SOURCE} Algorithm 2",
            None,
            ", ".join(f"L{p.array}{p.partition}{p.extents}" for p in parts),
            "conflicts with Fig. 1's single LA/LB; Fig. 1's reading is the default",
        )
    )
    return out


def reading_values(me: list[ReadingRow], jac: list[ReadingRow]) -> list[ReproducedValue]:
    """Paper tiles beside ours, and the rounding checks."""
    out = []
    for rows, paper, src, order in (
        (me, PAPER_ME_TILES, f"{SOURCE} Sec. 6 (Fig. 6)", "(i, j, k, l)"),
        (jac, PAPER_JACOBI_TILES, f"{SOURCE} Sec. 6 (Fig. 8)", "(time, space)"),
    ):
        for r in rows:
            if not r.reading.endswith("S=1 L=1"):
                continue  # the other (S, L) pairs are in the CSV files
            out.append(
                ReproducedValue(
                    EXPERIMENT,
                    f"{r.kernel} optimal tiles {order}, {r.reading}",
                    src,
                    str(paper),
                    f"{r.integer_tiles}; powers of 2: {r.pow2_tiles}; SLSQP rounded: "
                    f"{r.rounded_tiles}",
                    f"reproduces the paper: {r.matches}"
                    if r.reproduces_paper
                    else "does not reproduce",
                )
            )
    worst = max(me + jac, key=lambda r: r.rounded_memory_words - r.memory_limit_words)
    out.append(
        ReproducedValue(
            EXPERIMENT,
            f"rounded SLSQP tiles breaking the memory limit ({worst.kernel}, {worst.reading})",
            f"{SOURCE} Sec. 4.3",
            None,
            f"{worst.rounded_tiles}: {worst.rounded_memory_words:g} > "
            f"{worst.memory_limit_words:g} words",
            f"relaxed optimum {worst.relaxed_tiles}; integer optimum {worst.integer_tiles}",
        )
    )
    return out


def run(out_dir: Path) -> ExperimentResult:
    """Compute every scratchpad figure and table into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    result = ExperimentResult(name=EXPERIMENT)
    result.values += figure1_values()
    me, jac = me_readings(), jacobi_readings()
    result.values += reading_values(me, jac)
    result.files.append(write_readings_csv(me, out_dir / "me_readings.csv"))
    result.files.append(write_readings_csv(jac, out_dir / "jacobi1d_readings.csv"))
    p = jacobi_problem("two stencils", 1.0, 1.0)
    c = cm_sp.compare(p)
    fig = plot_landscape(
        p,
        limits=(160, 300),
        marks={
            "integer optimum": c.integer.tiles,
            "SLSQP": c.relaxed.tiles,
            "paper (256, 32)": PAPER_JACOBI_TILES,
        },
    )
    fig.axes[0].set_xlabel("time tile t")
    fig.axes[0].set_ylabel("space tile i")
    result.save_figure(fig, out_dir / "jacobi1d_landscape.png")
    q = cm_sp.me_problem()
    cq = cm_sp.compare(q)
    fig = plot_landscape(
        q,
        fixed=[1, 1, 15, 15],
        limits=(48, 48),
        marks={
            "integer optimum": cq.integer.tiles,
            "SLSQP": cq.relaxed.tiles,
            "rounded": cq.relaxed.rounded,
            "paper": PAPER_ME_TILES,
        },
    )
    fig.axes[0].set_title("ME reading: (t_i, t_j) at t_k = t_l = 15")
    result.save_figure(fig, out_dir / "me_landscape.png")
    return result


# ------------------------------------------------------------------ figures
# Every figure of the family is drawn here, in the experiment layer (docs/api-conventions.md,
# "Figures"); the library module computes the numbers.


def plot_landscape(
    problem: cm_sp.TileProblem,
    *,
    axes: tuple[int, int] = (0, 1),
    fixed: Sequence[float] | None = None,
    limits: tuple[int, int] | None = None,
    marks: Mapping[str, Sequence[float]] | None = None,
) -> Any:
    """Cost of the tile-size problem over two tile sizes, with the memory limit.

    Parameters
    ----------
    problem : TileProblem
        The problem.
    axes : (int, int)
        The two loops to vary (x, y).
    fixed : sequence of float, optional
        Tile sizes of every loop (those on ``axes`` are overwritten); default all 1.
    limits : (int, int), optional
        Largest tile size plotted on x and y; default the loops' index ranges, capped at 256.
    marks : mapping of str to sequence of float, optional
        Named tile vectors to mark (e.g. the integer optimum, the rounded SLSQP point).

    Returns
    -------
    matplotlib.figure.Figure
        log10(cost) as colour, infeasible points hatched out, the marks annotated.
    """
    from matplotlib.figure import Figure

    if not isinstance(problem, cm_sp.TileProblem):
        raise TypeError(f"problem: expected a cm_sp.TileProblem, got {type(problem).__name__}")
    ax0, ax1 = (_convert.integer(a, "axes[]") for a in axes)
    m = len(problem.extents)
    if not (0 <= ax0 < m and 0 <= ax1 < m and ax0 != ax1):
        raise ValueError(f"axes must be two different loops in [0, {m}), got {axes}")
    base = [1.0] * m if fixed is None else cm_sp._tiles(problem, fixed)
    lim = limits or (min(problem.extents[ax0], 256), min(problem.extents[ax1], 256))
    xs = np.arange(1, _convert.integer(lim[0], "limits[0]") + 1)
    ys = np.arange(1, _convert.integer(lim[1], "limits[1]") + 1)
    cost = np.full((len(ys), len(xs)), np.nan)
    for j, y in enumerate(ys):
        for i, x in enumerate(xs):
            t = list(base)
            t[ax0], t[ax1] = float(x), float(y)
            e = _core.scratchpad.evaluate_tiles(problem, t)
            if e.feasible:
                cost[j, i] = math.log10(e.cost)
    fig = Figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.add_subplot()
    im = ax.pcolormesh(xs, ys, cost, shading="nearest", cmap="viridis_r")
    fig.colorbar(im, ax=ax, label="log10(cost), feasible tiles only")
    for (name, mark), marker in zip((marks or {}).items(), ("*", "o", "s", "^", "D"), strict=False):
        ax.plot(
            [mark[ax0]],
            [mark[ax1]],
            marker,
            ms=10,
            mfc="none",
            mec="red",
            mew=1.5,
            ls="none",
            label=f"{name} {tuple(round(float(v), 2) for v in mark)}",
        )
    ax.set_xlabel(f"t[{ax0}]")
    ax.set_ylabel(f"t[{ax1}]")
    ax.legend(fontsize=7, loc="upper right")
    return fig
