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
:mod:`costmetrics.validate`. See ``docs/validation.md``.

Conventions
-----------
``sizes`` is ``(S, T)`` (1D) or ``(S1, S2, T)`` (2D); ``tiles`` is ``(tS, tT)`` or
``(tS1, tS2, tT)``. Times in seconds, energy in joules, memory in 4-byte words.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from costmetrics import _convert, _core
from costmetrics.presets import (
    BYTES_PER_WORD,
    Gpu,
    Stencil,
    load_gpu,
    load_stencil,
    normalize_name,
)

__all__ = [
    "CSV_COLUMNS",
    "ENERGY_CSV_COLUMNS",
    "STENCILS",
    "Calibration",
    "MicroResult",
    "Point",
    "RaplCounter",
    "RunResult",
    "Table",
    "calibrate",
    "default_points",
    "energy_status",
    "find_rapl_package",
    "load_calibration",
    "machine_record",
    "measure",
    "naive",
    "read_table",
    "run",
    "save_calibration",
    "space_dims",
    "tiled",
    "write_energy_csv",
]

_cm = _core.measure
RunResult = _cm.RunResult
MicroResult = _cm.MicroResult

#: Stencils of the harness (Jacobi 1D and the four 2D stencils of Table A.4).
STENCILS: tuple[str, ...] = tuple(_cm.kernel_names())
#: Display names, as in Table A.4.
DISPLAY_NAMES: dict[str, str] = {
    "jacobi1d": "Jacobi1D",
    "jacobi2d": "Jacobi2D",
    "heat2d": "Heat2D",
    "laplacian2d": "Laplacian2D",
    "gradient2d": "Gradient2D",
}
#: Columns of a measurement table, in order (units are part of the names).
CSV_COLUMNS: tuple[str, ...] = (
    "stencil",
    "size_s1",
    "size_s2",
    "size_t",
    "tile_s1",
    "tile_s2",
    "tile_t",
    "tags",
    "threads",
    "repeats",
    "time_s",
    "time_median_s",
    "time_max_s",
    "cpu_time_s",
    "energy_j",
    "correct",
    "max_abs_error",
    "n_wavefronts",
    "n_tiles",
    "n_subtiles",
    "words_loaded",
    "words_stored",
    "pinned_threads",
    "loadavg_1m",
    "unix_time_s",
)
#: Columns of the energy table that ``costmetrics.energy`` reads.
ENERGY_CSV_COLUMNS: tuple[str, ...] = (
    "kernel",
    "size_s1",
    "size_s2",
    "size_s3",
    "size_t",
    "tile_s1",
    "tile_s2",
    "tile_s3",
    "tile_t",
    "time_s",
    "energy_j",
)
#: Kernels the energy model knows among the harness stencils.
_ENERGY_KERNELS = ("jacobi1d", "jacobi2d")
_SCHEMA = "costmetrics measurement table, schema 1"
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
        1 or 2.

    Raises
    ------
    ValueError
        For an unknown stencil.
    """
    return int(_cm.kernel_space_dims(_stencil_name(stencil)))


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
) -> tuple[str, tuple[int, int, int], tuple[int, int, int]]:
    """Return (name, (S1, S2, T), (tS1, tS2, tT)) with S2 = tS2 = 0 in 1D."""
    name = _stencil_name(stencil)
    dims = space_dims(name)
    if dims == 1:
        s = _ints(sizes, "sizes", 2, "(S, T)")
        size3 = (s[0], 0, s[1])
        t = _ints(tiles, "tiles", 2, "(tS, tT)") if tiles is not None else (0, 0)
        tile3 = (t[0], 0, t[1])
    else:
        s = _ints(sizes, "sizes", 3, "(S1, S2, T)")
        size3 = (s[0], s[1], s[2])
        t = _ints(tiles, "tiles", 3, "(tS1, tS2, tT)") if tiles is not None else (0, 0, 0)
        tile3 = (t[0], t[1], t[2])
    return name, size3, tile3


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
) -> Any:
    name, s, t = _problem(stencil, sizes, tiles)
    n_threads = default_threads() if threads is None else _positive_int(threads, "threads", 1, 256)
    if energy is not None and not isinstance(energy, RaplCounter):
        raise TypeError(f"energy: expected a RaplCounter or None, got {type(energy).__name__}")
    return _cm.RunConfig(
        stencil=name,
        size_s1=s[0],
        size_s2=s[1],
        size_t=s[2],
        tile_s1=t[0],
        tile_s2=t[1],
        tile_t=t[2],
        threads=n_threads,
        repeats=_positive_int(repeats, "repeats", 1, 1000),
        warmup=_positive_int(warmup, "warmup", 0, 1000),
        pin=_convert.boolean(pin, "pin"),
        check=_convert.boolean(check, "check"),
        energy_path="" if energy is None else str(energy.energy_path),
        energy_range_uj=0.0 if energy is None else energy.max_energy_range_uj,
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
) -> Any:
    """Run a tiled stencil and time it (minimum of ``repeats`` runs after ``warmup``).

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    sizes : sequence of int
        ``(S, T)`` or ``(S1, S2, T)``.
    tiles : sequence of int
        ``(tS, tT)`` or ``(tS1, tS2, tT)``; ``tT`` even, ``tS2 >= 2``.
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
        check=check, energy=energy,
    )  # fmt: skip
    return _cm.run(cfg)


