"""Tests of costmetrics.time (execution-time model, thesis 000 Appendix A)."""

from __future__ import annotations

import dataclasses
import math
import pickle
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm
from _support import (
    ANY_INT,
    BIG,
    EXTREME_INTS,
    INTEGERS,
    ONE_D,
    SPECIAL_FLOATS,
    WRONG,
    campaign,
    check_breakdown,
    contract,
    core_gpu,
    finite_nonnegative,
    sequence,
)
from costmetrics import _core
from costmetrics import time as cm_time

GTX980 = cm.gpu("gtx980")


def jacobi1d(c_iter_s: float = 3.39e-8) -> cm.Stencil:
    """A 1D stencil built in Python (no preset has one): the seed's Jacobi 1D example."""
    return cm.Stencil(name="Jacobi1D", n_space_dims=1, c_iter_s={"gtx980": c_iter_s})


# ---------------------------------------------------------------- hand-computed values


def test_1d_hand_computed_through_python_objects() -> None:
    # Same case as cpp/tests/test_time.cpp: S = 1000, T = 100, tS = 10, tT = 4 on the
    # GTX 980 of Tables A.2-A.3; T_alg = 51 * 4.44373984e-6 + 51 * 9.24e-7 (Eq. A.7).
    b = cm_time.breakdown(jacobi1d(), GTX980, (1000, 100), (10, 4), variant="paper")
    assert (b.n_wavefronts, b.tiles_per_wavefront, b.k, b.m_tile_words) == (51, 42, 32, 28)
    assert b.m_prime_s == pytest.approx(36 * 7.36e-3 * 4e-9 + 2 * 7.96e-10, rel=1e-12)
    assert b.c_s == pytest.approx(2 * 3.39e-8 * 2 + 4 * 7.96e-10, rel=1e-12)
    assert b.talg_s == pytest.approx(2.7375473184e-4, rel=1e-10)
    assert cm_time.talg(jacobi1d(), GTX980, (1000, 100), (10, 4), variant="paper") == b.talg_s


def test_presets_by_name_and_object_agree() -> None:
    by_name = cm_time.talg("heat2d", "GTX 980", (4096, 4096, 1024), (8, 64, 8), variant="paper")
    by_obj = cm_time.talg(
        cm.stencil("Heat2D"), GTX980, [4096, 4096, 1024], [8, 64, 8], variant="paper"
    )
    assert by_name == by_obj
    b = cm_time.breakdown("heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8), variant="paper")
    # C_iter of Heat2D on the GTX 980 is 3.68e-8 s (Table A.4).
    assert b.t_ideal_s == pytest.approx(4096 * 4096 * 1024 * 3.68e-8 / (16 * 128), rel=1e-12)
    assert b.t_overhead_s == pytest.approx(b.talg_s - b.t_ideal_s)
    assert set(b._asdict()) >= {
        "n_wavefronts", "tiles_per_wavefront", "k", "m_tile_words", "m_prime_s", "c_s",
        "t_tile_s", "talg_s",
    }  # fmt: skip


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("sizes", "tiles", "exception", "match"),
    [
        ((4096, 4096), (8, 64, 8), ValueError, "sizes: must have 3 entries"),
        ((4096, 4096, 1024), (8, 8), ValueError, "tiles: must have 3 entries"),
        ((4096, 4096, 1024), (8, 64, 7), ValueError, "tT must be even"),
        ((4096, 4096, 1024), (8, 48, 8), ValueError, "multiple of 32"),
        ((4096, 4096, 1024), (200, 64, 8), ValueError, "shared memory per thread block"),
        ((4096, 4096, 1024), (0, 64, 8), ValueError, "positive"),
        ((0, 4096, 1024), (8, 64, 8), ValueError, "S1: must be positive, got 0"),
        ((4096, 4096, -5), (8, 64, 8), ValueError, "T: must be positive, got -5"),
        ((4096, 4096, 1.5), (8, 64, 8), TypeError, r"sizes\[2\]: expected an integer"),
        ((2**40, 2**40, 1024), (8, 64, 8), OverflowError, "overflow"),
        ((2**70, 4096, 1024), (8, 64, 8), OverflowError, "sizes"),
    ],
)
def test_bad_input_raises_naming_the_parameter(
    sizes: tuple[int, ...], tiles: tuple[int, ...], exception: type[Exception], match: str
) -> None:
    with pytest.raises(exception, match=match):
        cm_time.talg("heat2d", "gtx980", sizes, tiles, variant="paper")


