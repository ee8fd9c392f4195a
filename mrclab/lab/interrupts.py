"""Ctrl-C and SIGTERM during a lab's life: both stop it cleanly at any moment.

SIGTERM is what `timeout`, CI, `vagrant halt` and a cancelled sweep send; its default
action ends the process at once, before any `finally` has removed the lab's switches and
interfaces. Here it raises `Terminated` instead, and while a lab is being torn down both
signals are ignored, so a second one cannot cut the cleanup short.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

Handler = Callable[[int, Any], Any] | int | None


class Terminated(SystemExit):
    """SIGTERM: leave as from sys.exit (which Mininet's CLI, unlike Ctrl-C, does not
    catch), through every `finally` on the way."""

    def __init__(self) -> None:
        super().__init__(128 + signal.SIGTERM)


def set_signal_handlers(on_int: Handler, on_term: Handler) -> tuple[Handler, Handler] | None:
    """Set SIGINT's and SIGTERM's handlers; the old ones. Only the main thread can catch
    signals: elsewhere (a Dask worker's task thread) nothing changes and None is returned."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, on_int), signal.signal(signal.SIGTERM, on_term)


def _raise_terminated(_sig: int, _frame: object) -> None:
    raise Terminated()


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Within: Ctrl-C raises KeyboardInterrupt as usual, SIGTERM raises Terminated."""
    old = set_signal_handlers(signal.default_int_handler, _raise_terminated)
    try:
        yield
    finally:
        if old is not None:
            set_signal_handlers(*old)


@contextlib.contextmanager
def uninterruptible() -> Iterator[None]:
    """Within: SIGINT and SIGTERM are ignored (a teardown runs to its end)."""
    old = set_signal_handlers(signal.SIG_IGN, signal.SIG_IGN)
    try:
        yield
    finally:
        if old is not None:
            set_signal_handlers(*old)