def naive(stencil: str, sizes: Sequence[int]) -> npt.NDArray[np.float32]:
    """Return the final time level of the naive untiled stencil on the harness' data.

    Parameters
    ----------
    stencil : str
        One of :data:`STENCILS`.
    sizes : sequence of int
        ``(S, T)`` or ``(S1, S2, T)``.

    Returns
    -------
    numpy.ndarray
        float32, shape ``(S,)`` or ``(S1, S2)``.
    """
    name, s, _ = _problem(stencil, sizes, None)
    return _cm.naive(name, s[0], s[1], s[2])


def tiled(
    stencil: str, sizes: Sequence[int], tiles: Sequence[int], threads: int = 1
) -> npt.NDArray[np.float32]:
    """Return the final time level of one tiled run (untimed), for correctness checks.

    Parameters
    ----------
    stencil, sizes, tiles
        As in :func:`run`.
    threads : int
        Worker threads.

    Returns
    -------
    numpy.ndarray
        float32, shape ``(S,)`` or ``(S1, S2)``.
    """
    cfg = _config(
        stencil, sizes, tiles, threads=threads, repeats=1, warmup=0, pin=False, check=False,
        energy=None,
    )  # fmt: skip
    return _cm.tiled(cfg)


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


def machine_record(threads: int | None = None) -> dict[str, Any]:
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
        Every micro-benchmark's statistics (``value_s``, ``median_s``, ``max_s``,
        ``repeats``, ``units``).
    settings : dict
        The calibration's arguments (working set, repeats, seed, ...).
    """

    gpu: Gpu
    stencils: dict[str, Stencil]
    machine: dict[str, Any] = field(repr=False)
    micro: dict[str, dict[str, float]] = field(repr=False)
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
        g = self.gpu
        gpu = Gpu(
            name=g.name, n_sm=g.n_sm, n_v=g.n_v, smem_per_sm_bytes=g.smem_per_sm_bytes,
            smem_per_block_bytes=g.smem_per_block_bytes, registers_per_sm=g.registers_per_sm,
            shared_memory_banks=g.shared_memory_banks, max_blocks_per_sm=g.max_blocks_per_sm,
            l_s_per_gb=l_s_per_word * 1e9 / BYTES_PER_WORD, tau_sync_s=tau_sync_s,
            t_sync_s=t_sync_s, source=g.source, key=g.key,
        )  # fmt: skip
        stencils = {
            name: _stencil_preset(name, gpu.key, c_iter_s.get(name, self.c_iter_s(name)))
            for name in self.stencils
        }
        return Calibration(gpu, stencils, self.machine, self.micro, self.settings)


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


def calibrate(
    *,
    threads: int | None = None,
    working_set_words: int = 2 * 514 * 514,
    segment_words: int = 64,
    buffer_budget_bytes: int | None = None,
    repeats: int = 7,
    n_configs: int = 70,
    seed: int = 0,
    pin: bool = True,
    stencils: Sequence[str] = STENCILS,
    progress: bool = False,
) -> Calibration:
    """Measure L, tau_sync, T_sync and C_iter on this CPU (Sec. A.5.1) and build a preset.

    Each parameter comes from a micro-benchmark dominated by its operation, all worker
    threads running at once; the estimate is the minimum over ``repeats``:

    - ``L``: time per float copied between a main array of ``working_set_words`` floats
      and a thread's buffer, in segments of ``segment_words`` (half loads, half stores;
      ``5 * repeats`` short repeats);
    - ``T_sync``: one wavefront barrier with no work (``5 * repeats`` short repeats);
    - ``C_iter``: compute-only tile rows on data in the buffer, per SIMD vector of nV
      points, averaged over ``n_configs`` random tile shapes (the seed uses 70);
    - ``tau_sync``: the CPU mapping has no synchronization inside a tile (one thread runs
      a whole tile), so we use the fixed cost of one tile row instead: the time of a row
      of one SIMD vector minus C_iter, the largest over the stencils (floored at 1e-12 s
      because the preset format requires a positive value).

    Parameters
    ----------
    threads : int, optional
        Worker threads = n_SM (default: every allowed CPU).
    working_set_words : int
        Size of the main array of the L benchmark; the default is the two time levels of
        the largest 2D problem of :func:`default_points` (512 x 512 plus halo).
    segment_words : int
        Contiguous floats per copy (about a tile row of tS2).
    buffer_budget_bytes : int, optional
        M_SM, the tile-buffer budget per core (default: half the L2 cache, else 256 KiB).
    repeats, n_configs, seed : int
        Repeats per benchmark, random tile shapes for C_iter and their seed.
    pin : bool
        Pin threads to cores.
    stencils : sequence of str
        Stencils to measure C_iter for.
    progress : bool
        Print one line per benchmark on standard error.

    Returns
    -------
    Calibration
        The preset and every micro-benchmark's statistics.
    """
    n_threads = default_threads() if threads is None else _positive_int(threads, "threads", 1, 256)
    ws = _positive_int(working_set_words, "working_set_words", 1, 2**25)
    seg = _positive_int(segment_words, "segment_words", 1, 4096)
    reps = _positive_int(repeats, "repeats", 1, 1000)
    n_cfg = _positive_int(n_configs, "n_configs", 1, 1000)
    seed_value = _positive_int(seed, "seed", 0, 2**63 - 1)
    do_pin = _convert.boolean(pin, "pin")
    names = [_stencil_name(s) for s in stencils]
    if not names:
        raise ValueError("stencils: must name at least one stencil")
    l2 = _cache_bytes(2)
    budget = (
        _positive_int(buffer_budget_bytes, "buffer_budget_bytes", 1024, 2**40)
        if buffer_budget_bytes is not None
        else (l2 // 2 if l2 else 256 * 1024)
    )

    def note(text: str) -> None:
        if progress:
            print(f"calibrate: {text}", file=sys.stderr, flush=True)

    machine = machine_record(n_threads)
    micro: dict[str, dict[str, float]] = {}
    micro["l_copy"] = _micro_dict(_cm.bench_copy(n_threads, ws, seg, 5 * reps, do_pin))
    note(f"L = {micro['l_copy']['value_s']:.3g} s/word")
    micro["l_copy_one_thread"] = _micro_dict(_cm.bench_copy(1, ws, seg, 5 * reps, do_pin))
    micro["t_sync_barrier"] = _micro_dict(_cm.bench_barrier(n_threads, 5 * reps, do_pin))
    note(f"T_sync = {micro['t_sync_barrier']['value_s']:.3g} s")
    c_iter: dict[str, float] = {}
    tau = 0.0
    for name in names:
        c = _cm.bench_compute(name, n_threads, n_cfg, reps, seed_value, do_pin)
        row = _cm.bench_row(name, n_threads, reps, do_pin)
        micro[f"c_iter_{name}"] = _micro_dict(c)
        micro[f"row_{name}"] = _micro_dict(row)
        c_iter[name] = float(c.value_s)
        tau = max(tau, float(row.value_s) - float(c.value_s))
        note(f"C_iter[{name}] = {c.value_s:.3g} s/vector, row = {row.value_s:.3g} s")
    tau = max(tau, 1e-12)
    lanes = int(_cm.simd_lanes_float())
    key = "cpu" + "".join(ch for ch in machine["cpu_model"].lower() if ch.isalnum())[:24]
    key = f"{key}{n_threads}t"
    source = (
        "costmetrics calibrate (micro-benchmarks of Sec. A.5.1 on the CPU, "
        f"{_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')}, "
        f"loadavg {machine['loadavg']}). Mapping: n_sm = worker threads (one per core), "
        f"n_v = SIMD lanes for float ({lanes}), smem = tile-buffer budget per core, "
        "max_blocks_per_sm = 1 (k = 1); registers_per_sm and shared_memory_banks are not "
        "used by the model (16 vector registers x lanes; 1). tau_sync = fixed cost of one "
        "tile row (no synchronization inside a CPU tile)."
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
        l_s_per_gb=micro["l_copy"]["value_s"] * 1e9 / BYTES_PER_WORD,
        tau_sync_s=tau,
        t_sync_s=micro["t_sync_barrier"]["value_s"],
        source=source,
    )
    settings = {
        "threads": n_threads,
        "working_set_words": ws,
        "segment_words": seg,
        "buffer_budget_bytes": budget,
        "repeats": reps,
        "n_configs": n_cfg,
        "seed": seed_value,
        "pin": do_pin,
    }
    return Calibration(
        gpu, {n: _stencil_preset(n, key, c_iter[n]) for n in names}, machine, micro, settings
    )


def _yaml_dump(data: dict[str, Any], header: Sequence[str]) -> str:
    text = yaml.safe_dump(data, sort_keys=False, width=88, allow_unicode=True)
    return "".join(f"# {h}\n" for h in header) + text


def save_calibration(cal: Calibration, out_dir: str | Path) -> list[Path]:
    """Write a calibration in the layout of ``data/``: presets plus the raw statistics.

    Writes ``out_dir/gpus/<key>.yaml`` (the machine preset, readable by
    :func:`costmetrics.load_gpu`), ``out_dir/stencils/<stencil>.yaml`` (C_iter, readable
    by :func:`costmetrics.load_stencil`) and ``out_dir/calibration.json`` (machine record,
    micro-benchmark statistics, settings).

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
    """
    if not isinstance(cal, Calibration):
        raise TypeError(f"cal: expected a Calibration, got {type(cal).__name__}")
    out = Path(out_dir)
    (out / "gpus").mkdir(parents=True, exist_ok=True)
    (out / "stencils").mkdir(parents=True, exist_ok=True)
    written = []
    gpu_path = out / "gpus" / f"{cal.gpu.key}.yaml"
    gpu_path.write_text(
        _yaml_dump(
            cal.gpu.to_dict(),
            [
                f"{cal.gpu.name}: time-model machine preset measured by costmetrics calibrate.",
                f"CPU: {cal.machine.get('cpu_model')}; harness: "
                f"{cal.machine.get('harness_compiler')}.",
            ],
        ),
        encoding="utf-8",
    )
    written.append(gpu_path)
    for name, s in cal.stencils.items():
        path = out / "stencils" / f"{name}.yaml"
        path.write_text(
            _yaml_dump(s.to_dict(), [f"{s.name}: C_iter on {cal.gpu.name}"]), encoding="utf-8"
        )
        written.append(path)
    meta = {
        "schema": "costmetrics calibration, schema 1",
        "gpu_key": cal.gpu.key,
        "machine": cal.machine,
        "micro": cal.micro,
        "settings": cal.settings,
    }
    meta_path = out / "calibration.json"
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    written.append(meta_path)
    return written


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
        If a file is missing or malformed (the message names it).
    """
    root = Path(path)
    meta_path = root / "calibration.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"path: cannot read {meta_path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"path: {meta_path} is not valid JSON: {exc}") from None
    if not isinstance(meta, dict) or "gpu_key" not in meta:
        raise ValueError(f"path: {meta_path} is not a costmetrics calibration (no gpu_key)")
    gpu = load_gpu(root / "gpus" / f"{meta['gpu_key']}.yaml")
    stencils = {}
    for p in sorted((root / "stencils").glob("*.yaml")):
        s = load_stencil(p)
        if s.key in STENCILS:
            stencils[s.key] = s
    if not stencils:
        raise ValueError(f"path: {root / 'stencils'} holds no harness stencil preset")
    return Calibration(
        gpu,
        stencils,
        dict(meta.get("machine", {})),
        dict(meta.get("micro", {})),
        dict(meta.get("settings", {})),
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
        Harness stencil.
    sizes : tuple of int
        ``(S, T)`` or ``(S1, S2, T)``.
    tiles : tuple of int
        ``(tS, tT)`` or ``(tS1, tS2, tT)``.
    tags : tuple of str
        Why it is measured: ``grid``, ``baseline``, ``paper_opt``, ``paper_near``,
        ``exact_opt``, ``exact_near``.
    """

    stencil: str
    sizes: tuple[int, ...]
    tiles: tuple[int, ...]
    tags: tuple[str, ...] = ("grid",)

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
}
#: Tile grid of the sweep (the broad measured exploration of Sec. A.6.2).
GRID_1D = {"tS": (1, 2, 4, 8, 16, 32, 64, 128, 256, 512), "tT": (2, 4, 8, 16, 32, 64, 128)}
GRID_2D = {"tS1": (1, 2, 4, 8, 16, 32), "tS2": (32, 64, 128, 256), "tT": (2, 4, 8, 16, 32)}


def default_points(
    stencils: Sequence[str] = STENCILS,
    sizes: dict[str, Sequence[Sequence[int]]] | None = None,
    calibration: Calibration | None = None,
    within: float = 0.10,
    max_near: int = 6,
) -> list[Point]:
    """Return the shipped sweep: a tile grid per problem, plus the model's choices.

    For every stencil and problem size: the grid ``GRID_1D`` / ``GRID_2D``; with
    a calibration also the "largest tile that fits" baseline (A.5.1: the feasible tile of
    the default search space with the largest M_tile; ties: largest tS1 + tT/2, then tT)
    and, for each time-model variant, its predicted optimum and up to ``max_near`` more
    points within ``within`` of the predicted minimum (A.6.2-A.6.3), from
    :func:`costmetrics.time.best_tiles` over the default search space.

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
        Cap on near-optimal points per variant (closest to the minimum first).

    Returns
    -------
    list of Point
        Unique configurations, tags merged, in a stable order.
    """
    from costmetrics import time as cm_time

    size_map = DEFAULT_SIZES if sizes is None else sizes
    points: dict[tuple[str, tuple[int, ...], tuple[int, ...]], list[str]] = {}

    def add(stencil: str, sz: tuple[int, ...], tl: tuple[int, ...], tag: str) -> None:
        tags = points.setdefault((stencil, sz, tl), [])
        if tag not in tags:
            tags.append(tag)

    for raw in stencils:
        name = _stencil_name(raw)
        for sz_raw in size_map.get(name, ()):
            dims = space_dims(name)
            sz = _ints(sz_raw, "sizes", dims + 1, "(S.., T)")
            if dims == 1:
                for ts in GRID_1D["tS"]:
                    for tt in GRID_1D["tT"]:
                        add(name, sz, (ts, tt), "grid")
            else:
                for ts1 in GRID_2D["tS1"]:
                    for ts2 in GRID_2D["tS2"]:
                        for tt in GRID_2D["tT"]:
                            add(name, sz, (ts1, ts2, tt), "grid")
            if calibration is None:
                continue
            stencil_preset = calibration.stencils[name]
            space = cm_time.default_search_space(dims)
            grid = space.grid()
            batch = cm_time.talg_batch(stencil_preset, calibration.gpu, sz, grid)
            feasible = np.flatnonzero(batch.feasible)
            m_tile = batch.terms["m_tile_words"][feasible]
            face = grid[feasible, 0] + grid[feasible, -1] / 2
            order = np.lexsort((grid[feasible, -1], face, m_tile))
            add(name, sz, tuple(int(v) for v in grid[feasible[order[-1]]]), "baseline")
            for variant in ("paper", "exact"):
                best = cm_time.best_tiles(
                    stencil_preset, calibration.gpu, sz, within=within, variant=variant
                )
                add(name, sz, best.tiles, f"{variant}_opt")
                for row in best.near_optimal[1 : 1 + max_near]:
                    add(name, sz, tuple(int(v) for v in row), f"{variant}_near")
    return [Point(s, sz, tl, tuple(tags)) for (s, sz, tl), tags in points.items()]


@dataclass(frozen=True)
class Table:
    """A measurement table read by :func:`read_table`.

    Attributes
    ----------
    stencil : tuple of str
        Stencil per row.
    sizes : numpy.ndarray
        int64, shape (n, 3): S1, S2 (0 in 1D), T.
    tiles : numpy.ndarray
        int64, shape (n, 3): tS1, tS2 (0 in 1D), tT.
    tags : tuple of tuple of str
        Tags per row.
    time_s : numpy.ndarray
        Minimum over the timed runs, seconds.
    time_median_s, time_max_s : numpy.ndarray
        Spread of the timed runs, seconds.
    cpu_time_s : numpy.ndarray
        Minimum over the timed runs of the largest worker-thread CPU time, seconds (NaN
        where not measured): a proxy of the run time that excludes the time the threads
        were descheduled, for measurements on a loaded machine.
    energy_j : numpy.ndarray
        Package energy of the fastest run (NaN when not measured).
    correct : numpy.ndarray
        bool: the run matched the naive stencil bitwise.
    loadavg_1m : numpy.ndarray
        1-minute load average when the point was measured.
    columns : dict of str to numpy.ndarray
        Every other numeric column by name.
    comments : tuple of str
        The ``#`` header lines, without the ``#``.
    source : str
        Where the table was read from.
    """

    stencil: tuple[str, ...]
    sizes: npt.NDArray[np.int64]
    tiles: npt.NDArray[np.int64]
    tags: tuple[tuple[str, ...], ...]
    time_s: npt.NDArray[np.float64]
    time_median_s: npt.NDArray[np.float64]
    time_max_s: npt.NDArray[np.float64]
    cpu_time_s: npt.NDArray[np.float64]
    energy_j: npt.NDArray[np.float64]
    correct: npt.NDArray[np.bool_]
    loadavg_1m: npt.NDArray[np.float64]
    columns: dict[str, npt.NDArray[np.float64]]
    comments: tuple[str, ...]
    source: str

    def __len__(self) -> int:
        return len(self.stencil)

    def sizes_of(self, i: int) -> tuple[int, ...]:
        """Problem sizes of row ``i`` in the layout of ``sizes`` arguments."""
        s = self.sizes[i]
        return (int(s[0]), int(s[2])) if s[1] == 0 else (int(s[0]), int(s[1]), int(s[2]))

    def tiles_of(self, i: int) -> tuple[int, ...]:
        """Tile sizes of row ``i`` in the layout of ``tiles`` arguments."""
        t = self.tiles[i]
        return (int(t[0]), int(t[2])) if t[1] == 0 else (int(t[0]), int(t[1]), int(t[2]))

    def has_tag(self, tag: str) -> npt.NDArray[np.bool_]:
        """Boolean mask of the rows carrying ``tag``."""
        return np.asarray([tag in tags for tags in self.tags], dtype=bool)

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
            A copy whose ``time_s`` is the chosen time.

        Raises
        ------
        ValueError
            For another ``kind``, or ``"cpu"`` when a row has no CPU time.
        """
        if kind == "wall":
            return self
        if kind != "cpu":
            raise ValueError(f"kind: must be 'wall' or 'cpu', got {kind!r}")
        if not (np.all(np.isfinite(self.cpu_time_s)) and np.all(self.cpu_time_s > 0)):
            raise ValueError(f"kind: {self.source} has rows without cpu_time_s")
        return replace(self, time_s=self.cpu_time_s)

    def header_value(self, name: str) -> str | None:
        """Value of a ``# name: value`` header line, or None."""
        prefix = f"{name}:"
        for line in self.comments:
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
        return None


def _parse_number(text: str, column: str, where: str, *, integer: bool) -> float:
    value = text.strip()
    if value == "":
        return float("nan")
    try:
        number = float(int(value)) if integer else float(value)
    except ValueError:
        raise ValueError(f"{where}: column {column}: not a number: {value!r}") from None
    if integer and abs(number) > _INT_LIMIT:
        raise ValueError(f"{where}: column {column}: {value} out of range")
    return number


def read_table(path: str | Path) -> Table:
    """Read a measurement table written by :func:`measure`.

    Parameters
    ----------
    path : str or Path
        A UTF-8 CSV with ``#`` comment lines (anywhere) and the header
        :data:`CSV_COLUMNS`.

    Returns
    -------
    Table
        The rows as arrays.

    Raises
    ------
    ValueError
        If the file cannot be read, a column is missing, or a value is malformed (the
        message names the line and column).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"path: cannot read {p}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"path: {p} is not UTF-8 text") from None
    comments: list[str] = []
    data_lines: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            comments.append(line[1:].strip())
        elif line.strip():
            data_lines.append((number, line))
    if not data_lines:
        raise ValueError(f"path: {p} has no header row")
    header = next(csv.reader([data_lines[0][1]]))
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"path: {p} lacks columns {missing}")
    col = {name: i for i, name in enumerate(header)}
    stencils: list[str] = []
    sizes: list[list[int]] = []
    tiles: list[list[int]] = []
    tags: list[tuple[str, ...]] = []
    numbers: dict[str, list[float]] = {c: [] for c in CSV_COLUMNS[8:] if c != "correct"}
    correct: list[bool] = []
    for number, line in data_lines[1:]:
        where = f"{p}, line {number}"
        row = next(csv.reader([line]))
        if len(row) != len(header):
            raise ValueError(f"{where}: {len(row)} fields, the header has {len(header)}")
        name = _stencil_name(row[col["stencil"]])
        dims = space_dims(name)
        s = [_parse_number(row[col[c]], c, where, integer=True) for c in CSV_COLUMNS[1:4]]
        t = [_parse_number(row[col[c]], c, where, integer=True) for c in CSV_COLUMNS[4:7]]
        if dims == 1:
            s[1] = t[1] = 0.0
        if any(math.isnan(v) or v < (0 if i == 1 else 1) for i, v in enumerate(s)) or any(
            math.isnan(v) or v < (0 if i == 1 else 1) for i, v in enumerate(t)
        ):
            raise ValueError(f"{where}: sizes and tiles must be positive integers")
        stencils.append(name)
        sizes.append([int(v) for v in s])
        tiles.append([int(v) for v in t])
        tags.append(tuple(x for x in row[col["tags"]].split("+") if x))
        flag = row[col["correct"]].strip().lower()
        if flag not in ("true", "false"):
            raise ValueError(f"{where}: column correct: expected true or false, got {flag!r}")
        correct.append(flag == "true")
        for c in numbers:
            integer = c in ("threads", "repeats", "n_wavefronts", "n_tiles", "n_subtiles")
            numbers[c].append(_parse_number(row[col[c]], c, where, integer=integer))
    if not stencils:
        raise ValueError(f"path: {p} has no data rows")
    arrays = {c: np.asarray(v, dtype=np.float64) for c, v in numbers.items()}
    for c in ("time_s", "time_median_s", "time_max_s"):
        bad = ~(np.isfinite(arrays[c]) & (arrays[c] > 0))
        if bad.any():
            raise ValueError(f"path: {p}: column {c} must be positive (row {int(np.argmax(bad))})")
    return Table(
        stencil=tuple(stencils),
        sizes=np.asarray(sizes, dtype=np.int64),
        tiles=np.asarray(tiles, dtype=np.int64),
        tags=tuple(tags),
        time_s=arrays["time_s"],
        time_median_s=arrays["time_median_s"],
        time_max_s=arrays["time_max_s"],
        cpu_time_s=arrays["cpu_time_s"],
        energy_j=arrays["energy_j"],
        correct=np.asarray(correct, dtype=bool),
        loadavg_1m=arrays["loadavg_1m"],
        columns=arrays,
        comments=tuple(comments),
        source=str(p),
    )


def _csv_line(values: Sequence[object]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def measure(
    points: Sequence[Point],
    out: str | Path,
    *,
    threads: int | None = None,
    repeats: int = 3,
    warmup: int = 1,
    pin: bool = True,
    command: str = "",
    notes: Sequence[str] = (),
    progress: bool = False,
    powercap_root: str | Path = "/sys/class/powercap",
) -> Path:
    """Measure ``points`` into the CSV table ``out``, resuming where it stopped.

    Rows already in ``out`` (same stencil, sizes and tiles) are skipped, so an interrupted
    sweep keeps what it measured and a rerun completes it. Each row is flushed as soon as
    it is measured, with the load average at that moment. The header records the command,
    the machine (:func:`machine_record`) and the energy counters.

    Parameters
    ----------
    points : sequence of Point
        What to measure (e.g. :func:`default_points`).
    out : str or Path
        The table (created with its header if missing).
    threads, repeats, warmup, pin
        As in :func:`run`.
    command : str
        The command line to record in the header.
    notes : sequence of str
        More header lines.
    progress : bool
        Show a progress bar on standard error.
    powercap_root : str or Path
        Where to look for RAPL counters.

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    ValueError
        If ``out`` exists but is not a measurement table, or a run fails its correctness
        check (the row is written first, with ``correct = false``).
    """
    from tqdm import tqdm

    path = Path(out)
    items = list(points)
    for p in items:
        if not isinstance(p, Point):
            raise TypeError(f"points: expected Point items, got {type(p).__name__}")
    n_threads = default_threads() if threads is None else _positive_int(threads, "threads", 1, 256)
    counter = find_rapl_package(powercap_root)
    done: set[tuple[str, tuple[int, ...], tuple[int, ...]]] = set()
    if path.exists() and path.stat().st_size > 0:
        table = read_table(path)
        done = {(table.stencil[i], table.sizes_of(i), table.tiles_of(i)) for i in range(len(table))}
        with path.open("a", encoding="utf-8") as f:
            f.write(f"# resumed: {_now()} loadavg {list(_loadavg())}\n")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        machine = machine_record(n_threads)
        header = [
            _SCHEMA,
            f"command: {command}" if command else "command: (Python API)",
            f"machine: {json.dumps(machine, sort_keys=True)}",
            f"energy: {energy_status(powercap_root)}",
            f"started: {_now()} loadavg {machine['loadavg']}",
            f"timing: minimum of {repeats} runs after {warmup} warm-up run(s); "
            "time_median_s and time_max_s give the spread; threads pinned where allowed",
            *notes,
        ]
        path.write_text(
            "".join(f"# {h}\n" for h in header) + _csv_line(CSV_COLUMNS), encoding="utf-8"
        )
    todo = [p for p in items if p.key not in done]
    failures = []
    bar = tqdm(total=len(todo), disable=not progress, unit="pt", file=sys.stderr)
    try:
        with path.open("a", encoding="utf-8") as f:
            for p in todo:
                bar.set_description(f"{p.stencil} {p.sizes} {p.tiles}", refresh=False)
                r = run(
                    p.stencil, p.sizes, p.tiles, threads=n_threads, repeats=repeats,
                    warmup=warmup, pin=pin, check=True, energy=counter,
                )  # fmt: skip
                _, s, t = _problem(p.stencil, p.sizes, p.tiles)
                dims = space_dims(p.stencil)
                f.write(
                    _csv_line(
                        [
                            p.stencil, s[0], s[1] if dims == 2 else "", s[2],
                            t[0], t[1] if dims == 2 else "", t[2], "+".join(p.tags),
                            n_threads, repeats, repr(r.time_min_s), repr(r.time_median_s),
                            repr(r.time_max_s),
                            repr(r.cpu_time_s) if r.cpu_time_s >= 0 else "",
                            repr(r.energy_j) if r.energy_j >= 0 else "",
                            "true" if r.correct else "false", repr(r.max_abs_error),
                            r.n_wavefronts, r.n_tiles, r.n_subtiles, r.words_loaded,
                            r.words_stored, r.pinned_threads, _loadavg()[0],
                            round(_dt.datetime.now(_dt.timezone.utc).timestamp(), 3),
                        ]
                    )
                )  # fmt: skip
                f.flush()
                if not r.correct:
                    failures.append(p)
                bar.update(1)
    finally:
        bar.close()
    if failures:
        raise ValueError(
            f"{len(failures)} run(s) differ from the naive stencil, first: {failures[0]}"
        )
    return path


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def write_energy_csv(table: Table, path: str | Path, comments: Sequence[str] = ()) -> Path | None:
    """Write the rows with measured energy in the CSV format of ``costmetrics.energy``.

    Only the kernels the energy model knows (Jacobi 1D and 2D) are written; the header is
    ``kernel,size_s1,size_s2,size_s3,size_t,tile_s1,tile_s2,tile_s3,tile_t,time_s,energy_j``
    (empty entries for absent dimensions) after ``#`` comment lines.

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
    rows = []
    for i in range(len(table)):
        e = float(table.energy_j[i])
        if table.stencil[i] not in _ENERGY_KERNELS or not (math.isfinite(e) and e > 0):
            continue
        s, t = table.sizes[i], table.tiles[i]
        two_d = space_dims(table.stencil[i]) == 2
        rows.append(
            [
                table.stencil[i], int(s[0]), int(s[1]) if two_d else "", "", int(s[2]),
                int(t[0]), int(t[1]) if two_d else "", "", int(t[2]),
                repr(float(table.time_s[i])), repr(e),
            ]
        )  # fmt: skip
    if not rows:
        return None
    p = Path(path)
    text = "".join(f"# {c}\n" for c in comments) + _csv_line(ENERGY_CSV_COLUMNS)
    text += "".join(_csv_line(r) for r in rows)
    p.write_text(text, encoding="utf-8")
    return p