def test_unknown_preset_and_variant() -> None:
    with pytest.raises(ValueError, match="gtx9999"):
        cm_time.talg("heat2d", "gtx9999", (64, 64, 64), (8, 64, 8), variant="paper")
    with pytest.raises(ValueError, match="variant"):
        cm_time.talg("heat2d", "gtx980", (64, 64, 64), (8, 64, 8), variant="approx")  # type: ignore[arg-type]


# ---------------------------------------------------------------- vectorized evaluation


def test_batch_matches_scalar_and_flags_infeasible() -> None:
    tiles = np.array([[8, 64, 8], [8, 48, 8], [16, 32, 4], [8, 64, 3], [300, 64, 8]])
    batch = cm_time.talg_batch("heat2d", "gtx980", (4096, 4096, 1024), tiles, variant="paper")
    assert batch.feasible.tolist() == [True, False, True, False, False]
    for i in (0, 2):
        b = cm_time.breakdown("heat2d", "gtx980", (4096, 4096, 1024), tiles[i], variant="paper")
        assert batch.talg_s[i] == b.talg_s
        assert batch.terms["c_s"][i] == b.c_s
        assert batch.terms["k"][i] == b.k
    assert math.isnan(batch.talg_s[1]) and "multiple of 32" in batch.reason_text(1)
    assert batch.reasons[3] == cm_time.INFEASIBLE_REASONS["odd_time_tile"]
    assert batch.reasons[4] & cm_time.INFEASIBLE_REASONS["exceeds_block_shared_memory"]
    with pytest.raises(TypeError, match="integer array"):
        cm_time.talg_batch("heat2d", "gtx980", (64, 64, 64), tiles.astype(float), variant="paper")
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        cm_time.talg_batch("heat2d", "gtx980", (64, 64, 64), tiles[:, :2], variant="paper")


# ---------------------------------------------------------------- search


@pytest.mark.parametrize("variant", ["paper", "exact"])
@pytest.mark.parametrize(
    ("stencil", "sizes"), [("gradient2d", (8192, 8192, 8192)), ("heat3d", (384, 384, 384, 256))]
)
def test_search_agrees_with_vectorized_evaluation_of_the_whole_space(
    stencil: str, sizes: tuple[int, ...], variant: cm_time.Variant
) -> None:
    best = cm_time.best_tiles(stencil, "titanx", sizes, within=0.10, variant=variant)
    space = cm_time.default_search_space(len(sizes) - 1)
    grid = space.grid()
    batch = cm_time.talg_batch(stencil, "titanx", sizes, grid, variant=variant)
    assert best.n_points == space.n_points >= 18000  # paper: ~18,000 points (A.6.3)
    assert best.n_feasible == int(batch.feasible.sum())
    assert best.talg_s == np.nanmin(batch.talg_s)
    assert tuple(grid[np.nanargmin(batch.talg_s)]) == best.tiles  # same order, same tie-break
    n_near = int(np.sum(batch.talg_s <= best.talg_s * 1.10))
    assert len(best.near_optimal) == n_near == len(best.table())
    assert np.all(np.diff(best.near_optimal_talg_s) >= 0)
    assert best.breakdown.talg_s == best.talg_s


def test_paper_optimum_is_degenerate_and_exact_is_not() -> None:
    # The published pitch leaves gaps between hexagons (docs/time.md), so its
    # optimum falls below the ideal time; the exact variant never does.
    sizes = (8192, 8192, 8192)
    paper = cm_time.best_tiles("heat2d", "gtx980", sizes, variant="paper")
    exact = cm_time.best_tiles("heat2d", "gtx980", sizes, variant="exact")
    assert paper.talg_s < paper.breakdown.t_ideal_s
    assert exact.talg_s >= exact.breakdown.t_ideal_s
    assert paper.tiles[0] == 1 and exact.tiles[0] > 1


# ---------------------------------------------------------------- invariants

tiles_2d = st.tuples(
    st.integers(1, 64),
    st.sampled_from([32, 64, 96, 128, 256]),
    st.integers(1, 32).map(lambda h: 2 * h),
)


