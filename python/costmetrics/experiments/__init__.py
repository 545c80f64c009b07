"""Reproduction experiments, one module per figure family.

Each module defines ``run(out_dir: pathlib.Path) -> costmetrics.report.ExperimentResult``,
which computes the family's figures and tables, saves them under ``out_dir`` and returns
the reproduced numbers beside the seed's. :mod:`costmetrics.reproduce` runs them all; the
notebooks call the same functions the experiments call.
"""

#: Experiment modules run by ``costmetrics reproduce``, in report order.
EXPERIMENTS: tuple[str, ...] = (
    "time",
    "chain",
    "energy",
    "exasat",
    "validate",
    "spu",
    "scratchpad",
    "area",
    "codesign",
)
