"""Who sends to whom: traffic plans drawn from a fabric model and a seed (no Mininet)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from mrclab.controller.next_hops import SourceRoutes
from mrclab.fabric.model import Fabric
from mrclab.fabric.traffic import (  # noqa: F401 (the experiments' plans, in one place)
    PlanError,
    cross_group_permutation,
    incast_senders,
    last_host,
    pod_pairs,
)


@dataclass(frozen=True)
class Flow:
    """One transfer of an experiment: `size` bytes from `src` to `dst`."""

    src: str
    dst: str
    size: int  # bytes
    seed: int
    start: float = 0.0  # seconds after the common start
    planes: tuple[int, ...] | None = None  # destination NICs to use; None: every plane
    send_args: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass(frozen=True)
class Timed:
    """Something an experiment does while its flows run (a link fails, counters are read):
    `action(t0)` at `at` seconds after the flows' common start t0, on the engine's clock
    (the lab's wall clock, the simulator's virtual one)."""

    at: float
    action: Callable[[float], None]


def with_source_routes(routes: SourceRoutes, flows: list[Flow]) -> list[Flow]:
    """`flows` with every shortest path to their destination as a source route for the
    sender (`--route PLANE:LABELS`, PLANE the position of the destination NIC as
    mrclab.experiments.lab_engine.flows passes them), for the fabric's `source` spray mode."""
    fabric = routes.fabric
    out = []
    for flow in flows:
        src = {nic.plane: nic.ip for nic in fabric.hosts[flow.src].nics}
        dst = [n for n in fabric.hosts[flow.dst].nics
               if flow.planes is None or n.plane in flow.planes]
        args = [arg for position, nic in enumerate(dst)
                for labels in routes.routes(src[nic.plane], nic.ip)
                for arg in ("--route", f"{position}:" + ",".join(map(str, labels)))]
        out.append(replace(flow, send_args=flow.send_args + tuple(args)))
    return out


def fabric_planes(fabric: Fabric) -> list[int]:
    """The planes the hosts' NICs are on, in order."""
    return sorted({nic.plane for h in fabric.hosts.values() for nic in h.nics})


def core_links_on_plane(fabric: Fabric, position: int) -> list[tuple[str, int, str, int]]:
    """`core_links` of the plane at `position` among `fabric_planes`."""
    plane = fabric_planes(fabric)[position]
    return [link for link in core_links(fabric) if fabric.switches[link[0]].plane == plane]


def core_links(fabric: Fabric) -> list[tuple[str, int, str, int]]:
    """(agg, agg port, core, core port) of every agg-core link, sorted by core then agg."""
    out = []
    for link in fabric.fabric_links():
        roles = {link.a: fabric.switches[link.a].role, link.b: fabric.switches[link.b].role}
        if sorted(roles.values()) == ["agg", "core"]:
            if roles[link.a] == "agg":
                out.append((link.a, link.a_port, link.b, link.b_port))
            else:
                out.append((link.b, link.b_port, link.a, link.a_port))
    return sorted(out, key=lambda t: (t[2], t[0]))
