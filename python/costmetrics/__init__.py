"""costmetrics: analytical cost models for accelerators and loop programs.

The models live in a compiled C++ core (``costmetrics._core``); this package is the
public layer over it:

- presets: :func:`gpu`, :func:`stencil`, :func:`gpus`, :func:`stencils`, the
  :class:`Gpu` and :class:`Stencil` types, :func:`load_gpu`, :func:`load_stencil`,
  :func:`register_gpu`, :func:`register_stencil`;
- one submodule per model family (:mod:`costmetrics.time`, :mod:`costmetrics.chain`, ...,
  listed once in :data:`costmetrics.families.FAMILIES`), imported on first access, so
  ``import costmetrics; costmetrics.time.talg(...)`` works;
- :func:`reproduce`, which regenerates the figures and tables of the seeds;
- :mod:`costmetrics.explore`, interactive explorers of the models in Jupyter.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from costmetrics import families
from costmetrics.presets import (
    Gpu,
    Stencil,
    gpu,
    gpus,
    load_gpu,
    load_stencil,
    register_gpu,
    register_stencil,
    stencil,
    stencils,
)
from costmetrics.reproduce import reproduce

if TYPE_CHECKING:  # the lazily loaded submodules, typed for mypy (tests/test_families.py)
    from costmetrics import area as area
    from costmetrics import chain as chain
    from costmetrics import codesign as codesign
    from costmetrics import energy as energy
    from costmetrics import exasat as exasat
    from costmetrics import measure as measure
    from costmetrics import scratchpad as scratchpad
    from costmetrics import spu as spu
    from costmetrics import time as time
    from costmetrics import validate as validate


def _find_version() -> str:
    # One source: pyproject.toml's version, carried by the installed package's metadata
    # (the compiled core is built with the same number by scikit-build-core).
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("costmetrics")
    except PackageNotFoundError:
        return "0+unknown"


__version__: str = _find_version()

#: Model-family submodules loaded on first attribute access: every family of
#: :data:`costmetrics.families.FAMILIES`, and the explorers. ``time`` is not in ``__all__``:
#: ``from costmetrics import *`` must not replace the standard library's ``time``.
_LAZY_SUBMODULES = (*families.names(), "explore")

# Static, for type checkers and linters; tests/test_families.py checks it names every family.
__all__ = [
    "Gpu",
    "Stencil",
    "__version__",
    "area",
    "chain",
    "codesign",
    "energy",
    "exasat",
    "explore",
    "families",
    "gpu",
    "gpus",
    "load_gpu",
    "load_stencil",
    "measure",
    "register_gpu",
    "register_stencil",
    "reproduce",
    "scratchpad",
    "spu",
    "stencil",
    "stencils",
    "validate",
]


def __getattr__(name: str) -> ModuleType:
    if name in _LAZY_SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
