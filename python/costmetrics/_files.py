"""Output files that appear whole or not at all.

Everything the package writes as a result (reproduction tables and figures, reports,
calibrations, the energy data set) goes through a temporary file in the destination's
folder and a rename, so that a process killed while writing leaves the previous file (or
none), never half a table that reads as a shorter one. The measurement tables are the
exception: they are appended to row by row and repaired on resume (:mod:`costmetrics.measure`).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from matplotlib.figure import Figure


#: The longest file name most file systems take (NAME_MAX); a temporary's name is kept to it.
_NAME_MAX = 255


def _temporary_prefix(path: Path) -> str:
    """Return what the names of ``path``'s temporaries start with: ``.<name>.``.

    A name within 60 bytes of the limit is cut and tagged with its digest
    (``.<start>~<digest>.``), so that the temporary of a legal long name is a legal name
    too (the process and thread ids and ``.tmp`` take at most 47 bytes).
    """
    prefix = f".{path.name}."
    if len(os.fsencode(prefix)) <= _NAME_MAX - 60:
        return prefix
    digest = hashlib.sha256(os.fsencode(path.name)).hexdigest()[:16]
    start = os.fsencode(path.name)[:120].decode("utf-8", "ignore")
    return f".{start}~{digest}."


def _temporary(path: Path) -> Path:
    # In the same folder (a rename across file systems is not atomic), hidden, and named by
    # the process and the thread, so that two writers of the same file (two processes, or
    # two threads of one) do not share it.
    name = f"{_temporary_prefix(path)}{os.getpid()}.{threading.get_native_id()}.tmp"
    return path.with_name(name)


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporaries of ``path`` left by processes that no longer run.

    A process killed while it writes (SIGKILL: no handler runs) leaves its temporary file;
    the next write of the same file removes it, so that a rerun leaves a clean folder. A
    temporary is removed only when no process of this system holds the lock its writer
    takes (:func:`atomic_path`): the process id in its name is not enough, since a writer
    in another PID namespace (a container sharing the folder) has an id this process
    cannot see, and its live temporary was removed under it.
    """
    prefix = _temporary_prefix(path)
    try:
        leftovers = [p for p in path.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return  # the write itself reports an unusable folder
    for tmp in leftovers:
        # .<name>.<pid>.<thread>.tmp (.<name>.<pid>.tmp before 2026-11-30)
        ids = tmp.name[len(prefix) :].removesuffix(".tmp").split(".")
        if not tmp.name.endswith(".tmp") or len(ids) > 2 or not all(i.isdigit() for i in ids):
            continue
        pid = int(ids[0])
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            _remove_unlocked(tmp)
        except (PermissionError, OverflowError):
            continue  # alive under another user, or no such process id on this system


def _remove_unlocked(tmp: Path) -> None:
    """Remove the temporary ``tmp`` unless a writer holds its lock (:func:`atomic_path`).

    Only a regular file is touched: a FIFO of that name is opened without waiting for a
    writer (a blocking open hung every later write of the file) and left alone.
    """
    try:
        fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return  # gone meanwhile, a link, or not a file this process may open: left alone
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # held: a live writer (another PID namespace), or no locks here
        tmp.unlink(missing_ok=True)  # while locked: no writer can take it meanwhile
    finally:
        os.close(fd)


def _existing_kind(path: Path, name: str) -> str | None:
    """Return ``"file"`` or ``"folder"`` for what is at ``path`` (``None`` if nothing is).

    Anything else (a FIFO, a device such as /dev/null, a socket) raises ``ValueError``
    naming ``name``. Only ``stat`` is called: opening a FIFO blocks until a reader comes.
    """
    try:
        mode = os.stat(path).st_mode  # follows links: a link to /dev/null is a device
    except ValueError as exc:  # an embedded NUL byte; stat's message names nothing
        raise ValueError(f"{name}: cannot write {str(path)!r}: {exc}") from None
    except FileNotFoundError:
        return None
    except OSError as exc:  # e.g. a component of the folder is a file
        raise ValueError(f"{name}: cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        return "folder"
    if not stat.S_ISREG(mode):
        raise ValueError(f"{name}: {path} is not a regular file")
    return "file"


def _regular_file_or_nothing(path: Path, name: str) -> bool:
    """Tell whether a regular file is at ``path`` (``False``: nothing is).

    A folder, FIFO, device or socket raises ``ValueError`` naming ``name``, found by
    ``stat`` alone (:func:`_existing_kind`).
    """
    kind = _existing_kind(path, name)
    if kind == "folder":
        raise ValueError(f"{name}: {path} is a folder, expected a file")
    return kind == "file"


def linked_file(path: Path) -> Path:
    """Return the file a symbolic link ``path`` names (``path`` itself if not a link).

    A link names the file to write: the atomic rename replaced the link itself with a
    regular file and left the file it named as it was (appends went through the link), so
    results go where the link points, the link stays, and a table's lock is the file's.
    """
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def file_kind(mode: int) -> str:
    """Name, in words, the kind of file a ``stat`` mode describes (``"file"``, ``"folder"``)."""
    for test, kind in (
        (stat.S_ISREG, "file"),
        (stat.S_ISDIR, "folder"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISFIFO, "FIFO (named pipe)"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return kind
    return "special file"


def writable_folder(folder: Path, name: str, *, create: bool = True) -> Path:
    """Create ``folder`` if missing and check that a file can be written in it.

    Parameters
    ----------
    folder : Path
        The folder.
    name : str
        The argument or option that named it, for the message.
    create : bool
        Create a missing folder (default). With ``False`` nothing is created: a missing
        folder passes if its nearest existing parent is a folder a file can be written in
        (so that a command whose other options are checked later leaves no empty folder
        when they are refused; the folder is created when the results are written).

    Returns
    -------
    Path
        ``folder``.

    Raises
    ------
    ValueError
        If it is something other than a folder (a file, a FIFO, a device), or cannot be
        created or written; the message names ``name`` and the folder.
    """
    try:
        mode = os.stat(folder).st_mode  # only stat: opening a FIFO blocks
    except OSError:
        pass  # missing, or a file as a folder above it: mkdir's error says which
    else:
        if not stat.S_ISDIR(mode):
            # mkdir(exist_ok=True) said "File exists" of a file, /dev/null or a FIFO.
            raise ValueError(f"{name}: {folder} is a {file_kind(mode)}, expected a folder")
    try:
        where = folder
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        elif not folder.is_dir():
            where = _nearest_existing_parent(folder)
            if not where.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{where} is not a folder")
        # A probe file, not os.access: as root, access says yes to read-only mounts.
        probe = where / f".costmetrics-write-check-{os.getpid()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"{name}: cannot write to {folder}: {exc.strerror or exc}") from None
    return folder


def _nearest_existing_parent(path: Path) -> Path:
    """Return the nearest parent of ``path`` that exists (``stat`` alone; ``.`` at last)."""
    for parent in path.parents:
        try:
            os.stat(parent)
        except FileNotFoundError:
            continue
        return parent
    return Path(".")


def check_output_file(path: Path, name: str, *, create_folder: bool = False) -> Path:
    """Check, before long work starts, that ``path`` can be written or appended to.

    Nothing is opened but a regular file: an existing path that is not one (a FIFO, a
    device, a socket, a folder) is refused without touching it.

    Parameters
    ----------
    path : Path
        The file.
    name : str
        The argument or option that named it, for the message.
    create_folder : bool
        Accept a missing folder that its writer creates (as :func:`costmetrics.measure.measure`
        does for its table) if its nearest existing parent is a folder a file can be written
        in; the check itself creates nothing, so a command refused later leaves no empty
        folder. By default the folder must exist, as :func:`atomic_path` requires.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        If ``path`` is a folder or not a regular file, its folder is missing (and not to be
        created) or could not be written, or the file cannot be appended to; the message names
        ``name`` and the path.
    """
    exists = _regular_file_or_nothing(path, name)
    folder = path.parent if str(path.parent) else Path(".")
    if not create_folder and not folder.is_dir():
        raise ValueError(f"{name}: folder {folder} does not exist")
    writable_folder(folder, name, create=False)
    if exists:
        try:
            with path.open("a", encoding="utf-8"):  # a regular file: appends nothing
                pass
        except OSError as exc:
            raise ValueError(f"{name}: {path} is not writable: {exc.strerror or exc}") from None
    return path


@contextmanager
def atomic_path(path: str | Path, name: str = "path") -> Iterator[Path]:
    """Yield a temporary path to write, renamed to ``path`` when the block ends.

    Parameters
    ----------
    path : str or Path
        The file; its folder must exist. If something is there, it must be a regular file:
        a FIFO or a device (/dev/null) is never replaced by the rename. A symbolic link is
        followed: the file it points to is written and the link is kept.
    name : str
        The argument that named ``path``, for the message.

    Yields
    ------
    Path
        The temporary file's path. If the block raises, the file is removed and ``path`` is
        untouched.

    Raises
    ------
    ValueError
        If ``path`` exists and is not a regular file (checked before and after the block).
    """
    target = linked_file(Path(path))
    _regular_file_or_nothing(target, name)
    _remove_stale_temporaries(target)
    tmp = _temporary(target)
    # The temporary is made here and locked for the whole write: another process's
    # clean-up (_remove_stale_temporaries) leaves a locked temporary alone, whatever the
    # process id in its name says. The block writes it by name (same inode, same lock).
    try:
        # Named by this process and thread: whatever is there is a leftover of an earlier
        # process of the same id (a FIFO would block the open, a link redirect the write).
        if os.path.lexists(tmp) and not os.path.isdir(tmp):
            os.unlink(tmp)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise ValueError(f"{name}: cannot write {target}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # a file system without locks: written as before, unlocked
        yield tmp
        _regular_file_or_nothing(target, name)  # something else may have appeared meanwhile
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)  # releases the lock, after the rename


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
