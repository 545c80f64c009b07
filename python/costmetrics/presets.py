"""GPU and stencil presets: the hardware and kernel parameters the cost models take.

The shipped presets are YAML files (``data/gpus/*.yaml``, ``data/stencils/*.yaml``), each
with its ``source`` and a ``schema_version``; units are part of every key name. They are
read on first use. A user adds a preset either by writing such a file and calling
:func:`load_gpu` / :func:`load_stencil` followed by :func:`register_gpu` /
:func:`register_stencil`, or by constructing :class:`Gpu` / :class:`Stencil` directly.

Lookups (:func:`gpu`, :func:`stencil`) ignore case, spaces, dashes and underscores, so
``gpu("GTX 980")``, ``gpu("gtx-980")`` and ``gpu("gtx980")`` are the same preset.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from costmetrics import _convert, _core

if TYPE_CHECKING:
    from costmetrics._core.time import GpuParams

__all__ = [
    "BYTES_PER_WORD",
    "SCHEMA_VERSION",
    "Gpu",
    "Stencil",
    "data_dir",
    "gpu",
    "gpus",
    "load_gpu",
    "load_stencil",
    "normalize_name",
    "register_gpu",
    "register_stencil",
    "seed_file",
    "seed_table",
    "seed_values",
    "stencil",
    "stencils",
]

#: Version of the preset file layout this module reads.
SCHEMA_VERSION = 1
#: The models count memory in 4-byte words.
BYTES_PER_WORD = 4
_BYTES_PER_GB = 1e9
_INT32_MAX = 2**31 - 1
#: Largest C_iter the time model accepts.
_MAX_C_ITER_S = float(_core.time.MAX_TIME_PARAMETER_S)
#: Smallest positive time parameter (L per word, tau_sync, T_sync) the time model accepts.
_MIN_TIME_S = float(_core.time.MIN_TIME_PARAMETER_S)


def normalize_name(name: str) -> str:
    """Return the lookup form of a preset name: lower case, no spaces, dashes, underscores.

    Parameters
    ----------
    name : str
        A preset name or key, e.g. ``"GTX 980"``.

    Returns
    -------
    str
        The normalized name, e.g. ``"gtx980"``.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    """
    return re.sub(r"[\s_\-]+", "", _convert.string(name, "name")).lower()


# --------------------------------------------------------------------------------------
# Field validation shared by the dataclasses and the file loaders
# --------------------------------------------------------------------------------------


def _positive_int(value: object, field_name: str, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(
            f"{field_name}{where}: expected a positive integer, got {value!r} "
            f"({type(value).__name__})"
        )
    number = int(value)
    if number <= 0:
        raise ValueError(f"{field_name}{where}: must be positive, got {number}")
    if number > _INT32_MAX:
        raise OverflowError(
            f"{field_name}{where}: {number} is outside the supported range [1, {_INT32_MAX}]"
        )
    return number


def _positive_float(value: object, field_name: str, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(
            f"{field_name}{where}: expected a positive number, got {value!r} "
            f"({type(value).__name__})"
        )
    try:
        number = float(value)
    except (OverflowError, TypeError):
        raise OverflowError(f"{field_name}{where}: {value!r} does not fit a double") from None
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{field_name}{where}: must be positive and finite, got {value}")
    return number


def _non_negative_int(value: object, field_name: str, where: str) -> int:
    if not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (numbers.Integral, np.integer)
    ):
        # (not _positive_int's "must be positive" and "[1, ...]": 0 is valid here)
        number = int(value)
        if number == 0:
            return 0
        if number < 0:
            raise ValueError(f"{field_name}{where}: must be 0 or positive, got {number}")
        if number > _INT32_MAX:
            raise OverflowError(
                f"{field_name}{where}: {number} is outside the supported range [0, {_INT32_MAX}]"
            )
    return _positive_int(value, field_name, where)


def _finite_float(value: object, field_name: str, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(
            f"{field_name}{where}: expected a number, got {value!r} ({type(value).__name__})"
        )
    try:
        number = float(value)
    except OverflowError:  # an int past the double range: named, not Python's message
        raise OverflowError(f"{field_name}{where}: {value!r} does not fit a double") from None
    if not math.isfinite(number):
        raise ValueError(f"{field_name}{where}: must be finite, got {value}")
    return number


def _string(value: object, field_name: str, where: str, *, required: bool) -> str:
    return _convert.string(value, f"{field_name}{where}", nonempty=required)


class _FrozenMap(Mapping[str, float]):
    """A read-only, hashable ``str -> float`` mapping (keeps :class:`Stencil` immutable)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, float]) -> None:
        self._data = dict(data)

    def __getitem__(self, key: str) -> float:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return repr(self._data)

    def __reduce__(self) -> tuple[type[_FrozenMap], tuple[dict[str, float]]]:
        return (_FrozenMap, (self._data,))


