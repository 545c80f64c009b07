"""Tests of costmetrics.scratchpad: local arrays and the tile-size search (seed 004)."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics import _core

sp = cm.scratchpad


# --------------------------------------------------------------------------------------
# Section 3, Fig. 1
# --------------------------------------------------------------------------------------


def test_figure1_local_arrays() -> None:
    # 004 Fig. 1: "LA[19][10]" (lb(i)=10, ub(i)=28, lb(j)=11, ub(j)=20) and "LB[19][24]"
    # (ub(j)=34): rows i in 10..14 and i+j in 20..28; columns j+1 in 11..15, k in 11..20,
    # j+k in 21..34.
    la, lb = sp.local_arrays(sp.figure1_block())
    assert (la.array, la.lower, la.upper, la.extents) == ("A", [10, 11], [28, 20], [19, 10])
    assert (lb.array, lb.lower, lb.upper, lb.extents) == ("B", [10, 11], [28, 34], [19, 24])
    assert (la.size_words, lb.size_words) == (190, 456)


def test_figure1_move_volumes() -> None:
    # 004 Fig. 1 move-in code for A: i 10..14 x j 11..20 = 50, plus the diagonal band
    # i 20..28, j max(i-13,11)..min(15,i-9): 1+2+3+4+5+4+3+2+1 = 25; total 75.
    # Sec. 3.1.3 bound: the two disjoint read spaces' boxes, 5x10 + 9x5 = 95.
    # Move-out code for A: 5 x 5 = 25. B: in 9 x 10 = 90, out 5 x 14 = 70.
    la, lb = sp.local_arrays(sp.figure1_block())
    assert (la.move_in_exact_words, la.move_in_bound_words) == (75, 95)
    assert (la.move_out_exact_words, la.move_out_bound_words) == (25, 25)
    assert (lb.move_in_exact_words, lb.move_in_bound_words) == (90, 90)
    assert (lb.move_out_exact_words, lb.move_out_bound_words) == (70, 70)


def test_figure1_algorithm2_literal() -> None:
    # Algorithm 2 read literally (one local array per partition of overlapping data spaces):
    # A[i][j+1] overlaps A[i][k] (rows 10..14) -> 5 x 10; A[i+j][j+1] alone -> 9 x 5;
    # B[i][j+k] (rows 10..14) and B[i+j][k] (rows 20..28) are disjoint -> 5 x 14 and 9 x 10.
    parts = sp.local_arrays(sp.figure1_block(), reading="per_partition")
    assert [(p.array, p.extents) for p in parts] == [
        ("A", [5, 10]),
        ("A", [9, 5]),
        ("B", [5, 14]),
        ("B", [9, 10]),
    ]
    assert sum(p.size_words for p in parts) == 50 + 45 + 70 + 90


def test_parse_reference() -> None:
    r = sp.parse_reference("A[2*i - j + 3][k]", ["i", "j", "k"], write=True)
    assert (r.array, r.write, r.coeffs, r.offsets) == ("A", True, [[2, -1, 0], [0, 0, 1]], [3, 0])
    r = sp.parse_reference("x[i*4-1]", ["i"])
    assert (r.coeffs, r.offsets) == ([[4]], [-1])


# --------------------------------------------------------------------------------------
# Section 4.3
# --------------------------------------------------------------------------------------


def test_movement_cost() -> None:
    # C = N ((P S) + V L / P) = 8 * (32 * 2 + 1024 * 4 / 32) = 8 * (64 + 128) = 1536.
    assert sp.movement_cost(8, 32, 2, 1024, 4) == 1536.0


def test_me_tile_terms() -> None:
    # ME reading at (32, 16, 16, 16), N_i = N_j = 64, window 16, P = 256, S = L = 1:
    #   sad: 32*16 = 512 words, placed at r = 2, (64/32)(64/16) = 8 occurrences,
    #        in and out: 2 * 8 * (256 + 512/256) = 4128;
    #   cur: (32+15)(16+15) = 1457 words, r = 4, 8 occurrences: 8 * (256 + 1457/256);
    #   ref: 16*16 = 256 words, r = 4: 8 * (256 + 1).
    p = sp.me_problem()
    arrays = {a.array: a for a in sp.tile_arrays(p, [32, 16, 16, 16])}
    assert (arrays["sad"].size_words, arrays["sad"].placement) == (512, 2)
    assert arrays["sad"].cost == pytest.approx(2 * 8 * (256 + 2), rel=1e-15)
    assert (arrays["cur"].size_words, arrays["cur"].placement) == (1457, 4)
    assert arrays["cur"].cost == pytest.approx(8 * (256 + 1457 / 256), rel=1e-15)
    assert arrays["ref"].cost == pytest.approx(8 * 257, rel=1e-15)
    e = sp.evaluate_tiles(p, [32, 16, 16, 16])
    assert e.memory_words == 512 + 1457 + 256 == 2225
    assert not e.fits_memory  # > 2048 words


def test_integer_optimum_matches_brute_force() -> None:
    # A small synthetic problem: a 2-D stencil read with halo 1, a written array, and a
    # row vector; every tile vector enumerated in Python.
    p = sp.tile_problem(
        {"i": 24, "j": 20},
        writes=["v[i][j]"],
        reads=["u[i-1][j]", "u[i+1][j]", "u[i][j+1]", "w[j]"],
        processes=6,
        sync_cost=2.0,
        cost_per_word=1.5,
        memory_limit_words=200,
    )
    best = min(
        (
            (e.cost, t)
            for t in itertools.product(range(1, 25), range(1, 21))
            if (e := sp.evaluate_tiles(p, t)).feasible
        ),
    )
    r = sp.integer_optimum(p)
    assert r.found and tuple(r.tiles) == best[1] and r.cost == best[0]
    r1 = sp.integer_optimum(p, threads=1)
    assert r1.tiles == r.tiles


def test_jacobi1d_reading() -> None:
    # Jacobi-1D reading, loops (t, i), M_up = 512 words: A and B span s + 2 tau each, so
    # memory = 2 s + 4 tau; with S = L = 1 the integer optimum is (tau, s) = (64, 128),
    # 2*128 + 4*64 = 512 words, and SLSQP's relaxed optimum rounds onto it.
    p = sp.jacobi1d_problem()
    assert sp.evaluate_tiles(p, [32, 256]).memory_words == 2 * 256 + 4 * 32 == 640
    c = sp.compare(p)
    assert tuple(c.integer.tiles) == (64, 128) and c.integer.memory_words == 512
    assert c.relaxed.rounded == (64, 128) and c.cost_gap == pytest.approx(0.0, abs=1e-12)
    # The paper's (space 256, time 32) breaks this reading's 512-word limit.
    assert not sp.evaluate_tiles(p, [32, 256]).fits_memory


def test_rounding_breaks_memory_limit_me() -> None:
    # ME reading with the defaults: SLSQP's optimum ~ (22.8, 22.8, 14.5, 14.5) rounds to
    # (23, 23, 15, 15): 23*23 + 37*37 + 15*15 = 529 + 1369 + 225 = 2123 > 2048 words.
    c = sp.compare(sp.me_problem())
    assert c.relaxed.rounded == (23, 23, 15, 15)
    assert c.relaxed.rounded_evaluation.memory_words == 2123
    assert c.rounded_violates_memory and not c.rounded_feasible
    assert tuple(c.integer.tiles) == (20, 27, 13, 15)
    assert c.integer.memory_words <= 2048


def test_powers_of_two_candidates() -> None:
    p = sp.me_problem()
    cand = sp.powers_of_two(p)
    assert cand[2] == [1, 2, 4, 8, 16]
    r = sp.integer_optimum(p, candidates=cand)
    assert all(t & (t - 1) == 0 for t in r.tiles)
    best = min(
        (e.cost, t) for t in itertools.product(*cand) if (e := sp.evaluate_tiles(p, t)).feasible
    )
    assert tuple(r.tiles) == best[1]


def test_load_files(tmp_path: Path) -> None:
    f = tmp_path / "block.yaml"
    f.write_text(
        "statements:\n"
        "  - loops: {i: [10, 14], j: [10, 14]}\n"
        "    writes: ['A[i][j+1]']\n"
        "    reads: ['A[i+j][j+1]']\n",
        encoding="utf-8",
    )
    block = sp.load(f)
    assert isinstance(block, list)
    assert [la.extents for la in sp.local_arrays(block)] == [[19, 5]]
    g = tmp_path / "tile.json"
    g.write_text(
        json.dumps(
            {
                "loops": {"i": 100},
                "reads": ["x[i]"],
                "writes": ["y[i]"],
                "processes": 1,
                "sync_cost": 1,
                "cost_per_word": 1,
                "memory_limit_words": 40,
            }
        ),
        encoding="utf-8",
    )
    prob = sp.load(g)
    assert isinstance(prob, sp.TileProblem)
    # cost = 2 (100/t)(1 + t), memory 2t <= 40: t = 20, cost 2*5*21 = 210.
    r = sp.integer_optimum(prob)
    assert tuple(r.tiles) == (20,) and r.cost == 210.0


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: sp.parse_reference("A[i*j]", ["i", "j"]), ValueError),
        (lambda: sp.parse_reference("A[q]", ["i"]), ValueError),
        (lambda: sp.parse_reference("A", ["i"]), ValueError),
        (lambda: sp.parse_reference("A[]", ["i"]), ValueError),
        (lambda: sp.parse_reference(3, ["i"]), TypeError),  # type: ignore[arg-type]
        (lambda: sp.statement({"i": (5, 1)}, reads=["A[i]"]), ValueError),
        (lambda: sp.statement({"i": (1, 5)}), ValueError),
        (lambda: sp.statement({"i": (1.0, 5)}, reads=["A[i]"]), TypeError),  # type: ignore[dict-item]
        (lambda: sp.statement({"i": (0, 10**9)}, reads=["A[i]"]), None),
        (lambda: sp.local_arrays([sp.statement({"i": (0, 10**9)}, reads=["A[i]"])]), OverflowError),
        (lambda: sp.local_arrays(sp.figure1_block(), reading="whole"), ValueError),  # type: ignore[arg-type]
        (lambda: sp.local_arrays("x"), TypeError),  # type: ignore[arg-type]
        (
            lambda: sp.local_arrays([sp.statement({"i": (0, 3)}, reads=["A[i]", "A[i][i]"])]),
            ValueError,
        ),
        (lambda: sp.movement_cost(1, 0, 1, 1, 1), ValueError),
        (lambda: sp.movement_cost(math.nan, 1, 1, 1, 1), ValueError),
        (lambda: sp.movement_cost(1, 1, 1, 1, "1"), TypeError),  # type: ignore[arg-type]
        (lambda: sp.me_problem(memory_limit_words=0), ValueError),
        (lambda: sp.me_problem(processes=math.inf), ValueError),
        (lambda: sp.me_problem(n_i=0), ValueError),
        (lambda: sp.me_problem(n_i=2**80), OverflowError),
        (lambda: sp.evaluate_tiles(sp.me_problem(), [0, 1, 1, 1]), ValueError),
        (lambda: sp.evaluate_tiles(sp.me_problem(), [1, 1]), ValueError),
        (lambda: sp.evaluate_tiles(sp.me_problem(), [math.nan, 1, 1, 1]), ValueError),
        (lambda: sp.evaluate_tiles(sp.me_problem(), "1111"), TypeError),  # type: ignore[arg-type]
        (lambda: sp.integer_optimum(sp.me_problem(), max_points=1000), OverflowError),
        (lambda: sp.integer_optimum(sp.me_problem(), candidates=[[1], [1], [1]]), ValueError),
        (lambda: sp.integer_optimum(sp.me_problem(), candidates=[[2, 1]] * 4), ValueError),
        (lambda: sp.integer_optimum("p"), TypeError),  # type: ignore[arg-type]
        (lambda: sp.relaxed_optimum(sp.me_problem(), starts=0), ValueError),
    ],
)
def test_bad_input(call: object, exc: type[Exception] | None) -> None:
    if exc is None:
        call()  # type: ignore[operator]
        return
    with pytest.raises(exc):
        call()  # type: ignore[operator]


def test_malformed_files(tmp_path: Path) -> None:
    for name, text in (
        ("a.yaml", "[1, 2"),
        ("b.yaml", "- 1\n- 2\n"),
        ("c.json", "{"),
        ("d.yaml", "loops: {i: 10}\nreads: ['x[i]']\n"),
        ("e.yaml", "loops: {i: 10}\nreads: ['x[i]']\nbogus: 1\n"),
        ("f.yaml", "statements: 3\n"),
    ):
        f = tmp_path / name
        f.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError):
            sp.load(f)


def test_bad_arguments_name_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"^problem: expected a TileProblem, got NoneType None"):
        sp.powers_of_two(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^path: cannot read .*: Is a directory"):
        sp.load(tmp_path)
    with pytest.raises(ValueError, match=r"^path: cannot read .*missing\.yaml: No such file"):
        sp.load(tmp_path / "missing.yaml")
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(b"loops: {caf\xe9: 10}\n")
    with pytest.raises(ValueError, match=r"^path: .*latin1\.yaml is not UTF-8 text"):
        sp.load(latin1)
    with pytest.raises(TypeError, match=r"^path: expected a str or Path, got NoneType"):
        sp.load(None)  # type: ignore[arg-type]
    for write in ("no", 1, None):
        with pytest.raises(TypeError, match=r"^write: expected True or False, got "):
            sp.parse_reference("A[i]", ["i"], write=write)  # type: ignore[arg-type]
    assert sp.parse_reference("A[i]", ["i"], write=np.bool_(True)).write is True  # type: ignore[arg-type]


def test_loop_bound_errors_name_the_loop_and_its_bounds(tmp_path: Path) -> None:
    # The core knows loops by position: "statement: loop 0 is empty", "extents[0]: must be
    # positive"; the messages now name the loop as given, with its bounds, and load() puts
    # the file, the line and the statement before them.
    with pytest.raises(ValueError, match=r"^loops\['j'\] = \(5, 1\): the loop is empty \("):
        sp.statement({"i": (0, 3), "j": (5, 1)}, reads=["A[i][j]"])
    with pytest.raises(ValueError, match=r"^loops\['i'\] = \(0, 2199023255553\): the loop "):
        sp.statement({"i": (0, 2**41 + 1)}, reads=["A[i]"])

    def tile(loops: dict[str, int], ref: str) -> sp.TileProblem:
        return sp.tile_problem(
            loops, reads=[ref], processes=1, sync_cost=1, cost_per_word=1, memory_limit_words=9
        )

    with pytest.raises(ValueError, match=r"^loops\['i'\]: must be positive, got 0$"):
        tile({"t": 4, "i": 0}, "A[t][i]")
    with pytest.raises(ValueError, match=r"^loops\['t'\] = 2199023255553 exceeds 2\^40$"):
        tile({"t": 2**41 + 1}, "A[t]")
    f = tmp_path / "block.yaml"
    f.write_text(
        "statements:\n  - loops: {i: [0, 3]}\n    reads: ['A[i]']\n  - {loops: {i: [0, 3]}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=rf"^{re.escape(str(f))}, line 4: statements\[1\]: "):
        sp.load(f)  # no reference


def test_infeasible_problem() -> None:
    # Memory limit below the smallest tile's footprint: no feasible tile vector.
    p = sp.tile_problem(
        {"i": 10},
        reads=["x[i-5]", "x[i+5]"],
        processes=1,
        sync_cost=1,
        cost_per_word=1,
        memory_limit_words=5,
    )
    assert not sp.integer_optimum(p).found
    with pytest.raises(ValueError):
        sp.relaxed_optimum(p)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    n=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    off=st.integers(-3, 3),
    coef=st.integers(-2, 2),
    m_up=st.integers(1, 120),
    p=st.integers(1, 20),
    s=st.floats(0, 10),
    lcost=st.floats(0, 10),
)
def test_search_is_exact(
    n: tuple[int, int], off: int, coef: int, m_up: int, p: int, s: float, lcost: float
) -> None:
    prob = sp.tile_problem(
        {"i": n[0], "j": n[1]},
        writes=["a[i][j]"],
        reads=[f"b[i{off:+d}][{coef}*i+j]", "c[j]"],
        processes=p,
        sync_cost=s,
        cost_per_word=lcost,
        memory_limit_words=m_up,
    )
    feasible = [
        (e.cost, t)
        for t in itertools.product(range(1, n[0] + 1), range(1, n[1] + 1))
        if (e := sp.evaluate_tiles(prob, t)).feasible
    ]
    r = sp.integer_optimum(prob, threads=1)
    assert r.found == bool(feasible)
    if feasible:
        best = min(feasible)
        assert r.cost == best[0] and tuple(r.tiles) == best[1]
        assert r.feasible_points == len(feasible)
        # Memory is nondecreasing in each tile size (what the pruning relies on).
        t = tuple(r.tiles)
        m0 = sp.evaluate_tiles(prob, t).memory_words
        if t[0] < n[0]:
            assert sp.evaluate_tiles(prob, (t[0] + 1, t[1])).memory_words >= m0


# --------------------------------------------------------------------------------------
# Command line and experiment
# --------------------------------------------------------------------------------------


def test_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from costmetrics.cli import main

    assert main(["scratchpad", "--example", "figure1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [a["extents"] for a in out["local_arrays"]] == [[19, 10], [19, 24]]
    assert main(["scratchpad", "--example", "jacobi1d", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["integer_optimum"]["tiles"] == [64, 128]
    assert main(["scratchpad", "--example", "figure1", "--reading", "per_partition"]) == 0
    assert "[9, 5]" in capsys.readouterr().out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "loops: {i: 0}\nreads: ['x[i]']\nprocesses: 1\nsync_cost: 1\n"
        "cost_per_word: 1\nmemory_limit_words: 1\n",
        encoding="utf-8",
    )
    assert main(["scratchpad", "--file", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}, line 1: loops['i']: must be positive, got 0" in err


def test_experiment_figure1_rows(tmp_path: Path) -> None:
    from costmetrics.experiments import scratchpad as exp

    rows = {v.quantity: v for v in exp.figure1_values()}
    assert rows["local array of A"].reproduced_value == rows["local array of A"].seed_value
    assert rows["local array of B"].reproduced_value == "LB[19][24]"
    jac = exp.jacobi_problem("in place", 1.0, 1.0, time_range=32)
    # In-place reading, time range 32, powers of two: the paper's (time 32, space 256).
    r = sp.integer_optimum(jac, candidates=sp.powers_of_two(jac))
    assert tuple(r.tiles) == exp.PAPER_JACOBI_TILES
    path = exp.write_readings_csv([], tmp_path / "x.csv")
    assert path.read_text(encoding="utf-8").startswith("kernel,")


def test_bad_input_found_by_the_adversarial_campaign() -> None:
    p = sp.jacobi1d_problem()
    n_loops = len(p.extents)
    # D15: threads in [0, 1024] as in the other families; an empty candidates list is not
    # "no restriction" (None is).
    for threads in (-1, 1025):
        with pytest.raises(ValueError, match=rf"^threads: must be in \[0, 1024\], got {threads}$"):
            sp.integer_optimum(p, threads=threads)
    with pytest.raises(ValueError, match=rf"^candidates: 0 lists for {n_loops} loops$"):
        sp.integer_optimum(p, candidates=[])
    one = sp.integer_optimum(p, threads=np.int64(1))  # type: ignore[arg-type]
    assert one.tiles == sp.integer_optimum(p).tiles
    # D20: loops must be a sequence of distinct index names; "ij" is not split.
    for loops, exc, text in (
        (None, TypeError, r"^loops: expected a sequence of loop index names, got NoneType"),
        ("ij", TypeError, r"^loops: expected a sequence of loop index names, got str 'ij'"),
        ([5], TypeError, r"^loops\[0\]: expected a string, got int 5"),
        (["i", "i"], ValueError, r"^loops\[1\]: duplicate loop index 'i'"),
        (["i", "2"], ValueError, r"^loops\[1\]: '2' is not a loop index name"),
    ):
        with pytest.raises(exc, match=text):
            sp.parse_reference("A[i]", loops)  # type: ignore[arg-type]
    assert sp.parse_reference("A[i+1]", ("i", "j")).coeffs == [[1, 0]]
    # D19: real values in the core's messages are written in full, not as %f ("0.000000").
    with pytest.raises(ValueError, match=r"got 1e-320$"):
        sp.evaluate_tiles(sp.me_problem(), [1e-320, 1, 1, 1])
    with pytest.raises(ValueError, match=r"got -1e-09$"):
        sp.movement_cost(1, -1e-9, 1, 1, 1)


def test_max_points_has_an_upper_bound() -> None:
    # adv_b F2: max_points had no cap (2**62 grew toward all memory in local_arrays, and ran
    # for days in integer_optimum); now local_arrays' is at most 2^24 pairs (~2.5 GB) and
    # integer_optimum's 2^32 tile vectors, refused before any work with the bound named.
    block = [sp.statement({"i": (0, 2**40)}, reads=["A[i]", "A[i+1]"])]
    assert _core.scratchpad.MAX_ENUMERATION_POINTS == 2**24
    with pytest.raises(ValueError, match=r"^max_points: must be in \[1, 16777216\] pairs"):
        sp.local_arrays(block, max_points=2**62)
    with pytest.raises(ValueError, match=r"^max_points: must be in \[1, 16777216\] pairs"):
        sp.local_arrays(block, max_points=2**24 + 1)
    with pytest.raises(OverflowError, match="local_arrays: enumerating"):
        sp.local_arrays(block, max_points=2**24)  # the cap itself still counts the work
    assert _core.scratchpad.MAX_TILE_VECTORS == 2**32
    with pytest.raises(ValueError, match=r"^max_points: must be in \[1, 4294967296\] tile"):
        sp.integer_optimum(sp.me_problem(), max_points=2**62)
    assert sp.integer_optimum(sp.me_problem(), max_points=2**32).found


@pytest.mark.parametrize("factor", ["\u00b2", "\u0663", "\uff13", "\u0969"])
def test_subscript_numbers_are_ascii_digits_only(factor: str) -> None:
    # adv_b F7: '²'.isdigit() is True but int('²') fails (a bare "invalid literal" message),
    # and the Arabic-Indic '٣' was read as 3; now any non-ASCII digit is an unparsable factor
    # named with its reference and subscript.
    with pytest.raises(ValueError, match=rf"^reference 'A\[{factor}\*i\]', subscript 0: cannot"):
        sp.statement({"i": (0, 10)}, reads=[f"A[{factor}*i]"])
    assert sp.statement({"i": (0, 10)}, reads=["A[3*i]"]).refs[0].coeffs == [[3]]
