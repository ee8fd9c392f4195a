"""Drive N senders into one receiver through a shared bottleneck: an incast.

Each sender has its own access link (a `Path` at the bottleneck's rate, so no sender alone
can overrun the bottleneck), then all of them share the receiver's port, a trimming,
ECN-marking `Path`. Replies come back over the bottleneck's delay line. Like the fabric's
incast experiment, the senders start together and their messages share one total size.

    result = run_incast(15, 375_000, PathSpec(delay=2e-3, bandwidth=2e6, trim_threshold=8))
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from endpoint.core.receiver import MrcReceiver, ReceiverConfig
from endpoint.core.sender import MrcSender, SenderConfig
from endpoint.sim.events import DeadlineTimer, EventLoop
from endpoint.sim.links import Path, PathCounters, PathSpec, SimPacket


@dataclass(slots=True)
class IncastResult:
    senders: list[MrcSender]
    bottleneck: PathCounters
    intact: int  # messages delivered whole and correct
    fct: float | None  # when the last sender finished; None if one did not
    ideal: float  # payload bytes / bottleneck rate: the completion time with no overhead

    @property
    def slowdown(self) -> float | None:
        return None if self.fct is None else self.fct / self.ideal

    def total(self, stat: str) -> int:
        """One `SenderStats` field summed over the senders."""
        return sum(getattr(s.stats, stat) for s in self.senders)


class _Incast:
    def __init__(self, n: int, size: int, bottleneck: PathSpec, seed: int,
                 sender_cfg: SenderConfig | None) -> None:
        rng = random.Random(seed)
        self.loop = EventLoop()
        access = replace(bottleneck, trim_threshold=None, ecn_threshold=None)
        self.port = Path(self.loop, bottleneck, random.Random(rng.getrandbits(64)), "port")
        self.access = [Path(self.loop, access, random.Random(rng.getrandbits(64)), f"a{i}")
                       for i in range(n)]
        self.data = [rng.randbytes(size) for _ in range(n)]
        base = sender_cfg or SenderConfig()
        self.senders = [MrcSender(d, 1, replace(base, seed=rng.getrandbits(32)), now=0.0)
                        for d in self.data]
        self.receiver = MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32)))
        self.delivered: dict[int, bytes] = {}
        self.timers = [DeadlineTimer(self.loop, lambda i=i: self.wake(i)) for i in range(n)]

    def wake(self, i: int) -> None:
        now, sender = self.loop.now, self.senders[i]
        for out in sender.poll(now):
            pkt = SimPacket(out.header, out.payload, out.plane)
            self.access[i].forward(pkt, lambda p, i=i: self.port.forward(
                p, lambda q: self.at_receiver(i, q)))
        self.timers[i].arm(sender.next_deadline())

    def at_receiver(self, i: int, pkt: SimPacket) -> None:
        replies = self.receiver.on_packet(i, pkt.header, pkt.payload, pkt.ce, self.loop.now)
        for reply in replies:
            self.port.reverse(SimPacket(reply.header, b"", pkt.plane),
                              lambda p, i=i: self.at_sender(i, p))
        for msg in self.receiver.take_messages():
            if msg.ok:
                self.delivered[msg.peer] = bytes(msg.data)

    def at_sender(self, i: int, pkt: SimPacket) -> None:
        self.senders[i].on_packet(pkt.plane, pkt.header, self.loop.now)
        self.wake(i)

    def finished(self) -> bool:
        return all(s.done or s.failed for s in self.senders)


def run_incast(n: int, total_bytes: int, bottleneck: PathSpec, seed: int = 1,
               sender_cfg: SenderConfig | None = None, max_time: float = 60.0) -> IncastResult:
    """`n` senders each send `total_bytes / n` to one receiver at time 0."""
    h = _Incast(n, max(1, total_bytes // n), bottleneck, seed, sender_cfg)
    for i in range(n):
        h.loop.at(0.0, h.wake, i)
    h.loop.run(max_time, h.finished)
    intact = sum(1 for i, d in enumerate(h.data) if h.delivered.get(i) == d)
    ends = [s.finish_time for s in h.senders]
    fct = None if any(e is None for e in ends) else max(ends)
    payload = sum(len(d) for d in h.data)
    return IncastResult(h.senders, h.port.counters, intact, fct,
                        ideal=payload * 8 / bottleneck.bandwidth)
