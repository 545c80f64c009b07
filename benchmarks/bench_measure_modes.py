"""Where the two modes of 2-thread run times come from (issue 21, docs/validate.md).

The 2-thread runs of the protocol tables fall in two modes: most within 5% of their
point's minimum, a share (4-36% per table) at 1.3-2x of it. This script measures, in
interleaved shuffled passes (the protocol of ``costmetrics measure``), the run-to-run
distribution of:

- ``compute 1t`` / ``compute 2t``: the compute micro-benchmark of ``calibrate`` (Heat 2D
  on a buffer in L1, no copies, no barrier inside a timed run) on one and on two threads;
- ``harness 1t`` / ``harness 2t``: one tiled Heat 2D run of the harness (254 x 254 x 64,
  tile (8, 64, 8), the block schedule);
- ``compute 1t + spinner``: the one-thread compute benchmark on CPU 0 while a process
  spins on CPU 1 (no memory traffic): whether a busy sibling core alone slows a thread;
- ``compute 1t on CPU 1``: the one-thread compute benchmark alone on the second allowed
  CPU (the process's affinity narrowed to it for the run): whether that CPU is slower by
  itself, or only when both run.

For each kind it prints the share of runs within 5% of the kind's minimum, between 5%
and 30%, at 1.3-2x, above 2x, the median over the minimum, and the median itself (ns per
vector for the compute kinds, ms per run for the harness), so that kinds can be compared
with each other: the compute kinds do the same work per thread. If compute-only runs show
the slow mode at 2 threads, the cause is not the harness's copies or barriers but how the
host runs the two virtual CPUs at once.

Then :func:`costmetrics.measure.probe_cpus`: a throughput-bound kernel alone on each CPU
and on both at once, and the stalls of each CPU while both spin.

Run: ``python benchmarks/bench_measure_modes.py [--passes N] [--seed S]`` (default 60
passes, about 1-2 minutes; ``--quick``: 3 passes). Nothing is written. Needs 2 CPUs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from costmetrics import _core
from costmetrics import measure as mm


def _kinds() -> dict[str, Callable[[], float]]:
    def compute(threads: int) -> Callable[[], float]:
        return lambda: float(_core.measure.bench_compute("heat2d", threads, 4, 1, 0, True).value_s)

    def harness(threads: int) -> Callable[[], float]:
        return lambda: float(
            mm.run(
                "heat2d",
                (254, 254, 64),
                (8, 64, 8),
                threads=threads,
                repeats=1,
                warmup=1,
                pin=True,
                check=False,
                schedule="block",
            ).time_min_s
        )

    def compute_on_second_cpu() -> float:
        saved = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {sorted(saved)[1]})
        try:
            return float(_core.measure.bench_compute("heat2d", 1, 4, 1, 0, False).value_s)
        finally:
            os.sched_setaffinity(0, saved)

    return {
        "compute 1t": compute(1),
        "compute 2t": compute(2),
        "harness 1t": harness(1),
        "harness 2t": harness(2),
        "compute 1t + spinner": compute(1),
        "compute 1t on CPU 1": compute_on_second_cpu,
    }


def _spinner() -> subprocess.Popen[bytes]:
    """A process spinning on the second allowed CPU (no memory traffic)."""
    cpu = sorted(os.sched_getaffinity(0))[1]
    code = f"import os\nos.sched_setaffinity(0, {{{cpu}}})\nwhile True:\n    pass\n"
    return subprocess.Popen([sys.executable, "-c", code])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="3 passes (smoke run)")
    parser.add_argument(
        "--correlate",
        type=int,
        default=0,
        metavar="N",
        help="then N rounds of (the probe kernel on every CPU at once, one harness run on "
        "every CPU, the compute benchmark on every CPU) back to back: their correlation",
    )
    args = parser.parse_args(argv)
    passes = 3 if args.quick else args.passes
    if not 3 <= passes <= 10_000:
        print(f"bench_measure_modes: --passes: must be in [3, 10000], got {passes}",
              file=sys.stderr)  # fmt: skip
        return 2
    if not 0 <= args.correlate <= 100_000:
        print(f"bench_measure_modes: --correlate: must be in [0, 100000], got {args.correlate}",
              file=sys.stderr)  # fmt: skip
        return 2
    if len(os.sched_getaffinity(0)) < 2:
        print("bench_measure_modes: needs 2 CPUs", file=sys.stderr)
        return 2
    kinds = _kinds()
    names = list(kinds)
    times: dict[str, list[float]] = {n: [] for n in names}
    rng = np.random.default_rng(args.seed)
    load = os.getloadavg()[0]
    start = time.monotonic()
    for _ in range(passes):
        for i in rng.permutation(len(names)):
            name = names[int(i)]
            spin = _spinner() if name.endswith("spinner") else None
            try:
                if spin is not None:
                    time.sleep(0.05)  # let it start spinning
                times[name].append(kinds[name]())
            finally:
                if spin is not None:
                    spin.kill()
                    spin.wait()
    cpu = mm.machine_record()["cpu_model"]
    print(f"{passes} shuffled passes, {time.monotonic() - start:.0f} s, load average at the "
          f"start {load:.2f}, now {os.getloadavg()[0]:.2f}; {cpu}")  # fmt: skip
    print("| kind | runs | within 5% | 5-30% | 1.3-2x | over 2x | median / min | median |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        t = np.asarray(times[name])
        r = t / t.min()
        shares = [np.mean(r <= 1.05), np.mean((r > 1.05) & (r <= 1.3)),
                  np.mean((r > 1.3) & (r <= 2)), np.mean(r > 2)]  # fmt: skip
        cells = " | ".join(f"{100 * x:.0f}%" for x in shares)
        unit, scale = ("ms", 1e3) if name.startswith("harness") else ("ns/vector", 1e9)
        median = f"{scale * float(np.median(t)):.3f} {unit}"
        print(f"| {name} | {len(t)} | {cells} | {np.median(r):.3f} | {median} |")
    probe = mm.probe_cpus()
    print("\n`costmetrics.measure.probe_cpus()` (a throughput-bound L1 kernel, 21 interleaved "
          "rounds; stalls over 0.5 s of spinning on every CPU):")  # fmt: skip
    print("| CPU | alone (median) | while every CPU runs | slower | stalled | longest stall |")
    print("|---|---|---|---|---|---|")
    for cpu, (a, b, share, longest) in enumerate(
        zip(probe.alone_s, probe.together_s, probe.stall_share, probe.longest_stall_s,
            strict=True)
    ):  # fmt: skip
        print(f"| {cpu} | {1e3 * a:.3f} ms | {1e3 * b:.3f} ms | {100 * (b / a - 1):+.1f}% | "
              f"{100 * share:.2f}% | {1e3 * longest:.2f} ms |")  # fmt: skip
    for note in mm.probe_notes(probe):
        print(f"note: {note}")
    if args.correlate:
        _correlate(args.correlate, kinds)
    return 0


def _correlate(rounds: int, kinds: dict[str, Callable[[], float]]) -> None:
    """Whether the machine's momentary speed, seen by the probe kernel, moves the runs."""
    n = mm.default_threads()
    probe, harness, compute = [], [], []
    for _ in range(rounds):
        # The probe's time on every CPU at once: the slowest CPU, as a barrier would wait.
        probe.append(max(mm.probe_cpus(threads=n, repeats=1, spin_s=0.0).together_s))
        harness.append(kinds["harness 2t"]())
        compute.append(kinds["compute 2t"]())
    series = {"probe": np.asarray(probe), "harness 2t": np.asarray(harness),
              "compute 2t": np.asarray(compute)}  # fmt: skip
    print(f"\n{rounds} rounds back to back (probe, harness 2t, compute 2t):")
    print("| series | median / min | share over 1.3x min | corr. with probe | "
          "corr. with harness 2t |")  # fmt: skip
    print("|---|---|---|---|---|")
    for name, t in series.items():
        r = t / t.min()
        c_probe = np.corrcoef(t, series["probe"])[0, 1]
        c_harness = np.corrcoef(t, series["harness 2t"])[0, 1]
        print(f"| {name} | {np.median(r):.3f} | {100 * np.mean(r > 1.3):.0f}% | "
              f"{c_probe:.2f} | {c_harness:.2f} |")  # fmt: skip
    print("first 120 rounds, each run against its series' minimum (. within 5%, o 5-30%, "
          "X over 30%):")  # fmt: skip
    for name, t in series.items():
        r = t / t.min()
        marks = "".join("." if x <= 1.05 else "o" if x <= 1.3 else "X" for x in r[:120])
        print(f"{name:>11}: {marks}")


if __name__ == "__main__":
    raise SystemExit(main())