# --------------------------------------------------------------------------------------
# The preset types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gpu:
    """A GPU as the execution-time model sees it (Appendix A, Tables A.1-A.3).

    Parameters
    ----------
    name : str
        Display name, e.g. ``"GTX 980"``.
    n_sm : int
        Number of streaming multiprocessors, n_SM.
    n_v : int
        Number of vector units per SM, n_V.
    smem_per_sm_bytes : int
        Shared memory per SM in bytes, M_SM.
    smem_per_block_bytes : int
        Largest shared memory one thread block may use, in bytes.
    registers_per_sm : int
        Number of 32-bit registers per SM, R_SM.
    shared_memory_banks : int
        Number of shared-memory banks per SM.
    max_blocks_per_sm : int
        Largest number of thread blocks resident on one SM, MTB_SM.
    l_s_per_gb : float
        Global-memory transfer time L in seconds per GB (1 GB = 1e9 bytes).
    tau_sync_s : float
        Time of one thread-block synchronization, tau_sync, in seconds.
    t_sync_s : float
        Time of one host-GPU synchronization (one kernel call), T_sync, in seconds.
    source : str, optional
        Where the values come from.
    key : str, optional
        Preset key used by lookups and by the ``c_iter_s`` of :class:`Stencil`; defaults to the
        normalized ``name``.
    cache_l1_bytes, cache_l2_bytes, cache_l3_bytes : int, optional
        Cache sizes (L1 and L2 per core, L3 in all) deciding the memory level of a problem's
        arrays for the ``machine`` variant; 0 (default) = no such cache.
    dram_curve_bytes, dram_curve_share : tuple of float, optional
        ``machine`` variant: a measured DRAM-share curve, the share of arrays of
        ``dram_curve_bytes[k]`` bytes streamed from DRAM (none, the default, or 2 to 16
        points, bytes increasing, shares in [0, 1] not decreasing). Where set it decides the
        L3/DRAM split in place of ``cache_l3_bytes`` (:func:`costmetrics.time.dram_share`);
        the fitted variant reads it off the calibration's copy curve
        (:func:`costmetrics.measure.dram_share_curve`).
    l_seg_s : float, optional
        ``machine`` variant: seconds per contiguous segment copied (default 0).
    l_level_s_per_word : tuple of 4 float, optional
        ``machine`` variant: seconds per word added to L when the arrays live in L1, L2, L3
        or DRAM (may be negative; default 0).
    l_shared_s_per_word : tuple of 4 float, optional
        ``machine`` variant: seconds per word per core streaming at once beyond
        ``threads_ref`` (shared bandwidth), per level (default 0).
    tau_line_s : float, optional
        ``machine`` variant: seconds per line (innermost run of points) computed, 1D/2D.
    tau_line_3d_s : float, optional
        ``machine`` variant: seconds per line computed by a 3D stencil (a run of ``s3``
        points of one sub-slab plane); default (None): ``tau_line_s``, as before this
        term existed, so presets written without it predict as they did.
    t_barrier_per_thread_s : float, optional
        ``machine`` variant: seconds per wavefront barrier per thread beyond ``threads_ref``.
    t_share_line_s : float, optional
        ``machine`` variant: seconds per cache line written by two threads.
    l_buffer_s_per_word : float, optional
        ``machine`` variant: seconds per word copied within a thread's tile buffer (2D/3D:
        the faces a sub-tile keeps for the next sub-tile and that one reads back).
    tau_line_3d_dram_s : float, optional
        ``machine`` variant: seconds per line of a 3D stencil computed, times the share of
        the arrays streamed from DRAM (:func:`costmetrics.time.dram_share`): in DRAM each
        line of a tile's plane starts a stream of its own (``docs/validate-log.md``, "The
        levels misses at 1 thread"). Fitted (``validate.fit``), 0 in a calibration.
    t_cross_row_s : float, optional
        ``machine`` variant: seconds per row of the cross-section (2D: a column's row; 3D:
        a line of ``s3`` points) that a tile loads after a tile of the previous wavefront
        on another thread stored it, on each wavefront's busiest thread (a cache-to-cache
        move per row; ``docs/time.md``, "Rows another thread stored").
    prefetch_ahead_words : float, optional
        ``machine`` variant: words the hardware prefetcher streams past the end of a run it
        follows (0, the default: none). A 1D wavefront's tiles read runs a gap apart
        (``tS - 2`` words for whole tiles, up to ``tS + tT - 4`` for the rows of a tile
        clipped by the time steps); the prefetcher streams at most
        ``prefetch_ahead_words`` words of each gap, which the next wavefront reads again
        from DRAM (``docs/time.md``, "Words streamed into a 1D wavefront's gaps").
    l_prefetch_s_per_word : float, optional
        ``machine`` variant: seconds per such word, times the arrays' DRAM share
        (:func:`costmetrics.time.dram_share`). Fitted (``validate.fit``), 0 in a
        calibration.
    c_buffer_dram_s : float, optional
        ``machine`` variant: seconds more per vector step of a 2D stencil, times the tile
        buffer's share of the L2 (the harness' per-thread buffer, 4 bytes per word of its
        ``buffer_words``, over ``cache_l2_bytes``) and the arrays' DRAM share: a stream
        from DRAM evicts the buffer's lines the more of the L2 the buffer takes
        (``docs/time.md``, "Tile buffers evicted by DRAM streams"). Fitted
        (``validate.fit``), 0 in a calibration.
    threads_ref : int, optional
        Threads L and T_sync were measured with; the thread terms are relative to it (0,
        the default: ``n_sm``, so that they vanish). See ``docs/time.md``.
    innermost_multiple : int, optional
        The innermost space tile (``tS2`` in 2D, ``tS3`` in 3D) must be a multiple of this
        (Eq. A.32, the GPU's warp); 0 (default): 32, the paper's rule. A CPU preset from
        ``costmetrics calibrate`` has 1 (no warp; its vector steps are counted by ``n_v``).
    tile_schedule : {"round-robin", "block"}, optional
        How the harness deals a wavefront's tiles to the threads; decides which tiles
        write cache lines that another thread writes (default ``"round-robin"``).

    Raises
    ------
    ValueError
        If a field has the wrong type or is not positive, or if the per-block shared
        memory exceeds the per-SM shared memory.
    """

    name: str
    n_sm: int
    n_v: int
    smem_per_sm_bytes: int
    smem_per_block_bytes: int
    registers_per_sm: int
    shared_memory_banks: int
    max_blocks_per_sm: int
    l_s_per_gb: float
    tau_sync_s: float
    t_sync_s: float
    source: str = field(default="", repr=False)
    key: str = ""
    cache_l1_bytes: int = field(default=0, repr=False)
    cache_l2_bytes: int = field(default=0, repr=False)
    cache_l3_bytes: int = field(default=0, repr=False)
    dram_curve_bytes: tuple[float, ...] = field(default=(), repr=False)
    dram_curve_share: tuple[float, ...] = field(default=(), repr=False)
    l_seg_s: float = field(default=0.0, repr=False)
    l_level_s_per_word: tuple[float, ...] = field(default=(0.0, 0.0, 0.0, 0.0), repr=False)
    l_shared_s_per_word: tuple[float, ...] = field(default=(0.0, 0.0, 0.0, 0.0), repr=False)
    tau_line_s: float = field(default=0.0, repr=False)
    # None is resolved to tau_line_s in __post_init__: always a float after construction.
    tau_line_3d_s: float = field(default=None, repr=False)  # type: ignore[assignment]
    t_barrier_per_thread_s: float = field(default=0.0, repr=False)
    t_share_line_s: float = field(default=0.0, repr=False)
    l_buffer_s_per_word: float = field(default=0.0, repr=False)
    t_cross_row_s: float = field(default=0.0, repr=False)
    tau_line_3d_dram_s: float = field(default=0.0, repr=False)
    prefetch_ahead_words: float = field(default=0.0, repr=False)
    l_prefetch_s_per_word: float = field(default=0.0, repr=False)
    c_buffer_dram_s: float = field(default=0.0, repr=False)
    threads_ref: int = field(default=0, repr=False)
    tile_schedule: str = field(default="round-robin", repr=False)
    innermost_multiple: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        if self.tau_line_3d_s is None:
            object.__setattr__(self, "tau_line_3d_s", self.tau_line_s)
        _validate_gpu_fields(self, "")

    @property
    def has_machine_terms(self) -> bool:
        """Whether any field of the ``machine`` variant differs from its default."""
        return any(getattr(self, f) != _MACHINE_DEFAULTS[f] for f in _MACHINE_FIELDS)

    def with_threads(self, threads: int) -> Gpu:
        """Return this machine modeled with ``threads`` worker threads (n_SM = threads).

        The ``machine`` variant's thread terms are relative to ``threads_ref``, which is
        kept (set to the current n_SM when it was 0), so the returned preset predicts the
        time at the new thread count; the ``paper`` and ``exact`` variants change only
        their rounds ``ceil(n_i / n_SM)``.

        Parameters
        ----------
        threads : int
            Worker threads (cores), at least 1.

        Returns
        -------
        Gpu
            The preset with ``n_sm = threads`` (same key, so C_iter lookups still work).
        """
        from dataclasses import replace

        n = _positive_int(threads, "threads", "")
        ref = self.threads_ref or self.n_sm
        return replace(self, n_sm=n, threads_ref=ref)

    def without_machine_terms(self) -> Gpu:
        """Return this preset with every ``machine``-variant field at its default (0).

        ``paper`` and ``exact`` do not read these fields, so their predictions are
        unchanged; fitting those variants' parameters (``validate.fit``) scales L, and a
        calibrated machine's per-level terms, which are relative to L, could otherwise
        leave the valid range although no prediction uses them. ``innermost_multiple`` is
        kept: it is Eq. A.32's feasibility rule, which every variant reads.

        Returns
        -------
        Gpu
            The same preset without machine terms.
        """
        from dataclasses import replace

        kept = ("innermost_multiple",)
        return replace(self, **{k: v for k, v in _MACHINE_DEFAULTS.items() if k not in kept})

    @property
    def l_s_per_word(self) -> float:
        """Global-memory transfer time per 4-byte word in seconds (``L_GB * 4e-9``)."""
        return self.l_s_per_gb * BYTES_PER_WORD / _BYTES_PER_GB

    @property
    def smem_per_sm_words(self) -> int:
        """Shared memory per SM in 4-byte words, M_SM."""
        return self.smem_per_sm_bytes // BYTES_PER_WORD

    @property
    def smem_per_block_words(self) -> int:
        """Largest shared memory of one thread block, in 4-byte words."""
        return self.smem_per_block_bytes // BYTES_PER_WORD

    def _core_params(self) -> GpuParams:
        """Return the parameters the core's time model takes (validated there).

        Shared between equal presets (callers only read it): building it is 86 us, most of
        a scalar ``costmetrics.time.talg`` call.
        """
        try:
            return _shared_core_params(self)  # hashes the preset once, as the cache's key
        except TypeError:  # a field holding an unhashable value: built, not shared
            return self._build_core_params()

    def _build_core_params(self) -> GpuParams:
        machine = _core.time.MachineTerms(
            cache_l1_bytes=float(self.cache_l1_bytes),
            cache_l2_bytes=float(self.cache_l2_bytes),
            cache_l3_bytes=float(self.cache_l3_bytes),
            dram_curve_bytes=_padded_curve(self.dram_curve_bytes),
            dram_curve_share=_padded_curve(self.dram_curve_share),
            l_seg_s=self.l_seg_s,
            l_level_s_per_word=list(self.l_level_s_per_word),
            l_shared_s_per_word=list(self.l_shared_s_per_word),
            tau_line_s=self.tau_line_s,
            tau_line_3d_s=self.tau_line_3d_s,
            t_barrier_per_thread_s=self.t_barrier_per_thread_s,
            t_share_line_s=self.t_share_line_s,
            l_buffer_s_per_word=self.l_buffer_s_per_word,
            t_cross_row_s=self.t_cross_row_s,
            tau_line_3d_dram_s=self.tau_line_3d_dram_s,
            prefetch_ahead_words=self.prefetch_ahead_words,
            l_prefetch_s_per_word=self.l_prefetch_s_per_word,
            c_buffer_dram_s=self.c_buffer_dram_s,
            threads_ref=self.threads_ref,
            schedule=self.tile_schedule,
            innermost_multiple=self.innermost_multiple,
        )
        return _core.time.GpuParams(
            n_sm=self.n_sm,
            n_v=self.n_v,
            smem_per_sm_words=float(self.smem_per_sm_words),
            smem_per_block_words=float(self.smem_per_block_words),
            max_blocks_per_sm=self.max_blocks_per_sm,
            l_s_per_word=self.l_s_per_word,
            tau_sync_s=self.tau_sync_s,
            t_sync_s=self.t_sync_s,
            machine=machine,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the preset as a plain dictionary in the layout of a preset file.

        Returns
        -------
        dict
            ``schema_version`` followed by every field; the ``machine`` variant's fields
            only where the preset has any (so GPU presets keep their layout).
        """
        d = {"schema_version": SCHEMA_VERSION, **{f: getattr(self, f) for f in _GPU_FIELDS}}
        if self.has_machine_terms:
            for f in _MACHINE_FIELDS:
                value = getattr(self, f)
                d[f] = list(value) if isinstance(value, tuple) else value
        return d


@functools.lru_cache(maxsize=64)
def _shared_core_params(gpu: Gpu) -> GpuParams:
    # Keyed by the preset's fields (a frozen dataclass hashes and compares them): equal
    # presets give equal parameters.
    return gpu._build_core_params()


@dataclass(frozen=True)
class Stencil:
    """A stencil kernel: its dimensionality and per-GPU iteration time (Table A.4).

    Parameters
    ----------
    name : str
        Display name, e.g. ``"Heat2D"``.
    n_space_dims : int
        Number of space dimensions (1, 2 or 3); time is one more dimension.
    c_iter_s : Mapping[str, float]
        C_iter in seconds, keyed by GPU preset key: the time of one iteration of the
        loop body per vector unit with all data in shared memory.
    source : str, optional
        Where the values come from.
    key : str, optional
        Preset key used by lookups; defaults to the normalized ``name``.
    description : str, optional
        One line on what the stencil computes.
    flops_per_point : float, optional
        Floating-point operations of one loop-body iteration (one point, one time step),
        counted from the loop body written in the preset file; used for GFLOP/s.

    Raises
    ------
    ValueError
        If a field has the wrong type or value.
    """

    name: str
    n_space_dims: int
    c_iter_s: Mapping[str, float]
    source: str = field(default="", repr=False)
    key: str = ""
    description: str = ""
    flops_per_point: float | None = None

    def __post_init__(self) -> None:
        _validate_stencil_fields(self, "")

    def c_iter_on(self, gpu: Gpu | str) -> float:
        """Return C_iter in seconds of this stencil on ``gpu``.

        Parameters
        ----------
        gpu : Gpu or str
            A GPU preset or its key/name (lookup rules of :func:`gpu`).

        Returns
        -------
        float
            C_iter in seconds.

        Raises
        ------
        ValueError
            If the stencil has no C_iter for that GPU.
        """
        gpu_key = (
            gpu.key
            if isinstance(gpu, Gpu)
            else normalize_name(_string(gpu, "gpu", "", required=True))
        )
        try:
            return self.c_iter_s[gpu_key]
        except KeyError:
            raise ValueError(
                f"gpu: stencil {self.name!r} has no C_iter for GPU {gpu_key!r}; "
                f"it has C_iter for {sorted(self.c_iter_s)}"
            ) from None

    def to_dict(self) -> dict[str, Any]:
        """Return the preset as a plain dictionary in the layout of a preset file.

        Returns
        -------
        dict
            ``schema_version`` followed by every field.
        """
        d: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
        for f in _STENCIL_FIELDS:
            d[f] = getattr(self, f)
        d["c_iter_s"] = dict(self.c_iter_s)
        if self.flops_per_point is not None:
            d["flops_per_point"] = self.flops_per_point
        return d


_GPU_INT_FIELDS = (
    "n_sm",
    "n_v",
    "smem_per_sm_bytes",
    "smem_per_block_bytes",
    "registers_per_sm",
    "shared_memory_banks",
    "max_blocks_per_sm",
)
_GPU_FLOAT_FIELDS = ("l_s_per_gb", "tau_sync_s", "t_sync_s")
_GPU_FIELDS = ("key", "name", "source", *_GPU_INT_FIELDS, *_GPU_FLOAT_FIELDS)
#: Fields of the ``machine`` variant (optional in preset files, default 0).
_MACHINE_INT_FIELDS = (
    "cache_l1_bytes", "cache_l2_bytes", "cache_l3_bytes", "threads_ref", "innermost_multiple"
)  # fmt: skip
_MACHINE_FLOAT_FIELDS = (
    "l_seg_s", "tau_line_s", "t_barrier_per_thread_s", "t_share_line_s", "l_buffer_s_per_word",
    "tau_line_3d_s", "t_cross_row_s", "tau_line_3d_dram_s", "prefetch_ahead_words",
    "l_prefetch_s_per_word", "c_buffer_dram_s",
)  # fmt: skip
_MACHINE_LEVEL_FIELDS = ("l_level_s_per_word", "l_shared_s_per_word")
#: The measured DRAM-share curve: 0 to DRAM_CURVE_POINTS numbers each.
_MACHINE_CURVE_FIELDS = ("dram_curve_bytes", "dram_curve_share")
#: Points of a DRAM-share curve at most (the core's kDramCurvePoints).
DRAM_CURVE_POINTS = 16
_MACHINE_FIELDS = (
    *_MACHINE_INT_FIELDS, *_MACHINE_FLOAT_FIELDS, *_MACHINE_LEVEL_FIELDS,
    *_MACHINE_CURVE_FIELDS, "tile_schedule",
)  # fmt: skip
_MACHINE_DEFAULTS: dict[str, Any] = {
    "tile_schedule": "round-robin",
    **{f: 0 for f in _MACHINE_INT_FIELDS},
    **{f: 0.0 for f in _MACHINE_FLOAT_FIELDS},
    **{f: (0.0, 0.0, 0.0, 0.0) for f in _MACHINE_LEVEL_FIELDS},
    **{f: () for f in _MACHINE_CURVE_FIELDS},
}
_STENCIL_FIELDS = ("key", "name", "source", "description", "n_space_dims", "c_iter_s")
#: The optional ``silicon`` section of a GPU file: what the area model (Appendix C) needs
#: beyond the fields above (its kB view is derived from these, costmetrics.area).
_SILICON_FIELDS = ("l1_per_sm_pair_bytes", "l2_bytes", "die_mm2")


def _padded_curve(points: tuple[float, ...]) -> list[float]:
    """Pad a DRAM-share curve's points with 0 to the core's fixed length."""
    return [*points, *([0.0] * (DRAM_CURVE_POINTS - len(points)))]


def _number_sequence(g: Gpu, name: str, where: str, expected: str) -> tuple[float, ...]:
    """Return field ``name`` of ``g`` as a tuple of finite floats (TypeError if no sequence)."""
    value = getattr(g, name)
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(
            f"{name}{where}: expected {expected}, got {value!r} ({type(value).__name__})"
        )
    return tuple(_finite_float(v, f"{name}[{i}]", where) for i, v in enumerate(value))


def _nonempty_key(text: str, name: str, where: str) -> str:
    # "---" normalized to "", a key that gpu("") and gpu(" ") then found.
    key = normalize_name(text)
    if not key:
        raise ValueError(f"{name}{where}: {text!r} has no letters or digits to make a key")
    return key


def _validate_gpu_fields(g: Gpu, where: str) -> None:
    _string(g.name, "name", where, required=True)
    _string(g.source, "source", where, required=False)
    key = _string(g.key, "key", where, required=False)
    for name in _GPU_INT_FIELDS:
        object.__setattr__(g, name, _positive_int(getattr(g, name), name, where))
    for name in _GPU_FLOAT_FIELDS:
        try:
            number = _positive_float(getattr(g, name), name, where)
        except ValueError:
            # 0, negative or not finite: the one rule of a GPU's L, tau_sync and T_sync (the
            # time model's range without its 0, checked by the core below), as its message.
            raise ValueError(
                f"{_GPU_TIME_RULE[name]}, got {getattr(g, name)}".replace(":", where + ":", 1)
            ) from None
        object.__setattr__(g, name, number)
    if not g.l_s_per_word > 0:  # 5e-324 s/GB is positive, its time per word 0.0
        raise ValueError(
            f"l_s_per_gb{where}: {g.l_s_per_gb!r} s/GB gives no time per 4-byte word (it "
            "rounds to 0 s)"
        )
    _string(g.tile_schedule, "tile_schedule", where, required=True)
    for name in _MACHINE_INT_FIELDS:
        object.__setattr__(g, name, _non_negative_int(getattr(g, name), name, where))
    for name in _MACHINE_FLOAT_FIELDS:
        object.__setattr__(g, name, _finite_float(getattr(g, name), name, where))
    for name in _MACHINE_LEVEL_FIELDS:
        value = _number_sequence(g, name, where, "4 numbers (L1, L2, L3, DRAM)")
        if len(value) != 4:
            raise ValueError(
                f"{name}{where}: expected 4 numbers (L1, L2, L3, DRAM), got {len(value)}"
            )
        object.__setattr__(g, name, value)
    for name in _MACHINE_CURVE_FIELDS:
        value = _number_sequence(g, name, where, "a sequence of numbers")
        if len(value) > DRAM_CURVE_POINTS:
            raise ValueError(f"{name}{where}: at most {DRAM_CURVE_POINTS} points, got {len(value)}")
        object.__setattr__(g, name, value)
    for i, b in enumerate(g.dram_curve_bytes):
        if not b > 0:
            raise ValueError(f"dram_curve_bytes[{i}]{where}: must be positive, got {b}")
    if len(g.dram_curve_bytes) != len(g.dram_curve_share):
        raise ValueError(
            f"dram_curve_share{where}: expected one share per point of dram_curve_bytes "
            f"({len(g.dram_curve_bytes)}), got {len(g.dram_curve_share)}"
        )
    if g.smem_per_block_bytes > g.smem_per_sm_bytes:
        raise ValueError(
            f"smem_per_block_bytes{where}: {g.smem_per_block_bytes} exceeds "
            f"smem_per_sm_bytes = {g.smem_per_sm_bytes}"
        )
    for name in ("smem_per_sm_bytes", "smem_per_block_bytes"):
        if getattr(g, name) < BYTES_PER_WORD:
            raise ValueError(
                f"{name}{where}: must be at least one 4-byte word, got {getattr(g, name)}"
            )
    object.__setattr__(g, "key", _nonempty_key(key or g.name, "key" if key else "name", where))
    # The ranges of the time model are checked once, by the core (GpuParams::validate);
    # its message names the core's field (in words and s/word where the preset has bytes
    # and s/GB).
    try:
        g._core_params()
    except ValueError as exc:
        raise ValueError(
            f"{_core_field_to_preset(str(exc))}{where} (the time model's range)"
        ) from None


_CORE_TO_PRESET = {
    "smem_per_sm_words": "smem_per_sm_bytes (as words)",
    "smem_per_block_words": "smem_per_block_bytes (as words)",
    "l_s_per_word": "l_s_per_gb (as s per 4-byte word)",
    "MachineTerms.schedule": "tile_schedule",
}

#: A GPU's L, tau_sync and T_sync: the time model's range (0, or 1e-290 .. 1 s) without 0,
#: which a GPU preset refuses (docs/time.md, "Limits"). One rule, stated alike for 0 (the
#: preset's check) and for a value outside the range (the core's, _core_field_to_preset).
_GPU_TIME_RULE = {
    "l_s_per_gb": (
        f"l_s_per_gb: must be in [{_MIN_TIME_S * _BYTES_PER_GB / BYTES_PER_WORD:g}, "
        f"{_MAX_C_ITER_S * _BYTES_PER_GB / BYTES_PER_WORD:g}] s/GB ([{_MIN_TIME_S:g}, "
        f"{_MAX_C_ITER_S:g}] s per 4-byte word)"
    ),
    "tau_sync_s": f"tau_sync_s: must be in [{_MIN_TIME_S:g}, {_MAX_C_ITER_S:g}] s",
    "t_sync_s": f"t_sync_s: must be in [{_MIN_TIME_S:g}, {_MAX_C_ITER_S:g}] s",
}
#: The core's names of these fields (l_s_per_word: the preset's l_s_per_gb in s per word).
_CORE_TIME_FIELDS = {
    "l_s_per_word": "l_s_per_gb",
    "tau_sync_s": "tau_sync_s",
    "t_sync_s": "t_sync_s",
}


def _core_field_to_preset(message: str) -> str:
    name, sep, rest = message.partition(": ")
    if name in _CORE_TIME_FIELDS and rest.startswith("must be 0 or in ["):
        # The core takes 0 (a negligible cost); a GPU preset does not (checked before).
        rule = _GPU_TIME_RULE[_CORE_TIME_FIELDS[name]]
        unit = " s per 4-byte word" if name == "l_s_per_word" else ""
        return f"{rule}, got {rest.rpartition(', got ')[2]}{unit}"
    return f"{_CORE_TO_PRESET.get(name, name)}{sep}{rest}"


def _validate_stencil_fields(s: Stencil, where: str) -> None:
    _string(s.name, "name", where, required=True)
    _string(s.source, "source", where, required=False)
    _string(s.description, "description", where, required=False)
    key = _string(s.key, "key", where, required=False)
    dims = _positive_int(s.n_space_dims, "n_space_dims", where)
    if dims > 3:
        raise ValueError(f"n_space_dims{where}: must be 1, 2 or 3, got {dims}")
    object.__setattr__(s, "n_space_dims", dims)
    if not isinstance(s.c_iter_s, Mapping):
        raise TypeError(
            f"c_iter_s{where}: expected a mapping from GPU key to seconds, got "
            f"{s.c_iter_s!r} ({type(s.c_iter_s).__name__})"
        )
    if not s.c_iter_s:
        raise ValueError(f"c_iter_s{where}: must give C_iter for at least one GPU")
    values: dict[str, float] = {}
    for gpu_key, seconds in s.c_iter_s.items():
        label = _string(gpu_key, "c_iter_s key", where, required=True)
        number = _positive_float(seconds, f"c_iter_s[{label!r}]", where)
        if number > _MAX_C_ITER_S:
            raise ValueError(
                f"c_iter_s[{label!r}]{where}: must be in (0, {_MAX_C_ITER_S:g}] s "
                f"(the time model's range), got {number:g}"
            )
        normalized = _nonempty_key(label, f"c_iter_s[{label!r}]", where)
        if normalized in values:  # "gtx980" and "GTX 980": one value was dropped
            raise ValueError(f"c_iter_s[{label!r}]{where}: GPU {normalized!r} is given twice")
        values[normalized] = number
    object.__setattr__(s, "c_iter_s", _FrozenMap(values))
    object.__setattr__(s, "key", _nonempty_key(key or s.name, "key" if key else "name", where))
    if s.flops_per_point is not None:
        object.__setattr__(
            s, "flops_per_point", _positive_float(s.flops_per_point, "flops_per_point", where)
        )


# --------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """Safe YAML loader that also reads ``1e-7`` as a float (YAML 1.2), not a string.

    A key given twice in one mapping is refused: SafeLoader keeps the last value, so an
    edited preset's second ``n_sm:`` silently won.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if not isinstance(key, Hashable):
                # (`? [a, b]`: a list key; SafeLoader's own check comes after this one)
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key must be a scalar, got a {type(key).__name__}",
                    key_node.start_mark,
                )  # fmt: skip
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice (lines {seen[key]} and {line})",
                    key_node.start_mark,
                )  # fmt: skip
            seen[key] = line
        return dict(super().construct_mapping(node, deep=deep))


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _as_path(path: object) -> Path:
    if isinstance(path, Path):
        return path
    if not isinstance(path, str):
        raise TypeError(f"path: expected a str or pathlib.Path, got {type(path).__name__} {path!r}")
    return Path(path)


