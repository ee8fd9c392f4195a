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

from endpoint.core.packets import Outgoing
from endpoint.core.receiver import MrcReceiver, ReceiverConfig
from endpoint.core.sender import MrcSender
from endpoint.core.sender_config import SenderConfig
from endpoint.sim.events import EventLoop
from endpoint.sim.links import Path, PathCounters, PathSpec, SimPacket
from endpoint.sim.senders import SenderGroup


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


class _Incast(SenderGroup):
    def __init__(self, n: int, size: int, bottleneck: PathSpec, seed: int,
                 sender_cfg: SenderConfig | None) -> None:
        rng = random.Random(seed)
        loop = EventLoop()
        access = replace(bottleneck, trim_threshold=None, ecn_threshold=None)
        self.port = Path(loop, bottleneck, random.Random(rng.getrandbits(64)), "port")
        self.access = [Path(loop, access, random.Random(rng.getrandbits(64)), f"a{i}")
                       for i in range(n)]
        super().__init__(loop, [rng.randbytes(size) for _ in range(n)],
                         sender_cfg or SenderConfig(), rng)
        self.receiver = MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32)))

    def forward(self, i: int, out: Outgoing) -> None:
        pkt = SimPacket(out.header, out.payload, out.plane)
        self.access[i].forward(pkt, lambda p: self.port.forward(
            p, lambda q: self.at_receiver(i, q)))

    def at_receiver(self, i: int, pkt: SimPacket) -> None:
        replies = self.receiver.on_packet(i, pkt.header, pkt.payload, pkt.ce, self.loop.now)
        for reply in replies:
            self.port.reverse(SimPacket(reply.header, b"", pkt.plane),
                              lambda p, i=i: self.at_sender(i, p))
        for msg in self.receiver.take_messages():
            if msg.ok:
                self.delivered[msg.peer] = bytes(msg.data)


def run_incast(n: int, total_bytes: int, bottleneck: PathSpec, seed: int = 1,
               sender_cfg: SenderConfig | None = None, max_time: float = 60.0) -> IncastResult:
    """`n` senders each send `total_bytes / n` to one receiver at time 0."""
    h = _Incast(n, max(1, total_bytes // n), bottleneck, seed, sender_cfg)
    h.run(max_time)
    intact = h.intact()
    ends = [s.finish_time for s in h.senders]
    fct = None if any(e is None for e in ends) else max(ends)
    payload = sum(len(d) for d in h.data)
    return IncastResult(h.senders, h.port.counters, intact, fct,
                        ideal=payload * 8 / bottleneck.bandwidth)