@settings(max_examples=60, deadline=None)
@given(tiles=tiles_2d, s=st.integers(16, 5000), t=st.integers(1, 3000))
def test_exact_never_below_ideal(tiles: tuple[int, int, int], s: int, t: int) -> None:
    batch = cm_time.talg_batch(
        "laplacian2d", "gtx980", (s, s + 7, t), np.array([tiles]), variant="exact"
    )
    if batch.feasible[0]:
        assert batch.talg_s[0] >= cm_time.t_ideal("laplacian2d", "gtx980", (s, s + 7, t))


@settings(max_examples=40, deadline=None)
@given(tiles=tiles_2d, variant=st.sampled_from(["paper", "exact"]))
def test_talg_grows_with_t_and_s(tiles: tuple[int, int, int], variant: cm_time.Variant) -> None:
    batch = cm_time.talg_batch(
        "jacobi2d", "gtx980", (512, 512, 512), np.array([tiles]), variant="paper"
    )
    if not batch.feasible[0]:
        return
    by_t = [
        cm_time.talg("jacobi2d", "gtx980", (512, 512, t), tiles, variant=variant)
        for t in (64, 512, 4096)
    ]
    by_s = [
        cm_time.talg("jacobi2d", "gtx980", (s, s, 512), tiles, variant=variant)
        for s in (256, 1024, 4096)
    ]
    assert by_t == sorted(by_t) and by_t[0] < by_t[-1]
    assert by_s == sorted(by_s) and by_s[0] < by_s[-1]


def test_k_within_its_bounds_over_the_space() -> None:
    space = cm_time.default_search_space(2)
    batch = cm_time.talg_batch(
        "heat2d", "gtx980", (4096, 4096, 1024), space.grid(), variant="paper"
    )
    ok = batch.feasible
    k, m_tile = batch.terms["k"][ok], batch.terms["m_tile_words"][ok]
    assert np.all(k >= 1) and np.all(k <= GTX980.max_blocks_per_sm)
    assert np.all(k * m_tile <= GTX980.smem_per_sm_words)
    assert np.all(m_tile <= GTX980.smem_per_block_words)
    # k is the largest count that fits (Eq. A.12 without registers).
    assert np.all((k == GTX980.max_blocks_per_sm) | ((k + 1) * m_tile > GTX980.smem_per_sm_words))


# ---------------------------------------------------------------- Sec. 8.1.2


def test_overhead_closed_form_and_face_narrowing() -> None:
    sizes = (8192, 8192, 8192)
    ideal = cm_time.t_ideal("heat2d", "gtx980", sizes)
    assert cm_time.t_overhead_closed_form("heat2d", "gtx980", sizes, (8, 64, 8)) == pytest.approx(
        ideal / (8 + 8 / 2)
    )
    # Infeasible tiles are refused as breakdown() refuses them (second adversarial
    # campaign: (8, 63, 7) and (2^62, 64, 2^62) returned an overhead).
    for bad in [(8, 63, 7), (2**62, 64, 2**62)]:
        with pytest.raises(ValueError, match="tiles: infeasible"):
            cm_time.t_overhead_closed_form("heat2d", "gtx980", sizes, bad)
    face = cm_time.max_hexagonal_face_tiles("heat2d", "gtx980")
    space = cm_time.default_search_space(2)
    grid = space.grid()
    grid = grid[cm_time.talg_batch("heat2d", "gtx980", sizes, grid, variant="paper").feasible]
    for ts2 in np.unique(grid[:, 1]):
        feasible_face = 2 * grid[grid[:, 1] == ts2, 0] + grid[grid[:, 1] == ts2, 2]
        kept = face[face[:, 1] == ts2]
        assert len(kept) > 0
        assert np.all(2 * kept[:, 0] + kept[:, 2] == feasible_face.max())


def test_landscape_marks_infeasible_cells() -> None:
    land = cm_time.landscape(
        "heat2d", "gtx980", (8192, 8192, 8192), 8, [2, 4, 64], [32, 1024], variant="paper"
    )
    assert land.shape == (3, 2)
    assert np.isnan(land[2, 1]) and not np.isnan(land[0, 0])
    with pytest.raises(ValueError, match="2D stencil"):
        cm_time.landscape("heat3d", "gtx980", (64, 64, 64, 64), 8, [2], [32], variant="paper")


