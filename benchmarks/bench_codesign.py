"""Benchmark: the full codesign sweep of thesis 000, App. C, and the vectorized time model.

Reports

- the wall and CPU time of the full sweep (both workloads, every design of the Sec. C.3.2
  space in 200-650 mm^2, every stencil and size, exact over every feasible tile), the model
  evaluations done and avoided by the exact pruning, and evaluations per second per core,
  next to the seed's 7-24 hours per area budget (Bonmin, 19 s per instance, Sec. C.3.2);
- with ``--exact``, the same full sweep with the ``exact`` time-model variant;
- ``costmetrics.time.talg_batch`` over 10^6 feasible 2D tiles, ns per evaluation (T_alg and
  the feasibility mask; with ``terms=True``, the default, the tiles are kept to compute the
  terms on first access, which copies the array), against a Python loop over
  ``costmetrics.time.breakdown``, what a user without the vectorized call would write.

The machine load (``os.getloadavg``) is printed beside each timing: on a shared machine,
wall times vary with it; CPU times less so.

Run: ``python benchmarks/bench_codesign.py [--exact] [--repeat N] [--quick]`` (``--quick``:
the 2D sweep over 425-450 mm^2, with ``--exact`` also the exact 2D sweep over 440-445 mm^2,
and 10^4 batch tiles, one repeat, as CI runs it). The issue-15 sweep target (exact, both
workloads, 200-650 mm^2, < 15 s on 2 cores) is the ``full sweep (2D + 3D, exact)`` line of
``--exact``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from costmetrics import codesign as cd
from costmetrics import time as cm_time


def load() -> str:
    """The 1-minute load average and the core count."""
    one, _, _ = os.getloadavg()
    return f"load {one:.2f} on {os.cpu_count()} cores"


def sweep_report(kind: str, variant: str, area: tuple[float, float]) -> tuple[float, int, int]:
    """Run one sweep; print and return (wall s, evaluations, feasible tiles)."""
    before = load()
    cpu0 = time.process_time()
    r = cd.sweep(kind, area[0], area[1], variant=variant)  # type: ignore[arg-type]
    cpu = time.process_time() - cpu0
    evaluated, feasible = int(r.n_evaluated.sum()), int(r.n_feasible.sum())
    print(
        f"{kind} {variant}: {len(r)} designs x {len(r.workload.instances)} instances in "
        f"{r.elapsed_s:.2f} s wall, {cpu:.2f} s CPU; tile evaluations {evaluated:,} done, "
        f"{feasible - evaluated:,} avoided ({100 * (1 - evaluated / feasible):.2f}%) of "
        f"{feasible:,}; {r.n_bounds:,} bounds; {evaluated / max(cpu, 1e-9) / 1e6:.1f} M "
        f"evaluations per CPU-second [{before}]"
    )
    return r.elapsed_s, evaluated, feasible


def batch_report(repeat: int, n_tiles: int = 1_000_000) -> None:
    """talg_batch over 10^6 feasible 2D tiles (Heat2D, GTX 980, S1 = S2 = T = 8192)."""
    sizes = (8192, 8192, 8192)
    grid = cm_time.default_search_space(2).grid()
    feasible = grid[cm_time.talg_batch("heat2d", "gtx980", sizes, grid, variant="paper").feasible]
    rng = np.random.default_rng(0)
    tiles = feasible[rng.integers(0, len(feasible), n_tiles)]
    for variant, n in (("paper", n_tiles), ("exact", n_tiles // 10)):
        rows = tiles[:n]
        n_loop = 2000
        w0 = time.perf_counter()
        for row in rows[:n_loop].tolist():
            cm_time.breakdown("heat2d", "gtx980", sizes, row, variant=variant)  # type: ignore[arg-type]
        loop_ns = 1e9 * (time.perf_counter() - w0) / n_loop
        print(f"Python loop over breakdown() {variant}: {loop_ns:.0f} ns/evaluation [{load()}]")
        for threads in (1, 0):
            for keep in (True, False):
                walls, cpus = [], []
                for _ in range(repeat):
                    w0, c0 = time.perf_counter(), time.process_time()
                    cm_time.talg_batch(
                        "heat2d",
                        "gtx980",
                        sizes,
                        rows,
                        variant=variant,
                        threads=threads,
                        terms=keep,
                    )  # type: ignore[arg-type]
                    walls.append(time.perf_counter() - w0)
                    cpus.append(time.process_time() - c0)
                batch_ns = 1e9 * min(walls) / n
                print(
                    f"talg_batch {variant} threads={threads or os.cpu_count()} terms={keep}: "
                    f"{batch_ns:.1f} ns/evaluation wall, {1e9 * min(cpus) / n:.1f} ns "
                    f"CPU ({n:,} feasible tiles), {loop_ns / batch_ns:.0f}x the Python loop "
                    f"[{load()}]"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exact", action="store_true", help="also the exact variant (slow)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a small sweep, one repeat (CI)")
    args = parser.parse_args()
    print("seed: 19 s per instance with Bonmin, 7-24 h per area budget (000 Sec. C.3.2)")
    if args.quick:
        paper, _, _ = sweep_report("2d", "paper", (425.0, 450.0))
        if args.exact:
            exact, _, _ = sweep_report("2d", "exact", (440.0, 445.0))
            print(f"quick sweeps (different bands): exact {exact:.2f} s, paper {paper:.2f} s")
        batch_report(1, n_tiles=10_000)
        return
    totals: dict[str, float] = {}
    for variant in ("paper", "exact") if args.exact else ("paper",):
        total = 0.0
        for kind in ("2d", "3d"):
            wall, _, _ = sweep_report(kind, variant, (200.0, 650.0))
            total += wall
        totals[variant] = total
        target = " (issue 15 target: < 15 s)" if variant == "exact" else ""
        print(f"full sweep (2D + 3D, {variant}): {total:.2f} s wall{target}")
    if args.exact:
        print(f"full sweep exact/paper: {totals['exact'] / totals['paper']:.1f}x")
    batch_report(args.repeat)


if __name__ == "__main__":
    main()
