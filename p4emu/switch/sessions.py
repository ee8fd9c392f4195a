"""One P4Runtime StreamChannel's outgoing side: messages from any thread, written by the
RPC's coroutine on the server's event loop.

The data-plane thread (PacketIn), the notification thread (digests, idle timeouts) and the
loop itself (arbitration answers, stream errors) all send. A burst of sends from another
thread costs one wake-up of the loop, not one per message: with a switch's probes in
the hundreds a second, per-message thread hand-offs were the P4Runtime server's main
cost (docs/lab-capacity.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque

from p4.v1 import p4runtime_pb2

log = logging.getLogger(__name__)

STREAM_QUEUE = 10000


class End:
    """Queued to a stream to terminate it with a status."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        self.message = message


Outgoing = p4runtime_pb2.StreamMessageResponse | End | None  # None: end with OK


class StreamSession:
    """One StreamChannel, made on `loop` (the loop its RPC runs on)."""

    def __init__(self, peer: str, loop: asyncio.AbstractEventLoop) -> None:
        self.peer = peer
        self.arbitrated = False
        self.closed = threading.Event()
        self._loop = loop
        self._out: deque[Outgoing] = deque()
        self._ready = asyncio.Event()  # set when _out may have gained an item
        self._ended = asyncio.Event()  # the loop's view of `closed`, to await
        # a wake-up is scheduled and has not yet run: it will see what is appended now
        # (cleared before the event is set, so no message waits for a next one)
        self._wake_pending = False

    def done(self) -> bool:
        """Whether the client closed or cancelled this stream (or the server ended it)."""
        return self.closed.is_set()

    async def wait_done(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the stream to end; whether it has. On the loop."""
        if not self.done():
            try:
                await asyncio.wait_for(self._ended.wait(), timeout)
            except TimeoutError:
                pass
        return self.done()

    def send(self, msg: p4runtime_pb2.StreamMessageResponse) -> bool:
        """Queue `msg` for the client (any thread); False if it was not queued."""
        if self.closed.is_set():
            return False
        if len(self._out) >= STREAM_QUEUE:  # a client that stopped reading loses messages
            log.debug("stream %s: outgoing queue full, message dropped", self.peer)
            return False
        self._put(msg)
        return True

    def end(self, code: int, message: str) -> None:
        """End the stream with status `code` once what is queued has been written."""
        self.closed.set()
        self._put(End(code, message))

    def close(self) -> None:
        """End the stream with OK once what is queued has been written."""
        if not self.closed.is_set():
            self.closed.set()
            self._put(None)

    async def next_out(self) -> Outgoing:
        """The next item to write (on the loop): a message, an End or None."""
        while not self._out:
            self._ready.clear()
            if self._out:
                break
            await self._ready.wait()
        return self._out.popleft()

    def _put(self, item: Outgoing) -> None:
        self._out.append(item)
        if self._on_loop():
            self._wake()
            return
        if self._wake_pending:
            return
        self._wake_pending = True
        try:
            self._loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # the loop is closed: the server is gone, and so is the stream
            pass

    def _wake(self) -> None:
        self._wake_pending = False
        self._ready.set()
        if self.closed.is_set():
            self._ended.set()

    def _on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    def __repr__(self) -> str:
        return f"StreamSession({self.peer})"
