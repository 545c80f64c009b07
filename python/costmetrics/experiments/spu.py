"""Figures and tables of the Stencil Processing Unit model (thesis 003, Chapters 3 and 6).

- Table 6.3: off-chip accesses with localized and global block synchronization.
- Eq. 3.8 beside the exact count with partial passes (N = 320).
- Tables 6.2 / A.1: blocks, threads, passes and the partial-pass flag of every test case.
- Sec. 6.3.4 and Table 6.4: the largest tile per CB size and the leakage ratios.
- Figures: off-chip accesses and dynamic energy vs N (GPU, SPU, lower bound) and the
  break-even SPU static power vs e_mem.

The notebook ``notebooks/08_spu.ipynb`` calls these same functions. Energy figures use
the GTX 980 micro-benchmark energies of thesis 000, Table B.2 (a different GPU than the
seed's simulated GTX 480): illustrative, not the seed's.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from costmetrics import _convert
from costmetrics import spu as cm_spu
from costmetrics._files import atomic_output
from costmetrics.report import ExperimentResult, ReproducedValue

EXPERIMENT = "spu"
SOURCE = "003"
#: Problem sizes of the figures (K = N).
NS = (128, 192, 256, 320, 384, 448, 512, 768, 1024, 2048)
#: Energy per flop and per off-chip access: thesis 000, Table B.2 (e_fadd, e_gs).
E_COMP_J = 5.3e-11
E_MEM_J = 2.2e-9
#: Assumed run times for the break-even figure (the seed's are simulated, not printed).
BREAK_EVEN_N = 512
BREAK_EVEN_TIMES_S = (1e-3, 1e-2, 1e-1)


def _value(quantity: str, source: str, seed: Any, ours: Any, note: str = "") -> ReproducedValue:
    return ReproducedValue(EXPERIMENT, quantity, f"{SOURCE} {source}", seed, ours, note)


def table_6_3_values(seed: dict[str, Any]) -> list[ReproducedValue]:
    """Table 6.3 rows: localized and global sync counts beside the printed ones."""
    out = []
    p = seed["grid_p"]
    for row in seed["table_6_3"]:
        n = row["n"]
        oc = cm_spu.off_chip(n, k=row["k"], tile=row["tile"], grid=p)
        out.append(
            _value(
                f"off-chip accesses, localized sync, N = {n}",
                "Table 6.3",
                row["localized_sync"],
                oc.spu_exact,
                "Eq. 3.8, p = 4, b = 32",
            )
        )
        g = cm_spu.global_sync(n, k=row["k"], tile=row["tile"], grid=p)
        if g.spilling_vius == 0:
            note = "single pass: no VIU"
        else:
            implied = cm_spu.spills_per_viu_from_accesses(
                row["global_sync"], n, k=row["k"], tile=row["tile"], grid=p
            )
            note = (
                f"Algorithm 1: {g.syncs_per_block} spills per VIU; "
                f"the printed count implies {implied:g}"
            )
        out.append(
            _value(
                f"off-chip accesses, global sync, N = {n}",
                "Table 6.3",
                row["global_sync"],
                g.accesses,
                note,
            )
        )
        if g.spilling_vius:
            g2 = cm_spu.global_sync(n, k=row["k"], tile=row["tile"], grid=p, extra_syncs_per_pass=2)
            out.append(
                _value(
                    f"off-chip accesses, global sync, N = {n}, 2 extra barriers per pass",
                    "Table 6.3",
                    row["global_sync"],
                    g2.accesses,
                    "24 = T_i + T_j + T_k spills per VIU (simulator observation, unexplained "
                    "in the seed)",
                )
            )
    return out


def configuration_values(seed: dict[str, Any]) -> list[ReproducedValue]:
    """Tables 6.2 and A.1: one row per test case, as 'blocks, threads, passes, partial'."""
    out = []
    for table, rows in (("Table 6.2", seed["table_6_2"]), ("Table A.1", seed["table_a_1"])):
        for r in rows:
            c = cm_spu.configuration(
                r["n"], k=r["k"], tile=r["tile"], grid=seed["grid_p"], subtile=r["subtile"]
            )
            ours = (
                f"{c.blocks_per_dim}x{c.blocks_per_dim} blocks, "
                f"{c.threads_per_dim}x{c.threads_per_dim} threads, "
                f"{c.passes_per_dim}x{c.passes_per_dim} passes, "
                f"partial {'yes' if c.partial_passes else 'no'}"
            )
            printed = (
                f"{r['blocks']}x{r['blocks']} blocks, {r['threads']}x{r['threads']} threads, "
                f"{r['passes']}x{r['passes']} passes, partial {'yes' if r['partial'] else 'no'}"
            )
            out.append(
                _value(
                    f"configuration {r['n']}x{r['n']}x{r['k']}, b = {r['tile']}",
                    table,
                    printed,
                    ours,
                )
            )
    return out


def other_values(seed: dict[str, Any]) -> list[ReproducedValue]:
    """Eq. 3.8 vs the exact count, CB tiles, occupancy and the Table 6.4 ratios."""
    oc = cm_spu.off_chip(320)
    out = [
        _value(
            "off-chip accesses, N = 320 (partial passes), Eq. 3.8 closed form",
            "Eq. 3.8",
            None,
            oc.spu_closed_form,
            "the seed prints no count for N = 320",
        ),
        _value(
            "off-chip accesses, N = 320, exact with ceil(N/(p b)) = 3 passes",
            "Eq. 3.8 / Table 6.2",
            None,
            oc.spu_exact,
            f"Eq. 3.8 undercounts by {oc.spu_exact - oc.spu_closed_form:,.0f} words",
        ),
        _value(
            "largest fraction of SMs busy in a partial pass, N = 320",
            "Sec. 6.1.2",
            seed["partial_pass_occupancy_n320"],
            cm_spu.configuration(320).partial_pass_max_occupancy,
            "seed: '<= 3/4'; SMs acting as IUs at the cut edge counted",
        ),
    ]
    for r in seed["cb_tile"]:
        out.append(
            _value(
                f"largest tile for a {r['cb_bytes'] // 1024} KB CB",
                "Sec. 6.3.4",
                r["tile"],
                cm_spu.max_tile_for_cb(r["cb_bytes"], seed["word_bytes"]),
            )
        )
    p = seed["leakage_power_w"]
    claims = seed["leakage_claims"]
    for key, value, ref, what in (
        ("spu_over_gpu", p["spu_cb4kb"], p["gtx480"], "SPU (4 KB CB) over GTX 480"),
        ("cb16_over_cb4", p["spu_cb16kb"], p["spu_cb4kb"], "16 KB CB over 4 KB CB"),
        ("dma_below_iu", p["spu_dma_cb4kb"], p["spu_cb4kb"], "DMA engines instead of IUs"),
    ):
        out.append(
            _value(
                f"leakage power change, {what}",
                "Table 6.4 / Sec. 7.2",
                claims[key],
                round(cm_spu.relative_change(value, ref), 4),
                f"{value} W vs {ref} W (fixes the garbled Table 6.4)",
            )
        )
    out.append(
        _value(
            "execution times, dynamic powers and energies (Figs. 6.1-6.5, 7.1, A.1, A.2)",
            "Ch. 6",
            "simulated (SPU-Sim, GPGPU-Sim)",
            "not recomputable",
            "cycle-level simulator outputs; only Eq. 6.1 is implemented",
        )
    )
    return out


def write_sweep_csv(path: Path) -> Path:
    """Write the off-chip access sweep over :data:`NS` as CSV."""
    s = cm_spu.sweep(NS)
    columns = s._asdict()
    with atomic_output(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(list(columns))
        for i in range(len(s.n)):
            w.writerow([int(v[i]) if k == "n" else f"{v[i]:.10g}" for k, v in columns.items()])
    return path


def break_even_figure(seed: dict[str, Any]) -> Any:
    """Plot the break-even SPU static power vs e_mem at N = 512 for assumed run times."""
    p = seed["leakage_power_w"]
    return plot_break_even(
        BREAK_EVEN_N,
        [10 ** (e / 10) * 1e-10 for e in range(0, 31)],
        static_power_gpu_w=p["gtx480"],
        times_s=BREAK_EVEN_TIMES_S,
        leakage_marks_w={
            "SPU 4 KB CB (79.1 W)": p["spu_cb4kb"],
            "SPU with DMA (66.8 W)": p["spu_dma_cb4kb"],
            "GTX 480 (46.4 W)": p["gtx480"],
        },
    )


def run(out_dir: Path) -> ExperimentResult:
    """Compute every SPU figure and table into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    seed = cm_spu.load_seed()
    result = ExperimentResult(name=EXPERIMENT)
    result.values += table_6_3_values(seed)
    result.values += other_values(seed)
    result.values += configuration_values(seed)
    result.files.append(write_sweep_csv(out_dir / "offchip_vs_n.csv"))
    for name, fig in (
        ("offchip_vs_n.png", plot_accesses(NS)),
        ("energy_vs_n.png", plot_energy(NS, e_comp_j=E_COMP_J, e_mem_j=E_MEM_J)),
        ("break_even_static_power.png", break_even_figure(seed)),
    ):
        result.save_figure(fig, out_dir / name)
    return result