def _read_mapping(path: Path) -> dict[str, Any]:
    where = f" in {path}"
    _, text = _convert.text_file(path, "path", "preset file ")
    try:
        data = yaml.load(text, Loader=_Loader)  # _Loader derives from SafeLoader
    except yaml.YAMLError as exc:
        raise ValueError(f"path: {path} is not valid YAML: {exc}") from None
    except RecursionError:
        raise ValueError(f"path: {path} is nested too deeply to be a preset file") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"path: {path} must hold a YAML mapping of fields, got {type(data).__name__}"
        )
    version = data.get("schema_version")
    if version is None:
        raise ValueError(f"schema_version{where}: required field is missing")
    if type(version) is not int or version != SCHEMA_VERSION:  # true and 1.0 equal 1
        raise ValueError(
            f"schema_version{where}: this costmetrics reads version {SCHEMA_VERSION}, "
            f"got {version!r}"
        )
    return data


def _check_keys(
    data: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...], where: str
) -> None:
    missing = [k for k in required if k not in data]
    if missing:
        raise ValueError(f"{missing[0]}{where}: required field is missing (missing: {missing})")
    unknown = sorted(set(data) - set(required) - set(optional) - {"schema_version"}, key=repr)
    if unknown:
        raise ValueError(
            f"{unknown[0]}{where}: unknown field (unknown: {unknown}; "
            f"known: {sorted((*required, *optional))})"
        )


