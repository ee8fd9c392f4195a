"""A raw MRC packet generator for data-plane experiments.

Sends N MRC packets of one type from a host with chosen entropy values and source routes,
at a bounded rate, without a transport behind them: what the switches do with each packet
(which uplink, trimmed or not, ECN-marked or not) is then read from counters or captures.
Packets are built with the Scapy layer `mrclab.endpoint.layers.MRC` (Ethernet/IPv4/UDP are the same
for every packet of a blast, so Scapy builds them once), ahead of the paced sending.

    python -m mrclab.endpoint blast --dst 10.0.3.4 --count 10000 --ev cycle --evs 64
    python -m mrclab.endpoint blast --dst 10.0.3.4 --count 500 --route 3,4,2,3,1
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Protocol

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from mrclab.endpoint.kernel_routes import Plane
from mrclab.endpoint.layers import MRC
from mrclab.endpoint.netio import ECT0
from mrclab.endpoint.rawsocket import RawLink
from mrclab.endpoint.report import BlastStats
from mrclab.endpoint.wire import HEADER_LEN, MRC_UDP_PORT, Flag, MsgType, route_word

EV_MODES = ("fixed", "cycle", "random")
CHUNK = 8192  # frames built ahead of sending (about 10 MB at 1000-byte payloads)


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
        route_word(self.route)  # validates the labels


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


class FrameSink(Protocol):
    send_drops: int

    def send(self, frame: bytes) -> None: ...

    def close(self) -> None: ...


def frame_prefix(plane: Plane, payload: int) -> bytes:
    """Ethernet/IPv4/UDP in front of every MRC header of a blast (ECT(0), DF, UDP checksum 0)."""
    udp_len = 8 + HEADER_LEN + payload
    return bytes(Ether(src=plane.src_mac, dst=plane.next_hop_mac)
                 / IP(src=plane.src_ip, dst=plane.dst_ip, tos=ECT0, flags="DF", ttl=64,
                      len=20 + udp_len)
                 / UDP(sport=MRC_UDP_PORT, dport=MRC_UDP_PORT, len=udp_len, chksum=0))


def frames(plane: Plane, plan: BlastPlan) -> Iterator[bytes]:
    """Every frame of the plan, in order; `ts` is the packet's scheduled send time in µs
    from the start (0 when unpaced)."""
    prefix, payload = frame_prefix(plane, plan.payload), bytes(plan.payload)
    fixed = {"type": int(plan.msg_type), "conn": plan.conn, "length": plan.payload,
             "route": route_word(plan.route)}
    gap_us = 1e6 / plan.rate_pps if plan.rate_pps > 0 else 0.0
    for psn, ev in enumerate(ev_sequence(plan)):
        header = MRC(**fixed, ev=ev, psn=psn, offset=psn * plan.payload,
                     ts=int(psn * gap_us) & 0xFFFFFFFF,
                     flags=int(Flag.LAST) if psn == plan.count - 1 else 0)
        yield prefix + bytes(header) + payload


def blast(plane: Plane, plan: BlastPlan, link: FrameSink | None = None) -> BlastStats:
    """Send the plan's packets out of `plane`'s interface (or into `link`), paced to
    `rate_pps`.

    Frames are built CHUNK at a time before they are sent: Scapy takes 50-200 µs a packet,
    which would otherwise compete, while pacing, with the switch processes on a small
    machine and limit the rate."""
    link = link or RawLink(plane.iface, accept=frozenset())  # sends only
    gap = 1.0 / plan.rate_pps if plan.rate_pps > 0 else 0.0
    todo = frames(plane, plan)
    start = time.monotonic()
    try:
        while chunk := list(islice(todo, CHUNK)):
            paced_from = time.monotonic()
            for i, frame in enumerate(chunk):
                link.send(frame)
                if gap:
                    # pace against the schedule, not the previous send, so rates stay exact
                    delay = paced_from + (i + 1) * gap - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
    finally:
        link.close()
    evs_used = len(set(ev_sequence(plan)))
    return BlastStats(plan.count, link.send_drops, time.monotonic() - start, evs_used)
