"""A raw MRC packet generator for data-plane experiments.

Sends N MRC packets of one type from a host with chosen entropy values and source routes,
at a bounded rate, without a transport behind them: what the switches do with each packet
(which uplink, trimmed or not, ECN-marked or not) is then read from counters or captures.

    python -m endpoint blast --dst 10.0.3.4 --count 10000 --ev cycle --evs 64
    python -m endpoint blast --dst 10.0.3.4 --count 500 --route 3,4,2,3,1
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from endpoint.netio import ECT0, FrameAddress, FrameBuilder, RawLink
from endpoint.routes import Plane
from endpoint.wire import MrcHeader, MsgType

EV_MODES = ("fixed", "cycle", "random")


@dataclass(frozen=True)
class BlastPlan:
    """What to send: `count` packets of `msg_type` with `payload` bytes each."""

    count: int
    payload: int = 1000
    msg_type: MsgType = MsgType.DATA
    ev_mode: str = "cycle"
    ev: int = 1  # the EV in "fixed" mode, the first one in "cycle" mode
    evs: int = 64  # how many distinct EVs "cycle" and "random" use
    route: tuple[int, ...] = ()  # source-route labels, first hop first (at most 8)
    rate_pps: float = 2000.0  # 0 = as fast as the socket takes them
    conn: int = 0
    seed: int = 1

    def __post_init__(self) -> None:
        if self.ev_mode not in EV_MODES:
            raise ValueError(f"ev mode {self.ev_mode!r} is not one of {', '.join(EV_MODES)}")
        if len(self.route) > 8 or any(not 0 < label < 256 for label in self.route):
            raise ValueError(f"route {list(self.route)}: at most 8 labels, each 1..255")


def route_word(labels: tuple[int, ...]) -> int:
    """The 64-bit `route` field: first label in the top byte, unused bytes 0."""
    word = 0
    for i, label in enumerate(labels):
        word |= label << (56 - 8 * i)
    return word


def ev_sequence(plan: BlastPlan) -> Iterator[int]:
    """The EV of each packet, in order."""
    rng = random.Random(plan.seed)
    pool = [(plan.ev + i) & 0xFFFF for i in range(plan.evs)]
    for n in range(plan.count):
        if plan.ev_mode == "fixed":
            yield plan.ev
        elif plan.ev_mode == "cycle":
            yield pool[n % len(pool)]
        else:
            yield rng.choice(pool)


@dataclass
class BlastStats:
    sent: int
    send_drops: int
    seconds: float
    evs_used: int

    def as_dict(self) -> dict[str, float | int]:
        return {"sent": self.sent, "send_drops": self.send_drops,
                "seconds": round(self.seconds, 3), "evs_used": self.evs_used,
                "pps": round(self.sent / self.seconds, 1) if self.seconds else 0.0}


def blast(plane: Plane, plan: BlastPlan) -> BlastStats:
    """Send the plan's packets out of `plane`'s interface, paced to `rate_pps`."""
    builder = FrameBuilder(FrameAddress.of(plane.src_mac, plane.next_hop_mac,
                                           plane.src_ip, plane.dst_ip))
    payload = bytes(plan.payload)
    header = MrcHeader(type=plan.msg_type, conn=plan.conn, length=plan.payload,
                       route=route_word(plan.route))
    link = RawLink(plane.iface)
    gap = 1.0 / plan.rate_pps if plan.rate_pps > 0 else 0.0
    used: set[int] = set()
    start = time.monotonic()
    try:
        for psn, ev in enumerate(ev_sequence(plan)):
            header.ev, header.psn, header.offset = ev, psn, psn * plan.payload
            header.ts = int((time.monotonic() - start) * 1e6) & 0xFFFFFFFF
            header.flags = 0x04 if psn == plan.count - 1 else 0  # LAST
            link.send(builder.build(header, payload, tos=ECT0))
            used.add(ev)
            if gap:
                # pace against the schedule, not the previous send, so rates stay exact
                delay = start + (psn + 1) * gap - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
    finally:
        link.close()
    return BlastStats(plan.count, link.send_drops, time.monotonic() - start, len(used))
