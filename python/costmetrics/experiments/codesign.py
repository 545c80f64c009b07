"""Figures and tables of the codesign sweep (thesis 000, Appendix C, Sec. C.3-C.4).

- Fig. C.3: GFLOP/s of every feasible design over its area, 2D and 3D workloads, with the
  Pareto set and the GTX 980 / Titan X points.
- Sec. C.4.1: the improvement percentages over the reference GPUs, with and without caches.
- Table C.2: the best design per stencil in 425-450 mm^2, beside the seed's, and where the
  seed's designs rank under the same model.
- Fig. C.4: area shares of vector units and shared memory.
- The per-block shared-memory reading (C.10) and a reweighting example (Sec. C.4.2).

The notebook ``notebooks/05_codesign.ipynb`` calls these same functions.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from costmetrics import codesign as cd
from costmetrics._files import atomic_output
from costmetrics.presets import seed_values
from costmetrics.report import ExperimentResult, ReproducedValue

SOURCE = "000 App. C"
BAND = (425.0, 450.0)
_SEED = seed_values("codesign")
#: Sec. C.4.1: improvement (%) of the best design within each reference's area, by
#: (workload, reference, with caches) (``data/codesign/seed_values.yaml``).
SEED_IMPROVEMENTS: dict[tuple[str, str, bool], float] = {
    (kind, gpu, caches): float(
        _SEED[f"improvement_{kind}_{gpu}{'' if caches else '_cacheless'}_pct"]
    )
    for caches in (True, False)
    for kind in ("2d", "3d")
    for gpu in ("gtx980", "titanx")
}
#: Fig. C.3 caption: about 3000 (2D) and 2000 (3D) feasible designs.
SEED_DESIGN_COUNTS = {kind: int(_SEED[f"design_count_{kind}"]) for kind in ("2d", "3d")}


def run_sweeps(progress: bool = False, **kwargs: object) -> dict[str, cd.SweepResult]:
    """Run the two sweeps of Sec. C.4.1 (2D and 3D workloads, 200-650 mm^2).

    The seed's figures come from the published formulas: ``variant="paper"`` unless
    ``kwargs`` says otherwise.
    """
    options: dict[str, object] = {"variant": "paper", **kwargs}
    return {
        kind: cd.sweep(kind, progress=progress, **options)  # type: ignore[arg-type]
        for kind in ("2d", "3d")
    }


def plot_fig_c3(result: cd.SweepResult, title: str) -> Figure:
    """Fig. C.3: GFLOP/s over area; Pareto set in blue; the reference GPUs."""
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    perf = result.gflops()
    area = result.designs["area_mm2"]
    front = result.pareto()
    ax.scatter(area, perf, s=4, c="0.6", label=f"{len(result)} feasible designs")
    ax.plot(area[front], perf[front], "o-", ms=3, c="tab:blue", label=f"Pareto ({front.size})")
    for key, marker in (("gtx980", "s"), ("titanx", "^")):
        ref = result.references[key]
        g = result.reference_gflops(key)
        ax.plot(ref["area_mm2"], g, marker, c="tab:red", label=f"{ref['name']} (with caches)")
        ax.plot(ref["area_cacheless_mm2"], g, marker, mfc="none", c="tab:red",
                label=f"{ref['name']} (caches removed)")  # fmt: skip
    ax.set_xlabel("die area, mm$^2$")
    ax.set_ylabel("workload GFLOP/s (model)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    return fig


def plot_fig_c4(result: cd.SweepResult, title: str) -> Figure:
    """Fig. C.4: share of the area in vector units vs in shared memory."""
    fig = Figure(figsize=(6.4, 4.4), layout="constrained")
    ax = fig.add_subplot()
    shares = result.resource_allocation()
    front = result.pareto()
    ax.scatter(100 * shares["vector_units"], 100 * shares["shared_memory"], s=4, c="0.6")
    ax.scatter(
        100 * shares["vector_units"][front],
        100 * shares["shared_memory"][front],
        s=12,
        c="tab:blue",
        label="Pareto-optimal",
    )
    ax.set_xlabel("area in vector units (logic + registers), %")
    ax.set_ylabel("area in shared memory, %")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    return fig


@dataclass(frozen=True)
class TableC2Row:
    """Best design for one stencil in the band, beside the seed's Table C.2 row."""

    stencil: str
    n_sm: int
    n_v: int
    smem_kb: int
    area_mm2: float
    gflops: float
    tiles: tuple[int, ...]
    seed: tuple[int, int, int, int, int]
    seed_rank: int
    seed_gflops_model: float
    n_in_band: int

    @property
    def seed_loss_percent(self) -> float:
        """How much slower the seed's design is than the best, under the same model."""
        return (1.0 - self.seed_gflops_model / self.gflops) * 100.0


