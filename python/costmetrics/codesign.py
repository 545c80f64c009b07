"""Hardware/software codesign of stencil accelerators (thesis 000, Appendix C, C.8-C.19).

For every hardware design (nSM, nV, M_SM) of the space of Sec. C.3.2 whose die area (the
cache-less area model, :mod:`costmetrics.area`) lies in the budget, and every workload
instance (stencil, problem size), the C++ core finds the tile-optimal T_alg of the
execution-time model (:mod:`costmetrics.time`) exactly over every feasible tile, by branch
and bound (``cpp/src/codesign.cpp``). Eq. C.19 separates the problem, so the per-(design,
instance) optima are kept: any weighting of the workload (Eq. C.18) is a recombination
(:meth:`SweepResult.reweight`) that does not re-run the model.

A sweep splits into shards of designs that run through any
:class:`concurrent.futures.Executor` (a process pool, ``dask.distributed``'s
``Client.get_executor()``, Ray's executor); the shards merge into one
:class:`SweepResult`. ``docs/codesign.md`` gives the readings taken and the numbers
reproduced.
"""

from __future__ import annotations

import itertools
import json
import math
import time as _time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from costmetrics import _convert, _core
from costmetrics import area as cm_area
from costmetrics._files import atomic_path, check_output_file
from costmetrics._record import Record, record
from costmetrics.presets import (
    Gpu,
    Stencil,
    normalize_name,
    resolve_gpu,
    resolve_stencil,
    seed_file,
    seed_table,
)

__all__ = [
    "SIZES_2D",
    "SIZES_3D",
    "STENCILS_2D",
    "STENCILS_3D",
    "TABLE_C2",
    "BestDesign",
    "HardwareSpace",
    "Improvement",
    "SweepResult",
    "Workload",
    "hardware_space",
    "merge",
    "sweep",
    "workload",
]

_core_codesign: Any = _core.codesign
if TYPE_CHECKING:
    from costmetrics._core.codesign import ThreadLimits
else:  # a runtime name too, so that the signature's annotations resolve (documentation)
    ThreadLimits = _core_codesign.ThreadLimits

Variant = Literal["paper", "exact", "machine"]
BlockSmem = Literal["half", "full", "capped"]
Weights = Mapping[str | tuple[str, tuple[int, ...]], float]

_PROBLEMS = seed_file("codesign", "problems")
STENCILS_2D: tuple[str, ...] = tuple(_PROBLEMS["stencils_2d"])
STENCILS_3D: tuple[str, ...] = tuple(_PROBLEMS["stencils_3d"])
#: Sec. C.3.1: S in {4096, 8192, 12288, 16384} (the seed prints 12228; we read 12288 =
#: 3 x 4096, docs/codesign.md), T in {1024, ..., 16384}, T <= S: 16 sizes
#: (``data/codesign/problems.yaml``).
SIZES_2D: tuple[tuple[int, int, int], ...] = tuple(
    (s, s, t) for s in _PROBLEMS["space_2d"] for t in _PROBLEMS["time_steps_2d"] if t <= s
)
#: The 3D sizes of Sec. A.5: S in {384, 512, 640}, T in {128, ..., 640}, T <= S: 12 sizes.
SIZES_3D: tuple[tuple[int, int, int, int], ...] = tuple(
    (s, s, s, t) for s in _PROBLEMS["space_3d"] for t in _PROBLEMS["time_steps_3d"] if t <= s
)
#: Table C.2 of the seed (``data/codesign/table_c2.csv``): stencil -> (nSM, nV, M_SM kB,
#: area mm^2, GFLOP/s).
TABLE_C2: dict[str, tuple[int, int, int, int, int]] = {
    row["stencil"]: (
        int(row["n_sm"]),
        int(row["n_v"]),
        int(row["smem_kb"]),
        int(row["area_mm2"]),
        int(row["gflops"]),
    )
    for row in seed_table("codesign", "table_c2")
}


# --------------------------------------------------------------------------------------
# Workload
# --------------------------------------------------------------------------------------


