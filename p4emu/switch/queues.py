"""Egress queue model: pure, clock-injected, no threads.

One `PortQueues` per egress port: ``priorities`` strict-priority FIFOs (highest value
served first), a depth limit in packets per FIFO (one for all, or per priority, as
BMv2's ``set_queue_depth DEPTH PORT PRIO``), and one server whose service time per
packet is the larger of ``1/rate_pps`` and ``bits/line_rate_bps``. Times are µs since
switch start, as BMv2's queueing metadata.

BMv2 semantics kept: ``enq_qdepth`` is the number of packets already queued in the
packet's own priority FIFO when it joins; ``deq_qdepth`` the number left in that FIFO
after it leaves (BMv2 counts per priority queue since 1.15.1, behavioral-model PR #1270;
before, it counted the whole port); a full FIFO drops silently; a priority outside
``[0, priorities)`` is dropped.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

DEFAULT_QUEUE_DEPTH = 64


class DropReason(StrEnum):
    QUEUE_FULL = "queue_full"
    BAD_PRIORITY = "bad_priority"


@dataclass
class QueueConfig:
    depth: int = DEFAULT_QUEUE_DEPTH  # packets per priority FIFO
    rate_pps: float = 0.0  # 0 = unlimited, as BMv2
    line_rate_bps: float = 0.0  # 0 = unlimited; p4emu's own
    priority_depths: dict[int, int] = field(default_factory=dict)  # priority -> depth

    def depth_of(self, priority: int) -> int:
        return self.priority_depths.get(priority, self.depth)

    def copy(self) -> QueueConfig:
        return QueueConfig(self.depth, self.rate_pps, self.line_rate_bps,
                           dict(self.priority_depths))

    def service_time_us(self, size_bytes: int) -> float:
        """Time the port's server is busy sending one packet of `size_bytes`."""
        by_rate = 1e6 / self.rate_pps if self.rate_pps > 0 else 0.0
        by_line = size_bytes * 8e6 / self.line_rate_bps if self.line_rate_bps > 0 else 0.0
        return max(by_rate, by_line)


# Enqueued and Dequeued are made once per packet and hop: immutable records built as
# tuples (a frozen dataclass sets each field through object.__setattr__, several times
# the cost)
class Enqueued(NamedTuple):
    enq_timestamp: int
    enq_qdepth: int


class Dequeued(NamedTuple):
    item: Any
    priority: int
    enq_timestamp: int
    enq_qdepth: int
    deq_timedelta: int
    deq_qdepth: int
    start_us: float  # when service began (model time; may precede the caller's clock)


@dataclass(slots=True)
class _Queued:
    item: Any
    enq_timestamp: int  # µs, as the P4 program sees it
    enq_qdepth: int
    arrival_us: float  # when it joined, unrounded: the server's clock


class PortQueues:
    """The strict-priority FIFOs and the server of one egress port."""

    def __init__(self, config: QueueConfig | None = None, priorities: int = 1) -> None:
        if priorities < 1:
            raise ValueError("priorities must be >= 1")
        self.config = config or QueueConfig()
        self.fifos: list[deque[_Queued]] = [deque() for _ in range(priorities)]
        self.busy_until_us = 0.0
        self.queued = 0  # packets in all FIFOs: the traffic manager skips an empty port
        self.enqueued = 0
        self.dequeued = 0
        self.drops: dict[DropReason, int] = {reason: 0 for reason in DropReason}

    @property
    def depth(self) -> int:
        return sum(len(fifo) for fifo in self.fifos)

    def offer(self, item: Any, *, priority: int, now_us: float) -> Enqueued | DropReason:
        """Queue `item` arriving at `now_us` (fractions kept for the server, whole µs for
        the timestamps), or say why it was dropped."""
        if not 0 <= priority < len(self.fifos):
            self.drops[DropReason.BAD_PRIORITY] += 1
            return DropReason.BAD_PRIORITY
        fifo = self.fifos[priority]
        if len(fifo) >= self.config.depth_of(priority):
            self.drops[DropReason.QUEUE_FULL] += 1
            return DropReason.QUEUE_FULL
        entry = _Queued(item, int(now_us), len(fifo), now_us)
        fifo.append(entry)
        self.queued += 1
        self.enqueued += 1
        return Enqueued(entry.enq_timestamp, entry.enq_qdepth)

    def next_ready_us(self) -> float | None:
        """Earliest time `pop` returns a packet, or None when all FIFOs are empty."""
        # per packet and port, twice: loops and comparisons, not lists and min()/max()
        arrival = None
        for fifo in self.fifos:
            if fifo:
                head = fifo[0].arrival_us
                if arrival is None or head < arrival:
                    arrival = head
        if arrival is None:
            return None
        busy = self.busy_until_us
        return busy if busy > arrival else arrival

    def pop(self, now_us: float) -> Dequeued | None:
        """Start serving the highest-priority head if the server is free at `now_us`.

        Service starts at the model time the server became free (not at `now_us`), so
        a late caller does not lose throughput; the caller must `charge` the packet.
        """
        if not self.queued:
            return None
        ready = self.next_ready_us()
        if ready is None or ready > now_us:
            return None
        return self.start_service(ready)

    def start_service(self, ready_us: float) -> Dequeued:
        """`pop` for a caller that has just read `ready_us = next_ready_us()` (not None,
        and due): the traffic manager reads it once per visit, to serve the port or to
        learn when to come back, rather than once here and again afterwards."""
        start = ready_us
        fifos = self.fifos
        for priority in range(len(fifos) - 1, -1, -1):
            fifo = fifos[priority]
            # strict priority among the packets that had arrived when service started
            if fifo and fifo[0].arrival_us <= start:
                entry = fifo.popleft()
                break
        else:  # pragma: no cover - next_ready_us guarantees a head has arrived
            raise ValueError(f"no packet has arrived by {start} us")
        self.dequeued += 1
        self.queued -= 1
        # hold the server until charge(); a zero-cost packet releases it at `start`
        self.busy_until_us = start
        enq_timestamp = entry.enq_timestamp
        return Dequeued(entry.item, priority, enq_timestamp, entry.enq_qdepth,
                        max(0, int(start) - enq_timestamp), len(fifo), start)

    def charge(self, dequeued: Dequeued, sent_bytes: int) -> None:
        """Account the service time of a packet `pop` returned, once its size is known."""
        self.busy_until_us = max(
            self.busy_until_us, dequeued.start_us + self.config.service_time_us(sent_bytes)
        )

    def reconfigure(self) -> None:
        """Called after `config` changed in place; these queues read it at each use (the
        compiled ones, `native_traffic_manager`, copy it then)."""

    def clear(self) -> int:
        """Drop everything queued; returns how many packets were discarded."""
        dropped = self.depth
        for fifo in self.fifos:
            fifo.clear()
        self.queued = 0
        return dropped
