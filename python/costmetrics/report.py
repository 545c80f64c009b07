"""Reproduction records: a number computed by costmetrics set beside the value in a seed.

Every experiment in :mod:`costmetrics.experiments` returns a list of
:class:`ReproducedValue`; :mod:`costmetrics.reproduce` gathers them into the report.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from costmetrics._files import linked_file, save_figure_atomic, write_text_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class ReproducedValue:
    """One reproduced number.

    Parameters
    ----------
    experiment : str
        Short name of the experiment family, e.g. ``"time"``.
    quantity : str
        What the number is, with its unit, e.g. ``"S(1,6) off-chip words"``.
    source : str
        Where the seed prints it, e.g. ``"000 App. D.7, Fig. D.11"``.
    seed_value : float or str or None
        The value printed in the seed (None when the seed prints none).
    reproduced_value : float or str
        The value costmetrics computes.
    note : str
        Anything a reader needs to judge the comparison.
    measured : bool
        True for a measurement of this run (a wall-clock time, a count that depends on
        thread scheduling) rather than a model output: reported, but not pinned by the
        regression test, since it differs from run to run.
    """

    experiment: str
    quantity: str
    source: str
    seed_value: float | int | str | None
    reproduced_value: float | int | str
    note: str = ""
    measured: bool = False

    @property
    def relative_difference(self) -> float | None:
        """Relative difference ``(reproduced - seed) / seed``.

        None when either value is not numeric, the seed value is 0, or the difference is
        not finite (a NaN or infinite value, or an overflowing ratio): never NaN or inf.
        """
        s, r = self.seed_value, self.reproduced_value
        if isinstance(s, (int, float)) and isinstance(r, (int, float)) and s != 0:
            try:
                d = (float(r) - float(s)) / abs(float(s))
            except OverflowError:  # an int beyond the double range
                return None
            return d if math.isfinite(d) else None
        return None


@dataclass
class ExperimentResult:
    """What one experiment produced: its reproduced values and the files it wrote."""

    name: str
    values: list[ReproducedValue] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def save_figure(self, fig: Figure, path: Path) -> Path:
        """Write ``fig`` as a PNG at 120 dpi (every figure of the report), record it, close it.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
            The figure.
        path : Path
            Where to write it.

        Returns
        -------
        Path
            ``path``.
        """
        import matplotlib.pyplot as plt

        save_figure_atomic(fig, path, dpi=120)
        plt.close(fig)
        self.files.append(path)
        return path


def _fmt(value: float | int | str | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.6g}"


def _json_safe(value: object) -> object:
    """``value`` with every non-finite real replaced by None (strict JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        f = float(value)
        return f if math.isfinite(f) else None
    return value


def write_report(results: Sequence[ExperimentResult], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.json`` into ``out_dir``.

    ``report.json`` is strict JSON: a NaN or infinite value is written as null. Each file
    is written whole (renamed into place); the older ``report.json`` is removed before
    ``report.md`` is written, so a run killed between the two leaves ``report.md`` without
    ``report.json``, not a pair from two runs.

    Parameters
    ----------
    results : sequence of ExperimentResult
        The experiments' results.
    out_dir : str or Path
        The folder; created (with its parents) if missing.

    Returns
    -------
    tuple of Path
        The Markdown and JSON report paths.

    Raises
    ------
    TypeError
        If ``out_dir`` is not a str or path.
    ValueError
        If ``out_dir`` is a file, or cannot be created.
    """
    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(
            f"out_dir: expected a str or Path, got {type(out_dir).__name__} {out_dir!r}"
        )
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"out_dir: {out_dir} is a file, expected a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        # A parent that is a file, no permission, an embedded NUL: name the parameter.
        raise ValueError(f"out_dir: cannot create {out_dir!s}: {exc}") from None
    lines = [
        "# costmetrics reproduction report",
        "",
        "Each row sets a number computed by costmetrics beside the value printed in the seed.",
        "",
    ]
    records = []
    for result in results:
        lines += [f"## {result.name}", ""]
        if result.values:
            lines += [
                "| quantity | source | seed | reproduced | rel. diff | note |",
                "|---|---|---|---|---|---|",
            ]
            for v in result.values:
                rd = v.relative_difference
                rd_s = "-" if rd is None else f"{100 * rd:+.2f}%"
                lines.append(
                    f"| {v.quantity} | {v.source} | {_fmt(v.seed_value)} | "
                    f"{_fmt(v.reproduced_value)} | {rd_s} | {v.note} |"
                )
                records.append({**asdict(v), "relative_difference": rd})
        if result.files:
            lines += ["", "Files:", ""]
            lines += [
                f"- `{p.relative_to(out_dir) if p.is_relative_to(out_dir) else p}`"
                for p in result.files
            ]
        lines.append("")
    md_path = out_dir / "report.md"
    json_path = out_dir / "report.json"
    # The two files cannot be renamed into place at once: the older report.json goes
    # first, so that a run killed between the two writes leaves report.md alone (and the
    # next run writes both), never a report.md and a report.json of two runs.
    linked_file(json_path).unlink(missing_ok=True)
    write_text_atomic(md_path, "\n".join(lines))
    write_text_atomic(
        json_path, json.dumps(_json_safe(records), indent=2, default=str, allow_nan=False)
    )
    return md_path, json_path