def _error_in_file(exc: Exception, path: Path) -> ValueError:
    """Re-word a dataclass validation error so that it names the file."""
    message = str(exc)
    field_name, sep, rest = message.partition(": ")
    return ValueError(f"{field_name} in {path}{sep}{rest}" if sep else f"{message} (in {path})")


def load_gpu(path: str | Path) -> Gpu:
    """Read a GPU preset from a YAML file.

    Parameters
    ----------
    path : str or Path
        The file; see ``data/gpus/*.yaml`` for the layout.

    Returns
    -------
    Gpu
        The preset (not registered; pass it to :func:`register_gpu` to look it up by name).

    Raises
    ------
    ValueError
        If the file cannot be read, or a field is missing, unknown, of the wrong type or
        not positive; the message names the field and the file.
    """
    p = _as_path(path)
    data = _read_mapping(p)
    required = ("name", *_GPU_INT_FIELDS, *_GPU_FLOAT_FIELDS)
    _check_keys(data, required, ("key", "source", "silicon", *_MACHINE_FIELDS), f" in {p}")
    if "silicon" in data:
        silicon = data["silicon"]
        where = f" in {p}"
        if not isinstance(silicon, dict):
            raise ValueError(f"silicon{where}: expected a mapping, got {silicon!r}")
        _check_keys(silicon, _SILICON_FIELDS, (), f" (silicon){where}")
        for name in _SILICON_FIELDS:
            _positive_float(silicon[name], f"silicon.{name}", where)
    try:
        return Gpu(**{k: v for k, v in data.items() if k not in ("schema_version", "silicon")})
    except (ValueError, TypeError, OverflowError) as exc:
        raise _error_in_file(exc, p) from None