def test_talg_batch_terms_are_lazy_and_see_the_tiles_of_the_call() -> None:
    sizes = (4096, 4096, 4096)
    tiles = np.array([[4, 64, 8], [3, 64, 9], [16, 128, 16]], dtype=np.int64)
    batch = cm_time.talg_batch("heat2d", "gtx980", sizes, tiles, variant="paper")
    tiles[0, 0] = 5  # the caller's later edit must not reach the terms computed on access
    b = cm_time.breakdown("heat2d", "gtx980", sizes, (4, 64, 8), variant="paper")
    assert batch.terms["c_s"][0] == b.c_s
    assert batch.terms["k"][0] == b.k
    assert np.isnan(batch.terms["c_s"][1])  # odd tT: infeasible
    restored = pickle.loads(pickle.dumps(batch))
    assert np.array_equal(restored.terms["t_tile_s"], batch.terms["t_tile_s"], equal_nan=True)
    assert np.array_equal(restored.talg_s, batch.talg_s, equal_nan=True)


def test_talg_batch_without_terms() -> None:
    sizes = (4096, 4096, 4096)
    tiles = [[4, 64, 8], [16, 128, 16]]
    fast = cm_time.talg_batch("heat2d", "gtx980", sizes, tiles, terms=False, variant="paper")
    full = cm_time.talg_batch("heat2d", "gtx980", sizes, tiles, variant="paper")
    assert np.array_equal(fast.talg_s, full.talg_s)
    with pytest.raises(ValueError, match="terms=True"):
        _ = fast.terms
    with pytest.raises(TypeError, match="terms: expected True or False"):
        cm_time.talg_batch("heat2d", "gtx980", sizes, tiles, terms="yes", variant="paper")  # type: ignore[arg-type]


# ------------------------------------------------------------------ boundary cases (issue 6)
# Defect examples of issue 6, each pinned: it now raises a clear error or answers right.


def test_huge_shared_memory_is_refused_not_a_negative_k() -> None:
    # Was: smem_per_sm_bytes = 2**80 accepted; k = -2**63, T_alg far below T_ideal.
    with pytest.raises(OverflowError, match=r"smem_per_sm_bytes: .* outside"):
        dataclasses.replace(GTX980, smem_per_sm_bytes=2**80)
    with pytest.raises(ValueError, match=r"smem_per_sm_bytes \(as words\): must be in"):
        dataclasses.replace(GTX980, smem_per_sm_bytes=2**30, smem_per_block_bytes=2**30)
    with pytest.raises(ValueError, match=r"smem_per_sm_words: must be in \[1, 4194304\]"):
        core_gpu(smem_per_sm_words=2.0**80)


def test_k_at_the_limit_is_exact_and_bounded_by_mtb() -> None:
    # M_SM = 2^22 words, M_tile of (8, 8) in 1D = 2 (8 + 8) = 32 words: floor(2^22/32) =
    # 131072 tiles fit, so k = MTB_SM = 32 (Eq. A.12).
    b = cm.time.breakdown(ONE_D, BIG, (4096, 1024), (8, 8), variant="paper")
    assert b.m_tile_words == 32.0 and b.k == 32
    assert b.talg_s >= b.t_ideal_s > 0


def test_hyperthreading_factor_of_zero_tile_memory_is_refused() -> None:
    # Was: _core.time.hyperthreading_factor(gpu, 0.0) converted inf to int64.
    with pytest.raises(ValueError, match=r"m_tile_words: must be positive and finite, got 0"):
        _core.time.hyperthreading_factor(core_gpu(), 0.0)
    with pytest.raises(ValueError, match="m_tile_words"):
        _core.time.hyperthreading_factor(core_gpu(), math.nan)
    # 24576 words / 2482 words = 9.9: k = 9 (Eq. A.12), below MTB_SM = 32.
    assert _core.time.hyperthreading_factor(core_gpu(), 2482.0) == 9


