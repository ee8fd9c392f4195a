"""The MRC endpoint on real interfaces: two namespaces joined by a veth pair, no switch."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mrclab.endpoint.report import ReceiverReport, SenderReport

from .lab import LabResources, NetNamespace

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
SIZE_SEED = 7


def _endpoint(*args: str) -> list[str]:
    return [PY, "-m", "mrclab.endpoint", *args]


def _pair(lab: LabResources, unique) -> tuple[NetNamespace, NetNamespace, str, str]:
    """Namespaces a (10.79.0.1) and b (10.79.0.2) on one veth, static ARP both ways."""
    a, b = lab.namespace(unique("ea")), lab.namespace(unique("eb"))
    if_a, if_b = lab.veth(unique("mrcta"), unique("mrctb"), a, b)
    for ns, ifc, addr in ((a, if_a, "10.79.0.1/24"), (b, if_b, "10.79.0.2/24")):
        ns.run("ip", "addr", "add", addr, "dev", ifc)
    mac_a = a.run("cat", f"/sys/class/net/{if_a}/address").stdout.strip()
    mac_b = b.run("cat", f"/sys/class/net/{if_b}/address").stdout.strip()
    a.run("ip", "neigh", "replace", "10.79.0.2", "lladdr", mac_b, "dev", if_a, "nud", "permanent")
    b.run("ip", "neigh", "replace", "10.79.0.1", "lladdr", mac_a, "dev", if_b, "nud", "permanent")
    return a, b, if_a, if_b


def _start_receiver(lab: LabResources, ns: NetNamespace, iface: str, tmp: Path,
                    *extra: str) -> subprocess.Popen:
    proc = lab.track(ns.popen(*_endpoint("recv", "--iface", iface, "--out", str(tmp / "out.bin"),
                                         "--json", str(tmp / "recv.json"), *extra),
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True))
    line = proc.stdout.readline()  # "listening on ..." once the sockets are bound
    assert "listening on" in line, line + proc.stderr.read()
    return proc


def _send(ns: NetNamespace, tmp: Path, size: str, timeout: float = 60,
          *extra: str) -> subprocess.CompletedProcess:
    return ns.run(*_endpoint("send", "--dst", "10.79.0.2", "--size", size, "--seed",
                             str(SIZE_SEED), "--json", str(tmp / "send.json"),
                             "--timeout", str(timeout), *extra),
                  check=False, timeout=timeout + 30)


def _expected_sha(size: int) -> str:
    from mrclab.endpoint.cli import pseudo_random_bytes

    return hashlib.sha256(pseudo_random_bytes(size, SIZE_SEED)).hexdigest()


def _sent(tmp: Path) -> SenderReport:
    return SenderReport.from_json(json.loads((tmp / "send.json").read_text()))


def _received(tmp: Path) -> ReceiverReport:
    return ReceiverReport.from_json(json.loads((tmp / "recv.json").read_text()))


def _check_transfer(res: subprocess.CompletedProcess, recv: subprocess.Popen, tmp: Path,
                    size: int) -> SenderReport:
    assert res.returncode == 0, res.stdout + res.stderr
    assert recv.wait(timeout=30) == 0, recv.stderr.read()
    stats = _sent(tmp)
    want = _expected_sha(size)
    assert stats.ok and stats.sha256 == want
    assert hashlib.sha256((tmp / "out.bin").read_bytes()).hexdigest() == want
    rstats = _received(tmp)
    assert rstats.stats.messages_ok == 1 and rstats.stats.messages_bad == 0
    assert "goodput" in res.stdout and "retransmits" in res.stdout
    return stats


def test_veth_transfer_8m_sha256_match(lab, unique, tmp_path):
    a, b, _if_a, if_b = _pair(lab, unique)
    recv = _start_receiver(lab, b, if_b, tmp_path, "--once")
    res = _send(a, tmp_path, "8M")
    stats = _check_transfer(res, recv, tmp_path, 8 << 20)
    assert len(stats.pool.evs_used) == 64 and stats.counters.acks >= stats.packets
    assert stats.completion_time_s > 0 and stats.goodput_mbps > 1


def _impair(ns: NetNamespace, iface: str) -> str:
    """netem loss+reorder when the kernel has it; otherwise an HTB split by the low bit of
    the MRC `ev` into a fast and a slow class with short queues: reordering between the two
    'paths' and tail drops (loss) when the sender overruns them."""
    netem = ns.run("tc", "qdisc", "add", "dev", iface, "root", "netem", "loss", "3%",
                   "delay", "1ms", "reorder", "25%", "50%", check=False)
    if netem.returncode == 0:
        return "netem"
    cmds = [
        ["qdisc", "add", "dev", iface, "root", "handle", "1:", "htb", "default", "10"],
        ["class", "add", "dev", iface, "parent", "1:", "classid", "1:10", "htb", "rate",
         "200mbit"],
        ["class", "add", "dev", iface, "parent", "1:", "classid", "1:20", "htb", "rate",
         "40mbit"],
        ["qdisc", "add", "dev", iface, "parent", "1:10", "handle", "10:", "pfifo", "limit",
         "30"],
        ["qdisc", "add", "dev", iface, "parent", "1:20", "handle", "20:", "pfifo", "limit",
         "10"],
        # ev is at IP offset 20 (IPv4) + 8 (UDP) + 2 = 30
        ["filter", "add", "dev", iface, "parent", "1:", "protocol", "ip", "u32", "match",
         "u16", "0x0001", "0x0001", "at", "30", "flowid", "1:20"],
    ]
    for cmd in cmds:
        res = ns.run("tc", *cmd, check=False)
        if res.returncode != 0:
            pytest.skip(f"neither netem nor htb+u32 usable here: {res.stderr.strip()}")
    return "htb"


def test_veth_transfer_with_loss_and_reordering(lab, unique, tmp_path):
    a, b, if_a, if_b = _pair(lab, unique)
    _impair(a, if_a)
    recv = _start_receiver(lab, b, if_b, tmp_path, "--once")
    res = _send(a, tmp_path, "4M")
    stats = _check_transfer(res, recv, tmp_path, 4 << 20)
    assert stats.counters.retransmits > 0  # the impairment did bite, and was repaired
    assert _received(tmp_path).stats.duplicates <= stats.counters.retransmits


def test_receiver_killed_mid_transfer_fails_sender_clearly(lab, unique, tmp_path):
    a, b, if_a, if_b = _pair(lab, unique)
    _impair(a, if_a)  # slows the transfer so that it is surely still running
    recv = _start_receiver(lab, b, if_b, tmp_path, "--once")
    sender = lab.track(a.popen(*_endpoint("send", "--dst", "10.79.0.2", "--size", "100M",
                                          "--timeout", "60", "--idle-timeout", "2",
                                          "--json", str(tmp_path / "send.json")),
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True))
    assert "sending" in sender.stdout.readline()
    assert "acked" in sender.stdout.readline()  # first progress line: data is flowing
    os.killpg(recv.pid, signal.SIGKILL)
    killed = time.monotonic()
    _out, err = sender.communicate(timeout=30)
    waited = time.monotonic() - killed
    assert sender.returncode == 1
    assert err.strip().splitlines()[-1] == ("send failed: no answer from the receiver for "
                                            "2 s, nor to a last probe on every plane (1)")
    assert "Traceback" not in err
    assert waited < 6  # 2 s of silence, then one RTO for the last probes (at most 2/3 s)
    stats = _sent(tmp_path)
    assert not stats.ok and "no answer" in stats.error


def test_receiver_survives_garbage_and_strangers(lab, unique, tmp_path):
    a, b, if_a, if_b = _pair(lab, unique)
    recv = _start_receiver(lab, b, if_b, tmp_path, "--once")
    garbage = f"""
