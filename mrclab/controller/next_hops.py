"""Route computation from the topology graph (pure).

For every destination host NIC and every switch that can reach it over live links, the
next-hop port set is every port leading to a neighbour one hop closer to the destination's
attachment switch (all shortest paths). Nothing is specific to a topology kind: in a
fat-tree a dead core→pod link makes that core farther from the pod, so aggregation
switches in other pods drop it from their groups automatically.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise, product

import networkx as nx

from mrclab.fabric.model import Fabric, Link

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


def _ports_to_neighbours(graph: nx.MultiGraph) -> dict[str, dict[str, list[int]]]:
    """switch -> neighbour -> the switch's ports to it (more than one for parallel links)."""
    ports: dict[str, dict[str, list[int]]] = {node: {} for node in graph}
    for a, b, link_ports in graph.edges(data="ports"):
        ports[a].setdefault(b, []).append(link_ports[a])
        ports[b].setdefault(a, []).append(link_ports[b])
    return ports


def compute_next_hops(fabric: Fabric, down: set[LinkId] = frozenset()) -> NextHops:
    graph = switch_graph(fabric, down)
    ports_to = _ports_to_neighbours(graph)
    result: NextHops = {name: {} for name in fabric.switches}
    attachments: dict[str, list[tuple[str, int]]] = {}
    for host in fabric.hosts.values():
        for nic in host.nics:
            attachments.setdefault(nic.switch, []).append((nic.ip, nic.switch_port))
    for attach_switch, nics in attachments.items():
        # a switch's predecessors in a BFS from the destination's switch are exactly its
        # neighbours one hop closer to it; unreachable switches are absent
        closer = nx.predecessor(graph, attach_switch)
        for switch, neighbours in closer.items():
            if not neighbours:  # the attachment switch itself
                for ip, port in nics:
                    result[switch][ip] = frozenset({port})
                continue
            ports = frozenset(port for n in neighbours for port in ports_to[switch][n])
            for ip, _ in nics:
                result[switch][ip] = ports
    return result


@dataclass(frozen=True)
class Hop:
    switch: str
    in_port: int | None
    out_port: int


PATH_LIMIT = 256  # paths enumerate_paths and SourceRoutes give at most


def enumerate_paths(
    fabric: Fabric, next_hops: NextHops, src_ip: str, dst_ip: str, limit: int = PATH_LIMIT
) -> list[list[Hop]]:
    """All switch-level paths a packet src→dst can take under `next_hops` (up to `limit`),
    in ascending order of their egress ports.

    This walks `next_hops` as given rather than the graph: routing is pluggable
    (`Routing`, the coursework's), so the paths a controller installed need not be the
    shortest ones."""
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


class SourceRoutes:
    """Every shortest path between two host NICs as the labels of a source route: the
    egress port at each switch, since the controller installs label L → port L
    (switch_state.build_switch_state). `routes(src_ip, dst_ip)` gives them in `spread_order`:
    senders take their routes in turn.

    The same routes as enumerate_paths over compute_next_hops. The graph is built once per
    fabric and down set, and the paths between two switches are searched once, since every
    host on them shares them: a collective on 8 planes of k=8 asks for 16,256 pairs of
    hosts, which searched afresh each took 67 ms."""

    def __init__(self, fabric: Fabric, down: set[LinkId] = frozenset()):
        self.fabric = fabric
        self._attached = {nic.ip: (nic.switch, nic.switch_port)
                          for host in fabric.hosts.values() for nic in host.nics}
        self._graph = switch_graph(fabric, down)
        self._ports_to = _ports_to_neighbours(self._graph)
        self._between: dict[tuple[str, str], list[tuple[int, ...]]] = {}

    def routes(self, src_ip: str, dst_ip: str) -> list[tuple[int, ...]]:
        if src_ip not in self._attached:
            raise KeyError(f"no host with address {src_ip}")
        if dst_ip not in self._attached:
            return []
        (src_switch, _), (dst_switch, host_port) = self._attached[src_ip], self._attached[dst_ip]
        return [(*ports, host_port) for ports in self._switch_routes(src_switch, dst_switch)]

    def _switch_routes(self, src: str, dst: str) -> list[tuple[int, ...]]:
        """The egress ports of every shortest path src→dst, up to PATH_LIMIT, spread.
        The host's port, the same for all, changes neither order (sorted nor spread)."""
        found = self._between.get((src, dst))
        if found is None:
            try:
                paths = list(nx.all_shortest_paths(self._graph, src, dst))
            except nx.NetworkXNoPath:
                paths = []
            found = [ports for path in paths
                     for ports in product(*(self._ports_to[a][b] for a, b in pairwise(path)))]
            found = self._between[(src, dst)] = spread_order(sorted(found)[:PATH_LIMIT])
        return found


def spread_order(routes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """`routes` ordered so that consecutive ones leave by different first hops (then
    second hops): sorted by their labels read from the last hop back.

    A sender takes its routes in turn. In ascending order consecutive routes share their
    first hops: at k=6 a sender put 3 packets in a row on one uplink, the 3 hosts of an
    edge switch 9 together, and the uplink's queue passed the ECN threshold of 4 packets
    (docs/simulator.md, "Why the datacenter senders and queues are as they are")."""
    return sorted(routes, key=lambda labels: labels[::-1])