def load_stencil(path: str | Path) -> Stencil:
    """Read a stencil preset from a YAML file (layout: ``data/stencils/*.yaml``).

    As :func:`load_gpu`, for a :class:`Stencil` (register it with :func:`register_stencil`).
    """
    p = _as_path(path)
    data = _read_mapping(p)
    _check_keys(
        data,
        ("name", "n_space_dims", "c_iter_s"),
        ("key", "source", "description", "flops_per_point", "loop_body"),
        f" in {p}",
    )
    try:
        return Stencil(
            **{k: v for k, v in data.items() if k not in ("schema_version", "loop_body")}
        )
    except (ValueError, TypeError, OverflowError) as exc:
        raise _error_in_file(exc, p) from None


def data_dir() -> Path:
    """Return the folder of the shipped preset files.

    An installed wheel carries them in ``costmetrics/data``; an editable install or a
    source checkout uses the repository's top-level ``data/``.

    Returns
    -------
    Path
        A folder with ``gpus/`` and ``stencils/`` inside.

    Raises
    ------
    FileNotFoundError
        If neither location holds the preset files.
    """
    here = Path(__file__).resolve().parent
    candidates = [here / "data", here.parent.parent / "data"]
    for candidate in candidates:
        if (candidate / "gpus").is_dir() and (candidate / "stencils").is_dir():
            return candidate
    raise FileNotFoundError(
        f"costmetrics preset data not found; looked in {[str(c) for c in candidates]}"
    )


