"""Regenerate every figure and table the implemented models can produce."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from costmetrics import _convert
from costmetrics.experiments import EXPERIMENTS
from costmetrics.report import ExperimentResult, write_report


def reproduce(
    out_dir: str | Path = "results",
    only: Sequence[str] | None = None,
    *,
    progress: bool = False,
) -> list[ExperimentResult]:
    """Run the reproduction experiments and write ``report.md`` / ``report.json``.

    Parameters
    ----------
    out_dir : str or Path
        Folder for figures, tables and the report (created if missing).
    only : sequence of str, optional
        Names of experiments to run (default: all of
        :data:`costmetrics.experiments.EXPERIMENTS`).
    progress : bool, optional
        Show a progress bar over the experiments on standard error (default False; the
        bar stays hidden when standard error is not a terminal).

    Returns
    -------
    list of ExperimentResult
        One result per experiment run.

    Raises
    ------
    TypeError
        If ``out_dir`` is not a str or Path, ``only`` not a sequence of str, or
        ``progress`` not a bool.
    ValueError
        If ``out_dir`` is empty (it would be the working directory) or cannot be written,
        or ``only`` is empty, names an unknown experiment or one more than once.
    """
    if not isinstance(out_dir, (str, Path)):
        raise TypeError(f"out_dir: expected a str or Path, got {type(out_dir).__name__}")
    if str(out_dir) == "":
        # Path("") is the working directory: an empty option would scatter the report there.
        raise ValueError("out_dir: expected a folder, got an empty path")
    out = Path(out_dir)
    progress = _convert.boolean(progress, "progress")
    if only is None:
        names = list(EXPERIMENTS)
    else:
        # A str was read letter by letter; an empty list ran nothing and wrote an empty report.
        if isinstance(only, (str, bytes)) or not isinstance(only, Sequence):
            raise TypeError(
                f"only: expected a sequence of experiment names, got {type(only).__name__}"
            )
        names = [_convert.string(n, f"only[{i}]") for i, n in enumerate(only)]
        if not names:
            raise ValueError(f"only: no experiment named; known: {list(EXPERIMENTS)}")
    unknown = sorted(set(names) - set(EXPERIMENTS))
    if unknown:
        raise ValueError(f"only: unknown experiment(s) {unknown}; known: {list(EXPERIMENTS)}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        # Each would run again and the report would hold its rows twice.
        raise ValueError(f"only: experiment(s) named more than once: {repeated}")
    results = []
    bar = tqdm(names, desc="reproduce", unit="experiment", disable=None if progress else True)
    for name in bar:
        bar.set_postfix_str(name)
        module = importlib.import_module(f"costmetrics.experiments.{name}")
        sub = out / name
        made = not sub.exists()
        sub.mkdir(parents=True, exist_ok=True)
        try:
            results.append(module.run(sub))
        except BaseException:
            # Interrupted (or failed) before it wrote anything: no empty folder is left
            # that looks like an experiment's output.
            if made and not any(sub.iterdir()):
                sub.rmdir()
            raise
    write_report(results, out)
    return results
