"""How far is the designed experiment from the best any 100 runs could do? (issue 16)

Analysis, not timing; SYNTHETIC candidates (``costmetrics.energy.synthetic_candidates()``,
1782 runs), 3% noise, expected 95% half-widths of the unbounded relative fit (what
``design`` reports). For three criteria (e_sr alone, e_iadd + e_imax alone, and the
criterion ``design`` uses) it compares the greedy + exchange choice of 100 distinct runs
with a lower bound: the optimum of the continuous relaxation (run weights in [0, 1]
summing to 100), found by Frank-Wolfe iterations (each step moves towards the 100 runs
with the largest gain; the relaxation is convex, so its optimum bounds every choice of
100 distinct runs from below). With replicates (a run measured more than once,
``design(..., replicates=True)``) the weights range over [0, 100]: the bound of that
problem is printed too, beside ``design``'s replicated choice. This is an analysis
script's check, not part of the package.

Run: ``python benchmarks/bench_energy_design_limits.py`` (a few seconds).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from costmetrics import energy as en

BUDGET = 100
SIGMA = 0.03
QUANTITIES = ("p_stat_w", "e_gs_j", "e_sr_j", "e_iadd_j + e_imax_j")


def relaxation(
    s: npt.NDArray[np.float64],
    ct: npt.NDArray[np.float64],
    floor2: float,
    iters: int = 3000,
    replicates: bool = False,
) -> npt.NDArray[np.float64]:
    """Weights in [0, 1] ([0, BUDGET] with replicates), sum BUDGET, minimizing
    sum_j log(c_j^T M(w)^-1 c_j + floor2)."""
    p = s.shape[1]
    eps = 1e-12 * float(np.max(np.sum(s * s, axis=0)))
    w = np.full(len(s), BUDGET / len(s))
    for it in range(iters):
        m_inv = np.linalg.inv(s.T @ (w[:, None] * s) + eps * np.eye(p))
        u = s @ (m_inv @ ct.T)
        var = np.einsum("ij,jk,ik->i", ct, m_inv, ct)
        gradient = -(u * u / (var + floor2)[None, :]).sum(axis=1)
        vertex = np.zeros(len(s))
        if replicates:  # the simplex's vertices: every run measured BUDGET times
            vertex[int(np.argmin(gradient))] = float(BUDGET)
        else:
            vertex[np.argsort(gradient)[:BUDGET]] = 1.0
        step = 2.0 / (it + 3.0)
        w = (1 - step) * w + step * vertex
    return w


def halfwidths(
    s: npt.NDArray[np.float64], c: npt.NDArray[np.float64], w: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Expected 95% half-widths with run weights w (inf where not identifiable)."""
    z_sigma = NormalDist().inv_cdf(0.975) * SIGMA
    keep = w > 1e-9  # runs the relaxation leaves out carry no information
    return en._rel_halfwidths(np.sqrt(w[keep])[:, None] * s[keep], c, z_sigma)


def main() -> int:
    cands = en.synthetic_candidates()
    ref = np.asarray([getattr(en.parameters("model_a"), n) for n in en.PARAM_NAMES])
    s = en._relative_sensitivity(cands.design, ref)
    names, c = en._quantities(cands.design, ref)
    index = [names.index(q) for q in QUANTITIES]
    z_sigma = NormalDist().inv_cdf(0.975) * SIGMA
    floor2 = (0.05 / z_sigma) ** 2
    criteria = {
        "e_sr alone": ([names.index("e_sr_j")], 0.0),
        "e_iadd + e_imax alone": ([names.index("e_iadd_j + e_imax_j")], 0.0),
        "design()'s criterion": (index, floor2),
    }
    print(f"SYNTHETIC candidates ({len(cands)} runs), {BUDGET} runs, {100 * SIGMA:g}% noise; "
          "expected 95% half-widths (%), unbounded fit:")  # fmt: skip
    print(f"{'criterion':24s} {'choice':32s} " + " ".join(f"{q:>20s}" for q in QUANTITIES))
    for label, (targets, f2) in criteria.items():
        ct = c[targets]
        best, rows = math.inf, np.zeros(0, dtype=np.int64)
        for ridge in (1e-8, 1e-6, 1e-4):
            start = en._greedy(s, ct, BUDGET, f2, ridge)
            chosen = en._exchange(s, ct, start, f2)
            hw = en._rel_halfwidths(s[chosen], ct, 1.0)
            value = float(np.sum(np.log(hw**2 + f2)))
            if value < best:
                best, rows = value, chosen
        w_rows = np.zeros(len(s))
        w_rows[rows] = 1.0
        relaxed = relaxation(s, ct, f2)
        w_rep = np.zeros(len(s))
        rep_rows = en._exchange(
            s, ct, en._greedy(s, ct, BUDGET, f2, 1e-8, replicates=True), f2, replicates=True
        )
        np.add.at(w_rep, rep_rows, 1.0)
        choices = (
            ("greedy + exchange", w_rows),
            ("relaxation (lower bound)", relaxed),
            ("replicated greedy + exchange", w_rep),
            ("relaxation, replicates (bound)", relaxation(s, ct, f2, replicates=True)),
        )
        for choice, w in choices:
            hw = halfwidths(s, c, w)[index]
            print(f"{label:24s} {choice:32s} " + " ".join(f"{100 * v:20.1f}" for v in hw))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