# --------------------------------------------------------------------------------------
# Seed values: the one loading path of every family's data/<family>/ files
# --------------------------------------------------------------------------------------


def seed_file(family: str, name: str) -> dict[str, Any]:
    """Return ``data/<family>/<name>.yaml``: a mapping with ``schema_version`` and ``source``.

    Parameters
    ----------
    family : str
        The family's folder in ``data/`` (``"codesign"``, ``"exasat"``, ...).
    name : str
        The file's name without ``.yaml``.

    Returns
    -------
    dict
        The file's fields (a fresh copy: the caller may change it).

    Raises
    ------
    ValueError
        If the file is missing, is not a YAML mapping of the supported schema version, or
        does not say where its values come from (``source``).
    """
    path = data_dir() / family / f"{name}.yaml"
    data = _read_mapping(path)
    if "source" not in data:
        raise ValueError(f"source in {path}: required field is missing (where values come from)")
    _string(data["source"], "source", f" in {path}", required=True)
    return data


def seed_values(family: str, name: str = "seed_values") -> dict[str, Any]:
    """Return the values a seed prints, from ``data/<family>/<name>.yaml``, by key.

    The file's ``values`` maps each key to ``{value, where, quantity}``: the value as
    printed, where the seed prints it and what it is (``data/time/seed_values.yaml``).

    Parameters
    ----------
    family, name : str
        As in :func:`seed_file`.

    Returns
    -------
    dict
        Key to value (a number or, where the seed prints no number, a str).

    Raises
    ------
    ValueError
        If an entry lacks its value, its place in the seed or its quantity.
    """
    path = data_dir() / family / f"{name}.yaml"
    values = seed_file(family, name).get("values")
    if not isinstance(values, dict) or not values:
        raise ValueError(f"values in {path}: expected a mapping of seed values")
    out: dict[str, Any] = {}
    for key, entry in values.items():
        if not isinstance(entry, dict) or set(entry) != {"value", "where", "quantity"}:
            raise ValueError(f"values.{key} in {path}: expected value, where and quantity")
        out[str(key)] = entry["value"]
    return out


