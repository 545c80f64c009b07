"""Figures and tables of the silicon-area model (thesis 000, Appendix C, Sec. C.2).

- Sec. C.2.3: the GTX 980 and Titan X, model (Eq. C.6 and Eq. C.7) vs published areas,
  with and without caches (Sec. C.4.1).
- Table C.2: the areas of the six printed designs.
- The area of the hardware space of Sec. C.3.2 (A_tot over nV for each nSM).

The notebook ``notebooks/04_area.ipynb`` calls these same functions.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from costmetrics import area as cm_area
from costmetrics._files import atomic_output
from costmetrics.codesign import TABLE_C2
from costmetrics.report import ExperimentResult, ReproducedValue

SOURCE = "000 App. C"
#: Table C.2 designs (nSM, nV, M_SM kB) and their printed areas (mm^2), from the one copy
#: of the table (``data/codesign/table_c2.csv``).
TABLE_C2_AREAS = {(n_sm, n_v, smem): area for n_sm, n_v, smem, area, _ in TABLE_C2.values()}


def validation_table(path: Path) -> Path:
    """Write the Sec. C.2.3 validation (model vs published) as CSV."""
    with atomic_output(path, newline="") as handle:
        w = csv.writer(handle)
        w.writerow(
            ["gpu", "caches", "eq_c6_mm2", "eq_c7_mm2", "published_mm2", "seed_mm2", "error_pct"]
        )
        for r in cm_area.validation():
            err = r.error_percent()
            w.writerow(
                [
                    r.gpu,
                    r.caches,
                    f"{r.structural_mm2:.3f}",
                    f"{r.rounded_mm2:.3f}",
                    "" if r.published_mm2 is None else r.published_mm2,
                    "" if r.seed_mm2 is None else r.seed_mm2,
                    "" if err is None else f"{err:.2f}",
                ]
            )
    return path


def plot_space_area() -> Figure:
    """A_tot (cache-less, Eq. C.6) over nV for several nSM and M_SM = 96 kB."""
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    n_v = np.arange(32, 2049, 32)
    for n_sm in (2, 4, 8, 16, 24, 32):
        ax.plot(n_v, cm_area.die_area(n_sm, n_v, 96), label=f"nSM = {n_sm}")
    ax.axhspan(200, 650, color="0.9", label="budget 200-650 mm$^2$")
    for g in cm_area.reference_gpus().values():
        ax.plot(g.n_v, g.area(caches=False), "k^")
        ax.annotate(f"{g.name} (no caches)", (g.n_v, g.area(caches=False)), fontsize=8)
    ax.set_xlabel("vector units per SM, nV")
    ax.set_ylabel("die area, mm$^2$ (Eq. C.6, no caches)")
    ax.set_ylim(0, 1400)
    ax.legend(fontsize=8)
    return fig


def run(out_dir: Path) -> ExperimentResult:
    """Produce the figures and tables of the area model into ``out_dir``."""
    result = ExperimentResult(name="area")
    result.files.append(validation_table(out_dir / "area_validation.csv"))
    path = out_dir / "area_space.png"
    result.save_figure(plot_space_area(), path)

    g980 = cm_area.reference_gpu("gtx980")
    titan = cm_area.reference_gpu("titanx")
    result.values += [
        ReproducedValue(
            "area",
            "GTX 980 area, Eq. C.6 [mm^2]",
            f"{SOURCE}.2.2",
            398,
            round(g980.area(), 2),
            f"published die; Eq. C.7 gives {g980.area(coefficients='rounded'):.2f}",
        ),
        ReproducedValue(
            "area",
            "Titan X area, model [mm^2]",
            f"{SOURCE}.2.3",
            589.2,
            round(titan.area(), 2),
            f"Eq. C.6; Eq. C.7 gives {titan.area(coefficients='rounded'):.2f}; "
            "neither reproduces 589.2 (docs/area.md)",
        ),
        ReproducedValue(
            "area",
            "Titan X model error vs 601 mm^2 [%]",
            f"{SOURCE}.2.3",
            1.96,
            round(abs(titan.area() - 601) / 601 * 100, 2),
            "Eq. C.6",
        ),
        ReproducedValue(
            "area",
            "GTX 980 without caches [mm^2]",
            f"{SOURCE}.4.1",
            237,
            round(g980.area(caches=False), 2),
        ),
        ReproducedValue(
            "area",
            "Titan X without caches [mm^2]",
            f"{SOURCE}.4.1",
            356,
            round(titan.area(caches=False), 2),
        ),
        ReproducedValue(
            "area",
            "alpha_oh from 102.65 mm^2 over 16 SMs [mm^2]",
            f"{SOURCE}.2.2",
            6.4156,
            round(cm_area.calibrate_die("gtx980").alpha_oh_mm2, 4),
        ),
    ]
    for (n_sm, n_v, smem), printed in TABLE_C2_AREAS.items():
        area = float(cm_area.die_area(n_sm, n_v, smem))
        result.values.append(
            ReproducedValue(
                "area",
                f"Table C.2 area of ({n_sm}, {n_v}, {smem} kB) [mm^2]",
                f"{SOURCE}, Table C.2",
                printed,
                math.floor(area),
                f"floor of {area:.2f} (Eq. C.6, no caches)",
            )
        )
    return result
