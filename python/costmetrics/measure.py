"""Measure real tiled stencils on the CPU and calibrate the time model from micro-benchmarks.

The harness (``cpp/src/measure.cpp``) runs hexagonally tiled Jacobi 1D and hybrid
hexagonal/classic tiled 2D stencils (Jacobi2D, Heat2D, Laplacian2D, Gradient2D) the way
Appendix A of thesis 000 models a GPU: wavefronts of independent tiles executed in
parallel by worker threads (one per core = one SM), each tile copied into a per-thread
buffer (= shared memory), computed there and copied out, one barrier per wavefront
(= one kernel call). Every run is compared bitwise with a naive untiled stencil.

This module converts arguments, runs the micro-benchmarks of Sec. A.5.1 and writes the
machine preset (:func:`calibrate`, :func:`save_calibration`), and runs resumable sweeps
into a CSV table (:func:`measure`, :func:`read_table`). Scoring is in
:mod:`costmetrics.validate`. See ``docs/validate.md``.

Conventions
-----------
``sizes`` is ``(S, T)`` (1D) or ``(S1, S2, T)`` (2D); ``tiles`` is ``(tS, tT)`` or
``(tS1, tS2, tT)``. Times in seconds, energy in joules, memory in 4-byte words.
"""

from __future__ import annotations

import csv
import datetime as _dt
import fcntl
import hashlib
import io
import itertools
import json
import math
import os
import platform
import sys
import time as _clock
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from costmetrics import _convert, _core
from costmetrics import energy as _cm_energy
from costmetrics._files import (
    atomic_path,
    check_output_file,
    linked_file,
    writable_folder,
    write_text_atomic,
)
from costmetrics._interrupt import raise_if_terminated
from costmetrics._record import Record, record
from costmetrics._tables import SIZE_COLUMNS, TILE_COLUMNS
from costmetrics.presets import (
    BYTES_PER_WORD,
    DRAM_CURVE_POINTS,
    Gpu,
    Stencil,
    load_gpu,
    load_stencil,
    normalize_name,
)

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_SCHEDULES",
    "ENERGY_CSV_COLUMNS",
    "GAP_SEGMENTS",
    "HARNESS_VERSION",
    "HOST_SLOW_LIMIT",
    "INTERFERENCE_LIMIT",
    "MACHINE_IDENTITY",
    "MEMORY_LEVELS",
    "PREFETCH_AHEAD_WORDS",
    "SCHEDULES",
    "STALL_LIMIT",
    "STATISTICS",
    "STENCILS",
    "TOLD_APART_SHARE",
    "Calibration",
    "CpuInterferenceWarning",
    "CpuProbe",
    "DramShareCurve",
    "HostCheck",
    "HostGate",
    "HostSpeed",
    "LoadWarning",
    "MicroResult",
    "Point",
    "QuietWait",
    "RaplCounter",
    "RunResult",
    "Table",
    "TuneCandidate",
    "TuneResult",
    "calibrate",
    "check_current_harness",
    "check_host",
    "check_same_machine",
    "check_writable",
    "default_points",
    "default_schedule",
    "dram_share_curve",
    "effective_l3_bytes",
    "energy_status",
    "fastest_shares",
    "find_rapl_package",
    "harness_tiles",
    "load_calibration",
    "load_is_high",
    "machine_record",
    "measure",
    "memory_level",
    "naive",
    "pass_order",
    "point_statistic",
    "probe_cpus",
    "probe_host",
    "probe_notes",
    "read_table",
    "run",
    "save_calibration",
    "space_dims",
    "table_cpu_probe",
    "table_host_gates",
    "tiled",
    "tune",
    "wait_for_quiet_host",
    "write_energy_csv",
]

_cm = _core.measure
RunResult = _cm.RunResult
MicroResult = _cm.MicroResult
CpuProbe = _cm.CpuProbe
HostSpeed = _cm.HostSpeed

#: Stencils of the harness (Jacobi 1D, the four 2D stencils of Table A.4 and Heat 3D).
STENCILS: tuple[str, ...] = tuple(_cm.kernel_names())
#: Display names, as in Table A.4.
DISPLAY_NAMES: dict[str, str] = {
    "jacobi1d": "Jacobi1D",
    "jacobi2d": "Jacobi2D",
    "heat2d": "Heat2D",
    "laplacian2d": "Laplacian2D",
    "gradient2d": "Gradient2D",
    "heat3d": "Heat3D",
}
#: Version of the compiled harness (tables measured with another version are refused).
HARNESS_VERSION: str = str(_cm.harness_version())
#: How the harness deals a wavefront's tiles to its threads (:func:`default_schedule`).
SCHEDULES: tuple[str, ...] = tuple(_cm.schedule_names())
#: The harness' default schedule per number of space dimensions: contiguous blocks in every
#: dimension, measured faster with harness 4 on a quiet machine (2 threads, median block /
#: round-robin time, 95% bootstrap interval: Jacobi 1D 0.658 [0.527, 0.875], 2D and 3D
#: pooled 0.924 [0.860, 0.964], ``benchmarks/bench_measure_schedule.py``, docs/validate.md).
DEFAULT_SCHEDULES: dict[int, str] = {1: "block", 2: "block", 3: "block"}
#: Memory levels a problem's arrays can live in (:func:`memory_level`).
MEMORY_LEVELS: tuple[str, ...] = ("L1", "L2", "L3", "DRAM")
#: How a point's time is taken over its passes (:func:`point_statistic`).
STATISTICS: tuple[str, ...] = ("median", "min")
#: Columns of a measurement table (schema 3: one row per point per pass; schema 2 lacked
#: ``size_s3`` and ``tile_s3``), in order.
CSV_COLUMNS: tuple[str, ...] = (
    "stencil",
    *SIZE_COLUMNS,
    *TILE_COLUMNS,
    "tags",
    "threads",
    "schedule",
    "pass",
    "order",
    "time_s",
    "cpu_time_s",
    "energy_j",
    "correct",
    "max_abs_error",
    "n_wavefronts",
    "n_tiles",
    "n_subtiles",
    "words_loaded",
    "words_stored",
    "working_set_bytes",
    "memory_level",
    "pinned_threads",
    "loadavg_1m",
    "unix_time_s",
)
#: Columns of the energy table: the one definition is ``costmetrics.energy.CSV_COLUMNS``.
ENERGY_CSV_COLUMNS: tuple[str, ...] = _cm_energy.CSV_COLUMNS
#: Kernels the energy model knows among the harness stencils.
_ENERGY_KERNELS = ("jacobi1d", "jacobi2d")
_SCHEMA = "costmetrics measurement table, schema 3"
_SCHEMA_V2 = "costmetrics measurement table, schema 2"
_SCHEMA_V1 = "costmetrics measurement table, schema 1"
_SCHEMA_PREFIX = "costmetrics measurement table"
_CALIBRATION_SCHEMA = "costmetrics calibration, schema 1"
#: The longest time a pass may record (s): an upper physical bound on one run.
_MAX_TIME_S = 1e9
#: The shortest time a table's run may record (s): below a nanosecond no run of the
#: harness was timed (its clock's resolution), and a subnormal time made the relative
#: errors of validate overflow (2026-11-30 campaign: 1e-320 was read as "positive").
MIN_RUN_TIME_S = 1e-9
#: The most passes measure() takes (and so the bound on a table's pass index).
_MAX_PASSES = 1000
_INT_LIMIT = 2**62


# --------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------


def space_dims(stencil: str) -> int:
    """Return the number of space dimensions of a harness stencil.

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.

    Returns
    -------
    int
        1, 2 or 3.

    Raises
    ------
    ValueError
        For an unknown stencil.
    """
    dims = _SPACE_DIMS.get(stencil) if isinstance(stencil, str) else None
    if dims is None:
        dims = int(_cm.kernel_space_dims(_stencil_name(stencil)))
        if len(_SPACE_DIMS) < 256:  # spellings are unbounded ("heat 2d", "Heat-2D", ...)
            _SPACE_DIMS[stencil] = dims
    return dims


#: space_dims of the names already checked, as they were spelled: a table's rows ask for
#: it 10^5 times in a validation, and the name check (a regular expression) was 3 of the
#: validate reproduction's 27 s. Only names that passed the check are added, at most 256.
_SPACE_DIMS: dict[str, int] = {}


def _statistic_name(statistic: object) -> str:
    if not isinstance(statistic, str):
        raise TypeError(
            f"statistic: expected a str, one of {list(STATISTICS)}, got "
            f"{type(statistic).__name__} {statistic!r}"
        )
    if statistic not in STATISTICS:
        raise ValueError(f"statistic: must be one of {list(STATISTICS)}, got {statistic!r}")
    return statistic


def _pass_times_array(pass_times_s: object) -> npt.NDArray[np.float64]:
    """Pass times as a float array: each finite and > 0, or NaN (the pass lacks the point).

    Anything but real numbers raises ``TypeError``, a ragged nesting or a time that is
    zero, negative or infinite ``ValueError``, each naming ``pass_times_s``.
    """
    try:
        raw = np.asarray(pass_times_s)
    except ValueError:
        raise ValueError("pass_times_s: expected a rectangular array of times") from None
    if raw.dtype.kind not in "iuf":
        raise TypeError(
            f"pass_times_s: expected real numbers (times in s), got {type(pass_times_s).__name__} "
            f"of dtype {raw.dtype}"
        )
    p = np.asarray(raw, dtype=np.float64)
    # Under 1e9 s (32 years): no run takes longer, and the median of two times near the
    # double range overflowed to inf.
    bad = ~np.isnan(p) & ~(np.isfinite(p) & (p > 0) & (p < _MAX_TIME_S))
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        index = "[" + ", ".join(str(i) for i in at) + "]" if at else ""
        raise ValueError(
            f"pass_times_s{index}: a time must be finite, > 0 and < {_MAX_TIME_S:g} s "
            f"(NaN: not measured), got {float(p[at])!r}"
        )
    return p


