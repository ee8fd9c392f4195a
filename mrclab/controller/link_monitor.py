"""Probing every fabric link, with the clock passed in: which probe to send from which
switch port each round, and which link an answered probe speaks for.

`ProbeLiveness` holds the verdict rules; `LinkMonitor` adds the fabric: the links by the
switch port that probes them, the probe frames (a PacketOut per probing switch for its
probe group, or per link; each copy comes back as a PacketIn at the link's far end,
docs/wire-format.md) and the check that an answer arrived where its link ends. The controller process drives it from its probe thread and P4Runtime
streams; the virtual-time simulator from its event loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import LinkId, link_id
from mrclab.controller.probe_liveness import (
    LinkEvent,
    ProbeLiveness,
    VerdictFactory,
    parse_probe,
    probe_frame,
)
from mrclab.fabric.model import Fabric

log = logging.getLogger(__name__)

FASTEST_PROBE_INTERVAL_S = 0.05
# Probes per second the controller sends by default, all links together. In the lab a
# probe cost 1.4 ms of software-switch CPU and 0.5 ms of the controller's on a loaded
# machine, and about 0.3 and 0.2 ms on a quiet one since the P4Runtime streams run on
# asyncio (docs/lab-capacity.md), less since one PacketOut a round probes all of a
# switch's links (k=4 idle: 0.16-0.21 cores). A fat-tree k=4 (32 links) is probed every
# 50 ms, k=8 (256 links) every 366 ms: at 50 ms its probes drowned the switches, which
# answered too late (every link flapping).
PROBE_BUDGET_PER_S = 700


def default_probe_interval(fabric: Fabric, budget_per_s: float = PROBE_BUDGET_PER_S) -> float:
    """Seconds between two probes of a link: 50 ms, or longer when the fabric has so many
    links that probing each every 50 ms would exceed `budget_per_s` probes in all."""
    return max(FASTEST_PROBE_INTERVAL_S, len(fabric.fabric_links()) / budget_per_s)


@dataclass(frozen=True)
class Probe:
    """One PacketOut: `frame` out of `switch`'s `port`, or out of every port of its probe
    group when `port` is None."""

    switch: str
    port: int | None
    frame: bytes


class LinkMonitor(ProbeLiveness):
    def __init__(self, fabric: Fabric, interval: float, miss_limit: int = 3,
                 initially_down: set[LinkId] = frozenset(),
                 verdict: VerdictFactory = LinkVerdict, to_group: bool = False) -> None:
        """`to_group`: each probing switch gets one frame a round, which its program
        replicates to its probe group (`probe_group`); else one frame per link."""
        self.links = {link_id(lk): lk for lk in fabric.fabric_links()}
        super().__init__(list(self.links), interval, miss_limit, initially_down=initially_down,
                         verdict=verdict)
        self._fabric = fabric
        self._by_receiver = {lid[1]: lid for lid in self.links}
        self._by_device = {sw.device_id: sw.name for sw in fabric.switches.values()}
        ports: dict[str, set[int]] = {}
        for (sender, port), _ in self.links:
            ports.setdefault(sender, set()).add(port)
        # switch -> the ports it probes from (each link is probed from one end)
        self.probe_ports = {name: frozenset(p) for name, p in ports.items()}
        self.to_group = to_group

    def probe_group(self, switch: str) -> frozenset[int]:
        """The ports of `switch`'s probe group: those it probes, when probes go to groups."""
        return self.probe_ports.get(switch, frozenset()) if self.to_group else frozenset()

    def probes(self, now: float, ts_ms: int) -> tuple[list[LinkEvent], list[Probe]]:
        """Judge the last round, then this round's probes (`ts_ms` stamps them)."""
        events, due = self.start_round(now)
        seqs: dict[str, dict[int, int]] = {}
        for ((sender, port), _), seq in due:
            seqs.setdefault(sender, {})[port] = seq
        probes = []
        for sender, by_port in seqs.items():
            device = self._fabric.switches[sender].device_id
            if self.to_group:
                probes.append(Probe(sender, None, probe_frame(device, by_port, ts_ms)))
            else:
                probes += [Probe(sender, port, probe_frame(device, {port: seq}, ts_ms))
                           for port, seq in by_port.items()]
        return events, probes

    def answered(self, receiver: str, ingress_port: int | None, payload: bytes,
                 now: float) -> LinkEvent | None:
        """A frame reached the controller from `receiver`'s `ingress_port`: if it is a
        probe of the link ending there, count its answer."""
        probe = parse_probe(payload)
        if probe is None:
            return None
        link = self._by_receiver.get((receiver, ingress_port))
        sender = self._by_device.get(probe.device_id)
        seq = probe.seqs.get(link[0][1]) if link is not None and link[0][0] == sender else None
        if seq is None:
            expected = "no link" if link is None else "{}:{}".format(*link[0])
            log.warning("probe from %s ports %s arrived at %s:%s, expected from %s",
                        sender or f"device {probe.device_id}", sorted(probe.seqs), receiver,
                        ingress_port, expected)
            return None
        return self.probe_answered(link, seq, now)
