"""Operations on a running lab that experiments need beyond `Lab`'s own: rates on every
switch port, per-port counters of the whole fabric, thresholds, controller events."""

from __future__ import annotations

import logging
import time

from mrclab.control.command import controller_args
from mrclab.control.protocol import ControlClientError
from mrclab.experiments import plans
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.lab.lab import Lab, LabError
from mrclab.mininet.switch_cli import SwitchConfigError, set_port_rates

log = logging.getLogger(__name__)


def _port_rates(lab: Lab, host_bps: int | None, fabric_bps: int | None
                ) -> dict[str, dict[int, int | None]]:
    """Per switch and port: `host_bps` on ports facing a host, `fabric_bps` on the rest."""
    return {name: {port: host_bps if peer.node in lab.fabric.hosts else fabric_bps
                   for port, peer in sw.ports.items()}
            for name, sw in lab.fabric.switches.items()}


def apply_rates(lab: Lab, host_bps: int | None, fabric_bps: int | None) -> None:
    """Set every egress port's rate while the lab runs (None: unlimited), one CLI run per
    switch. p4emu shapes bits/s; BMv2 packets/s of MTU-sized frames per priority queue."""
    for name, ports in _port_rates(lab, host_bps, fabric_bps).items():
        try:
            set_port_rates(lab.target, lab.fabric.switches[name].thrift_port,
                           lab.config.queues, ports, name)
        except SwitchConfigError as exc:
            raise LabError(str(exc)) from None


def restart_controller(lab: Lab, trim: int, ecn: int, spray: str) -> float:
    """Restart the controller with new thresholds; it reads the switches back and writes
    the difference. Returns the seconds until it was ready again."""
    started = time.monotonic()
    lab.stop_controller()
    lab.start_controller(controller_args(trim_threshold=trim, ecn_threshold=ecn,
                                         spray=spray))
    lab.wait_ready(90)
    return time.monotonic() - started


def reconvergence_events(lab: Lab) -> list[Reconvergence]:
    try:
        return lab.reconvergences()
    except (ControlClientError, ValueError) as exc:
        log.warning("reconvergence events unavailable: %s", exc)
        return []


def wait_links_up(lab: Lab, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not lab.status().down_links:
            return True
        time.sleep(0.2)
    return False


def core_links(lab: Lab) -> list[tuple[str, int, str, int]]:
    """(agg, agg port, core, core port) of every agg-core link, sorted."""
    return plans.core_links(lab.fabric)