@record
class Workload(Record):
    """A set of (stencil, sizes) instances with frequencies fr(c) fr(c, Sz) (Eq. C.18).

    Attributes
    ----------
    instances : tuple of (str, tuple of int)
        Stencil preset key and sizes ``(S1, S2, T)`` or ``(S1, S2, S3, T)``.
    weights : tuple of float
        ``fr(c) fr(c, Sz)`` per instance (default all 1, Sec. C.3.2).
    """

    instances: tuple[tuple[str, tuple[int, ...]], ...]
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not self.instances:
            raise ValueError("workload: no instances (empty workload)")
        checked = []
        for i, item in enumerate(self.instances):
            if not isinstance(item, tuple) or len(item) != 2:
                raise TypeError(f"instances[{i}]: expected (stencil, sizes), got {item!r}")
            name, sizes = item
            s = resolve_stencil(name, f"instances[{i}][0]")
            if s.n_space_dims not in (2, 3):
                raise ValueError(f"instances[{i}]: stencil {s.key!r} is not 2D or 3D")
            sz = tuple(sizes)
            if len(sz) != s.n_space_dims + 1:
                raise ValueError(
                    f"instances[{i}]: sizes must have {s.n_space_dims + 1} entries, got {sz!r}"
                )
            for v in sz:
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                    raise ValueError(f"instances[{i}]: sizes must be positive integers, got {sz!r}")
            if s.flops_per_point is None:
                raise ValueError(f"instances[{i}]: stencil {s.key!r} has no flops_per_point")
            checked.append((s.key, tuple(int(v) for v in sz)))
        object.__setattr__(self, "instances", tuple(checked))
        weights = self.weights or tuple(1.0 for _ in self.instances)
        if len(weights) != len(self.instances):
            raise ValueError(f"weights: {len(weights)} values for {len(self.instances)} instances")
        w = tuple(float(x) for x in weights)
        if any(not np.isfinite(x) or x < 0 for x in w) or sum(w) <= 0:
            raise ValueError(f"weights: must be finite, >= 0 and not all 0, got {w!r}")
        object.__setattr__(self, "weights", w)

    @property
    def stencils(self) -> tuple[str, ...]:
        """Stencil keys in order of first appearance."""
        return tuple(dict.fromkeys(name for name, _ in self.instances))

    def flops(self) -> npt.NDArray[np.float64]:
        """Floating-point operations of every instance: flops per point x S1 ... T."""
        out = []
        for name, sizes in self.instances:
            f = resolve_stencil(name, "stencil").flops_per_point
            assert f is not None
            out.append(f * float(np.prod(np.array(sizes, dtype=np.float64))))
        return np.array(out)

    def weighted(self, weights: Weights | Sequence[float] | None) -> Workload:
        """Return the same instances with new frequencies (see :meth:`SweepResult.reweight`)."""
        return replace(self, weights=_weight_vector(self, weights))


def _weight_vector(w: Workload, weights: Weights | Sequence[float] | None) -> tuple[float, ...]:
    if weights is None:
        return w.weights
    if isinstance(weights, Mapping):
        known = set(w.stencils)
        per_stencil: dict[str, float] = {}
        per_size: dict[tuple[str, tuple[int, ...]], float] = {}
        # A key names a stencil of the workload, or one of its instances as (stencil,
        # sizes); two keys that name the same one (e.g. "heat2d" and "Heat 2D") are
        # refused rather than letting the last one win.
        for key, value in weights.items():
            name = key[0] if isinstance(key, tuple) and len(key) == 2 else key
            if not isinstance(name, str) or resolve_stencil(name, "weights").key not in known:
                raise ValueError(f"weights: {key!r} is not a stencil of this workload")
            stencil = resolve_stencil(name, "weights").key
            v = _convert.real(value, f"weights[{key!r}]")
            if isinstance(key, tuple):
                inst = (
                    stencil,
                    tuple(_convert.int_sequence(key[1], f"weights[{key!r}]", max_len=4)),
                )
                if inst not in w.instances:
                    raise ValueError(f"weights: {key!r} is not an instance of this workload")
                if inst in per_size:
                    raise ValueError(f"weights: {key!r} names {inst!r} a second time")
                per_size[inst] = v
            else:
                if stencil in per_stencil:
                    raise ValueError(f"weights: {key!r} names stencil {stencil!r} a second time")
                per_stencil[stencil] = v
        out = []
        for inst_name, inst_sizes in w.instances:
            fr_c = per_stencil.get(inst_name, 1.0 if not per_stencil else 0.0)
            out.append(fr_c * per_size.get((inst_name, inst_sizes), 1.0))
        return tuple(out)
    if isinstance(weights, (str, bytes)) or not isinstance(weights, (Sequence, np.ndarray)):
        raise TypeError(
            f"weights: expected a mapping or a sequence of numbers, got {type(weights).__name__}"
        )
    n = len(w.instances)
    items = list(itertools.islice(weights, n + 1))  # a longer sequence is not read whole
    if len(items) != n:
        got = "more" if len(items) > n else str(len(items))
        raise ValueError(f"weights: {got} values for {n} instances")
    return tuple(_convert.real(x, f"weights[{i}]") for i, x in enumerate(items))


def workload(kind: str = "2d", *, stencils: Sequence[str] | None = None) -> Workload:
    """Return one of the seed's workloads (Sec. C.3.1-C.4.1), with unit frequencies.

    Parameters
    ----------
    kind : {"2d", "3d", "all"}
        The four 2D stencils x 16 sizes, the two 3D stencils x 12 sizes, or both.
    stencils : sequence of str, optional
        Restrict to these stencils.

    Returns
    -------
    Workload
        The instances.
    """
    kind = _convert.choice(kind, "kind", ("2d", "3d", "all"))
    items: list[tuple[str, tuple[int, ...]]] = []
    if kind in ("2d", "all"):
        items += [(s, z) for s in STENCILS_2D for z in SIZES_2D]
    if kind in ("3d", "all"):
        items += [(s, z) for s in STENCILS_3D for z in SIZES_3D]
    if stencils is not None:
        if isinstance(stencils, (str, bytes)) or not isinstance(stencils, Iterable):
            # A str would be iterated letter by letter ("unknown stencil 'h'").
            raise TypeError(
                f"stencils: expected a sequence of stencil names, got {type(stencils).__name__}"
            )
        keys = {resolve_stencil(s, f"stencils[{i}]").key for i, s in enumerate(stencils)}
        in_kind = sorted({it[0] for it in items})
        items = [it for it in items if it[0] in keys]
        if not items:
            # (Workload's own "no instances" did not say why)
            raise ValueError(
                f"stencils: none of {sorted(keys)} is in the {kind!r} workload, whose "
                f"stencils are {in_kind}"
            )
    return Workload(tuple(items))


