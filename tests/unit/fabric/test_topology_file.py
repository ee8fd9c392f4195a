"""build/topology.json round trip and error reporting."""

from __future__ import annotations

import json

import pytest

from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile, read_topology, to_dict, write_topology


def test_round_trip_preserves_everything(tmp_path):
    fabric = parse_spec("multiplane:planes=2,base=leafspine:leaves=2,spines=2,hosts=2,delay=2ms")
    doc = TopologyFile(fabric=fabric, target="p4emu", p4info="build/mrc.p4info.txtpb",
                       device_config="build/mrc.json")
    path = tmp_path / "topology.json"
    write_topology(path, doc)
    back = read_topology(path)
    assert to_dict(back) == to_dict(doc)
    assert back.fabric.switches["p1l2"].ports == fabric.switches["p1l2"].ports
    assert back.fabric.hosts["h3"].nics == fabric.hosts["h3"].nics


def test_document_fields(tmp_path):
    doc = TopologyFile(fabric=parse_spec("fattree:k=4"), target="bmv2")
    data = to_dict(doc)
    assert data["cpu_port"] == 255 and data["target"] == "bmv2"
    e1 = next(s for s in data["switches"] if s["name"] == "e1")
    assert e1["grpc_address"].startswith("127.0.0.1:")
    assert e1["ports"][0] == {"port": 1, "interface": "e1-eth1",
                              "peer": {"node": "h1", "port": 0}}
    h1 = next(h for h in data["hosts"] if h["name"] == "h1")
    assert h1["nics"][0]["name"] == "h1-eth0"
    assert h1["nics"][0]["switch"] == "e1"


def test_bad_documents(tmp_path):
    path = tmp_path / "t.json"
    with pytest.raises(ValueError, match="cannot read"):
        read_topology(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        read_topology(path)
    path.write_text(json.dumps({"version": 1, "spec": "x"}))
    with pytest.raises(ValueError, match="missing or bad field"):
        read_topology(path)
    path.write_text(json.dumps({"version": 7}))
    with pytest.raises(ValueError, match="unsupported topology version"):
        read_topology(path)


def test_interface_tag_survives_the_round_trip(tmp_path):
    from mrclab.fabric.generators import PortBases

    fabric = parse_spec("fattree:k=2", PortBases(grpc=51100, thrift=10100))
    write_topology(tmp_path / "t.json", TopologyFile(fabric=fabric, target="p4emu"))
    back = read_topology(tmp_path / "t.json")
    assert back.fabric.switches["c1"].interface(2) == fabric.switches["c1"].interface(2)
    assert back.fabric.switches["c1"].interface(2) != "c1-eth2"
