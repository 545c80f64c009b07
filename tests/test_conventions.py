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

import dataclasses
import importlib
import inspect
import math
import os
import pickle
import time
import typing
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmetrics as cm
from _support import GTX980, SPECIAL_FLOATS, WRONG, campaign, contract, core_gpu
from costmetrics import _core
from costmetrics._record import Record

FAMILIES = cm.families.names()
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
    ("measure", "harness_tiles"): "tiles, in the layout of the tiles it is given",
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


def _figure_functions(family: str) -> list[tuple[str, Callable[..., Any]]]:
    """The ``plot_*`` functions of a family's experiment module (where figures are drawn)."""
    if not cm.families.family(family).experiment:
        return []
    module = importlib.import_module(f"costmetrics.experiments.{family}")
    return [
        (f"experiments.{name}", obj)
        for name, obj in vars(module).items()
        if name.startswith("plot_")
        and inspect.isfunction(obj)
        and obj.__module__ == module.__name__
    ]


ALL_FUNCTIONS = [
    pytest.param(fam, name, fn, id=f"{fam}.{name}")
    for fam in FAMILIES
    for name, fn in [*_public_functions(_family(fam)), *_figure_functions(fam)]
]


def test_every_family_is_walked() -> None:
    assert FAMILIES == tuple(f for f in cm._LAZY_SUBMODULES if f != "explore")
    assert len(FAMILIES) >= 10 and len(ALL_FUNCTIONS) > 100


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
    ("spu", "off_chip", cm.spu.off_chip, (128,), {}),
    ("spu", "sweep", cm.spu.sweep, ([128, 256],), {}),
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
@pytest.mark.campaign
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


# ------------------------------------------------------------------ boundary cases (issue 6)
# Defect examples of issue 6, each pinned: it now raises a clear error or answers right.


@pytest.mark.parametrize(
    ("call", "exception", "match"),
    [
        (lambda: cm.time.talg("heat2d", "gtx980", (64, 64, 64), (8, 64, 8), variant=None),  # type: ignore[arg-type]
         TypeError, r"variant: expected one of 'paper', 'exact', 'machine', got NoneType None"),
        (lambda: dataclasses.replace(GTX980, n_sm=2**31), OverflowError, "n_sm: 2147483648"),
        (lambda: dataclasses.replace(GTX980, n_v=2**40), OverflowError, "n_v: 1099511627776"),
        (lambda: cm.time.talg_batch("heat2d", "gtx980", (64, 64, 64), [[8, 64, 8]],
                                    threads=1.5), TypeError, "threads: expected an integer"),  # type: ignore[arg-type]
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64),
                                    space=[[8], [2**63], [8]]), OverflowError, r"space\[1\]\[0\]"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64), space=[[8], [64]]),
         ValueError, r"space: expected 3 candidate lists \(tS1, tS2, tT\), got 2"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64), within="a lot"),  # type: ignore[arg-type]
         TypeError, "within: expected a real number, got str 'a lot'"),
        (lambda: cm.chain.optimal_order([3, 4, 5], threads="x"), TypeError,  # type: ignore[arg-type]
         "threads: expected an integer, got str 'x'"),
        (lambda: cm.time.talg_batch("heat2d", "gtx980", (64, 64, 64), [[8, 64, 8], [8, 64]]),
         ValueError, r"tiles: rows must all have 3 entries"),
        (lambda: cm.load_gpu(None), TypeError, "path: expected a str or pathlib.Path"),  # type: ignore[arg-type]
        (lambda: cm.time.talg("heat9d", "gtx980", (64, 64, 64), (8, 64, 8)), ValueError,
         "stencil: unknown stencil 'heat9d'"),
        (lambda: cm.time.talg("heat2d", "gpu9", (64, 64, 64), (8, 64, 8)), ValueError,
         "gpu: unknown GPU 'gpu9'"),
        (lambda: cm.time.talg("heat2d", "gtx980", (2**63 - 5, 1, 1), (8, 64, 8)), OverflowError,
         r"S1\*...\*T = 9223372036854775803 exceeds 2\^53"),
        (lambda: cm.time.talg("heat2d", "gtx980", (64, 64, 64), (8, 64, 2**63)), OverflowError,
         r"tiles\[2\]: 9223372036854775808 does not fit"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64), within=-0.1), ValueError,
         r"within: must be in \[0, 1e\+06\], got -0.1"),
    ],
)  # fmt: skip
def test_errors_name_the_parameter_and_the_value(
    call: object, exception: type[Exception], match: str
) -> None:
    assert callable(call)
    with pytest.raises(exception, match=match):
        call()


