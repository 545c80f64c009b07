"""Silicon area of GPU accelerators (thesis 000, Appendix C, Eqs. C.4-C.7).

Every formula lives in the C++ core (``cpp/src/area.cpp``); this module loads the
calibration constants from ``data/area/maxwell.yaml``, converts arguments and vectorizes.

Areas are in mm^2 and memory sizes in kB (1 kB = 1024 bytes). ``coefficients="structural"``
evaluates Eq. C.6 with the unrounded constants of Sec. C.2.2; ``"rounded"`` evaluates the
published Eq. C.7. A cache of size zero contributes no area (its overhead term included)
in the structural form; Eq. C.7 folds alpha_L2 into its per-SM constant, so there it
cannot be removed (``docs/area.md``).
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from functools import cache
from typing import Any, Literal, Union, overload

import numpy as np
import numpy.typing as npt

from costmetrics import _convert, _core
from costmetrics._core.area import (
    AreaBreakdown,
    Coefficients,
    Config,
    DieCalibration,
    LinearFit,
    RoundedCoefficients,
)
from costmetrics._record import Record, record
from costmetrics.presets import data_dir, normalize_name, seed_file, seed_values
from costmetrics.presets import gpu as gpu_preset

__all__ = [
    "AreaBreakdown",
    "Coefficients",
    "DieCalibration",
    "LinearFit",
    "ReferenceGpu",
    "RoundedCoefficients",
    "ValidationRow",
    "breakdown",
    "calibrate_die",
    "coefficients",
    "die_area",
    "fit_memory",
    "reference_gpu",
    "reference_gpus",
    "rounded_coefficients",
    "validation",
]

_core_area = _core.area

Form = Literal["structural", "rounded"]
CoefficientsArg = Union[Form, Coefficients, RoundedCoefficients]
ArrayLike = Union[int, float, Sequence[float], npt.NDArray[Any]]


def _area_models() -> list[str]:
    # The model files of data/area/ (seed_values.yaml holds the seed's numbers, not a model).
    return sorted(p.stem for p in (data_dir() / "area").glob("*.yaml") if p.stem != "seed_values")


@cache
def _model_file(name: str) -> dict[str, Any]:
    # The name is looked up among the files, never joined into a path: a name such as
    # "../codesign/x" or an absolute path must not reach another folder's YAML.
    known = _area_models()
    key = normalize_name(name)
    if key not in known:
        raise ValueError(f"model: unknown area model {name!r}; known: {known}")
    data = seed_file("area", key)
    if "structural" not in data or "rounded" not in data:
        raise ValueError(f"data/area/{key}.yaml: expected 'structural' and 'rounded' sections")
    return data


def coefficients(model: str = "maxwell") -> Coefficients:
    """Return the constants of the structural model (Eq. C.6, Sec. C.2.2).

    Parameters
    ----------
    model : str
        Name of a file in ``data/area/`` (default ``"maxwell"``).

    Returns
    -------
    Coefficients
        beta_R, alpha_R, beta_M, alpha_M, beta_L1, alpha_L1, beta_L2, alpha_L2, beta_VU,
        alpha_oh.

    Raises
    ------
    TypeError
        If ``model`` is not a string.
    ValueError
        If ``data/area/`` has no model of that name.
    """
    return Coefficients(**_model_file(_convert.string(model, "model"))["structural"])


def rounded_coefficients(model: str = "maxwell") -> RoundedCoefficients:
    """Return the six constants of the published rounded form (Eq. C.7).

    ``model`` names the file, as for :func:`coefficients`.
    """
    return RoundedCoefficients(**_model_file(_convert.string(model, "model"))["rounded"])


@record
class ReferenceGpu(Record):
    """A Maxwell GPU the area model is calibrated on or validated against (Sec. C.2).

    Attributes
    ----------
    key : str
        Preset key, ``"gtx980"`` or ``"titanx"``.
    name : str
        Display name.
    n_sm, n_v : int
        SMs and vector units per SM.
    smem_kb, regs_kb_per_vu, l1_kb_per_pair, l2_kb : float
        Memory sizes in kB.
    published_die_mm2 : float
        Published die area.
    seed_model_mm2 : float or None
        The seed's model prediction, where printed (Titan X: 589.2).
    seed_cacheless_mm2 : float or None
        The seed's cache-less area (Sec. C.4.1: 237 and 356).
    """

    key: str
    name: str
    n_sm: int
    n_v: int
    smem_kb: float
    regs_kb_per_vu: float
    l1_kb_per_pair: float
    l2_kb: float
    published_die_mm2: float
    seed_model_mm2: float | None
    seed_cacheless_mm2: float | None

    def config(self, *, caches: bool | np.bool_ = True) -> Config:
        """Return this GPU as a ``_core.area.Config`` of Eq. C.6 (with or without caches).

        Parameters
        ----------
        caches : bool
            Keep the L1 and L2 caches (default) or remove them (Sec. C.4.1). A NumPy
            bool is accepted too; anything else raises TypeError.

        Returns
        -------
        Config
            Its configuration, memory sizes in kB.

        Raises
        ------
        TypeError
            If ``caches`` is not ``True`` or ``False`` (``"False"`` would be truthy).
        """
        with_caches = _convert.boolean(caches, "caches")
        return Config(
            n_sm=self.n_sm,
            n_v=self.n_v,
            smem_kb=self.smem_kb,
            regs_kb_per_vu=self.regs_kb_per_vu,
            l1_kb_per_pair=self.l1_kb_per_pair if with_caches else 0.0,
            l2_kb=self.l2_kb if with_caches else 0.0,
        )

    def area(
        self, *, caches: bool | np.bool_ = True, coefficients: CoefficientsArg = "structural"
    ) -> float:
        """Model area of this configuration, with or without its L1 and L2 caches.

        Parameters
        ----------
        caches : bool
            Include the L1 and L2 caches (default) or remove them (Sec. C.4.1). A NumPy
            bool is accepted too; anything else raises TypeError.
        coefficients : {"structural", "rounded"} or coefficient record
            Eq. C.6 (default) or Eq. C.7.

        Returns
        -------
        float
            Area in mm^2.

        Raises
        ------
        TypeError
            If ``caches`` is not ``True`` or ``False`` (``"False"`` would be truthy).
        """
        with_caches = _convert.boolean(caches, "caches")
        return float(
            die_area(
                self.n_sm,
                self.n_v,
                self.smem_kb,
                regs_kb_per_vu=self.regs_kb_per_vu,
                l1_kb_per_pair=self.l1_kb_per_pair if with_caches else 0.0,
                l2_kb=self.l2_kb if with_caches else 0.0,
                coefficients=coefficients,
            )
        )


#: The area model's register file per vector unit: registers_per_sm 32-bit registers
#: shared by n_v vector units (Sec. C.2.1: 512 registers = 2 kB).
_BYTES_PER_REGISTER = 4
_BYTES_PER_KB = 1024


@cache
def reference_gpus() -> dict[str, ReferenceGpu]:
    """Return the GPUs of ``data/gpus/`` with a silicon section, in the area model's units.

    A GPU is described once, in bytes, in its ``data/gpus/<key>.yaml`` (the time model's
    fields and the ``silicon`` section of Appendix C); this is its view in kB. The seed's
    own area figures for them are in ``data/area/seed_values.yaml``.

    Returns
    -------
    dict of str to ReferenceGpu
        Keyed by preset key: ``"gtx980"`` and ``"titanx"``.
    """
    seed = seed_values("area")
    out: dict[str, ReferenceGpu] = {}
    for path in sorted((data_dir() / "gpus").glob("*.yaml")):
        data = seed_file("gpus", path.stem)
        if "silicon" not in data:
            continue
        g = gpu_preset(data["key"])
        silicon = data["silicon"]
        out[g.key] = ReferenceGpu(
            key=g.key,
            name=g.name,
            n_sm=g.n_sm,
            n_v=g.n_v,
            smem_kb=g.smem_per_sm_bytes / _BYTES_PER_KB,
            regs_kb_per_vu=g.registers_per_sm * _BYTES_PER_REGISTER / g.n_v / _BYTES_PER_KB,
            l1_kb_per_pair=silicon["l1_per_sm_pair_bytes"] / _BYTES_PER_KB,
            l2_kb=silicon["l2_bytes"] / _BYTES_PER_KB,
            published_die_mm2=float(silicon["die_mm2"]),
            seed_model_mm2=_optional_float(seed.get(f"{g.key}_model_mm2")),
            seed_cacheless_mm2=_optional_float(seed.get(f"{g.key}_cacheless_mm2")),
        )
    return out


def _optional_float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def reference_gpu(name: str) -> ReferenceGpu:
    """Return one reference configuration by key (``"gtx980"`` or ``"titanx"``).

    Parameters
    ----------
    name : str
        Key; case, spaces, dashes and underscores are ignored.

    Returns
    -------
    ReferenceGpu
        The configuration.

    Raises
    ------
    ValueError
        If no reference GPU has that key.
    """
    return _reference_gpu(name, "name")


def _reference_gpu(name: object, param: str) -> ReferenceGpu:
    # reference_gpu with the caller's parameter name in the messages (calibrate_die: `gpu`).
    if not isinstance(name, str):
        raise TypeError(f"{param}: expected a str, got {type(name).__name__}")
    key = normalize_name(name)
    gpus = reference_gpus()
    if key not in gpus:
        raise ValueError(f"{param}: no reference GPU {name!r}; known: {sorted(gpus)}")
    return gpus[key]


def _resolve_coefficients(coefficients: object) -> tuple[str, Any]:
    if isinstance(coefficients, str):
        if coefficients == "structural":
            return "structural", globals()["coefficients"]()
        if coefficients == "rounded":
            return "rounded", rounded_coefficients()
        raise ValueError(
            f"coefficients: must be 'structural', 'rounded' or a coefficient record, "
            f"got {coefficients!r}"
        )
    if isinstance(coefficients, Coefficients):
        return "structural", coefficients
    if isinstance(coefficients, RoundedCoefficients):
        return "rounded", coefficients
    raise TypeError(
        "coefficients: expected 'structural', 'rounded', Coefficients or RoundedCoefficients, "
        f"got {type(coefficients).__name__}"
    )


def _as_array(value: object, name: str, integer: bool) -> npt.NDArray[Any]:
    arr = _convert.number_array(value, name, real=not integer)
    if integer:
        if arr.dtype.kind == "f":
            # As breakdown's Config (and every count of the other families): 16.0 is not
            # a count of SMs, whether or not it is integral.
            raise TypeError(f"{name}: expected integers, got {_convert._describe(value)}")
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise OverflowError(f"{name}: {int(arr.max())} does not fit a signed 64-bit integer")
        if np.any(np.abs(arr.astype(np.float64)) > 2**24):
            raise ValueError(f"{name}: must be in [1, 2^24], got {value!r}")
        return arr.astype(np.int64)
    out = arr.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return out


@overload
def die_area(
    n_sm: int,
    n_v: int,
    smem_kb: float,
    *,
    regs_kb_per_vu: float = ...,
    l1_kb_per_pair: float = ...,
    l2_kb: float = ...,
    coefficients: CoefficientsArg = ...,
) -> float: ...
@overload
def die_area(
    n_sm: ArrayLike,
    n_v: ArrayLike,
    smem_kb: ArrayLike,
    *,
    regs_kb_per_vu: ArrayLike = ...,
    l1_kb_per_pair: ArrayLike = ...,
    l2_kb: ArrayLike = ...,
    coefficients: CoefficientsArg = ...,
) -> float | npt.NDArray[np.float64]: ...
def die_area(
    n_sm: ArrayLike,
    n_v: ArrayLike,
    smem_kb: ArrayLike,
    *,
    regs_kb_per_vu: ArrayLike = 2.0,
    l1_kb_per_pair: ArrayLike = 0.0,
    l2_kb: ArrayLike = 0.0,
    coefficients: CoefficientsArg = "structural",
) -> float | npt.NDArray[np.float64]:
    """Total die area A_tot of a GPU configuration (Eq. C.6, or Eq. C.7), in mm^2.

    Every argument may be a scalar or a NumPy array; they broadcast together, and the
    result is a float for scalar inputs, an array otherwise.

    Parameters
    ----------
    n_sm : int or array
        Number of SMs (>= 1).
    n_v : int or array
        Vector units per SM (>= 1).
    smem_kb : float or array
        Shared memory per SM, kB (>= 0).
    regs_kb_per_vu : float or array
        Register file per vector unit, kB (default 2: 512 32-bit registers, Sec. C.2.1).
    l1_kb_per_pair : float or array
        L1 cache per SM pair, kB (default 0: no L1).
    l2_kb : float or array
        L2 cache, kB (default 0: no L2).
    coefficients : {"structural", "rounded"} or Coefficients or RoundedCoefficients
        Eq. C.6 with the constants of Sec. C.2.2 (default), the printed Eq. C.7, or
        user-calibrated constants.

    Returns
    -------
    float or numpy.ndarray
        Area in mm^2.

    Raises
    ------
    ValueError
        On a non-positive count or a negative or non-finite size.
    TypeError
        On non-numeric input.
    OverflowError
        If the area is not finite (sizes too large).
    """
    _, coeffs = _resolve_coefficients(coefficients)
    arrays = [
        _as_array(n_sm, "n_sm", True),
        _as_array(n_v, "n_v", True),
        _as_array(smem_kb, "smem_kb", False),
        _as_array(regs_kb_per_vu, "regs_kb_per_vu", False),
        _as_array(l1_kb_per_pair, "l1_kb_per_pair", False),
        _as_array(l2_kb, "l2_kb", False),
    ]
    scalar = all(a.ndim == 0 for a in arrays)
    try:
        b = np.broadcast_arrays(*arrays)
    except ValueError:
        raise ValueError("die_area: arguments do not broadcast to one shape") from None
    shape = b[0].shape
    flat = [np.ascontiguousarray(x.reshape(-1)) for x in b]
    try:
        out = np.asarray(_core_area.die_area_batch(coeffs, *flat), dtype=np.float64).reshape(shape)
    except (ValueError, OverflowError) as exc:
        # The core names the element ("[3] n_v: ..."); a scalar call has only one.
        message = str(exc)
        raise type(exc)(message[4:] if scalar and message.startswith("[0] ") else message) from None
    return float(out) if scalar else out


def breakdown(
    n_sm: int,
    n_v: int,
    smem_kb: float,
    *,
    regs_kb_per_vu: float = 2.0,
    l1_kb_per_pair: float = 0.0,
    l2_kb: float = 0.0,
    coefficients: Coefficients | Literal["structural"] = "structural",
) -> AreaBreakdown:
    """Every term of Eq. C.6 for one configuration.

    Parameters
    ----------
    n_sm, n_v : int
        SMs and vector units per SM.
    smem_kb, regs_kb_per_vu, l1_kb_per_pair, l2_kb : float
        Memory sizes in kB (see :func:`die_area`).
    coefficients : "structural" or Coefficients
        Structural constants (default: :func:`coefficients`). Eq. C.7 (``"rounded"``) is
        one sum per configuration without separate terms, so it has no breakdown.

    Returns
    -------
    AreaBreakdown
        vector_units_mm2, registers_mm2, shared_memory_mm2, l1_mm2, l2_mm2, overhead_mm2,
        total_mm2.
    """
    config = _core_area.Config(
        n_sm=n_sm,
        n_v=n_v,
        smem_kb=smem_kb,
        regs_kb_per_vu=regs_kb_per_vu,
        l1_kb_per_pair=l1_kb_per_pair,
        l2_kb=l2_kb,
    )
    form, coeffs = _resolve_coefficients(coefficients)
    if form != "structural":
        raise ValueError(
            "coefficients: breakdown needs the structural model (Eq. C.6); Eq. C.7 "
            "('rounded') has no separate terms: use die_area(..., coefficients='rounded')"
        )
    return _core_area.structural(coeffs, config)


def fit_memory(size_kb: Sequence[float], area_mm2: Sequence[float]) -> LinearFit:
    """Least-squares linear model area = beta size + alpha of one memory type (Sec. C.2.2).

    The seed fitted CACTI estimates this way (registers 0.5-8 kB, shared memory 24-384 kB,
    L1 3-96 kB, L2 32-512 kB per SM); its data points are not printed.

    Parameters
    ----------
    size_kb : sequence of float
        Memory sizes, kB.
    area_mm2 : sequence of float
        Areas, mm^2, same length.

    Returns
    -------
    LinearFit
        slope (beta), intercept (alpha), r_squared, rmse, n_points.

    Raises
    ------
    TypeError
        An argument that is not a sequence of numbers.
    ValueError
        Fewer than 2 points, fewer than 2 distinct sizes, mismatched lengths, a size that is
        not finite and >= 0, an area that is not finite and > 0.
    OverflowError
        Points so large that the fit is not finite.
    """
    xs = _points(size_kb, "size_kb")
    ys = _points(area_mm2, "area_mm2")
    return _core_area.fit_linear(xs, ys)


#: The most points :func:`fit_memory` reads (a memory-area table has tens; ten million
#: points took 1.5 GB, so a longer sequence is refused before it is read whole).
MAX_FIT_POINTS = 1 << 20


def _points(values: object, name: str) -> list[float]:
    if isinstance(values, Sized) and not isinstance(values, (str, bytes, np.ndarray)):
        if len(values) > MAX_FIT_POINTS:
            raise ValueError(f"{name}: at most {MAX_FIT_POINTS} points, got {len(values)}")
    arr = _as_array(values, name, False)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of numbers, got shape {arr.shape}")
    if arr.size > MAX_FIT_POINTS:
        raise ValueError(f"{name}: at most {MAX_FIT_POINTS} points, got {arr.size}")
    return [float(x) for x in arr]


def calibrate_die(
    gpu: str = "gtx980", *, overhead_mm2: float = 102.65, die_mm2: float | None = None
) -> DieCalibration:
    """Derive alpha_oh from a measured overhead region and beta_VU from the die (Sec. C.2.2).

    Parameters
    ----------
    gpu : str
        Reference GPU key (default the GTX 980, the calibration die).
    overhead_mm2 : float
        Measured overhead region (I/O, controllers; the seed: 102.65 mm^2).
    die_mm2 : float, optional
        Die area (default: the published one).

    Returns
    -------
    DieCalibration
        alpha_oh_mm2 = overhead / nSM, and beta_vu_from_die_mm2, the vector-unit area
        that would close Eq. C.6 on the die (compare the measured 0.04282).

    Raises
    ------
    TypeError
        If ``overhead_mm2`` or ``die_mm2`` is not a real number.
    ValueError
        If ``overhead_mm2`` is negative or ``die_mm2`` not positive (either non-finite), or
        the die is smaller than its registers, memories and overhead (a negative beta_VU).
    """
    overhead = _convert.real(overhead_mm2, "overhead_mm2")
    die = None if die_mm2 is None else _convert.real(die_mm2, "die_mm2")
    g = _reference_gpu(gpu, "gpu")
    if die is None:
        die = g.published_die_mm2
    return _core_area.calibrate_die(coefficients(), g.config(), die, overhead)


@record
class ValidationRow(Record):
    """Model area of a reference GPU beside the published and seed values (Sec. C.2.3).

    Attributes
    ----------
    gpu : str
        Reference GPU key.
    caches : bool
        With the L1/L2 caches, or without (the cache-less variant of Sec. C.4.1).
    structural_mm2, rounded_mm2 : float
        Eq. C.6 and Eq. C.7.
    published_mm2 : float or None
        Published die area (with caches only).
    seed_mm2 : float or None
        What the seed prints for this case.
    """

    gpu: str
    caches: bool
    structural_mm2: float
    rounded_mm2: float
    published_mm2: float | None
    seed_mm2: float | None

    def error_percent(self, form: Form = "structural") -> float | None:
        """Relative error of the model against the published die, percent."""
        if self.published_mm2 is None:
            return None
        model = self.structural_mm2 if form == "structural" else self.rounded_mm2
        return (model - self.published_mm2) / self.published_mm2 * 100.0


def validation() -> list[ValidationRow]:
    """Model vs published areas of the GTX 980 and Titan X, with and without caches.

    Returns
    -------
    list of ValidationRow
        Four rows: (gtx980, titanx) x (caches, cache-less).
    """
    rows = []
    for key, g in reference_gpus().items():
        for caches in (True, False):
            rows.append(
                ValidationRow(
                    gpu=key,
                    caches=caches,
                    structural_mm2=g.area(caches=caches),
                    rounded_mm2=g.area(caches=caches, coefficients="rounded"),
                    published_mm2=g.published_die_mm2 if caches else None,
                    seed_mm2=g.seed_model_mm2 if caches else g.seed_cacheless_mm2,
                )
            )
    return rows