def test_m_tile_words_of_huge_tiles_has_no_integer_overflow() -> None:
    # Was: m_tile_words(2, tiles of 2**62) overflowed signed arithmetic (UB).
    tiles = _core.time.TileSizes(space=[2**62, 2**62, 0], time=2)
    m = _core.time.m_tile_words(2, tiles)
    assert m == pytest.approx(2.0 * (2.0**62 + 3) ** 2)  # Eq. A.20, in double
    assert _core.time.feasibility(core_gpu(), 2, tiles) != 0
    with pytest.raises(ValueError, match="tS2: must be positive"):
        _core.time.m_tile_words(2, _core.time.TileSizes(space=[8, -64, 0], time=2))


def test_huge_3d_tiles_are_infeasible_not_a_negative_time() -> None:
    # Was: huge shared memory and tiles (2**23, 2**20, 2**20, 2) gave negative c_s, T_alg.
    with pytest.raises(ValueError, match="tiles: infeasible: M_tile exceeds"):
        cm.time.talg(
            "heat3d", BIG, (1024, 1024, 1024, 1024), (2**23, 2**20, 2**20, 2), variant="paper"
        )
    batch = cm.time.talg_batch(
        "heat3d",
        BIG,
        (1024, 1024, 1024, 1024),
        [[2**23, 2**20, 2**20, 2], [4, 4, 32, 2]],
        variant="paper",
    )
    assert batch.feasible.tolist() == [False, True]
    assert batch.talg_s[1] > 0


@pytest.mark.parametrize(
    ("field", "value"),
    [("tau_sync_s", 1e308), ("t_sync_s", 1.7e308), ("l_s_per_word", 1e300)],
)
def test_times_that_would_overflow_are_refused(field: str, value: float) -> None:
    # Was: tau_sync_s = 1e308 or c_iter_s = 1.7e308 gave T_alg = inf.
    with pytest.raises(ValueError, match=rf"{field}: must be 0 or in \[1e-290, 1\] s"):
        core_gpu(**{field: value})
    with pytest.raises(ValueError, match=r"c_iter_s: must be in \[1e-290, 1\] s"):
        _core.time.StencilParams(n_space_dims=2, c_iter_s=1.7e308)
    with pytest.raises(ValueError, match=r"c_iter_s\['gtx980'\]: must be in \(0, 1\] s"):
        cm.Stencil(name="Fast", n_space_dims=1, c_iter_s={"gtx980": 1.7e308})


def test_one_block_per_sm_1d_is_finite() -> None:
    # Was: max_blocks_per_sm = 1 on a 1D stencil gave NaN (with huge times).
    g = dataclasses.replace(GTX980, max_blocks_per_sm=1)
    b = cm.time.breakdown(ONE_D, g, (4096, 1024), (8, 8), variant="paper")
    # k = 1: T_tile = m' + c (Eq. A.11).
    assert b.k == 1 and b.t_tile_s == pytest.approx(b.m_prime_s + b.c_s, rel=1e-15)
    assert math.isfinite(b.talg_s)


def test_slowest_accepted_gpu_gives_finite_results_everywhere() -> None:
    slow = dataclasses.replace(
        GTX980, tau_sync_s=1.0, t_sync_s=1.0, l_s_per_gb=2.5e8, max_blocks_per_sm=1
    )
    slow_stencil = cm.Stencil(name="Slow", n_space_dims=2, c_iter_s={"gtx980": 1.0})
    space = cm.time.default_search_space(2)
    batch = cm.time.talg_batch(
        slow_stencil, slow, (8192, 8192, 8192), space.grid(), variant="paper"
    )
    ok = batch.feasible
    assert ok.any() and np.isfinite(batch.talg_s[ok]).all()
    assert np.isnan(batch.talg_s[~ok]).all()
    best = cm.time.best_tiles(slow_stencil, slow, (8192, 8192, 8192), variant="paper")
    assert math.isfinite(best.talg_s) and best.talg_s == np.nanmin(batch.talg_s)
    assert len(best.near_optimal) < best.n_feasible


def test_batch_of_uint64_tiles_does_not_wrap() -> None:
    # Was: talg_batch on np.uint64 tiles wrapped 2**63 to a negative number.
    tiles = np.array([[2**63, 64, 8]], dtype=np.uint64)
    with pytest.raises(OverflowError, match="tiles"):
        cm.time.talg_batch("heat2d", "gtx980", (4096, 4096, 1024), tiles, variant="paper")
    ok = cm.time.talg_batch(
        "heat2d",
        "gtx980",
        (4096, 4096, 1024),
        np.array([[8, 64, 8]], dtype=np.uint64),
        variant="paper",
    )
    assert ok.talg_s[0] == cm.time.talg(
        "heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8), variant="paper"
    )


