"""Interactive explorers of the models in Jupyter (ipywidgets), opened in one line.

>>> import costmetrics as cm
>>> cm.explore.time_landscape("heat2d", "gtx980")          # doctest: +SKIP
>>> cm.explore.matrix_chain([936, 1008, 552, 368])          # doctest: +SKIP
>>> cm.explore.create("time", stencil="heat3d")            # by registry name  # doctest: +SKIP

Each explorer shows controls (sliders, pickers, text), a summary and a figure, and
recomputes on every change. ipywidgets is optional (``pip install "costmetrics[jupyter]"``):
without it, or where no widget can be shown (nbconvert, the documentation site, a test),
an explorer displays one static figure of its state, so notebooks that use one still run.
:meth:`Explorer.update` changes the state from code.

Adding an explorer
------------------
A model family adds a module ``costmetrics/explore/<family>.py`` defining a subclass of
:class:`Explorer` and a factory function decorated with :func:`register`, then adds the
module's name to :data:`FAMILIES` and imports its factory below, so that
``cm.explore.<factory>(...)`` and ``cm.explore.create("<name>")`` both work. The
documentation site lists every module of :data:`FAMILIES` in its API reference.
"""

from __future__ import annotations

import importlib
from typing import Any

from costmetrics.explore._base import Explorer, ExplorerInfo, figure_png, register, registry
from costmetrics.explore.chain import MatrixChain, matrix_chain
from costmetrics.explore.time import TimeLandscape, time_landscape

__all__ = [
    "FAMILIES",
    "Explorer",
    "ExplorerInfo",
    "MatrixChain",
    "TimeLandscape",
    "create",
    "explorers",
    "figure_png",
    "matrix_chain",
    "register",
    "time_landscape",
]

#: Explorer modules, one per model family (``costmetrics.explore.<name>``).
FAMILIES: tuple[str, ...] = ("time", "chain")


def _load_all() -> None:
    for name in FAMILIES:
        importlib.import_module(f"{__name__}.{name}")


def explorers() -> dict[str, str]:
    """Return the available explorers: registry name to a one-line summary.

    Returns
    -------
    dict of str to str
        For example ``{"chain": "Matrix chain: ...", "time": "T_alg landscape ..."}``.
    """
    _load_all()
    return {name: info.summary for name, info in registry().items()}


def create(name: str, **kwargs: Any) -> Explorer:
    """Open the explorer registered as ``name``.

    Parameters
    ----------
    name : str
        A key of :func:`explorers`.
    **kwargs
        Passed to the explorer's factory (e.g. :func:`time_landscape`).

    Returns
    -------
    Explorer
        The explorer.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        If no explorer has that name.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected an explorer name (str), got {type(name).__name__}")
    _load_all()
    info = registry().get(name)
    if info is None:
        raise ValueError(f"name: unknown explorer {name!r}; known: {sorted(registry())}")
    return info.factory(**kwargs)