def table_c2(
    results: dict[str, cd.SweepResult], band: tuple[float, float] = BAND
) -> list[TableC2Row]:
    """Best design per stencil in the band (Sec. C.4.2) and the seed's design's rank."""
    rows = []
    for result in results.values():
        n_in_band = int(
            np.sum(
                (result.designs["area_mm2"] >= band[0]) & (result.designs["area_mm2"] <= band[1])
            )
        )
        for stencil in result.workload.stencils:
            best = result.best(band, stencil=stencil)
            seed = cd.TABLE_C2[stencil]
            seed_row = result.find(*seed[:3])
            rows.append(
                TableC2Row(
                    stencil=stencil,
                    n_sm=best.n_sm,
                    n_v=best.n_v,
                    smem_kb=best.smem_kb,
                    area_mm2=best.area_mm2,
                    gflops=best.gflops,
                    tiles=tuple(int(x) for x in best.tiles[0]),
                    seed=seed,
                    seed_rank=result.rank(seed_row, band, stencil=stencil),
                    seed_gflops_model=float(result.gflops({stencil: 1.0})[seed_row]),
                    n_in_band=n_in_band,
                )
            )
    return rows


def write_table_c2(rows: list[TableC2Row], path: Path) -> Path:
    """Write :func:`table_c2` as CSV."""
    with atomic_output(path, newline="") as handle:
        w = csv.writer(handle)
        w.writerow(
            ["stencil", "n_sm", "n_v", "smem_kb", "area_mm2", "gflops", "tiles_of_first_size",
             "seed_n_sm", "seed_n_v", "seed_smem_kb", "seed_area_mm2", "seed_gflops",
             "seed_design_rank", "seed_design_gflops_model", "seed_design_loss_pct", "n_in_band"]
        )  # fmt: skip
        for r in rows:
            w.writerow(
                [r.stencil, r.n_sm, r.n_v, r.smem_kb, f"{r.area_mm2:.2f}", f"{r.gflops:.1f}",
                 "x".join(map(str, r.tiles)), *r.seed, r.seed_rank,
                 f"{r.seed_gflops_model:.1f}", f"{r.seed_loss_percent:.1f}", r.n_in_band]
            )  # fmt: skip
    return path


def improvements(results: dict[str, cd.SweepResult]) -> list[tuple[str, cd.Improvement]]:
    """Sec. C.4.1 percentages for both workloads, references and cache settings."""
    out = []
    for kind, result in results.items():
        for ref in ("gtx980", "titanx"):
            for caches in (True, False):
                out.append((kind, result.improvement(ref, caches=caches)))
    return out


def block_reading_effect(band: tuple[float, float] = BAND) -> list[dict[str, object]]:
    """Best design per stencil in the band under each per-block shared-memory reading."""
    rows: list[dict[str, object]] = []
    for rule in ("half", "capped", "full"):
        for kind in ("2d", "3d"):
            r = cd.sweep(kind, band[0], band[1], block_smem=rule, variant="paper")
            for stencil in r.workload.stencils:
                row = r.best(None, stencil=stencil).row
                rows.append(
                    {
                        "block_smem": rule,
                        "stencil": stencil,
                        "n_sm": int(r.designs["n_sm"][row]),
                        "n_v": int(r.designs["n_v"][row]),
                        "smem_kb": int(r.designs["smem_kb"][row]),
                        "gflops": float(r.gflops({stencil: 1.0})[row]),
                    }
                )
    return rows


