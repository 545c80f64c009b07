"""Shared pytest configuration."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-reference",
        action="store_true",
        default=False,
        help="rewrite tests/reference/ from the current `costmetrics reproduce` outputs "
        "(the same as COSTMETRICS_REGEN_REFERENCE=1)",
    )
