"""Exercise failover: the controller's routing policy (the one function you write).

The controller probes every fabric link; when a link's last probes go unanswered it puts
the link in `down` and calls next_hops(fabric, down) again. It then compares the result
with the previous one, switch by switch, and rewrites exactly the switches whose routes
changed: their multipath groups (uplinks) and routes. So failover is correct when this
function routes around every link in `down` -- at every switch, not only next to it.

The result maps switch name -> host IP -> the set of egress ports that lead towards that
host on a shortest path over live links. One port is a plain route; several are a
multipath group, sprayed per packet (ev mode) or per flow (ecmp).
"""

from __future__ import annotations

import networkx as nx

from mrclab.controller.next_hops import LinkId, NextHops, link_id  # noqa: F401 (for TODO 1)
from mrclab.fabric.model import Fabric


def live_graph(fabric: Fabric, down: set[LinkId]) -> nx.MultiGraph:
    """The switches, and the switch-switch links as edges carrying their two ports."""
    graph = nx.MultiGraph()
    graph.add_nodes_from(fabric.switches)
    for link in fabric.fabric_links():
        # TODO 1: a link in `down` lost its probes: packets sent into it are lost. Leave it
        #         out of the graph (link_id(link) names it as `down` does).
        graph.add_edge(link.a, link.b, ports={link.a: link.a_port, link.b: link.b_port})
    return graph


def next_hops(fabric: Fabric, down: set[LinkId]) -> NextHops:
    graph = live_graph(fabric, down)
    hops: NextHops = {name: {} for name in fabric.switches}
    for host in fabric.hosts.values():
        for nic in host.nics:
            # hops from every switch to the switch the host hangs off, over the live graph;
            # a switch missing here cannot reach the host at all
            distance = nx.single_source_shortest_path_length(graph, nic.switch)
            for switch, d in distance.items():
                if d == 0:
                    hops[switch][nic.ip] = frozenset({nic.switch_port})
                    continue
                closer = sorted(data["ports"][switch]
                                for _, peer, data in graph.edges(switch, data=True)
                                if distance.get(peer) == d - 1)
                # TODO 2: every port in `closer` starts a shortest path: put them all in the
                #         group, or a fat-tree uses one core of four and spraying is moot.
                hops[switch][nic.ip] = frozenset(closer[:1])
                # TODO 3: a switch whose every shortest path crossed a dead link must now
                #         use the longer ones. Check that your graph gives it those (think
                #         of an aggregation switch in another pod whose core lost its link
                #         to the host's pod) -- and that no switch keeps a route into a
                #         dead end.
    return hops