@record
class HardwareSpace(Record):
    """Candidates of a codesign sweep; the designs are their Cartesian product.

    Attributes
    ----------
    n_sm : numpy.ndarray
        SM counts.
    n_v : numpy.ndarray
        Vector units per SM.
    smem_kb : numpy.ndarray
        Shared memory per SM, kB.
    """

    n_sm: npt.NDArray[np.int64]
    n_v: npt.NDArray[np.int64]
    smem_kb: npt.NDArray[np.int64]


def hardware_space() -> HardwareSpace:
    """Return the hardware space of Sec. C.3.2: nSM, nV and M_SM (kB) candidates.

    Returns
    -------
    HardwareSpace
        ``n_sm`` (even, 2-32), ``n_v`` (multiples of 32, 32-2048), ``smem_kb`` (12, 24, 36
        and multiples of 48 up to 480).
    """
    core = _core_codesign.default_hardware_space()
    return HardwareSpace(**{k: np.asarray(core[k], dtype=np.int64) for k in HardwareSpace._fields})


# --------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------


@record
class Improvement(Record):
    """Best design within a reference GPU's area vs that GPU (Sec. C.4.1).

    Attributes
    ----------
    reference : str
        ``"gtx980"`` or ``"titanx"``.
    caches : bool
        Whether the reference area includes its L1/L2 caches.
    reference_area_mm2 : float
        The reference's model area (the budget for the designs).
    reference_gflops : float
        The reference's workload GFLOP/s (same model, same workload).
    best_index : int
        Row of the best design with area <= the reference area.
    best_gflops : float
        Its GFLOP/s.
    percent : float
        ``(best / reference - 1) * 100``.
    """

    reference: str
    caches: bool
    reference_area_mm2: float
    reference_gflops: float
    best_index: int
    best_gflops: float
    percent: float


@record
class BestDesign(Record):
    """The best design (max GFLOP/s) of a sweep in an area range (Table C.2).

    Attributes
    ----------
    row : int
        Its row in ``SweepResult.designs`` (for :meth:`SweepResult.rank` and the
        per-design arrays).
    n_sm, n_v, smem_kb : int
        The design.
    area_mm2 : float
        Its cache-less area.
    gflops : float
        Its workload GFLOP/s (for one stencil when the search was for one).
    talg_s : numpy.ndarray
        Its tile-optimal T_alg per workload instance, seconds.
    tiles : numpy.ndarray
        Its optimal (tS1, tS2, tS3, tT) per instance.
    """

    row: int
    n_sm: int
    n_v: int
    smem_kb: int
    area_mm2: float
    gflops: float
    talg_s: npt.NDArray[np.float64]
    tiles: npt.NDArray[np.int64]


