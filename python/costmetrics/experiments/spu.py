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
from pathlib import Path
from typing import Any

from costmetrics import spu as cm_spu
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
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(list(columns))
        for i in range(len(s.n)):
            w.writerow([int(v[i]) if k == "n" else f"{v[i]:.10g}" for k, v in columns.items()])
    return path


def break_even_figure(seed: dict[str, Any]) -> Any:
    """Plot the break-even SPU static power vs e_mem at N = 512 for assumed run times."""
    p = seed["leakage_power_w"]
    return cm_spu.plot_break_even(
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
        ("offchip_vs_n.png", cm_spu.plot_accesses(NS)),
        ("energy_vs_n.png", cm_spu.plot_energy(NS, e_comp_j=E_COMP_J, e_mem_j=E_MEM_J)),
        ("break_even_static_power.png", break_even_figure(seed)),
    ):
        fig.savefig(out_dir / name, dpi=120)
        result.files.append(out_dir / name)
    return result
