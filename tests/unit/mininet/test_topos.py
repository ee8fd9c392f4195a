"""The Mininet Topo classes carry the fabric model's nodes, ports and addresses."""

from __future__ import annotations

from mrclab.fabric.spec import parse_spec
from mrclab.mininet.topos import FatTreeTopo, LeafSpineTopo, MultiPlaneTopo, switches, topos

SPEC = "leafspine:leaves=2,spines=2,hosts=2"


def test_topo_classes_describe_the_model():
    """Without starting anything: nodes, ports and addresses are the model's."""
    fat = FatTreeTopo(k=4)
    assert len(fat.switches()) == 20 and len(fat.hosts()) == 16 and len(fat.links()) == 48
    leaf = LeafSpineTopo(leaves=2, spines=2, hosts=2)
    fabric = parse_spec(SPEC)
    for link in fabric.links:
        info = leaf.linkInfo(link.a, link.b)
        assert (info["port1"], info["port2"]) == (link.a_port, link.b_port)
    host = fabric.hosts["h1"]
    assert leaf.nodeInfo("h1")["ip"] == f"{host.nics[0].ip}/{host.nics[0].prefix_len}"
    planes = MultiPlaneTopo(planes=2, base="leafspine:leaves=2,spines=1,hosts=1")
    nic_ips = {info["params2"]["ip"] for _, h, info in planes.links(withInfo=True)
               if h == "h1" and "params2" in info}
    nic_ips |= {info["params1"]["ip"] for h, _, info in planes.links(withInfo=True)
                if h == "h1" and "params1" in info}
    assert len(nic_ips) == 2  # one address per plane


def test_mn_custom_names():
    assert set(topos) == {"fattree", "leafspine", "multiplane"}
    assert topos["fattree"](4).switches() == FatTreeTopo(k=4).switches()
    assert switches["p4"].__name__ == "P4Switch"
