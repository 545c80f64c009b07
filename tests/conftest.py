"""Shared pytest configuration.

Hypothesis profiles (select one with ``HYPOTHESIS_PROFILE=NAME``):

- ``ci``: derandomized (a fixed seed per test, no example database), so that a property
  failure in CI reproduces on every run and points at the change that caused it. The
  default when the ``CI`` environment variable is set; ``tools/test-all.sh`` selects it too.
- ``dev``: Hypothesis' defaults (random examples, failures replayed from ``.hypothesis/``);
  the default otherwise.
- ``long``: the long campaign, random and many more examples per test, run on demand:
  ``HYPOTHESIS_PROFILE=long python -m pytest -m campaign`` (the campaign tests of every
  family, marked ``campaign``; see ``tests/_support.py``; tests that fix their own
  ``max_examples`` keep it; the campaign scales with this profile).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev")
settings.register_profile("long", max_examples=5000, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-reference",
        action="store_true",
        default=False,
        help="rewrite tests/reference/ from the current `costmetrics reproduce` outputs "
        "(the same as COSTMETRICS_REGEN_REFERENCE=1)",
    )


def pytest_report_header() -> str:
    return f"hypothesis profile: {settings.get_current_profile_name()}"
