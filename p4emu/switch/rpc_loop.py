"""The asyncio loop, in one daemon thread, that serves every P4Runtime server of a process.

`p4emu fabric` runs many switches, each with its own gRPC port; their StreamChannels all
run on this one loop, and their unary RPCs (Write, Read, pipeline config) in each
server's thread pool, as before.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class RpcLoop:
    """One event loop in one thread; `shared()` is the process's."""

    _shared: RpcLoop | None = None
    _shared_lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="p4runtime",
                                        daemon=True)
        self._thread.start()

    @classmethod
    def shared(cls) -> RpcLoop:
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = RpcLoop()
            return cls._shared

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait for its result (from any other thread)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)
