"""The data-plane loop in C (`EventLoop`) and a compiled traffic manager doing its ports'
I/O in C, against the Python loop and traffic manager: the same frames out, the same
counters, PacketOut and PacketIn, on a real program behind P4Runtime. Ports are plain
`PortSet` ports on socket pairs, so no root is needed."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import p4runtime_sh.shell as sh
import pytest
from google.protobuf import text_format

from p4emu.frontend import compile_file
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.grpc_server import serve
from p4emu.switch.native_traffic_manager import NativeTrafficManager, traffic_manager_class
from p4emu.switch.ports import MAX_FRAME, Port, PortSet
from p4emu.switch.program import ir_loader
from p4emu.switch.traffic_manager import QueueSettings

PROGRAM = Path(__file__).resolve().parents[2] / "p4" / "switch" / "l3_qdepth.p4"
CPU_PORT = 255
ROUTES = {1: "10.0.1.0/24", 2: "10.0.2.0/24"}


def ipv4(dst_last: int, seq: int) -> bytes:
    return (bytes.fromhex("000000000001 000000000009 0800 4500001c 00000000 4011 0000"
                          f"0a000101 0a0002{dst_last:02x}") + seq.to_bytes(8, "big"))


@pytest.fixture(params=[("native", True), ("native", False), ("python", True),
                        ("python", False)], ids=lambda p: f"tm-{p[0]}-loop-{'c' if p[1] else 'py'}")
def switch(request, tmp_path):
    choice, native_loop = request.param
    result = compile_file(str(PROGRAM))
    p4info_path, ir_path = tmp_path / "l3.p4info.txtpb", tmp_path / "l3.json"
    p4info_path.write_text(text_format.MessageToString(result.p4info))
    ir_path.write_bytes(result.ir)
    core = SwitchCore(device_id=2, cpu_port=CPU_PORT)
    ports, far = PortSet(), {}
    for number in (1, 2):
        near, far[number] = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        near.setblocking(False)
        far[number].settimeout(2)
        ports.ports[number] = Port(number, f"sp{number}", near)
    tm = traffic_manager_class(choice)(core, ports, QueueSettings(depth=512))
    server, service, port = serve(core, ir_loader(CPU_PORT), "127.0.0.1:0")
    loop = DataplaneLoop([tm], native=native_loop)
    loop.start()
    sh.setup(device_id=2, grpc_addr=f"127.0.0.1:{port}", election_id=(0, 1),
             config=sh.FwdPipeConfig(str(p4info_path), str(ir_path)), verbose=False)
    try:
        for out, prefix in ROUTES.items():
            te = sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
            te.match["hdr.ipv4.dstAddr"] = prefix
            te.action["dstAddr"] = f"00:00:00:00:00:0{out}"
            te.action["srcAddr"] = f"00:00:00:00:0{out}:fe"
            te.action["port"] = str(out)
            te.insert()
        yield core, tm, ports, far, loop
    finally:
        sh.teardown()
        server.stop(grace=0)
        service.stop()
        loop.stop()
        ports.close()
        for sock in far.values():
            sock.close()


def test_the_loop_and_port_io_forward_count_and_reach_the_cpu(switch):
    core, tm, ports, far, loop = switch
    if isinstance(tm, NativeTrafficManager):
        with core.lock:  # the compiled pipeline and plain sockets: I/O in C
            assert tm.fast_path() is not None
    # bursts of 8: a socket pair queues at most net.unix.max_dgram_qlen (10) datagrams
    burst = [ipv4(2, seq) for seq in range(300)]
    got = []
    for at in range(0, len(burst), 8):
        for frame in burst[at:at + 8]:
            far[1].send(frame)
        got += [far[2].recv(MAX_FRAME) for _ in burst[at:at + 8]]
    # routed in order, MACs rewritten, TTL decremented: the payload is what was sent
    assert [g[14 + 20:] for g in got] == [f[14 + 20:] for f in burst]
    assert {g[:12] for g in got} == {bytes.fromhex("000000000002 0000000002fe")}
    assert all(g[22] == f[22] - 1 for g, f in zip(got, burst, strict=True))
    # a runt is dropped and counted, the port goes on
    far[1].send(b"\x00" * 10)
    far[1].send(ipv4(2, 999))
    assert far[2].recv(MAX_FRAME).endswith((999).to_bytes(8, "big"))
    s1, s2 = ports.ports[1].stats, ports.ports[2].stats
    deadline = time.monotonic() + 2  # the frame can arrive before send() returns
    while s2.tx_packets < 301 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert (s1.rx_packets, s1.rx_dropped, s2.tx_packets) == (301, 1, 301)
    assert s1.rx_bytes == sum(map(len, burst)) + len(ipv4(2, 999))
    assert s2.tx_bytes == s1.rx_bytes
    # PacketOut to port 1 (the loop's wake-up), PacketIn of a non-IPv4 frame from port 2
    pin = sh.PacketIn()
    pkt = sh.PacketOut()
    pkt.payload = bytes.fromhex("000000000001 000000000002 0800") + bytes(20)
    pkt.metadata["egress_port"] = "1"
    pkt.send()
    out = far[1].recv(MAX_FRAME)  # (egress rewrites the IPv4 checksum)
    assert out[:14] == pkt.payload[:14] and len(out) == len(pkt.payload)
    far[2].send(bytes.fromhex("ffffffffffff 000000000001 88cc") + b"lldp-ish")
    msgs = list(pin.sniff(timeout=2))
    assert len(msgs) == 1 and msgs[0].packet.payload.endswith(b"lldp-ish")
    assert {m.metadata_id: m.value for m in msgs[0].packet.metadata}[1] == b"\x02"


def test_a_shaped_port_releases_frames_at_its_line_rate(switch):
    core, tm, ports, far, loop = switch
    tm.set_line_rate(8 * 100 * len(ipv4(2, 0)))  # 100 frames a second: 10 ms apart
    start = time.monotonic()
    for seq in range(5):
        far[1].send(ipv4(2, seq))
    arrivals = []
    for _ in range(5):
        far[2].recv(MAX_FRAME)
        arrivals.append(time.monotonic() - start)
    # frame i leaves 10 ms after frame i-1 began, which was after `start`: never sooner
    # (measured from `start`, as a late reader can shorten a gap between two arrivals)
    assert all(t >= 0.010 * i - 0.001 for i, t in enumerate(arrivals)), arrivals
    assert arrivals[-1] < 0.1, arrivals
