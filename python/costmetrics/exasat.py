"""ExaSAT-style performance model of stencil loop nests (seed 002).

Chan, Unat, Lijewski, Zhang, Bell and Shalf, "Software Design Space Exploration for Exascale
Combustion Co-design" (Lawrence Berkeley National Laboratory). The model estimates the run
time of a sequence of 3D loop nests as ``T = max(C / alpha, D / beta)`` (Sec. 4.2), with
``C`` the flops weighted by the cost of divides and transcendentals and ``D`` the DRAM
traffic of a working-set cache model (reuse between cells, pencils and planes, Fig. 8),
under cache blocking of X and Y (Sec. 3.1) and loop fusion (Sec. 3.2). Every rule is
implemented in the C++ core (``costmetrics._core.exasat``) and written out in
``docs/exasat.md``; :func:`simulate` runs the same access stream through a brute-force LRU
cache to check them.

Kernels are described declaratively (:class:`Kernel`, :class:`Loop`, :class:`Array`) or
read from YAML/JSON files (:func:`load_kernel`); the seed's Hopper node (Table 2) and the
kernels used by the experiment ship as presets (:func:`machine`, :func:`kernel`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, Union, cast

import numpy as np
import numpy.typing as npt

from costmetrics import _convert
from costmetrics._core import exasat as _ex
from costmetrics._core.exasat import (
    ArrayTraffic,
    Blocking,
    Box,
    Estimate,
    Flops,
    GroupResult,
    Machine,
    Simulation,
)
from costmetrics._record import Record, record
from costmetrics.presets import _read_mapping, data_dir, normalize_name

__all__ = [
    "LEVELS",
    "Array",
    "ArrayTraffic",
    "Blocking",
    "Box",
    "Estimate",
    "Flops",
    "GroupResult",
    "Kernel",
    "Loop",
    "Machine",
    "MachinePreset",
    "Simulation",
    "TrafficCurves",
    "best_blocking",
    "bytes_per_flop_vs_block",
    "estimate",
    "footprint_words",
    "fusion_groups",
    "kernel",
    "kernels",
    "load_kernel",
    "load_machine",
    "machine",
    "machine_preset",
    "machines",
    "peak_bytes_per_flop",
    "simulate",
    "simulate_sweep",
    "stencil_points",
    "traffic_vs_cache",
    "weighted_flops",
    "with_cache",
]


#: Reuse levels of the working-set model, by index (Fig. 8).
LEVELS: tuple[str, ...] = ("none", "cell", "pencil", "plane")

Point = tuple[int, int, int]
FusionStrategy = Literal["none", "simple", "aggressive"]
_FUSION_STRATEGIES: tuple[str, ...] = ("none", "simple", "aggressive")
#: A fusion strategy name, or explicit groups of consecutive loop indices.
Fusion = Union[FusionStrategy, Sequence[Sequence[int]]]
#: A box: one edge for a cube, or (nx, ny, nz), or a :class:`Box`.
BoxLike = Union[int, np.integer[Any], Sequence[int], npt.NDArray[np.integer[Any]], "_ex.Box"]
#: A block: one edge for square X/Y blocks, (bx, by), or None for the whole box.
BlockLike = Union[None, int, np.integer[Any], Sequence[int], npt.NDArray[np.integer[Any]]]
#: One block for every loop nest, or a list with one block per fused loop nest.
BlocksLike = Union[BlockLike, Sequence[BlockLike]]

SCHEMA_VERSION = 1


# --------------------------------------------------------------------------------------
# Stencil points and kernel description
# --------------------------------------------------------------------------------------


def stencil_points(spec: object, what: str = "points") -> tuple[Point, ...]:
    """Return the stencil points of a shorthand or an explicit list.

    Parameters
    ----------
    spec : str or sequence of (dx, dy, dz)
        ``"point"`` (the cell itself), ``"star:R"`` (the 3D star of radius R: 6R + 1
        points, Fig. 1 is ``"star:4"``), ``"box:R"`` (the (2R + 1)^3 cube), or explicit
        integer triples.
    what : str, optional
        Name used in error messages.

    Returns
    -------
    tuple of (int, int, int)
        The distinct points, in the order given (shorthands: by z, y, x).

    Raises
    ------
    ValueError
        For an unknown shorthand, a radius outside 0..MAX_OFFSET, or a malformed point.
    TypeError
        For a spec that is neither a string nor a sequence of integer triples.
    """
    if isinstance(spec, str):
        text = spec.strip().lower()
        if text == "point":
            return ((0, 0, 0),)
        kind, sep, radius_text = text.partition(":")
        if sep and kind in ("star", "box"):
            try:
                radius = int(radius_text)
            except ValueError:
                raise ValueError(f"{what}: radius must be an integer, got {spec!r}") from None
            if not 0 <= radius <= _ex.MAX_OFFSET:
                raise ValueError(f"{what}: radius must be in 0..{_ex.MAX_OFFSET}, got {radius}")
            r = range(-radius, radius + 1)
            if kind == "box":
                return tuple((x, y, z) for z in r for y in r for x in r)
            pts = {(0, 0, 0)}
            for d in r:
                pts |= {(d, 0, 0), (0, d, 0), (0, 0, d)}
            return tuple(sorted(pts, key=lambda p: (p[2], p[1], p[0])))
        raise ValueError(
            f"{what}: unknown stencil {spec!r}; use 'point', 'star:R', 'box:R' or a list of "
            "[dx, dy, dz] points"
        )
    if not isinstance(spec, Sequence) or isinstance(spec, (bytes, bytearray)):
        raise TypeError(f"{what}: expected a stencil name or a list of points, got {spec!r}")
    if len(spec) == 0:
        raise ValueError(f"{what}: at least one point is required")
    points: list[Point] = []
    for i, p in enumerate(spec):
        if not isinstance(p, Sequence) or isinstance(p, str) or len(p) != 3:
            raise ValueError(f"{what}[{i}]: a point is [dx, dy, dz], got {p!r}")
        coords = []
        for c in p:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
                raise TypeError(f"{what}[{i}]: coordinates must be integers, got {p!r}")
            coords.append(int(c))
        point = (coords[0], coords[1], coords[2])
        if point not in points:
            points.append(point)
    return tuple(points)


def _name(value: object, what: str) -> str:
    return _convert.string(value, what, nonempty=True)


@record
class Array(Record):
    """An array of the kernel: a 3D field of words over the box (plus ghost zones).

    Parameters
    ----------
    name : str
        Unique name.
    temporary : bool, optional
        True for an intermediate not needed after the kernel; fusion may then keep it on
        chip (a scalar, or a buffer of a few planes) instead of in DRAM.
    components : int, optional
        Number of 3D fields under this name (e.g. one per chemical species); an access to
        the name accesses every component.
    """

    name: str
    temporary: bool = False
    components: int = 1

    def __post_init__(self) -> None:
        _name(self.name, "Array.name")
        if not isinstance(self.temporary, bool):
            raise TypeError(f"Array.temporary: expected a bool, got {self.temporary!r}")
        # NumPy integers too, as every other integer of this module; stored as int.
        c = _convert.integer(self.components, "Array.components", lo=1, hi=100_000)
        object.__setattr__(self, "components", c)


@record
class Loop(Record):
    """One loop nest over the box: its reads (with stencil points), writes and flops.

    Parameters
    ----------
    name : str
        Name of the loop.
    reads : mapping of str to points
        Array name to the stencil points read per cell (see :func:`stencil_points`).
    writes : mapping of str to point, or sequence of str
        Array name to the point written per cell; a bare name writes the cell itself.
    flops : Flops or mapping, optional
        Operations per cell (``adds``, ``muls``, ``divides``, ``transcendentals``).
    """

    name: str
    reads: Mapping[str, Any]
    writes: Mapping[str, Any] | Sequence[str]
    flops: Any = None

    def __post_init__(self) -> None:
        _name(self.name, "Loop.name")
        where = f"loop {self.name!r}"
        if not isinstance(self.reads, Mapping):
            raise TypeError(f"{where}: reads must map array names to points")
        reads = {
            _name(k, f"{where}.reads key"): stencil_points(v, f"{where}.reads[{k!r}]")
            for k, v in self.reads.items()
        }
        writes_in: object = self.writes
        writes: dict[str, Point] = {}
        if isinstance(writes_in, Mapping):
            for k, v in writes_in.items():
                pts = stencil_points([v] if _is_point(v) else v, f"{where}.writes[{k!r}]")
                if len(pts) != 1:
                    raise ValueError(f"{where}.writes[{k!r}]: a write has exactly one point")
                writes[_name(k, f"{where}.writes key")] = pts[0]
        elif isinstance(writes_in, Sequence) and not isinstance(writes_in, str):
            for k in writes_in:
                writes[_name(k, f"{where}.writes[]")] = (0, 0, 0)
        else:
            raise TypeError(f"{where}: writes must be a list of names or a mapping name -> point")
        flops = self.flops
        if flops is None:
            flops = Flops(adds=0.0, muls=0.0, divides=0.0, transcendentals=0.0)
        else:
            flops = _as_flops(flops, f"{where}.flops")
        object.__setattr__(self, "reads", reads)
        object.__setattr__(self, "writes", writes)
        object.__setattr__(self, "flops", flops)

    @property
    def read_points(self) -> dict[str, tuple[Point, ...]]:
        """Array name to the stencil points read per cell (normalized)."""
        return dict(cast(Mapping[str, tuple[Point, ...]], self.reads))

    @property
    def write_points(self) -> dict[str, Point]:
        """Array name to the point written per cell (normalized)."""
        return dict(cast(Mapping[str, Point], self.writes))


def _as_flops(flops: object, what: str) -> Flops:
    """Return ``flops`` as a ``Flops``: a mapping names its fields (missing ones 0), no others."""
    if isinstance(flops, Flops):
        return flops
    if not isinstance(flops, Mapping):
        raise TypeError(f"{what}: expected a Flops or a mapping, got {flops!r}")
    unknown = sorted(set(flops) - set(Flops._fields), key=repr)
    if unknown:
        raise ValueError(f"{what}: unknown operation(s) {unknown}; known: {list(Flops._fields)}")
    return Flops(**{k: flops.get(k, 0.0) for k in Flops._fields})


def _sequence(value: object, what: str) -> Sequence[Any]:
    """Return ``value`` if it is an ordered sequence (not a str); TypeError naming ``what``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{what}: expected a sequence, got {_convert._describe(value)}")
    return value