import random
from scapy.all import Ether, IP, UDP, Raw, sendp
from mrclab.endpoint.layers import MRC
rng = random.Random(1)
base = Ether(dst=open('/sys/class/net/{if_a}/address').read().strip()) / IP(src='10.79.0.1', dst='10.79.0.2') / UDP(sport=4793, dport=4793)
frames = [base / Raw(rng.randbytes(rng.randrange(0, 60))) for _ in range(40)]
frames += [base / MRC(type='DATA', conn=0xdead, psn=i, length=3) / Raw(b'abc') for i in range(20)]
frames += [base / MRC(type='ACK', conn=0xbeef, ack=5) for _ in range(5)]
frames += [base / MRC(type='PROBE', conn=0, offset=1 << 40 & 0xffffffff, length=0) for _ in range(3)]
sendp(frames, iface='{if_a}', verbose=False)
"""
    # Frames go from a to b; Ether dst must be b's MAC, so fix it up in the script.
    mac_b = b.run("cat", f"/sys/class/net/{if_b}/address").stdout.strip()
    garbage = garbage.replace(f"open('/sys/class/net/{if_a}/address').read().strip()",
                              repr(mac_b))
    sent = a.run(PY, "-c", garbage, check=False, timeout=60)
    assert sent.returncode == 0, sent.stderr
    res = _send(a, tmp_path, "2M")
    _check_transfer(res, recv, tmp_path, 2 << 20)
    rstats = _received(tmp_path)
    assert rstats.garbage >= 30  # random payloads that are not MRC headers
    # the DATA of no connection, and the opens of 0 bytes per packet; the ACKs never reach
    # a receiver's socket (the kernel filter keeps what goes to a sender from it)
    assert rstats.stats.unknown_conn >= 20 and rstats.stats.invalid >= 3


def test_capture_dissects_with_scapy_layer(lab, unique, tmp_path):
    a, b, _if_a, if_b = _pair(lab, unique)
    pcap = tmp_path / "cap.pcap"
    sniffer = lab.track(b.popen(PY, "-c", (
        "from scapy.all import sniff, wrpcap\n"
        "import mrclab.endpoint.layers\n"
        f"wrpcap({str(pcap)!r}, sniff(iface={if_b!r}, filter=None, count=40, timeout=20,"
        " started_callback=lambda: print('ready', flush=True)))\n"),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    assert sniffer.stdout.readline().strip() == "ready", sniffer.stderr.read()
    recv = _start_receiver(lab, b, if_b, tmp_path, "--once")
    res = _send(a, tmp_path, "64K")
    _check_transfer(res, recv, tmp_path, 64 << 10)
    sniffer.wait(timeout=30)
    from scapy.utils import rdpcap

    from mrclab.endpoint.layers import MRC

    pkts = [p for p in rdpcap(str(pcap)) if p.haslayer(MRC)]
    kinds = {p[MRC].sprintf("%type%") for p in pkts}
    assert {"PROBE", "PROBE_REPLY", "DATA", "ACK"} <= kinds
    data = next(p for p in pkts if p[MRC].type == 0)
    assert data[MRC].version == 1 and data[MRC].length > 0 and data[MRC].conn != 0


def test_two_planes_two_veths(lab, unique, tmp_path):
    """A host with two NICs: one plane per destination address, both carry data."""
    a, b, if_a, if_b = _pair(lab, unique)
    if_a2, if_b2 = lab.veth(unique("mrctc"), unique("mrctd"), a, b)
    a.run("ip", "addr", "add", "10.79.1.1/24", "dev", if_a2)
    b.run("ip", "addr", "add", "10.79.1.2/24", "dev", if_b2)
    mac_b2 = b.run("cat", f"/sys/class/net/{if_b2}/address").stdout.strip()
    mac_a2 = a.run("cat", f"/sys/class/net/{if_a2}/address").stdout.strip()
    a.run("ip", "neigh", "replace", "10.79.1.2", "lladdr", mac_b2, "dev", if_a2)
    b.run("ip", "neigh", "replace", "10.79.1.1", "lladdr", mac_a2, "dev", if_b2)
    recv = _start_receiver(lab, b, f"{if_b},{if_b2}", tmp_path, "--once")
    res = a.run(*_endpoint("send", "--dst", "10.79.0.2,10.79.1.2", "--size", "4M", "--seed",
                           str(SIZE_SEED), "--evs", "16", "--json",
                           str(tmp_path / "send.json")), check=False, timeout=90)
    stats = _check_transfer(res, recv, tmp_path, 4 << 20)
    assert [p.iface for p in stats.planes] == [if_a, if_a2]
    assert len(stats.pool.evs_used) == 32  # 16 per plane, every one used
    tx_bytes = [int(a.run("cat", f"/sys/class/net/{i}/statistics/tx_bytes").stdout)
                for i in (if_a, if_a2)]
    # Both NICs carried a real share (recycled EVs follow the faster ACKs, so not 50/50).
    assert min(tx_bytes) > (4 << 20) / 8


def test_a_hosts_sockets_do_not_receive_each_others_transmissions(lab, unique, tmp_path):
    """A sender and a receiver share a host's interface: without PACKET_IGNORE_OUTGOING,
    each of the sender's DATA frames would be copied to the receiver's socket too (half of
    a host's receive work in the experiments)."""
    a, _b, if_a, _if_b = _pair(lab, unique)
    probe = f"""
from mrclab.endpoint.netio import FrameAddress, FrameBuilder
from mrclab.endpoint.rawsocket import RawLink
from mrclab.endpoint.wire import MrcHeader, MsgType
import time
sender, other = RawLink({if_a!r}), RawLink({if_a!r})
frame = FrameBuilder(FrameAddress.of('02:00:00:00:00:01', '02:00:00:00:00:02', '10.79.0.1',
                                     '10.79.0.2')).build(MrcHeader(type=MsgType.DATA, conn=1), bytes(100))
sender.send(frame)
time.sleep(0.2)  # waiting for something that must not come: an echo would be here by now
try:
    other.sock.recvfrom(65535)
    print('echoed')
except BlockingIOError:
    print('quiet')
"""
    out = a.run("sh", "-c", f'cd {ROOT} && exec {PY} -c "$0"', probe, check=False)
    assert out.stdout.strip() == "quiet", out.stdout + out.stderr


def test_a_senders_and_a_receivers_sockets_each_get_only_their_ends_frames(lab, unique):
    """The kernel filter splits a host's MRC frames between its sender and its receiver:
    each wakes up only for its own (before, each parsed and dropped the other's: twice the
    endpoints' work in the experiments). A frame too short to judge reaches both."""
    a, b, if_a, if_b = _pair(lab, unique)
    listen = f"""
from mrclab.endpoint.netio import parse_frame
from mrclab.endpoint.rawsocket import RawLink
from mrclab.endpoint.wire import TO_RECEIVER, TO_SENDER, MalformedPacket, MsgType
import time
links = {{'sender': RawLink({if_b!r}, accept=TO_SENDER),
          'receiver': RawLink({if_b!r}, accept=TO_RECEIVER),
          'any': RawLink({if_b!r})}}
print('ready', flush=True)
time.sleep(1.0)
for name, link in links.items():
    seen = []
    for frame in link.recv_batch():
        try:
            seen.append(MsgType(parse_frame(frame).header.type).name)
        except MalformedPacket:
            seen.append('short')
    print(name, ' '.join(seen))
"""
    proc = lab.track(b.popen(PY, "-c", listen, cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True))
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    send = f"""
from mrclab.endpoint.netio import FrameAddress, FrameBuilder
from mrclab.endpoint.rawsocket import RawLink
from mrclab.endpoint.wire import MrcHeader, MsgType
link = RawLink({if_a!r}, accept=frozenset())
build = FrameBuilder(FrameAddress.of('02:00:00:00:00:01', '02:00:00:00:00:02', '10.79.0.1',
                                     '10.79.0.2')).build
for t in MsgType:
    link.send(build(MrcHeader(type=t, conn=1), bytes(10)))
link.send(build(MrcHeader(type=MsgType.DATA, conn=1))[:14 + 20 + 8])  # UDP header, no MRC
"""
    out = a.run("sh", "-c", f'cd {ROOT} && exec {PY} -c "$0"', send, check=False)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in proc.communicate(timeout=10)[0].splitlines())
    assert lines["sender"].split() == ["ACK", "NACK", "PROBE_REPLY", "short"]
    assert lines["receiver"].split() == ["DATA", "PROBE", "short"]
    assert lines["any"].split() == ["DATA", "ACK", "NACK", "PROBE", "PROBE_REPLY", "short"]