def _statistic(values: npt.ArrayLike, stat: str, axis: int = -1) -> npt.NDArray[np.float64]:
    """Return the median or minimum of ``values`` over ``axis``, ignoring NaN (unchecked)."""
    v = np.asarray(values, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN points stay NaN
        out = np.nanmedian(v, axis=axis) if stat == "median" else np.nanmin(v, axis=axis)
    return np.asarray(out, dtype=np.float64)


def point_statistic(
    pass_times_s: npt.ArrayLike, statistic: str = "median", axis: int = -1
) -> npt.NDArray[np.float64]:
    """Return a point's time over its interleaved passes: the median or the minimum.

    Timing noise on a shared or virtual machine mostly adds time (a descheduled thread,
    a neighbour's burst of memory traffic; on the 2-core guest of ``docs/validate.md``
    slow periods last tens of seconds). The median resists a minority of slow passes;
    the minimum estimates the undisturbed time that the model describes and resists any
    number of them, but it lies below the typical time by the run-to-run jitter, more so
    with more passes (``docs/validate.md``, "Per-point statistic", has the measured
    comparison).

    Parameters
    ----------
    pass_times_s : array_like
        Times of the passes, NaN where a pass lacks the point.
    statistic : {"median", "min"}
        Which statistic (:data:`STATISTICS`).
    axis : int
        The axis of the passes.

    Returns
    -------
    numpy.ndarray
        The statistic, NaN where every pass of a point is NaN (not measured).

    Raises
    ------
    TypeError
        If ``pass_times_s`` holds anything but real numbers, ``statistic`` is not a str or
        ``axis`` not an int.
    ValueError
        If a time is zero, negative or infinite, if ``pass_times_s`` is a scalar or has
        points but no passes (an empty ``axis``), for an unknown ``statistic`` or an
        ``axis`` the array does not have.
    """
    stat = _statistic_name(statistic)
    p = _pass_times_array(pass_times_s)
    if p.ndim == 0:
        raise ValueError(f"pass_times_s: expected an array of passes, got the scalar {float(p)!r}")
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise TypeError(f"axis: expected an int, got {type(axis).__name__} {axis!r}")
    if not -p.ndim <= axis < p.ndim:
        raise ValueError(f"axis: must be an axis of a {p.ndim}-D array, got {axis!r}")
    if p.shape[axis] == 0:
        points = np.delete(p.shape, axis).astype(int)
        if 0 in points:  # no points either: an empty result
            return np.full(points, np.nan)
        raise ValueError(f"pass_times_s: no passes (axis {int(axis)} of shape {p.shape} is empty)")
    return _statistic(p, stat, axis=int(axis))


def default_schedule(stencil: str) -> str:
    """Return the schedule the harness uses for a stencil when none is given.

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.

    Returns
    -------
    str
        ``"block"`` for every stencil (:data:`DEFAULT_SCHEDULES`).
    """
    return DEFAULT_SCHEDULES[space_dims(stencil)]


def _resolve_schedule(schedule: object, stencil: str) -> str:
    """Return ``schedule``, or the stencil's default when it is None (ValueError if unknown)."""
    if schedule is None:
        return default_schedule(stencil)
    if not isinstance(schedule, str):
        raise TypeError(f"schedule: expected a string or None, got {type(schedule).__name__}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule: must be one of {list(SCHEDULES)}, got {schedule!r}")
    return schedule


def _stencil_name(stencil: object) -> str:
    if not isinstance(stencil, str):
        raise TypeError(f"stencil: expected a str, got {type(stencil).__name__}")
    name = normalize_name(stencil.strip())
    if name not in STENCILS:
        raise ValueError(f"stencil: unknown harness stencil {stencil!r}; known: {list(STENCILS)}")
    return name


def _ints(values: object, name: str, n: int, layout: str) -> tuple[int, ...]:
    try:
        return tuple(_convert.int_sequence(values, name, length=n))
    except ValueError as err:
        raise ValueError(f"{err} {layout}") from None


def _problem(
    stencil: str, sizes: Sequence[int], tiles: Sequence[int] | None
) -> tuple[str, tuple[int, int, int, int], tuple[int, int, int, int]]:
    """Return (name, (S1, S2, S3, T), (tS1, tS2, tS3, tT)), absent dimensions 0."""
    name = _stencil_name(stencil)
    dims = space_dims(name)
    if dims == 1:
        s = _ints(sizes, "sizes", 2, "(S, T)")
        size4 = (s[0], 0, 0, s[1])
        t = _ints(tiles, "tiles", 2, "(tS, tT)") if tiles is not None else (0, 0)
        tile4 = (t[0], 0, 0, t[1])
    elif dims == 2:
        s = _ints(sizes, "sizes", 3, "(S1, S2, T)")
        size4 = (s[0], s[1], 0, s[2])
        t = _ints(tiles, "tiles", 3, "(tS1, tS2, tT)") if tiles is not None else (0, 0, 0)
        tile4 = (t[0], t[1], 0, t[2])
    else:
        s = _ints(sizes, "sizes", 4, "(S1, S2, S3, T)")
        size4 = (s[0], s[1], s[2], s[3])
        t = _ints(tiles, "tiles", 4, "(tS1, tS2, tS3, tT)") if tiles is not None else (0,) * 4
        tile4 = (t[0], t[1], t[2], t[3])
    return name, size4, tile4


def _positive_int(value: object, name: str, lo: int, hi: int) -> int:
    return _convert.integer(value, name, lo=lo, hi=hi)


def default_threads() -> int:
    """Return the number of CPUs this process may run on (the default ``threads``).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


# --------------------------------------------------------------------------------------
# Energy counters (Linux powercap / RAPL)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RaplCounter:
    """A package energy counter of the Linux powercap interface.

    Attributes
    ----------
    name : str
        The zone's name, e.g. ``"package-0"``.
    energy_path : Path
        Its ``energy_uj`` file (microjoules, monotone, wraps at ``max_energy_range_uj``).
    max_energy_range_uj : float
        Where the counter wraps around (0 when unknown).
    """

    name: str
    energy_path: Path
    max_energy_range_uj: float

    def read_uj(self) -> int:
        """Return the counter's current value in microjoules.

        Returns
        -------
        int
            The value of ``energy_uj``.
        """
        return int(self.energy_path.read_text(encoding="ascii").strip())


def find_rapl_package(root: str | Path = "/sys/class/powercap") -> RaplCounter | None:
    """Find the first readable package-level RAPL zone under ``root``.

    Parameters
    ----------
    root : str or Path
        The powercap folder (a test passes a fake tree).

    Returns
    -------
    RaplCounter or None
        The first zone whose ``name`` starts with ``package`` and whose ``energy_uj``
        reads as a non-negative integer, in sorted zone order; None when there is none.
    """
    base = Path(root)
    if not base.is_dir():
        return None
    for zone in sorted(base.iterdir()):
        try:
            name = (zone / "name").read_text(encoding="ascii").strip()
            if not name.startswith("package"):
                continue
            energy_path = zone / "energy_uj"
            value = int(energy_path.read_text(encoding="ascii").strip())
            if value < 0:
                continue
            try:
                wrap = float((zone / "max_energy_range_uj").read_text(encoding="ascii").strip())
            except (OSError, ValueError):
                wrap = 0.0
            if not (math.isfinite(wrap) and wrap >= 0):
                wrap = 0.0
            return RaplCounter(name, energy_path, wrap)
        except (OSError, ValueError):
            continue
    return None


def energy_status(root: str | Path = "/sys/class/powercap") -> str:
    """Describe the energy counters available under ``root``, for table headers.

    Parameters
    ----------
    root : str or Path
        The powercap folder.

    Returns
    -------
    str
        ``"RAPL <zone> (<path>)"`` or ``"no energy counters (...)"``.
    """
    counter = find_rapl_package(root)
    if counter is None:
        return f"no energy counters (no readable package zone under {root})"
    return f"RAPL {counter.name} ({counter.energy_path})"


# --------------------------------------------------------------------------------------
# Single runs
# --------------------------------------------------------------------------------------


def _config(
    stencil: str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    threads: int | None,
    repeats: int,
    warmup: int,
    pin: bool,
    check: bool,
    energy: RaplCounter | None,
    schedule: str | None = None,
) -> Any:
    name, s, t = _problem(stencil, sizes, tiles)
    schedule = _resolve_schedule(schedule, name)
    n_threads = default_threads() if threads is None else _positive_int(threads, "threads", 1, 256)
    if energy is not None and not isinstance(energy, RaplCounter):
        raise TypeError(f"energy: expected a RaplCounter or None, got {type(energy).__name__}")
    return _cm.RunConfig(
        stencil=name,
        size_s1=s[0],
        size_s2=s[1],
        size_s3=s[2],
        size_t=s[3],
        tile_s1=t[0],
        tile_s2=t[1],
        tile_s3=t[2],
        tile_t=t[3],
        threads=n_threads,
        repeats=_positive_int(repeats, "repeats", 1, 1000),
        warmup=_positive_int(warmup, "warmup", 0, 1000),
        pin=_convert.boolean(pin, "pin"),
        check=_convert.boolean(check, "check"),
        energy_path="" if energy is None else str(energy.energy_path),
        energy_range_uj=0.0 if energy is None else energy.max_energy_range_uj,
        schedule=schedule,
    )


def run(
    stencil: str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    threads: int | None = None,
    repeats: int = 3,
    warmup: int = 1,
    pin: bool = True,
    check: bool = True,
    energy: RaplCounter | None = None,
    schedule: str | None = None,
) -> Any:
    """Run a tiled stencil and time it (minimum of ``repeats`` runs after ``warmup``).

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    sizes : sequence of int
        ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)`` (Heat 3D).
    tiles : sequence of int
        ``(tS, tT)``, ``(tS1, tS2, tT)`` or ``(tS1, tS2, tS3, tT)``; ``tT`` even,
        ``tS2 >= 2`` in 2D, ``tS2, tS3 >= 1`` in 3D.
    threads : int, optional
        Worker threads (default: every CPU this process may use).
    repeats, warmup : int
        Timed and untimed runs.
    pin : bool
        Pin thread i to the i-th allowed CPU (Linux).
    check : bool
        Compare the result bitwise with the naive stencil.
    energy : RaplCounter, optional
        Package energy counter to read around each run.
    schedule : {"round-robin", "block"}, optional
        How a wavefront's tiles go to the threads: tile i to thread i mod threads, or
        contiguous blocks (neighbouring tiles, which share cache lines at their common
        boundary, on one thread). Default: :func:`default_schedule` (block in 1D).

    Returns
    -------
    RunResult
        Times (``time_min_s`` is the estimate), spread, counters and the check.

    Raises
    ------
    TypeError, ValueError, OverflowError
        For bad arguments (the message names the parameter).
    """
    cfg = _config(
        stencil, sizes, tiles, threads=threads, repeats=repeats, warmup=warmup, pin=pin,
        check=check, energy=energy, schedule=schedule,
    )  # fmt: skip
    return _cm.run(cfg)


def naive(stencil: str, sizes: Sequence[int]) -> npt.NDArray[np.float32]:
    """Return the final time level of the naive untiled stencil on the harness' data.

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    sizes : sequence of int
        ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)``.

    Returns
    -------
    numpy.ndarray
        float32, shape ``(S,)``, ``(S1, S2)`` or ``(S1, S2, S3)``.
    """
    name, s, _ = _problem(stencil, sizes, None)
    return _cm.naive(name, s[0], s[1], s[2], s[3])


def tiled(
    stencil: str,
    sizes: Sequence[int],
    tiles: Sequence[int],
    *,
    threads: int = 1,
    schedule: str | None = None,
) -> npt.NDArray[np.float32]:
    """Return the final time level of one tiled run (untimed), for correctness checks.

    Parameters
    ----------
    stencil, sizes, tiles
        As in :func:`run`.
    threads : int
        Worker threads.
    schedule : {"round-robin", "block"}, optional
        As in :func:`run`.

    Returns
    -------
    numpy.ndarray
        float32, shape ``(S,)``, ``(S1, S2)`` or ``(S1, S2, S3)``.
    """
    cfg = _config(
        stencil, sizes, tiles, threads=threads, repeats=1, warmup=0, pin=False, check=False,
        energy=None, schedule=schedule,
    )  # fmt: skip
    return _cm.tiled(cfg)


def harness_tiles(stencil: str, sizes: Sequence[int], tiles: Sequence[int]) -> tuple[int, ...]:
    """Return the tiles as the harness runs them: sub-tiles wider than ``S + tT`` clipped.

    A sub-tile at least ``S + tT`` wide (``tS2`` in 2D, ``tS2`` and ``tS3`` in 3D) holds the
    whole skewed extent of its dimension; the harness clips it to ``S + tT`` (harness 5),
    so every such width runs the same points, copies, sub-tiles and buffers: one run under
    several names. :func:`tune` and the sweep's model choices (:func:`default_points`)
    measure it once, and :func:`costmetrics.validate.tuner_curve_of` counts it as one
    configuration (``docs/validate-log.md``, "Harness 5" and "One run under several names").

    Parameters
    ----------
    stencil, sizes, tiles
        As in :func:`run`.

    Returns
    -------
    tuple of int
        The tiles in the layout of ``tiles``.

    Raises
    ------
    ValueError
        For a configuration the harness cannot run (as :func:`run`).
    """
    cfg = _config(
        stencil, sizes, tiles, threads=1, repeats=1, warmup=0, pin=False, check=False,
        energy=None,
    )  # fmt: skip
    return _tiles_of_config(_cm.as_run(cfg))


def _tiles_of_config(cfg: Any) -> tuple[int, ...]:
    """Return the tiles of a RunConfig in the layout of ``tiles`` ((tS, tT), ...)."""
    dims = space_dims(cfg.stencil)
    if dims == 1:
        return (int(cfg.tile_s1), int(cfg.tile_t))
    if dims == 2:
        return (int(cfg.tile_s1), int(cfg.tile_s2), int(cfg.tile_t))
    return (int(cfg.tile_s1), int(cfg.tile_s2), int(cfg.tile_s3), int(cfg.tile_t))


# --------------------------------------------------------------------------------------
# Machine record
# --------------------------------------------------------------------------------------


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def _cpu_model() -> str:
    for line in _read(Path("/proc/cpuinfo")).splitlines():
        if line.lower().startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def _cache_bytes(level: int) -> int:
    """Size of the data/unified cache of ``level`` seen by CPU 0, from sysfs (0 if unknown)."""
    root = Path("/sys/devices/system/cpu/cpu0/cache")
    if not root.is_dir():
        return 0
    for index in sorted(root.glob("index*")):
        if _read(index / "level") == str(level) and _read(index / "type") in ("Data", "Unified"):
            text = _read(index / "size").upper()
            factor = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
            digits = text.rstrip("KMG")
            if digits.isdigit():
                return int(digits) * factor
    return 0


def machine_record(*, threads: int | None = None) -> dict[str, Any]:
    """Describe this machine and the compiled harness, for table headers and presets.

    Parameters
    ----------
    threads : int, optional
        Worker threads the measurements use (default ``default_threads()``).

    Returns
    -------
    dict
        CPU model, logical CPUs, allowed CPUs, threads, SIMD lanes, cache sizes, compiler
        and instruction set of the harness, OS, Python, costmetrics version, load average.
    """
    from costmetrics import __version__

    n_threads = default_threads() if threads is None else _positive_int(threads, "threads", 1, 256)
    return {
        "cpu_model": _cpu_model(),
        "logical_cpus": os.cpu_count() or 0,
        "allowed_cpus": default_threads(),
        "threads": n_threads,
        "simd_lanes_float": int(_cm.simd_lanes_float()),
        "l1d_bytes": _cache_bytes(1),
        "l2_bytes": _cache_bytes(2),
        "l3_bytes": _cache_bytes(3),
        "harness_compiler": str(_cm.compiler_description()),
        "harness_version": HARNESS_VERSION,
        "harness_flags": "project CMake Release flags (-O3 -DNDEBUG), no -march",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "costmetrics": __version__,
        "loadavg": list(_loadavg()),
        "energy": energy_status(),
    }


def _loadavg() -> tuple[float, float, float]:
    try:
        a, b, c = os.getloadavg()
    except (AttributeError, OSError):
        return (float("nan"),) * 3
    return (round(a, 2), round(b, 2), round(c, 2))


# --------------------------------------------------------------------------------------
# Calibration (Sec. A.5.1 micro-benchmarks)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    """Machine parameters of the time model measured by micro-benchmarks on this CPU.

    Attributes
    ----------
    gpu : Gpu
        The machine preset in the layout of ``data/gpus/*.yaml`` (n_sm = threads, n_v =
        SIMD lanes, M_SM = the tile-buffer budget, MTB_SM = 1, L, tau_sync, T_sync).
    stencils : dict of str to Stencil
        One preset per harness stencil with C_iter for ``gpu.key``.
    machine : dict
        :func:`machine_record` at calibration time.
    micro : dict
        Every micro-benchmark point's statistics (``value_s`` = ``median_s``, the median
        over the passes, ``min_s``, ``max_s``, ``passes``: every pass's value, ``units``,
        ``threads``; copy points also their working set, segment and memory level).
    settings : dict
        The calibration's arguments (working set, repeats, seed, ...).
    """

    gpu: Gpu
    stencils: dict[str, Stencil]
    machine: dict[str, Any] = field(repr=False)
    micro: dict[str, dict[str, Any]] = field(repr=False)
    settings: dict[str, Any] = field(repr=False)

    def c_iter_s(self, stencil: str) -> float:
        """Return C_iter of a harness stencil in seconds per SIMD vector.

        Parameters
        ----------
        stencil : str
            One of :data:`STENCILS`.

        Returns
        -------
        float
            C_iter in seconds.
        """
        return self.stencils[_stencil_name(stencil)].c_iter_on(self.gpu)

    def with_parameters(
        self, l_s_per_word: float, tau_sync_s: float, t_sync_s: float, c_iter_s: dict[str, float]
    ) -> Calibration:
        """Return a copy with other values of L, tau_sync, T_sync and C_iter.

        Parameters
        ----------
        l_s_per_word : float
            L in seconds per 4-byte word.
        tau_sync_s, t_sync_s : float
            Seconds.
        c_iter_s : dict of str to float
            C_iter per stencil in seconds (stencils not given keep theirs).

        Returns
        -------
        Calibration
            The new calibration (machine, micro and settings are shared).
        """
        gpu = replace(
            self.gpu, l_s_per_gb=l_s_per_word * 1e9 / BYTES_PER_WORD, tau_sync_s=tau_sync_s,
            t_sync_s=t_sync_s,
        )  # fmt: skip
        stencils = {
            name: _stencil_preset(name, gpu.key, c_iter_s.get(name, self.c_iter_s(name)))
            for name in self.stencils
        }
        return Calibration(gpu, stencils, self.machine, self.micro, self.settings)

    @property
    def statistic(self) -> str:
        """How each micro-benchmark's value was taken over its passes (``"median"``, ``"min"``)."""
        return str(self.settings.get("statistic", "median"))

    def with_statistic(self, statistic: str) -> Calibration:
        """Return the calibration derived again with another per-point statistic.

        Every pass of every micro-benchmark is kept in ``micro``; the parameters are
        derived from them as :func:`calibrate` does, with ``statistic`` over the passes.

        Parameters
        ----------
        statistic : {"median", "min"}
            :func:`point_statistic`.

        Returns
        -------
        Calibration
            ``self`` when it already uses ``statistic``, else a new calibration.

        Raises
        ------
        ValueError
            For another statistic, or a calibration whose settings, passes or machine
            record do not give back the points it measured (written by an older version).
        """
        stat = _statistic_name(statistic)
        if stat == self.statistic:
            return self
        return self._derived_again(stat)

    def derived_again(self, *, buffer_budget_bytes: int | None = None) -> Calibration:
        """Return the calibration derived again from its passes by this version's rules.

        Nothing is measured: every pass of every micro-benchmark is kept in ``micro``, and
        the parameters are derived from them as :func:`calibrate` derives them now. A
        calibration saved by an older version thus gets the parameters this version's
        rules give its measurements (``benchmarks/bench_validate_rescore.py`` scores the
        shipped tables so).

        Parameters
        ----------
        buffer_budget_bytes : int, optional
            The tile-buffer budget M_SM in bytes; default: the one saved in ``settings``
            (:func:`calibrate`'s ``buffer_budget_bytes``).

        Returns
        -------
        Calibration
            A new calibration with the same statistic.

        Raises
        ------
        ValueError
            For a budget outside [1024, 2^40] bytes, or a calibration whose settings,
            passes or machine record do not give back the points it measured.
        """
        budget = None
        if buffer_budget_bytes is not None:
            budget = _positive_int(buffer_budget_bytes, "buffer_budget_bytes", 1024, 2**40)
        return self._derived_again(self.statistic, budget, "calibration")

    def _derived_again(
        self, stat: str, budget: int | None = None, name: str = "statistic"
    ) -> Calibration:
        """Derive the calibration from its stored passes with this version's rules."""
        st, m = self.settings, self.machine
        # Which calibration, for the messages: validate takes one per thread count.
        this = f"the {int(self.gpu.n_sm)}-thread calibration {self.gpu.key!r}"
        try:
            caches = (int(m["l1d_bytes"]), int(m["l2_bytes"]), int(m["l3_bytes"]))
            thread_list = [int(a) for a in st["threads"]]
            points = _calibration_points(
                thread_list, int(st["working_set_words"]), int(st["segment_words"]),
                [int(v) for v in st["segments"]], int(st["max_working_set_words"]), caches,
                list(self.stencils), bool(st.get("l3_curve", False)),
                bool(st.get("l3_climb", False)), bool(st.get("stream_curve", False)),
                bool(st.get("gap_curve", False)),
            )  # fmt: skip
            samples = {k: [float(v) for v in self.micro[k]["passes"]] for k in points}
            units = {k: int(self.micro[k]["units"]) for k in points}
            # Calibrations before 2026-11-25 07:40 UTC keep the time only in the source text.
            when = str(st.get("measured_at") or self.gpu.source.split("CPU, ", 1)[1].split(",")[0])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if not all(isinstance(r, Mapping) and isinstance(r.get("passes"), list)
                       for r in self.micro.values()):  # fmt: skip
                # Saved before every pass was kept: said as a TypeError of the settings.
                what = f"the statistic {stat!r}" if stat != self.statistic else "deriving it again"
                raise ValueError(
                    f"{name}: {this} lacks the stored passes of its micro-benchmarks "
                    f"that {what} needs (saved by an older version; calibrate again)"
                ) from None
            raise ValueError(
                f"{name}: {this} cannot be derived again (its settings, passes "
                f"or machine record are incomplete: {exc!r})"
            ) from None
        if set(points) != set(self.micro):
            raise ValueError(
                f"{name}: the micro-benchmarks of {this} are not the ones its settings "
                "give (written by another version)"
            )
        settings = {k: v for k, v in st.items() if k != "fits"}
        settings["statistic"] = stat
        if budget is not None:
            settings["buffer_budget_bytes"] = budget
        return _derive_calibration(
            samples, units, points, list(self.stencils), m, settings, caches, when
        )


def _stencil_preset(name: str, gpu_key: str, c_iter: float) -> Stencil:
    return Stencil(
        name=DISPLAY_NAMES[name],
        key=name,
        n_space_dims=space_dims(name),
        c_iter_s={gpu_key: c_iter},
        description=f"harness stencil {name} (cpp/src/measure.cpp), C_iter per SIMD vector",
        source="costmetrics calibrate: compute-only micro-benchmark (Sec. A.5.1 on the CPU)",
    )


def _micro_dict(r: Any) -> dict[str, float]:
    return {k: float(v) for k, v in r._asdict().items()}


#: Memory levels of the machine variant (``costmetrics.time.MEMORY_LEVELS``).
_LEVELS = ("L1", "L2", "L3", "DRAM")
#: The copy points from this level on copy ``warmup_words`` untimed first (:func:`_run_point`).
_WARMED_FROM_LEVEL = _LEVELS.index("L3")
#: The L3 size :func:`calibrate` assumes for its copy points' warm-up where the machine
#: does not say (bytes).
COPY_WARMUP_L3_FALLBACK_BYTES = 32 * 2**20
#: Segment lengths (words) of the copy-cost sweep.
DEFAULT_SEGMENTS: tuple[int, ...] = (1, 2, 4, 8, 16, 64, 256)
#: Run lengths (words) of the interleaved copy at the DRAM level, each a gap of as many from
#: the next run of its pass (the prefetch term's micro-benchmark, ``_fit_gap``).
GAP_SEGMENTS: tuple[int, ...] = (16, 64, 256, 1024)
#: Words of a gap that the ``machine`` variant's prefetch term charges at most
#: (``prefetch_ahead_words``): the Intel L2 streamer runs up to 20 lines of 16 floats ahead
#: of the loads (docs/time.md, "Words streamed into a 1D wavefront's gaps").
PREFETCH_AHEAD_WORDS = 20.0 * 16.0


def _copy_level(ws_words: int, threads: int, caches: Sequence[int]) -> int:
    """Memory level of a copy benchmark's array, by the rule of ``time.memory_level``."""
    total = 4 * ws_words
    per_core = total / threads
    l1, l2, l3 = caches
    if l1 and per_core <= l1:
        return 0
    if l2 and per_core <= l2:
        return 1
    if l3 and total <= l3:
        return 2
    return 3


def _level_working_sets(threads: int, caches: Sequence[int], limit: int) -> dict[int, int]:
    """Return a working set (floats) per memory level the harness can reach.

    Half of each cache (per core for L1/L2, in all for L3), four times L3 for DRAM, at
    most ``limit``.
    """
    l1, l2, l3 = caches
    wanted = {0: threads * l1 // 8, 1: threads * l2 // 8, 2: l3 // 8, 3: max(4 * l3, 2**27) // 4}
    out = {}
    for level, ws in wanted.items():
        ws = min(ws, limit)
        if ws >= 4 * 256 * threads and _copy_level(ws, threads, caches) == level:
            out[level] = ws
    return out


def _l3_curve_working_sets(
    threads: int, caches: Sequence[int], limit: int, climb: bool = True
) -> list[tuple[int, int]]:
    """Return (level, working set in floats) of the copy points that shape the L3 curve.

    A quarter of L3 and twice L3, beside the per-level points (half of L3, four times L3),
    so that :func:`effective_l3_bytes` fits its two unknowns to four points past the
    smallest L3 one rather than two; at most ``limit``, each at the level its size gives.

    Where the harness cannot reach past the L3 (no DRAM point: sysfs's L3 is more than a
    quarter of ``limit``), those points all lie near the harness limit, where on a shared
    virtual machine the copy cost can be DRAM's (2026-11-28, an Intel Xeon guest with 480
    MiB of L3 by sysfs: the cost per word rose 7.5x from 2 to 128 MiB). The copy fit then
    had the L3 cost of 128 MiB arrays at 2 threads and of the 2 MiB reference at 1 thread,
    and read the difference as a shared cost per word 7x the copy cost (the unfitted
    machine variant 83-87% off at 2 threads, docs/validate.md, "A second machine"). So the
    curve also has points from twice the L2 of the working cores up, 4x apart: the L3
    costs are fitted across the sizes the problems use. ``climb=False`` leaves them out
    (calibrations written before 2026-11-28 23:30 UTC lack them).
    """
    l2, l3 = caches[1], caches[2]
    if l3 <= 0:
        return []
    smallest = 4 * 256 * threads
    out = [ws for ws in (l3 // 16, l3 // 2) if smallest <= ws <= limit]  # floats: 4 bytes
    per_level = _level_working_sets(threads, caches, limit) if climb and l2 > 0 else {}
    if per_level and 3 not in per_level:
        ws = max(2 * threads * l2 // BYTES_PER_WORD, 1)  # > 0: the loop grows it 4x
        while ws <= limit and BYTES_PER_WORD * ws < l3:
            # A size measured already (another curve point, a per-level point) is not
            # measured twice under a second name.
            if ws >= smallest and ws not in out and ws not in per_level.values():
                out.append(ws)
            ws *= 4
    return [(lv, ws) for lv, ws in ((_copy_level(w, threads, caches), w) for w in out) if lv >= 2]


def _l3_copy_points(
    micro: dict[str, Any], threads: int, segment_words: int, order: str = "random"
) -> list[tuple[int, float, bool]]:
    """Copy points at the L3 and DRAM levels: (bytes, cost per word, at the DRAM level).

    Only the records at ``threads``, ``segment_words`` and ``order`` (``"random"``: the
    copy points, whose records have no ``order``; ``"sequential"``: the streaming twins of
    :func:`_calibration_points`); malformed ones are skipped. Raises TypeError/ValueError
    naming ``micro``, ``threads``, ``segment_words`` or ``order``.
    """
    if not isinstance(micro, Mapping):
        raise TypeError(f"micro: expected a mapping of records, got {type(micro).__name__}")
    threads = _positive_int(threads, "threads", 1, 1 << 20)
    segment_words = _positive_int(segment_words, "segment_words", 1, 1 << 40)
    order = _copy_order(order)
    pts: list[tuple[int, float, bool]] = []
    for rec in micro.values():
        if not isinstance(rec, dict) or rec.get("memory_level") not in ("L3", "DRAM"):
            continue
        if rec.get("threads") != threads or rec.get("segment_words") != segment_words:
            continue
        if rec.get("order", "random") != order:
            continue
        try:
            cost = float(rec.get("value_s", 0.0))
            ws = int(rec.get("working_set_words", 0))
        except (TypeError, ValueError):
            continue
        # A working set past 2^48 words (1 PiB, the model's cache limit) is not a copy point.
        if cost > 0 and np.isfinite(cost) and 0 < ws <= 1 << 48:
            pts.append((BYTES_PER_WORD * ws, cost, rec["memory_level"] == "DRAM"))
    return pts


#: Orders of a copy benchmark's segments (``bench_copy``'s ``sequential``).
COPY_ORDERS: tuple[str, ...] = ("random", "sequential")


def _copy_order(order: object) -> str:
    """Return ``order`` if it is one of :data:`COPY_ORDERS`, else raise naming it."""
    if not isinstance(order, str):
        raise TypeError(f"order: expected one of {list(COPY_ORDERS)}, got {order!r}")
    if order not in COPY_ORDERS:
        raise ValueError(f"order: expected one of {list(COPY_ORDERS)}, got {order!r}")
    return order


def effective_l3_bytes(
    micro: dict[str, Any],
    l3_bytes: int,
    *,
    threads: int,
    segment_words: int = 64,
    climb_top_as_dram: bool = False,
) -> int:
    """L3 capacity in effect: how much of a larger array stays in L3, from the copy curve.

    sysfs reports the L3 of the whole cache complex; on a shared (virtual) machine other
    cores use it too, and an array well inside it can already stream partly from DRAM.
    The calibration measures the copy cost per word at working sets across L1/L2/L3/DRAM
    (reference segment length). The model (``costmetrics.time.dram_share``): an array of
    ``B`` bytes swept cyclically through an L3 that keeps ``C`` bytes of it streams the
    share ``max(0, 1 - C / B)`` from DRAM, so past the smallest L3 point (cost ``c0``)
    the copy cost is ``c(B) = c0 + D max(0, 1 - C / B)``. ``C`` and ``D >= 0`` are fitted
    to the points past the smallest L3 point by least squares on the relative residuals
    (``D`` linear for each ``C``, ``C`` by SciPy's bounded scalar minimisation between the
    smallest L3 point and sysfs's size; ``docs/validate.md``, "Arrays partly in L3").

    Parameters
    ----------
    micro : dict
        The calibration's micro-benchmark records (``Calibration.micro``; copy points
        carry ``threads``, ``working_set_words``, ``segment_words``, ``memory_level``).
    l3_bytes : int
        The L3 size from sysfs (0: unknown, returned unchanged).
    threads : int
        Thread count whose copy points decide.
    segment_words : int
        Segment length of the per-level copy points.
    climb_top_as_dram : bool
        Where no copy point reaches past sysfs's L3 (a large L3, the calibration's climb,
        ``_l3_curve_working_sets``), take the largest working set for the DRAM point.
        The fitted ``machine`` variant uses this (``costmetrics.validate``); a calibration
        does not, because the copy benchmark's cost there is not what the stencils pay
        (``docs/validate-log.md``, "A second machine").

    Returns
    -------
    int
        ``C`` in bytes, at most ``l3_bytes``; ``l3_bytes`` where the points needed (an L3
        point and two larger working sets, one of them at the DRAM level, at ``threads``)
        are missing or the cost does not rise past the L3 point.
    """
    from scipy.optimize import minimize_scalar

    pts = _l3_copy_points(micro, threads, segment_words)
    l3_bytes = _positive_int(l3_bytes, "l3_bytes", 0, 1 << 50)
    if l3_bytes <= 0 or not pts:
        return l3_bytes
    # Costs relative to the dearest; a point 10^9 times cheaper than it is not a copy cost.
    top = max(c for _, c, _ in pts)
    kept = sorted((b, c / top, dram) for b, c, dram in pts if c / top > 1e-9)
    if not any(dram for _, _, dram in kept):
        if not climb_top_as_dram or len(kept) < 3:
            return l3_bytes
        kept[-1] = (kept[-1][0], kept[-1][1], True)
    b0, c0, _ = kept[0]
    past = [(b, c) for b, c, _ in kept if b > b0]
    # The largest array must cost more than the L3 point (a rise to fit).
    if len({b for b, _ in past}) < 2 or past[-1][1] <= c0:
        return l3_bytes
    big = np.asarray([b for b, _ in past], dtype=np.float64)
    rise = np.asarray([c - c0 for _, c in past], dtype=np.float64)
    weight = 1.0 / np.asarray([c for _, c in past], dtype=np.float64)  # relative residuals

    def residual(capacity: float) -> float:
        share = np.maximum(0.0, 1.0 - capacity / big) * weight
        y = rise * weight
        den = float(share @ share)
        d = max(0.0, float(share @ y) / den) if den > 0 else 0.0
        return float(np.sum((share * d - y) ** 2))

    hi = float(min(l3_bytes, big.max()))
    if hi <= b0:
        return l3_bytes
    # The residual is smooth between consecutive working sets: minimise on each piece.
    # Where the data fix C only from below (one point past it: D alone fits that point),
    # the residual is flat on the piece; then the smallest C that fits is kept.
    edges = sorted({float(b0), hi, *(float(b) for b in big if b0 < b < hi)})
    best = (np.inf, float(l3_bytes))
    for lo, up in itertools.pairwise(edges):
        res = minimize_scalar(residual, bounds=(lo, up), method="bounded",
                              options={"xatol": 1024.0})  # fmt: skip
        r_min, x_min = float(res.fun), float(res.x)
        if residual(lo) <= r_min * (1 + 1e-9) + 1e-30:
            r_min, x_min = residual(lo), lo
        if r_min < best[0] * (1 - 1e-9) - 1e-30:
            best = (r_min, x_min)
    capacity = best[1]
    if not np.isfinite(capacity):
        return l3_bytes
    return int(min(l3_bytes, max(b0, round(capacity))))


@record
class DramShareCurve(Record):
    """A DRAM-share curve read off a calibration's copy curve (:func:`dram_share_curve`).

    Attributes
    ----------
    array_bytes : tuple of float
        Working sets in bytes, increasing (at most ``presets.DRAM_CURVE_POINTS``).
    dram_share : tuple of float
        The share streamed from DRAM at each, in [0, 1], not decreasing (0 first, 1 last).
    """

    array_bytes: tuple[float, ...]
    dram_share: tuple[float, ...]


def dram_share_curve(
    micro: dict[str, Any], *, threads: int, segment_words: int = 64, order: str = "random"
) -> DramShareCurve | None:
    """Read the share streamed from DRAM against the arrays' bytes off the copy curve.

    The calibration measures the copy cost per word at working sets from the smallest L3
    point to past the L3 (``_l3_curve_working_sets``). On a shared or virtual machine the
    cost climbs over that whole range, with no knee where ``1 - C / B`` would put one, and
    the capacity ``C`` fitted to it varies 3.4-14 MiB between calibrations of one machine
    (``docs/validate-log.md``, "The DRAM share from the copy curve"). This reads the share off
    the curve instead: at each working set ``B_k``, how far its cost is from the smallest
    L3 point's (share 0) towards the dearest point's (share 1). A larger working set is
    never cheaper (a running maximum: a dip is noise), so the shares do not decrease. The
    fitted ``machine`` variant uses it (``Gpu.dram_curve_bytes``); the model interpolates
    between the points (:func:`costmetrics.time.dram_share`).

    Parameters
    ----------
    micro : dict
        The calibration's micro-benchmark records (``Calibration.micro``).
    threads : int
        Thread count whose copy points are read.
    segment_words : int
        Segment length of the per-level copy points.
    order : {"random", "sequential"}
        Which copy points: segments drawn at random (every calibration has them), or swept
        in order as a stencil's wavefronts stream their arrays (calibrations since
        2026-12-04 08:50 UTC). On the Zen 5 guest the random order's cost per word is
        3.1x the sequential one's at 8 MiB and 3.7x at 16 MiB, where a streaming stencil's
        time per point has not yet risen (``docs/validate-log.md``, "The DRAM share of a
        copy that streams").

    Returns
    -------
    DramShareCurve or None
        The working sets in bytes (the first and the last kept where there are more than
        ``presets.DRAM_CURVE_POINTS``) and their shares; None where fewer than two working
        sets were measured at the L3 or DRAM level in that order or the cost does not rise
        past the first.
    """
    cost_at: dict[int, list[float]] = {}
    for size, cost, _ in _l3_copy_points(micro, threads, segment_words, order):
        cost_at.setdefault(size, []).append(cost)
    if len(cost_at) < 2:
        return None
    sizes = sorted(cost_at)
    return _share_curve(sizes, [float(np.median(cost_at[b])) for b in sizes])


def _share_curve(sizes: Sequence[float], costs: Sequence[float]) -> DramShareCurve | None:
    """:func:`dram_share_curve`'s rule on (bytes, cost per word) points, bytes increasing.

    A running maximum of the costs (a dip is noise), the first point's share 0 and the
    dearest's 1; None where the cost does not rise past the first.
    """
    cost = np.maximum.accumulate(np.asarray(costs, dtype=np.float64))
    rise = float(cost[-1] - cost[0])
    if len(sizes) < 2 or not rise > 0:
        return None
    kept = list(sizes)
    if len(kept) > DRAM_CURVE_POINTS:
        keep = np.unique(np.linspace(0, len(kept) - 1, DRAM_CURVE_POINTS).round().astype(int))
        kept, cost = [kept[k] for k in keep], cost[keep]
    shares = np.clip((cost - cost[0]) / rise, 0.0, 1.0)
    return DramShareCurve(tuple(float(b) for b in kept), tuple(float(x) for x in shares))


def _l3_in_effect(
    micro: dict[str, Any],
    settings: dict[str, Any],
    l3_bytes: int,
    *,
    threads: int,
    climb_top_as_dram: bool = False,
) -> int:
    """:func:`effective_l3_bytes` at a stored calibration's segment length (64 if unset)."""
    return effective_l3_bytes(micro, l3_bytes, threads=threads,
                              segment_words=_segment_words_of(settings),
                              climb_top_as_dram=climb_top_as_dram)  # fmt: skip


def _segment_words_of(settings: dict[str, Any]) -> int:
    """Return the segment length a calibration's copy points were measured at (64 if unset)."""
    seg = settings.get("segment_words", 64)
    return seg if isinstance(seg, int) else 64


def check_writable(out_dir: str | Path, name: str = "out") -> Path:
    """Check, before long work starts, that ``out_dir`` can be created and written.

    Parameters
    ----------
    out_dir : str or Path
        The destination folder (created if missing).
    name : str
        The argument's name for the error message.

    Returns
    -------
    Path
        The folder.

    Raises
    ------
    ValueError
        If it cannot be created or written (the message names the argument and path).
    """
    if not isinstance(out_dir, (str, Path)):
        raise TypeError(f"{name}: expected a path, got {type(out_dir).__name__}")
    return writable_folder(Path(out_dir), name)


class _Progress:
    """A one-line progress bar on standard error (nothing when disabled)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, 0, enabled

    def step(self, what: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = round(width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (width - filled)
        end = "\n" if self.done >= self.total else ""
        print(f"\rcalibrate [{bar}] {self.done}/{self.total} {what:<40.40}", end=end,
              file=sys.stderr, flush=True)  # fmt: skip

    def note(self, text: str) -> None:
        if self.enabled:
            print(f"calibrate: {text}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class _MicroPoint:
    key: str
    # copy (segments in random order), stream (in order), gap (in order, the even segments
    # of a sweep first), barrier, share, compute, row
    kind: str
    threads: int
    ws_words: int = 0
    segment_words: int = 0
    stencil: str = ""
    level: int = -1


def _run_point(pt: _MicroPoint, n_cfg: int, seed: int, pin: bool, warmup_words: int = 0) -> Any:
    if pt.kind in ("copy", "stream", "gap"):
        # The points past the L2 first copy warmup_words untimed: the dirty lines that the
        # previous point of the shuffled order left in the L3 are written back then, not in
        # the timed run (docs/validate-log.md, "A slow mode of the copy").
        warm = warmup_words if pt.level >= _WARMED_FROM_LEVEL else 0
        return _cm.bench_copy(pt.threads, pt.ws_words, pt.segment_words, 1, pin,
                              pt.kind != "copy", warm, pt.kind == "gap")  # fmt: skip
    if pt.kind == "barrier":
        return _cm.bench_barrier(pt.threads, 1, pin)
    if pt.kind == "share":
        return _cm.bench_share(pt.threads, 1, pin)
    if pt.kind == "compute":
        return _cm.bench_compute(pt.stencil, pt.threads, n_cfg, 1, seed, pin)
    return _cm.bench_row(pt.stencil, pt.threads, 1, pin)


def _calibration_points(
    thread_list: Sequence[int],
    ws: int,
    seg: int,
    seg_list: Sequence[int],
    ws_limit: int,
    caches: Sequence[int],
    names: Sequence[str],
    l3_curve: bool = True,
    l3_climb: bool = True,
    stream_curve: bool = True,
    gap_curve: bool = True,
) -> dict[str, _MicroPoint]:
    """Every micro-benchmark of :func:`calibrate` at the thread counts it needs, by name.

    ``l3_curve``: also the copy points between L3 and DRAM of :func:`_l3_curve_working_sets`
    (calibrations written before 2026-11-25 10:30 UTC lack them); ``l3_climb``: with its
    points inside an L3 the harness cannot reach past (before 2026-11-28 23:30 UTC: none);
    ``stream_curve``: each copy point at the L3 or DRAM level also with its segments swept
    in order (``stream_<level>_<words>w_<threads>t``; before 2026-12-04 08:50 UTC: none),
    the DRAM-share curve of a stencil that streams (:func:`dram_share_curve`);
    ``gap_curve``: at the DRAM level, the in-order copy of runs of each of
    :data:`GAP_SEGMENTS` words interleaved (``gap_<words>w_<threads>t``) and not
    (``stream_run<words>w_<threads>t``, or the streaming twin at the calibration's segment),
    the prefetch term's micro-benchmark (``_fit_gap``; before 2026-12-04 21:45 UTC:
    none).
    """
    n_threads = thread_list[-1]
    points: dict[str, _MicroPoint] = {}

    def add(pt: _MicroPoint) -> None:
        points.setdefault(pt.key, pt)

    for a in thread_list:
        ref_level = _copy_level(ws, a, caches)
        name = "l_copy" if a == n_threads else ("l_copy_one_thread" if a == 1 else "")
        add(_MicroPoint(name or f"copy_ref_{a}t", "copy", a, ws, seg, level=ref_level))
        if a in (1, n_threads):
            for s in seg_list:
                add(_MicroPoint(f"copy_seg{s}_{a}t", "copy", a, ws, s, level=ref_level))
        for level, level_ws in _level_working_sets(a, caches, ws_limit).items():
            add(_MicroPoint(f"copy_{_LEVELS[level]}_{a}t", "copy", a, level_ws, seg, level=level))
        if l3_curve:
            for level, curve_ws in _l3_curve_working_sets(a, caches, ws_limit, l3_climb):
                key = f"copy_{_LEVELS[level]}_{curve_ws}w_{a}t"
                add(_MicroPoint(key, "copy", a, curve_ws, seg, level=level))
        if stream_curve:
            for pt in [p for p in points.values() if p.kind == "copy" and p.threads == a]:
                if pt.level >= 2 and pt.segment_words == seg:
                    key = f"stream_{_LEVELS[pt.level]}_{pt.ws_words}w_{a}t"
                    add(_MicroPoint(key, "stream", a, pt.ws_words, seg, level=pt.level))
        dram_ws = _level_working_sets(a, caches, ws_limit).get(3)
        if gap_curve and dram_ws is not None:
            for s in GAP_SEGMENTS:
                if dram_ws < 4 * s * a:
                    continue
                add(_MicroPoint(f"gap_{s}w_{a}t", "gap", a, dram_ws, s, level=3))
                if not (stream_curve and s == seg):  # else the streaming twin above
                    add(_MicroPoint(f"stream_run{s}w_{a}t", "stream", a, dram_ws, s, level=3))
        add(_MicroPoint("t_sync_barrier" if a == n_threads else f"barrier_{a}t", "barrier", a))
    if n_threads >= 2:
        add(_MicroPoint("share_line", "share", n_threads))
    for name in names:
        add(_MicroPoint(f"c_iter_{name}", "compute", n_threads, stencil=name))
        add(_MicroPoint(f"row_{name}", "row", n_threads, stencil=name))
    return points


#: The ``order`` a calibration records for the copy points swept in order (a random-order
#: copy point records none).
_ORDER_OF_KIND = {"stream": "sequential", "gap": "interleaved"}


#: Smallest share of a copy point's words at a memory level for the point to inform that
#: level's costs in the calibration's fit (:func:`_fit_copy`).
_COPY_LEVEL_SHARE_MIN = 0.01


def _copy_dram_share(ws_words: int, level: int, l3_bytes: int) -> float:
    """Share of a copy point's words from DRAM: ``1 - l3_bytes / B`` past the L3 in effect.

    The calibrated ``machine`` variant's split (``costmetrics.time.dram_share`` without a
    curve); ``level`` is the point's by sysfs (0-3).
    """
    size = BYTES_PER_WORD * ws_words
    if level < 2 or l3_bytes <= 0 or size <= l3_bytes:
        return 1.0 if level == 3 else 0.0
    return 1.0 - l3_bytes / size


def _fit_gap(
    stats: dict[str, dict[str, Any]], points: Sequence[_MicroPoint], threads: int, l3_bytes: int
) -> dict[str, Any] | None:
    """Fit the prefetch term ``l_prefetch_s_per_word`` to the interleaved copy at ``threads``.

    Each run of ``s`` words (a gap of ``s`` after it in its pass) costs ``e_s`` more than
    in the in-order sweep of the same words and runs: ``e_s = 2 s (t_gap - t_stream)``,
    ``t`` per word of one thread (half loaded, half stored). The model charges a 1D tile's
    run ``min(g, a) f l_prefetch`` (docs/time.md, "Words streamed into a 1D wavefront's
    gaps"), ``a`` = :data:`PREFETCH_AHEAD_WORDS` and ``f`` the array's DRAM share
    (``_copy_dram_share``); ``l_prefetch`` is the least-squares slope through 0 of
    ``e_s`` on ``min(s, a) f``, at least 0. None where the calibration has no such points
    at ``threads`` (no DRAM level, or calibrated before them).
    """
    pairs = []
    for p in points:
        if p.kind != "gap" or p.threads != threads:
            continue
        twin = next((q for q in points if q.kind == "stream" and q.threads == threads
                     and q.ws_words == p.ws_words and q.segment_words == p.segment_words),
                    None)  # fmt: skip
        if twin is not None:
            pairs.append((p, twin))
    if not pairs:
        return None
    runs = [p.segment_words for p, _ in pairs]
    extra = [
        2.0 * p.segment_words * (stats[p.key]["value_s"] - stats[q.key]["value_s"])
        for p, q in pairs
    ]
    share = _copy_dram_share(pairs[0][0].ws_words, pairs[0][0].level, l3_bytes)
    gap_words = np.minimum(np.asarray(runs, dtype=np.float64), PREFETCH_AHEAD_WORDS) * share
    slope = float(np.dot(gap_words, extra) / np.dot(gap_words, gap_words))
    return {
        "runs_words": runs,
        "extra_s_per_run": extra,
        "working_set_words": pairs[0][0].ws_words,
        "dram_share": share,
        "prefetch_ahead_words": PREFETCH_AHEAD_WORDS,
        "l_prefetch_s_per_word": max(slope, 0.0),
        "threads": threads,
    }


def _fit_copy(
    stats: dict[str, dict[str, Any]],
    points: Sequence[_MicroPoint],
    l_ref: float,
    n_ref: int,
    l3_bytes: int = 0,
) -> dict[str, Any]:
    """Fit the copy points by bounded least squares (SciPy).

    Per word of one thread, t = L + dL[level] + g[level] (threads - n_ref) + L_seg / segment;
    an array of B > ``l3_bytes`` bytes (at the L3 or DRAM level by sysfs) streams the
    share f = 1 - l3_bytes / B from DRAM and the rest from L3, so its dL and g are
    (1 - f) dL[L3] + f dL[DRAM] (``costmetrics.time.dram_share``).
    """
    from scipy.optimize import lsq_linear

    copies = [p for p in points if p.kind == "copy"]
    shares = [_copy_dram_share(p.ws_words, p.level, l3_bytes) for p in copies]
    # Each point's levels and their weights (L3 and DRAM by the DRAM share). A weight under
    # _COPY_LEVEL_SHARE_MIN is dropped: an array just past the L3 in effect streams a tiny
    # share from DRAM, one far past it a tiny share from L3, and a level seen only through
    # such shares is unconstrained (a quick calibration under load fitted 1.7e4 s per word
    # for L3, and its preset was refused); the level then keeps dL = 0, as one the
    # calibration did not measure.
    parts = [
        {p.level: 1.0}
        if p.level < 2
        else {lv: w for lv, w in ((2, 1.0 - f), (3, f)) if w >= _COPY_LEVEL_SHARE_MIN}
        for p, f in zip(copies, shares, strict=True)
    ]
    levels = sorted({lv for part in parts for lv in part})
    multi = len({p.threads for p in copies}) > 1
    columns = ["l_seg_s"] + [f"dl[{_LEVELS[lv]}]" for lv in levels]
    if multi:
        columns += [f"g[{_LEVELS[lv]}]" for lv in levels]
    a = np.zeros((len(copies), len(columns)))
    y = np.zeros(len(copies))
    for i, p in enumerate(copies):
        t = stats[p.key]["value_s"]
        y[i] = (t - l_ref) / t  # relative residuals: every point weighs the same
        a[i, 0] = 1.0 / p.segment_words / t
        for lv, w in parts[i].items():
            a[i, 1 + levels.index(lv)] = w / t
            if multi:
                a[i, 1 + len(levels) + levels.index(lv)] = w * (p.threads - n_ref) / t
    lo = np.array([0.0] + [-l_ref] * len(levels) + ([0.0] * len(levels) if multi else []))
    scale = max(l_ref, 1e-12)
    res = lsq_linear(a * scale, y, bounds=(lo / scale, np.inf), method="bvls")
    theta = np.asarray(res.x) * scale
    dl = [0.0] * 4
    g = [0.0] * 4
    for j, lv in enumerate(levels):
        dl[lv] = float(theta[1 + j])
        if multi:
            g[lv] = float(theta[1 + len(levels) + j])
        # One core alone must not cost less than nothing per word (the preset's rule).
        if n_ref > 1 and l_ref + dl[lv] - g[lv] * (n_ref - 1) < 0:
            g[lv] = (l_ref + dl[lv]) / (n_ref - 1)
    predicted = a @ theta
    return {
        "l_seg_s": float(theta[0]),
        "l_level_s_per_word": dl,
        "l_shared_s_per_word": g,
        "levels_measured": [_LEVELS[lv] for lv in levels],
        "rms_relative_residual": float(np.sqrt(np.mean((predicted - y) ** 2))),
        "points": len(copies),
    }


def _derive_calibration(
    samples: dict[str, list[float]],
    units: dict[str, int],
    points: dict[str, _MicroPoint],
    names: Sequence[str],
    machine: dict[str, Any],
    settings: dict[str, Any],
    caches: Sequence[int],
    when: str,
) -> Calibration:
    """Build the calibration from every pass of every micro-benchmark point.

    Each point's value is ``settings["statistic"]`` over its passes
    (:func:`point_statistic`); the parameters follow as :func:`calibrate` describes.
    """
    thread_list = [int(a) for a in settings["threads"]]
    n_threads = thread_list[-1]
    seg = int(settings["segment_words"])
    budget = int(settings["buffer_budget_bytes"])
    n_pass = int(settings["passes"])
    stat = str(settings["statistic"])
    micro: dict[str, dict[str, Any]] = {}
    for k, values in samples.items():
        pt = points[k]
        v = np.asarray(values, dtype=np.float64)
        micro[k] = {
            "value_s": float(_statistic(v, stat)), "statistic": stat,
            "median_s": float(np.median(v)), "min_s": float(v.min()), "max_s": float(v.max()),
            "repeats": len(values), "passes": values, "units": units[k], "threads": pt.threads,
        }  # fmt: skip
        if pt.kind in ("copy", "stream", "gap"):
            micro[k].update(
                working_set_words=pt.ws_words, segment_words=pt.segment_words,
                memory_level=_LEVELS[pt.level],
            )  # fmt: skip
        if pt.kind in _ORDER_OF_KIND:
            micro[k]["order"] = _ORDER_OF_KIND[pt.kind]
    l_ref = micro["l_copy"]["value_s"]
    c_iter = {name: micro[f"c_iter_{name}"]["value_s"] for name in names}
    rows = {name: micro[f"row_{name}"]["value_s"] - c_iter[name] for name in names}
    tau = max(max(rows.values()), 1e-12)
    tau_line = max([rows[n] for n in names if space_dims(n) == 2] + [0.0])
    # Heat 3D's own row benchmark where measured (its lines cost more, docs/time.md).
    tau_line_3d = max([rows[n] for n in names if space_dims(n) == 3] + [0.0]) or tau_line
    t_sync = micro["t_sync_barrier"]["value_s"]
    # Barrier: T_sync + beta (n - N), beta by least squares over the other thread counts.
    others = [(a, micro[f"barrier_{a}t"]["value_s"]) for a in thread_list if a != n_threads]
    beta = 0.0
    if others:
        num = sum((b - t_sync) * (a - n_threads) for a, b in others)
        den = sum((a - n_threads) ** 2 for a, _ in others)
        beta = min(max(num / den, 0.0), t_sync / (n_threads - 1))
    # The L3 capacity in effect (effective_l3_bytes, fitted to the copy curve): the copy
    # points past it are fitted as partly DRAM (dram_share), and the preset takes it;
    # sysfs's stays in the machine record and in fits["memory_levels"].
    l3_eff = effective_l3_bytes(micro, caches[2], threads=n_threads, segment_words=seg)
    copy_fit = _fit_copy(micro, list(points.values()), l_ref, n_threads, l3_eff)
    gap_fit = _fit_gap(micro, list(points.values()), n_threads, l3_eff)
    fits = {"copy": copy_fit, "barrier": {"t_barrier_per_thread_s": beta}, "gap": gap_fit,
            "line": {"tau_line_s": tau_line, "tau_line_3d_s": tau_line_3d},
            "memory_levels": {"l3_sysfs_bytes": caches[2],
                              "l3_effective_bytes": l3_eff}}  # fmt: skip
    share = micro["share_line"]["value_s"] if "share_line" in micro else 0.0
    lanes = int(_cm.simd_lanes_float())
    key = "cpu" + "".join(ch for ch in machine["cpu_model"].lower() if ch.isalnum())[:24]
    key = f"{key}{n_threads}t"
    source = (
        "costmetrics calibrate (micro-benchmarks of Sec. A.5.1 on the CPU, "
        f"{when}, loadavg {machine['loadavg']}, {stat} of {n_pass} interleaved shuffled "
        "passes, "
        f"threads {thread_list}). Mapping: n_sm = worker threads (one per core), "
        f"n_v = SIMD lanes for float ({lanes}), smem = tile-buffer budget per core, "
        "max_blocks_per_sm = 1 (k = 1); registers_per_sm and shared_memory_banks are not "
        "used by the model (16 vector registers x lanes; 1). tau_sync = fixed cost of one "
        "tile row (no synchronization inside a CPU tile). Machine-variant terms: cache "
        "sizes from sysfs (L3: the capacity in effect fitted to the copy curve, arrays "
        "past it partly in DRAM); l_seg_s, "
        "l_level_s_per_word, l_shared_s_per_word (s/word, per L1/L2/L3/DRAM) fitted to "
        "the copy benchmarks; t_barrier_per_thread_s from the barrier at each thread "
        "count; tau_line_s = fixed cost of one 2D line, tau_line_3d_s of one 3D line (Heat "
        "3D's row benchmark); l_prefetch_s_per_word fitted to the in-order copy of runs "
        "interleaved against not, at the DRAM level, where measured (prefetch_ahead_words "
        "as for an Intel L2 streamer); t_share_line_s = one cache-line "
        "transfer between cores, and t_cross_row_s the same per row another thread "
        "stored; threads_ref = n_sm; innermost_multiple = 1 (Eq. A.32's "
        "warp multiple is the GPU's)."
    )
    gpu = Gpu(
        name=f"CPU {machine['cpu_model']} ({n_threads} threads)",
        key=key,
        n_sm=n_threads,
        n_v=lanes,
        smem_per_sm_bytes=budget,
        smem_per_block_bytes=budget,
        registers_per_sm=16 * lanes,
        shared_memory_banks=1,
        max_blocks_per_sm=1,
        l_s_per_gb=l_ref * 1e9 / BYTES_PER_WORD,
        tau_sync_s=tau,
        t_sync_s=t_sync,
        source=source,
        cache_l1_bytes=caches[0],
        cache_l2_bytes=caches[1],
        cache_l3_bytes=l3_eff,
        l_seg_s=copy_fit["l_seg_s"],
        l_level_s_per_word=tuple(copy_fit["l_level_s_per_word"]),
        l_shared_s_per_word=tuple(copy_fit["l_shared_s_per_word"]),
        tau_line_s=tau_line,
        tau_line_3d_s=tau_line_3d,
        t_barrier_per_thread_s=beta,
        prefetch_ahead_words=gap_fit["prefetch_ahead_words"] if gap_fit else 0.0,
        l_prefetch_s_per_word=gap_fit["l_prefetch_s_per_word"] if gap_fit else 0.0,
        t_share_line_s=share,
        # A row another thread stored starts with a line that moves from that core's
        # cache: the same benchmark (docs/time.md, "Rows another thread stored").
        t_cross_row_s=share,
        threads_ref=n_threads,
        innermost_multiple=1,  # no warp on a CPU: any innermost tile (Eq. A.32 is the GPU's)
        # The harness' default schedule (every stencil's, docs/validate.md).
        tile_schedule=DEFAULT_SCHEDULES[1],  # the same in every dimension
    )
    return Calibration(
        gpu, {n: _stencil_preset(n, key, c_iter[n]) for n in names}, machine, micro,
        {**settings, "fits": fits},
    )  # fmt: skip


def _note_calibration(
    bar: _Progress, cal: Calibration, names: Sequence[str], caches: Sequence[int]
) -> None:
    """Say on the progress bar what the calibration measured."""
    gpu = cal.gpu
    n_threads = gpu.n_sm
    seg = cal.settings["segment_words"]
    lanes = gpu.n_v
    l_ref = cal.micro["l_copy"]["value_s"]
    t_sync, tau = gpu.t_sync_s, gpu.tau_sync_s
    c_iter = {name: cal.micro[f"c_iter_{name}"]["value_s"] for name in names}
    copy_fit = cal.settings["fits"]["copy"]
    l3_eff, beta = gpu.cache_l3_bytes, gpu.t_barrier_per_thread_s
    tau_line, share = gpu.tau_line_s, gpu.t_share_line_s
    bar.note(
        f"L = {l_ref:.3g} s/word ({n_threads} threads, {seg}-float segments), "
        f"T_sync = {t_sync:.3g} s, tau_sync = {tau:.3g} s"
    )
    for name in names:
        bar.note(f"C_iter[{name}] = {c_iter[name]:.3g} s per {lanes}-lane vector")
    bar.note(
        f"L_seg = {gpu.l_seg_s:.3g} s/segment; per level "
        + ", ".join(
            f"{lv}: dL {d:+.3g}, shared {g:.3g}"
            for lv, d, g in zip(
                _LEVELS, gpu.l_level_s_per_word, gpu.l_shared_s_per_word, strict=False
            )
            if lv in copy_fit["levels_measured"]
        )
        + f" s/word (fit RMS {copy_fit['rms_relative_residual']:.1%})"
    )
    if l3_eff != caches[2]:
        bar.note(
            f"L3 in effect {l3_eff} bytes (sysfs {caches[2]}): larger arrays stream the share "
            "1 - L3 / size from DRAM (effective_l3_bytes, fitted to the copy curve)"
        )
    bar.note(
        f"t_barrier = {beta:.3g} s/thread, tau_line = {tau_line:.3g} s (3D: "
        f"{gpu.tau_line_3d_s:.3g} s), t_share = {share:.3g} s/line"
    )
    gap = cal.settings["fits"].get("gap")
    if gap:
        bar.note(
            "runs of "
            + ", ".join(f"{w}" for w in gap["runs_words"])
            + " words interleaved in DRAM cost "
            + ", ".join(f"{1e9 * e:.3g}" for e in gap["extra_s_per_run"])
            + f" ns more per run: l_prefetch = {gpu.l_prefetch_s_per_word:.3g} s/word"
            + f" up to {gap['prefetch_ahead_words']:.0f} words"
        )


def calibrate(
    *,
    threads: int | Sequence[int] | None = None,
    working_set_words: int = 2 * 514 * 514,
    segment_words: int = 64,
    buffer_budget_bytes: int | None = None,
    passes: int = 5,
    repeats: int | None = None,
    n_configs: int = 70,
    seed: int = 0,
    pin: bool = True,
    stencils: Sequence[str] = STENCILS,
    segments: Sequence[int] = DEFAULT_SEGMENTS,
    max_working_set_words: int = 33_554_432,  # 2^25 floats, the harness limit
    progress: bool = False,
    out: str | Path | None = None,
    statistic: str = "median",
) -> Calibration:
    """Measure the time model's parameters on this CPU (Sec. A.5.1) and build a preset.

    Every micro-benchmark point runs once per pass (after an untimed warm-up run), the
    points of a pass in a shuffled order, and the estimate is ``statistic`` over ``passes``
    (interleaved passes are independent samples; back-to-back repeats share the machine's
    momentary state). A copy point at the L3 or DRAM level warms up longer: it copies
    twice the L3's bytes untimed first (``settings["copy_warmup_words"]``), so that the
    dirty lines of the point before it are written back before the timed run, as a
    stencil's warm-up run does for its own. The ``exact`` parameters, at the largest
    thread count N:

    - ``L``: time per float copied between a main array of ``working_set_words`` floats
      and a thread's buffer, in segments of ``segment_words`` (half loads, half stores),
      all N threads copying at once;
    - ``T_sync``: one wavefront barrier with no work, N threads;
    - ``C_iter``: compute-only tile rows on data in the buffer, per SIMD vector of nV
      points, averaged over ``n_configs`` random tile shapes (the seed uses 70);
    - ``tau_sync``: the fixed cost of one tile row (a row of one SIMD vector minus
      C_iter), the largest over the stencils (a CPU tile has no synchronization inside).

    The ``machine`` variant's terms (``docs/time.md``, "Machine variant"):

    - cache sizes from sysfs; ``l_seg_s``, ``l_level_s_per_word`` and
      ``l_shared_s_per_word`` by bounded least squares (SciPy) over the copy cost against
      the segment length (``segments``) and against the working set at every memory level
      the harness can reach (L1, L2, L3, DRAM), at every thread count (all threads
      streaming at once);
    - ``t_barrier_per_thread_s``: the slope of the barrier time in the thread count;
    - ``l_prefetch_s_per_word`` (with ``prefetch_ahead_words`` =
      :data:`PREFETCH_AHEAD_WORDS`): at the DRAM level, the extra cost per run of an
      in-order copy whose runs of :data:`GAP_SEGMENTS` words are copied in two
      interleaved passes, as a 1D stencil's two wavefronts read their arrays, against the
      same runs in order (``_fit_gap``); 0 where the harness cannot reach DRAM;
    - ``tau_line_s``: the fixed cost of one line of a 2D stencil's row (the same row
      benchmark), the largest over the 2D stencils; ``tau_line_3d_s`` the same for the
      3D stencils (``tau_line_s`` when none is measured);
    - ``t_share_line_s``: one write of a cache line that the N threads write in turn;
    - ``t_cross_row_s``: the same, charged per row of a tile's input that a tile of the
      previous wavefront on another thread stored (2D and 3D);
    - ``threads_ref = N``, the thread count the ``exact`` parameters were measured with.

    Parameters
    ----------
    threads : int or sequence of int, optional
        Thread counts to measure (default: every allowed CPU). 1 is always added; the
        preset models the largest (n_SM = N); use ``Calibration.gpu.with_threads(n)`` to
        predict at another count.
    working_set_words : int
        Main array of the L benchmark; the default is the two time levels of the largest
        2D problem of :func:`default_points` (512 x 512 plus halo).
    segment_words : int
        Contiguous floats per copy of the L benchmark (about a tile row of tS2).
    buffer_budget_bytes : int, optional
        M_SM, the tile-buffer budget per core (default: the L2 cache per core, else 256
        KiB; half the L2 until 2026-11-29, which refused the fastest Heat 3D tiles on a
        512 KiB L2, docs/validate-log.md, "The selection targets re-measured").
    passes : int
        Interleaved passes over all points (the median is kept).
    repeats : int, optional
        Former name of ``passes`` (used when given).
    n_configs, seed : int
        Random tile shapes for C_iter, and the seed of the shapes and of the pass order.
    pin : bool
        Pin threads to cores.
    stencils : sequence of str
        Stencils to measure C_iter for.
    segments : sequence of int
        Segment lengths of the copy-cost sweep, floats (1 to 4096).
    max_working_set_words : int
        Largest array of the per-level copy points, floats (default and most: the
        harness limit, 2^25 = 128 MiB); levels that need more are not measured (their
        terms stay 0, and the calibration says which levels it measured).
    progress : bool
        Show a progress bar and what was measured on standard error.
    out : str or Path, optional
        Folder to save the calibration in (:func:`save_calibration`); checked to be
        writable before anything is measured.
    statistic : {"median", "min"}
        Each point's value over its passes (:func:`point_statistic`); every pass is kept,
        so :meth:`Calibration.with_statistic` derives the other one later.

    Returns
    -------
    Calibration
        The preset and every micro-benchmark's statistics and fits.
    """
    stat = _statistic_name(statistic)
    # The sweep's rule (no more threads than CPUs this process may use), plus 1 thread.
    thread_list = sorted({1, *_thread_list(threads)})
    n_threads = thread_list[-1]
    ws = _positive_int(working_set_words, "working_set_words", 1, 2**25)
    seg = _positive_int(segment_words, "segment_words", 1, 4096)
    n_pass = _positive_int(passes if repeats is None else repeats, "passes", 1, 1000)
    n_cfg = _positive_int(n_configs, "n_configs", 1, 1000)
    seed_value = _positive_int(seed, "seed", 0, 2**63 - 1)
    do_pin = _convert.boolean(pin, "pin")
    names = [_stencil_name(s) for s in stencils]
    if not names:
        raise ValueError("stencils: must name at least one stencil")
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence) or not segments:
        raise ValueError(f"segments: must be a non-empty list of integers, got {segments!r}")
    seg_list = sorted({_positive_int(v, "segments", 1, 4096) for v in segments})
    ws_limit = _positive_int(max_working_set_words, "max_working_set_words", 1, 2**25)
    if ws < 4 * max(seg, *seg_list) * n_threads:
        raise ValueError(
            f"working_set_words: must be at least 4 x segment x threads = "
            f"{4 * max(seg, *seg_list) * n_threads}, got {ws}"
        )
    out_dir = check_writable(out, "out") if out is not None else None
    l2 = _cache_bytes(2)
    budget = (
        _positive_int(buffer_budget_bytes, "buffer_budget_bytes", 1024, 2**40)
        if buffer_budget_bytes is not None
        else (l2 if l2 else 256 * 1024)
    )
    caches = (_cache_bytes(1), l2, _cache_bytes(3))

    points = _calibration_points(thread_list, ws, seg, seg_list, ws_limit, caches, names)
    # Words each L3/DRAM copy point copies untimed first: twice the L3's (so that its
    # writes alone fill it once), or twice 32 MiB where the L3 size is unknown.
    warmup_words = 2 * (caches[2] or COPY_WARMUP_L3_FALLBACK_BYTES) // BYTES_PER_WORD

    bar = _Progress(n_pass * len(points), progress)
    machine = machine_record(threads=n_threads)
    bar.note(
        f"{len(points)} points x {n_pass} passes, threads {thread_list}, caches L1/L2/L3 = "
        f"{caches[0]}/{caches[1]}/{caches[2]} bytes, load {machine['loadavg']}"
    )
    samples: dict[str, list[float]] = {k: [] for k in points}
    units: dict[str, int] = {}
    rng = np.random.default_rng(seed_value)
    keys = list(points)
    for p in range(n_pass):
        for i in rng.permutation(len(keys)):
            pt = points[keys[int(i)]]
            raise_if_terminated()  # a SIGTERM whose interrupt was lost (_interrupt)
            r = _run_point(pt, n_cfg, seed_value, do_pin, warmup_words)
            samples[pt.key].append(float(r.value_s))
            units[pt.key] = int(r.units)
            bar.step(f"pass {p + 1}/{n_pass} {pt.key}")
    settings = {
        "threads": thread_list,
        "working_set_words": ws,
        "segment_words": seg,
        "segments": seg_list,
        "max_working_set_words": ws_limit,
        "buffer_budget_bytes": budget,
        "passes": n_pass,
        "n_configs": n_cfg,
        "seed": seed_value,
        "pin": do_pin,
        "statistic": stat,
        "l3_curve": True,  # the copy points of _l3_curve_working_sets were measured
        "l3_climb": True,  # with the climb inside an L3 the harness cannot reach past
        "stream_curve": True,  # each L3/DRAM copy point also swept in order
        "gap_curve": True,  # the interleaved copy at the DRAM level (_fit_gap)
        "copy_warmup_words": warmup_words,  # untimed words before each L3/DRAM copy point
    }
    when = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    settings["measured_at"] = when  # kept for with_statistic, which derives it again
    cal = _derive_calibration(samples, units, points, names, machine, settings, caches, when)
    if progress:
        _note_calibration(bar, cal, names, caches)
    if out_dir is not None:
        save_calibration(cal, out_dir)
    return cal


def _yaml_dump(data: dict[str, Any], header: Sequence[str]) -> str:
    text = yaml.safe_dump(data, sort_keys=False, width=88, allow_unicode=True)
    return "".join(f"# {h}\n" for h in header) + text


def _preset_file_key(key: object, name: str) -> str:
    """Return a calibration's GPU key if it can name the file ``gpus/<key>.yaml``.

    The one rule of :func:`save_calibration` and :func:`load_calibration`: the key is
    joined into a path inside the calibration folder, so a path separator, a NUL, ``.``
    or ``..`` would put the preset outside ``gpus/`` (written there, or read from there).

    Raises
    ------
    ValueError
        Naming ``name`` and the key.
    """
    if not isinstance(key, str):
        raise ValueError(f"{name}: a GPU key must be a string, got {type(key).__name__} {key!r}")
    if key in ("", ".", "..") or any(c in key for c in "/\\\0"):
        raise ValueError(
            f"{name}: GPU key {key!r} cannot name the preset file gpus/<key>.yaml (no '/', "
            "'\\' or NUL, not empty, '.' or '..')"
        )
    return key


def save_calibration(cal: Calibration, out_dir: str | Path) -> list[Path]:
    """Write a calibration in the layout of ``data/``: presets plus the raw statistics.

    Writes ``out_dir/gpus/<key>.yaml`` (the machine preset, readable by
    :func:`costmetrics.load_gpu`), ``out_dir/stencils/<stencil>.yaml`` (C_iter, readable
    by :func:`costmetrics.load_stencil`) and ``out_dir/calibration.json`` (machine record,
    micro-benchmark statistics, settings, and the SHA-256 of each preset file written).
    :func:`load_calibration` reads only the listed files and refuses a folder whose files
    do not match: saved over an older calibration, the folder holds this one (the older
    one's other presets are ignored).

    Saves into one folder take turns (an exclusive lock on its hidden
    ``.calibration.lock``). Saved over an older calibration, the folder holds one of the
    two, whole, at every instant, even if the save is killed: the presets are first
    written beside their places as hidden pending files (``.<name>.yaml.pending``), then
    ``calibration.json`` (the moment the new calibration counts), then each pending file
    is renamed onto its place. A save killed before ``calibration.json`` leaves the older
    calibration (and pending files the next save replaces); one killed after it leaves the
    new one, whose presets not yet renamed :func:`load_calibration` reads from their
    pending files. (A save that replaced the presets first made a killed save lose the
    older calibration:
    its ``calibration.json`` no longer matched them.)

    Parameters
    ----------
    cal : Calibration
        From :func:`calibrate`.
    out_dir : str or Path
        Destination folder (created).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    TypeError
        If ``cal`` is not a :class:`Calibration`.
    ValueError
        If the GPU key cannot name a file in ``gpus/`` (a path separator, a NUL, ``.``
        or ``..``; nothing is written).
    """
    if not isinstance(cal, Calibration):
        raise TypeError(f"cal: expected a Calibration, got {type(cal).__name__}")
    _preset_file_key(cal.gpu.key, "cal.gpu.key")  # before anything is written
    out = Path(out_dir)
    (out / "gpus").mkdir(parents=True, exist_ok=True)
    (out / "stencils").mkdir(parents=True, exist_ok=True)
    # Two saves into one folder at once (two calibrate runs) take turns: they share the
    # pending files, and one renamed the other's away. A save takes well under a second.
    with _calibration_lock(out, shared=False):
        return _save_calibration_locked(cal, out)


def _save_calibration_locked(cal: Calibration, out: Path) -> list[Path]:
    """Write the calibration into ``out`` (:func:`save_calibration`, holding its lock)."""
    _finish_committed_save(out)
    written = []
    digests: dict[str, str] = {}

    def write(path: Path, text: str) -> None:
        pending = _pending_preset(path)
        # Ours by name: a leftover of a save killed before its commit, replaced; whatever
        # it is (a link would redirect the write outside the folder), never followed.
        try:
            if os.path.lexists(pending):
                os.unlink(pending)
        except OSError as exc:
            raise ValueError(f"out_dir: cannot replace {pending}: {exc.strerror or exc}") from None
        write_text_atomic(pending, text)  # renamed onto path below
        written.append(path)
        digests[path.relative_to(out).as_posix()] = _sha256(text.encode("utf-8"))

    write(
        out / "gpus" / f"{cal.gpu.key}.yaml",
        _yaml_dump(
            cal.gpu.to_dict(),
            [
                f"{cal.gpu.name}: time-model machine preset measured by costmetrics calibrate.",
                f"CPU: {cal.machine.get('cpu_model')}; harness: "
                f"{cal.machine.get('harness_compiler')}.",
                "Units: *_bytes bytes, *_s seconds, *_s_per_word seconds per 4-byte word, "
                "l_s_per_gb seconds per 1e9 bytes;",
                "l_level_s_per_word / l_shared_s_per_word list L1, L2, L3, DRAM "
                "(docs/time.md, Machine variant).",
            ],
        ),
    )
    for name, s in cal.stencils.items():
        write(
            out / "stencils" / f"{name}.yaml",
            _yaml_dump(s.to_dict(), [f"{s.name}: C_iter on {cal.gpu.name}"]),
        )
    meta = {
        "schema": _CALIBRATION_SCHEMA,
        "gpu_key": cal.gpu.key,
        "machine": cal.machine,
        "micro": cal.micro,
        "settings": cal.settings,
        "files": digests,
    }
    meta_path = out / "calibration.json"
    # The commit: from here the folder holds this calibration (its presets in place or
    # still pending); before, the older one, whose presets are all still in place.
    write_text_atomic(meta_path, json.dumps(meta, indent=2) + "\n")
    for path in written:
        os.replace(_pending_preset(path), linked_file(path))
    written.append(meta_path)
    return written


def _finish_committed_save(out: Path) -> None:
    """Rename into place the pending presets of the calibration ``out`` holds.

    They are left by a save killed after its commit; a new save renames them before it
    writes pending presets of its own.

    A second save killed before its own commit then leaves this calibration whole: it had
    overwritten the pending presets the first one's calibration.json still read, and the
    folder held neither calibration (the campaign of 2026-11-30, two kills in a row).
    """
    try:
        meta = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
        files = meta["files"]
        listed = [(str(rel), str(digest)) for rel, digest in files.items()]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return  # no calibration here, or one without digests: nothing is pending
    for rel, digest in listed:
        if not _is_preset_file(rel):
            continue  # not a preset of this layout; load_calibration refuses the folder
        place = out / rel
        if _listed_preset(place, digest) == _pending_preset(place):
            os.replace(_pending_preset(place), linked_file(place))


def _pending_preset(path: Path) -> Path:
    """Return where :func:`save_calibration` writes the preset ``path`` before its commit.

    Beside the file a link names (the rename onto it keeps the link), hidden.
    """
    real = linked_file(path)
    return real.with_name(f".{real.name}.pending")


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration written by :func:`save_calibration`.

    Parameters
    ----------
    path : str or Path
        The folder (holding ``calibration.json``, ``gpus/`` and ``stencils/``).

    Returns
    -------
    Calibration
        The presets and statistics.

    Raises
    ------
    ValueError
        If a file is missing or malformed (the message names it), or ``gpu_key`` cannot
        name a file in ``gpus/`` (the rule of :func:`save_calibration`).
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path: expected a folder path, got {type(path).__name__}")
    root = Path(path)
    # A save under way (save_calibration's lock) is waited for: read between its renames,
    # the folder was read as a mix of two calibrations, silently.
    with _calibration_lock(root, shared=True):
        return _load_calibration(root)


@contextmanager
def _calibration_lock(root: Path, *, shared: bool) -> Iterator[None]:
    """Hold the lock of the calibration folder ``root`` (save: exclusive; load: shared).

    A load of a folder without the lock file (saved before 2026-11-30, or never) takes
    none; a save creates it.
    """
    lock = root / ".calibration.lock"
    try:
        fd = os.open(lock, os.O_RDONLY if shared else os.O_RDWR | os.O_CREAT, 0o644)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        if shared:
            yield  # no lock file (or not readable): no save of this version is under way;
            return  # the read itself names a path it cannot read
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"out_dir: cannot open {lock}: {reason}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        except OSError:
            pass  # a file system without locks: as before
        yield
    finally:
        os.close(fd)


def _load_calibration(root: Path) -> Calibration:
    """Read the calibration folder ``root`` (:func:`load_calibration`)."""
    meta_path = root / "calibration.json"
    _, text = _convert.text_file(meta_path, "path")  # a regular UTF-8 file, bounded
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"path: {meta_path} is not valid JSON: {exc}") from None
    if not isinstance(meta, dict) or "gpu_key" not in meta:
        raise ValueError(f"path: {meta_path} is not a costmetrics calibration (no gpu_key)")
    _check_calibration_record(meta, meta_path)
    # Older folders (no digests) read gpus/<key>.yaml unchecked: '../x' read a preset
    # outside the folder. The rule save_calibration writes by.
    key = _preset_file_key(meta["gpu_key"], f"path: {meta_path}: gpu_key")
    gpu_path = root / "gpus" / f"{key}.yaml"
    if "files" in meta:
        gpu_path, stencil_paths = _calibration_files(meta, root, gpu_path)
    else:  # saved before the digests were recorded: every preset in the folder
        stencil_paths = sorted((root / "stencils").glob("*.yaml"))
    gpu = load_gpu(gpu_path)
    stencils = {}
    for p in stencil_paths:
        s = load_stencil(p)
        if s.key in STENCILS:
            stencils[s.key] = s
    if not stencils:
        raise ValueError(f"path: {root / 'stencils'} holds no harness stencil preset")
    micro, settings = dict(meta.get("micro", {})), dict(meta.get("settings", {}))
    cal = Calibration(gpu, stencils, dict(meta.get("machine", {})), micro, settings)
    # What follows derives the calibration again where it can; a calibration whose stored
    # values were checked above and that still cannot be derived is an older version's.
    # The L3 in effect and the copy terms follow this version's rule (effective_l3_bytes,
    # the DRAM share of arrays partly in L3), derived again from the stored passes where
    # the calibration keeps them; the sysfs size stays in the machine record. So does the
    # cost of a row another thread stored (the shared-line benchmark: calibrations older
    # than the term have it measured, not in their preset).
    try:
        again = cal._derived_again(cal.statistic).gpu
    except ValueError:
        l3 = _l3_in_effect(micro, settings, gpu.cache_l3_bytes, threads=gpu.n_sm)
        return replace(cal, gpu=replace(gpu, cache_l3_bytes=l3))
    return replace(
        cal,
        gpu=replace(
            gpu, cache_l3_bytes=again.cache_l3_bytes, l_seg_s=again.l_seg_s,
            l_level_s_per_word=again.l_level_s_per_word,
            l_shared_s_per_word=again.l_shared_s_per_word, source=again.source,
            innermost_multiple=again.innermost_multiple, t_cross_row_s=again.t_cross_row_s,
        ),
    )  # fmt: skip


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _calibration_files(meta: dict[str, Any], root: Path, gpu_path: Path) -> tuple[Path, list[Path]]:
    """Check the preset files calibration.json lists; return the files to read.

    Each listed file must be there with the recorded SHA-256, in its place or, where a
    save was killed after its calibration.json but before it renamed the file into place,
    as its pending file (:func:`save_calibration`); otherwise ValueError naming the folder
    (a file edited or replaced by hand, or a save of an older version killed midway).
    Returns the machine preset's file and the stencil presets' files.
    """
    files = meta["files"]
    where = f"path: {root}"
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise ValueError(f"{where}: calibration.json's 'files' must map file names to digests")
    if gpu_path.relative_to(root).as_posix() not in files:
        raise ValueError(f"{where}: calibration.json does not list its preset {gpu_path.name}")
    stencil_paths = []
    gpu_file = gpu_path
    for rel, digest in files.items():
        if not _is_preset_file(rel):
            raise ValueError(f"{where}: calibration.json lists {rel!r}, not a preset file")
        p = _listed_preset(root / rel, digest)
        if p is None:
            try:
                _convert.regular_file_size(root / rel, "path")
            except (OSError, ValueError) as exc:
                raise ValueError(
                    f"{where} is an incomplete calibration: {rel} is missing "
                    f"({getattr(exc, 'strerror', None) or exc}); calibrate into it again"
                ) from None
            raise ValueError(
                f"{where} mixes two calibrations: {rel} is not the file its calibration.json "
                "was saved with (edited, or a save interrupted?); calibrate into it again"
            )
        if rel.startswith("stencils/"):
            stencil_paths.append(p)
        elif root / rel == gpu_path:
            gpu_file = p
    return gpu_file, sorted(stencil_paths)


def _is_preset_file(rel: str) -> bool:
    """Whether ``rel``, a file calibration.json lists, is ``gpus/<f>`` or ``stencils/<f>``."""
    parts = rel.split("/")
    return len(parts) == 2 and parts[0] in ("gpus", "stencils") and parts[1] not in ("", ".", "..")


def _listed_preset(path: Path, digest: str) -> Path | None:
    """Return the file holding the preset ``path`` with SHA-256 ``digest``, or None.

    The file in its place, else its pending file (a save killed after its commit). The
    place is read a second time after a missing pending file: a save that renamed it
    into place between the two reads.
    """

    def matches(p: Path) -> bool:
        try:
            _convert.regular_file_size(p, "path")
            return _sha256(p.read_bytes()) == digest
        except (OSError, ValueError):
            return False

    if matches(path):
        return path
    pending = _pending_preset(path)
    if not pending.is_symlink() and matches(pending):  # a save's own file, never a link
        return pending
    return path if matches(path) else None


def _check_calibration_record(meta: dict[str, Any], meta_path: Path) -> None:
    """Refuse a calibration.json of another schema, or one whose stored values were edited.

    Until 2026-11-30 such files loaded: a ``machine`` that is no mapping raised TypeError,
    stored passes of 0 ZeroDivisionError, and NaN, negative or text passes, an unknown
    statistic or schema were taken as they were (the statistic silently changed the L3
    in effect), since the derivation's ValueError meant "written by an older version".
    """
    where = f"path: {meta_path}"
    schema = meta.get("schema")
    if schema != _CALIBRATION_SCHEMA:
        raise ValueError(
            f"{where}: schema {schema!r} is not the one this version reads "
            f"({_CALIBRATION_SCHEMA!r})"
        )
    for key in ("machine", "micro", "settings"):
        if key in meta and not isinstance(meta[key], dict):
            raise ValueError(
                f"{where}: field {key!r} must be a mapping, got {type(meta[key]).__name__}"
            )
    settings = meta.get("settings", {})
    if "statistic" in settings and settings["statistic"] not in STATISTICS:
        raise ValueError(
            f"{where}: settings.statistic must be one of {list(STATISTICS)}, "
            f"got {settings['statistic']!r}"
        )
    for name, entry in meta.get("micro", {}).items():
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: micro[{name!r}] must be a mapping")
        if "passes" not in entry:
            continue
        passes = entry["passes"]
        ok = isinstance(passes, list) and len(passes) > 0
        ok = ok and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
            for v in passes
        )
        if not ok:
            raise ValueError(
                f"{where}: micro[{name!r}].passes must be a non-empty list of times, each "
                f"finite and > 0 (s), got {str(passes)[:80]}"
            )


# --------------------------------------------------------------------------------------
# Sweeps: which points, measured into a resumable CSV table
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """One configuration of a sweep.

    Attributes
    ----------
    stencil : str
        Harness stencil; an alias (``"Jacobi1D"``, ``"jacobi-1d"``) is replaced by its
        canonical name (``"jacobi1d"``), the one the table records.
    sizes : tuple of int
        ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)``.
    tiles : tuple of int
        ``(tS, tT)``, ``(tS1, tS2, tT)`` or ``(tS1, tS2, tS3, tT)``.
    tags : tuple of str
        Why it is measured: ``grid``, ``baseline``, ``<variant>_opt``,
        ``<variant>_near``, ``tune``.
    threads : int or None
        Thread count of this point; None: the thread counts of the sweep.

    Raises
    ------
    TypeError
        If ``stencil`` is not a str, ``sizes`` or ``tiles`` not a sequence of integers,
        ``tags`` not a sequence of str (a single str is not: it would be read letter by
        letter) or ``threads`` neither None nor an integer.
    ValueError
        If a tag is empty or holds a ``+`` (the table's tag separator) or a character
        that is not printable (a newline made :func:`measure` write a row the table
        could not read back). Whether the stencil, sizes, tiles and thread count are
        ones the harness runs is checked by :func:`measure` before it measures anything.
    """

    stencil: str
    sizes: tuple[int, ...]
    tiles: tuple[int, ...]
    tags: tuple[str, ...] = ("grid",)
    threads: int | None = None

    def __post_init__(self) -> None:
        # Types here (sizes as lists made measure fail on "unhashable type"); values
        # once, in the harness' own checks, when measure() starts.
        _convert.string(self.stencil, "Point.stencil")
        # The canonical name, as read_table writes it back: with an alias ("Jacobi1D") the
        # resume keys never matched the table's, and a rerun measured every row again.
        name = normalize_name(self.stencil.strip())
        if name in STENCILS:
            object.__setattr__(self, "stencil", name)
        most = _core.time.MAX_SPACE_DIMS + 1  # (S1, ..., T): at most three space entries
        for attr in ("sizes", "tiles"):
            values = _convert.int_sequence(getattr(self, attr), f"Point.{attr}", max_len=most)
            object.__setattr__(self, attr, tuple(values))
        tags = self.tags
        if isinstance(tags, (str, bytes)) or not isinstance(tags, (Sequence, np.ndarray)):
            raise TypeError(
                f"Point.tags: expected a sequence of str (e.g. ('grid',)), got "
                f"{type(tags).__name__} {tags!r}"
            )
        for i, tag in enumerate(tags):
            _convert.string(tag, f"Point.tags[{i}]")
            if not tag or "+" in tag or not tag.isprintable():
                raise ValueError(
                    f"Point.tags[{i}]: must be non-empty, printable and without '+' (the "
                    f"table's tag separator), got {tag!r}"
                )
        object.__setattr__(self, "tags", tuple(tags))
        if self.threads is not None:
            object.__setattr__(self, "threads", _convert.integer(self.threads, "Point.threads"))

    @property
    def key(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        """Identity of the configuration (without tags)."""
        return (self.stencil, self.sizes, self.tiles)


#: Problem sizes of the shipped sweep (small, so that it runs in minutes on 2 cores).
DEFAULT_SIZES: dict[str, tuple[tuple[int, ...], ...]] = {
    "jacobi1d": ((16384, 128), (32768, 256)),
    "jacobi2d": ((256, 256, 128), (512, 512, 128)),
    "heat2d": ((256, 256, 128), (512, 512, 128)),
    "laplacian2d": ((256, 256, 128), (512, 512, 128)),
    "gradient2d": ((256, 256, 64), (512, 512, 64)),
    # 30 x 30 x 94: the lines of the widest sub-slabs (tS3 = 128) as long as 62^3's, so
    # that a fit holding one problem out has seen their ratio of lines to vectors (without
    # it, 62^3's wide tiles were predicted 1.04-1.24x, docs/validate-log.md, "A second machine").
    "heat3d": ((30, 30, 30, 32), (30, 30, 94, 32), (62, 62, 62, 16)),
}
#: Problem sizes from L2-resident to far past L2 (machines seen: 512 KiB to 2 MiB of L2
#: per core, 32 MiB and more of L3). Working sets (two float arrays): 1D 128 KiB, 2 MiB,
#: 16 MiB, 64 MiB; 2D 512 KiB, 2 MiB, 8 MiB, 64 MiB; 3D 256 KiB, 2 MiB, 16 MiB, 54 MiB,
#: 128 MiB (the harness limit is 128 MiB per array). Every stencil has a problem past a
#: 32 MiB L3 (since 2026-11-28 16:45 the 2D ones too), Jacobi 1D and Heat 3D two, so that
#: a fit holding one out still sees DRAM on its own stencil (docs/validate-log.md, "Heat
#: 3D at 254^3"). T shrinks as S grows to keep runs short.
LEVEL_SIZES: dict[str, tuple[tuple[int, ...], ...]] = {
    "jacobi1d": ((16384, 128), (262144, 32), (2097152, 8), (8388606, 4)),
    "jacobi2d": ((254, 254, 64), (510, 510, 32), (1022, 1022, 8), (2894, 2894, 4)),
    "heat2d": ((254, 254, 64), (510, 510, 32), (1022, 1022, 8), (2894, 2894, 4)),
    "laplacian2d": ((254, 254, 64), (510, 510, 32), (1022, 1022, 8), (2894, 2894, 4)),
    "gradient2d": ((254, 254, 32), (510, 510, 16), (1022, 1022, 4), (2894, 2894, 2)),
    "heat3d": (
        (30, 30, 30, 32),
        (62, 62, 62, 16),
        (126, 126, 126, 8),
        (190, 190, 190, 4),
        (254, 254, 254, 4),
    ),
}
#: Tile grid of the sweep (the broad measured exploration of Sec. A.6.2).
GRID_1D = {"tS": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), "tT": (2, 4, 8, 16, 32, 64, 128)}
GRID_2D = {"tS1": (1, 2, 4, 8, 16, 32), "tS2": (32, 64, 128, 256), "tT": (2, 4, 8, 16, 32)}
#: A coarse subset of the grid (``grid="coarse"``), for protocol sweeps of a few minutes.
COARSE_GRID_1D = {"tS": (1, 4, 16, 64, 256), "tT": (2, 8, 32, 128)}
COARSE_GRID_2D = {"tS1": (1, 4, 16), "tS2": (32, 128), "tT": (2, 8, 32)}
#: 3D (Heat 3D): hexagons in (t, s1), sub-slabs tS2 x tS3 (tS3 the SIMD-contiguous one,
#: multiples of 32: the model refuses others, Eq. A.32). The coarse grid has two tS2 (4 and
#: 16), so that more than one sub-slab width is measured on every problem.
GRID_3D = {"tS1": (1, 2, 4, 8, 16), "tS2": (1, 4, 16), "tS3": (32, 64, 128), "tT": (2, 4, 8, 16)}
COARSE_GRID_3D = {"tS1": (1, 4, 16), "tS2": (4, 16), "tS3": (32, 128), "tT": (2, 8)}


def default_points(
    stencils: Sequence[str] = STENCILS,
    calibration: Calibration | None = None,
    sizes: Mapping[str, Sequence[Sequence[int]]] | None = None,
    *,
    within: float = 0.10,
    max_near: int = 6,
    grid: str = "full",
) -> list[Point]:
    """Return the shipped sweep: a tile grid per problem, plus the model's choices.

    For every stencil and problem size: the grid ``GRID_1D`` / ``GRID_2D`` /
    ``GRID_3D``; with
    a calibration also the "largest tile that fits" baseline (A.5.1: the feasible tile of
    the default search space with the largest M_tile; ties: largest tS1 + tT/2, then tT)
    and, for each time-model variant, its predicted optimum and up to ``max_near`` more
    points within ``within`` of the predicted minimum (A.6.2-A.6.3), from
    :func:`costmetrics.time.best_tiles` over the default search space. Tiles the harness
    runs alike (:func:`harness_tiles`: sub-tiles wider than ``S + tT``) are one point,
    named as first added, with every tag; the near-optimal points are ``max_near`` distinct
    runs.

    Parameters
    ----------
    stencils : sequence of str
        Stencils to include.
    sizes : dict, optional
        Problem sizes per stencil (default ``DEFAULT_SIZES``).
    calibration : Calibration, optional
        Machine preset for the model's choices.
    within : float
        Near-optimal fraction (the seed uses 10%).
    max_near : int
        Cap on near-optimal runs per variant (closest to the minimum first).
    grid : {"full", "coarse"}
        The tile grid: ``GRID_1D`` / ``GRID_2D`` / ``GRID_3D`` or their ``COARSE_``
        versions.

    Returns
    -------
    list of Point
        One per run (tags merged), in a stable order.
    """
    from costmetrics import time as cm_time

    # Checked before any work (adversarial campaign, 2026-11-30): a str stencils was read
    # letter by letter, a list of sizes and a path for calibration raised AttributeError,
    # a sizes key spelled otherwise than the stencil's name gave no points, and within was
    # read only with a calibration.
    if isinstance(stencils, (str, bytes)) or not isinstance(stencils, Sequence):
        raise TypeError(f"stencils: expected a sequence of stencil names, got {stencils!r}")
    if calibration is not None and not isinstance(calibration, Calibration):
        raise TypeError(
            "calibration: expected a Calibration (load_calibration reads a folder), got "
            f"{type(calibration).__name__}"
        )
    if sizes is None:
        size_map: Mapping[str, Sequence[Sequence[int]]] = DEFAULT_SIZES
    elif not isinstance(sizes, Mapping):
        raise TypeError(f"sizes: expected a mapping of stencil to sizes, got {sizes!r}")
    else:
        # Keys by the stencils' names (an unknown one is refused); sizes of stencils not
        # asked for are left unused, as the shipped LEVEL_SIZES are for a --stencils subset.
        size_map = {}
        for raw_key, values in sizes.items():
            try:
                size_map[_stencil_name(raw_key)] = values
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"sizes: key {raw_key!r}: {exc}") from None
    within_value = _convert.real(within, "within")
    if not 0 <= within_value < 1:
        raise ValueError(f"within: must be in [0, 1), got {within!r}")
    near_cap = _positive_int(max_near, "max_near", 0, 10**6)
    if grid not in ("full", "coarse"):
        raise ValueError(f"grid: must be 'full' or 'coarse', got {grid!r}")
    grid_1d = GRID_1D if grid == "full" else COARSE_GRID_1D
    grid_2d = GRID_2D if grid == "full" else COARSE_GRID_2D
    grid_3d = GRID_3D if grid == "full" else COARSE_GRID_3D
    points: dict[tuple[str, tuple[int, ...], tuple[int, ...]], list[str]] = {}
    # One point per run: a tile the harness runs like one already added (harness_tiles)
    # takes its tags onto that point, which keeps the first name it was added under.
    named: dict[tuple[str, tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}

    def key_of(
        stencil: str, sz: tuple[int, ...], tl: tuple[int, ...]
    ) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        try:
            as_run = harness_tiles(stencil, sz, tl)
        except ValueError:
            as_run = tl  # a tile the harness refuses: measure() names it, as before
        return (stencil, sz, named.setdefault((stencil, sz, as_run), tl))

    def add(stencil: str, sz: tuple[int, ...], tl: tuple[int, ...], tag: str) -> None:
        tags = points.setdefault(key_of(stencil, sz, tl), [])
        if tag not in tags:
            tags.append(tag)

    for raw in stencils:
        name = _stencil_name(raw)
        for sz_raw in size_map.get(name, ()):
            dims = space_dims(name)
            sz = _ints(sz_raw, "sizes", dims + 1, "(S.., T)")
            if dims == 1:
                for ts in grid_1d["tS"]:
                    for tt in grid_1d["tT"]:
                        add(name, sz, (ts, tt), "grid")
            elif dims == 3:
                for ts1 in grid_3d["tS1"]:
                    for ts2 in grid_3d["tS2"]:
                        for ts3 in grid_3d["tS3"]:
                            for tt in grid_3d["tT"]:
                                add(name, sz, (ts1, ts2, ts3, tt), "grid")
            else:
                for ts1 in grid_2d["tS1"]:
                    for ts2 in grid_2d["tS2"]:
                        for tt in grid_2d["tT"]:
                            add(name, sz, (ts1, ts2, tt), "grid")
            if calibration is None:
                continue
            stencil_preset = calibration.stencils[name]
            space = cm_time.default_search_space(dims)
            tile_grid = space.grid()
            batch = cm_time.talg_batch(stencil_preset, calibration.gpu, sz, tile_grid)
            feasible = np.flatnonzero(batch.feasible)
            m_tile = batch.terms["m_tile_words"][feasible]
            face = tile_grid[feasible, 0] + tile_grid[feasible, -1] / 2
            order = np.lexsort((tile_grid[feasible, -1], face, m_tile))
            add(name, sz, tuple(int(v) for v in tile_grid[feasible[order[-1]]]), "baseline")
            from costmetrics.validate import variants

            for variant_name in variants():
                variant: Any = variant_name  # a name of cm_time.Variant
                best = cm_time.best_tiles(
                    stencil_preset, calibration.gpu, sz, within=within, variant=variant
                )
                add(name, sz, best.tiles, f"{variant}_opt")
                # Up to max_near more runs, closest first; a near tile that runs like the
                # optimum or an earlier near tile is the same run and not counted.
                added = 0
                for row in best.near_optimal[1:]:
                    if added == near_cap:
                        break
                    tags = points.setdefault(key_of(name, sz, tuple(int(v) for v in row)), [])
                    if f"{variant}_opt" in tags or f"{variant}_near" in tags:
                        continue
                    tags.append(f"{variant}_near")
                    added += 1
    return [Point(s, sz, tl, tuple(tags)) for (s, sz, tl), tags in points.items()]


@record
class Table(Record):
    """A measurement table read by :func:`read_table`: one row per point per pass.

    A *point* is a (stencil, sizes, tiles, threads, schedule); schema 2-3 tables hold one
    row per point and pass (one timed run after a warm-up run). :meth:`medians` turns it
    into one row per point whose time is the median over passes.

    Attributes
    ----------
    stencil : tuple of str
        Stencil per row.
    sizes : numpy.ndarray
        int64, shape (n, 4): S1, S2 (0 in 1D), S3 (0 in 1D and 2D), T.
    tiles : numpy.ndarray
        int64, shape (n, 4): tS1, tS2 (0 in 1D), tS3 (0 in 1D and 2D), tT.
    tags : tuple of tuple of str
        Tags per row.
    threads : numpy.ndarray
        int64: worker threads of the row.
    schedule : tuple of str
        How the harness dealt a wavefront's tiles to the threads (:data:`SCHEDULES`).
    pass_index : numpy.ndarray
        int64: the pass that measured the row (-1 in a table of medians).
    memory_level : tuple of str
        Where the problem's two arrays fit (:data:`MEMORY_LEVELS`, :func:`memory_level`).
    time_s : numpy.ndarray
        The run's time (a table of medians: the median over passes), seconds.
    cpu_time_s : numpy.ndarray
        Largest worker-thread CPU time of the run, seconds (NaN where not measured): a
        proxy of the run time that excludes the time the threads were descheduled.
    energy_j : numpy.ndarray
        Package energy of the run (NaN when not measured).
    correct : numpy.ndarray
        bool: the run matched the naive stencil bitwise.
    loadavg_1m : numpy.ndarray
        1-minute load average when the row was measured.
    columns : dict of str to numpy.ndarray
        Every other numeric column by name.
    comments : tuple of str
        The ``#`` header lines, without the ``#``.
    source : str
        Where the table was read from.
    schema : int
        3 (this protocol), 2 (the same without Heat 3D's columns) or 1 (older tables:
        one row per point, the minimum of a few back-to-back runs, read as a single
        pass).
    pass_times_s : numpy.ndarray or None
        In a table of medians: shape (n, passes), the time of each pass (NaN where a pass
        lacks the point); None in a table of runs.
    statistic : str
        In a table of one row per point (:meth:`per_point`): how ``time_s`` was taken over
        the passes, ``"median"`` or ``"min"`` (:func:`point_statistic`).
    """

    stencil: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    tiles: npt.NDArray[np.int64]
    tags: tuple[tuple[str, ...], ...]
    threads: npt.NDArray[np.int64]
    schedule: tuple[str, ...]
    pass_index: npt.NDArray[np.int64]
    memory_level: tuple[str, ...]
    time_s: npt.NDArray[np.float64]
    cpu_time_s: npt.NDArray[np.float64]
    energy_j: npt.NDArray[np.float64]
    correct: npt.NDArray[np.bool_]
    loadavg_1m: npt.NDArray[np.float64]
    columns: dict[str, npt.NDArray[np.float64]]
    comments: tuple[str, ...]
    source: str
    schema: int = 3
    pass_times_s: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    statistic: str = "median"

    def __len__(self) -> int:
        return len(self.stencil)

    def sizes_of(self, i: int) -> tuple[int, ...]:
        """Problem sizes of row ``i`` in the layout of ``sizes`` arguments."""
        s = self.sizes[i]
        dims = space_dims(self.stencil[i])
        return (int(s[0]), *(int(v) for v in s[1:dims]), int(s[3]))

    def tiles_of(self, i: int) -> tuple[int, ...]:
        """Tile sizes of row ``i`` in the layout of ``tiles`` arguments."""
        t = self.tiles[i]
        dims = space_dims(self.stencil[i])
        return (int(t[0]), *(int(v) for v in t[1:dims]), int(t[3]))

    def key_of(self, i: int) -> tuple[str, tuple[int, ...], tuple[int, ...], int, str]:
        """Return the point of row ``i``: (stencil, sizes, tiles, threads, schedule)."""
        return (
            self.stencil[i],
            self.sizes_of(i),
            self.tiles_of(i),
            int(self.threads[i]),
            self.schedule[i],
        )

    def has_tag(self, tag: str) -> npt.NDArray[np.bool_]:
        """Boolean mask of the rows carrying ``tag``."""
        return np.asarray([tag in tags for tags in self.tags], dtype=bool)

    @property
    def n_passes(self) -> int:
        """Passes in the table (1 + the largest pass index; 1 for a table of medians)."""
        if self.pass_times_s is not None:
            return int(self.pass_times_s.shape[1])
        return int(self.pass_index.max()) + 1 if len(self) else 0

    def select(self, mask: npt.ArrayLike) -> Table:
        """Return the rows where ``mask`` is true (a bool array of length ``len(self)``)."""
        m = np.asarray(mask, dtype=bool)
        if m.shape != (len(self),):
            raise ValueError(f"mask: expected shape ({len(self)},), got {m.shape}")
        idx = np.flatnonzero(m)
        return replace(
            self,
            stencil=tuple(self.stencil[i] for i in idx),
            sizes=self.sizes[idx],
            tiles=self.tiles[idx],
            tags=tuple(self.tags[i] for i in idx),
            threads=self.threads[idx],
            schedule=tuple(self.schedule[i] for i in idx),
            pass_index=self.pass_index[idx],
            memory_level=tuple(self.memory_level[i] for i in idx),
            time_s=self.time_s[idx],
            cpu_time_s=self.cpu_time_s[idx],
            energy_j=self.energy_j[idx],
            correct=self.correct[idx],
            loadavg_1m=self.loadavg_1m[idx],
            columns={k: v[idx] for k, v in self.columns.items()},
            pass_times_s=None if self.pass_times_s is None else self.pass_times_s[idx],
        )

    def medians(self) -> Table:
        """Return one row per point, its time the median over its passes.

        ``per_point("median")``; a table of one row per point is returned unchanged
        when it holds medians.

        Returns
        -------
        Table
            Rows in the order of each point's first row.
        """
        return self.per_point("median")

    def per_point(self, statistic: str | None = None) -> Table:
        """Return one row per point, its time a statistic over the passes that measured it.

        The spread goes to ``columns``: ``time_min_s``, ``time_max_s``,
        ``time_iqr_rel`` (interquartile range over the median) and ``n_passes``; every
        pass's time is kept in ``pass_times_s`` (for the noise floor and the bootstrap
        of :mod:`costmetrics.validate`). ``cpu_time_s`` and ``energy_j`` take the same
        statistic, ``correct`` is true only when every pass was correct, tags are merged,
        the load average is the largest seen. A table of one row per point changes its
        statistic from the kept pass times; its CPU times and energies, whose passes it
        does not keep, become NaN then (call this on the table of runs for them).

        Parameters
        ----------
        statistic : {"median", "min"}, optional
            :func:`point_statistic`; None keeps the statistic of a table of one row per
            point and takes the median of a table of runs.

        Returns
        -------
        Table
            Rows in the order of each point's first row.
        """
        if statistic is None:
            statistic = self.statistic if self.pass_times_s is not None else "median"
        stat = _statistic_name(statistic)
        if self.pass_times_s is not None:
            if stat == self.statistic:
                return self
            unknown = np.full(len(self), np.nan)  # the other statistic's, not derivable
            return replace(
                self, time_s=point_statistic(self.pass_times_s, stat, axis=1), statistic=stat,
                cpu_time_s=unknown, energy_j=unknown.copy(),
            )  # fmt: skip
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i in range(len(self)):
            groups.setdefault(self.key_of(i), []).append(i)
        first = np.asarray([rows[0] for rows in groups.values()], dtype=np.intp)
        k = max(1, self.n_passes)
        passes = np.full((len(groups), k), np.nan)
        cpu = np.full(len(groups), np.nan)
        energy = np.full(len(groups), np.nan)
        correct = np.zeros(len(groups), dtype=bool)
        load = np.full(len(groups), np.nan)
        tags: list[tuple[str, ...]] = []
        for g, rows in enumerate(groups.values()):
            r = np.asarray(rows, dtype=np.intp)
            passes[g, self.pass_index[r]] = self.time_s[r]
            with np.errstate(all="ignore"):
                cpu[g] = (
                    _statistic(self.cpu_time_s[r], stat)
                    if np.isfinite(self.cpu_time_s[r]).any()
                    else np.nan
                )
                energy[g] = (
                    _statistic(self.energy_j[r], stat)
                    if np.isfinite(self.energy_j[r]).any()
                    else np.nan
                )
                load[g] = (
                    np.nanmax(self.loadavg_1m[r])
                    if np.isfinite(self.loadavg_1m[r]).any()
                    else np.nan
                )
            correct[g] = bool(self.correct[r].all())
            merged: list[str] = []
            for i in rows:
                merged += [t for t in self.tags[i] if t not in merged]
            tags.append(tuple(merged))
        median = np.nanmedian(passes, axis=1)
        q25, q75 = np.nanpercentile(passes, [25, 75], axis=1) if len(groups) else np.zeros((2, 0))
        columns = {c: v[first] for c, v in self.columns.items()}
        columns.update(
            time_min_s=np.nanmin(passes, axis=1),
            time_max_s=np.nanmax(passes, axis=1),
            time_iqr_rel=(q75 - q25) / median,
            n_passes=np.sum(np.isfinite(passes), axis=1).astype(np.float64),
        )
        base = self.select(np.zeros(len(self), dtype=bool))
        return replace(
            base,
            stencil=tuple(self.stencil[i] for i in first),
            sizes=self.sizes[first],
            tiles=self.tiles[first],
            tags=tuple(tags),
            threads=self.threads[first],
            schedule=tuple(self.schedule[i] for i in first),
            pass_index=np.full(len(first), -1, dtype=np.int64),
            memory_level=tuple(self.memory_level[i] for i in first),
            time_s=point_statistic(passes, stat, axis=1),
            cpu_time_s=cpu,
            energy_j=energy,
            correct=correct,
            loadavg_1m=load,
            columns=columns,
            pass_times_s=passes,
            statistic=stat,
        )

    def with_time(self, kind: str) -> Table:
        """Return the table with ``time_s`` taken from the wall time or the CPU time.

        Parameters
        ----------
        kind : {"wall", "cpu"}
            ``"wall"``: the measured elapsed time (the table itself); ``"cpu"``: the
            worker threads' CPU time (``cpu_time_s``), a load-robust proxy.

        Returns
        -------
        Table
            A copy whose ``time_s`` is the chosen time (in a table of medians the
            per-pass times are dropped: they are wall times).

        Raises
        ------
        ValueError
            For another ``kind``, or ``"cpu"`` when a row has no CPU time.
        """
        if kind == "wall":
            return self
        if kind != "cpu":
            raise ValueError(f"time: must be 'wall' or 'cpu', got {kind!r}")
        if not (np.all(np.isfinite(self.cpu_time_s)) and np.all(self.cpu_time_s > 0)):
            raise ValueError(f"time: {self.source} has rows without cpu_time_s")
        if np.any(self.cpu_time_s < MIN_RUN_TIME_S):
            raise ValueError(
                f"time: {self.source} has a cpu_time_s below {MIN_RUN_TIME_S:g} s, "
                "a timed run's least"
            )
        passes = None if self.pass_times_s is None else self.pass_times_s[:, :1] * np.nan
        if passes is not None:
            passes[:, 0] = self.cpu_time_s
        return replace(self, time_s=self.cpu_time_s, pass_times_s=passes)

    def header_value(self, name: str) -> str | None:
        """Value of a ``# name: value`` header line, or None."""
        prefix = f"{name}:"
        for line in self.comments:
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
        return None

    @property
    def machine(self) -> dict[str, Any]:
        """The machine record of the header (:func:`machine_record`), or {} if absent."""
        return _machine_of_header(self.header_value("machine"))


def _machine_of_header(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _parse_number(text: str, column: str, where: str, *, integer: bool) -> float:
    value = text.strip()
    if value == "":
        return float("nan")
    if not value.isascii() or "_" in value:
        # Python's int() and float() read "٣", "０.001" and "1_0"; a table holds the
        # ASCII numbers measure() writes, as every CLI option takes ASCII digits only.
        raise ValueError(f"{where}: column {column}: not an ASCII number: {value!r}")
    try:
        number = float(int(value)) if integer else float(value)
    except ValueError:
        raise ValueError(f"{where}: column {column}: not a number: {value!r}") from None
    if integer and abs(number) > _INT_LIMIT:
        raise ValueError(f"{where}: column {column}: {value} out of range")
    return number


#: Columns a schema-1 table has (one row per point, minimum of back-to-back runs).
_CSV_COLUMNS_V1: tuple[str, ...] = (
    "stencil", "size_s1", "size_s2", "size_t", "tile_s1", "tile_s2", "tile_t", "tags",
    "threads", "repeats", "time_s", "time_median_s", "time_max_s", "cpu_time_s", "energy_j",
    "correct", "max_abs_error", "n_wavefronts", "n_tiles", "n_subtiles", "words_loaded",
    "words_stored", "pinned_threads", "loadavg_1m", "unix_time_s",
)  # fmt: skip
_INTEGER_COLUMNS = frozenset(
    {"threads", "repeats", "pass", "order", "n_wavefronts", "n_tiles", "n_subtiles",
     "working_set_bytes"}
)  # fmt: skip
_TEXT_COLUMNS = frozenset({"stencil", "tags", "schedule", "memory_level", "correct"})


def _without_bom(data: bytes) -> bytes:
    """Return ``data`` without a leading UTF-8 byte-order mark.

    A table saved by an editor may start with one, which hid the schema line and the
    column names ("lacks columns"), and on resume the schema line; it is not part of the
    text. Resuming appends to such a file and so never adds another.
    """
    return data.removeprefix(b"\xef\xbb\xbf")


def _split_complete_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """Complete (newline-terminated) lines, and the unterminated rest (b'' if none)."""
    cut = data.rfind(b"\n") + 1
    return data[:cut].splitlines(), data[cut:]


def read_table(path: str | Path) -> Table:
    """Read a measurement table written by :func:`measure`.

    Only newline-terminated lines are read: a last line without its newline is what a
    sweep killed while writing leaves; it is ignored with a :class:`UserWarning` (the
    next :func:`measure` on the file sets it aside and measures that point again), never
    parsed, since a cut number would read as a wrong time.

    Parameters
    ----------
    path : str or Path
        A UTF-8 CSV with ``#`` comment lines (anywhere) and the header
        :data:`CSV_COLUMNS` (schema 2), or the columns of a schema-1 table (one row per
        point, the minimum of back-to-back runs; read as pass 0, schedule round-robin).

    Returns
    -------
    Table
        The rows as arrays.

    Raises
    ------
    ValueError
        If the file cannot be read, a column is missing or named twice (names are read
        stripped of spaces, as values are), a value is malformed (the message names the
        line and column), a row's ``working_set_bytes`` is not the
        working set of its stencil and sizes, its ``memory_level`` is not the level the
        header's cache sizes give that working set (checked where the header records a
        cache size), or a point appears twice in one pass.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    p = Path(path)
    try:
        _convert.regular_file_size(p, "path")  # names a NUL byte, a folder, a FIFO
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"path: cannot read {p}: {exc.strerror or exc}") from None
    data = _without_bom(data)
    raw_lines, partial = _split_complete_lines(data)
    try:
        lines = [b.decode("utf-8") for b in raw_lines]
        data.decode("utf-8") if not raw_lines else None
    except UnicodeDecodeError:
        raise ValueError(f"path: {p} is not UTF-8 text") from None
    if partial.strip():
        warnings.warn(
            f"{p}: ignoring an unterminated last line of {len(partial)} bytes (a sweep cut "
            "while writing; measure() sets it aside and measures that point again)",
            UserWarning,
            stacklevel=2,
        )
    comments: list[str] = []
    data_lines: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            comments.append(line[1:].strip())
        elif line.strip():
            data_lines.append((number, line))
    if not data_lines:
        raise ValueError(f"path: {p} has no header row")
    header_at = f"{p}, line {data_lines[0][0]}"
    # Names are stripped as the values are (a name written "time_s " was reported missing).
    header = [h.strip() for h in _csv_fields(data_lines[0][1], header_at)]
    first_at: dict[str, int] = {}
    for i, h in enumerate(header):
        if h and h in first_at:
            # The lookup below kept the last of the two and read its values unannounced.
            raise ValueError(
                f"{header_at}: column {h!r} appears twice in the header (fields "
                f"{first_at[h] + 1} and {i + 1}); which one holds its values is ambiguous"
            )
        first_at.setdefault(h, i)
    first = comments[0] if comments else ""
    # A table of a schema this version does not know (a newer one) was read as schema 3;
    # a table without a schema line (written by hand, by a test) still is.
    schemas = {_SCHEMA_V1: 1, _SCHEMA_V2: 2, _SCHEMA: 3}
    if first.startswith(_SCHEMA_PREFIX) and first not in schemas:
        raise ValueError(
            f"path: {p} is a measurement table of a schema this version does not read "
            f"({first[:80]!r}; it reads {sorted(schemas)})"
        )
    schema = schemas.get(first, 3)
    wanted = _CSV_COLUMNS_V1 if schema == 1 else CSV_COLUMNS
    if schema == 2:
        wanted = tuple(c for c in CSV_COLUMNS if c not in (SIZE_COLUMNS[2], TILE_COLUMNS[2]))
    missing = [c for c in wanted if c not in header]
    if missing:
        raise ValueError(f"path: {p} lacks columns {missing}")
    col = {name: i for i, name in enumerate(header)}
    caches = _caches_of(_machine_of_header(_header_value(comments, "machine")))
    stencils: list[str] = []
    sizes: list[list[int]] = []
    tiles: list[list[int]] = []
    tags: list[tuple[str, ...]] = []
    schedules: list[str] = []
    levels: list[str] = []
    numeric = [c for c in wanted[wanted.index("tags") + 1 :] if c not in _TEXT_COLUMNS]
    numbers: dict[str, list[float]] = {c: [] for c in numeric}
    correct: list[bool] = []
    seen: set[tuple[Any, ...]] = set()
    for number, line in data_lines[1:]:
        where = f"{p}, line {number}"
        row = _csv_fields(line, where)
        if len(row) != len(header):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(header)}")
        name = _stencil_name(row[col["stencil"]])
        dims = space_dims(name)
        # (S1, S2, S3, T) and (tS1, tS2, tS3, tT); absent dimensions read as 0.
        s = [
            _parse_number(row[col[c]], c, where, integer=True) if c in col else 0.0
            for c in SIZE_COLUMNS
        ]
        t = [
            _parse_number(row[col[c]], c, where, integer=True) if c in col else 0.0
            for c in TILE_COLUMNS
        ]
        for d in range(dims, 3):
            if not (math.isnan(s[d]) or s[d] == 0.0) or not (math.isnan(t[d]) or t[d] == 0.0):
                # A size or tile of a dimension the stencil lacks was dropped unread.
                raise ValueError(
                    f"{where}: columns {SIZE_COLUMNS[d]}, {TILE_COLUMNS[d]}: {name} has "
                    f"{dims} space dimension{'s' if dims > 1 else ''}; leave them empty"
                )
            s[d] = t[d] = 0.0
        if any(math.isnan(v) or v < (0 if 0 < i < 3 else 1) for i, v in enumerate(s)) or any(
            math.isnan(v) or v < (0 if 0 < i < 3 else 1) for i, v in enumerate(t)
        ):
            raise ValueError(f"{where}: sizes and tiles must be positive integers")
        flag = row[col["correct"]].strip().lower()
        if flag not in ("true", "false"):
            raise ValueError(f"{where}: column correct: expected true or false, got {flag!r}")
        values = {
            c: _parse_number(row[col[c]], c, where, integer=c in _INTEGER_COLUMNS) for c in numeric
        }
        for c in ("cpu_time_s", "energy_j", "loadavg_1m"):
            if c in values and values[c] < 0:  # NaN: not recorded; negative: impossible
                raise ValueError(f"{where}: column {c}: must be >= 0, got {values[c]:g}")
            if c in values and math.isinf(values[c]):  # passed on as inf energy, before
                raise ValueError(f"{where}: column {c}: must be finite, got {values[c]:g}")
        # The range per_point checks (it raised later, naming neither file nor line).
        if not 0 < values["time_s"] < _MAX_TIME_S:
            raise ValueError(
                f"{where}: column time_s: must be positive, finite and < {_MAX_TIME_S:g} s, "
                f"got {values['time_s']:g}"
            )
        if schema >= 2:
            sched = row[col["schedule"]].strip()
            if sched not in SCHEDULES:
                raise ValueError(f"{where}: column schedule: unknown {sched!r}")
            level = row[col["memory_level"]].strip()
            if level not in MEMORY_LEVELS:
                raise ValueError(f"{where}: column memory_level: unknown {level!r}")
            size4 = (int(s[0]), int(s[1]), int(s[2]), int(s[3]))
            own_ws = _working_set_bytes(name, size4)
            ws = values["working_set_bytes"]
            if ws < 0:
                raise ValueError(f"{where}: column working_set_bytes: must be >= 0, got {int(ws)}")
            if math.isnan(ws):  # not recorded: the working set of the row's sizes
                ws = float(own_ws)
            elif ws != own_ws:
                # measure() writes the working set of the row's stencil and sizes; another
                # value is a hand-edited or foreign row (every shipped row agrees).
                raise ValueError(
                    f"{where}: column working_set_bytes: {int(ws)} is not the working set "
                    f"of {name} on sizes {list(size4)} ({own_ws} bytes)"
                )
            if any(caches):
                # measure() derives the level from the working set and the header's cache
                # sizes; a row that says otherwise would be grouped under the wrong level.
                expected = _level_of_bytes(int(ws), caches)
                if level != expected:
                    known = ", ".join(
                        f"{lv} {c}" for lv, c in zip(MEMORY_LEVELS, caches, strict=False) if c
                    )
                    raise ValueError(
                        f"{where}: column memory_level: {level} contradicts working_set_bytes "
                        f"{int(ws)}, which the header's cache sizes ({known} bytes) put in "
                        f"{expected}"
                    )
            if not (0 <= values["pass"] < _MAX_PASSES):
                # Bounded as measure() bounds passes: per_point holds a row per pass index.
                raise ValueError(
                    f"{where}: column pass: must be an integer in [0, {_MAX_PASSES}), "
                    f"got {values['pass']:g}"
                )
        else:
            sched = "round-robin"
            values["pass"] = 0.0
            size4 = (int(s[0]), int(s[1]), int(s[2]), int(s[3]))
            level = _level_of_bytes(_working_set_bytes(name, size4), caches)
        if not (values["threads"] >= 1):
            raise ValueError(f"{where}: column threads: must be a positive integer")
        cpu_limit_s = _MAX_TIME_S * values["threads"]  # the worker threads' CPU time summed
        if "cpu_time_s" in values and values["cpu_time_s"] >= cpu_limit_s:
            raise ValueError(
                f"{where}: column cpu_time_s: must be < {cpu_limit_s:g} s (the time_s limit "
                f"times the threads), got {values['cpu_time_s']:g}"
            )
        key = (name, tuple(s), tuple(t), values["threads"], sched, values["pass"])
        if key in seen:
            raise ValueError(
                f"{where}: the point was already measured in pass {int(values['pass'])}"
            )
        seen.add(key)
        stencils.append(name)
        sizes.append([int(v) for v in s])
        tiles.append([int(v) for v in t])
        tags.append(tuple(x for x in row[col["tags"]].split("+") if x))
        schedules.append(sched)
        levels.append(level)
        correct.append(flag == "true")
        for c in numbers:
            numbers[c].append(values[c])
        if schema == 1:
            numbers.setdefault("pass", [])
    if not stencils:
        raise ValueError(f"path: {p} has no data rows")
    arrays = {c: np.asarray(v, dtype=np.float64) for c, v in numbers.items()}
    bad = ~(np.isfinite(arrays["time_s"]) & (arrays["time_s"] >= MIN_RUN_TIME_S))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"path: {p}: column time_s must be at least {MIN_RUN_TIME_S:g} s, a timed run's "
            f"least, got {arrays['time_s'][i]!r} (row {i})"
        )
    pass_index = (
        np.zeros(len(stencils), dtype=np.int64) if schema == 1 else arrays["pass"].astype(np.int64)
    )
    return Table(
        stencil=tuple(stencils),
        sizes=np.asarray(sizes, dtype=np.int64),
        tiles=np.asarray(tiles, dtype=np.int64),
        tags=tuple(tags),
        threads=arrays["threads"].astype(np.int64),
        schedule=tuple(schedules),
        pass_index=pass_index,
        memory_level=tuple(levels),
        time_s=arrays["time_s"],
        cpu_time_s=arrays["cpu_time_s"],
        energy_j=arrays["energy_j"],
        correct=np.asarray(correct, dtype=bool),
        loadavg_1m=arrays["loadavg_1m"],
        columns={c: v for c, v in arrays.items() if c != "pass"},
        comments=tuple(comments),
        source=str(p),
        schema=schema,
    )


def _csv_fields(line: str, where: str) -> list[str]:
    # csv.Error (a field past the csv module's limit, a NUL) named as the line's ValueError.
    try:
        return next(csv.reader([line]))
    except csv.Error as exc:
        raise ValueError(f"{where}: malformed CSV line: {exc}") from None


def _header_value(comments: Sequence[str], name: str) -> str | None:
    prefix = f"{name}:"
    for line in comments:
        if line.startswith(prefix):
            return line[len(prefix) :].strip()
    return None


def _csv_line(values: Sequence[object]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


# --------------------------------------------------------------------------------------
# Memory levels
# --------------------------------------------------------------------------------------


def _caches_of(machine: dict[str, Any]) -> tuple[int, int, int]:
    # Missing, None or 0: not known. Anything else must be a size in bytes: a bool was
    # read as 1 byte, and NaN, text and negative sizes were taken for "not known".
    def get(key: str) -> int:
        value = machine.get(key, 0)
        if value is None:
            return 0
        name = f"machine[{key!r}]"
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"{name}: expected a size in bytes, got {value!r}")
        if not (math.isfinite(value) and value >= 0 and float(value).is_integer()):
            raise ValueError(f"{name}: expected a whole number of bytes >= 0, got {value!r}")
        return int(value)

    return (get("l1d_bytes"), get("l2_bytes"), get("l3_bytes"))


def _working_set_bytes(stencil: str, size4: tuple[int, int, int, int]) -> int:
    dims = space_dims(stencil)
    floats = (size4[0] + 2) * ((size4[1] + 2) if dims >= 2 else 1)
    floats *= (size4[2] + 2) if dims == 3 else 1
    return 2 * floats * BYTES_PER_WORD  # two time levels with their halo


def _level_of_bytes(working_set: int, caches: tuple[int, int, int]) -> str:
    for name, size in zip(MEMORY_LEVELS[:3], caches, strict=False):
        if size > 0 and working_set <= size:
            return name
    return "DRAM"


def memory_level(stencil: str, machine: dict[str, Any] | None, sizes: Sequence[int]) -> str:
    """Return the memory level where a problem's arrays fit: L1, L2, L3 or DRAM.

    The working set is the two time levels of the harness with their halo, 4-byte
    floats: ``2 (S1 + 2) (S2 + 2) 4`` bytes in 2D, ``2 (S + 2) 4`` in 1D,
    ``2 (S1 + 2) (S2 + 2) (S3 + 2) 4`` in 3D. It is compared
    with the data caches of one core as sysfs reports them for CPU 0 (``l1d_bytes``,
    ``l2_bytes``, ``l3_bytes`` of :func:`machine_record`): the smallest level that holds
    it; DRAM past the last level (or where the sizes are unknown).

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    sizes : sequence of int
        ``(S, T)``, ``(S1, S2, T)`` or ``(S1, S2, S3, T)``.
    machine : dict, optional
        A machine record (default: this machine's).

    Returns
    -------
    str
        One of :data:`MEMORY_LEVELS`.

    Raises
    ------
    TypeError
        If ``machine`` is neither a mapping nor None, or ``sizes`` not a sequence of
        integers.
    ValueError
        For an unknown stencil, or ``sizes`` of the wrong length or not all positive.
    """
    if machine is not None and not isinstance(machine, Mapping):
        raise TypeError(
            f"machine: expected a machine record (dict) or None, got {type(machine).__name__} "
            f"{machine!r}"
        )
    name, s, _ = _problem(stencil, sizes, None)
    given = (*s[: space_dims(name)], s[3])  # the entries of sizes (absent ones are 0)
    if min(given) < 1:
        raise ValueError(f"sizes: must be positive integers, got {given}")
    caches = _caches_of(machine) if machine is not None else (
        _cache_bytes(1), _cache_bytes(2), _cache_bytes(3)
    )  # fmt: skip
    return _level_of_bytes(_working_set_bytes(name, s), caches)


# --------------------------------------------------------------------------------------
# The protocol: shuffled passes into a crash-safe table
# --------------------------------------------------------------------------------------

#: Machine-record fields that identify the machine a table or calibration belongs to.
MACHINE_IDENTITY: tuple[str, ...] = (
    "cpu_model", "l1d_bytes", "l2_bytes", "l3_bytes", "simd_lanes_float", "harness_compiler",
)  # fmt: skip


def check_same_machine(
    recorded: dict[str, Any],
    name: str,
    current: dict[str, Any] | None = None,
    *,
    current_name: str = "",
) -> None:
    """Raise if a recorded machine record is not this machine (or ``current``).

    Parameters
    ----------
    recorded : dict
        The machine record of a table or calibration.
    name : str
        The argument it came from, for the message.
    current : dict, optional
        The record to compare with (default: :func:`machine_record`).
    current_name : str
        What ``current`` is, for the message (e.g. ``"the table"``); without it, a given
        ``current`` is "the other" and this machine "here".

    Raises
    ------
    ValueError
        Naming ``name`` and the first field that differs (:data:`MACHINE_IDENTITY`).
    TypeError
        If ``recorded`` or ``current`` is not a mapping (``current`` may be None), or
        ``name`` not a non-empty string.
    """
    name = _convert.string(name, "name", nonempty=True)
    if not isinstance(recorded, Mapping):
        raise TypeError(
            f"recorded: expected a machine record (dict), got {type(recorded).__name__} "
            f"{recorded!r}"
        )
    if current is not None and not isinstance(current, Mapping):
        raise TypeError(
            f"current: expected a machine record (dict) or None, got {type(current).__name__} "
            f"{current!r}"
        )
    now = machine_record() if current is None else current
    if current is None:
        than, theirs = "", "here"
    else:
        label = _convert.string(current_name, "current_name") or "the other"
        than, theirs = f" than {label}", f"{label}'s"
    for key in MACHINE_IDENTITY:
        if key in recorded and key in now and recorded[key] != now[key]:
            raise ValueError(
                f"{name}: measured on another machine or harness build{than} ({key} "
                f"{recorded[key]!r}, {theirs} {now[key]!r})"
            )


def check_current_harness(recorded: object, name: str, current: object = None) -> None:
    """Raise if a recorded harness version is not this build's (or ``current``).

    The harness's code changes with its version, so a calibration or grid of another one
    does not describe the runs of this build (``tune``'s calibrations, a grid measured
    again), nor a calibration the runs of a table of another version (``current``, the
    table's). A version not recorded (``None``, the oldest files) is not compared.

    Parameters
    ----------
    recorded : object
        The recorded version (``machine["harness_version"]`` or a table's ``# harness:``).
    name : str
        The argument it came from, for the message.
    current : object, optional
        The version to compare with (default: :data:`HARNESS_VERSION`).

    Raises
    ------
    ValueError
        Naming ``name`` and both versions.
    """
    if current is None:
        against = f"this build's is {HARNESS_VERSION}; measure it again with this version"
        current = HARNESS_VERSION
    else:
        against = f"the table's is {current}"
    if recorded is not None and str(recorded) != str(current):
        raise ValueError(f"{name}: measured with harness version {recorded}, {against}")


class LoadWarning(UserWarning):
    """The machine is loaded (above half a runnable process per core) while measuring."""


def load_is_high(loadavg_1m: float, cpus: int) -> bool:
    """Whether a 1-minute load average is above half a runnable process per core.

    Parameters
    ----------
    loadavg_1m : float
        The load average.
    cpus : int
        Cores this process may use.

    Returns
    -------
    bool
        ``loadavg_1m > cpus / 2`` (False when the load is unknown: NaN).

    Raises
    ------
    TypeError
        If ``loadavg_1m`` is not a real number or ``cpus`` not an integer.
    ValueError
        If ``loadavg_1m`` is negative or infinite, or ``cpus`` below 1.
    """
    load = _convert.real(loadavg_1m, "loadavg_1m")
    if not (math.isnan(load) or (math.isfinite(load) and load >= 0)):
        raise ValueError(f"loadavg_1m: must be finite and >= 0 (NaN: unknown), got {load!r}")
    n_cpus = _convert.integer(cpus, "cpus", lo=1)
    return math.isfinite(load) and load > 0.5 * n_cpus


class CpuInterferenceWarning(UserWarning):
    """The CPUs slow each other down, or stall, while measuring (see :func:`probe_cpus`)."""


#: A CPU whose probe kernel runs this much slower beside the others than alone, or that
#: loses this share of its time in stalls, makes all-core run times bimodal (issue 21).
INTERFERENCE_LIMIT = 0.05
STALL_LIMIT = 0.01


def probe_cpus(*, threads: int | None = None, repeats: int = 21, spin_s: float = 0.5) -> CpuProbe:
    """Check how the CPUs run alone and side by side before measuring on all of them.

    A fixed throughput-bound kernel (vector adds in L1, no memory traffic, no barrier
    while timed, about 1 ms) runs ``repeats`` times alone on each CPU and while every CPU
    runs it, in interleaved rounds; then every CPU spins on the clock for ``spin_s``
    seconds and each gap above 50 us counts as a stall (the virtual CPU did not run).
    On a machine whose CPUs are independent the kernel takes the same time alone and
    together and nothing stalls; on a virtual machine whose host shares a physical core
    between the guest's CPUs, or runs other work on them, the time together is longer
    (docs/validate-log.md, "Where the two modes of the run times come from"). Runs about
    ``(threads + 1) * repeats`` ms plus ``spin_s``.

    Parameters
    ----------
    threads : int, optional
        CPUs to probe, the first ``threads`` this process may use (default: all).
    repeats : int
        Timed runs per CPU and phase, in [1, 1000].
    spin_s : float
        Seconds of the stall check, in [0, 10].

    Returns
    -------
    CpuProbe
        Per CPU: median kernel time alone and together (s), stall share and longest stall.

    Raises
    ------
    ValueError
        If ``threads`` exceeds the CPUs this process may use, or a value is out of range.
    TypeError
        If an argument has the wrong type.
    """
    n = default_threads() if threads is None else _thread_count_on_cpus(threads)
    reps = _positive_int(repeats, "repeats", 1, 1 << 20)
    spin = _convert.real(spin_s, "spin_s")
    return _cm.probe_cpus(n, reps, spin)


#: Where the share of slow probe rounds (:func:`probe_host`) is above this, the host is in
#: one of its slow stretches: a quiet-host gate (``measure(quiet_host=...)``) waits.
HOST_SLOW_LIMIT = 0.10


def probe_host(
    *, threads: int | None = None, duration_s: float = 1.0, reference_s: float | None = None
) -> HostSpeed:
    """Check whether the host runs this machine's CPUs at full speed right now.

    On some virtual machines the host runs the guest's CPUs 1.3-1.5x slower in stretches
    of 0.2-1 s, pure L1 compute included, and in some periods (minutes) half the runs
    fall in such stretches (docs/validate.md, "Where the two modes of the run times come
    from"). This runs the fixed kernel of :func:`probe_cpus` (vector adds in L1, about
    1 ms) on every CPU at once, round after round, for ``duration_s`` seconds, and counts
    the rounds slower than 1.3x the reference: the fastest round, or ``reference_s`` when
    that is faster (pass the ``reference_s`` of an earlier call so that a window spent
    wholly in a slow stretch is seen as slow). A quiet host has under 5% slow rounds; a
    host in a slow period 30-50%.

    Parameters
    ----------
    threads : int, optional
        CPUs to run on, the first ``threads`` this process may use (default: all).
    duration_s : float
        Seconds of rounds, in (0, 60].
    reference_s : float, optional
        The fastest round seen before (s), a positive time; default: this window's.

    Returns
    -------
    HostSpeed
        The share of slow rounds, the median round over the reference, the fastest round,
        the reference, the round count and the CPUs pinned.

    Raises
    ------
    ValueError
        If ``threads`` exceeds the CPUs this process may use, or a value is out of range.
    TypeError
        If an argument has the wrong type.
    """
    n = default_threads() if threads is None else _thread_count_on_cpus(threads)
    duration = _convert.real(duration_s, "duration_s")
    reference = 0.0
    if reference_s is not None:
        reference = _convert.real(reference_s, "reference_s")
        if not reference > 0.0:
            raise ValueError(f"reference_s: must be a positive time (s), got {reference_s!r}")
    return _cm.probe_host(n, duration, reference)


@record
class QuietWait(Record):
    """What :func:`wait_for_quiet_host` saw: its last probe and how long it waited.

    Attributes
    ----------
    speed : HostSpeed
        The last probe.
    waited_s : float
        Seconds from the first probe to the end of the last.
    quiet : bool
        Whether the last probe's share of slow rounds is at or below the limit.
    """

    speed: HostSpeed
    waited_s: float
    quiet: bool


def wait_for_quiet_host(
    *,
    limit: float = HOST_SLOW_LIMIT,
    wait_s: float = 600.0,
    threads: int | None = None,
    reference_s: float | None = None,
    on_wait: Callable[[HostSpeed], object] | None = None,
    probe_s: float = 1.0,
) -> QuietWait:
    """Probe the host (:func:`probe_host`, ``probe_s``) until its share of slow rounds is low.

    Probes, and while the share of slow rounds is above ``limit`` sleeps 4 s and probes
    again, until it is at or below ``limit`` or ``wait_s`` seconds have passed (the last
    probe may end up to 1 s after that).

    Parameters
    ----------
    limit : float
        The share of slow probe rounds that counts as quiet, in (0, 1).
    wait_s : float
        The longest wait, seconds in [0, 86400] (0: probe once).
    threads : int, optional
        CPUs to probe (default: all this process may use).
    reference_s : float, optional
        The fastest round seen before (s), carried from an earlier probe.
    on_wait : callable, optional
        Called with each probe that was not quiet, before sleeping (e.g. a progress note).
    probe_s : float
        Seconds of each probe, in (0, 60].

    Returns
    -------
    QuietWait
        The last probe, the seconds waited, and whether the host was quiet at the end.

    Raises
    ------
    ValueError
        If a value is out of range.
    TypeError
        If an argument has the wrong type.
    """
    share = _convert.share(limit, "limit", "a share of slow probe rounds")
    longest = _convert.real(wait_s, "wait_s")
    if not 0.0 <= longest <= 86400.0:
        raise ValueError(f"wait_s: must be in [0, 86400] seconds, got {wait_s!r}")
    probe = _convert.real(probe_s, "probe_s")
    if not 0.0 < probe <= 60.0:
        raise ValueError(f"probe_s: must be in (0, 60] seconds, got {probe_s!r}")
    start = _clock.monotonic()
    while True:
        speed = probe_host(threads=threads, duration_s=probe, reference_s=reference_s)
        reference_s = speed.reference_s
        waited = _clock.monotonic() - start
        if speed.slow_share <= share or waited >= longest:
            return QuietWait(speed=speed, waited_s=waited, quiet=speed.slow_share <= share)
        if on_wait is not None:
            on_wait(speed)
        _clock.sleep(min(4.0, longest - waited))


@record
class HostCheck(Record):
    """What :func:`check_host` found: whether this machine is quiet enough to measure on.

    Attributes
    ----------
    cpu_model : str
        The CPU model (:func:`machine_record`).
    threads : int
        CPUs probed.
    loadavg_1m : float
        The 1-minute load average at the start (NaN where unknown).
    cpus : CpuProbe
        Each CPU alone and beside the others, and its stalls (:func:`probe_cpus`).
    windows : tuple of HostSpeed
        The host's speed in windows of about one second (:func:`probe_host`), each judged
        against the fastest round seen before it.
    slow_share : float
        Slow rounds (over 1.3x the fastest) of all windows' rounds.
    quiet : bool
        ``slow_share`` at most ``limit``, no CPU interference or stall over the limits of
        :func:`probe_notes`, no CPU slower alone than another by more than
        :data:`INTERFERENCE_LIMIT`, and a load average at most half a process per core.
    notes : tuple of str
        One sentence per finding that makes the host not quiet.
    limit : float
        The share of slow rounds judged quiet.
    """

    cpu_model: str
    threads: int
    loadavg_1m: float
    cpus: CpuProbe
    windows: tuple[HostSpeed, ...]
    slow_share: float
    quiet: bool
    notes: tuple[str, ...]
    limit: float

    def _asdict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["cpus"] = self.cpus._asdict()
        d["windows"] = [w._asdict() for w in self.windows]
        d["notes"] = list(self.notes)
        if not math.isfinite(self.loadavg_1m):
            d["loadavg_1m"] = None  # unknown; JSON has no NaN
        return d


def check_host(
    *,
    duration_s: float = 10.0,
    threads: int | None = None,
    limit: float = HOST_SLOW_LIMIT,
    progress: bool = False,
) -> HostCheck:
    """Check whether this machine is quiet enough for measurements that repeat.

    Runs :func:`probe_cpus` (each CPU alone and beside the others, and their stalls), then
    :func:`probe_host` in windows of about one second for ``duration_s`` seconds, each
    window judged against the fastest round seen so far, and reads the load average. The
    virtual machines this project ran on had periods where 60-98% of the probe rounds ran
    slow and the 2-thread run times of one point spread 1.3-2x; on a quiet host 0-2% did
    (docs/validate-log.md, "Where the targets stand", the host probes). A measurement worth
    reporting wants ``quiet``; :func:`measure` (``quiet_host``) can wait for it before each
    pass, and :func:`tune` (``confidence``) can measure until its pick stands out.

    Parameters
    ----------
    duration_s : float
        Seconds of host windows, in [1, 3600].
    threads : int, optional
        CPUs to probe, the first ``threads`` this process may use (default: all).
    limit : float
        The share of slow rounds that counts as quiet, in (0, 1).
    progress : bool
        Progress bar on standard error.

    Returns
    -------
    HostCheck
        The probes, the share of slow rounds and the verdict with its reasons.

    Raises
    ------
    ValueError
        If a value is out of range, or ``threads`` exceeds the CPUs this process may use.
    TypeError
        If an argument has the wrong type.
    """
    from tqdm import tqdm

    seconds = _convert.real(duration_s, "duration_s")
    if not 1.0 <= seconds <= 3600.0:
        raise ValueError(f"duration_s: must be in [1, 3600] seconds, got {duration_s!r}")
    share_limit = _convert.share(limit, "limit", "a share of slow probe rounds")
    n = default_threads() if threads is None else _thread_count_on_cpus(threads)
    show = _convert.boolean(progress, "progress")
    load = _loadavg()[0]
    n_windows = max(1, round(seconds))
    bar = tqdm(total=n_windows + 1, disable=not show, unit="probe", file=sys.stderr)
    try:
        bar.set_description("CPUs alone and together")
        cpus = probe_cpus(threads=n)
        bar.update(1)
        windows: list[HostSpeed] = []
        reference: float | None = None
        for _ in range(n_windows):
            bar.set_description("host speed")
            speed = probe_host(threads=n, duration_s=seconds / n_windows, reference_s=reference)
            reference = speed.reference_s
            windows.append(speed)
            bar.update(1)
    finally:
        bar.close()
    rounds = sum(w.rounds for w in windows)
    slow = sum(w.slow_share * w.rounds for w in windows) / rounds if rounds else 1.0
    notes = list(probe_notes(cpus))
    if slow > share_limit:
        notes.append(
            f"{100 * slow:.0f}% of the host's probe rounds ran over 1.3x the fastest (quiet: "
            f"at most {100 * share_limit:.0f}%): the host ran this machine's CPUs slow in "
            "stretches, and run times will spread accordingly"
        )
    alone = [a for a in cpus.alone_s if a > 0]
    if len(alone) > 1 and max(alone) / min(alone) - 1.0 > INTERFERENCE_LIMIT:
        slowest, fastest = int(np.argmax(cpus.alone_s)), int(np.argmin(cpus.alone_s))
        notes.append(
            f"CPU {slowest} runs {100 * (max(alone) / min(alone) - 1):.0f}% slower alone than "
            f"CPU {fastest} (median {1e3 * max(alone):.3f} ms against {1e3 * min(alone):.3f} "
            "ms): a run on every CPU waits for it"
        )
    if load_is_high(load, default_threads()):
        notes.append(
            f"load average {load} is above half a runnable process per core "
            f"({default_threads()} CPUs): other processes share the CPUs"
        )
    model = str(machine_record().get("cpu_model", "unknown"))
    return HostCheck(model, n, load, cpus, tuple(windows), slow, not notes, tuple(notes),
                     share_limit)  # fmt: skip


def probe_notes(probe: CpuProbe) -> list[str]:
    """Sentences that say where a :func:`probe_cpus` result shows interference.

    Parameters
    ----------
    probe : CpuProbe
        The probe.

    Returns
    -------
    list of str
        One sentence per CPU that runs more than ``INTERFERENCE_LIMIT`` slower beside the
        others than alone, or loses more than ``STALL_LIMIT`` of its time in stalls; empty
        when the CPUs are independent.
    """
    if not isinstance(probe, CpuProbe):
        raise TypeError(f"probe: expected a CpuProbe, got {type(probe).__name__}")
    notes = []
    for cpu, (alone, together) in enumerate(zip(probe.alone_s, probe.together_s, strict=True)):
        slower = together / alone - 1.0 if alone > 0 else 0.0
        if len(probe.alone_s) > 1 and slower > INTERFERENCE_LIMIT:
            notes.append(
                f"CPU {cpu} runs {100 * slower:.0f}% slower while every CPU works than alone "
                f"(median {1e3 * together:.3f} ms against {1e3 * alone:.3f} ms): all-core "
                "run times will be slower and bimodal on this machine"
            )
    for cpu, (share, longest) in enumerate(
        zip(probe.stall_share, probe.longest_stall_s, strict=True)
    ):
        if share > STALL_LIMIT:
            notes.append(
                f"CPU {cpu} stalled {100 * share:.1f}% of the time while every CPU spun "
                f"(longest {1e3 * longest:.1f} ms): another process, or the host, ran on it"
            )
    return notes


@record
class HostGate(Record):
    """One quiet-host gate of :func:`measure` (``quiet_host``), as its table records it.

    Attributes
    ----------
    pass_index : int
        The pass of the run it preceded.
    position : int
        That run's position in its pass (0: the gate at the pass's start; more with
        ``quiet_every_s``, a gate inside the pass).
    time : str
        When it ended (UTC, ISO 8601).
    slow_share : float
        Share of the last probe's rounds above 1.3x the reference (:func:`probe_host`).
    median_over_reference : float
        The last probe's median round over the reference.
    reference_s : float
        The reference round time, s.
    rounds : int
        Rounds of the last probe.
    waited_s : float
        Seconds the gate waited.
    quiet : bool
        Whether the pass started on a quiet host (``slow_share <= limit``).
    limit : float
        The gate's limit (``quiet_host``).
    """

    pass_index: int
    position: int
    time: str
    slow_share: float
    median_over_reference: float
    reference_s: float
    rounds: int
    waited_s: float
    quiet: bool
    limit: float


def table_host_gates(table: Table) -> list[HostGate]:
    """Return the quiet-host gates a table records (``measure(quiet_host=...)``), in order.

    Parameters
    ----------
    table : Table
        A table read by :func:`read_table`.

    Returns
    -------
    list of HostGate
        One per gated pass (a resumed sweep may gate a pass twice); empty for a table
        measured without the gate.

    Raises
    ------
    ValueError
        If a ``host:`` line is not a gate record (names the table).
    """
    if not isinstance(table, Table):
        raise TypeError(f"table: expected a Table, got {type(table).__name__}")
    gates = []
    for line in table.comments:
        if not line.startswith("host: "):
            continue
        try:
            gates.append(HostGate(**json.loads(line[len("host: ") :])))
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"{table.source}: a header line 'host:' is not a gate record ({exc})"
            ) from exc
    return gates


def table_cpu_probe(table: Table) -> CpuProbe | None:
    """Return the :func:`probe_cpus` result kept in a table's header (``cpu_probe=True``).

    Parameters
    ----------
    table : Table
        A table read by :func:`read_table`.

    Returns
    -------
    CpuProbe or None
        The probe of the header's ``cpus:`` line, None when the table has none.

    Raises
    ------
    ValueError
        If the ``cpus:`` line is not a probe (names the table).
    """
    if not isinstance(table, Table):
        raise TypeError(f"table: expected a Table, got {type(table).__name__}")
    line = _header_value(table.comments, "cpus")
    if line is None:
        return None
    try:
        fields = json.loads(line)
        return CpuProbe(**fields)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{table.source}: the header line 'cpus:' is not a probe ({exc})") from exc


#: Threads one harness run may use (the core's ``kMaxThreads``).
_MAX_RUN_THREADS = 256


def _thread_count_on_cpus(value: object, name: str = "threads") -> int:
    """One thread count of a timed sweep, a calibration or a probe: one thread per CPU.

    More threads than CPUs would time the CPUs' sharing, not the work. One rule and one
    message for every such count; the core's probes check theirs by the same rule and
    words (``require_probe_threads``).
    """
    cpus = default_threads()
    limit = min(cpus, _MAX_RUN_THREADS)
    n = _convert.integer(value, name)
    if not 1 <= n <= limit:
        why = "the CPUs this process may use" if limit == cpus else "the harness's limit"
        raise ValueError(f"{name}: must be in [1, {limit}] ({why}), got {n}")
    return n


def _thread_list(threads: int | Sequence[int] | None, name: str = "threads") -> tuple[int, ...]:
    cpus = default_threads()
    if threads is None:
        values: list[object] = [1, cpus]
    elif isinstance(threads, (int, np.integer)) and not isinstance(threads, (bool, np.bool_)):
        values = [threads]
    elif isinstance(threads, (str, bytes)) or not isinstance(threads, Iterable):
        raise TypeError(f"{name}: expected an int or a sequence of int, got {threads!r}")
    else:
        values = list(threads)
    if not values:
        raise ValueError(f"{name}: must name at least one thread count")
    out: list[int] = []
    for v in values:
        n = _thread_count_on_cpus(v, name)
        if n not in out:
            out.append(n)
    return tuple(out)


def _schedule_list(schedule: str | Sequence[str] | None) -> tuple[str, ...]:
    """Return the schedules to measure; empty for None (each stencil's default)."""
    if schedule is None:
        return ()
    if not isinstance(schedule, (str, Sequence)):
        raise TypeError(f"schedule: expected a string, strings or None, got {schedule!r}")
    values = [schedule] if isinstance(schedule, str) else list(schedule)
    if not values:
        raise ValueError("schedule: must name at least one schedule")
    out: list[str] = []
    for v in values:
        if v not in SCHEDULES:
            raise ValueError(f"schedule: must be one of {list(SCHEDULES)}, got {v!r}")
        if v not in out:
            out.append(v)
    return tuple(out)


_Unit = tuple[str, tuple[int, ...], tuple[int, ...], int, str]


def _units(
    points: Sequence[Point], threads: tuple[int, ...], schedules: tuple[str, ...]
) -> tuple[list[_Unit], dict[_Unit, tuple[str, ...]]]:
    """Every (point, threads, schedule) once, tags merged, in a stable order.

    With no schedules given, each point is measured with its stencil's default.
    """
    tags: dict[_Unit, list[str]] = {}
    for p in points:
        counts = (p.threads,) if p.threads is not None else threads
        for n in counts:
            for sched in schedules or (default_schedule(p.stencil),):
                unit = (p.stencil, p.sizes, p.tiles, n, sched)
                merged = tags.setdefault(unit, [])
                merged += [t for t in p.tags if t not in merged]
    return list(tags), {u: tuple(t) for u, t in tags.items()}


def pass_order(n_units: int, seed: int, pass_index: int) -> npt.NDArray[np.intp]:
    """Return the shuffled order of one pass (a permutation of ``range(n_units)``).

    Seeded by ``(seed, pass_index)`` so that a resumed sweep runs the rest of a pass in
    the order it was started in.

    Parameters
    ----------
    n_units : int
        Points (each (point, threads, schedule) counts once).
    seed : int
        The sweep's seed (recorded in the table header).
    pass_index : int
        The pass.

    Returns
    -------
    numpy.ndarray
        The permutation.

    Raises
    ------
    TypeError
        If an argument is not an integer (``bool`` is not).
    ValueError
        If one is negative (``seed`` as :func:`measure`'s: in ``[0, 2**63 - 1]``), or
        ``n_units`` is over 10^7 (a sweep's points; a larger count allocated without
        bound).
    """
    n = _convert.integer(n_units, "n_units", lo=0, hi=10**7)
    seed_value = _positive_int(seed, "seed", 0, 2**63 - 1)
    k = _convert.integer(pass_index, "pass_index", lo=0)
    rng = np.random.default_rng([seed_value, k])
    return np.asarray(rng.permutation(n), dtype=np.intp)


def _fsync_append(fd: int, text: str) -> None:
    """Append whole lines with one write, then fsync.

    A row is on disk whole or not at all (a kill between bytes of one write can still
    cut it; resume handles that).
    """
    data = text.encode("utf-8")
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
    os.fsync(fd)


def _lock_path(path: Path) -> Path:
    """Return the lock file of the table ``path`` (:func:`_table_lock`), hidden beside it.

    Beside the file a link names, not the link: a sweep through the link and one through
    the file itself take the same lock (and the write follows the link, ``atomic_path``).
    """
    real = linked_file(path)
    return real.with_name(f".{real.name}.lock")


@contextmanager
def _table_lock(path: Path, name: str, *, create: bool = True) -> Iterator[None]:
    """Hold an exclusive lock on the table ``path`` for the block (one writer at a time).

    Two sweeps appending to one table wrote the same (point, pass) twice, which no reader
    or resume accepts. The lock is an advisory ``flock`` on a sibling file that is never
    removed: the table itself is created by renaming a temporary file over it (a lock on
    the old inode would not hold the new one), and a lock file removed on exit could be
    locked anew by a third process while a second still held the removed one. The kernel
    releases the lock when its holder dies, even by SIGKILL; the file records the
    holder's process id for the message.

    With ``create=False`` (a check before any writing, :func:`_check_resumable`) a missing
    lock file is not created and the block runs unlocked: every writer creates it before
    it writes and never removes it, so no process holds it.

    Raises
    ------
    ValueError
        Naming ``name`` and ``path`` if another process holds the lock (or the lock file
        cannot be opened or locked).
    """
    lock = _lock_path(path)
    if not create and not lock.exists():
        # No writer has locked the table: none holds it (a refused check left a new one).
        yield
        return
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ValueError(
            f"{name}: cannot open the lock file {lock}: {exc.strerror or exc}"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise ValueError(
                f"{name}: {path} is being measured by another process{pid}; wait for it "
                "to end or measure into another file"
            ) from None
        except OSError as exc:  # e.g. a file system without locks
            raise ValueError(f"{name}: cannot lock {lock}: {exc.strerror or exc}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _cut_partial_line(path: Path) -> str:
    """Cut an unterminated last line off ``path``; return the ``# set aside`` note.

    The note is '' if the file ends with a newline. The point it held is measured again.
    """
    data = path.read_bytes()
    _, partial = _split_complete_lines(data)
    if not partial:
        return ""
    with path.open("r+b") as f:
        f.truncate(len(data) - len(partial))
        f.flush()
        os.fsync(f.fileno())
    text = partial.decode("utf-8", "replace")
    return (
        f"# set aside: {_now()}: an unterminated last line of {len(partial)} bytes "
        f"(measured again): {json.dumps(text)}\n"
    )


def _starts_fresh(path: Path) -> bool:
    """Tell whether :func:`measure` writes the table ``path`` from scratch.

    So it does for no file, an empty one, or a header cut before its first row: there is
    nothing to resume.
    """
    return not path.exists() or path.stat().st_size == 0 or _only_header_prefix(path)


def _only_header_prefix(path: Path) -> bool:
    """Tell whether ``path`` holds no data row and starts like this protocol's header.

    That is a sweep killed while writing its header: it can be started again, nothing is
    lost.
    """
    if _has_rows(path):
        return False
    complete, partial = _split_complete_lines(_without_bom(path.read_bytes()))
    head = (complete[0] if complete else partial).decode("utf-8", "replace")
    wanted = f"# {_SCHEMA}"
    return wanted.startswith(head) or head == wanted


def _check_resume_header(
    table_comments: Sequence[str], path: Path, protocol: dict[str, Any], name: str = "out"
) -> None:
    if not table_comments or table_comments[0] != _SCHEMA:
        first = table_comments[0] if table_comments else "(no header)"
        raise ValueError(
            f"{name}: {path} is not a table of this protocol ({first!r}, expected "
            f"{_SCHEMA!r}); measure into a new file"
        )
    version = _header_value(table_comments, "harness")
    if version != HARNESS_VERSION:
        raise ValueError(
            f"{name}: {path} was measured with harness version {version}, this is "
            f"{HARNESS_VERSION}; measure into a new file"
        )
    check_same_machine(_machine_of_header(_header_value(table_comments, "machine")), name)
    recorded = _header_value(table_comments, "protocol")
    if recorded is not None:
        try:
            old = json.loads(recorded)
        except json.JSONDecodeError:
            old = None
        if not isinstance(old, dict):
            # (it resumed with no seed, warmup or pin check at all)
            raise ValueError(
                f"{name}: {path} has a protocol line that is not a JSON object "
                f"({recorded[:80]!r}); it cannot be resumed safely: measure into a new file"
            )
        for key in ("seed", "warmup", "pin"):
            if key in old and old[key] != protocol[key]:
                # measure()'s own argument is named; another caller's option (--confirm).
                raise ValueError(
                    f"{key if name == 'out' else name}: {path} was measured with {key} = "
                    f"{old[key]!r}, not {protocol[key]!r}; resume with the same value or use "
                    "a new file"
                )


def _check_resumable(path: Path, name: str, protocol: dict[str, Any]) -> None:
    """Check, before long work, that :func:`measure` can write or resume the table ``path``.

    ``protocol`` holds the ``seed``, ``warmup`` and ``pin`` it will be called with; errors
    name ``name`` (e.g. ``--confirm``): the file's kind and folder, a header of another
    protocol, harness or machine, runs that failed their correctness check, and a table
    another process is measuring into (its lock, :func:`_table_lock`, taken for the check
    where a writer made one: the check creates no lock file).
    """
    check_output_file(path, name, create_folder=True)
    with _table_lock(path, name, create=False):
        if _starts_fresh(path):
            return
        _check_resume_header(_comments_of(path), path, protocol, name)
        if _has_rows(path):
            _refuse_failed_runs(read_table(path), name, str(path))


def _refuse_failed_runs(table: Table, name: str, what: str) -> None:
    """Refuse a table that holds a run whose correctness check failed (``correct`` false).

    Such a run did not compute the stencil, so its time times something else: a resumed
    :func:`measure` used to keep it (never measured again) and ``validate`` scored it.

    Raises
    ------
    ValueError
        Naming ``name``, ``what`` (the file), the number of such runs and the first.
    """
    bad = np.flatnonzero(~table.correct)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name}: {what} holds {bad.size} run(s) that failed the correctness check "
            f"(first: {table.key_of(i)}, pass {int(table.pass_index[i])}): their times are "
            "not the stencil's; fix the harness and measure into a new file"
        )


def _header_text(text: object, name: str) -> str:
    """Return ``text`` if it fits one header line, else raise naming ``name``."""
    text = _convert.string(text, name)
    if not text.isprintable():
        # A line break split the header (the rest read as the CSV's column names); NUL
        # and the other control characters are refused with it, as in Point.tags.
        raise ValueError(
            f"{name}: must be one line of printable characters (it is written into the "
            f"table's header), got {text!r}"
        )
    return text


def _header_texts(command: object, notes: object) -> list[str]:
    """Return ``[command, *notes]`` checked for the table's one-line header format."""
    if isinstance(notes, (str, bytes)) or not isinstance(notes, Sequence):
        raise TypeError(
            f"notes: expected a sequence of str (e.g. ['calibration: cal1']), got "
            f"{type(notes).__name__} {notes!r}"
        )
    return [_header_text(command, "command")] + [
        _header_text(note, f"notes[{i}]") for i, note in enumerate(notes)
    ]


def measure(
    points: Sequence[Point],
    out: str | Path,
    *,
    threads: int | Sequence[int] | None = None,
    passes: int = 5,
    warmup: int = 1,
    schedule: str | Sequence[str] | None = None,
    seed: int = 0,
    pin: bool = True,
    command: str = "",
    notes: Sequence[str] = (),
    progress: bool = False,
    powercap_root: str | Path = "/sys/class/powercap",
    noise_target: float | None = None,
    max_passes: int | None = None,
    cpu_probe: bool = False,
    quiet_host: float | None = None,
    quiet_wait_s: float = 600.0,
    quiet_every_s: float | None = None,
    quiet_probe_s: float = 1.0,
) -> Path:
    """Measure ``points`` into the table ``out`` with the protocol of repeated passes.

    Every point (each (point, thread count, schedule) once) is measured in ``passes``
    passes; each pass visits all points in a shuffled order (:func:`pass_order`, seeded
    by ``seed`` and the pass), runs ``warmup`` untimed runs and then one timed run per
    point, and writes one row per point and pass with the pass index, the thread count,
    the schedule, the memory level of the arrays (:func:`memory_level`), the load average
    and the time. Back-to-back repeats of one point share the machine's momentary state
    and are not independent samples; passes spread each point's samples over the sweep
    (random interleaving, as Google Benchmark and asv do). :meth:`Table.medians` gives
    each point's median and spread.

    Crash safety: the header is written to a temporary file and renamed into place; each
    row is appended with one write and an fsync. A rerun resumes: rows already in
    ``out`` (same point and pass) are not measured again; an unterminated last line (a
    row being written when the sweep was killed) is cut off, recorded in a ``# set
    aside`` header comment, and its point measured again. A table from another protocol
    schema, harness version or machine, or measured with another ``seed``, ``warmup`` or
    ``pin``, is refused before anything runs. One sweep at a time writes a table: it holds
    an exclusive lock (``flock`` on the hidden file ``.<name>.lock`` beside it, left in
    place) from before it reads what was measured until it returns, and a second sweep on
    the same table is refused at once; the lock dies with its process, so a sweep killed
    (SIGKILL included) is resumed as before.

    Parameters
    ----------
    points : sequence of Point
        What to measure (e.g. :func:`default_points`); a point's own ``threads``
        overrides ``threads``.
    out : str or Path
        The table (created with its header if missing).
    threads : int or sequence of int, optional
        Thread counts to measure each point with (default: 1 and every allowed CPU);
        at most the CPUs this process may run on.
    passes : int
        Passes (at least 2 for a noise floor; 5 or more recommended).
    warmup : int
        Untimed runs before each timed run.
    schedule : str or sequence of str, optional
        How the harness deals a wavefront's tiles to the threads (:data:`SCHEDULES`);
        several schedules are measured as separate points. Default: each stencil's
        :func:`default_schedule` (block).
    seed : int
        Seed of the shuffled orders (recorded).
    pin : bool
        Pin thread i to the i-th allowed CPU.
    command : str
        The command line to record in the header (one line: printable characters only).
    notes : sequence of str
        More header lines (each printable: a line break would split the header, and the
        second half read as the table's column names). A single str is refused, not
        written letter by letter.
    progress : bool
        Show a progress bar on standard error.
    powercap_root : str or Path
        Where to look for RAPL counters.
    noise_target : float, optional
        Passes until the measurements repeat: after the ``passes`` passes, each group of
        points (stencil, thread count, schedule, memory level) whose noise floor of the
        median (``costmetrics.validate.noise_floor``) is above this fraction gets two
        more passes (one even, one odd, so the floor's halves stay balanced) over its
        points in a shuffled order, until every group is at or below it or ``max_passes``
        is reached. The groups of a pair follow from the passes before it only, so a
        resumed sweep continues the same pairs. Default: ``passes`` passes, no more.
    max_passes : int, optional
        At most this many passes with ``noise_target`` (default ``4 * passes``, at most
        1000).

    cpu_probe : bool
        Before a new table's first pass, run :func:`probe_cpus` on the most threads
        measured, write its result as the header line ``cpus:`` and warn
        (:class:`CpuInterferenceWarning`, and a ``warning:`` header line) where the CPUs
        slow each other down or stall: all-core times are then bimodal (about 1 s).
    quiet_host : float, optional
        A quiet-host gate: before each pass, :func:`probe_host` (``quiet_probe_s``, and
        inside a pass every ``quiet_every_s``) measures the share
        of slow probe rounds; while it is above this fraction (e.g. ``HOST_SLOW_LIMIT``)
        the pass waits (:func:`wait_for_quiet_host`, a probe every 5 s) for up to
        ``quiet_wait_s`` seconds, and then runs (quiet or not). Each gate writes a
        ``# host:`` line into the table (the slow share, the wait, and whether the host
        was quiet); a pass run on a host still slow gives a
        :class:`CpuInterferenceWarning`. The gate is part of the protocol line.
        Default: no gate.
    quiet_wait_s : float
        The longest wait of one gate, seconds in [0, 86400].
    quiet_every_s : float, optional
        With ``quiet_host``: gate again inside a pass, before the next run, once this many
        seconds (in [1, 86400]) have passed since the last gate; the host's slow
        stretches come and go within a pass. Default: at the start of each pass only.
    quiet_probe_s : float
        With ``quiet_host``: seconds of each gate's probe, in [0.05, 60].

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    TypeError
        If ``out`` or ``powercap_root`` is not a str or Path, ``command`` not a str or
        ``notes`` not a sequence of str.
    ValueError
        For bad arguments (no points, a ``command``, note or ``powercap_root`` with a line
        break or another character that is not printable) or an ``out`` that cannot be
        resumed (before anything runs; a table holding a run that failed its correctness
        check is not resumed, nor one another process is measuring into), or when a run
        fails its correctness check (the row is written first, with ``correct = false``).
    """
    from tqdm import tqdm

    for value, name in ((out, "out"), (powercap_root, "powercap_root")):
        if not isinstance(value, (str, Path)):  # Path() named neither (bytes, 5, None)
            raise TypeError(f"{name}: expected a str or Path, got {type(value).__name__}")
    path = Path(out)
    header_lines = _header_texts(command, notes)
    _header_text(str(powercap_root), "powercap_root")  # named in the energy line
    items = list(points)
    if not items:
        # (the table it wrote had a header and no rows, which read_table refuses)
        raise ValueError("points: nothing to measure (an empty sequence)")
    for p in items:
        if not isinstance(p, Point):
            raise TypeError(f"points: expected Point items, got {type(p).__name__}")
        _config(
            p.stencil, p.sizes, p.tiles, threads=1, repeats=1, warmup=0, pin=False,
            check=False, energy=None,
        )  # fmt: skip  # validates stencil, sizes, tiles before anything runs
    counts = _thread_list(threads)
    for p in items:
        if p.threads is not None:
            _thread_list(p.threads, "points[].threads")
    schedules = _schedule_list(schedule)
    n_passes = _positive_int(passes, "passes", 1, _MAX_PASSES)
    n_warmup = _positive_int(warmup, "warmup", 0, 1000)
    seed_value = _positive_int(seed, "seed", 0, 2**63 - 1)
    do_pin = _convert.boolean(pin, "pin")
    target, n_max = _adaptive_passes(
        noise_target, "noise_target", "a fraction", "passes until the floor is low",
        max_passes, n_passes,
    )  # fmt: skip
    slow_limit: float | None = None
    wait_limit_s = _convert.real(quiet_wait_s, "quiet_wait_s")
    if not 0.0 <= wait_limit_s <= 86400.0:
        raise ValueError(f"quiet_wait_s: must be in [0, 86400] seconds, got {quiet_wait_s!r}")
    every_s: float | None = None
    if quiet_every_s is not None:
        every_s = _convert.real(quiet_every_s, "quiet_every_s")
        if not 1.0 <= every_s <= 86400.0:
            raise ValueError(f"quiet_every_s: must be in [1, 86400] seconds, got {quiet_every_s!r}")
    gate_probe_s = _convert.real(quiet_probe_s, "quiet_probe_s")
    if not 0.05 <= gate_probe_s <= 60.0:
        raise ValueError(f"quiet_probe_s: must be in [0.05, 60] seconds, got {quiet_probe_s!r}")
    if quiet_host is not None:
        slow_limit = _convert.share(quiet_host, "quiet_host", "a share of slow probe rounds")
    units, unit_tags = _units(items, counts, schedules)
    protocol = {
        "passes": n_passes, "warmup": n_warmup, "seed": seed_value, "pin": do_pin,
        "threads": list(counts), "schedule": list(schedules) or "stencil default",
        "points": len(units),
    }  # fmt: skip
    if target is not None:
        protocol.update(noise_target=target, max_passes=n_max)
    if slow_limit is not None:
        protocol.update(quiet_host=slow_limit, quiet_wait_s=wait_limit_s,
                        quiet_probe_s=gate_probe_s)  # fmt: skip
        if every_s is not None:
            protocol.update(quiet_every_s=every_s)
    check_output_file(path, "out", create_folder=True)
    writable_folder(path.parent if str(path.parent) else Path("."), "out")  # made if missing
    # Before anything is read: a second sweep must not decide what is left to measure
    # from rows the first is still writing.
    with _table_lock(path, "out"):
        counter = find_rapl_package(powercap_root)
        machine = machine_record()
        cpus = default_threads()
        load_now = _loadavg()[0]
        if load_is_high(load_now, cpus):
            warnings.warn(
                f"load average {load_now} is above half a runnable process per core ({cpus} "
                "CPUs): the times will carry other processes' noise",
                LoadWarning,
                stacklevel=2,
            )
        do_probe = _convert.boolean(cpu_probe, "cpu_probe")
        done: set[tuple[_Unit, int]] = set()
        fresh = _starts_fresh(path)
        if not fresh:
            # Refuse a foreign table before touching it; then cut a partial last line.
            _check_resume_header(_comments_of(path), path, protocol)
            note = _cut_partial_line(path)
            table = read_table(path) if _has_rows(path) else None
            if table is not None:
                _refuse_failed_runs(table, "out", str(path))
                done = {(table.key_of(i), int(table.pass_index[i])) for i in range(len(table))}
            resumed = (
                f"# resumed: {_now()} loadavg {list(_loadavg())}; protocol {json.dumps(protocol)}\n"
            )
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                _fsync_append(fd, note + resumed)
            finally:
                os.close(fd)
        else:
            header = [
                _SCHEMA,
                f"command: {header_lines[0]}" if header_lines[0] else "command: (Python API)",
                f"harness: {HARNESS_VERSION}",
                f"machine: {json.dumps(machine, sort_keys=True)}",
                f"energy: {energy_status(powercap_root)}",
                f"started: {_now()} loadavg {machine['loadavg']}",
                f"protocol: {json.dumps(protocol)}",
                f"timing: {n_passes} passes over all points in a shuffled order (seed "
                f"{seed_value}); per point and pass {n_warmup} warm-up run(s) then one timed "
                "run; a point's time is its median over passes; threads pinned where allowed",
                *(
                    [
                        f"adaptive: then pairs of passes over each group (stencil, threads, "
                        f"schedule, memory level) whose noise floor of the median is above "
                        f"{target:g}, up to {n_max} passes"
                    ]
                    if target is not None
                    else []
                ),
                *header_lines[1:],
            ]
            if load_is_high(load_now, cpus):
                header.append(f"warning: load average {load_now} above {0.5 * cpus} at the start")
            if do_probe:
                probe = probe_cpus(threads=min(max(counts), cpus))
                header.append(f"cpus: {json.dumps(probe._asdict())}")
                for text in probe_notes(probe):
                    header.append(f"warning: {text}")
                    warnings.warn(text, CpuInterferenceWarning, stacklevel=2)
            text = "".join(f"# {h}\n" for h in header) + _csv_line(CSV_COLUMNS)
            with atomic_path(path) as tmp:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                try:
                    _fsync_append(fd, text)
                finally:
                    os.close(fd)
        caches = _caches_of(machine)
        todo = [
            (k, units[int(i)])
            for k in range(n_passes)
            for i in pass_order(len(units), seed_value, k)
            if (units[int(i)], k) not in done
        ]
        failures = []
        bar = tqdm(total=len(todo), disable=not progress, unit="run", file=sys.stderr)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        fastest_round_s = 0.0  # the quiet-host gate's reference, carried from gate to gate
        last_gate = -math.inf  # when the last gate ended (monotonic clock)

        def gate(k: int, position: int = 0, *, due: bool = True) -> None:
            # due=False: a gate inside a pass, taken only once quiet_every_s have passed.
            nonlocal fastest_round_s, last_gate
            if slow_limit is None:
                return
            if not due and (every_s is None or _clock.monotonic() - last_gate < every_s):
                return
            wait = wait_for_quiet_host(
                limit=slow_limit, wait_s=wait_limit_s, threads=min(max(counts), cpus),
                reference_s=fastest_round_s or None, probe_s=gate_probe_s,
                on_wait=lambda sp: bar.set_description(
                    f"pass {k}: waiting for a quiet host ({100 * sp.slow_share:.0f}% slow rounds)"
                ),
            )  # fmt: skip
            speed, waited, quiet = wait.speed, wait.waited_s, wait.quiet
            fastest_round_s = speed.reference_s
            last_gate = _clock.monotonic()
            gate_record = HostGate(
                pass_index=k, position=position, time=_now(), slow_share=speed.slow_share,
                median_over_reference=speed.median_over_reference, reference_s=speed.reference_s,
                rounds=speed.rounds, waited_s=round(waited, 3), quiet=quiet, limit=slow_limit,
            )  # fmt: skip
            if not quiet:
                warnings.warn(
                    f"pass {k}: the host still runs slow ({100 * speed.slow_share:.0f}% of the "
                    f"probe rounds) after {waited:.0f} s; measuring anyway",
                    CpuInterferenceWarning,
                    stacklevel=3,
                )
            _fsync_append(fd, f"# host: {json.dumps(gate_record._asdict())}\n")

        def measure_one(k: int, unit: _Unit, position: int) -> None:
            stencil, sizes, tiles, n_threads, sched = unit
            raise_if_terminated()  # a SIGTERM whose interrupt was lost (_interrupt): rows kept
            bar.set_description(f"pass {k} {stencil} {sizes} {tiles} x{n_threads}", refresh=False)
            r = run(
                stencil, sizes, tiles, threads=n_threads, repeats=1, warmup=n_warmup,
                pin=do_pin, check=True, energy=counter, schedule=sched,
            )  # fmt: skip
            _, s, t = _problem(stencil, sizes, tiles)
            dims = space_dims(stencil)
            ws = _working_set_bytes(stencil, s)
            _fsync_append(
                fd,
                _csv_line(
                    [
                        stencil, s[0], s[1] if dims >= 2 else "", s[2] if dims == 3 else "",
                        s[3], t[0], t[1] if dims >= 2 else "", t[2] if dims == 3 else "", t[3],
                        "+".join(unit_tags[unit]),
                        n_threads, sched, k, position, repr(r.time_min_s),
                        repr(r.cpu_time_s) if r.cpu_time_s >= 0 else "",
                        repr(r.energy_j) if math.isfinite(r.energy_j) else "",
                        "true" if r.correct else "false", repr(r.max_abs_error),
                        r.n_wavefronts, r.n_tiles, r.n_subtiles, r.words_loaded,
                        r.words_stored, ws, _level_of_bytes(ws, caches), r.pinned_threads,
                        _loadavg()[0],
                        round(_dt.datetime.now(_dt.UTC).timestamp(), 3),
                    ]
                ),
            )  # fmt: skip
            if not r.correct:
                failures.append(unit)
            bar.update(1)

        try:
            position = {(u, k): j for k in range(n_passes) for j, u in enumerate(
                units[int(i)] for i in pass_order(len(units), seed_value, k)
            )}  # fmt: skip
            for j, (k, unit) in enumerate(todo):
                gate(k, position[(unit, k)], due=j == 0 or todo[j - 1][0] != k)
                measure_one(k, unit, position[(unit, k)])
            # Pairs of passes over the groups still above the noise target (noise_target).
            k = n_passes
            while target is not None and k + 2 <= n_max:
                noisy = _noisy_units(read_table(path), units, k, target)
                if not noisy:
                    break
                for kk in (k, k + 1):
                    order = [noisy[int(i)] for i in pass_order(len(noisy), seed_value, kk)]
                    rest = [(j, u) for j, u in enumerate(order) if (u, kk) not in done]
                    bar.total += len(rest)
                    bar.refresh()
                    for n_done, (j, u) in enumerate(rest):
                        gate(kk, j, due=n_done == 0)
                        measure_one(kk, u, j)
                k += 2
        finally:
            os.close(fd)
            bar.close()
        if failures:
            raise ValueError(
                f"{len(failures)} run(s) differ from the naive stencil, first: {failures[0]}"
            )
        return path


def _adaptive_passes(
    target: object, name: str, what: str, purpose: str, max_passes: int | None, n_passes: int
) -> tuple[float | None, int]:
    """Return the target share and pass bound of a loop of extra passes (measure, tune).

    ``target`` (None: no extra passes) is a share in (0, 1) of ``what``; ``max_passes``
    bounds the passes, ``4 * n_passes`` (at most 1000) by default, at least ``n_passes``,
    and is refused without a target (it would be ignored: ``purpose`` says what it bounds).
    """
    if target is None:
        if max_passes is not None:
            raise ValueError(f"max_passes: only with {name} ({purpose})")
        return None, n_passes
    value = _convert.share(target, name, what)
    n_max = min(1000, 4 * n_passes) if max_passes is None else max_passes
    return value, _positive_int(n_max, "max_passes", n_passes, _MAX_PASSES)


def _noisy_units(table: Table, units: Sequence[_Unit], below: int, target: float) -> list[_Unit]:
    """Units of the groups whose noise floor over the passes ``< below`` exceeds ``target``.

    Groups: (stencil, threads, schedule, memory level); the floor is that of the median
    (``costmetrics.validate.noise_floor``), NaN (fewer than two passes) counting as above.
    Only rows of ``units`` and passes before ``below`` are used, so the answer for a pair
    of passes does not change while the pair is measured (a resumed sweep continues it).
    """
    from costmetrics.validate import noise_floor  # validate imports this module

    index = {u: i for i, u in enumerate(units)}
    times = np.full((len(units), max(below, 1)), np.nan)
    level: dict[int, str] = {}
    for r in range(len(table)):
        i = index.get(table.key_of(r))
        p = int(table.pass_index[r])
        if i is None or not 0 <= p < below:
            continue
        times[i, p] = table.time_s[r]
        level[i] = table.memory_level[r]
    groups: dict[tuple[str, int, str, str], list[int]] = {}
    for u, i in index.items():
        groups.setdefault((u[0], u[3], u[4], level.get(i, "")), []).append(i)
    noisy: list[int] = []
    for idx in groups.values():
        floor = noise_floor(times[idx])
        if not floor <= target:
            noisy.extend(idx)
    return [units[i] for i in sorted(noisy)]


def _has_rows(path: Path) -> bool:
    complete, _ = _split_complete_lines(_without_bom(path.read_bytes()))
    seen_header = False
    for raw in complete:
        if raw.startswith(b"#") or not raw.strip():
            continue
        if seen_header:
            return True
        seen_header = True
    return False


def _comments_of(path: Path) -> tuple[str, ...]:
    # Without the mark, as read_table reads it: the schema line read as a data line, and
    # resume quoted the next comment as the table's first line.
    complete, _ = _split_complete_lines(_without_bom(path.read_bytes()))
    return tuple(
        raw.decode("utf-8", "replace")[1:].strip() for raw in complete if raw.startswith(b"#")
    )


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def write_energy_csv(table: Table, path: str | Path, comments: Sequence[str] = ()) -> Path | None:
    """Write the rows with measured energy as an energy run table (``costmetrics.energy``).

    Only the kernels the energy model knows (Jacobi 1D and 2D) are written, by
    :func:`costmetrics.energy.write_runs`, the one writer of that format
    (``docs/energy.md``), so that :func:`costmetrics.energy.fit` reads it.

    Parameters
    ----------
    table : Table
        Measurements (rows without energy are skipped).
    path : str or Path
        Destination.
    comments : sequence of str
        Header lines.

    Returns
    -------
    Path or None
        The file, or None when no row has energy (nothing written).
    """
    rows = [
        i for i in range(len(table))
        if table.stencil[i] in _ENERGY_KERNELS
        and math.isfinite(float(table.energy_j[i])) and float(table.energy_j[i]) > 0
    ]  # fmt: skip
    if not rows:
        return None
    idx = np.asarray(rows, dtype=np.int64)
    # The harness's sizes and tiles are (S1, S2, S3, T) rows, zeros where a stencil lacks
    # the dimension, as in the energy tables; no subtiles (sS = tS).
    runs = _cm_energy.Runs(
        tuple(table.stencil[i] for i in rows), np.asarray(table.sizes[idx], dtype=np.int64),
        np.asarray(table.tiles[idx], dtype=np.int64), np.zeros(len(rows), dtype=np.int64),
        np.asarray(table.time_s[idx], dtype=np.float64),
        np.asarray(table.energy_j[idx], dtype=np.float64),
    )  # fmt: skip
    return _cm_energy.write_runs(runs, path, comments)


# --------------------------------------------------------------------------------------
# The measured tuner
# --------------------------------------------------------------------------------------


@record
class TuneCandidate(Record):
    """One (tile, thread count) pair ranked by the model and measured by :func:`tune`.

    Attributes
    ----------
    rank : int
        Position in the model's order (0: predicted fastest).
    tiles : tuple of int
        ``(tS, tT)`` or ``(tS1, tS2, tT)``.
    threads : int
        Worker threads.
    predicted_s : float
        The variant's T_alg.
    time_s : float
        Measured time: the tune's statistic over passes (median or minimum).
    time_min_s, time_max_s : float
        Spread over passes.
    fastest_share : float
        Share of the bootstrap resamples of the passes (each candidate's passes drawn with
        replacement, the statistic taken again) in which this candidate is the fastest:
        near 1 for the best when the pick stands out from the noise, split among the
        candidates when they cannot be told apart on this machine.
    """

    rank: int
    tiles: tuple[int, ...]
    threads: int
    predicted_s: float
    time_s: float
    time_min_s: float
    time_max_s: float
    fastest_share: float


@record
class TuneResult(Record):
    """What :func:`tune` found: the measured best of the model's top k.

    Attributes
    ----------
    stencil : str
        The stencil.
    sizes : tuple of int
        The problem.
    variant : str
        The ranking variant (``"fitted-<variant>"``: fitted first on a measured table).
    k : int
        Candidates measured.
    tiles : tuple of int
        The measured best's tiles.
    threads : int
        Its thread count.
    time_s : float
        Its median time over passes.
    predicted_s : float
        Its predicted time.
    candidates : tuple of TuneCandidate
        Every measured candidate in predicted order.
    table : str
        The measurement table (every run of the candidates, :func:`read_table`).
    runs : Table
        The best candidate's runs (one row per pass).
    calibration_threads : dict of int to int
        Per thread count ranked, the thread count of the calibration that predicted it
        (they differ where no calibration was measured at that count: a stand-in).
    statistic : str
        How a candidate's time was taken over its passes (:func:`point_statistic`).
    confidence : float or None
        The share the measured best had to reach to stop measuring (``tune(confidence=)``),
        or None: the given passes only.
    confident : bool
        Whether the measured best is the fastest in at least ``confidence`` of the
        bootstrap resamples (:data:`TOLD_APART_SHARE` where none was given): false when the
        candidates cannot be told apart on this machine with the passes measured.
    passes : int
        The best candidate's passes (more than ``passes`` where ``confidence`` asked for
        them, or where a resumed table held them).
    """

    stencil: str
    sizes: tuple[int, ...]
    variant: str
    k: int
    tiles: tuple[int, ...]
    threads: int
    time_s: float
    predicted_s: float
    candidates: tuple[TuneCandidate, ...]
    table: str
    runs: Table = field(repr=False)
    calibration_threads: dict[int, int] = field(default_factory=dict)
    statistic: str = "median"
    confidence: float | None = None
    confident: bool = False
    passes: int = 0

    def _asdict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "runs"}
        d["calibration_threads"] = {str(k): v for k, v in self.calibration_threads.items()}
        d["candidates"] = [c._asdict() for c in self.candidates]
        d["runs"] = {
            "pass": self.runs.pass_index.tolist(),
            "time_s": self.runs.time_s.tolist(),
            "loadavg_1m": self.runs.loadavg_1m.tolist(),
        }
        return d


def fastest_shares(
    pass_times_s: npt.ArrayLike, statistic: str = "median", *, resamples: int = 1000, seed: int = 0
) -> npt.NDArray[np.float64]:
    """Return how often each candidate is the fastest when its passes are resampled.

    Each candidate's passes (its row, NaN where a pass lacks it) are drawn with replacement
    ``resamples`` times and the statistic (:func:`point_statistic`) taken again; a resample's
    fastest candidate is the one with the least statistic (candidates that tie share the
    resample in equal parts). On a
    machine whose run times have two modes (``docs/validate.md``), candidates within the
    noise share the wins: this says whether a measured "best" is one.

    Parameters
    ----------
    pass_times_s : array_like
        Shape (candidates, passes), seconds, NaN where a pass lacks a candidate.
    statistic : {"median", "min"}
        The per-candidate statistic over passes.
    resamples : int
        Bootstrap resamples, in [1, 10^6].
    seed : int
        Seed of the resampling (``numpy.random.default_rng``), in [0, 2^63).

    Returns
    -------
    numpy.ndarray
        Per candidate, the share of resamples in which it is the fastest (they sum to 1).

    Raises
    ------
    ValueError
        If the array is not 2-D with at least one candidate, a candidate has no pass, a
        time is not finite, > 0 and < 1e9 s (NaN: a pass lacks it), or an argument is out
        of range.
    TypeError
        If ``pass_times_s`` holds anything but real numbers (strings, bools, None).
    """
    stat = _statistic_name(statistic)
    n_b = _positive_int(resamples, "resamples", 1, 10**6)
    seed_value = _positive_int(seed, "seed", 0, 2**63 - 1)
    # Real times, each finite, > 0 and < 1e9 s, or NaN: -inf was dropped like a missing
    # pass, strings and complex numbers raised NumPy's errors, bools and None were times.
    t = _pass_times_array(pass_times_s)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError(f"pass_times_s: must be 2-D (candidates, passes), got shape {t.shape}")
    rng = np.random.default_rng([seed_value, 21])
    stats = np.empty((t.shape[0], n_b))
    for i, row in enumerate(t):
        passes = row[np.isfinite(row)]
        if passes.size == 0 or (passes <= 0).any():
            raise ValueError(f"pass_times_s: candidate {i} has no finite positive passes")
        drawn = passes[rng.integers(0, passes.size, size=(n_b, passes.size))]
        stats[i] = np.median(drawn, axis=1) if stat == "median" else drawn.min(axis=1)
    # A resample whose least statistic several candidates share counts for each of them
    # in equal parts: giving it to the earlier row made candidates with the same times
    # look told apart (all to the first), which tune(confidence=) must not believe.
    fastest = stats == stats.min(axis=0)
    wins = (fastest / fastest.sum(axis=0)).sum(axis=1)
    return np.asarray(wins / n_b, dtype=np.float64)


#: The share of bootstrap resamples in which :func:`tune`'s measured best must be the
#: fastest to count as told apart from the other candidates, where no ``confidence`` is
#: given (``TuneResult.confident``).
TOLD_APART_SHARE = 0.9


def tune(
    stencil: str,
    calibration: Any,
    sizes: Sequence[int],
    *,
    variant: str = "exact",
    k: int = 5,
    threads: int | Sequence[int] | None = None,
    passes: int = 5,
    warmup: int = 1,
    schedule: str | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    progress: bool = False,
    statistic: str = "median",
    fit: Table | str | Path | None = None,
    confidence: float | None = None,
    max_passes: int | None = None,
) -> TuneResult:
    """Rank (tile, thread count) pairs with a time-model variant; measure the top k.

    The model ranks every feasible tile of the default search space
    (:func:`costmetrics.time.default_search_space`) at each thread count (with the
    calibration measured at that count, else the nearest with n_sm set to it); tiles the
    harness runs alike (:func:`harness_tiles`) count once, by their best-ranked name; the
    first ``k`` pairs are measured with the protocol of :func:`measure` (``passes`` shuffled
    passes) and the fastest by ``statistic`` over its passes wins. Seed 000, Sec. A.6.3 (measure the
    near-optimal set and keep the best), made a tool.

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    calibration : Calibration, path, or several
        This machine's calibration(s) (:func:`costmetrics.validate.predict`); one from
        another machine is refused.
    sizes : sequence of int
        ``(S, T)`` or ``(S1, S2, T)``.
    variant : str
        The ranking variant (:func:`costmetrics.validate.variants`).
    k : int
        Candidates to measure.
    threads : int or sequence of int, optional
        Thread counts to consider (default: 1 and every allowed CPU).
    passes, warmup, seed
        As in :func:`measure`.
    schedule : {"round-robin", "block"}, optional
        The harness schedule to measure with (default: :func:`default_schedule`); the
        model ranks with a preset describing it (``tile_schedule``).
    out : str or Path, optional
        The table to measure into (resumable); default: a new file in a temporary folder.
    progress : bool
        Progress bar on standard error.
    statistic : {"median", "min"}
        A candidate's time over its passes (:func:`point_statistic`).
    fit : Table or path, optional
        A table this machine measured (a :func:`measure` sweep) to fit the variant's
        parameters on first (:func:`costmetrics.validate.fit`); the ranking then uses the
        fitted parameters and the result's ``variant`` is ``"fitted-<variant>"``. On the
        shipped quiet runs the fitted ``machine`` variant ranks best (docs/validate.md,
        "The measured tuner").
    confidence : float, optional
        Then measure pairs of passes more over every candidate until the measured best is
        the fastest in at least this share of the bootstrap resamples of the passes
        (its ``fastest_share``, :func:`fastest_shares`), e.g. 0.9; in (0, 1). On a noisy
        host a few passes cannot tell close candidates apart; this measures until they can,
        or until ``max_passes``. A stopping rule, not a significance test: candidates
        within the noise of each other are never told apart, and the result says so
        (``confident`` false).
    max_passes : int, optional
        With ``confidence``: at most this many passes (default ``4 * passes``, at most 1000).

    Returns
    -------
    TuneResult
        The measured best and every candidate.
    """
    import tempfile

    from costmetrics import time as cm_time
    from costmetrics import validate as cm_validate

    name, _, _ = _problem(stencil, sizes, None)
    size_args = tuple(int(v) for v in sizes)
    sched = _resolve_schedule(schedule, name)
    v = cm_validate._check_variant(variant)
    n_k = _positive_int(k, "k", 1, 10000)
    stat = _statistic_name(statistic)
    n_passes = _positive_int(passes, "passes", 1, _MAX_PASSES)
    share_target, n_max = _adaptive_passes(
        confidence, "confidence", "a share of resamples", "passes until the best stands out",
        max_passes, n_passes,
    )  # fmt: skip
    counts = _thread_list(threads)
    cals = cm_validate._calibrations(calibration)
    for c in cals.values():
        check_same_machine(c.machine, "calibration")
        check_current_harness(c.machine.get("harness_version"), "calibration")
    if any(name not in c.stencils for c in cals.values()):
        raise ValueError(f"calibration: has no C_iter for stencil {name!r}")
    ranked_by = v
    if fit is not None:
        # Before anything is measured: the table must be readable and fit (two problems
        # or more, from this machine and harness, as validate requires).
        try:
            raw = fit if isinstance(fit, Table) else read_table(fit)
            _refuse_failed_runs(raw, "table", str(fit))
            cm_validate._check_this_machines_table(raw, "table")  # ranked for this machine
            cm_validate._check_calibrations_fit_table(raw, cals)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"fit: {exc}") from None
        try:
            fitted = cm_validate.fit(raw, cals, variant=v)
        except ValueError as exc:
            # E.g. too few problems, or (machine) parameters that leave the time model's
            # range on a small table: say what was being fitted on what, and what helps.
            problems = len({(raw.stencil[i], raw.sizes_of(i)) for i in range(len(raw))})
            raise ValueError(
                f"fit: the {v} variant could not be fitted on {fit} ({problems} problem(s), "
                f"{len(raw.per_point())} points): {exc}; measure more problems (a "
                "`measure` sweep) or rank without --fit"
            ) from None
        cals, ranked_by = fitted.calibrations, f"fitted-{v}"
    space = cm_time.default_search_space(space_dims(name))
    grid = space.grid()
    # Every feasible (tile, thread count) pair, ranked by (prediction, threads, tiles).
    preds, counts_of, rows_of = [], [], []
    for n in counts:
        cal = cm_validate._with_schedule(cm_validate._for_threads(cals, n), sched)
        batch = cm_time.talg_batch(cal.stencils[name], cal.gpu, size_args, grid, variant=v)
        ok = np.flatnonzero(batch.feasible & np.isfinite(batch.talg_s))
        preds.append(batch.talg_s[ok])
        counts_of.append(np.full(len(ok), n, dtype=np.int64))
        rows_of.append(ok)
    pred_all, n_all, row_all = (np.concatenate(a) for a in (preds, counts_of, rows_of))
    tiles_all = grid[row_all]
    order = np.lexsort((*tiles_all.T[::-1], n_all, pred_all))
    # One candidate per run: tiles the harness runs alike (sub-tiles wider than S + tT,
    # harness_tiles) are one configuration; the best-ranked name stands for it, so the k
    # measured candidates are k different runs (2026-11-29: up to 7 of a 2D problem's top
    # 10 were one run under several names, docs/validate-log.md, "One run under several names").
    # The walk stops at the k-th run: building the harness configuration of every feasible
    # pair (131,000 for Jacobi 1D) took 20 s in Python, for a ranking the batch gives in ms.
    seen: set[tuple[int, tuple[int, ...]]] = set()
    top: list[tuple[float, int, tuple[int, ...]]] = []
    for i in order:
        n, tiles = int(n_all[i]), tuple(int(x) for x in tiles_all[i])
        try:
            as_run = harness_tiles(name, size_args, tiles)  # the run is the same at any n
        except ValueError:
            continue  # the model accepts it, the harness cannot run it
        if (n, as_run) not in seen:
            seen.add((n, as_run))
            top.append((float(pred_all[i]), n, tiles))
            if len(top) == n_k:
                break
    if not top:
        raise ValueError(f"sizes: no feasible tile for {name} {size_args} on this machine")
    made_dir: Path | None = None
    if out is None:
        made_dir = Path(tempfile.mkdtemp(prefix="costmetrics-tune-"))
        path = made_dir / "tune.csv"
    else:
        path = Path(out)
    points = [Point(name, size_args, tiles, ("tune",), threads=n) for _, n, tiles in top]

    def measure_passes(n: int) -> None:  # resumes: only the passes not yet in the table
        # The first passes and confidence's later pairs alike: a folder of our own that
        # stayed empty is removed; rows already measured are kept (lost data is worse than
        # a stray file), and the error says where they are.
        try:
            measure(
                points, path, threads=counts, passes=n, warmup=warmup, schedule=sched,
                seed=seed,
                command=f"costmetrics tune {name} {size_args} variant={ranked_by} k={n_k}",
                progress=progress,
            )  # fmt: skip
        except BaseException as err:
            if made_dir is not None:
                _lock_path(path).unlink(missing_ok=True)  # measure's, not a result
                if any(made_dir.iterdir()):
                    err.add_note(f"the runs measured so far are in {path}; pass out= to resume")
                else:
                    made_dir.rmdir()
            raise

    measure_passes(n_passes)

    def judged() -> tuple[Table, Table, list[int], npt.NDArray[np.float64]]:
        raw = read_table(path)
        med = raw.per_point(stat)
        index = {med.key_of(i): i for i in range(len(med))}
        rows = [index[(name, size_args, tiles, n, sched)] for _, n, tiles in top]
        passes_s = med.pass_times_s
        if passes_s is None:  # per_point() keeps the passes; a guard, not a case
            raise RuntimeError(f"{path}: the table of points lost its passes")
        return raw, med, rows, fastest_shares(passes_s[rows], stat, seed=seed)

    def best_share(med: Table, rows: list[int], shares: npt.NDArray[np.float64]) -> float:
        times = med.time_s[rows]
        return float(shares[int(np.argmin(times))])  # the earlier rank on ties, as below

    raw, med, rows, shares = judged()
    n_measured = n_passes
    # Pairs of passes over every candidate (one interleaved order, as the first passes)
    # until the measured best stands out from the others (confidence), or max_passes.
    while share_target is not None and best_share(med, rows, shares) < share_target:
        if n_measured + 2 > n_max:
            break
        n_measured += 2
        measure_passes(n_measured)
        raw, med, rows, shares = judged()
    candidates = [
        TuneCandidate(
            rank, tiles, n, pred, float(med.time_s[j]),
            float(med.columns["time_min_s"][j]), float(med.columns["time_max_s"][j]),
            float(share),
        )
        for rank, ((pred, n, tiles), j, share) in enumerate(zip(top, rows, shares, strict=True))
    ]  # fmt: skip
    best = min(candidates, key=lambda c: (c.time_s, c.rank))
    key = (name, size_args, best.tiles, best.threads, sched)
    runs = raw.select(np.asarray([raw.key_of(i) == key for i in range(len(raw))]))
    return TuneResult(
        name, size_args, ranked_by, n_k, best.tiles, best.threads, best.time_s, best.predicted_s,
        tuple(candidates), str(path), runs,
        {n: cm_validate._for_threads_source(cals, n) for n in counts}, stat, share_target,
        best.fastest_share >= (TOLD_APART_SHARE if share_target is None else share_target),
        len(runs),
    )  # fmt: skip
