"""Drive one sender and one receiver core over simulated multipath planes.

The sender never learns the path: like the fabric's `ev` spray mode, every packet goes on
path ``crc32(ev) % N`` of its plane, and replies come back over the same path. Everything
random comes from one seeded RNG, so a run is reproducible.

    result = run_transfer(8 << 20, [[PathSpec()] * 8], seed=1)
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from mrclab.endpoint.clock import DeadlineTimer, EventLoop
from mrclab.endpoint.core.receiver import Message, MrcReceiver, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender, SenderConfig
from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN
from mrclab.sim.pathmodel.paths import Path, PathCounters, PathSpec, SimPacket

PEER = "sender"


def ev_path_index(ev: int, npaths: int) -> int:
    """The path an EV hashes to (CRC32 of its two bytes, like a switch's hash)."""
    return zlib.crc32(ev.to_bytes(2, "big")) % npaths


@dataclass(slots=True)
class TransferResult:
    sender: MrcSender
    receiver: MrcReceiver
    messages: list[Message]
    intact: bool
    completed: bool
    finish_time: float | None
    path_counters: list[list[PathCounters]]
    progress: list[tuple[float, int]] = field(default_factory=list)  # (time, bytes placed)
    sends: list[tuple[float, int, int]] = field(default_factory=list)  # (time, plane, ev)
    events: int = 0

    @property
    def goodput_bps(self) -> float:
        if not self.finish_time or not self.completed:
            return 0.0
        return self.sender.length * 8 / (self.finish_time - self.sender.start_time)

    def goodput_between(self, start: float, end: float) -> float:
        """Payload bits/s newly placed at the receiver between two times."""
        placed = [b for t, b in self.progress if start <= t <= end]
        return (placed[-1] - placed[0]) * 8 / (end - start) if len(placed) > 1 else 0.0


def payload_capacity(specs: list[PathSpec], mss: int, at: float = 0.0) -> float:
    """Payload bits/s the paths up at time `at` can carry with full-size packets."""
    frame = mss + HEADER_LEN + ETH_IP_UDP_LEN
    up = [s for s in specs if not (s.fail_at is not None and at >= s.fail_at
                                    and (s.recover_at is None or at < s.recover_at))]
    return sum(s.bandwidth for s in up) * mss / frame


class _Harness:
    def __init__(self, data: bytes, planes: list[list[PathSpec]], seed: int,
                 sender_cfg: SenderConfig | None,
                 sender_class: Callable[..., MrcSender] = MrcSender) -> None:
        rng = random.Random(seed)
        self.loop = EventLoop()
        self.paths = [[Path(self.loop, spec, random.Random(rng.getrandbits(64)), f"p{p}.{i}")
                       for i, spec in enumerate(specs)] for p, specs in enumerate(planes)]
        cfg = sender_cfg or SenderConfig(seed=rng.getrandbits(32))
        self.sender = sender_class(data, len(planes), cfg, now=0.0)
        self.receiver = MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32)))
        self.messages: list[Message] = []
        self.progress: list[tuple[float, int]] = [(0.0, 0)]
        self.sends: list[tuple[float, int, int]] = []
        self.timer = DeadlineTimer(self.loop, self.wake)

    def path(self, plane: int, ev: int) -> Path:
        paths = self.paths[plane]
        return paths[ev_path_index(ev, len(paths))]

    def wake(self) -> None:
        now = self.loop.now
        for out in self.sender.poll(now):
            pkt = SimPacket(out.header, out.payload, out.plane)
            self.sends.append((now, out.plane, out.header.ev))
            self.path(out.plane, out.header.ev).forward(pkt, self.at_receiver)
        self.timer.arm(self.sender.next_deadline())

    def at_receiver(self, pkt: SimPacket) -> None:
        now = self.loop.now
        replies = self.receiver.on_packet(PEER, pkt.header, pkt.payload, pkt.ce, now)
        self.progress.append((now, self.receiver.stats.bytes_placed))
        for reply in replies:
            back = SimPacket(reply.header, b"", pkt.plane)
            self.path(pkt.plane, reply.header.ev).reverse(back, self.at_sender)
        self.messages.extend(self.receiver.take_messages())

    def at_sender(self, pkt: SimPacket) -> None:
        self.sender.on_packet(pkt.plane, pkt.header, self.loop.now)
        self.wake()

    def finished(self) -> bool:
        return self.sender.done or self.sender.failed


def run_transfer(size_or_data: int | bytes, planes: list[list[PathSpec]], seed: int = 1,
                 sender_cfg: SenderConfig | None = None, max_time: float = 60.0,
                 drain: float = 0.01,
                 sender_class: Callable[..., MrcSender] = MrcSender) -> TransferResult:
    """Send one message over `planes` (a list of path lists) and report what happened;
    `sender_class` makes the sender (as `mrclab.endpoint.runner.run_sender` takes it).

    After the sender finishes, the network runs `drain` more seconds so late duplicates
    reach the receiver (they must not be delivered twice)."""
    if isinstance(size_or_data, int):
        data = random.Random(seed ^ 0x5EED).randbytes(size_or_data)
    else:
        data = size_or_data
    h = _Harness(data, planes, seed, sender_cfg, sender_class)
    h.loop.at(0.0, h.wake)
    h.loop.run(max_time, h.finished)
    h.loop.run(h.loop.now + drain)
    intact = len(h.messages) == 1 and h.messages[0].ok and h.messages[0].data == data
    return TransferResult(
        sender=h.sender, receiver=h.receiver, messages=h.messages, intact=intact,
        completed=h.sender.done, finish_time=h.sender.finish_time,
        path_counters=[[p.counters for p in plane] for plane in h.paths],
        progress=h.progress, sends=h.sends, events=h.loop.events_run)
