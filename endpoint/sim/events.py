"""A minimal discrete-event loop with a virtual clock."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any


class EventLoop:
    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()  # FIFO among equal times keeps runs deterministic
        self.events_run = 0

    def at(self, when: float, fn: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self._heap, (max(when, self.now), next(self._seq), fn, args))

    def after(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        self.at(self.now + delay, fn, *args)

    def run(self, until: float, stop: Callable[[], bool] = lambda: False) -> None:
        """Run events in time order until `until` (virtual seconds) or `stop()` is true."""
        heap = self._heap
        while heap and not stop():
            when, _seq, fn, args = heap[0]
            if when > until:
                break
            heapq.heappop(heap)
            self.now = when
            self.events_run += 1
            fn(*args)
