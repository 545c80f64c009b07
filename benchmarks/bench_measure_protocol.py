"""Evidence for the measurement protocol: sequential sweeps against shuffled passes.

Measures the same points (the coarse tile grid of the shipped problem sizes, 1 thread and
every core) two ways on this machine:

- *sequential* (the protocol before issue 21): two sweeps, one after the other, each
  visiting the points in a fixed order and keeping the minimum of 3 back-to-back runs
  after a warm-up run;
- *shuffled* (``costmetrics measure``): 4 passes over all points in a shuffled order, one
  timed run per point per pass after a warm-up run.

It prints, per stencil and thread count, the RMS relative difference between the two
sequential sweeps and the noise floor of the shuffled passes (medians of the even against
the odd passes, :func:`costmetrics.validate.noise_floor`), as a Markdown table for the
"Protocol evidence" section of ``docs/validate.md``, with the machine and load average.
Both ways spend the same number of runs per point (8).

Run on a quiet machine: ``python benchmarks/bench_measure_protocol.py --out evidence/``: about
3 minutes on 2 cores (the same coarse grid took 84 s for 5 shuffled passes in the shipped
protocol sweep, 2 runs per point and pass; this does 8 runs per point in all, 4 of them
sequential, about 1.6 times as many runs). The output folder is checked to be writable
first. Resumable: the shuffled part continues where it stopped; the sequential sweeps are
written to a temporary file renamed when both are complete (a sequential sweep cut in two
would not be one sweep), so a kill during them repeats them. ``--quick``: a smoke run of
a few seconds whose numbers mean nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics._files import write_text_atomic


def _points(quick: bool) -> list[mm.Point]:
    if quick:
        return [
            mm.Point("jacobi1d", (4096, 16), (4, 4)),
            mm.Point("jacobi1d", (4096, 16), (16, 8)),
            mm.Point("heat2d", (64, 64, 8), (4, 32, 4)),
        ]
    return mm.default_points(grid="coarse")


def _sequential(points: list[mm.Point], threads: list[int], path: Path, sweeps: int) -> None:
    """Write ``sweep, stencil, sizes, tiles, threads, time_s`` rows (minimum of 3 runs)."""
    from tqdm import tqdm

    if path.exists():
        return
    tmp = path.with_suffix(".tmp")
    bar = tqdm(total=sweeps * len(threads) * len(points), unit="point", desc="sequential")
    with tmp.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["sweep", "stencil", "sizes", "tiles", "threads", "time_s", "loadavg_1m"])
        for sweep in range(sweeps):
            for n in threads:
                for p in points:
                    r = mm.run(p.stencil, p.sizes, p.tiles, threads=n, repeats=3, warmup=1)
                    bar.update()
                    w.writerow(
                        [sweep, p.stencil, list(p.sizes), list(p.tiles), n, repr(r.time_min_s),
                         os.getloadavg()[0]]
                    )  # fmt: skip
            f.flush()
    bar.close()
    os.replace(tmp, path)


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    d = (a - b) / np.minimum(a, b)
    return float(np.sqrt(np.mean(d**2)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("protocol_evidence"), help="folder")
    parser.add_argument("--quick", action="store_true", help="smoke run (meaningless numbers)")
    args = parser.parse_args()
    try:
        mm.check_writable(args.out, "--out")
    except (TypeError, ValueError) as exc:
        print(f"bench_measure_protocol: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    threads = sorted({1, mm.default_threads()})
    points = _points(args.quick)
    machine = mm.machine_record()
    load0 = os.getloadavg()
    seq_path = args.out / "sequential.csv"
    _sequential(points, threads, seq_path, 2)
    shuf_path = args.out / "shuffled.csv"
    mm.measure(
        points, shuf_path, threads=threads, passes=4, warmup=1, progress=True,
        command="python benchmarks/bench_measure_protocol.py",
    )  # fmt: skip
    load1 = os.getloadavg()
    seq: dict[tuple[str, int], dict[tuple[str, str], list[float]]] = {}
    with seq_path.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            key = (row["stencil"], int(row["threads"]))
            seq.setdefault(key, {}).setdefault((row["sizes"], row["tiles"]), []).append(
                float(row["time_s"])
            )
    med = mm.read_table(shuf_path).medians()
    assert med.pass_times_s is not None
    rows = []
    for (stencil, n), by_point in sorted(seq.items()):
        pairs = np.asarray([v[:2] for v in by_point.values() if len(v) >= 2])
        mask = (np.asarray(med.stencil) == stencil) & (med.threads == n)
        rows.append(
            {
                "stencil": stencil,
                "threads": n,
                "points": int(pairs.shape[0]),
                "sequential_rms": _rms(pairs[:, 0], pairs[:, 1]),
                "shuffled_noise_floor": cv.noise_floor(med.pass_times_s[mask]),
            }
        )
    summary = {
        "machine": {k: machine[k] for k in ("cpu_model", "l2_bytes", "l3_bytes", "allowed_cpus")},
        "loadavg_start": load0,
        "loadavg_end": load1,
        "rows": rows,
    }
    write_text_atomic(args.out / "summary.json", json.dumps(summary, indent=2) + "\n")
    print(
        f"Machine: {machine['cpu_model']}, L2 {machine['l2_bytes'] // 1024} KiB, "
        f"L3 {machine['l3_bytes'] // 1024**2} MiB, {machine['allowed_cpus']} CPUs; load "
        f"average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end.\n"
    )
    print("| stencil | threads | points | two sequential sweeps, RMS difference | "
          "shuffled passes, noise floor |")  # fmt: skip
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['stencil']} | {r['threads']} | {r['points']} | "
            f"{100 * r['sequential_rms']:.1f}% | {100 * r['shuffled_noise_floor']:.1f}% |"
        )


if __name__ == "__main__":
    main()