def seed_table(family: str, name: str) -> list[dict[str, str]]:
    """Return the rows of ``data/<family>/<name>.csv``, a table transcribed from a seed.

    The file opens with ``#`` comment lines that say where the table comes from, then a
    header line of column names (with units).

    Parameters
    ----------
    family, name : str
        The family's folder in ``data/`` and the file's name without ``.csv``.

    Returns
    -------
    list of dict
        One dict per row, column name to the text of the cell.

    Raises
    ------
    ValueError
        If the file is missing, has no source comment, or a row has the wrong number of
        cells.
    """
    path = data_dir() / family / f"{name}.csv"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"path: cannot read seed table {path}: {exc.strerror}") from None
    if not lines or not lines[0].startswith("#"):
        raise ValueError(f"{path}: the first line must be a comment naming the source")
    rows = [line for line in lines if line.strip() and not line.startswith("#")]
    if not rows:
        raise ValueError(f"{path}: no header line")
    header = rows[0].split(",")
    out = []
    for i, line in enumerate(rows[1:], start=1):
        cells = line.split(",")
        if len(cells) != len(header):
            raise ValueError(
                f"{path}: row {i} has {len(cells)} cells, the header {len(header)}: {line!r}"
            )
        out.append(dict(zip(header, cells, strict=True)))
    return out


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------