def test_exact_variant_work_is_bounded() -> None:
    # Was: a 1D call with tiles (2, 2**30) took 28 s and 8.4 GB. Now tiles beyond the
    # shared-memory limit (2^22 words) are infeasible, and the largest feasible tT runs in
    # well under a second with O(tT) memory.
    with pytest.raises(ValueError, match="infeasible"):
        cm.time.talg(ONE_D, BIG, (2**20, 2**10), (2, 2**30), variant="exact")
    start = time.perf_counter()
    t = cm.time.talg(ONE_D, BIG, (2**20, 2**10), (2, 2**21 - 4), variant="exact")
    assert math.isfinite(t) and t > 0
    assert time.perf_counter() - start < 30  # a hang guard, not a benchmark


def test_checked_messages_print_small_values_exactly() -> None:
    # Was: checked.hpp printed -3e-8 as "-0.000000".
    with pytest.raises(
        ValueError, match=r"tau_sync_s: must be 0 or in \[1e-290, 1\] s, got -3e-08"
    ):
        core_gpu(tau_sync_s=-3e-8)


# ------------------------------------------------------------------ Hypothesis campaign
# Generated arguments against the contract of _support.py (run long: HYPOTHESIS_PROFILE=long
# pytest -m campaign).


STENCILS = st.sampled_from(["heat2d", "heat3d", "jacobi2d", "laplacian3d", "gradient2d"])


GPUS = st.sampled_from(["gtx980", "titanx"])


SIZES = st.one_of(
    sequence(st.one_of(st.integers(1, 9000), INTEGERS), 2, 5),
    st.builds(lambda a, b, c: (a, b, c), st.integers(1, 9000), st.integers(1, 9000),
              st.integers(1, 9000)),
)  # fmt: skip


TILES = st.one_of(
    sequence(st.one_of(st.integers(1, 300), EXTREME_INTS), 2, 5),
    st.builds(lambda a, b, c: (a, b, c), st.integers(1, 64), st.sampled_from([32, 64, 96, 128]),
              st.sampled_from([2, 4, 8, 16])),
)  # fmt: skip


VARIANTS = st.one_of(
    st.sampled_from(["paper", "exact", "machine"]), st.sampled_from(["approx", None, 1])
)


@campaign
@given(STENCILS, GPUS, SIZES, TILES, VARIANTS)
def test_time_breakdown_contract(
    stencil: str, gpu: str, sizes: Any, tiles: Any, variant: Any
) -> None:
    b = contract(lambda: cm.time.breakdown(stencil, gpu, sizes, tiles, variant=variant))
    if b is not None:
        check_breakdown(b, variant)
        assert b.talg_s == cm.time.talg(stencil, gpu, sizes, tiles, variant=variant)


