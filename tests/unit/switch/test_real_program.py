"""The P4Runtime server with the real compiler and v1model pipeline (no ports, no root).

tests/p4/switch/l3_qdepth.p4 is compiled by p4emu; p4runtime-shell pushes it, writes an
entry and a register, and packets are injected on switch ports in-process: a PacketOut
leaves through the pipeline's egress (counted by the program's counter), a non-IPv4
frame comes back as a PacketIn with its ingress port.
"""

from __future__ import annotations

import time
from pathlib import Path

import p4runtime_sh.shell as sh
import pytest
from google.protobuf import text_format
from p4.v1 import p4runtime_pb2

from p4emu.frontend import compile_file
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.grpc_server import serve
from p4emu.switch.ports import PortSet
from p4emu.switch.program import ir_loader
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

PROGRAM = Path(__file__).resolve().parents[2] / "p4" / "switch" / "l3_qdepth.p4"
CPU_PORT = 255


@pytest.fixture
def real_switch(tmp_path):
    result = compile_file(str(PROGRAM))
    p4info_path = tmp_path / "l3.p4info.txtpb"
    p4info_path.write_text(text_format.MessageToString(result.p4info))
    ir_path = tmp_path / "l3.json"
    ir_path.write_bytes(result.ir)
    core = SwitchCore(device_id=2, cpu_port=CPU_PORT)
    tm = TrafficManager(core, PortSet(), QueueSettings())
    server, service, port = serve(core, ir_loader(CPU_PORT), "127.0.0.1:0")
    loop = DataplaneLoop([tm])
    loop.start()
    sh.setup(device_id=2, grpc_addr=f"127.0.0.1:{port}", election_id=(0, 1),
             config=sh.FwdPipeConfig(str(p4info_path), str(ir_path)), verbose=False)
    try:
        yield core, tm
    finally:
        sh.teardown()
        server.stop(grace=0)
        service.stop()
        loop.stop()


def tx_count(port: int) -> int:
    entry = sh.CounterEntry("MyEgress.tx_count")
    entry.index = port
    return next(iter(entry.read())).packet_count


def wait_for(predicate, timeout: float = 3.0) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline and not predicate():
        time.sleep(0.01)
    return predicate()


def test_entries_packet_out_packet_in_and_registers_on_the_real_pipeline(real_switch):
    core, tm = real_switch
    te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
    te.match["hdr.ipv4.dstAddr"] = "10.0.2.0/24"
    te.action["dstAddr"] = "00:00:00:00:00:02"
    te.action["srcAddr"] = "00:00:00:00:02:fe"
    te.action["port"] = "2"
    te.insert()
    assert [e.action["port"].value for e in sh.TableEntry("MyIngress.ipv4_lpm").read()] == \
        [b"\x02"]
    # PacketOut: the packet_out header picks egress port 7; egress counts it there
    pin = sh.PacketIn()
    pkt = sh.PacketOut()
    pkt.payload = bytes.fromhex("000000000002 000000000001 0800") + bytes(20)
    pkt.metadata["egress_port"] = "7"
    pkt.send()
    assert wait_for(lambda: tx_count(7) == 1)
    # a non-IPv4 frame from port 3 goes to the CPU with its ingress port
    core.inject(3, bytes.fromhex("ffffffffffff 000000000001 88cc") + b"lldp-ish")
    msgs = list(pin.sniff(timeout=2))
    assert len(msgs) == 1
    md = {m.metadata_id: m.value for m in msgs[0].packet.metadata}
    assert md[1] == b"\x03"
    assert msgs[0].packet.payload.endswith(b"lldp-ish")
    # an IPv4 packet hits the LPM entry and is counted on port 2 with enq_qdepth recorded
    ipv4 = (bytes.fromhex("000000000001 000000000009 0800 4500001c 00000000 4011 0000"
                          "0a000101 0a000202") + bytes(8))
    core.inject(1, ipv4)
    assert wait_for(lambda: tx_count(2) == 1)
    # p4runtime-shell has no register class: a raw read through its client
    register_id = next(r.preamble.id for r in sh.context.p4info.registers
                       if r.preamble.name == "MyEgress.last_qdepth")
    entity = p4runtime_pb2.Entity()
    entity.register_entry.register_id = register_id
    entity.register_entry.index.index = 2
    reply = [e for r in sh.client.read_one(entity) for e in r.entities]
    assert reply[0].register_entry.data.bitstring == b"\x00"  # the queue was empty


def test_multicast_and_clone_entries_through_the_shell(real_switch):
    core, _ = real_switch
    sh.MulticastGroupEntry(1).add(1, 1).add(2, 1).insert()
    sh.CloneSessionEntry(5).add(CPU_PORT, 0).insert()
    groups = list(sh.MulticastGroupEntry(1).read())
    assert sorted((r.egress_port, r.instance) for r in groups[0].replicas) == [(1, 1), (2, 1)]
    assert core.program.state.pre.clone_targets(5) == [(0, CPU_PORT)]