def run(out_dir: Path) -> ExperimentResult:
    """Produce the figures and tables of the codesign sweep into ``out_dir``."""
    result = ExperimentResult(name="codesign")
    sweeps = run_sweeps(progress=sys.stderr.isatty())
    for kind, r in sweeps.items():
        title = f"Fig. C.3 ({kind.upper()} stencils, paper variant)"
        result.save_figure(plot_fig_c3(r, title), out_dir / f"fig_c3_{kind}.png")
        title = f"Fig. C.4 ({kind.upper()} stencils)"
        result.save_figure(plot_fig_c4(r, title), out_dir / f"fig_c4_{kind}.png")
        result.files.append(r.save(out_dir / f"codesign_sweep_{kind}.npz"))
        front = r.pareto()
        result.values += [
            ReproducedValue(
                "codesign",
                f"feasible designs, {kind.upper()} workload",
                f"{SOURCE}, Fig. C.3",
                SEED_DESIGN_COUNTS[kind],
                len(r),
                "every design of the Sec. C.3.2 space in 200-650 mm^2 (Eq. C.6, no caches)",
            ),
            ReproducedValue(
                "codesign",
                f"Pareto-optimal share, {kind.upper()} [%]",
                f"{SOURCE}.4.1",
                1.0,
                round(100 * front.size / len(r), 2),
                f"{front.size} designs",
            ),
            ReproducedValue(
                "codesign",
                f"sweep time, {kind.upper()} [s]",
                f"{SOURCE}.3.2",
                "7-24 h per area budget (Bonmin)",
                round(r.elapsed_s, 2),
                f"{int(r.n_evaluated.sum()):,} of {int(r.n_feasible.sum()):,} tile "
                "evaluations, the rest pruned exactly",
                measured=True,
            ),
        ]
    for kind, im in improvements(sweeps):
        seed = SEED_IMPROVEMENTS[(kind, im.reference, im.caches)]
        d = sweeps[kind].designs
        i = im.best_index
        result.values.append(
            ReproducedValue(
                "codesign",
                f"improvement over {im.reference}{'' if im.caches else ' without caches'}, "
                f"{kind.upper()} [%]",
                f"{SOURCE}.4.1",
                seed,
                round(im.percent, 2),
                f"best design ({d['n_sm'][i]}, {d['n_v'][i]}, {d['smem_kb'][i]} kB) "
                f"{d['area_mm2'][i]:.1f} mm^2 <= {im.reference_area_mm2:.1f} mm^2",
            )
        )
    rows = table_c2(sweeps)
    result.files.append(write_table_c2(rows, out_dir / "table_c2.csv"))
    for row in rows:
        result.values.append(
            ReproducedValue(
                "codesign",
                f"Table C.2 {row.stencil}: best (nSM, nV, M_SM kB) in 425-450 mm^2",
                f"{SOURCE}, Table C.2",
                f"({row.seed[0]}, {row.seed[1]}, {row.seed[2]})",
                f"({row.n_sm}, {row.n_v}, {row.smem_kb})",
                f"seed's design ranks {row.seed_rank} of {row.n_in_band}, "
                f"{row.seed_loss_percent:.1f}% below the best under this model",
            )
        )
        result.values.append(
            ReproducedValue(
                "codesign",
                f"Table C.2 {row.stencil}: GFLOP/s",
                f"{SOURCE}, Table C.2",
                row.seed[4],
                round(row.gflops, 1),
                "not comparable: the seed's flop counts are not printed (docs/codesign.md)",
            )
        )
    effect = block_reading_effect()
    path = out_dir / "block_smem_readings.csv"
    with atomic_output(path, newline="") as handle:
        w = csv.DictWriter(handle, fieldnames=list(effect[0]))
        w.writeheader()
        w.writerows(effect)
    result.files.append(path)
    return result
