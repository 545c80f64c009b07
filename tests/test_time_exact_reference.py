"""The ``exact`` time-model variant against a brute-force reference written here (issue 15).

The reference enumerates every point of a small iteration space, finds the one tile of the
gap-free hexagonal lattice that holds it (docs/time.md, "Exact variant", rules 2-3), and
computes T_alg from counts of points only (rules 4-9): per wavefront the tiles with a point,
per sub-tile and row the most points one tile of the wavefront has there, the vector steps
``ceil(points / nV)``, Eqs. A.13/A.17/A.29-A.30 and Eq. A.2. It shares no code with the
core's fast path (row-kind tables, wavefront classes), which ``talg_batch`` runs; the sums
are taken in another order, hence a relative tolerance of 1e-12 rather than bit equality
(the C++ tests compare the fast path with the core's row-by-row walk bit for bit).
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm


def ceil_div(a: int, b: int) -> int:
    """ceil(a / b) of integers, b > 0."""
    return (a + b - 1) // b


def locate(t: int, s1: int, ts1: int, tt: int) -> tuple[int, int, int, int]:
    """(color, m, p, r) of the one lattice tile holding point (s1, t); asserts uniqueness."""
    h = tt // 2
    pitch = 2 * ts1 + tt - 2
    found = []
    for color in (0, 1):
        off = 0 if color == 0 else pitch // 2
        shift = 0 if color == 0 else -h
        m0 = (t - shift) // tt
        p0 = (s1 - off) // pitch
        for m in range(m0 - 2, m0 + 3):
            r = t - (m * tt + shift)
            if not 0 <= r < tt:
                continue
            e = min(r, tt - 1 - r)
            for p in range(p0 - 3, p0 + 4):
                c0 = p * pitch + off
                if c0 - e <= s1 < c0 + ts1 + e:
                    found.append((color, m, p, r))
    assert len(found) == 1, (t, s1, found)
    return found[0]


def brute_talg(
    gpu: cm.Gpu, c_iter_s: float, sizes: tuple[int, ...], tiles: tuple[int, ...]
) -> float:
    """T_alg of the exact variant from enumerated points (2D or 3D)."""
    dims = len(sizes) - 1
    ts1, tt = tiles[0], tiles[-1]
    inner_s = [sizes[d] for d in range(1, dims)]
    inner_t = [tiles[d] for d in range(1, dims)]
    # (wavefront, p, b2, b3, r) -> points, with the inner dimensions skewed by r.
    cell: dict[tuple[int, int, int, int, int], int] = defaultdict(int)
    grids = np.meshgrid(*[np.arange(s) for s in inner_s], indexing="ij")
    for t in range(sizes[-1]):
        for s1 in range(sizes[0]):
            color, m, p, r = locate(t, s1, ts1, tt)
            j = 2 * m + 1 if color == 0 else 2 * m
            b = [(g + r) // ts for g, ts in zip(grids, inner_t, strict=True)]
            keys = np.stack([x.ravel() for x in b] + [np.zeros(b[0].size, np.int64)] * (3 - dims))
            uniq, counts = np.unique(keys[:2].T, axis=0, return_counts=True)
            for (b2, b3), n in zip(uniq.tolist(), counts.tolist(), strict=True):
                cell[(j, p, b2, b3, r)] += n
    tiles_of: dict[int, set[int]] = defaultdict(set)
    widest: dict[int, dict[tuple[int, int], dict[int, int]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for (j, p, b2, b3, r), n in cell.items():
        tiles_of[j].add(p)
        row = widest[j][(b2, b3)]
        row[r] = max(row.get(r, 0), n)
    area = math.prod(inner_t)
    l_word = gpu.l_s_per_gb * 4e-9
    m_prime = 2.0 * area * (ts1 + 2 * tt) * l_word + 2.0 * gpu.tau_sync_s
    m_tile = 2.0 * math.prod(x + tt + 1 for x in tiles[:-1])
    k = min(math.floor(gpu.smem_per_sm_bytes / 4 / m_tile), gpu.max_blocks_per_sm)
    talg = 0.0
    for j, subs in widest.items():
        cs = [
            sum(ceil_div(n, gpu.n_v) * c_iter_s + gpu.tau_sync_s for n in rows.values())
            for rows in subs.values()
        ]
        if k == 1:
            t_tile = len(cs) * m_prime + sum(cs)
        else:
            t_tile = m_prime + k * sum(max(m_prime, c) for c in cs)
        rounds = ceil_div(ceil_div(len(tiles_of[j]), k), gpu.n_sm)  # Eq. A.2
        talg += rounds * t_tile + gpu.t_sync_s
    return talg


# Machines where the ceilings and both branches of max(m', c) matter: the two presets, a
# small nV and nSM, and one with 3,000-byte SMs (750 words), where the small tiles here
# have k = 1 (M_tile > 375 words: Eq. A.17) or k = 2.
GTX980 = cm.presets.gpu("gtx980")
MACHINES = [
    GTX980,
    cm.presets.gpu("titanx"),
    dataclasses.replace(GTX980, name="small", key="small", n_sm=2, n_v=3, l_s_per_gb=0.2),
    dataclasses.replace(
        GTX980,
        name="k1",
        key="k1",
        n_sm=3,
        n_v=32,
        smem_per_sm_bytes=3000,
        smem_per_block_bytes=3000,
        l_s_per_gb=2.0,
    ),
]


@st.composite
def cases_2d(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    ts1 = draw(st.integers(1, 4))
    tt = 2 * draw(st.integers(1, 4))
    ts2 = 32
    pitch = 2 * ts1 + tt - 2
    # S1 around the wide-row threshold 2P - 1 (fast path above, row walk below); S2 around
    # multiples of tS2 (S mod tS = 0, 1, tS - 1), including S2 < tS2.
    s1 = draw(st.sampled_from([2 * pitch - 2, 2 * pitch - 1, 2 * pitch, 2 * pitch + 7, 3]))
    s2 = draw(st.sampled_from([31, 32, 33, 63, 64, 65, 96, 17]))
    t = draw(st.integers(1, 3 * tt + 1))
    return (max(s1, 1), s2, t), (ts1, ts2, tt)


@settings(max_examples=60, deadline=None)
@given(case=cases_2d(), machine=st.sampled_from(MACHINES))
def test_exact_2d_matches_brute_force(
    case: tuple[tuple[int, ...], tuple[int, ...]], machine: cm.Gpu
) -> None:
    sizes, tiles = case
    stencil = cm.presets.stencil("heat2d")
    c_iter = stencil.c_iter_s["gtx980"]
    stencil = dataclasses.replace(stencil, c_iter_s={machine.key: c_iter})
    batch = cm.time.talg_batch(stencil, machine, sizes, [tiles], variant="exact", terms=False)
    if not bool(batch.feasible[0]):
        return
    ref = brute_talg(machine, c_iter, sizes, tiles)
    got = float(batch.talg_s[0])
    assert math.isclose(got, ref, rel_tol=1e-12), (sizes, tiles, machine.key, got, ref)
    # The scalar call and the machine variant (no machine terms here) give the same bits.
    assert cm.time.talg(stencil, machine, sizes, tiles, variant="exact") == got
    assert cm.time.talg(stencil, machine, sizes, tiles, variant="machine") == got


@settings(max_examples=25, deadline=None)
@given(
    ts=st.tuples(st.integers(1, 3), st.integers(1, 3), st.just(32)),
    tt=st.sampled_from([2, 4, 6]),
    s=st.tuples(st.integers(3, 12), st.integers(1, 5), st.sampled_from([31, 32, 33, 64])),
    t=st.integers(1, 9),
    machine=st.sampled_from(MACHINES),
)
def test_exact_3d_matches_brute_force(
    ts: tuple[int, int, int], tt: int, s: tuple[int, int, int], t: int, machine: cm.Gpu
) -> None:
    sizes, tiles = (*s, t), (*ts, tt)
    stencil = cm.presets.stencil("heat3d")
    c_iter = stencil.c_iter_s["gtx980"]
    stencil = dataclasses.replace(stencil, c_iter_s={machine.key: c_iter})
    batch = cm.time.talg_batch(stencil, machine, sizes, [tiles], variant="exact", terms=False)
    if not bool(batch.feasible[0]):
        return
    ref = brute_talg(machine, c_iter, sizes, tiles)
    assert math.isclose(float(batch.talg_s[0]), ref, rel_tol=1e-12), (sizes, tiles, machine.key)
