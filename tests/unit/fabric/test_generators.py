"""Topology generators and spec parsing (pure, no Mininet)."""

from __future__ import annotations

import pytest

from mrclab.fabric.generators import fattree, leafspine
from mrclab.fabric.model import Fabric, LinkParams
from mrclab.fabric.spec import parse_spec


def _check_consistent(fabric):
    """Every port's peer points back; every link appears in both port maps."""
    for sw in fabric.switches.values():
        for port, peer in sw.ports.items():
            if peer.node in fabric.switches:
                back = fabric.switches[peer.node].ports[peer.port]
                assert (back.node, back.port) == (sw.name, port)
            else:
                nic = fabric.hosts[peer.node].nics[peer.port]
                assert (nic.switch, nic.switch_port) == (sw.name, port)
    ips = [nic.ip for h in fabric.hosts.values() for nic in h.nics]
    macs = [nic.mac for h in fabric.hosts.values() for nic in h.nics]
    assert len(set(ips)) == len(ips)
    assert len(set(macs)) == len(macs)
    ids = [sw.device_id for sw in fabric.switches.values()]
    assert len(set(ids)) == len(ids)
    grpc = [sw.grpc_port for sw in fabric.switches.values()]
    assert len(set(grpc)) == len(grpc)


@pytest.mark.parametrize("k,switches,hosts,links", [(2, 5, 2, 6), (4, 20, 16, 48),
                                                     (6, 45, 54, 162)])
