"""Route computation from the topology graph (pure).

For every destination host NIC and every switch that can reach it over live links, the
next-hop port set is every port leading to a neighbour one hop closer to the destination's
attachment switch (all shortest paths). Nothing is specific to a topology kind: in a
fat-tree a dead core→pod link makes that core farther from the pod, so aggregation
switches in other pods drop it from their groups automatically.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from fabric_model.model import Fabric, Link

LinkId = tuple[tuple[str, int], tuple[str, int]]  # ((node, port), (node, port)), sorted
NextHops = dict[str, dict[str, frozenset[int]]]  # switch -> destination IP -> ports
# what computes every switch's next hops from the fabric and its down links
Routing = Callable[[Fabric, set[LinkId]], NextHops]


def link_id(link: Link) -> LinkId:
    a, b = (link.a, link.a_port), (link.b, link.b_port)
    return (a, b) if a <= b else (b, a)


def switch_graph(fabric: Fabric, down: set[LinkId] = frozenset()) -> nx.MultiGraph:
    """Switches as nodes, live switch-switch links as edges carrying their ports."""
    graph = nx.MultiGraph()
    graph.add_nodes_from(fabric.switches)
    for link in fabric.fabric_links():
        if link_id(link) in down:
            continue
        graph.add_edge(link.a, link.b, ports={link.a: link.a_port, link.b: link.b_port})
    return graph


def _distances_from(graph: nx.MultiGraph, origin: str) -> dict[str, int]:
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        node = queue.popleft()
        for neighbour in graph.neighbors(node):
            if neighbour not in dist:
                dist[neighbour] = dist[node] + 1
                queue.append(neighbour)
    return dist


def compute_next_hops(fabric: Fabric, down: set[LinkId] = frozenset()) -> NextHops:
    graph = switch_graph(fabric, down)
    result: NextHops = {name: {} for name in fabric.switches}
    attachments: dict[str, list[tuple[str, int]]] = {}
    for host in fabric.hosts.values():
        for nic in host.nics:
            attachments.setdefault(nic.switch, []).append((nic.ip, nic.switch_port))
    for attach_switch, nics in attachments.items():
        dist = _distances_from(graph, attach_switch)
        for switch, d in dist.items():
            if d == 0:
                for ip, port in nics:
                    result[switch][ip] = frozenset({port})
                continue
            ports = frozenset(
                data["ports"][switch]
                for _, neighbour, data in graph.edges(switch, data=True)
                if dist.get(neighbour) == d - 1
            )
            for ip, _ in nics:
                result[switch][ip] = ports
    return result


@dataclass(frozen=True)
class Hop:
    switch: str
    in_port: int | None
    out_port: int


def enumerate_paths(
    fabric: Fabric, next_hops: NextHops, src_ip: str, dst_ip: str, limit: int = 256
) -> list[list[Hop]]:
    """All switch-level paths a packet src→dst can take under `next_hops` (up to `limit`)."""
    start = None
    for host in fabric.hosts.values():
        for nic in host.nics:
            if nic.ip == src_ip:
                start = (nic.switch, nic.switch_port)
    if start is None:
        raise KeyError(f"no host with address {src_ip}")
    paths: list[list[Hop]] = []

    def walk(switch: str, in_port: int, prefix: list[Hop]) -> None:
        if len(paths) >= limit or len(prefix) > len(fabric.switches):
            return
        ports = next_hops.get(switch, {}).get(dst_ip, frozenset())
        for port in sorted(ports):
            hop = Hop(switch, in_port, port)
            peer = fabric.switches[switch].ports.get(port)
            if peer is None:
                continue
            if peer.node in fabric.switches:
                walk(peer.node, peer.port, prefix + [hop])
            else:
                paths.append(prefix + [hop])

    walk(start[0], start[1], [])
    return paths


def source_routes(fabric: Fabric, src_ip: str, dst_ip: str,
                  down: set[LinkId] = frozenset()) -> list[tuple[int, ...]]:
    """Every shortest path src→dst as the labels of a source route: the egress port at each
    switch, since the controller installs label L → port L (switch_state.build_switch_state)."""
    paths = enumerate_paths(fabric, compute_next_hops(fabric, down), src_ip, dst_ip)
    return [tuple(hop.out_port for hop in path) for path in paths]
