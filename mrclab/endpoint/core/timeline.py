"""A sender that records a timeline of its own state (`Timeline`): what an experiment's
transfer keeps (`mrclab.experiments.transfer`; both engines run it).

Beside the core so that the endpoint's compiled build (`mrclab.endpoint.compiled`) takes it
too: a sender subclass left to the interpreter would run every method of the compiled
sender through the Python API, and its sampling on every packet in Python.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from mrclab.endpoint.core.congestion import DctcpWindow, Window, mypyc_attr
from mrclab.endpoint.core.connection import Connection
from mrclab.endpoint.core.ev_pool import EvPolicy, EvStatus, PlaneRules
from mrclab.endpoint.core.packets import Outgoing
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.wire import ACK, NACK, MrcHeader

SAMPLE_FIELDS = ("time", "acked_bytes", "cwnd", "ecn_echoes", "nacks", "retransmits",
                 "timeouts", "qmax", "evs_down")

_EXACT_INTEGERS: Final = 2.0 ** 52  # below it a float holds every integer and its halves


def round_decimal(value: Any, digits: int) -> Any:
    """`round(value, digits)`, the very same result, without the decimal string Python's
    `round` makes of a float (the timeline rounds two numbers per sample, about one
    sample per packet: that string took 3 % of a k=8 run).

    Python's result is the nearest float to n / 10**digits, n the integer nearest to the
    exact value * 10**digits (ties to even). The float product differs from that exact
    one by at most half its last bit; unless that could put it on the other side of a
    tie, it has the same nearest integer, and dividing that integer by 10**digits (both
    exact floats) rounds as Python's conversion of the decimal string does. Near a tie,
    and for what is not a float (a student's window keeps an int cwnd; `round` keeps it
    an int), Python's `round` decides."""
    if type(value) is not float:
        return round(value, digits)
    x: float = value
    # 10**digits, exact up to 10**22; of floats, so that the compiled module calls C's pow
    scale = math.pow(10.0, float(digits))
    scaled = x * scale
    if abs(scaled) < _EXACT_INTEGERS:
        below = math.floor(scaled)
        frac = scaled - below
        if abs(frac - 0.5) > abs(scaled) * 2.0 ** -52:
            nearest = below + 1 if frac > 0.5 else below
            return math.copysign(nearest / scale, x)  # a zero keeps the sign, as in round
    return round(x, digits)


@dataclass(slots=True)
class Timeline:
    """What `TimelineSender` sampled: one row of `fields` per sample, times on the run's
    clock (the lab's Unix time, the simulator's virtual seconds)."""

    sender_start: float | None = None
    fields: list[str] = field(default_factory=list)
    samples: list[list[float]] = field(default_factory=list)
    interval: float | None = None  # the lab's agent: its sampling and start times
    start_at: float | None = None
    ready_at: float | None = None

    def column(self, name: str) -> list[tuple[float, float]]:
        """(time, value) of one field; empty when it was not sampled."""
        if name not in self.fields:
            return []
        ti, ci = self.fields.index("time"), self.fields.index(name)
        return [(row[ti], float(row[ci])) for row in self.samples]


@mypyc_attr(allow_interpreted_subclasses=True)
class TimelineSender(MrcSender):
    """MrcSender that samples its own state every `interval` seconds of its clock.

    `time_offset` is added to the sender's clock in the records: the lab's runner runs it
    on time.monotonic() and wants Unix time; the simulator's virtual time needs nothing."""

    def __init__(self, data: bytes | bytearray | memoryview, planes: int = 1,
                 config: SenderConfig | None = None, now: float = 0.0,
                 ev_policy: EvPolicy | None = None,
                 window_class: Callable[..., Window] = DctcpWindow,
                 plane_rules: PlaneRules | None = None, connection: Connection | None = None,
                 hold: bool = False, *, interval: float, time_offset: float = 0.0) -> None:
        """`MrcSender`'s arguments, and `interval` and `time_offset` by keyword."""
        super().__init__(data, planes, config, now, ev_policy, window_class, plane_rules,
                         connection, hold)
        self.interval = interval
        self.time_offset = time_offset
        self.samples: list[list[Any]] = []
        self._next_sample = self.start_time
        self._bin_qmax = 0

    def _sample(self, now: float) -> None:
        acked = min(self.board.delivered_count * self.cfg.mss, self.length)
        # FAILED and PROBING EVs are all among the pool's retired ones (`retired_now`)
        down = sum(1 for st in self.pool.retired_now()
                   if st.status in (EvStatus.FAILED, EvStatus.PROBING))
        s = self.stats
        cc: Any = self.cc  # its cwnd as the window keeps it (a float, or a student's int)
        # ns: the simulator's RTTs are microseconds
        row: list[Any] = [round_decimal(now + self.time_offset, 9), acked,
                          round_decimal(cc.cwnd, 2),
                          s.ecn_echoes, s.nacks, s.retransmits, s.timeouts, self._bin_qmax,
                          down]
        self.samples.append(row)
        self._bin_qmax = 0

    def poll(self, now: float) -> list[Outgoing]:
        if now >= self._next_sample:
            self._sample(now)
            self._next_sample = max(self._next_sample + self.interval, now)
        return super().poll(now)

    def on_packet(self, plane: int, hdr: MrcHeader, now: float) -> None:
        if hdr.type == ACK or hdr.type == NACK:
            self._bin_qmax = max(self._bin_qmax, hdr.qmax)
        was_done = self.done
        super().on_packet(plane, hdr, now)
        if self.done and not was_done:
            self._sample(now)

    def timeline(self) -> Timeline:
        return Timeline(sender_start=round_decimal(self.start_time + self.time_offset, 9),
                        fields=list(SAMPLE_FIELDS), samples=self.samples)
