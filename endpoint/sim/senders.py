"""Several senders on one simulated network: the part every multi-flow simulation shares.

A `SenderGroup` owns the event loop, one `MrcSender` per message, each woken by its own
timer, and the messages its receivers delivered. A simulation subclasses it with its
network: `forward(i, out)` puts sender i's packet on the wire, and the subclass's receiver
side calls `at_sender(i, reply)` and `delivered[i] = data` as things arrive.
"""

from __future__ import annotations

import random
from dataclasses import replace

from endpoint.core.packets import Outgoing
from endpoint.core.sender import MrcSender
from endpoint.core.sender_config import SenderConfig
from endpoint.sim.events import DeadlineTimer, EventLoop
from endpoint.sim.links import SimPacket


class SenderGroup:
    """Senders of `data` (one message each, over `planes` planes), seeded in order from
    `rng`."""

    def __init__(self, loop: EventLoop, data: list[bytes], cfg: SenderConfig,
                 rng: random.Random, planes: int = 1) -> None:
        self.loop = loop
        self.data = data
        self.senders = [MrcSender(d, planes, replace(cfg, seed=rng.getrandbits(32)), now=0.0)
                        for d in data]
        self.timers = [DeadlineTimer(loop, lambda i=i: self.wake(i)) for i in range(len(data))]
        self.delivered: dict[int, bytes] = {}

    def forward(self, i: int, out: Outgoing) -> None:
        """Put sender i's packet on the network."""
        raise NotImplementedError

    def wake(self, i: int) -> None:
        sender = self.senders[i]
        for out in sender.poll(self.loop.now):
            self.forward(i, out)
        self.timers[i].arm(sender.next_deadline())

    def at_sender(self, i: int, pkt: SimPacket) -> None:
        self.senders[i].on_packet(pkt.plane, pkt.header, self.loop.now)
        self.wake(i)

    def finished(self) -> bool:
        return all(s.done or s.failed for s in self.senders)

    def run(self, max_time: float) -> None:
        """Start every sender at time 0 and run until all are done or failed."""
        for i in range(len(self.senders)):
            self.loop.at(0.0, self.wake, i)
        self.loop.run(max_time, self.finished)

    def intact(self) -> int:
        """Messages delivered whole and correct."""
        return sum(1 for i, d in enumerate(self.data) if self.delivered.get(i) == d)