@record
class SweepResult(Record):
    """Tile-optimal T_alg of every (design, instance) pair, and what follows from it.

    Attributes
    ----------
    designs : dict of str to numpy.ndarray
        The design table: ``n_sm``, ``n_v``, ``smem_kb``, ``area_mm2`` (one row per design).
    workload : Workload
        The instances (columns) and their current weights.
    talg_s : numpy.ndarray
        Shape (designs, instances): min over tiles of T_alg, seconds.
    tiles : numpy.ndarray
        Shape (designs, instances, 4): the optimal (tS1, tS2, tS3, tT); tS3 = 0 in 2D.
    n_feasible, n_evaluated : numpy.ndarray
        Shape (designs, instances): feasible tiles, and those whose T_alg was computed.
    references : dict
        ``{"gtx980": {...}, "titanx": {...}}``: each reference design's ``talg_s`` row,
        ``area_mm2`` with caches and ``area_cacheless_mm2``.
    options : dict
        variant, block_smem, area range, area form, machine GPU.
    elapsed_s : float
        Wall time of the sweep.
    n_bounds : int
        Lower bounds computed by the branch and bound.
    """

    designs: dict[str, npt.NDArray[Any]]
    workload: Workload
    talg_s: npt.NDArray[np.float64]
    tiles: npt.NDArray[np.int64]
    n_feasible: npt.NDArray[np.int64]
    n_evaluated: npt.NDArray[np.int64]
    references: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = field(default=0.0, compare=False)
    n_bounds: int = 0

    def __len__(self) -> int:
        return int(self.talg_s.shape[0])

    # -- performance ---------------------------------------------------------------------

    def gflops(self, weights: Weights | Sequence[float] | None = None) -> npt.NDArray[np.float64]:
        """Workload GFLOP/s of every design: sum w flops / sum w T (Eq. C.18).

        Parameters
        ----------
        weights : mapping or sequence, optional
            Frequencies (see :meth:`reweight`); default the result's own.

        Returns
        -------
        numpy.ndarray
            One value per design.
        """
        w = _weight_vector(self.workload, weights)
        return np.asarray(
            _core_codesign.workload_gflops(self.talg_s, list(self.workload.flops()), list(w))
        )

    def reference_gflops(self, reference: str) -> float:
        """Workload GFLOP/s of a reference GPU design (``"gtx980"``, ``"titanx"``)."""
        ref = self._reference(reference)
        talg = np.asarray(ref["talg_s"], dtype=np.float64).reshape(1, -1)
        return float(
            _core_codesign.workload_gflops(
                talg, list(self.workload.flops()), list(self.workload.weights)
            )[0]
        )

    def _reference(self, reference: str) -> dict[str, Any]:
        if not isinstance(reference, str):
            raise TypeError(f"reference: expected a str, got {type(reference).__name__}")
        key = normalize_name(reference)
        if key not in self.references:
            raise ValueError(
                f"reference: no reference {reference!r}; have {sorted(self.references)}"
            )
        return self.references[key]

    def reweight(self, weights: Weights | Sequence[float]) -> SweepResult:
        """Recombine the optima under new workload frequencies (Sec. C.4.2), without re-running.

        Parameters
        ----------
        weights : mapping or sequence of float
            ``{"heat2d": 1.0}`` sets fr(c) (stencils not named get 0);
            ``{("heat2d", (4096, 4096, 1024)): 2.0}`` sets fr(c, Sz) (others 1); or one
            weight per instance.

        Returns
        -------
        SweepResult
            A result sharing the arrays, with the new weights.
        """
        return replace(self, workload=self.workload.weighted(weights))

    # -- selection -----------------------------------------------------------------------

    def pareto(self) -> npt.NDArray[np.int64]:
        """Rows of the Pareto-optimal designs (min area, max GFLOP/s), by area."""
        return np.asarray(
            _core_codesign.pareto_front(list(self.designs["area_mm2"]), list(self.gflops())),
            dtype=np.int64,
        )

    def best(
        self, area_range: tuple[float, float] | None = None, stencil: str | None = None
    ) -> BestDesign:
        """Return the best design (max GFLOP/s) in an area range, for one stencil or all.

        Parameters
        ----------
        area_range : (float, float), optional
            Inclusive area bounds in mm^2 (default: every design).
        stencil : str, optional
            Only this stencil (fr = 1 for it, 0 for the others), as in Table C.2.

        Returns
        -------
        BestDesign
            The design, its row, GFLOP/s, times and tiles.

        Raises
        ------
        ValueError
            If no design lies in the range.
        """
        perf = self.gflops(self._stencil_weights(stencil))
        mask = self._area_mask(area_range)
        if not mask.any():
            raise ValueError(f"area_range: no design with area in {area_range}")
        idx = np.flatnonzero(mask)
        row = int(idx[np.argmax(perf[idx])])
        d = self.designs
        return BestDesign(
            row=row,
            n_sm=int(d["n_sm"][row]),
            n_v=int(d["n_v"][row]),
            smem_kb=int(d["smem_kb"][row]),
            area_mm2=float(d["area_mm2"][row]),
            gflops=float(perf[row]),
            talg_s=self.talg_s[row].copy(),
            tiles=self.tiles[row].copy(),
        )

    def rank(
        self,
        row: int,
        area_range: tuple[float, float] | None = None,
        stencil: str | None = None,
    ) -> int:
        """Rank (1 = best) of a design among those in an area range, by GFLOP/s."""
        row = _convert.integer(row, "row", lo=0, hi=len(self) - 1)
        perf = self.gflops(self._stencil_weights(stencil))
        idx = np.flatnonzero(self._area_mask(area_range))
        if row not in set(idx.tolist()):
            raise ValueError(f"row {row} is not in the area range {area_range}")
        return int(np.sum(perf[idx] > perf[row])) + 1

    def find(self, n_sm: int, n_v: int, smem_kb: int) -> int:
        """Row of the design (nSM, nV, M_SM); ValueError if absent."""
        d = self.designs
        hit = np.flatnonzero((d["n_sm"] == n_sm) & (d["n_v"] == n_v) & (d["smem_kb"] == smem_kb))
        if hit.size == 0:
            raise ValueError(f"design ({n_sm}, {n_v}, {smem_kb}) is not in this sweep")
        return int(hit[0])

    def _stencil_weights(self, stencil: str | None) -> Weights | None:
        """Weights of ``stencil`` alone (fr = 1 for it, 0 for the others; Table C.2)."""
        if stencil is None:
            return None
        key = resolve_stencil(_convert.string(stencil, "stencil"), "stencil").key
        if key not in self.workload.stencils:
            have = ", ".join(self.workload.stencils)
            raise ValueError(f"stencil: {stencil!r} is not in this workload ({have})")
        return {key: 1.0}

    def _area_mask(self, area_range: tuple[float, float] | None) -> npt.NDArray[np.bool_]:
        a = self.designs["area_mm2"]
        if area_range is None:
            return np.ones(a.shape, dtype=bool)
        if isinstance(area_range, (str, bytes)) or not isinstance(area_range, Sequence):
            raise TypeError(
                f"area_range: expected (low, high) in mm^2, got {type(area_range).__name__}"
            )
        if len(area_range) != 2:
            raise ValueError(f"area_range: expected (low, high) in mm^2, got {area_range!r}")
        lo = _convert.real(area_range[0], "area_range[0]")
        hi = _convert.real(area_range[1], "area_range[1]")
        if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi or hi < 0:
            raise ValueError(f"area_range: bad bounds {area_range!r}")
        mask: npt.NDArray[np.bool_] = (a >= lo) & (a <= hi)
        return mask

    def improvement(self, reference: str, *, caches: bool = True) -> Improvement:
        """Best design within the area of a reference GPU vs that GPU (Sec. C.4.1).

        Parameters
        ----------
        reference : str
            ``"gtx980"`` or ``"titanx"``.
        caches : bool
            Budget = the reference's model area with caches (default) or without them
            (the cache-less comparison of Sec. C.4.1).

        Returns
        -------
        Improvement
            The comparison.
        """
        caches = _convert.boolean(caches, "caches")
        ref = self._reference(reference)
        budget = float(ref["area_mm2"] if caches else ref["area_cacheless_mm2"])
        row = self.best((0.0, budget)).row
        ref_gflops = self.reference_gflops(reference)
        best = float(self.gflops()[row])
        return Improvement(
            reference=str(ref["key"]),
            caches=caches,
            reference_area_mm2=budget,
            reference_gflops=ref_gflops,
            best_index=row,
            best_gflops=best,
            percent=(best / ref_gflops - 1.0) * 100.0,
        )

    def resource_allocation(self) -> dict[str, npt.NDArray[np.float64]]:
        """Share of each design's area in vector units and in shared memory (Fig. C.4).

        Returns
        -------
        dict
            ``vector_units`` ((beta_VU + register file) x nSM nV / A_tot) and
            ``shared_memory`` (nSM (beta_M M_SM + alpha_M) / A_tot), fractions in [0, 1].
        """
        d = self.designs
        c = cm_area.coefficients()
        vu = np.array(
            [
                cm_area.breakdown(int(n), int(v), float(m), coefficients=c)
                for n, v, m in zip(d["n_sm"], d["n_v"], d["smem_kb"], strict=False)
            ],
            dtype=object,
        )
        total = np.array([b.total_mm2 for b in vu])
        return {
            "vector_units": np.array([b.vector_units_mm2 + b.registers_mm2 for b in vu]) / total,
            "shared_memory": np.array([b.shared_memory_mm2 for b in vu]) / total,
        }

    def table(self, rows: Iterable[int] | None = None) -> list[dict[str, Any]]:
        """Plain rows (design, area, GFLOP/s) for printing or JSON."""
        perf = self.gflops()
        d = self.designs
        out = []
        if rows is None:
            picked = list(range(len(self)))
        else:
            if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
                raise TypeError(f"rows: expected row numbers, got {type(rows).__name__}")
            picked = [
                _convert.integer(i, f"rows[{k}]", lo=0, hi=len(self) - 1)
                for k, i in enumerate(rows)
            ]
        for i in picked:
            out.append(
                {
                    "n_sm": int(d["n_sm"][i]),
                    "n_v": int(d["n_v"][i]),
                    "smem_kb": int(d["smem_kb"][i]),
                    "area_mm2": float(d["area_mm2"][i]),
                    "gflops": float(perf[i]),
                }
            )
        return out

    # -- persistence ---------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Write the result to one ``.npz`` file (arrays plus JSON metadata)."""
        p = check_output_file(Path(path), "path")
        meta = {
            "instances": [[n, list(z)] for n, z in self.workload.instances],
            "weights": list(self.workload.weights),
            "references": {
                k: {**v, "talg_s": [float(x) for x in v["talg_s"]]}
                for k, v in self.references.items()
            },
            "options": self.options,
            "elapsed_s": self.elapsed_s,
            "n_bounds": self.n_bounds,
        }
        arrays: dict[str, Any] = {
            "meta": np.array(json.dumps(meta)),
            "talg_s": self.talg_s,
            "tiles": self.tiles,
            "n_feasible": self.n_feasible,
            "n_evaluated": self.n_evaluated,
        }
        arrays.update({f"design_{k}": v for k, v in self.designs.items()})
        with atomic_path(p) as tmp, tmp.open("wb") as f:
            np.savez_compressed(f, **arrays)
        return p

    @classmethod
    def load(cls, path: str | Path) -> SweepResult:
        """Read a result written by :meth:`save`."""
        try:
            with np.load(Path(path), allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                designs = {k[len("design_") :]: z[k] for k in z.files if k.startswith("design_")}
                arrays = {k: z[k] for k in ("talg_s", "tiles", "n_feasible", "n_evaluated")}
            instances = tuple((str(n), tuple(int(v) for v in z)) for n, z in meta["instances"])
            weights = tuple(meta["weights"])
            references, options = meta["references"], meta["options"]
            elapsed_s, n_bounds = float(meta["elapsed_s"]), int(meta["n_bounds"])
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"{path}: not a codesign sweep file ({exc!r})") from None
        return cls(
            designs=designs,
            workload=Workload(instances, weights),
            references=references,
            options=options,
            elapsed_s=elapsed_s,
            n_bounds=n_bounds,
            **arrays,
        )


