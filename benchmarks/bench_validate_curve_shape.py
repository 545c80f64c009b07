"""Diagnostic: would a DRAM-share curve of a sequential stream fit the stencils better? (issue 21)

The fitted ``machine`` variant splits the words of arrays past the L2 between L3 and DRAM
by the calibration's copy curve (``costmetrics.measure.dram_share_curve``): 64-word
segments copied from and to random places of the working set, so every segment starts a
new stream, and past the TLB's reach a new page. The stencils sweep their arrays in order.
On the Intel Xeon guest the fitted variant over-predicts the 16 MiB problems at 1 thread
(Jacobi 1D 2^21 x 8 and Heat 3D 126^3, 1.13-1.16x at the median) and under-predicts the
55-67 MB ones (0.88-0.89x): the question is whether the curve's shape, not a term, is
what is wrong.

This script measures the cost per word of a sequential stream against the working set
(two float32 arrays of half the working set each, ``numpy.copyto`` back and forth, one or
two threads each on its own half of both, in shuffled passes, the median), then scores
shipped validation folders as ``bench_validate_rescore.py`` does (saved calibrations),
once as shipped and once per candidate curve, by replacing the curve the validate module
reads (nothing in the package changes):

- ``stream``: the share read off the stream's own costs, by ``dram_share_curve``'s rule
  (each size's cost from the first point's, share 0, to the dearest, share 1), from the
  first stream point at or past the calibration curve's first working set;
- ``rebase``: the calibration's curve, with share 0 up to the largest working set at which
  the stream still costs at most ``--flat`` (10%) more than at its first point past twice
  the working cores' L2 (surely out of L2), and the curve's rise past it scaled to end at
  1 (the arrays stay in L3 while a stream says so), at the thread counts of
  ``--rebase-threads`` (default 1).

- ``logsize``: no measurement, the share linear in the log of the arrays' bytes, from 0 at
  the working cores' L2 (one core's L2 times the thread count) to 1 at the calibration
  curve's last point, whatever the copy curve's shape between them.
- ``random``: the random-order copy curve itself. Since 2026-12-04 08:50 UTC a calibration
  also measures its copy points with the segments in order, and the fitted variant reads
  that streaming curve first (``shipped`` then means it); every candidate above replaces
  the random-order curve, with the streaming one hidden. ``--orders-only`` scores
  ``shipped`` against ``random`` (docs/validate-log.md, "The DRAM share of a copy that
  streams"); on calibrations without streaming points the two are the same.

Found with it on 2026-12-01 (docs/validate-log.md, "A stream's DRAM-share curve"): neither
``stream`` nor ``rebase`` is kept. ``logsize`` (2026-12-04, "A third and a fourth levels run on
the Zen 5 guest"): not kept. The streaming copy curve measured by the calibration itself
(2026-12-04, "The DRAM share of a copy that streams"): the rule since then.

Run: ``python benchmarks/bench_validate_curve_shape.py FOLDER [FOLDER ...] [--passes 5]
[--stream-out FILE | --stream FILE] [--flat 0.1]``; measures for about a minute unless
``--stream`` gives a saved measurement or ``--logsize-only`` scores the shipped curve and
``logsize`` alone, or ``--orders-only`` the shipped rule and ``random`` alone (any
machine's folders; nothing measured). ``--quick`` scores one
shipped folder with a synthetic stream curve (labelled so; measures nothing).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from costmetrics import measure as mm
from costmetrics import validate as cv
from costmetrics._files import check_output_file, write_text_atomic

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_validate_rescore as rescore  # the rescoring of shipped folders

MIB = 1 << 20
#: Working sets of the stream, MiB: from one core's L2 on the machines seen so far to past
#: every L3 in effect measured on them.
STREAM_MIB = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256)
#: The summary's columns (``bench_validate_rescore.COLUMNS`` labels).
SHOWN = ("2t top", "2t all", "worst top", "worst all", "1t top", "1t all")
#: ``--quick``'s folder and its synthetic stream costs (ns per word, 1 and 2 threads): flat
#: to 32 MiB, then rising, the shape measured on the Xeon guest; not a measurement.
QUICK_FOLDER = (
    Path(__file__).resolve().parents[1] / "data" / "measurements"
    / "quiet_run_2026-12-01_xeon_levels_nt21"
)  # fmt: skip
QUICK_STREAM = {
    n: {m: 0.14 if m <= 32 else 0.14 + 0.06 * np.log2(m / 32) for m in STREAM_MIB} for n in (1, 2)
}


def stream_costs(passes: int, threads: tuple[int, ...]) -> dict[int, dict[int, float]]:
    """Seconds per word copied by each thread of a sequential stream, per working set (MiB).

    Per thread count and pass the working sets run in a shuffled order; per working set a
    warm-up sweep, then a timed run of at least 16 Mi words per thread; the median over
    passes is kept.
    """
    out: dict[int, dict[int, float]] = {}
    for n in threads:
        samples: dict[int, list[float]] = {m: [] for m in STREAM_MIB}
        with ThreadPoolExecutor(n) as pool:
            for p in range(passes):
                order = list(STREAM_MIB)
                random.Random(p).shuffle(order)
                for mib in order:
                    words = mib * MIB // 8  # per array: two arrays make the working set
                    a, b = np.ones(words, np.float32), np.zeros(words, np.float32)
                    parts = [slice(i * words // n, (i + 1) * words // n) for i in range(n)]
                    sweeps = max(2, (1 << 24) // (words // n))

                    def sweep(part: slice, count: int, a: Any = a, b: Any = b) -> None:
                        src, dst = a[part], b[part]
                        for _ in range(count):  # numpy.copyto releases the GIL
                            np.copyto(dst, src)
                            src, dst = dst, src

                    list(pool.map(lambda s: sweep(s, 1), parts))
                    t0 = time.perf_counter()
                    list(pool.map(lambda s, c=sweeps: sweep(s, c), parts))
                    seconds = time.perf_counter() - t0
                    samples[mib].append(seconds / (2 * sweeps * (words // n)))
        out[n] = {m: statistics.median(v) for m, v in samples.items()}
    return out


def stream_curve(shipped: mm.DramShareCurve, costs: dict[int, float]) -> mm.DramShareCurve | None:
    """The ``stream`` candidate: the stream's own shares from the shipped curve's start."""
    start = shipped.array_bytes[0]
    pts = [(m * MIB, c) for m, c in sorted(costs.items()) if m * MIB >= start]
    return mm._share_curve([p[0] for p in pts], [p[1] for p in pts])


def flat_end_bytes(start: float, costs: dict[int, float], flat: float) -> float:
    """Largest working set from ``start`` up whose stream cost stays within ``flat`` of the first.

    ``start`` is twice the working cores' L2: the first stream point past it is in L3.
    """
    pts = [(m * MIB, c) for m, c in sorted(costs.items()) if m * MIB >= start]
    if not pts:
        return start
    end = pts[0][0]
    for size, cost in pts:
        if cost > (1 + flat) * pts[0][1]:
            break
        end = size
    return float(end)


def rebased_curve(
    shipped: mm.DramShareCurve, costs: dict[int, float], flat: float, threads: int, l2_bytes: int
) -> mm.DramShareCurve:
    """The ``rebase`` candidate: 0 to the stream's flat end, the shipped rise past it."""
    b = np.asarray(shipped.array_bytes)
    s = np.asarray(shipped.dram_share)
    b0 = flat_end_bytes(max(float(b[0]), 2.0 * l2_bytes * threads), costs, flat)
    keep = b > b0
    if b0 <= b[0] or keep.sum() < 1:
        return shipped  # nothing flat past the start, or nothing left past the flat end
    s0 = float(np.interp(np.log(b0), np.log(b), s))
    rise = np.clip((s[keep] - s0) / (1.0 - s0), 0.0, 1.0) if s0 < 1 else np.ones(keep.sum())
    return mm.DramShareCurve((b0, *(float(x) for x in b[keep])), (0.0, *(float(x) for x in rise)))


