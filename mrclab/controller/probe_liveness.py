"""Link liveness bookkeeping from probes (pure) and the probe frame format.

Each fabric link is probed from one end every round. A link is declared down when its
last `miss_limit` probes went unanswered; it is declared up again after `up_after`
answered probes. Answers to any of the last `miss_limit` probes count, so a reply that
is merely late (busy switch) is not a failure. That rule, per link, is a `LinkVerdict`
(`mrclab.controller.link_verdict`; the liveness exercise passes a student's); what follows here
gates its down verdicts.

Silence alone is not proof. On a machine that runs every switch in software, one switch's
process (or the controller) can stall for longer than `miss_limit` rounds, and then every
probe through it is late though no link failed. So a silent link is declared down only
once both its ends have shown they work since: a probe of the round of its last
unanswered one (or later) that its sending switch sent on another link was answered, and
so was one that its receiving switch received on another link. (The two roles are
separate paths in a software switch: packet-outs go through its P4Runtime stream reader,
answers through its data plane, and either can stall alone.) A real link failure leaves
the switches' other links answering, so it is declared as soon as the misses are counted;
a stall holds the verdict until the switch works again, or until `hold_limit` (a switch
that stays silent that long, or twice its slowest recent answer if that is longer, is
itself failed). A switch whose P4Runtime stream is lost (`switch_lost`) needs no such
proof: its links are declared as soon as the misses are counted.

A probe can also wait in one port's input backlog of a busy software switch while the
switch answers on its other ports. So while a link's own answers have come back slowly,
its silence must also last twice its slowest recent answer (fading with
`DELAY_HALF_LIFE`) before it counts as a failure.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple, Protocol

from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import LinkId

PROBE_ETHERTYPE = 0x88B5
PROBE_DST_MAC = bytes.fromhex("0180c200000e")  # link-local multicast, never bridged
# After the Ethernet header: the sending switch's device id, a timestamp (ms) and the number
# of probed ports, then per port its number and the probe number of its link. One frame
# can probe every link of a switch (the data plane replicates it to each port).
_PROBE_HEAD = struct.Struct("!IIH")
_PROBE_PORT = struct.Struct("!HI")
DELAY_HALF_LIFE = 1.0  # s: how fast the memory of a slow answer fades


class ProbeFrame(NamedTuple):
    device_id: int
    ts_ms: int
    seqs: dict[int, int]  # probed port -> its link's probe number


def probe_frame(device_id: int, seqs: dict[int, int], ts_ms: int) -> bytes:
    """The frame probing the links of `device_id`'s ports in `seqs` (port -> probe number)."""
    src_mac = b"\x02\x00" + device_id.to_bytes(4, "big")
    body = b"".join(_PROBE_PORT.pack(port, seq & 0xFFFFFFFF) for port, seq in seqs.items())
    return (PROBE_DST_MAC + src_mac + PROBE_ETHERTYPE.to_bytes(2, "big")
            + _PROBE_HEAD.pack(device_id, ts_ms & 0xFFFFFFFF, len(seqs)) + body)


def parse_probe(frame: bytes) -> ProbeFrame | None:
    """The probe a frame carries; None for anything else, a short or a truncated probe."""
    if len(frame) < 14 + _PROBE_HEAD.size or frame[12:14] != PROBE_ETHERTYPE.to_bytes(2, "big"):
        return None
    device_id, ts_ms, count = _PROBE_HEAD.unpack_from(frame, 14)
    start = 14 + _PROBE_HEAD.size
    if len(frame) < start + count * _PROBE_PORT.size:
        return None
    seqs = dict(_PROBE_PORT.iter_unpack(frame[start:start + count * _PROBE_PORT.size]))
    return ProbeFrame(device_id, ts_ms, seqs)


class LinkStatus(StrEnum):
    UP = "up"
    DOWN = "down"


@dataclass(frozen=True)
class LinkEvent:
    link: LinkId
    status: LinkStatus
    detected_at: float
    first_miss_at: float | None  # down: when the first unanswered probe was due


class Verdict(Protocol):
    """One link's down/up rule from its probes' numbers (`mrclab.controller.link_verdict`)."""

    up: bool
    sent: int  # the newest probe sent
    answered: int  # the newest probe answered

    def probe_sent(self) -> int: ...
    def counts(self, seq: int) -> bool: ...
    def answer(self, seq: int) -> bool: ...
    def start_round(self) -> bool: ...
    def went_down(self) -> None: ...


# (miss_limit, up_after, up) -> a link's verdict; the exercises pass a student's class
VerdictFactory = Callable[[int, int, bool], Verdict]


@dataclass
class _LinkProbeState:
    verdict: Verdict
    sent_at: dict[int, float] = field(default_factory=dict)
    held: bool = False  # silent, but an end has not shown it is alive since
    delay_peak: float = 0.0  # slowest recent answer (s), fading
    delay_peak_at: float = 0.0

    def slow_answer(self, now: float) -> float:
        """The slowest recent answer, faded by DELAY_HALF_LIFE since it came."""
        return self.delay_peak * 0.5 ** ((now - self.delay_peak_at) / DELAY_HALF_LIFE)


