"""Diagnostic: would a candidate model term fit the fitted machine variant better? (issue 21)

Refits the fitted ``machine`` variant leave-one-problem-out, as ``costmetrics validate``
does, once as shipped and once per candidate term, and prints the RMSE (all points, top
20%) per thread count, overall and per Heat 3D problem, and the candidate's value fitted
on every problem. A candidate is tried on the columns the model already has (the validate
module's internal design matrix, ``_machine_design``), without changing the model:

- ``seg3d-level``: Heat 3D's copy segments (its lines of ``s3`` words) cost per memory
  level of the arrays (a column per level) instead of the one ``l_seg_s`` shared with
  every stencil and level. The question: are Heat 3D's short lines at DRAM latency-bound
  where the 1D and 2D copies' long runs are not?
- ``xthread``: a cost per cache line of the problem's cross-section (``(S2 + 2)(S3 + 2) /
  16`` floats' lines, 1 in 1D) per wavefront and thread beyond the first, in every stencil:
  the words a thread reads that the other thread wrote at their blocks' boundary, which
  move between the cores' private caches. The question: is this why Heat 3D 30^3 (whose
  arrays fit in one core's L2) is slower at 2 threads than predicted?

- ``seg1d``: Jacobi 1D's copy segments (its rows' edge runs of one or two words and the
  spans of its first and last rows) cost ``l_seg_1d`` of their own instead of ``l_seg_s``.
- ``transfer1d``: one factor on the whole calibrated transfer of the 1D rows (words at
  every level, shared bandwidth, segments, shared lines), fitted. The question of both:
  does a 1D tile's copy run in the shadow of its compute (a tile's measured time close
  to its compute term alone, docs/validate.md, "Open")?
- ``no-transfer1d``: the same factor held at 0 (the 1D copies free), nothing fitted.
- ``blend-curve``: a per-word cost times ``f (1 - f)`` (``f`` the arrays' DRAM share,
  ``costmetrics.time.dram_share``), of either sign: a bend in the straight line by which
  the model blends the L3 and DRAM costs. The question: does the cost rise with the DRAM
  share more slowly than the line, so that Heat 3D 254^3 (``f`` 0.96) is under-charged by
  a fit that matches the problems with ``f`` near 0.3-0.7?
- ``line3d-l2``: a cost per 3D line where the arrays lie in a core's L2 (the level the
  model charges), on top of ``tau_line_3d_s``, held at 0 unless two training problems
  have their arrays there (as the DRAM-only terms). The question: is Heat 3D 30^3, the
  one consistent miss inside the L2 (predicted 0.93x at 1 thread), short of a line cost
  that the L3 and DRAM problems do not pay? With the levels sizes held out one at a
  time, 30^3 has one other L2 problem to learn from, so the term is held for it; what it
  moves is the fits that predict the L3 and DRAM problems. Tried as the model's
  ``tau_line_3d_l2_s`` in 434d6da and reverted (``docs/validate-log.md``, "The 3D line
  cost in L2: not kept").
- ``exposed-dram3d``: a cost per Heat 3D word from DRAM times the share of the row's
  calibrated time that is transfer, ``M / (M + C)`` (``M`` the words' calibrated cost at
  every level, ``C`` the calibrated C_iter term), fitted >= 0. The question: are the
  shallow tiles (``tT = 2``) of Heat 3D in DRAM, predicted at 0.6-0.8x, slow because their
  DRAM words are exposed where a deep tile's run in the shadow of its compute, a cost a
  sum of terms cannot tell apart? (``docs/validate-log.md``, "Heat 3D in DRAM: not the
  power-of-two pitch".)

History: ``prefetch-gap`` (Jacobi 1D: per tile of each thread, ``min(tS - 2, 320)`` words
the prefetcher streams into a wavefront's gap, times the DRAM share) was a candidate here
until it became the model's ``l_prefetch_s_per_word`` (8a16130; ``docs/validate-log.md``,
"Jacobi 1D's gaps in DRAM"). The script was ``bench_validate_line3d.py``, whose
candidate (a line cost of its own for 3D stencils) is now the model's ``tau_line_3d_s``
(``docs/validate-log.md``, "The 3D line cost, checked on a fresh run"). A term chosen this
way on a table is not validated by that table: it needs a run measured after it, and a
leave-one-problem-out score cannot learn a per-level term of a level only one problem
reaches (its column is then 0 in that fold and the term keeps its calibrated value).

``--l3-bytes N`` classes the problems' memory levels with N bytes of usable L3 in place of
the calibrations' (the copy knee's), a diagnostic of the L3/DRAM boundary.

Run: ``python benchmarks/bench_validate_terms.py [FOLDER ...] [--statistic min]`` on
folders holding ``sweep.csv`` and ``cal_1t/``, ``cal_2t/`` (or the older tables'
``calibration_1t/``, ``calibration_2t/``) (default: the
shipped ``quiet_run_2026-11-25_h4_line3d_levels``, L2 to DRAM); ``--quick`` is the same.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import time as cm_time
from costmetrics import validate as cv
from costmetrics.presets import data_dir

SHIPPED = data_dir() / "measurements" / "quiet_run_2026-11-25_h4_line3d_levels"
CANDIDATES = (
    "seg3d-level", "xthread", "seg1d", "transfer1d", "no-transfer1d", "blend-curve", "line3d-l2",
    "exposed-dram3d",
)  # fmt: skip


def _solve(
    a: np.ndarray,
    measured: np.ndarray,
    rows: np.ndarray,
    *,
    start: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    n_names: int,
    problem: np.ndarray,
    hold_last: bool = False,
) -> np.ndarray:
    # As validate's own fit: a level no training point streams from keeps its costs, and
    # the DRAM cost of 3D lines needs two problems in DRAM (the candidates' columns follow
    # the fit's own, so the index of that term is the same).
    bounds = cv._held_bounds(a, problem[rows], start, lower, upper, n_names)
    if hold_last:  # the candidate (the last column) needs as many problems as those terms
        bounds = cv._held_unless_informed(a[:, -1:], problem[rows], start, bounds, [a.shape[1] - 1])
    # The fit's own scales for its parameters at 0 (the C_iter share is not in seconds),
    # seconds for the candidates.
    zero_scale = np.full(a.shape[1], cv._ZERO_SCALE_S)
    own = cv._machine_zero_scale(n_names)
    zero_scale[: own.size] = own
    return cv._solve_bounded(a, measured, start, *bounds, zero_scale)


def scores(folder: Path, statistic: str, l3_bytes: int | None = None) -> list[str]:
    """Lines of the report: RMSE per thread count and Heat 3D problem, each fit."""
    cals = {
        n: c.with_statistic(statistic)
        for n, c in cv._calibrations(cv.run_folder_calibrations(folder)).items()
    }
    if l3_bytes is not None:  # after with_statistic, which derives the knee's L3 again
        cals = {
            n: dataclasses.replace(c, gpu=dataclasses.replace(c.gpu, cache_l3_bytes=l3_bytes))
            for n, c in cals.items()
        }
    t = mm.read_table(folder / "sweep.csv").per_point(statistic)
    # The frames of validate.fit: each thread count's own DRAM-share curve.
    frames = cv._machine_frames(cals)
    frame = frames[min(frames)]
    names = sorted({n for n in set(t.stencil) if n in frame.stencils})
    start = cv._machine_start(cals, frame, names)
    cols, ok = cv._machine_design(t, frames, names)
    n_lv = len(mm.MEMORY_LEVELS)
    lower, upper = cv._machine_bounds(start, names)  # the bounds of validate's own fit
    j = len(cv._MACHINE_FIT_HEAD) + len(names)  # l_seg_s
    is3 = np.asarray([s == "heat3d" for s in t.stencil])
    # The level the model charges (as _machine_design: the row's frame at its threads).
    here = [cv._nearest_threads(frames, int(n)) for n in t.threads]
    level = np.asarray([
        mm.MEMORY_LEVELS.index(cm_time.memory_level(
            here[i].stencils[t.stencil[i]], here[i].gpu.with_threads(int(t.threads[i])),
            t.sizes_of(i),
        ))
        for i in range(len(t))
    ])  # fmt: skip
    per_level = np.column_stack(
        [np.where(is3 & (level == k), cols[:, j], 0.0) for k in range(n_lv)]
    )
    split = np.column_stack([cols, per_level])
    split[is3, j] = 0.0
    # xthread: wavefronts (the T_sync column) x cross-section lines x (threads - 1).
    lines_xs = np.asarray([
        (s[1] + 2 if s[1] else 1) * (s[2] + 2 if s[2] else 1) / 16.0
        for s in (t.sizes[i] for i in range(len(t)))
    ])  # fmt: skip
    xthread = np.column_stack([cols, cols[:, n_lv + 1] * lines_xs * (t.threads - 1)])
    # The 1D rows' transfer columns: words per level, L_seg, shared bandwidth, shared lines.
    shares: dict[tuple[str, tuple[int, ...], int], float] = {}
    for i in range(len(t)):
        key = (t.stencil[i], t.sizes_of(i), int(t.threads[i]))
        if key not in shares:
            shares[key] = cm_time.dram_share(here[i].stencils[key[0]], here[i].gpu, key[1])
    f = np.asarray([shares[(t.stencil[i], t.sizes_of(i), int(t.threads[i]))]
                    for i in range(len(t))])  # fmt: skip
    bend = np.column_stack([cols, cols[:, :n_lv].sum(axis=1) * f * (1.0 - f)])
    is1 = np.asarray([s == "jacobi1d" for s in t.stencil])
    transfer = [*range(n_lv), j, *range(j + 1, j + 1 + n_lv), j + 3 + n_lv]
    seg1d = np.column_stack([cols, np.where(is1, cols[:, j], 0.0)])
    seg1d[is1, j] = 0.0
    moved = cols[:, transfer] @ start[transfer]
    transfer1d = np.column_stack([cols, np.where(is1, moved, 0.0)])
    transfer1d[np.ix_(is1, transfer)] = 0.0
    free1d = transfer1d[:, :-1]
    # line3d-l2: the 3D lines' column where the model charges the arrays at the L2 level.
    j_line3d = j + cv._MACHINE_FIT_TAIL.index("tau_line_3d_s")
    line3d_l2 = np.column_stack(
        [cols, np.where(is3 & (level == mm.MEMORY_LEVELS.index("L2")), cols[:, j_line3d], 0.0)]
    )
    # exposed-dram3d: Heat 3D's DRAM words times the transfer's share of the calibrated
    # transfer + compute (C_iter's columns are those after the head, one per stencil).
    transfer_s = cols[:, :n_lv] @ start[:n_lv]
    c_iter = slice(len(cv._MACHINE_FIT_HEAD), j)
    compute_s = cols[:, c_iter] @ start[c_iter]
    exposed = np.divide(
        transfer_s, transfer_s + compute_s, out=np.zeros(len(t)),
        where=transfer_s + compute_s > 0,
    )  # fmt: skip
    exposed_dram3d = np.column_stack([cols, np.where(is3, cols[:, n_lv - 1] * exposed, 0.0)])
    top = cv.top_mask(t)
    problems = sorted({(t.stencil[i], t.sizes_of(i)) for i in range(len(t)) if is3[i] or is1[i]})
    problem = cv._problem_index(t)
    lines = []
    for label, c, s, lo, up in (
        ("as shipped", cols, start, lower, upper),
        ("seg3d-level", split, np.append(start, [start[j]] * n_lv),
         np.append(lower, [cv._L_SEG_FLOOR_S] * n_lv), np.append(upper, [np.inf] * n_lv)),
        ("xthread", xthread, np.append(start, 1e-8), np.append(lower, 0.0),
         np.append(upper, np.inf)),
        ("seg1d", seg1d, np.append(start, start[j]), np.append(lower, 0.0),
         np.append(upper, np.inf)),
        ("transfer1d", transfer1d, np.append(start, 1.0), np.append(lower, 0.0),
         np.append(upper, np.inf)),
        ("no-transfer1d", free1d, start, lower, upper),
        ("blend-curve", bend, np.append(start, start[n_lv - 1]),
         np.append(lower, -10.0 * start[n_lv - 1]), np.append(upper, np.inf)),
        ("line3d-l2", line3d_l2, np.append(start, 0.0), np.append(lower, 0.0),
         np.append(upper, np.inf)),
        ("exposed-dram3d", exposed_dram3d, np.append(start, 0.0), np.append(lower, 0.0),
         np.append(upper, np.inf)),
    ):  # fmt: skip
        solve = functools.partial(
            _solve, start=s, lower=lo, upper=up, n_names=len(names), problem=problem,
            hold_last=label == "line3d-l2",
        )  # fmt: skip
        oos, _ = cv._leave_problem_out(t, c, ok, solve, with_rows=True)
        lines.append(f"  {label}:")
        for n in sorted({int(x) for x in t.threads}):
            m = (t.threads == n) & np.isfinite(oos)
            mt = m & top
            text = [f"all {100 * cv.relative_rmse(t.time_s[m], oos[m]):.1f}",
                    f"top {100 * cv.relative_rmse(t.time_s[mt], oos[mt]):.1f}"]  # fmt: skip
            for stencil, sizes in problems:
                h = m & np.asarray(
                    [t.stencil[i] == stencil and t.sizes_of(i) == sizes for i in range(len(t))]
                )
                if not h.any():
                    continue
                lv = mm.MEMORY_LEVELS[int(level[int(np.flatnonzero(h)[0])])]
                ratio = float(np.median(oos[h] / t.time_s[h]))
                text.append(f"{stencil} {'x'.join(map(str, sizes))} {lv} "
                            f"{100 * cv.relative_rmse(t.time_s[h], oos[h]):.1f}"
                            f" (x{ratio:.2f})")  # fmt: skip
            lines.append(f"    {n} thr: " + ", ".join(text))
        if label == "as shipped" or label == "no-transfer1d":
            continue
        theta = solve(c[ok], t.time_s[ok], ok)
        if label == "xthread":
            lines.append(f"    fitted on every problem: {theta[-1]:.3g} s per line")
        elif label == "seg1d":
            lines.append(f"    fitted on every problem: l_seg_1d {theta[-1]:.3g} s, "
                         f"l_seg_s of the others {theta[j]:.3g} s")  # fmt: skip
        elif label == "blend-curve":
            lines.append(f"    fitted on every problem: {theta[-1]:.3g} s per word x f (1 - f)")
        elif label == "line3d-l2":
            lines.append(f"    fitted on every problem: {theta[-1]:.3g} s per 3D line in L2, "
                         f"tau_line_3d_s {theta[j_line3d]:.3g} s")  # fmt: skip
        elif label == "exposed-dram3d":
            lines.append(f"    fitted on every problem: {theta[-1]:.3g} s per exposed Heat 3D "
                         f"DRAM word, l_s_per_word[DRAM] {theta[n_lv - 1]:.3g} s")  # fmt: skip
        elif label == "transfer1d":
            lines.append(f"    fitted on every problem: factor {theta[-1]:.3g} on the 1D "
                         "rows' calibrated transfer")  # fmt: skip
        else:
            values = ", ".join(
                f"{lv} {theta[-n_lv + k]:.3g}" for k, lv in enumerate(mm.MEMORY_LEVELS)
            )
            lines.append(f"    fitted on every problem: Heat 3D L_seg per level (s) {values}; "
                         f"l_seg_s of the others {theta[j]:.3g}")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="*", help="run folders (default: shipped)")
    parser.add_argument("--statistic", choices=list(mm.STATISTICS), default="median")
    parser.add_argument("--quick", action="store_true", help="the shipped folder (seconds)")
    parser.add_argument(
        "--l3-bytes", type=int, default=None,
        help="usable L3 for the memory levels (default: the calibrations')",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.l3_bytes is not None and args.l3_bytes < 0:
        parser.error(f"--l3-bytes must be >= 0, got {args.l3_bytes}")
    for folder in args.folders or [SHIPPED]:
        try:
            lines = scores(folder, args.statistic, args.l3_bytes)
        except (OSError, ValueError) as exc:
            print(f"bench_validate_terms: {exc}", file=sys.stderr)
            return 2
        print(f"{folder} ({args.statistic} over passes), fitted-machine, leave-one-problem-out:")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
