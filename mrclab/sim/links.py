"""Links between simulated nodes: one `Wire` per direction, and their failures.

A wire carries a frame from the moment its sender began transmitting it: it arrives
`bits / rate` later (serialisation) plus the propagation delay. A switch's egress queue
already spaces its departures at the port's line rate, so the wire adds no queue of its
own; a host NIC has no P4 queue, so `NicQueue` spaces what the host sends.

The lab's links are veths (`LinkModel.VETH`): a frame is across the moment it is sent, and
only the switch's egress queue spaces frames at the rate; a host sends at once. An idle
path then costs no frame time per hop (24 ms for a jumbo frame at 3 Mb/s), which is what
the lab's RTTs, and its senders' timers, are made of.

Failures, as in the lab (docs/experiments.md): *gray* (the lab's nftables drop: both
directions lose everything, the ports stay up, so only probes and endpoints notice) and
*admin* (the ports go down: `watch_port` groups skip them at once, and the wire drops).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import StrEnum

from mrclab.endpoint.clock import EventLoop

Receive = Callable[[int, bytes], None]  # (port, frame) at the far node


class LinkModel(StrEnum):
    WIRE = "wire"  # a frame arrives when its last bit does: serialisation + propagation
    VETH = "veth"  # as the lab's: at once (plus propagation); senders' queues space frames


class LinkState(StrEnum):
    UP = "up"
    GRAY = "gray"  # drops everything, ports up
    ADMIN_DOWN = "admin"  # ports down, drops everything


@dataclass
class WireCounters:
    frames: int = 0
    bytes: int = 0
    failed_dropped: int = 0
    random_lost: int = 0


class Wire:
    """One direction of a link: to `port` of the node whose `receive` it calls."""

    def __init__(self, loop: EventLoop, rate_bps: float, delay: float, loss: float,
                 rng: random.Random, receive: Receive, port: int,
                 model: LinkModel = LinkModel.WIRE) -> None:
        self.loop, self.rate_bps, self.delay, self.loss = loop, rate_bps, delay, loss
        self.model = model
        self._bit_time = 8 / rate_bps if model is LinkModel.WIRE else 0.0
        self.rng, self._receive, self.port = rng, receive, port
        self.state = LinkState.UP
        self.counters = WireCounters()

    def send(self, frame: bytes, depart: float) -> None:
        """A frame whose transmission began at `depart` (>= now)."""
        c = self.counters
        if self.state is not LinkState.UP:
            c.failed_dropped += 1
            return
        if self.loss and self.rng.random() < self.loss:
            c.random_lost += 1
            return
        c.frames += 1
        c.bytes += len(frame)
        arrive = depart + len(frame) * self._bit_time + self.delay
        self.loop.at(arrive, self._arrive, frame)

    def _arrive(self, frame: bytes) -> None:
        if self.state is LinkState.UP:  # a failure also takes what was on the wire
            self._receive(self.port, frame)
        else:
            self.counters.failed_dropped += 1


class NicQueue:
    """A host NIC: sends in order at the wire's rate, however fast the host hands frames,
    control frames (`urgent`: ACK, NACK, PROBE, PROBE_REPLY) ahead of queued DATA, as the
    switches' high-priority queue takes them at every hop (mrclab/p4src/mrc.p4).

    Strict priority between frames, not within one: a frame on the wire finishes first. A
    host of a permutation sends a flow and acknowledges another on the same NIC; behind
    its own window of DATA (tens of microseconds at 100 Gb/s) the ACKs of the flow it
    receives would stall that flow's ACK clock, which no switch queue or ECN mark shows.
    DATA of several connections leaves in turn (`send`)."""

    def __init__(self, loop: EventLoop, wire: Wire) -> None:
        self.loop, self.wire = loop, wire
        self._free_at = 0.0  # the frame on the wire is sent by then
        # DATA per connection, taken in turn (`send`'s `flow`); one connection: a FIFO
        self._data: dict[Hashable, deque[bytes]] = {}
        self._turns: deque[Hashable] = deque()
        self._data_count = 0
        self._urgent: deque[bytes] = deque()
        self._pending = False  # a `_next` is scheduled at `_free_at`

    @property
    def backlog(self) -> int:
        """Frames waiting for the wire (not the one on it)."""
        return self._data_count + len(self._urgent)

    def send(self, frame: bytes, urgent: bool = False, flow: Hashable = None) -> None:
        """Queue `frame`. DATA frames of different `flow`s (connections) leave in turn, a
        frame each, as an RDMA NIC's scheduler serves its queue pairs: a collective's
        slices in flight at once each get a share of the rate from the start, where one
        whole window after another would hold the last slices' first packets back past
        their senders' first RTO."""
        if self.wire.model is LinkModel.VETH:  # the lab's hosts: no rate of their own
            self.wire.send(frame, self.loop.now)
            return
        if urgent:
            self._urgent.append(frame)
        else:
            queue = self._data.get(flow)
            if queue is None:
                queue = self._data[flow] = deque()
                self._turns.append(flow)
            queue.append(frame)
            self._data_count += 1
        if not self._pending:
            self._next()

    def _take(self) -> bytes | None:
        """The next frame to send: control first, then DATA of the connection whose turn
        it is."""
        if self._urgent:
            return self._urgent.popleft()
        if not self._turns:
            return None
        flow = self._turns[0]
        queue = self._data[flow]
        frame = queue.popleft()
        self._data_count -= 1
        if queue:
            self._turns.rotate(-1)
        else:
            self._turns.popleft()
            del self._data[flow]
        return frame

    def _next(self) -> None:
        """Put the next frame on the wire if it is free, else come back when it is."""
        now = self.loop.now
        if self._free_at > now:
            self._pending = True
            self.loop.at(self._free_at, self._next)
            return
        self._pending = False
        frame = self._take()
        if frame is None:
            return
        self._free_at = now + len(frame) * 8 / self.wire.rate_bps
        self.wire.send(frame, now)
        if self._urgent or self._turns:
            self._pending = True
            self.loop.at(self._free_at, self._next)
