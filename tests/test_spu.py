"""Tests of costmetrics.spu: the Stencil Processing Unit model (seed 003)."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics import _core
from costmetrics.experiments import spu as exp_spu

spu = cm.spu
SEED = spu.load_seed()


# --------------------------------------------------------------------------------------
# Seed numbers
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", SEED["table_6_3"], ids=lambda r: f"N{r['n']}")
def test_table_6_3_localized_sync(row: dict[str, int]) -> None:
    # 003 Table 6.3, localized sync "exactly match ... Equation 3.8" (p = 4, b = 32):
    # N = 128: 4*128^3/128 + 2*128^2 = 65,536 + 32,768 = 98,304;
    # N = 256: 4*256^3/128 + 2*256^2 = 524,288 + 131,072 = 655,360.
    oc = spu.off_chip(row["n"], tile=row["tile"], grid=SEED["grid_p"])
    assert oc.spu_exact == row["localized_sync"]
    assert oc.spu_closed_form == row["localized_sync"]


def test_eq_3_8_undercounts_partial_passes() -> None:
    # 003 Eq. 3.8 at N = 320 (Table 6.2 case, p b = 128): 4*320^3/128 + 2*320^2 = 1,228,800.
    # The 3 x 3 passes (widths 128, 128, 64) move 4*320*320*3 + 2*320^2 = 1,433,600.
    oc = spu.off_chip(320)
    assert oc.spu_closed_form == 1_228_800.0
    assert oc.spu_exact == 1_433_600
    assert oc.passes_per_dim == 3 and oc.partial_passes


def test_global_sync_table_6_3() -> None:
    # 003 Table 6.3 global sync, N = 256: 8x8x8 tiles, 2x2 passes, 16 spilling VIUs.
    # Algorithm 1: 8 + 8 + 8 - 2 = 22 syncblocks per block:
    #   6*256^2 + 2*16*22*1024 = 393,216 + 720,896 = 1,114,112.
    # The printed 1,179,648 = 393,216 + 2*16*24*1024: 24 spills per VIU.
    g = spu.global_sync(256)
    assert (g.syncs_per_block, g.spilling_vius, g.accesses) == (22, 16, 1_114_112)
    assert g.localized_accesses == 655_360
    observed = SEED["table_6_3"][1]["global_sync"]
    assert observed == 1_179_648
    assert spu.spills_per_viu_from_accesses(observed, 256) == 24.0
    assert spu.global_sync(256, extra_syncs_per_pass=2).accesses == observed
    # N = 128 is a single pass: no VIU, so both synchronizations give 98,304.
    assert spu.global_sync(128).accesses == SEED["table_6_3"][0]["global_sync"]


@pytest.mark.parametrize("row", SEED["table_6_2"] + SEED["table_a_1"], ids=lambda r: str(r))
def test_tables_6_2_and_a_1(row: dict[str, Any]) -> None:
    # 003 Tables 6.2 and A.1: blocks, threads per block, passes, partial-pass flag.
    c = spu.configuration(row["n"], k=row["k"], tile=row["tile"], subtile=row["subtile"])
    assert c.blocks_per_dim == row["blocks"]
    assert c.threads_per_dim == row["threads"]
    assert c.passes_per_dim == row["passes"]
    assert c.partial_passes == row["partial"]
    assert c.tiles_per_block == int(row["k"]) // int(row["tile"])
    # The tile fits the table's CB: b^2 words of 4 bytes (Sec. 6.3.4).
    assert spu.max_tile_for_cb(int(row["cb_kb"]) * 1024) == row["tile"]


def test_partial_pass_occupancy() -> None:
    # 003 Sec. 6.1.2, N = 320: "passes along the east and south boundary will occupy <= 3/4":
    # 10 blocks = 4 + 4 + 2; an edge pass computes on 2 columns and uses the third as IUs:
    # 3 * 4 / 16 = 0.75.
    assert spu.configuration(320).partial_pass_max_occupancy == SEED["partial_pass_occupancy_n320"]
    assert spu.configuration(384).partial_pass_max_occupancy == 1.0


@pytest.mark.parametrize("row", SEED["cb_tile"], ids=lambda r: str(r["cb_bytes"]))
def test_cb_tile(row: dict[str, int]) -> None:
    # 003 Sec. 6.3.4: 4 KB CB -> 1K 4-byte words -> 32x32; 16 KB -> 64x64.
    assert spu.max_tile_for_cb(row["cb_bytes"], SEED["word_bytes"]) == row["tile"]


def test_leakage_ratios_fix_table_6_4() -> None:
    # 003 Table 6.4 is garbled ("70.1 W / 79.1 W", "82 4 W / 02.4 W"); the text pins
    # 79.1 and 82.4: 79.1/46.4 - 1 = +70.5% ("nearly 70% more"), while 70.1/46.4 - 1 = +51%;
    # 82.4/79.1 - 1 = +4.2% ("about 4%"); 66.8/79.1 - 1 = -15.5% ("15% less").
    p = SEED["leakage_power_w"]
    claims = SEED["leakage_claims"]
    assert round(spu.relative_change(p["spu_cb4kb"], p["gtx480"]), 2) == claims["spu_over_gpu"]
    assert round(spu.relative_change(70.1, p["gtx480"]), 2) == 0.51
    assert round(spu.relative_change(p["spu_cb16kb"], p["spu_cb4kb"]), 2) == claims["cb16_over_cb4"]
    assert math.trunc(100 * spu.relative_change(p["spu_dma_cb4kb"], p["spu_cb4kb"])) == -15


# --------------------------------------------------------------------------------------
# Hand-computed values
# --------------------------------------------------------------------------------------


def test_gpu_counts_and_ratios() -> None:
    # Eq. 3.3, N = 256, b = 32: 4*256^3/32 + 2*256^2 = 2,097,152 + 131,072 = 2,228,224.
    oc = spu.off_chip(256)
    assert oc.gpu_exact == 2_228_224 and oc.gpu_closed_form == 2_228_224.0
    # Eqs. 3.4 / 3.10: 3*32/4 = 24 and 3*4*32/4 = 96 flops per word.
    assert oc.ccr_gpu_closed_form == 24.0 and oc.ccr_spu_closed_form == 96.0
    # Exact ratios: 3*256^3 = 50,331,648 flops over the exact counts.
    assert oc.ccr_spu_exact == pytest.approx(50_331_648 / 655_360, rel=1e-15)
    # Eq. 3.9: 4*256^3/128 - 4*256^2 = 524,288 - 262,144 = 262,144.
    assert oc.spill_restore_exact == 262_144 == oc.spill_restore_closed_form


def test_non_cubic_lower_bound() -> None:
    # N x N x K = 256 x 256 x 512: lower bound 2*256^2 + 4*256*512 = 131,072 + 524,288;
    # SPU: 4*256*512*2 + 2*256^2 = 1,048,576 + 131,072 = 1,179,648.
    oc = spu.off_chip(256, k=512)
    assert oc.lower_bound == 655_360
    assert oc.spu_exact == 1_179_648


def test_energy() -> None:
    # Eq. 6.1: 7e8 cycles at 700 MHz = 1 s; x 125.5 W = 125.5 J = 125,500 mJ.
    assert spu.energy_mj_from_cycles(7e8, 125.5, 700) == pytest.approx(125_500, rel=1e-15)
    # Eq. 3.5: 10 flops x 0.5 J + 4 accesses x 2 J + 3 W x 2 s = 5 + 8 + 6 = 19 J.
    e = spu.energy_split(10, 4, e_comp_j=0.5, e_mem_j=2.0, static_power_w=3.0, time_s=2.0)
    assert (e.compute_j, e.memory_j, e.static_j, e.dynamic_j, e.total_j) == (5, 8, 6, 13, 19)
    # Break-even: ((10 - 4) x 2 J + 3 W x 2 s) / 3 s = 6 W.
    p = spu.break_even_static_power_w(
        10, 4, e_mem_j=2.0, static_power_gpu_w=3.0, time_gpu_s=2.0, time_spu_s=3.0
    )
    assert p == pytest.approx(6.0, rel=1e-15)
    # Eq. 5.1: (4*16 + 16) x 4096 bytes = 327,680.
    assert spu.total_cb_bytes(16, 16, 4096) == 327_680


def test_records_pickle_and_asdict() -> None:
    oc = spu.off_chip(128)
    assert pickle.loads(pickle.dumps(oc)) == oc
    assert oc._asdict()["spu_exact"] == 98_304
    assert set(oc._fields) == set(oc._asdict())


def test_sweep_and_figures() -> None:
    s = spu.sweep([128, 256])
    assert list(s.spu_exact) == [98_304.0, 655_360.0]
    assert exp_spu.plot_accesses([128, 256, 512]).axes
    assert exp_spu.plot_energy([128, 256], e_comp_j=5.3e-11, e_mem_j=2.2e-9).axes
    fig = exp_spu.plot_break_even(
        512, [1e-10, 1e-9], static_power_gpu_w=46.4, times_s=[1e-3], leakage_marks_w={"x": 79.1}
    )
    assert fig.axes


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: spu.off_chip(0), ValueError),
        (lambda: spu.off_chip(-5), ValueError),
        (lambda: spu.off_chip(16), ValueError),  # tile 32 > N
        (lambda: spu.off_chip(2**40, tile=1), OverflowError),
        (lambda: spu.off_chip(2**70), OverflowError),
        (lambda: spu.off_chip(256.0), TypeError),  # type: ignore[arg-type]
        (lambda: spu.off_chip(True), TypeError),
        (lambda: spu.off_chip("256"), TypeError),  # type: ignore[arg-type]
        (lambda: spu.configuration(256, subtile=5), ValueError),
        (lambda: spu.global_sync(320 + 16), ValueError),
        (lambda: spu.global_sync(256, extra_syncs_per_pass=-1), ValueError),
        (lambda: spu.spills_per_viu_from_accesses(1, 256), ValueError),
        (lambda: spu.spills_per_viu_from_accesses(98_304, 128), ValueError),
        (lambda: spu.max_tile_for_cb(0), ValueError),
        (lambda: spu.max_tile_for_cb(4096, 0), ValueError),
        (lambda: spu.energy_mj_from_cycles(math.nan, 1, 700), ValueError),
        (lambda: spu.energy_mj_from_cycles(1, 1, 0), ValueError),
        (lambda: spu.energy_mj_from_cycles(1e300, 1e300, 1e-300), OverflowError),
        (lambda: spu.energy_mj_from_cycles(1, None, 700), TypeError),  # type: ignore[arg-type]
        (
            lambda: spu.energy_split(
                1, math.inf, e_comp_j=1, e_mem_j=1, static_power_w=0, time_s=0
            ),
            ValueError,
        ),
        (
            lambda: spu.break_even_static_power_w(
                0, 100, e_mem_j=1, static_power_gpu_w=0, time_gpu_s=1, time_spu_s=1
            ),
            ValueError,
        ),
        (lambda: spu.relative_change(1.0, 0.0), ValueError),
        (lambda: spu.relative_change(1.0, 1e-320), OverflowError),  # never inf
        (lambda: spu.sweep([]), ValueError),  # an empty sequence is a value problem
    ],
)
def test_bad_input(call: object, exc: type[Exception]) -> None:
    with pytest.raises(exc):
        call()  # type: ignore[operator]


def test_record_constructor_names_field() -> None:
    with pytest.raises(TypeError, match=r"Problem\.n"):
        _core.spu.Problem(n="x", k=1, tile=1, grid=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tile"):
        _core.spu.Problem(n=4, k=4, tile=8, grid=1)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 5000),
    k=st.integers(1, 5000),
    b=st.integers(1, 128),
    p=st.integers(1, 16),
)
def test_counts_ordered_and_exact(n: int, k: int, b: int, p: int) -> None:
    if b > min(n, k) or p * b > n:
        # p b > N: Eq. 3.8 is outside its domain (less than one whole pass).
        with pytest.raises(ValueError):
            spu.off_chip(n, k=k, tile=b, grid=p)
        return
    oc = spu.off_chip(n, k=k, tile=b, grid=p)
    # The lower bound <= SPU <= GPU, exact counts >= the closed forms, equal when p b | N.
    assert oc.lower_bound <= oc.spu_exact <= oc.gpu_exact
    assert oc.spu_exact >= oc.spu_closed_form - 1e-6 * oc.spu_exact
    assert oc.gpu_exact >= oc.gpu_closed_form - 1e-6 * oc.gpu_exact
    if n % (p * b) == 0:
        assert oc.spu_exact == pytest.approx(oc.spu_closed_form, rel=1e-12)
    # Direct sum over passes of Eq. 3.7 with partial widths.
    widths = [min(p * b, n - s) for s in range(0, n, p * b)][:300]
    if sum(widths) != n:
        return
    direct = sum(2 * k * (wi + wj) + 2 * wi * wj for wi in widths for wj in widths)
    assert oc.spu_exact == direct
    assert np.isfinite(oc.ccr_spu_exact) and oc.ccr_spu_exact > 0


# --------------------------------------------------------------------------------------
# Command line and experiment
# --------------------------------------------------------------------------------------


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    from costmetrics.cli import main

    assert main(["spu", "--n", "320", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["off_chip"]["spu_exact"] == 1_433_600
    assert out["configuration"]["passes_per_dim"] == 3
    # 320 = 10 x 32, so Algorithm 1 runs 10 + 10 + 10 - 2 = 28 syncblocks per block.
    assert out["global_sync"]["syncs_per_block"] == 28


def test_cli_text_and_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    from costmetrics.cli import main

    assert main(["spu", "--n", "256"]) == 0
    assert "655,360" in capsys.readouterr().out
    assert main(["spu", "--n", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be positive" in err


def test_experiment_rows(tmp_path: Path) -> None:
    from costmetrics.experiments import spu as exp

    result = exp.run(tmp_path)
    rows = {v.quantity: v for v in result.values}
    assert rows["off-chip accesses, localized sync, N = 256"].reproduced_value == 655_360
    assert rows["off-chip accesses, global sync, N = 256"].reproduced_value == 1_114_112
    assert all(f.exists() for f in result.files)


def test_bad_input_found_by_the_adversarial_campaign() -> None:
    # D11: p b > N is outside Eq. 3.8's domain (the closed forms would be negative or below
    # the lower bound); refused with the domain in the message, p b = N still evaluated.
    for n, tile, grid in ((256, 32, 1000), (33, 32, 4), (64, 64, 4)):
        with pytest.raises(ValueError, match=rf"p b <= N.*> N = {n};"):
            spu.off_chip(n, tile=tile, grid=grid)
    oc = spu.off_chip(128)
    assert oc.spill_restore_closed_form == 0 and oc.spu_closed_form == oc.lower_bound
    # D21: NumPy integer arrays are sequences of integers; empty is a ValueError.
    s = spu.sweep(np.array([128, 256]))
    assert s.n.tolist() == [128, 256] and s.spu_exact.tolist() == [98_304.0, 655_360.0]
    with pytest.raises(ValueError, match="ns"):
        spu.sweep([])
    with pytest.raises(TypeError, match="ns"):
        spu.sweep("128")  # type: ignore[arg-type]


def test_sweep_counts_are_exact_int64_equal_to_off_chip() -> None:
    # adv_b F4: the counts were float64, rounded above 2^53 (flops at N = 1048577 is
    # 3458774409434628099, not a float64 value); now int64 equal to the scalar function.
    n = 1_048_577
    oc, s = spu.off_chip(n), spu.sweep([n])
    for key in ("flops", "lower_bound", "gpu_exact", "spu_exact"):
        column = getattr(s, key)
        assert column.dtype == np.int64, key
        assert int(column[0]) == getattr(oc, key), key
    assert oc.flops > 2**53
    for key in ("gpu_closed_form", "spu_closed_form"):
        assert getattr(s, key).dtype == np.float64 and getattr(s, key)[0] == getattr(oc, key)
    # An overflowing count raises as off_chip does (3 N^3 > 2^63 - 1).
    with pytest.raises(OverflowError):
        spu.off_chip(2_097_152)
    with pytest.raises(OverflowError):
        spu.sweep([128, 2_097_152])