def test_numpy_integers_are_accepted_everywhere() -> None:
    # Was: refused by cm.Gpu but accepted by the time functions.
    g = dataclasses.replace(GTX980, n_sm=np.int32(16), smem_per_sm_bytes=np.int64(98304))  # type: ignore[arg-type]
    assert g == GTX980
    sizes = np.array([4096, 4096, 1024])
    assert cm.time.talg("heat2d", g, sizes, np.array([8, 64, 8]), variant="paper") == cm.time.talg(  # type: ignore[arg-type]
        "heat2d", GTX980, (4096, 4096, 1024), (8, 64, 8), variant="paper"
    )
    assert cm.chain.optimal_order(np.array([30, 35, 15, 5, 10, 20, 25])).cost == 15125  # type: ignore[arg-type]


def test_type_errors_are_type_errors_and_value_errors_value_errors() -> None:
    with pytest.raises(TypeError, match=r"sizes\[0\]: expected an integer, got float"):
        cm.time.talg("heat2d", "gtx980", (64.0, 64, 64), (8, 64, 8), variant="paper")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="n_sm: expected a positive integer"):
        dataclasses.replace(GTX980, n_sm=16.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="M: expected an integer"):
        cm.chain.data_movement([936, 1008, 552], 65536.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"dims\[1\]: must be positive, got 0"):
        cm.chain.optimal_order([3, 0, 5])


@pytest.mark.parametrize(
    "make",
    [
        lambda: cm.time.breakdown(
            "heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8), variant="paper"
        ),
        lambda: cm.time.best_tiles("heat2d", "gtx980", (512, 512, 512), variant="paper"),
        lambda: cm.time.talg_batch(
            "heat2d", "gtx980", (512, 512, 512), [[8, 64, 8]], variant="paper"
        ),
        lambda: cm.time.default_search_space(3),
        lambda: cm.chain.optimal_order([30, 35, 15, 5, 10, 20, 25]),
        lambda: cm.chain.data_movement([936, 1008, 552, 368], 65536),
        lambda: cm.chain.single_mm(60, 40, 50, 64),
        lambda: cm.chain.two_mm(936, 1008, 552, 368, 65536),
        lambda: cm.chain.pareto_front([936, 1008, 552, 368], 65536),
        lambda: cm.chain.random_chain_reductions(lengths=(3, 3), chains_per_length=2),
        lambda: GTX980,
        lambda: GTX980._core_params(),
    ],
)
def test_results_pickle(make: object) -> None:
    assert callable(make)
    value = make()
    again = pickle.loads(pickle.dumps(value))
    assert repr(again) == repr(value)


def test_record_constructor_validates_and_names_fields() -> None:
    with pytest.raises(TypeError, match=r"GpuParams\(\) missing keyword argument 'n_v'"):
        _core.time.GpuParams(n_sm=1)
    with pytest.raises(TypeError, match=r"TileSizes\(\) takes keyword arguments only"):
        _core.time.TileSizes([8, 64, 0], 8)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        _core.time.StencilParams(n_space_dims=2, c_iter_s=1e-8, colour=1)
    with pytest.raises(TypeError, match=r"ProblemSize.space\[1\]: expected an integer"):
        _core.time.ProblemSize(space=[1, "2", 3], time_steps=4)
    with pytest.raises(ValueError, match=r"ProblemSize.space: expected 3 entries, got 2"):
        _core.time.ProblemSize(space=[1, 2], time_steps=4)
    with pytest.raises(ValueError, match="choice: expected one of 'none', 'left', 'right'"):
        fields = cm.chain.data_movement([936, 1008, 552], 65536).nodes[0]._asdict()
        _core.chain.NodeCost(**{**fields, "choice": "up"})


