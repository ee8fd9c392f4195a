"""What the endpoint reports about its transfers, as records that cross processes: `send
--json` and `recv --json` (and the experiments' agent) write them, and every reader (the
experiments, `mrclab.lab.transfers`, the coursework checks) parses them back (`jsonrecords`), so
that each field is named once, here, and read as a typed attribute."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrclab.endpoint.core.receiver import ReceiverStats
from mrclab.jsonrecords import flat, from_json, to_json

# --- the sender ----------------------------------------------------------------------


@dataclass(slots=True)
class PlaneReport:
    iface: str
    src: str
    dst: str


@dataclass(slots=True)
class SenderSettings:
    """The configuration the sender ran with."""

    mss: int = 0
    min_rto_ms: float = 0.0
    init_cwnd: float = 0.0
    evs_per_plane: int = 0


@dataclass(slots=True)
class SenderCounters:
    data_packets_sent: int = 0
    retransmits: int = 0
    nack_retransmits: int = 0
    loss_retransmits: int = 0
    timeouts: int = 0  # RTO events
    timeouts_undone: int = 0  # their window cuts undone: shown spurious
    timeouts_spurious: int = 0  # every packet they resent had arrived after all
    tail_probes: int = 0  # packets resent after a silence of ~2 RTTs to draw an ACK
    nacks: int = 0  # trimmed packets the receiver reported
    acks: int = 0
    ecn_echoes: int = 0
    stale_acks: int = 0
    ignored_packets: int = 0
    max_qmax: int = 0
    probes_sent: int = 0
    probe_replies: int = 0
    recovery_time_s: float = 0.0
    spurious_retransmits: int = 0
    losses_not_blamed: int = 0
    local_send_drops: int = 0  # frames this host's sockets would not take


@dataclass(slots=True)
class Retirement:
    time: float  # seconds from the sender's start
    plane: int
    ev: int


@dataclass(slots=True)
class EvPoolReport:
    evs_used: list[int] = field(default_factory=list)
    evs_retired: list[Retirement] = field(default_factory=list)
    evs_down_at_end: list[int] = field(default_factory=list)
    evs_reinstated: int = 0
    evs_unretired: int = 0


@dataclass(slots=True)
class RttReport:
    srtt_ms: float = 0.0
    min_rtt_ms: float = 0.0
    rtt_p99_ms: float = 0.0
    # histogram over DELAY_EDGES_S (mrclab.endpoint.core.rtt) of each ACK's delay per queued
    # packet: the experiments judge from it whether the fabric kept up
    queue_delay_counts: list[int] = field(default_factory=list)
    reorder_window_ms: float = 0.0
    rto_ms: float = 0.0


@dataclass(slots=True)
class SenderReport:
    """One transfer as its sender saw it (`send --json`)."""

    ok: bool = False
    error: str = ""
    bytes: int = 0
    sha256: str = ""
    conn: int = 0
    planes: list[PlaneReport] = field(default_factory=list)
    packets: int = 0
    completion_time_s: float | None = None  # None: it did not complete
    elapsed_s: float = 0.0
    goodput_mbps: float = 0.0
    cwnd: float = 0.0  # at the end
    config: SenderSettings = flat(SenderSettings)
    counters: SenderCounters = flat(SenderCounters)
    pool: EvPoolReport = flat(EvPoolReport)
    rtt: RttReport = flat(RttReport)

    @classmethod
    def failed(cls, error: str) -> SenderReport:
        """A sender that wrote no report of its own (crashed, or never ran)."""
        return cls(ok=False, error=error)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SenderReport:
        return from_json(cls, data)


# --- the receiver --------------------------------------------------------------------


@dataclass(slots=True)
class MessageDigest:
    """A message the receiver completed (the experiments' agent lists them)."""

    peer: str
    bytes: int
    ok: bool
    sha256: str
    seconds: float


@dataclass(slots=True)
class ReceiverReport:
    """What a receiver saw (`recv --json`)."""

    stats: ReceiverStats = flat(ReceiverStats)
    garbage: int = 0  # frames that did not parse
    local_send_drops: int = 0
    messages: int = 0
    digests: list[MessageDigest] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReceiverReport:
        return from_json(cls, data)


# --- the packet generator ------------------------------------------------------------


@dataclass(slots=True)
class BlastStats:
    """What `endpoint blast` sent (its last output line, and `--json`)."""

    sent: int = 0
    send_drops: int = 0  # frames the local socket refused
    seconds: float = 0.0
    evs_used: int = 0

    @property
    def pps(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**to_json(self), "pps": round(self.pps, 1)}  # for a reader of the line

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BlastStats:
        return from_json(cls, data)
