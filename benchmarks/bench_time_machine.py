"""Benchmark: cost of one ``machine``-variant evaluation against ``exact`` (issue 21).

``costmetrics.time.talg_batch`` over random feasible tiles, ns per evaluation, for the
``exact`` and ``machine`` variants on the same tiles, and their ratio (target: ``machine``
at most 2x ``exact``). Cases: Jacobi 1D, Heat 2D and Heat 3D on a CPU-like machine with
every machine term set (illustrative parameter values, not a calibration: only the cost of
an evaluation is measured here, not its accuracy), at an L2-sized and a DRAM-sized problem,
and Heat 2D on the GTX 980 preset (no machine terms, so both variants give the same
numbers). The two variants are timed in alternation, ``--repeat`` times each, and the
median is kept; the load average is printed beside every line (on a shared machine,
timings vary with it).

With ``--calibration DIR`` (a ``costmetrics calibrate`` folder), the cases are instead
that machine's own preset and stencils on the largest default problem of Jacobi 1D, Heat
2D and Heat 3D, the batch ``bench_validate_run.py`` times (there the median of 21 paired
ratios): the cost a user of that calibration pays. Each line then also gives the spread of the
per-repeat ratio (on a noisy host the median ratio moves by tenths between runs).

Instructions instead of time (they do not depend on the host's load): ``--one
LABEL:VARIANT`` evaluates that case's batch once on one thread and exits, for
``valgrind --tool=callgrind``; ``callgrind_annotate --inclusive=yes --threshold=100`` then
gives the instructions inclusive in ``costmetrics::time::evaluate_batch``: those of the
run with the variant less those of the run with ``none`` (the feasible tiles are drawn by
one batch too) are the batch's (divide by ``--tiles``). That needs a core with its
symbols, e.g. ``pip install . --config-settings=cmake.build-type=RelWithDebInfo
--config-settings=install.strip=false``. docs/time.md's counts: ``--calibration
data/measurements/noisy_run_2026-11-30_amd_budget_levels_b/calibration_2t --tiles 20000
--seed 0 --one heat2d:machine`` (the tiles ``bench_validate_run.py`` draws).

Run: ``python benchmarks/bench_time_machine.py [--repeat N] [--threads N]
[--calibration DIR] [--seed N] [--one LABEL:VARIANT] [--quick]`` (``--quick``: few tiles
and one repeat, for CI: checks that it runs, times nothing worth reporting).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

import costmetrics as cm
from costmetrics import measure as mm
from costmetrics import time as cm_time

#: A CPU-like machine (one tile per core, k = 1) with every machine term set. Values are
#: of the order the calibration measures on a 2-core AMD EPYC guest; illustrative only.
CPU = cm.Gpu(
    name="bench cpu", key="benchcpu", n_sm=2, n_v=4, smem_per_sm_bytes=524288,
    smem_per_block_bytes=524288, registers_per_sm=64, shared_memory_banks=1,
    max_blocks_per_sm=1, l_s_per_gb=0.04, tau_sync_s=1e-8, t_sync_s=4e-8,
    cache_l1_bytes=32768, cache_l2_bytes=1 << 20, cache_l3_bytes=32 << 20,
    l_seg_s=3e-9, l_level_s_per_word=(-2e-11, 0.0, 2e-11, 8e-11),
    l_shared_s_per_word=(0.0, 1e-12, 1e-11, 5e-11), tau_line_s=2e-9,
    t_barrier_per_thread_s=2e-8, t_share_line_s=5e-8, l_buffer_s_per_word=6e-11, threads_ref=2,
    t_cross_row_s=5e-8,
)  # fmt: skip
STENCILS = {
    1: cm.Stencil(name="bench j1d", key="benchj1d", n_space_dims=1, c_iter_s={"benchcpu": 7e-10}),
    2: cm.Stencil(name="bench h2d", key="benchh2d", n_space_dims=2, c_iter_s={"benchcpu": 1.4e-9}),
    3: cm.Stencil(name="bench h3d", key="benchh3d", n_space_dims=3, c_iter_s={"benchcpu": 2e-9}),
}  # fmt: skip
Case = tuple[str, cm.Stencil | str, cm.Gpu | str, tuple[int, ...]]
#: (label, stencil, machine, sizes): L2-sized and DRAM-sized problems.
CASES: list[Case] = [
    ("jacobi1d L2", STENCILS[1], CPU, (32768, 1024)),
    ("jacobi1d DRAM", STENCILS[1], CPU, (16_000_000, 256)),
    ("heat2d L2", STENCILS[2], CPU, (256, 256, 256)),
    ("heat2d DRAM", STENCILS[2], CPU, (8192, 8192, 512)),
    ("heat3d L2", STENCILS[3], CPU, (40, 40, 40, 64)),
    ("heat3d DRAM", STENCILS[3], CPU, (512, 512, 512, 64)),
    ("heat2d gtx980 (no terms)", "heat2d", "gtx980", (8192, 8192, 8192)),
]


def load() -> str:
    """The 1-minute load average and the core count."""
    one, _, _ = os.getloadavg()
    return f"load {one:.2f} on {os.cpu_count()} cores"


def feasible_tiles(
    stencil: object,
    gpu: object,
    sizes: tuple[int, ...],
    n: int,
    seed: int = 21,
    threads: int = 0,
) -> np.ndarray:
    """``n`` random feasible tiles of the default search space (seeded)."""
    dims = len(sizes) - 1
    grid = cm_time.default_search_space(dims).grid()
    ok = grid[cm_time.talg_batch(stencil, gpu, sizes, grid, variant="exact",  # type: ignore[arg-type]
                                 threads=threads).feasible]  # fmt: skip
    rng = np.random.default_rng(seed)
    return ok[rng.integers(0, len(ok), n)]


def evict_group_cache(
    stencil: object, gpu: object, sizes: tuple[int, ...], tiles: np.ndarray
) -> None:
    """Leave the calling thread's machine group cache cold for the next timed call.

    The machine variant keeps per-(tS1, tT) counts in a per-thread cache valid for one
    problem (``time_exact.cpp``, ``ClippedCache``). A batch on one thread runs on the
    calling thread, whose cache would still hold the previous repeat's groups, while
    worker threads start empty: one tile on another problem (``S1 + 1``) resets it, so
    that every timed call pays for its groups as a single call does.
    """
    other = (sizes[0] + 1, *sizes[1:])
    cm_time.talg_batch(stencil, gpu, other, tiles[:1], variant="machine", threads=1, terms=False)  # type: ignore[arg-type]


def calibration_cases(folder: str) -> list[Case]:
    """A calibration's own preset and stencils, on each stencil's largest default problem."""
    cal = mm.load_calibration(folder)
    return [
        (f"{name} {'x'.join(map(str, mm.DEFAULT_SIZES[name][-1]))}", cal.stencils[name], cal.gpu,
         mm.DEFAULT_SIZES[name][-1])
        for name in ("jacobi1d", "heat2d", "heat3d") if name in cal.stencils
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per variant")
    parser.add_argument("--threads", type=int, default=1, help="evaluation threads (0: all)")
    parser.add_argument("--tiles", type=int, default=100_000, help="tiles per case")
    parser.add_argument("--calibration", metavar="DIR",
                        help="time a calibration's own preset and stencils instead")  # fmt: skip
    parser.add_argument("--seed", type=int, default=21, help="seed of the random tiles")
    parser.add_argument("--one", metavar="LABEL:VARIANT",
                        help="evaluate one case's batch once (1 thread) and exit, for "
                             "callgrind; LABEL: a case's first word; VARIANT: exact, "
                             "machine or none")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="CI smoke: 2,000 tiles, 1 run")
    args = parser.parse_args(argv)
    repeat, n_tiles = (1, 2000) if args.quick else (args.repeat, args.tiles)
    cases = CASES if args.calibration is None else calibration_cases(args.calibration)
    if args.one is not None:
        one_label, _, one_variant = args.one.partition(":")
        # A case by its label with spaces as '_', or by its first word where that is unique.
        labels = {c[0].replace(" ", "_"): c for c in cases}
        firsts = [c[0].split()[0] for c in cases]
        labels |= {w: c for w, c in zip(firsts, cases, strict=True) if firsts.count(w) == 1}
        if one_label not in labels or one_variant not in ("exact", "machine", "none"):
            parser.error(f"--one: expected LABEL:VARIANT with LABEL one of {sorted(labels)} "
                         f"and VARIANT exact, machine or none, got {args.one!r}")  # fmt: skip
        chosen = [labels[one_label]]
        _, stencil, gpu, sizes = chosen[0]
        # (on this thread, as the batch: both calls in one entry of callgrind's output)
        tiles = feasible_tiles(stencil, gpu, sizes, n_tiles, args.seed, threads=1)
        if one_variant == "exact" or one_variant == "machine":
            cm_time.talg_batch(stencil, gpu, sizes, tiles, variant=one_variant, threads=1)
        return 0
    worst = 0.0
    print(f"talg_batch ns per evaluation (wall, and process CPU), {n_tiles} tiles, "
          f"{args.threads} thread(s), median of {repeat}")  # fmt: skip
    for label, stencil, gpu, sizes in cases:
        tiles = feasible_tiles(stencil, gpu, sizes, n_tiles, args.seed)
        times: dict[str, list[float]] = {"exact": [], "machine": []}
        cpu: dict[str, list[float]] = {"exact": [], "machine": []}
        results = {}
        for _ in range(repeat):
            for variant in ("exact", "machine"):  # alternate: both see the same load
                evict_group_cache(stencil, gpu, sizes, tiles)
                t0, c0 = time.perf_counter(), time.process_time()
                r = cm_time.talg_batch(
                    stencil,
                    gpu,
                    sizes,
                    tiles,
                    variant=variant,
                    threads=args.threads,
                    terms=False,
                )
                times[variant].append(time.perf_counter() - t0)
                cpu[variant].append(time.process_time() - c0)
                results[variant] = r.talg_s
        ns = {v: 1e9 * statistics.median(t) / n_tiles for v, t in times.items()}
        # The ratio of each repeat (the two variants timed back to back), its spread, on the
        # clock of `ratio` below.
        clock = cpu if args.threads == 1 else times
        per = [m / e for m, e in zip(clock["machine"], clock["exact"], strict=True)]
        ns_cpu = {v: 1e9 * statistics.median(t) / n_tiles for v, t in cpu.items()}
        # The ratio on process CPU time (with one evaluation thread it excludes the time
        # the process was descheduled, so it holds up better on a shared machine).
        ratio = (
            ns_cpu["machine"] / ns_cpu["exact"]
            if args.threads == 1
            else (ns["machine"] / ns["exact"])
        )
        worst = max(worst, ratio)
        same = np.array_equal(results["exact"], results["machine"])
        assert np.isfinite(results["machine"]).all()
        print(
            f"{label:<26} exact {ns['exact']:8.1f} (CPU {ns_cpu['exact']:8.1f})  machine "
            f"{ns['machine']:8.1f} (CPU {ns_cpu['machine']:8.1f})  ratio {ratio:4.2f}"
            f" [per repeat {min(per):.2f}-{max(per):.2f}]"
            f"{'  (bit-identical)' if same else ''}  [{load()}]"
        )
    print(f"largest machine / exact ratio: {worst:.2f} (target <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
