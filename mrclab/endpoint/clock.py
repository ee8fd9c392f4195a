"""A discrete-event loop: the simulator's virtual clock, and the timers of a lab rank agent,
which sets `now` from the wall clock (mrclab.experiments.lab_engine.rank_agent)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from heapq import heappop, heappush
from typing import Any


class EventLoop:
    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()  # FIFO among equal times keeps runs deterministic
        self.events_run = 0

    def at(self, when: float, fn: Callable[..., None], *args: Any) -> None:
        # several events per simulated packet: max(when, now) as a comparison (the same
        # result, including which of two equal values is kept)
        now = self.now
        heappush(self._heap, (now if now > when else when, next(self._seq), fn, args))

    def after(self, delay: float, fn: Callable[..., None], *args: Any) -> None:
        self.at(self.now + delay, fn, *args)

    def next_due(self) -> float | None:
        """When the earliest pending event is due (None: nothing pending): how long a loop
        on the wall clock may wait for packets before it must run events."""
        return self._heap[0][0] if self._heap else None

    def run(self, until: float, stop: Callable[[], bool] = lambda: False) -> None:
        """Run events in time order until `until` (virtual seconds) or `stop()` is true.
        Unless stopped, the clock then reads `until`: the time passed though nothing
        happened (a caller stepping the clock would otherwise never pass a quiet gap)."""
        heap = self._heap
        while heap:
            if stop():
                return
            when, _seq, fn, args = heap[0]
            if when > until:
                break
            heappop(heap)
            self.now = when
            self.events_run += 1
            fn(*args)
        if self.now < until < math.inf and not stop():
            self.now = until


class DeadlineTimer:
    """One pending wake-up for a sans-I/O core's `next_deadline()`: `arm` schedules `fire`
    at the deadline unless an earlier wake-up is already pending; a superseded one is
    ignored when it comes due."""

    def __init__(self, loop: EventLoop, fire: Callable[[], None]) -> None:
        self.loop, self.fire = loop, fire
        self._at: float | None = None

    def arm(self, deadline: float | None) -> None:
        now = self.loop.now
        if deadline is not None and (self._at is None or deadline < self._at or self._at <= now):
            self._at = max(deadline, now)
            self.loop.at(self._at, self._due, self._at)

    def _due(self, when: float) -> None:
        if self._at == when:
            self._at = None
            self.fire()