def test_raw_core_functions_validate_and_convert() -> None:
    gpu = core_gpu()
    stencil = _core.time.StencilParams(n_space_dims=2, c_iter_s=3.68e-8)
    size = _core.time.ProblemSize(space=[4096, 4096, 0], time_steps=1024)
    tiles = _core.time.TileSizes(space=[8, 64, 0], time=8)
    b = _core.time.evaluate(gpu, stencil, size, tiles, "paper")
    assert b == cm.time.breakdown(
        "heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8), variant="paper"
    )
    with pytest.raises(TypeError, match=r"gpu: expected a costmetrics\._core\.time\.GpuParams"):
        _core.time.evaluate(1, 2, 3, 4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="variant: expected one of"):
        _core.time.evaluate(gpu, stencil, size, tiles, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="S3: must be 0 for a 2D stencil"):
        _core.time.t_ideal_s(gpu, stencil, _core.time.ProblemSize(space=[8, 8, 8], time_steps=8))
    with pytest.raises(TypeError, match="tiles: expected an integer array"):
        _core.time.evaluate_batch(gpu, stencil, size, np.ones((2, 3)), "paper", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"threads: must be in \[0, 1024\]"):
        _core.time.evaluate_batch(gpu, stencil, size, np.ones((2, 3), dtype=int), "paper", -1)
    with pytest.raises(ValueError, match="space: more than 2\\^24 points"):
        _core.time.SearchSpace(space=[list(range(1, 4098)), list(range(1, 4098))], time=[2])
    with pytest.raises(TypeError, match="dims: expected a sequence"):
        _core.chain.optimal_order({1, 2, 3})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta: expected one of 'printed', 'derived'"):
        _core.chain.data_movement([936, 1008, 552], 65536, "other", 1)
    with pytest.raises(ValueError, match=r"i, j: need 1 <= i < j <= 2"):
        _core.chain.optimal_order([3, 4, 5]).split_at(2, 1)


def test_plain_numbers_take_the_same_path_as_any_other() -> None:
    # The bindings convert a plain float or int without the general checks (2026-11-30, a
    # third of a small call's cost): every other spelling must give the same value or the
    # same error as before.
    p = cm.scratchpad.me_problem()

    class Real(float):
        pass

    class Count(int):
        pass

    ev = _core.scratchpad.evaluate_tiles
    plain = ev(p, [8.0, 4.0, 2.0, 3.0])
    for spelling in (
        [8, 4, 2, 3], [np.float64(8), np.float32(4), np.int64(2), 3.0],
        [Real(8), Real(4), Count(2), Count(3)], np.array([8.0, 4.0, 2.0, 3.0]), (8.0, 4, 2.0, 3),
    ):  # fmt: skip
        assert ev(p, spelling) == plain  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^tiles\[1\]: expected a real number, got bool True"):
        ev(p, [8.0, True, 2.0, 3.0])
    with pytest.raises(OverflowError, match=r"^tiles\[2\]: 10+ does not fit a double"):
        ev(p, [8.0, 4.0, 10**400, 3.0])
    # Integers: plain and not, beyond int64, bool, beyond an int.
    opt = _core.scratchpad.integer_optimum
    assert opt(p, 2**32, 1, [[1, 2], [1, 2], [1, 2], [1, 2]]) == opt(
        p,
        Count(2**32),  # MAX_TILE_VECTORS: beyond int32
        np.int32(1),  # type: ignore[arg-type]
        [[Count(1), np.int64(2)], [1, 2], [1, 2], [1, 2]],  # type: ignore[list-item]
    )
    with pytest.raises(OverflowError, match=r"^candidates\[0\]\[1\]: 9223372036854775808 is out"):
        opt(p, 10, 1, [[1, 2**63], [1], [1], [1]])
    with pytest.raises(OverflowError, match=r"^max_points: -?9223372036854775809 is outside"):
        opt(p, -(2**63) - 1, 1, [])
    with pytest.raises(TypeError, match=r"^threads: expected an integer, got bool False"):
        opt(p, 10, False, [])
    with pytest.raises(OverflowError, match=r"^threads: 4294967296 is outside the supported range"):
        opt(p, 10, 2**32, [])
    # A record passed by reference is the caller's object, used as it is.
    assert ev(p, [8.0, 4.0, 2.0, 3.0]) == plain and p == cm.scratchpad.me_problem()
    with pytest.raises(TypeError, match=r"^problem: expected a costmetrics\._core\.scratchpad"):
        ev("p", [1.0])  # type: ignore[arg-type]