# --------------------------------------------------------------------------------------
# Sweep
# --------------------------------------------------------------------------------------


def _machine(g: Gpu) -> Any:
    return _core_codesign.MachineParams(
        l_s_per_word=g.l_s_per_word,
        tau_sync_s=g.tau_sync_s,
        t_sync_s=g.t_sync_s,
        max_blocks_per_sm=g.max_blocks_per_sm,
    )


def _run_shard(job: dict[str, Any]) -> dict[str, Any]:
    """Sweep one shard of designs (a top-level function, so that executors can pickle it)."""
    from costmetrics import _core as core  # imported in the worker process

    c: Any = core.codesign
    machine = c.MachineParams(**job["machine"])
    out: dict[str, Any] = c.sweep(
        job["n_sm"],
        job["n_v"],
        job["smem_kb"],
        job["area_mm2"],
        job["instances"],
        machine,
        job["variant"],
        job["block_smem"],
        job["block_cap_kb"],
        job["prune"],
        job["threads"],
        job.get("progress"),
        job.get("thread_limits"),
    )
    return out


def sweep(
    workload: Workload | str = "2d",
    area_min_mm2: float = 200.0,
    area_max_mm2: float = 650.0,
    *,
    variant: Variant = "exact",
    block_smem: BlockSmem = "half",
    block_cap_kb: float = 48.0,
    gpu: Gpu | str = "gtx980",
    area_form: Literal["structural", "rounded"] = "structural",
    space: HardwareSpace | Mapping[str, Sequence[int]] | None = None,
    prune: bool = True,
    executor: Executor | None = None,
    n_shards: int | None = None,
    threads: int = 0,
    progress: bool | Callable[[int, int], None] = False,
    thread_limits: ThreadLimits | Mapping[str, int] | None = None,
) -> SweepResult:
    """Tile-optimal T_alg of every design in an area budget on a workload (Eq. C.19).

    Parameters
    ----------
    workload : Workload or {"2d", "3d", "all"}
        The instances (default the seed's 2D workload).
    area_min_mm2, area_max_mm2 : float
        Area budget (Sec. C.3.2: 200-650 mm^2), cache-less designs.
    variant : {"exact", "paper", "machine"}
        Time-model variant (:mod:`costmetrics.time`). The designs carry no ``machine``
        terms, so ``"machine"`` gives the ``exact`` results. The seed's Fig. C.4 and Table C.4
        use ``"paper"`` (``costmetrics reproduce`` passes it); ``"exact"`` needs more
        tile evaluations per design (branch and bound prunes less).
    block_smem : {"half", "full", "capped"}
        Shared memory one thread block may use (C.10): M_SM / 2 (default), M_SM, or
        min(block_cap_kb, M_SM).
    block_cap_kb : float
        The cap of ``"capped"`` (48 kB on the reference GPUs).
    gpu : Gpu or str
        Machine whose C_iter, L, tau_sync, T_sync and MTB_SM every design uses (the seed:
        the GTX 980, Sec. C.3.2).
    area_form : {"structural", "rounded"}
        Area model for the budget: Eq. C.6 (default) or Eq. C.7.
    space : HardwareSpace or mapping, optional
        ``n_sm``, ``n_v``, ``smem_kb`` candidates (default :func:`hardware_space`).
    prune : bool
        Branch and bound (default) or plain exhaustive search over the tiles.
    executor : concurrent.futures.Executor, optional
        Runs the shards (e.g. ``distributed.Client(...).get_executor()``); default: in
        this process, multi-threaded.
    n_shards : int, optional
        Number of shards (default 1 without an executor, 16 with one).
    threads : int
        Threads per shard (0: every core).
    progress : bool or callable
        Show a progress bar on standard error, or call ``progress(done, total)``.
    thread_limits : dict or ThreadLimits, optional
        An extension the seed does not state (``docs/codesign.md``, "Thread and register
        limits"): None (default) keeps the seed's constraints; a
        ``costmetrics._core.codesign.ThreadLimits`` or a dict of some of its fields
        (``max_threads_per_block``, ``max_threads_per_sm``, ``registers_per_sm``,
        ``registers_per_thread``; the others take the GTX 980-like defaults 1024, 2048,
        65536, 32) makes a tile a block of tS2 (2D) or tS2 tS3 (3D) threads: over
        ``max_threads_per_block`` it is infeasible, and the hyper-threading factor k of
        Eq. A.12 is also capped by the threads and registers of one SM. The reference GPUs
        are swept under the same limits.

    Returns
    -------
    SweepResult
        Every design's optima, with the GTX 980 and Titan X reference designs.

    Raises
    ------
    ValueError
        Bad area range, an area range holding no design, an empty workload, a bad space,
        bad thread limits.
    TypeError
        Thread limits of the wrong type, or a dict with an unknown field; an executor
        without ``submit``.
    """
    wl = globals()["workload"](workload) if isinstance(workload, str) else workload
    if not isinstance(wl, Workload):
        raise TypeError(f"workload: expected a Workload or a name, got {type(workload).__name__}")
    area_min = _convert.real(area_min_mm2, "area_min_mm2")
    area_max = _convert.real(area_max_mm2, "area_max_mm2")
    for name, value in (("area_min_mm2", area_min), ("area_max_mm2", area_max)):
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{name}: must be finite and >= 0, got {value!r}")
    variant_name = _convert.variant(variant)
    form = _convert.choice(area_form, "area_form", ("structural", "rounded"))
    cap_kb = _convert.real(block_cap_kb, "block_cap_kb")
    if not (math.isfinite(cap_kb) and cap_kb > 0):
        # Checked whatever block_smem is: the sweep's options keep it.
        raise ValueError(f"block_cap_kb: must be finite and > 0, got {cap_kb!r}")
    use_prune = _convert.boolean(prune, "prune")
    n_threads = _convert.integer(threads, "threads", lo=0, hi=1024)
    if not callable(progress):
        _convert.boolean(progress, "progress")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        # Checked before the designs are enumerated: a bad executor would otherwise fail
        # only at the first shard, with an AttributeError.
        raise TypeError(
            "executor: expected a concurrent.futures.Executor (an object with submit) or "
            f"None, got {type(executor).__name__} {executor!r}"
        )
    limits = _core_codesign.thread_limits(thread_limits)  # validated in C++
    limits_dict = None if limits is None else {k: int(v) for k, v in limits._asdict().items()}
    g = resolve_gpu(gpu, "gpu")
    if space is None:
        space = hardware_space()
    if isinstance(space, HardwareSpace):
        space = space._asdict()
    if not isinstance(space, Mapping):
        raise TypeError(f"space: expected a HardwareSpace or a mapping, got {type(space).__name__}")
    missing = [k for k in HardwareSpace._fields if k not in space]
    if missing:
        raise ValueError(f"space: missing {missing}; expected keys {list(HardwareSpace._fields)}")
    unknown = sorted(str(k) for k in space if k not in HardwareSpace._fields)
    if unknown:
        raise ValueError(
            f"space: unknown keys {unknown}; expected keys {list(HardwareSpace._fields)}"
        )
    sp = {k: np.asarray(space[k]) for k in HardwareSpace._fields}
    for key, values in sp.items():
        if values.ndim != 1:
            raise TypeError(f"space[{key!r}]: expected a list of integers, got {space[key]!r}")
        if values.size == 0 or values.dtype.kind not in "iu":
            raise ValueError(f"space[{key!r}]: expected a non-empty list of integers")
    rounded = cm_area.rounded_coefficients() if form == "rounded" else None
    designs = _core_codesign.enumerate_designs(
        [int(x) for x in sp["n_sm"]],
        [int(x) for x in sp["n_v"]],
        [int(x) for x in sp["smem_kb"]],
        cm_area.coefficients(),
        area_min,
        area_max,
        rounded,
    )
    stencils: dict[str, Stencil] = {n: resolve_stencil(n, "workload") for n in wl.stencils}
    instances = [
        (stencils[n].n_space_dims, stencils[n].c_iter_on(g), list(z)) for n, z in wl.instances
    ]
    machine = {
        "l_s_per_word": g.l_s_per_word,
        "tau_sync_s": g.tau_sync_s,
        "t_sync_s": g.t_sync_s,
        "max_blocks_per_sm": g.max_blocks_per_sm,
    }
    common = {
        "instances": instances,
        "machine": machine,
        "variant": variant_name,
        "block_smem": block_smem,
        "block_cap_kb": cap_kb,
        "prune": use_prune,
        "threads": n_threads,
        "thread_limits": limits_dict,
    }
    n = len(designs["n_sm"])
    shards = (
        _convert.integer(n_shards, "n_shards")
        if n_shards is not None
        else (1 if executor is None else 16)
    )
    if shards < 1:
        raise ValueError(f"n_shards: must be >= 1, got {n_shards}")
    bounds = np.linspace(0, n, min(shards, n) + 1).astype(int)
    jobs: list[dict[str, Any]] = [
        {**common, **{k: np.ascontiguousarray(v[a:b]) for k, v in designs.items()}}
        for a, b in itertools.pairwise(bounds)
    ]
    report = _progress_reporter(progress, n)
    started = _time.perf_counter()
    results: list[dict[str, Any]]
    try:
        if executor is None:
            results = []
            done_before = 0
            for job in jobs:
                size = len(job["n_sm"])
                base = done_before
                if report is not None:
                    job["progress"] = lambda k, base=base: report(base + k)
                results.append(_run_shard(job))
                done_before += size
        else:
            futures = [executor.submit(_run_shard, job) for job in jobs]
            results = []
            done = 0
            for fut, job in zip(futures, jobs, strict=False):
                results.append(fut.result())
                done += len(job["n_sm"])
                if report is not None:
                    report(done)
    finally:
        if report is not None:
            report(-1)
    elapsed = _time.perf_counter() - started
    merged = {
        key: np.concatenate([r[key] for r in results], axis=0)
        for key in ("talg_s", "tiles", "n_feasible", "n_evaluated")
    }
    references = _reference_rows(common, wl)
    return SweepResult(
        designs={k: np.asarray(v) for k, v in designs.items()},
        workload=wl,
        references=references,
        options={
            "variant": variant_name,
            "block_smem": block_smem,
            "block_cap_kb": cap_kb,
            "area_range_mm2": [area_min, area_max],
            "area_form": form,
            "gpu": g.key,
            "n_shards": len(jobs),
            "thread_limits": limits_dict,
        },
        elapsed_s=elapsed,
        n_bounds=int(sum(int(r["n_bounds"]) for r in results)),
        **merged,
    )


