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
