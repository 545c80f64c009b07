"""SIGTERM raised as an interrupt where a command runs, and checked again between runs.

The default action of SIGTERM ends the process at once, so no clean-up runs: a killed
write left its hidden temporary file beside the result. :func:`terminate_as_interrupt`
raises :class:`Terminated` (a ``KeyboardInterrupt``) instead, so what SIGINT runs runs
too (the temporary removed, a measurement table's lock released).

An exception raised by a signal handler can be lost: raised inside a ``__del__`` method or
a garbage-collector callback, Python prints "Exception ignored" and goes on, and a
library's bare ``except`` can catch it (once in the kill campaign of 2026-11-30 a
``measure`` ran to its end after one SIGTERM). So the request is also remembered, and the
long loops (a measurement's runs, a calibration's micro-benchmarks) call
:func:`raise_if_terminated` before each run: a lost interrupt stops them at the next run,
with every row written so far kept. A second SIGTERM still ends the process at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

__all__ = ["Terminated", "raise_if_terminated", "terminate_as_interrupt"]

#: The SIGTERMs received inside the innermost active :func:`terminate_as_interrupt`.
_received: list[int] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command runs, as SIGINT raises KeyboardInterrupt."""


def raise_if_terminated() -> None:
    """Raise :class:`Terminated` if a SIGTERM arrived while the current command ran.

    Called between the runs of a long loop: the interrupt the signal raised may have been
    lost (see the module's docstring). Does nothing outside :func:`terminate_as_interrupt`.
    """
    if _received:
        raise Terminated


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum: int, frame: object) -> None:
        if _received:
            # The first was lost somewhere and the loop has not reached its check (a long
            # run): a second SIGTERM ends the process at once, as without this handler.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        _received.append(signum)
        raise Terminated

    outer = list(_received)
    _received.clear()
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        _received[:] = outer
