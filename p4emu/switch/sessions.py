"""One P4Runtime StreamChannel's outgoing side: a bounded queue the RPC generator drains."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from p4.v1 import p4runtime_pb2

log = logging.getLogger(__name__)

STREAM_QUEUE = 10000


class End:
    """Queued to a stream to terminate it with a status."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.message = message


class StreamSession:
    """One StreamChannel: an outgoing queue drained by the RPC's generator."""

    def __init__(self, peer: str, is_active: Callable[[], bool] = lambda: True) -> None:
        self.peer = peer
        self.out: queue.Queue = queue.Queue(STREAM_QUEUE)
        self.closed = threading.Event()
        self.arbitrated = False
        self._is_active = is_active  # the RPC's own view: False once cancelled or ended

    def done(self) -> bool:
        """Whether the client closed or cancelled this stream (or the server ended it)."""
        return self.closed.is_set() or not self._is_active()

    def wait_done(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the stream to end; whether it has."""
        if not self.done():
            self.closed.wait(timeout)
        return self.done()

    def send(self, msg: p4runtime_pb2.StreamMessageResponse) -> bool:
        if self.closed.is_set():
            return False
        try:
            self.out.put_nowait(msg)
            return True
        except queue.Full:  # a client that stopped reading loses messages, not the switch
            log.debug("stream %s: outgoing queue full, message dropped", self.peer)
            return False

    def end(self, code: int, message: str) -> None:
        self.out.put(End(code, message))
        self.closed.set()

    def close(self) -> None:
        if not self.closed.is_set():
            self.closed.set()
            self.out.put(None)

    def __repr__(self) -> str:
        return f"StreamSession({self.peer})"
