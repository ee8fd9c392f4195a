"""Simulated paths: a trimming, ECN-marking bottleneck queue, delay, loss, reordering, failure.

A `Path` carries one direction of data through a bottleneck and the replies back through a
plain delay line (replies are small and go in the high-priority queue in the fabric). The
bottleneck behaves like the fabric's egress port (docs/architecture.md, "Parts": data plane): a DATA packet that
would join the data queue at depth >= `trim_threshold` is cut to its headers, marked TRIMMED
and sent in the high-priority queue; at depth >= `ecn_threshold` it is marked CE; beyond
`queue_limit` it is tail-dropped; every packet's `qmax` becomes max(qmax, depth).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from mrclab.endpoint.clock import EventLoop
from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN, Flag, MrcHeader, MsgType

HEADER_FRAME = ETH_IP_UDP_LEN + HEADER_LEN


@dataclass(slots=True)
class SimPacket:
    header: MrcHeader
    payload: bytes | memoryview
    plane: int
    ce: bool = False

    @property
    def size(self) -> int:
        return HEADER_FRAME + len(self.payload)


@dataclass(slots=True)
class PathSpec:
    """One path: one-way delay (s), bottleneck bandwidth (bit/s) and impairments."""

    delay: float = 50e-6
    bandwidth: float = 100e6
    loss: float = 0.0  # per packet, each direction
    reorder: float = 0.0  # share of packets delayed by up to `reorder_delay` more
    reorder_delay: float = 0.0
    jitter: float = 0.0  # every packet, each direction: up to this much more delay (uniform)
    queue_limit: int = 64
    trim_threshold: int | None = 16  # None: no trimming, only tail drop
    ecn_threshold: int | None = 8
    fail_at: float | None = None
    recover_at: float | None = None
    # True: a failure also drops the packets already on the path. False: the failure is at
    # the path's entry (a link before the queues), so packets that got past it still
    # arrive, as after a failed core link whose downstream switches are slow to drain.
    drop_in_flight: bool = True


@dataclass(slots=True)
class PathCounters:
    forwarded: int = 0
    trimmed: int = 0
    ecn_marked: int = 0
    tail_dropped: int = 0
    random_lost: int = 0
    failed_dropped: int = 0
    replies: int = 0


Deliver = Callable[[SimPacket], None]


class Path:
    def __init__(self, loop: EventLoop, spec: PathSpec, rng: random.Random, name: str) -> None:
        self.loop, self.spec, self.rng, self.name = loop, spec, rng, name
        self.counters = PathCounters()
        self._data: deque[tuple[SimPacket, Deliver]] = deque()
        self._high: deque[tuple[SimPacket, Deliver]] = deque()
        self._busy = False

    def is_down(self, t: float) -> bool:
        s = self.spec
        return s.fail_at is not None and t >= s.fail_at and \
            (s.recover_at is None or t < s.recover_at)

    def _impaired(self) -> bool:
        """Failure and random loss; True when the packet is gone."""
        if self.is_down(self.loop.now):
            self.counters.failed_dropped += 1
            return True
        if self.spec.loss and self.rng.random() < self.spec.loss:
            self.counters.random_lost += 1
            return True
        return False

    def _propagation(self) -> float:
        s = self.spec
        delay = s.delay
        if s.jitter:  # drawn only when set, so runs without jitter keep their random streams
            delay += self.rng.random() * s.jitter
        if s.reorder and self.rng.random() < s.reorder:
            delay += self.rng.random() * s.reorder_delay
        return delay

    def forward(self, pkt: SimPacket, deliver: Deliver) -> None:
        """Send toward the receiver through the bottleneck queue."""
        if self._impaired():
            return
        s, hdr = self.spec, pkt.header
        depth = len(self._data)
        hdr.qmax = max(hdr.qmax, depth)
        if hdr.type == MsgType.DATA and not hdr.flags & Flag.TRIMMED:
            if s.trim_threshold is not None and depth >= s.trim_threshold:
                hdr.flags |= Flag.TRIMMED
                pkt.payload = b""
                self.counters.trimmed += 1
                self._high.append((pkt, deliver))
            elif depth >= s.queue_limit:
                self.counters.tail_dropped += 1
                return
            else:
                if s.ecn_threshold is not None and depth >= s.ecn_threshold:
                    pkt.ce = True
                    self.counters.ecn_marked += 1
                self._data.append((pkt, deliver))
        else:
            self._high.append((pkt, deliver))
        if not self._busy:
            self._serve()

    def _serve(self) -> None:
        queue = self._high or self._data
        if not queue:
            self._busy = False
            return
        self._busy = True
        pkt, deliver = queue.popleft()
        self.loop.after(pkt.size * 8 / self.spec.bandwidth, self._transmitted, pkt, deliver)

    def _transmitted(self, pkt: SimPacket, deliver: Deliver) -> None:
        self.counters.forwarded += 1
        self.loop.after(self._propagation(), self._arrive, pkt, deliver)
        self._serve()

    def _arrive(self, pkt: SimPacket, deliver: Deliver) -> None:
        if self.spec.drop_in_flight and self.is_down(self.loop.now):
            self.counters.failed_dropped += 1
            return
        deliver(pkt)

    def reverse(self, pkt: SimPacket, deliver: Deliver) -> None:
        """Send a reply back toward the sender (delay line, no queue)."""
        if self._impaired():
            return
        self.counters.replies += 1
        self.loop.after(self._propagation(), self._arrive, pkt, deliver)
