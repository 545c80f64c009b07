"""Output files that appear whole or not at all.

Everything the package writes as a result (reproduction tables and figures, reports,
calibrations, the energy data set) goes through a temporary file in the destination's
folder and a rename, so that a process killed while writing leaves the previous file (or
none), never half a table that reads as a shorter one. The measurement tables are the
exception: they are appended to row by row and repaired on resume (:mod:`costmetrics.measure`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _temporary(path: Path) -> Path:
    # In the same folder (a rename across file systems is not atomic), hidden, and named by
    # the process, so that two processes writing the same file do not share it.
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporaries of ``path`` left by processes that no longer run.

    A process killed while it writes (SIGKILL: no handler runs) leaves its temporary file;
    the next write of the same file removes it, so that a rerun leaves a clean folder.
    """
    prefix = f".{path.name}."
    try:
        leftovers = [p for p in path.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return  # the write itself reports an unusable folder
    for tmp in leftovers:
        pid_text = tmp.name[len(prefix) :].removesuffix(".tmp")
        if not tmp.name.endswith(".tmp") or not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            tmp.unlink(missing_ok=True)
        except (PermissionError, OverflowError):
            continue  # alive under another user, or no such process id on this system


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write, renamed to ``path`` when the block ends.

    Parameters
    ----------
    path : str or Path
        The file; its folder must exist.

    Yields
    ------
    Path
        The temporary file's path. If the block raises, the file is removed and ``path`` is
        untouched.
    """
    target = Path(path)
    _remove_stale_temporaries(target)
    tmp = _temporary(target)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_output(path: str | Path, *, newline: str | None = None) -> Iterator[TextIO]:
    """Open a UTF-8 text file for writing that appears at ``path`` when the block ends.

    Parameters
    ----------
    path : str or Path
        The file; its folder must exist.
    newline : str, optional
        As in :func:`open` (``""`` for :mod:`csv` writers).

    Yields
    ------
    TextIO
        The temporary file (:func:`atomic_path`).
    """
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline=newline) as handle:
        yield handle


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) whole or not at all (:func:`atomic_path`)."""
    with atomic_output(path) as handle:
        handle.write(text)


def save_figure_atomic(fig: Figure, path: str | Path, **savefig: Any) -> None:
    """``fig.savefig(path, **savefig)`` whole or not at all; the format from the suffix."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=Path(path).suffix.lstrip(".") or None, **savefig)