@campaign
@given(STENCILS, GPUS, SIZES, st.lists(TILES, min_size=1, max_size=4), VARIANTS, ANY_INT)
def test_time_batch_contract(
    stencil: str, gpu: str, sizes: Any, rows: Any, variant: Any, n_threads: Any
) -> None:
    batch = contract(
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


@campaign
@given(STENCILS, GPUS, SIZES, st.one_of(SPECIAL_FLOATS, WRONG, st.floats(0, 1)), SPACES)
def test_time_best_tiles_contract(
    stencil: str, gpu: str, sizes: Any, within: Any, space: Any
) -> None:
    if space is None:  # the default space costs ~10 ms per call: keep the campaign small
        space = [[1, 8, 16], [32, 64], [2, 8]] if cm.stencil(stencil).n_space_dims == 2 else None
    if space is None:
        return
    best = contract(
        lambda: cm.time.best_tiles(stencil, gpu, sizes, within=within, space=space, variant="paper")
    )
    if best is None:
        return
    finite_nonnegative(best.talg_s, float(best.within))
    assert 1 <= len(best.near_optimal) <= best.n_feasible <= best.n_points
    assert best.near_optimal_talg_s[0] == best.talg_s
    assert (best.near_optimal_talg_s <= best.talg_s * (1 + best.within) * (1 + 1e-12)).all()


@campaign
@given(STENCILS, GPUS, SIZES, TILES)
def test_time_ideal_and_overhead_contract(stencil: str, gpu: str, sizes: Any, tiles: Any) -> None:
    ideal = contract(lambda: cm.time.t_ideal(stencil, gpu, sizes))
    if ideal is not None:
        finite_nonnegative(ideal)
    closed = contract(lambda: cm.time.t_overhead_closed_form(stencil, gpu, sizes, tiles))
    if closed is not None:
        finite_nonnegative(closed)


def test_campaign_strategies_reach_both_outcomes() -> None:
    # The campaign is not vacuous: its generators produce both accepted and refused calls.
    accepted = contract(
        lambda: cm.time.talg("heat2d", "gtx980", (512, 512, 512), (8, 64, 8), variant="paper")
    )
    refused = contract(
        lambda: cm.time.talg("heat2d", "gtx980", (512, 512, 512), (8, 64, 7), variant="paper")
    )
    assert accepted is not None and refused is None
    assert dataclasses.is_dataclass(cm.gpu("gtx980"))


def test_bad_input_the_time_model_used_to_pass_on() -> None:
    # Adversarial campaign (2026-11-30).
    for mask in (32, 2**31, 10**9, 1 | 64):
        with pytest.raises(ValueError, match="reasons: unknown bits"):
            cm_time.describe_infeasibility(mask)
    every = cm_time.describe_infeasibility(31)
    assert "tT must be even" in every and "per SM" in every
    bad = cm_time.SearchSpace(space=None, time=(2,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"space.space: expected a sequence"):
        cm_time.best_tiles("heat2d", "gtx980", (4096, 4096, 1024), space=bad)
    with pytest.raises(ValueError, match=r"space\[0\]: no candidates"):
        cm_time.best_tiles("heat2d", "gtx980", (4096, 4096, 1024), space=[[], [], []])
    with pytest.raises(ValueError, match=r"space.time: no tT candidates"):
        cm_time.best_tiles(
            "heat2d", "gtx980", (4096, 4096, 1024), space=cm_time.SearchSpace(((4,), (32,)), ())
        )
    with pytest.raises(ValueError, match=r"^threads: must be in"):
        cm_time.design_rows("heat2d", "gtx980", (4096, 4096, 1024), [[4, 32, 2]], threads=-1)
    # An overflowing product shows its operands.
    with pytest.raises(OverflowError, match=r"\d+ x \d+ overflows a 64-bit integer"):
        cm_time.talg("heat2d", "gtx980", [2**62] * 3, (4, 32, 2))


def test_repeated_search_candidates_are_refused() -> None:
    # They were searched once per repeat: n_points 12 and 12 identical near-optimal rows.
    with pytest.raises(ValueError, match=r"space\[0\]: candidate 4 appears twice"):
        cm_time.best_tiles("heat2d", "gtx980", (4096, 4096, 1024), space=[[4, 4, 4], [32], [2]])
    with pytest.raises(ValueError, match=r"space.time: candidate 2 appears twice"):
        cm_time.best_tiles(
            "heat2d", "gtx980", (4096, 4096, 1024),
            space=cm_time.SearchSpace(((4,), (32,)), (2, 2)),
        )  # fmt: skip


def test_subnormal_time_parameters_are_refused() -> None:
    # adv_a 7: c_iter_s = 5e-324 (subnormal) was accepted and gave T_ideal = 0.0; the time
    # parameters now start at MIN_TIME_PARAMETER_S = 1e-290 (0 still allowed for the
    # per-event costs), so T_ideal = c_iter_s points / (nSM nV) is a positive normal double.
    assert _core.time.MIN_TIME_PARAMETER_S == 1e-290
    g = cm.gpu("gtx980")
    tiny = cm.Stencil(name="X", n_space_dims=2, c_iter_s={"gtx980": 5e-324})
    with pytest.raises(ValueError, match=r"^c_iter_s: must be in \[1e-290, 1\] s, got 5e-324"):
        cm.time.t_ideal(tiny, g, (1, 32, 1))
    for name in ("tau_sync_s", "t_sync_s"):  # a Gpu checks its fields when it is built
        with pytest.raises(ValueError, match=rf"{name}: must be in \[1e-290, 1\] s"):
            dataclasses.replace(g, **{name: 5e-324})  # type: ignore[arg-type]
    # The floor itself, on the largest GPU the model takes: T_ideal is normal and > 0.
    low = cm.Stencil(name="X", n_space_dims=2, c_iter_s={"gtx980": 1e-290})
    big = dataclasses.replace(g, n_sm=2**20, n_v=2**20)
    t = cm.time.t_ideal(low, big, (1, 1, 1))
    assert t >= np.finfo(np.float64).tiny and t == 1e-290 / 2**40
    floor = dataclasses.replace(g, tau_sync_s=1e-290, t_sync_s=1e-290)
    assert cm.time.talg("heat2d", floor, (1024, 1024, 256), (8, 64, 8)) > 0


def test_talg_batch_takes_lists_mixing_python_and_numpy_integers() -> None:
    # adv_a 5: NumPy promotes int64 with uint64 to float64, so [[8, np.uint64(64), 8]] was
    # refused as "dtype float64" although the scalar talg took it; now integers of any
    # kind are integers, a float among them is still refused.
    size = (1024, 1024, 256)
    mixed: Any = [[8, np.uint64(64), 8], [np.int32(8), 64, np.uint64(16)]]
    batch = cm.time.talg_batch("heat2d", "gtx980", size, mixed)
    assert batch.talg_s.tolist() == [
        cm.time.talg("heat2d", "gtx980", size, (8, 64, 8)),
        cm.time.talg("heat2d", "gtx980", size, (8, 64, 16)),
    ]
    with pytest.raises(TypeError, match="tiles"):
        cm.time.talg_batch("heat2d", "gtx980", size, [[8, np.uint64(64), 8.0]])  # type: ignore[arg-type]
    with pytest.raises(OverflowError, match="tiles"):
        cm.time.talg_batch("heat2d", "gtx980", size, [[8, np.uint64(2**63), 8]])  # type: ignore[arg-type]


def test_rows_without_entries_and_masked_arrays_are_refused() -> None:
    # [[]] and [[], []] were read as "no rows" and a masked array's mask was dropped,
    # so the masked entry was computed (2026-11-30 campaign).
    sizes = (64, 64, 16)
    rows: Any
    for rows in ([[]], [[], []]):
        with pytest.raises(ValueError, match=r"tiles: must have shape \(n, 3\).*got shape \("):
            cm_time.talg_batch("heat2d", "gtx980", sizes, rows)
    masked = np.ma.array([[7, 64, 16]], mask=[[True, False, False]])
    with pytest.raises(TypeError, match="tiles: a masked array's mask would be ignored"):
        cm_time.talg_batch("heat2d", "gtx980", sizes, masked)
    empty: Any
    for empty in ([], np.zeros((0, 3), dtype=np.int64)):
        assert cm_time.talg_batch("heat2d", "gtx980", sizes, empty).talg_s.shape == (0,)
    # -0.0 is recorded as 0.0 (it was echoed as -0.0 by BestTiles.within and --json).
    best = cm_time.best_tiles("heat2d", "gtx980", (256, 256, 64), within=-0.0)
    assert math.copysign(1.0, best.within) == 1.0


def test_object_arrays_of_python_integers_are_read_as_numbers() -> None:
    # An object array of ints that fit was refused as "does not fit a 64-bit integer"; a
    # real given as a Python int past 64 bits was refused in a batch though the scalar
    # call takes it.
    got = cm.area.die_area(np.array([16, 32], dtype=object), 128, 96)
    np.testing.assert_array_equal(got, cm.area.die_area(np.array([16, 32]), 128, 96))
    tiles = [[64, 16]]
    batch = cm.energy.energy_batch("jacobi1d", None, (8192, 2048), tiles, talg_s=[2**70])
    scalar = cm.energy.energy("jacobi1d", None, (8192, 2048), tiles[0], talg_s=2**70)
    assert batch.e_alg_j[0] == scalar
    with pytest.raises(OverflowError, match=r"talg_s: .* does not fit a double"):
        cm.energy.energy_batch("jacobi1d", None, (8192, 2048), tiles, talg_s=[10**400])
