"""p4runtime-shell, a real P4Runtime client, drives the server through its public API."""

from __future__ import annotations

import time

import p4runtime_sh.shell as sh
import pytest
from p4runtime_sh.p4runtime import P4RuntimeWriteException

from .fake_program import CPU_PORT


@pytest.fixture
def shell(switch, config_files):
    sh.setup(device_id=1, grpc_addr=switch.addr, election_id=(0, 1),
             config=sh.FwdPipeConfig(*config_files), verbose=False)
    try:
        yield sh
    finally:
        sh.teardown()


def test_pipeline_pushed_and_p4info_read_back(shell, switch):
    assert switch.core.program is not None
    assert switch.core.program.info.tables
    assert sh.client.get_p4info().tables[0].preamble.name.startswith("MyIngress.")


def test_insert_and_read_lpm_entry(shell, switch):
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.1.0/24"
    te.action["dstAddr"] = "00:00:00:00:01:01"
    te.action["port"] = "1"
    te.insert()
    read = list(sh.TableEntry("MyIngress.ipv4_lpm").read())
    assert len(read) == 1
    assert read[0].match["hdr.ipv4.dstAddr"].lpm.prefix_len == 24
    assert read[0].action["port"].value == b"\x01"
    # the same entry again is ALREADY_EXISTS, reported per update
    with pytest.raises(P4RuntimeWriteException, match="ALREADY_EXISTS"):
        te.insert()


def test_ternary_entry_needs_priority(shell):
    te = sh.TableEntry("MyIngress.acl")(action="MyIngress.drop")
    te.match["hdr.ethernet.etherType"] = "0x0800&&&0xffff"
    with pytest.raises(P4RuntimeWriteException, match="INVALID_ARGUMENT"):
        te.insert()
    te.priority = 10
    te.insert()
    assert [e.priority for e in sh.TableEntry("MyIngress.acl").read()] == [10]


def test_packet_out_reaches_pipeline_and_packet_in_comes_back(shell, switch):
    pin = sh.PacketIn()
    pkt = sh.PacketOut()
    pkt.payload = b"\xff" * 14 + b"probe"
    pkt.metadata["egress_port"] = "3"
    pkt.send()
    pipeline = switch.core.program.pipeline
    deadline = time.time() + 2
    while time.time() < deadline and not pipeline.received:
        time.sleep(0.01)
    assert pipeline.received[0] == (CPU_PORT, (3 << 7).to_bytes(2, "big") + pkt.payload)
    switch.core.inject(4, b"\x01" * 14 + b"from-port-4")
    msgs = list(pin.sniff(timeout=2))
    assert msgs, "no PacketIn arrived"
    packet = msgs[0].packet
    assert packet.payload == b"\x01" * 14 + b"from-port-4"
    md = {m.metadata_id: m.value for m in packet.metadata}
    assert md == {1: b"\x04", 2: b"\x00"}


def test_shell_counter_data_default_entry_and_groups(shell):
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.2.0/24"
    te.action["dstAddr"] = "00:00:00:00:02:02"
    te.action["port"] = "2"
    te.insert()
    plain = list(sh.TableEntry("MyIngress.ipv4_lpm").read())
    assert plain[0]._counter_data is None  # not asked for, not sent
    query = sh.TableEntry("MyIngress.ipv4_lpm")
    _ = query.counter_data  # touching it asks the server for the direct counter
    assert list(query.read())[0].counter_data.packet_count == 0
    default = sh.TableEntry("MyIngress.ipv4_lpm")(is_default=True)
    default.action = sh.Action("NoAction")
    default.modify()
    got = list(sh.TableEntry("MyIngress.ipv4_lpm")(is_default=True).read())
    assert got[0].is_default and got[0].action.action_name == "NoAction"
    member = sh.ActionProfileMember("MyIngress.ecmp_selector")(
        member_id=1, action="MyIngress.set_nhop")
    member.action["port"] = "3"
    member.insert()
    group = sh.ActionProfileGroup("MyIngress.ecmp_selector")(group_id=1)
    group.add(1, weight=1)
    group.insert()
    missing = sh.ActionProfileGroup("MyIngress.ecmp_selector")(group_id=2)
    missing.add(9, weight=1)
    with pytest.raises(P4RuntimeWriteException, match="NOT_FOUND"):
        missing.insert()
    with pytest.raises(P4RuntimeWriteException, match="FAILED_PRECONDITION"):
        member.delete()
