"""Helpers shared by the per-family test files (not a test module itself).

- The Hypothesis campaign (issue 6): generators that mix valid values, extreme integers
  (0, negatives, 2**31, 2**63, 2**64), special floats (0, nan, inf, 1e308), NumPy scalars and
  wrong types (None, str, bytes, sets, nested lists), and the contract every call meets:
  it returns a result that is finite and in its physical range, or it raises TypeError,
  ValueError or OverflowError (never another exception, a crash, a hang or a NaN/inf
  result), and the CLI exits 0 or 2 with one line on standard error. Each family's
  ``test_<family>.py`` holds its campaign tests, decorated with :func:`campaign` (marker
  ``campaign``): ``HYPOTHESIS_PROFILE=long python -m pytest -m campaign`` runs them all
  with 5000 examples each (``deadline=None``: the C++ core is fast, but the first call of a
  test loads presets).
- GPUs and stencils at the edge of the accepted ranges, for the boundary cases of issue 6.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics import _core

F = TypeVar("F", bound=Callable[..., Any])

CLEAR_ERRORS = (TypeError, ValueError, OverflowError)

#: Examples per test: 150, or the profile's when that is more (HYPOTHESIS_PROFILE=long, see
#: conftest.py); COSTMETRICS_CAMPAIGN_EXAMPLES=N sets it directly.
EXAMPLES = int(os.environ.get("COSTMETRICS_CAMPAIGN_EXAMPLES", max(150, settings().max_examples)))

CAMPAIGN = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def campaign(test: F) -> F:
    """Mark ``test`` as part of the Hypothesis campaign, with the campaign's settings."""
    marked: F = pytest.mark.campaign(CAMPAIGN(test))
    return marked


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


def sequence(element: st.SearchStrategy[Any], lo: int, hi: int) -> st.SearchStrategy[Any]:
    lists = st.lists(element, min_size=lo, max_size=hi)
    return st.one_of(lists, lists.map(tuple), WRONG)


def contract(call: Callable[[], Any]) -> Any:
    """Run ``call``; return its result, or None when it raised a clear error."""
    try:
        return call()
    except CLEAR_ERRORS as exc:
        assert str(exc), f"{type(exc).__name__} without a message"
        return None


def finite_nonnegative(*values: float) -> None:
    for v in values:
        assert math.isfinite(v) and v >= 0, values


def check_breakdown(b: Any, variant: object) -> None:
    finite_nonnegative(
        b.talg_s, b.t_ideal_s, b.t_tile_s, b.c_s, b.m_prime_s, b.m_tile_words, b.t_sync_total_s
    )
    assert b.k >= 1 and b.n_wavefronts >= 1 and b.tiles_per_wavefront >= 1 and b.n_subtiles >= 1
    if variant in ("exact", "machine"):
        # Lower bound of the exact variant (docs/time.md): T_alg >= T_ideal; the
        # machine variant only adds non-negative costs to it.
        assert b.talg_s >= b.t_ideal_s * (1 - 1e-12)


# ------------------------------------------------------------------ edge-of-range presets

GTX980 = cm.gpu("gtx980")

ONE_D = cm.Stencil(name="Line1D", n_space_dims=1, c_iter_s={"gtx980": 1e-8})

# The largest shared memory the model accepts: 2^22 words = 16 MiB (docs/time.md).
BIG = dataclasses.replace(GTX980, smem_per_sm_bytes=2**24, smem_per_block_bytes=2**24)


def core_gpu(**changes: object) -> _core.time.GpuParams:
    fields = GTX980._core_params()._asdict()
    fields.update(changes)
    return _core.time.GpuParams(**fields)
