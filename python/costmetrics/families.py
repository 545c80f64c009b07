"""The model families: the one list that registers a family at every layer.

A family ``foo`` is one file per layer (``docs/api-conventions.md``, "Template for a new
family"): ``cpp/include/costmetrics/foo.hpp`` and its bindings, ``costmetrics.foo``, the
experiment ``costmetrics.experiments.foo``, a notebook, a docs page and ``tests/test_foo.py``.
Everything that enumerates families derives its list from :data:`FAMILIES`:

- ``costmetrics`` loads ``costmetrics.<name>`` on first access (``_LAZY_SUBMODULES``,
  ``__all__``);
- ``costmetrics reproduce`` runs :data:`costmetrics.experiments.EXPERIMENTS`, the families
  with an experiment, in this order;
- the command line adds each family's ``commands``, set up by the function
  ``_add_<command>`` of ``costmetrics.cli``;
- the conventions test walks every family's public API; the docs site lists the family
  modules, experiments and model pages.

What cannot be derived from Python, the static imports type checkers need and the C++
registration list (``COSTMETRICS_BOUND_FAMILIES`` in ``cpp/bindings/bindings.hpp``), is
checked against this list by ``tests/test_families.py``, as is every file of every layer.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "Family", "family", "names"]


@dataclass(frozen=True)
class Family:
    """One model family and the layers it has.

    Attributes
    ----------
    name : str
        The family's name, the same at every layer: ``costmetrics.<name>``,
        ``cpp/include/costmetrics/<name>.hpp``, ``costmetrics reproduce --only <name>``.
    title : str
        The family's one-line title: the heading of its notebook.
    notebook : str or None
        The stem of its notebook ``notebooks/<notebook>.ipynb``, ``NN_<name>``: the only
        place a notebook's number is written. None when another family's notebook shows it.
    docs : str
        The stem of its documentation page ``docs/<docs>.md`` (its own name, or the page of
        the family it is documented with).
    commands : tuple of str
        Its subcommands of the ``costmetrics`` command line, in ``--help`` order.
    core : bool
        Whether it has a C++ model and bindings (``costmetrics._core.<name>``); a family
        without one builds on other families' cores.
    experiment : bool
        Whether ``costmetrics reproduce`` has an experiment for it.
    """

    name: str
    title: str
    notebook: str | None
    docs: str
    commands: tuple[str, ...]
    core: bool = True
    experiment: bool = True


#: Every model family, in the order the package, ``costmetrics reproduce`` and the command
#: line list them.
FAMILIES: tuple[Family, ...] = (
    Family(
        "time",
        "Execution-time model of tiled stencils (thesis 000, Appendix A)",
        notebook="01_time",
        docs="time",
        commands=("talg", "best-tiles"),
    ),
    Family(
        "chain",
        "Matrix chain products: op count and off-chip data movement (thesis 000, Appendix D)",
        notebook="06_chain",
        docs="chain",
        commands=("chain",),
    ),
    Family(
        "energy",
        "Energy model of tiled loop codes (thesis 000, Appendix B)",
        notebook="03_energy",
        docs="energy",
        commands=("energy",),
    ),
    Family(
        "exasat",
        "ExaSAT-style performance model (seed 002)",
        notebook="07_exasat",
        docs="exasat",
        commands=("exasat",),
    ),
    Family(
        "measure",
        "Measurement harness: host check, calibration, measured sweeps and tuning on this CPU",
        notebook=None,  # shown in 02_validate
        docs="validate",
        commands=("probe", "calibrate", "measure", "tune"),
        experiment=False,  # its measurements feed the validate experiment
    ),
    Family(
        "validate",
        "Validating the time model on real runs: RMSE, fitted variant, tile selection",
        notebook="02_validate",
        docs="validate",
        commands=("validate",),
        core=False,  # fits and scores over the time and measure cores
    ),
    Family(
        "spu",
        "Stencil Processing Unit: off-chip accesses, passes and energy",
        notebook="08_spu",
        docs="spu",
        commands=("spu",),
    ),
    Family(
        "scratchpad",
        "Scratchpad data movement and tile-size search",
        notebook="09_scratchpad",
        docs="scratchpad",
        commands=("scratchpad",),
    ),
    Family(
        "area",
        "Silicon-area model of GPUs (thesis 000, Appendix C, Sec. C.2)",
        notebook="04_area",
        docs="area",
        commands=("area",),
    ),
    Family(
        "codesign",
        "Hardware/software codesign (thesis 000, Appendix C, Sec. C.3-C.4)",
        notebook="05_codesign",
        docs="codesign",
        commands=("codesign",),
    ),
)


def names() -> tuple[str, ...]:
    """Return the names of every family, in :data:`FAMILIES` order."""
    return tuple(f.name for f in FAMILIES)


def family(name: str) -> Family:
    """Return the family called ``name``.

    Parameters
    ----------
    name : str
        A family name (:func:`names`).

    Returns
    -------
    Family
        Its entry of :data:`FAMILIES`.

    Raises
    ------
    TypeError
        If ``name`` is not a str.
    ValueError
        For a name that is no family's.
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a family name (str), got {type(name).__name__}")
    for f in FAMILIES:
        if f.name == name:
            return f
    raise ValueError(f"name: unknown family {name!r}; known: {list(names())}")
