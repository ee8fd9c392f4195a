"""Route computation on the topology graph."""

from __future__ import annotations

import pytest

from mrclab.controller.next_hops import (
    SourceRoutes,
    compute_next_hops,
    enumerate_paths,
    link_id,
    spread_order,
)
from mrclab.fabric.model import Fabric, LinkParams
from mrclab.fabric.spec import parse_spec


def test_fattree_k4_next_hops():
    fabric = parse_spec("fattree:k=4")
    hops = compute_next_hops(fabric)
    h16 = "10.0.3.4"  # on e8, port 2, pod 3
    assert hops["e8"][h16] == {2}
    assert hops["e1"][h16] == {3, 4}  # both aggregation switches
    assert hops["a1"][h16] == {3, 4}  # both cores of its group
    assert hops["c1"][h16] == {4}  # the pod-3 port
    assert hops["a7"][h16] == {2}  # down to e8
    assert hops["e1"]["10.0.0.2"] == {2}  # same edge switch: host port
    assert hops["e1"]["10.0.0.3"] == {3, 4}  # same pod: via either aggregation switch
    assert hops["a1"]["10.0.0.3"] == {2}


def test_core_pod_link_failure_prunes_remote_aggregation_groups():
    fabric = parse_spec("fattree:k=4")
    dead = link_id(fabric.find_link("c1", "a7"))  # core c1's link into pod 3
    hops = compute_next_hops(fabric, {dead})
    h16 = "10.0.3.4"
    assert hops["a1"][h16] == {4}  # a1 must not send pod-3 traffic to c1 any more
    assert hops["a3"][h16] == {4}
    assert hops["e1"][h16] == {3, 4}  # a1 still reaches pod 3 through c2
    assert hops["c2"][h16] == {4}
    # c1 now reaches pod 3 only the long way, through another pod
    assert len(hops["c1"][h16]) == 3
    # the destination pod's own aggregation switch a7 now uses c2 only for other pods
    assert hops["a7"]["10.0.0.1"] == {4}
    unaffected = compute_next_hops(fabric)
    assert hops["a2"] == unaffected["a2"]


def test_paths_between_hosts():
    fabric = parse_spec("fattree:k=4")
    hops = compute_next_hops(fabric)
    inter_pod = enumerate_paths(fabric, hops, "10.0.0.1", "10.0.3.4")
    assert len(inter_pod) == 4
    assert {p[2].switch for p in inter_pod} == {"c1", "c2", "c3", "c4"}
    assert all(len(p) == 5 for p in inter_pod)
    assert len(enumerate_paths(fabric, hops, "10.0.0.1", "10.0.0.3")) == 2
    same_edge = enumerate_paths(fabric, hops, "10.0.0.1", "10.0.0.2")
    assert [(h.switch, h.in_port, h.out_port) for h in same_edge[0]] == [("e1", 1, 2)]
    dead = link_id(fabric.find_link("c1", "a7"))
    assert len(enumerate_paths(fabric, compute_next_hops(fabric, {dead}),
                               "10.0.0.1", "10.0.3.4")) == 3


def test_leafspine_and_multiplane():
    fabric = parse_spec("leafspine:leaves=3,spines=4,hosts=1")
    hops = compute_next_hops(fabric)
    assert hops["l1"]["10.0.2.1"] == {2, 3, 4, 5}
    assert hops["s2"]["10.0.2.1"] == {3}
    multi = parse_spec("multiplane:planes=2,base=leafspine:leaves=2,spines=2,hosts=1")
    hops = compute_next_hops(multi)
    assert "10.1.1.1" not in hops["p0l1"]  # planes are separate fabrics
    assert hops["p1l1"]["10.1.1.1"] == {2, 3}
    assert hops["p0l1"]["10.0.1.1"] == {2, 3}


def test_partition_leaves_no_route():
    fabric = parse_spec("leafspine:leaves=2,spines=1,hosts=1")
    dead = link_id(fabric.find_link("l2", "s1"))
    hops = compute_next_hops(fabric, {dead})
    assert "10.0.1.1" not in hops["l1"]
    assert hops["l2"]["10.0.1.1"] == {1}