# ------------------------------------------------------------------ figures
# Every figure of the family is drawn here, in the experiment layer (docs/api-conventions.md,
# "Figures"); the library module computes the numbers.


def _log_log_axes(x_base: int) -> tuple[Figure, Any]:
    """Return the figure and axes the plots below share: log x (base ``x_base``), log y."""
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log", base=x_base)
    ax.set_yscale("log")
    return fig, ax


def _finish(fig: Figure, ax: Any, xlabel: str, ylabel: str, title: str) -> Figure:
    """Label the axes, title them and add the legend; return the figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return fig


def plot_accesses(ns: Sequence[int], *, tile: int = 32, grid: int = 4) -> Figure:
    """Off-chip accesses vs N for GPU, SPU and the lower bound (Eqs. 3.3, 3.8, 6 N^2).

    Parameters
    ----------
    ns : sequence of int
        Problem sizes N (K = N).
    tile, grid : int
        b and p.

    Returns
    -------
    matplotlib.figure.Figure
        Exact counts as lines, the printed closed forms as markers.
    """
    s = cm_spu.sweep(ns, tile=tile, grid=grid)
    fig, ax = _log_log_axes(2)
    ax.plot(s.n, s.gpu_exact, "-", color="tab:red", label="GPU, exact")
    ax.plot(s.n, s.gpu_closed_form, "x", color="tab:red", label="GPU, Eq. 3.3")
    ax.plot(s.n, s.spu_exact, "-", color="tab:blue", label=f"SPU {grid}x{grid}, exact")
    ax.plot(s.n, s.spu_closed_form, "o", mfc="none", color="tab:blue", label="SPU, Eq. 3.8")
    ax.plot(s.n, s.lower_bound, "--", color="0.3", label="lower bound 6N²")
    return _finish(
        fig,
        ax,
        "N (N x N x N iteration space)",
        "off-chip accesses (words)",
        f"Off-chip accesses, b = {tile}",
    )


def plot_energy(
    ns: Sequence[int], *, e_comp_j: float, e_mem_j: float, tile: int = 32, grid: int = 4
) -> Figure:
    """Dynamic energy (compute + memory, Eq. 3.5) vs N for GPU, SPU and the lower bound.

    Static energy needs execution times, which only the seed's simulators produce; it is
    left out.

    Parameters
    ----------
    ns : sequence of int
        Problem sizes N (K = N).
    e_comp_j, e_mem_j : float
        Energy per flop and per off-chip access (J).
    tile, grid : int
        b and p.

    Returns
    -------
    matplotlib.figure.Figure
        Stacked compute / memory energy per platform.
    """
    s = cm_spu.sweep(ns, tile=tile, grid=grid)
    fig, ax = _log_log_axes(2)
    for key, label, color in (
        ("gpu_exact", "GPU", "tab:red"),
        ("spu_exact", f"SPU {grid}x{grid}", "tab:blue"),
        ("lower_bound", "lower bound", "0.3"),
    ):
        total = [
            cm_spu.energy_split(
                f, a, e_comp_j=e_comp_j, e_mem_j=e_mem_j, static_power_w=0.0, time_s=1.0
            ).dynamic_j  # dynamic energy does not depend on the time
            for f, a in zip(s.flops, getattr(s, key), strict=False)
        ]
        ax.plot(s.n, total, "-o", ms=3, color=color, label=f"{label}: compute + memory")
    compute = [float(f) * e_comp_j for f in s.flops]
    ax.plot(s.n, compute, ":", color="k", label="compute only, 3N³ e_comp")
    title = f"Eq. 3.5 dynamic energy, e_comp = {e_comp_j:.3g} J, e_mem = {e_mem_j:.3g} J"
    return _finish(fig, ax, "N", "dynamic energy (J)", title)


def plot_break_even(
    n: int,
    e_mem_j: Sequence[float],
    *,
    static_power_gpu_w: float,
    times_s: Sequence[float],
    tile: int = 32,
    grid: int = 4,
    leakage_marks_w: dict[str, float] | None = None,
) -> Figure:
    """Break-even SPU static power vs energy per off-chip access, for assumed run times.

    Parameters
    ----------
    n : int
        Problem size N (K = N).
    e_mem_j : sequence of float
        Energies per access to plot (J).
    static_power_gpu_w : float
        The GPU's static power (W).
    times_s : sequence of float
        Assumed execution times (s), equal on both platforms; one curve each.
    tile, grid : int
        b and p.
    leakage_marks_w : dict of str to float, optional
        Horizontal reference lines (e.g. the seed's modelled SPU leakage powers).

    Returns
    -------
    matplotlib.figure.Figure
        One curve per assumed time.
    """
    oc = cm_spu.off_chip(n, tile=tile, grid=grid)
    fig, ax = _log_log_axes(10)
    xs = [_convert.real(e, "e_mem_j[]") for e in e_mem_j]
    for t in times_s:
        ys = [
            cm_spu.break_even_static_power_w(
                oc.gpu_exact,
                oc.spu_exact,
                e_mem_j=e,
                static_power_gpu_w=static_power_gpu_w,
                time_gpu_s=t,
                time_spu_s=t,
            )
            for e in xs
        ]
        ax.plot(np.array(xs) * 1e9, ys, label=f"t = {t:.3g} s (assumed)")
    for (name, watts), ls in zip(
        (leakage_marks_w or {}).items(), ("--", ":", "-.", (0, (1, 3))), strict=False
    ):
        ax.axhline(watts, color="0.4", ls=ls, lw=0.9, label=name)
    return _finish(
        fig,
        ax,
        "e_mem (nJ per off-chip access)",
        "break-even SPU static power (W)",
        f"N = {n}: SPU saves {oc.gpu_exact - oc.spu_exact:,} accesses",
    )
