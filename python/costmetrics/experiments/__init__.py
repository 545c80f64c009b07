"""Reproduction experiments, one module per figure family.

Each module defines ``run(out_dir: pathlib.Path) -> costmetrics.report.ExperimentResult``,
which computes the family's figures and tables, saves them under ``out_dir`` and returns
the reproduced numbers beside the seed's. :mod:`costmetrics.reproduce` runs them all; the
notebooks call the same functions the experiments call.
"""

from __future__ import annotations

from costmetrics.families import FAMILIES

#: Experiment modules run by ``costmetrics reproduce``, in report order: one per family of
#: :data:`costmetrics.families.FAMILIES` that has an experiment, named like the family.
EXPERIMENTS: tuple[str, ...] = tuple(f.name for f in FAMILIES if f.experiment)