def _reference_rows(common: dict[str, Any], wl: Workload) -> dict[str, dict[str, Any]]:
    """Sweep the GTX 980 and Titan X as designs (nSM, 128, 96 kB) of the same machine."""
    out: dict[str, dict[str, Any]] = {}
    for key, ref in cm_area.reference_gpus().items():
        job = {
            **common,
            "n_sm": np.array([ref.n_sm], dtype=np.int64),
            "n_v": np.array([ref.n_v], dtype=np.int64),
            "smem_kb": np.array([int(ref.smem_kb)], dtype=np.int64),
            "area_mm2": np.array([ref.area(caches=False)]),
            "threads": 1,
        }
        r = _run_shard(job)
        out[key] = {
            "key": key,
            "name": ref.name,
            "n_sm": ref.n_sm,
            "n_v": ref.n_v,
            "smem_kb": int(ref.smem_kb),
            "area_mm2": ref.area(caches=True),
            "area_cacheless_mm2": ref.area(caches=False),
            "talg_s": [float(x) for x in r["talg_s"][0]],
        }
    return out


def _progress_reporter(
    progress: bool | Callable[[int, int], None], total: int
) -> Callable[[int], None] | None:
    if callable(progress):
        fn = progress
        return lambda done: None if done < 0 else fn(done, total)
    if not progress:
        return None
    import sys

    from tqdm import tqdm

    bar = tqdm(total=total, unit="design", desc="codesign sweep", file=sys.stderr)

    def report(done: int) -> None:
        if done < 0:
            bar.close()
            return
        bar.update(max(0, done - bar.n))

    return report