def test_star_import_keeps_the_standard_time_module() -> None:
    namespace: dict[str, object] = {}
    exec("import time\nfrom costmetrics import *", namespace)
    assert namespace["time"] is time
    assert "time" not in cm.__all__ and cm.time.talg is not None


# ------------------------------------------------------------------ times everywhere

TIMES = st.one_of(SPECIAL_FLOATS, st.floats(-1e3, 1e3), st.sampled_from([-math.inf, -1e-300]))


@campaign
@given(TIMES, st.sampled_from(["energy", "batch", "per_operation", "spu", "spu_break_even"]))
def test_times_are_positive_everywhere(t: float, where: str) -> None:
    """A duration (talg_s, time_s, ...) is accepted iff finite and > 0 (api-conventions)."""
    calls: dict[str, tuple[str, Callable[[], Any]]] = {
        "energy": ("talg_s", lambda: cm.energy.energy(
            "jacobi1d", None, (8192, 2048), (64, 16), talg_s=t)),
        "batch": ("talg_s", lambda: cm.energy.energy_batch(
            "jacobi1d", None, (8192, 2048), [(64, 16)], talg_s=[t])),
        "per_operation": ("talg_s", lambda: cm.energy.energy_per_operation(1.0, 1.0, t, 10)),
        "spu": ("time_s", lambda: cm.spu.energy_split(
            1.0, 1.0, e_comp_j=1.0, e_mem_j=1.0, static_power_w=1.0, time_s=t)),
        "spu_break_even": ("time_gpu_s", lambda: cm.spu.break_even_static_power_w(
            100, 0, e_mem_j=1, static_power_gpu_w=1, time_gpu_s=t, time_spu_s=1)),
    }  # fmt: skip
    name, call = calls[where]
    if math.isfinite(t) and t > 0:
        contract(call)  # may still refuse (an energy overflow), but clearly
    else:
        with pytest.raises(ValueError, match=rf"{name}: must be finite and > 0"):
            call()


# ------------------------------------------------------------------ _core array arguments

ARRAY_ELEMENTS = st.one_of(
    st.integers(-(2**65), 2**65), st.floats(allow_nan=True), st.booleans(), st.just("1"),
    st.just(None), st.complex_numbers(max_magnitude=1.0),
)  # fmt: skip
ARRAYS = st.one_of(
    st.lists(ARRAY_ELEMENTS, max_size=4),
    st.lists(ARRAY_ELEMENTS, max_size=4).map(tuple),
    st.lists(st.lists(st.integers(0, 9), max_size=3), max_size=3),  # ragged or 2-D
    st.builds(lambda v, t: np.asarray(v).astype(t), st.lists(st.integers(0, 2**40), max_size=4),
              st.sampled_from([np.int8, np.int64, np.uint64, np.float32, np.float64, np.bool_,
                               np.complex128, object, str])),
    st.just(np.array([2**63], dtype=np.uint64)), st.just(np.zeros((2, 2))), WRONG,
)  # fmt: skip