def _roles(link: LinkId) -> tuple[tuple[str, str], tuple[str, str]]:
    """(switch, role) of the probe's sender and receiver."""
    return (link[0][0], "sends"), (link[1][0], "receives")


class ProbeLiveness:
    def __init__(self, links: list[LinkId], interval: float, miss_limit: int = 3,
                 up_after: int = 2, initially_down: set[LinkId] = frozenset(),
                 hold_limit: float | None = None, verdict: VerdictFactory = LinkVerdict) -> None:
        """`verdict(miss_limit, up_after, up)` makes each link's down/up rule; the stall
        proof and the slow-answer wait below gate its down verdicts."""
        if miss_limit < 1 or up_after < 1:
            raise ValueError("miss_limit and up_after must be >= 1")
        self.interval = interval
        self.miss_limit = miss_limit
        self.up_after = up_after
        # A switch silent on all its links for this long is failed, stall or not.
        self.hold_limit = (max(1.0, 4 * miss_limit * interval) if hold_limit is None
                           else hold_limit)
        self._links = {link: _LinkProbeState(verdict(miss_limit, up_after,
                                                     link not in initially_down))
                       for link in links}
        # per (switch, role): send time of the newest answered probe it sent or received
        self._works_since: dict[tuple[str, str], float] = {}
        self.held_verdicts = 0  # silences not (yet) declared failures: stalls, counted
        self._lost_switches: set[str] = set()

    def slow_answer(self, link: LinkId, now: float) -> float:
        """The link's slowest recent probe answer (s), faded since it came."""
        return self._links[link].slow_answer(now)

    def switch_lost(self, name: str) -> None:
        """The switch's P4Runtime stream broke: its silence needs no further proof."""
        self._lost_switches.add(name)

    def switch_back(self, name: str) -> None:
        self._lost_switches.discard(name)

    def _ends_worked_in(self, link: LinkId, round_at: float) -> bool:
        """Both ends answered, on other links, a probe of the round sent at `round_at` or
        a later one."""
        return all(self._works_since.get(role, -math.inf) >= round_at for role in _roles(link))

    def is_up(self, link: LinkId) -> bool:
        return self._links[link].verdict.up

    def down_links(self) -> set[LinkId]:
        return {link for link, st in self._links.items() if not st.verdict.up}

    def start_round(self, now: float) -> tuple[list[LinkEvent], list[tuple[LinkId, int]]]:
        """Account for the previous round, then allocate this round's probes (link, seq)."""
        events: list[LinkEvent] = []
        probes: list[tuple[LinkId, int]] = []
        for link, st in self._links.items():
            v = st.verdict
            if v.start_round():
                first = st.sent_at.get(v.answered + 1)
                if self._proven_failed(link, st, now, first, st.sent_at.get(v.sent)):
                    v.went_down()
                    events.append(LinkEvent(link, LinkStatus.DOWN, now,
                                            None if first is None else first + self.interval))
            seq = v.probe_sent()
            st.sent_at[seq] = now
            self._forget_old_sends(st)
            probes.append((link, seq))
        return events, probes

    def _proven_failed(self, link: LinkId, st: _LinkProbeState, now: float,
                       first: float | None, last: float | None) -> bool:
        """Silent for `miss_limit` probes: a failure once both ends answered the round of
        its last unanswered probe on other links and the silence lasts twice the link's
        slowest recent answer; or once the silence outlasts `hold_limit` (or that twice
        slowest answer, if longer); or at once when an end's P4Runtime stream is lost."""
        silence = 0.0 if first is None else now - first
        slow = 2 * st.slow_answer(now)
        if first is None or last is None or silence >= max(self.hold_limit, slow) or (
                self._ends_worked_in(link, last) and silence >= slow) or (
                any(switch in self._lost_switches for switch, _ in _roles(link))):
            st.held = False
            return True
        if not st.held:
            st.held = True
            self.held_verdicts += 1
        return False

    def _forget_old_sends(self, st: _LinkProbeState) -> None:
        # while up, keep the first unanswered probe's time: a held verdict is judged by it
        v = st.verdict
        oldest = v.sent - self.miss_limit
        if v.up:
            oldest = min(oldest, v.answered + 1)
        for seq in [s for s in st.sent_at if s < oldest]:
            del st.sent_at[seq]

    def probe_answered(self, link: LinkId, seq: int, now: float) -> LinkEvent | None:
        st = self._links.get(link)
        if st is None or not st.verdict.counts(seq):
            return None
        st.held = False
        sent = st.sent_at.get(seq)
        if sent is not None:
            if now - sent >= st.slow_answer(now):
                st.delay_peak, st.delay_peak_at = now - sent, now
            for role in _roles(link):
                if sent > self._works_since.get(role, -math.inf):
                    self._works_since[role] = sent
        if not st.verdict.answer(seq):
            return None
        return LinkEvent(link, LinkStatus.UP, now, None)