def _check_schema_version(data: Mapping[str, Any], where: str) -> None:
    # A file written by another version may mean other things by the same keys: refuse it.
    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version != SCHEMA_VERSION:
        # The same words as the file reader (presets._read_mapping), which checks files.
        raise ValueError(
            f"schema_version{where}: this costmetrics reads version {SCHEMA_VERSION}, "
            f"got {version!r}"
        )


def _is_point(value: object) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and len(value) == 3
        and all(not isinstance(c, Sequence) for c in value)
    )


@record
class Kernel(Record):
    """A sequence of loop nests over one 3D box, swept X innermost and Z outermost.

    Parameters
    ----------
    name : str
        Name of the kernel.
    arrays : sequence of Array
        Every array the loops access.
    loops : sequence of Loop
        The loop nests in program order.
    description, source : str, optional
        Free text; ``source`` says where the numbers come from.
    """

    name: str
    arrays: tuple[Array, ...]
    loops: tuple[Loop, ...]
    description: str = ""
    source: str = ""
    _core_form: tuple[Any, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _name(self.name, "Kernel.name")
        arrays = tuple(_sequence(self.arrays, "Kernel.arrays"))
        loops = tuple(_sequence(self.loops, "Kernel.loops"))
        for a in arrays:
            if not isinstance(a, Array):
                raise TypeError(f"Kernel.arrays: expected Array objects, got {a!r}")
        for lp in loops:
            if not isinstance(lp, Loop):
                raise TypeError(f"Kernel.loops: expected Loop objects, got {lp!r}")
        if not loops:
            raise ValueError("Kernel.loops: at least one loop is required")
        names = [a.name for a in arrays]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"Kernel.arrays: duplicate name(s) {dup}")
        known = set(names)
        for lp in loops:
            for k in (*lp.reads, *lp.writes):
                if k not in known:
                    raise ValueError(
                        f"loop {lp.name!r}: array {k!r} is not declared (arrays: {names})"
                    )
        object.__setattr__(self, "arrays", arrays)
        object.__setattr__(self, "loops", loops)
        object.__setattr__(self, "_core_form", self._to_core())

    def _to_core(self) -> tuple[Any, ...]:
        # Components expand into separate core arrays "name[i]".
        index: dict[str, list[int]] = {}
        core_names: list[str] = []
        temporary: list[bool] = []
        for a in self.arrays:
            ids = []
            for c in range(a.components):
                ids.append(len(core_names))
                core_names.append(a.name if a.components == 1 else f"{a.name}[{c}]")
                temporary.append(a.temporary)
            index[a.name] = ids
        loops = []
        for lp in self.loops:
            accesses: list[tuple[int, bool, list[Point]]] = []
            for k, pts in lp.read_points.items():
                accesses += [(i, False, list(pts)) for i in index[k]]
            for k, pt in lp.write_points.items():
                accesses += [(i, True, [pt]) for i in index[k]]
            loops.append((lp.name, accesses, lp.flops))
        return (self.name, core_names, temporary, loops)

    @property
    def core(self) -> tuple[Any, ...]:
        """The plain-data form the C++ core takes (components expanded)."""
        return self._core_form

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "") -> Kernel:
        """Build a kernel from the mapping layout of the kernel files.

        Parameters
        ----------
        data : mapping
            Keys ``name``, ``arrays`` (list of ``{name, temporary?, components?}``),
            ``loops`` (list of ``{name, reads, writes, flops?}``), optional
            ``description``, ``source``, ``schema_version``.
        where : str, optional
            Appended to error messages (e.g. the file name).

        Returns
        -------
        Kernel
            The kernel.

        Raises
        ------
        ValueError
            If a field is missing, unknown or invalid, or ``schema_version`` is not the one
            this version reads (``SCHEMA_VERSION``, 1).
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"kernel{where}: expected a mapping, got {type(data).__name__}")
        allowed = {"name", "arrays", "loops", "description", "source", "schema_version", "key"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ValueError(f"{unknown[0]}{where}: unknown field (known: {sorted(allowed)})")
        _check_schema_version(data, where)
        for required in ("name", "arrays", "loops"):
            if required not in data:
                raise ValueError(f"{required}{where}: required field is missing")
        arrays_in = data["arrays"]
        loops_in = data["loops"]
        if not isinstance(arrays_in, list) or not isinstance(loops_in, list):
            raise ValueError(f"arrays/loops{where}: must be lists")
        try:
            arrays = []
            for i, a in enumerate(arrays_in):
                if not isinstance(a, Mapping):
                    raise ValueError(f"arrays[{i}]: expected a mapping with 'name'")
                extra = sorted(set(a) - {"name", "temporary", "components"})
                if extra:
                    raise ValueError(f"arrays[{i}]: unknown field(s) {extra}")
                arrays.append(Array(**a))
            loops = []
            for i, lp in enumerate(loops_in):
                if not isinstance(lp, Mapping):
                    raise ValueError(f"loops[{i}]: expected a mapping")
                extra = sorted(set(lp) - {"name", "reads", "writes", "flops"})
                if extra:
                    raise ValueError(f"loops[{i}]: unknown field(s) {extra}")
                if "name" not in lp:
                    raise ValueError(f"loops[{i}]: 'name' is required")
                loops.append(
                    Loop(
                        name=lp["name"],
                        reads=lp.get("reads") or {},
                        writes=lp.get("writes") or [],
                        flops=lp.get("flops"),
                    )
                )
            return cls(
                name=data["name"],
                arrays=tuple(arrays),
                loops=tuple(loops),
                description=str(data.get("description", "")),
                source=str(data.get("source", "")),
            )
        except TypeError as exc:
            raise ValueError(f"{exc}{where}") from None
        except ValueError as exc:
            raise ValueError(f"{exc}{where}") from None

    def to_dict(self) -> dict[str, Any]:
        """Return the mapping layout of the kernel files (JSON-serializable).

        Returns
        -------
        dict
            Inverse of :meth:`from_dict`.
        """
        return {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "arrays": [
                {"name": a.name, "temporary": a.temporary, "components": a.components}
                for a in self.arrays
            ],
            "loops": [
                {
                    "name": lp.name,
                    "reads": {k: [list(p) for p in v] for k, v in lp.read_points.items()},
                    "writes": {k: list(v) for k, v in lp.write_points.items()},
                    "flops": lp.flops._asdict(),
                }
                for lp in self.loops
            ],
        }


# --------------------------------------------------------------------------------------
# Presets and files
# --------------------------------------------------------------------------------------


@record
class MachinePreset(Record):
    """A shipped machine description with its provenance.

    Parameters
    ----------
    key : str
        Lookup key, e.g. ``"hopper"``.
    name : str
        Display name.
    machine : Machine
        The model parameters.
    source, notes : str
        Where the numbers come from; readings and caveats.
    stream_bytes_per_s : float or None
        Measured STREAM bandwidth when the source gives one (not used by the model).
    """

    key: str
    name: str
    machine: Machine
    source: str = ""
    notes: str = ""
    stream_bytes_per_s: float | None = None


def _exasat_dir() -> Path:
    return data_dir() / "exasat"


def load_machine(path: str | Path) -> MachinePreset:
    """Read a machine description from a YAML file (layout: ``data/exasat/machines/``).

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    MachinePreset
        The machine and its metadata.

    Raises
    ------
    ValueError
        If the file is unreadable, a field is missing, unknown or invalid, or
        ``schema_version`` is not the one this version reads (``SCHEMA_VERSION``, 1).
    """
    p = Path(path)
    data = _read_mapping(p)
    where = f" in {p}"
    meta = {"key", "name", "source", "notes", "stream_bytes_per_s", "schema_version"}
    missing = [k for k in Machine._fields if k not in data]
    if missing:
        raise ValueError(f"{missing[0]}{where}: required field is missing")
    unknown = sorted(set(data) - set(Machine._fields) - meta)
    if unknown:
        raise ValueError(f"{unknown[0]}{where}: unknown field")
    try:
        m = Machine(**{k: data[k] for k in Machine._fields})
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{exc}{where}") from None
    stream = data.get("stream_bytes_per_s")
    return MachinePreset(
        key=str(data.get("key") or normalize_name(p.stem)),
        name=str(data.get("name", p.stem)),
        machine=m,
        source=str(data.get("source", "")),
        notes=str(data.get("notes", "")),
        stream_bytes_per_s=None if stream is None else float(stream),
    )


def load_kernel(path: str | Path) -> Kernel:
    """Read a kernel from a YAML or JSON file (layout: ``data/exasat/kernels/``).

    As :func:`load_machine`, for a :class:`Kernel`; a malformed file, or one with another
    ``schema_version``, raises ValueError naming the field and the file.
    """
    p = Path(path)
    return Kernel.from_dict(_read_mapping(p), f" in {p}")


def _preset_files(kind: str) -> dict[str, Path]:
    return {f.stem: f for f in sorted((_exasat_dir() / kind).glob("*.yaml"))}


def _find_preset(kind: str, name: str) -> Path:
    files = _preset_files(kind)
    key = normalize_name(name)
    for stem, path in files.items():
        if normalize_name(stem) == key:
            return path
    raise ValueError(f"{kind[:-1]}: unknown preset {name!r}; known: {sorted(files)}")


def machines() -> list[str]:
    """Return the keys of the shipped machine presets.

    Returns
    -------
    list of str
        Sorted keys, e.g. ``['hopper']``.
    """
    return sorted(_preset_files("machines"))


def kernels() -> list[str]:
    """Return the keys of the shipped kernel presets.

    Returns
    -------
    list of str
        Sorted keys (file names without ``.yaml``, normalized).
    """
    return sorted(_preset_files("kernels"))


def machine_preset(name: str) -> MachinePreset:
    """Return a shipped machine preset with its metadata.

    Parameters
    ----------
    name : str
        Preset key; case, spaces, dashes and underscores are ignored.

    Returns
    -------
    MachinePreset
        The preset.
    """
    return load_machine(_find_preset("machines", _name(name, "machine")))


def machine(name: str | Machine) -> Machine:
    """Return a machine: a :class:`Machine` passes through, a name loads the preset.

    Parameters
    ----------
    name : str or Machine
        Preset key (e.g. ``"hopper"``) or a machine.

    Returns
    -------
    Machine
        The machine.
    """
    if isinstance(name, Machine):
        return name
    return machine_preset(name).machine


def kernel(name: str | Kernel) -> Kernel:
    """Return a kernel: a :class:`Kernel` passes through, a name loads the preset.

    Parameters
    ----------
    name : str or Kernel
        Preset key (see :func:`kernels`) or a kernel.

    Returns
    -------
    Kernel
        The kernel.
    """
    if isinstance(name, Kernel):
        return name
    return load_kernel(_find_preset("kernels", _name(name, "kernel")))


_get_kernel = kernel  # for functions whose parameter is also called ``kernel``
_get_machine = machine


def with_cache(machine: str | Machine, cache_bytes: int) -> Machine:
    """Return a copy of a machine with another cache size.

    Parameters
    ----------
    machine : str or Machine
        The machine or preset key.
    cache_bytes : int
        The new cache size in bytes.

    Returns
    -------
    Machine
        The copy (validated).
    """
    fields = _get_machine(machine)._asdict()
    fields["cache_bytes"] = cache_bytes
    return Machine(**fields)


# --------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _box(box: BoxLike) -> Box:
    if isinstance(box, Box):
        return box
    if _is_int(box):
        edge = _convert.integer(box, "box")
        return Box(nx=edge, ny=edge, nz=edge)
    try:
        nx, ny, nz = _convert.int_sequence(box, "box", length=3)
    except TypeError:
        raise TypeError(f"box: expected an edge or (nx, ny, nz), got {box!r}") from None
    return Box(nx=nx, ny=ny, nz=nz)


def _blocking(block: object, box: Box, what: str = "block") -> Blocking:
    if block is None:
        return Blocking(bx=box.nx, by=box.ny)
    if _is_int(block):
        edge = _convert.integer(block, what)
        return Blocking(bx=edge, by=edge)
    try:
        bx, by = _convert.int_sequence(block, what, length=2)
    except TypeError:
        raise TypeError(f"{what}: expected None, an edge or (bx, by), got {block!r}") from None
    return Blocking(bx=bx, by=by)


def _groups(kernel: Kernel, fusion: Fusion) -> list[list[int]]:
    if isinstance(fusion, str):
        if fusion not in ("none", "simple", "aggressive"):
            raise ValueError(
                f"fusion: must be 'none', 'simple', 'aggressive' or a list of groups, "
                f"got {fusion!r}"
            )
        return [list(g) for g in _ex.fusion_groups(kernel.core, fusion)]
    if not isinstance(fusion, Sequence):
        raise TypeError(f"fusion: expected a strategy name or groups, got {fusion!r}")
    groups = []
    for g in fusion:
        if not isinstance(g, Sequence) or isinstance(g, str):
            raise TypeError(f"fusion: each group is a list of loop indices, got {g!r}")
        groups.append(_convert.int_sequence(g, "fusion group", max_len=_ex.MAX_LOOPS))
    return groups


def fusion_groups(kernel: str | Kernel, fusion: Fusion = "none") -> list[list[int]]:
    """Return the loop groups of a fusion strategy (Sec. 5.2).

    Parameters
    ----------
    kernel : str or Kernel
        The kernel.
    fusion : {"none", "simple", "aggressive"} or list of lists of int
        ``none``: every loop alone; ``simple``: consecutive loops fused unless a stencil
        dependency links them; ``aggressive``: all loops fused. Explicit groups must list
        every loop once, in order.

    Returns
    -------
    list of list of int
        Loop indices per fused loop nest.
    """
    return _groups(_get_kernel(kernel), fusion)


def _blockings(block: BlocksLike, box: Box, n_groups: int) -> list[Blocking]:
    # A list whose entries are not all integers gives one blocking per group.
    if isinstance(block, list) and any(not _is_int(b) for b in block):
        if len(block) != n_groups:
            raise ValueError(f"block: one entry per group ({n_groups}) expected, got {len(block)}")
        return [_blocking(b, box, f"block[{i}]") for i, b in enumerate(block)]
    return [_blocking(block, box)]


def estimate(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    *,
    fusion: Fusion = "none",
    block: BlocksLike = None,
    level: int | str | None = None,
) -> Estimate:
    """Estimate weighted flops, DRAM traffic, time and bytes per flop (Sec. 4.2).

    Parameters
    ----------
    kernel : str or Kernel
        Kernel or preset key.
    machine : str or Machine
        Machine or preset key.
    box : int or (nx, ny, nz) or Box
        The box every loop sweeps.
    fusion : str or list of groups, optional
        See :func:`fusion_groups` (default ``"none"``).
    block : None, int, (bx, by), or a list with one entry per group, optional
        Cache blocking of X and Y (default: the whole box, no blocking). Edges above the
        box are clamped to it.
    level : int or str, optional
        Force a reuse level (``0..3`` or ``"none"``, ``"cell"``, ``"pencil"``,
        ``"plane"``) instead of the highest one whose working set fits the cache.

    Returns
    -------
    Estimate
        ``weighted_flops`` (C), ``traffic_bytes`` (D), ``t_s`` = max(C/alpha, D/beta),
        ``bytes_per_flop`` and one :class:`GroupResult` per fused loop nest.
    """
    kk = _get_kernel(kernel)
    mm = _get_machine(machine)
    b = _box(box)
    groups = _groups(kk, fusion)
    force = _level(level)
    return _ex.evaluate(kk.core, mm, b, groups, _blockings(block, b, len(groups)), force)


def _level(level: int | str | None) -> int:
    if level is None:
        return -1
    if isinstance(level, str):
        if level not in LEVELS:
            raise ValueError(f"level: must be one of {list(LEVELS)}, got {level!r}")
        return LEVELS.index(level)
    if not _is_int(level):
        raise TypeError(f"level: expected an int or a level name, got {level!r}")
    return _convert.integer(level, "level", lo=0, hi=3)


def _candidates(box: Box, candidates: Sequence[int] | None) -> list[int]:
    if candidates is None:
        top = max(box.nx, box.ny)
        out = [1 << i for i in range(0, 21) if (1 << i) < top] + [top]
        return out
    return _convert.int_sequence(candidates, "candidates", max_len=_ex.MAX_BLOCK_CANDIDATES)


def best_blocking(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    *,
    fusion: Fusion = "none",
    candidates: Sequence[int] | None = None,
) -> Estimate:
    """Estimate with, per fused loop nest, the blocking of least traffic (Fig. 13).

    Parameters
    ----------
    kernel, machine, box, fusion
        As in :func:`estimate`.
    candidates : sequence of int, optional
        Candidate block edges for X and for Y (default: powers of two below the box edge,
        and the box edge).

    Returns
    -------
    Estimate
        The estimate at the chosen blockings (see ``groups[i].bx``, ``.by``).
    """
    kk = _get_kernel(kernel)
    b = _box(box)
    return _ex.best_blocking(
        kk.core, _get_machine(machine), b, _groups(kk, fusion), _candidates(b, candidates)
    )


def simulate(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    *,
    fusion: Fusion = "none",
    block: BlocksLike = None,
    max_accesses: int = _ex.DEFAULT_MAX_SIM_ACCESSES,
) -> Simulation:
    """Run the kernel's access stream through a fully associative LRU cache.

    The brute-force check of the working-set rules (docs/exasat.md): same loop order,
    blocking, fusion stagger and write policy as the model, word addresses of ghost-padded
    arrays, ``machine.cache_bytes`` of ``machine.line_bytes`` lines.

    Parameters
    ----------
    kernel, machine, box, fusion, block
        As in :func:`estimate`.
    max_accesses : int, optional
        Refuse streams longer than this (default 2e7; at most 4e8).

    Returns
    -------
    Simulation
        Bytes read, written, and per group.

    Raises
    ------
    ValueError
        If the stream is longer than ``max_accesses``.
    """
    kk = _get_kernel(kernel)
    b = _box(box)
    groups = _groups(kk, fusion)
    return _ex.simulate_lru(
        kk.core, _get_machine(machine), b, groups, _blockings(block, b, len(groups)), max_accesses
    )


def simulate_sweep(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    cache_bytes: Sequence[int],
    *,
    fusion: Fusion = "none",
    block: BlocksLike = None,
    max_accesses: int = _ex.DEFAULT_MAX_SIM_ACCESSES,
    threads: int = 0,
) -> list[Simulation]:
    """Run :func:`simulate` for several cache sizes, in parallel.

    Parameters
    ----------
    kernel, machine, box, fusion, block, max_accesses
        As in :func:`simulate`.
    cache_bytes : sequence of int
        Cache sizes in bytes (each at least one line).
    threads : int, optional
        Worker threads (0: all cores).

    Returns
    -------
    list of Simulation
        One per cache size.
    """
    kk = _get_kernel(kernel)
    b = _box(box)
    groups = _groups(kk, fusion)
    return list(
        _ex.simulate_lru_sweep(
            kk.core,
            _get_machine(machine),
            b,
            groups,
            _blockings(block, b, len(groups)),
            _convert.int_sequence(cache_bytes, "cache_bytes", max_len=_ex.MAX_CACHE_SIZES),
            max_accesses,
            threads,
        )
    )


def weighted_flops(flops: Flops | Mapping[str, float], machine: str | Machine) -> float:
    """Weighted flops of one cell: adds + muls + w_div divides + w_trans transcendentals.

    Parameters
    ----------
    flops : Flops or mapping
        Operation counts; a mapping's keys are ``Flops`` fields (``adds``, ``muls``,
        ``divides``, ``transcendentals``), missing ones 0.
    machine : str or Machine
        Supplies the weights (seed: 39 and 125, Fig. 7).

    Returns
    -------
    float
        The weighted count.

    Raises
    ------
    TypeError
        If ``flops`` is neither a ``Flops`` nor a mapping.
    ValueError
        If a key of ``flops`` is not a ``Flops`` field.
    OverflowError
        If the weighted count is not finite (counts or weights too large).
    """
    return float(_ex.weighted_flops(_as_flops(flops, "flops"), _get_machine(machine)))


def peak_bytes_per_flop(machine: str | Machine) -> float:
    """Machine balance beta / alpha in bytes per flop (Table 2's peak B/F ratio).

    Parameters
    ----------
    machine : str or Machine
        The machine.

    Returns
    -------
    float
        Bytes per flop.

    Raises
    ------
    OverflowError
        If the ratio is not finite (``alpha_flops_per_s`` too small for ``beta_bytes_per_s``).
    """
    return float(_ex.peak_bytes_per_flop(_get_machine(machine)))


def footprint_words(block: Sequence[int] | npt.NDArray[np.integer[Any]], points: object) -> int:
    """Distinct words a block of cells touches through a stencil (block + points).

    Parameters
    ----------
    block : (bx, by, bz)
        Block edges in cells.
    points : stencil
        See :func:`stencil_points`.

    Returns
    -------
    int
        The number of words.

    Raises
    ------
    TypeError
        If ``block`` is not a sequence of integers, or ``points`` not a stencil.
    ValueError
        If ``block`` does not have 3 entries, or for an invalid stencil or edge.
    """
    edges = _convert.int_sequence(block, "block", length=3)
    return int(_ex.footprint_words(edges, list(stencil_points(points))))


# --------------------------------------------------------------------------------------
# Sweeps and figures
# --------------------------------------------------------------------------------------


def bytes_per_flop_vs_block(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    blocks: Sequence[int],
    cache_bytes: Sequence[int | None],
    *,
    fusion: Fusion = "none",
) -> npt.NDArray[np.float64]:
    """Bytes per flop over square X/Y blocks and cache sizes (Fig. 10 style).

    Parameters
    ----------
    kernel, machine, box, fusion
        As in :func:`estimate`.
    blocks : sequence of int
        Block edges (bx = by).
    cache_bytes : sequence of int or None
        Cache sizes; None is an unlimited cache (plane reuse).

    Returns
    -------
    ndarray, shape (len(cache_bytes), len(blocks))
        Bytes per weighted flop.
    """
    edges = _convert.int_sequence(blocks, "blocks", max_len=_ex.MAX_BLOCK_CANDIDATES)
    if isinstance(cache_bytes, (str, bytes)) or not isinstance(cache_bytes, (Sequence, np.ndarray)):
        raise TypeError(
            f"cache_bytes: expected a sequence of int or None, got {type(cache_bytes).__name__} "
            f"{cache_bytes!r}"
        )
    out = np.empty((len(cache_bytes), len(edges)))
    for i, c in enumerate(cache_bytes):
        mm = _get_machine(machine) if c is None else with_cache(machine, c)
        for j, bsize in enumerate(edges):
            e = estimate(
                kernel, mm, box, fusion=fusion, block=bsize, level=3 if c is None else None
            )
            out[i, j] = e.bytes_per_flop
    return out


@record
class TrafficCurves(Record):
    """Bytes per weighted flop against cache size (Figs. 13-14 style).

    Attributes
    ----------
    cache_bytes : numpy.ndarray
        The cache sizes, bytes.
    baseline : numpy.ndarray
        Unfused, unblocked, per cache size.
    best_blocking : dict of str to numpy.ndarray
        Per fusion strategy, with the best blocking at each cache size.
    """

    cache_bytes: npt.NDArray[np.int64]
    baseline: npt.NDArray[np.float64]
    best_blocking: dict[str, npt.NDArray[np.float64]]


def traffic_vs_cache(
    kernel: str | Kernel,
    machine: str | Machine,
    box: BoxLike,
    cache_bytes: Sequence[int],
    *,
    strategies: Sequence[FusionStrategy] = ("none", "simple", "aggressive"),
    candidates: Sequence[int] | None = None,
) -> TrafficCurves:
    """Bytes per flop vs cache size, best blocking per point (Figs. 13-14 style).

    Parameters
    ----------
    kernel, machine, box
        As in :func:`estimate`.
    cache_bytes : sequence of int
        Cache sizes in bytes.
    strategies : sequence of str, optional
        Fusion strategies to evaluate with the best blocking (a list, even for one).
    candidates : sequence of int, optional
        Block edges searched (see :func:`best_blocking`).

    Returns
    -------
    TrafficCurves
        The baseline (unfused, unblocked) and, per strategy, the best blocking; each of
        shape (len(cache_bytes),).

    Raises
    ------
    TypeError
        If ``strategies`` is not a sequence of strings (a bare ``str`` is not: it would be
        read letter by letter), or another argument has the wrong type.
    ValueError
        For an unknown strategy, or as :func:`estimate` and :func:`best_blocking`.
    """
    caches = _convert.int_sequence(cache_bytes, "cache_bytes", max_len=_ex.MAX_CACHE_SIZES)
    names = [
        _convert.choice(x, f"strategies[{i}]", _FUSION_STRATEGIES)
        for i, x in enumerate(_sequence(strategies, "strategies"))
    ]
    baseline = np.array(
        [estimate(kernel, with_cache(machine, c), box).bytes_per_flop for c in caches]
    )
    best: dict[str, npt.NDArray[np.float64]] = {}
    for s in names:
        best[s] = np.array(
            [
                best_blocking(
                    kernel,
                    with_cache(machine, c),
                    box,
                    fusion=cast(FusionStrategy, s),
                    candidates=candidates,
                ).bytes_per_flop
                for c in caches
            ]
        )
    return TrafficCurves(np.asarray(caches, dtype=np.int64), baseline, best)
