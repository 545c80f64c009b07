"""A Hypothesis campaign over the whole public API: time, chain, presets, measure, the
energy regression and experiment design, and the CLI.

Generated arguments mix valid values, extreme integers (0, negatives, 2**31, 2**63, 2**64),
special floats (0, nan, inf, 1e308), NumPy scalars and wrong types (None, str, bytes, sets,
nested lists). The contract (issue 6) is checked for every call:

- the call returns a result that is finite and in its physical range, or
- it raises TypeError, ValueError or OverflowError (never another exception, a crash, a
  hang or a NaN/inf result), and the CLI exits 0 or 2 with one line on standard error.

The whole file runs in well under a minute (``deadline=None``: the C++ core is fast, but
the first call of a test loads presets).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics.cli import main

CLEAR_ERRORS = (TypeError, ValueError, OverflowError)
#: Examples per test: 150, or the profile's when that is more (HYPOTHESIS_PROFILE=long, see
#: conftest.py); COSTMETRICS_CAMPAIGN_EXAMPLES=N sets it directly.
EXAMPLES = int(os.environ.get("COSTMETRICS_CAMPAIGN_EXAMPLES", max(150, settings().max_examples)))
CAMPAIGN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

EXTREME_INTS = st.sampled_from(
    [0, 1, -1, 2, 3, 7, 8, 31, 32, 64, 2**20, 2**31 - 1, 2**31, 2**53, 2**62, 2**63 - 1, 2**63,
     2**64, -(2**63)]
)  # fmt: skip
SPECIAL_FLOATS = st.sampled_from([0.0, -0.0, 1e-300, 1e-8, 0.5, 1.0, 1e308, math.inf, math.nan])
WRONG = st.sampled_from([None, "8", b"8", True, 1.5, {1, 2}, {"a": 1}, [[1]], object()])
INTEGERS = st.one_of(st.integers(-(2**70), 2**70), EXTREME_INTS, st.integers(1, 5000))
NUMPY_INTS = st.builds(
    lambda v, t: t(v), st.integers(0, 2**31 - 1), st.sampled_from([np.int32, np.int64, np.uint64])
)
ANY_INT = st.one_of(INTEGERS, INTEGERS, NUMPY_INTS, WRONG, SPECIAL_FLOATS)


def _sequence(element: st.SearchStrategy[Any], lo: int, hi: int) -> st.SearchStrategy[Any]:
    lists = st.lists(element, min_size=lo, max_size=hi)
    return st.one_of(lists, lists.map(tuple), WRONG)


def _contract(call: Callable[[], Any]) -> Any:
    """Run ``call``; return its result, or None when it raised a clear error."""
    try:
        return call()
    except CLEAR_ERRORS as exc:
        assert str(exc), f"{type(exc).__name__} without a message"
        return None


def _finite_nonnegative(*values: float) -> None:
    for v in values:
        assert math.isfinite(v) and v >= 0, values


# ------------------------------------------------------------------ time model

STENCILS = st.sampled_from(["heat2d", "heat3d", "jacobi2d", "laplacian3d", "gradient2d"])
GPUS = st.sampled_from(["gtx980", "titanx"])
SIZES = st.one_of(
    _sequence(st.one_of(st.integers(1, 9000), INTEGERS), 2, 5),
    st.builds(lambda a, b, c: (a, b, c), st.integers(1, 9000), st.integers(1, 9000),
              st.integers(1, 9000)),
)  # fmt: skip
TILES = st.one_of(
    _sequence(st.one_of(st.integers(1, 300), EXTREME_INTS), 2, 5),
    st.builds(lambda a, b, c: (a, b, c), st.integers(1, 64), st.sampled_from([32, 64, 96, 128]),
              st.sampled_from([2, 4, 8, 16])),
)  # fmt: skip
VARIANTS = st.one_of(
    st.sampled_from(["paper", "exact", "machine"]), st.sampled_from(["approx", None, 1])
)


def _check_breakdown(b: Any, variant: object) -> None:
    _finite_nonnegative(
        b.talg_s, b.t_ideal_s, b.t_tile_s, b.c_s, b.m_prime_s, b.m_tile_words, b.t_sync_total_s
    )
    assert b.k >= 1 and b.n_wavefronts >= 1 and b.tiles_per_wavefront >= 1 and b.n_subtiles >= 1
    if variant in ("exact", "machine"):
        # Lower bound of the exact variant (docs/time-model.md): T_alg >= T_ideal; the
        # machine variant only adds non-negative costs to it.
        assert b.talg_s >= b.t_ideal_s * (1 - 1e-12)


@CAMPAIGN
@given(STENCILS, GPUS, SIZES, TILES, VARIANTS)
def test_time_breakdown_contract(
    stencil: str, gpu: str, sizes: Any, tiles: Any, variant: Any
) -> None:
    b = _contract(lambda: cm.time.breakdown(stencil, gpu, sizes, tiles, variant=variant))
    if b is not None:
        _check_breakdown(b, variant)
        assert b.talg_s == cm.time.talg(stencil, gpu, sizes, tiles, variant=variant)


@CAMPAIGN
@given(STENCILS, GPUS, SIZES, st.lists(TILES, min_size=1, max_size=4), VARIANTS, ANY_INT)
def test_time_batch_contract(
    stencil: str, gpu: str, sizes: Any, rows: Any, variant: Any, n_threads: Any
) -> None:
    batch = _contract(
        lambda: cm.time.talg_batch(stencil, gpu, sizes, rows, variant=variant, threads=n_threads)
    )
    if batch is None:
        return
    ok = batch.feasible
    assert np.isfinite(batch.talg_s[ok]).all() and (batch.talg_s[ok] >= 0).all()
    assert np.isnan(batch.talg_s[~ok]).all()
    for i in np.flatnonzero(ok)[:2]:
        row = [int(v) for v in np.atleast_2d(np.asarray(rows))[i]]
        assert batch.talg_s[i] == cm.time.talg(stencil, gpu, sizes, row, variant=variant)


SPACES = st.one_of(
    st.none(),
    st.lists(st.lists(st.one_of(st.integers(1, 128), EXTREME_INTS), min_size=1, max_size=3),
             min_size=2, max_size=4),
    WRONG,
)  # fmt: skip


@CAMPAIGN
@given(STENCILS, GPUS, SIZES, st.one_of(SPECIAL_FLOATS, WRONG, st.floats(0, 1)), SPACES)
def test_time_best_tiles_contract(
    stencil: str, gpu: str, sizes: Any, within: Any, space: Any
) -> None:
    if space is None:  # the default space costs ~10 ms per call: keep the campaign small
        space = [[1, 8, 16], [32, 64], [2, 8]] if cm.stencil(stencil).n_space_dims == 2 else None
    if space is None:
        return
    best = _contract(
        lambda: cm.time.best_tiles(stencil, gpu, sizes, within=within, space=space, variant="paper")
    )
    if best is None:
        return
    _finite_nonnegative(best.talg_s, float(best.within))
    assert 1 <= len(best.near_optimal) <= best.n_feasible <= best.n_points
    assert best.near_optimal_talg_s[0] == best.talg_s
    assert (best.near_optimal_talg_s <= best.talg_s * (1 + best.within) * (1 + 1e-12)).all()


@CAMPAIGN
@given(STENCILS, GPUS, SIZES, TILES)
def test_time_ideal_and_overhead_contract(stencil: str, gpu: str, sizes: Any, tiles: Any) -> None:
    ideal = _contract(lambda: cm.time.t_ideal(stencil, gpu, sizes))
    if ideal is not None:
        _finite_nonnegative(ideal)
    closed = _contract(lambda: cm.time.t_overhead_closed_form(stencil, gpu, sizes, tiles))
    if closed is not None:
        _finite_nonnegative(closed)


# ------------------------------------------------------------------ presets

GPU_FIELDS = cm.gpu("gtx980").to_dict()
del GPU_FIELDS["schema_version"]


@CAMPAIGN
@given(
    st.sampled_from(sorted(k for k in GPU_FIELDS if k not in ("name", "key", "source"))),
    st.one_of(ANY_INT, SPECIAL_FLOATS, st.floats(allow_nan=True)),
)
def test_gpu_preset_contract(field: str, value: Any) -> None:
    g = _contract(lambda: cm.Gpu(**{**GPU_FIELDS, field: value}))
    if g is None:
        return
    # A GPU the constructor accepts is one the time model accepts (the tile may still be
    # infeasible on a tiny GPU: a clear ValueError naming Eq. A.32).
    assert math.isfinite(cm.time.t_ideal("heat2d", g, (512, 512, 512)))
    b = _contract(
        lambda: cm.time.breakdown("heat2d", g, (512, 512, 512), (1, 32, 2), variant="paper")
    )
    if b is not None:
        _finite_nonnegative(b.talg_s)


MACHINE_FIELDS = {
    **GPU_FIELDS, "n_sm": 2, "n_v": 4, "max_blocks_per_sm": 1, "smem_per_sm_bytes": 262144,
    "smem_per_block_bytes": 262144, "l_s_per_gb": 0.04, "tau_sync_s": 1e-8, "t_sync_s": 4e-8,
    "cache_l1_bytes": 32768, "cache_l2_bytes": 2**20, "cache_l3_bytes": 2**25, "l_seg_s": 3e-9,
    "l_level_s_per_word": (-2e-11, 0.0, 2e-11, 8e-11), "l_shared_s_per_word": (0, 0, 1e-11, 5e-11),
    "tau_line_s": 2e-9, "t_barrier_per_thread_s": 2e-8, "t_share_line_s": 5e-8, "threads_ref": 2,
    "tile_schedule": "block",
}  # fmt: skip
MACHINE_VALUES = st.one_of(
    ANY_INT, SPECIAL_FLOATS, st.floats(allow_nan=True), st.floats(-1e-9, 1e-7),
    _sequence(st.one_of(st.floats(-1e-10, 1e-9), SPECIAL_FLOATS, WRONG), 3, 5),
)  # fmt: skip


@CAMPAIGN
@given(
    st.sampled_from(sorted(k for k in MACHINE_FIELDS if k.startswith(("cache", "l_", "t", "thr")))),
    MACHINE_VALUES,
    st.sampled_from([1, 2, 3, 8]),
)
def test_machine_preset_contract(field: str, value: Any, threads: int) -> None:
    g = _contract(lambda: cm.Gpu(**{**MACHINE_FIELDS, "key": "campaigncpu", field: value}))
    if g is None:
        return
    s = cm.Stencil(name="campaign heat", n_space_dims=2, c_iter_s={"campaigncpu": 1.4e-9})
    g = g.with_threads(threads)
    b = _contract(lambda: cm.time.breakdown(s, g, (512, 512, 64), (16, 128, 8), variant="machine"))
    if b is not None:
        _check_breakdown(b, "machine")
        rows = cm.time.design_rows(s, g, (512, 512, 64), [(16, 128, 8)], variant="machine")
        assert math.isclose(float(rows.talg_s[0]), b.talg_s, rel_tol=1e-12)


@CAMPAIGN
@given(text=st.text(max_size=200), raw=st.binary(max_size=60))
def test_load_gpu_file_contract(tmp_path_factory: Any, text: str, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("gpu")
    for index, content in enumerate((text.encode("utf-8", "surrogatepass"), raw)):
        path = folder / f"g{index}.yaml"
        path.write_bytes(content)
        _contract(functools.partial(cm.load_gpu, path))
        _contract(functools.partial(cm.load_stencil, path))
    _contract(lambda: cm.gpu(text))


# ------------------------------------------------------------------ matrix chains

DIMS = _sequence(st.one_of(st.integers(1, 3000), EXTREME_INTS, NUMPY_INTS), 0, 9)
CAPACITIES = st.one_of(st.sampled_from([1, 64, 65536, 98304]), ANY_INT)


@CAMPAIGN
@given(st.one_of(DIMS, WRONG), st.one_of(st.sampled_from([0, 1, 2]), ANY_INT))
def test_chain_order_contract(dims: Any, threads: Any) -> None:
    order = _contract(lambda: cm.chain.optimal_order(dims, threads=threads))
    if order is None:
        return
    assert isinstance(order.cost, int) and 0 <= order.cost < 2**63
    assert order.parenthesization.count("A") == order.n
    assert order.cost == cm.chain.optimal_order(list(order.dims), min_work_per_thread=1).cost


@CAMPAIGN
@given(DIMS, CAPACITIES, st.one_of(st.sampled_from(["printed", "derived"]), WRONG))
def test_chain_data_movement_contract(dims: Any, m: Any, beta: Any) -> None:
    dm = _contract(lambda: cm.chain.data_movement(dims, m, beta=beta))
    if dm is not None:
        _finite_nonnegative(dm.single_mm_total, dm.fused_total, dm.output_words)
        assert dm.fused_total == pytest.approx(dm.fused_internal + dm.output_words)
        assert dm.fused_total <= dm.single_mm_total * (1 + 1e-12)
        assert 0.0 <= dm.reduction_percent < 100.0
    front = _contract(lambda: cm.chain.pareto_front(dims, m, beta=beta))
    if front is not None:
        assert front and all(p.words > 0 and math.isfinite(p.words) for p in front)
        assert all(a.ops < b.ops and a.words > b.words for a, b in itertools.pairwise(front))


@CAMPAIGN
@given(ANY_INT, ANY_INT, ANY_INT, ANY_INT, CAPACITIES)
def test_chain_closed_forms_contract(p0: Any, p1: Any, p2: Any, p3: Any, m: Any) -> None:
    one = _contract(lambda: cm.chain.single_mm(p0, p1, p2, m))
    if one is not None:
        for case in one.cases:
            assert case.valid == (case.words is not None)
            assert case.words is None or (math.isfinite(case.words) and case.words > 0)
    two = _contract(lambda: cm.chain.two_mm(p0, p1, p2, p3, m))
    if two is not None:
        for f in (two.left, two.right):
            assert f.words is None or (math.isfinite(f.words) and f.words > 0)


@CAMPAIGN
@given(ANY_INT, ANY_INT, st.builds(
    cm.chain.ChainDistribution,
    st.sampled_from(["uniform", "loguniform", "normal"]),
    st.one_of(st.integers(1, 500), EXTREME_INTS),
    st.one_of(st.integers(1, 5000), EXTREME_INTS),
    st.one_of(st.integers(1, 16), EXTREME_INTS),
    st.one_of(st.integers(0, 2**64 - 1), EXTREME_INTS),
))  # fmt: skip
def test_chain_random_contract(n: Any, index: Any, dist: Any) -> None:
    dims = _contract(lambda: cm.chain.random_chain(n, index, dist))
    if dims is not None:
        assert len(dims) == n + 1
        assert all(dist.lo <= d <= dist.hi and d % dist.step == 0 for d in dims)


# ------------------------------------------------------------------ energy regression


@functools.lru_cache(maxsize=1)
def _energy_table() -> Any:
    counts = {"smith_waterman": 12, "jacobi1d": 12, "jacobi2d": 12}
    return cm.energy.synthetic_runs(seed=3, noise_sigma=0.03, counts=counts)


@functools.lru_cache(maxsize=1)
def _energy_candidates() -> Any:
    return cm.energy.synthetic_candidates(("jacobi1d", "jacobi2d"))


ROW_EDITS = st.lists(
    st.tuples(
        st.integers(0, 35),
        st.sampled_from(["energy_j", "time_s", "duplicate", "drop"]),
        st.sampled_from([math.nan, math.inf, -1.0, 0.0, 1e-300, 1e300, 2.0]),
    ),
    max_size=3,
)


def _edited(edits: list[tuple[int, str, float]]) -> Any:
    runs = _energy_table()
    keep = np.ones(len(runs), dtype=bool)
    energy, time_s = runs.energy_j.copy(), runs.time_s.copy()
    extra: list[int] = []
    for row, what, value in edits:
        with np.errstate(over="ignore", invalid="ignore"):  # inf and nan are wanted here
            if what == "energy_j":
                energy[row] *= value
            elif what == "time_s":
                time_s[row] *= value
            elif what == "duplicate":
                extra.append(row)
            else:
                keep[row] = False
    edited = dataclasses.replace(runs, energy_j=energy, time_s=time_s)
    rows = np.concatenate([np.flatnonzero(keep), np.asarray(extra, dtype=np.int64)])
    return edited.select(rows.astype(np.int64))


@CAMPAIGN
@given(
    ROW_EDITS,
    st.one_of(st.sampled_from(["l1", "lsq"]), WRONG),
    st.one_of(st.sampled_from(["relative", "absolute"]), WRONG),
    st.one_of(st.sampled_from([0.1, 0.5, 1.0]), SPECIAL_FLOATS, WRONG),
    st.one_of(st.sampled_from([0, 5, 20]), ANY_INT),
    st.one_of(st.sampled_from([0.5, 0.9, 0.95]), SPECIAL_FLOATS, WRONG),
    st.one_of(st.none(), st.sampled_from(["model_a", "model_b", "bogus"]), WRONG),
    st.one_of(st.sampled_from([0.0, 1.0, 10.0]), SPECIAL_FLOATS, WRONG),
)
def test_energy_fit_contract(
    edits: Any, method: Any, weighting: Any, fraction: Any, n_boot: Any, level: Any,
    prior: Any, prior_weight: Any,
) -> None:  # fmt: skip
    if isinstance(n_boot, (int, np.integer)) and not isinstance(n_boot, bool) and n_boot > 20:
        n_boot = 20  # keep the campaign fast; larger counts are the same code
    r = _contract(
        lambda: cm.energy.fit(
            _edited(edits), method=method, weighting=weighting, train_fraction=fraction,
            n_boot=n_boot, level=level, prior=prior, prior_weight=prior_weight,
        )
    )  # fmt: skip
    if r is None:
        return
    assert np.all(np.isfinite(r.solution)) and np.all(r.solution >= 0)
    assert np.all(r.boot_solutions >= 0)
    for e in r.estimates.values():
        assert math.isfinite(e.estimate) and e.estimate >= 0
        if r.n_boot:
            assert 0 <= e.low <= e.high and math.isfinite(e.high)
            if e.determined:
                assert e.rel_halfwidth <= r.max_rel_halfwidth
        assert (e.value is None) == (not e.determined)
    for name, value in r.parameters.items():
        assert value is None or (math.isfinite(value) and value >= 0), name
    assert math.isfinite(r.train_rmse_pct) and r.train_rmse_pct >= 0


# ------------------------------------------------------------------ measurement harness

SMALL_OR_REFUSED = st.one_of(
    st.integers(1, 40), st.sampled_from([0, -1, 2**31, 2**63, 2**64]), WRONG
)


@CAMPAIGN
@given(
    st.sampled_from(["jacobi1d", "heat2d", "gradient2d", "heat3d", "Jacobi-1D"]),
    _sequence(SMALL_OR_REFUSED, 1, 4),
    _sequence(SMALL_OR_REFUSED, 1, 4),
    st.one_of(st.integers(1, 4), st.sampled_from([0, 257, 2**63]), WRONG),
    st.one_of(st.sampled_from(["round-robin", "block"]), st.sampled_from(["zigzag", ""]), WRONG),
)
def test_measure_tiled_contract(
    stencil: str, sizes: Any, tiles: Any, threads: Any, schedule: Any
) -> None:
    # Either bitwise equal to the naive stencil, or a clear error (issue 21: both schedules).
    got = _contract(
        lambda: cm.measure.tiled(stencil, sizes, tiles, threads=threads, schedule=schedule)
    )
    if got is not None:
        want = cm.measure.naive(stencil, sizes)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@CAMPAIGN
@given(
    st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(1, 40), st.integers(1, 12)),
    st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 40), st.integers(1, 6)),
    st.integers(1, 3),
    st.sampled_from(["round-robin", "block"]),
)
def test_measure_heat3d_any_valid_shape(
    sizes: tuple[int, int, int, int], tiles: tuple[int, int, int, int], threads: int,
    schedule: str,
) -> None:  # fmt: skip
    # Heat 3D on small random problems and tiles (tT even): always bitwise the naive stencil.
    t = (tiles[0], tiles[1], tiles[2], 2 * tiles[3])
    got = cm.measure.tiled("heat3d", sizes, t, threads=threads, schedule=schedule)
    want = cm.measure.naive("heat3d", sizes)
    assert got.shape == sizes[:3]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@CAMPAIGN
@given(raw=st.binary(max_size=400), text=st.text(max_size=300))
def test_measure_read_table_contract(tmp_path_factory: Any, raw: bytes, text: str) -> None:
    import warnings

    header = ",".join(cm.measure.CSV_COLUMNS) + "\n"
    folder = tmp_path_factory.mktemp("tables")
    for body in (raw, (header + text).encode("utf-8"), header.encode() + raw):
        path = folder / "t.csv"
        path.write_bytes(body)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            table = _contract(functools.partial(cm.measure.read_table, path))
        if table is not None:
            assert len(table) >= 1 and np.all(table.time_s > 0)
            assert np.all(np.isfinite(table.time_s))


@CAMPAIGN
@given(
    st.one_of(st.sampled_from([1, 10, 50, 400]), ANY_INT),
    st.one_of(st.sampled_from([0.01, 0.03, 0.3]), SPECIAL_FLOATS, WRONG),
    st.one_of(st.none(), st.sampled_from([0.05, 0.5]), SPECIAL_FLOATS, WRONG),
    st.one_of(st.sampled_from([0, 3]), ANY_INT),
)
def test_energy_design_contract(budget: Any, noise: Any, precision: Any, n_random: Any) -> None:
    if isinstance(n_random, (int, np.integer)) and not isinstance(n_random, bool):
        n_random = min(int(n_random), 3) if n_random >= 0 else n_random
    d = _contract(
        lambda: cm.energy.design(
            _energy_candidates(), budget, noise_sigma=noise, precision=precision,
            n_random=n_random,
        )
    )  # fmt: skip
    if d is None:
        return
    assert len(d.runs) == d.budget == int(budget) and len(set(d.rows.tolist())) == d.budget
    for e in d.expected.values():
        assert e.rel_halfwidth >= 0 and e.budget_needed >= 1
        assert e.determined == (e.rel_halfwidth <= d.max_rel_halfwidth)


@CAMPAIGN
@given(
    st.lists(st.lists(st.one_of(st.floats(1e-6, 10.0), st.just(math.nan)), min_size=1,
                      max_size=6).map(lambda r: r + [1.0] * (6 - len(r))), min_size=0, max_size=8)
)  # fmt: skip
def test_noise_floor_contract(rows: list[list[float]]) -> None:
    p = np.asarray(rows, dtype=float).reshape(len(rows), 6)
    floor = cm.validate.noise_floor(p)
    assert math.isnan(floor) or (math.isfinite(floor) and floor >= 0)


@CAMPAIGN
@given(
    st.lists(st.lists(st.one_of(st.floats(1e-6, 10.0), st.just(math.nan)), min_size=6,
                      max_size=6), min_size=1, max_size=4),
    st.integers(0, 3), st.integers(0, 5), st.sampled_from([0.0, -0.0, -1.0, -1e-300, math.inf]),
)  # fmt: skip
def test_noise_floor_refuses_non_positive_times(
    rows: list[list[float]], row: int, col: int, bad: float
) -> None:
    p = np.asarray(rows, dtype=float)
    row %= p.shape[0]
    p[row, col] = bad
    with pytest.raises(ValueError, match=rf"^pass_times_s\[{row}, {col}\]: .* > 0"):
        cm.validate.noise_floor(p)


# ------------------------------------------------------------------ times everywhere

TIMES = st.one_of(SPECIAL_FLOATS, st.floats(-1e3, 1e3), st.sampled_from([-math.inf, -1e-300]))


@CAMPAIGN
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
        _contract(call)  # may still refuse (an energy overflow), but clearly
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


@CAMPAIGN
@given(ARRAYS, st.sampled_from(["n_sm", "smem_kb", "area_mm2", "group", "predicted_j"]))
def test_core_array_arguments_contract(value: Any, param: str) -> None:
    """Any value in an array argument of a _core function: a result, or an error naming it."""
    ok = np.array([1], dtype=np.int64)
    coefficients = cm.area.coefficients()
    calls: dict[str, Callable[[], Any]] = {
        "n_sm": lambda: cm._core.area.structural_batch(
            coefficients, value, ok, ok, ok, ok, ok),
        "smem_kb": lambda: cm._core.area.structural_batch(
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


# ------------------------------------------------------------------ command line

TOKENS = st.sampled_from(
    ["talg", "best-tiles", "chain", "presets", "--stencil", "heat2d", "heat3d", "--gpu",
     "gtx980", "--sizes", "512,512,512", "-5,4,4", "1,2", "--tiles", "8,64,8", "--variant",
     "exact", "--json", "--dims", "3,4,5", "1000,2000,3000", "--M", "65536", "-1", "--pareto",
     "--beta", "derived", "--within", "0.5", "nan", "x", "--", "--version", "energy", "design",
     "--budget", "7", "100000", "--noise", "--precision"]
)  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(TOKENS, max_size=10))
def test_cli_contract(argv: list[str]) -> None:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status in (0, 2), (argv, status, err.getvalue())
    if status == 2:
        assert out.getvalue() == ""
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    elif "--json" in argv and "--version" not in argv and out.getvalue():
        json.loads(out.getvalue())  # --json prints only JSON


def test_campaign_strategies_reach_both_outcomes() -> None:
    # The campaign is not vacuous: its generators produce both accepted and refused calls.
    accepted = _contract(
        lambda: cm.time.talg("heat2d", "gtx980", (512, 512, 512), (8, 64, 8), variant="paper")
    )
    refused = _contract(
        lambda: cm.time.talg("heat2d", "gtx980", (512, 512, 512), (8, 64, 7), variant="paper")
    )
    assert accepted is not None and refused is None
    assert dataclasses.is_dataclass(cm.gpu("gtx980"))
