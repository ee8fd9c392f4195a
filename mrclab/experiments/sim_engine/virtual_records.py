"""What every simulated phase or job records alike: the verdict of virtual time (faithful
by construction) and the switches' port counters as the lab's records hold them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrclab.experiments.records import FabricCounters, PortCounters
from mrclab.experiments.validity import Verdict

if TYPE_CHECKING:
    from mrclab.sim.network import SimNetwork

VIRTUAL_TIME = Verdict(faithful=True, reasons=[], cpu_busy=None, cpu_nice=None,
                       backlog_p95_bytes=None, backlog_max_bytes=None, ingress_loss_share=None,
                       load_average=[], engine="sim")


def port_counters(net: SimNetwork) -> FabricCounters:
    return {sw: {port: PortCounters(**row) for port, row in ports.items()}
            for sw, ports in net.port_counters().items()}
