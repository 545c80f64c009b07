"""Stencil Processing Unit (SPU) model: off-chip accesses, passes and energy.

Seed 003: R. Rajasree, *Extending and Validating the Stencil Processing Unit*, MS thesis,
Colorado State University, 2016 (Chapters 3 and 6, Appendix A).

The 3D-dependence ("2-D") stencil of Eq. 3.1 on an N x N x K iteration space, tiled into
b x b x b tiles, runs on a GPU (one thread block per (i, j) column of tiles, every
inter-block dependence through off-chip memory, Eqs. 3.2-3.4) or on an SPU with a p x p
grid of SMs whose neighbours share communication buffers, executed in passes of p x p
blocks that spill and restore their boundary tiles (Eqs. 3.6-3.10). Every count and
formula is computed by the C++ core (``costmetrics._core.spu``); this module checks
argument types, loads the seed's printed values and draws figures.

Examples
--------
>>> import costmetrics as cm
>>> cm.spu.off_chip(320).spu_exact  # 3 x 3 passes, the last ones partial
1433600
>>> cm.spu.off_chip(320).spu_closed_form  # Eq. 3.8 as printed
1228800.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from costmetrics import _convert, _core
from costmetrics._convert import integer as _as_int
from costmetrics._convert import real as _as_real
from costmetrics._core.spu import (
    Configuration,
    EnergySplit,
    GlobalSync,
    OffChip,
    Problem,
)
from costmetrics._record import Record, record
from costmetrics.presets import data_dir

__all__ = [
    "AccessSweep",
    "Configuration",
    "EnergySplit",
    "GlobalSync",
    "OffChip",
    "Problem",
    "break_even_static_power_w",
    "configuration",
    "energy_mj_from_cycles",
    "energy_split",
    "global_sync",
    "load_seed",
    "max_tile_for_cb",
    "off_chip",
    "problem",
    "relative_change",
    "spills_per_viu_from_accesses",
    "sweep",
    "total_cb_bytes",
]


def problem(n: int, *, k: int | None = None, tile: int = 32, grid: int = 4) -> Problem:
    """Return the problem record for an N x N x K stencil on a p x p SPU.

    Parameters
    ----------
    n : int
        N, the extent of the i and j axes (elements).
    k : int, optional
        K, the extent of the k axis; defaults to N (the cubic space of Chapter 3).
    tile : int
        b, the edge of the cubic tiles (default 32, Table 6.2).
    grid : int
        p, the SPU has p x p SMs (default 4, Table 6.1).

    Returns
    -------
    Problem
        The validated record.

    Raises
    ------
    TypeError
        For a non-integer argument.
    ValueError
        For a non-positive size or a tile larger than N or K.
    """
    kk = n if k is None else k
    return Problem(
        n=_as_int(n, "n"),
        k=_as_int(kk, "k"),
        tile=_as_int(tile, "tile"),
        grid=_as_int(grid, "grid"),
    )


def off_chip(n: int, *, k: int | None = None, tile: int = 32, grid: int = 4) -> OffChip:
    """Off-chip accesses on GPU and SPU, closed forms and exact counts (Eqs. 3.2-3.10).

    Parameters
    ----------
    n, k, tile, grid : int
        As for :func:`problem`.

    Returns
    -------
    OffChip
        ``gpu_exact`` / ``spu_exact`` count partial blocks and passes (``ceil``);
        ``gpu_closed_form`` / ``spu_closed_form`` are Eqs. 3.3 / 3.8 as printed;
        ``lower_bound`` is 2 N^2 + 4 N K (6 N^2 for K = N); the compute-to-communication
        ratios of Eqs. 3.4 and 3.10 are flops per word.

    Raises
    ------
    TypeError
        If a size is not an integer.
    ValueError
        For a non-positive size, ``b > N`` or ``b > K``, or ``p b > N``: Eq. 3.8 counts
        whole passes and would fall below the lower bound there (docs/spu.md).
    OverflowError
        If a count does not fit a 64-bit integer.
    """
    return _core.spu.off_chip(problem(n, k=k, tile=tile, grid=grid))


def configuration(
    n: int, *, k: int | None = None, tile: int = 32, grid: int = 4, subtile: int = 4
) -> Configuration:
    """Blocks, threads, passes and partial-pass flag of a test case (Tables 6.2 and A.1).

    Parameters
    ----------
    n, k, tile, grid : int
        As for :func:`problem`.
    subtile : int
        Edge of the subtile each thread computes (4 in the seed); must divide ``tile``.

    Returns
    -------
    Configuration
        The derived configuration.
    """
    return _core.spu.configuration(
        problem(n, k=k, tile=tile, grid=grid), _as_int(subtile, "subtile")
    )


def max_tile_for_cb(cb_bytes: int, word_bytes: int = 4) -> int:
    """Largest square tile edge whose face fits one communication buffer (Sec. 6.3.4).

    Parameters
    ----------
    cb_bytes : int
        Size of one CB in bytes.
    word_bytes : int
        Bytes per element (4 in the seed).

    Returns
    -------
    int
        ``floor(sqrt(cb_bytes / word_bytes))``: 32 for 4 KB, 64 for 16 KB.
    """
    return int(
        _core.spu.max_tile_for_cb(_as_int(cb_bytes, "cb_bytes"), _as_int(word_bytes, "word_bytes"))
    )


def total_cb_bytes(n_sms: int, n_ius: int, cb_bytes: int) -> int:
    """Total communication-buffer storage, Eq. 5.1: (4 #SMs + #IUs) x CB size.

    Parameters
    ----------
    n_sms : int
        Number of SMs.
    n_ius : int
        Number of interface units.
    cb_bytes : int
        Size of one CB in bytes.

    Returns
    -------
    int
        Bytes.
    """
    return int(
        _core.spu.total_cb_bytes(
            _as_int(n_sms, "n_sms"), _as_int(n_ius, "n_ius"), _as_int(cb_bytes, "cb_bytes")
        )
    )


def global_sync(
    n: int,
    *,
    k: int | None = None,
    tile: int = 32,
    grid: int = 4,
    extra_syncs_per_pass: int = 0,
) -> GlobalSync:
    """Off-chip accesses with the original global block synchronization (Sec. 4.1).

    Every spilling VIU spills one b x b tile per ``syncblocks()`` of Algorithm 1
    (T_i + T_j + T_k - 2 per block) and its restoring partner loads as many.

    Parameters
    ----------
    n, k, tile, grid : int
        As for :func:`problem`; ``tile`` must divide N and K.
    extra_syncs_per_pass : int
        Barriers per pass beyond Algorithm 1's loop (0 reads the algorithm literally; 2
        reproduces Table 6.3's 1,179,648 for N = 256).

    Returns
    -------
    GlobalSync
        The counts.
    """
    return _core.spu.global_sync(
        problem(n, k=k, tile=tile, grid=grid),
        _as_int(extra_syncs_per_pass, "extra_syncs_per_pass"),
    )


def spills_per_viu_from_accesses(
    observed_accesses: int, n: int, *, k: int | None = None, tile: int = 32, grid: int = 4
) -> float:
    """Spills per VIU implied by an observed global-sync access count.

    Parameters
    ----------
    observed_accesses : int
        Off-chip accesses observed with global sync (e.g. 1,179,648 in Table 6.3).
    n, k, tile, grid : int
        As for :func:`problem`.

    Returns
    -------
    float
        (observed - lower bound) / (2 x spilling VIUs x b^2).
    """
    return float(
        _core.spu.spills_per_viu_from_accesses(
            problem(n, k=k, tile=tile, grid=grid),
            _as_int(observed_accesses, "observed_accesses"),
        )
    )


def energy_split(
    flops: float,
    accesses: float,
    *,
    e_comp_j: float,
    e_mem_j: float,
    static_power_w: float,
    time_s: float,
) -> EnergySplit:
    """Energy split of Eq. 3.5: compute + memory (dynamic) + static.

    Parameters
    ----------
    flops : float
        Floating-point operations (3 N^2 K for the stencil).
    accesses : float
        Off-chip accesses (words).
    e_comp_j : float
        Energy per flop (J).
    e_mem_j : float
        Energy per off-chip access (J).
    static_power_w : float
        Average static (leakage) power (W).
    time_s : float
        Execution time (s).

    Returns
    -------
    EnergySplit
        Joules per part.
    """
    return _core.spu.energy_split(
        _as_real(flops, "flops"),
        _as_real(accesses, "accesses"),
        _as_real(e_comp_j, "e_comp_j"),
        _as_real(e_mem_j, "e_mem_j"),
        _as_real(static_power_w, "static_power_w"),
        _as_real(time_s, "time_s"),
    )


def energy_mj_from_cycles(cycles: float, power_w: float, frequency_mhz: float) -> float:
    """Energy from simulated cycles, Eq. 6.1: cycles x power / (f_MHz x 1000), in mJ.

    Parameters
    ----------
    cycles : float
        Core clock cycles.
    power_w : float
        Total power (leakage + average dynamic), W.
    frequency_mhz : float
        Core clock frequency, MHz (700 in Table 6.1).

    Returns
    -------
    float
        Energy in millijoules.
    """
    return float(
        _core.spu.energy_mj_from_cycles(
            _as_real(cycles, "cycles"),
            _as_real(power_w, "power_w"),
            _as_real(frequency_mhz, "frequency_mhz"),
        )
    )


def break_even_static_power_w(
    accesses_gpu: float,
    accesses_spu: float,
    *,
    e_mem_j: float,
    static_power_gpu_w: float,
    time_gpu_s: float,
    time_spu_s: float,
) -> float:
    """SPU static power at which SPU and GPU total energies are equal.

    Both run the same flops (equal compute energy); the SPU saves
    (A_gpu - A_spu) e_mem of memory energy, which it may spend on static power:
    P* = ((A_gpu - A_spu) e_mem + P_gpu t_gpu) / t_spu. The seed prints no such number.

    Parameters
    ----------
    accesses_gpu, accesses_spu : float
        Off-chip accesses on each platform (words).
    e_mem_j : float
        Energy per off-chip access (J).
    static_power_gpu_w : float
        The GPU's static power (W).
    time_gpu_s, time_spu_s : float
        Execution times (s); ``time_spu_s`` must be positive.

    Returns
    -------
    float
        Watts.

    Raises
    ------
    ValueError
        When no non-negative static power breaks even.
    """
    return float(
        _core.spu.break_even_static_power_w(
            _as_real(accesses_gpu, "accesses_gpu"),
            _as_real(accesses_spu, "accesses_spu"),
            _as_real(e_mem_j, "e_mem_j"),
            _as_real(static_power_gpu_w, "static_power_gpu_w"),
            _as_real(time_gpu_s, "time_gpu_s"),
            _as_real(time_spu_s, "time_spu_s"),
        )
    )


def relative_change(value: float, reference: float) -> float:
    """Return ``(value - reference) / reference`` (the leakage ratios of Table 6.4).

    Parameters
    ----------
    value : float
        The compared value.
    reference : float
        The positive reference.

    Returns
    -------
    float
        The relative change (0.70 means +70%).
    """
    return float(
        _core.spu.relative_change(_as_real(value, "value"), _as_real(reference, "reference"))
    )


def load_seed() -> dict[str, Any]:
    """Return the values seed 003 prints (``data/spu/seed_003.yaml``).

    Returns
    -------
    dict
        Tables 6.2, 6.3, A.1, the CB tile sizes and the leakage powers of Table 6.4.
    """
    with open(data_dir() / "spu" / "seed_003.yaml", encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    return data


@record
class AccessSweep(Record):
    """Off-chip accesses over cubic problem sizes N (one entry per N in every field).

    The counts (``flops``, ``lower_bound``, ``gpu_exact``, ``spu_exact``) are int64, equal
    to :func:`off_chip`'s exact integers (float64 would round them above 2^53); the closed
    forms are float64.

    Attributes
    ----------
    n : numpy.ndarray
        The sizes N.
    flops : numpy.ndarray
        3 N^3 flops (int64).
    lower_bound : numpy.ndarray
        6 N^2 words (int64).
    gpu_exact, gpu_closed_form : numpy.ndarray
        GPU accesses, counted (int64) and by Eq. 3.3 (float64).
    spu_exact, spu_closed_form : numpy.ndarray
        SPU accesses, counted (int64) and by Eq. 3.8 (float64).
    """

    n: npt.NDArray[np.int64]
    flops: npt.NDArray[np.int64]
    lower_bound: npt.NDArray[np.int64]
    gpu_exact: npt.NDArray[np.int64]
    gpu_closed_form: npt.NDArray[np.float64]
    spu_exact: npt.NDArray[np.int64]
    spu_closed_form: npt.NDArray[np.float64]


def sweep(
    ns: Sequence[int] | npt.NDArray[np.integer[Any]], *, tile: int = 32, grid: int = 4
) -> AccessSweep:
    """Off-chip accesses for a range of cubic problem sizes N (K = N).

    Parameters
    ----------
    ns : sequence of int
        Problem sizes N (list, tuple or 1-D integer array), each at least ``grid * tile``
        (see :func:`off_chip`).
    tile, grid : int
        b and p.

    Returns
    -------
    AccessSweep
        ``n``, ``flops``, ``lower_bound``, ``gpu_exact``, ``gpu_closed_form``,
        ``spu_exact``, ``spu_closed_form``, one entry per N.

    Raises
    ------
    TypeError
        If ``ns`` is not a sequence of integers, or ``tile``/``grid`` not an integer.
    ValueError
        If ``ns`` is empty, or as :func:`off_chip` for an entry (``p b > N`` among them).
    """
    sizes = _convert.int_sequence(ns, "ns", max_len=_core.spu.MAX_SWEEP_SIZES)
    if not sizes:
        raise ValueError("ns: expected at least one problem size, got an empty sequence")
    rows = [off_chip(n, tile=tile, grid=grid) for n in sizes]
    # The counts are exact int64 in the core (an overflow raised in off_chip); the closed
    # forms are reals.

    def counts(key: str) -> npt.NDArray[np.int64]:
        return np.array([getattr(r, key) for r in rows], dtype=np.int64)

    def reals(key: str) -> npt.NDArray[np.float64]:
        return np.array([getattr(r, key) for r in rows], dtype=np.float64)

    return AccessSweep(
        n=np.array(sizes, dtype=np.int64),
        flops=counts("flops"),
        lower_bound=counts("lower_bound"),
        gpu_exact=counts("gpu_exact"),
        gpu_closed_form=reals("gpu_closed_form"),
        spu_exact=counts("spu_exact"),
        spu_closed_form=reals("spu_closed_form"),
    )
