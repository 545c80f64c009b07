"""The API conventions (docs/api-conventions.md), checked on every model family.

Like scikit-learn's estimator checks, this file walks each family's public API so that a
new family follows the conventions by passing it, not by review:

- signatures: positional arguments in the order (what is computed on, machine, sizes,
  tiles); the concept keywords (``variant``, ``params``, ``threads``, ``within``,
  ``space``, ``train_fraction``) keyword-only and never spelled otherwise; ``variant``
  defaults to ``"exact"`` everywhere;
- return kinds: records (or numbers, arrays, strings, lists of records), never bare dicts
  or tuples, except the documented kinds in ``RETURN_EXCEPTIONS``;
- results: one sample call per family; every record in the result pickles, compares equal
  to its copy and to a recomputation, has ``_fields``, ``_asdict()`` and a readable repr;
- a Hypothesis campaign per family: one argument of the sample call replaced by a bad or
  extreme value gives a finite result or TypeError / ValueError / OverflowError.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import pickle
import typing
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics._record import Record

FAMILIES = tuple(f for f in cm._LAZY_SUBMODULES if f != "explore")
#: Keywords that name one concept each; anything else spelling the same concept is wrong.
CONCEPT_KEYWORDS = {"variant", "params", "threads", "within", "space", "train_fraction"}
FORBIDDEN_NAMES = {
    "n_threads": "threads",
    "nthreads": "threads",
    "num_threads": "threads",
    "test_fraction": "train_fraction",
}
#: Positional roles, in the order they must come.
ROLES = (
    {"stencil", "kernel", "workload", "problem", "table", "runs", "dims", "stencils"},
    {"gpu", "machine", "calibration"},
    {"sizes"},
    {"tiles"},
)
#: Public functions whose result is legitimately not a record, and why.
RETURN_EXCEPTIONS = {
    ("energy", "table_b2"): "the parsed seed file (data loader)",
    ("spu", "load_seed"): "the parsed seed file (data loader)",
    ("measure", "machine_record"): "a free-form description written into file headers",
    ("exasat", "stencil_points"): "a stencil's points: a tuple of (x, y, z) offsets",
    ("energy", "model_rmse_pct"): "one number per kernel name",
    ("validate", "selection_summary"): "one number per statistic name (JSON-ready)",
    ("validate", "variants"): "the names of the variants a report holds",
    ("validate", "bootstrap_rmse"): "a (low, high) confidence interval",
}


def _public_functions(module: ModuleType) -> list[tuple[str, Callable[..., Any]]]:
    out: list[tuple[str, Callable[..., Any]]] = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            out.append((name, obj))
    return out


def _family(name: str) -> ModuleType:
    return importlib.import_module(f"costmetrics.{name}")


ALL_FUNCTIONS = [
    pytest.param(fam, name, fn, id=f"{fam}.{name}")
    for fam in FAMILIES
    for name, fn in _public_functions(_family(fam))
]


def test_every_family_is_walked() -> None:
    assert set(FAMILIES) == {
        "time", "chain", "energy", "exasat", "measure", "validate", "spu", "scratchpad",
        "area", "codesign",
    }  # fmt: skip
    assert len(ALL_FUNCTIONS) > 100


@pytest.mark.parametrize(("family", "name", "fn"), ALL_FUNCTIONS)
def test_signature_follows_the_conventions(family: str, name: str, fn: Callable[..., Any]) -> None:
    params = list(inspect.signature(fn).parameters.values())
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for p in params:
        assert p.name not in FORBIDDEN_NAMES, (
            f"{family}.{name}: parameter {p.name!r} is spelled {FORBIDDEN_NAMES[p.name]!r}"
        )
        if p.name in CONCEPT_KEYWORDS:
            assert p.kind == p.KEYWORD_ONLY, f"{family}.{name}: {p.name!r} must be keyword-only"
        if p.name == "variant":
            assert p.default == "exact", f"{family}.{name}: the default variant is 'exact'"
    if family == "exasat":
        assert not {"k", "m"} & {p.name for p in params}, "exasat: kernel and machine"
    roles = [i for n in positional for i, names in enumerate(ROLES) if n in names]
    assert roles == sorted(roles), (
        f"{family}.{name}: positional order {positional} is not (what, machine, sizes, tiles)"
    )


def _is_bare_container(annotation: object) -> bool:
    origin = typing.get_origin(annotation)
    return annotation in (dict, tuple) or origin in (dict, tuple)


@pytest.mark.parametrize(("family", "name", "fn"), ALL_FUNCTIONS)
def test_results_are_not_bare_dicts_or_tuples(
    family: str, name: str, fn: Callable[..., Any]
) -> None:
    hints = typing.get_type_hints(fn)
    ret = hints.get("return")
    if (family, name) in RETURN_EXCEPTIONS:
        return
    if ret is not None and typing.get_origin(ret) is dict:
        # A mapping from a name to records (one per kernel, stencil) is a table of records.
        value_type = typing.get_args(ret)[1]
        assert inspect.isclass(value_type) and issubclass(value_type, Record), (
            f"{family}.{name} returns {ret}: return a record"
        )
        return
    assert not _is_bare_container(ret), f"{family}.{name} returns {ret}: return a record"


# ------------------------------------------------------------------ sample calls per family

SMALL_SPACE_2D = [[1, 8], [32, 64], [2, 4]]


def _small_workload() -> Any:
    return cm.codesign.Workload((("heat2d", (512, 512, 64)),))


def _small_runs() -> Any:
    return cm.energy.synthetic_runs(seed=3, counts={"jacobi1d": 6, "jacobi2d": 6})


#: One cheap call per family and result kind: (family, label, function, args, kwargs).
SAMPLES: list[tuple[str, str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = [
    ("time", "breakdown", cm.time.breakdown, ("heat2d", "gtx980", (512, 512, 64), (8, 64, 8)), {}),
    ("time", "talg_batch", cm.time.talg_batch,
     ("heat2d", "gtx980", (512, 512, 64), [[8, 64, 8], [8, 64, 7]]), {}),
    ("time", "best_tiles", cm.time.best_tiles, ("heat2d", "gtx980", (512, 512, 64)),
     {"space": SMALL_SPACE_2D}),
    ("energy", "breakdown", cm.energy.breakdown,
     ("jacobi2d", "gtx980", (512, 512, 64), (8, 64, 8)), {}),
    ("energy", "energy_batch", cm.energy.energy_batch,
     ("jacobi2d", "gtx980", (512, 512, 64), [[8, 64, 8], [8, 64, 7]]), {}),
    ("energy", "best_tiles", cm.energy.best_tiles, ("jacobi2d", "gtx980", (512, 512, 64)),
     {"space": SMALL_SPACE_2D}),
    ("energy", "compare_optima", cm.energy.compare_optima,
     ("jacobi2d", "gtx980", (512, 512, 64)), {"space": SMALL_SPACE_2D}),
    ("energy", "kernel", cm.energy.kernel, ("jacobi1d",), {}),
    ("energy", "identifiability", lambda: cm.energy.identifiability(_small_runs()), (), {}),
    ("chain", "optimal_order", cm.chain.optimal_order, ([30, 35, 15, 5, 10],), {}),
    ("chain", "data_movement", cm.chain.data_movement, ([300, 350, 150, 500, 100], 256), {}),
    ("exasat", "estimate", cm.exasat.estimate, ("stencil7", "hopper", 16), {}),
    ("exasat", "kernel", cm.exasat.kernel, ("stencil7",), {}),
    ("exasat", "traffic_vs_cache", cm.exasat.traffic_vs_cache,
     ("stencil7", "hopper", 16, [4096, 65536]), {"strategies": ("none",)}),
    ("spu", "off_chip", cm.spu.off_chip, (64,), {}),
    ("spu", "sweep", cm.spu.sweep, ([64, 128],), {}),
    ("scratchpad", "problem", cm.scratchpad.me_problem, (), {}),
    ("scratchpad", "compare", lambda: cm.scratchpad.compare(cm.scratchpad.me_problem()), (), {}),
    ("area", "breakdown", cm.area.breakdown, (16, 128, 96), {}),
    ("area", "reference_gpu", cm.area.reference_gpu, ("gtx980",), {}),
    ("codesign", "hardware_space", cm.codesign.hardware_space, (), {}),
    ("codesign", "sweep", cm.codesign.sweep, (_small_workload(), 0, 10_000),
     {"space": {"n_sm": [8, 16], "n_v": [128], "smem_kb": [96]}, "variant": "paper"}),
    ("codesign", "best", lambda: cm.codesign.sweep(
        _small_workload(), 0, 10_000, space={"n_sm": [8, 16], "n_v": [128], "smem_kb": [96]},
        variant="paper").best(), (), {}),
    ("measure", "run", cm.measure.run, ("jacobi1d", (64, 8), (8, 2)),
     {"repeats": 1, "warmup": 0, "threads": 1}),
    ("validate", "score", lambda: cm.validate.score(
        cm.measure.read_table(cm.presets.data_dir() / "measurements" / "cpu_sweep.csv"),
        cm.presets.data_dir() / "measurements" / "cpu_calibration"), (), {}),
]  # fmt: skip


def _records_in(value: object) -> list[object]:
    """Every record in a result (the result itself, or the items of a list or mapping)."""
    if hasattr(value, "_fields") and hasattr(value, "_asdict"):
        return [value]
    if isinstance(value, (list, tuple)):
        return [r for item in value for r in _records_in(item)]
    if isinstance(value, Mapping):
        return [r for item in value.values() for r in _records_in(item)]
    return []


def test_every_family_has_a_sample_call() -> None:
    assert {s[0] for s in SAMPLES} == set(FAMILIES)


@pytest.mark.parametrize(
    ("family", "fn", "args", "kwargs"),
    [pytest.param(s[0], s[2], s[3], s[4], id=f"{s[0]}.{s[1]}") for s in SAMPLES],
)
def test_results_are_records(
    family: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    result = fn(*args, **kwargs)
    records = _records_in(result)
    assert records, f"{family}: {type(result).__name__} is not a record"
    for r in records:
        fields = r._fields  # type: ignore[attr-defined]
        assert isinstance(fields, tuple) and fields
        as_dict = r._asdict()  # type: ignore[attr-defined]
        assert list(as_dict) == list(fields)
        assert r == r and not (r != r)
        assert pickle.loads(pickle.dumps(r)) == r
        text = repr(r)
        assert text.startswith(type(r).__name__ + "(") and len(text) < 20_000
        with pytest.raises(TypeError):
            hash(r)
    if family != "measure":  # a measurement differs from run to run; models do not
        assert fn(*args, **kwargs) == result


# ------------------------------------------------------------------ Hypothesis campaign

CLEAR_ERRORS = (TypeError, ValueError, OverflowError)
EXAMPLES = int(os.environ.get("COSTMETRICS_CAMPAIGN_EXAMPLES", "25"))
BAD_VALUES = st.sampled_from(
    [None, "x", b"x", True, -1, 0, 2**63, 2**70, -(2**70), 1.5, math.nan, math.inf, -math.inf,
     np.int64(3), np.float32(0.5), np.uint64(2**64 - 1), [], [[1]], {1}, {"a": 1}, object(),
     (0, 0, 0), np.array([[1, 2]]), "exact", "paper", 1e308]
)  # fmt: skip


def _finite(value: object) -> None:
    """Every number in a result is finite (NaN only where a row is marked infeasible)."""
    for r in _records_in(value):
        for name, v in r._asdict().items():  # type: ignore[attr-defined]
            if isinstance(v, float):
                assert not math.isinf(v), f"{type(r).__name__}.{name} = {v}"
    if isinstance(value, float):
        assert math.isfinite(value)


#: The campaign replaces one argument of the direct (non-lambda) samples.
CAMPAIGN_SAMPLES = [s for s in SAMPLES if s[2].__name__ != "<lambda>" and s[0] != "measure"]


@pytest.mark.parametrize(
    ("family", "fn", "args", "kwargs"),
    [pytest.param(s[0], s[2], s[3], s[4], id=f"{s[0]}.{s[1]}") for s in CAMPAIGN_SAMPLES],
)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_bad_and_extreme_arguments_give_clear_errors(
    family: str,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    data: st.DataObject,
) -> None:
    names = [*range(len(args)), *kwargs]
    if not names:
        return
    which = data.draw(st.sampled_from(names))
    bad = data.draw(BAD_VALUES)
    new_args = list(args)
    new_kwargs = dict(kwargs)
    if isinstance(which, int):
        new_args[which] = bad
    else:
        new_kwargs[which] = bad
    try:
        result = fn(*new_args, **new_kwargs)
    except CLEAR_ERRORS as exc:
        assert str(exc), f"{family}: {type(exc).__name__} without a message"
        assert "incompatible function arguments" not in str(exc), str(exc)
        return
    _finite(result)


# ------------------------------------------------------------------ the compiled core

def _core_functions() -> list[tuple[str, Any, list[str]]]:
    import re

    from costmetrics import _core

    out = []
    for family in dir(_core):
        module = getattr(_core, family)
        if not isinstance(module, ModuleType):
            continue
        for name in dir(module):
            fn = getattr(module, name)
            if name.startswith("_") or type(fn).__name__ != "builtin_function_or_method":
                continue
            m = re.match(r"\w+\((.*?)\) ->", fn.__doc__ or "")
            if m:
                params = [p for p in m.group(1).split(", ") if p and not p.startswith("*")]
                out.append((f"{family}.{name}", fn, [p.split(":")[0] for p in params]))
    return out


def test_core_functions_name_bad_arguments() -> None:
    # Every _core function is bound through def_function (cpp/bindings/bindings.hpp): a
    # wrong type raises TypeError naming a bad argument and its value, never
    # pybind11's "incompatible function arguments" dump.
    functions = _core_functions()
    assert len(functions) > 60
    unnamed = []
    for label, fn, params in functions:
        if not params:
            continue
        try:
            fn(*([object()] * len(params)))
        except TypeError as exc:
            named = any(str(exc).startswith(f"{p}: ") for p in params)
            if not named or "object at 0x" not in str(exc):
                unnamed.append(f"{label}: {exc}")
        else:
            unnamed.append(f"{label}: accepted object()")
    assert not unnamed, unnamed
    # The converted ones name the first argument.
    with pytest.raises(TypeError, match=r"^coefficients: expected a"):
        cm._core.area.structural("rounded", cm.area.coefficients())  # type: ignore[arg-type]