_gpus: dict[str, Gpu] = {}
_stencils: dict[str, Stencil] = {}
_loaded = False


def _ensure_loaded() -> None:
    global _loaded
    if _loaded:
        return
    root = data_dir()
    shipped_gpus = [load_gpu(p) for p in sorted((root / "gpus").glob("*.yaml"))]
    shipped_stencils = [load_stencil(p) for p in sorted((root / "stencils").glob("*.yaml"))]
    # Presets registered by the user before the first lookup take precedence.
    for g in shipped_gpus:
        _gpus.setdefault(g.key, g)
    for s in shipped_stencils:
        _stencils.setdefault(s.key, s)
    _loaded = True


def _register(registry: dict[str, Any], obj: Gpu | Stencil, cls: type, overwrite: bool) -> None:
    if not isinstance(obj, cls):
        raise TypeError(f"obj: expected a costmetrics.{cls.__name__}, got {type(obj).__name__}")
    _ensure_loaded()
    overwrite = _convert.boolean(overwrite, "overwrite")  # "no" was truthy: it replaced
    existing = registry.get(obj.key)
    if existing is not None and existing != obj and not overwrite:
        raise ValueError(
            f"obj: a different preset with key {obj.key!r} is already registered; "
            f"pass overwrite=True to replace it"
        )
    registry[obj.key] = obj


def register_gpu(obj: Gpu, *, overwrite: bool = False) -> Gpu:
    """Make a GPU preset available to :func:`gpu` and to the models, under ``obj.key``.

    Parameters
    ----------
    obj : Gpu
        The preset, e.g. from :func:`load_gpu` or built directly.
    overwrite : bool, optional
        Replace a different preset with the same key (default: refuse).

    Returns
    -------
    Gpu
        ``obj``, for chaining.

    Raises
    ------
    TypeError
        If ``obj`` is not a :class:`Gpu`.
    ValueError
        If its key is taken and ``overwrite`` is false.
    """
    _register(_gpus, obj, Gpu, overwrite)
    return obj


def register_stencil(obj: Stencil, *, overwrite: bool = False) -> Stencil:
    """Make a stencil preset available to :func:`stencil` and the models, under ``obj.key``.

    As :func:`register_gpu`, for a :class:`Stencil` (e.g. from :func:`load_stencil`).
    """
    _register(_stencils, obj, Stencil, overwrite)
    return obj


def _lookup(registry: Mapping[str, Any], cls: type, obj: object, param: str, kind: str) -> Any:
    if isinstance(obj, cls):
        return obj
    if not isinstance(obj, str):
        raise TypeError(
            f"{param}: expected a {kind} name or object, got {obj!r} ({type(obj).__name__})"
        )
    _ensure_loaded()
    wanted = normalize_name(obj)
    found = registry.get(wanted)
    if found is None:
        found = next((p for p in registry.values() if normalize_name(p.name) == wanted), None)
    if found is None:
        raise ValueError(f"{param}: unknown {kind} {obj!r}; known: {sorted(registry)}")
    return found


def resolve_gpu(obj: object, param: str) -> Gpu:
    """Return ``obj`` if it is a :class:`Gpu`, else the preset it names.

    Parameters
    ----------
    obj : object
        A :class:`Gpu` or a preset name (case, spaces, dashes and underscores are
        ignored).
    param : str
        The caller's parameter name, used in messages (e.g. ``"gpu"``).

    Returns
    -------
    Gpu
        The preset.

    Raises
    ------
    TypeError
        If ``obj`` is neither a :class:`Gpu` nor a ``str``.
    ValueError
        If no preset has that name; the message lists the known ones.
    """
    result: Gpu = _lookup(_gpus, Gpu, obj, param, "GPU")
    return result


def resolve_stencil(obj: object, param: str) -> Stencil:
    """Return ``obj`` if it is a :class:`Stencil`, else the preset it names.

    As :func:`resolve_gpu`, for stencils.
    """
    result: Stencil = _lookup(_stencils, Stencil, obj, param, "stencil")
    return result


def gpu(name: str | Gpu) -> Gpu:
    """Return the GPU preset called ``name``; a :class:`Gpu` is returned unchanged.

    Case, spaces, dashes and underscores of ``name`` are ignored; an unknown name raises
    ``ValueError`` listing the known ones.
    """
    return resolve_gpu(name, "name")


def stencil(name: str | Stencil) -> Stencil:
    """Return the stencil preset called ``name``; as :func:`gpu`, for a :class:`Stencil`."""
    return resolve_stencil(name, "name")


def gpus() -> list[str]:
    """Return the keys of every registered GPU preset, sorted.

    Returns
    -------
    list of str
        E.g. ``["gtx980", "titanx"]``.
    """
    _ensure_loaded()
    return sorted(_gpus)


def stencils() -> list[str]:
    """Return the keys of every registered stencil preset, sorted.

    Returns
    -------
    list of str
        E.g. ``["gradient2d", "heat2d", ...]``.
    """
    _ensure_loaded()
    return sorted(_stencils)