def log_size_curve(shipped: mm.DramShareCurve, threads: int, l2_bytes: int) -> mm.DramShareCurve:
    """The ``logsize`` candidate: 0 at the working cores' L2, 1 at the shipped curve's end.

    The share is linear in ``log(bytes)`` between ``l2_bytes * threads`` and the shipped
    curve's last working set; the shipped curve's points between them are kept as points
    (the model interpolates between points). A shipped curve that ends at or below the
    working cores' L2 is returned unchanged.
    """
    lo = float(l2_bytes * threads)
    hi = float(shipped.array_bytes[-1])
    if not hi > lo > 0:
        return shipped
    points = sorted({lo, *(float(b) for b in shipped.array_bytes if lo < b < hi), hi})
    shares = [float(np.log(b / lo) / np.log(hi / lo)) for b in points]
    return mm.DramShareCurve(tuple(points), tuple(shares))


@contextlib.contextmanager
def curve_replaced(
    kind: str,
    costs: dict[int, dict[int, float]],
    flat: float,
    rebase_threads: tuple[int, ...],
    l2_bytes: int,
) -> Iterator[None]:
    """Make the validate module read ``kind``'s curve where the calibration has one.

    Every kind replaces the random-order copy curve: the streaming one, which the fitted
    variant reads first where a calibration measured it, is hidden (``"random"``: the
    random-order curve itself, the rule before 2026-12-04 08:50 UTC).
    """
    shipped_rule = cv.dram_share_curve

    def replaced(
        micro: dict[str, Any], *, threads: int, segment_words: int = 64, order: str = "random"
    ) -> Any:
        if order != "random":
            return None
        shipped = shipped_rule(micro, threads=threads, segment_words=segment_words)
        if kind == "random":
            return shipped
        if shipped is not None and kind == "logsize":
            return log_size_curve(shipped, threads, l2_bytes)
        if shipped is None or threads not in costs:
            return shipped
        if kind == "stream":
            return stream_curve(shipped, costs[threads]) or shipped
        if threads not in rebase_threads:
            return shipped
        return rebased_curve(shipped, costs[threads], flat, threads, l2_bytes)

    cv.dram_share_curve = replaced  # type: ignore[assignment]
    try:
        yield
    finally:
        cv.dram_share_curve = shipped_rule


