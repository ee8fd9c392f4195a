"""Fabric generators: fat-tree(k), leaf-spine, multi-plane. Pure data, no Mininet.

Names (single plane): fat-tree cores c1.., aggregation a1.., edge e1.., hosts h1..;
leaf-spine spines s1.., leaves l1.., hosts h1... In a multi-plane fabric every switch name
gets the plane as prefix (p0c1, p1e3, ...) and hosts keep one name with one NIC per plane.
Port order: host-facing ports first, then uplinks, so port numbers are predictable
(fat-tree edge: hosts 1..k/2, aggs k/2+1..k; agg: edges 1..k/2, cores k/2+1..k;
core: pod p on port p+1; leaf: hosts 1..H, spines H+1..; spine: leaf i on port i).
"""

from __future__ import annotations

from dataclasses import dataclass

from mrclab.fabric.model import Fabric, LinkParams

DEFAULT_GRPC_BASE = 50100
DEFAULT_THRIFT_BASE = 9100
MAX_HOSTS_PER_GROUP = 254  # last octet of 10.P.G.H


@dataclass(frozen=True)
class PortBases:
    grpc: int = DEFAULT_GRPC_BASE
    thrift: int = DEFAULT_THRIFT_BASE


DEFAULT_BASES = PortBases()
NO_SHAPING = LinkParams()
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def interface_tag(bases: PortBases) -> str:
    """Switch interface name tag: "eth" (c1-eth1) for the default ports, else a tag from the
    gRPC base (c1-e7p1 for 51100), so two labs on different ports never share a name."""
    if bases.grpc == DEFAULT_GRPC_BASE:
        return "eth"
    n = bases.grpc // 100 % (36 * 36)
    return f"{_B36[n // 36]}{_B36[n % 36]}p"


def _switch_name(prefix: str, role_letter: str, number: int) -> str:
    return f"{prefix}{role_letter}{number}"


def _plane_prefix(plane: int, planes: int) -> str:
    return f"p{plane}" if planes > 1 else ""


def validate_fattree(k: int) -> None:
    if k < 2 or k % 2:
        raise ValueError(f"fat-tree k must be an even number >= 2, got k={k}")
    if (k // 2) ** 2 > MAX_HOSTS_PER_GROUP:
        raise ValueError(f"fat-tree k={k} has more than {MAX_HOSTS_PER_GROUP} hosts per pod")


def validate_leafspine(leaves: int, spines: int, hosts: int) -> None:
    if leaves < 1:
        raise ValueError(f"leaf-spine needs at least 1 leaf, got leaves={leaves}")
    if leaves > 256:
        raise ValueError(f"leaf-spine supports at most 256 leaves, got leaves={leaves}")
    if spines < 1:
        raise ValueError(f"leaf-spine needs at least 1 spine, got spines={spines}")
    if not 1 <= hosts <= MAX_HOSTS_PER_GROUP:
        raise ValueError(f"hosts per leaf must be 1..{MAX_HOSTS_PER_GROUP}, got hosts={hosts}")


def _add_fattree_plane(
    fabric: Fabric, k: int, plane: int, link: LinkParams, host_link: LinkParams, bases: PortBases
) -> None:
    half = k // 2
    prefix = _plane_prefix(plane, fabric.planes)
    aggs: list[list[str]] = []
    for pod in range(k):
        edges = []
        pod_aggs = []
        for i in range(half):
            number = pod * half + i + 1
            edges.append(
                fabric.add_switch(
                    _switch_name(prefix, "e", number), "edge", plane, pod, bases.grpc, bases.thrift
                ).name
            )
        for i in range(half):
            number = pod * half + i + 1
            pod_aggs.append(
                fabric.add_switch(
                    _switch_name(prefix, "a", number), "agg", plane, pod, bases.grpc, bases.thrift
                ).name
            )
        for e_index, edge in enumerate(edges):
            for h in range(half):
                host_index = e_index * half + h + 1
                host_name = f"h{pod * half * half + host_index}"
                if host_name not in fabric.hosts:
                    fabric.add_host(host_name, group=pod, index=host_index)
                fabric.attach_host(host_name, edge, plane, host_link)
        for edge in edges:
            for agg in pod_aggs:
                fabric.connect_switches(edge, agg, link)
        aggs.append(pod_aggs)
    for c in range(half * half):
        core = fabric.add_switch(
            _switch_name(prefix, "c", c + 1), "core", plane, None, bases.grpc, bases.thrift
        ).name
        for pod in range(k):
            fabric.connect_switches(core, aggs[pod][c // half], link)


def _add_leafspine_plane(
    fabric: Fabric,
    leaves: int,
    spines: int,
    hosts: int,
    plane: int,
    link: LinkParams,
    host_link: LinkParams,
    bases: PortBases,
) -> None:
    prefix = _plane_prefix(plane, fabric.planes)
    leaf_names = [
        fabric.add_switch(
            _switch_name(prefix, "l", i + 1), "leaf", plane, i, bases.grpc, bases.thrift
        ).name
        for i in range(leaves)
    ]
    spine_names = [
        fabric.add_switch(
            _switch_name(prefix, "s", i + 1), "spine", plane, None, bases.grpc, bases.thrift
        ).name
        for i in range(spines)
    ]
    for leaf_index, leaf in enumerate(leaf_names):
        for h in range(hosts):
            host_name = f"h{leaf_index * hosts + h + 1}"
            if host_name not in fabric.hosts:
                fabric.add_host(host_name, group=leaf_index, index=h + 1)
            fabric.attach_host(host_name, leaf, plane, host_link)
    for spine in spine_names:
        for leaf in leaf_names:
            fabric.connect_switches(leaf, spine, link)


def fattree(
    k: int,
    link: LinkParams = NO_SHAPING,
    host_link: LinkParams | None = None,
    planes: int = 1,
    spec: str = "",
    bases: PortBases = DEFAULT_BASES,
) -> Fabric:
    """A k-ary fat-tree: k pods of k/2 edge + k/2 aggregation switches, (k/2)^2 cores."""
    validate_fattree(k)
    fabric = Fabric(spec=spec or f"fattree:k={k}", planes=planes,
                    intf_tag=interface_tag(bases))
    for plane in range(planes):
        _add_fattree_plane(fabric, k, plane, link, host_link or link, bases)
    return fabric


def leafspine(
    leaves: int,
    spines: int,
    hosts: int,
    link: LinkParams = NO_SHAPING,
    host_link: LinkParams | None = None,
    planes: int = 1,
    spec: str = "",
    bases: PortBases = DEFAULT_BASES,
) -> Fabric:
    """Two-tier Clos: every leaf connects to every spine; `hosts` hosts per leaf."""
    validate_leafspine(leaves, spines, hosts)
    fabric = Fabric(spec=spec or f"leafspine:leaves={leaves},spines={spines},hosts={hosts}",
                    planes=planes, intf_tag=interface_tag(bases))
    for plane in range(planes):
        _add_leafspine_plane(fabric, leaves, spines, hosts, plane, link, host_link or link, bases)
    return fabric
