# This file calls the API with wrong types on purpose; mypy would (rightly) refuse them.
# mypy: disable-error-code="arg-type,call-arg,list-item"
"""Every defect example of issue 6, pinned: each now raises a clear error or answers right.

Sections follow the issue: silent wrong numbers; spurious refusals, accepted nonsense and
hangs; unclear errors; the typed single-source boundary (records, pickling, stubs); the
raw ``_core`` functions; the command line.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import time
from pathlib import Path

import numpy as np
import pytest

import costmetrics as cm
from costmetrics import _core
from costmetrics.cli import main

GTX980 = cm.gpu("gtx980")
ONE_D = cm.Stencil(name="Line1D", n_space_dims=1, c_iter_s={"gtx980": 1e-8})
# The largest shared memory the model accepts: 2^22 words = 16 MiB (docs/time.md).
BIG = dataclasses.replace(GTX980, smem_per_sm_bytes=2**24, smem_per_block_bytes=2**24)


def _core_gpu(**changes: object) -> _core.time.GpuParams:
    fields = GTX980._core_params()._asdict()
    fields.update(changes)
    return _core.time.GpuParams(**fields)


# ------------------------------------------------------------------ silent wrong numbers


def test_huge_shared_memory_is_refused_not_a_negative_k() -> None:
    # Was: smem_per_sm_bytes = 2**80 accepted; k = -2**63, T_alg far below T_ideal.
    with pytest.raises(OverflowError, match=r"smem_per_sm_bytes: .* outside"):
        dataclasses.replace(GTX980, smem_per_sm_bytes=2**80)
    with pytest.raises(ValueError, match=r"smem_per_sm_bytes \(as words\): must be in"):
        dataclasses.replace(GTX980, smem_per_sm_bytes=2**30, smem_per_block_bytes=2**30)
    with pytest.raises(ValueError, match=r"smem_per_sm_words: must be in \[1, 4194304\]"):
        _core_gpu(smem_per_sm_words=2.0**80)


def test_k_at_the_limit_is_exact_and_bounded_by_mtb() -> None:
    # M_SM = 2^22 words, M_tile of (8, 8) in 1D = 2 (8 + 8) = 32 words: floor(2^22/32) =
    # 131072 tiles fit, so k = MTB_SM = 32 (Eq. A.12).
    b = cm.time.breakdown(ONE_D, BIG, (4096, 1024), (8, 8), variant="paper")
    assert b.m_tile_words == 32.0 and b.k == 32
    assert b.talg_s >= b.t_ideal_s > 0


def test_hyperthreading_factor_of_zero_tile_memory_is_refused() -> None:
    # Was: _core.time.hyperthreading_factor(gpu, 0.0) converted inf to int64.
    with pytest.raises(ValueError, match=r"m_tile_words: must be positive and finite, got 0"):
        _core.time.hyperthreading_factor(_core_gpu(), 0.0)
    with pytest.raises(ValueError, match="m_tile_words"):
        _core.time.hyperthreading_factor(_core_gpu(), math.nan)
    # 24576 words / 2482 words = 9.9: k = 9 (Eq. A.12), below MTB_SM = 32.
    assert _core.time.hyperthreading_factor(_core_gpu(), 2482.0) == 9


def test_m_tile_words_of_huge_tiles_has_no_integer_overflow() -> None:
    # Was: m_tile_words(2, tiles of 2**62) overflowed signed arithmetic (UB).
    tiles = _core.time.TileSizes(space=[2**62, 2**62, 0], time=2)
    m = _core.time.m_tile_words(2, tiles)
    assert m == pytest.approx(2.0 * (2.0**62 + 3) ** 2)  # Eq. A.20, in double
    assert _core.time.feasibility(_core_gpu(), 2, tiles) != 0
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
    with pytest.raises(ValueError, match=rf"{field}: must be in \[0, 1\] s"):
        _core_gpu(**{field: value})
    with pytest.raises(ValueError, match=r"c_iter_s: must be in \[0, 1\] s"):
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


def test_single_matrix_data_movement_is_refused() -> None:
    # Was: data_movement([2, 2], 1).fused_total = 0.0 while output_words = 4.0, and
    # pareto_front([1000, 2000], 100) reported 0 words "including the final write".
    with pytest.raises(ValueError, match="at least two matrices"):
        cm.chain.data_movement([2, 2], 1)
    with pytest.raises(ValueError, match="at least two matrices"):
        cm.chain.pareto_front([1000, 2000], 100)
    # Two matrices: F + P0 P2 = S, and output_words = P0 P2 = 1000 * 3000 (D.18, D.23).
    dm = cm.chain.data_movement([1000, 2000, 3000], 100)
    assert dm.output_words == 3_000_000.0
    assert dm.fused_total == pytest.approx(dm.single_mm_total, rel=1e-15)
    assert dm.fused_total == dm.fused_internal + dm.output_words


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


# ------------------------------------------------------------------ refusals, nonsense, hangs


def test_op_count_that_fits_is_answered() -> None:
    # Was: optimal_order([2**43, 1, 1]) raised OverflowError although A1 A2 costs
    # P0 P1 P2 = 2^43 * 1 * 1 = 2^43 (the bound (n-1) max(P)^3 = 2^129 overflowed).
    order = cm.chain.optimal_order([2**43, 1, 1])
    assert order.cost == 2**43 and order.parenthesization == "(A1A2)"
    # Three matrices: A1(A2A3) costs 1*1*1 + 2^43*1*1 = 2^43 + 1; (A1A2)A3 costs
    # 2^43*1*1 + 2^43*1*1 = 2^44. Candidates of 2^129 saturate in the 128-bit path.
    order = cm.chain.optimal_order([2**43, 1, 1, 1])
    assert order.cost == 2**43 + 1 and order.parenthesization == "(A1(A2A3))"


@pytest.mark.parametrize("dims", [{3, 4, 5}, b"\x03\x04\x05", {3: 4, 5: 6}, "345", 7, None])
def test_unordered_or_non_size_dims_are_refused(dims: object) -> None:
    with pytest.raises(TypeError, match="dims: expected a sequence of integers"):
        cm.chain.optimal_order(dims)


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


def test_pareto_front_range_is_stated_and_enforced() -> None:
    # Was: n = 80 took 33 s, and the CLI's --pareto had no guard.
    dims = cm.chain.random_chain(80, 0)
    with pytest.raises(ValueError, match="at most 32 matrices, got 80"):
        cm.chain.pareto_front(dims, 65536)
    assert cm.chain.pareto_front(cm.chain.random_chain(32, 0), 65536)


# ------------------------------------------------------------------ unclear errors


@pytest.mark.parametrize(
    ("call", "exception", "match"),
    [
        (lambda: cm.time.talg("heat2d", "gtx980", (64, 64, 64), (8, 64, 8), variant=None),
         TypeError, r"variant: expected one of 'paper', 'exact', 'machine', got NoneType None"),
        (lambda: dataclasses.replace(GTX980, n_sm=2**31), OverflowError, "n_sm: 2147483648"),
        (lambda: dataclasses.replace(GTX980, n_v=2**40), OverflowError, "n_v: 1099511627776"),
        (lambda: cm.time.talg_batch("heat2d", "gtx980", (64, 64, 64), [[8, 64, 8]],
                                    threads=1.5), TypeError, "threads: expected an integer"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64),
                                    space=[[8], [2**63], [8]]), OverflowError, r"space\[1\]\[0\]"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64), space=[[8], [64]]),
         ValueError, r"space: expected 3 candidate lists \(tS1, tS2, tT\), got 2"),
        (lambda: cm.time.best_tiles("heat2d", "gtx980", (64, 64, 64), within="a lot"),
         TypeError, "within: expected a real number, got str 'a lot'"),
        (lambda: cm.chain.optimal_order([3, 4, 5], threads="x"), TypeError,
         "threads: expected an integer, got str 'x'"),
        (lambda: cm.time.talg_batch("heat2d", "gtx980", (64, 64, 64), [[8, 64, 8], [8, 64]]),
         ValueError, r"tiles: rows must all have 3 entries"),
        (lambda: cm.load_gpu(None), TypeError, "path: expected a str or pathlib.Path"),
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


def test_load_gpu_messages_name_the_file(tmp_path: Path) -> None:
    # Non-UTF-8 file: the message names the file.
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ValueError, match=r"latin1.yaml is not UTF-8"):
        cm.load_gpu(bad)
    # Mixed-type unknown keys: a clear "unknown field", not a TypeError from sorting.
    mixed = tmp_path / "mixed.yaml"
    fields = {**GTX980.to_dict()}
    text = "\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items())
    mixed.write_text(text + "\n1: one\nzz: two\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"mixed.yaml: unknown field \(unknown: \['zz', 1\]"):
        cm.load_gpu(mixed)
    # Deeply nested YAML: a ValueError naming the file, not RecursionError.
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"deep.yaml"):
        cm.load_gpu(deep)
    # A field of the wrong type in a file is a bad value of that file.
    typed = tmp_path / "typed.yaml"
    typed.write_text(text.replace('"n_sm": 16', "").replace("n_sm: 16", "n_sm: many") + "\n")
    with pytest.raises(ValueError, match=r"n_sm in .*typed.yaml"):
        cm.load_gpu(typed)


def test_numpy_integers_are_accepted_everywhere() -> None:
    # Was: refused by cm.Gpu but accepted by the time functions.
    g = dataclasses.replace(GTX980, n_sm=np.int32(16), smem_per_sm_bytes=np.int64(98304))
    assert g == GTX980
    sizes = np.array([4096, 4096, 1024])
    assert cm.time.talg("heat2d", g, sizes, np.array([8, 64, 8]), variant="paper") == cm.time.talg(
        "heat2d", GTX980, (4096, 4096, 1024), (8, 64, 8), variant="paper"
    )
    assert cm.chain.optimal_order(np.array([30, 35, 15, 5, 10, 20, 25])).cost == 15125


def test_type_errors_are_type_errors_and_value_errors_value_errors() -> None:
    with pytest.raises(TypeError, match=r"sizes\[0\]: expected an integer, got float"):
        cm.time.talg("heat2d", "gtx980", (64.0, 64, 64), (8, 64, 8), variant="paper")
    with pytest.raises(TypeError, match="n_sm: expected a positive integer"):
        dataclasses.replace(GTX980, n_sm=16.0)
    with pytest.raises(TypeError, match="M: expected an integer"):
        cm.chain.data_movement([936, 1008, 552], 65536.0)
    with pytest.raises(ValueError, match=r"dims\[1\]: must be positive, got 0"):
        cm.chain.optimal_order([3, 0, 5])


def test_checked_messages_print_small_values_exactly() -> None:
    # Was: checked.hpp printed -3e-8 as "-0.000000".
    with pytest.raises(ValueError, match=r"tau_sync_s: must be in \[0, 1\] s, got -3e-08"):
        _core_gpu(tau_sync_s=-3e-8)


# ------------------------------------------------------------------ records and pickling


def test_chain_node_carries_every_field_of_the_core_record() -> None:
    dm = cm.chain.data_movement([936, 1008, 552, 368, 1016, 616, 544], 65536)
    node = dm.nodes[2]  # T3 of Fig. D.10: <1,3>, children T1 (right) and a matrix (left)
    assert {"height", "left", "right", "parent", "label", "tile", "tile_exact"} <= set(node._fields)
    assert (node.label, node.height, node.left, node.right, node.parent) == ("T3", 2, -1, 0, 4)
    assert dm.nodes[node.right].label == "T1"
    assert type(node) is _core.chain.NodeCost is cm.chain.ChainNode


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
        _core.time.TileSizes([8, 64, 0], 8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        _core.time.StencilParams(n_space_dims=2, c_iter_s=1e-8, colour=1)
    with pytest.raises(TypeError, match=r"ProblemSize.space\[1\]: expected an integer"):
        _core.time.ProblemSize(space=[1, "2", 3], time_steps=4)
    with pytest.raises(ValueError, match=r"ProblemSize.space: expected 3 entries, got 2"):
        _core.time.ProblemSize(space=[1, 2], time_steps=4)
    with pytest.raises(ValueError, match="choice: expected one of 'none', 'left', 'right'"):
        fields = cm.chain.data_movement([936, 1008, 552], 65536).nodes[0]._asdict()
        _core.chain.NodeCost(**{**fields, "choice": "up"})


# ------------------------------------------------------------------ raw _core functions


def test_raw_core_functions_validate_and_convert() -> None:
    gpu = _core_gpu()
    stencil = _core.time.StencilParams(n_space_dims=2, c_iter_s=3.68e-8)
    size = _core.time.ProblemSize(space=[4096, 4096, 0], time_steps=1024)
    tiles = _core.time.TileSizes(space=[8, 64, 0], time=8)
    b = _core.time.evaluate(gpu, stencil, size, tiles, "paper")
    assert b == cm.time.breakdown(
        "heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8), variant="paper"
    )
    with pytest.raises(TypeError, match=r"gpu: expected a costmetrics\._core\.time\.GpuParams"):
        _core.time.evaluate(1, 2, 3, 4)
    with pytest.raises(TypeError, match="variant: expected one of"):
        _core.time.evaluate(gpu, stencil, size, tiles, None)
    with pytest.raises(ValueError, match="S3: must be 0 for a 2D stencil"):
        _core.time.t_ideal_s(gpu, stencil, _core.time.ProblemSize(space=[8, 8, 8], time_steps=8))
    with pytest.raises(TypeError, match="tiles: expected an integer array"):
        _core.time.evaluate_batch(gpu, stencil, size, np.ones((2, 3)), "paper", 0)
    with pytest.raises(ValueError, match=r"threads: must be in \[0, 1024\]"):
        _core.time.evaluate_batch(gpu, stencil, size, np.ones((2, 3), dtype=int), "paper", -1)
    with pytest.raises(ValueError, match="space: more than 2\\^24 points"):
        _core.time.SearchSpace(space=[list(range(1, 4098)), list(range(1, 4098))], time=[2])
    with pytest.raises(TypeError, match="dims: expected a sequence"):
        _core.chain.optimal_order({1, 2, 3})
    with pytest.raises(ValueError, match="beta: expected one of 'printed', 'derived'"):
        _core.chain.data_movement([936, 1008, 552], 65536, "other", 1)
    with pytest.raises(ValueError, match=r"i, j: need 1 <= i < j <= 2"):
        _core.chain.optimal_order([3, 4, 5]).split_at(2, 1)


def test_threaded_dp_path_agrees_with_the_single_thread_path() -> None:
    # The default threshold keeps chains below ~1500 matrices on one thread; with
    # min_work_per_thread=1 every anti-diagonal is split over the threads.
    dims = [int(v) for v in np.random.default_rng(3).integers(1, 1000, size=301)]
    one = cm.chain.optimal_order(dims, threads=1)
    many = cm.chain.optimal_order(dims, threads=4, min_work_per_thread=1)
    assert many.cost == one.cost and many.parenthesization == one.parenthesization
    with pytest.raises(ValueError, match="min_work_per_thread"):
        cm.chain.optimal_order(dims, min_work_per_thread=0)


# ------------------------------------------------------------------ typing
# That the public API is typed for mypy (not Any) is checked in the lint step by
# tests/typecheck/check_public_api.py, so that the test extra needs no type checker.


def test_star_import_keeps_the_standard_time_module() -> None:
    namespace: dict[str, object] = {}
    exec("import time\nfrom costmetrics import *", namespace)
    assert namespace["time"] is time
    assert "time" not in cm.__all__ and cm.time.talg is not None


# ------------------------------------------------------------------ command line


@pytest.mark.parametrize(
    "argv",
    [
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "-5,64,64", "--tiles",
         "8,64,8"],
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes=-5,64,64", "--tiles",
         "8,64,8"],
        ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,x", "--tiles",
         "8,64,8"],
        ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,64",
         "--within", "a lot"],
        ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "64,64,64",
         "--within", "nan"],
        ["chain", "--dims", "1000,2000", "--M", "100", "--pareto"],
        ["chain", "--dims", ",".join(["1000"] * 81), "--M", "65536", "--pareto"],
        ["chain", "--dims", "3,4,5", "--pareto"],
        ["talg", "--stencil", "heat2d"],
        ["no-such-command"],
        [],
    ],
)  # fmt: skip
def test_cli_bad_input_is_one_line_and_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], captured.err


def test_cli_negative_sizes_reach_the_model_in_both_spellings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--sizes", "-5,64,64"], ["--sizes=-5,64,64"]):
        main(["talg", "--stencil", "heat2d", "--gpu", "gtx980", *argv, "--tiles", "8,64,8"])
        assert "S1: must be positive, got -5" in capsys.readouterr().err


def test_cli_talg_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "4096,4096,1024"]
    assert main([*argv, "--tiles", "8,64,8"]) == 0
    out = capsys.readouterr().out
    b = cm.time.breakdown("heat2d", "gtx980", (4096, 4096, 1024), (8, 64, 8))  # both default
    rows = dict(line.split() for line in out.strip().splitlines())
    assert list(rows) == list(b._fields)
    assert float(rows["talg_s"]) == pytest.approx(b.talg_s, rel=1e-5)  # printed with 6 digits
    assert rows["k"] == "9"  # floor(24576 / 2482) = 9 (Eq. A.12)


def test_cli_best_tiles_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["best-tiles", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "512,512,512"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    best = cm.time.best_tiles("heat2d", "gtx980", (512, 512, 512))  # both default
    assert out[0].startswith(f"best tiles {best.tiles}: T_alg = ")
    assert f"{best.n_feasible} feasible of {best.n_points} points" in out[0]
    assert out[1] == f"{len(best.near_optimal)} points within 10% of the minimum:"
    assert out[2].split() == ["tS1", "tS2", "tT", "talg_s"]


def test_cli_chain_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    dims = "936,1008,552,368,1016,616,544"  # 000 App. D.7
    assert main(["chain", "--dims", dims, "--M", "65536", "--pareto"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "min op count 1,092,977,664: ((A1(A2A3))((A4A5)A6))"
    assert out[1] == "S(1,n) = 10,190,344.0 words (OP-DM, Eq. D.18)"
    assert out[2].startswith("F(1,n) + P0Pn = 8,392,058.")
    assert out[2].endswith("(17.65% less): ({A1(A2A3)}{(A4A5)A6})")
    assert out[3].split()[:4] == ["node", "i", "j", "hp"]
    assert any(line.startswith("Pareto front") for line in out)


def test_cli_json_of_records(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["talg", "--stencil", "heat2d", "--gpu", "gtx980", "--sizes", "4096,4096,1024"]
    assert main([*argv, "--tiles", "8,64,8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 9 and data["n_wavefronts"] == 2 * 128 + 1  # Eq. A.3: 2 ceil(1024/8)+1
