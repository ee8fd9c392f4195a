"""Probing every fabric link, with the clock passed in: which probe to send from which
switch port each round, and which link an answered probe speaks for.

`ProbeLiveness` holds the verdict rules; `LinkMonitor` adds the fabric: the links by the
switch port that probes them, the probe frames (sent as PacketOut on the probing switch's
port, coming back as PacketIn at the far end) and the check that an answer arrived where
its link ends. The controller process drives it from its probe thread and P4Runtime
streams; the virtual-time simulator from its event loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from controller.link_verdict import LinkVerdict
from controller.next_hops import LinkId, link_id
from controller.probe_liveness import (
    LinkEvent,
    ProbeLiveness,
    VerdictFactory,
    parse_probe,
    probe_frame,
)
from fabric_model.model import Fabric

log = logging.getLogger(__name__)

FASTEST_PROBE_INTERVAL_S = 0.05
# Probes per second the controller sends by default, all links together. In the lab a
# probe cost 1.4 ms of software-switch CPU and 0.5 ms of the controller's on a loaded
# machine, and about 0.3 and 0.2 ms on a quiet one since the P4Runtime streams run on
# asyncio (docs/lab-capacity.md): 700/s is then 0.35 of this machine's 2 cores. A
# fat-tree k=4 (32 links) is probed every 50 ms, k=8 (256 links) every 366 ms: at 50 ms
# its probes drowned the switches, which answered too late (every link flapping).
PROBE_BUDGET_PER_S = 700


def default_probe_interval(fabric: Fabric, budget_per_s: float = PROBE_BUDGET_PER_S) -> float:
    """Seconds between two probes of a link: 50 ms, or longer when the fabric has so many
    links that probing each every 50 ms would exceed `budget_per_s` probes in all."""
    return max(FASTEST_PROBE_INTERVAL_S, len(fabric.fabric_links()) / budget_per_s)


@dataclass(frozen=True)
class Probe:
    """One probe to send: `frame` out of `switch`'s `port`."""

    switch: str
    port: int
    frame: bytes


class LinkMonitor(ProbeLiveness):
    def __init__(self, fabric: Fabric, interval: float, miss_limit: int = 3,
                 initially_down: set[LinkId] = frozenset(),
                 verdict: VerdictFactory = LinkVerdict) -> None:
        self.links = {link_id(lk): lk for lk in fabric.fabric_links()}
        super().__init__(list(self.links), interval, miss_limit, initially_down=initially_down,
                         verdict=verdict)
        self._fabric = fabric
        self._by_sender = {lid[0]: lid for lid in self.links}
        self._by_device = {sw.device_id: sw.name for sw in fabric.switches.values()}

    def probes(self, now: float, ts_ms: int) -> tuple[list[LinkEvent], list[Probe]]:
        """Judge the last round, then this round's probes (`ts_ms` stamps them)."""
        events, due = self.start_round(now)
        probes = []
        for link, seq in due:
            sender, port = link[0]
            device = self._fabric.switches[sender].device_id
            probes.append(Probe(sender, port, probe_frame(device, port, seq, ts_ms)))
        return events, probes

    def answered(self, receiver: str, ingress_port: int | None, payload: bytes,
                 now: float) -> LinkEvent | None:
        """A frame reached the controller from `receiver`'s `ingress_port`: if it is the
        answer to a probe of the link ending there, count it."""
        probe = parse_probe(payload)
        if probe is None:
            return None
        device_id, port, seq, _ = probe
        sender = self._by_device.get(device_id)
        link = self._by_sender.get((sender, port)) if sender else None
        if link is None:
            return None
        if link[1] != (receiver, ingress_port):
            log.warning("probe from %s:%d arrived at %s:%s, expected %s:%d", sender, port,
                        receiver, ingress_port, *link[1])
            return None
        return self.probe_answered(link, seq, now)
