"""p4emu switch between network namespaces: real AF_PACKET ports, queues, P4Runtime.

Each host namespace (h1, h2, h3) has one veth into the root namespace, whose other end
is a switch port. Names carry the test's pid and a counter, and the namespaces (with
their veths) are removed in a finally block, also when a test fails.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.pcap import PortPcaps
from p4emu.switch.port_oper_state import PortOperState
from p4emu.switch.ports import PortSet
from p4emu.switch.queues import DropReason
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

from . import waiting

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces"),
]

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
_counter = itertools.count()


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=60)


def in_ns(ns: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return sh("ip", "netns", "exec", ns, *cmd, check=check)


@dataclass
class Hosts:
    """Host namespaces and, index for index, their switch-side veth names."""

    tag: str
    namespaces: list[str]
    switch_ifaces: list[str]

    h1 = property(lambda self: self.namespaces[0])
    h2 = property(lambda self: self.namespaces[1])
    h3 = property(lambda self: self.namespaces[2])
    sw1 = property(lambda self: self.switch_ifaces[0])
    sw2 = property(lambda self: self.switch_ifaces[1])
    sw3 = property(lambda self: self.switch_ifaces[2])


def _quiet(iface: str, ns: str | None = None) -> None:
    """No offloads (a user-space switch must see real checksums and frames) and no IPv6
    chatter on the link."""
    prefix = ("ip", "netns", "exec", ns) if ns else ()
    sh(*prefix, "ethtool", "-K", iface, "tx", "off", "rx", "off", "tso", "off", "gso", "off",
       "gro", "off", check=False)
    sh(*prefix, "sysctl", "-q", "-w", f"net.ipv6.conf.{iface}.disable_ipv6=1", check=False)


def _build(topo: Hosts, specs: list[tuple[str, str]]) -> None:
    """specs: per host, in order, (address/prefix, MAC)."""
    for ns, sw, (addr, mac) in zip(topo.namespaces, topo.switch_ifaces, specs, strict=True):
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", sw, "type", "veth", "peer", "name", "eth0", "netns", ns)
        in_ns(ns, "ip", "link", "set", "eth0", "address", mac)
        in_ns(ns, "ip", "addr", "add", addr, "dev", "eth0")
        in_ns(ns, "ip", "link", "set", "lo", "up")
        _quiet("eth0", ns)
        _quiet(sw)
        in_ns(ns, "ip", "link", "set", "eth0", "up")
        sh("ip", "link", "set", sw, "up")


def _teardown(topo: Hosts) -> None:
    for ns in topo.namespaces:
        sh("ip", "netns", "del", ns, check=False)
    for sw in topo.switch_ifaces:
        sh("ip", "link", "del", sw, check=False)


def _names(count: int = 2) -> Hosts:
    tag = f"{os.getpid() % 100000}{next(_counter)}"
    return Hosts(tag, [f"p4h{i}-{tag}" for i in range(1, count + 1)],
                 [f"p4s{tag}{'abcd'[i]}" for i in range(count)])


@pytest.fixture
def hosts():
    """One subnet: the switch acts as a wire between h1 and h2."""
    topo = _names()
    try:
        _build(topo, [("10.0.0.1/24", "00:00:00:00:00:01"),
                      ("10.0.0.2/24", "00:00:00:00:00:02")])
        # static neighbours: the tests count packets, ARP would add noise
        in_ns(topo.h1, "ip", "neigh", "add", "10.0.0.2", "lladdr", "00:00:00:00:00:02",
              "dev", "eth0")
        in_ns(topo.h2, "ip", "neigh", "add", "10.0.0.1", "lladdr", "00:00:00:00:00:01",
              "dev", "eth0")
        yield topo
    finally:
        _teardown(topo)


@pytest.fixture
def l3_hosts():
    """Two subnets routed by the switch: h1 10.0.1.1/24, h2 10.0.2.2/24."""
    topo = _names()
    try:
        _build(topo, [("10.0.1.1/24", "00:00:00:00:00:01"),
                      ("10.0.2.2/24", "00:00:00:00:00:02")])
        for ns, subnet in ((topo.h1, 1), (topo.h2, 2)):
            gw = f"10.0.{subnet}.254"
            in_ns(ns, "ip", "neigh", "add", gw, "lladdr", f"00:00:00:00:0{subnet}:fe",
                  "dev", "eth0")
            in_ns(ns, "ip", "route", "add", "default", "via", gw)
        yield topo
    finally:
        _teardown(topo)


def udp_burst(ns: str, dst: str, count: int, size: int = 64, port: int = 4793) -> None:
    code = ("import socket,sys\n"
            "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
            f"for i in range({count}): s.sendto(bytes({size}), ('{dst}', {port}))\n")
    in_ns(ns, PYTHON, "-c", code)


def wait_for(predicate, timeout: float = 5.0) -> bool:
    """Polled often: the switch under test runs in this process."""
    return waiting.wait_for(predicate, timeout, step=0.02)


# --------------------------------------------------------------------- toy pipeline
@dataclass
class WireJob:
    port: int
    priority: int
    data: bytes


class WirePipeline:
    """A two-port wire that records the queue metadata egress sees."""

    def __init__(self) -> None:
        self.enq_qdepths: list[int] = []

    def ingress(self, port, data, now_us):
        if len(data) > 20 and data[12:14] == b"\x88\xb5":  # local experimental ethertype
            raise ValueError("malformed test frame")
        return [WireJob(2 if port == 1 else 1, 0, data)]

    def egress(self, job, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us):
        self.enq_qdepths.append(enq_qdepth)
        return [(job.port, job.data)]


class _Loaded:
    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline
        self.cookie = 0


@pytest.fixture
def wire_switch(hosts, tmp_path):
    core = SwitchCore(device_id=0)
    ports = PortSet()
    ports.add(1, hosts.sw1)
    ports.add(2, hosts.sw2)
    pcaps = PortPcaps(tmp_path)
    pcaps.add_port(1, hosts.sw1)
    pcaps.add_port(2, hosts.sw2)
    monitor = PortOperState({1: hosts.sw1, 2: hosts.sw2})
    core.port_up = monitor.is_up
    tm = TrafficManager(core, ports, QueueSettings(), pcaps)
    pipeline = WirePipeline()
    core.program = _Loaded(pipeline)  # type: ignore[assignment]
    loop = DataplaneLoop([tm])
    loop.start()
    monitor.start()
    try:
        yield core, ports, tm, pipeline, monitor, tmp_path
    finally:
        monitor.stop()
        loop.stop()
        ports.close()
        pcaps.close()


def test_ports_forward_ping_without_echo_and_write_pcaps(hosts, wire_switch):
    core, ports, tm, pipeline, monitor, pcap_dir = wire_switch
    result = in_ns(hosts.h1, "ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.0.2", check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    s1, s2 = ports.ports[1].stats, ports.ports[2].stats
    # 3 requests in on port 1, 3 replies in on port 2: our own transmissions are not heard
    assert (s1.rx_packets, s2.rx_packets) == (3, 3)
    assert (s1.tx_packets, s2.tx_packets) == (3, 3)
    from scapy.utils import rdpcap
    assert len(rdpcap(str(pcap_dir / f"{hosts.sw1}_in.pcap"))) == 3
    assert len(rdpcap(str(pcap_dir / f"{hosts.sw2}_out.pcap"))) == 3


def test_rate_limited_queue_builds_depth_then_tail_drops(hosts, wire_switch):
    core, ports, tm, pipeline, monitor, _ = wire_switch
    with core.lock:
        tm.set_rate(200, 2)
        tm.set_depth(20, 2)
    udp_burst(hosts.h1, "10.0.0.2", 60)
    assert wait_for(lambda: tm.queue(2).depth == 0 and ports.ports[2].stats.tx_packets >= 20,
                    timeout=5)
    assert max(pipeline.enq_qdepths) >= 15  # the queue really filled up
    assert tm.queue(2).drops[DropReason.QUEUE_FULL] >= 30
    sent = ports.ports[2].stats.tx_packets
    assert sent + tm.queue(2).drops[DropReason.QUEUE_FULL] == 60


def test_link_down_seen_and_bad_frames_dropped_while_forwarding_goes_on(hosts, wire_switch):
    core, ports, tm, pipeline, monitor, _ = wire_switch
    assert monitor.is_up(1) and monitor.is_up(2)
    sh("ip", "link", "set", hosts.sw2, "down")
    assert wait_for(lambda: not monitor.is_up(2), timeout=2)
    sh("ip", "link", "set", hosts.sw2, "up")
    assert wait_for(lambda: monitor.is_up(2), timeout=3)
    # an oversized frame (jumbo MTU on the link) and a frame the pipeline chokes on
    for iface, ns in ((hosts.sw1, None), ("eth0", hosts.h1)):
        prefix = ("ip", "netns", "exec", ns) if ns else ()
        sh(*prefix, "ip", "link", "set", iface, "mtu", "12000")
    code = ("import socket\n"
            "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\n"
            "s.bind(('eth0',0))\n"
            "s.send(b'\\xff'*6+b'\\x00'*5+b'\\x01'+b'\\x08\\x00'+bytes(10000))\n"
            "s.send(b'\\xff'*6+b'\\x00'*5+b'\\x01'+b'\\x88\\xb5'+bytes(50))\n")
    in_ns(hosts.h1, PYTHON, "-c", code)
    assert wait_for(lambda: ports.ports[1].stats.rx_dropped == 1)
    assert wait_for(lambda: tm.pipeline_errors == 1)
    udp_burst(hosts.h1, "10.0.0.2", 5)
    assert wait_for(lambda: ports.ports[2].stats.tx_packets >= 5)


# --------------------------------------------------------------------- real programs
P4_DIR = REPO / "tests" / "p4" / "switch"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def compile_config(program: str, tmp_path: Path) -> tuple[str, str]:
    """(P4Info path, IR path) of tests/p4/switch/<program>.p4, compiled by p4emu."""
    from google.protobuf import text_format

    from p4emu.frontend import compile_file

    result = compile_file(str(P4_DIR / f"{program}.p4"))
    p4info_path = tmp_path / f"{program}.p4info.txtpb"
    p4info_path.write_text(text_format.MessageToString(result.p4info))
    ir_path = tmp_path / f"{program}.json"
    ir_path.write_bytes(result.ir)
    return str(p4info_path), str(ir_path)


def cli(thrift_port: int, *command: str) -> str:
    proc = subprocess.run([PYTHON, "-m", "p4emu", "cli", "--thrift-port", str(thrift_port),
                           *command], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@contextlib.contextmanager
def switch_process(topo: Hosts, tmp_path: Path, traffic_manager: str = "auto"):
    """`python -m p4emu switch --no-p4` on the hosts' switch ports, as Mininet starts it;
    yields (process, gRPC port, thrift port, log file)."""
    import grpc

    grpc_port, thrift_port = _free_port(), _free_port()
    log_file = tmp_path / "switch.log"
    ifaces = [arg for i, sw in enumerate(topo.switch_ifaces, start=1)
              for arg in ("-i", f"{i}@{sw}")]
    proc = subprocess.Popen(
        [PYTHON, "-m", "p4emu", "switch", "--device-id", "1", *ifaces, "--thrift-port",
         str(thrift_port), "--log-file", str(log_file), "--no-p4", "--",
         "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port", "255",
         "--traffic-manager", traffic_manager],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        channel.close()
        yield proc, grpc_port, thrift_port, log_file
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# the compiled traffic manager does a port's I/O in C (recvmmsg, send, counters); the
# Python one is the reference
@pytest.fixture(params=["native", "python"])
def l3_switch(l3_hosts, tmp_path, request):
    config = compile_config("l3_qdepth", tmp_path)
    with switch_process(l3_hosts, tmp_path, request.param) as (proc, grpc_port, thrift_port,
                                                               log_file):
        yield proc, grpc_port, thrift_port, config, log_file


def _port_stats(thrift_port: int) -> dict[int, dict[str, int]]:
    lines = cli(thrift_port, "port_stats").splitlines()
    header = lines[0].split()
    assert header[0] == "port", lines
    rows = [line.split() for line in lines[1:] if line.split() and line.split()[0].isdigit()]
    return {int(row[0]): dict(zip(header[1:], map(int, row[1:]), strict=True)) for row in rows}


def test_l3_program_forwards_counts_and_reports_queue_depth(l3_hosts, l3_switch):
    import p4runtime_sh.shell as p4sh

    proc, grpc_port, thrift_port, (p4info_path, ir_path), log_file = l3_switch
    p4sh.setup(device_id=1, grpc_addr=f"127.0.0.1:{grpc_port}", election_id=(0, 1),
               config=p4sh.FwdPipeConfig(p4info_path, ir_path), verbose=False)
    try:
        for host, port, subnet in (("10.0.1.1", "1", 1), ("10.0.2.2", "2", 2)):
            te = p4sh.TableEntry("MyIngress.ipv4_lpm")(action="MyIngress.ipv4_forward")
            te.match["hdr.ipv4.dstAddr"] = f"{host}/32"
            te.action["dstAddr"] = f"00:00:00:00:00:0{subnet}"
            te.action["srcAddr"] = f"00:00:00:00:0{subnet}:fe"
            te.action["port"] = port
            te.insert()
        ping = in_ns(l3_hosts.h1, "ping", "-c", "3", "-i", "0.2", "-W", "2", "10.0.2.2",
                     check=False)
        assert ping.returncode == 0, ping.stdout + ping.stderr
        udp_burst(l3_hosts.h1, "10.0.2.2", 10)

        def tx_packets(port: int) -> int:
            entry = p4sh.CounterEntry("MyEgress.tx_count")
            entry.index = port
            return next(iter(entry.read())).packet_count

        wait_for(lambda: tx_packets(2) >= 13)
        assert tx_packets(2) == 13  # 3 echo requests + 10 datagrams
        assert tx_packets(1) >= 3  # 3 echo replies (and maybe ICMP port unreachables)
        # a slow queue on port 2 builds up, and egress sees it in enq_qdepth
        cli(thrift_port, "set_queue_rate", "100", "2")
        udp_burst(l3_hosts.h1, "10.0.2.2", 40)

        def max_qdepth() -> tuple[int, str]:
            out = cli(thrift_port, "register_read", "MyEgress.max_qdepth", "2")
            return int(out.strip().rsplit("=", 1)[1]), out

        assert wait_for(lambda: max_qdepth()[0] >= 20), max_qdepth()[1]
        stats = _port_stats(thrift_port)
        assert stats[1]["rx_pkts"] >= 53 and stats[2]["tx_pkts"] >= 13, stats
        assert stats[1]["rx_bytes"] >= 53 * 60 and stats[2]["tx_bytes"] >= 13 * 60, stats
        # every frame to port 2 is sent, dropped by its slow queue or still in it
        assert stats[2]["tx_pkts"] + stats[2]["q_drop"] + stats[2]["q_depth"] == 53, stats
        # runts and frames over 9216 bytes are dropped on receive and counted
        for iface, ns in ((l3_hosts.sw1, None), ("eth0", l3_hosts.h1)):
            prefix = ("ip", "netns", "exec", ns) if ns else ()
            sh(*prefix, "ip", "link", "set", iface, "mtu", "12000")
        in_ns(l3_hosts.h1, PYTHON, "-c",
              "import socket\n"
              "s=socket.socket(socket.AF_PACKET,socket.SOCK_RAW)\n"
              "s.bind(('eth0',0))\n"
              "s.send(b'\\xff'*6+b'\\x00'*5+b'\\x01'+b'\\x08\\x00'+bytes(10000))\n")
        assert wait_for(lambda: _port_stats(thrift_port)[1]["rx_drop"] == 1)
    finally:
        p4sh.teardown()
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    log = log_file.read_text()
    assert "pipeline set" in log
    assert "port 1 (" in log and "dropped oversized frame of 10014 bytes" in log, log


# --------------------------------------------------------------------- watch ports
@pytest.fixture
def three_hosts():
    """h1 sends to 10.0.9.9, which both h2 and h3 answer to: two paths."""
    topo = _names(3)
    try:
        _build(topo, [("10.0.9.1/24", "00:00:00:00:00:01"),
                      ("10.0.9.9/24", "00:00:00:00:00:02"),
                      ("10.0.9.9/24", "00:00:00:00:00:03")])
        in_ns(topo.h1, "ip", "neigh", "add", "10.0.9.9", "lladdr", "00:00:00:00:00:99",
              "dev", "eth0")
        yield topo
    finally:
        _teardown(topo)


def udp_flows(ns: str, dst: str, count: int) -> None:
    """One datagram from each of `count` source ports: many flows for the selector."""
    code = ("import socket\n"
            f"for i in range({count}):\n"
            "    s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
            "    s.bind(('',20000+i))\n"
            f"    s.sendto(bytes(20),('{dst}',4793))\n"
            "    s.close()\n")
    in_ns(ns, PYTHON, "-c", code)


def test_watch_port_group_skips_a_link_that_goes_down(three_hosts, tmp_path):
    import p4runtime_sh.shell as p4sh

    topo = three_hosts
    p4info_path, ir_path = compile_config("ecmp_watch", tmp_path)
    with switch_process(topo, tmp_path) as (proc, grpc_port, thrift_port, log_file):
        p4sh.setup(device_id=1, grpc_addr=f"127.0.0.1:{grpc_port}", election_id=(0, 1),
                   config=p4sh.FwdPipeConfig(p4info_path, ir_path), verbose=False)
        try:
            profile = "MyIngress.ecmp"
            for member_id, port in ((1, 2), (2, 3)):
                member = p4sh.ActionProfileMember(profile)(member_id=member_id,
                                                           action="MyIngress.set_nhop")
                member.action["dstAddr"] = f"00:00:00:00:00:0{port}"
                member.action["port"] = str(port)
                member.insert()
            group = p4sh.ActionProfileGroup(profile)(group_id=1)
            group.add(1, weight=1, watch_port=b"\x02")
            group.add(2, weight=1, watch_port=b"\x03")
            group.insert()
            entry = p4sh.TableEntry("MyIngress.ecmp")
            entry.match["hdr.ipv4.dstAddr"] = "10.0.9.9"
            entry.group_id = 1
            entry.insert()

            def sent_on(port: int) -> int:
                counter = p4sh.CounterEntry("MyIngress.port_tx")
                counter.index = port
                return next(iter(counter.read())).packet_count

            udp_flows(topo.h1, "10.0.9.9", 64)
            assert wait_for(lambda: sent_on(2) + sent_on(3) == 64)
            assert sent_on(2) > 0 and sent_on(3) > 0  # both paths carry flows
            before = sent_on(2)
            sh("ip", "link", "set", topo.sw2, "down")
            # the link monitor (polling every 200 ms) logs the change, then updates the group
            assert wait_for(lambda: f"port 2 ({topo.sw2}) is down" in log_file.read_text()), \
                "the switch did not see port 2 go down"
            udp_flows(topo.h1, "10.0.9.9", 64)
            assert wait_for(lambda: sent_on(2) + sent_on(3) == 128)
            assert sent_on(2) == before  # nothing chose the dead member
            sh("ip", "link", "set", topo.sw2, "up")
            assert wait_for(lambda: f"port 2 ({topo.sw2}) is up" in log_file.read_text()), \
                "the switch did not see port 2 come back"
            udp_flows(topo.h1, "10.0.9.9", 64)
            assert wait_for(lambda: sent_on(2) + sent_on(3) == 192)
            assert sent_on(2) > before  # the member is back
        finally:
            p4sh.teardown()
        log = log_file.read_text()
        assert "port 2 (" in log and "is down" in log and "is up" in log
