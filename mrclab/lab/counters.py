"""A switch's P4 counters as the controller reports them (`lab.ask("counters", switch=)`),
parsed once: the reply crosses a JSON socket, which turns its port numbers into strings;
`switch_counters` gives them back as ints, so a reader looks a port up by its number."""

from __future__ import annotations

from dataclasses import dataclass, field

from mrclab.jsonrecords import from_json
from mrclab.lab.lab import Lab


@dataclass(slots=True)
class P4PortCounters:
    """One egress port's counters in the P4 program (`MrcEgress`)."""

    tx_packets: int = 0
    tx_bytes: int = 0
    trimmed: int = 0
    ecn_marked: int = 0


@dataclass(slots=True)
class SwitchCounters:
    ports: dict[int, P4PortCounters] = field(default_factory=dict)
    drops: dict[int, int] = field(default_factory=dict)  # MrcIngress.drops by index

    def port(self, number: int) -> P4PortCounters:
        """A port's counters; zeros for a port that has counted nothing."""
        return self.ports.get(number, P4PortCounters())

    def tx_packets(self) -> int:
        """Packets sent on every port."""
        return sum(p.tx_packets for p in self.ports.values())


def switch_counters(lab: Lab, switch: str) -> SwitchCounters:
    return from_json(SwitchCounters, lab.ask("counters", switch=switch))