def test_source_routes_name_each_hops_egress_port():
    fabric = parse_spec("fattree:k=4")
    routes = SourceRoutes(fabric).routes("10.0.0.1", "10.0.3.4")
    # e1 up to a1 (3) or a2 (4); each aggregation switch up to its two cores (3, 4); the
    # core down to pod 3 (4); a7/a8 down to e8 (2); e8 to the host (2)
    assert sorted(routes) == [(3, 3, 4, 2, 2), (3, 4, 4, 2, 2), (4, 3, 4, 2, 2),
                              (4, 4, 4, 2, 2)]
    dead = link_id(fabric.find_link("c1", "a7"))
    assert (3, 3, 4, 2, 2) not in SourceRoutes(fabric, {dead}).routes("10.0.0.1", "10.0.3.4")


def _parallel_pair():
    """l1 and l2 joined by two parallel links (ports 1 and 2 on both), one host on each."""
    fabric = Fabric(spec="hand-built")
    for name in ("l1", "l2"):
        fabric.add_switch(name, "leaf", 0, None, 50000, 9090)
    fabric.connect_switches("l1", "l2", LinkParams())
    fabric.connect_switches("l1", "l2", LinkParams())
    for group, switch in ((0, "l1"), (1, "l2")):
        fabric.add_host(f"h{group}", group, 1)
        fabric.attach_host(f"h{group}", switch, 0, LinkParams())
    return fabric


def test_parallel_links_are_all_next_hops_and_all_routes():
    fabric = _parallel_pair()
    hops = compute_next_hops(fabric)
    assert hops["l1"]["10.0.1.1"] == {1, 2}
    assert hops["l2"]["10.0.0.1"] == {1, 2}
    assert SourceRoutes(fabric).routes("10.0.0.1", "10.0.1.1") == [(1, 3), (2, 3)]
    one_down = {link_id(fabric.links[0])}
    assert compute_next_hops(fabric, one_down)["l1"]["10.0.1.1"] == {2}
    assert SourceRoutes(fabric, one_down).routes("10.0.0.1", "10.0.1.1") == [(2, 3)]


@pytest.mark.parametrize("spec", ["fattree:k=4", "leafspine:leaves=3,spines=4,hosts=2",
                                  "multiplane:planes=2,base=fattree:k=4"])
def test_source_routes_are_the_controllers_paths_in_spread_order(spec):
    """SourceRoutes searches the graph once per pair of switches and keeps what it found; it
    must give what walking the controller's next hops gives for every pair of hosts, under
    failures too, in spread order."""
    fabric = parse_spec(spec)
    links = [link_id(lk) for lk in fabric.fabric_links()]
    ips = [nic.ip for host in fabric.hosts.values() for nic in host.nics]
    for down in (set(), set(links[::3]), set(links[:5])):
        hops = compute_next_hops(fabric, down)
        table = SourceRoutes(fabric, down)
        for src in ips[:3] + ips[-2:]:
            for dst in ips:
                walked = [tuple(h.out_port for h in path)
                          for path in enumerate_paths(fabric, hops, src, dst)]
                assert table.routes(src, dst) == spread_order(walked), \
                    (src, dst, down)


def test_source_routes_to_an_unreachable_or_unknown_host_are_empty():
    fabric = parse_spec("leafspine:leaves=2,spines=1,hosts=1")
    dead = {link_id(fabric.find_link("l2", "s1"))}
    assert SourceRoutes(fabric, dead).routes("10.0.0.1", "10.0.1.1") == []
    assert SourceRoutes(fabric).routes("10.0.0.1", "10.9.9.9") == []
    with pytest.raises(KeyError):
        SourceRoutes(fabric).routes("10.9.9.9", "10.0.1.1")


def test_consecutive_source_routes_leave_by_different_uplinks():
    """A sender takes its routes in turn: in ascending order it sent 3 packets in a row up
    one uplink at k=6 (and 9 from an edge switch's three hosts); spread, never 2."""
    fabric = parse_spec("fattree:k=6")
    src, dst = fabric.hosts["h1"].nics[0].ip, fabric.hosts["h54"].nics[0].ip
    routes = SourceRoutes(fabric).routes(src, dst)
    assert len(routes) == 9 and sorted(routes) == sorted(set(routes))
    first_hops = [r[0] for r in routes]
    assert all(a != b for a, b in zip(first_hops, first_hops[1:], strict=False))
    assert sorted(first_hops) == [4, 4, 4, 5, 5, 5, 6, 6, 6]
    assert routes != sorted(routes)
