"""Measure Jacobi 1D's time against the hexagon pitch, arrays in L3 and in DRAM (issue 21).

A wavefront of the hexagonal tiling runs tiles ``2 tS + tT - 2`` points apart (the pitch);
with ``T <= tT`` a problem has two wavefronts, each touching runs of about half the pitch
with gaps of the other half. This sweep holds ``tT`` and ``T`` and varies ``tS``, so that
the pitch goes from 38 to 2054 points while the words loaded fall by 1.4x at most (T = 4),
for a problem whose arrays live in L3 and one whose arrays live in DRAM (on a 32 MiB L3).
It answers: does the time per point depend on the pitch beyond what the words and tiles
explain, and only in DRAM? (docs/validate-log.md, "A DRAM problem for every stencil, and
Jacobi 1D's tile pitch").

Protocol of ``costmetrics measure``: ``--passes`` shuffled passes, one warm-up and one
timed run per point and pass, the median per point, at ``--threads`` (default 1: the
thread count whose noise floor is lowest). Prints per problem and tile: the pitch, the
tiles, the words loaded, the median time and its ratio to the problem's widest tile, and
the spread between the passes (the largest over the median).

Run: ``python benchmarks/bench_measure_pitch.py --out DIR`` (about a minute on 2 cores);
``--quick`` is a smoke run of small problems whose numbers mean nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from costmetrics import measure as mm

#: Tile widths (tT = 8): pitches 2 tS + 6 = 38 ... 2054 points.
TILE_S = (16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 256, 512, 1024)
TILE_T = 8
#: Problem sizes S: 16 MiB of arrays (L3 on a 32 MiB L3) and 64 MiB (DRAM); their T is
#: ``--steps`` (default 4: two wavefronts).
PROBLEM_S = (2097152, 8388606)
QUICK_PROBLEMS = ((65536, 4),)


def sweep(
    out: Path,
    problems: tuple[tuple[int, int], ...],
    passes: int,
    threads: int,
    tile_s: tuple[int, ...] = TILE_S,
) -> str:
    """Measure the pitch sweep into ``out/pitch.csv``; return the report."""
    points = [
        mm.Point("jacobi1d", sizes, (ts, TILE_T), ("pitch",))
        for sizes in problems for ts in tile_s
    ]  # fmt: skip
    path = mm.measure(
        points, out / "pitch.csv", threads=threads, passes=passes, warmup=1,
        command="python benchmarks/bench_measure_pitch.py", progress=True,
    )  # fmt: skip
    table = mm.read_table(path)
    per_point = table.per_point("median")
    lines = [f"{path}: jacobi1d, tT = {TILE_T}, {threads} thread(s), median of {passes} passes"]
    for sizes in problems:
        rows = [i for i in range(len(per_point)) if per_point.sizes_of(i) == sizes]
        rows.sort(key=per_point.tiles_of)
        level = per_point.memory_level[rows[0]]
        widest = float(per_point.time_s[rows[-1]])
        lines.append(f"S = {sizes[0]}, T = {sizes[1]} ({level}):")
        lines.append("  tS pitch tiles words_loaded median_ms vs_widest spread")
        for i in rows:
            ts = per_point.tiles_of(i)[0]
            t_s = float(per_point.time_s[i])
            passes_s = per_point.pass_times_s[i] if per_point.pass_times_s is not None else None
            spread = float(np.nanmax(passes_s) / t_s - 1.0) if passes_s is not None else 0.0
            lines.append(
                f"  {ts} {2 * ts + TILE_T - 2} {int(per_point.columns['n_tiles'][i])} "
                f"{int(per_point.columns['words_loaded'][i])} {1e3 * t_s:.2f} "
                f"{t_s / widest:.2f} {100 * spread:.0f}%"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="output folder (pitch.csv; resumable)")
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--tile-s", type=int, nargs="+", default=list(TILE_S), help="tile widths tS"
    )  # fmt: skip
    parser.add_argument("--steps", type=int, default=4, help="time steps T of both problems")
    parser.add_argument("--quick", action="store_true", help="smoke run, small problems")
    args = parser.parse_args(argv)
    if args.passes < 1:
        parser.error(f"--passes must be >= 1, got {args.passes}")
    try:
        if args.quick:
            with tempfile.TemporaryDirectory() as tmp:
                print(sweep(Path(tmp), QUICK_PROBLEMS, 1, 1))
            return 0
        if args.out is None:
            parser.error("--out is required (or --quick)")
        out = mm.check_writable(args.out, "out")
        problems = tuple((size, args.steps) for size in PROBLEM_S)
        print(sweep(out, problems, args.passes, args.threads, tuple(args.tile_s)))
    except (OSError, ValueError) as exc:
        print(f"bench_measure_pitch: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
