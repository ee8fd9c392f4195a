"""Who sends to whom: traffic plans drawn from a fabric model and a seed (no Mininet)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from controller.next_hops import source_routes
from fabric_model.model import Fabric


class PlanError(ValueError):
    """The plan cannot be made on this fabric; one-line message."""


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


def with_source_routes(fabric: Fabric, flows: list[Flow]) -> list[Flow]:
    """`flows` with every shortest path to their destination as a source route for the
    sender (`--route PLANE:LABELS`, PLANE the position of the destination NIC as
    experiments.live.flows passes them), for the fabric's `source` spray mode."""
    out = []
    for flow in flows:
        src = {nic.plane: nic.ip for nic in fabric.hosts[flow.src].nics}
        dst = [n for n in fabric.hosts[flow.dst].nics
               if flow.planes is None or n.plane in flow.planes]
        args = [arg for position, nic in enumerate(dst)
                for labels in source_routes(fabric, src[nic.plane], nic.ip)
                for arg in ("--route", f"{position}:" + ",".join(map(str, labels)))]
        out.append(replace(flow, send_args=flow.send_args + tuple(args)))
    return out


def _hosts(fabric: Fabric) -> list[str]:
    return sorted(fabric.hosts, key=lambda h: (fabric.hosts[h].group, fabric.hosts[h].index))


def cross_group_permutation(fabric: Fabric, seed: int, tries: int = 100_000) -> list[tuple[str, str]]:
    """A random permutation in which every host sends to one distinct host of another group
    (fat-tree pod, leaf): [(src, dst)], each host once as source and once as destination."""
    hosts = _hosts(fabric)
    groups = {h: fabric.hosts[h].group for h in hosts}
    if len(set(groups.values())) < 2:
        raise PlanError(f"{fabric.spec}: a cross-pod permutation needs at least 2 pods")
    largest = max(sum(1 for g in groups.values() if g == grp) for grp in set(groups.values()))
    if 2 * largest > len(hosts):
        raise PlanError(f"{fabric.spec}: one pod holds more than half the hosts")
    rng = random.Random(seed)
    targets = hosts[:]
    for _ in range(tries):
        rng.shuffle(targets)
        if all(groups[s] != groups[d] for s, d in zip(hosts, targets, strict=True)):
            return list(zip(hosts, targets, strict=True))
    raise PlanError(f"{fabric.spec}: no cross-pod permutation found")  # pragma: no cover


def incast_senders(fabric: Fabric, receiver: str, n: int, seed: int) -> list[str]:
    """`n` distinct senders for `receiver`, hosts of other groups first (seeded order)."""
    others = [h for h in _hosts(fabric) if h != receiver]
    if receiver not in fabric.hosts:
        raise PlanError(f"unknown receiver {receiver!r}")
    if not 1 <= n <= len(others):
        raise PlanError(f"incast N={n} is larger than {fabric.spec} allows "
                        f"({len(others)} hosts besides the receiver)" if n > len(others)
                        else f"incast N={n} must be at least 1")
    rng = random.Random(seed)
    group = fabric.hosts[receiver].group
    far = [h for h in others if fabric.hosts[h].group != group]
    near = [h for h in others if fabric.hosts[h].group == group]
    rng.shuffle(far)
    rng.shuffle(near)
    return (far + near)[:n]


def pod_pairs(fabric: Fabric, src_group: int, dst_group: int) -> list[tuple[str, str]]:
    """Host i of one group to host i of another (as many pairs as the smaller group has)."""
    src = [h for h in _hosts(fabric) if fabric.hosts[h].group == src_group]
    dst = [h for h in _hosts(fabric) if fabric.hosts[h].group == dst_group]
    if not src or not dst:
        raise PlanError(f"{fabric.spec} has no hosts in group {src_group} or {dst_group}")
    return list(zip(src, dst, strict=False))


def last_host(fabric: Fabric) -> str:
    return _hosts(fabric)[-1]


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
