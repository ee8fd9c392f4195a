"""Link liveness bookkeeping from probes (pure) and the probe frame format.

Each fabric link is probed from one end every round. A link is declared down when its
last `miss_limit` probes went unanswered; it is declared up again after `up_after`
answered probes. Answers to any of the last `miss_limit` probes count, so a reply that
is merely late (busy switch) is not a failure.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import StrEnum

from controller.routes import LinkId

PROBE_ETHERTYPE = 0x88B5
PROBE_DST_MAC = bytes.fromhex("0180c200000e")  # link-local multicast, never bridged
_PROBE = struct.Struct("!IIII")


def probe_frame(device_id: int, port: int, seq: int, ts_ms: int) -> bytes:
    src_mac = b"\x02\x00" + device_id.to_bytes(4, "big")
    return (PROBE_DST_MAC + src_mac + PROBE_ETHERTYPE.to_bytes(2, "big")
            + _PROBE.pack(device_id, port, seq & 0xFFFFFFFF, ts_ms & 0xFFFFFFFF))


def parse_probe(frame: bytes) -> tuple[int, int, int, int] | None:
    """(device_id, port, seq, ts) of a probe frame, None for anything else."""
    if len(frame) < 14 + _PROBE.size or frame[12:14] != PROBE_ETHERTYPE.to_bytes(2, "big"):
        return None
    return _PROBE.unpack_from(frame, 14)


class LinkStatus(StrEnum):
    UP = "up"
    DOWN = "down"


@dataclass(frozen=True)
class LinkEvent:
    link: LinkId
    status: LinkStatus
    detected_at: float
    first_miss_at: float | None  # down: when the first unanswered probe was due


@dataclass
class _LinkProbeState:
    seq: int = 0  # last probe sent
    answered: int = 0  # highest probe answered
    up: bool = True
    answered_since_down: int = 0
    sent_at: dict[int, float] = field(default_factory=dict)


class LinkMonitor:
    def __init__(self, links: list[LinkId], interval: float, miss_limit: int = 3,
                 up_after: int = 2, initially_down: set[LinkId] = frozenset()) -> None:
        if miss_limit < 1 or up_after < 1:
            raise ValueError("miss_limit and up_after must be >= 1")
        self.interval = interval
        self.miss_limit = miss_limit
        self.up_after = up_after
        self._links = {link: _LinkProbeState(up=link not in initially_down) for link in links}

    def is_up(self, link: LinkId) -> bool:
        return self._links[link].up

    def down_links(self) -> set[LinkId]:
        return {link for link, st in self._links.items() if not st.up}

    def start_round(self, now: float) -> tuple[list[LinkEvent], list[tuple[LinkId, int]]]:
        """Account for the previous round, then allocate this round's probes (link, seq)."""
        events: list[LinkEvent] = []
        probes: list[tuple[LinkId, int]] = []
        for link, st in self._links.items():
            missed = st.seq - st.answered
            if st.up and missed >= self.miss_limit:
                st.up = False
                st.answered_since_down = 0
                first = st.sent_at.get(st.answered + 1)
                events.append(LinkEvent(link, LinkStatus.DOWN, now,
                                        None if first is None else first + self.interval))
            elif not st.up and missed >= 1:
                st.answered_since_down = 0
            st.seq += 1
            st.sent_at[st.seq] = now
            st.sent_at.pop(st.seq - self.miss_limit - 1, None)
            probes.append((link, st.seq))
        return events, probes

    def probe_answered(self, link: LinkId, seq: int, now: float) -> LinkEvent | None:
        st = self._links.get(link)
        if st is None or seq <= st.answered or seq > st.seq:
            return None
        st.answered = seq
        if st.up:
            return None
        st.answered_since_down += 1
        if st.answered_since_down < self.up_after:
            return None
        st.up = True
        return LinkEvent(link, LinkStatus.UP, now, None)
