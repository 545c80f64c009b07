"""Result files appear whole or not at all (costmetrics._files)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

import costmetrics
from costmetrics._files import atomic_output, atomic_path, save_figure_atomic, write_text_atomic
from costmetrics.experiments import scratchpad as ex_scratchpad

PACKAGE = Path(costmetrics.__file__).parent


class _KilledError(Exception):
    """Stands for a process killed while it writes."""


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_failed_write_leaves_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(_KilledError), atomic_output(target, newline="") as handle:
        handle.write("new, half")
        raise _KilledError
    assert target.read_text(encoding="utf-8") == "old\n" and _leftovers(tmp_path) == []
    # ... or none, where there was none.
    with pytest.raises(_KilledError), atomic_path(tmp_path / "new.npz") as tmp:
        tmp.write_bytes(b"half")
        raise _KilledError
    assert not (tmp_path / "new.npz").exists() and _leftovers(tmp_path) == []
    write_text_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n" and _leftovers(tmp_path) == []


def test_temporaries_of_killed_writers_are_removed(tmp_path: Path) -> None:
    # A writer killed with SIGKILL leaves its temporary; the next write of the file removes
    # it, and keeps those of live processes and other files' temporaries.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(done.stdout)
    stale = tmp_path / f".table.csv.{dead}.tmp"
    live = tmp_path / f".table.csv.{os.getppid()}.tmp"
    other = tmp_path / f".other.csv.{dead}.tmp"
    for p in (stale, live, other):
        p.write_text("half", encoding="utf-8")
    write_text_atomic(tmp_path / "table.csv", "whole\n")
    assert not stale.exists() and live.exists() and other.exists()
    assert (tmp_path / "table.csv").read_text(encoding="utf-8") == "whole\n"


def test_a_locked_temporary_of_an_unseen_process_is_kept(tmp_path: Path) -> None:
    # (kill campaign, 2026-11-30) A writer in another PID namespace (a container sharing
    # the folder) has a process id this process cannot see: its live temporary was taken
    # for a killed writer's and removed, and its rename then failed. A writer locks its
    # temporary; only an unlocked one is removed. The writer here holds the lock on a
    # temporary named after an id that runs nowhere.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    unseen = tmp_path / f".table.csv.{int(done.stdout)}.tmp"
    unseen.write_text("half", encoding="utf-8")
    code = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True); sys.stdin.readline()"
    )
    with subprocess.Popen([sys.executable, "-c", code, str(unseen)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as holder:  # fmt: skip
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
            write_text_atomic(tmp_path / "table.csv", "whole\n")
            assert unseen.read_text(encoding="utf-8") == "half"  # kept: its writer lives
        finally:
            holder.kill()
    write_text_atomic(tmp_path / "table.csv", "again\n")  # the lock died with its holder
    assert not unseen.exists()
    assert (tmp_path / "table.csv").read_text(encoding="utf-8") == "again\n"
    # A writer's own temporary is locked while the block runs.
    import fcntl

    with atomic_path(tmp_path / "x.csv") as tmp:
        tmp.write_text("x", encoding="utf-8")
        fd = os.open(tmp, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)


def test_figures_keep_their_format(tmp_path: Path) -> None:
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    for name, magic in (("a.png", b"\x89PNG"), ("a.svg", b"<?xml"), ("a.pdf", b"%PDF")):
        save_figure_atomic(fig, tmp_path / name, dpi=50)
        assert (tmp_path / name).read_bytes().startswith(magic)
    plt.close(fig)
    assert _leftovers(tmp_path) == []


def test_a_reproduction_table_cut_while_written_is_not_left_half(tmp_path: Path) -> None:
    rows = ex_scratchpad.me_readings()[:2]
    path = ex_scratchpad.write_readings_csv(rows, tmp_path / "me.csv")
    whole = path.read_text(encoding="utf-8")
    assert len(whole.splitlines()) == 3

    class Cut:
        def __getattr__(self, name: str) -> object:
            raise _KilledError

    with pytest.raises(_KilledError):
        ex_scratchpad.write_readings_csv([rows[0], Cut()], path)  # type: ignore[list-item]
    assert path.read_text(encoding="utf-8") == whole and _leftovers(tmp_path) == []


def test_every_result_file_is_written_atomically() -> None:
    # Writing a result file directly (open(..., "w"), write_text, savefig to a path) is only
    # allowed in costmetrics._files; the measurement tables' appends and the folder check
    # of measure, and figures rendered into memory, are the exceptions.
    direct = re.compile(
        r"""open\([^)]*["']w|\.write_text\(|\.write_bytes\(|\.savefig\(|np\.save|\.to_csv\("""
    )
    allowed = {
        ("measure.py", 'probe.write_text("", encoding="utf-8")'),  # check_writable's probe
        ("_base.py", 'fig.savefig(buffer, format="png", dpi=dpi)'),  # into memory
        ("codesign.py", "np.savez_compressed(f, **arrays)"),  # into atomic_path's file
    }
    found = []
    for source in sorted(PACKAGE.rglob("*.py")):
        if source.name == "_files.py":
            continue
        for line in source.read_text(encoding="utf-8").splitlines():
            if (
                direct.search(line)
                and "atomic_path(" not in line
                and (source.name, line.strip()) not in allowed
            ):
                found.append(f"{source.relative_to(PACKAGE)}: {line.strip()}")
    assert found == []