def test_fattree_sizes(k, switches, hosts, links):
    fabric = fattree(k)
    assert len(fabric.switches) == switches
    assert len(fabric.hosts) == hosts
    assert len(fabric.links) == links
    roles = [sw.role for sw in fabric.switches.values()]
    assert roles.count("core") == (k // 2) ** 2
    assert roles.count("agg") == roles.count("edge") == k * k // 2
    _check_consistent(fabric)


def test_fattree_k4_port_conventions():
    fabric = fattree(4)
    e1, a1, c1 = (fabric.switches[n] for n in ("e1", "a1", "c1"))
    assert [e1.ports[p].node for p in (1, 2, 3, 4)] == ["h1", "h2", "a1", "a2"]
    assert [a1.ports[p].node for p in (1, 2, 3, 4)] == ["e1", "e2", "c1", "c2"]
    assert [c1.ports[p].node for p in (1, 2, 3, 4)] == ["a1", "a3", "a5", "a7"]
    # core c3 serves the second aggregation switch of each pod
    assert [fabric.switches["c3"].ports[p].node for p in (1, 2, 3, 4)] == ["a2", "a4", "a6", "a8"]
    h16 = fabric.hosts["h16"].nics[0]
    assert (h16.ip, h16.prefix_len, h16.switch, h16.switch_port) == ("10.0.3.4", 8, "e8", 2)
    assert h16.mac == "02:00:0a:00:03:04"


def test_leafspine_sizes_and_ports():
    fabric = leafspine(4, 2, 3)
    assert len(fabric.switches) == 6
    assert len(fabric.hosts) == 12
    assert len(fabric.fabric_links()) == 8
    l2 = fabric.switches["l2"]
    assert [l2.ports[p].node for p in range(1, 6)] == ["h4", "h5", "h6", "s1", "s2"]
    assert fabric.hosts["h4"].nics[0].ip == "10.0.1.1"
    _check_consistent(fabric)


def test_multiplane_gives_each_host_one_nic_per_plane():
    fabric = parse_spec("multiplane:planes=2,base=fattree:k=4,bw=10")
    assert len(fabric.switches) == 40
    assert len(fabric.hosts) == 16
    nics = fabric.hosts["h1"].nics
    assert [(n.plane, n.ip, n.prefix_len, n.switch) for n in nics] == [
        (0, "10.0.0.1", 16, "p0e1"), (1, "10.1.0.1", 16, "p1e1")]
    assert all(lk.params.bw_mbps == 10 for lk in fabric.links)
    assert fabric.spec == "multiplane:planes=2,base=fattree:k=4,bw=10"
    _check_consistent(fabric)


def test_spec_link_options():
    fabric = parse_spec("leafspine:leaves=2,spines=2,hosts=1,bw=100,delay=1ms,loss=0.5")
    assert fabric.links[0].params == LinkParams(100.0, "1ms", 0.5)
    assert LinkParams(100.0, "1ms", 0.5).as_tclink_kwargs() == {"bw": 100.0, "delay": "1ms",
                                                                 "loss": 0.5}


@pytest.mark.parametrize("spec,message", [
    ("fattree:k=3", "even"),
    ("fattree:k=0", "even"),
    ("fattree", "missing k="),
    ("fattree:k=four", "not an integer"),
    ("torus:n=4", "unknown topology 'torus'"),
    ("leafspine:leaves=2,spines=1,hosts=0", "hosts=0"),
    ("leafspine:leaves=0,spines=1", "leaves=0"),
    ("leafspine:leaves=2,spines=0", "spines=0"),
    ("fattree:k=4,color=red", "unknown option 'color'"),
    ("fattree:k=4,bw=-1", "bw=-1"),
    ("fattree:k=4,delay=soon", "delay='soon'"),
    ("fattree:k=4,k=6", "twice"),
    ("multiplane:planes=0,base=fattree:k=4", "planes=0"),
    ("multiplane:planes=2", "base="),
    ("multiplane:planes=2,base=multiplane:planes=2,base=fattree:k=2", "nested"),
])
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(ValueError) as info:
        parse_spec(spec)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_interface_names_differ_between_labs_on_different_ports():
    from mrclab.fabric.generators import PortBases, interface_tag

    default = parse_spec("fattree:k=4")
    assert default.switches["c1"].interface(1) == "c1-eth1"
    other = parse_spec("fattree:k=4", PortBases(grpc=51100, thrift=10100))
    third = parse_spec("fattree:k=4", PortBases(grpc=52100, thrift=11100))
    names = {sw.interface(p) for sw in other.switches.values() for p in sw.ports}
    assert other.switches["c1"].interface(1) == f"c1-{interface_tag(PortBases(51100, 0))}1"
    assert names.isdisjoint({sw.interface(p) for sw in third.switches.values()
                             for p in sw.ports})
    big = parse_spec("multiplane:planes=16,base=fattree:k=8", PortBases(grpc=59900, thrift=1))
    assert max(len(sw.interface(p)) for sw in big.switches.values() for p in sw.ports) <= 15


@pytest.mark.parametrize("spec, hops", [("fattree:k=4", 5),
                                        ("multiplane:planes=2,base=fattree:k=4", 5),
                                        ("leafspine:spines=2,leaves=3,hosts=2", 3),
                                        ("leafspine:spines=2,leaves=1,hosts=2", 1)])
def test_max_switch_hops_counts_the_queues_of_the_longest_path(spec, hops):
    assert parse_spec(spec).max_switch_hops() == hops


def test_max_switch_hops_ignores_switches_without_hosts_and_other_planes():
    # s1 - s2 - s3 - s4 in a line, hosts on s1 and s3 only; s5 apart with a host of its own
    fabric = Fabric(spec="hand-built")
    assert fabric.max_switch_hops() == 0  # no hosts
    for name in ("s1", "s2", "s3", "s4", "s5"):
        fabric.add_switch(name, "leaf", 0, None, 50000, 9090)
    for a, b in (("s1", "s2"), ("s2", "s3"), ("s3", "s4")):
        fabric.connect_switches(a, b, LinkParams())
    for group, switch in ((0, "s1"), (1, "s3"), (2, "s5")):
        fabric.add_host(f"h{group}", group, 1)
        fabric.attach_host(f"h{group}", switch, 0, LinkParams())
    assert fabric.max_switch_hops() == 3
