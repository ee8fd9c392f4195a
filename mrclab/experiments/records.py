"""What a traffic phase of an experiment records, on either engine: per flow the sender's
report and timeline, per destination the receiver's report, the fabric's port counters and
the verdict on the run. The lab's agents write the endpoint's parts as JSON in other
processes (`mrclab.endpoint.report` parses them); the simulator makes them in process. Either
way an experiment's analysis reads attributes, and results.json holds `to_json` of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.experiments.transfer import Timeline
from mrclab.experiments.validity import Verdict
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.fabric.training_job import IterationRecord
from mrclab.jsonrecords import flat, from_json, to_json


@dataclass(slots=True)
class FlowRecord:
    src: str
    dst: str
    size: int
    start: float = 0.0  # seconds after the phase's t0
    planes: list[int] = field(default_factory=list)  # empty: all
    sender: SenderReport = field(default_factory=SenderReport)
    timeline: Timeline = field(default_factory=Timeline)

    @property
    def ok(self) -> bool:
        return self.sender.ok


@dataclass(slots=True)
class PortCounters:
    """Bytes and frames through one switch port (the kernel's interface statistics in the
    lab, the wires' in the simulator)."""

    tx_bytes: int = 0
    tx_packets: int = 0
    rx_bytes: int = 0
    rx_packets: int = 0

    def minus(self, before: PortCounters) -> PortCounters:
        return PortCounters(self.tx_bytes - before.tx_bytes,
                            self.tx_packets - before.tx_packets,
                            self.rx_bytes - before.rx_bytes,
                            self.rx_packets - before.rx_packets)


FabricCounters = dict[str, dict[int, PortCounters]]  # switch -> port -> counters


def counter_delta(before: FabricCounters, after: FabricCounters) -> FabricCounters:
    """What each port counted between two readings (a port new since `before`: all)."""
    return {sw: {port: row.minus(before.get(sw, {}).get(port, PortCounters()))
                 for port, row in rows.items()}
            for sw, rows in after.items()}


@dataclass(slots=True)
class PhaseRecord:
    """One `run_flows` of a session: flows started together at `t0`, ended by `end`."""

    name: str
    t0: float
    end: float
    verdict: Verdict
    flows: list[FlowRecord] = field(default_factory=list)
    receivers: dict[str, ReceiverReport] = field(default_factory=dict)  # by host
    counters: FabricCounters = field(default_factory=dict)  # deltas over the phase
    machine: dict[str, Any] = field(default_factory=dict)  # what the engine measured
    incomplete: bool = False  # the simulator's: cut short by Ctrl-C

    def receiver(self) -> ReceiverReport:
        """The first destination's report (incast's one receiver); empty when none."""
        return next(iter(self.receivers.values()), ReceiverReport())

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PhaseRecord:
        return from_json(cls, data)


@dataclass(slots=True)
class FailureEvents:
    """What a phase's schedule did to the fabric, in seconds from the phase's t0, and the
    controller's answer (its records, on the controller's clock)."""

    link: tuple[str, str] | None = None  # the failed link's switches (core, agg)
    failed_at: float | None = None
    all_failed_at: float | None = None  # several links (a plane): when the last one failed
    restored_at: float | None = None
    reconvergence: list[Reconvergence] = field(default_factory=list)

    def rerouted_at(self, t0: float) -> float | None:
        """When, from `t0` (the controller's clock), the controller had rewritten the
        fabric around the failed link; None if it did not."""
        if self.link is None:
            return None
        for event in self.reconvergence:
            if event.status == "down" and event.joins(*self.link):
                return event.programmed_at - t0
        return None


@dataclass(slots=True)
class PhaseWithEvents:
    """A phase and what its schedule did; in the JSON the events sit beside the phase's
    own fields."""

    phase: PhaseRecord = flat()
    events: FailureEvents = flat(FailureEvents)


@dataclass(slots=True)
class TransportTotals:
    """What the senders of a set of transfers counted, summed (a collective's thousands of
    messages are recorded per iteration, not one report each)."""

    transfers: int = 0
    failed: int = 0
    data_sent: int = 0
    retransmits: int = 0
    nack_retransmits: int = 0
    timeouts: int = 0
    tail_probes: int = 0
    nacks: int = 0
    ecn_echoes: int = 0

    def add(self, stats: Any, ok: bool) -> None:
        """Count one sender's `SenderStats`."""
        self.transfers += 1
        self.failed += not ok
        for name in ("data_sent", "retransmits", "nack_retransmits", "timeouts",
                     "tail_probes", "nacks", "ecn_echoes"):
            setattr(self, name, getattr(self, name) + getattr(stats, name))

    def merge(self, other: TransportTotals) -> None:
        """Add another set of transfers' totals (a lab rank's, say)."""
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(slots=True)
class CollectiveIteration:
    """One iteration of a training job (`mrclab.fabric.training_job.IterationRecord`, times
    from the phase's t0) and its senders' totals."""

    iteration: IterationRecord = flat()
    totals: TransportTotals = field(default_factory=TransportTotals)


@dataclass(slots=True)
class JobRecord:
    """One run of a training job (`run_job` of a session): rank i ran on `hosts[i]`."""

    name: str
    t0: float
    end: float
    verdict: Verdict
    hosts: list[str] = field(default_factory=list)
    iterations: list[CollectiveIteration] = field(default_factory=list)
    receivers: dict[str, ReceiverReport] = field(default_factory=dict)
    counters: FabricCounters = field(default_factory=dict)
    reconvergence: list[Reconvergence] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)
    stalled: bool = False  # an iteration did not end within its limit: the job stopped
    incomplete: bool = False  # cut short by Ctrl-C or SIGTERM

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobRecord:
        return from_json(cls, data)