def test_output_checks_refuse_fifos_and_devices_without_opening_them(tmp_path: Path) -> None:
    import stat

    from costmetrics._files import check_output_file

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # A reader, so that a regression that opens the FIFO fails here instead of hanging.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        # /dev/null is only given to the check, never to a write: it is stat-ed, not opened.
        for special in (fifo, Path("/dev/null")):
            with pytest.raises(ValueError, match=rf"^--save: {re.escape(str(special))} is not"):
                check_output_file(special, "--save")
        # The atomic rename never replaces a FIFO (or a device): refused before the block.
        with pytest.raises(ValueError, match=r"^path: .*fifo is not a regular file"):
            with atomic_path(fifo) as tmp:
                tmp.write_bytes(b"x")
        assert _leftovers(tmp_path) == [] and os.read(reader, 1) == b""
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(ValueError, match=r"^--save: .* is a folder, expected a file"):
        check_output_file(tmp_path, "--save")
    # The folder must exist unless asked to create it (measure's table).
    missing = tmp_path / "no" / "such" / "x.npz"
    with pytest.raises(ValueError, match=r"^--save: folder .*such does not exist"):
        check_output_file(missing, "--save")
    assert not (tmp_path / "no").exists()
    # A folder its writer creates passes, and the check creates nothing (a command refused
    # later left an empty folder); its nearest existing parent must be writable.
    assert check_output_file(missing, "--out", create_folder=True) == missing
    assert not (tmp_path / "no").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match=r"^--out: cannot write .*file/x/t.csv: Not a direc"):
        check_output_file(tmp_path / "file" / "x" / "t.csv", "--out", create_folder=True)


def test_a_link_to_a_result_file_is_followed_and_kept(tmp_path: Path) -> None:
    # (adversarial tester, 2026-11-30) The atomic rename replaced a symbolic link with a
    # regular file: the file the link named kept its old content, while appends (a
    # measurement table's rows) went through the link.
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_text_atomic(link, "new\n")
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text() == "new\n"
    # A sweep through the link and one through the file take one lock.
    from costmetrics.measure import _lock_path

    assert _lock_path(link) == _lock_path(real) == tmp_path / ".real.csv.lock"


def test_threads_of_one_process_writing_one_file_do_not_share_a_temporary(
    tmp_path: Path,
) -> None:
    # The temporary was named by the process alone: two threads writing the same file
    # truncated and wrote one temporary, and the second rename found it gone. Named by the
    # thread too, each write is whole; the last rename wins.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    target = tmp_path / "shared.txt"
    texts = [f"{i}\n" * (20_000 + i) for i in range(8)]
    barrier = threading.Barrier(len(texts))

    def write(text: str) -> None:
        barrier.wait()
        for _ in range(20):
            write_text_atomic(target, text)

    with ThreadPoolExecutor(len(texts)) as pool:
        for future in [pool.submit(write, t) for t in texts]:
            future.result()  # no writer failed
    assert target.read_text(encoding="utf-8") in texts and _leftovers(tmp_path) == []
    # A killed writer's temporary in this naming is removed by the next write.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f".shared.txt.{int(done.stdout)}.123.tmp"
    stale.write_text("half", encoding="utf-8")
    write_text_atomic(target, "whole\n")
    assert not stale.exists() and _leftovers(tmp_path) == []


def test_temporaries_of_long_names_and_odd_leftovers(tmp_path: Path) -> None:
    # (campaign, 2026-11-30) A legal 250-byte name was refused: its temporary's name
    # (name + ids + .tmp) passed the file system's limit. A FIFO left at a dead writer's
    # temporary name hung every later write of the file (its clean-up opened it for
    # reading, waiting for a writer), and one at this writer's own name hung the write.
    import subprocess
    import sys
    import threading

    long_target = tmp_path / ("x" * 246 + ".csv")
    write_text_atomic(long_target, "long\n")
    assert long_target.read_text(encoding="utf-8") == "long\n" and _leftovers(tmp_path) == []
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    target = tmp_path / "t.csv"
    dead_fifo = tmp_path / f".t.csv.{int(done.stdout)}.7.tmp"
    os.mkfifo(dead_fifo)
    result: list[BaseException | None] = []

    def write() -> None:
        try:
            # A FIFO at the name this thread's temporary takes.
            os.mkfifo(tmp_path / f".t.csv.{os.getpid()}.{threading.get_native_id()}.tmp")
            write_text_atomic(target, "whole\n")
            result.append(None)
        except BaseException as exc:  # reported below
            result.append(exc)

    worker = threading.Thread(target=write, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "the write hung on a FIFO"
    assert result == [None] and target.read_text(encoding="utf-8") == "whole\n"
    assert dead_fifo.exists()  # not a regular file: left alone, not opened