def score(
    folders: list[Path],
    cpu_model: str | None,
    curve: Callable[[int], contextlib.AbstractContextManager[None]] | None = None,
) -> dict[tuple[str, int], list[float]]:
    """(folder, run) -> the shown columns' values, in %, fitted machine variant, median.

    Folders measured on another CPU model than the stream (``cpu_model``; None: any) are
    skipped: a stream measured on one machine says nothing of another's caches. ``curve``
    (None: the shipped one) is entered around each folder's scoring with one core's L2 of
    that folder's machine.
    """
    out = {}
    for folder in folders:
        runs = rescore._load_folder(folder, "saved")
        if cpu_model is not None and runs[0].sweep.machine.get("cpu_model") != cpu_model:
            print(f"{folder.name}: skipped, measured on {runs[0].sweep.machine.get('cpu_model')}")
            continue
        l2_bytes = int(runs[0].sweep.machine.get("l2_bytes", 2 * MIB))
        with curve(l2_bytes) if curve is not None else contextlib.nullcontext():
            _, summary = rescore._rescore_folder(folder, runs, "fitted-machine", "median")
        for run in summary["runs"]:
            vals = [run["values"][c]["value"] if run["values"][c] else np.nan for c in SHOWN]
            out[(folder.name, run["run"])] = [100 * v for v in vals]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--flat", type=float, default=0.1)
    parser.add_argument("--stream", type=Path, help="a saved measurement (--stream-out's JSON)")
    parser.add_argument("--stream-out", type=Path)
    parser.add_argument(
        "--rebase-threads", default="1",
        help="thread counts whose curve ``rebase`` moves (comma-separated; default 1: at 2 "
        "threads the Xeon guest's problems from 8 to 16 MiB then lie at the L3 level alone, "
        "whose cost a leave-one-problem-out fit cannot identify)",
    )  # fmt: skip
    parser.add_argument(
        "--logsize-only", action="store_true",
        help="score the shipped curve and ``logsize`` only (no stream measured, any machine)",
    )  # fmt: skip
    parser.add_argument(
        "--orders-only", action="store_true",
        help="score the shipped rule (the streaming copy curve where a calibration has one) "
        "and ``random`` (the random-order copy curve) only; nothing measured, any machine",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if args.orders_only and args.logsize_only:
        parser.error("--orders-only and --logsize-only: give one of them")
    if args.quick:
        args.folders = [QUICK_FOLDER]
    if not args.folders:
        parser.error("give at least one folder (or --quick)")
    if not 1 <= args.passes <= 100:
        parser.error(f"--passes: expected 1 to 100, got {args.passes}")
    try:
        rebase_threads = tuple(int(x) for x in str(args.rebase_threads).split(","))
    except ValueError:
        parser.error(f"--rebase-threads: expected thread counts, got {args.rebase_threads!r}")
    if not 0 < args.flat < 1:
        parser.error(f"--flat: expected a fraction in (0, 1), got {args.flat}")
    for f in args.folders:
        if not (f / "sweep.csv").is_file():
            parser.error(f"{f}: no sweep.csv")
    if args.stream_out is not None:
        try:
            check_output_file(args.stream_out, "--stream-out")
        except ValueError as exc:
            parser.error(str(exc))
    costs: dict[int, dict[int, float]]
    cpu_model: str | None
    if args.logsize_only or args.orders_only:
        costs, cpu_model = {}, None
    elif args.quick:
        costs = {n: {m: c * 1e-9 for m, c in v.items()} for n, v in QUICK_STREAM.items()}
        cpu_model = None
        print("stream costs: synthetic (--quick), not a measurement")
    elif args.stream is not None:
        try:
            doc = json.loads(args.stream.read_text(encoding="utf-8"))
            costs = {int(n): {int(m): float(c) for m, c in v.items()}
                     for n, v in doc["s_per_word"].items()}  # fmt: skip
            cpu_model = doc["machine"]["cpu_model"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            parser.error(f"--stream: {args.stream}: not a saved stream measurement ({exc!r})")
    else:
        print(f"measuring the stream ({args.passes} passes) ...", flush=True)
        costs = stream_costs(args.passes, (1, 2))
        cpu_model = mm.machine_record().get("cpu_model")
        if args.stream_out is not None:
            write_text_atomic(args.stream_out, json.dumps({
                "machine": mm.machine_record(), "passes": args.passes,
                "s_per_word": {str(n): {str(m): c for m, c in v.items()} for n, v in costs.items()},
            }, indent=1) + "\n")  # fmt: skip
    for n, v in costs.items():
        print(f"stream, {n} thread(s), ns per word: "
              + " ".join(f"{m}:{c * 1e9:.3f}" for m, c in sorted(v.items())))  # fmt: skip
        start = 2 * (2 * MIB) * n
        print(
            f"  flat (within {args.flat:.0%}) from {start // MIB} MiB (twice a 2 MiB L2 per "
            f"core) to {flat_end_bytes(start, v, args.flat) / MIB:.0f} MiB"
        )
    results = {"shipped": score(args.folders, cpu_model)}
    kinds = ("stream", "rebase", "logsize")
    if args.logsize_only or args.orders_only:
        kinds = ("logsize",) if args.logsize_only else ("random",)
    for kind in kinds:
        results[kind] = score(
            args.folders,
            cpu_model,
            lambda l2, kind=kind: curve_replaced(kind, costs, args.flat, rebase_threads, l2),
        )
    print("\nfitted machine variant, median, % (columns: " + ", ".join(SHOWN) + ")")
    for key in results["shipped"]:
        cells = " | ".join(" ".join(f"{x:5.1f}" for x in results[k][key]) for k in results)
        print(f"{key[0]} run {key[1]}: {cells}")
    print("medians over the runs:")
    for kind, res in results.items():
        med = np.nanmedian(np.array(list(res.values())), axis=0)
        print(f"  {kind:8s} " + " ".join(f"{c} {x:.1f}" for c, x in zip(SHOWN, med, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