def merge(parts: Sequence[SweepResult]) -> SweepResult:
    """Concatenate sweeps of disjoint design sets on the same workload and options.

    Parameters
    ----------
    parts : sequence of SweepResult
        Results to join, e.g. from separate machines or area ranges.

    Returns
    -------
    SweepResult
        One result with every design.

    Raises
    ------
    TypeError
        If ``parts`` is not a sequence of SweepResult.
    ValueError
        If the parts differ in workload or options, or nothing is given.
    """
    parts = _convert.instances(parts, "parts", SweepResult)
    if not parts:
        raise ValueError("merge: nothing to merge")
    first = parts[0]
    # Every option but the area range and the sharding must match: a merged result must
    # come from one model.
    ignored = {"area_range_mm2", "n_shards"}
    keys = sorted((set(first.options) | {k for p in parts for k in p.options}) - ignored)
    seen: set[tuple[int, int, int]] = set()
    for i, p in enumerate(parts):
        if p.workload.instances != first.workload.instances:
            raise ValueError(f"merge: parts[{i}] has a different workload from parts[0]")
        different = [k for k in keys if p.options.get(k) != first.options.get(k)]
        if different:
            raise ValueError(
                f"merge: parts[{i}] was swept with different options from parts[0]: "
                + ", ".join(
                    f"{k}={p.options.get(k)!r} vs {first.options.get(k)!r}" for k in different
                )
            )
        designs = set(
            zip(
                p.designs["n_sm"].tolist(),
                p.designs["n_v"].tolist(),
                p.designs["smem_kb"].tolist(),
                strict=False,
            )
        )
        overlap = seen & designs
        if overlap:
            raise ValueError(
                f"merge: parts[{i}] repeats {len(overlap)} design(s) of an earlier part, "
                f"e.g. (n_sm, n_v, smem_kb) = {min(overlap)}"
            )
        seen |= designs
    return replace(
        first,
        designs={k: np.concatenate([p.designs[k] for p in parts]) for k in first.designs},
        talg_s=np.concatenate([p.talg_s for p in parts]),
        tiles=np.concatenate([p.tiles for p in parts]),
        n_feasible=np.concatenate([p.n_feasible for p in parts]),
        n_evaluated=np.concatenate([p.n_evaluated for p in parts]),
        elapsed_s=float(sum(p.elapsed_s for p in parts)),
        n_bounds=int(sum(p.n_bounds for p in parts)),
        options={
            **first.options,
            "area_range_mm2": [
                min(p.options["area_range_mm2"][0] for p in parts),
                max(p.options["area_range_mm2"][1] for p in parts),
            ],
        },
    )