@campaign
@given(ARRAYS, st.sampled_from(["n_sm", "smem_kb", "area_mm2", "group", "predicted_j"]))
def test_core_array_arguments_contract(value: Any, param: str) -> None:
    """Any value in an array argument of a _core function: a result, or an error naming it."""
    ok = np.array([1], dtype=np.int64)
    coefficients = cm.area.coefficients()
    calls: dict[str, Callable[[], Any]] = {
        "n_sm": lambda: cm._core.area.die_area_batch(
            coefficients, value, ok, ok, ok, ok, ok),
        "smem_kb": lambda: cm._core.area.die_area_batch(
            coefficients, ok, ok, value, ok, ok, ok),
        "area_mm2": lambda: cm._core.codesign.pareto_front(value, [1.0]),
        "group": lambda: cm._core.energy.optimization_error(value, [1.0], [1.0]),
        "predicted_j": lambda: cm._core.energy.optimization_error([0], value, [1.0]),
    }  # fmt: skip
    try:
        calls[param]()
    except CLEAR_ERRORS as exc:
        assert "incompatible function arguments" not in str(exc), str(exc)
        # A length mismatch may name the other array of the pair.
        pairs = {"area_mm2": "performance", "group": "predicted_j", "predicted_j": "measured_j"}
        assert param in str(exc) or pairs.get(param, "n_sm") in str(exc), str(exc)
        if isinstance(value, np.ndarray) and value.dtype.kind in "bcOUS":
            assert isinstance(exc, TypeError), str(exc)
        if param in ("n_sm", "group") and isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert isinstance(exc, TypeError), str(exc)  # never truncated to integers


def test_core_array_arguments_named() -> None:
    """Array arguments of _core functions: exact dtypes, each error naming the argument."""
    c = cm.area.coefficients()
    one = [1]
    ok = cm._core.area.die_area_batch(c, [16], [128], [96.0], [2.0], [48.0], [2048.0])
    assert ok.shape == (1,) and np.isfinite(ok).all()
    assert cm._core.area.die_area_batch(c, [], [], [], [], [], []).shape == (0,)
    cases: list[tuple[Any, type[Exception], str]] = [
        (np.array([1.5]), TypeError, r"^n_sm: expected an array of integers .*float64"),
        (np.array([True]), TypeError, r"^n_sm: expected an array of integers .*bool"),
        ([1, "2"], TypeError, r"^n_sm\[1\]: expected an integer, got str '2'"),
        ([2**64], OverflowError, r"^n_sm\[0\]: .* outside the supported range"),
        (np.array([2**63], dtype=np.uint64), OverflowError, r"^n_sm: an entry is above"),
        ([[1], [1, 2]], ValueError, r"^n_sm: not a rectangular array of numbers"),
        ("16", TypeError, r"^n_sm: expected an array of integers .*got str '16'"),
        ([1, 2], ValueError, r"^n_v: 1 entries, n_sm has 2"),
    ]
    for value, error, match in cases:
        with pytest.raises(error, match=match):
            cm._core.area.die_area_batch(c, value, one, one, one, one, one)
    with pytest.raises(TypeError, match=r"^coefficients: expected a Coefficients .* or "):
        cm._core.area.die_area_batch("structural", one, one, one, one, one, one)  # type: ignore[arg-type]
    # Tuples (codesign's instances) are converted entry by entry, each named.
    machine = cm._core.codesign.MachineParams(
        l_s_per_word=1e-10, tau_sync_s=1e-9, t_sync_s=1e-6, max_blocks_per_sm=32
    )
    with pytest.raises(TypeError, match=r"^instances\[0\]\[1\]: expected a real number"):
        bad: Any = [(2, "x", [64, 64, 64])]
        cm._core.codesign.sweep([16], [128], [96], [400.0], bad, machine)
    with pytest.raises(ValueError, match=r"^instances\[0\]: expected 3 entries, got 2"):
        short: Any = [(2, 1e-9)]
        cm._core.codesign.sweep([16], [128], [96], [400.0], short, machine)
